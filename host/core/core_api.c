/* host/core/core_api.c - /api/kytos/core/: status, config, metadata, NApp
 * management.  Bodies and codes as Kytos (kytos-core.md §1); management
 * works over GET (as Kytos and kytos-utils use it) and POST. */
#include "core/hostimpl.h"
#include "util/log.h"
#include <stdio.h>
#include <string.h>

#define CORE "/api/kytos/core/"

static int respond(kytos_req *r, unsigned status, struct json_object *o)
{
    int rc = kh_resp_json(r, status, o);
    json_object_put(o);
    return rc;
}

static struct json_object *response_obj(const char *text)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "response", json_object_new_string(text));
    return o;
}

static int status_get(kytos_req *r, void *ud)
{
    return respond(r, 200, kh_host_status(ud));
}

static int config_get(kytos_req *r, void *ud)
{
    kh_host *h = ud;
    return respond(r, 200, kh_config_public(h->config));
}

static int metadata_get(kytos_req *r, void *ud)
{
    struct json_object *o = json_object_new_object();
    (void)ud;
    json_object_object_add(o, "__version__", json_object_new_string(KYTOS_VERSION_STRING));
    json_object_object_add(o, "__author__", json_object_new_string("kytos-c developers"));
    json_object_object_add(o, "__author_email__", json_object_new_string(""));
    json_object_object_add(o, "__license__", json_object_new_string("MIT"));
    json_object_object_add(o, "__url__", json_object_new_string(""));
    json_object_object_add(o, "__description__",
                           json_object_new_string("Kytos-ng SDN controller core, in C"));
    return respond(r, 200, o);
}

static int napps_enabled(kytos_req *r, void *ud)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "napps", kh_napps_enabled_json(ud));
    return respond(r, 200, o);
}

static int napps_installed(kytos_req *r, void *ud)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "napps", kh_napps_installed_json(ud));
    return respond(r, 200, o);
}

static int napp_id(kytos_req *r, char *id, size_t len)
{
    const char *u = kh_req_param(r, "username"), *n = kh_req_param(r, "napp_name");
    if (!u || !n || strlen(u) > 64 || strlen(n) > 64)
        return -1;
    snprintf(id, len, "%s/%s", u, n);
    return 0;
}

static int napp_enable(kytos_req *r, void *ud)
{
    char id[140];
    int rc;
    if (napp_id(r, id, sizeof id) != 0)
        return respond(r, 400, response_obj("not installed"));
    rc = kh_napps_enable(ud, id);
    if (rc == KYTOS_ENOTFOUND)
        return respond(r, 400, response_obj("not installed"));
    if (rc != KYTOS_OK)
        return respond(r, 500, response_obj("error"));
    return respond(r, 200, response_obj("enabled"));
}

static int napp_disable(kytos_req *r, void *ud)
{
    char id[140];
    int rc;
    if (napp_id(r, id, sizeof id) != 0)
        return respond(r, 400, response_obj("not installed"));
    rc = kh_napps_disable(ud, id);
    if (rc == KYTOS_ENOTFOUND)
        return respond(r, 400, response_obj("not installed"));
    if (rc != KYTOS_OK)
        return respond(r, 500, response_obj("error"));
    return respond(r, 200, response_obj("disabled"));
}

static int napp_metadata(kytos_req *r, void *ud)
{
    char id[140];
    const char *key = kh_req_param(r, "key");
    struct json_object *v, *o;

    if (napp_id(r, id, sizeof id) != 0 || !key)
        return respond(r, 400, json_object_new_string("NApp is not installed."));
    if (strcmp(key, "napp_dependencies") && strcmp(key, "description") && strcmp(key, "version"))
        return respond(r, 400, json_object_new_string("Invalid key."));
    v = kh_napps_metadata(ud, id, key);
    if (!v)
        return respond(r, 400, json_object_new_string("NApp is not installed."));
    o = json_object_new_object();
    json_object_object_add(o, key, v);
    return respond(r, 200, o);
}

static int napp_reload(kytos_req *r, void *ud)
{
    char id[140];
    if (napp_id(r, id, sizeof id) != 0 || kh_napps_reload(ud, id) != KYTOS_OK)
        return respond(r, 400, json_object_new_string("fail to reload"));
    return respond(r, 200, json_object_new_string("reloaded"));
}

static int reload_all(kytos_req *r, void *ud)
{
    if (kh_napps_reload_all(ud) != KYTOS_OK)
        return respond(r, 500, json_object_new_string("fail to reload"));
    return respond(r, 200, json_object_new_string("reloaded"));
}

static int routes_get(kytos_req *r, void *ud)
{
    kh_host *h = ud;
    return respond(r, 200, kh_router_list(h->router));
}

int kh_core_api_register(kh_host *h)
{
    static const struct {
        const char *method, *path;
        kytos_handler fn;
        unsigned flags;
    } t[] = {
        {"GET", CORE "status/", status_get, 0},
        {"GET", CORE "config/", config_get, KYTOS_ROUTE_INLINE},
        {"GET", CORE "metadata/", metadata_get, KYTOS_ROUTE_INLINE},
        {"GET", CORE "routes/", routes_get, 0},
        {"GET", CORE "napps_enabled", napps_enabled, 0},
        {"GET", CORE "napps_installed", napps_installed, 0},
        {"GET", CORE "napps/{username}/{napp_name}/enable", napp_enable, 0},
        {"POST", CORE "napps/{username}/{napp_name}/enable", napp_enable, 0},
        {"GET", CORE "napps/{username}/{napp_name}/disable", napp_disable, 0},
        {"POST", CORE "napps/{username}/{napp_name}/disable", napp_disable, 0},
        {"GET", CORE "napps/{username}/{napp_name}/metadata/{key}", napp_metadata, 0},
        {"GET", CORE "reload/all", reload_all, 0},
        {"POST", CORE "reload/all", reload_all, 0},
        {"GET", CORE "reload/{username}/{napp_name}/", napp_reload, 0},
        {"POST", CORE "reload/{username}/{napp_name}/", napp_reload, 0},
    };
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++)
        if (kh_host_core_route(h, t[i].method, t[i].path, t[i].fn, h, t[i].flags) != KYTOS_OK)
            return -1;
    return kh_metrics_register(h);
}
