/* plugins/simnet/publish.c - the events simnet publishes (simnet.h has the
 * contract).  Changes queue their events under s->lock; sim_evq_flush_locked
 * takes pub_lock before it drops s->lock, so events leave in the order of
 * the changes, and no lock on the network is held while publishing. */
#include "simnet.h"
#include "../topology/pyfloat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPEED_10G (10.0 * 1e9 / 8.0)  /* bytes/s, a float as in Kytos */

void sim_evq_publish(struct simnet *s, struct napp_evq *q)
{
    pthread_mutex_lock(&s->pub_lock);
    napp_evq_publish(s->napp, q, 5000, true);
    pthread_mutex_unlock(&s->pub_lock);
}

void sim_evq_flush_locked(struct simnet *s, struct napp_evq *q)
{
    pthread_mutex_lock(&s->pub_lock);
    pthread_mutex_unlock(&s->lock);
    napp_evq_publish(s->napp, q, 5000, true);
    pthread_mutex_unlock(&s->pub_lock);
}

void sim_evq_answer_unlock(struct simnet *s, struct napp_evq *q)
{
    /* a switch's answers to flow_manager: on the sender's thread (a
     * "direct" handler), which must never wait, so neither for pub_lock
     * (held by other simnet threads while they publish) nor for room in
     * a full buffer (dropped and logged instead) */
    pthread_mutex_unlock(&s->lock);
    napp_evq_publish(s->napp, q, 0, true);
}

struct json_object *sim_intf_json(const struct sim_switch *sw, const struct sim_port *p)
{
    struct json_object *o = json_object_new_object();
    char id[TOPO_INTF_ID_MAX + 1];

    if (!o)
        return NULL;
    snprintf(id, sizeof(id), "%s:%u", sw->dpid, p->no);
    json_object_object_add(o, "id", json_object_new_string(id));
    json_object_object_add(o, "switch", json_object_new_string(sw->dpid));
    json_object_object_add(o, "port_number", json_object_new_int64(p->no));
    json_object_object_add(o, "name", json_object_new_string(p->name));
    json_object_object_add(o, "mac", json_object_new_string(p->mac));
    json_object_object_add(o, "speed", p->local ? json_object_new_int(0) : topo_json_pyfloat(SPEED_10G));
    json_object_object_add(o, "active", json_object_new_boolean(p->up && sw->connected));
    return o;
}

void sim_ev_switch_up(const struct simnet *s, struct napp_evq *q, const struct sim_switch *sw,
                      bool reconnect)
{
    struct json_object *c = json_object_new_object(), *d = json_object_new_object();
    struct json_object *ic = json_object_new_object(), *list = json_object_new_array();
    char dp[24];

    if (!c || !d || !ic || !list) {
        json_object_put(c);
        json_object_put(d);
        json_object_put(ic);
        json_object_put(list);
        return;
    }
    snprintf(dp, sizeof(dp), "s%u", sw->idx);
    json_object_object_add(d, "dpid", json_object_new_string(sw->dpid));
    json_object_object_add(d, "connection", json_object_new_string(sw->connection));
    json_object_object_add(d, "ofp_version", json_object_new_string("0x04"));
    json_object_object_add(d, "manufacturer", json_object_new_string("Nicira, Inc."));
    json_object_object_add(d, "hardware", json_object_new_string("Open vSwitch"));
    json_object_object_add(d, "software", json_object_new_string(s->software));
    json_object_object_add(d, "serial", json_object_new_string("None"));
    json_object_object_add(d, "data_path", json_object_new_string(dp));
    json_object_object_add(c, "switch", d);
    napp_evq_add(q, reconnect ? "kytos/core.switch.reconnected" : "kytos/core.switch.new", c);

    for (size_t k = 0; k < sw->n_ports; k++)
        json_object_array_add(list, sim_intf_json(sw, &sw->ports[k]));
    json_object_object_add(ic, "switch", json_object_new_string(sw->dpid));
    json_object_object_add(ic, "interfaces", list);
    napp_evq_add(q, "kytos/of_core.switch.interfaces.created", ic);
}

void sim_ev_port(struct napp_evq *q, const char *name, const struct sim_switch *sw,
                 const struct sim_port *p)
{
    struct json_object *c = json_object_new_object();

    if (!c)
        return;
    json_object_object_add(c, "interface", sim_intf_json(sw, p));
    napp_evq_add(q, name, c);
}

void sim_ev_link(struct simnet *s, struct napp_evq *q, const struct sim_link *l)
{
    struct sim_switch *sa = NULL, *sb = NULL;
    struct sim_port *pa = sim_port_by_id(s, l->a, &sa), *pb = sim_port_by_id(s, l->b, &sb);
    struct json_object *c;

    if (!pa || !pb)
        return;
    c = json_object_new_object();
    if (!c)
        return;
    json_object_object_add(c, "interface_a", sim_intf_json(sa, pa));
    json_object_object_add(c, "interface_b", sim_intf_json(sb, pb));
    napp_evq_add(q, "kytos/of_lldp.interface.is.nni", c);
}

void sim_ev_conn_lost(struct napp_evq *q, const struct sim_switch *sw)
{
    struct json_object *c = json_object_new_object();

    if (!c)
        return;
    json_object_object_add(c, "dpid", json_object_new_string(sw->dpid));
    napp_evq_add(q, "kytos/core.connection.lost", c);
}
