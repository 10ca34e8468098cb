/* plugins/of_core/switches.c - the switch table (one entry per dpid, kept
 * across connections as Kytos keeps its Switch objects), ports, and their
 * JSON (SWITCH and INTF of of_core.h).  Callers hold oc->lock. */
#include "of_core.h"
#include "../topology/pyfloat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ofc_switch *ofc_switch_find(struct ofcore *oc, const char *dpid)
{
    for (size_t i = 0; i < oc->n_sw; i++)
        if (strcmp(oc->sw[i]->dpid, dpid) == 0)
            return oc->sw[i];
    return NULL;
}

struct ofc_switch *ofc_switch_get(struct ofcore *oc, const char *dpid)
{
    struct ofc_switch *sw = ofc_switch_find(oc, dpid);

    if (sw)
        return sw;
    if (oc->n_sw == oc->cap_sw) {
        size_t cap = oc->cap_sw ? oc->cap_sw * 2 : 16;
        struct ofc_switch **v = realloc(oc->sw, cap * sizeof(*v));
        if (!v)
            return NULL;
        oc->sw = v;
        oc->cap_sw = cap;
    }
    sw = calloc(1, sizeof(*sw));
    if (!sw)
        return NULL;
    snprintf(sw->dpid, sizeof(sw->dpid), "%s", dpid);
    oc->sw[oc->n_sw++] = sw;
    return sw;
}

struct ofc_port *ofc_port_find(struct ofc_switch *sw, uint32_t no)
{
    for (size_t i = 0; i < sw->n_ports; i++)
        if (sw->ports[i].no == no)
            return &sw->ports[i];
    return NULL;
}

struct ofc_port *ofc_port_set(struct ofc_switch *sw, const struct ofp_port *p)
{
    struct ofc_port *o = ofc_port_find(sw, p->port_no);

    if (!o) {
        if (sw->n_ports >= OFC_MAX_PORTS)
            return NULL;
        if (sw->n_ports == sw->cap_ports) {
            size_t cap = sw->cap_ports ? sw->cap_ports * 2 : 8;
            struct ofc_port *v = realloc(sw->ports, cap * sizeof(*v));
            if (!v)
                return NULL;
            sw->ports = v;
            sw->cap_ports = cap;
        }
        o = &sw->ports[sw->n_ports++];
        memset(o, 0, sizeof(*o));
        o->no = p->port_no;
    }
    snprintf(o->name, sizeof(o->name), "%s", p->name);
    memcpy(o->mac, p->hw_addr, 6);
    o->config = p->config;
    o->state = p->state;
    o->curr = p->curr;
    o->curr_speed = p->curr_speed;
    o->present = true;
    return o;
}

struct json_object *ofc_switch_json(const struct ofc_switch *sw)
{
    struct json_object *d = json_object_new_object();

    if (!d)
        return NULL;
    json_object_object_add(d, "dpid", json_object_new_string(sw->dpid));
    json_object_object_add(d, "connection", json_object_new_string(sw->connection));
    json_object_object_add(d, "ofp_version", json_object_new_string("0x04"));
    json_object_object_add(d, "manufacturer", json_object_new_string(sw->mfr));
    json_object_object_add(d, "hardware", json_object_new_string(sw->hw));
    json_object_object_add(d, "software", json_object_new_string(sw->sw));
    json_object_object_add(d, "serial", json_object_new_string(sw->serial));
    json_object_object_add(d, "data_path", json_object_new_string(sw->dp));
    return d;
}

/* Kytos' Interface.speed from the curr feature bits (bytes/s), 0 if none. */
static double feature_speed(uint32_t curr)
{
    static const struct { uint32_t bit; double bps; } tab[] = {
        {1u << 9, 1e12}, {1u << 8, 100e9}, {1u << 7, 40e9}, {1u << 6, 10e9}, {1u << 5, 1e9},
        {1u << 4, 1e9},  {1u << 3, 100e6}, {1u << 2, 100e6}, {1u << 1, 10e6}, {1u << 0, 10e6},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (curr & tab[i].bit)
            return tab[i].bps / 8.0;
    return 0;
}

struct json_object *ofc_intf_json(const struct ofc_switch *sw, const struct ofc_port *p)
{
    struct json_object *o = json_object_new_object();
    char id[48], mac[18];
    double speed = feature_speed(p->curr);
    bool local = p->no == OFPP_LOCAL;

    if (!o)
        return NULL;
    if (speed == 0 && p->curr_speed)
        speed = p->curr_speed * 125.0;   /* kbps -> bytes/s */
    snprintf(id, sizeof(id), "%s:%u", sw->dpid, p->no);
    snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", p->mac[0], p->mac[1], p->mac[2],
             p->mac[3], p->mac[4], p->mac[5]);
    json_object_object_add(o, "id", json_object_new_string(id));
    json_object_object_add(o, "switch", json_object_new_string(sw->dpid));
    json_object_object_add(o, "port_number", json_object_new_int64(p->no));
    json_object_object_add(o, "name", json_object_new_string(p->name));
    json_object_object_add(o, "mac", json_object_new_string(mac));
    json_object_object_add(o, "speed", topo_json_pyfloat(speed));
    json_object_object_add(o, "active",
                           json_object_new_boolean(p->present && (local || p->state == OFPPS_LIVE)));
    json_object_object_add(o, "state", json_object_new_int64(p->state));
    json_object_object_add(o, "config", json_object_new_int64(p->config));
    json_object_object_add(o, "curr", json_object_new_int64(p->curr));
    return o;
}

kytos_conn *ofc_switch_conn(struct ofcore *oc, const char *dpid)
{
    struct ofc_switch *sw;
    kytos_conn *c = NULL;

    pthread_mutex_lock(&oc->lock);
    sw = ofc_switch_find(oc, dpid);
    if (sw && sw->conn) {
        c = sw->conn;
        kytos_conn_ref(c);
    }
    pthread_mutex_unlock(&oc->lock);
    return c;
}

void ofc_switches_free(struct ofcore *oc)
{
    for (size_t i = 0; i < oc->n_sw; i++) {
        if (oc->sw[i]->conn)
            kytos_conn_unref(oc->sw[i]->conn);
        free(oc->sw[i]->ports);
        free(oc->sw[i]);
    }
    free(oc->sw);
    oc->sw = NULL;
    oc->n_sw = oc->cap_sw = 0;
}
