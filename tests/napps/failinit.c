/* tests/napps/failinit.c - a NApp whose init registers a route, then fails:
 * the host must refuse it and undo the route. */
#include <kytos/kytos.h>
#include <string.h>

static int never(kytos_req *req, void *ud)
{
    (void)ud;
    return kytos_resp_json_take(req, 200, json_object_new_string("must not be reachable"));
}

static int failinit_init(kytos_napp *n, char **errmsg)
{
    kytos_route_add(n, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                             .method = "GET", .path = "v1/", .handler = never});
    *errmsg = kytos_malloc(64);
    if (*errmsg)
        strcpy(*errmsg, "the database of this test is missing");
    return KYTOS_ERROR;
}

KYTOS_NAPP_DEFINE("kytos", "failinit", "0.0.1", KYTOS_NO_DEPS, NULL, 0, 0, failinit_init, NULL, NULL);
