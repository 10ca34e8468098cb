/* plugins/of_core/conn.c - the OpenFlow connection handler: hello and
 * version negotiation, features, the handshake requests, echo, and the
 * dispatch of every message a switch sends (southbound.md 2.1-2.2).
 * Runs on the host's southbound thread: short, never waits. */
#include "of_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ofc_send(kytos_conn *c, struct ofp_buf *b, unsigned flags)
{
    int rc;

    if (b->oom || b->len == 0) {
        ofp_buf_free(b);
        return KYTOS_ENOMEM;
    }
    rc = kytos_conn_send(c, b->data, b->len, flags);
    ofp_buf_free(b);
    return rc;
}

/* Close a switch that broke the protocol, with a log line naming it. */
static int broke(struct ofc_conn *cs, const char *what, const char *err)
{
    struct kytos_conn_info in = {.struct_size = sizeof(in)};
    char reason[256];

    kytos_conn_info(cs->c, &in);
    snprintf(reason, sizeof(reason), "%s: %s", what, err);
    kytos_log(cs->oc->napp, KYTOS_LOG_WARNING, "switch %s (%s:%u) broke the protocol, closing: %s",
              cs->dpid[0] ? cs->dpid : "?", in.address, in.port, reason);
    kytos_conn_close(cs->c, reason);
    return -1;
}

static int on_open(kytos_napp *napp, kytos_conn *c, void *ud)
{
    struct ofc_conn *cs = calloc(1, sizeof(*cs));

    (void)napp;
    if (!cs)
        return KYTOS_ENOMEM;
    cs->oc = ud;
    cs->c = c;
    cs->phase = OFC_WAIT_HELLO;
    kytos_conn_set_data(c, cs);
    return KYTOS_OK;
}

static void conn_free(struct ofc_conn *cs)
{
    free(cs->pd);
    json_object_put(cs->stats);
    free(cs);
}

static void on_close(kytos_napp *napp, kytos_conn *c, const char *reason, void *ud)
{
    struct ofcore *oc = ud;
    struct ofc_conn *cs = kytos_conn_data(c);
    struct ofc_switch *sw;

    (void)napp;
    if (!cs)
        return;
    kytos_conn_set_data(c, NULL);
    if (cs->phase == OFC_UP) {
        pthread_mutex_lock(&oc->lock);
        sw = ofc_switch_find(oc, cs->dpid);
        if (sw && sw->conn == c) {
            sw->conn = NULL;
            sw->stats_pending = false;
            kytos_conn_unref(c);
        }
        pthread_mutex_unlock(&oc->lock);
        kytos_log(napp, KYTOS_LOG_INFO, "switch %s disconnected: %s", cs->dpid, reason);
    }
    conn_free(cs);
}

static int on_hello(struct ofc_conn *cs, const uint8_t *msg, size_t len)
{
    struct ofp_hello h;
    struct ofp_buf b;
    char err[160];
    int v;

    if (ofp_hello_decode(msg, len, &h, err, sizeof(err)) < 0)
        return broke(cs, "bad HELLO", err);
    v = ofp_hello_negotiate(&h);
    ofp_buf_init(&b);
    if (v != OFP_VERSION) {
        struct ofp_error_msg e = {.xid = h.xid, .type = 0, .code = 0};   /* HELLO_FAILED/INCOMPATIBLE */
        struct json_object *c = json_object_new_object();
        static const char text[] = "Incompatible OpenFlow version";

        e.data = (const uint8_t *)text;
        e.data_len = sizeof(text) - 1;
        ofp_error_encode(&b, &e, NULL, 0);
        ofc_send(cs->c, &b, KYTOS_CONN_URGENT);
        if (c) {
            json_object_object_add(c, "source", kytos_conn_json(cs->c));
            ofc_publish(cs->oc, "kytos/of_core.hello_failed", c);
        }
        kytos_conn_set_state(cs->c, KYTOS_CONN_FAILED);
        kytos_log(cs->oc->napp, KYTOS_LOG_WARNING,
                  "switch hello failed: version %u, %s bitmap 0x%x: no OpenFlow 1.3", h.version,
                  h.has_bitmap ? "with" : "no", h.bitmap);
        kytos_conn_close(cs->c, "hello failed: incompatible OpenFlow version");
        return 0;
    }
    ofp_hello_encode(&b, ofc_xid(cs->oc), 0, NULL, 0);
    ofp_empty_encode(&b, OFPT_FEATURES_REQUEST, ofc_xid(cs->oc), NULL, 0);
    if (ofc_send(cs->c, &b, KYTOS_CONN_URGENT) != KYTOS_OK)
        return -1;
    kytos_conn_set_state(cs->c, KYTOS_CONN_SETUP);
    cs->phase = OFC_WAIT_FEATURES;
    return 0;
}

static void conn_address(kytos_conn *c, char *out, size_t n)
{
    struct kytos_conn_info in = {.struct_size = sizeof(in)};

    if (kytos_conn_info(c, &in) == KYTOS_OK)
        snprintf(out, n, "%s:%u", in.address, in.port);
    else
        snprintf(out, n, "?");
}

/* Is the switch's current connection alive (Kytos: enabled, connected and
 * seen within the dead interval)?  Caller holds oc->lock. */
static bool holder_alive(struct ofcore *oc, const struct ofc_switch *sw)
{
    struct kytos_conn_info in = {.struct_size = sizeof(in)};

    return sw->conn && sw->enabled && kytos_conn_info(sw->conn, &in) == KYTOS_OK &&
           in.state == KYTOS_CONN_ESTABLISHED && ofc_now_ms() - sw->last_rx_ms <= oc->dead_ms;
}

static int on_features(struct ofc_conn *cs, const uint8_t *msg, size_t len)
{
    struct ofcore *oc = cs->oc;
    struct ofp_features f;
    struct ofp_switch_config cfg = {.flags = 0, .miss_send_len = 0xffff};
    struct ofc_switch *sw;
    kytos_conn *old = NULL;
    struct ofp_buf b;
    char err[160], dpid[24];

    if (ofp_features_reply_decode(msg, len, &f, err, sizeof(err)) < 0)
        return broke(cs, "bad FEATURES_REPLY", err);
    ofp_dpid_format(f.datapath_id, dpid);
    pthread_mutex_lock(&oc->lock);
    sw = ofc_switch_get(oc, dpid);
    if (!sw) {
        pthread_mutex_unlock(&oc->lock);
        return broke(cs, "FEATURES_REPLY", "out of memory");
    }
    if (sw->conn && sw->conn != cs->c) {
        if (holder_alive(oc, sw)) {
            pthread_mutex_unlock(&oc->lock);
            /* Kytos' KytosDuplicatedSwitch: no handshake for the newcomer */
            kytos_log(oc->napp, KYTOS_LOG_ERROR,
                      "duplicate datapath id %s: the switch is connected already; closing the new "
                      "connection", dpid);
            cs->phase = OFC_DUP;
            kytos_conn_close(cs->c, "duplicate datapath id");
            return 0;
        }
        old = sw->conn;   /* a stale connection: the new one replaces it */
        sw->conn = NULL;
    }
    cs->reconnect = sw->connection[0] != '\0';
    sw->conn = cs->c;
    kytos_conn_ref(cs->c);
    conn_address(cs->c, sw->connection, sizeof(sw->connection));
    sw->last_rx_ms = sw->last_echo_ms = ofc_now_ms();
    sw->stats_pending = false;
    pthread_mutex_unlock(&oc->lock);
    if (old) {
        kytos_conn_set_switch(old, NULL);   /* its late lost event names no switch */
        kytos_conn_close(old, "replaced by a new connection of the same switch");
        kytos_conn_unref(old);
    }
    snprintf(cs->dpid, sizeof(cs->dpid), "%s", dpid);
    kytos_conn_set_switch(cs->c, dpid);
    kytos_conn_set_state(cs->c, KYTOS_CONN_ESTABLISHED);
    cs->phase = OFC_UP;
    /* DESC before PORT_DESC: switch.new carries the description (OVS
     * answers in order); then SET_CONFIG as Kytos */
    ofp_buf_init(&b);
    cs->desc_xid = ofc_xid(oc);
    cs->portdesc_xid = ofc_xid(oc);
    ofp_multipart_request_encode(&b, cs->desc_xid, OFPMP_DESC, 0, NULL, 0, NULL, 0);
    ofp_multipart_request_encode(&b, cs->portdesc_xid, OFPMP_PORT_DESC, 0, NULL, 0, NULL, 0);
    cfg.xid = ofc_xid(oc);
    ofp_switch_config_encode(&b, OFPT_SET_CONFIG, &cfg, NULL, 0);
    return ofc_send(cs->c, &b, KYTOS_CONN_URGENT) == KYTOS_OK ? 0 : -1;
}

void ofc_announce(struct ofc_conn *cs)
{
    struct ofcore *oc = cs->oc;
    struct ofc_switch *sw;
    struct json_object *a = NULL, *b = NULL, *ca, *cb;

    if (cs->announced)
        return;
    cs->announced = true;
    pthread_mutex_lock(&oc->lock);
    sw = ofc_switch_find(oc, cs->dpid);
    if (sw) {
        a = ofc_switch_json(sw);
        b = ofc_switch_json(sw);
    }
    pthread_mutex_unlock(&oc->lock);
    ca = json_object_new_object();
    cb = json_object_new_object();
    if (!a || !b || !ca || !cb) {
        json_object_put(a);
        json_object_put(b);
        json_object_put(ca);
        json_object_put(cb);
        return;
    }
    json_object_object_add(ca, "switch", a);
    json_object_object_add(cb, "switch", b);
    ofc_publish(oc, cs->reconnect ? "kytos/core.switch.reconnected" : "kytos/core.switch.new", ca);
    ofc_publish(oc, "kytos/of_core.handshake.completed", cb);
    kytos_log(oc->napp, KYTOS_LOG_INFO, "switch %s %s", cs->dpid,
              cs->reconnect ? "reconnected" : "connected");
}

static int on_desc(struct ofc_conn *cs, const struct ofp_multipart *mp)
{
    struct ofp_desc d;
    struct ofc_switch *sw;
    char err[160];

    if (ofp_desc_decode(mp->body, mp->body_len, &d, err, sizeof(err)) < 0)
        return broke(cs, "bad DESC reply", err);
    pthread_mutex_lock(&cs->oc->lock);
    sw = ofc_switch_find(cs->oc, cs->dpid);
    if (sw) {
        snprintf(sw->mfr, sizeof(sw->mfr), "%s", d.mfr_desc);
        snprintf(sw->hw, sizeof(sw->hw), "%s", d.hw_desc);
        snprintf(sw->sw, sizeof(sw->sw), "%s", d.sw_desc);
        snprintf(sw->serial, sizeof(sw->serial), "%s", d.serial_num);
        snprintf(sw->dp, sizeof(sw->dp), "%s", d.dp_desc);
    }
    pthread_mutex_unlock(&cs->oc->lock);
    ofc_announce(cs);
    return 0;
}

static int on_port_desc(struct ofc_conn *cs, const struct ofp_multipart *mp)
{
    struct ofp_port p;
    size_t off = 0;
    char err[160];
    int r;

    while ((r = ofp_port_desc_next(mp->body, mp->body_len, &off, &p, err, sizeof(err))) == 1) {
        if (cs->n_pd >= OFC_MAX_PORTS)
            return broke(cs, "PORT_DESC reply", "more than 4096 ports");
        if (cs->n_pd == cs->cap_pd) {
            size_t cap = cs->cap_pd ? cs->cap_pd * 2 : 16;
            struct ofp_port *v = realloc(cs->pd, cap * sizeof(*v));
            if (!v)
                return broke(cs, "PORT_DESC reply", "out of memory");
            cs->pd = v;
            cs->cap_pd = cap;
        }
        cs->pd[cs->n_pd++] = p;
    }
    if (r < 0)
        return broke(cs, "bad PORT_DESC reply", err);
    if (!(mp->flags & OFPMPF_REPLY_MORE))
        ofc_port_desc_done(cs);
    return 0;
}

static int on_multipart(struct ofc_conn *cs, const uint8_t *msg, size_t len)
{
    struct ofp_multipart mp;
    char err[160];

    if (ofp_multipart_decode(msg, len, OFPT_MULTIPART_REPLY, &mp, err, sizeof(err)) < 0)
        return broke(cs, "bad MULTIPART_REPLY", err);
    switch (mp.type) {
    case OFPMP_DESC:
        return on_desc(cs, &mp);
    case OFPMP_PORT_DESC:
        return on_port_desc(cs, &mp);
    case OFPMP_FLOW:
        ofc_stats_reply(cs, &mp);
        return 0;
    default:
        return 0;
    }
}

static int echo_reply(struct ofc_conn *cs, const uint8_t *msg, size_t len)
{
    const uint8_t *data;
    size_t dlen;
    uint32_t xid;
    struct ofp_buf b;
    char err[160];

    if (ofp_echo_decode(msg, len, OFPT_ECHO_REQUEST, &xid, &data, &dlen, err, sizeof(err)) < 0)
        return broke(cs, "bad ECHO_REQUEST", err);
    ofp_buf_init(&b);
    ofp_echo_encode(&b, OFPT_ECHO_REPLY, xid, data, dlen, NULL, 0);
    ofc_send(cs->c, &b, KYTOS_CONN_URGENT);
    return 0;
}

static void barrier_reply(struct ofc_conn *cs, uint32_t xid)
{
    struct json_object *c = json_object_new_object();

    if (!c)
        return;
    json_object_object_add(c, "source", json_object_new_string(cs->dpid));
    json_object_object_add(c, "dpid", json_object_new_string(cs->dpid));
    json_object_object_add(c, "xid", json_object_new_int64(xid));
    ofc_publish(cs->oc, "kytos/of_core.v0x04.messages.in.ofpt_barrier_reply", c);
}

static int dispatch_up(struct ofc_conn *cs, const struct ofp_header *h, const uint8_t *msg,
                       size_t len)
{
    struct ofc_switch *sw;

    pthread_mutex_lock(&cs->oc->lock);
    sw = ofc_switch_find(cs->oc, cs->dpid);
    if (sw && sw->conn == cs->c)
        sw->last_rx_ms = ofc_now_ms();
    pthread_mutex_unlock(&cs->oc->lock);
    switch (h->type) {
    case OFPT_ECHO_REQUEST:
        return echo_reply(cs, msg, len);
    case OFPT_MULTIPART_REPLY:
        return on_multipart(cs, msg, len);
    case OFPT_PORT_STATUS:
        ofc_port_status(cs, msg, len);
        return 0;
    case OFPT_BARRIER_REPLY:
        barrier_reply(cs, h->xid);
        return 0;
    case OFPT_ERROR:
        ofc_error_in(cs, msg, len);
        return 0;
    case OFPT_PACKET_IN:
        ofc_packet_in(cs, msg, len);
        return 0;
    case OFPT_FLOW_REMOVED:
        ofc_flow_removed(cs, msg, len);
        return 0;
    case OFPT_ECHO_REPLY: case OFPT_HELLO: case OFPT_FEATURES_REPLY:
    case OFPT_GET_CONFIG_REPLY:
        return 0;
    default:
        if (!cs->logged_unknown) {
            cs->logged_unknown = true;
            kytos_log(cs->oc->napp, KYTOS_LOG_INFO, "switch %s sent message type %u: ignored",
                      cs->dpid, h->type);
        }
        return 0;
    }
}

static int on_message(kytos_napp *napp, kytos_conn *c, const void *m, size_t len, void *ud)
{
    struct ofc_conn *cs = kytos_conn_data(c);
    const uint8_t *msg = m;
    struct ofp_header h;
    char err[160];

    (void)napp;
    (void)ud;
    if (!cs)
        return -1;
    if (ofp_header_decode(msg, len, &h, err, sizeof(err)) < 0)
        return broke(cs, "bad header", err);
    if (cs->phase == OFC_WAIT_HELLO) {
        if (h.type != OFPT_HELLO)
            return broke(cs, "first message is not HELLO", ofp_type_name(h.type));
        return on_hello(cs, msg, len);
    }
    if (h.version != OFP_VERSION)
        return broke(cs, "wrong version after negotiation", "not OpenFlow 1.3");
    switch (cs->phase) {
    case OFC_WAIT_FEATURES:
        if (h.type == OFPT_FEATURES_REPLY)
            return on_features(cs, msg, len);
        if (h.type == OFPT_ECHO_REQUEST)
            return echo_reply(cs, msg, len);
        if (h.type == OFPT_ERROR)
            ofc_error_in(cs, msg, len);
        return 0;
    case OFC_UP:
        return dispatch_up(cs, &h, msg, len);
    default:
        return 0;
    }
}

int ofc_conn_register(struct ofcore *oc)
{
    return kytos_conn_handle(oc->napp, &(struct kytos_conn_handler){
                                           .struct_size = sizeof(struct kytos_conn_handler),
                                           .protocol = "openflow",
                                           .on_open = on_open,
                                           .on_message = on_message,
                                           .on_close = on_close,
                                           .ud = oc,
                                       });
}
