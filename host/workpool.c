/* host/workpool.c - fixed-size thread pool with a bounded FIFO ring.
 *
 * One mutex per pool guards the ring; workers sleep on `ready`, blocked
 * submitters on `room`, drainers on `idle`.  Jobs are never dropped once
 * accepted: free() runs what is queued before joining. */
#include "workpool.h"
#include "host.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct job {
    kh_work_fn fn;
    void *arg;
    int64_t queued_ns;
};

struct kh_workpool {
    char name[64];
    pthread_mutex_t mu;
    pthread_cond_t ready, room, idle_cv;
    struct job *ring;
    size_t cap, head, count;
    unsigned nthreads, max_threads, active, idle;
    int stopping;
    pthread_t *threads;
    pthread_attr_t attr;
    uint64_t done, rejected;
    size_t high_water;
    /* load shedding (CoDel's idea): when jobs wait longer than target_ns in
     * the queue, callers are told to shed new work for a while */
    int64_t target_ns;
    int64_t last_spawn_ns;
    _Atomic int64_t shed_until_ns;
    uint64_t slow_dequeues;
};

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define WORKER_STACK (512 * 1024) /* handlers are not deeply recursive */

static __thread const kh_workpool *current_pool;
static void *worker_main(void *arg);

/* Threads start on demand, as Python's ThreadPoolExecutor does, so a pool
 * sized like Kytos' (512) costs nothing until the load needs it; past 16
 * threads at most one a millisecond, so a burst of CPU-bound jobs does not
 * start hundreds of threads that only compete for the cores. */
static void spawn_locked(kh_workpool *p)
{
    char tname[16];

    if (p->nthreads >= p->max_threads)
        return;
    if (pthread_create(&p->threads[p->nthreads], &p->attr, worker_main, p) != 0)
        return;
    snprintf(tname, sizeof tname, "%.10s-%u", p->name, p->nthreads);
    pthread_setname_np(p->threads[p->nthreads], tname);
    p->nthreads++;
}

static void deadline_after(struct timespec *ts, int ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static void cond_init_monotonic(pthread_cond_t *c)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(c, &a);
    pthread_condattr_destroy(&a);
}

/* More queued jobs than idle threads: start one more, freely up to 16
 * threads, then at most one a millisecond.  Checked on every submit and
 * every dequeue, so a job queued behind busy threads gets one as soon as
 * the last idle thread takes work. */
static void maybe_spawn_locked(kh_workpool *p)
{
    int64_t now;
    if (p->count <= p->idle || p->nthreads >= p->max_threads)
        return;
    now = mono_ns();
    if (p->nthreads < 16 || now - p->last_spawn_ns >= 1000000) {
        p->last_spawn_ns = now;
        spawn_locked(p);
    }
}

static void *worker_main(void *arg)
{
    kh_workpool *p = arg;

    current_pool = p;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        p->idle++;
        while (p->count == 0 && !p->stopping)
            pthread_cond_wait(&p->ready, &p->mu);
        p->idle--;
        if (p->count == 0 && p->stopping)
            break;
        struct job j = p->ring[p->head];
        p->head = (p->head + 1) % p->cap;
        p->count--;
        p->active++;
        maybe_spawn_locked(p);   /* a job still queued and nobody idle: get it a thread */
        if (p->target_ns) {
            int64_t now = mono_ns();
            if (now - j.queued_ns > p->target_ns) {
                /* shed for one target interval past the last slow dequeue */
                atomic_store(&p->shed_until_ns, now + p->target_ns);
                p->slow_dequeues++;
            }
        }
        pthread_cond_signal(&p->room);
        pthread_mutex_unlock(&p->mu);

        j.fn(j.arg);

        pthread_mutex_lock(&p->mu);
        p->active--;
        p->done++;
        if (p->count == 0 && p->active == 0)
            pthread_cond_broadcast(&p->idle_cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

kh_workpool *kh_workpool_new(const char *name, unsigned threads, size_t queue_max)
{
    kh_workpool *p;

    if (threads == 0)
        threads = 1;
    if (threads > 4096)
        threads = 4096;
    if (queue_max == 0)
        queue_max = (size_t)threads * 64;
    p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->name, sizeof p->name, "%s", name ? name : "pool");
    p->cap = queue_max;
    p->ring = calloc(queue_max, sizeof *p->ring);
    p->max_threads = threads;
    p->threads = calloc(threads, sizeof *p->threads);
    if (!p->ring || !p->threads) {
        free(p->ring);
        free(p->threads);
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->ready, NULL);
    cond_init_monotonic(&p->room);
    cond_init_monotonic(&p->idle_cv);
    pthread_attr_init(&p->attr);
    pthread_attr_setstacksize(&p->attr, WORKER_STACK);
    pthread_mutex_lock(&p->mu);
    spawn_locked(p);
    pthread_mutex_unlock(&p->mu);
    if (p->nthreads == 0) {
        kh_workpool_free(p);
        return NULL;
    }
    return p;
}

int kh_workpool_submit(kh_workpool *p, kh_work_fn fn, void *arg, int timeout_ms)
{
    struct timespec dl;
    int rc = 0;

    pthread_mutex_lock(&p->mu);
    if (timeout_ms > 0)
        deadline_after(&dl, timeout_ms);
    while (!p->stopping && p->count == p->cap) {
        if (timeout_ms == 0) {
            rc = KYTOS_EFULL;
            break;
        }
        if (timeout_ms < 0) {
            pthread_cond_wait(&p->room, &p->mu);
        } else if (pthread_cond_timedwait(&p->room, &p->mu, &dl) == ETIMEDOUT) {
            rc = KYTOS_ETIMEDOUT;
            break;
        }
    }
    if (rc == 0 && p->stopping)
        rc = KYTOS_EUNAVAIL;
    if (rc == 0) {
        p->ring[(p->head + p->count) % p->cap] = (struct job){fn, arg, p->target_ns ? mono_ns() : 0};
        p->count++;
        if (p->count > p->high_water)
            p->high_water = p->count;
        maybe_spawn_locked(p);
        pthread_cond_signal(&p->ready);
    } else {
        p->rejected++;
    }
    pthread_mutex_unlock(&p->mu);
    return rc;
}

int kh_workpool_drain(kh_workpool *p, int timeout_ms)
{
    struct timespec dl;
    int rc = 0;

    if (kh_workpool_is_worker(p))
        return KYTOS_ESTATE; /* a worker waiting for its own pool would deadlock */
    pthread_mutex_lock(&p->mu);
    if (timeout_ms > 0)
        deadline_after(&dl, timeout_ms);
    while (p->count > 0 || p->active > 0) {
        if (timeout_ms == 0) {
            rc = KYTOS_ETIMEDOUT;
            break;
        }
        if (timeout_ms < 0)
            pthread_cond_wait(&p->idle_cv, &p->mu);
        else if (pthread_cond_timedwait(&p->idle_cv, &p->mu, &dl) == ETIMEDOUT) {
            rc = (p->count > 0 || p->active > 0) ? KYTOS_ETIMEDOUT : 0;
            break;
        }
    }
    pthread_mutex_unlock(&p->mu);
    return rc;
}

void kh_workpool_free(kh_workpool *p)
{
    unsigned i;

    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stopping = 1;
    pthread_cond_broadcast(&p->ready);
    pthread_cond_broadcast(&p->room);
    pthread_mutex_unlock(&p->mu);
    for (i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    pthread_attr_destroy(&p->attr);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->ready);
    pthread_cond_destroy(&p->room);
    pthread_cond_destroy(&p->idle_cv);
    free(p->ring);
    free(p->threads);
    free(p);
}

void kh_workpool_set_target(kh_workpool *p, unsigned ms)
{
    pthread_mutex_lock(&p->mu);
    p->target_ns = (int64_t)ms * 1000000;
    pthread_mutex_unlock(&p->mu);
}

int kh_workpool_shedding(kh_workpool *p)
{
    int64_t until = atomic_load(&p->shed_until_ns);
    return until && mono_ns() < until;
}

int kh_workpool_is_worker(const kh_workpool *p) { return current_pool == p; }
int kh_workpool_in_any_worker(void) { return current_pool != NULL; }
const char *kh_workpool_name(const kh_workpool *p) { return p->name; }
unsigned kh_workpool_threads(const kh_workpool *p) { return p->max_threads; }

size_t kh_workpool_queued(kh_workpool *p)
{
    size_t n;
    pthread_mutex_lock(&p->mu);
    n = p->count;
    pthread_mutex_unlock(&p->mu);
    return n;
}

unsigned kh_workpool_active(kh_workpool *p)
{
    unsigned n;
    pthread_mutex_lock(&p->mu);
    n = p->active;
    pthread_mutex_unlock(&p->mu);
    return n;
}

struct json_object *kh_workpool_status(kh_workpool *p)
{
    struct json_object *o = json_object_new_object();

    pthread_mutex_lock(&p->mu);
    json_object_object_add(o, "threads", json_object_new_int64(p->nthreads));
    json_object_object_add(o, "max_threads", json_object_new_int64(p->max_threads));
    json_object_object_add(o, "active", json_object_new_int64(p->active));
    json_object_object_add(o, "queued", json_object_new_int64((int64_t)p->count));
    json_object_object_add(o, "queue_max", json_object_new_int64((int64_t)p->cap));
    json_object_object_add(o, "high_water", json_object_new_int64((int64_t)p->high_water));
    json_object_object_add(o, "rejected", json_object_new_int64((int64_t)p->rejected));
    json_object_object_add(o, "done", json_object_new_int64((int64_t)p->done));
    json_object_object_add(o, "slow_dequeues", json_object_new_int64((int64_t)p->slow_dequeues));
    pthread_mutex_unlock(&p->mu);
    return o;
}
