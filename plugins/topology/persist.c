/* plugins/topology/persist.c - the store documents of Kytos' topology
 * (napps.md 1.3) and the restore at init.
 *
 *   switches: {_id: dpid, id, enabled, data_path, hardware, manufacturer,
 *              software, connection, ofp_version, serial, metadata,
 *              interfaces: [{id, enabled, mac, speed, port_number, name, nni,
 *                            lldp, switch, link, metadata, updated_at}],
 *              inserted_at, updated_at}
 *   links:    {_id: link_id, id, enabled, metadata,
 *              endpoints: [{id: intf_a}, {id: intf_b}], inserted_at, updated_at}
 *   interface_details: an interface's tags (tags.c), loaded last
 *
 * Stored documents are input like any other: a malformed one is reported in
 * topology_loaded's failed_switches/failed_links and skipped. */
#include "topo.h"
#include "pyfloat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct json_object *jstr(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

static struct json_object *copy_obj(struct json_object *o)
{
    struct json_object *c = NULL;

    if (o && json_object_deep_copy(o, &c, NULL) == 0)
        return c;
    return json_object_new_object();
}

static void stamp(char **field)
{
    char *now = topo_now_iso();

    if (now) {
        free(*field);
        *field = now;
    }
}

static struct json_object *intf_doc(struct topo_intf *i)
{
    struct json_object *o = json_object_new_object();
    struct json_object *speed = NULL;

    if (!o)
        return NULL;
    if (i->speed_kind == TOPO_SPEED_INT)
        speed = json_object_new_int64(i->speed_int);
    else if (i->speed_kind == TOPO_SPEED_FLOAT)
        speed = topo_json_pyfloat(i->speed_float);
    stamp(&i->updated_at);
    json_object_object_add(o, "id", json_object_new_string(i->id));
    json_object_object_add(o, "enabled", json_object_new_boolean(i->enabled));
    json_object_object_add(o, "mac", jstr(i->mac));
    json_object_object_add(o, "speed", speed);
    json_object_object_add(o, "port_number", json_object_new_int64(i->port));
    json_object_object_add(o, "name", json_object_new_string(i->name));
    json_object_object_add(o, "nni", json_object_new_boolean(i->nni));
    json_object_object_add(o, "lldp", json_object_new_boolean(i->lldp));
    json_object_object_add(o, "switch", json_object_new_string(i->sw->dpid));
    json_object_object_add(o, "link", json_object_new_string(i->link ? i->link->id : ""));
    json_object_object_add(o, "metadata", copy_obj(i->metadata));
    json_object_object_add(o, "updated_at", jstr(i->updated_at));
    return o;
}

struct json_object *topo_switch_doc(const struct topo_switch *cs)
{
    struct topo_switch *s = (struct topo_switch *)cs;  /* only stamps updated_at */
    struct json_object *o = json_object_new_object();
    struct json_object *intfs = json_object_new_array();

    if (!o || !intfs) {
        json_object_put(o);
        json_object_put(intfs);
        return NULL;
    }
    stamp(&s->updated_at);
    for (size_t k = 0; k < s->n_intfs; k++)
        json_object_array_add(intfs, intf_doc(s->intfs[k]));
    json_object_object_add(o, "id", json_object_new_string(s->dpid));
    json_object_object_add(o, "enabled", json_object_new_boolean(s->enabled));
    json_object_object_add(o, "data_path", json_object_new_string(s->data_path));
    json_object_object_add(o, "hardware", json_object_new_string(s->hardware));
    json_object_object_add(o, "manufacturer", json_object_new_string(s->manufacturer));
    json_object_object_add(o, "software", jstr(s->software));
    json_object_object_add(o, "connection", json_object_new_string(s->connection));
    json_object_object_add(o, "ofp_version", jstr(s->ofp_version));
    json_object_object_add(o, "serial", json_object_new_string(s->serial));
    json_object_object_add(o, "metadata", copy_obj(s->metadata));
    json_object_object_add(o, "interfaces", intfs);
    json_object_object_add(o, "inserted_at", jstr(s->inserted_at));
    json_object_object_add(o, "updated_at", jstr(s->updated_at));
    return o;
}

struct json_object *topo_link_doc(const struct topo_link *cl)
{
    struct topo_link *l = (struct topo_link *)cl;
    struct json_object *o = json_object_new_object();
    struct json_object *eps = json_object_new_array();
    struct json_object *ea = json_object_new_object(), *eb = json_object_new_object();

    if (!o || !eps || !ea || !eb) {
        json_object_put(o);
        json_object_put(eps);
        json_object_put(ea);
        json_object_put(eb);
        return NULL;
    }
    stamp(&l->updated_at);
    json_object_object_add(ea, "id", json_object_new_string(l->a->id));
    json_object_object_add(eb, "id", json_object_new_string(l->b->id));
    json_object_array_add(eps, ea);
    json_object_array_add(eps, eb);
    json_object_object_add(o, "id", json_object_new_string(l->id));
    json_object_object_add(o, "enabled", json_object_new_boolean(l->enabled));
    json_object_object_add(o, "metadata", copy_obj(l->metadata));
    json_object_object_add(o, "endpoints", eps);
    json_object_object_add(o, "inserted_at", jstr(l->inserted_at));
    json_object_object_add(o, "updated_at", jstr(l->updated_at));
    return o;
}

/* ---- restore ---- */

static const char *get_str(struct json_object *o, const char *key)
{
    struct json_object *v;

    if (json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

/* "" when the key is missing or null, NULL when it has another type. */
static const char *get_str_or_empty(struct json_object *o, const char *key, bool *bad)
{
    struct json_object *v;

    if (!json_object_object_get_ex(o, key, &v) || !v)
        return "";
    if (!json_object_is_type(v, json_type_string)) {
        *bad = true;
        return "";
    }
    return json_object_get_string(v);
}

static bool get_bool(struct json_object *o, const char *key, bool *out)
{
    struct json_object *v;

    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_boolean))
        return false;
    *out = json_object_get_boolean(v);
    return true;
}

static struct json_object *get_obj(struct json_object *o, const char *key)
{
    struct json_object *v;

    if (json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_object))
        return v;
    return NULL;
}

static void fail(struct json_object *failed, const char *id, const char *msg)
{
    json_object_object_add(failed, id, json_object_new_string(msg));
}

static void replace_metadata(struct json_object **dst, struct json_object *src)
{
    struct json_object *c = NULL;

    if (src && json_object_deep_copy(src, &c, NULL) == 0) {
        json_object_put(*dst);
        *dst = c;
    }
}

/* One interface entry of a switch document; false when unusable. */
static bool load_intf(struct topo *t, struct topo_switch *sw, struct json_object *d,
                      const char **why)
{
    struct json_object *v;
    struct topo_intf *i;
    const char *name;
    int64_t port;
    bool enabled = t->enable_by_default, lldp = true;

    if (!json_object_is_type(d, json_type_object)) {
        *why = "interface is not an object";
        return false;
    }
    if (!json_object_object_get_ex(d, "port_number", &v) || !json_object_is_type(v, json_type_int)) {
        *why = "interface without an integer port_number";
        return false;
    }
    port = json_object_get_int64(v);
    if (port < 0 || port > (int64_t)UINT32_MAX) {
        *why = "interface port_number out of range";
        return false;
    }
    name = get_str(d, "name");
    if (!name) {
        *why = "interface without a name";
        return false;
    }
    i = topo_intf_find(sw, (uint32_t)port);
    if (!i)
        i = topo_intf_add(sw, (uint32_t)port);
    if (!i) {
        *why = "out of memory";
        return false;
    }
    topo_set_str(&i->name, name);
    topo_set_str(&i->mac, get_str(d, "mac"));
    if (json_object_object_get_ex(d, "speed", &v) && v) {
        if (json_object_is_type(v, json_type_int)) {
            i->speed_kind = TOPO_SPEED_INT;
            i->speed_int = json_object_get_int64(v);
        } else if (json_object_is_type(v, json_type_double)) {
            i->speed_kind = TOPO_SPEED_FLOAT;
            i->speed_float = json_object_get_double(v);
        }
    }
    get_bool(d, "enabled", &enabled);
    get_bool(d, "lldp", &lldp);
    i->enabled = enabled;
    i->lldp = lldp;
    i->active = false;  /* until the switch reports it */
    replace_metadata(&i->metadata, get_obj(d, "metadata"));
    topo_set_str(&i->updated_at, get_str(d, "updated_at"));
    return true;
}

static void load_switch(struct topo *t, struct json_object *doc, struct json_object *failed)
{
    const char *dpid = get_str(doc, "id");
    struct topo_switch *sw;
    struct json_object *intfs;
    const char *why = NULL;
    bool enabled = false, bad = false;
    const char *mfr, *hw, *serial, *dp;

    if (!dpid)
        dpid = get_str(doc, "_id");
    if (!dpid || !topo_dpid_valid(dpid)) {
        kytos_log(t->napp, KYTOS_LOG_ERROR, "Error loading switch: invalid or missing id");
        if (dpid && strlen(dpid) < 256)
            fail(failed, dpid, "invalid switch id");
        return;
    }
    if (!get_bool(doc, "enabled", &enabled)) {
        fail(failed, dpid, "'enabled'");  /* Python's KeyError text */
        kytos_log(t->napp, KYTOS_LOG_ERROR, "Error loading switch %s: no enabled flag", dpid);
        return;
    }
    mfr = get_str_or_empty(doc, "manufacturer", &bad);
    hw = get_str_or_empty(doc, "hardware", &bad);
    serial = get_str_or_empty(doc, "serial", &bad);
    dp = get_str_or_empty(doc, "data_path", &bad);
    if (bad) {
        fail(failed, dpid, "switch description fields must be strings");
        return;
    }
    sw = topo_switch_find(t, dpid);
    if (!sw)
        sw = topo_switch_add(t, dpid);
    if (!sw) {
        fail(failed, dpid, "out of memory");
        return;
    }
    sw->enabled = enabled;
    sw->active = false;
    topo_set_str(&sw->manufacturer, mfr);
    topo_set_str(&sw->hardware, hw);
    topo_set_str(&sw->serial, serial);
    topo_set_str(&sw->data_path, dp);
    topo_set_str(&sw->software, get_str(doc, "software"));
    replace_metadata(&sw->metadata, get_obj(doc, "metadata"));
    if (get_str(doc, "inserted_at"))
        topo_set_str(&sw->inserted_at, get_str(doc, "inserted_at"));
    if (json_object_object_get_ex(doc, "interfaces", &intfs) &&
        json_object_is_type(intfs, json_type_array)) {
        size_t n = json_object_array_length(intfs);
        for (size_t k = 0; k < n; k++) {
            if (!load_intf(t, sw, json_object_array_get_idx(intfs, k), &why)) {
                kytos_log(t->napp, KYTOS_LOG_ERROR, "Error loading switch %s: %s", dpid, why);
                fail(failed, dpid, why);
            }
        }
    }
}

static const char *endpoint_id(struct json_object *eps, size_t idx)
{
    struct json_object *e = json_object_array_get_idx(eps, idx);

    return json_object_is_type(e, json_type_object) ? get_str(e, "id") : NULL;
}

static void load_link(struct topo *t, struct json_object *doc, struct json_object *failed)
{
    const char *id = get_str(doc, "id"), *ida, *idb;
    struct json_object *eps, *md;
    struct topo_intf *a, *b;
    struct topo_link *l;
    bool enabled, created;
    char msg[TOPO_INTF_ID_MAX + 200];

    if (!id)
        id = get_str(doc, "_id");
    if (!id || strlen(id) > 200) {
        kytos_log(t->napp, KYTOS_LOG_ERROR, "Error loading link: invalid or missing id");
        return;
    }
    if (!json_object_object_get_ex(doc, "endpoints", &eps) ||
        !json_object_is_type(eps, json_type_array) || json_object_array_length(eps) < 2 ||
        !(ida = endpoint_id(eps, 0)) ||
        !(idb = endpoint_id(eps, json_object_array_length(eps) - 1))) {
        fail(failed, id, "link without two endpoint ids");
        return;
    }
    if (!get_bool(doc, "enabled", &enabled)) {
        fail(failed, id, "'enabled'");
        return;
    }
    a = topo_intf_find_id(t, ida);
    b = topo_intf_find_id(t, idb);
    if (!a || !b) {
        snprintf(msg, sizeof(msg), "Fail to load endpoints for link %.*s. , endpoint_%s %.*s not found",
                 100, id, a ? "b" : "a", TOPO_INTF_ID_MAX, a ? idb : ida);
        fail(failed, id, msg);
        kytos_log(t->napp, KYTOS_LOG_ERROR, "Error loading link %s: %s", id, msg);
        return;
    }
    l = topo_link_get_or_create(t, a, b, &created);
    if (!l) {
        fail(failed, id, "cannot create the link");
        return;
    }
    l->enabled = enabled;
    md = get_obj(doc, "metadata");
    if (md) {
        /* runtime-only keys older versions stored */
        replace_metadata(&l->metadata, md);
        json_object_object_del(l->metadata, "last_status_is_active");
        json_object_object_del(l->metadata, "last_status_change");
        json_object_object_del(l->metadata, "notified_up_at");
    }
    if (get_str(doc, "inserted_at"))
        topo_set_str(&l->inserted_at, get_str(doc, "inserted_at"));
    a->link = l;
    b->link = l;
    a->nni = true;
    b->nni = true;
}

static int load_coll(struct topo *t, const char *coll, struct json_object *failed,
                     void (*load)(struct topo *, struct json_object *, struct json_object *),
                     char **errmsg)
{
    struct kytos_error err = {0};
    struct json_object *sort = json_object_new_object();
    kytos_cursor *cur = NULL;
    struct json_object *doc;
    int rc;

    json_object_object_add(sort, "inserted_at", json_object_new_int(1));
    json_object_object_add(sort, "_id", json_object_new_int(1));
    rc = kytos_store_find(t->napp, coll, &(struct kytos_find){.struct_size = sizeof(struct kytos_find), .sort = sort},
                          &cur, &err);
    json_object_put(sort);
    if (rc < 0)
        goto out;
    while ((rc = kytos_cursor_next(cur, &doc, &err)) > 0) {
        if (json_object_is_type(doc, json_type_object))
            load(t, doc, failed);
        json_object_put(doc);
    }
    kytos_cursor_free(cur);
out:
    if (rc < 0) {
        char buf[400];
        int n = snprintf(buf, sizeof(buf), "cannot read collection %s: %s", coll,
                         err.message[0] ? err.message : kytos_strerror(rc));
        *errmsg = kytos_malloc((size_t)n + 1);
        if (*errmsg)
            memcpy(*errmsg, buf, (size_t)n + 1);
        return rc;
    }
    return 0;
}

int topo_restore(struct topo *t, char **errmsg)
{
    struct json_object *keys;
    int rc;

    /* Kytos' bootstrap_indexes; a backend without them is not an error */
    keys = json_object_new_object();
    json_object_object_add(keys, "interfaces.id", json_object_new_int(1));
    kytos_store_index(t->napp, "switches", "interfaces.id", keys, 0, NULL);
    json_object_put(keys);
    keys = json_object_new_object();
    json_object_object_add(keys, "endpoints.id", json_object_new_int(1));
    kytos_store_index(t->napp, "links", "endpoints.id", keys, 0, NULL);
    json_object_put(keys);

    rc = load_coll(t, "switches", t->failed_switches, load_switch, errmsg);
    if (rc == 0)
        rc = load_coll(t, "links", t->failed_links, load_link, errmsg);
    if (rc == 0)
        rc = load_coll(t, TOPO_TAGS_COLL, NULL, topo_tags_load, errmsg);
    return rc;
}
