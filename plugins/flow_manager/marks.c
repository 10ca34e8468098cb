/* plugins/flow_manager/marks.c - "installed" marks give way to flow writes.
 *
 * A link failure that moves thousands of EVCs stores their new flows
 * (pending) and, as the barriers come back, marks each one installed: as
 * many writes again (at 10,000 EVCs, 83,000 marks among 188,000 writes), on
 * the store's one writer thread, where every mover's next write queued
 * behind them.  The marks are bookkeeping: the switch holds the flow
 * already (a flow left pending is confirmed again by its flow stats); the
 * moves are what brings the traffic back.
 *
 * So a confirmation that comes while a flow write of flow_manager's is in
 * flight (queued, not committed) is kept here, by the flow's _id.  What
 * happens to it then depends on whether flow writes overlapped lately (a
 * write queued while another was in flight, within BUSY_MS):
 *   - no (requests one after the other, a client waiting for each answer):
 *     a lone install, whose FlowMods go out from its own commit and whose
 *     barriers come back before that commit's callback has returned.  Its
 *     marks are written as soon as it is done, as before;
 *   - yes (a failover's movers): once flow_manager's writes have been quiet
 *     for QUIET_MS, in chunks of CHUNK, each queued when the one before it
 *     is committed and only while still quiet: a flow write that comes
 *     meanwhile waits for one chunk at most.  A thread of ours waits for
 *     the quiet, and sleeps while nothing is kept: a host timer every 25 ms
 *     cost an idle kytosd 1% of a core (a job on the app pool each time).
 * Writing them in the gaps between a failover's writes instead (measured:
 * chunks of 64 as soon as nothing was in flight) gave all of the gain back:
 * any mark ahead of a mover's write delays it.  Oldest first, not by id:
 * the flows were stored in that order, so a chunk's rows are neighbours in
 * the table (by id they spread over all of it: four times the CPU,
 * measured).  Nothing in flight and nothing kept: written at once.
 *
 * Order: every flow write is queued under ctx->order and drops the kept
 * mark of each flow it writes (fm_marks_written): a mark queued later never
 * lands on a newer write.  fm_latest_unchanged ensures that for a mark
 * queued at once; here it holds without the latest-write table keeping the
 * id (a failover writes more flows than it holds).  A dropped mark's
 * flow.added still goes out: the flow was installed.
 *
 * Bounded: at MAX kept, or once the oldest has waited MAX_WAIT_MS, they
 * are written whatever the load; and while MAX are kept (a chunk of them in
 * flight), a confirmation is not kept but written at once, as if nothing
 * were in flight.  All state but the in-flight count is guarded by
 * ctx->order. */
#include "fm.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define QUIET_MS 25          /* no flow write queued or in flight for this long */
#define CHUNK 1024
#define BUSY_MS 100          /* flow writes overlapped this recently: a burst */
#define MAX 262144u
#define MAX_WAIT_MS 10000

struct mark {
    char id[33];
    struct json_object *ev;  /* its flow.added content, or NULL */
    struct mark *next;       /* in its bucket */
    struct mark *older, *newer;  /* in the order they came */
};

struct fm_marks {
    struct mark **b;         /* buckets by the id's leading digits */
    unsigned bits;
    size_t n;
    struct mark *oldest, *newest;
    int64_t since_ms;        /* when the oldest kept one came */
    int flushing;            /* a chunk is queued */
    atomic_uint inflight;    /* flow writes queued, not yet committed */
    atomic_int_fast64_t last_ms; /* when one was last queued or committed */
    int64_t overlap_ms;      /* when one was last queued while another was in flight */
    size_t kept, dropped;    /* since the last time none was kept, for the log */
    pthread_cond_t cv;       /* with ctx->order: the thread's wake-up, and flushing's end */
    pthread_t th;
    int started, stop;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct fm_marks *fm_marks_new(void)
{
    struct fm_marks *m = calloc(1, sizeof *m);

    if (!m)
        return NULL;
    m->bits = 10;
    if (!(m->b = calloc((size_t)1 << m->bits, sizeof *m->b))) {
        free(m);
        return NULL;
    }
    atomic_init(&m->inflight, 0);
    atomic_init(&m->last_ms, 0);
    {
        pthread_condattr_t a;
        pthread_condattr_init(&a);
        pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
        pthread_cond_init(&m->cv, &a);
        pthread_condattr_destroy(&a);
    }
    return m;
}

void fm_marks_free(struct fm_marks *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < ((size_t)1 << m->bits); i++)
        for (struct mark *k = m->b[i], *next; k; k = next) {
            next = k->next;
            json_object_put(k->ev);
            free(k);
        }
    pthread_cond_destroy(&m->cv);
    free(m->b);
    free(m);
}

/* The bucket of id: its first 16 hex digits (an md5's), top bits; an id
 * that is not hex still lands somewhere. */
static size_t bucket_of(const struct fm_marks *m, const char *id)
{
    uint64_t h = 0;

    for (int i = 0; i < 16 && id[i]; i++) {
        char c = id[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                                           : (unsigned char)c & 15u;
        h = h << 4 | d;
    }
    return (size_t)(h >> (64 - m->bits));
}

static void grow(struct fm_marks *m)
{
    unsigned bits = m->bits + 1;
    struct mark **nb = calloc((size_t)1 << bits, sizeof *nb);
    size_t old = (size_t)1 << m->bits;

    if (!nb)
        return;   /* longer chains, still correct */
    m->bits = bits;
    for (size_t i = 0; i < old; i++)
        for (struct mark *k = m->b[i], *next; k; k = next) {
            size_t j = bucket_of(m, k->id);
            next = k->next;
            k->next = nb[j];
            nb[j] = k;
        }
    free(m->b);
    m->b = nb;
}

/* Take k out of its bucket and of the order (not freed). */
static void unlink_mark(struct fm_marks *m, struct mark *k)
{
    struct mark **pp;

    for (pp = &m->b[bucket_of(m, k->id)]; *pp && *pp != k; pp = &(*pp)->next)
        ;
    if (*pp)
        *pp = k->next;
    if (k->older)
        k->older->newer = k->newer;
    else
        m->oldest = k->newer;
    if (k->newer)
        k->newer->older = k->older;
    else
        m->newest = k->older;
    m->n--;
}

static bool flush_locked(struct fm_ctx *ctx, int lone);

void fm_marks_write_queued(struct fm_ctx *ctx)
{
    struct fm_marks *m = ctx->marks;
    int64_t now = now_ms();

    if (atomic_fetch_add(&m->inflight, 1) > 0)
        m->overlap_ms = now;
    atomic_store(&m->last_ms, now);
}

/* Did flow writes overlap lately (ctx->order held)?  Requests one after
 * the other (a client waiting for each answer) never do; a failover's
 * movers always do. */
static int busy(const struct fm_marks *m, int64_t now)
{
    return m->overlap_ms && now - m->overlap_ms < BUSY_MS;
}

void fm_marks_write_done(struct fm_ctx *ctx, int order_held)
{
    struct fm_marks *m = ctx->marks;

    atomic_store(&m->last_ms, now_ms());
    if (atomic_fetch_sub(&m->inflight, 1) != 1)
        return;
    /* the last one in flight, and no burst: a lone install, whose own
     * confirmations (kept while its write was still in flight, its FlowMods
     * sent from its commit) go now, not after the quiet */
    if (!order_held)
        pthread_mutex_lock(&ctx->order);
    if (m->n && !busy(m, now_ms()))
        flush_locked(ctx, 1);
    if (!order_held)
        pthread_mutex_unlock(&ctx->order);
}

int fm_marks_keeping(struct fm_ctx *ctx)
{
    return ctx->marks->n > 0 || atomic_load(&ctx->marks->inflight) > 0;
}

int fm_marks_keep(struct fm_ctx *ctx, const char *id, struct json_object *ev)
{
    struct fm_marks *m = ctx->marks;
    size_t j;
    struct mark *k;

    if (strlen(id) >= sizeof k->id)
        return -1;
    j = bucket_of(m, id);
    for (k = m->b[j]; k; k = k->next) {
        if (strcmp(k->id, id) == 0) {   /* confirmed twice: once is enough */
            if (ev && !k->ev)
                k->ev = ev;
            else
                json_object_put(ev);
            return 0;
        }
    }
    if (m->n >= MAX || !(k = calloc(1, sizeof *k)))
        return -1;   /* full (or no memory): written at once by the caller */
    memcpy(k->id, id, strlen(id) + 1);
    k->ev = ev;
    k->next = m->b[j];
    m->b[j] = k;
    k->older = m->newest;
    if (m->newest)
        m->newest->newer = k;
    else
        m->oldest = k;
    m->newest = k;
    if (m->n++ == 0) {
        m->since_ms = now_ms();
        pthread_cond_signal(&m->cv);   /* the thread waits for the quiet now */
    }
    m->kept++;
    if (m->n > ((size_t)1 << m->bits) && m->bits < 18)
        grow(m);
    return 0;
}

void fm_marks_written(struct fm_ctx *ctx, const struct kytos_write *ops, size_t n)
{
    struct fm_marks *m = ctx->marks;
    int rc;

    for (size_t i = 0; m->n && i < n; i++) {
        struct mark *k;
        if (!ops[i].id)
            continue;
        for (k = m->b[bucket_of(m, ops[i].id)]; k && strcmp(k->id, ops[i].id) != 0; k = k->next)
            ;
        if (!k)
            continue;
        unlink_mark(m, k);
        m->dropped++;
        if (k->ev && (rc = kytos_event_publish_give(
                          ctx->napp, FM_EV_ADDED, k->ev,
                          &(struct kytos_pub_opts){.struct_size = sizeof(struct kytos_pub_opts),
                                                   .timeout_ms = 0})) != KYTOS_OK)
            kytos_log(ctx->napp, KYTOS_LOG_WARNING, "flow.added dropped: %s", kytos_strerror(rc));
        free(k);
    }
}

/* Should the kept marks be written now (ctx->order held)? */
static int due(struct fm_ctx *ctx)
{
    struct fm_marks *m = ctx->marks;
    int64_t now;

    if (!m->n || m->flushing)
        return 0;
    now = now_ms();
    return (atomic_load(&m->inflight) == 0 && now - atomic_load(&m->last_ms) >= QUIET_MS) ||
           m->n >= MAX || now - m->since_ms >= MAX_WAIT_MS;
}

/* Up to CHUNK kept marks, oldest first (why: the top of this file), into a
 * job (ctx->order held); NULL when none. */
static struct fm_confirm_job *take_chunk(struct fm_ctx *ctx)
{
    struct fm_marks *m = ctx->marks;
    size_t want = m->n < CHUNK ? m->n : CHUNK;
    struct fm_confirm_job *j;
    struct mark *k;

    if (!want || !(j = fm_confirm_job_new(ctx, want)))
        return NULL;
    while (j->n < want && (k = m->oldest)) {
        struct fm_confirm_item *it = &j->it[j->n];
        if (!(it->id = strdup(k->id)))
            break;   /* out of memory: the rest stays */
        it->ev = k->ev;
        it->check = 0;   /* kept here: no write came since (fm_marks_written) */
        j->n++;
        unlink_mark(m, k);
        free(k);
    }
    if (m->n)
        m->since_ms = now_ms();   /* the rest waits from now on, bounded again */
    return j;
}

/* Queue the next chunk if the marks are due, or at once for a lone
 * install (ctx->order held).  False when one was due but refused. */
static bool flush_locked(struct fm_ctx *ctx, int lone)
{
    struct fm_marks *m = ctx->marks;
    struct fm_confirm_job *j;

    if (m->stop || !(lone ? m->n && !m->flushing : due(ctx)))
        return true;
    if (!(j = take_chunk(ctx)))
        return false;
    j->chained = 1;
    m->flushing = 1;
    if (fm_confirm_submit_locked(j) != KYTOS_OK) {   /* refused, and freed */
        m->flushing = 0;
        pthread_cond_broadcast(&m->cv);
        return false;
    }
    return true;
}

void fm_marks_kept(struct fm_ctx *ctx)
{
    flush_locked(ctx, 0);   /* quiet already */
}

void fm_marks_chunk_done(struct fm_ctx *ctx)
{
    struct fm_marks *m = ctx->marks;
    kytos_napp *napp = ctx->napp;
    size_t kept = 0, dropped = 0;

    pthread_mutex_lock(&ctx->order);
    m->flushing = 0;
    flush_locked(ctx, 0);
    if (!m->n && !m->flushing) {
        kept = m->kept;
        dropped = m->dropped;
        m->kept = m->dropped = 0;
    }
    /* the thread (no longer quiet: it waits for the quiet again), and
     * fm_marks_stop (waits for the chunk in flight) */
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&ctx->order);
    /* ctx may be gone from here on (fm_marks_stop saw flushing end) */
    if (kept)
        kytos_log(napp, KYTOS_LOG_INFO,
                  "%zu flows confirmed while flow writes were in flight: marked installed "
                  "after them (%zu of them were written again first)", kept, dropped);
}

static void wait_until(struct fm_ctx *ctx, int64_t at_ms)
{
    struct timespec ts = {.tv_sec = at_ms / 1000, .tv_nsec = (at_ms % 1000) * 1000000};

    pthread_cond_timedwait(&ctx->marks->cv, &ctx->order, &ts);
}

/* The thread: asleep while nothing is kept or a chunk is in flight; else
 * it looks again when the quiet could have come (every QUIET_MS while a
 * flow write is in flight). */
static void *marks_main(void *arg)
{
    struct fm_ctx *ctx = arg;
    struct fm_marks *m = ctx->marks;

    pthread_mutex_lock(&ctx->order);
    while (!m->stop) {
        int64_t now, at;
        if (!m->n || m->flushing) {
            pthread_cond_wait(&m->cv, &ctx->order);
            continue;
        }
        now = now_ms();
        if (due(ctx)) {
            if (!flush_locked(ctx, 0))
                wait_until(ctx, now + QUIET_MS);   /* refused: not at once again */
            continue;
        }
        at = atomic_load(&m->last_ms) + QUIET_MS;
        if (atomic_load(&m->inflight) > 0 || at <= now)
            at = now + QUIET_MS;
        if (at > m->since_ms + MAX_WAIT_MS)
            at = m->since_ms + MAX_WAIT_MS;
        wait_until(ctx, at > now ? at : now + 1);
    }
    pthread_mutex_unlock(&ctx->order);
    return NULL;
}

int fm_marks_start(struct fm_ctx *ctx)
{
    struct fm_marks *m = ctx->marks;

    if (m->started)
        return KYTOS_OK;
    if (pthread_create(&m->th, NULL, marks_main, ctx) != 0)
        return KYTOS_ENOMEM;
    pthread_setname_np(m->th, "fm-marks");
    m->started = 1;
    return KYTOS_OK;
}

void fm_marks_stop(struct fm_ctx *ctx)
{
    struct fm_marks *m = ctx->marks;

    pthread_mutex_lock(&ctx->order);
    m->stop = 1;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&ctx->order);
    if (m->started)
        pthread_join(m->th, NULL);
    m->started = 0;
    /* a chunk the thread queued after the host stopped waiting for our
     * writes: its commit still calls us */
    pthread_mutex_lock(&ctx->order);
    while (m->flushing)
        pthread_cond_wait(&m->cv, &ctx->order);
    pthread_mutex_unlock(&ctx->order);
}

void fm_marks_flush_sync(struct fm_ctx *ctx)
{
    struct kytos_write ops[256];
    struct json_object *upd;
    struct kytos_error err = {0};
    size_t n = 0, total = 0;
    struct fm_marks *m = ctx->marks;

    if (!m || !m->n || !(upd = fm_installed_update()))
        return;
    for (struct mark *k = m->oldest; k; k = k->newer) {
        ops[n++] = (struct kytos_write){.op = KYTOS_WRITE_PATCH, .id = k->id, .doc = upd};
        if (n == sizeof ops / sizeof ops[0] || !k->newer) {
            /* a flow deleted since fails its chunk: it stays pending, as a
             * mark lost to a restart would */
            if (kytos_store_bulk(ctx->napp, FM_COLL, ops, n, &err) == KYTOS_OK)
                total += n;
            n = 0;
        }
    }
    json_object_put(upd);
    kytos_log(ctx->napp, KYTOS_LOG_INFO, "%zu flows marked installed on the way out", total);
}
