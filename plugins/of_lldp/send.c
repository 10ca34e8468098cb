/* plugins/of_lldp/send.c - one polling round (Kytos' execute): a
 * PACKET_OUT of our LLDP frame on every interface with lldp, active and
 * enabled, port not LOCAL, of every connected switch.  Published as
 *
 *   kytos/of_lldp.messages.out.ofpt_packet_out  (buffer msg_out, priority -1000)
 *   {"destination": "<dpid>", "buffer_id": 4294967295,
 *    "in_port": 4294967293 (CONTROLLER),
 *    "actions": [{"action_type": "output", "port": N, "max_len": 65535}],
 *    "data": "<the 42-byte frame, lower-case hex>"}
 *
 * which of_core turns into the OpenFlow message (southbound.md 3.1, 7.5). */
#include "lldp.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define PACKET_OUT_PRIORITY -1000

static void send_one(struct lldp *l, const char *dpid, uint64_t dpid_num, struct json_object *intf)
{
    uint8_t frame[LLDP_FRAME_LEN], mac[6] = {0}, src[6];
    char hex[2 * LLDP_FRAME_LEN + 1];
    int64_t port;
    struct json_object *c, *acts, *out;
    int rc;

    if (!lldp_jint(intf, "port_number", &port) || port < 0 || port > UINT32_MAX ||
        (uint32_t)port == LLDP_OFPP_LOCAL)
        return;
    if (!lldp_intf_lldp(l, intf) || !lldp_jbool(intf, "active") || !lldp_jbool(intf, "enabled"))
        return;
    lldp_mac_parse(lldp_jstr(intf, "mac"), mac);   /* unparsable: all-zero, derived below */
    lldp_source_mac(mac, dpid_num, (uint32_t)port, src);
    if (lldp_frame_encode(frame, sizeof frame, dpid_num, (uint32_t)port, src, l->vlan) < 0)
        return;
    lldp_hex_encode(frame, sizeof frame, hex);
    c = json_object_new_object();
    acts = json_object_new_array();
    out = json_object_new_object();
    json_object_object_add(out, "action_type", json_object_new_string("output"));
    json_object_object_add(out, "port", json_object_new_int64(port));
    json_object_object_add(out, "max_len", json_object_new_int(0xffff));
    json_object_array_add(acts, out);
    json_object_object_add(c, "destination", json_object_new_string(dpid));
    json_object_object_add(c, "buffer_id", json_object_new_int64(0xffffffffLL));
    json_object_object_add(c, "in_port", json_object_new_int64(LLDP_OFPP_CONTROLLER));
    json_object_object_add(c, "actions", acts);
    json_object_object_add(c, "data", json_object_new_string(hex));
    rc = kytos_event_publish_give(
        l->napp, EV_PACKET_OUT, c,
        &(struct kytos_pub_opts){.struct_size = sizeof(struct kytos_pub_opts),
                                 .priority = PACKET_OUT_PRIORITY,
                                 .buffer = "msg_out"});
    if (rc != KYTOS_OK)
        kytos_log(l->napp, KYTOS_LOG_WARNING, "LLDP PACKET_OUT to %s port %" PRId64 ": %s", dpid,
                  port, kytos_strerror(rc));
}

void lldp_send_round(struct lldp *l)
{
    struct lldp_topo *t = lldp_topo_get(l, -1);

    if (!t)
        return;
    json_object_object_foreach(t->switches, dpid, sw)
    {
        struct json_object *ifs;
        uint64_t dpid_num;

        if (!lldp_jbool(sw, "active") || lldp_dpid_parse(dpid, &dpid_num) < 0 ||
            !json_object_object_get_ex(sw, "interfaces", &ifs) ||
            !json_object_is_type(ifs, json_type_object))
            continue;
        json_object_object_foreach(ifs, id, intf)
        {
            (void)id;
            send_one(l, dpid, dpid_num, intf);
        }
    }
    lldp_topo_put(t);
}
