/* plugins/simnet/rest.c - /api/kytos/simnet/v1/: look at the simulated
 * network and change it at run time (links and ports down/up, switches
 * added, removed, disconnected, reconnected), plus the simulated flow
 * tables.  Each change publishes what of_core/of_lldp would (simnet.h). */
#include "simnet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reply_ok(kytos_req *req, unsigned status)
{
    struct json_object *s = json_object_new_string("Operation successful");
    int rc = kytos_resp_json(req, status, s);

    json_object_put(s);
    return rc;
}

static bool link_up(struct simnet *s, const struct sim_link *l)
{
    struct sim_switch *sa = NULL, *sb = NULL;
    struct sim_port *pa = sim_port_by_id(s, l->a, &sa), *pb = sim_port_by_id(s, l->b, &sb);

    return pa && pb && pa->up && pb->up && sa->connected && sb->connected;
}

static struct json_object *network_json(struct simnet *s)
{
    struct json_object *o = json_object_new_object(), *sws = json_object_new_object();
    struct json_object *lks = json_object_new_object();

    json_object_object_add(o, "shape", json_object_new_string(sim_shape_name(s->shape)));
    for (size_t i = 0; i < s->n_switches; i++) {
        struct sim_switch *sw = s->switches[i];
        struct json_object *d = json_object_new_object(), *ports = json_object_new_object();
        char dp[24], no[16];
        snprintf(dp, sizeof(dp), "s%u", sw->idx);
        for (size_t k = 0; k < sw->n_ports; k++) {
            struct sim_port *p = &sw->ports[k];
            struct json_object *pd = json_object_new_object();
            snprintf(no, sizeof(no), "%u", p->no);
            json_object_object_add(pd, "name", json_object_new_string(p->name));
            json_object_object_add(pd, "mac", json_object_new_string(p->mac));
            json_object_object_add(pd, "up", json_object_new_boolean(p->up));
            json_object_object_add(pd, "peer", p->peer[0] ? json_object_new_string(p->peer) : NULL);
            json_object_object_add(ports, no, pd);
        }
        json_object_object_add(d, "connected", json_object_new_boolean(sw->connected));
        json_object_object_add(d, "connection", json_object_new_string(sw->connection));
        json_object_object_add(d, "data_path", json_object_new_string(dp));
        json_object_object_add(d, "ports", ports);
        json_object_object_add(d, "flows", json_object_new_int64((int64_t)sw->flows.n));
        json_object_object_add(d, "flow_mods", json_object_new_int64((int64_t)sw->flow_mods));
        json_object_object_add(sws, sw->dpid, d);
    }
    for (size_t i = 0; i < s->n_links; i++) {
        struct json_object *d = json_object_new_object();
        json_object_object_add(d, "endpoint_a", json_object_new_string(s->links[i].a));
        json_object_object_add(d, "endpoint_b", json_object_new_string(s->links[i].b));
        json_object_object_add(d, "up", json_object_new_boolean(link_up(s, &s->links[i])));
        json_object_object_add(lks, s->links[i].id, d);
    }
    json_object_object_add(o, "switches", sws);
    json_object_object_add(o, "links", lks);
    return o;
}

static int get_network(kytos_req *req, void *ud)
{
    struct simnet *s = ud;
    struct json_object *body;

    pthread_mutex_lock(&s->lock);
    body = network_json(s);
    pthread_mutex_unlock(&s->lock);
    return kytos_resp_json_take(req, 200, body);
}

/* A port changes state: the switch reports it if it is connected, and LLDP
 * finds the link again once both ends are up. */
static void port_set(struct simnet *s, struct napp_evq *q, struct sim_switch *sw, struct sim_port *p,
                     bool up)
{
    if (p->up == up)
        return;
    p->up = up;
    if (sw->connected)
        sim_ev_port(q, up ? "kytos/of_core.switch.interface.link_up"
                          : "kytos/of_core.switch.interface.link_down",
                    sw, p);
}

static void rediscover(struct simnet *s, struct napp_evq *q, const char *intf_id)
{
    for (size_t i = 0; i < s->n_links; i++)
        if ((strcmp(s->links[i].a, intf_id) == 0 || strcmp(s->links[i].b, intf_id) == 0) &&
            link_up(s, &s->links[i]))
            sim_ev_link(s, q, &s->links[i]);
}

static int set_link(kytos_req *req, struct simnet *s, bool up)
{
    struct napp_evq q = {0};
    struct sim_link *l;
    struct sim_switch *sa = NULL, *sb = NULL;
    struct sim_port *pa, *pb;

    pthread_mutex_lock(&s->lock);
    l = sim_link_find(s, kytos_req_param(req, "link_id"));
    if (!l) {
        pthread_mutex_unlock(&s->lock);
        return kytos_resp_error(req, 404, "Link not found");
    }
    pa = sim_port_by_id(s, l->a, &sa);
    pb = sim_port_by_id(s, l->b, &sb);
    if (pa && pb) {
        port_set(s, &q, sa, pa, up);
        port_set(s, &q, sb, pb, up);
        if (up && link_up(s, l))
            sim_ev_link(s, &q, l);
    }
    sim_evq_flush_locked(s, &q);
    return reply_ok(req, 200);
}

static int link_down(kytos_req *req, void *ud)
{
    return set_link(req, ud, false);
}

static int link_up_route(kytos_req *req, void *ud)
{
    return set_link(req, ud, true);
}

static int set_port(kytos_req *req, struct simnet *s, bool up)
{
    const char *id = kytos_req_param(req, "interface_id");
    struct napp_evq q = {0};
    struct sim_switch *sw = NULL;
    struct sim_port *p;

    pthread_mutex_lock(&s->lock);
    p = sim_port_by_id(s, id, &sw);
    if (!p) {
        pthread_mutex_unlock(&s->lock);
        return kytos_resp_error(req, 404, "Interface not found");
    }
    port_set(s, &q, sw, p, up);
    if (up)
        rediscover(s, &q, id);
    sim_evq_flush_locked(s, &q);
    return reply_ok(req, 200);
}

static int port_down(kytos_req *req, void *ud)
{
    return set_port(req, ud, false);
}

static int port_up(kytos_req *req, void *ud)
{
    return set_port(req, ud, true);
}

/* The body of a POST, parsed by the host (NULL for an empty body). */
static bool body_object(kytos_req *req, struct json_object **out)
{
    size_t len = 0;

    kytos_req_body(req, &len);
    *out = kytos_req_json(req);
    if (len == 0 && !*out)
        return true;
    if (!json_object_is_type(*out, json_type_object)) {
        kytos_resp_error(req, 400, "The request body must be a JSON object.");
        return false;
    }
    return true;
}

static int add_switch(kytos_req *req, void *ud)
{
    struct simnet *s = ud;
    struct json_object *body = NULL, *v, *peers = NULL, *resp, *ids;
    struct sim_switch *sw, *peer_sw[SIM_MAX_HOST_PORTS];
    const char *dpid = NULL, *err = NULL;
    struct napp_evq q = {0};
    int64_t hosts = 1;
    size_t n_peers = 0;

    if (!body_object(req, &body))
        return KYTOS_OK;
    if (body) {
        json_object_object_foreach(body, key, val) {
            if (strcmp(key, "dpid") && strcmp(key, "host_ports") && strcmp(key, "peers"))
                return kytos_resp_error(req, 400, "Unknown field '%.64s'.", key);
            (void)val;
        }
        if (json_object_object_get_ex(body, "dpid", &v)) {
            if (!json_object_is_type(v, json_type_string) || !topo_dpid_valid(json_object_get_string(v)))
                return kytos_resp_error(req, 400, "dpid must be a string of 1 to %d printable characters.",
                                        TOPO_DPID_MAX);
            dpid = json_object_get_string(v);
        }
        if (json_object_object_get_ex(body, "host_ports", &v)) {
            if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0 ||
                json_object_get_int64(v) > SIM_MAX_HOST_PORTS)
                return kytos_resp_error(req, 400, "host_ports must be an integer from 0 to %d.",
                                        SIM_MAX_HOST_PORTS);
            hosts = json_object_get_int64(v);
        }
        if (json_object_object_get_ex(body, "peers", &peers) &&
            (!json_object_is_type(peers, json_type_array) ||
             json_object_array_length(peers) > SIM_MAX_HOST_PORTS))
            return kytos_resp_error(req, 400, "peers must be a list of at most %d dpids.",
                                    SIM_MAX_HOST_PORTS);
    }
    pthread_mutex_lock(&s->lock);
    for (size_t k = 0; peers && k < json_object_array_length(peers); k++) {
        struct json_object *p = json_object_array_get_idx(peers, k);
        struct sim_switch *psw = json_object_is_type(p, json_type_string)
                                     ? sim_switch_find(s, json_object_get_string(p))
                                     : NULL;
        if (!psw) {
            pthread_mutex_unlock(&s->lock);
            return kytos_resp_error(req, 404, "Peer switch not found");
        }
        for (size_t m = 0; m < n_peers; m++) {
            if (peer_sw[m] == psw) {
                pthread_mutex_unlock(&s->lock);
                return kytos_resp_error(req, 400, "peers must not repeat a switch.");
            }
        }
        peer_sw[n_peers++] = psw;
    }
    sw = sim_switch_add(s, dpid, (int)hosts, peer_sw, n_peers, &err);
    if (!sw) {
        pthread_mutex_unlock(&s->lock);
        return kytos_resp_error(req, strcmp(err, "Switch already exists") == 0 ? 409 : 400, "%s", err);
    }
    sim_ev_switch_up(s, &q, sw, false);
    resp = json_object_new_object();
    ids = json_object_new_array();
    json_object_object_add(resp, "dpid", json_object_new_string(sw->dpid));
    for (size_t k = 0; k < n_peers; k++) {
        struct sim_port *pp = sim_port_find(peer_sw[k], peer_sw[k]->next_port - 1);
        if (pp && peer_sw[k]->connected)
            sim_ev_port(&q, "kytos/of_core.switch.interface.created", peer_sw[k], pp);
    }
    for (size_t k = 0; k < sw->n_ports; k++) {
        char id[TOPO_INTF_ID_MAX + 1];
        struct sim_link *l;
        if (!sw->ports[k].peer[0])
            continue;
        snprintf(id, sizeof(id), "%s:%u", sw->dpid, sw->ports[k].no);
        for (size_t i = 0; i < s->n_links; i++) {
            l = &s->links[i];
            if (strcmp(l->a, id) == 0 || strcmp(l->b, id) == 0) {
                json_object_array_add(ids, json_object_new_string(l->id));
                if (link_up(s, l))
                    sim_ev_link(s, &q, l);
            }
        }
    }
    json_object_object_add(resp, "links", ids);
    sim_evq_flush_locked(s, &q);
    return kytos_resp_json_take(req, 201, resp);
}

static int delete_switch(kytos_req *req, void *ud)
{
    struct simnet *s = ud;
    struct napp_evq q = {0};
    struct sim_switch *sw;

    pthread_mutex_lock(&s->lock);
    sw = sim_switch_find(s, kytos_req_param(req, "dpid"));
    if (!sw) {
        pthread_mutex_unlock(&s->lock);
        return kytos_resp_error(req, 404, "Switch not found");
    }
    sim_switch_remove(s, sw, &q);
    sim_evq_flush_locked(s, &q);
    return reply_ok(req, 200);
}

static int set_connected(kytos_req *req, struct simnet *s, bool connected)
{
    struct napp_evq q = {0};
    struct sim_switch *sw;

    pthread_mutex_lock(&s->lock);
    sw = sim_switch_find(s, kytos_req_param(req, "dpid"));
    if (!sw) {
        pthread_mutex_unlock(&s->lock);
        return kytos_resp_error(req, 404, "Switch not found");
    }
    if (sw->connected != connected) {
        sw->connected = connected;
        if (connected) {
            sim_ev_switch_up(s, &q, sw, true);
            for (size_t k = 0; k < sw->n_ports; k++) {
                char id[TOPO_INTF_ID_MAX + 1];
                snprintf(id, sizeof(id), "%s:%u", sw->dpid, sw->ports[k].no);
                if (sw->ports[k].peer[0])
                    rediscover(s, &q, id);
            }
        } else {
            sim_ev_conn_lost(&q, sw);
        }
    }
    sim_evq_flush_locked(s, &q);
    return reply_ok(req, 200);
}

static int disconnect_switch(kytos_req *req, void *ud)
{
    return set_connected(req, ud, false);
}

static int connect_switch(kytos_req *req, void *ud)
{
    return set_connected(req, ud, true);
}

static int get_flows(kytos_req *req, void *ud)
{
    struct simnet *s = ud;
    const char *dpid = kytos_req_param(req, "dpid");
    struct json_object *body = json_object_new_object();
    bool found = false;

    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->n_switches; i++) {
        struct sim_switch *sw = s->switches[i];
        struct json_object *d, *copy;
        if (dpid && strcmp(dpid, sw->dpid) != 0)
            continue;
        found = true;
        d = json_object_new_object();
        copy = sim_flowtab_json(&sw->flows);
        if (!copy)
            copy = json_object_new_array();
        json_object_object_add(d, "flows", copy);
        json_object_object_add(body, sw->dpid, d);
    }
    pthread_mutex_unlock(&s->lock);
    if (dpid && !found) {
        json_object_put(body);
        return kytos_resp_error(req, 404, "Switch not found");
    }
    return kytos_resp_json_take(req, 200, body);
}

static int post_flow_stats(kytos_req *req, void *ud)
{
    struct simnet *s = ud;
    struct napp_evq q = {0};
    struct json_object *body = json_object_new_object();
    size_t n;

    pthread_mutex_lock(&s->lock);
    n = sim_flow_stats_all(s, &q);
    sim_evq_flush_locked(s, &q);
    json_object_object_add(body, "switches", json_object_new_int64((int64_t)n));
    return kytos_resp_json_take(req, 200, body);
}

int sim_routes_register(struct simnet *s)
{
    static const struct {
        const char *method, *path;
        kytos_handler fn;
    } routes[] = {
        {"GET", "v1/", get_network},
        {"POST", "v1/links/{link_id}/down", link_down},
        {"POST", "v1/links/{link_id}/up", link_up_route},
        {"POST", "v1/interfaces/{interface_id}/down", port_down},
        {"POST", "v1/interfaces/{interface_id}/up", port_up},
        {"POST", "v1/switches", add_switch},
        {"DELETE", "v1/switches/{dpid}", delete_switch},
        {"POST", "v1/switches/{dpid}/disconnect", disconnect_switch},
        {"POST", "v1/switches/{dpid}/connect", connect_switch},
        {"GET", "v1/flows", get_flows},
        {"GET", "v1/flows/{dpid}", get_flows},
        {"POST", "v1/flow_stats", post_flow_stats},
    };
    int rc = KYTOS_OK;

    for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]) && rc == KYTOS_OK; i++)
        rc = kytos_route_add(s->napp, &(struct kytos_route){
            .struct_size = sizeof(struct kytos_route),
            .method = routes[i].method,
            .path = routes[i].path,
            .handler = routes[i].fn,
            .ud = s,
        });
    return rc;
}
