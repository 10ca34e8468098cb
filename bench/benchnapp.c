/* bench/benchnapp.c - kytos/bench: the kytosd side of the ceiling
 * comparison.  GET fixed8k answers the same 8 KB JSON as bench/ceiling
 * (inline, as GET topology/v3 serves a cached body); POST sink answers 202
 * from a worker thread once the host parsed the body; sink_inline does the
 * same on the I/O thread, and sink_stored also queues one store write (an
 * upsert of one document, as a flow POST's) and answers once it is
 * committed: what a flow POST costs before flow_manager's own work.
 * POST evc_checked and evc_unchecked take
 * mef_eline's EVC create body, the first checked against mef_eline's real
 * NewCircuit operation (bound by operationId), the second only parsed:
 * the difference is what OpenAPI validation costs a request. */
#include "body8k.h"
#include <kytos/kytos.h>

extern const char bench_openapi[];
extern const size_t bench_openapi_len;

static char body[8700];
static size_t body_len;

static int fixed8k(kytos_req *req, void *ud)
{
    (void)ud;
    return kytos_resp_static(req, 200, "application/json", body, body_len, NULL, NULL);
}

static const char accepted[] = "{\"response\":\"FlowMod Messages Sent\"}";

static int sink(kytos_req *req, void *ud)
{
    (void)ud;
    return kytos_resp_raw(req, 202, "application/json", accepted, sizeof accepted - 1);
}

static void stored(void *ud, int rc, const struct kytos_error *err)
{
    kytos_req *req = ud;

    if (rc == KYTOS_OK)
        kytos_resp_raw(req, 202, "application/json", accepted, sizeof accepted - 1);
    else
        kytos_resp_error(req, 500, "%s", err ? err->message : "store write failed");
    kytos_req_finish(req);
}

static int sink_stored(kytos_req *req, void *ud)
{
    struct json_object *upd = json_object_new_object(), *set = json_object_new_object();
    struct kytos_write op = {.op = KYTOS_WRITE_PATCH, .id = "sink", .flags = KYTOS_STORE_UPSERT};
    struct kytos_error err = {0};
    int rc;

    kytos_json_add_lit(set, "state", json_object_new_string("pending"));
    kytos_json_add_lit(upd, "$set", set);
    op.doc = upd;
    rc = kytos_store_bulk_async_give(ud, "bench", &op, 1, stored, req, &err);
    if (rc != KYTOS_OK)
        return kytos_resp_error(req, rc == KYTOS_EFULL ? 503 : 500, "%s", err.message);
    return KYTOS_DEFERRED;
}

static int created(kytos_req *req, void *ud)
{
    static const char answer[] = "{\"circuit_id\":\"0123456789abcd\",\"deployed\":false}";
    (void)ud;
    if (!kytos_req_json(req))
        return kytos_resp_error(req, 400, "no body");
    return kytos_resp_static(req, 201, "application/json", answer, sizeof answer - 1, NULL, NULL);
}

static int bench_init(kytos_napp *n, char **errmsg)
{
    (void)errmsg;
    body_len = bench_body8k(body, sizeof body);
    if (kytos_route_add(n, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                 .method = "POST", .path = "evc_checked",
                                                 .handler = created, .flags = KYTOS_ROUTE_VALIDATE,
                                                 .operation = "create_circuit"}) ||
        kytos_route_add(n, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                 .method = "POST", .path = "evc_unchecked",
                                                 .handler = created}))
        return KYTOS_ERROR;
    if (kytos_route_add(n, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                 .method = "GET", .path = "fixed8k",
                                                 .handler = fixed8k, .flags = KYTOS_ROUTE_INLINE}))
        return KYTOS_ERROR;
    if (kytos_route_add(n, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                 .method = "POST", .path = "sink_inline",
                                                 .handler = sink, .flags = KYTOS_ROUTE_INLINE}) ||
        kytos_route_add(n, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                 .method = "POST", .path = "sink_stored",
                                                 .handler = sink_stored, .ud = n,
                                                 .flags = KYTOS_ROUTE_INLINE}))
        return KYTOS_ERROR;
    return kytos_route_add(n, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                    .method = "POST", .path = "sink", .handler = sink});
}

KYTOS_NAPP_DEFINE("kytos", "bench", "0.0.1", KYTOS_NO_DEPS, bench_openapi, bench_openapi_len, 0,
                  bench_init, NULL, NULL);
