/* plugins/topology/topo.h - kytos/topology: the in-memory model and the
 * functions shared by the files of this NApp.
 *
 * Locking.  Every change (event handler, REST write, link-up timer) is a
 * "write op": it holds t->write_lock for its whole length (changes are
 * serialised, and store writes happen in the order of the changes) and the
 * model rwlock t->rw in write mode only while it mutates memory.  Readers
 * of single entities (metadata GETs) take t->rw in read mode.  The bulk
 * GETs (v3/, switches, interfaces, links) never touch the model: they serve
 * the current snapshot (snapshot.c), an immutable refcounted set of bodies
 * rewritten at the end of each write op that changed something, before
 * its events go out (a NApp reacting to link_down reads the new state).
 * Events are queued during the op and published after every lock is
 * released, so a full event buffer never blocks a lock holder.  Store
 * writes run with write_lock only; an op undone after a failed write takes
 * t->rw again to put the model back (op.c).  An entity a delete takes out
 * is freed only once the op's writes are stored (removal.c).  The store
 * retry timer (retry.c) holds write_lock for its round, as an op does,
 * and takes t->rw only while it builds a document: the order is always
 * write_lock, then rw.
 *
 * kytos/topology.updated carries the whole topology.  It is coalesced: an
 * op that changed something publishes a small internal trigger
 * (kytos/topology.notify_topology_update) unless one is pending; its
 * handler publishes one updated event with the current snapshot.  A burst
 * of discovery events thus costs a few full copies, not one per event.
 */
#ifndef TOPO_TOPO_H
#define TOPO_TOPO_H

#include <kytos/kytos.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/evq.h"
#include "jsonw.h"
#include "linkid.h"

#define TOPO_OFPP_LOCAL 4294967294u

enum topo_status { TOPO_UP, TOPO_DOWN, TOPO_DISABLED };
enum topo_speed { TOPO_SPEED_NULL, TOPO_SPEED_INT, TOPO_SPEED_FLOAT };

struct topo_switch;
struct topo_link;

/* An inclusive VLAN range of an interface's tag_ranges. */
struct topo_range {
    int64_t lo, hi;
};

/* Special tags, in the order they were given. */
enum topo_special { TOPO_SPECIAL_UNTAGGED, TOPO_SPECIAL_ANY, TOPO_N_SPECIAL };

struct topo_intf {
    char *id;                  /* "<dpid>:<port>" */
    char *name;
    char *mac;                 /* NULL renders null */
    uint32_t port;
    enum topo_speed speed_kind;
    int64_t speed_int;
    double speed_float;
    bool nni, lldp, active, enabled;
    struct json_object *metadata;  /* object, owned */
    struct topo_link *link;    /* NULL: "" */
    struct topo_switch *sw;
    char *updated_at;
    size_t w_off, w_len;       /* its text in the snapshot being written */
    /* tags (tags.c); zeroed = Kytos' defaults */
    struct topo_range *tag_ranges;  /* NULL: [[1, 4094]] */
    size_t n_tag_ranges;
    bool special_set;               /* false: ["untagged", "any"] */
    uint8_t n_special;
    uint8_t special[TOPO_N_SPECIAL];
    char *tags_inserted_at;         /* interface_details' inserted_at */
};

struct topo_switch {
    char *dpid;
    char *connection;          /* "" when not connected */
    char *ofp_version;         /* NULL renders null */
    char *manufacturer, *serial, *hardware, *data_path;
    char *software;            /* NULL renders null */
    bool active, enabled;
    struct json_object *metadata;
    struct topo_intf **intfs;  /* insertion order */
    size_t n_intfs, cap_intfs;
    char *inserted_at, *updated_at;
};

struct topo_link {
    char id[TOPO_LINK_ID_LEN + 1];
    struct topo_intf *a, *b;   /* a sorts first */
    bool enabled, active;      /* own flags; endpoints count too */
    bool notified_up;          /* in Kytos' link_up set */
    bool seen_change;          /* in Kytos' link_status_change dict */
    int64_t hold_until_ms;     /* link-up timer: DOWN until then (0 = none) */
    int64_t notify_due_ms;     /* pending notify_link_up_if_status (0 = none) */
    char *notify_reason;
    struct json_object *metadata;
    char *inserted_at, *updated_at;
};

/* A GET body set, immutable once published.  When the last reference
 * goes, its buffers are kept for the next rebuild (no page faults on
 * megabytes of fresh memory per change in large topologies). */
struct topo_snapshot {
    atomic_int refs;
    struct topo *owner;
    uint64_t gen;             /* one more per rebuild (v3/generation); see main.c */
    struct jw topology, switches, links, interfaces;
};

/* A store write queued during an op (doc NULL = delete).  Written ones
 * stay listed (done) until the op ends, to be written again by an undo
 * (not a delete that found no document: there is none to put back). */
struct topo_write {
    const char *coll;
    char *id;
    struct json_object *doc;
    bool done, ok, absent;
};

/* An entity a delete took out of the model (removal.c): off every list but
 * alive until the op ends, then freed, or put back at idx on undo. */
enum topo_removed_kind { TOPO_RM_SWITCH, TOPO_RM_INTF, TOPO_RM_LINK };

struct topo_removed {
    enum topo_removed_kind kind;
    struct topo_switch *sw;
    struct topo_intf *intf;
    struct topo_link *link;
    size_t idx;
    struct topo_link *a_link, *b_link;  /* a link's endpoints' own, before */
    bool a_nni, b_nni;
};

/* What an op puts back in memory when its store writes fail (op.c). */
struct topo_undo {
    bool saved;
    uint8_t *flags;                 /* enabled flags of every entity */
    size_t n_flags;
    struct json_object **md_at, *md;  /* a metadata field and its copy */
    struct topo_intf *tags;         /* an interface whose tags are saved */
    struct topo_range *ranges;
    size_t n_ranges;
    bool special_set;
    uint8_t n_special;
    uint8_t special[TOPO_N_SPECIAL];
    struct topo_removed *removed;   /* in the order taken out */
    size_t n_removed, cap_removed;
};

struct topo_op {
    struct topo *t;
    struct napp_evq evq;
    struct topo_write *writes;
    size_t n_writes, cap_writes;
    int err;            /* the first failed (or dropped) store write */
    struct topo_undo undo;
    bool changed;       /* the snapshot must be rebuilt */
    bool quiet;         /* no kytos/topology.updated (Kytos sends none) */
    bool undone;        /* put back: its writes now are the undo's rewrite */
};

/* The collections of topology's documents (retry.c). */
enum topo_coll { TOPO_COLL_SWITCHES, TOPO_COLL_LINKS, TOPO_COLL_TAGS, TOPO_N_COLLS };

/* A document the store refused, to be written again (retry.c). */
struct topo_mark {
    enum topo_coll coll;
    char *id;
};

struct topo {
    kytos_napp *napp;
    pthread_mutex_t write_lock;
    pthread_rwlock_t rw;
    atomic_bool updated_pending;     /* a kytos/topology.updated is on its way */

    struct topo_switch **switches;   /* insertion order */
    size_t n_switches, cap_switches;
    struct topo_link **links;
    size_t n_links, cap_links;

    pthread_mutex_t snap_lock;
    struct topo_snapshot *snap;
    uint64_t snap_gen;               /* the last snapshot's gen (write_lock) */
    struct jw scratch;               /* interface texts, reused by each rebuild */
    pthread_mutex_t spare_lock;
    struct topo_snapshot *spare;     /* a released snapshot, buffers kept */

    /* refused store writes (retry.c): marks under write_lock, one per
     * (collection, id); store_retry is set while any is */
    struct topo_mark *marks;
    size_t n_marks, cap_marks;
    atomic_bool store_retry;
    unsigned retry_skip, retry_backoff;   /* the timer's alone (retry.c) */

    /* settings */
    int64_t link_up_timer_ms;
    bool enable_by_default;
    unsigned store_retry_ms;

    /* start-time data */
    struct json_object *failed_switches, *failed_links;
    atomic_int pending_timers;       /* links with hold/notify pending */
};

/* ---- model.c ---- */
struct topo_switch *topo_switch_find(struct topo *t, const char *dpid);
struct topo_switch *topo_switch_add(struct topo *t, const char *dpid);
struct topo_intf *topo_intf_find(struct topo_switch *sw, uint32_t port);
struct topo_intf *topo_intf_find_id(struct topo *t, const char *intf_id);
struct topo_intf *topo_intf_add(struct topo_switch *sw, uint32_t port);
/* The link that has the interface as an endpoint: its own, else a stale
 * one left by re-cabling; NULL when none. */
struct topo_link *topo_intf_any_link(struct topo *t, const struct topo_intf *intf);
/* Remove and free an interface; false (nothing done) while a link has it
 * as an endpoint. */
bool topo_intf_remove(struct topo *t, struct topo_intf *intf);
struct topo_link *topo_link_find(struct topo *t, const char *id);
/* Link of the two interfaces, created when missing (*created). */
struct topo_link *topo_link_get_or_create(struct topo *t, struct topo_intf *x,
                                          struct topo_intf *y, bool *created);
void topo_link_remove(struct topo *t, struct topo_link *l);
void topo_model_free(struct topo *t);
/* Undoable deletes (removal.c): detach takes an entity out of its list,
 * links and pointers to it untouched, and returns the index it had (the
 * list's length when absent); attach puts it back there with no memory
 * needed (lists never shrink: the room is still there). */
size_t topo_switch_detach(struct topo *t, struct topo_switch *sw);
void topo_switch_attach(struct topo *t, struct topo_switch *sw, size_t idx);
size_t topo_intf_detach(struct topo_intf *intf);
void topo_intf_attach(struct topo_intf *intf, size_t idx);
size_t topo_link_detach(struct topo *t, struct topo_link *l);
void topo_link_attach(struct topo *t, struct topo_link *l, size_t idx);
void topo_switch_free(struct topo_switch *sw);      /* and its interfaces */
void topo_intf_free(struct topo_intf *intf);
void topo_link_free(struct topo *t, struct topo_link *l);  /* detached */

bool topo_link_is_enabled(const struct topo_link *l);
bool topo_link_is_active(const struct topo_link *l);
/* A link whose interfaces do not both point back at it (one was re-cabled
 * to another link): DOWN, status_reason "mismatched_link", as Kytos'
 * topology reports it. */
bool topo_link_mismatched(const struct topo_link *l);
enum topo_status topo_link_status(const struct topo_link *l, int64_t now_ms);
bool topo_link_liveness_down(const struct topo_link *l);  /* of_lldp's hook */
enum topo_status topo_switch_status(const struct topo_switch *s);
enum topo_status topo_intf_status(const struct topo_intf *i);
const char *topo_status_str(enum topo_status s);

void topo_set_str(char **dst, const char *src);  /* strdup, NULL stays NULL */
char *topo_now_iso(void);                        /* "2026-07-01T12:00:00.123000", malloc'd */
int64_t topo_now_ms(void);                       /* CLOCK_MONOTONIC */

/* ---- view.c: Kytos as_dict() shapes, fresh trees (new refs) ---- */
struct json_object *topo_intf_dict(const struct topo_intf *i);
struct json_object *topo_switch_dict(const struct topo_switch *s, bool with_latlng, size_t idx);
struct json_object *topo_link_dict(const struct topo_link *l, int64_t now_ms);

/* ---- snapshot.c ---- */
/* Write a snapshot from the model (caller holds write_lock) and swap it in.
 * false on allocation failure (the old snapshot stays). */
bool topo_snapshot_rebuild(struct topo *t);
/* GET v3/'s body parsed from the current snapshot, with the snapshot's
 * generation beside it: {"topology": {"switches": ..., "links": ...},
 * "generation": n}, the content of kytos/topology.updated and
 * .topology_loaded (Kytos' is {"topology": ...}; a NApp that also GETs v3/
 * compares the generations to drop an event older than what it read).
 * New ref, NULL on failure. */
struct json_object *topo_snapshot_event(struct topo *t);
struct topo_snapshot *topo_snapshot_get(struct topo *t);
void topo_snapshot_put(struct topo_snapshot *s);
void topo_snapshot_free_all(struct topo *t);

/* ---- op.c: write ops ---- */
void topo_op_begin(struct topo_op *op, struct topo *t);
void topo_op_lock_model(struct topo_op *op);    /* rw write lock */
void topo_op_unlock_model(struct topo_op *op);
/* Store writes, snapshot rebuild, unlock, publish.  Returns 0 or the first
 * store error (a write dropped for lack of memory is KYTOS_ENOMEM).  When
 * a write failed and the op saved what it changes (topo_op_save_*,
 * topo_op_remove_*), the model is put back first (model locked again),
 * deleted entities included (the same objects, where they were); the
 * documents the op's other writes stored or deleted are written again as
 * memory has them now, and the queued events are dropped: no event and no
 * kytos/topology.updated goes out.  So a delete the store refuses leaves
 * the entity in place, as in Kytos, which deletes from the database first
 * and from memory only after.  A refused write that nothing puts back (an
 * op that saved nothing, or the rewrite) is retried until stored (retry.c). */
int topo_op_end(struct topo_op *op);
/* Record the op's first error (the one topo_op_end returns). */
void topo_op_fail(struct topo_op *op, int rc);
/* Save, before changing them (model locked), what an op changes, to be
 * undone by topo_op_end.  false: out of memory, nothing saved, op->err set
 * (the caller changes nothing).  One kind of each per op. */
bool topo_op_save_flags(struct topo_op *op);    /* enabled flags, notified link_up */
bool topo_op_save_metadata(struct topo_op *op, struct json_object **md);
bool topo_op_save_tags(struct topo_op *op, struct topo_intf *i);
/* Deletes (model locked, removal.c): take the entity out of the model, to
 * be freed by topo_op_end once the store writes succeeded, or put back by
 * its undo.  A link leaves its endpoints first (those still on it: link
 * "", nni false).  A switch on which a link ends, or an interface some
 * link has as an endpoint, is refused (false, nothing done; the callers
 * check first and answer 409).  false on lack of memory too, op->err set. */
bool topo_op_remove_switch(struct topo_op *op, struct topo_switch *sw);
bool topo_op_remove_intf(struct topo_op *op, struct topo_intf *i);
bool topo_op_remove_link(struct topo_op *op, struct topo_link *l);
/* topo_op_end's: put every removed entity back (model locked), or free them. */
void topo_op_restore_removed(struct topo_op *op);
void topo_op_free_removed(struct topo_op *op);
#define TOPO_NOTIFY_UPDATE "kytos/topology.notify_topology_update"
int topo_op_subscribe(struct topo *t);
/* Queue an event (takes content). */
void topo_op_event(struct topo_op *op, const char *name, struct json_object *content);
void topo_op_persist_switch(struct topo_op *op, struct topo_switch *sw);
void topo_op_persist_link(struct topo_op *op, struct topo_link *l);
void topo_op_delete_doc(struct topo_op *op, const char *coll, const char *id);
/* Queue the interface's interface_details document. */
void topo_op_persist_tags(struct topo_op *op, struct topo_intf *i);

/* ---- retry.c: refused store writes, written again until stored ---- */
/* run_writes' outcome of one write (caller holds write_lock): a refused
 * one is marked (logged once), a stored one clears its mark. */
void topo_retry_refused(struct topo *t, const char *coll, const char *id, const char *why);
void topo_retry_stored(struct topo *t, const char *coll, const char *id);
/* The timer (every store_retry_ms) writing the marked entities' current
 * documents (a delete for those gone from memory). */
int topo_retry_start(struct topo *t);
/* At stop, once the timer is gone: one last round, then topo_retry_free. */
void topo_retry_last(struct topo *t);
void topo_retry_free(struct topo *t);

/* ---- linkstate.c: Kytos' link up/down notification rules ---- */
/* notify_link_status_change: link_up/link_down when the status crossed. */
void topo_link_eval(struct topo_op *op, struct topo_link *l, const char *reason);
/* notify_link_up_if_status: after link_up_timer, link_up if UP. */
void topo_link_notify_later(struct topo_op *op, struct topo_link *l, const char *reason);
/* A link became active: start the link-up timer hold. */
void topo_link_hold(struct topo_op *op, struct topo_link *l);
/* handle_link_up / handle_link_down for an interface. */
void topo_handle_link_up(struct topo_op *op, struct topo_intf *i);
void topo_handle_link_down(struct topo_op *op, struct topo_intf *i);
/* Timer callback (app pool). */
void topo_linkstate_tick(kytos_napp *napp, void *ud);

/* ---- persist.c ---- */
struct json_object *topo_switch_doc(const struct topo_switch *s);
struct json_object *topo_link_doc(const struct topo_link *l);
/* Load switches and links from the store (init).  0 or a negative status
 * with *errmsg set (malloc'd). */
int topo_restore(struct topo *t, char **errmsg);

/* ---- tags.c: interface tag ranges and special tags ---- */
#define TOPO_TAGS_COLL "interface_details"
/* Kytos' get_tag_ranges on a JSON array: 0 and *out (malloc'd, n > 0), or
 * -1 with Kytos' message in err. */
int topo_tags_parse_ranges(struct json_object *arr, struct topo_range **out, size_t *n,
                           char *err, size_t errlen);
/* get_special_tags: 0 and the codes in out[], or -1 with err. */
int topo_tags_parse_special(struct json_object *arr, uint8_t out[TOPO_N_SPECIAL], uint8_t *n,
                            char *err, size_t errlen);
/* Replace the interface's ranges (takes r; NULL resets to the default). */
void topo_tags_set_ranges(struct topo_intf *i, struct topo_range *r, size_t n);
/* {"available_tags", "tag_ranges", "special_tags", "special_available_tags"} */
struct json_object *topo_tags_dict(const struct topo_intf *i);
struct json_object *topo_tags_doc(struct topo_intf *i);
/* Apply a stored interface_details document (restore). */
void topo_tags_load(struct topo *t, struct json_object *doc, struct json_object *unused);
int topo_routes_tags(struct topo *t);

/* ---- events.c ---- */
int topo_events_subscribe(struct topo *t);

/* ---- rest_util.c ---- */
int topo_reply_str(kytos_req *req, unsigned status, const char *text);
/* 500 for a change the store refused (rc from topo_op_end). */
int topo_reply_store_error(kytos_req *req, int rc);
/* The metadata body of a POST: a JSON object (new ref), or NULL after
 * answering 415/400 as Kytos' _get_metadata does. */
struct json_object *topo_metadata_body(kytos_req *req);
/* Split "<dpid>:<port>" at the last ':' as Kytos does (dpid may be "").
 * *port_ok is false when the port is not a decimal number. */
void topo_split_intf_id(const char *id, char *dpid, size_t cap, uint32_t *port, bool *port_ok);
/* Installed flows of a switch from kytos/flow_manager (GET v2/stored_flows).
 * Returns the array (new ref, may be empty) or NULL with *err set (a
 * malloc'd text).  No flow_manager loaded counts as no flows. */
struct json_object *topo_switch_flows(struct topo *t, const char *dpid, char **err);
/* {"<entity>": dict, "metadata": copy} for the metadata events. */
struct json_object *topo_metadata_event(const char *entity, struct json_object *dict,
                                        struct json_object *metadata);

/* ---- rest_*.c ---- */
/* GET v3/ carries the snapshot's generation in this header; GET
 * v3/generation answers {"generation": n} (kytos-c's own). */
#define TOPO_GEN_HEADER "X-Kytos-Topology-Generation"

/* A route of a rest_*.c table, registered by topo_routes_add (rest_get.c). */
struct topo_route {
    const char *method, *path;
    kytos_handler fn;
    uint32_t flags;
};
int topo_routes_add(struct topo *t, const struct topo_route *routes, size_t n);
int topo_routes_get(struct topo *t);
int topo_routes_switch(struct topo *t);
int topo_routes_intf(struct topo *t);
int topo_routes_link(struct topo *t);

#endif
