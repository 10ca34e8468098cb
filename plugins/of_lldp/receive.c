/* plugins/of_lldp/receive.c - a PACKET_IN carrying one of our frames
 * (Kytos' on_ofpt_packet_in, southbound.md 3.3).
 *
 * Consumed: kytos/of_core.v0x04.messages.in.ofpt_packet_in
 *   {"dpid": "<dpid>" (or "source"), "in_port": N, "data": "<frame, hex>", ...}
 *   (the fields may also sit in a "message" object).
 *
 * interface_a is the receiving switch's in_port, interface_b the DPID and
 * port the frame names.  The frame is hostile input: a frame that does not
 * decode is foreign LLDP and ignored, and both interfaces must exist in
 * topology (a forged or unknown DPID or port never makes a link).  Then the
 * loop check, the liveness hello and, always, kytos/of_lldp.interface.is.nni. */
#include "lldp.h"

#include <stdio.h>
#include <string.h>

#define FRAME_MAX 9216   /* jumbo; anything longer is not a frame of ours */

static struct json_object *field(struct json_object *c, const char *key)
{
    struct json_object *v, *msg;

    if (json_object_object_get_ex(c, key, &v))
        return v;
    if (json_object_object_get_ex(c, "message", &msg) && json_object_is_type(msg, json_type_object) &&
        json_object_object_get_ex(msg, key, &v))
        return v;
    return NULL;
}

static struct json_object *intf_copy(struct json_object *i)
{
    struct json_object *copy = NULL;

    if (json_object_deep_copy(i, &copy, NULL) != 0) {
        json_object_put(copy);
        return NULL;
    }
    return copy;
}

int lldp_on_packet_in(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct lldp *l = ud;
    struct json_object *c = kytos_event_content(ev), *v, *ia, *ib, *out;
    const char *dpid_a, *hex;
    char dpid_b[LLDP_DPID_STR_LEN + 1], err[160];
    uint8_t frame[FRAME_MAX];
    struct lldp_peer peer;
    struct lldp_loop new_loop;
    struct lldp_topo *t;
    int64_t in_port;
    long n;
    uint64_t dpid_a_num;

    (void)napp;
    v = field(c, "dpid");
    if (!v)
        v = field(c, "source");
    dpid_a = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
    v = field(c, "in_port");
    if (!dpid_a || lldp_dpid_parse(dpid_a, &dpid_a_num) < 0 || !json_object_is_type(v, json_type_int))
        return KYTOS_OK;
    in_port = json_object_get_int64(v);
    v = field(c, "data");
    hex = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
    if (!hex || in_port < 0 || in_port > UINT32_MAX)
        return KYTOS_OK;
    n = lldp_hex_decode(hex, (size_t)json_object_get_string_len(v), frame, sizeof frame);
    if (n < 0)
        return KYTOS_OK;
    if (lldp_frame_decode(frame, (size_t)n, &peer, err, sizeof err) < 0) {
        if (kytos_log_enabled(l->napp, KYTOS_LOG_DEBUG))
            kytos_log(l->napp, KYTOS_LOG_DEBUG, "PACKET_IN from %s port %lld ignored: %s", dpid_a,
                      (long long)in_port, err);
        return KYTOS_OK;
    }
    lldp_dpid_format(peer.dpid, dpid_b);
    t = lldp_topo_for_intfs(l, dpid_a, (uint32_t)in_port, dpid_b, peer.port);
    ia = lldp_topo_intf(t, dpid_a, (uint32_t)in_port);
    ib = lldp_topo_intf(t, dpid_b, peer.port);
    if (!ia || !ib) {
        if (kytos_log_enabled(l->napp, KYTOS_LOG_DEBUG))
            kytos_log(l->napp, KYTOS_LOG_DEBUG,
                      "LLDP from %s:%u received on %s:%lld: unknown interface, ignored", dpid_b,
                      peer.port, dpid_a, (long long)in_port);
        lldp_topo_put(t);
        return KYTOS_OK;
    }
    pthread_mutex_lock(&l->mu);
    new_loop.detected = false;
    lldp_loop_check(l, t, ia, ib, &new_loop);
    lldp_lv_hello(l, ia, ib);
    pthread_mutex_unlock(&l->mu);
    if (new_loop.detected)
        lldp_loop_new_actions(l, &new_loop, lldp_jbool(ia, "enabled"));
    out = json_object_new_object();
    json_object_object_add(out, "interface_a", intf_copy(ia));
    json_object_object_add(out, "interface_b", intf_copy(ib));
    lldp_topo_put(t);
    lldp_publish(l, EV_IS_NNI, out);
    return KYTOS_OK;
}
