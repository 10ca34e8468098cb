/* bench/benchnapp.c - kytos/bench: the kytosd side of the ceiling
 * comparison.  GET fixed8k answers the same 8 KB JSON as bench/ceiling
 * (inline, as GET topology/v3 serves a cached body); POST sink reads the
 * parsed body and answers 202. */
#include "body8k.h"
#include <kytos/kytos.h>

static char body[8700];
static size_t body_len;

static int fixed8k(kytos_req *req, void *ud)
{
    (void)ud;
    return kytos_resp_static(req, 200, "application/json", body, body_len, NULL, NULL);
}

static int sink(kytos_req *req, void *ud)
{
    static const char accepted[] = "{\"response\":\"FlowMod Messages Sent\"}";
    (void)ud;
    return kytos_resp_raw(req, 202, "application/json", accepted, sizeof accepted - 1);
}

static int bench_init(kytos_napp *n, char **errmsg)
{
    (void)errmsg;
    body_len = bench_body8k(body, sizeof body);
    if (kytos_route_add(n, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                 .method = "GET", .path = "fixed8k",
                                                 .handler = fixed8k, .flags = KYTOS_ROUTE_INLINE}))
        return KYTOS_ERROR;
    return kytos_route_add(n, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                    .method = "POST", .path = "sink", .handler = sink});
}

KYTOS_NAPP_DEFINE("kytos", "bench", "0.0.1", KYTOS_NO_DEPS, NULL, 0, 0, bench_init, NULL, NULL);
