/* host/napps/api_table.c - the function table every NApp receives.  Filled once;
 * the store and event modules fill their own slots. */
#include "core/hostimpl.h"
#include "events/eventbus.h"
#include "util/log.h"
#include "store/store.h"
#include "southbound/southbound.h"
#include <pthread.h>
#include <stdlib.h>

static struct kytos_api table;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *api_malloc(size_t n) { return malloc(n ? n : 1); }
static void api_free(void *p) { free(p); }
static const char *api_napp_id(const kytos_napp *n) { return kh_napp_id(n); }
static void api_set_data(kytos_napp *n, void *d) { n->data = d; }
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
    return kh_call(caller->host, caller, method, path, body, len, body && len ? json_ct : NULL, 0, out);
}

static void fill(void)
{
    table.size = sizeof table;
    table.abi_major = KYTOS_ABI_MAJOR;
    table.abi_minor = KYTOS_ABI_MINOR;
    table.malloc = api_malloc;
    table.free = api_free;
    table.strerror = kh_strerror;
    table.napp_id = api_napp_id;
    table.napp_set_data = api_set_data;
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
    table.response_status = kh_response_status;
    table.response_body = kh_response_body;
    table.response_json = kh_response_json;
    table.response_header = kh_response_header;
    table.response_free = kh_response_free;
    table.resp_static = kh_resp_static;
    kh_bus_api_fill(&table);
    kh_store_api_fill(&table);
    kh_sb_api_fill(&table);
}

const struct kytos_api *kh_host_api(void)
{
    pthread_once(&once, fill);
    return &table;
}
