/* host/events/eventbus.c - the bus: publish, consumers, dispatch to pools, handler
 * runs, unload, drain, shutdown, status.  See eventbus.h for the flow.
 *
 * Accounting, so that drain and unload wait on conditions, never on sleeps:
 * - b->outstanding counts events accepted and not yet dispatched plus jobs
 *   created and not yet finished; a handler's publish raises it before its
 *   own job ends, so zero means everything triggered has run.
 * - sub->inflight counts the jobs of one subscription.  Dispatch raises it
 *   before checking sub->removed; unload sets removed before waiting for
 *   zero (seq_cst both sides), so no job can start after unload returns. */
#include "events/eventbus.h"
#include "events/deadletter.h"
#include "events/event_buffer.h"
#include "events/event_conf.h"
#include "events/event_match.h"
#include "events/event_obj.h"
#include "events/event_util.h"
#include "util/log.h"
#include "events/pacer.h"
#include "events/queue_monitor.h"
#include "events/timer.h"
#include "util/workpool.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOGGER "kytos.core.events"
#define REINJECT_TIMEOUT_MS 100

enum { BUS_NEW, BUS_RUNNING, BUS_STOPPING, BUS_STOPPED };

struct bus_buf {
    kh_bus *bus;
    kh_buffer *buf;
    pthread_t thread;
    int started;
};

struct bus_pool {
    char name[KH_BUS_NAME_MAX];
    kh_workpool *wp;
};

/* The jobs of one event, allocated together; freed with the last one. */
struct kh_fan {
    atomic_uint refs;
    struct kh_ev *ev;
    struct kh_job {
        struct kh_fan *fan;
        kh_bus *bus;
        struct kh_sub *sub;
        struct json_object *content; /* the handler's own copy (view points here) */
        struct kytos_event view;
    } jobs[];
};

struct kh_bus {
    struct kh_bus_conf conf;
    struct kh_napp_ops ops;
    size_t nbufs, npools;
    struct bus_buf bufs[KH_BUS_MAX_BUFFERS];
    struct bus_pool pools[KH_BUS_MAX_POOLS]; /* wp NULL once stopped (under mu) */
    kh_workpool *sb, *app;
    kh_buffer *app_buf, *meta_buf;
    kh_subtab *subs;
    kh_deadletter *dl;
    kh_pacer *pacer;
    kh_timers *timers;
    kh_qmon *qmon;
    kh_bus_observer observer;
    void *observer_ud;
    const struct kh_bus_tap *tap; /* the live event stream's (kh_bus_set_tap) */
    void *tap_ud;
    atomic_int tap_on;
    atomic_uint ndirect;          /* "direct" subscriptions ever made */

    int complete;                /* construction finished */
    atomic_int state;
    atomic_int aborting;         /* the shutdown deadline passed: skip what is queued */
    atomic_long outstanding;

    pthread_mutex_t mu;          /* waits (drain, unload), pools, graveyard */
    pthread_cond_t cv;
    struct kh_sub **grave;       /* dynamic_single subs still busy after unload */
    size_t ngrave, capgrave;

    atomic_ullong published, delivered, failed, skipped, dropped, pool_waits, dl_refused;
};

/* The subscription whose handler runs on this thread (NULL elsewhere). */
static __thread struct kh_sub *tls_sub;

static void napp_log(kh_bus *b, kytos_napp *n, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void napp_log(kh_bus *b, kytos_napp *n, int level, const char *fmt, ...)
{
    const char *id = n ? b->ops.id(n) : NULL;
    char logger[KH_EVENT_NAME_MAX + 16];
    va_list ap;

    if (id)
        snprintf(logger, sizeof logger, "kytos.napps.%s", id);
    else
        snprintf(logger, sizeof logger, "%s", LOGGER);
    va_start(ap, fmt);
    kh_logv(logger, level, fmt, ap);
    va_end(ap);
}

static void wake_waiters(kh_bus *b)
{
    pthread_mutex_lock(&b->mu);
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

static void outstanding_done(kh_bus *b, long n)
{
    if (n > 0 && atomic_fetch_sub(&b->outstanding, n) == n)
        wake_waiters(b);
}

static void sub_enter(struct kh_sub *s)
{
    atomic_fetch_add(&s->inflight, 1);
}

static void sub_leave(kh_bus *b, struct kh_sub *s)
{
    if (atomic_fetch_sub(&s->inflight, 1) == 1 && atomic_load(&s->removed))
        wake_waiters(b);
}

/* May a job of s start now? */
static int sub_live(kh_bus *b, struct kh_sub *s)
{
    return !atomic_load(&s->removed) && !atomic_load(&b->aborting) && b->ops.is_active(s->napp);
}

static kh_buffer *find_buffer(kh_bus *b, const char *name)
{
    size_t i;

    for (i = 0; i < b->nbufs; i++)
        if (strcmp(kh_buffer_name(b->bufs[i].buf), name) == 0)
            return b->bufs[i].buf;
    return NULL;
}

static kh_workpool *find_pool(kh_bus *b, const char *name)
{
    size_t i;

    for (i = 0; i < b->npools; i++)
        if (strcmp(b->pools[i].name, name) == 0)
            return b->pools[i].wp;
    return NULL;
}

/* ---- handler runs ---- */

static void fan_unref(struct kh_fan *f)
{
    if (atomic_fetch_sub_explicit(&f->refs, 1, memory_order_acq_rel) != 1)
        return;
    kh_ev_unref(f->ev);
    free(f);
}

static void job_finish(kh_bus *b, struct kh_job *j)
{
    kytos_napp *n = j->sub->napp;
    struct kh_sub *s = j->sub;

    json_object_put(j->content);
    sub_leave(b, s);
    b->ops.unref(n);
    kh_sub_unref(s);
    fan_unref(j->fan); /* may free j */
    outstanding_done(b, 1);
}

static void handler_failed(kh_bus *b, struct kh_sub *s, struct kytos_event *view, int rc)
{
    atomic_fetch_add(&b->failed, 1);
    napp_log(b, s->napp, KH_ERROR,
             "handler of '%s' failed on event %s (id %s): %s (%d); event moved to the dead letter",
             s->pattern, view->ev->name, view->ev->id, kh_strerror(rc), rc);
    if (kh_deadletter_add(b->dl, view->ev, *view->content) != 0) {
        atomic_fetch_add(&b->dl_refused, 1);
        napp_log(b, s->napp, KH_ERROR, "dead letter full: event %s (id %s) dropped",
                 view->ev->name, view->ev->id);
    }
    *view->content = NULL; /* taken by the dead letter */
}

static void run_handler(kh_bus *b, struct kh_sub *s, struct kytos_event *view)
{
    struct kh_sub *prev = tls_sub;
    int rc;

    tls_sub = s;
    rc = s->fn(s->napp, view, s->ud);
    tls_sub = prev;
    atomic_fetch_add(&b->delivered, 1);
    if (rc < 0)
        handler_failed(b, s, view, rc);
}

static void job_run(void *arg)
{
    struct kh_job *j = arg;
    kh_bus *b = j->bus;

    if (!sub_live(b, j->sub)) {
        atomic_fetch_add(&b->skipped, 1);
    } else if (!j->content &&
               json_object_deep_copy(j->view.ev->content, &j->content, NULL) != 0) {
        json_object_put(j->content);
        j->content = NULL;
        atomic_fetch_add(&b->dropped, 1);
        kh_log(LOGGER, KH_ERROR, "out of memory copying event %s for '%s': dropped",
               j->view.ev->name, j->sub->pattern);
    } else {
        run_handler(b, j->sub, &j->view);
    }
    job_finish(b, j);
}

/* ---- dispatch (consumer threads) ---- */

static kh_workpool *route(kh_bus *b, const struct kh_sub *s, const char *name)
{
    if (s->route != KH_ROUTE_DEFAULT)
        return s->pool;
    /* Kytos' listen_to default: southbound events to sb, the rest to app */
    if (strncmp(name, "kytos/of_core", 13) == 0 || strncmp(name, "kytos/core.openflow", 19) == 0)
        return b->sb ? b->sb : b->app;
    return b->app;
}

static void submit(kh_bus *b, kh_workpool *pool, struct kh_job *j)
{
    int rc;

    /* A full pool blocks the consumer (backpressure); re-check now and then
     * whether shutdown gave up or the subscription went away. */
    for (;;) {
        rc = kh_workpool_submit(pool, job_run, j, (int)b->conf.submit_retry_ms);
        if (rc != KYTOS_ETIMEDOUT && rc != KYTOS_EFULL)
            break;
        atomic_fetch_add(&b->pool_waits, 1);
        if (atomic_load(&b->aborting) || atomic_load(&j->sub->removed))
            break;
    }
    if (rc != 0) {
        atomic_fetch_add(rc == KYTOS_EUNAVAIL || atomic_load(&b->aborting) ? &b->dropped
                                                                           : &b->skipped, 1);
        job_finish(b, j);
    }
}

/* Each handler gets its own copy of the content: json-c objects are not
 * safe to share between threads (serialising caches text inside them).
 * With one subscriber it takes the publish copy; with several, each job
 * copies the (then read-only) publish copy on its own worker thread, so
 * copies are made in parallel and allocated and freed by one thread. */
static void dispatch(kh_bus *b, struct kh_ev *e)
{
    struct kh_match *m = kh_subtab_match(b->subs, e->name);
    struct kh_fan *f;
    size_t i, k = 0;

    if (!m) {
        atomic_fetch_add(&b->dropped, 1);
        kh_log(LOGGER, KH_ERROR, "out of memory matching event %s: dropped", e->name);
        return;
    }
    if (m->n == 0) {
        kh_match_unref(m);
        return;
    }
    if (!(f = malloc(sizeof *f + m->n * sizeof f->jobs[0]))) {
        atomic_fetch_add(&b->dropped, 1);
        kh_log(LOGGER, KH_ERROR, "out of memory delivering event %s: dropped", e->name);
        kh_match_unref(m);
        return;
    }
    atomic_init(&f->refs, 1); /* ours, while we submit */
    f->ev = kh_ev_ref(e);
    for (i = 0; i < m->n; i++) {
        struct kh_sub *s = m->subs[i];
        struct kh_job *j;

        sub_enter(s);
        if (!sub_live(b, s)) {
            atomic_fetch_add(&b->skipped, 1);
            sub_leave(b, s);
            continue;
        }
        j = &f->jobs[k++];
        j->fan = f;
        j->bus = b;
        j->sub = kh_sub_ref(s);
        j->view.ev = e;
        j->view.content = &j->content;
        j->content = NULL;
        /* the observer may hold the publish copy: then every job copies */
        if (m->n == 1 && !b->observer) {
            j->content = e->content;
            e->content = NULL;
        }
        atomic_fetch_add(&f->refs, 1);
        b->ops.ref(s->napp);
        atomic_fetch_add(&b->outstanding, 1);
        if (s->route == KH_ROUTE_INLINE || s->route == KH_ROUTE_DIRECT)
            job_run(j);   /* no hand-off: this thread, in publish order */
        else
            submit(b, route(b, s, e->name), j);
    }
    fan_unref(f);
    kh_match_unref(m);
}

static void *consumer_main(void *arg)
{
    struct bus_buf *bb = arg;
    kh_bus *b = bb->bus;
    struct kh_ev *e;

    while ((e = kh_buffer_get(bb->buf))) {
        dispatch(b, e);
        kh_ev_unref(e);
        outstanding_done(b, 1);
    }
    return NULL;
}

/* ---- publish ---- */

/* Queue e (the caller's reference moves on success).  On failure e is
 * still the caller's.  With an observer, a slot is reserved first and the
 * observer runs before the event is visible to any consumer, so what it
 * records is in causal order (an event before the events its handlers
 * publish) and only accepted events are recorded. */
static int enqueue(kh_bus *b, kh_buffer *buf, struct kh_ev *e, int timeout_ms, int observe)
{
    int rc;

    observe = observe && b->observer;
    atomic_fetch_add(&b->outstanding, 1);
    if (!observe) {
        rc = kh_buffer_put(buf, e, timeout_ms);
    } else if ((rc = kh_buffer_reserve(buf, timeout_ms)) == 0) {
        b->observer(b->observer_ud, e->name, e->content);
        rc = kh_buffer_commit(buf, e);
    }
    if (rc != 0) {
        outstanding_done(b, 1);
        return rc;
    }
    atomic_fetch_add(&b->published, 1);
    return 0;
}

/* "direct" subscriptions: when every subscription to a name is direct, the
 * handlers run here, on the publisher's thread, before publish returns:
 * no buffer, no hand-off, no thread to wake (a simulated switch answering
 * a FlowMod).  A direct handler publishing a direct event nests; past
 * DIRECT_DEPTH_MAX nested levels, events take the buffer like inline ones. */
#define DIRECT_DEPTH_MAX 4
static __thread int tls_direct_depth;

static int all_direct(const struct kh_match *m)
{
    size_t i;
    for (i = 0; i < m->n; i++)
        if (m->subs[i]->route != KH_ROUTE_DIRECT)
            return 0;
    return m->n > 0;
}

/* content: the event's (given or copied by the caller). */
static int publish_direct(kh_bus *b, const struct kh_match *m, const char *name,
                          struct json_object *content, int priority)
{
    struct kh_ev *e = kh_ev_new(name, content, priority);
    size_t i;

    if (!e)
        return KYTOS_ENOMEM;
    if (b->observer)
        b->observer(b->observer_ud, e->name, e->content);
    atomic_fetch_add(&b->published, 1);
    tls_direct_depth++;
    for (i = 0; i < m->n; i++) {
        struct kh_sub *s = m->subs[i];
        struct json_object *own = NULL;
        struct kytos_event view = {e, &own};

        sub_enter(s);
        if (!sub_live(b, s)) {
            atomic_fetch_add(&b->skipped, 1);
            sub_leave(b, s);
            continue;
        }
        if (m->n == 1 && !b->observer) {
            own = e->content;   /* the only one: no copy */
            e->content = NULL;
        } else if (json_object_deep_copy(e->content, &own, NULL) != 0) {
            json_object_put(own);
            atomic_fetch_add(&b->dropped, 1);
            sub_leave(b, s);
            continue;
        }
        b->ops.ref(s->napp);
        run_handler(b, s, &view);
        b->ops.unref(s->napp);
        json_object_put(own);
        sub_leave(b, s);
    }
    tls_direct_depth--;
    kh_ev_unref(e);
    return 0;
}

/* Hand the event to the tap as JSON text.  A content that is not ours
 * (give == 0) may be read by the caller's other threads, and json-c caches
 * its text inside the object: the tap serialises a copy. */
static void tap_event(kh_bus *b, const char *name, struct json_object *content, int give)
{
    struct json_object *mine = NULL;
    const char *text = "{}";
    size_t len = 2;

    if (!b->tap->wants(b->tap_ud, name))
        return;
    if (content && !give && json_object_deep_copy(content, &mine, NULL) != 0) {
        json_object_put(mine);
        return;
    }
    if (content)
        text = json_object_to_json_string_length(give ? content : mine,
                                                 JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE,
                                                 &len);
    if (text)
        b->tap->event(b->tap_ud, name, text, len);
    json_object_put(mine);
}

void kh_bus_set_tap(kh_bus *b, const struct kh_bus_tap *tap, void *ud)
{
    b->tap = tap;
    b->tap_ud = ud;
}

void kh_bus_tap_enable(kh_bus *b, int on)
{
    if (b->tap)
        atomic_store(&b->tap_on, on);
}

/* give: content is ours (the caller's reference), used as the event's
 * content without a copy or put on every path that does not use it. */
static int publish(kh_bus *b, kytos_napp *from, const char *name, struct json_object *content,
                   const struct kytos_pub_opts *opts, int give)
{
    const char *bufname = "app", *why;
    struct json_object *copy = NULL;
    int priority = 0, timeout_ms = 0, rc;
    kh_buffer *buf;
    struct kh_ev *e;
    struct kh_match *m = NULL;

    if (!b) {
        rc = KYTOS_EINVAL;
        goto refused;
    }
    if ((why = kh_event_name_invalid(name))) {
        napp_log(b, from, KH_WARNING, "publish refused: %s", why);
        rc = KYTOS_EINVAL;
        goto refused;
    }
    if (opts) {
        if (opts->struct_size < offsetof(struct kytos_pub_opts, priority) + sizeof opts->priority) {
            napp_log(b, from, KH_WARNING, "publish %s refused: kytos_pub_opts.struct_size %u is "
                     "too small", name, (unsigned)opts->struct_size);
            rc = KYTOS_EINVAL;
            goto refused;
        }
        priority = opts->priority;
        if (opts->struct_size >= offsetof(struct kytos_pub_opts, buffer) + sizeof opts->buffer &&
            opts->buffer)
            bufname = opts->buffer;
        if (opts->struct_size >= offsetof(struct kytos_pub_opts, timeout_ms) + sizeof opts->timeout_ms)
            timeout_ms = opts->timeout_ms;
    }
    if (!(buf = find_buffer(b, bufname))) {
        napp_log(b, from, KH_WARNING, "publish %s refused: no buffer '%.32s'", name, bufname);
        rc = KYTOS_EINVAL;
        goto refused;
    }
    if (content && !json_object_is_type(content, json_type_object)) {
        napp_log(b, from, KH_WARNING, "publish %s refused: content must be a JSON object", name);
        rc = KYTOS_EINVAL;
        goto refused;
    }
    if (atomic_load(&b->state) >= BUS_STOPPING) {
        rc = KYTOS_EUNAVAIL;
        goto refused;
    }
    /* direct delivery is possible (not before the bus runs: events
     * published during the NApps' init wait, like the buffered ones, until
     * every NApp has started): one lookup answers both questions below */
    if (atomic_load(&b->ndirect) && tls_direct_depth < DIRECT_DEPTH_MAX &&
        atomic_load(&b->state) == BUS_RUNNING)
        m = kh_subtab_match(b->subs, name);
    /* a live stream wants it (host/ui/streams.c): its JSON text, made from
     * a content only this thread holds */
    if (atomic_load_explicit(&b->tap_on, memory_order_relaxed))
        tap_event(b, name, content, give);
    /* nobody listens (flow_manager's flow.pending and flow.added, say):
     * dispatch would drop it; skip the copy, the queue and a thread wake.
     * Without m, only names dispatch has already matched (and cached). */
    if (!b->observer && (m ? m->n == 0 : kh_subtab_known_none(b->subs, name))) {
        atomic_fetch_add(&b->published, 1);
        rc = 0;
        goto refused;
    }
    if (give) {
        copy = content;
        content = NULL;
    } else if (content && json_object_deep_copy(content, &copy, NULL) != 0) {
        json_object_put(copy);
        if (m)
            kh_match_unref(m);
        return KYTOS_ENOMEM;
    }
    if (m && all_direct(m)) {
        rc = publish_direct(b, m, name, copy, priority);
        kh_match_unref(m);
        return rc;
    }
    if (m)
        kh_match_unref(m);
    if (!(e = kh_ev_new(name, copy, priority)))
        return KYTOS_ENOMEM;   /* (kh_ev_new put copy) */
    rc = enqueue(b, buf, e, timeout_ms, 1);
    if (rc != 0)
        kh_ev_unref(e);
    return rc;
refused:
    if (m)
        kh_match_unref(m);
    if (give)
        json_object_put(content);
    return rc;
}

int kh_bus_publish_from(kh_bus *b, kytos_napp *from, const char *name,
                        struct json_object *content, const struct kytos_pub_opts *opts)
{
    return publish(b, from, name, content, opts, 0);
}

int kh_bus_publish_give(kh_bus *b, kytos_napp *from, const char *name,
                        struct json_object *content, const struct kytos_pub_opts *opts)
{
    return publish(b, from, name, content, opts, 1);
}

uint64_t kh_bus_published(kh_bus *b)
{
    return b ? (uint64_t)atomic_load(&b->published) : 0;
}

int kh_bus_wanted(kh_bus *b, const char *name)
{
    struct kh_match *m;
    int n;

    if (!b || !name)
        return 0;
    if (b->observer)
        return 1;   /* the test host records every event */
    if (kh_event_name_invalid(name))
        return 0;
    if (!(m = kh_subtab_match(b->subs, name)))
        return 1;   /* cannot tell (out of memory): say yes */
    n = m->n != 0;
    kh_match_unref(m);
    return n;
}


int kh_bus_publish(kh_bus *b, const char *name, struct json_object *content,
                   const struct kytos_pub_opts *opts)
{
    return kh_bus_publish_from(b, NULL, name, content, opts);
}

int kh_bus_napp_loaded(kh_bus *b, kytos_napp *n)
{
    const char *id = b->ops.id(n);
    char name[KH_EVENT_NAME_MAX + 1];

    if (!id)
        return KYTOS_EINVAL;
    snprintf(name, sizeof name, "kytos/core.%s.loaded", id);
    return kh_bus_publish_from(b, NULL, name, NULL,
                               &(struct kytos_pub_opts){.struct_size = sizeof(struct kytos_pub_opts),
                                                        .buffer = "meta", .timeout_ms = -1});
}

/* ---- subscribe / unload ---- */

int kh_bus_subscribe(kh_bus *b, kytos_napp *n, const struct kytos_sub *s, char *err, size_t errlen)
{
    const char *pool = NULL;
    struct kh_sub *sub;
    int rc;

    if (!b || !s) {
        snprintf(err, errlen, "no subscription given");
        return KYTOS_EINVAL;
    }
    if (s->struct_size < offsetof(struct kytos_sub, pool)) {
        snprintf(err, errlen, "kytos_sub.struct_size %u is too small", (unsigned)s->struct_size);
        return KYTOS_EINVAL;
    }
    if (s->struct_size >= offsetof(struct kytos_sub, pool) + sizeof s->pool)
        pool = s->pool;
    if (atomic_load(&b->state) >= BUS_STOPPING) {
        snprintf(err, errlen, "the event bus is shutting down");
        return KYTOS_ESTATE;
    }
    if (!(sub = kh_sub_new(n, s->pattern, s->handler, s->ud, err, errlen)))
        return KYTOS_EINVAL;
    if (!pool || !*pool) {
        sub->route = KH_ROUTE_DEFAULT;
    } else if (strcmp(pool, "inline") == 0) {
        sub->route = KH_ROUTE_INLINE;
    } else if (strcmp(pool, "direct") == 0) {
        sub->route = KH_ROUTE_DIRECT;
        atomic_fetch_add(&b->ndirect, 1);   /* (never goes down: only a hint) */
    } else if (strcmp(pool, "dynamic_single") == 0) {
        sub->route = KH_ROUTE_SINGLE;
        sub->pool = kh_workpool_new("dsingle", 1, b->conf.single_queue_max);
        atomic_store(&sub->own_pool, sub->pool);
        if (!sub->pool) {
            kh_sub_unref(sub);
            snprintf(err, errlen, "cannot start a dynamic_single thread");
            return KYTOS_ENOMEM;
        }
    } else if ((sub->pool = find_pool(b, pool))) {
        sub->route = KH_ROUTE_POOL;
    } else {
        size_t i, o;
        o = (size_t)snprintf(err, errlen, "no event pool '%.32s' (pools: direct, inline, dynamic_single",
                             pool);
        for (i = 0; i < b->npools && o < errlen; i++)
            o += (size_t)snprintf(err + o, errlen - o, ", %s", b->pools[i].name);
        if (o < errlen)
            snprintf(err + o, errlen - o, ")");
        kh_sub_unref(sub);
        return KYTOS_EINVAL;
    }
    rc = kh_subtab_add(b->subs, sub);
    if (rc != 0) {
        kh_workpool_free(atomic_exchange(&sub->own_pool, NULL));
        snprintf(err, errlen, "out of memory");
    }
    kh_sub_unref(sub);
    return rc;
}

/* Wait until no job of subs runs (except the caller's own).  0 or ETIMEDOUT. */
static int wait_subs_idle(kh_bus *b, struct kh_sub **subs, size_t n, int64_t deadline_us)
{
    struct timespec ts;
    int rc = 0;

    kh_deadline_at_us(&ts, deadline_us);
    pthread_mutex_lock(&b->mu);
    for (;;) {
        size_t i, busy = 0;
        for (i = 0; i < n; i++)
            if (atomic_load(&subs[i]->inflight) > (subs[i] == tls_sub ? 1 : 0))
                busy++;
        if (!busy)
            break;
        if (pthread_cond_timedwait(&b->cv, &b->mu, &ts) == ETIMEDOUT) {
            rc = KYTOS_ETIMEDOUT;
            break;
        }
    }
    pthread_mutex_unlock(&b->mu);
    return rc;
}

/* Stop the private pools of removed subscriptions; the busy ones (unload
 * timed out, or we run on that very pool) wait in the graveyard until
 * shutdown.  Drops the caller's references. */
static void release_subs(kh_bus *b, struct kh_sub **subs, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        struct kh_sub *s = subs[i];
        kh_workpool *own = atomic_load(&s->own_pool);
        if (own) {
            if (atomic_load(&s->inflight) == 0 && !kh_workpool_is_worker(own)) {
                kh_workpool_free(atomic_exchange(&s->own_pool, NULL));
            } else {
                pthread_mutex_lock(&b->mu);
                if (b->ngrave == b->capgrave) {
                    size_t nc = b->capgrave ? b->capgrave * 2 : 8;
                    struct kh_sub **g = realloc(b->grave, nc * sizeof *g);
                    if (g)
                        b->grave = g, b->capgrave = nc;
                }
                if (b->ngrave < b->capgrave) {
                    b->grave[b->ngrave++] = s;
                    s = NULL; /* the graveyard keeps the reference */
                }
                pthread_mutex_unlock(&b->mu);
                /* out of memory: leak the pool rather than join a busy thread */
            }
        }
        kh_sub_unref(s);
    }
}

static void deliver_napp_shutdown(kh_bus *b, kytos_napp *n, struct kh_sub **subs, size_t ns)
{
    const char *id = b->ops.id(n);
    char name[KH_EVENT_NAME_MAX + 1];
    struct kh_ev *e;
    size_t i;

    if (!id)
        return;
    snprintf(name, sizeof name, "kytos/core.shutdown.%s", id);
    if (!(e = kh_ev_new(name, NULL, 0)))
        return;
    if (b->observer)
        b->observer(b->observer_ud, e->name, e->content);
    atomic_fetch_add(&b->published, 1);
    for (i = 0; i < ns; i++) {
        struct json_object *content = NULL;
        struct kytos_event view = {e, &content};
        if (!kh_pattern_full_match(&subs[i]->re, name))
            continue;
        if (json_object_deep_copy(e->content, &content, NULL) != 0) {
            json_object_put(content);
            continue;
        }
        b->ops.ref(n);
        run_handler(b, subs[i], &view);
        b->ops.unref(n);
        json_object_put(content);
    }
    kh_ev_unref(e);
}

static int napp_unload(kh_bus *b, kytos_napp *n, int timeout_ms, int announce)
{
    int64_t deadline = kh_mono_us() + (timeout_ms < 0 ? INT64_C(86400000000) * 365
                                                      : (int64_t)timeout_ms * 1000);
    struct kh_sub **subs = NULL;
    size_t ns;
    int rc = 0;

    if (!b || !n)
        return KYTOS_EINVAL;
    ns = kh_subtab_remove_napp(b->subs, n, &subs);
    if (kh_timers_remove_napp(b->timers, n, deadline) != 0)
        rc = KYTOS_ETIMEDOUT;
    if (wait_subs_idle(b, subs, ns, deadline) != 0)
        rc = KYTOS_ETIMEDOUT;
    if (rc != 0)
        napp_log(b, n, KH_WARNING, "unload: handlers still running after %d ms", timeout_ms);
    if (announce)
        deliver_napp_shutdown(b, n, subs, ns);
    release_subs(b, subs, ns);
    free(subs);
    return rc;
}

int kh_bus_napp_unload(kh_bus *b, kytos_napp *n, int timeout_ms)
{
    return napp_unload(b, n, timeout_ms, 1);
}

int kh_bus_napp_forget(kh_bus *b, kytos_napp *n, int timeout_ms)
{
    return napp_unload(b, n, timeout_ms, 0);
}

/* ---- drain / start / shutdown / free ---- */

int kh_bus_drain(kh_bus *b, int timeout_ms)
{
    struct timespec ts;
    int rc = 0;

    if (tls_sub)
        return KYTOS_ESTATE;
    if (timeout_ms > 0)
        kh_deadline_ms(&ts, timeout_ms);
    pthread_mutex_lock(&b->mu);
    while (atomic_load(&b->outstanding) > 0) {
        if (timeout_ms == 0) {
            rc = KYTOS_ETIMEDOUT;
            break;
        }
        if (timeout_ms < 0) {
            pthread_cond_wait(&b->cv, &b->mu);
        } else if (pthread_cond_timedwait(&b->cv, &b->mu, &ts) == ETIMEDOUT) {
            rc = atomic_load(&b->outstanding) > 0 ? KYTOS_ETIMEDOUT : 0;
            break;
        }
    }
    pthread_mutex_unlock(&b->mu);
    return rc;
}

int kh_bus_start(kh_bus *b)
{
    int st = BUS_NEW;
    size_t i;

    if (!atomic_compare_exchange_strong(&b->state, &st, BUS_RUNNING))
        return KYTOS_ESTATE;
    for (i = 0; i < b->nbufs; i++) {
        struct bus_buf *bb = &b->bufs[i];
        char tname[16];
        if (pthread_create(&bb->thread, NULL, consumer_main, bb) != 0) {
            kh_log(LOGGER, KH_CRITICAL, "cannot start the consumer of buffer %s",
                   kh_buffer_name(bb->buf));
            return KYTOS_ENOMEM;
        }
        snprintf(tname, sizeof tname, "ev-%.12s", kh_buffer_name(bb->buf));
        pthread_setname_np(bb->thread, tname);
        bb->started = 1;
    }
    if (kh_timers_start(b->timers) != 0 || kh_qmon_start(b->qmon) != 0)
        return KYTOS_ENOMEM;
    return 0;
}

/* Stop the shared pools and every private (dynamic_single) pool.  The
 * subscriptions stay, so kh_bus_napp_unload after shutdown still finds a
 * NApp's kytos/core.shutdown.<u>/<n> handlers (Kytos' order: shutdown
 * event, pools, then NApps). */
static void stop_pools(kh_bus *b)
{
    kh_workpool *wps[KH_BUS_MAX_POOLS];
    struct kh_sub **subs = NULL, **grave;
    size_t i, n, ngrave;

    pthread_mutex_lock(&b->mu);
    for (i = 0; i < b->npools; i++) {
        wps[i] = b->pools[i].wp;
        b->pools[i].wp = NULL;
    }
    grave = b->grave;
    ngrave = b->ngrave;
    b->grave = NULL;
    b->ngrave = b->capgrave = 0;
    pthread_mutex_unlock(&b->mu);
    /* queued jobs run (skipping their handler when aborting); running
     * handlers are waited for */
    for (i = 0; i < b->npools; i++)
        kh_workpool_free(wps[i]);
    n = kh_subtab_snapshot(b->subs, &subs);
    for (i = 0; i < n + ngrave; i++) {
        struct kh_sub *s = i < n ? subs[i] : grave[i - n];
        kh_workpool_free(atomic_exchange(&s->own_pool, NULL));
        kh_sub_unref(s);
    }
    free(subs);
    free(grave);
}

void kh_bus_shutdown(kh_bus *b, int deadline_ms)
{
    int64_t deadline = kh_mono_us() + (int64_t)(deadline_ms > 0 ? deadline_ms : 0) * 1000;
    struct timespec ts;
    struct kh_ev *e;
    int st = atomic_load(&b->state);
    size_t i;

    if (tls_sub) {
        kh_log(LOGGER, KH_ERROR, "kh_bus_shutdown called from an event handler: ignored");
        return;
    }
    do {
        if (st >= BUS_STOPPING)
            return;
    } while (!atomic_compare_exchange_weak(&b->state, &st, BUS_STOPPING));

    /* kytos/core.shutdown: once, on app, after what is already queued.
     * Not from a bus that never started: no handler ever runs to get it
     * (nor what was queued before start, discarded quietly below). */
    if (st == BUS_RUNNING && (e = kh_ev_new("kytos/core.shutdown", NULL, 0))) {
        e->flags |= KH_EV_CORE_SHUTDOWN;
        if (b->observer)
            b->observer(b->observer_ud, e->name, e->content);
        atomic_fetch_add(&b->outstanding, 1);
        if (kh_buffer_put_force(b->app_buf, e) != 0) {
            outstanding_done(b, 1);
            kh_ev_unref(e);
        } else {
            atomic_fetch_add(&b->published, 1);
        }
    }
    for (i = 0; i < b->nbufs; i++)
        kh_buffer_close(b->bufs[i].buf);
    kh_qmon_stop(b->qmon);
    if (kh_timers_stop(b->timers, deadline) != 0)
        kh_log(LOGGER, KH_WARNING, "shutdown: a timer function still runs at the deadline");

    if (st == BUS_RUNNING) {
        kh_deadline_at_us(&ts, deadline);
        pthread_mutex_lock(&b->mu);
        while (atomic_load(&b->outstanding) > 0 &&
               pthread_cond_timedwait(&b->cv, &b->mu, &ts) != ETIMEDOUT)
            ;
        pthread_mutex_unlock(&b->mu);
    }
    if (atomic_load(&b->outstanding) > 0) {
        size_t dropped = 0;
        atomic_store(&b->aborting, 1);
        for (i = 0; i < b->nbufs; i++)
            dropped += kh_buffer_abort(b->bufs[i].buf);
        outstanding_done(b, (long)dropped);
        if (st == BUS_RUNNING) {
            atomic_fetch_add(&b->dropped, dropped);
            kh_log(LOGGER, KH_WARNING, "shutdown deadline (%d ms) passed: %zu queued events "
                   "dropped, queued handler runs skipped", deadline_ms, dropped);
        } else {
            /* nothing ever ran: nothing was lost that was due to run */
            kh_log(LOGGER, KH_DEBUG, "the bus never started: %zu events published before start "
                   "discarded undelivered", dropped);
        }
    }
    for (i = 0; i < b->nbufs; i++) {
        if (b->bufs[i].started)
            pthread_join(b->bufs[i].thread, NULL);
        b->bufs[i].started = 0;
    }
    kh_pacer_shutdown(b->pacer);
    stop_pools(b);
    atomic_store(&b->state, BUS_STOPPED);
}

void kh_bus_free(kh_bus *b)
{
    size_t i;

    if (!b)
        return;
    if (b->complete) {
        kh_bus_shutdown(b, 0);
    } else {
        for (i = 0; i < b->npools; i++)
            kh_workpool_free(b->pools[i].wp);
    }
    kh_timers_free(b->timers);
    kh_qmon_free(b->qmon);
    kh_subtab_free(b->subs);
    kh_deadletter_free(b->dl);
    kh_pacer_free(b->pacer);
    for (i = 0; i < b->nbufs; i++)
        kh_buffer_free(b->bufs[i].buf);
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->cv);
    free(b);
}

/* ---- construction ---- */

static size_t buffer_qsize(void *ctx) { return kh_buffer_depth(ctx); }
static size_t pool_qsize(void *ctx) { return kh_workpool_queued(ctx); }

const struct kh_napp_ops *kh_bus_napp_ops(const kh_bus *b)
{
    return &b->ops;
}

kh_bus *kh_bus_new_conf(const struct kh_bus_conf *conf, const struct kh_napp_ops *ops,
                        char *err, size_t errlen)
{
    kh_bus *b;
    size_t i;

    if (!conf || !ops || !ops->ref || !ops->unref || !ops->is_active || !ops->id) {
        snprintf(err, errlen, "event bus: missing configuration or NApp hooks");
        return NULL;
    }
    if (!(b = calloc(1, sizeof *b))) {
        snprintf(err, errlen, "event bus: out of memory");
        return NULL;
    }
    b->conf = *conf;
    b->ops = *ops;
    if (!b->conf.submit_retry_ms)
        b->conf.submit_retry_ms = 100;
    pthread_mutex_init(&b->mu, NULL);
    kh_cond_init_mono(&b->cv);
    atomic_init(&b->state, BUS_NEW);
    for (i = 0; i < conf->npools; i++) {
        const struct kh_pool_conf *pc = &conf->pools[i];
        snprintf(b->pools[i].name, sizeof b->pools[i].name, "%s", pc->name);
        if (!(b->pools[i].wp = kh_workpool_new(pc->name, pc->threads, pc->queue_max))) {
            snprintf(err, errlen, "event bus: cannot create pool %s", pc->name);
            goto fail;
        }
        b->npools++;
    }
    b->sb = find_pool(b, "sb");
    b->app = find_pool(b, "app");
    for (i = 0; i < conf->nbufs; i++) {
        const struct kh_buf_conf *bc = &conf->bufs[i];
        b->bufs[i].bus = b;
        if (!(b->bufs[i].buf = kh_buffer_new(bc->name, bc->type, bc->maxsize, conf->unbounded_cap))) {
            snprintf(err, errlen, "event bus: cannot create buffer %s", bc->name);
            goto fail;
        }
        b->nbufs++;
    }
    b->app_buf = find_buffer(b, "app");
    b->meta_buf = find_buffer(b, "meta");
    if (!b->app || !b->app_buf || !b->meta_buf) {
        snprintf(err, errlen, "event bus: the app pool and the app and meta buffers are required");
        goto fail;
    }
    b->subs = kh_subtab_new(conf->match_cache_max);
    b->dl = kh_deadletter_new(conf->dead_letter_max_per_name, conf->dead_letter_max_total);
    b->pacer = kh_pacer_new(conf->pacer_max_keys);
    b->timers = kh_timers_new(&b->ops, b->app);
    b->qmon = kh_qmon_new(conf->monitor_sample_ms);
    if (!b->subs || !b->dl || !b->pacer || !b->timers || !b->qmon) {
        snprintf(err, errlen, "event bus: out of memory");
        goto fail;
    }
    for (i = 0; i < conf->nmons; i++) {
        const struct kh_mon_conf *mc = &conf->mons[i];
        void *ctx = mc->is_pool ? (void *)find_pool(b, mc->target) : (void *)find_buffer(b, mc->target);
        if (!ctx) {
            snprintf(err, errlen, "event bus: monitor %s: no such %s", mc->name,
                     mc->is_pool ? "pool" : "buffer");
            goto fail;
        }
        if (kh_qmon_add(b->qmon, mc, mc->is_pool ? pool_qsize : buffer_qsize, ctx) != 0) {
            snprintf(err, errlen, "event bus: out of memory");
            goto fail;
        }
    }
    b->complete = 1;
    return b;
fail:
    kh_bus_free(b);
    return NULL;
}

void kh_bus_set_observer(kh_bus *b, kh_bus_observer fn, void *ud)
{
    b->observer = fn;
    b->observer_ud = ud;
}

/* ---- pacer, timers, dead letter ---- */

int kh_bus_pace(kh_bus *b, kytos_napp *n, const char *action, const char *key, const char *rate,
                unsigned flags)
{
    char err[256];
    const char *ns = n ? b->ops.id(n) : "kytos/core";
    int rc = kh_pacer_hit(b->pacer, ns, action, key, rate, flags, err, sizeof err);

    if (rc == KYTOS_EINVAL)
        napp_log(b, n, KH_ERROR, "pace: %s", err);
    else if (rc == KYTOS_ETOOBIG)
        napp_log(b, n, KH_ERROR, "pace: too many live pacing windows (%zu)",
                 b->conf.pacer_max_keys);
    return rc;
}

int kh_bus_timer_add(kh_bus *b, kytos_napp *n, unsigned interval_ms, kytos_timer_fn fn, void *ud)
{
    int rc = kh_timers_add(b->timers, n, interval_ms, fn, ud);

    if (rc == KYTOS_EINVAL)
        napp_log(b, n, KH_ERROR, "timer_add: interval must be %u..%u ms and fn set",
                 KH_TIMER_MIN_MS, KH_TIMER_MAX_MS);
    return rc;
}

struct kh_deadletter *kh_bus_deadletter(kh_bus *b) { return b->dl; }

size_t kh_bus_reinject(kh_bus *b, struct kh_dl_item *items, size_t n, const char *buffer)
{
    kh_buffer *buf = find_buffer(b, buffer ? buffer : "app");
    size_t i, failed = 0;

    for (i = 0; i < n; i++) {
        struct kh_ev *old = items[i].ev, *e;
        int rc = KYTOS_EUNAVAIL;

        if (buf && atomic_load(&b->state) < BUS_STOPPING) {
            e = kh_ev_new(old->name, items[i].content, old->priority);
            items[i].content = NULL;
            if (!e) {
                rc = KYTOS_ENOMEM;
            } else {
                /* the same event again, as Kytos puts the same object back */
                memcpy(e->id, old->id, sizeof e->id);
                e->time_us = old->time_us;
                e->reinjections = old->reinjections + 1;
                rc = enqueue(b, buf, e, REINJECT_TIMEOUT_MS, 0);
                if (rc != 0) {
                    items[i].content = json_object_get(e->content);
                    kh_ev_unref(e);
                }
            }
        }
        if (rc != 0) {
            failed++;
            if (items[i].content && kh_deadletter_add(b->dl, old, items[i].content) == 0)
                items[i].content = NULL;
            else
                kh_log(LOGGER, KH_ERROR, "reinjection of %s (id %s) failed and the event is lost",
                       old->name, old->id);
            items[i].content = NULL;
        }
    }
    kh_dl_items_free(items, n);
    return failed;
}

/* ---- status ---- */

static const char *state_name(int st)
{
    static const char *const names[] = {"new", "running", "stopping", "stopped"};
    return st >= 0 && st <= BUS_STOPPED ? names[st] : "?";
}

static struct json_object *jint(uint64_t v) { return json_object_new_int64((int64_t)v); }

struct json_object *kh_bus_status(kh_bus *b)
{
    struct json_object *o = json_object_new_object(), *bq = json_object_new_object(),
                       *pq = json_object_new_object(), *bufs = json_object_new_object(),
                       *pools = json_object_new_object(), *ev = json_object_new_object(),
                       *subs = json_object_new_object(), *dl = json_object_new_object();
    struct kh_subtab_stats ss;
    struct kh_deadletter_stats ds;
    size_t i;

    for (i = 0; i < b->nbufs; i++) {
        struct kh_buffer_stats s;
        struct json_object *d = json_object_new_object();
        const char *name = kh_buffer_name(b->bufs[i].buf);
        kh_buffer_stats(b->bufs[i].buf, &s);
        json_object_object_add(bq, name, jint(s.depth));
        json_object_object_add(d, "type", json_object_new_string(
                                              s.type == KH_BUF_PRIORITY ? "priority" : "queue"));
        json_object_object_add(d, "maxsize", jint(s.maxsize));
        json_object_object_add(d, "limit", jint(s.limit));
        json_object_object_add(d, "depth", jint(s.depth));
        json_object_object_add(d, "high_water", jint(s.high_water));
        json_object_object_add(d, "drops", jint(s.full + s.timeouts + s.refused + s.aborted));
        json_object_object_add(d, "full", jint(s.full));
        json_object_object_add(d, "timeouts", jint(s.timeouts));
        json_object_object_add(d, "refused", jint(s.refused));
        json_object_object_add(d, "aborted", jint(s.aborted));
        json_object_object_add(d, "put", jint(s.put));
        json_object_object_add(d, "dispatched", jint(s.got));
        json_object_object_add(bufs, name, d);
    }
    pthread_mutex_lock(&b->mu);
    for (i = 0; i < b->npools; i++) {
        kh_workpool *wp = b->pools[i].wp;
        json_object_object_add(pq, b->pools[i].name, jint(wp ? kh_workpool_queued(wp) : 0));
        json_object_object_add(pools, b->pools[i].name,
                               wp ? kh_workpool_status(wp) : json_object_new_object());
    }
    pthread_mutex_unlock(&b->mu);

    json_object_object_add(ev, "published", jint(atomic_load(&b->published)));
    json_object_object_add(ev, "delivered", jint(atomic_load(&b->delivered)));
    json_object_object_add(ev, "handler_errors", jint(atomic_load(&b->failed)));
    json_object_object_add(ev, "skipped", jint(atomic_load(&b->skipped)));
    json_object_object_add(ev, "dropped", jint(atomic_load(&b->dropped)));
    json_object_object_add(ev, "pool_waits", jint(atomic_load(&b->pool_waits)));
    json_object_object_add(ev, "outstanding", json_object_new_int64(atomic_load(&b->outstanding)));

    kh_subtab_stats(b->subs, &ss);
    json_object_object_add(subs, "count", jint(ss.subs));
    json_object_object_add(subs, "cached_names", jint(ss.cached_names));
    json_object_object_add(subs, "cache_hits", jint(ss.hits));
    json_object_object_add(subs, "cache_misses", jint(ss.misses));
    json_object_object_add(subs, "cache_flushes", jint(ss.flushes));

    kh_deadletter_stats(b->dl, &ds);
    json_object_object_add(dl, "count", jint(ds.count));
    json_object_object_add(dl, "names", jint(ds.names));
    json_object_object_add(dl, "added", jint(ds.added));
    json_object_object_add(dl, "evicted", jint(ds.evicted));
    json_object_object_add(dl, "refused", jint(ds.refused + atomic_load(&b->dl_refused)));
    json_object_object_add(dl, "max_per_name", jint(b->conf.dead_letter_max_per_name));

    json_object_object_add(o, "state", json_object_new_string(state_name(atomic_load(&b->state))));
    json_object_object_add(o, "buffers_qsize", bq);
    json_object_object_add(o, "thread_pool_qsize", pq);
    json_object_object_add(o, "buffers", bufs);
    json_object_object_add(o, "pools", pools);
    json_object_object_add(o, "events", ev);
    json_object_object_add(o, "subscriptions", subs);
    json_object_object_add(o, "dead_letter", dl);
    json_object_object_add(o, "pacer", kh_pacer_status(b->pacer));
    json_object_object_add(o, "timers", kh_timers_status(b->timers));
    json_object_object_add(o, "monitors", kh_qmon_status(b->qmon));
    return o;
}
