/* plugins/flow_manager/acks.c - what the switches tell flow_manager back,
 * and the event API (kytos.flow_manager.flows.install|delete).
 *
 * A barrier reply confirms every FlowMod sent before its barrier: the added
 * flows still pending (same flow_id) become "installed" and
 * kytos/flow_manager.flow.added is published for each, as Kytos'
 * _on_ofpt_barrier_reply does.  Flow stats confirm pending flows they list. */
#include "fm.h"
#include "req_util.h"

#include <stdlib.h>
#include <string.h>

/* flow_manager to itself: work a "direct" handler hands to a pool */
#define EV_CONFIRM "kytos/flow_manager.internal.confirm"
#define EV_ERROR_JOB "kytos/flow_manager.internal.error"

/* Publish content, built for this event alone, without the host's copy;
 * timeout_ms 0 where the caller must never wait (a "direct" handler, the
 * store's writer thread). */
static int give(kytos_napp *napp, const char *name, struct json_object *content, int timeout_ms)
{
    return kytos_event_publish_give(napp, name, content,
                                    &(struct kytos_pub_opts){
                                        .struct_size = sizeof(struct kytos_pub_opts),
                                        .timeout_ms = timeout_ms});
}

/* The dpid an event names ("dpid", "switch", "source", "destination",
 * as a string or an object with "dpid"/"id"). */
static const char *ev_dpid(struct json_object *c)
{
    static const char *const keys[] = {"dpid", "switch", "source", "destination", "datapath"};
    struct json_object *v, *w;
    size_t i;

    for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (!json_object_object_get_ex(c, keys[i], &v))
            continue;
        if (json_object_is_type(v, json_type_string))
            return json_object_get_string(v);
        if (json_object_is_type(v, json_type_object) &&
            ((json_object_object_get_ex(v, "dpid", &w) && json_object_is_type(w, json_type_string)) ||
             (json_object_object_get_ex(v, "id", &w) && json_object_is_type(w, json_type_string))))
            return json_object_get_string(w);
    }
    return NULL;
}

/* The flow a confirmation names, for flow.added: the stored flow read back
 * and put in of_core's as_dict() shape, as the FlowMod carried it (the
 * records keep ids only: nobody may listen).  New ref or NULL. */
static struct json_object *added_flow(struct fm_ctx *ctx, const char *dpid, const char *mid)
{
    struct json_object *doc = NULL, *out = NULL;
    struct fm_flow f;
    char err[256];
    const char *fid;

    if (kytos_store_get(ctx->napp, FM_COLL, mid, &doc, NULL) != KYTOS_OK)
        return NULL;
    fid = json_object_get_string(json_object_object_get(doc, "flow_id"));
    if (fm_flow_parse(json_object_object_get(doc, "flow"), FM_ADD, &f, err, sizeof err) == 0)
        out = fm_flow_as_dict_own(&f, dpid, fid);
    fm_flow_clear(&f);
    json_object_put(doc);
    return out;
}

struct fm_confirm_job *fm_confirm_job_new(struct fm_ctx *ctx, size_t n)
{
    struct fm_confirm_job *j = calloc(1, sizeof *j + n * sizeof j->it[0]);
    if (j)
        j->ctx = ctx;
    return j;
}

static void confirm_job_free(struct fm_confirm_job *j)
{
    size_t i;
    for (i = 0; i < j->n; i++) {
        free(j->it[i].id);
        json_object_put(j->it[i].ev);
    }
    free(j);
}

static void publish_added(struct fm_confirm_job *j)
{
    size_t i;
    int rc;

    for (i = 0; i < j->n; i++) {
        if (!j->it[i].ev)
            continue;
        /* on the store's writer thread: never wait for room (a full buffer,
         * or the host stopping, drops it) */
        if ((rc = give(j->ctx->napp, FM_EV_ADDED, j->it[i].ev, 0)) != KYTOS_OK)
            kytos_log(j->ctx->napp, KYTOS_LOG_WARNING, "flow.added dropped: %s", kytos_strerror(rc));
        j->it[i].ev = NULL;
    }
}

static void confirm_done(void *ud, int rc, const struct kytos_error *err);

/* The items of j whose flow was written since they were decided, dropped
 * (ctx->order held; see fm_store_ordered). */
static void drop_stale(struct fm_confirm_job *j)
{
    size_t i, k;

    for (i = k = 0; i < j->n; i++) {
        if (j->it[i].check &&
            !fm_latest_unchanged(j->ctx->pending, j->it[i].id, j->it[i].gen, j->it[i].evictions)) {
            free(j->it[i].id);
            json_object_put(j->it[i].ev);
            continue;
        }
        j->it[k++] = j->it[i];
    }
    j->n = k;
}

struct json_object *fm_installed_update(void)
{
    struct json_object *upd = json_object_new_object(), *set = json_object_new_object();
    char now[32];

    if (!upd || !set) {
        json_object_put(upd);
        json_object_put(set);
        return NULL;
    }
    fm_now_iso(now);
    kytos_json_add_lit(set, "state", json_object_new_string("installed"));
    kytos_json_add_lit(set, "updated_at", json_object_new_string(now));
    kytos_json_add_lit(upd, "$set", set);
    return upd;
}

/* Queue fm_installed_update() for every item of j, which the callback then
 * owns. */
int fm_confirm_submit_locked(struct fm_confirm_job *j)
{
    struct json_object *upd;
    struct kytos_write *ops;
    struct kytos_error err = {0};
    struct fm_ctx *ctx = j->ctx;
    size_t k;
    int rc;

    drop_stale(j);
    if (j->n == 0) {
        confirm_job_free(j);
        return KYTOS_ENOTFOUND;
    }
    upd = fm_installed_update();
    ops = calloc(j->n, sizeof *ops);
    if (!upd || !ops) {
        json_object_put(upd);
        free(ops);
        kytos_log(ctx->napp, KYTOS_LOG_ERROR, "marking flows installed: out of memory");
        confirm_job_free(j);
        return KYTOS_ENOMEM;
    }
    /* the store takes one reference per op: ours is the first one's */
    for (k = 0; k < j->n; k++) {
        ops[k].op = KYTOS_WRITE_PATCH;
        ops[k].id = j->it[k].id;
        ops[k].doc = k ? json_object_get(upd) : upd;
    }
    /* j is the callback's from here: it may be freed before this returns */
    rc = kytos_store_bulk_async_give(ctx->napp, FM_COLL, ops, j->n, confirm_done, j, &err);
    free(ops);
    if (rc != KYTOS_OK) {
        kytos_log(ctx->napp, KYTOS_LOG_ERROR, "marking flows installed failed: %s",
                  err.message[0] ? err.message : kytos_strerror(rc));
        confirm_job_free(j);
    }
    return rc;
}

/* j's marks: written now, or kept while flow writes are in flight
 * (marks.c) when may_keep.  j is freed or the callback's. */
static void queue_installed(struct fm_confirm_job *j, int may_keep)
{
    struct fm_ctx *ctx = j->ctx;
    size_t i, k;

    pthread_mutex_lock(&ctx->order);
    if (may_keep && fm_marks_keeping(ctx)) {
        drop_stale(j);
        for (i = k = 0; i < j->n; i++) {
            if (fm_marks_keep(ctx, j->it[i].id, j->it[i].ev) == 0) {
                free(j->it[i].id);
                continue;
            }
            j->it[k++] = j->it[i];   /* not kept: written now */
        }
        j->n = k;
        if (!j->n) {
            free(j);
            j = NULL;
        }
        fm_marks_kept(ctx);
    }
    if (j)
        fm_confirm_submit_locked(j);
    pthread_mutex_unlock(&ctx->order);
}

/* On the store's writer thread.  A flow deleted meanwhile fails the whole
 * bulk: then each flow is written again on its own, and the ones still
 * there are confirmed. */
static void confirm_done(void *ud, int rc, const struct kytos_error *err)
{
    struct fm_confirm_job *j = ud;
    struct fm_ctx *ctx = j->ctx;
    int chained = j->chained;
    size_t i;

    if (rc == KYTOS_OK) {
        publish_added(j);
    } else if (rc == KYTOS_ENOTFOUND && j->n > 1) {
        for (i = 0; i < j->n; i++) {
            struct fm_confirm_job *one = fm_confirm_job_new(j->ctx, 1);
            if (!one)
                break;
            one->n = 1;
            one->it[0] = j->it[i];
            j->it[i] = (struct fm_confirm_item){0};
            queue_installed(one, 0);
        }
    } else if (rc != KYTOS_ENOTFOUND) {
        kytos_log(j->ctx->napp, KYTOS_LOG_ERROR, "marking flows installed failed: %s",
                  err ? err->message : kytos_strerror(rc));
    }
    confirm_job_free(j);
    if (chained)
        fm_marks_chunk_done(ctx);
}

/* Mark installed the stored flows of recs ({"match_id","flow_id","xid"?,
 * "flow"?}) that are still pending with the same flow: a confirmation
 * whose xid is the flow's latest write is applied blindly, a stale one is
 * dropped, and one we cannot tell is checked against the store.  The write
 * is queued (no thread waits for it); kytos/flow_manager.flow.added is
 * published for each flow once it is committed, as Kytos does after its
 * update, with the record's flow or else the stored one.  Without
 * may_block (a "direct" handler) nothing is read from the store: -1 says
 * the records need it (then nothing was done), else 0. */
static int confirm(struct fm_ctx *ctx, const char *dpid, struct json_object *recs, int may_block)
{
    size_t i, n = json_object_array_length(recs);
    struct json_object *ids = NULL, *found = NULL, *doc;
    struct kytos_error err = {0};
    struct fm_confirm_job *job;
    const char **mids;
    signed char *verdict;
    uint32_t *gen, *evs;
    int want = kytos_event_wanted(ctx->napp, FM_EV_ADDED), rc = 0;

    if (n == 0)
        return 0;
    mids = calloc(n, sizeof *mids);
    verdict = calloc(n, 1);
    gen = calloc(n, sizeof *gen);
    evs = calloc(n, sizeof *evs);
    if (!mids || !verdict || !gen || !evs)
        goto out;
    for (i = 0; i < n; i++) {
        struct json_object *rec = json_object_array_get_idx(recs, i), *x;
        uint64_t xid;
        mids[i] = json_object_get_string(json_object_object_get(rec, "match_id"));
        fm_latest_snapshot(ctx->pending, mids[i], &gen[i], &evs[i]);   /* before any store read */
        verdict[i] = -1;
        if (mids[i] && json_object_object_get_ex(rec, "xid", &x) &&
            fm_json_uint(x, UINT32_MAX, &xid))
            verdict[i] = (signed char)fm_latest_check(ctx->pending, mids[i], (uint32_t)xid);
        if (!may_block && mids[i] &&
            (verdict[i] < 0 ||
             (verdict[i] == 1 && want && !json_object_object_get_ex(rec, "flow", NULL)))) {
            rc = -1;   /* needs the store */
            goto out;
        }
        if (verdict[i] < 0 && mids[i]) {
            if (!ids)
                ids = json_object_new_array();
            json_object_array_add(ids, json_object_new_string(mids[i]));
        }
    }
    if (ids && fm_store_settle(ctx, &err) != KYTOS_OK) {
        /* undecided: they stay pending until the next confirmation */
        kytos_log(ctx->napp, KYTOS_LOG_ERROR, "confirming flows of %s: %s", dpid, err.message);
        json_object_put(ids);
        ids = NULL;
    }
    if (ids) {
        /* the ones we cannot tell: pending in the store with the same
         * flow_id, read once every write queued before the generations
         * were read is committed (a newer one is seen by queue_installed) */
        struct json_object *filter = json_object_new_object(), *in = json_object_new_object();
        kytos_cursor *cur = NULL;
        json_object_object_add(in, "$in", ids);
        json_object_object_add(filter, "_id", in);
        json_object_object_add(filter, "state", json_object_new_string("pending"));
        found = json_object_new_object();
        if (kytos_store_find(ctx->napp, FM_COLL,
                             &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                                  .filter = filter},
                             &cur, &err) == KYTOS_OK) {
            while (kytos_cursor_next(cur, &doc, &err) == 1) {
                struct json_object *id = json_object_object_get(doc, "_id");
                if (json_object_is_type(id, json_type_string))
                    json_object_object_add(found, json_object_get_string(id),
                                           json_object_get(json_object_object_get(doc, "flow_id")));
                json_object_put(doc);
            }
            kytos_cursor_free(cur);
        } else {
            kytos_log(ctx->napp, KYTOS_LOG_ERROR, "reading pending flows failed: %s", err.message);
        }
        json_object_put(filter);
        for (i = 0; i < n; i++) {
            struct json_object *sfid;
            const char *fid = json_object_get_string(
                json_object_object_get(json_object_array_get_idx(recs, i), "flow_id"));
            if (verdict[i] >= 0 || !mids[i])
                continue;
            if (fid && json_object_object_get_ex(found, mids[i], &sfid) &&
                strcmp(json_object_get_string(sfid), fid) == 0) {
                verdict[i] = 1;
                json_object_object_del(found, mids[i]); /* once per _id */
            }
        }
    }
    if (!(job = fm_confirm_job_new(ctx, n)))
        goto out;
    for (i = 0; i < n; i++) {
        struct json_object *rec = json_object_array_get_idx(recs, i), *f;
        struct fm_confirm_item *it;
        if (verdict[i] != 1 || !(job->it[job->n].id = strdup(mids[i])))
            continue;
        it = &job->it[job->n++];
        it->gen = gen[i];
        it->evictions = evs[i];
        it->check = 1;
        if (want) {
            struct json_object *ev = json_object_new_object();
            if ((f = json_object_object_get(rec, "flow"))) {
                json_object_get(f);
                json_object_object_del(rec, "flow");   /* ours alone now */
            } else {
                f = added_flow(ctx, dpid, mids[i]);
            }
            json_object_object_add(ev, "datapath", json_object_new_string(dpid));
            json_object_object_add(ev, "flow", f);
            it->ev = ev;
        }
    }
    queue_installed(job, 1);
out:
    json_object_put(found);
    free(mids);
    free(verdict);
    free(gen);
    free(evs);
    return rc;
}

static int on_barrier_reply(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct fm_ctx *ctx = ud;
    struct json_object *c = kytos_event_content(ev), *x, *recs, *adds;
    const char *dpid = ev_dpid(c);
    uint64_t xid;
    size_t i, n;

    (void)napp;
    if (!json_object_object_get_ex(c, "xid", &x) || !fm_json_uint(x, UINT32_MAX, &xid))
        return KYTOS_OK;
    recs = fm_pending_take(ctx->pending, (uint32_t)xid, dpid);
    if (!recs)
        return KYTOS_OK;
    if (!dpid)
        dpid = "";
    /* only added flows get confirmed (cmd != "add" is skipped, as Kytos) */
    adds = json_object_new_array();
    n = json_object_array_length(recs);
    for (i = 0; i < n; i++) {
        struct json_object *r = json_object_array_get_idx(recs, i);
        const char *cmd = json_object_get_string(json_object_object_get(r, "command"));
        if (cmd && strcmp(cmd, "add") == 0)
            json_object_array_add(adds, json_object_get(r));
    }
    json_object_put(recs);   /* adds holds the only references now */
    if (confirm(ctx, dpid, adds, 0) != 0) {
        /* a record needs the store read: not on this thread (a direct
         * handler's publisher may be the store's writer), on a pool */
        struct json_object *job = json_object_new_object();
        json_object_object_add(job, "dpid", json_object_new_string(dpid));
        json_object_object_add(job, "recs", adds);
        if (give(ctx->napp, EV_CONFIRM, job, 0) != KYTOS_OK)
            kytos_log(ctx->napp, KYTOS_LOG_ERROR, "confirming flows of %s: queue full, they stay "
                      "pending until the next flow stats", dpid);
        return KYTOS_OK;
    }
    json_object_put(adds);
    return KYTOS_OK;
}

/* The confirmations on_barrier_reply could not finish without the store. */
static int on_confirm_job(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct json_object *c = kytos_event_content(ev), *recs;
    const char *dpid = json_object_get_string(json_object_object_get(c, "dpid"));

    (void)napp;
    if (dpid && json_object_object_get_ex(c, "recs", &recs) &&
        json_object_is_type(recs, json_type_array))
        confirm(ud, dpid, recs, 1);
    return KYTOS_OK;
}

/* kytos/of_core.flow_stats.received {"switch": dpid, "replies_flows" (or
 * "flows"): [{"id": flow_id, ...}]}: the pending flows of that switch the
 * stats list are installed. */
static int on_flow_stats(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct fm_ctx *ctx = ud;
    struct json_object *c = kytos_event_content(ev), *flows = NULL, *filter, *doc, *seen, *recs;
    const char *dpid = ev_dpid(c);
    struct kytos_error err = {0};
    kytos_cursor *cur = NULL;
    size_t i, n;

    (void)napp;
    if (!json_object_object_get_ex(c, "replies_flows", &flows))
        json_object_object_get_ex(c, "flows", &flows);
    if (!dpid || !json_object_is_type(flows, json_type_array))
        return KYTOS_OK;
    seen = json_object_new_object();
    n = json_object_array_length(flows);
    for (i = 0; i < n; i++) {
        struct json_object *f = json_object_array_get_idx(flows, i), *id = NULL;
        if (json_object_is_type(f, json_type_string))
            id = f;
        else if (!json_object_object_get_ex(f, "id", &id))
            json_object_object_get_ex(f, "flow_id", &id);
        if (json_object_is_type(id, json_type_string))
            json_object_object_add(seen, json_object_get_string(id), NULL);
    }
    filter = json_object_new_object();
    json_object_object_add(filter, "switch", json_object_new_string(dpid));
    json_object_object_add(filter, "state", json_object_new_string("pending"));
    if (kytos_store_find(ctx->napp, FM_COLL,
                         &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                              .filter = filter},
                         &cur, &err) != KYTOS_OK) {
        json_object_put(filter);
        json_object_put(seen);
        return KYTOS_OK;
    }
    json_object_put(filter);
    recs = json_object_new_array();
    while (kytos_cursor_next(cur, &doc, &err) == 1) {
        const char *fid = json_object_get_string(json_object_object_get(doc, "flow_id"));
        if (fid && json_object_object_get_ex(seen, fid, NULL)) {
            struct json_object *r = json_object_new_object();
            json_object_object_add(r, "match_id",
                                   json_object_get(json_object_object_get(doc, "_id")));
            json_object_object_add(r, "flow_id", json_object_new_string(fid));
            json_object_array_add(recs, r);
        }
        json_object_put(doc);
    }
    kytos_cursor_free(cur);
    confirm(ctx, dpid, recs, 1);
    json_object_put(recs);
    fm_cons_check(ctx, dpid, seen, flows);
    json_object_put(seen);
    return KYTOS_OK;
}

/* ---- the switch refused a FlowMod (Kytos' handle_errors) ---- */

static const char ev_error[] = "kytos/flow_manager.flow.error";

/* A deep copy of c's key (NULL when absent). */
static struct json_object *copy_of(struct json_object *c, const char *key)
{
    struct json_object *v, *out = NULL;
    if (json_object_object_get_ex(c, key, &v) && v && json_object_deep_copy(v, &out, NULL) != 0) {
        json_object_put(out);
        out = NULL;
    }
    return out;
}

/* {"datapath", "flow", "error_command", ...}: content of flow.error; the
 * flow is the one the error message carries, else the stored one. */
static struct json_object *error_content(struct fm_ctx *ctx, const struct fm_sent *s,
                                         struct json_object *msg)
{
    struct json_object *ev = json_object_new_object(), *flow = copy_of(msg, "flow");

    if (!flow && s->cmd == FM_ADD)
        flow = added_flow(ctx, s->dpid, s->match_id);
    json_object_object_add(ev, "datapath", json_object_new_string(s->dpid));
    json_object_object_add(ev, "flow", flow);
    json_object_object_add(ev, "error_command", json_object_new_string(fm_cmd_name(s->cmd)));
    return ev;
}

/* The FlowMod a switch's message (its "xid" and switch) is about, if we
 * sent it and have not heard of it yet: 1 and *s, else 0. */
static int sent_of(struct fm_ctx *ctx, struct json_object *c, struct fm_sent *s)
{
    struct json_object *x;
    uint64_t xid;

    return json_object_object_get_ex(c, "xid", &x) && fm_json_uint(x, UINT32_MAX, &xid) &&
           fm_sent_take(ctx->pending, (uint32_t)xid, ev_dpid(c), s);
}

/* An ofpt_error about a FlowMod we sent: the stored flow with that flow_id
 * is deleted and kytos/flow_manager.flow.error published, as Kytos does.
 * Errors about anything else are not ours.  This part runs where the
 * error is delivered ("direct"), before the barrier reply that follows
 * it: when the refused FlowMod is the flow's latest write, that reply
 * becomes stale and cannot mark it installed, and the generation given
 * here lets on_error_job delete the flow only if nothing wrote it since.
 * The store work goes to a pool (on_error_job). */
static int on_ofpt_error(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct fm_ctx *ctx = ud;
    struct json_object *c = kytos_event_content(ev), *job;
    struct fm_sent s;
    int latest = -1;   /* the refused add is the flow's latest write: 1, 0 not, -1 unknown */
    uint32_t gen, evictions, fresh;

    if (!sent_of(ctx, c, &s))
        return KYTOS_OK;
    /* as it is now: on_error_job deletes only if nothing wrote it since */
    fm_latest_snapshot(ctx->pending, s.match_id, &gen, &evictions);
    if (s.cmd == FM_ADD) {
        fresh = atomic_fetch_add(&ctx->xid, 1) + 1;
        if ((latest = fm_latest_replace_if(ctx->pending, s.match_id, s.xid, fresh)) == 1)
            gen = fresh;
    }
    job = json_object_new_object();
    json_object_object_add(job, "latest", json_object_new_int(latest));
    json_object_object_add(job, "gen", json_object_new_int64(gen));
    json_object_object_add(job, "ev", json_object_new_int64(evictions));
    json_object_object_add(job, "dpid", json_object_new_string(s.dpid));
    json_object_object_add(job, "match_id", json_object_new_string(s.match_id));
    json_object_object_add(job, "flow_id", json_object_new_string(s.flow_id));
    json_object_object_add(job, "command", json_object_new_int(s.cmd));
    json_object_object_add(job, "error_type", copy_of(c, "error_type"));
    json_object_object_add(job, "error_code", copy_of(c, "error_code"));
    json_object_object_add(job, "flow", copy_of(c, "flow"));
    if (give(napp, EV_ERROR_JOB, job, 0) != KYTOS_OK)
        kytos_log(napp, KYTOS_LOG_ERROR, "%s refused flow %s (xid %u): queue full, not handled",
                  s.dpid, s.flow_id, (unsigned)s.xid);
    return KYTOS_OK;
}

/* Delete the stored flow mid, refused with flow_id fid, unless another
 * write of it was queued since the refusal was decided (then that newer
 * write stands: deleting it would lose a write already answered 202).
 * The delete is queued in order (fm_store_ordered) under that check. */
static void delete_refused(struct fm_ctx *ctx, struct json_object *job, const char *mid,
                           const char *fid)
{
    struct kytos_write del = {.op = KYTOS_WRITE_DELETE, .id = mid};
    struct json_object *doc = NULL, *v;
    struct kytos_error err = {0};
    uint64_t gen64 = 0, ev64 = 0;
    int latest = -1, rc;
    const char *sfid;

    if (json_object_object_get_ex(job, "latest", &v))
        latest = json_object_get_int(v);
    if (!json_object_object_get_ex(job, "gen", &v) || !fm_json_uint(v, UINT32_MAX, &gen64) ||
        !json_object_object_get_ex(job, "ev", &v) || !fm_json_uint(v, UINT32_MAX, &ev64))
        return;   /* (not ours: any NApp may publish the job's name) */
    if (latest == 0 || (latest == 1 && gen64 == 0))
        return;   /* a newer write of the flow was queued before the error came */
    if (latest != 1) {
        /* unknown: decide from the store once every earlier write is in */
        if (fm_store_settle(ctx, &err) != KYTOS_OK) {
            kytos_log(ctx->napp, KYTOS_LOG_ERROR, "deleting refused flow %s: %s", fid, err.message);
            return;
        }
        rc = kytos_store_get(ctx->napp, FM_COLL, mid, &doc, NULL);
        sfid = rc == KYTOS_OK ? json_object_get_string(json_object_object_get(doc, "flow_id")) : NULL;
        rc = sfid && strcmp(sfid, fid) == 0;
        json_object_put(doc);
        if (!rc)
            return;
    }
    rc = fm_store_ordered_wait_if(ctx, &del, 1, (uint32_t)gen64, (uint32_t)ev64, &err);
    if (rc == 1)
        kytos_log(ctx->napp, KYTOS_LOG_INFO, "refused flow %s was written again: not deleted", fid);
    else if (rc != KYTOS_OK)
        kytos_log(ctx->napp, KYTOS_LOG_ERROR, "deleting refused flow %s failed: %s", fid, err.message);
}

static int on_error_job(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct fm_ctx *ctx = ud;
    struct json_object *c = kytos_event_content(ev), *out;
    struct fm_sent s = {0};
    const char *dpid = json_object_get_string(json_object_object_get(c, "dpid")),
               *mid = json_object_get_string(json_object_object_get(c, "match_id")),
               *fid = json_object_get_string(json_object_object_get(c, "flow_id"));

    /* our own event, but any NApp may publish that name: bounded */
    if (!dpid || !mid || !fid || strlen(dpid) >= sizeof s.dpid || strlen(mid) != 32 ||
        strlen(fid) != 32)
        return KYTOS_OK;
    s.cmd = json_object_get_int(json_object_object_get(c, "command"));
    strcpy(s.dpid, dpid);
    strcpy(s.match_id, mid);
    strcpy(s.flow_id, fid);
    out = error_content(ctx, &s, c);   /* before the delete: it may read the stored flow */
    json_object_object_add(out, "error_type", copy_of(c, "error_type"));
    json_object_object_add(out, "error_code", copy_of(c, "error_code"));
    kytos_log(napp, KYTOS_LOG_WARNING, "%s refused flow %s (%s): deleting it", dpid, fid,
              fm_cmd_name(s.cmd));
    delete_refused(ctx, c, mid, fid);
    give(napp, ev_error, out, 2000);
    return KYTOS_OK;
}

/* kytos/core.openflow.connection.error about a FlowMod we sent: the switch
 * was gone.  flow.error with "error_exception"; the stored flow stays (it
 * is sent again when the switch comes back, as Kytos keeps it).  Kytos
 * first retries three times with backoff; we report at once. */
static int on_connection_error(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct fm_ctx *ctx = ud;
    struct json_object *c = kytos_event_content(ev), *out;
    struct fm_sent s;

    if (!sent_of(ctx, c, &s))
        return KYTOS_OK;
    out = error_content(ctx, &s, c);
    json_object_object_add(out, "error_exception", copy_of(c, "exception"));
    give(napp, ev_error, out, 2000);
    return KYTOS_OK;
}

/* kytos.flow_manager.flows.(install|delete) {"dpid", "flow_dict": {"flows": [...]}, "force"} */
static int on_flows_event(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct fm_ctx *ctx = ud;
    const char *name = kytos_event_name(ev);
    struct json_object *c = kytos_event_content(ev), *fd, *flows;
    const char *dpid = ev_dpid(c);
    int cmd = (name && strstr(name, ".delete")) ? FM_DELETE : FM_ADD;
    struct fm_batch b = {0};
    struct fm_result res = {0};

    if (!dpid || !json_object_object_get_ex(c, "flow_dict", &fd) ||
        !json_object_object_get_ex(fd, "flows", &flows) ||
        !json_object_is_type(flows, json_type_array)) {
        kytos_log(napp, KYTOS_LOG_ERROR, "Error getting fields to install or remove Flows");
        return KYTOS_OK;
    }
    if (!(fm_switches_get(ctx->switches, dpid) & FM_SW_KNOWN))
        fm_switches_refresh(ctx->switches, napp, fm_switches_clock(), NULL);
    if (fm_flows_parse(flows, cmd, &b.flows, &b.n, &res) != 0) {
        kytos_log(napp, KYTOS_LOG_ERROR, "Error installing or deleting Flow through Kytos Event: %s",
                  res.text);
        return KYTOS_OK;
    }
    b.dpid = dpid;
    fm_install(ctx, cmd, &b, 1, fm_json_truthy(json_object_object_get(c, "force")), &res);
    if (res.status != 202)
        kytos_log(napp, KYTOS_LOG_WARNING, "flows event on %s: %u %s", dpid, res.status, res.text);
    fm_flows_free(b.flows, b.n);
    return KYTOS_OK;
}

int fm_acks_subscribe(struct fm_ctx *ctx)
{
    static const struct {
        const char *pattern;
        kytos_event_handler h;
        const char *pool;
    } subs[] = {
        /* short and never waits for a write (confirm queues it): on the
         * thread that delivers the reply, no hand-off */
        {"kytos/of_core\\.v0x04\\.messages\\.in\\.ofpt_barrier_reply", on_barrier_reply,
         "direct"},
        {"kytos/of_core\\.flow_stats\\.received", on_flow_stats, NULL},
        /* like the barrier reply, so that an error is handled before the
         * barrier that follows it */
        {".*.of_core.*.ofpt_error", on_ofpt_error, "direct"}, /* Kytos' pattern */
        {"kytos/core\\.openflow\\.connection\\.error", on_connection_error, NULL},
        {"kytos/flow_manager\\.internal\\.confirm", on_confirm_job, NULL},
        {"kytos/flow_manager\\.internal\\.error", on_error_job, NULL},
        {"kytos\\.flow_manager\\.flows\\.(install|delete)", on_flows_event, NULL},
        {"kytos\\.flow_manager\\.flows\\.single\\.(install|delete)", on_flows_event,
         "dynamic_single"},
    };
    size_t i;
    int rc;

    for (i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        rc = kytos_event_subscribe(ctx->napp, &(struct kytos_sub){
                                                  .struct_size = sizeof(struct kytos_sub),
                                                  .pattern = subs[i].pattern,
                                                  .handler = subs[i].h,
                                                  .ud = ctx,
                                                  .pool = subs[i].pool,
                                              });
        if (rc != KYTOS_OK)
            return rc;
    }
    return KYTOS_OK;
}
