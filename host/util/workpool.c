/* host/util/workpool.c - fixed-size thread pool with a bounded FIFO ring.
 *
 * One mutex per pool guards the ring; workers sleep on `ready`, blocked
 * submitters on `room`, drainers on `idle`.  Jobs are never dropped once
 * accepted: free() runs what is queued before joining. */
#define _GNU_SOURCE 1
#include <sched.h>
#include "util/workpool.h"
#include "util/thread_batch.h"
#include "util/base.h"
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
    int64_t last_done_ns;         /* a job finished: the threads are not all stuck */
    unsigned base_threads;        /* running at once, unless stuck: the CPUs we may use */
    unsigned wakes;               /* signalled, not yet awake */
    int watched;                  /* on the grower's list (work waits, no thread for it) */
    _Atomic int64_t shed_until_ns;
    uint64_t slow_dequeues;
    kh_workpool *gnext;           /* every pool, for the grower */
};

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Handlers are not deeply recursive; the deepest is the strict JSON
 * parser: about 200 bytes a level, 13 KB at its default depth limit (64),
 * 200 KB at the largest one allowed (1000). */
#define WORKER_STACK (512 * 1024)

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

/* A job is queued (p->mu held): see that a thread will run it, without
 * waking one thread per job.  At most base_threads (the CPUs this process
 * may use) run or are being woken at once; the threads already running
 * take the next job from the queue when they finish one, without sleeping.
 * On one core, waking a thread per job made every event and request a
 * context switch (bench: POST flows, 2 per request in the "sb" pool alone).
 * When the running threads are stuck (no job finished for a millisecond:
 * they wait on I/O, a lock, another NApp), one more runs each millisecond:
 * an idle thread woken, or a new one started, up to max_threads.  Returns
 * 1 while work waits, so the grower thread can do that when no submit or
 * dequeue comes to call this. */
#define GROW_NS 1000000

/* One more thread on the queue: an idle one woken, else a new one. */
static void add_runner_locked(kh_workpool *p)
{
    if (p->idle > p->wakes) {
        p->wakes++;
        pthread_cond_signal(&p->ready);
    } else {
        spawn_locked(p);
    }
}

static int kick_locked(kh_workpool *p)
{
    int64_t now;

    if (p->count == 0 || p->stopping)
        return 0;
    if (p->nthreads >= p->max_threads && p->idle <= p->wakes)
        return 0;   /* nothing to add: the running threads take the queue in turn */
    if (p->active + p->wakes < p->base_threads) {
        add_runner_locked(p);
        return 1;
    }
    now = mono_ns();
    if (now - p->last_done_ns >= GROW_NS && now - p->last_spawn_ns >= GROW_NS) {
        p->last_spawn_ns = now;
        add_runner_locked(p);
    }
    return 1;
}

/* ---- the grower: one thread for every pool, awake only while some pool
 * has work waiting and no thread for it ---- */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    kh_workpool *pools;
    unsigned npools, nwatched;
    int running, stop;
    pthread_t th;
} grower = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, 0, 0, 0};

static void *grower_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&grower.mu);
    while (!grower.stop) {
        kh_workpool *p;
        struct timespec ts;

        if (grower.nwatched == 0) {
            pthread_cond_wait(&grower.cv, &grower.mu);
            continue;
        }
        for (p = grower.pools; p; p = p->gnext) {
            if (!p->watched)
                continue;
            pthread_mutex_lock(&p->mu);
            if (!kick_locked(p)) {
                p->watched = 0;
                grower.nwatched--;
            }
            pthread_mutex_unlock(&p->mu);
        }
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += GROW_NS;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&grower.cv, &grower.mu, &ts);
    }
    pthread_mutex_unlock(&grower.mu);
    return NULL;
}

/* Called without p->mu (lock order: grower.mu, then a pool's mu). */
static void grower_watch(kh_workpool *p)
{
    pthread_mutex_lock(&grower.mu);
    pthread_mutex_lock(&p->mu);
    if (!p->watched && !p->stopping) {
        p->watched = 1;
        if (grower.nwatched++ == 0)
            pthread_cond_signal(&grower.cv);   /* else it is polling already */
    }
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_unlock(&grower.mu);
}

static void grower_add(kh_workpool *p)
{
    pthread_mutex_lock(&grower.mu);
    p->gnext = grower.pools;
    grower.pools = p;
    if (grower.npools++ == 0 && !grower.running) {
        grower.stop = 0;
        if (pthread_create(&grower.th, NULL, grower_main, NULL) == 0) {
            pthread_setname_np(grower.th, "kh-grower");
            grower.running = 1;
        }
    }
    pthread_mutex_unlock(&grower.mu);
}

static void grower_remove(kh_workpool *p)
{
    kh_workpool **pp;
    int join = 0;

    pthread_mutex_lock(&grower.mu);
    for (pp = &grower.pools; *pp && *pp != p; pp = &(*pp)->gnext)
        ;
    if (*pp)
        *pp = p->gnext;
    if (p->watched) {
        p->watched = 0;
        grower.nwatched--;
    }
    if (--grower.npools == 0 && grower.running) {
        grower.stop = 1;
        grower.running = 0;
        pthread_cond_signal(&grower.cv);
        join = 1;
    }
    pthread_mutex_unlock(&grower.mu);
    if (join)
        pthread_join(grower.th, NULL);
}

static unsigned cpus_usable(void)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    return n < 2 ? 2 : (unsigned)n;
}

static void *worker_main(void *arg)
{
    kh_workpool *p = arg;

    current_pool = p;
    /* a worker woken for a job must not preempt the I/O thread that
     * queued it (thread_batch.h) */
    kh_thread_batch(pthread_self());
    pthread_mutex_lock(&p->mu);
    for (;;) {
        p->idle++;
        while (p->count == 0 && !p->stopping) {
            pthread_cond_wait(&p->ready, &p->mu);
            if (p->wakes)
                p->wakes--;
        }
        p->idle--;
        if (p->count == 0 && p->stopping)
            break;
        struct job j = p->ring[p->head];
        p->head = (p->head + 1) % p->cap;
        p->count--;
        p->active++;
        /* a job still queued and nobody idle: get it a thread */
        if (kick_locked(p) && !p->watched) {
            pthread_mutex_unlock(&p->mu);
            grower_watch(p);
            pthread_mutex_lock(&p->mu);
        }
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
        p->last_done_ns = mono_ns();
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
    p->base_threads = cpus_usable();
    pthread_mutex_lock(&p->mu);
    spawn_locked(p);
    pthread_mutex_unlock(&p->mu);
    grower_add(p);
    if (p->nthreads == 0) {
        kh_workpool_free(p);
        return NULL;
    }
    return p;
}

int kh_workpool_submit(kh_workpool *p, kh_work_fn fn, void *arg, int timeout_ms)
{
    struct timespec dl;
    int rc = 0, watch = 0;

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
        watch = kick_locked(p) && !p->watched;
    } else {
        p->rejected++;
    }
    pthread_mutex_unlock(&p->mu);
    if (watch)
        grower_watch(p);
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
    p->stopping = 1;   /* first: no submit or worker can put it on the grower's watch again */
    pthread_cond_broadcast(&p->ready);
    pthread_cond_broadcast(&p->room);
    pthread_mutex_unlock(&p->mu);
    grower_remove(p);
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

size_t kh_workpool_queued(kh_workpool *p)
{
    size_t n;
    pthread_mutex_lock(&p->mu);
    n = p->count;
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
