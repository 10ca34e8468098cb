/* plugins/of_lldp/rest.c - /api/kytos/of_lldp/ with Kytos' codes and texts
 * (southbound.md 3.6; of_lldp main.py).  Interfaces come from topology's
 * current tree; "lldp" lives in topology (it applies our
 * kytos/of_lldp.network_status.updated and persists it). */
#include "lldp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kytos' _get_data: the body's "interfaces" list ([] when absent) */
static struct json_object *body_ids(kytos_req *req, int *bad)
{
    struct json_object *b = kytos_req_json(req), *v;

    *bad = 0;
    if (!json_object_is_type(b, json_type_object)) {
        *bad = 1;
        return NULL;
    }
    if (!json_object_object_get_ex(b, "interfaces", &v))
        return NULL;
    if (!json_object_is_type(v, json_type_array)) {
        *bad = 1;
        return NULL;
    }
    return v;
}

static int bad_body(kytos_req *req)
{
    return kytos_resp_error(req, 400, "The request body must be an object with an "
                                      "\"interfaces\" list of interface ids");
}

/* Python's truthiness of a list element (filter(None, ...)) */
static bool truthy(struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        return false;
    case json_type_boolean:
        return json_object_get_boolean(v);
    case json_type_int:
        return json_object_get_int64(v) != 0;
    case json_type_double:
        return json_object_get_double(v) != 0;
    case json_type_string:
        return json_object_get_string_len(v) > 0;
    case json_type_array:
        return json_object_array_length(v) > 0;
    case json_type_object:
        return json_object_object_length(v) > 0;
    }
    return false;
}

static size_t n_interfaces(const struct lldp_topo *t)
{
    size_t n = 0;

    json_object_object_foreach(t->switches, dpid, sw)
    {
        struct json_object *ifs;
        (void)dpid;
        if (json_object_object_get_ex(sw, "interfaces", &ifs))
            n += (size_t)json_object_object_length(ifs);
    }
    return n;
}

static struct json_object *copy(struct json_object *o)
{
    struct json_object *c = NULL;

    if (json_object_deep_copy(o, &c, NULL) != 0) {
        json_object_put(c);
        return NULL;
    }
    return c;
}

static int topo_unavailable(kytos_req *req)
{
    return kytos_resp_error(req, 503, "topology is not available");
}

static int h_get_interfaces(kytos_req *req, void *ud)
{
    struct lldp *l = ud;
    struct lldp_topo *t = lldp_topo_get(l, 0);
    struct json_object *out, *ids;

    if (!t)
        return topo_unavailable(req);
    out = json_object_new_object();
    ids = json_object_new_array();
    json_object_object_foreach(t->switches, dpid, sw)
    {
        struct json_object *ifs;
        (void)dpid;
        if (!json_object_object_get_ex(sw, "interfaces", &ifs) ||
            !json_object_is_type(ifs, json_type_object))
            continue;
        json_object_object_foreach(ifs, id, intf)
        {
            if (lldp_intf_lldp(l, intf))
                json_object_array_add(ids, json_object_new_string(id));
        }
    }
    lldp_topo_put(t);
    json_object_object_add(out, "interfaces", ids);
    return kytos_resp_json_take(req, 200, out);
}

static void publish_liveness_admin(struct lldp *l, const char *suffix, struct json_object *intfs)
{
    struct json_object *c = json_object_new_object();
    char name[64];

    json_object_object_add(c, "interfaces", intfs);
    snprintf(name, sizeof name, "kytos/of_lldp.liveness.%s", suffix);
    lldp_publish(l, name, c);
}

static int lldp_set(kytos_req *req, struct lldp *l, bool enable)
{
    int bad;
    struct json_object *ids = body_ids(req, &bad), *errors, *changed, *intfs, *ev, *body;
    struct lldp_topo *t;
    size_t n = ids ? json_object_array_length(ids) : 0;

    if (bad)
        return bad_body(req);
    t = lldp_topo_get(l, 0);
    if (!t)
        return topo_unavailable(req);
    if (n_interfaces(t) == 0) {
        lldp_topo_put(t);
        return kytos_resp_error(req, 404, "No interfaces were found.");
    }
    errors = json_object_new_array();
    changed = json_object_new_array();
    intfs = json_object_new_array();
    for (size_t k = 0; k < n; k++) {
        struct json_object *v = json_object_array_get_idx(ids, k), *intf = NULL;
        if (!truthy(v))
            continue;
        if (json_object_is_type(v, json_type_string))
            intf = lldp_topo_intf_by_id(t, json_object_get_string(v));
        if (!intf) {
            json_object_array_add(errors, json_object_get(v));
            continue;
        }
        json_object_array_add(changed, json_object_new_string(json_object_get_string(v)));
        lldp_override_set(l, json_object_get_string(v), enable);
        json_object_array_add(intfs, copy(intf));
    }
    lldp_topo_put(t);
    if (json_object_array_length(changed) > 0) {
        ev = json_object_new_object();
        json_object_object_add(ev, "attribute", json_object_new_string("LLDP"));
        json_object_object_add(ev, "state", json_object_new_string(enable ? "enabled" : "disabled"));
        json_object_object_add(ev, "interface_ids", json_object_get(changed));
        lldp_publish(l, "kytos/of_lldp.network_status.updated", ev);
        if (!enable) {
            struct kytos_error err;
            for (size_t k = 0; k < json_object_array_length(changed); k++) {
                const char *id = json_object_get_string(json_object_array_get_idx(changed, k));
                if (lldp_lv_store(l, id, false, &err) != KYTOS_OK)
                    kytos_log(l->napp, KYTOS_LOG_ERROR, "liveness of %s not stored: %s", id,
                              err.message);
                pthread_mutex_lock(&l->mu);
                lldp_lv_disable(l, id);
                pthread_mutex_unlock(&l->mu);
            }
            publish_liveness_admin(l, "disabled", json_object_get(intfs));
        }
    }
    json_object_put(changed);
    json_object_put(intfs);
    if (json_object_array_length(errors) == 0) {
        json_object_put(errors);
        body = json_object_new_string(enable ? "All the requested interfaces have been enabled."
                                             : "All the requested interfaces have been disabled.");
        return kytos_resp_json_take(req, 200, body);
    }
    body = json_object_new_object();
    json_object_object_add(body,
                           enable ? "Some interfaces couldn't be found and activated: "
                                  : "Some interfaces couldn't be found and deactivated: ",
                           errors);
    return kytos_resp_json_take(req, 400, body);
}

static int h_enable(kytos_req *req, void *ud)
{
    return lldp_set(req, ud, true);
}

static int h_disable(kytos_req *req, void *ud)
{
    return lldp_set(req, ud, false);
}

/* Python's repr of a str list element, 'x' (ids are plain text) */
static void py_repr(char *out, size_t cap, size_t *len, struct json_object *v)
{
    const char *s = json_object_get_string(v);
    bool str = json_object_is_type(v, json_type_string);

    if (*len < cap)
        *len += (size_t)snprintf(out + *len, cap - *len, str ? "'%s'" : "%s", s ? s : "None");
    if (*len >= cap)
        *len = cap - 1;
}

static void append(char *out, size_t cap, size_t *len, const char *s)
{
    if (*len < cap)
        *len += (size_t)snprintf(out + *len, cap - *len, "%s", s);
    if (*len >= cap)
        *len = cap - 1;
}

static int liveness_set(kytos_req *req, struct lldp *l, bool enable)
{
    int bad;
    struct json_object *ids = body_ids(req, &bad), *intfs;
    struct lldp_topo *t;
    size_t n = ids ? json_object_array_length(ids) : 0, len = 0, missing = 0, non_lldp = 0;
    char msg[2048];

    if (bad)
        return bad_body(req);
    if (n == 0)
        return kytos_resp_error(req, 400, "Interfaces payload is empty");
    t = lldp_topo_get(l, 0);
    if (!t)
        return topo_unavailable(req);
    /* Kytos: the set of ids not found -> 404; then those without lldp -> 400 */
    append(msg, sizeof msg, &len, "Interface IDs {");
    for (size_t k = 0; k < n; k++) {
        struct json_object *v = json_object_array_get_idx(ids, k);
        bool dup = false;
        if (json_object_is_type(v, json_type_string) &&
            lldp_topo_intf_by_id(t, json_object_get_string(v)))
            continue;
        for (size_t j = 0; j < k && !dup; j++)
            dup = json_object_equal(v, json_object_array_get_idx(ids, j));
        if (dup)
            continue;
        append(msg, sizeof msg, &len, missing++ ? ", " : "");
        py_repr(msg, sizeof msg, &len, v);
    }
    if (missing) {
        lldp_topo_put(t);
        append(msg, sizeof msg, &len, "} not found");
        return kytos_resp_error(req, 404, "%s", msg);
    }
    if (enable) {
        len = 0;
        append(msg, sizeof msg, &len, "Interface IDs [");
        for (size_t k = 0; k < n; k++) {
            struct json_object *v = json_object_array_get_idx(ids, k);
            if (lldp_intf_lldp(l, lldp_topo_intf_by_id(t, json_object_get_string(v))))
                continue;
            append(msg, sizeof msg, &len, non_lldp++ ? ", " : "");
            py_repr(msg, sizeof msg, &len, v);
        }
        if (non_lldp) {
            lldp_topo_put(t);
            append(msg, sizeof msg, &len, "] don't have LLDP enabled");
            return kytos_resp_error(req, 400, "%s", msg);
        }
    }
    intfs = json_object_new_array();
    for (size_t k = 0; k < n; k++) {
        const char *id = json_object_get_string(json_object_array_get_idx(ids, k));
        struct kytos_error err;
        if (lldp_lv_store(l, id, enable, &err) != KYTOS_OK) {
            lldp_topo_put(t);
            json_object_put(intfs);
            return kytos_resp_error(req, 503, "store: %s", err.message);
        }
        pthread_mutex_lock(&l->mu);
        if (enable)
            lldp_lv_enable(l, id);
        else
            lldp_lv_disable(l, id);
        pthread_mutex_unlock(&l->mu);
        json_object_array_add(intfs, copy(lldp_topo_intf_by_id(t, id)));
    }
    lldp_topo_put(t);
    publish_liveness_admin(l, enable ? "enabled" : "disabled", intfs);
    return kytos_resp_json_take(req, 200, json_object_new_object());
}

static int h_lv_enable(kytos_req *req, void *ud)
{
    return liveness_set(req, ud, true);
}

static int h_lv_disable(kytos_req *req, void *ud)
{
    return liveness_set(req, ud, false);
}

static struct json_object *intf_status(const char *id, const struct lldp_ilsm *i)
{
    struct json_object *o = json_object_new_object();

    json_object_object_add(o, "id", json_object_new_string(id));
    json_object_object_add(o, "status", json_object_new_string(lldp_lv_state_str(i ? i->state : LV_INIT)));
    json_object_object_add(o, "last_hello_at",
                           i && i->last_hello_at[0] ? json_object_new_string(i->last_hello_at) : NULL);
    return o;
}

/* the state of a liveness-enabled interface (Kytos' get_interface_status) */
static const struct lldp_ilsm *ilsm_of(const struct lldp *l, const char *id)
{
    for (size_t k = 0; k < l->n_pairs; k++) {
        if (strcmp(l->pairs[k].a, id) == 0)
            return &l->pairs[k].ia;
        if (strcmp(l->pairs[k].b, id) == 0)
            return &l->pairs[k].ib;
    }
    return NULL;
}

static int h_lv_get(kytos_req *req, void *ud)
{
    struct lldp *l = ud;
    const char *only = kytos_req_query(req, "interface_id");
    struct json_object *out = json_object_new_object(), *list = json_object_new_array();

    pthread_mutex_lock(&l->mu);
    for (size_t k = 0; k < l->n_lv_enabled; k++) {
        const char *id = l->lv_enabled[k];
        if (only && *only && strcmp(only, id) != 0)
            continue;
        json_object_array_add(list, intf_status(id, ilsm_of(l, id)));
    }
    pthread_mutex_unlock(&l->mu);
    json_object_object_add(out, "interfaces", list);
    return kytos_resp_json_take(req, 200, out);
}

static int h_lv_pairs(kytos_req *req, void *ud)
{
    struct lldp *l = ud;
    struct lldp_topo *t = lldp_topo_get(l, -1);
    struct json_object *out = json_object_new_object(), *list = json_object_new_array();

    pthread_mutex_lock(&l->mu);
    for (size_t k = 0; k < l->n_pairs; k++) {
        const struct lldp_pair *p = &l->pairs[k];
        struct json_object *o = json_object_new_object(), *link = NULL, *ia;
        const char *link_id;
        ia = t ? lldp_topo_intf_by_id(t, p->a) : NULL;
        link_id = lldp_jstr(ia, "link");
        if (link_id && *link_id)
            link = json_object_new_string(link_id);
        json_object_object_add(o, "interface_a", intf_status(p->a, &p->ia));
        json_object_object_add(o, "interface_b", intf_status(p->b, &p->ib));
        json_object_object_add(o, "link_id", link);
        json_object_object_add(o, "status", json_object_new_string(lldp_lv_state_str(p->state)));
        json_object_array_add(list, o);
    }
    pthread_mutex_unlock(&l->mu);
    lldp_topo_put(t);
    json_object_object_add(out, "pairs", list);
    return kytos_resp_json_take(req, 200, out);
}

static int h_get_polling(kytos_req *req, void *ud)
{
    struct lldp *l = ud;
    struct json_object *out = json_object_new_object();

    json_object_object_add(out, "polling_time", json_object_new_int(atomic_load(&l->polling_time)));
    return kytos_resp_json_take(req, 200, out);
}

/* Python's int(value) for what JSON can carry; false with *why set */
static bool py_int(struct json_object *v, int64_t *out, char *why, size_t cap)
{
    const char *s;
    char *end;

    switch (json_object_get_type(v)) {
    case json_type_int:
        *out = json_object_get_int64(v);
        return true;
    case json_type_boolean:
        *out = json_object_get_boolean(v);
        return true;
    case json_type_double:
        *out = (int64_t)json_object_get_double(v);
        return true;
    case json_type_string:
        s = json_object_get_string(v);
        errno = 0;
        *out = strtoll(s, &end, 10);
        while (*end == ' ')
            end++;
        if (*s && end != s && *end == '\0' && errno == 0)
            return true;
        snprintf(why, cap, "invalid literal for int() with base 10: '%s'", s);
        return false;
    default:
        snprintf(why, cap, "int() argument must be a string, a bytes-like object or a real "
                           "number, not '%s'",
                 json_object_is_type(v, json_type_array) ? "list"
                 : json_object_is_type(v, json_type_null) ? "NoneType" : "dict");
        return false;
    }
}

static int h_set_polling(kytos_req *req, void *ud)
{
    struct lldp *l = ud;
    struct json_object *b = kytos_req_json(req), *v;
    char why[256];
    int64_t secs;

    if (!json_object_is_type(b, json_type_object) ||
        !json_object_object_get_ex(b, "polling_time", &v))
        return kytos_resp_error(req, 400, "This operation is not completed: 'polling_time'");
    if (!py_int(v, &secs, why, sizeof why))
        return kytos_resp_error(req, 400, "This operation is not completed: %s", why);
    if (secs <= 0)
        return kytos_resp_error(req, 400, "invalid polling_time %lld, must be greater than zero",
                                (long long)secs);
    if (secs > 86400)
        return kytos_resp_error(req, 400, "invalid polling_time %lld, must be at most 86400",
                                (long long)secs);
    atomic_store(&l->polling_time, (int)secs);
    /* execute_as_loop restarts the loop: the next round one interval from now */
    atomic_store(&l->next_poll_ms, lldp_now_ms() + 1000LL * secs);
    kytos_log(l->napp, KYTOS_LOG_INFO,
              "Polling time has been updated to %lld second(s), but this change will not be "
              "saved permanently.", (long long)secs);
    return kytos_resp_json_take(req, 200, json_object_new_string("Polling time has been updated."));
}

int lldp_rest_init(struct lldp *l)
{
    static const struct {
        const char *method, *path;
        kytos_handler h;
    } routes[] = {
        {"GET", "v1/interfaces", h_get_interfaces},
        {"POST", "v1/interfaces/disable", h_disable},
        {"POST", "v1/interfaces/enable", h_enable},
        {"POST", "v1/liveness/enable", h_lv_enable},
        {"POST", "v1/liveness/disable", h_lv_disable},
        {"GET", "v1/liveness/", h_lv_get},
        {"GET", "v1/liveness/pair", h_lv_pairs},
        {"GET", "v1/polling_time", h_get_polling},
        {"POST", "v1/polling_time", h_set_polling},
    };
    int rc = KYTOS_OK;

    for (size_t k = 0; k < sizeof routes / sizeof routes[0] && rc == KYTOS_OK; k++)
        rc = kytos_route_add(l->napp, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                            .method = routes[k].method,
                                                            .path = routes[k].path,
                                                            .handler = routes[k].h,
                                                            .ud = l});
    return rc;
}
