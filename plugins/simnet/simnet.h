/* plugins/simnet/simnet.h - kytos/simnet: a simulated OpenFlow network that
 * speaks to the other NApps only through KytosEvents, in place of of_core
 * and of_lldp.  No OpenFlow on the wire.
 *
 * ==== Event contract (JSON contents; C NApps cannot pass Python objects) ====
 *
 * INTF, an interface as the switch reports it:
 *   {"id": "<dpid>:<port>", "switch": "<dpid>", "port_number": n,
 *    "name": "s1-eth1", "mac": "aa:bb:cc:dd:ee:ff",
 *    "speed": 1250000000.0 (bytes/s, a float; 0 for the LOCAL port),
 *    "active": true (link state: false when the port or its cable is down)}
 * Topology needs "id" (or "switch" + "port_number"); the rest is optional.
 *
 * Published by simnet (the names of_core / of_lldp / core use in Kytos):
 *   kytos/core.switch.new              {"switch": SWITCH}   a switch connected
 *   kytos/core.switch.reconnected      {"switch": SWITCH}   it connected again
 *     SWITCH = {"dpid", "connection": "127.0.0.1:<port>", "ofp_version": "0x04",
 *               "manufacturer", "hardware", "software", "serial", "data_path"}
 *   kytos/core.connection.lost         {"dpid": "<dpid>"}
 *   kytos/of_core.switch.interfaces.created  {"switch": "<dpid>", "interfaces": [INTF, ...]}
 *                                      port-desc after every (re)connection,
 *                                      LOCAL port (4294967294) last
 *   kytos/of_core.switch.interface.created   {"interface": INTF}  port added
 *   kytos/of_core.switch.interface.deleted   {"interface": INTF}  port removed
 *   kytos/of_core.switch.interface.link_up   {"interface": INTF}  port status up
 *   kytos/of_core.switch.interface.link_down {"interface": INTF}  port status down
 *   kytos/of_lldp.interface.is.nni     {"interface_a": INTF, "interface_b": INTF}
 *                                      a link seen by LLDP; interface_a is the
 *                                      one that sorts first (endpoint_a)
 * Order: for each switch, switch.new then interfaces.created; then one
 * is.nni per link.  All from simnet's start hook, so every NApp has
 * subscribed already.
 *
 * ==== Flow installs (what simnet expects from kytos/flow_manager) ====
 *
 * simnet keeps a flow table per switch and listens to (one subscription,
 * pool "dynamic_single", so FlowMods and barriers keep their order):
 *   kytos/flow_manager.messages.out.ofpt_flow_mod
 *       {"destination": "<dpid>", "xid": n (optional),
 *        "command": "add" | "modify" | "modify_strict" | "delete" | "delete_strict"
 *                   (or the OFPFC number 0..4; default "add"),
 *        "flow": {"table_id", "priority", "cookie", "cookie_mask",
 *                 "idle_timeout", "hard_timeout", "match": {...},
 *                 "instructions": [...] | "actions": [...], ...}}
 *       add: replaces the flow with the same table_id, priority and match,
 *            else appends; modify[_strict]: replaces instructions/actions of
 *            the matching flows; delete: removes the flows whose match
 *            contains every field of the given match (all flows for {}),
 *            whose cookie matches under cookie_mask when the mask is not 0,
 *            in table_id (255 or absent = every table); delete_strict: same
 *            match and priority exactly.
 *   kytos/flow_manager.messages.out.ofpt_barrier_request
 *       {"destination": "<dpid>", "xid": n}
 * and answers:
 *   kytos/of_core.v0x04.messages.in.ofpt_barrier_reply
 *       {"source": "<dpid>", "dpid": "<dpid>", "xid": n}
 *   kytos/core.openflow.connection.error
 *       {"destination": "<dpid>", "xid": n, "command": ..., "flow": ...,
 *        "exception": "switch <dpid> is not connected"}
 *       (the switch is unknown or disconnected; nothing is applied)
 *   kytos/of_core.v0x04.messages.in.ofpt_error
 *       {"source": "<dpid>", "xid": n, "error_type": "OFPET_BAD_REQUEST",
 *        "error_code": "OFPBRC_BAD_TYPE", "reason": text, "flow": ...}
 *       (malformed FlowMod content)
 *   kytos/of_core.flow_stats.received
 *       {"switch": "<dpid>", "replies_flows": [FLOW, ...]}
 *       FLOW = the stored flow dict plus "switch": dpid and
 *       "stats": {"byte_count": 0, "duration_sec": s, "duration_nsec": 0, "packet_count": 0}
 *       every flow_stats_interval seconds for each connected switch, and on
 *       POST /api/kytos/simnet/v1/flow_stats.
 *
 * ==== Settings ([kytos/simnet], JSON values) ====
 *   shape = "ring" | "linear" | "mesh"   default "ring"
 *   switches = 3                         1..1000 (mesh: 1..64)
 *   host_ports = n                       host ports per switch (alias
 *                                        ports_per_switch); default: 2 on s1,
 *                                        1 elsewhere, as gen_topology.py
 *   seed = 1, ovs_version = "3.1.0"      MACs/TCP ports, "software"
 *   flow_stats_interval = 60             seconds, 0 = never
 *   keep_flows = true                    the switches keep their flow tables
 *                                        across a restart of kytosd, as real
 *                                        switches do when their controller
 *                                        restarts (persist.c); false: every
 *                                        start begins with empty tables
 * The default is the 3-switch ring of ../shared/fixtures/gen_topology.py,
 * with its dpids, ports, names, MACs, connection ports and link ids.
 */
#ifndef SIMNET_SIMNET_H
#define SIMNET_SIMNET_H

#include <kytos/kytos.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/evq.h"
#include "../topology/linkid.h"
#include "pyrand.h"

#define SIM_OFPP_LOCAL 4294967294u
#define SIM_MAX_SWITCHES 1000
#define SIM_MAX_MESH 64
#define SIM_MAX_HOST_PORTS 64

enum sim_shape { SIM_RING, SIM_LINEAR, SIM_MESH };

struct sim_port {
    uint32_t no;
    char name[32];
    char mac[18];
    bool up;                         /* link state */
    bool local;                      /* the OVS LOCAL port */
    char peer[TOPO_INTF_ID_MAX + 1]; /* other end of its link, "" if none */
};

/* One installed flow (its dict as the FlowMod gave it). */
struct sim_flow {
    char *text;                      /* the flow dict as JSON text: a json-c tree
                                      * costs ~10x its text, and a switch holds
                                      * tens of thousands of flows */
    uint64_t key;                    /* hash of (table_id, priority, match) */
    uint64_t table_id, priority;     /* the flow's, with their defaults */
    uint64_t cookie;                 /* the flow's, 0 when absent */
    bool match_empty;                /* no match, or {} */
    struct sim_flow *prev, *next;    /* install order */
    struct sim_flow *chain;          /* next in the same bucket */
    struct sim_flow *cchain;         /* next in the same cookie bucket */
};

/* A switch's flow table: a list in install order (what GET v1/flows and
 * flow stats show), a hash on (table_id, priority, match), so an add, a
 * modify_strict or a delete_strict finds its flow without a scan, and a
 * hash on the cookie, so a non-strict modify or delete of one cookie (how
 * mef_eline removes an EVC's flows) reads that cookie's flows only. */
struct sim_flowtab {
    struct sim_flow *head, *tail;
    struct sim_flow **buckets;       /* nbuckets, a power of two (0 before the first flow) */
    struct sim_flow **cbuckets;      /* nbuckets too, by cookie */
    size_t n, nbuckets;
};

struct sim_switch {
    char dpid[TOPO_DPID_MAX + 1];
    unsigned idx;                    /* s<idx> */
    char connection[32];
    bool connected;
    struct sim_port *ports;          /* ascending, LOCAL last */
    size_t n_ports, cap_ports;
    uint32_t next_port;
    struct sim_flowtab flows;
    unsigned saved_parts;            /* documents of this table in the store (persist.c) */
    uint64_t flow_mods;              /* FlowMods applied since start (GET v1/) */
    int64_t connected_at;            /* seconds, for duration_sec */
};

struct sim_link {
    char id[TOPO_LINK_ID_LEN + 1];
    char a[TOPO_INTF_ID_MAX + 1], b[TOPO_INTF_ID_MAX + 1];  /* a sorts first */
};

struct simnet {
    kytos_napp *napp;
    pthread_mutex_t lock;            /* the network below */
    pthread_mutex_t pub_lock;        /* keeps each change's events together, in order */
    struct sim_switch **switches;
    size_t n_switches, cap_switches;
    struct sim_link *links;
    size_t n_links, cap_links;
    struct pyrand rng;
    unsigned next_idx;
    /* settings */
    enum sim_shape shape;
    char software[64];
    unsigned flow_stats_interval;
    bool keep_flows;                 /* flow tables survive a restart (persist.c) */
    bool load_pending;               /* kept tables to load at start */
    bool loader_started;
    pthread_t loader;                /* loads them, then announces the network */
    bool stats_ticked;
};

/* ---- net.c: the simulated network (caller holds s->lock) ---- */
int sim_build(struct simnet *s, unsigned n, int host_ports, char **err);
struct sim_switch *sim_switch_find(struct simnet *s, const char *dpid);
struct sim_port *sim_port_find(struct sim_switch *sw, uint32_t no);
struct sim_port *sim_port_by_id(struct simnet *s, const char *intf_id, struct sim_switch **sw);
struct sim_link *sim_link_find(struct simnet *s, const char *id);
/* New switch with host_ports host ports and a link to each peer; NULL with
 * *err (static text) on failure. */
struct sim_switch *sim_switch_add(struct simnet *s, const char *dpid, int host_ports,
                                  struct sim_switch **peers, size_t n_peers, const char **err);
/* Remove a switch, its links and the peer ports of those links; the events
 * go to q. */
void sim_switch_remove(struct simnet *s, struct sim_switch *sw, struct napp_evq *q);
void sim_free(struct simnet *s);
const char *sim_shape_name(enum sim_shape shape);

/* ---- publish.c: events ---- */
/* Publish q in order (takes pub_lock), then free it.  Call without s->lock. */
void sim_evq_publish(struct simnet *s, struct napp_evq *q);
/* Swap q out of a locked section: publish order is the order of the locked
 * sections (pub_lock is taken before s->lock is released). */
void sim_evq_flush_locked(struct simnet *s, struct napp_evq *q);
/* The same for answers to flow_manager, from a "direct" handler: drops
 * s->lock and publishes without pub_lock and without waiting for room. */
void sim_evq_answer_unlock(struct simnet *s, struct napp_evq *q);
struct json_object *sim_intf_json(const struct sim_switch *sw, const struct sim_port *p);
void sim_ev_switch_up(const struct simnet *s, struct napp_evq *q, const struct sim_switch *sw,
                      bool reconnect);
void sim_ev_port(struct napp_evq *q, const char *name, const struct sim_switch *sw,
                 const struct sim_port *p);
void sim_ev_link(struct simnet *s, struct napp_evq *q, const struct sim_link *l);
void sim_ev_conn_lost(struct napp_evq *q, const struct sim_switch *sw);

/* ---- flows.c ---- */
int sim_flows_subscribe(struct simnet *s);
/* Add flow (an object, borrowed) to sw's table as a FlowMod add would:
 * what persist.c loads.  false when it is not a flow or out of memory. */
bool sim_flow_restore(struct sim_switch *sw, struct json_object *flow);
/* One flow as a new tree (NULL when out of memory). */
struct json_object *sim_flow_json(const struct sim_flow *f);
/* Every flow of t, new trees in install order (NULL when out of memory). */
struct json_object *sim_flowtab_json(const struct sim_flowtab *t);
void sim_flowtab_clear(struct sim_flowtab *t);
void sim_flow_stats_tick(kytos_napp *napp, void *ud);
/* Queue flow_stats.received for every connected switch; returns how many. */
size_t sim_flow_stats_all(struct simnet *s, struct napp_evq *q);

/* ---- persist.c: flow tables kept across restarts (keep_flows) ----
 * Collection "simnet_flow_tables": documents "<dpid>#<k>" = {"dpid",
 * "part": k, "flows": [FLOW, ...]} of at most SIM_PERSIST_PART flows each,
 * and "tables" = {"parts": {"<dpid>": count}}, written at stop; all read
 * by _id (no collection scan). */
#define SIM_PERSIST_PART 2000
#define SIM_PERSIST_MAX_PARTS 1000
/* Read "tables" into each switch's saved_parts (init); true when there
 * are flows to load. */
bool sim_flows_saved(struct simnet *s);
/* Load every switch's saved parts (caller holds s->lock); logs what it
 * skipped. */
void sim_flows_load(struct simnet *s);
/* Save every switch's table, then "tables"; logs a failure. */
void sim_flows_save(struct simnet *s);

/* ---- rest.c ---- */
int sim_routes_register(struct simnet *s);

#endif
