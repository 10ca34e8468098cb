/* host/store/store_sqlite_commit.c - the embedded store (store_sqlite.h):
 * group commit: single writes queued and run by one leader as one transaction,
 * reads by id and bulk writes. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "store/store_sqlite.h"

/* ---- the backend calls ---- */

int sq_get(struct kh_store_backend *b, const char *coll, const char *id,
           struct json_object **out, struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct sq_conn *c;
    int rc;

    *out = NULL;
    if (!sq_coll_exists(s, coll))
        return kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
    c = sq_reader_get(s);
    rc = sq_load_doc(s, c, coll, id, out, err);
    sq_reader_put(s, c);
    if (rc == 0 && !*out)
        return kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
    return rc;
}

/* ---- group commit ----
 *
 * Single writes queue up; the first writer to find no leader becomes one
 * and runs everything queued as one transaction (each write in its own
 * savepoint, so one failure does not undo the others), then wakes the
 * writers of that batch, each on its own condition variable.  Before it
 * cuts a batch, a leader waits briefly for puts that are being encoded
 * (wq_gather); after the batch with its own write, it hands the queue to
 * the next queued writer and returns.  Under load many writes share one
 * commit; alone, a write is one transaction as before.  A write is
 * acknowledged only after its commit. */

enum { WQ_PUT, WQ_INSERT, WQ_PATCH, WQ_DELETE };
#define SQ_BATCH_MAX 256
#define SQ_GATHER_MAX_US 2000         /* longest a leader waits for encoding puts */

struct sq_wreq {
    int kind;
    const char *coll, *id;
    const char *text;             /* put, insert: the encoded document */
    size_t len;
    struct json_object *doc;      /* put, insert: for the multikey check */
    struct json_object *update;   /* patch */
    unsigned flags;
    int want_out;                 /* patch: the caller wants the document after */
    struct json_object *out;      /* patch: the document after */
    int deleted;
    int rc, done;
    int arriving;                 /* counted in s->arriving until queued */
    int lead;                     /* handed the leadership: run the queue */
    pthread_cond_t cv;            /* signalled when done */
    struct kytos_error err;
    struct sq_wreq *next;
};

static int wq_one(struct sq_store *s, struct sq_wreq *r)
{
    switch (r->kind) {
    case WQ_PUT:
    case WQ_INSERT:
        return sq_w_store(s, r->coll, r->id, r->text, r->len, r->doc, r->kind == WQ_INSERT, &r->err);
    case WQ_PATCH:
        return sq_w_patch(s, r->coll, r->id, r->update, r->flags, r->want_out ? &r->out : NULL, &r->err);
    default:
        return sq_w_delete(s, r->coll, r->id, &r->deleted, &r->err);
    }
}

static void wq_batch(struct sq_store *s, struct sq_wreq *list, int n)
{
    struct kytos_error e = {0};
    struct sq_wreq *r;
    struct timespec t0, t1;
    long ns, old;
    int rc;

    pthread_mutex_lock(&s->wmu);
    /* tables first: a CREATE inside a transaction that fails would vanish */
    for (r = list; r; r = r->next) {
        r->rc = 0;
        if (r->kind != WQ_DELETE && (r->kind != WQ_PATCH || (r->flags & KYTOS_STORE_UPSERT)))
            r->rc = sq_coll_ensure(s, r->coll, &r->err);
    }
    if ((rc = sq_begin(&s->writer, &e)) < 0)
        goto fail_all;
    for (r = list; r; r = r->next) {
        if (r->rc < 0)
            continue;
        if (n == 1) {
            r->rc = wq_one(s, r);
            continue;
        }
        if ((rc = sq_exec(&s->writer, "SAVEPOINT kh_w", &e)) < 0)
            goto rollback;
        if ((r->rc = wq_one(s, r)) < 0 && (rc = sq_exec(&s->writer, "ROLLBACK TO kh_w", &e)) < 0)
            goto rollback;
        if ((rc = sq_exec(&s->writer, "RELEASE kh_w", &e)) < 0)
            goto rollback;
    }
    if (n == 1 && list->rc < 0) {
        sq_rollback(&s->writer);
        pthread_mutex_unlock(&s->wmu);
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if ((rc = sq_commit(&s->writer, &e)) < 0)
        goto fail_all;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    pthread_mutex_unlock(&s->wmu);
    ns = (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec);
    old = atomic_load_explicit(&s->commit_ns, memory_order_relaxed);
    atomic_store_explicit(&s->commit_ns, old ? (old * 7 + ns) / 8 : ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->commits, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->writes, (uint64_t)n, memory_order_relaxed);
    return;
rollback:
    sq_rollback(&s->writer);
fail_all:
    pthread_mutex_unlock(&s->wmu);
    for (r = list; r; r = r->next) {
        if (r->rc == 0) {
            r->rc = rc;
            r->err = e;
            json_object_put(r->out);
            r->out = NULL;
        }
    }
}

/* qmu held, before a batch is cut: while other threads are encoding puts
 * (s->arriving), wait for them a little, so that they share this commit
 * rather than each wait for it and then commit alone.  A lone writer never
 * waits. */
static void wq_gather(struct sq_store *s)
{
    struct timespec ts;
    long wait = atomic_load_explicit(&s->commit_ns, memory_order_relaxed);

    if (atomic_load_explicit(&s->arriving, memory_order_relaxed) == 0)
        return;
    /* no longer than a commit takes: that is what a write that misses
     * this batch waits for, before its own commit */
    if (wait > SQ_GATHER_MAX_US * 1000L)
        wait = SQ_GATHER_MAX_US * 1000L;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += wait;
    while (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    s->gathering = 1;
    while (atomic_load_explicit(&s->arriving, memory_order_relaxed) > 0)
        if (pthread_cond_timedwait(&s->acv, &s->qmu, &ts) != 0)
            break; /* timed out */
    s->gathering = 0;
}

static int wq_submit(struct sq_store *s, struct sq_wreq *r)
{
    pthread_cond_init(&r->cv, NULL);
    pthread_mutex_lock(&s->qmu);
    *s->qtail = r;
    s->qtail = &r->next;
    if (r->arriving) {
        atomic_fetch_sub_explicit(&s->arriving, 1, memory_order_relaxed);
        if (s->gathering)
            pthread_cond_signal(&s->acv);
    }
    while (!r->done) {
        if (s->leader && !r->lead) {
            pthread_cond_wait(&r->cv, &s->qmu);
            continue;
        }
        s->leader = 1;
        r->lead = 0;
        while (s->qhead) {
            struct sq_wreq *list, *last, *rest;
            int n = 1;
            wq_gather(s);
            list = last = s->qhead;
            while (last->next && n < SQ_BATCH_MAX) {
                last = last->next;
                n++;
            }
            rest = last->next;
            last->next = NULL;
            s->qhead = rest;
            if (!rest)
                s->qtail = &s->qhead;
            pthread_mutex_unlock(&s->qmu);
            wq_batch(s, list, n);
            pthread_mutex_lock(&s->qmu);
            /* wake only these; x cannot return (and vanish) before qmu is free */
            for (struct sq_wreq *x = list, *nx; x; x = nx) {
                nx = x->next;
                x->done = 1;
                if (x != r)
                    pthread_cond_signal(&x->cv);
            }
            if (r->done && s->qhead) {
                /* hand the queue to the next writer: this caller gets its
                 * answer now and can make more work, rather than serve
                 * everyone else's writes for as long as they keep coming */
                s->qhead->lead = 1;
                pthread_cond_signal(&s->qhead->cv);
                goto out;
            }
        }
        s->leader = 0;
    }
out:
    pthread_mutex_unlock(&s->qmu);
    pthread_cond_destroy(&r->cv);
    return r->rc;
}

static int wq_result(struct sq_wreq *r, struct kytos_error *err)
{
    if (r->rc < 0 && err)
        *err = r->err;
    return r->rc;
}

int sq_put(struct kh_store_backend *b, const char *coll, const char *id,
           struct json_object *doc, int insert_only, struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct sq_wreq r = {.kind = insert_only ? WQ_INSERT : WQ_PUT, .coll = coll, .id = id, .doc = doc};
    char mem[4096];
    struct ku_buf text = KU_BUF_ON(mem);
    int rc;

    /* encode before queueing: the writer is the bottleneck (a leader may
     * wait for this put to share its commit: see wq_gather()) */
    atomic_fetch_add_explicit(&s->arriving, 1, memory_order_relaxed);
    r.arriving = 1;
    if ((rc = kh_doc_write(&text, doc, id, err)) < 0) {
        atomic_fetch_sub_explicit(&s->arriving, 1, memory_order_relaxed);
        ku_buf_free(&text);
        return rc;
    }
    r.text = text.p;
    r.len = text.len;
    wq_submit(s, &r);
    ku_buf_free(&text);
    return wq_result(&r, err);
}

int sq_patch(struct kh_store_backend *b, const char *coll, const char *id,
             struct json_object *update, unsigned flags, struct json_object **out,
             struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct sq_wreq r = {.kind = WQ_PATCH, .coll = coll, .id = id, .update = update, .flags = flags,
                        .want_out = out != NULL};

    /* the front end checked the update (kh_update_check) */
    if (!(flags & KYTOS_STORE_UPSERT) && !sq_coll_exists(s, coll))
        return kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
    wq_submit(s, &r);
    if (r.rc == 0 && out)
        *out = r.out;
    else
        json_object_put(r.out);
    return wq_result(&r, err);
}

int sq_delete(struct kh_store_backend *b, const char *coll, const char *id,
              struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct sq_wreq r = {.kind = WQ_DELETE, .coll = coll, .id = id};

    if (!sq_coll_exists(s, coll))
        return kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
    if (wq_submit(s, &r) == 0 && !r.deleted)
        return kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
    return wq_result(&r, err);
}

static const char *op_name(int op)
{
    switch (op) {
    case KYTOS_WRITE_PUT: return "put";
    case KYTOS_WRITE_INSERT: return "insert";
    case KYTOS_WRITE_PATCH: return "patch";
    case KYTOS_WRITE_DELETE: return "delete";
    default: return "?";
    }
}

/* A bulk write's puts encoded before the writer lock (offs: n + 1 entries);
 * 0, or the error with *bad the op at fault. */
int sq_bulk_encode(const struct kytos_write *ops, size_t n, struct ku_buf *texts, size_t *offs,
                   size_t *bad, struct kytos_error *e)
{
    size_t k;
    int rc = 0;

    for (k = 0; k < n && rc == 0; k++) {
        offs[k] = texts->len;
        if (ops[k].op == KYTOS_WRITE_PUT || ops[k].op == KYTOS_WRITE_INSERT)
            rc = kh_doc_write(texts, ops[k].doc, ops[k].id, e);
        if (rc < 0)
            *bad = k;
    }
    offs[k] = texts->len;
    return rc;
}

/* The ops, inside the writer's open transaction (wmu held). */
int sq_bulk_run(struct sq_store *s, const char *coll, const struct kytos_write *ops, size_t n,
                const struct ku_buf *texts, const size_t *offs, size_t *bad,
                struct kytos_error *e)
{
    size_t k;
    int rc = 0;

    for (k = 0; k < n && rc == 0; k++) {
        int deleted;
        switch (ops[k].op) {
        case KYTOS_WRITE_PUT:
        case KYTOS_WRITE_INSERT:
            rc = sq_w_store(s, coll, ops[k].id, texts->p + offs[k], offs[k + 1] - offs[k], ops[k].doc,
                         ops[k].op == KYTOS_WRITE_INSERT, e);
            break;
        case KYTOS_WRITE_PATCH:
            s->pre_k = k;
            s->plan_keep = 1;
            s->plan_of = k && ops[k].doc == ops[k - 1].doc ? s->plan_of : NULL;
            rc = sq_w_patch(s, coll, ops[k].id, ops[k].doc, ops[k].flags, NULL, e);
            break;
        default:
            rc = sq_w_delete(s, coll, ops[k].id, &deleted, e);
        }
        if (rc < 0)
            *bad = k;
    }
    s->plan_of = NULL;   /* the update is the caller's: its address may come back */
    s->plan_keep = 0;
    return rc;
}

/* The caller's message: which op failed and why. */
int sq_bulk_fail(int rc, const struct kytos_write *ops, size_t n, size_t bad,
                 const struct kytos_error *e, struct kytos_error *err)
{
    if (bad < n)
        return kh_store_err(err, rc, "bulk op %zu (%s '%.100s'): %s", bad, op_name(ops[bad].op),
                            ops[bad].id, e->message);
    return kh_store_err(err, rc, "%s", e->message);
}

int sq_bulk(struct kh_store_backend *b, const char *coll, const struct kytos_write *ops, size_t n,
            struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct kytos_error e = {0};
    struct ku_buf texts = {0};    /* every put's text, one after the other */
    size_t *offs, bad = n;
    int rc;

    if (!(offs = calloc(n + 1, sizeof(*offs))))
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    /* encode everything first: nothing is written if any op is bad (the
     * front end checked the patches' updates) */
    rc = sq_bulk_encode(ops, n, &texts, offs, &bad, &e);
    if (rc == 0) {
        pthread_mutex_lock(&s->wmu);
        if ((rc = sq_coll_ensure(s, coll, &e)) == 0 && (rc = sq_begin(&s->writer, &e)) == 0) {
            rc = sq_bulk_run(s, coll, ops, n, &texts, offs, &bad, &e);
            if (rc == 0)
                rc = sq_commit(&s->writer, &e);
            else
                sq_rollback(&s->writer);
        }
        pthread_mutex_unlock(&s->wmu);
    }
    if (rc < 0)
        sq_bulk_fail(rc, ops, n, bad, &e, err);
    ku_buf_free(&texts);
    free(offs);
    return rc;
}
