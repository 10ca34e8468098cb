/* plugins/of_core/flows.c - what flow_manager and other NApps send to the
 * switches (FLOW_MOD, BARRIER_REQUEST, PACKET_OUT from their msg_out
 * events), what comes back (BARRIER_REPLY, ERROR, PACKET_IN, FLOW stats),
 * and the two timers: keepalive (echo, dead switches) and flow stats. */
#include "of_core.h"
#include "../flow_manager/pyjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

static struct json_object *copy_or_empty(struct json_object *c)
{
    struct json_object *out = NULL;

    if (!c || json_object_deep_copy(c, &out, NULL) != 0) {
        json_object_put(out);
        out = json_object_new_object();
    }
    return out;
}

/* kytos/core.openflow.connection.error: the request's content and why. */
static void conn_error(struct ofcore *oc, struct json_object *c, const char *exception)
{
    struct json_object *e = copy_or_empty(c);

    if (!e)
        return;
    json_object_object_add(e, "exception", json_object_new_string(exception));
    ofc_publish(oc, "kytos/core.openflow.connection.error", e);
}

static const char *str_of(struct json_object *c, const char *key)
{
    struct json_object *v;

    return json_object_object_get_ex(c, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

/* An unsigned integer field within [0, max]: 1 and *out; 0 absent; -1 bad. */
static int uint_of(struct json_object *c, const char *key, uint64_t max, uint64_t *out)
{
    struct json_object *v;

    if (!json_object_object_get_ex(c, key, &v) || !v)
        return 0;
    if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0 ||
        (uint64_t)json_object_get_int64(v) > max)
        return -1;
    *out = (uint64_t)json_object_get_int64(v);
    return 1;
}

/* Send b to the switch of c's "destination"; connection.error when that
 * is not possible.  Frees b. */
static void send_to(struct ofcore *oc, struct json_object *c, struct ofp_buf *b)
{
    const char *dpid = str_of(c, "destination");
    kytos_conn *conn = dpid ? ofc_switch_conn(oc, dpid) : NULL;
    char why[96];
    int rc;

    if (!conn) {
        snprintf(why, sizeof(why), "switch %s is not connected", dpid ? dpid : "(none)");
        ofp_buf_free(b);
        conn_error(oc, c, why);
        return;
    }
    rc = ofc_send(conn, b, 0);
    kytos_conn_unref(conn);
    if (rc == KYTOS_ESTATE) {
        snprintf(why, sizeof(why), "switch %s is not connected", dpid);
        conn_error(oc, c, why);
    } else if (rc != KYTOS_OK) {
        conn_error(oc, c, "Connection state: ConnectionState.FAILED");
    }
}

/* A FlowMod the codec refuses: as simnet, the switch's ERROR answer. */
static void bad_request(struct ofcore *oc, struct json_object *c, uint32_t xid, const char *why)
{
    struct json_object *e = json_object_new_object(), *flow;
    const char *dpid = str_of(c, "destination");

    if (!e)
        return;
    json_object_object_add(e, "source", json_object_new_string(dpid ? dpid : ""));
    json_object_object_add(e, "dpid", json_object_new_string(dpid ? dpid : ""));
    json_object_object_add(e, "xid", json_object_new_int64(xid));
    json_object_object_add(e, "error_type", json_object_new_string("OFPET_BAD_REQUEST"));
    json_object_object_add(e, "error_code", json_object_new_string("OFPBRC_BAD_TYPE"));
    json_object_object_add(e, "reason", json_object_new_string(why));
    if (json_object_object_get_ex(c, "flow", &flow))
        json_object_object_add(e, "flow", copy_or_empty(flow));
    kytos_log(oc->napp, KYTOS_LOG_WARNING, "flow_mod for %s not sent: %s", dpid ? dpid : "?", why);
    ofc_publish(oc, "kytos/of_core.v0x04.messages.in.ofpt_error", e);
}

/* ---- consumed events ---- */

static void flow_mod(struct ofcore *oc, struct json_object *c)
{
    struct json_object *flow = NULL, *cmdv = NULL;
    struct ofp_buf b;
    uint64_t xid = 0;
    int cmd = OFPFC_ADD;
    char err[200];

    if (uint_of(c, "xid", UINT32_MAX, &xid) <= 0)
        xid = ofc_xid(oc);
    if (json_object_object_get_ex(c, "command", &cmdv) && cmdv) {
        if (json_object_is_type(cmdv, json_type_string))
            cmd = ofp_flow_mod_command_from_name(json_object_get_string(cmdv));
        else if (json_object_is_type(cmdv, json_type_int))
            cmd = json_object_get_int64(cmdv) >= 0 && json_object_get_int64(cmdv) <= 4
                      ? (int)json_object_get_int64(cmdv)
                      : -1;
        else
            cmd = -1;
    }
    if (cmd < 0) {
        bad_request(oc, c, (uint32_t)xid, "command: unknown FlowMod command");
        return;
    }
    if (!json_object_object_get_ex(c, "flow", &flow) || !json_object_is_type(flow, json_type_object)) {
        bad_request(oc, c, (uint32_t)xid, "flow: an object is required");
        return;
    }
    ofp_buf_init(&b);
    if (ofp_flow_mod_from_json(flow, (uint8_t)cmd, (uint32_t)xid, &b, err, sizeof(err)) < 0) {
        ofp_buf_free(&b);
        bad_request(oc, c, (uint32_t)xid, err);
        return;
    }
    send_to(oc, c, &b);
}

static void barrier(struct ofcore *oc, struct json_object *c)
{
    struct ofp_buf b;
    uint64_t xid = 0;

    if (uint_of(c, "xid", UINT32_MAX, &xid) <= 0)
        xid = ofc_xid(oc);
    ofp_buf_init(&b);
    ofp_empty_encode(&b, OFPT_BARRIER_REQUEST, (uint32_t)xid, NULL, 0);
    send_to(oc, c, &b);
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

static void packet_out(struct ofcore *oc, struct json_object *c)
{
    struct json_object *actions = NULL, *flow;
    struct ofp_flow_mod *fm = NULL;
    struct ofp_packet_out *po = NULL;
    struct ofp_buf b;
    const char *hex = str_of(c, "data");
    uint8_t *data = NULL;
    size_t hlen = hex ? strlen(hex) : 0;
    uint64_t xid = 0, buffer_id = OFP_NO_BUFFER, in_port = OFPP_CONTROLLER;
    char err[200] = "";

    if (uint_of(c, "xid", UINT32_MAX, &xid) <= 0)
        xid = ofc_xid(oc);
    if (hlen % 2 || hlen / 2 > 65000 || uint_of(c, "buffer_id", UINT32_MAX, &buffer_id) < 0 ||
        uint_of(c, "in_port", UINT32_MAX, &in_port) < 0) {
        kytos_log(oc->napp, KYTOS_LOG_WARNING,
                  "packet_out not sent: data must be even-length hex (at most 65000 bytes), "
                  "buffer_id and in_port 32-bit integers");
        return;
    }
    fm = malloc(sizeof(*fm));
    po = calloc(1, sizeof(*po));
    data = malloc(hlen / 2 + 1);
    flow = json_object_new_object();
    if (!fm || !po || !data || !flow)
        goto out;
    for (size_t i = 0; i < hlen / 2; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            snprintf(err, sizeof(err), "data: not hex");
            goto out;
        }
        data[i] = (uint8_t)(hi << 4 | lo);
    }
    /* the actions through the FlowMod parser: one apply_actions */
    if (json_object_object_get_ex(c, "actions", &actions) && actions)
        json_object_object_add(flow, "actions", json_object_get(actions));
    if (ofp_flow_mod_parse_json(flow, OFPFC_ADD, fm, err, sizeof(err)) < 0)
        goto out;
    po->xid = (uint32_t)xid;
    po->buffer_id = (uint32_t)buffer_id;
    po->in_port = (uint32_t)in_port;
    if (fm->instructions.n > 0) {
        const struct ofp_instruction *in = &fm->instructions.ins[0];
        po->n_actions = in->n_actions;
        memcpy(po->actions, &fm->instructions.actions[in->first], in->n_actions * sizeof(po->actions[0]));
    }
    po->data = data;
    po->data_len = hlen / 2;
    ofp_buf_init(&b);
    if (ofp_packet_out_encode(&b, po, err, sizeof(err)) < 0) {
        ofp_buf_free(&b);
        goto out;
    }
    err[0] = '\0';
    send_to(oc, c, &b);
out:
    if (err[0])
        kytos_log(oc->napp, KYTOS_LOG_WARNING, "packet_out not sent: %s", err);
    json_object_put(flow);
    free(data);
    free(po);
    free(fm);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int on_msg_out(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct ofcore *oc = ud;
    const char *name = kytos_event_name(ev);
    struct json_object *c = kytos_event_content(ev);

    (void)napp;
    if (!name || !json_object_is_type(c, json_type_object))
        return KYTOS_OK;
    if (ends_with(name, ".ofpt_flow_mod"))
        flow_mod(oc, c);
    else if (ends_with(name, ".ofpt_barrier_request"))
        barrier(oc, c);
    else if (ends_with(name, ".ofpt_packet_out"))
        packet_out(oc, c);
    return KYTOS_OK;
}

static int on_switch_admin(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct ofcore *oc = ud;
    const char *name = kytos_event_name(ev);
    const char *dpid = str_of(kytos_event_content(ev), "dpid");
    struct ofc_switch *sw;

    (void)napp;
    if (!dpid || !name || strlen(dpid) >= sizeof(sw->dpid))
        return KYTOS_OK;
    pthread_mutex_lock(&oc->lock);
    sw = ofc_switch_get(oc, dpid);
    if (sw)
        sw->enabled = strstr(name, ".enabled") != NULL;
    pthread_mutex_unlock(&oc->lock);
    return KYTOS_OK;
}

int ofc_flows_subscribe(struct ofcore *oc)
{
    static const struct {
        const char *pattern, *pool;
        kytos_event_handler h;
    } subs[] = {
        /* a write to a socket: on the sender's thread, in its order (the
         * handler never waits: the send is queued by the host) */
        {"kytos/flow_manager\\.messages\\.out\\.(ofpt_flow_mod|ofpt_barrier_request)", "direct",
         on_msg_out},
        {"kytos/.*\\.messages\\.out\\.ofpt_packet_out", "direct", on_msg_out},
        {"kytos/topology\\.switch\\.(enabled|disabled)", "dynamic_single", on_switch_admin},
    };
    int rc = KYTOS_OK;

    for (size_t i = 0; rc == KYTOS_OK && i < sizeof subs / sizeof subs[0]; i++)
        rc = kytos_event_subscribe(oc->napp, &(struct kytos_sub){
                                                 .struct_size = sizeof(struct kytos_sub),
                                                 .pattern = subs[i].pattern,
                                                 .handler = subs[i].h,
                                                 .ud = oc,
                                                 .pool = subs[i].pool,
                                             });
    return rc;
}

/* ---- messages in ---- */

void ofc_error_in(struct ofc_conn *cs, const uint8_t *msg, size_t len)
{
    struct ofp_error_msg e;
    struct json_object *c;
    const char *tn, *cn;
    char err[160], num[16], *hex;
    size_t n;

    if (ofp_error_decode(msg, len, &e, err, sizeof(err)) < 0) {
        kytos_log(cs->oc->napp, KYTOS_LOG_WARNING, "switch %s: bad ERROR ignored: %s", cs->dpid,
                  err);
        return;
    }
    tn = ofc_error_type_name(e.type);
    cn = ofc_error_code_name(e.type, e.code);
    kytos_log(cs->oc->napp, KYTOS_LOG_WARNING, "switch %s: OFPT_ERROR xid %u %s/%s (%u/%u)",
              cs->dpid[0] ? cs->dpid : "?", e.xid, tn ? tn : "?", cn ? cn : "?", e.type, e.code);
    if (!cs->dpid[0] || !(c = json_object_new_object()))
        return;
    json_object_object_add(c, "source", json_object_new_string(cs->dpid));
    json_object_object_add(c, "dpid", json_object_new_string(cs->dpid));
    json_object_object_add(c, "xid", json_object_new_int64(e.xid));
    snprintf(num, sizeof(num), "%u", e.type);
    json_object_object_add(c, "error_type", json_object_new_string(tn ? tn : num));
    snprintf(num, sizeof(num), "%u", e.code);
    json_object_object_add(c, "error_code", json_object_new_string(cn ? cn : num));
    json_object_object_add(c, "type", json_object_new_int(e.type));
    json_object_object_add(c, "code", json_object_new_int(e.code));
    n = e.data_len > 256 ? 256 : e.data_len;
    if ((hex = malloc(2 * n + 1))) {
        for (size_t i = 0; i < n; i++)
            snprintf(hex + 2 * i, 3, "%02x", e.data[i]);
        hex[2 * n] = '\0';
        json_object_object_add(c, "data", json_object_new_string(hex));
        free(hex);
    }
    ofc_publish(cs->oc, "kytos/of_core.v0x04.messages.in.ofpt_error", c);
}

void ofc_packet_in(struct ofc_conn *cs, const uint8_t *msg, size_t len)
{
    static const char name[] = "kytos/of_core.v0x04.messages.in.ofpt_packet_in";
    struct ofp_packet_in *pi;
    struct json_object *c;
    char err[160], *hex;

    if (!kytos_event_wanted(cs->oc->napp, name))
        return;
    pi = malloc(sizeof(*pi));
    if (!pi)
        return;
    if (ofp_packet_in_decode(msg, len, pi, err, sizeof(err)) < 0) {
        if (!cs->logged_unknown) {
            cs->logged_unknown = true;
            kytos_log(cs->oc->napp, KYTOS_LOG_WARNING, "switch %s: bad PACKET_IN ignored: %s",
                      cs->dpid, err);
        }
        free(pi);
        return;
    }
    c = json_object_new_object();
    hex = malloc(2 * pi->data_len + 1);
    if (c && hex) {
        for (size_t i = 0; i < pi->data_len; i++) {
            static const char digits[] = "0123456789abcdef";
            hex[2 * i] = digits[pi->data[i] >> 4];
            hex[2 * i + 1] = digits[pi->data[i] & 15];
        }
        hex[2 * pi->data_len] = '\0';
        json_object_object_add(c, "source", json_object_new_string(cs->dpid));
        json_object_object_add(c, "dpid", json_object_new_string(cs->dpid));
        json_object_object_add(c, "xid", json_object_new_int64(pi->xid));
        json_object_object_add(c, "in_port", json_object_new_int64(ofp_packet_in_port(pi)));
        json_object_object_add(c, "buffer_id", json_object_new_int64(pi->buffer_id));
        json_object_object_add(c, "total_len", json_object_new_int(pi->total_len));
        json_object_object_add(c, "reason", json_object_new_int(pi->reason));
        json_object_object_add(c, "table_id", json_object_new_int(pi->table_id));
        json_object_object_add(c, "cookie", json_object_new_uint64(pi->cookie));
        json_object_object_add(c, "match", ofp_match_to_json(&pi->match));
        json_object_object_add(c, "data", json_object_new_string(hex));
        ofc_publish(cs->oc, name, c);
        c = NULL;
    }
    json_object_put(c);
    free(hex);
    free(pi);
}

void ofc_flow_removed(struct ofc_conn *cs, const uint8_t *msg, size_t len)
{
    static const char name[] = "kytos/of_core.v0x04.messages.in.ofpt_flow_removed";
    struct ofp_flow_removed *fr;
    struct json_object *c;
    char err[160];

    if (!kytos_event_wanted(cs->oc->napp, name) || !(fr = malloc(sizeof(*fr))))
        return;
    if (ofp_flow_removed_decode(msg, len, fr, err, sizeof(err)) < 0) {
        kytos_log(cs->oc->napp, KYTOS_LOG_WARNING, "switch %s: bad FLOW_REMOVED ignored: %s",
                  cs->dpid, err);
    } else if ((c = json_object_new_object())) {
        json_object_object_add(c, "source", json_object_new_string(cs->dpid));
        json_object_object_add(c, "dpid", json_object_new_string(cs->dpid));
        json_object_object_add(c, "xid", json_object_new_int64(fr->xid));
        json_object_object_add(c, "cookie", json_object_new_uint64(fr->cookie));
        json_object_object_add(c, "priority", json_object_new_int(fr->priority));
        json_object_object_add(c, "reason", json_object_new_int(fr->reason));
        json_object_object_add(c, "table_id", json_object_new_int(fr->table_id));
        json_object_object_add(c, "duration_sec", json_object_new_int64(fr->duration_sec));
        json_object_object_add(c, "duration_nsec", json_object_new_int64(fr->duration_nsec));
        json_object_object_add(c, "idle_timeout", json_object_new_int(fr->idle_timeout));
        json_object_object_add(c, "hard_timeout", json_object_new_int(fr->hard_timeout));
        json_object_object_add(c, "packet_count", json_object_new_uint64(fr->packet_count));
        json_object_object_add(c, "byte_count", json_object_new_uint64(fr->byte_count));
        json_object_object_add(c, "match", ofp_match_to_json(&fr->match));
        ofc_publish(cs->oc, name, c);
    }
    free(fr);
}

void ofc_flow_id(struct json_object *flow, char out[33])
{
    struct fm_buf b;
    char stack[1024];

    fm_buf_init(&b, stack, sizeof(stack));
    fm_py_dump(&b, flow);
    fm_md5_hex(b.p, b.len, out);
    fm_buf_free(&b);
}

/* One FLOW stats reply (REPLY_MORE continues): gathered per connection,
 * published once complete. */
void ofc_stats_reply(struct ofc_conn *cs, const struct ofp_multipart *mp)
{
    struct ofcore *oc = cs->oc;
    struct ofc_switch *sw;
    struct ofp_flow_stats *fs;
    struct json_object *c;
    size_t off = 0;
    bool ours;
    char err[160];
    int r;

    pthread_mutex_lock(&oc->lock);
    sw = ofc_switch_find(oc, cs->dpid);
    ours = sw && sw->conn == cs->c && sw->stats_pending && sw->stats_xid == mp->xid;
    if (ours && !(mp->flags & OFPMPF_REPLY_MORE))
        sw->stats_pending = false;
    pthread_mutex_unlock(&oc->lock);
    if (!ours)
        return;   /* Kytos: replies count only when the xid matches */
    if (!cs->stats && !(cs->stats = json_object_new_array()))
        return;
    if (!(fs = malloc(sizeof(*fs))))
        return;
    while ((r = ofp_flow_stats_next(mp->body, mp->body_len, &off, fs, err, sizeof(err))) == 1) {
        struct json_object *f, *stats = NULL;
        char id[33];
        if (json_object_array_length(cs->stats) >= OFC_MAX_STATS_FLOWS)
            break;
        if (!(f = ofp_flow_stats_to_json(fs, cs->dpid)))
            continue;
        /* flow_manager's id: the dict without its stats */
        if (json_object_object_get_ex(f, "stats", &stats))
            json_object_get(stats);
        json_object_object_del(f, "stats");
        ofc_flow_id(f, id);
        if (stats)
            json_object_object_add(f, "stats", stats);
        json_object_object_add(f, "id", json_object_new_string(id));
        json_object_array_add(cs->stats, f);
    }
    free(fs);
    if (r < 0)
        kytos_log(oc->napp, KYTOS_LOG_WARNING, "switch %s: bad FLOW stats entry: %s", cs->dpid, err);
    if (mp->flags & OFPMPF_REPLY_MORE)
        return;
    if ((c = json_object_new_object())) {
        json_object_object_add(c, "switch", json_object_new_string(cs->dpid));
        json_object_object_add(c, "replies_flows", cs->stats);
        cs->stats = NULL;
        ofc_publish(oc, "kytos/of_core.flow_stats.received", c);
    }
    json_object_put(cs->stats);
    cs->stats = NULL;
}

/* ---- timers ---- */

struct conn_list {
    kytos_conn **v;
    size_t n;
};

/* The switches' open connections (referenced), under the lock; fn decides
 * per switch (returns true to keep it in the list). */
static void collect(struct ofcore *oc, struct conn_list *l,
                    bool (*pick)(struct ofcore *, struct ofc_switch *, int64_t))
{
    int64_t now = ofc_now_ms();

    l->n = 0;
    pthread_mutex_lock(&oc->lock);
    l->v = oc->n_sw ? malloc(oc->n_sw * sizeof(*l->v)) : NULL;
    for (size_t i = 0; l->v && i < oc->n_sw; i++) {
        struct ofc_switch *sw = oc->sw[i];
        if (sw->conn && pick(oc, sw, now)) {
            kytos_conn_ref(sw->conn);
            l->v[l->n++] = sw->conn;
        }
    }
    pthread_mutex_unlock(&oc->lock);
}

static bool pick_dead(struct ofcore *oc, struct ofc_switch *sw, int64_t now)
{
    return now - sw->last_rx_ms > oc->dead_ms;
}

static bool pick_echo(struct ofcore *oc, struct ofc_switch *sw, int64_t now)
{
    if (now - sw->last_rx_ms > oc->dead_ms || now - sw->last_echo_ms < oc->echo_ms)
        return false;
    sw->last_echo_ms = now;
    return true;
}

static bool pick_stats(struct ofcore *oc, struct ofc_switch *sw, int64_t now)
{
    (void)oc;
    (void)now;
    /* Kytos: a request still unanswered is skipped up to 5 times */
    if (sw->stats_pending && ++sw->stats_skips <= 5)
        return false;
    sw->stats_skips = 0;
    sw->stats_pending = true;
    sw->stats_xid = ofc_xid(oc);
    return true;
}

void ofc_keepalive_tick(kytos_napp *napp, void *ud)
{
    struct ofcore *oc = ud;
    struct conn_list l;
    char reason[96];

    (void)napp;
    collect(oc, &l, pick_dead);
    snprintf(reason, sizeof(reason), "no message from the switch for %.1f s (dead_interval)",
             oc->dead_ms / 1000.0);
    for (size_t i = 0; i < l.n; i++) {
        struct kytos_conn_info in = {.struct_size = sizeof(in)};
        if (kytos_conn_info(l.v[i], &in) == KYTOS_OK && in.state != KYTOS_CONN_FINISHED &&
            kytos_conn_close(l.v[i], reason) == KYTOS_OK)
            kytos_log(oc->napp, KYTOS_LOG_WARNING, "switch %s is dead: %s", in.dpid, reason);
        kytos_conn_unref(l.v[i]);
    }
    free(l.v);
    collect(oc, &l, pick_echo);
    for (size_t i = 0; i < l.n; i++) {
        struct ofp_buf b;
        ofp_buf_init(&b);
        ofp_echo_encode(&b, OFPT_ECHO_REQUEST, ofc_xid(oc), "kytosd_13", 9, NULL, 0);
        ofc_send(l.v[i], &b, KYTOS_CONN_URGENT);
        kytos_conn_unref(l.v[i]);
    }
    free(l.v);
}

void ofc_stats_tick(kytos_napp *napp, void *ud)
{
    struct ofcore *oc = ud;
    struct conn_list l;

    (void)napp;
    collect(oc, &l, pick_stats);
    for (size_t i = 0; i < l.n; i++) {
        struct ofp_flow_stats_request *r = malloc(sizeof(*r));
        struct kytos_conn_info in = {.struct_size = sizeof(in)};
        struct ofc_switch *sw;
        struct ofp_buf b;
        if (r && kytos_conn_info(l.v[i], &in) == KYTOS_OK && in.dpid[0]) {
            ofp_flow_stats_request_init(r);
            pthread_mutex_lock(&oc->lock);
            sw = ofc_switch_find(oc, in.dpid);
            r->xid = sw ? sw->stats_xid : 0;
            pthread_mutex_unlock(&oc->lock);
            ofp_buf_init(&b);
            ofp_flow_stats_request_encode(&b, r, NULL, 0);
            ofc_send(l.v[i], &b, 0);
        }
        free(r);
        kytos_conn_unref(l.v[i]);
    }
    free(l.v);
}
