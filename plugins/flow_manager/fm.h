/* plugins/flow_manager/fm.h - kytos/flow_manager internals shared by its
 * files.  The public contract (routes, events) is described in main.c. */
#ifndef FM_FM_H
#define FM_FM_H

#include <kytos/kytos.h>
#include <pthread.h>
#include <stdatomic.h>
#include "flow.h"
#include "switches.h"

#define FM_COLL "flows"
#define FM_EV_ADDED "kytos/flow_manager.flow.added"

struct fm_pending;
struct fm_cons;
struct fm_marks;

struct fm_ctx {
    kytos_napp *napp;
    struct fm_switches *switches;
    struct fm_pending *pending;
    atomic_uint xid;
    /* Every write to a stored flow's state goes through the store's
     * asynchronous queue (one FIFO), queued under this lock together with
     * the generation change (fm_store_ordered) or check (acks.c's
     * "installed"), so a confirmation decided before a DELETE or a newer
     * add commits before it, and one decided after sees it stale. */
    pthread_mutex_t order;
    struct fm_cons *cons;     /* consistency.c */
    struct fm_marks *marks;   /* marks.c */
    struct fm_purge *purge;   /* purge.c; NULL when deleted flows are kept */
};

/* ---- pending.c: barrier xid -> the flows it confirms ---- */
struct fm_pending *fm_pending_new(void);
void fm_pending_free(struct fm_pending *p);
/* Remember the flows (array of {"match_id","flow_id","command","xid","flow"?}; the
 * reference is taken) a barrier of dpid confirms.  A full table drops the
 * oldest entry, as Kytos bounds _pending_barrier_reply. */
void fm_pending_add(struct fm_pending *p, uint32_t xid, const char *dpid, struct json_object *flows);
/* Take them back (NULL when unknown or for another switch).  Caller owns. */
struct json_object *fm_pending_take(struct fm_pending *p, uint32_t xid, const char *dpid);

/* The latest write to each stored flow: every store write that changes a
 * flow's state records a fresh generation (the FlowMod's xid for adds).  A
 * confirmation whose xid is not the latest is stale and skipped; this spares
 * a store read per confirmation, and most writes when one flow is posted
 * again and again.  Bounded: a forgotten id answers "unknown". */
#define FM_LATEST_WAYS 8u   /* slots an id may take, in a set chosen by its digits */
void fm_latest_set(struct fm_pending *p, const char *match_id, uint32_t gen);
/* 1 current, 0 stale, -1 unknown. */
int fm_latest_check(struct fm_pending *p, const char *match_id, uint32_t gen);
/* The latest generation of match_id, 0 when unknown. */
uint32_t fm_latest_get(struct fm_pending *p, const char *match_id);
/* An add's FlowMod goes out with xid: it becomes the flow's latest write
 * only if the add's own store write (generation from) still is, or the id
 * was forgotten.  Else a newer write of the flow was queued meanwhile and
 * this FlowMod's confirmation is stale (the newer one's will do). */
void fm_latest_advance(struct fm_pending *p, const char *match_id, uint32_t from, uint32_t xid);
/* A write given generation gen was refused or failed: if it is still the
 * latest, the id becomes unknown (its confirmations check the store), so an
 * older write's confirmation is not taken for stale because of it. */
void fm_latest_forget(struct fm_pending *p, const char *match_id, uint32_t gen);
/* match_id's latest generation (0 unknown) and its slot's eviction count,
 * read together, for fm_latest_unchanged. */
void fm_latest_snapshot(struct fm_pending *p, const char *match_id, uint32_t *gen, uint32_t *ev);
/* 1 if no write to match_id was queued since fm_latest_snapshot() gave gen
 * and ev: the slot still holds gen, or, for gen 0 (unknown), still not the
 * id and no id lost the slot since (a newer write's record may have been
 * lost with it). */
int fm_latest_unchanged(struct fm_pending *p, const char *match_id, uint32_t gen, uint32_t ev);
/* fm_latest_check(expect), and on 1 the generation becomes gen, at once. */
int fm_latest_replace_if(struct fm_pending *p, const char *match_id, uint32_t expect, uint32_t gen);

/* Queue ops (kytos_store_bulk_async_give: the docs are taken) after giving each
 * op's id a fresh generation, under ctx->order; gens (n of them, or NULL)
 * receives them.  The same results. */
int fm_store_ordered(struct fm_ctx *ctx, const struct kytos_write *ops, size_t n,
                     kytos_store_done_fn done, void *ud, uint32_t *gens, struct kytos_error *err);
/* The same, waiting for the commit (pooled threads only, never the
 * store's writer). */
int fm_store_ordered_wait(struct fm_ctx *ctx, const struct kytos_write *ops, size_t n,
                          uint32_t *gens, struct kytos_error *err);
/* fm_store_ordered_wait of ops[0..n) if ops[0].id is unchanged since gen
 * and ev (fm_latest_unchanged, checked under ctx->order with the queueing):
 * 1 when it was not (nothing written, the docs put), else its result. */
int fm_store_ordered_wait_if(struct fm_ctx *ctx, const struct kytos_write *ops, size_t n, uint32_t gen,
                             uint32_t ev, struct kytos_error *err);
/* Of ops[0..n) (no docs), the ones whose id is unchanged since gens[k] and
 * evs[k] (fm_latest_unchanged), checked under ctx->order with the queueing,
 * queued as one write and waited for; *queued: how many (0: nothing
 * written, KYTOS_OK).  ops is reordered.  Pooled threads only. */
int fm_store_ordered_wait_unchanged(struct fm_ctx *ctx, struct kytos_write *ops, size_t n,
                                    const uint32_t *gens, const uint32_t *evs, size_t *queued,
                                    struct kytos_error *err);
/* Wait until every write queued so far is committed (a decision read from
 * the store then sees them all).  Pooled threads only. */
int fm_store_settle(struct fm_ctx *ctx, struct kytos_error *err);

/* The FlowMods sent, by xid (Kytos' _flow_mods_sent, bounded the same way:
 * the oldest are forgotten), for the switch's errors about them. */
struct fm_sent {
    uint32_t xid;
    int cmd;                  /* FM_ADD, FM_DELETE, FM_DELETE_STRICT */
    char dpid[48];
    char match_id[33], flow_id[33];
};
void fm_sent_add(struct fm_pending *p, uint32_t xid, const char *dpid, const char *match_id,
                 const char *flow_id, int cmd);
/* 1 and *out when xid was sent to dpid (NULL: any switch), once; else 0. */
int fm_sent_take(struct fm_pending *p, uint32_t xid, const char *dpid, struct fm_sent *out);
/* "add", "delete", "delete_strict" */
const char *fm_cmd_name(int cmd);

/* ---- acks.c: "installed" marks ---- */

/* A queued "installed" write and what to publish once it is committed. */
struct fm_confirm_item {
    char *id;                   /* the stored flow's _id */
    struct json_object *ev;     /* its flow.added content, or NULL */
    uint32_t gen;               /* its generation when decided */
    uint32_t evictions;         /* its slot's, with gen (fm_latest_snapshot) */
    int check;                  /* drop it if the flow was written since */
};

struct fm_confirm_job {
    struct fm_ctx *ctx;
    int chained;                /* marks.c's: its commit queues the next chunk */
    size_t n;
    struct fm_confirm_item it[];
};

/* Room for n items (none used yet), or NULL. */
struct fm_confirm_job *fm_confirm_job_new(struct fm_ctx *ctx, size_t n);
/* {"$set": {"state": "installed", "updated_at": now}}, or NULL. */
struct json_object *fm_installed_update(void);
/* Queue j's marks (ctx->order held), the items checked dropped when their
 * flow was written since; j is the callback's then.  KYTOS_OK when queued;
 * else j was freed (nothing left to write, or the store refused it). */
int fm_confirm_submit_locked(struct fm_confirm_job *j);

/* ---- marks.c: "installed" marks kept while flow writes are in flight ---- */
struct fm_marks *fm_marks_new(void);
void fm_marks_free(struct fm_marks *m);
/* The thread that writes them once flow writes are quiet; its stop (also
 * waits for a chunk of them in flight). */
int fm_marks_start(struct fm_ctx *ctx);
void fm_marks_stop(struct fm_ctx *ctx);
/* A flow write (fm_store_ordered) was queued (ctx->order held) / is
 * committed or refused (order_held: whether the caller holds ctx->order). */
void fm_marks_write_queued(struct fm_ctx *ctx);
void fm_marks_write_done(struct fm_ctx *ctx, int order_held);
/* With ctx->order held from here on.  Is a confirmation to be kept rather
 * than written now? */
int fm_marks_keeping(struct fm_ctx *ctx);
/* Keep id's mark (ev, its flow.added content or NULL, is taken); -1 when
 * it cannot be kept (as many kept as marks.c holds, an id too long, or out
 * of memory): write it now, ev still the caller's. */
int fm_marks_keep(struct fm_ctx *ctx, const char *id, struct json_object *ev);
/* After fm_marks_keep: the kept marks go if the flow writes are quiet. */
void fm_marks_kept(struct fm_ctx *ctx);
/* ops are being queued: the marks kept for their ids are dropped. */
void fm_marks_written(struct fm_ctx *ctx, const struct kytos_write *ops, size_t n);
/* A chunk's commit (the store's writer thread; takes ctx->order). */
void fm_marks_chunk_done(struct fm_ctx *ctx);
/* On the way out, after fm_marks_stop: what is kept, written now (no
 * flow.added). */
void fm_marks_flush_sync(struct fm_ctx *ctx);

/* ---- send.c: store then publish FlowMods ---- */

/* The outcome of an install/delete: HTTP status and Kytos' error text. */
struct fm_result {
    unsigned status;          /* 202 or an error */
    char text[2048];          /* the host's bound on an error text */
    int detail_is_dpid_404;   /* 404 {"response": "dpid not found."} */
};

/* Flows of one switch, checked. */
struct fm_batch {
    const char *dpid;
    struct fm_flow *flows;
    size_t n;
};

/* Check flows (a JSON array) for cmd into *out (n entries, fm_flows_free).
 * 0 or -1 with res filled (400). */
int fm_flows_parse(struct json_object *flows, int cmd, struct fm_flow **out, size_t *n,
                   struct fm_result *res);
void fm_flows_free(struct fm_flow *flows, size_t n);

/* Kytos' _install_flows for several switches: store (add: upsert pending;
 * delete: soft-delete matches), then, per connected switch, publish the
 * FlowMods, a barrier and flow.pending.  A disconnected switch gives 424
 * unless force (flows stay stored, as Kytos).  res->status 202 on success. */
void fm_install(struct fm_ctx *ctx, int cmd, const struct fm_batch *batches, size_t nb, int force,
                struct fm_result *res);

/* FlowMods (and a barrier) for b's flows to its switch when connected,
 * without storing them: the consistency check's resend. */
void fm_send_unstored(struct fm_ctx *ctx, int cmd, const struct fm_batch *b);

/* ---- consistency.c: Kytos' check_consistency (alien and missing flows) ---- */
struct fm_cons *fm_cons_new(kytos_napp *napp);
void fm_cons_free(struct fm_cons *c);
/* The switch (re)connected: its next flow stats are checked at once. */
void fm_cons_reset(struct fm_cons *c, const char *dpid);
/* dpid's complete flow stats arrived: switch_flows, their dicts (of_core's
 * replies_flows, borrowed), seen: {flow_id: null} of them. */
void fm_cons_check(struct fm_ctx *ctx, const char *dpid, struct json_object *seen,
                   struct json_object *switch_flows);

/* An add whose store write is queued (kytos_store_bulk_async_give): the
 * batches stay alive until release(a) runs, after reply(req, res) and the
 * request's finish, on the store's writer thread. */
struct fm_async_add {
    const struct fm_batch *batches;
    size_t nb;
    int force;
    int (*reply)(kytos_req *req, const struct fm_result *res);
    void (*release)(struct fm_async_add *a);
    void *owner;              /* for release */
};

/* 0: queued, the request will be answered and finished later (return
 * KYTOS_DEFERRED); -1: not queued, answer res now (a->release not called). */
int fm_install_add_async(struct fm_ctx *ctx, kytos_req *req, const struct fm_async_add *a,
                         struct fm_result *res);

/* ---- purge.c: soft-deleted flows removed once older than
 * purge_deleted_flows_after seconds (setting; 0 keeps them, as Kytos) ---- */
#define FM_PURGE_DEFAULT_S (7 * 86400)
int fm_purge_start(struct fm_ctx *ctx);   /* in start: reads the setting, adds the timer */
void fm_purge_free(struct fm_ctx *ctx);

/* Time as Kytos writes datetimes: "2026-07-01T12:00:00.123000". */
void fm_now_iso(char out[32]);
/* updated_at's form (fm_now_iso's) of t, whole seconds, UTC: "...T12:00:00.000000". */
void fm_iso_of(int64_t t, char out[32]);

/* ---- acks.c: confirmations from the (simulated) switches ---- */
int fm_acks_subscribe(struct fm_ctx *ctx);

/* ---- rest_*.c: route registration ---- */
int fm_rest_flows_register(struct fm_ctx *ctx);
int fm_rest_list_register(struct fm_ctx *ctx);

#endif
