/* plugins/mef_eline/me.h - kytos/mef_eline internals shared by its files.
 * The public contract (routes, storage, events) is described in main.c.
 *
 * Locking: struct me.lock guards the EVC map, the tag tables and the
 * topology snapshot pointer; each EVC's own lock serialises its deploy,
 * removal and updates (Kytos' evc.lock).  Order: evc->lock, then me->lock.
 * Only failover.c holds several EVC locks (a batch); nothing else holds two.
 * JSON documents are never shared between threads: GETs read the store,
 * except the plain listing, which joins texts (listing.c). */
#ifndef ME_ME_H
#define ME_ME_H

#include <kytos/kytos.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define ME_COLL "evcs"
#define ME_ID_LEN 14
#define ME_INTF_MAX 48
#define ME_DPID_MAX 40
#define ME_LINK_ID_MAX 72

/* ---- tags (tags.c) ---- */
enum me_tag_kind { ME_TAG_NONE, ME_TAG_VLAN, ME_TAG_ANY, ME_TAG_UNTAGGED, ME_TAG_RANGES };

struct me_range {
    uint16_t lo, hi;
};

struct me_tag {
    int kind;
    uint16_t vlan;
    struct me_range *r;   /* ME_TAG_RANGES, malloc'd, ordered and apart */
    size_t nr;
};

/* Parse a UNI "tag" object (NULL/absent = none).  0, or -1 with err. */
int me_tag_parse(struct json_object *tag, struct me_tag *t, char *err, size_t errlen);
void me_tag_clear(struct me_tag *t);
int me_tag_equal(const struct me_tag *a, const struct me_tag *b);
/* The stored form {"tag_type": "vlan", "value": ...(, "mask_list": [...])}; NULL for none. */
struct json_object *me_tag_json(const struct me_tag *t);
/* dl_vlan match values of the tag: ints or "value/mask" strings (one per
 * mask block), appended to out (a JSON array).  Nothing for ME_TAG_NONE. */
void me_tag_match_values(const struct me_tag *t, struct json_object *out);

/* Per-interface VLAN usage: UNI tags and S-VLANs share one space, as the
 * interfaces' available_tags do in Kytos.  Caller holds me->lock. */
struct me_tagtab;
struct me_tagtab *me_tagtab_new(void);
void me_tagtab_free(struct me_tagtab *t);
/* Reserve a UNI tag on intf for evc_id.  0, -1 conflict (err says which). */
int me_tagtab_use_uni(struct me_tagtab *t, const char *intf, const struct me_tag *tag,
                      char *err, size_t errlen);
void me_tagtab_free_uni(struct me_tagtab *t, const char *intf, const struct me_tag *tag);
/* The live EVC using intf with no tag at all (EPL), or NULL. */
const char *me_tagtab_epl_owner(struct me_tagtab *t, const char *intf);
void me_tagtab_set_epl_owner(struct me_tagtab *t, const char *intf, const char *evc_id);
/* Lowest VLAN free on both a and b, reserved on both; 0 when none. */
uint16_t me_tagtab_alloc_pair(struct me_tagtab *t, const char *a, const char *b);
/* The same, but not avoid (0: none) unless it is the only one free. */
uint16_t me_tagtab_alloc_pair_avoid(struct me_tagtab *t, const char *a, const char *b,
                                    uint16_t avoid);
/* Reserve a given VLAN on both (loading stored paths); 0 or -1 if taken. */
int me_tagtab_use_pair(struct me_tagtab *t, const char *a, const char *b, uint16_t vlan);
void me_tagtab_free_pair(struct me_tagtab *t, const char *a, const char *b, uint16_t vlan);
/* Hold (on) or give back a VLAN on every interface of switch dpid, for
 * another NApp (of_lldp's punt VLAN): refused to UNIs, never an S-VLAN.
 * 0, or -1 for a bad dpid/VLAN or no memory. */
int me_tagtab_reserve_switch(struct me_tagtab *t, const char *dpid, uint16_t vlan, bool on);

/* ---- topology snapshot (topo.c) ---- */
struct me_intf {
    char id[ME_INTF_MAX];
    char dpid[ME_DPID_MAX];
    uint32_t port;
    bool up;                 /* active, enabled */
};

struct me_link {
    char id[ME_LINK_ID_MAX];
    int a, b;                /* indexes of the endpoint interfaces */
    bool up;                 /* active, enabled, status UP */
};

struct me_snap {
    atomic_int refs;
    uint64_t gen;            /* topology's generation, 0 when not told */
    struct me_intf *intfs;   /* sorted by id */
    size_t nintfs;
    struct me_link *links;   /* sorted by id */
    size_t nlinks;
};

void me_snap_put(struct me_snap *s);
/* Build from topology's {"switches": {...}, "links": {...}} tree. */
struct me_snap *me_snap_build(struct json_object *tree);
const struct me_intf *me_snap_intf(const struct me_snap *s, const char *id);
const struct me_link *me_snap_link(const struct me_snap *s, const char *id);
/* The link joining two interfaces (either order), or NULL. */
const struct me_link *me_snap_link_between(const struct me_snap *s, const char *a, const char *b);
/* Shortest path by hops between two switches over up links, not using the
 * links in avoid[] (n_avoid).  Fills out[] with link indexes (max cap);
 * returns the hop count, 0 for the same switch, -1 when unreachable. */
struct me;
struct me_evc;
struct me_path;
/* paths.c: a dynamic path from kytos/pathfinder honouring the EVC's
 * primary/secondary constraints (e->lock held): 0 found (out), -1 none,
 * 1 pathfinder is not there. */
int me_paths_dynamic(struct me *me, const struct me_evc *e, const struct me_snap *snap,
                     const char *const *avoid, size_t n_avoid, struct me_path *out);
int me_snap_shortest(const struct me_snap *s, const char *from, const char *to,
                     const char *const *avoid, size_t n_avoid, int *out, size_t cap);

/* ---- paths ---- */
struct me_hop {
    char link[ME_LINK_ID_MAX];
    char a[ME_INTF_MAX], b[ME_INTF_MAX];   /* the link's endpoints (its own order) */
    uint16_t s_vlan;                       /* 0 = none reserved */
};

struct me_path {
    struct me_hop *h;
    size_t n;
};

void me_path_clear(struct me_path *p);
/* Copy links (by index) of a snapshot into a path without tags. */
int me_path_from_snap(struct me_path *p, const struct me_snap *s, const int *links, size_t n);
/* A request/stored path [{"id"?, "endpoint_a": {"id"}, "endpoint_b": {"id"}, "metadata"?}]. */
int me_path_from_json(struct me_path *p, struct json_object *arr, char *err, size_t errlen);
/* Stored form; with s_vlans when tags is true. */
struct json_object *me_path_json(const struct me_path *p, bool tags);
/* 1 if every link of p is up in s. */
int me_path_up(const struct me_path *p, const struct me_snap *s);
int me_path_uses(const struct me_path *p, const char *link_id);

/* ---- EVCs ---- */
struct me_uni {
    char intf[ME_INTF_MAX];
    char dpid[ME_DPID_MAX];
    uint32_t port;
    struct me_tag tag;
};

struct me_evc {
    char id[ME_ID_LEN + 1];
    pthread_mutex_t lock;
    struct json_object *doc;        /* user-visible fields; guarded by lock */
    struct me_uni a, z;
    struct me_path primary, backup, current;
    bool enabled, active, archived, dynamic, intra_deployed;
    unsigned stale_rounds;          /* consistency rounds in a row that found its
                                     * path down (failover.c); guarded by lock */
    /* the store refused its last state (retry.c); changed under lock,
     * atomic so that the retry can pick the marked EVCs without it */
    atomic_bool store_pending;
    uint64_t cookie;
    int64_t sb_priority;            /* -1 = not set */
    int64_t queue_id;               /* -2 = null */
    char *listing;                  /* the document last stored (listing.c); me->lock */
    size_t listing_len;
    struct me_evc *next;            /* map chain */
    atomic_int refs;                /* the map holds one */
};

struct me {
    kytos_napp *napp;
    pthread_mutex_t lock;
    struct me_evc **buckets;
    size_t nbuckets, count;
    struct me_tagtab *tags;
    struct me_snap *snap;
    pthread_mutex_t refresh_lock;
    int64_t last_refresh_ms;
    pthread_mutex_t sched_lock;     /* guards jobs; never held while taking an EVC lock */
    struct me_job *jobs;
    size_t njobs, capjobs;
    atomic_bool store_retry;        /* some EVC may be store_pending */
    unsigned store_retry_ms;        /* the setting store_retry_interval */
    /* some live EVC's stored document has no listing text (not loaded, or
     * out of memory): GET v2/evc/ reads the store (listing.c) */
    atomic_bool listing_partial;
    /* loader.c: the stored EVCs load on their own thread at start */
    pthread_t loader;
    bool loader_started;
    atomic_bool loaded;
    pthread_mutex_t load_mu;
    pthread_cond_t load_cv;
    struct me_gate *gates;          /* the routes' wrappers */
};

/* evc.c */
struct me_evc *me_evc_find(struct me *me, const char *id);    /* caller holds me->lock */
void me_evc_insert(struct me *me, struct me_evc *e);           /* caller holds me->lock */
/* Removes from the map (caller holds me->lock); drops the map's reference. */
void me_evc_remove(struct me *me, struct me_evc *e);
/* Find and take a reference (locks me->lock itself); NULL when unknown. */
struct me_evc *me_evc_get(struct me *me, const char *id);
void me_evc_ref(struct me_evc *e);
void me_evc_unref(struct me_evc *e);
/* The EVCs keep() takes, referenced, NULL-terminated.  me_evc_select
 * calls keep under me->lock only: keep may read only what is atomic (an
 * EVC's other fields change under its own lock).  me_evc_select_locked
 * calls keep under each EVC's lock, one at a time, with no other lock
 * held: the caller must hold no EVC lock. */
struct me_evc **me_evc_select(struct me *me, bool (*keep)(const struct me_evc *, void *), void *ud);
struct me_evc **me_evc_select_locked(struct me *me, bool (*keep)(const struct me_evc *, void *),
                                     void *ud);
void me_evc_release_all(struct me_evc **list);
/* Whether e has a circuit_scheduler job (its document may lack the list). */
bool me_evc_scheduled(const struct me_evc *e);
struct me_evc *me_evc_new(const char *id);   /* refs = 1 */
/* Fill runtime fields from e->doc (UNIs, tags, paths, flags).  0 or -1 err. */
int me_evc_load(struct me_evc *e, const struct me_snap *snap, char *err, size_t errlen);
/* Write runtime fields into e->doc and store it (put).  0 or negative;
 * on success e is no longer store_pending.  Caller holds e->lock. */
int me_evc_put(struct me *me, struct me_evc *e, struct kytos_error *err);
/* e->doc's current_path made null once written (e->current holds it). */
void me_evc_drop_path(struct me_evc *e);
/* A deep copy of e->doc with its current path (NULL: out of memory). */
struct json_object *me_evc_doc_copy(const struct me_evc *e);
/* me_evc_put of n EVCs (each locked by the caller) in one store bulk
 * write; 0, or negative when the store refused it (nothing written). */
int me_evc_put_many(struct me *me, struct me_evc *const *evcs, size_t n, struct kytos_error *err);
/* me_evc_put, logging a failure (for writes whose caller undoes or answers it). */
int me_evc_sync(struct me *me, struct me_evc *e);
/* "%Y-%m-%dT%H:%M:%S" UTC now. */
void me_now(char out[32]);
int64_t me_now_ms(void);
/* A fresh 14-hex id. */
void me_new_id(char out[ME_ID_LEN + 1]);

/* topo.c: current snapshot (new ref); mode 0 = as is (fetched when absent),
 * 1 = refreshed through topology first (at most every 50 ms), 2 = refreshed
 * now.  NULL when topology is unreachable. */
struct me_snap *me_snapshot(struct me *me, int mode);
/* Make s current (taking it), unless the current one is of a later
 * generation (then s is dropped): topology.updated events and GET v3/
 * replies arrive in no fixed order, and an older one must not undo what a
 * newer one showed. */
void me_snapshot_set(struct me *me, struct me_snap *s);

/* deploy.c; caller holds e->lock. */
/* Choose a path, reserve S-VLANs, install flows; true when deployed. */
bool me_deploy(struct me *me, struct me_evc *e, const char *const *avoid, size_t n_avoid);
/* me_deploy, each link of the new path avoiding the S-VLAN that link had
 * in old (Kytos' redeploy with try_avoid_same_s_vlan); old may be NULL. */
bool me_deploy_avoiding_tags(struct me *me, struct me_evc *e, const struct me_path *old);
/* Deploy e on exactly p, S-VLANs included (p is copied; e->doc untouched):
 * puts back, after me_undeploy, a deployment the store refused to change.
 * true when deployed; false when e is active or an S-VLAN is taken. */
bool me_deploy_on(struct me *me, struct me_evc *e, const struct me_path *p);
/* Remove installed flows and release the current path's S-VLANs. */
void me_undeploy(struct me *me, struct me_evc *e);
/* The parts of me_deploy / me_undeploy a batch (failover.c) runs itself,
 * sending the flows of many EVCs in one flow_manager call. */
struct me_pathcache;
/* A dynamic path: pathfinder's, or the shortest by hops without it.
 * 0 found (out), -1 none. */
int me_deploy_dynamic(struct me *me, const struct me_evc *e, const struct me_snap *snap,
                      const char *const *avoid, size_t n_avoid, struct me_path *out);
/* Choose e's path (pc may be NULL) and reserve its S-VLANs (avoiding old's
 * where it can); out stays empty for an intra-switch EVC.  0, or -1 (logged)
 * when e cannot be deployed.  e must be enabled, live and not active. */
int me_deploy_prepare(struct me *me, struct me_evc *e, const struct me_snap *snap,
                      const char *const *avoid, size_t n_avoid, const struct me_path *old,
                      struct me_pathcache *pc, struct me_path *out);
/* After the flows of path were sent: installed, path becomes e's current
 * path (taken over), true; else what may be left is deleted, the tags are
 * released and path cleared, false.  last_deployed_at is me_deploy_mark's. */
bool me_deploy_finish(struct me *me, struct me_evc *e, struct me_path *path, bool installed);
void me_deploy_mark(struct me_evc *e);
/* me_undeploy without the flow_manager call: the delete body it would
 * send (NULL when e had nothing deployed), for the caller to send. */
struct json_object *me_undeploy_local(struct me *me, struct me_evc *e);

/* pathcache.c: dynamic paths of one batch, one look-up per distinct
 * request (UNI interfaces and constraints).  Valid for one snapshot and one
 * avoid list: the batch's. */
struct me_pathcache *me_pathcache_new(void);
void me_pathcache_free(struct me_pathcache *pc);
int me_pathcache_dynamic(struct me_pathcache *pc, struct me *me, const struct me_evc *e,
                         const struct me_snap *snap, const char *const *avoid, size_t n_avoid,
                         struct me_path *out);
/* How many dynamic paths pc computed (misses): for tests and logs. */
size_t me_pathcache_misses(const struct me_pathcache *pc);

/* failover.c: a link went down: every active EVC on it is moved (or goes
 * down) in batches, each batch one flow_manager delete, one install and
 * one store write; events per EVC as before. */
void me_failover_link_down(struct me *me, const char *link);
/* The consistency round's part: active EVCs (not scheduled) whose current
 * path is not up in snap move the same way, without events. */
void me_failover_stale(struct me *me, const struct me_snap *snap);

/* flows.c */
/* Flows of an EVC over path p (or intra-switch when p is empty), as
 * flow_manager's flows_by_switch body {"<dpid>": {"flows": [...]}}. */
struct json_object *me_flows_build(const struct me_evc *e, const struct me_path *p);
/* POST (install) or DELETE through flow_manager in-process; by_switch is
 * taken (handed to flow_manager as it is).  HTTP status. */
unsigned me_flows_send(struct me *me, struct json_object *by_switch, bool install, bool force);
/* The switches an EVC's flows may be on (UNIs and path), as a delete body. */
struct json_object *me_flows_delete_body(const struct me_evc *e, const struct me_path *p);

/* events */
int me_events_subscribe(struct me *me);
/* lldp_vlan.c: kytos/of_lldp.vlan.used|released hold VLANs on a switch. */
int me_lldp_vlan_subscribe(struct me *me);
/* The periodic consistency round (setting deploy_evcs_interval, seconds). */
int me_consistency_start(struct me *me);
/* kytos/mef_eline.<what> {"evc_id","id","name","metadata","active","enabled",
 * "uni_a","uni_z"}; caller holds e->lock. */
void me_publish(struct me *me, const char *what, const struct me_evc *e);

/* retry.c: a write no request waits for (events, schedules); caller holds
 * e->lock.  When the store refuses it, e is marked and rewritten from a
 * timer until a write of e succeeds. */
void me_evc_save(struct me *me, struct me_evc *e);
/* The setting store_retry_interval (seconds, 0.01..60, default 1) into
 * me: KYTOS_OK, or KYTOS_EINVAL with the reason (malloc'd) in *errmsg. */
int me_retry_settings(struct me *me, char **errmsg);
/* The retry timer, every store_retry_ms. */
int me_retry_start(struct me *me);
/* At stop, after the timer: one more try, logging what stays unstored. */
void me_retry_last(struct me *me);

/* ---- schedules (schedule.c, sched_check.c) ---- */
/* One entry per stored schedule of a live EVC: the index from schedule id
 * to EVC, and when it runs next (wall clock, seconds since the epoch). */
struct me_job {
    char id[ME_ID_LEN + 1];
    char evc[ME_ID_LEN + 1];
    bool create;        /* action "create" (enable, deploy), else "remove" */
    int64_t due;        /* INT64_MAX: never (cron "frequency", or a date that ran) */
    int64_t every;      /* interval seconds; 0 for a one-shot date */
};

/* Code checks of a CircuitSchedule the spec passed: exactly one of date,
 * interval, frequency; action "create" or "remove".  0, or -1 with err. */
int me_sched_check(struct json_object *s, char *err, size_t errlen);
/* The stored form {id, date|interval|frequency, action} of a checked schedule. */
struct json_object *me_sched_stored(struct json_object *s, const char *id);
/* A request's circuit_scheduler array, checked, as stored (fresh ids).
 * NULL in = empty list.  0, or -1 with err (*out NULL). */
int me_sched_list(struct json_object *in, struct json_object **out, char *err, size_t errlen);
/* Interval seconds of a stored schedule; 0 when it has no valid interval. */
int64_t me_sched_interval(struct json_object *s);
/* RFC 3339 date-time ("Z" or an offset; none = UTC) to epoch seconds.  0 or -1. */
int me_sched_parse_date(const char *s, int64_t *out);

/* Index schedule s (stored form) of EVC evc_id.  at_load: a date already
 * past is taken as run (as Kytos' scheduler misses it after a restart);
 * else it runs at the next tick. */
void me_sched_track(struct me *me, const char *evc_id, struct json_object *s, bool at_load);
void me_sched_untrack(struct me *me, const char *sched_id);
void me_sched_untrack_evc(struct me *me, const char *evc_id);
/* Every schedule of the array. */
void me_sched_track_all(struct me *me, const char *evc_id, struct json_object *arr, bool at_load);
/* The EVC id holding schedule sched_id (copied to out); 0 or -1. */
int me_sched_owner(struct me *me, const char *sched_id, char out[ME_ID_LEN + 1]);
/* The runner: a timer checking due schedules once a second. */
int me_sched_start(struct me *me);

/* routes */
/* A NApp route: the table each rest_*.c registers with me_routes_add. */
struct me_route {
    const char *method, *path;
    kytos_handler h;
    uint32_t flags;
};
int me_routes_add(struct me *me, const struct me_route *routes, size_t n);
int me_rest_evc_register(struct me *me);
int me_rest_meta_register(struct me *me);
int me_rest_sched_register(struct me *me);

/* listing.c: the plain GET v2/evc/ from each EVC's last stored text. */
/* Keep e->doc's text as the listing shows it (caller holds e->lock, or e
 * is not shared yet): after each successful store write and at load. */
void me_listing_set(struct me *me, struct me_evc *e);
void me_listing_clear(struct me_evc *e);   /* e is being freed */
/* Answer GET v2/evc/ (live EVCs, no filter) from the texts. */
int me_listing_answer(struct me *me, kytos_req *req);

/* loader.c: load the stored EVCs on a thread (start); me_loader_join at stop. */
void me_loader_start(struct me *me);
void me_loader_join(struct me *me);
/* Returns once the stored EVCs are loaded. */
void me_wait_loaded(struct me *me);
/* A route handler that waits for the load, then runs h(req, me). */
int me_route_gate(struct me *me, kytos_handler h, kytos_handler *out_h, void **out_ud);
void me_route_gates_free(struct me *me);

/* Load every non-archived EVC from the store (start). */
void me_load_all(struct me *me);

/* A deep copy of a part of a request body, for an EVC document (rest_evc.c):
 * never a shared reference (json-c's reference counts are not atomic). */
struct json_object *me_own(struct json_object *v);

#endif
