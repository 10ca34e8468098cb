/* plugins/flow_manager/purge.c - soft-deleted flows removed from the store
 * once they are older than purge_deleted_flows_after seconds.
 *
 * A DELETE marks stored flows "deleted" and keeps them (Kytos' soft
 * delete), so every change of path leaves its old flows behind: a link
 * failure that moves 2,000 EVCs the long way round a ring leaves tens of
 * thousands, and the store grows with each flap.  Kytos-ng ships a script
 * that an operator runs by hand to hard-delete the ones deleted before a
 * date (scripts/db/2024.1.0/000_hard_delete_old.py); here a timer does it,
 * on the app pool: at most PURGE_BATCHES batches of PURGE_BATCH per tick.
 * 0 keeps them all, as Kytos does.
 *
 * A flow deleted long ago may be posted again (the same match_id) while
 * it is being purged: its upsert must not be lost.  So each batch, as
 * acks.c does for a confirmation:
 *   1. finds candidates (state deleted, updated_at before the cutoff);
 *   2. snapshots each one's latest write (fm_latest_snapshot);
 *   3. waits until every write queued so far is committed (fm_store_settle),
 *      then reads the candidates again: one written meanwhile is left;
 *   4. queues the deletes of those whose latest write is still the
 *      snapshot's, checked under ctx->order with the queueing
 *      (fm_store_ordered_wait_unchanged): a write queued after the snapshot
 *      keeps its flow, and one queued after the deletes applies after them
 *      (an upsert then stores the flow anew). */
#include "fm.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PURGE_BATCH 1024
#define PURGE_BATCHES 64            /* per tick: the writer's time stays short */
#define PURGE_MAX_S (10 * 365 * 86400LL)

struct fm_purge {
    int64_t after_s;                /* 0: never */
    int ticked;                     /* the host runs a timer once at start: skipped */
};

/* {"state": "deleted", "updated_at": {"$lt": cutoff}} (and "_id" in ids) */
static struct json_object *old_deleted(const char *cutoff, char **ids, size_t n)
{
    struct json_object *f = json_object_new_object(), *lt = json_object_new_object();

    json_object_object_add(lt, "$lt", json_object_new_string(cutoff));
    json_object_object_add(f, "state", json_object_new_string("deleted"));
    json_object_object_add(f, "updated_at", lt);
    if (ids) {
        struct json_object *in = json_object_new_object(), *arr = json_object_new_array();
        for (size_t i = 0; i < n; i++)
            json_object_array_add(arr, json_object_new_string(ids[i]));
        json_object_object_add(in, "$in", arr);
        json_object_object_add(f, "_id", in);
    }
    return f;
}

/* The _ids the filter finds, at most PURGE_BATCH, into ids (*n of them);
 * KYTOS_OK or the error (logged). */
static int find_ids(struct fm_ctx *ctx, struct json_object *filter, char **ids, size_t *n)
{
    struct json_object *proj = json_object_new_object(), *doc, *id;
    struct kytos_error err = {0};
    kytos_cursor *cur = NULL;
    int rc;

    *n = 0;
    json_object_object_add(proj, "_id", json_object_new_int(1));
    rc = kytos_store_find(ctx->napp, FM_COLL,
                          &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                               .filter = filter,
                                               .limit = PURGE_BATCH,
                                               .projection = proj},
                          &cur, &err);
    json_object_put(filter);
    json_object_put(proj);
    while (rc == KYTOS_OK && (rc = kytos_cursor_next(cur, &doc, &err)) == 1) {
        id = json_object_object_get(doc, "_id");
        rc = KYTOS_OK;
        if (json_object_is_type(id, json_type_string) && *n < PURGE_BATCH) {
            if (!(ids[*n] = strdup(json_object_get_string(id))))
                rc = KYTOS_ENOMEM;
            else
                (*n)++;
        }
        json_object_put(doc);
    }
    kytos_cursor_free(cur);
    if (rc < 0) {
        kytos_log(ctx->napp, KYTOS_LOG_WARNING, "purging deleted flows: reading the store: %s",
                  rc == KYTOS_ENOMEM ? "out of memory" : err.message);
        return rc;
    }
    return KYTOS_OK;
}

/* One batch's room (64 KiB: on the heap, not a pool thread's stack). */
struct batch {
    char *cand[PURGE_BATCH], *still[PURGE_BATCH];
    uint32_t gen[PURGE_BATCH], ev[PURGE_BATCH], sgen[PURGE_BATCH], sev[PURGE_BATCH];
    struct kytos_write ops[PURGE_BATCH];
};

static int cmp_id(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One batch (steps 1 to 4 above) in b: how many were purged, or an error.
 * *found: how many candidates step 1 found. */
static int purge_batch(struct fm_ctx *ctx, const char *cutoff, struct batch *b, size_t *found)
{
    struct kytos_error err = {0};
    size_t nc = 0, ns = 0, i, queued = 0;
    int rc;

    *found = 0;
    if ((rc = find_ids(ctx, old_deleted(cutoff, NULL, 0), b->cand, &nc)) != KYTOS_OK || !nc)
        goto out;
    *found = nc;
    for (i = 0; i < nc; i++)   /* before the store is read again */
        fm_latest_snapshot(ctx->pending, b->cand[i], &b->gen[i], &b->ev[i]);
    if ((rc = fm_store_settle(ctx, &err)) != KYTOS_OK) {
        kytos_log(ctx->napp, KYTOS_LOG_WARNING, "purging deleted flows: %s", err.message);
        goto out;
    }
    if ((rc = find_ids(ctx, old_deleted(cutoff, b->cand, nc), b->still, &ns)) != KYTOS_OK)
        goto out;
    /* the candidates the second read found still deleted and old, each
     * with its snapshot (sorted, not nc x ns compares: 1,024 each) */
    qsort(b->still, ns, sizeof b->still[0], cmp_id);
    for (i = 0; i < nc; i++) {
        if (!bsearch(&b->cand[i], b->still, ns, sizeof b->still[0], cmp_id))
            continue;
        b->sgen[queued] = b->gen[i];
        b->sev[queued] = b->ev[i];
        b->ops[queued++] = (struct kytos_write){.op = KYTOS_WRITE_DELETE, .id = b->cand[i]};
    }
    if (queued &&
        (rc = fm_store_ordered_wait_unchanged(ctx, b->ops, queued, b->sgen, b->sev, &queued, &err)) !=
            KYTOS_OK)
        kytos_log(ctx->napp, KYTOS_LOG_WARNING, "purging deleted flows: %s", err.message);
out:
    for (i = 0; i < nc; i++)
        free(b->cand[i]);
    for (i = 0; i < ns; i++)
        free(b->still[i]);
    return rc == KYTOS_OK ? (int)queued : rc;
}

/* On the app pool, every tick. */
static void purge_tick(kytos_napp *napp, void *ud)
{
    struct fm_ctx *ctx = ud;
    struct fm_purge *p = ctx->purge;
    struct batch *b;
    char cutoff[32];
    size_t total = 0, found = PURGE_BATCH;
    int n = 0;

    (void)napp;
    if (!p->ticked) {
        p->ticked = 1;   /* not at start: the first tick comes after an interval */
        return;
    }
    if (!(b = malloc(sizeof *b)))
        return;
    fm_iso_of((int64_t)time(NULL) - p->after_s, cutoff);
    for (int k = 0; k < PURGE_BATCHES && found == PURGE_BATCH && n >= 0; k++) {
        if ((n = purge_batch(ctx, cutoff, b, &found)) > 0)
            total += (size_t)n;
    }
    free(b);
    if (total)
        kytos_log(ctx->napp, KYTOS_LOG_INFO, "%zu flows deleted before %s removed from the store",
                  total, cutoff);
}

int fm_purge_start(struct fm_ctx *ctx)
{
    struct json_object *st = kytos_napp_settings(ctx->napp), *v;
    int64_t after = FM_PURGE_DEFAULT_S, tick;

    if (json_object_object_get_ex(st, "purge_deleted_flows_after", &v) && v) {
        double s = json_object_get_double(v);
        if ((json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) &&
            s >= 0 && s <= (double)PURGE_MAX_S)
            after = (int64_t)s + (s > (double)(int64_t)s);   /* 0.5 is 1, not "never" */
        else
            kytos_log(ctx->napp, KYTOS_LOG_WARNING,
                      "purge_deleted_flows_after %.100s is not 0..%lld seconds: using %lld",
                      json_object_to_json_string(v), (long long)PURGE_MAX_S,
                      (long long)FM_PURGE_DEFAULT_S);
    }
    if (after == 0)
        return KYTOS_OK;   /* kept, as Kytos keeps them */
    if (!(ctx->purge = calloc(1, sizeof *ctx->purge)))
        return KYTOS_ENOMEM;
    ctx->purge->after_s = after;
    /* a quarter of the age (a flow goes at most 1.25 times it after its
     * deletion), between a second and an hour */
    tick = after / 4 < 1 ? 1 : after / 4 > 3600 ? 3600 : after / 4;
    return kytos_timer_add(ctx->napp, (unsigned)(tick * 1000), purge_tick, ctx);
}

void fm_purge_free(struct fm_ctx *ctx)
{
    free(ctx->purge);
    ctx->purge = NULL;
}
