/* tests/napps/failinit.c - a NApp whose init builds state, registers a
 * route, then fails: the host must refuse it, undo the route, and release
 * the state through napp_set_data_full (stop is not called after a failed
 * init). */
#include <kytos/kytos.h>
#include <string.h>

static int never(kytos_req *req, void *ud)
{
    (void)ud;
    return kytos_resp_json_take(req, 200, json_object_new_string("must not be reachable"));
}

static void release(kytos_napp *n, void *data)
{
    kytos_log(n, KYTOS_LOG_WARNING, "failinit: released its state (%s)", (const char *)data);
    kytos_free(data);
}

static void failinit_stop(kytos_napp *n)
{
    kytos_log(n, KYTOS_LOG_ERROR, "failinit: stop called after a failed init");
}

static int failinit_init(kytos_napp *n, char **errmsg)
{
    char *state = kytos_malloc(32);

    if (state) {
        strcpy(state, "a buffer from init");
        if (kytos_napp_set_data_full(n, state, release) != KYTOS_OK)
            kytos_free(state);
    }
    kytos_route_add(n, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                             .method = "GET", .path = "v1/", .handler = never});
    *errmsg = kytos_malloc(64);
    if (*errmsg)
        strcpy(*errmsg, "the database of this test is missing");
    return KYTOS_ERROR;
}

KYTOS_NAPP_DEFINE("kytos", "failinit", "0.0.1", KYTOS_NO_DEPS, NULL, 0, 0, failinit_init, NULL,
                  failinit_stop);
