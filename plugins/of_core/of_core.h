/* plugins/of_core/of_core.h - kytos/of_core: OpenFlow 1.3 towards real
 * switches, over the host's southbound server (include/kytos/conn.h), with
 * the codec in ofp/ (ofp.h).  It publishes and consumes exactly what
 * kytos/simnet does (plugins/simnet/simnet.h, "Event contract"), so
 * topology, flow_manager and mef_eline run unchanged on either.
 *
 * ==== Event contract (JSON contents) ====
 *
 * INTF = {"id": "<dpid>:<port>", "switch": "<dpid>", "port_number": n,
 *         "name": "s1-eth1", "mac": "aa:bb:cc:dd:ee:ff",
 *         "speed": bytes/s as a float: from the port's curr feature bits
 *                  (10M_HD .. 1TB_FD) as Kytos, else curr_speed (kbps) * 125,
 *                  else 0,
 *         "active": state == OFPPS_LIVE exactly, or the LOCAL port,
 *         "state": n, "config": n, "curr": n}   (the raw port words too)
 * SWITCH = {"dpid", "connection": "127.0.0.1:<port>", "ofp_version": "0x04",
 *           "manufacturer", "hardware", "software", "serial", "data_path"}
 *           (the description fields are "" until the DESC reply came)
 *
 * Published:
 *   kytos/core.switch.new | kytos/core.switch.reconnected  {"switch": SWITCH}
 *        once per connection, when the DESC reply arrives (or the
 *        PORT_DESC reply, whichever comes first), so the description is in it
 *   kytos/of_core.handshake.completed       {"switch": SWITCH}  right after
 *   kytos/of_core.switch.interfaces.created {"switch": dpid, "dpid": dpid,
 *                                            "interfaces": [INTF, ...]}
 *        every PORT_DESC reply (each (re)connection), LOCAL port last
 *   kytos/of_core.switch.interface.created  {"interface": INTF}  PORT_STATUS ADD
 *   kytos/of_core.switch.interface.modified {"interface": INTF}  PORT_STATUS MODIFY
 *   kytos/of_core.switch.interface.deleted  {"interface": INTF}  PORT_STATUS DELETE
 *   kytos/of_core.switch.interface.link_up | .link_down {"interface": INTF}
 *        MODIFY whose LINK_DOWN bit differs from the port's previous state
 *        (published before .modified, as Kytos)
 *   kytos/core.<proto>.connection.lost  (the host's; it names the dpid: a
 *        dead switch is closed by of_core, the host publishes it)
 *   kytos/of_core.hello_failed              {"source": SOURCE}  (conn.h)
 *   kytos/of_core.v0x04.messages.in.ofpt_barrier_reply
 *        {"source": dpid, "dpid": dpid, "xid": n}
 *   kytos/of_core.v0x04.messages.in.ofpt_error
 *        {"source": dpid, "dpid": dpid, "xid": n, "error_type": "OFPET_BAD_MATCH",
 *         "error_code": "OFPBMC_BAD_PREREQ" (pyof's names; numbers as text
 *         when pyof has none), "type": n, "code": n, "data": hex}
 *   kytos/core.openflow.connection.error
 *        a copy of the flow_mod / barrier / packet_out content plus
 *        "exception": "switch <dpid> is not connected" (unknown or closed)
 *        or "Connection state: ConnectionState.FAILED" (the send failed)
 *   kytos/of_core.flow_stats.received {"switch": dpid, "replies_flows": [FLOW]}
 *        FLOW = ofp_flow_stats_to_json (of_core's Flow.as_dict) plus "id",
 *        flow_manager's flow id (md5 of the canonical dict without stats)
 *   kytos/of_core.v0x04.messages.in.ofpt_packet_in (only when subscribed)
 *        {"source": dpid, "dpid": dpid, "xid": n, "in_port": n (from the OXM,
 *         4294967295 when absent), "buffer_id": n, "total_len": n,
 *         "reason": n, "table_id": n, "cookie": n, "match": {Kytos match},
 *         "data": the frame as lowercase hex}
 *   kytos/of_core.v0x04.messages.in.ofpt_flow_removed (only when subscribed)
 *        {"source", "dpid", "xid", "cookie", "priority", "reason", "table_id",
 *         "duration_sec", "duration_nsec", "idle_timeout", "hard_timeout",
 *         "packet_count", "byte_count", "match": {Kytos match}}
 *
 * Consumed:
 *   kytos/flow_manager.messages.out.ofpt_flow_mod
 *        {"destination": dpid, "xid": n, "command": "add"|..|0..4, "flow": {...}}
 *   kytos/flow_manager.messages.out.ofpt_barrier_request {"destination", "xid"}
 *   kytos/.*.messages.out.ofpt_packet_out
 *        {"destination": dpid, "xid"?: n, "buffer_id"?: n (NO_BUFFER),
 *         "in_port"?: n (CONTROLLER), "actions": [{"action_type": "output",
 *         "port": n}, ...] (any action ofp_flow_mod_parse_json takes),
 *         "data": hex}
 *   kytos/topology.switch.(enabled|disabled) {"dpid"}: a duplicate dpid is
 *        refused only while the switch holding it is enabled and alive (Kytos)
 *
 * ==== Settings ([kytos/of_core], JSON values) ====
 *   stats_interval = 60     seconds between flow stats requests (0 = never)
 *   echo_interval = 60      seconds between ECHO_REQUESTs to each switch
 *   dead_interval = 130     seconds without any message -> the connection
 *                           is closed (Kytos' connection_timeout)
 *   (fractional seconds are allowed, 0.2 .. 86400)
 *
 * ==== Threads and locks (docs/locking.md) ====
 * The southbound thread runs on_open/on_message/on_close; per-connection
 * state (struct ofc_conn) is its alone.  oc->lock guards the switch table
 * (dpids, their current connection, ports, description, enabled, times):
 * held briefly by the southbound thread, the keepalive/stats timers and
 * the flow_mod handler; never held while publishing.
 */
#ifndef OF_CORE_OF_CORE_H
#define OF_CORE_OF_CORE_H

#include <kytos/kytos.h>
#include <kytos/conn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/evq.h"
#include "ofp/ofp.h"

#define OFC_MAX_PORTS 4096          /* per switch: more is a broken switch */
#define OFC_MAX_STATS_FLOWS 200000  /* per flow stats round */

struct ofc_port {
    uint32_t no;
    char name[17];
    uint8_t mac[6];
    uint32_t config, state, curr, curr_speed;
    bool present;
};

struct ofc_switch {
    char dpid[24];
    kytos_conn *conn;               /* current connection (referenced) or NULL */
    char connection[64];            /* "addr:port" of it */
    bool enabled;                   /* topology's switch.enabled/disabled */
    int64_t last_rx_ms, last_echo_ms;
    uint32_t stats_xid;             /* the FLOW stats request in flight */
    bool stats_pending;
    unsigned stats_skips;
    char mfr[257], hw[257], sw[257], serial[33], dp[257];
    struct ofc_port *ports;
    size_t n_ports, cap_ports;
};

struct ofcore {
    kytos_napp *napp;
    pthread_mutex_t lock;           /* the switch table below */
    struct ofc_switch **sw;
    size_t n_sw, cap_sw;
    int64_t echo_ms, dead_ms, stats_ms;
    int64_t last_stats_ms;
    atomic_uint xid;
};

enum ofc_phase { OFC_WAIT_HELLO, OFC_WAIT_FEATURES, OFC_UP, OFC_DUP };

/* One connection, the southbound thread's alone. */
struct ofc_conn {
    struct ofcore *oc;
    kytos_conn *c;
    enum ofc_phase phase;
    char dpid[24];
    bool announced, reconnect;
    uint32_t desc_xid, portdesc_xid, stats_xid;
    struct ofp_port *pd;            /* PORT_DESC entries gathered (REPLY_MORE) */
    size_t n_pd, cap_pd;
    struct json_object *stats;      /* FLOW replies gathered, or NULL */
    bool logged_unknown;
};

/* ---- main.c ---- */
int64_t ofc_now_ms(void);
uint32_t ofc_xid(struct ofcore *oc);
/* Publish content (taken) without waiting: from the southbound thread. */
void ofc_publish(struct ofcore *oc, const char *name, struct json_object *content);

/* ---- switches.c (caller holds oc->lock) ---- */
struct ofc_switch *ofc_switch_find(struct ofcore *oc, const char *dpid);
struct ofc_switch *ofc_switch_get(struct ofcore *oc, const char *dpid);  /* find or add */
struct ofc_port *ofc_port_find(struct ofc_switch *sw, uint32_t no);
struct ofc_port *ofc_port_set(struct ofc_switch *sw, const struct ofp_port *p);
struct json_object *ofc_switch_json(const struct ofc_switch *sw);
struct json_object *ofc_intf_json(const struct ofc_switch *sw, const struct ofc_port *p);
/* The switch's connection, referenced, if it is open; NULL else. */
kytos_conn *ofc_switch_conn(struct ofcore *oc, const char *dpid);
void ofc_switches_free(struct ofcore *oc);

/* ---- conn.c: the connection handler ---- */
int ofc_conn_register(struct ofcore *oc);
/* Send an encoded buffer; KYTOS_* status. */
int ofc_send(kytos_conn *c, struct ofp_buf *b, unsigned flags);

/* switch.new / reconnected and handshake.completed, once per connection */
void ofc_announce(struct ofc_conn *cs);

/* ---- ports.c (southbound thread) ---- */
void ofc_port_desc_done(struct ofc_conn *cs);
void ofc_port_status(struct ofc_conn *cs, const uint8_t *msg, size_t len);

/* ---- flows.c ---- */
int ofc_flows_subscribe(struct ofcore *oc);
void ofc_stats_reply(struct ofc_conn *cs, const struct ofp_multipart *mp);
void ofc_error_in(struct ofc_conn *cs, const uint8_t *msg, size_t len);
void ofc_packet_in(struct ofc_conn *cs, const uint8_t *msg, size_t len);
void ofc_flow_removed(struct ofc_conn *cs, const uint8_t *msg, size_t len);
/* timers */
void ofc_keepalive_tick(kytos_napp *napp, void *ud);
void ofc_stats_tick(kytos_napp *napp, void *ud);
/* flow id (md5 of the canonical dict), as flow_manager computes it */
void ofc_flow_id(struct json_object *flow, char out[33]);

/* ---- errnames.c ---- */
const char *ofc_error_type_name(uint16_t type);
const char *ofc_error_code_name(uint16_t type, uint16_t code);

#endif
