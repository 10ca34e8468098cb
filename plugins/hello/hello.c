/* plugins/hello - the smallest complete NApp, written as the template a NApp
 * author copies: two routes (one with a path parameter), one POST checked
 * against the embedded OpenAPI spec, an event, and the store.
 *
 *   GET  /api/kytos/hello/v1/             -> {"greeting": "hello"}
 *   GET  /api/kytos/hello/v1/{name}       -> {"greeting": "hello, <name>", "stored": bool}
 *   POST /api/kytos/hello/v1/             {"name": "x"} -> 201 {"stored": "x"}
 */
#include <kytos/kytos.h>
#include <stdio.h>
#include <string.h>

extern const char hello_openapi[];
extern const size_t hello_openapi_len;

/* Inline: never blocks, so it runs on the I/O thread. */
static int hello_root(kytos_req *req, void *ud)
{
    struct json_object *o = json_object_new_object();
    (void)ud;
    json_object_object_add(o, "greeting", json_object_new_string("hello"));
    return kytos_resp_json_take(req, 200, o);
}

/* Pooled: reads the store. */
static int hello_name(kytos_req *req, void *ud)
{
    const char *name = kytos_req_param(req, "name");
    struct json_object *doc = NULL, *o;
    struct kytos_error err;
    char text[200];
    int rc;

    (void)ud;
    if (strlen(name) > 64)
        return kytos_resp_error(req, 400, "name longer than 64 characters");
    rc = kytos_store_get(kytos_req_napp(req), "hello_names", name, &doc, &err);
    if (rc != KYTOS_OK && rc != KYTOS_ENOTFOUND)
        return kytos_resp_error(req, 503, "store: %s", err.message);
    o = json_object_new_object();
    snprintf(text, sizeof text, "hello, %s", name);
    json_object_object_add(o, "greeting", json_object_new_string(text));
    json_object_object_add(o, "stored", json_object_new_boolean(doc != NULL));
    json_object_put(doc);
    return kytos_resp_json_take(req, 200, o);
}

/* Validated against the spec before it runs: the body is an object with a
 * string "name" of 1..64 characters. */
static int hello_store(kytos_req *req, void *ud)
{
    kytos_napp *napp = kytos_req_napp(req);
    struct json_object *body = kytos_req_json(req), *name = NULL, *update, *set, *o;
    struct kytos_error err;
    int rc;

    (void)ud;
    if (!body || !json_object_object_get_ex(body, "name", &name) ||
        !json_object_is_type(name, json_type_string))
        return kytos_resp_error(req, 400, "'name' is a required property");
    update = json_object_new_object();
    set = json_object_new_object();
    json_object_object_add(set, "name", json_object_get(name));
    json_object_object_add(update, "$set", set);
    rc = kytos_store_patch(napp, "hello_names", json_object_get_string(name), update,
                           KYTOS_STORE_UPSERT, NULL, &err);
    json_object_put(update);
    if (rc != KYTOS_OK)
        return kytos_resp_error(req, 503, "store: %s", err.message);
    kytos_event_publish(napp, "kytos/hello.stored", body, NULL);
    o = json_object_new_object();
    json_object_object_add(o, "stored", json_object_get(name));
    return kytos_resp_json_take(req, 201, o);
}

static int hello_init(kytos_napp *napp, char **errmsg)
{
    int rc;
    (void)errmsg;
    rc = kytos_route_add(napp, &(struct kytos_route){
        .struct_size = sizeof(struct kytos_route), .method = "GET", .path = "v1/",
        .handler = hello_root, .flags = KYTOS_ROUTE_INLINE});
    if (rc == KYTOS_OK)
        rc = kytos_route_add(napp, &(struct kytos_route){
            .struct_size = sizeof(struct kytos_route), .method = "GET", .path = "v1/{name}",
            .handler = hello_name});
    if (rc == KYTOS_OK)
        rc = kytos_route_add(napp, &(struct kytos_route){
            .struct_size = sizeof(struct kytos_route), .method = "POST", .path = "v1/",
            .handler = hello_store, .flags = KYTOS_ROUTE_VALIDATE});
    if (rc == KYTOS_OK)
        kytos_log(napp, KYTOS_LOG_INFO, "hello is ready");
    return rc;
}

KYTOS_NAPP_DEFINE("kytos", "hello", "1.0.0", KYTOS_NO_DEPS, hello_openapi, hello_openapi_len, 0,
                  hello_init, NULL, NULL);
