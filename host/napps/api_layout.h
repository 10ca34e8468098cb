/* host/napps/api_layout.h - the frozen layout of the ABI: the offset of
 * every slot of struct kytos_api and of every field of the NApp descriptor,
 * checked at compile time.  Reordering, removing or resizing anything fails
 * the build; appending a slot fails it too until the slot is added here
 * (and KYTOS_ABI_MINOR bumped, with a line in version.h's history).
 * Offsets are written in pointer sizes, so the check holds on 32-bit and
 * 64-bit targets alike.  Included once, by api_table.c. */
#ifndef KH_API_LAYOUT_H
#define KH_API_LAYOUT_H

#include <kytos/api.h>
#include <stddef.h>

#define KH_P sizeof(void *)
#define KH_SLOT(name, index)                                                            \
    _Static_assert(offsetof(struct kytos_api, name) == 8 + (index) * KH_P,              \
                   "struct kytos_api: slot " #name " moved (the ABI is append-only)")

/* header: uint32_t struct_size, uint16_t abi_major, abi_minor */
_Static_assert(offsetof(struct kytos_api, struct_size) == 0, "kytos_api.struct_size moved");
_Static_assert(offsetof(struct kytos_api, abi_major) == 4, "kytos_api.abi_major moved");
_Static_assert(offsetof(struct kytos_api, abi_minor) == 6, "kytos_api.abi_minor moved");

/* ABI 1.0 */
KH_SLOT(malloc, 0);
KH_SLOT(free, 1);
KH_SLOT(strerror, 2);
KH_SLOT(napp_id, 3);
KH_SLOT(napp_set_data, 4);
KH_SLOT(napp_data, 5);
KH_SLOT(napp_settings, 6);
KH_SLOT(logv, 7);
KH_SLOT(log_enabled, 8);
KH_SLOT(route_add, 9);
KH_SLOT(req_method, 10);
KH_SLOT(req_path, 11);
KH_SLOT(req_param, 12);
KH_SLOT(req_param_int, 13);
KH_SLOT(req_param_double, 14);
KH_SLOT(req_query, 15);
KH_SLOT(req_query_all, 16);
KH_SLOT(req_query_json, 17);
KH_SLOT(req_header, 18);
KH_SLOT(req_body, 19);
KH_SLOT(req_json, 20);
KH_SLOT(req_alloc, 21);
KH_SLOT(req_napp, 22);
KH_SLOT(resp_json, 23);
KH_SLOT(resp_raw, 24);
KH_SLOT(resp_errorv, 25);
KH_SLOT(resp_header, 26);
KH_SLOT(req_finish, 27);
KH_SLOT(call, 28);
KH_SLOT(response_status, 29);
KH_SLOT(response_body, 30);
KH_SLOT(response_json, 31);
KH_SLOT(response_header, 32);
KH_SLOT(response_free, 33);
KH_SLOT(event_subscribe, 34);
KH_SLOT(event_publish, 35);
KH_SLOT(event_name, 36);
KH_SLOT(event_content, 37);
KH_SLOT(event_id, 38);
KH_SLOT(event_time_us, 39);
KH_SLOT(event_priority, 40);
KH_SLOT(event_reinjections, 41);
KH_SLOT(pace, 42);
KH_SLOT(timer_add, 43);
KH_SLOT(store_get, 44);
KH_SLOT(store_put, 45);
KH_SLOT(store_insert, 46);
KH_SLOT(store_patch, 47);
KH_SLOT(store_delete, 48);
KH_SLOT(store_find, 49);
KH_SLOT(cursor_next, 50);
KH_SLOT(cursor_free, 51);
KH_SLOT(store_count, 52);
KH_SLOT(store_bulk, 53);
KH_SLOT(store_index, 54);
KH_SLOT(resp_static, 55);
/* ABI 1.1 */
KH_SLOT(store_bulk_async, 56);
/* ABI 1.2 */
KH_SLOT(event_publish_give, 57);
KH_SLOT(event_wanted, 58);
KH_SLOT(event_take_content, 59);
/* ABI 1.3 */
KH_SLOT(napp_set_data_full, 60);
/* ABI 1.4: switch connections (conn.h) */
KH_SLOT(conn_handle, 61);
KH_SLOT(conn_ref, 62);
KH_SLOT(conn_unref, 63);
KH_SLOT(conn_get, 64);
KH_SLOT(conn_send, 65);
KH_SLOT(conn_send_give, 66);
KH_SLOT(conn_send_notify, 67);
KH_SLOT(conn_close, 68);
KH_SLOT(conn_set_data, 69);
KH_SLOT(conn_data, 70);
KH_SLOT(conn_set_state, 71);
KH_SLOT(conn_set_switch, 72);
KH_SLOT(conn_id, 73);
KH_SLOT(conn_info, 74);
KH_SLOT(conn_json, 75);
KH_SLOT(req_identity, 76);
/* ABI 1.6 */
KH_SLOT(call_give, 77);
_Static_assert(sizeof(struct kytos_api) == 8 + 78 * KH_P,
               "struct kytos_api grew: add the new slot above and bump KYTOS_ABI_MINOR");

/* The table's size at each ABI minor (what a host of that minor hands out):
 * the offset of the first slot of the next minor. */
#define KH_API_SIZE_1_0 offsetof(struct kytos_api, store_bulk_async)
#define KH_API_SIZE_1_1 offsetof(struct kytos_api, event_publish_give)
#define KH_API_SIZE_1_2 offsetof(struct kytos_api, napp_set_data_full)
#define KH_API_SIZE_1_3 offsetof(struct kytos_api, conn_handle)
#define KH_API_SIZE_1_4 offsetof(struct kytos_api, req_identity)
#define KH_API_SIZE_1_5 offsetof(struct kytos_api, call_give)
#define KH_API_SIZE_1_6 sizeof(struct kytos_api)
_Static_assert(KYTOS_ABI_MAJOR == 1 && KYTOS_ABI_MINOR == 6,
               "a new ABI minor needs its KH_API_SIZE_1_x above and in api_table.c");

/* The descriptor: read by the host before any NApp code runs. */
#define KH_DESC(field, off)                                                             \
    _Static_assert(offsetof(struct kytos_napp_desc, field) == (off),                    \
                   "struct kytos_napp_desc: " #field " moved")
KH_DESC(magic, 0);
KH_DESC(abi_major, 4);
KH_DESC(abi_min_minor, 6);
KH_DESC(struct_size, 8);
KH_DESC(flags, 12);
KH_DESC(build_sig, 16);
KH_DESC(username, 16 + 1 * KH_P);
KH_DESC(name, 16 + 2 * KH_P);
KH_DESC(version, 16 + 3 * KH_P);
KH_DESC(deps, 16 + 4 * KH_P);
KH_DESC(openapi, 16 + 5 * KH_P);
KH_DESC(openapi_len, 16 + 6 * KH_P);
KH_DESC(init, 16 + 7 * KH_P);
KH_DESC(start, 16 + 8 * KH_P);
KH_DESC(stop, 16 + 9 * KH_P);
KH_DESC(openapi_len_fn, 16 + 10 * KH_P);
KH_DESC(reserved, 16 + 11 * KH_P);
_Static_assert(sizeof(size_t) == KH_P, "size_t and pointers differ in size");
_Static_assert(sizeof(struct kytos_napp_desc) == 16 + 18 * KH_P,
               "struct kytos_napp_desc changed size");

#undef KH_P
#undef KH_SLOT
#undef KH_DESC

#endif
