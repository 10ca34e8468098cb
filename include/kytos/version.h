/* kytos/version.h - versions of the host and of the NApp ABI.
 *
 * ABI history (append a line for every change, as Apache's ap_mmn.h does):
 *   1.0  first stable table: memory, log, routes, requests, responses,
 *        in-process calls, events, pacer, timers, store, settings.
 *   1.1  store_bulk_async: a bulk write queued for group commit, answered
 *        by a callback (lets a handler answer without holding a thread);
 *        the "inline" event pool (a handler on the buffer's own thread).
 *   1.2  event_publish_give (publish without the copy), event_wanted (is
 *        anyone subscribed to a name), event_take_content (a handler keeps
 *        its copy of the content); the "direct" event pool (a handler on
 *        the publisher's thread).
 *   1.2  (no new slot) the descriptor's abi_minor became abi_min_minor, the
 *        lowest minor the NApp needs (KYTOS_NAPP_ABI_MIN_MINOR, default the
 *        headers' minor, which older NApps hold there): hosts load any NApp
 *        whose minimum they meet; reserved[0] became openapi_len_fn; size
 *        fields are all uint32_t struct_size (kytos_api.size and desc_size
 *        renamed, same place and type).
 *   1.3  napp_set_data_full: NApp data with a release function, run once
 *        after a failed init (whatever step failed) or after stop.
 *   1.4  switch connections (conn.h): the southbound server's connections
 *        for a protocol NApp: handler callbacks, send (copy, give, and
 *        send-then-notify), close, references, per-connection data,
 *        state, switch name, info.
 *   1.5  req_identity: the caller a request's token names (user or
 *        machine token, and role), so a NApp may refine access itself.
 *   1.5  (no new slot) a NApp may export a second data symbol,
 *        kytos_napp_ui (struct kytos_napp_ui, api.h): its ui/ files, which
 *        the host finds with dlsym and serves at /ui/{user}/{name}/; hosts
 *        that predate it ignore it.
 *   1.5  (no new slot) struct kytos_find gained flags (appended; hosts
 *        copy struct_size bytes): KYTOS_FIND_TEXT, documents handed out
 *        as their JSON text; hosts that predate it give objects.
 *   1.6  call_give: an in-process call whose body is a json-c tree, taken;
 *        a route that reads its body itself gets the tree (kytos_req_json)
 *        without the text written and parsed again (kytos_call_give falls
 *        back to text on older hosts).
 *
 * The ABI minor goes up when a slot is appended to struct kytos_api; the
 * major goes up when any existing slot changes meaning or signature.
 */
#ifndef KYTOS_VERSION_H
#define KYTOS_VERSION_H

#include <json-c/json_c_version.h>

#define KYTOS_VERSION_MAJOR 0
#define KYTOS_VERSION_MINOR 1
#define KYTOS_VERSION_PATCH 0
#define KYTOS_VERSION_STRING "0.1.0"

#define KYTOS_ABI_MAJOR 1
#define KYTOS_ABI_MINOR 6

/* True when the headers in use are at least ABI maj.min (compile time). */
#define KYTOS_ABI_AT_LEAST(maj, min) \
    (KYTOS_ABI_MAJOR > (maj) || (KYTOS_ABI_MAJOR == (maj) && KYTOS_ABI_MINOR >= (min)))

#define KYTOS__STR2(x) #x
#define KYTOS__STR(x) KYTOS__STR2(x)

/* What changes the binary contract beyond our own headers: pointer and long
 * sizes, and the json-c version, because struct json_object crosses the
 * boundary.  The host refuses a NApp whose signature differs (nginx rule). */
#define KYTOS_BUILD_SIGNATURE                                         \
    "kytos-abi" KYTOS__STR(KYTOS_ABI_MAJOR)                           \
    ":ptr" KYTOS__STR(__SIZEOF_POINTER__)                             \
    ":long" KYTOS__STR(__SIZEOF_LONG__)                               \
    ":json-c" KYTOS__STR(JSON_C_MAJOR_VERSION) "." KYTOS__STR(JSON_C_MINOR_VERSION) \
    ":pthread"

#endif
