/* tests/napps/abiprobe.c - a NApp that declares an older minimum ABI than its
 * headers' (KYTOS_NAPP_ABI_MIN_MINOR, 0 unless the build says otherwise),
 * so it loads on older hosts and probes every newer slot with
 * KYTOS_API_HAS.  Built twice (tests/local.mk): abiprobe (minimum 1.0) and
 * abifuture (minimum KYTOS_ABI_MINOR + 1, which no host has yet).
 *   GET  v1/  {"host_minor", "struct_size", "has": {slot: bool}}
 *   POST v1/  publishes kytos/abiprobe.hello: with event_publish_give when the
 *             host has it (ABI 1.2), else with event_publish.
 *   POST v1/give  publishes kytos/abiprobe.given with kytos_event_publish_give,
 *             unprobed (its wrapper falls back on an older host).
 *   GET's "wanted": kytos_event_wanted, unprobed, for a name nobody wants.
 *   POST v1/raw  a route that reads its body itself (KYTOS_ROUTE_RAW_BODY):
 *             {"tree": kytos_req_json was set, "body": it or null, "text":
 *             kytos_req_body's text}.
 *   GET  v1/call_give?to=raw|echo  kytos_call_give of {"a": [1, {"b": "c"}]}
 *             to v1/raw, or to v1/echo (parsed by the host): {"status",
 *             "body"} of the answer.
 * Its spec is followed by bytes that are no YAML, past the length given to
 * KYTOS_NAPP_DEFINE: the host must read only that length. */
#ifndef KYTOS_NAPP_ABI_MIN_MINOR
#define KYTOS_NAPP_ABI_MIN_MINOR 0
#endif
#ifndef ABIPROBE_NAME
#define ABIPROBE_NAME "abiprobe"
#endif
#include <kytos/kytos.h>

#include <stdio.h>

static const char spec[] =
    "openapi: 3.0.0\n"
    "info: {title: abiprobe, version: '1'}\n"
    "paths: {}\n"
    "]]] not: [yaml";
#define SPEC_LEN (sizeof "openapi: 3.0.0\ninfo: {title: abiprobe, version: '1'}\npaths: {}\n" - 1)

static int probe(kytos_req *req, void *ud)
{
    struct json_object *o = json_object_new_object(), *has = json_object_new_object();
    (void)ud;
    json_object_object_add(o, "host_minor", json_object_new_int(kytos__api->abi_minor));
    json_object_object_add(o, "struct_size", json_object_new_int64(kytos__api->struct_size));
    /* ABI 1.0: always there, since the host met the minimum */
    json_object_object_add(has, "resp_static", json_object_new_boolean(KYTOS_API_HAS(resp_static)));
    /* ABI 1.1 */
    json_object_object_add(has, "store_bulk_async",
                           json_object_new_boolean(KYTOS_API_HAS(store_bulk_async)));
    /* ABI 1.2 */
    json_object_object_add(has, "event_publish_give",
                           json_object_new_boolean(KYTOS_API_HAS(event_publish_give)));
    json_object_object_add(has, "event_wanted", json_object_new_boolean(KYTOS_API_HAS(event_wanted)));
    json_object_object_add(has, "event_take_content",
                           json_object_new_boolean(KYTOS_API_HAS(event_take_content)));
    json_object_object_add(o, "has", has);
    /* unguarded: on an older host the wrapper answers 1 (cannot tell) */
    json_object_object_add(o, "wanted", json_object_new_int(kytos_event_wanted(kytos_req_napp(req),
                                                                               "kytos/nobody")));
    return kytos_resp_json_take(req, 200, o);
}

static int hello(kytos_req *req, void *ud)
{
    struct json_object *c = json_object_new_object();
    int rc;
    (void)ud;
    json_object_object_add(c, "via", json_object_new_string(KYTOS_API_HAS(event_publish_give) ? "give"
                                                                                               : "copy"));
    if (KYTOS_API_HAS(event_publish_give)) {
        rc = kytos_event_publish_give(kytos_req_napp(req), "kytos/abiprobe.hello", c, NULL);
    } else {
        rc = kytos_event_publish(kytos_req_napp(req), "kytos/abiprobe.hello", c, NULL);
        json_object_put(c);
    }
    if (rc != KYTOS_OK)
        return kytos_resp_error(req, 503, "publish: %s", kytos_strerror(rc));
    return kytos_resp_json_take(req, 201, json_object_new_object());
}

/* POST v1/give: kytos_event_publish_give without a probe; on an older host
 * the wrapper publishes a copy. */
static int give(kytos_req *req, void *ud)
{
    int rc = kytos_event_publish_give(kytos_req_napp(req), "kytos/abiprobe.given",
                                      json_object_new_object(), NULL);
    (void)ud;
    if (rc != KYTOS_OK)
        return kytos_resp_error(req, 503, "publish: %s", kytos_strerror(rc));
    return kytos_resp_json_take(req, 201, json_object_new_object());
}

static int raw(kytos_req *req, void *ud)
{
    struct json_object *o = json_object_new_object(), *tree = kytos_req_json(req);
    size_t len = 0;
    const char *text;
    (void)ud;
    /* the tree first: reading the text must leave it in place */
    json_object_object_add(o, "tree", json_object_new_boolean(tree != NULL));
    text = kytos_req_body(req, &len);
    json_object_object_add(o, "body", json_object_get(kytos_req_json(req)));
    json_object_object_add(o, "text", json_object_new_string_len(text ? text : "", (int)len));
    return kytos_resp_json_take(req, 200, o);
}

static int echo(kytos_req *req, void *ud)
{
    (void)ud;
    return kytos_resp_json(req, 200, kytos_req_json(req));
}

static int call_give(kytos_req *req, void *ud)
{
    const char *to = kytos_req_query(req, "to");
    struct json_object *body = json_object_new_object(), *a = json_object_new_array(),
                       *b = json_object_new_object(), *o;
    kytos_response *r = NULL;
    char path[96];
    (void)ud;
    json_object_object_add(b, "b", json_object_new_string("c"));
    json_object_array_add(a, json_object_new_int(1));
    json_object_array_add(a, b);
    json_object_object_add(body, "a", a);
    snprintf(path, sizeof path, "/api/kytos/%s/v1/%s", ABIPROBE_NAME, to ? to : "raw");
    if (kytos_call_give(kytos_req_napp(req), "POST", path, body, &r) != KYTOS_OK || !r)
        return kytos_resp_error(req, 500, "the call failed");
    o = json_object_new_object();
    json_object_object_add(o, "status", json_object_new_int((int)kytos_response_status(r)));
    json_object_object_add(o, "body", json_object_get(kytos_response_json(r)));
    kytos_response_free(r);
    return kytos_resp_json_take(req, 200, o);
}

static int abiprobe_init(kytos_napp *napp, char **errmsg)
{
    int rc;
    (void)errmsg;
    rc = kytos_route_add(napp, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                     .method = "GET", .path = "v1/", .handler = probe});
    if (rc == KYTOS_OK)
        rc = kytos_route_add(napp, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                         .method = "POST", .path = "v1/",
                                                         .handler = hello});
    if (rc == KYTOS_OK)
        rc = kytos_route_add(napp, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                         .method = "POST", .path = "v1/give",
                                                         .handler = give});
    if (rc == KYTOS_OK)
        rc = kytos_route_add(napp, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                         .method = "POST", .path = "v1/raw",
                                                         .handler = raw,
                                                         .flags = KYTOS_ROUTE_RAW_BODY});
    if (rc == KYTOS_OK)
        rc = kytos_route_add(napp, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                         .method = "POST", .path = "v1/echo",
                                                         .handler = echo});
    if (rc == KYTOS_OK)
        rc = kytos_route_add(napp, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                         .method = "GET", .path = "v1/call_give",
                                                         .handler = call_give});
    return rc;
}

KYTOS_NAPP_DEFINE("kytos", ABIPROBE_NAME, "0.0.1", KYTOS_NO_DEPS, spec, SPEC_LEN, 0, abiprobe_init,
                  NULL, NULL);
