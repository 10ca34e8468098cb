/* plugins/flow_manager/send.c - Kytos' _install_flows: store first, then
 * publish one FlowMod event per flow and a barrier per switch.
 *
 * Nothing here speaks OpenFlow: a FlowMod is the event
 * kytos/flow_manager.messages.out.ofpt_flow_mod (see main.c for its
 * content), which the switch side (simnet) turns into an installed flow and
 * confirms with a barrier reply. */
#include "fm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static const char *const cmd_names[] = {"add", "delete", "delete_strict"};

const char *fm_cmd_name(int cmd)
{
    return cmd >= 0 && cmd < 3 ? cmd_names[cmd] : "unknown";
}

/* Kytos' datetime.utcnow().isoformat(): "2026-11-30T02:56:37.644748".
 * Called twice per flow sent: the seconds' part is formatted once per
 * second per thread, the microseconds by hand. */
void fm_now_iso(char out[32])
{
    static _Thread_local time_t last = -1;
    static _Thread_local char head[24];   /* "YYYY-MM-DDTHH:MM:SS." */
    static _Thread_local size_t hlen;
    struct timeval tv;
    long us;
    int k;

    gettimeofday(&tv, NULL);
    if (tv.tv_sec != last) {
        struct tm tm;
        char tmp[96];
        gmtime_r(&tv.tv_sec, &tm);
        snprintf(tmp, sizeof tmp, "%04d-%02d-%02dT%02d:%02d:%02d.", tm.tm_year + 1900, tm.tm_mon + 1,
                 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        hlen = strlen(tmp) < sizeof head - 1 ? strlen(tmp) : sizeof head - 1;
        memcpy(head, tmp, hlen);
        last = tv.tv_sec;
    }
    memcpy(out, head, hlen);
    us = (long)tv.tv_usec;
    for (k = 5; k >= 0; k--, us /= 10)
        out[hlen + (size_t)k] = (char)('0' + us % 10);
    out[hlen + 6] = '\0';
}

void fm_iso_of(int64_t t, char out[32])
{
    time_t tt = (time_t)t;
    struct tm tm;

    gmtime_r(&tt, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%S.000000", &tm);
}

int fm_flows_parse(struct json_object *flows, int cmd, struct fm_flow **out, size_t *n,
                   struct fm_result *res)
{
    size_t i, len = json_object_array_length(flows);
    struct fm_flow *fs = calloc(len ? len : 1, sizeof *fs);

    *out = NULL;
    *n = 0;
    if (!fs) {
        res->status = 500;
        snprintf(res->text, sizeof res->text, "out of memory");
        return -1;
    }
    for (i = 0; i < len; i++) {
        struct json_object *src = json_object_array_get_idx(flows, i);
        /* of_core's from_dict comes first, then what packing checks */
        if (fm_flow_from_dict_check(src, res->text, sizeof res->text) != 0) {
            res->status = 400;
            fm_flows_free(fs, i);
            return -1;
        }
        if (fm_flow_parse(src, cmd, &fs[i], res->text, sizeof res->text) != 0) {
            res->status = 400;
            fm_flows_free(fs, i + 1);
            return -1;
        }
    }
    *out = fs;
    *n = len;
    return 0;
}

void fm_flows_free(struct fm_flow *flows, size_t n)
{
    size_t i;
    if (!flows)
        return;
    for (i = 0; i < n; i++)
        fm_flow_clear(&flows[i]);
    free(flows);
}

static void set_error(struct fm_result *res, unsigned status, const char *msg,
                      const struct kytos_error *err)
{
    res->status = status;
    snprintf(res->text, sizeof res->text, "%s%s%s", msg, err && err->message[0] ? ": " : "",
             err ? err->message : "");
}

/* add: one upsert of every (switch, flow), state pending, as
 * FlowController.upsert_flows does.  The ops (*total of them) and their ids
 * are allocated; 0 or -1 with res filled. */
static int add_ops(const struct fm_batch *bs, size_t nb, const char *now, struct kytos_write **out,
                   char (**idsp)[33], size_t *total, struct fm_result *res)
{
    size_t k = 0, i, j;
    struct kytos_write *ops;
    char (*ids)[33];

    *total = 0;
    for (i = 0; i < nb; i++)
        *total += bs[i].n;
    ops = calloc(*total ? *total : 1, sizeof *ops);
    ids = calloc(*total ? *total : 1, sizeof *ids);
    if (!ops || !ids) {
        free(ops);
        free(ids);
        set_error(res, 500, "out of memory", NULL);
        return -1;
    }
    /* what every op says alike is one object for the whole bulk: the
     * store takes one reference per use (as store_delete's shared update),
     * and one thread, its writer, puts them */
    struct json_object *ins = json_object_new_object(), *pending = json_object_new_string("pending"),
                       *stamp = json_object_new_string(now);
    kytos_json_add_lit(ins, "inserted_at", json_object_get(stamp));
    for (i = 0; i < nb; i++) {
        for (j = 0; j < bs[i].n; j++, k++) {
            char fid[33];
            struct json_object *upd = json_object_new_object(), *set = json_object_new_object();
            fm_flow_ids(&bs[i].flows[j], bs[i].dpid, ids[k], fid);
            kytos_json_add_lit(set, "id", json_object_new_string(ids[k]));
            kytos_json_add_lit(set, "switch", json_object_new_string(bs[i].dpid));
            kytos_json_add_lit(set, "flow_id", json_object_new_string(fid));
            kytos_json_add_lit(set, "state", json_object_get(pending));
            kytos_json_add_lit(set, "flow", fm_flow_doc(&bs[i].flows[j]));
            kytos_json_add_lit(set, "updated_at", json_object_get(stamp));
            kytos_json_add_lit(upd, "$set", set);
            kytos_json_add_lit(upd, "$setOnInsert", json_object_get(ins));
            ops[k].op = KYTOS_WRITE_PATCH;
            ops[k].id = ids[k];
            ops[k].doc = upd;
            ops[k].flags = KYTOS_STORE_UPSERT;
        }
    }
    json_object_put(ins);
    json_object_put(pending);
    json_object_put(stamp);
    *out = ops;
    *idsp = ids;
    return 0;
}

/* A flow write in flight, for marks.c. */
struct flow_write {
    struct fm_ctx *ctx;
    kytos_store_done_fn done;
    void *ud;
};

static void flow_write_done(void *p, int rc, const struct kytos_error *err)
{
    struct flow_write fw = *(struct flow_write *)p;

    free(p);
    fw.done(fw.ud, rc, err);   /* may send FlowMods, whose barriers come back now */
    fm_marks_write_done(fw.ctx, 0);
}

/* fm_store_ordered's work; the caller holds ctx->order. */
static int ordered_locked(struct fm_ctx *ctx, const struct kytos_write *ops, size_t n,
                          kytos_store_done_fn done, void *ud, uint32_t *gens, struct kytos_error *err)
{
    struct flow_write *fw = malloc(sizeof *fw);
    uint32_t first;
    size_t k;
    int rc;

    if (!fw) {
        for (k = 0; k < n; k++)
            json_object_put(ops[k].doc);   /* taken, as the queue would have */
        if (err) {
            err->code = KYTOS_ENOMEM;
            snprintf(err->message, sizeof err->message, "out of memory");
        }
        return KYTOS_ENOMEM;
    }
    *fw = (struct flow_write){ctx, done, ud};
    /* a confirmation decided before now no longer applies (acks.c), nor
     * does one kept for later (marks.c) */
    first = atomic_fetch_add(&ctx->xid, (unsigned)n) + 1;
    for (k = 0; k < n; k++) {
        fm_latest_set(ctx->pending, ops[k].id, first + (uint32_t)k);
        if (gens)
            gens[k] = first + (uint32_t)k;
    }
    fm_marks_write_queued(ctx);
    rc = kytos_store_bulk_async_give(ctx->napp, FM_COLL, ops, n, flow_write_done, fw, err);
    if (rc == KYTOS_OK) {
        fm_marks_written(ctx, ops, n);   /* the ids are still ours; only a queued write drops */
    } else {
        fm_marks_write_done(ctx, 1);
        free(fw);
    }
    /* refused: nothing was written (the ids stay the caller's) */
    for (k = 0; rc != KYTOS_OK && k < n; k++)
        fm_latest_forget(ctx->pending, ops[k].id, first + (uint32_t)k);
    return rc;
}

int fm_store_ordered(struct fm_ctx *ctx, const struct kytos_write *ops, size_t n,
                     kytos_store_done_fn done, void *ud, uint32_t *gens, struct kytos_error *err)
{
    int rc;

    pthread_mutex_lock(&ctx->order);
    rc = ordered_locked(ctx, ops, n, done, ud, gens, err);
    pthread_mutex_unlock(&ctx->order);
    return rc;
}

/* The adds' store write failed: their generations must not make an older
 * add's confirmation stale (see fm_latest_forget). */
static void forget_adds(struct fm_ctx *ctx, const struct fm_batch *bs, size_t nb, const uint32_t *gens)
{
    size_t i, j, k = 0;

    for (i = 0; gens && i < nb; i++)
        for (j = 0; j < bs[i].n; j++, k++) {
            char mid[33], fid[33];
            fm_flow_ids(&bs[i].flows[j], bs[i].dpid, mid, fid);
            fm_latest_forget(ctx->pending, mid, gens[k]);
        }
}

struct waiter {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done, rc;
    struct kytos_error err;
};

static void wake_waiter(void *ud, int rc, const struct kytos_error *err)
{
    struct waiter *w = ud;

    pthread_mutex_lock(&w->mu);
    w->rc = rc;
    if (err)
        w->err = *err;
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Wait for the commit of the write queued with w; its result. */
static int await_commit(struct waiter *w, struct kytos_error *err)
{
    pthread_mutex_lock(&w->mu);
    while (!w->done)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
    if (w->rc != KYTOS_OK && err)
        *err = w->err;
    return w->rc;
}

/* Queue ops (if: only when ops[0].id is unchanged since gen, ev) and wait
 * for the commit: 1 when skipped, else the write's result. */
static int ordered_wait(struct fm_ctx *ctx, const struct kytos_write *ops, size_t n, uint32_t *gens,
                        int only_if, uint32_t gen, uint32_t ev, struct kytos_error *err)
{
    struct waiter w = {.done = 0};
    size_t k;
    int rc;

    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    pthread_mutex_lock(&ctx->order);
    if (only_if && !fm_latest_unchanged(ctx->pending, ops[0].id, gen, ev)) {
        pthread_mutex_unlock(&ctx->order);
        for (k = 0; k < n; k++)
            json_object_put(ops[k].doc);   /* taken, as the queue would have */
        rc = 1;
    } else {
        rc = ordered_locked(ctx, ops, n, wake_waiter, &w, gens, err);
        pthread_mutex_unlock(&ctx->order);
        if (rc == KYTOS_OK)
            rc = await_commit(&w, err);
    }
    pthread_mutex_destroy(&w.mu);
    pthread_cond_destroy(&w.cv);
    return rc;
}

int fm_store_ordered_wait_unchanged(struct fm_ctx *ctx, struct kytos_write *ops, size_t n,
                                    const uint32_t *gens, const uint32_t *evs, size_t *queued,
                                    struct kytos_error *err)
{
    struct waiter w = {.done = 0};
    size_t k, m = 0;
    int rc = KYTOS_OK;

    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    pthread_mutex_lock(&ctx->order);
    for (k = 0; k < n; k++)
        if (fm_latest_unchanged(ctx->pending, ops[k].id, gens[k], evs[k]))
            ops[m++] = ops[k];
    if (m)
        rc = ordered_locked(ctx, ops, m, wake_waiter, &w, NULL, err);
    pthread_mutex_unlock(&ctx->order);
    if (m && rc == KYTOS_OK)
        rc = await_commit(&w, err);
    *queued = rc == KYTOS_OK ? m : 0;
    pthread_mutex_destroy(&w.mu);
    pthread_cond_destroy(&w.cv);
    return rc;
}

int fm_store_ordered_wait(struct fm_ctx *ctx, const struct kytos_write *ops, size_t n,
                          uint32_t *gens, struct kytos_error *err)
{
    return ordered_wait(ctx, ops, n, gens, 0, 0, 0, err);
}

int fm_store_ordered_wait_if(struct fm_ctx *ctx, const struct kytos_write *ops, size_t n, uint32_t gen,
                             uint32_t ev, struct kytos_error *err)
{
    return ordered_wait(ctx, ops, n, NULL, 1, gen, ev, err);
}

int fm_store_settle(struct fm_ctx *ctx, struct kytos_error *err)
{
    /* a delete of an id no flow has (ids are md5 hex): a write that
     * changes nothing, committed after every write queued before it */
    static const struct kytos_write settle = {.op = KYTOS_WRITE_DELETE, .id = "settle"};
    return fm_store_ordered_wait(ctx, &settle, 1, NULL, err);
}

/* gens: room for every flow of bs (their generations, for send_all) */
static int store_add(struct fm_ctx *ctx, const struct fm_batch *bs, size_t nb, const char *now,
                     uint32_t *gens, struct fm_result *res)
{
    size_t total;
    struct kytos_write *ops;
    char (*ids)[33];
    struct kytos_error err = {0};
    int rc;

    if (add_ops(bs, nb, now, &ops, &ids, &total, res) != 0)
        return -1;
    rc = total ? fm_store_ordered_wait(ctx, ops, total, gens, &err) : KYTOS_OK;   /* docs taken */
    free(ops);
    free(ids);
    if (rc != KYTOS_OK) {
        forget_adds(ctx, bs, nb, gens);
        kytos_log(ctx->napp, KYTOS_LOG_ERROR, "storing flows failed: %s", err.message);
        set_error(res, 500, "Failed to store flows", &err);
        return -1;
    }
    return 0;
}

#define COOKIE_SET_MAX 1024

/* Several EVCs removed at once (mef_eline's failover): when every flow of
 * b names one exact cookie (all mask bits), the stored flows with one of
 * them are the only candidates: {"flow.cookie": {"$in": [...]}} reads
 * those through the same index. */
static void add_cookie_set(struct json_object *filter, const struct fm_batch *b)
{
    struct json_object *in, *op;
    size_t i;

    if (b->n > COOKIE_SET_MAX)
        return;
    for (i = 0; i < b->n; i++)
        if (b->flows[i].cookie_mask != UINT64_MAX)
            return;
    in = json_object_new_array();
    for (i = 0; i < b->n; i++)
        json_object_array_add(in, json_object_new_uint64(b->flows[i].cookie));
    op = json_object_new_object();
    json_object_object_add(op, "$in", in);
    json_object_object_add(filter, "flow.cookie", op);
}

/* When every flow of b names the same cookie range (mef_eline removing an
 * EVC: its cookie, all bits), only stored flows in it can be candidates:
 * the filter says so, and the (flow.cookie, switch) index reads those
 * alone instead of every flow of the switch, once per EVC. */
static void add_cookie_range(struct json_object *filter, const struct fm_batch *b)
{
    uint64_t lo, hi;
    size_t i;

    if (b->n == 0 || !b->flows[0].cookie_mask)
        return;
    lo = b->flows[0].cookie & b->flows[0].cookie_mask;
    hi = b->flows[0].cookie | ~b->flows[0].cookie_mask;
    for (i = 1; i < b->n; i++)
        if ((b->flows[i].cookie & b->flows[i].cookie_mask) != lo ||
            (b->flows[i].cookie | ~b->flows[i].cookie_mask) != hi) {
            add_cookie_set(filter, b);
            return;
        }
    if (lo == hi) {
        json_object_object_add(filter, "flow.cookie", json_object_new_uint64(lo));
    } else {
        struct json_object *r = json_object_new_object();
        json_object_object_add(r, "$gte", json_object_new_uint64(lo));
        json_object_object_add(r, "$lte", json_object_new_uint64(hi));
        json_object_object_add(filter, "flow.cookie", r);
    }
}

/* The ids of the stored flows of b's switch that b's flows match
 * non-strictly (Kytos' delete_matched_flows), appended to *ids. */
static int matched_ids(struct fm_ctx *ctx, const struct fm_batch *b, char ***ids, size_t *nids,
                       size_t *cap, int *read_failed, struct kytos_error *err)
{
    struct json_object *filter = json_object_new_object(), *ne = json_object_new_object(), *doc;
    kytos_cursor *cur = NULL;
    size_t i;
    int rc;

    json_object_object_add(filter, "switch", json_object_new_string(b->dpid));
    json_object_object_add(ne, "$ne", json_object_new_string("deleted"));
    json_object_object_add(filter, "state", ne);
    add_cookie_range(filter, b);
    rc = kytos_store_find(ctx->napp, FM_COLL,
                          &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                               .filter = filter},
                          &cur, err);
    json_object_put(filter);
    if (rc != KYTOS_OK) {
        *read_failed = 1;
        return rc;
    }
    while ((rc = kytos_cursor_next(cur, &doc, err)) == 1) {
        struct json_object *sflow = json_object_object_get(doc, "flow"), *idv;
        int cand = 0, hit = 0;
        /* Kytos loads the flows in any of the request's cookie ranges, then
         * deletes those that any of its flows matches */
        for (i = 0; i < b->n && !cand; i++)
            cand = fm_flow_cookie_in_range(&b->flows[i], sflow);
        for (i = 0; cand && i < b->n && !hit; i++)
            hit = fm_flow_matches(&b->flows[i], sflow);
        idv = json_object_object_get(doc, "_id");
        if (hit && json_object_is_type(idv, json_type_string)) {
            if (*nids == *cap) {
                size_t nc = *cap ? *cap * 2 : 16;
                char **n2 = realloc(*ids, nc * sizeof **ids);
                if (!n2) {
                    json_object_put(doc);
                    rc = KYTOS_ENOMEM;
                    break;
                }
                *ids = n2;
                *cap = nc;
            }
            if (!((*ids)[*nids] = strdup(json_object_get_string(idv)))) {
                json_object_put(doc);
                rc = KYTOS_ENOMEM;   /* not a 202 that left a flow out */
                break;
            }
            (*nids)++;   /* (a confirmation decided earlier: see fm_store_ordered) */
        }
        json_object_put(doc);
    }
    kytos_cursor_free(cur);
    return rc < 0 ? rc : KYTOS_OK;
}

/* delete: soft-delete the stored flows that the request's flows match, on
 * each of its switches, in one ordered write: a request that names several
 * switches (mef_eline's failover deletes a batch of EVCs' flows at once)
 * waits for one commit, not one per switch. */
static int store_delete(struct fm_ctx *ctx, const struct fm_batch *bs, size_t nb, const char *now,
                        struct fm_result *res)
{
    struct kytos_error err = {0};
    struct kytos_write *ops = NULL;
    char **ids = NULL;
    size_t nids = 0, cap = 0, i;
    int rc = KYTOS_OK, read_failed = 0;

    for (i = 0; i < nb && rc == KYTOS_OK; i++)
        rc = matched_ids(ctx, &bs[i], &ids, &nids, &cap, &read_failed, &err);
    if (rc == KYTOS_OK && nids) {
        struct json_object *upd = json_object_new_object(), *set = json_object_new_object();
        json_object_object_add(set, "state", json_object_new_string("deleted"));
        json_object_object_add(set, "updated_at", json_object_new_string(now));
        json_object_object_add(upd, "$set", set);
        ops = calloc(nids, sizeof *ops);
        if (!ops) {
            rc = KYTOS_ENOMEM;
            json_object_put(upd);
        } else {
            /* the store takes one reference per op: ours is the first one's */
            for (i = 0; i < nids; i++) {
                ops[i].op = KYTOS_WRITE_PATCH;
                ops[i].id = ids[i];
                ops[i].doc = i ? json_object_get(upd) : upd;
            }
            rc = fm_store_ordered_wait(ctx, ops, nids, NULL, &err);
        }
    }
    for (i = 0; i < nids; i++)
        free(ids[i]);
    free(ids);
    free(ops);
    if (rc < 0) {
        set_error(res, 500, read_failed ? "Failed to read stored flows" : "Failed to store flows",
                  &err);
        return -1;
    }
    return 0;
}

/* Publish content, which is ours alone (built for this event: see
 * fm_flow_as_dict_own), without the host's copy. */
static int publish(struct fm_ctx *ctx, const char *name, struct json_object *content,
                   const char *buffer)
{
    int rc = kytos_event_publish_give(ctx->napp, name, content,
                                      &(struct kytos_pub_opts){.struct_size =
                                                                   sizeof(struct kytos_pub_opts),
                                                               .buffer = buffer,
                                                               .timeout_ms = 2000});
    if (rc != KYTOS_OK)
        kytos_log(ctx->napp, KYTOS_LOG_WARNING, "publishing %s failed: %s", name,
                  kytos_strerror(rc));
    return rc;
}

static const char ev_flow_mod[] = "kytos/flow_manager.messages.out.ofpt_flow_mod";
static const char ev_barrier[] = "kytos/flow_manager.messages.out.ofpt_barrier_request";
static const char ev_pending[] = "kytos/flow_manager.flow.pending";

/* FlowMods + barrier for one switch; flow.pending for each flow.  Every
 * event gets content of its own, and the pending table a record that
 * shares nothing with them (json-c reference counts are not atomic and
 * these go to other threads).  flow.pending is built only when somebody
 * listens, and the record keeps the flow only if somebody listens to
 * flow.added (acks.c reads it back from the store for one that began
 * listening meanwhile). */
static void send_switch(struct fm_ctx *ctx, int cmd, const struct fm_batch *b, int connected,
                        const uint32_t *gens)
{
    struct json_object *confirm = json_object_new_array(), *xids = json_object_new_array();
    int want_pending = kytos_event_wanted(ctx->napp, ev_pending);
    int want_added = cmd == FM_ADD && kytos_event_wanted(ctx->napp, FM_EV_ADDED);
    size_t i;

    for (i = 0; i < b->n; i++) {
        char mid[33], fid[33];
        uint32_t xid = atomic_fetch_add(&ctx->xid, 1) + 1;
        fm_flow_ids(&b->flows[i], b->dpid, mid, fid);
        if (cmd == FM_ADD && gens)
            fm_latest_advance(ctx->pending, mid, gens[i], xid);
        else if (cmd == FM_ADD)
            fm_latest_set(ctx->pending, mid, xid);
        if (connected) {
            struct json_object *c = json_object_new_object(), *rec = json_object_new_object();
            kytos_json_add_lit(c, "destination", json_object_new_string(b->dpid));
            kytos_json_add_lit(c, "xid", json_object_new_int64(xid));
            kytos_json_add_lit(c, "command", json_object_new_string(cmd_names[cmd]));
            kytos_json_add_lit(c, "match_id", json_object_new_string(mid));
            kytos_json_add_lit(c, "flow", fm_flow_as_dict_own(&b->flows[i], b->dpid, fid));
            fm_sent_add(ctx->pending, xid, b->dpid, mid, fid, cmd);
            publish(ctx, ev_flow_mod, c, "msg_out");
            json_object_array_add(xids, json_object_new_int64(xid));
            kytos_json_add_lit(rec, "match_id", json_object_new_string(mid));
            kytos_json_add_lit(rec, "xid", json_object_new_int64(xid));
            kytos_json_add_lit(rec, "flow_id", json_object_new_string(fid));
            kytos_json_add_lit(rec, "command", json_object_new_string(cmd_names[cmd]));
            if (want_added)
                kytos_json_add_lit(rec, "flow", fm_flow_as_dict_own(&b->flows[i], b->dpid, fid));
            json_object_array_add(confirm, rec);
        }
        if (want_pending) {
            struct json_object *ev = json_object_new_object();
            kytos_json_add_lit(ev, "datapath", json_object_new_string(b->dpid));
            kytos_json_add_lit(ev, "flow", fm_flow_as_dict_own(&b->flows[i], b->dpid, fid));
            publish(ctx, ev_pending, ev, "app");
        }
    }
    if (connected && b->n) {
        uint32_t bxid = atomic_fetch_add(&ctx->xid, 1) + 1;
        struct json_object *c = json_object_new_object();
        /* register before publishing: the reply may come at once, and be
         * handled on another thread, so the table gets our only reference */
        fm_pending_add(ctx->pending, bxid, b->dpid, confirm);
        confirm = NULL;
        kytos_json_add_lit(c, "destination", json_object_new_string(b->dpid));
        kytos_json_add_lit(c, "xid", json_object_new_int64(bxid));
        kytos_json_add_lit(c, "flow_xids", xids);
        xids = NULL;
        publish(ctx, ev_barrier, c, "msg_out");
    }
    json_object_put(confirm);
    json_object_put(xids);
}

/* What follows the store write: FlowMods to connected switches, 424 for
 * a disconnected one unless force.  gens: the generations the adds' store
 * writes were given (fm_store_ordered), one per flow in order, or NULL. */
static void send_all(struct fm_ctx *ctx, int cmd, const struct fm_batch *bs, size_t nb, int force,
                     const uint32_t *gens, struct fm_result *res)
{
    size_t i, k = 0;
    int64_t since = 0;

    for (i = 0; i < nb; i++) {
        unsigned st = fm_switches_get(ctx->switches, bs[i].dpid);
        if (!(st & FM_SW_CONNECTED)) {
            /* maybe only our map is behind: ask topology (once for all
             * the batches) */
            if (since == 0)
                since = fm_switches_clock();
            st = fm_switches_refresh(ctx->switches, ctx->napp, since, bs[i].dpid);
        }
        if (!(st & FM_SW_CONNECTED) && !force) {
            size_t j;
            for (j = 0; cmd == FM_ADD && j < bs[i].n; j++) {
                char mid[33], fid[33];
                fm_flow_ids(&bs[i].flows[j], bs[i].dpid, mid, fid);
                fm_latest_set(ctx->pending, mid, atomic_fetch_add(&ctx->xid, 1) + 1);
            }
            res->status = 424;
            snprintf(res->text, sizeof res->text, "switch %s isn't connected", bs[i].dpid);
            return;
        }
        send_switch(ctx, cmd, &bs[i], (st & FM_SW_CONNECTED) != 0, gens ? gens + k : NULL);
        k += bs[i].n;
    }
}

void fm_send_unstored(struct fm_ctx *ctx, int cmd, const struct fm_batch *b)
{
    if (fm_switches_get(ctx->switches, b->dpid) & FM_SW_CONNECTED)
        send_switch(ctx, cmd, b, 1, NULL);
}

static void result_init(struct fm_result *res)
{
    res->status = 202;
    res->text[0] = '\0';
    res->detail_is_dpid_404 = 0;
}

void fm_install(struct fm_ctx *ctx, int cmd, const struct fm_batch *bs, size_t nb, int force,
                struct fm_result *res)
{
    char now[32];
    uint32_t *gens = NULL;
    size_t i, total = 0;

    result_init(res);
    fm_now_iso(now);
    if (cmd == FM_ADD) {
        for (i = 0; i < nb; i++)
            total += bs[i].n;
        if (!(gens = calloc(total ? total : 1, sizeof *gens))) {
            set_error(res, 500, "out of memory", NULL);
            return;
        }
        if (store_add(ctx, bs, nb, now, gens, res) != 0) {
            free(gens);
            return;
        }
    } else {
        if (store_delete(ctx, bs, nb, now, res) != 0)
            return;
    }
    send_all(ctx, cmd, bs, nb, force, gens, res);
    free(gens);
}

/* ---- add without holding a thread ---- */

struct add_job {
    struct fm_ctx *ctx;
    kytos_req *req;
    struct fm_async_add a;
    uint32_t gens[];          /* of the adds' store writes, one per flow */
};

static void add_done(void *ud, int rc, const struct kytos_error *err)
{
    struct add_job *j = ud;
    struct fm_result res;

    result_init(&res);
    if (rc != KYTOS_OK) {
        forget_adds(j->ctx, j->a.batches, j->a.nb, j->gens);
        kytos_log(j->ctx->napp, KYTOS_LOG_ERROR, "storing flows failed: %s",
                  err ? err->message : "?");
        set_error(&res, rc == KYTOS_EFULL ? 503 : 500, "Failed to store flows", err);
    } else {
        send_all(j->ctx, FM_ADD, j->a.batches, j->a.nb, j->a.force, j->gens, &res);
    }
    j->a.reply(j->req, &res);
    /* before the finish: the parsed flows borrow from the request's body */
    j->a.release(&j->a);
    kytos_req_finish(j->req);
    free(j);
}

int fm_install_add_async(struct fm_ctx *ctx, kytos_req *req, const struct fm_async_add *a,
                         struct fm_result *res)
{
    struct add_job *j;
    struct kytos_write *ops;
    char (*ids)[33];
    char now[32];
    size_t total;
    struct kytos_error err = {0};
    int rc;

    result_init(res);
    fm_now_iso(now);
    if (add_ops(a->batches, a->nb, now, &ops, &ids, &total, res) != 0)
        return -1;
    if (total == 0 || !(j = calloc(1, sizeof *j + total * sizeof j->gens[0]))) {
        size_t k;
        for (k = 0; k < total; k++)
            json_object_put(ops[k].doc);
        free(ops);
        free(ids);
        if (total)
            set_error(res, 500, "out of memory", NULL);
        else
            send_all(ctx, FM_ADD, a->batches, a->nb, a->force, NULL, res);
        return -1;
    }
    j->ctx = ctx;
    j->req = req;
    j->a = *a;
    /* the docs are the store's from here, whatever it answers */
    rc = fm_store_ordered(ctx, ops, total, add_done, j, j->gens, &err);
    free(ops);
    free(ids);
    if (rc != KYTOS_OK) {
        free(j);
        if (rc != KYTOS_EFULL)
            kytos_log(ctx->napp, KYTOS_LOG_ERROR, "storing flows failed: %s", err.message);
        set_error(res, rc == KYTOS_EFULL ? 503 : 500, "Failed to store flows", &err);
        return -1;
    }
    return 0;
}
