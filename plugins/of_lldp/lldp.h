/* plugins/of_lldp/lldp.h - kytos/of_lldp: shared state of the NApp.
 *
 * main.c      settings, init/start/stop, subscriptions, the polling loop
 * lldp_frame.c  the frame codec (hostile input; fuzzed)
 * topo_view.c   topology's GET v3/ tree, cached and shared by reference
 * punt.c      the LLDP punt flow through flow_manager (kytos_call)
 * send.c      the PACKET_OUTs of one polling round
 * receive.c   PACKET_IN -> is.nni, liveness hello, loop check
 * liveness.c  Kytos' liveness state machines and reaper
 * loops.c     loop detection
 * rest.c      /api/kytos/of_lldp/ */
#ifndef OF_LLDP_H
#define OF_LLDP_H

#include <kytos/kytos.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lldp_frame.h"

#define LLDP_OFPP_CONTROLLER 0xfffffffdu
#define LLDP_OFPP_LOCAL 0xfffffffeu
#define LLDP_COOKIE_PREFIX ((uint64_t)0xab)
#define LLDP_ID_MAX 64                    /* an interface id "<dpid>:<port>" */

#define EV_PACKET_IN "kytos/of_core.v0x04.messages.in.ofpt_packet_in"
#define EV_PACKET_OUT "kytos/of_lldp.messages.out.ofpt_packet_out"
#define EV_IS_NNI "kytos/of_lldp.interface.is.nni"

/* One shared, immutable copy of topology's GET v3/ answer. */
struct lldp_topo {
    atomic_int refs;
    int64_t fetched_ms;
    struct json_object *root;             /* {"topology": {"switches", "links"}} */
    struct json_object *switches;         /* borrowed from root */
};

/* Liveness of one interface (Kytos' ILSM). */
enum lldp_lv_state { LV_INIT, LV_UP, LV_DOWN };
struct lldp_ilsm {
    enum lldp_lv_state state;
    int hellos;
    int64_t last_hello_ms;                /* 0 = never */
    char last_hello_at[40];               /* Kytos' datetime text, "" = null */
};
/* A pair keyed by the smaller interface id (Kytos' LSM). */
struct lldp_pair {
    char a[LLDP_ID_MAX], b[LLDP_ID_MAX];  /* a < b */
    struct lldp_ilsm ia, ib;
    enum lldp_lv_state state;
};

struct lldp_loop {
    char dpid[LLDP_DPID_STR_LEN + 1];
    char intf_id[LLDP_ID_MAX];
    uint32_t port_a, port_b;
    bool detected;
    bool announcing;                      /* "looped" being set: not reaped until done */
    int64_t last_seen_ms;
    char detected_at[24];
};

struct lldp {
    kytos_napp *napp;
    /* settings ([kytos/of_lldp]) */
    unsigned vlan;                        /* flow_vlan_vid, 3799 */
    unsigned priority;                    /* flow_priority, 50000 */
    int min_hellos_up;                    /* liveness_min_hellos_up, 2 */
    int dead_interval_s;                  /* polling_time x liveness_dead_multiplier */
    int loop_stopped_s;                   /* polling_time x lldp_loop_dead_multiplier */
    bool loop_log, loop_disable;          /* lldp_loop_actions */
    struct json_object *ignored_loops;    /* lldp_ignored_loops {dpid: [[a, b], ...]} */
    unsigned flow_retries;                /* punt flow attempts (3) */
    unsigned flow_retry_ms;               /* first wait between them (3000) */

    atomic_int polling_time;              /* seconds; REST may change it */
    atomic_llong next_poll_ms;

    pthread_mutex_t mu;                   /* everything below */
    struct lldp_topo *topo;
    char (*lv_enabled)[LLDP_ID_MAX];      /* liveness-enabled interface ids */
    size_t n_lv_enabled, cap_lv_enabled;
    struct lldp_pair *pairs;
    size_t n_pairs, cap_pairs;
    struct lldp_loop *loops;
    size_t n_loops, cap_loops;
    struct json_object *vlan_told;        /* dpids told vlan.used this run (punt.c) */
    pthread_mutex_t poll_mu;              /* one polling round at a time */
    pthread_mutex_t loop_act_mu;          /* loops' topology calls in order (before mu) */

    /* LLDP switched on/off by REST that topology's view may not show yet
     * (it applies our network_status.updated asynchronously) */
    pthread_mutex_t ov_mu;
    struct lldp_override {
        char id[LLDP_ID_MAX];
        bool lldp;
    } *ov;
    size_t n_ov, cap_ov;
};

int64_t lldp_now_ms(void);                /* CLOCK_MONOTONIC */
void lldp_now_iso(char *out, size_t cap); /* UTC "2026-12-01T22:00:00.123456" */

/* topo_view.c */
/* A new reference to the view, or NULL.  max_age_ms: -1 any cached view,
 * 0 one fetched now, N one whose fetch began at most N ms ago. */
struct lldp_topo *lldp_topo_get(struct lldp *l, int64_t max_age_ms);
void lldp_topo_put(struct lldp_topo *t);
void lldp_topo_invalidate(struct lldp *l);
/* the view, refetched (at most every 500 ms) when it lacks one of the two */
struct lldp_topo *lldp_topo_for_intfs(struct lldp *l, const char *dpid_a, uint32_t port_a,
                                      const char *dpid_b, uint32_t port_b);
struct json_object *lldp_topo_switch(const struct lldp_topo *t, const char *dpid);
struct json_object *lldp_topo_intf(const struct lldp_topo *t, const char *dpid, uint32_t port);
struct json_object *lldp_topo_intf_by_id(const struct lldp_topo *t, const char *id);
bool lldp_jbool(struct json_object *o, const char *key);
const char *lldp_jstr(struct json_object *o, const char *key);
bool lldp_jint(struct json_object *o, const char *key, int64_t *out);
/* an interface's "lldp", with the REST changes topology has not shown yet */
bool lldp_intf_lldp(struct lldp *l, struct json_object *intf);
void lldp_override_set(struct lldp *l, const char *id, bool lldp);

/* punt.c */
int lldp_punt_on_switch_event(kytos_napp *napp, const kytos_event *ev, void *ud);
uint64_t lldp_cookie(uint64_t dpid);

/* send.c */
void lldp_send_round(struct lldp *l);

/* receive.c */
int lldp_on_packet_in(kytos_napp *napp, const kytos_event *ev, void *ud);

/* liveness.c (callers hold l->mu unless noted) */
bool lldp_lv_is_enabled(struct lldp *l, const char *id);
void lldp_lv_enable(struct lldp *l, const char *id);
void lldp_lv_disable(struct lldp *l, const char *id);
/* interface_a received the hello interface_b sent; publishes on change */
void lldp_lv_hello(struct lldp *l, struct json_object *intf_a, struct json_object *intf_b);
void lldp_lv_reaper(struct lldp *l, const struct lldp_topo *t);
const char *lldp_lv_state_str(enum lldp_lv_state s);
int lldp_lv_load(struct lldp *l);         /* stored liveness documents, at init */
int lldp_lv_store(struct lldp *l, const char *id, bool enabled, struct kytos_error *err);

/* loops.c: check and reap under l->mu; the *_actions (calls to topology) after it */
bool lldp_loop_check(struct lldp *l, const struct lldp_topo *t, struct json_object *intf_a,
                     struct json_object *intf_b, struct lldp_loop *new_loop);
void lldp_loop_new_actions(struct lldp *l, const struct lldp_loop *lp, bool intf_enabled);
void lldp_loop_reap(struct lldp *l, const struct lldp_topo *t, struct lldp_loop **out, size_t *n);
void lldp_loop_stopped_actions(struct lldp *l, const struct lldp_loop *lp);

/* rest.c */
int lldp_rest_init(struct lldp *l);

/* publish a copy-free event (content given away) */
void lldp_publish(struct lldp *l, const char *name, struct json_object *content);

#endif
