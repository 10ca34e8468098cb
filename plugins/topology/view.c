/* plugins/topology/view.c - the as_dict() shapes of kytos.core's Switch,
 * Interface and Link as json-c values, for event contents.  snapshot.c
 * writes the same shapes as text for the GET bodies (compared byte for byte
 * with ../shared/fixtures/gen_topology.py); a test checks they agree.
 *
 * status_reason: Kytos fills it from status_reason_funcs that NApps
 * register (of_lldp's "liveness", applied here) plus "disabled" for a
 * disabled entity; the
 * fixture shows [] for an enabled but inactive port, so "deactivated" is
 * not reported. */
#include "topo.h"
#include "pyfloat.h"

#include <stdio.h>

static struct json_object *str_or_null(const char *s)
{
    return s ? json_object_new_string(s) : NULL;
}

static struct json_object *status_reason(bool enabled)
{
    struct json_object *a = json_object_new_array();

    if (a && !enabled)
        json_object_array_add(a, json_object_new_string("disabled"));
    return a;
}

/* A link's: sorted, as Kytos' set of reasons. */
static struct json_object *link_status_reason(const struct topo_link *l, bool enabled)
{
    struct json_object *a = status_reason(enabled);

    if (a && topo_link_liveness_down(l))
        json_object_array_add(a, json_object_new_string("liveness"));
    if (a && topo_link_mismatched(l))
        json_object_array_add(a, json_object_new_string("mismatched_link"));
    return a;
}

static struct json_object *copy_or_empty(struct json_object *o)
{
    struct json_object *c = NULL;

    if (o && json_object_deep_copy(o, &c, NULL) == 0)
        return c;
    return json_object_new_object();
}

struct json_object *topo_intf_dict(const struct topo_intf *i)
{
    struct json_object *o = json_object_new_object();
    struct json_object *speed = NULL;

    if (!o)
        return NULL;
    if (i->speed_kind == TOPO_SPEED_INT)
        speed = json_object_new_int64(i->speed_int);
    else if (i->speed_kind == TOPO_SPEED_FLOAT)
        speed = topo_json_pyfloat(i->speed_float);
    json_object_object_add(o, "id", json_object_new_string(i->id));
    json_object_object_add(o, "name", json_object_new_string(i->name));
    json_object_object_add(o, "port_number", json_object_new_int64(i->port));
    json_object_object_add(o, "mac", str_or_null(i->mac));
    json_object_object_add(o, "switch", json_object_new_string(i->sw->dpid));
    json_object_object_add(o, "type", json_object_new_string("interface"));
    json_object_object_add(o, "nni", json_object_new_boolean(i->nni));
    json_object_object_add(o, "uni", json_object_new_boolean(!i->nni));
    json_object_object_add(o, "speed", speed);
    json_object_object_add(o, "metadata", copy_or_empty(i->metadata));
    json_object_object_add(o, "lldp", json_object_new_boolean(i->lldp));
    json_object_object_add(o, "active", json_object_new_boolean(i->active));
    json_object_object_add(o, "enabled", json_object_new_boolean(i->enabled));
    json_object_object_add(o, "status", json_object_new_string(topo_status_str(topo_intf_status(i))));
    json_object_object_add(o, "status_reason", status_reason(i->enabled));
    json_object_object_add(o, "link", json_object_new_string(i->link ? i->link->id : ""));
    return o;
}

/* Kytos puts switches "somewhere in the ocean" when lat/lng are missing. */
static void inject_latlng(struct json_object *md, size_t idx)
{
    char lng[TOPO_PYFLOAT_MAX];

    if (json_object_object_get_ex(md, "lat", NULL) && json_object_object_get_ex(md, "lng", NULL))
        return;
    topo_pyfloat(-30.0 + (double)idx * 10.0, lng);
    json_object_object_add(md, "lat", json_object_new_string("0.0"));
    json_object_object_add(md, "lng", json_object_new_string(lng));
}

static struct json_object *switch_dict_with(const struct topo_switch *s, bool with_latlng,
                                            size_t idx, struct json_object *intfs)
{
    struct json_object *o = json_object_new_object();
    struct json_object *md = copy_or_empty(s->metadata);

    if (!o || !md) {
        json_object_put(o);
        json_object_put(md);
        json_object_put(intfs);
        return NULL;
    }
    if (with_latlng)
        inject_latlng(md, idx);
    json_object_object_add(o, "id", json_object_new_string(s->dpid));
    json_object_object_add(o, "name", json_object_new_string(s->dpid));
    json_object_object_add(o, "dpid", json_object_new_string(s->dpid));
    json_object_object_add(o, "connection", json_object_new_string(s->connection));
    json_object_object_add(o, "ofp_version", str_or_null(s->ofp_version));
    json_object_object_add(o, "type", json_object_new_string("switch"));
    json_object_object_add(o, "manufacturer", json_object_new_string(s->manufacturer));
    json_object_object_add(o, "serial", json_object_new_string(s->serial));
    json_object_object_add(o, "hardware", json_object_new_string(s->hardware));
    json_object_object_add(o, "software", str_or_null(s->software));
    json_object_object_add(o, "data_path", json_object_new_string(s->data_path));
    json_object_object_add(o, "interfaces", intfs);
    json_object_object_add(o, "metadata", md);
    json_object_object_add(o, "active", json_object_new_boolean(s->active));
    json_object_object_add(o, "enabled", json_object_new_boolean(s->enabled));
    json_object_object_add(o, "status", json_object_new_string(topo_status_str(topo_switch_status(s))));
    json_object_object_add(o, "status_reason", status_reason(s->enabled));
    return o;
}

struct json_object *topo_switch_dict(const struct topo_switch *s, bool with_latlng, size_t idx)
{
    struct json_object *intfs = json_object_new_object();

    if (!intfs)
        return NULL;
    for (size_t k = 0; k < s->n_intfs; k++)
        json_object_object_add(intfs, s->intfs[k]->id, topo_intf_dict(s->intfs[k]));
    return switch_dict_with(s, with_latlng, idx, intfs);
}

static struct json_object *link_dict_with(const struct topo_link *l, int64_t now_ms,
                                          struct json_object *ea, struct json_object *eb)
{
    struct json_object *o = json_object_new_object();
    bool enabled = topo_link_is_enabled(l);

    if (!o) {
        json_object_put(ea);
        json_object_put(eb);
        return NULL;
    }
    json_object_object_add(o, "id", json_object_new_string(l->id));
    json_object_object_add(o, "endpoint_a", ea);
    json_object_object_add(o, "endpoint_b", eb);
    json_object_object_add(o, "metadata", copy_or_empty(l->metadata));
    json_object_object_add(o, "active", json_object_new_boolean(topo_link_is_active(l)));
    json_object_object_add(o, "enabled", json_object_new_boolean(enabled));
    json_object_object_add(o, "status",
                           json_object_new_string(topo_status_str(topo_link_status(l, now_ms))));
    json_object_object_add(o, "status_reason", link_status_reason(l, enabled));
    return o;
}

struct json_object *topo_link_dict(const struct topo_link *l, int64_t now_ms)
{
    return link_dict_with(l, now_ms, topo_intf_dict(l->a), topo_intf_dict(l->b));
}
