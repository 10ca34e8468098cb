/* host/napps/api_table.c - the function table every NApp receives.  Filled once;
 * the store and event modules fill their own slots.  For tests it can also
 * hand out the smaller table of an older ABI minor (kh_host_api_emulate). */
#include "core/hostimpl.h"
#include "events/eventbus.h"
#include "napps/api_layout.h"
#include "util/log.h"
#include "store/store.h"
#include "southbound/southbound.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static struct kytos_api table;
/* older[m]: the table as a host of ABI 1.m gives it (m < KYTOS_ABI_MINOR) */
static struct kytos_api older[KYTOS_ABI_MINOR];
static const size_t size_at_minor[KYTOS_ABI_MINOR + 1] = {
    KH_API_SIZE_1_0, KH_API_SIZE_1_1, KH_API_SIZE_1_2, KH_API_SIZE_1_3, KH_API_SIZE_1_4,
    KH_API_SIZE_1_5, KH_API_SIZE_1_6
};
static atomic_int emulated = -1;    /* -1: the full table */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *api_malloc(size_t n) { return malloc(n ? n : 1); }
static void api_free(void *p) { free(p); }
static const char *api_napp_id(const kytos_napp *n) { return kh_napp_id(n); }
static void api_set_data(kytos_napp *n, void *d)
{
    n->data = d;
    n->release = NULL;
}

static void api_set_data_full(kytos_napp *n, void *d, void (*release)(kytos_napp *, void *))
{
    n->data = d;
    n->release = release;
}
static void *api_data(const kytos_napp *n) { return n->data; }
static struct json_object *api_settings(const kytos_napp *n) { return n->settings; }

static void api_logv(const kytos_napp *n, int level, const char *fmt, va_list ap)
{
    kh_logv(n ? n->logger : "kytos.napps", level, fmt, ap);
}

static int api_log_enabled(const kytos_napp *n, int level)
{
    return kh_log_enabled(n ? n->logger : "kytos.napps", level);
}

static int api_call(kytos_napp *caller, const char *method, const char *path, const char *body,
                    size_t len, kytos_response **out)
{
    /* bodies of in-process calls are JSON, as kytos_call documents */
    static const char *const json_ct[] = {"Content-Type: application/json", NULL};
    if (!caller)
        return KYTOS_EINVAL;
    return kh_call(&caller->host->web, caller, method, path, body, len, body && len ? json_ct : NULL, 0, out);
}

static int api_call_give(kytos_napp *caller, const char *method, const char *path,
                         struct json_object *body, kytos_response **out)
{
    static const char *const json_ct[] = {"Content-Type: application/json", NULL};
    if (!caller) {
        json_object_put(body);
        return KYTOS_EINVAL;
    }
    return kh_call_give(&caller->host->web, caller, method, path, body, body ? json_ct : NULL, out);
}

/* How the ABI slots of the bus and the store find the caller's. */
static kh_bus *napp_bus(const kytos_napp *n) { return n->host ? kh_host_bus(n->host) : NULL; }
static kh_store *napp_store(const kytos_napp *n) { return n->host ? kh_host_store(n->host) : NULL; }

static void fill(void)
{
    table.struct_size = sizeof table;
    table.abi_major = KYTOS_ABI_MAJOR;
    table.abi_minor = KYTOS_ABI_MINOR;
    table.malloc = api_malloc;
    table.free = api_free;
    table.strerror = kh_strerror;
    table.napp_id = api_napp_id;
    table.napp_set_data = api_set_data;
    table.napp_set_data_full = api_set_data_full;
    table.napp_data = api_data;
    table.napp_settings = api_settings;
    table.logv = api_logv;
    table.log_enabled = api_log_enabled;
    table.route_add = kh_napp_route_add;
    table.req_method = kh_req_method;
    table.req_path = kh_req_path;
    table.req_param = kh_req_param;
    table.req_param_int = kh_req_param_int;
    table.req_param_double = kh_req_param_double;
    table.req_query = kh_req_query;
    table.req_query_all = kh_req_query_all;
    table.req_query_json = kh_req_query_json;
    table.req_header = kh_req_header;
    table.req_body = kh_req_body;
    table.req_json = kh_req_json;
    table.req_alloc = kh_req_alloc;
    table.req_napp = kh_req_napp;
    table.resp_json = kh_resp_json;
    table.resp_raw = kh_resp_raw;
    table.resp_errorv = kh_resp_errorv;
    table.resp_header = kh_resp_header;
    table.req_finish = kh_req_finish;
    table.call = api_call;
    table.call_give = api_call_give;
    table.response_status = kh_response_status;
    table.response_body = kh_response_body;
    table.response_json = kh_response_json;
    table.response_header = kh_response_header;
    table.response_free = kh_response_free;
    table.resp_static = kh_resp_static;
    table.req_identity = kh_req_identity;
    kh_bus_api_fill(&table, napp_bus);
    kh_store_api_fill(&table, napp_store, kh_host_napp_ops());
    kh_sb_api_fill(&table);
    for (unsigned m = 0; m < KYTOS_ABI_MINOR; m++) {
        /* the slots of later minors are not there: zero, and past struct_size */
        memset(&older[m], 0, sizeof older[m]);
        memcpy(&older[m], &table, size_at_minor[m]);
        older[m].struct_size = (uint32_t)size_at_minor[m];
        older[m].abi_minor = (uint16_t)m;
    }
}

const struct kytos_api *kh_host_api(void)
{
    int m;

    pthread_once(&once, fill);
    m = atomic_load_explicit(&emulated, memory_order_acquire);
    return m >= 0 && m < KYTOS_ABI_MINOR ? &older[m] : &table;
}

int kh_host_api_emulate(int minor)
{
    if (minor > KYTOS_ABI_MINOR)
        return KYTOS_EINVAL;
    atomic_store_explicit(&emulated, minor < 0 || minor == KYTOS_ABI_MINOR ? -1 : minor,
                          memory_order_release);
    return KYTOS_OK;
}
