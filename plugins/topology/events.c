/* plugins/topology/events.c - the southbound events topology consumes.
 *
 * Kytos passes Python objects (Switch, Interface); here every content is
 * JSON, as plugins/simnet/simnet.h documents:
 *
 *   .*.switch.(new|reconnected)      {"switch": {"dpid", "connection",
 *                                      "ofp_version", "manufacturer", "hardware",
 *                                      "software", "serial", "data_path"}}
 *   .*.connection.lost               {"dpid": dpid}  (or {"switch": dpid})
 *   .*.switch.interfaces.created     {"interfaces": [INTF, ...]}
 *   kytos/of_core.switch.interface.created,
 *   .*.switch.interface.(link_up|link_down|deleted)   {"interface": INTF}
 *   .*.interface.is.nni              {"interface_a": INTF, "interface_b": INTF}
 *   .*.switch.port.created           republished as kytos/topology.port.created
 *   .*.of_lldp.network_status.updated {"attribute": "LLDP", "state": "enabled"|"disabled",
 *                                      "interface_ids": [id, ...]}  (sets lldp)
 *   kytos/.*.liveness.(up|down)      {"interface_a": INTF, "interface_b": INTF}
 *   kytos/.*.liveness.disabled       {"interfaces": [INTF or id, ...]}
 *   topology.interruption.(start|end) {"type": str, "links": [link_id, ...]}
 *
 *   INTF = {"id": "<dpid>:<port>"} or {"switch": dpid, "port_number": n},
 *          optionally "name", "mac", "speed" (number or null), "active" (bool)
 *
 * All of them arrive through one subscription on a single-thread pool, so
 * they are applied in the order they were published (a link is never
 * processed before its interfaces).  Malformed content is logged and
 * dropped; it never fails the handler. */
#include "topo.h"

#include <string.h>

#define SOUTHBOUND_PATTERN                                                        \
    "(.*\\.switch\\.(new|reconnected)|.*\\.connection\\.lost"                    \
    "|.*\\.switch\\.interfaces\\.created|kytos/of_core\\.switch\\.interface\\.created" \
    "|.*\\.switch\\.interface\\.(link_up|link_down|deleted)|.*\\.interface\\.is\\.nni" \
    "|.*of_lldp\\.network_status\\.updated|.*\\.switch\\.port\\.created"         \
    "|kytos/.*\\.liveness\\.(up|down|disabled)|topology\\.interruption\\.(start|end))"

static bool ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lf = strlen(suffix);

    return ls >= lf && strcmp(s + ls - lf, suffix) == 0;
}

static const char *obj_str(struct json_object *o, const char *key)
{
    struct json_object *v;

    if (json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) &&
        json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

/* The interface an INTF value names (id string accepted as well). */
static bool intf_ref(struct json_object *v, char *dpid, uint32_t *port)
{
    struct json_object *pn;
    const char *id, *sw;
    int64_t p;

    if (json_object_is_type(v, json_type_string))
        return topo_intf_id_parse(json_object_get_string(v), dpid, port);
    id = obj_str(v, "id");
    if (id)
        return topo_intf_id_parse(id, dpid, port);
    sw = obj_str(v, "switch");
    if (!sw || !topo_dpid_valid(sw) || !json_object_object_get_ex(v, "port_number", &pn) ||
        !json_object_is_type(pn, json_type_int))
        return false;
    p = json_object_get_int64(pn);
    if (p < 0 || p > (int64_t)UINT32_MAX)
        return false;
    strcpy(dpid, sw);
    *port = (uint32_t)p;
    return true;
}

static struct topo_intf *intf_lookup(struct topo *t, struct json_object *v)
{
    char dpid[TOPO_DPID_MAX + 1];
    uint32_t port;

    if (!intf_ref(v, dpid, &port))
        return NULL;
    return topo_intf_find(topo_switch_find(t, dpid), port);
}

static void set_if_str(char **dst, struct json_object *o, const char *key)
{
    struct json_object *v;

    if (!json_object_object_get_ex(o, key, &v))
        return;
    if (v == NULL)
        topo_set_str(dst, NULL);
    else if (json_object_is_type(v, json_type_string))
        topo_set_str(dst, json_object_get_string(v));
}

static void queue_intf_event(struct topo_op *op, const char *name, struct topo_intf *i)
{
    struct json_object *c = json_object_new_object();

    if (!c)
        return;
    json_object_object_add(c, "interface", topo_intf_dict(i));
    topo_op_event(op, name, c);
}

static void set_active(struct topo_op *op, struct topo_intf *i, bool active)
{
    if (i->active == active)
        return;
    i->active = active;
    queue_intf_event(op, active ? "kytos/topology.interface.up" : "kytos/topology.interface.down", i);
}

/* Create or update an interface from INTF; NULL when its switch is unknown. */
static struct topo_intf *intf_upsert(struct topo_op *op, struct json_object *v, bool *is_new)
{
    struct topo *t = op->t;
    char dpid[TOPO_DPID_MAX + 1];
    struct topo_switch *sw;
    struct topo_intf *i;
    struct json_object *x;
    uint32_t port;
    bool active = true;

    *is_new = false;
    if (!json_object_is_type(v, json_type_object) || !intf_ref(v, dpid, &port))
        return NULL;
    sw = topo_switch_find(t, dpid);
    if (!sw) {
        kytos_log(t->napp, KYTOS_LOG_WARNING, "interface %s:%u of an unknown switch ignored", dpid,
                  port);
        return NULL;
    }
    i = topo_intf_find(sw, port);
    if (!i) {
        i = topo_intf_add(sw, port);
        if (!i)
            return NULL;
        i->enabled = t->enable_by_default;
        *is_new = true;
    }
    set_if_str(&i->name, v, "name");
    if (!i->name)
        topo_set_str(&i->name, "");
    set_if_str(&i->mac, v, "mac");
    if (json_object_object_get_ex(v, "speed", &x)) {
        if (!x) {
            i->speed_kind = TOPO_SPEED_NULL;
        } else if (json_object_is_type(x, json_type_int)) {
            i->speed_kind = TOPO_SPEED_INT;
            i->speed_int = json_object_get_int64(x);
        } else if (json_object_is_type(x, json_type_double)) {
            i->speed_kind = TOPO_SPEED_FLOAT;
            i->speed_float = json_object_get_double(x);
        }
    }
    if (json_object_object_get_ex(v, "active", &x) && json_object_is_type(x, json_type_boolean))
        active = json_object_get_boolean(x);
    if (*is_new)
        i->active = active;
    else
        set_active(op, i, active);
    return i;
}

static void on_switch_new(struct topo_op *op, struct json_object *c)
{
    struct topo *t = op->t;
    struct json_object *s = NULL;
    struct topo_switch *sw;
    const char *dpid;

    if (!json_object_object_get_ex(c, "switch", &s))
        return;
    dpid = json_object_is_type(s, json_type_string) ? json_object_get_string(s) : obj_str(s, "dpid");
    if (!dpid)
        dpid = obj_str(s, "id");
    if (!dpid || !topo_dpid_valid(dpid)) {
        kytos_log(t->napp, KYTOS_LOG_WARNING, "switch event without a valid dpid ignored");
        return;
    }
    sw = topo_switch_find(t, dpid);
    if (!sw)
        sw = topo_switch_add(t, dpid);
    if (!sw)
        return;
    if (json_object_is_type(s, json_type_object)) {
        set_if_str(&sw->connection, s, "connection");
        set_if_str(&sw->ofp_version, s, "ofp_version");
        set_if_str(&sw->manufacturer, s, "manufacturer");
        set_if_str(&sw->hardware, s, "hardware");
        set_if_str(&sw->software, s, "software");
        set_if_str(&sw->serial, s, "serial");
        set_if_str(&sw->data_path, s, "data_path");
        /* the description strings render as "" in Kytos, never null */
        if (!sw->connection)
            topo_set_str(&sw->connection, "");
        if (!sw->manufacturer)
            topo_set_str(&sw->manufacturer, "");
        if (!sw->hardware)
            topo_set_str(&sw->hardware, "");
        if (!sw->serial)
            topo_set_str(&sw->serial, "");
        if (!sw->data_path)
            topo_set_str(&sw->data_path, "");
    }
    sw->active = true;
    op->changed = true;
    topo_op_persist_switch(op, sw);
    if (sw->enabled) {
        struct json_object *e = json_object_new_object();
        json_object_object_add(e, "dpid", json_object_new_string(sw->dpid));
        topo_op_event(op, "kytos/topology.switch.enabled", e);
    }
}

static void on_connection_lost(struct topo_op *op, struct json_object *c)
{
    const char *dpid = obj_str(c, "dpid");
    struct topo_switch *sw;

    if (!dpid)
        dpid = obj_str(c, "switch");
    sw = topo_switch_find(op->t, dpid);
    if (!sw)
        return;
    sw->active = false;
    op->changed = true;
}

/* handle_interface_created: a (re)created port counts as link up/down. */
static void intf_created(struct topo_op *op, struct topo_intf *i)
{
    queue_intf_event(op, "kytos/topology.switch.interface.created", i);
    if (i->active)
        topo_handle_link_up(op, i);
    else
        topo_handle_link_down(op, i);
}

static void on_interfaces_created(struct topo_op *op, struct json_object *list)
{
    struct topo_switch *last = NULL;
    size_t n;

    if (!json_object_is_type(list, json_type_array))
        return;
    n = json_object_array_length(list);
    for (size_t k = 0; k < n; k++) {
        bool is_new;
        struct topo_intf *i = intf_upsert(op, json_object_array_get_idx(list, k), &is_new);
        if (!i)
            continue;
        /* one document per switch (a port-desc lists one switch; the op
         * keeps only the last write of a document anyway) */
        if (last && last != i->sw)
            topo_op_persist_switch(op, last);
        last = i->sw;
        intf_created(op, i);
    }
    if (last)
        topo_op_persist_switch(op, last);
    op->changed = true;
}

static void on_intf_event(struct topo_op *op, const char *name, struct json_object *c)
{
    struct json_object *v = NULL;
    struct topo_intf *i;
    bool is_new;

    if (!json_object_object_get_ex(c, "interface", &v))
        return;
    if (ends_with(name, ".interface.created")) {
        struct json_object *one = json_object_new_array();
        json_object_array_add(one, json_object_get(v));
        on_interfaces_created(op, one);
        json_object_put(one);
        return;
    }
    i = intf_upsert(op, v, &is_new);
    if (!i)
        return;
    op->changed = true;
    if (is_new)
        topo_op_persist_switch(op, i->sw);
    if (ends_with(name, ".link_up")) {
        set_active(op, i, true);
        topo_handle_link_up(op, i);
    } else {
        set_active(op, i, false);
        topo_handle_link_down(op, i);
    }
    if (ends_with(name, ".deleted") && !i->enabled && !i->active) {
        struct topo_switch *sw = i->sw;
        struct topo_link *l = topo_intf_any_link(op->t, i);
        /* a link, even one left by re-cabling, keeps its endpoints */
        if (l)
            kytos_log(op->t->napp, KYTOS_LOG_INFO, "interface %s kept: link %s has it", i->id, l->id);
        else if (topo_intf_remove(op->t, i))
            topo_op_persist_switch(op, sw);
    }
}

static void on_is_nni(struct topo_op *op, struct json_object *c)
{
    struct json_object *va = NULL, *vb = NULL;
    struct topo_intf *a, *b;
    struct topo_link *l;
    bool created;

    json_object_object_get_ex(c, "interface_a", &va);
    json_object_object_get_ex(c, "interface_b", &vb);
    a = intf_lookup(op->t, va);
    b = intf_lookup(op->t, vb);
    if (!a || !b || a == b) {
        kytos_log(op->t->napp, KYTOS_LOG_ERROR, "Error creating link: unknown endpoints.");
        return;
    }
    l = topo_link_get_or_create(op->t, a, b, &created);
    if (!l)
        return;
    a->link = l;
    b->link = l;
    a->nni = true;
    b->nni = true;
    if (!created)
        return;
    op->changed = true;
    topo_op_persist_link(op, l);
    topo_op_persist_switch(op, a->sw);
    if (b->sw != a->sw)
        topo_op_persist_switch(op, b->sw);
    if (!topo_link_is_active(l))
        return;
    l->seen_change = true;
    topo_link_hold(op, l);
    topo_link_notify_later(op, l, "link up");
}

static void on_port_created(struct topo_op *op, struct json_object *c)
{
    struct json_object *copy = NULL;

    if (json_object_deep_copy(c, &copy, NULL) == 0)
        topo_op_event(op, "kytos/topology.port.created", copy);
}

/* Kytos' of_lldp sets Interface.lldp on the shared objects and topology
 * persists the switch; here of_lldp cannot reach topology's interfaces, so
 * topology applies the "LLDP" attribute's state itself. */
static void on_lldp_status(struct topo_op *op, struct json_object *c)
{
    struct json_object *ids;
    const char *attr = obj_str(c, "attribute"), *state = obj_str(c, "state");
    int lldp = -1;
    size_t n;

    if (!json_object_object_get_ex(c, "interface_ids", &ids) ||
        !json_object_is_type(ids, json_type_array))
        return;
    if (attr && strcmp(attr, "LLDP") == 0 && state)
        lldp = strcmp(state, "enabled") == 0 ? 1 : strcmp(state, "disabled") == 0 ? 0 : -1;
    n = json_object_array_length(ids);
    for (size_t k = 0; k < n; k++) {
        struct topo_intf *i = intf_lookup(op->t, json_object_array_get_idx(ids, k));
        if (!i)
            continue;
        if (lldp >= 0 && i->lldp != (lldp == 1)) {
            i->lldp = lldp == 1;
            op->changed = true;
        }
        topo_op_persist_switch(op, i->sw);
    }
}

static void on_liveness(struct topo_op *op, const char *name, struct json_object *c)
{
    struct topo *t = op->t;

    if (ends_with(name, ".disabled")) {
        struct json_object *list;
        size_t n;
        if (!json_object_object_get_ex(c, "interfaces", &list) ||
            !json_object_is_type(list, json_type_array))
            return;
        n = json_object_array_length(list);
        for (size_t k = 0; k < n; k++) {
            struct topo_intf *i = intf_lookup(t, json_object_array_get_idx(list, k));
            if (i && i->link) {
                json_object_object_del(i->link->metadata, "liveness_status");
                topo_link_eval(op, i->link, "liveness_disabled");
            }
        }
        op->changed = true;
    } else {
        struct json_object *va = NULL, *vb = NULL;
        struct topo_intf *a, *b;
        bool up = ends_with(name, ".up");
        enum topo_status st;
        json_object_object_get_ex(c, "interface_a", &va);
        json_object_object_get_ex(c, "interface_b", &vb);
        a = intf_lookup(t, va);
        b = intf_lookup(t, vb);
        if (!a || !b || !a->link || a->link != b->link) {
            kytos_log(t->napp, KYTOS_LOG_ERROR, "Link for liveness event not found");
            return;
        }
        json_object_object_add(a->link->metadata, "liveness_status",
                               json_object_new_string(up ? "up" : "down"));
        op->changed = true;
        st = topo_link_status(a->link, topo_now_ms());
        if ((st == TOPO_UP && up) || (st == TOPO_DOWN && !up))
            topo_link_eval(op, a->link, up ? "liveness_up" : "liveness_down");
    }
}

static void on_interruption(struct topo_op *op, struct json_object *c)
{
    const char *type = obj_str(c, "type");
    struct json_object *links;
    size_t n;

    if (!type)
        return;
    if (json_object_object_get_ex(c, "links", &links) && json_object_is_type(links, json_type_array)) {
        n = json_object_array_length(links);
        for (size_t k = 0; k < n; k++) {
            struct json_object *v = json_object_array_get_idx(links, k);
            struct topo_link *l = json_object_is_type(v, json_type_string)
                                      ? topo_link_find(op->t, json_object_get_string(v))
                                      : NULL;
            if (l)
                topo_link_eval(op, l, type);
            else
                kytos_log(op->t->napp, KYTOS_LOG_ERROR, "Invalid link id for interruption of type '%s'",
                          type);
        }
    }
    op->changed = true;
}

static int on_southbound(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct topo *t = ud;
    const char *name = kytos_event_name(ev);
    struct json_object *c = kytos_event_content(ev), *v = NULL;
    struct topo_op op;

    (void)napp;
    if (!name || !json_object_is_type(c, json_type_object)) {
        kytos_log(t->napp, KYTOS_LOG_WARNING, "event %s without an object content ignored",
                  name ? name : "?");
        return KYTOS_OK;
    }
    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    if (ends_with(name, ".switch.new") || ends_with(name, ".switch.reconnected"))
        on_switch_new(&op, c);
    else if (ends_with(name, ".connection.lost"))
        on_connection_lost(&op, c);
    else if (ends_with(name, ".switch.interfaces.created")) {
        if (json_object_object_get_ex(c, "interfaces", &v))
            on_interfaces_created(&op, v);
    } else if (ends_with(name, ".interface.is.nni"))
        on_is_nni(&op, c);
    else if (ends_with(name, ".switch.port.created"))
        on_port_created(&op, c);
    /* Kytos' '.*.of_lldp...': the '.' before of_lldp is any character ('/') */
    else if (ends_with(name, "of_lldp.network_status.updated"))
        on_lldp_status(&op, c);
    else if (strstr(name, ".liveness."))
        on_liveness(&op, name, c);
    else if (strncmp(name, "topology.interruption.", 22) == 0)
        on_interruption(&op, c);
    else if (strstr(name, ".switch.interface."))
        on_intf_event(&op, name, c);
    topo_op_unlock_model(&op);
    topo_op_end(&op);
    return KYTOS_OK;
}

int topo_events_subscribe(struct topo *t)
{
    return kytos_event_subscribe(t->napp, &(struct kytos_sub){
        .struct_size = sizeof(struct kytos_sub),
        .pattern = SOUTHBOUND_PATTERN,
        .handler = on_southbound,
        .ud = t,
        .pool = "dynamic_single",
    });
}
