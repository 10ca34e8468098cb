/* host/store/store_async.c - kytos_store_bulk_async: a FIFO of bulk writes and
 * one writer thread that commits whatever has queued up in one go (group
 * commit) and then calls each write's done callback.
 *
 * Why a thread of its own: a handler that queues its write and returns
 * KYTOS_DEFERRED holds no thread while the commit happens, and N writes
 * queued during one commit cost one commit, not N.  The synchronous calls
 * keep their own path (the caller commits, store_sqlite_commit.c's leader queue);
 * both take the backend's writer lock, so every write is still serialized,
 * and the writes of this queue keep their order among themselves.
 *
 * Bounded: past max_queued writes, submit says KYTOS_EFULL at once (the
 * caller answers 503) instead of letting the queue and the latency grow.
 *
 * Claims: a write submitted from an inline HTTP handler (the I/O thread,
 * kh_store_claims_allow) that finds the writer asleep and nothing queued
 * does not wake it: the queue is "claimed", and that thread runs the
 * batch itself once its handler has returned (kh_store_claims_run), the
 * callbacks included, so the answer goes out at once, without waking the
 * writer for the commit and the I/O thread again for the answer (two
 * thread switches per request at light load, the most of its latency on
 * a busy or paravirtualised core).  A write from another thread meanwhile
 * takes the claim back: the writer runs everything, in order, so a claim
 * never holds up another thread's write.  The caller allows claims only
 * at light load (dispatch.c): under load the writer batches as before.
 * Nothing may submit while the queue is being closed. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "store/store_impl.h"
#include "util/thread_batch.h"

#define ASYNC_BATCH_MAX 512

struct kh_store_async {
    struct kh_store_backend *b;
    kh_store_bulk_batch_fn batch;
    void (*count)(void *ctx, int rc, const struct kytos_error *e);
    void *count_ctx;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_cond_t idle_cv;   /* queue empty and no batch running */
    pthread_cond_t queued_cv; /* a write was queued, for kh_store_async_await_queued */
    int queued_waiters;
    struct kh_async_write *head, **tail;
    size_t queued, max;
    int started, stopping, running;
    int sleeping;             /* the writer waits on cv (else it looks at the queue before it does) */
    int claims_ok;            /* commits are quick enough for the I/O thread */
    int claimed;              /* a thread will run the next batch (see above) */
    int claim_running;        /* and runs it now */
    int held;                 /* kh_store_async_hold(): no batch starts */
    uint64_t claim_gen;       /* which claim: one taken back is not run twice */
    pthread_t th;
    atomic_uint_fast64_t batches, writes, submitted, claimed_batches;
};

/* This thread's claims (see the top of the file). */
static _Thread_local int tl_may_claim;
static _Thread_local struct kh_store_async *tl_claim;
static _Thread_local uint64_t tl_claim_gen;

void kh_store_async_free(struct kh_async_write *w)
{
    size_t i;
    if (!w)
        return;
    for (i = 0; i < w->n; i++) {
        free((char *)w->ops[i].id);
        json_object_put(w->ops[i].doc);
    }
    free(w->ops);
    free(w->coll);
    free(w->pre_text);
    free(w->pre_offs);
    free(w->pre_vfirst);
    free(w->pre_vlens);
    free(w);
}

static void run_batch(struct kh_store_async *a, struct kh_async_write *list)
{
    struct kh_async_write *w, *next;

    if (a->batch) {
        a->batch(a->b, list);
    } else {
        for (w = list; w; w = w->next)
            w->rc = a->b->ops->bulk(a->b, w->coll, w->ops, w->n, &w->err);
    }
    atomic_fetch_add_explicit(&a->batches, 1, memory_order_relaxed);
    for (w = list; w; w = next) {
        kytos_store_done_fn done = w->done;
        void *ud = w->ud;
        int rc = w->rc;
        struct kytos_error err = w->err;

        next = w->next;
        atomic_fetch_add_explicit(&a->writes, 1, memory_order_relaxed);
        if (a->count)
            a->count(a->count_ctx, rc, &err);
        /* the docs go before done: they may share json-c objects with
         * whatever done lets go of (a request's body), and json-c's
         * reference counts are not atomic */
        kh_store_async_free(w);
        done(ud, rc, rc < 0 ? &err : NULL);
    }
}

/* The next batch off the queue (a->mu held, a->head set). */
static struct kh_async_write *take_batch(struct kh_store_async *a)
{
    struct kh_async_write *list = a->head, *last = list;
    size_t n = 1;

    while (last->next && n < ASYNC_BATCH_MAX) {
        last = last->next;
        n++;
    }
    a->head = last->next;
    if (!a->head)
        a->tail = &a->head;
    last->next = NULL;
    a->queued -= n;
    return list;
}

static void *writer_main(void *p)
{
    struct kh_store_async *a = p;

    pthread_mutex_lock(&a->mu);
    for (;;) {
        struct kh_async_write *list;

        while (((!a->head || a->claimed || a->held) && !a->stopping) || a->claim_running) {
            if (a->running) {
                a->running = 0;
                pthread_cond_broadcast(&a->idle_cv);
            }
            a->sleeping = 1;
            pthread_cond_wait(&a->cv, &a->mu);
            a->sleeping = 0;
        }
        if (!a->head)
            break;   /* stopping and drained */
        a->claimed = 0;   /* stopping: a claim not run yet is ours now */
        list = take_batch(a);
        a->running = 1;
        pthread_mutex_unlock(&a->mu);
        run_batch(a, list);
        pthread_mutex_lock(&a->mu);
    }
    a->running = 0;
    pthread_cond_broadcast(&a->idle_cv);
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

struct kh_store_async *kh_store_async_new(struct kh_store_backend *b, kh_store_bulk_batch_fn batch,
                                          size_t max_queued,
                                          void (*count)(void *ctx, int rc, const struct kytos_error *e),
                                          void *count_ctx)
{
    struct kh_store_async *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->b = b;
    a->batch = batch;
    a->max = max_queued ? max_queued : 4096;
    a->count = count;
    a->count_ctx = count_ctx;
    a->tail = &a->head;
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->cv, NULL);
    pthread_cond_init(&a->idle_cv, NULL);
    pthread_cond_init(&a->queued_cv, NULL);
    return a;
}

/* Unlock, then signal the writer if wake: after the unlock, so that a
 * writer woken on another core does not run into our lock. */
static void unlock_and_wake(struct kh_store_async *a, int wake)
{
    pthread_mutex_unlock(&a->mu);
    if (wake)
        pthread_cond_signal(&a->cv);
}

int kh_store_async_submit(struct kh_store_async *a, struct kh_async_write *w, struct kytos_error *err)
{
    int rc = 0, wake = 0;

    w->next = NULL;
    pthread_mutex_lock(&a->mu);
    if (a->stopping) {
        rc = kh_store_err(err, KYTOS_EUNAVAIL, "the store is closing");
    } else if (a->queued >= a->max) {
        rc = kh_store_err(err, KYTOS_EFULL, "%zu writes are already queued (the limit)", a->queued);
    } else if (!a->started) {
        if (pthread_create(&a->th, NULL, writer_main, a) != 0)
            rc = kh_store_err(err, KYTOS_ENOMEM, "cannot start the store's writer thread");
        else {
            pthread_setname_np(a->th, "store-writer");
            kh_thread_batch(a->th);   /* (thread_batch.h: why) */
            a->started = 1;
        }
    }
    if (rc == 0) {
        atomic_fetch_add_explicit(&a->submitted, 1, memory_order_relaxed);
        *a->tail = w;
        a->tail = &w->next;
        a->queued++;
        if (a->queued_waiters)
            pthread_cond_broadcast(&a->queued_cv);
        /* a writer at work looks at the queue again before it sleeps: only
         * a sleeping one is woken, once: no futex call per write while it
         * works (on one core, each wake-up could also let it preempt a
         * caller that holds its own locks) */
        if (a->claimed && !a->claim_running && tl_claim != a) {
            /* another thread's write: a claim covers its own thread's
             * writes only (this one's writer may be waiting for it while
             * the claiming handler waits for something else): the writer
             * takes the lot, in order */
            a->claimed = 0;
            if (a->sleeping) {
                a->sleeping = 0;
                wake = 1;
            }
        } else if (a->sleeping && !a->claimed) {
            if (tl_may_claim && a->claims_ok && !tl_claim && a->queued == 1 && !a->held) {
                a->claimed = 1;
                tl_claim = a;
                tl_claim_gen = ++a->claim_gen;
            } else {
                a->sleeping = 0;
                wake = 1;
            }
        }
    }
    unlock_and_wake(a, wake);
    return rc;
}

void kh_store_async_allow_claims(struct kh_store_async *a)
{
    a->claims_ok = 1;
}

/* Give this thread's claim back to the writer (a->mu held): it runs the
 * batch.  True when the writer is to be signalled (after the unlock). */
static int unclaim_locked(struct kh_store_async *a, uint64_t gen)
{
    if (!a->claimed || a->claim_gen != gen)
        return 0;
    a->claimed = 0;
    if (a->head && a->sleeping) {
        a->sleeping = 0;
        return 1;
    }
    return 0;
}

int kh_store_claims_allow(int on)
{
    int prev = tl_may_claim;

    tl_may_claim = on;
    return prev;
}

void kh_store_claims_release(void)
{
    struct kh_store_async *a = tl_claim;

    if (!a)
        return;
    tl_claim = NULL;
    pthread_mutex_lock(&a->mu);
    unlock_and_wake(a, unclaim_locked(a, tl_claim_gen));
}

void kh_store_claims_run(void)
{
    struct kh_store_async *a = tl_claim;
    struct kh_async_write *list;
    int wake;

    if (!a)
        return;
    tl_claim = NULL;
    pthread_mutex_lock(&a->mu);
    if (!a->claimed || a->claim_gen != tl_claim_gen || !a->head || a->held) {
        /* taken back (the queue is closing), or held: the writer has it */
        unlock_and_wake(a, unclaim_locked(a, tl_claim_gen));
        return;
    }
    list = take_batch(a);
    a->claim_running = 1;
    pthread_mutex_unlock(&a->mu);
    atomic_fetch_add_explicit(&a->claimed_batches, 1, memory_order_relaxed);
    run_batch(a, list);
    pthread_mutex_lock(&a->mu);
    a->claim_running = 0;
    a->claimed = 0;
    wake = (a->head || a->stopping) && a->sleeping;
    if (wake)
        a->sleeping = 0;
    if (!a->head)
        pthread_cond_broadcast(&a->idle_cv);
    unlock_and_wake(a, wake);
}

void kh_store_async_close(struct kh_store_async *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    a->stopping = 1;
    pthread_cond_signal(&a->cv);
    pthread_mutex_unlock(&a->mu);
    if (a->started)
        pthread_join(a->th, NULL);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    pthread_cond_destroy(&a->idle_cv);
    pthread_cond_destroy(&a->queued_cv);
    free(a);
}

void kh_store_async_hold(struct kh_store_async *a, int on)
{
    int wake = 0;

    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    a->held = on != 0;
    if (!a->held && a->head && a->sleeping && !a->claimed) {
        a->sleeping = 0;
        wake = 1;
    }
    unlock_and_wake(a, wake);
}

static void deadline_in(struct timespec *ts, int timeout_ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += timeout_ms / 1000;
    ts->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

int kh_store_async_await_queued(struct kh_store_async *a, size_t n, int timeout_ms)
{
    struct timespec ts;
    int rc = 0;

    if (!a)
        return KYTOS_EINVAL;
    deadline_in(&ts, timeout_ms);
    pthread_mutex_lock(&a->mu);
    a->queued_waiters++;
    while (a->queued < n && rc == 0)
        rc = pthread_cond_timedwait(&a->queued_cv, &a->mu, &ts);
    a->queued_waiters--;
    rc = a->queued < n ? KYTOS_ETIMEDOUT : 0;
    pthread_mutex_unlock(&a->mu);
    return rc;
}

uint64_t kh_store_async_submitted(struct kh_store_async *a)
{
    return a ? (uint64_t)atomic_load(&a->submitted) : 0;
}

int kh_store_async_idle(struct kh_store_async *a, int timeout_ms)
{
    struct timespec ts;
    int rc = 0;

    if (!a)
        return 0;
    deadline_in(&ts, timeout_ms);
    pthread_mutex_lock(&a->mu);
    while ((a->head || a->running || a->claim_running) && rc == 0)
        rc = pthread_cond_timedwait(&a->idle_cv, &a->mu, &ts);
    rc = (a->head || a->running || a->claim_running) ? KYTOS_ETIMEDOUT : 0;
    pthread_mutex_unlock(&a->mu);
    return rc;
}

void kh_store_async_status(struct kh_store_async *a, struct json_object *st)
{
    struct json_object *o = json_object_new_object();
    size_t q;

    if (!o)
        return;
    pthread_mutex_lock(&a->mu);
    q = a->queued;
    pthread_mutex_unlock(&a->mu);
    json_object_object_add(o, "queued", json_object_new_int64((int64_t)q));
    json_object_object_add(o, "max", json_object_new_int64((int64_t)a->max));
    json_object_object_add(o, "batches", json_object_new_int64((int64_t)atomic_load(&a->batches)));
    json_object_object_add(o, "writes", json_object_new_int64((int64_t)atomic_load(&a->writes)));
    json_object_object_add(o, "claimed_batches",
                           json_object_new_int64((int64_t)atomic_load(&a->claimed_batches)));
    json_object_object_add(st, "async", o);
}
