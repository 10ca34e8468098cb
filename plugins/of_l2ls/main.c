/* plugins/of_l2ls/main.c - kytos/of_l2ls: Kytos' L2 learning switch.
 *
 * As Kytos-ng's of_l2ls (kytos-ng/of_l2ls main.py):
 *  - a switch that comes up gets a table-miss flow (priority 0, table 0,
 *    output CONTROLLER); Kytos waits for topology's switch.enabled, here
 *    of_core's handshake.completed suffices, so of_core alone is enough;
 *  - on a packet-in whose reason is OFPR_NO_MATCH and whose destination is
 *    not an LLDP address, the source MAC is learned at the in_port of that
 *    switch; if the destination is known a flow (priority flow_priority,
 *    match dl_src, dl_dst, dl_type, output to its port) is installed, and
 *    the packet is sent out to that port, else flooded (OFPP_FLOOD);
 *  - a packet-out towards a port configured OFPPC_NO_FWD is not sent.
 * Flows go through flow_manager's event API (kytos.flow_manager.flows.install,
 * stored and kept consistent) when flow_manager is enabled (asked of the
 * core at start, at each handshake and every 2 s): Kytos POSTs the
 * same flows to flow_manager's REST API.  Without flow_manager they go
 * straight to of_core's flow-mod event, as flow_manager would send them.
 *
 * Differences from Kytos: a MAC is learned at one port (its latest) where
 * Kytos keeps every port it was ever seen at and uses an arbitrary one;
 * the table is bounded (max_macs per switch: a full table is flushed, as
 * a hardware table ages out) and forgotten when the switch reconnects.
 *
 * Settings ([kytos/of_l2ls], JSON values): flow_priority = 10,
 * table_id = 0, max_macs = 65536 (per switch), max_switches = 4096.
 *
 * The packet-in handler is "direct": it runs on of_core's southbound
 * thread inside its publish, and its packet-out and flow-mod (also direct
 * in of_core) are written to the switch before the next message is read:
 * no queue and no thread hand-off on the learning switch's hot path. */
#include <kytos/kytos.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mac_table.h"
#include "../common/settings.h"

#define OFPP_FLOOD 0xfffffffbU
#define OFPP_CONTROLLER 0xfffffffdU
#define OFPP_MAX 0xffffff00U
#define OFPP_LOCAL 0xfffffffeU
#define OFPR_NO_MATCH 0
#define OFPPC_NO_FWD 0x20
#define MAX_NOFWD 65536
#define REFRESH_MS 2000

struct port_key {
    char dpid[24];
    uint32_t port;
};

struct l2ls {
    kytos_napp *napp;
    pthread_mutex_t mu;             /* tables and nofwd */
    struct l2_mac_tables tables;
    struct port_key *nofwd;         /* ports configured NO_FWD */
    size_t n_nofwd;
    int64_t priority, table_id;
    atomic_bool fm_loaded;          /* kytos/flow_manager enabled (refresh_fm) */
    /* packet-ins past max_switches, logged once per REFUSED_LOG_MS with
     * their count (under mu): a line per packet flooded the log */
    int64_t refused_logged_ms;
    uint64_t refused;
};

#define REFUSED_LOG_MS 10000

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const uint64_t lldp_macs[] = {0x0180c200000eULL, 0x0180c2000003ULL, 0x0180c2000000ULL};

static void publish(struct l2ls *l, const char *name, struct json_object *content)
{
    int rc = kytos_event_publish_give(l->napp, name, content,
                                      &(struct kytos_pub_opts){
                                          .struct_size = sizeof(struct kytos_pub_opts),
                                          .timeout_ms = 0});

    if (rc != KYTOS_OK)
        kytos_log(l->napp, KYTOS_LOG_WARNING, "publishing %s failed: %s", name,
                  kytos_strerror(rc));
}

/* Whether kytos/flow_manager is enabled, from the core's napps_enabled
 * (in-process): at start, at each handshake and every REFRESH_MS, never on
 * the packet-in path (a direct handler makes no kytos_call). */
static void refresh_fm(struct l2ls *l)
{
    kytos_response *r = NULL;
    struct json_object *napps, *js;
    bool found = false;

    if (kytos_call(l->napp, "GET", "/api/kytos/core/napps_enabled", NULL, 0, &r) != KYTOS_OK)
        return;
    if (kytos_response_status(r) == 200 && (js = kytos_response_json(r)) &&
        json_object_object_get_ex(js, "napps", &napps) && json_object_is_type(napps, json_type_array))
        for (size_t i = 0; i < json_object_array_length(napps); i++) {
            struct json_object *p = json_object_array_get_idx(napps, i);
            const char *u, *n;
            if (!json_object_is_type(p, json_type_array) || json_object_array_length(p) < 2)
                continue;
            u = json_object_get_string(json_object_array_get_idx(p, 0));
            n = json_object_get_string(json_object_array_get_idx(p, 1));
            found |= u && n && strcmp(u, "kytos") == 0 && strcmp(n, "flow_manager") == 0;
        }
    kytos_response_free(r);
    atomic_store(&l->fm_loaded, found);
}

static void refresh_tick(kytos_napp *napp, void *ud)
{
    (void)napp;
    refresh_fm(ud);
}

/* One flow on dpid, through flow_manager when it is there. */
static void install_flow(struct l2ls *l, const char *dpid, struct json_object *flow)
{
    static const char fm_event[] = "kytos.flow_manager.flows.install";
    struct json_object *c = json_object_new_object(), *flows, *dict;

    if (!c)
        goto fail;
    if (atomic_load(&l->fm_loaded)) {
        json_object_object_add(c, "dpid", json_object_new_string(dpid));
        flows = json_object_new_array();
        dict = json_object_new_object();
        if (!flows || !dict) {
            json_object_put(flows);
            json_object_put(dict);
            goto fail;
        }
        json_object_array_add(flows, flow);
        json_object_object_add(dict, "flows", flows);
        json_object_object_add(c, "flow_dict", dict);
        publish(l, fm_event, c);
        return;
    }
    json_object_object_add(c, "destination", json_object_new_string(dpid));
    json_object_object_add(c, "command", json_object_new_string("add"));
    json_object_object_add(c, "flow", flow);
    publish(l, "kytos/flow_manager.messages.out.ofpt_flow_mod", c);
    return;
fail:
    json_object_put(c);
    json_object_put(flow);
}

static struct json_object *output_actions(uint32_t port)
{
    struct json_object *a = json_object_new_array(), *o = json_object_new_object();

    json_object_object_add(o, "action_type", json_object_new_string("output"));
    json_object_object_add(o, "port", json_object_new_int64(port));
    json_object_array_add(a, o);
    return a;
}

static const char *str_of(struct json_object *o, const char *key)
{
    struct json_object *v;

    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

static bool uint_of(struct json_object *o, const char *key, uint64_t max, uint64_t *out)
{
    struct json_object *v;
    int64_t x;

    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
        return false;
    x = json_object_get_int64(v);
    if (x < 0 || (uint64_t)x > max)
        return false;
    *out = (uint64_t)x;
    return true;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* n bytes of hex at text offset 2*off into out; false if short or not hex. */
static bool hex_bytes(const char *hex, size_t hlen, size_t off, size_t n, uint8_t *out)
{
    if (2 * (off + n) > hlen)
        return false;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(hex[2 * (off + i)]), lo = hexval(hex[2 * (off + i) + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

static uint64_t mac_of(const uint8_t *b)
{
    uint64_t m = 0;

    for (int i = 0; i < 6; i++)
        m = m << 8 | b[i];
    return m;
}

static void mac_text(uint64_t m, char out[18])
{
    snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", (unsigned)(m >> 40) & 255,
             (unsigned)(m >> 32) & 255, (unsigned)(m >> 24) & 255, (unsigned)(m >> 16) & 255,
             (unsigned)(m >> 8) & 255, (unsigned)m & 255);
}

static bool is_nofwd(struct l2ls *l, const char *dpid, uint32_t port)
{
    for (size_t i = 0; i < l->n_nofwd; i++)
        if (l->nofwd[i].port == port && strcmp(l->nofwd[i].dpid, dpid) == 0)
            return true;
    return false;
}

static int on_packet_in(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct l2ls *l = ud;
    struct json_object *c = kytos_event_content(ev), *flow, *match, *po;
    const char *dpid = str_of(c, "dpid"), *hex = str_of(c, "data");
    uint64_t reason, in_port, buffer_id = 0xffffffffU, src, dst;
    uint8_t eth[14], tag[4];
    uint16_t dl_type;
    size_t hlen, off = 12;
    uint32_t out_port = 0;
    bool known, blocked;
    char smac[18], dmac[18];

    (void)napp;
    if (!dpid || !hex || !uint_of(c, "reason", 255, &reason) ||
        !uint_of(c, "in_port", UINT32_MAX, &in_port))
        return KYTOS_OK;
    uint_of(c, "buffer_id", UINT32_MAX, &buffer_id);
    hlen = strlen(hex);
    if (!hex_bytes(hex, hlen, 0, sizeof eth, eth))
        return KYTOS_OK;                    /* not an Ethernet frame */
    dst = mac_of(eth);
    src = mac_of(eth + 6);
    for (size_t i = 0; i < sizeof lldp_macs / sizeof lldp_macs[0]; i++)
        if (dst == lldp_macs[i])
            return KYTOS_OK;
    if (reason != OFPR_NO_MATCH)
        return KYTOS_OK;                    /* not from the table-miss flow */
    if (in_port > OFPP_MAX && in_port != OFPP_LOCAL)
        return KYTOS_OK;                    /* no port to learn (OFPP_ANY: none given) */
    /* dl_type past VLAN tags, as pyof's Ethernet reads it */
    dl_type = (uint16_t)(eth[12] << 8 | eth[13]);
    for (int k = 0; k < 2 && (dl_type == 0x8100 || dl_type == 0x88a8); k++) {
        off += 4;
        if (!hex_bytes(hex, hlen, off, 2, tag))
            return KYTOS_OK;
        dl_type = (uint16_t)(tag[0] << 8 | tag[1]);
    }

    pthread_mutex_lock(&l->mu);
    if (l2_learn(&l->tables, dpid, src, (uint32_t)in_port) < 0) {
        int64_t now = mono_ms();
        l->refused++;
        if (!l->refused_logged_ms || now - l->refused_logged_ms >= REFUSED_LOG_MS) {
            kytos_log(l->napp, KYTOS_LOG_WARNING,
                      "switch %s: source not learned (more than max_switches = %zu switches); "
                      "%llu packet-in(s) not learned since the last such line",
                      dpid, l->tables.max_switches, (unsigned long long)l->refused);
            l->refused_logged_ms = now;
            l->refused = 0;
        }
    }
    known = l2_lookup(&l->tables, dpid, dst, &out_port);
    if (!known)
        out_port = OFPP_FLOOD;
    blocked = is_nofwd(l, dpid, out_port);
    pthread_mutex_unlock(&l->mu);

    if (known && (flow = json_object_new_object())) {
        mac_text(src, smac);
        mac_text(dst, dmac);
        match = json_object_new_object();
        json_object_object_add(match, "dl_src", json_object_new_string(smac));
        json_object_object_add(match, "dl_dst", json_object_new_string(dmac));
        json_object_object_add(match, "dl_type", json_object_new_int(dl_type));
        json_object_object_add(flow, "priority", json_object_new_int64(l->priority));
        json_object_object_add(flow, "table_id", json_object_new_int64(l->table_id));
        json_object_object_add(flow, "match", match);
        json_object_object_add(flow, "actions", output_actions(out_port));
        install_flow(l, dpid, flow);
    }
    if (blocked || !(po = json_object_new_object()))
        return KYTOS_OK;
    json_object_object_add(po, "destination", json_object_new_string(dpid));
    json_object_object_add(po, "buffer_id", json_object_new_int64((int64_t)buffer_id));
    json_object_object_add(po, "in_port", json_object_new_int64((int64_t)in_port));
    json_object_object_add(po, "actions", output_actions(out_port));
    json_object_object_add(po, "data", json_object_new_string_len(hex, (int)hlen));
    publish(l, "kytos/of_l2ls.messages.out.ofpt_packet_out", po);
    return KYTOS_OK;
}

/* A new connection: forget what the switch taught, give it the table-miss flow. */
static int on_handshake(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct l2ls *l = ud;
    struct json_object *sw, *flow;
    const char *dpid;

    (void)napp;
    if (!json_object_object_get_ex(kytos_event_content(ev), "switch", &sw) ||
        !(dpid = str_of(sw, "dpid")))
        return KYTOS_OK;
    pthread_mutex_lock(&l->mu);
    l2_forget_switch(&l->tables, dpid);
    pthread_mutex_unlock(&l->mu);
    refresh_fm(l);
    if (!(flow = json_object_new_object()))
        return KYTOS_OK;
    json_object_object_add(flow, "priority", json_object_new_int(0));
    json_object_object_add(flow, "table_id", json_object_new_int64(l->table_id));
    json_object_object_add(flow, "actions", output_actions(OFPP_CONTROLLER));
    install_flow(l, dpid, flow);
    return KYTOS_OK;
}

/* Track OFPPC_NO_FWD from of_core's interface events. */
static void note_port(struct l2ls *l, struct json_object *intf)
{
    const char *dpid = str_of(intf, "switch");
    uint64_t port, config;
    bool nofwd;

    if (!dpid || strlen(dpid) >= sizeof l->nofwd[0].dpid ||
        !uint_of(intf, "port_number", UINT32_MAX, &port) ||
        !uint_of(intf, "config", UINT32_MAX, &config))
        return;
    nofwd = (config & OFPPC_NO_FWD) != 0;
    pthread_mutex_lock(&l->mu);
    for (size_t i = 0; i < l->n_nofwd; i++) {
        if (l->nofwd[i].port == port && strcmp(l->nofwd[i].dpid, dpid) == 0) {
            if (!nofwd)
                l->nofwd[i] = l->nofwd[--l->n_nofwd];
            pthread_mutex_unlock(&l->mu);
            return;
        }
    }
    if (nofwd && l->n_nofwd < MAX_NOFWD) {
        struct port_key *v = realloc(l->nofwd, (l->n_nofwd + 1) * sizeof *v);
        if (v) {
            l->nofwd = v;
            snprintf(v[l->n_nofwd].dpid, sizeof v[0].dpid, "%s", dpid);
            v[l->n_nofwd++].port = (uint32_t)port;
        }
    }
    pthread_mutex_unlock(&l->mu);
}

static int on_interfaces(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct json_object *c = kytos_event_content(ev), *v;

    (void)napp;
    if (json_object_object_get_ex(c, "interface", &v))
        note_port(ud, v);
    else if (json_object_object_get_ex(c, "interfaces", &v) &&
             json_object_is_type(v, json_type_array))
        for (size_t i = 0; i < json_object_array_length(v); i++)
            note_port(ud, json_object_array_get_idx(v, i));
    return KYTOS_OK;
}

static void l2ls_release(kytos_napp *napp, void *data)
{
    struct l2ls *l = data;

    (void)napp;
    if (!l)
        return;
    l2_tables_free(&l->tables);
    free(l->nofwd);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

static int subscribe(struct l2ls *l, const char *pattern, kytos_event_handler h, const char *pool)
{
    return kytos_event_subscribe(l->napp, &(struct kytos_sub){.struct_size = sizeof(struct kytos_sub),
                                                              .pattern = pattern,
                                                              .handler = h,
                                                              .ud = l,
                                                              .pool = pool});
}

static int l2ls_init(kytos_napp *napp, char **errmsg)
{
    struct l2ls *l = calloc(1, sizeof *l);
    struct json_object *st = kytos_napp_settings(napp);
    int64_t max_macs = 65536, max_switches = 4096;
    int rc;

    if (!l) {
        *errmsg = napp_errdup("out of memory");
        return KYTOS_ENOMEM;
    }
    l->napp = napp;
    l->priority = 10;
    pthread_mutex_init(&l->mu, NULL);
    kytos_napp_set_data_full(napp, l, l2ls_release);
    if (napp_int_setting(st, "of_l2ls", "flow_priority", 0, 65535, &l->priority, errmsg) < 0 ||
        napp_int_setting(st, "of_l2ls", "table_id", 0, 254, &l->table_id, errmsg) < 0 ||
        napp_int_setting(st, "of_l2ls", "max_macs", 1, 1 << 24, &max_macs, errmsg) < 0 ||
        napp_int_setting(st, "of_l2ls", "max_switches", 1, 1 << 20, &max_switches, errmsg) < 0)
        return KYTOS_EINVAL;
    l2_tables_init(&l->tables, (size_t)max_switches, (size_t)max_macs);
    /* direct: on of_core's thread, the packet-out written before the next read */
    rc = subscribe(l, "kytos/of_core\\.v0x04\\.messages\\.in\\.ofpt_packet_in", on_packet_in,
                   "direct");
    /* the table-miss flow after the flush, in order, on one thread */
    if (rc == KYTOS_OK)
        rc = subscribe(l, "kytos/of_core\\.handshake\\.completed", on_handshake, "dynamic_single");
    if (rc == KYTOS_OK)
        rc = subscribe(l,
                       "kytos/of_core\\.switch\\.(interfaces\\.created|interface\\.(created|modified))",
                       on_interfaces, "dynamic_single");
    if (rc != KYTOS_OK) {
        *errmsg = napp_errdup("of_l2ls: subscribing failed");
        return rc;
    }
    return KYTOS_OK;
}

static int l2ls_start(kytos_napp *napp)
{
    struct l2ls *l = kytos_napp_data(napp);

    refresh_fm(l);
    return kytos_timer_add(napp, REFRESH_MS, refresh_tick, l);
}

KYTOS_NAPP_DEFINE("kytos", "of_l2ls", "2025.2.0", KYTOS_DEPS("kytos/of_core"), NULL, 0, 0,
                  l2ls_init, l2ls_start, NULL);
