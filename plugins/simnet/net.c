/* plugins/simnet/net.c - the simulated network: switches, ports, links.
 *
 * Port numbering follows Mininet's addLink order as gen_topology.py does:
 * host ports first, then one port per link in link order.  MAC addresses
 * and connection ports come from Python's random.Random(seed), consumed in
 * the fixture's order (every port of s1 then its LOCAL port, then s1's TCP
 * port, then s2 ...). */
#include "simnet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *sim_shape_name(enum sim_shape shape)
{
    return shape == SIM_LINEAR ? "linear" : shape == SIM_MESH ? "mesh" : "ring";
}

static bool grow(void **v, size_t *cap, size_t need, size_t elem)
{
    size_t ncap;
    void *nv;

    if (need <= *cap)
        return true;
    ncap = *cap ? *cap * 2 : 8;
    while (ncap < need)
        ncap *= 2;
    nv = realloc(*v, ncap * elem);
    if (!nv)
        return false;
    *v = nv;
    *cap = ncap;
    return true;
}

static void rand_mac(struct simnet *s, char out[18])
{
    unsigned o[6];

    for (int i = 0; i < 6; i++)
        o[i] = (unsigned)pyrand_range(&s->rng, 0, 256);
    o[0] = (o[0] & 0xFCu) | 0x02u;  /* locally administered unicast */
    snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", o[0], o[1], o[2], o[3], o[4], o[5]);
}

static int64_t now_secs(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec;
}

static struct sim_switch *switch_new(struct simnet *s, const char *dpid)
{
    struct sim_switch *sw;

    if (!grow((void **)&s->switches, &s->cap_switches, s->n_switches + 1, sizeof(*s->switches)))
        return NULL;
    sw = calloc(1, sizeof(*sw));
    if (!sw)
        return NULL;
    snprintf(sw->dpid, sizeof(sw->dpid), "%s", dpid);
    sw->idx = ++s->next_idx;
    sw->next_port = 1;
    sw->connected = true;
    sw->connected_at = now_secs();
    s->switches[s->n_switches++] = sw;
    return sw;
}

static void switch_free(struct sim_switch *sw)
{
    sim_flowtab_clear(&sw->flows);
    free(sw->ports);
    free(sw);
}

/* Append a port (LOCAL stays last). */
static struct sim_port *port_add(struct sim_switch *sw, uint32_t no, bool local)
{
    struct sim_port *p;
    size_t at = sw->n_ports;

    if (!grow((void **)&sw->ports, &sw->cap_ports, sw->n_ports + 1, sizeof(*sw->ports)))
        return NULL;
    if (!local && at > 0 && sw->ports[at - 1].local)
        at--;
    memmove(&sw->ports[at + 1], &sw->ports[at], (sw->n_ports - at) * sizeof(*sw->ports));
    sw->n_ports++;
    p = &sw->ports[at];
    memset(p, 0, sizeof(*p));
    p->no = no;
    p->local = local;
    p->up = !local;  /* Mininet leaves the OVS LOCAL port down */
    if (local)
        snprintf(p->name, sizeof(p->name), "s%u", sw->idx);
    else
        snprintf(p->name, sizeof(p->name), "s%u-eth%u", sw->idx, no);
    return p;
}

static struct sim_port *next_port(struct sim_switch *sw)
{
    return port_add(sw, sw->next_port++, false);
}

static void intf_id(const struct sim_switch *sw, uint32_t no, char out[TOPO_INTF_ID_MAX + 1])
{
    snprintf(out, TOPO_INTF_ID_MAX + 1, "%s:%u", sw->dpid, no);
}

/* Link two new ports; false on allocation failure. */
static bool link_ports(struct simnet *s, struct sim_switch *x, struct sim_port *px,
                       struct sim_switch *y, struct sim_port *py)
{
    char ix[TOPO_INTF_ID_MAX + 1], iy[TOPO_INTF_ID_MAX + 1];
    struct sim_link *l;
    bool x_first;

    if (!grow((void **)&s->links, &s->cap_links, s->n_links + 1, sizeof(*s->links)))
        return false;
    intf_id(x, px->no, ix);
    intf_id(y, py->no, iy);
    l = &s->links[s->n_links];
    if (!topo_link_id(ix, iy, l->id, &x_first))
        return false;
    snprintf(l->a, sizeof(l->a), "%s", x_first ? ix : iy);
    snprintf(l->b, sizeof(l->b), "%s", x_first ? iy : ix);
    snprintf(px->peer, sizeof(px->peer), "%s", iy);
    snprintf(py->peer, sizeof(py->peer), "%s", ix);
    s->n_links++;
    return true;
}

static void dpid_of(unsigned idx, char out[TOPO_DPID_MAX + 1])
{
    char raw[17];

    snprintf(raw, sizeof(raw), "%016x", idx);
    snprintf(out, TOPO_DPID_MAX + 1, "%.2s:%.2s:%.2s:%.2s:%.2s:%.2s:%.2s:%.2s", raw, raw + 2,
             raw + 4, raw + 6, raw + 8, raw + 10, raw + 12, raw + 14);
}

static void assign_identity(struct simnet *s, struct sim_switch *sw)
{
    for (size_t k = 0; k < sw->n_ports; k++)
        rand_mac(s, sw->ports[k].mac);
    snprintf(sw->connection, sizeof(sw->connection), "127.0.0.1:%u",
             (unsigned)pyrand_range(&s->rng, 40000, 60000));
}

int sim_build(struct simnet *s, unsigned n, int host_ports, char **err)
{
    char dpid[TOPO_DPID_MAX + 1];

    *err = NULL;
    for (unsigned i = 1; i <= n; i++) {
        struct sim_switch *sw;
        int hosts = host_ports >= 0 ? host_ports : (i == 1 ? 2 : 1);
        dpid_of(i, dpid);
        sw = switch_new(s, dpid);
        if (!sw)
            goto oom;
        for (int h = 0; h < hosts; h++)
            if (!next_port(sw))
                goto oom;
    }
    /* links in Mininet's addLink order */
    for (unsigned i = 1; i <= n; i++) {
        unsigned last = s->shape == SIM_MESH ? n : (i < n ? i + 1 : i);
        for (unsigned j = i + 1; j <= last; j++) {
            struct sim_switch *x = s->switches[i - 1], *y = s->switches[j - 1];
            struct sim_port *px = next_port(x), *py;
            if (!px)
                goto oom;
            py = next_port(y);
            if (!py || !link_ports(s, x, sim_port_find(x, px->no), y, py))
                goto oom;
        }
    }
    if (s->shape == SIM_RING && n >= 3) {
        struct sim_switch *x = s->switches[0], *y = s->switches[n - 1];
        struct sim_port *px = next_port(x), *py;
        if (!px)
            goto oom;
        py = next_port(y);
        if (!py || !link_ports(s, x, sim_port_find(x, px->no), y, py))
            goto oom;
    }
    for (size_t i = 0; i < s->n_switches; i++) {
        if (!port_add(s->switches[i], SIM_OFPP_LOCAL, true))
            goto oom;
        assign_identity(s, s->switches[i]);
    }
    return KYTOS_OK;
oom:
    *err = "out of memory building the network";
    return KYTOS_ENOMEM;
}

struct sim_switch *sim_switch_find(struct simnet *s, const char *dpid)
{
    if (!dpid)
        return NULL;
    for (size_t i = 0; i < s->n_switches; i++)
        if (strcmp(s->switches[i]->dpid, dpid) == 0)
            return s->switches[i];
    return NULL;
}

struct sim_port *sim_port_find(struct sim_switch *sw, uint32_t no)
{
    if (!sw)
        return NULL;
    for (size_t k = 0; k < sw->n_ports; k++)
        if (sw->ports[k].no == no)
            return &sw->ports[k];
    return NULL;
}

struct sim_port *sim_port_by_id(struct simnet *s, const char *id, struct sim_switch **swp)
{
    char dpid[TOPO_DPID_MAX + 1];
    struct sim_switch *sw;
    uint32_t no;

    if (!topo_intf_id_parse(id, dpid, &no))
        return NULL;
    sw = sim_switch_find(s, dpid);
    if (swp)
        *swp = sw;
    return sim_port_find(sw, no);
}

struct sim_link *sim_link_find(struct simnet *s, const char *id)
{
    if (!id)
        return NULL;
    for (size_t i = 0; i < s->n_links; i++)
        if (strcmp(s->links[i].id, id) == 0)
            return &s->links[i];
    return NULL;
}

struct sim_switch *sim_switch_add(struct simnet *s, const char *dpid, int host_ports,
                                  struct sim_switch **peers, size_t n_peers, const char **err)
{
    char auto_dpid[TOPO_DPID_MAX + 1];
    struct sim_switch *sw;

    if (!dpid) {
        unsigned idx = s->next_idx + 1;
        do
            dpid_of(idx++, auto_dpid);
        while (sim_switch_find(s, auto_dpid));
        dpid = auto_dpid;
    }
    if (sim_switch_find(s, dpid)) {
        *err = "Switch already exists";
        return NULL;
    }
    if (s->n_switches >= SIM_MAX_SWITCHES) {
        *err = "Too many switches";
        return NULL;
    }
    sw = switch_new(s, dpid);
    if (!sw)
        goto oom;
    for (int h = 0; h < host_ports; h++)
        if (!next_port(sw))
            goto oom;
    if (!port_add(sw, SIM_OFPP_LOCAL, true))
        goto oom;
    for (size_t k = 0; k < n_peers; k++) {
        struct sim_port *px = next_port(sw), *py;
        uint32_t no;
        if (!px)
            goto oom;
        no = px->no;
        py = next_port(peers[k]);
        if (!py || !link_ports(s, sw, sim_port_find(sw, no), peers[k], py))
            goto oom;
    }
    assign_identity(s, sw);
    /* the peers' new ports need addresses too */
    for (size_t k = 0; k < n_peers; k++) {
        struct sim_port *p = sim_port_find(peers[k], peers[k]->next_port - 1);
        if (p)
            rand_mac(s, p->mac);
    }
    return sw;
oom:
    /* leave what was built: a half-linked switch is still consistent */
    *err = "out of memory";
    return NULL;
}

static void port_remove(struct sim_switch *sw, struct sim_port *p)
{
    size_t k = (size_t)(p - sw->ports);

    memmove(&sw->ports[k], &sw->ports[k + 1], (sw->n_ports - k - 1) * sizeof(*sw->ports));
    sw->n_ports--;
}

void sim_switch_remove(struct simnet *s, struct sim_switch *sw, struct napp_evq *q)
{
    sim_ev_conn_lost(q, sw);
    for (size_t k = 0; k < sw->n_ports; k++) {
        struct sim_switch *psw = NULL;
        struct sim_port *pp;
        if (!sw->ports[k].peer[0])
            continue;
        pp = sim_port_by_id(s, sw->ports[k].peer, &psw);
        if (pp && psw) {
            pp->up = false;
            sim_ev_port(q, "kytos/of_core.switch.interface.link_down", psw, pp);
            sim_ev_port(q, "kytos/of_core.switch.interface.deleted", psw, pp);
            port_remove(psw, pp);
        }
    }
    for (size_t i = 0; i < s->n_links;) {
        char da[TOPO_DPID_MAX + 1], db[TOPO_DPID_MAX + 1];
        uint32_t pa, pb;
        bool mine = topo_intf_id_parse(s->links[i].a, da, &pa) &&
                    topo_intf_id_parse(s->links[i].b, db, &pb) &&
                    (strcmp(da, sw->dpid) == 0 || strcmp(db, sw->dpid) == 0);
        if (mine) {
            memmove(&s->links[i], &s->links[i + 1], (s->n_links - i - 1) * sizeof(*s->links));
            s->n_links--;
        } else {
            i++;
        }
    }
    for (size_t i = 0; i < s->n_switches; i++) {
        if (s->switches[i] == sw) {
            memmove(&s->switches[i], &s->switches[i + 1],
                    (s->n_switches - i - 1) * sizeof(*s->switches));
            s->n_switches--;
            break;
        }
    }
    switch_free(sw);
}

void sim_free(struct simnet *s)
{
    for (size_t i = 0; i < s->n_switches; i++)
        switch_free(s->switches[i]);
    free(s->switches);
    free(s->links);
    s->switches = NULL;
    s->links = NULL;
    s->n_switches = s->n_links = 0;
}
