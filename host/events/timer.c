/* host/events/timer.c - a schedule thread sleeping until the earliest due timer,
 * submitting each due timer to the pool unless its last run is still
 * queued or running. */
#include "events/timer.h"
#include "events/event_util.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum tstate { T_IDLE, T_BUSY };

struct timer {
    struct timer *next;
    kh_timers *owner;
    kytos_napp *napp;
    kytos_timer_fn fn;
    void *ud;
    int64_t interval_us, due_us;
    int state;     /* T_BUSY from submit until the run ends */
    int removed;
};

struct kh_timers {
    struct kh_napp_ops ops;
    kh_workpool *pool;
    pthread_mutex_t mu;
    pthread_cond_t cv;        /* schedule changes, runs ending */
    struct timer *list;       /* live timers */
    struct timer *dead;       /* removed while busy: freed when idle or at free */
    pthread_t thread;
    int started, stopping;
    uint64_t runs, skipped;
};

kh_timers *kh_timers_new(const struct kh_napp_ops *ops, kh_workpool *pool)
{
    kh_timers *t = calloc(1, sizeof *t);

    if (!t)
        return NULL;
    t->ops = *ops;
    t->pool = pool;
    pthread_mutex_init(&t->mu, NULL);
    kh_cond_init_mono(&t->cv);
    return t;
}

static void run_timer(void *arg)
{
    struct timer *tm = arg;
    kh_timers *t = tm->owner;
    int go;

    pthread_mutex_lock(&t->mu);
    go = !tm->removed && !t->stopping;
    pthread_mutex_unlock(&t->mu);
    if (go && t->ops.is_active(tm->napp))
        tm->fn(tm->napp, tm->ud);
    t->ops.unref(tm->napp);
    pthread_mutex_lock(&t->mu);
    tm->state = T_IDLE;
    tm->due_us = kh_mono_us() + tm->interval_us;
    t->runs++;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

static void *schedule_main(void *arg)
{
    kh_timers *t = arg;
    struct timespec ts;

    pthread_mutex_lock(&t->mu);
    while (!t->stopping) {
        int64_t now = kh_mono_us(), next = INT64_MAX;
        struct timer *tm;

        for (tm = t->list; tm; tm = tm->next) {
            if (tm->state != T_IDLE)
                continue;
            if (tm->due_us <= now) {
                tm->state = T_BUSY;
                t->ops.ref(tm->napp);
                if (kh_workpool_submit(t->pool, run_timer, tm, 0) != 0) {
                    /* pool full or stopping: skip this tick, try next interval */
                    t->ops.unref(tm->napp);
                    tm->state = T_IDLE;
                    tm->due_us = now + tm->interval_us;
                    t->skipped++;
                }
            }
            if (tm->state == T_IDLE && tm->due_us < next)
                next = tm->due_us;
        }
        if (next == INT64_MAX) {
            pthread_cond_wait(&t->cv, &t->mu);
        } else {
            kh_deadline_at_us(&ts, next);
            pthread_cond_timedwait(&t->cv, &t->mu, &ts);
        }
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

int kh_timers_start(kh_timers *t)
{
    int rc = 0;

    pthread_mutex_lock(&t->mu);
    if (!t->started && !t->stopping) {
        struct timer *tm;
        int64_t now = kh_mono_us();
        for (tm = t->list; tm; tm = tm->next)
            tm->due_us = now;
        if (pthread_create(&t->thread, NULL, schedule_main, t) == 0) {
            pthread_setname_np(t->thread, "kh-timers");
            t->started = 1;
        } else {
            rc = KYTOS_ENOMEM;
        }
    }
    pthread_mutex_unlock(&t->mu);
    return rc;
}

int kh_timers_add(kh_timers *t, kytos_napp *n, unsigned interval_ms, kytos_timer_fn fn, void *ud)
{
    struct timer *tm;
    int rc = 0;

    if (!fn || interval_ms < KH_TIMER_MIN_MS || interval_ms > KH_TIMER_MAX_MS)
        return KYTOS_EINVAL;
    tm = calloc(1, sizeof *tm);
    if (!tm)
        return KYTOS_ENOMEM;
    tm->owner = t;
    tm->napp = n;
    tm->fn = fn;
    tm->ud = ud;
    tm->interval_us = (int64_t)interval_ms * 1000;
    tm->due_us = kh_mono_us();
    pthread_mutex_lock(&t->mu);
    if (t->stopping) {
        rc = KYTOS_ESTATE;
        free(tm);
    } else {
        tm->next = t->list;
        t->list = tm;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
    return rc;
}

/* Free dead timers that went idle. */
static void reap_locked(kh_timers *t)
{
    struct timer **pp = &t->dead;

    while (*pp) {
        struct timer *tm = *pp;
        if (tm->state == T_IDLE) {
            *pp = tm->next;
            free(tm);
        } else {
            pp = &tm->next;
        }
    }
}

static int busy_locked(kh_timers *t, kytos_napp *n)
{
    struct timer *tm;

    for (tm = t->dead; tm; tm = tm->next)
        if (tm->state != T_IDLE && (!n || tm->napp == n))
            return 1;
    return 0;
}

static int wait_idle_locked(kh_timers *t, kytos_napp *n, int64_t deadline_us)
{
    struct timespec ts;

    kh_deadline_at_us(&ts, deadline_us);
    while (busy_locked(t, n)) {
        if (pthread_cond_timedwait(&t->cv, &t->mu, &ts) == ETIMEDOUT && busy_locked(t, n))
            return KYTOS_ETIMEDOUT;
    }
    reap_locked(t);
    return 0;
}

int kh_timers_remove_napp(kh_timers *t, kytos_napp *n, int64_t deadline_us)
{
    struct timer **pp;
    int rc;

    pthread_mutex_lock(&t->mu);
    pp = &t->list;
    while (*pp) {
        struct timer *tm = *pp;
        if (tm->napp == n) {
            *pp = tm->next;
            tm->removed = 1;
            tm->next = t->dead;
            t->dead = tm;
        } else {
            pp = &tm->next;
        }
    }
    rc = wait_idle_locked(t, n, deadline_us);
    pthread_mutex_unlock(&t->mu);
    return rc;
}

int kh_timers_stop(kh_timers *t, int64_t deadline_us)
{
    int rc, join;

    pthread_mutex_lock(&t->mu);
    t->stopping = 1;
    while (t->list) {
        struct timer *tm = t->list;
        t->list = tm->next;
        tm->removed = 1;
        tm->next = t->dead;
        t->dead = tm;
    }
    join = t->started;
    t->started = 0;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    if (join)
        pthread_join(t->thread, NULL);
    pthread_mutex_lock(&t->mu);
    rc = wait_idle_locked(t, NULL, deadline_us);
    pthread_mutex_unlock(&t->mu);
    return rc;
}

void kh_timers_free(kh_timers *t)
{
    if (!t)
        return;
    /* the pool is stopped by now: every queued run has ended */
    kh_timers_stop(t, kh_mono_us());
    while (t->dead) {
        struct timer *tm = t->dead;
        t->dead = tm->next;
        free(tm);
    }
    pthread_mutex_destroy(&t->mu);
    pthread_cond_destroy(&t->cv);
    free(t);
}

struct json_object *kh_timers_status(kh_timers *t)
{
    struct json_object *o = json_object_new_object();
    struct timer *tm;
    int64_t n = 0;

    pthread_mutex_lock(&t->mu);
    for (tm = t->list; tm; tm = tm->next)
        n++;
    json_object_object_add(o, "count", json_object_new_int64(n));
    json_object_object_add(o, "runs", json_object_new_int64((int64_t)t->runs));
    json_object_object_add(o, "skipped", json_object_new_int64((int64_t)t->skipped));
    pthread_mutex_unlock(&t->mu);
    return o;
}
