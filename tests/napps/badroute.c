/* tests/napps/badroute.c - a NApp that asks route_add for validation on a
 * route its OpenAPI spec does not describe: route_add must refuse that
 * route at once (an error status), and the NApp, which carries on
 * without it, loads.  GET v1/rc tells what route_add returned. */
#include <kytos/kytos.h>

static const char spec[] =
    "openapi: 3.0.0\n"
    "info: {title: badroute, version: 0.0.1}\n"
    "servers: [{url: /api/kytos/badroute}]\n"
    "paths:\n"
    "  /v1/rc:\n"
    "    get:\n"
    "      responses:\n"
    "        '200': {description: what route_add returned}\n";

static int refused_rc = 1;   /* route_add's answer for the undescribed route */

static int rc_get(kytos_req *req, void *ud)
{
    struct json_object *o = json_object_new_object();
    (void)ud;
    json_object_object_add(o, "route_add", json_object_new_int(refused_rc));
    return kytos_resp_json_take(req, 200, o);
}

static int nospec(kytos_req *req, void *ud)
{
    (void)ud;
    return kytos_resp_json_take(req, 200, json_object_new_string("must not be reachable"));
}

static int badroute_init(kytos_napp *n, char **errmsg)
{
    (void)errmsg;
    refused_rc = kytos_route_add(n, &(struct kytos_route){
        .struct_size = sizeof(struct kytos_route), .method = "POST", .path = "v1/nospec",
        .handler = nospec, .flags = KYTOS_ROUTE_VALIDATE});
    return kytos_route_add(n, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                    .method = "GET", .path = "v1/rc",
                                                    .handler = rc_get,
                                                    .flags = KYTOS_ROUTE_VALIDATE});
}

KYTOS_NAPP_DEFINE("kytos", "badroute", "0.0.1", KYTOS_NO_DEPS, spec, 0, 0, badroute_init, NULL,
                  NULL);
