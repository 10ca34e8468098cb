/* host/events/queue_monitor.c - the windows, and one sampling thread for all. */
#include "events/queue_monitor.h"
#include "events/event_util.h"
#include "util/base.h"
#include "util/log.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOGGER "kytos.core.queue_monitor"

void kh_qmon_window_init(struct kh_qmon_window *w, const struct kh_mon_conf *mc, kh_qsize_fn fn,
                         void *ctx)
{
    memset(w, 0, sizeof *w);
    w->conf = *mc;
    w->qsize = fn;
    w->ctx = ctx;
    w->last_counted_us = 0; /* Kytos: 1970-01-01 */
}

/* timedelta(...).seconds for the small, non-negative deltas used here. */
static int64_t secs(int64_t later, int64_t earlier)
{
    int64_t d = later - earlier;
    return d >= 0 ? d / 1000000 : -((-d + 999999) / 1000000);
}

static struct kh_qmon_record *at(struct kh_qmon_window *w, size_t i)
{
    return &w->rec[(w->head + i) % KH_QMON_MAX_RECORDS];
}

static void pop_front(struct kh_qmon_window *w)
{
    w->head = (w->head + 1) % KH_QMON_MAX_RECORDS;
    w->count--;
}

/* Python's repr of a float: the fewest significant digits that read back
 * the same, in fixed notation for exponents -4..15 ("4.5", "10.0"). */
static void py_float(double v, char *out, size_t len)
{
    char sci[32];
    int prec, exp10;

    for (prec = 1; prec <= 17; prec++) {
        snprintf(sci, sizeof sci, "%.*e", prec - 1, v);
        if (strtod(sci, NULL) == v)
            break;
    }
    exp10 = atoi(strchr(sci, 'e') + 1);
    if (exp10 < -4 || exp10 >= 16) {
        snprintf(out, len, "%s", sci);
        return;
    }
    snprintf(out, len, "%.*f", prec - 1 - exp10 > 0 ? prec - 1 - exp10 : 0, v);
    if (!strchr(out, '.'))
        strncat(out, ".0", len - strlen(out) - 1);
}

static void emit(kh_qmon_log_fn log, void *ud, const char *line)
{
    if (log)
        log(ud, line);
    else
        kh_log(LOGGER, KH_WARNING, "%s", line);
}

size_t kh_qmon_window_step(struct kh_qmon_window *w, int64_t now_us, long size,
                           kh_qmon_log_fn log, void *log_ud)
{
    struct kh_qmon_record recs[KH_QMON_MAX_RECORDS], first;
    char line[512], t1[48], t2[48], avg[32];
    long mn, mx;
    double acc = 0;
    size_t n = 0, i, step;

    w->last_size = (uint64_t)(size < 0 ? 0 : size);
    if (size >= w->conf.min_size_threshold) {
        if (w->count == KH_QMON_MAX_RECORDS)
            pop_front(w); /* bounded: only the newest matter */
        *at(w, w->count) = (struct kh_qmon_record){now_us, size};
        w->count++;
    }
    while (w->count && secs(now_us, at(w, 0)->at_us) > w->conf.delta_secs)
        pop_front(w);
    if (!(w->count && (long)w->count >= w->conf.min_hits &&
          secs(now_us, at(w, 0)->at_us) <= w->conf.delta_secs &&
          secs(now_us, w->last_counted_us) >= w->conf.delta_secs))
        return 0;
    first = *at(w, 0);
    pop_front(w);
    recs[n++] = first;
    while (w->count && secs(at(w, 0)->at_us, first.at_us) <= w->conf.delta_secs) {
        recs[n++] = *at(w, 0);
        pop_front(w);
    }
    w->last_counted_us = recs[n - 1].at_us;
    w->reports++;

    mn = mx = recs[0].size;
    for (i = 0; i < n; i++) {
        if (recs[i].size < mn)
            mn = recs[i].size;
        if (recs[i].size > mx)
            mx = recs[i].size;
        acc += (double)recs[i].size;
    }
    py_float(acc / (double)n, avg, sizeof avg);
    kh_fmt_pytime(recs[0].at_us, t1, sizeof t1);
    kh_fmt_pytime(recs[n - 1].at_us, t2, sizeof t2);
    snprintf(line, sizeof line,
             "%s, counted: %zu, min/avg/max size: %ld/%s/%ld, first at: %s, last at: %s, "
             "delta secs: %ld, min_hits: %ld, min_size_threshold: %ld",
             w->conf.name, n, mn, avg, mx, t1, t2, w->conf.delta_secs, w->conf.min_hits,
             w->conf.min_size_threshold);
    emit(log, log_ud, line);
    if (w->conf.log_at_most_n > 0) {
        step = (n + (size_t)w->conf.log_at_most_n - 1) / (size_t)w->conf.log_at_most_n;
        for (i = 0; i < n; i += step) {
            kh_fmt_pytime(recs[i].at_us, t1, sizeof t1);
            snprintf(line, sizeof line, "%s, record[%zu]/[%zu]: size: %ld, at: %s", w->conf.name,
                     i, n, recs[i].size, t1);
            emit(log, log_ud, line);
        }
    }
    return n;
}

struct kh_qmon {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct kh_qmon_window **w;
    size_t n;
    unsigned sample_ms;
    kh_qmon_log_fn log;
    void *log_ud;
    pthread_t thread;
    int started, stopping;
};

kh_qmon *kh_qmon_new(unsigned sample_ms)
{
    kh_qmon *q = calloc(1, sizeof *q);

    if (!q)
        return NULL;
    q->sample_ms = sample_ms ? sample_ms : 1000;
    pthread_mutex_init(&q->mu, NULL);
    kh_cond_init_mono(&q->cv);
    return q;
}

int kh_qmon_add(kh_qmon *q, const struct kh_mon_conf *mc, kh_qsize_fn fn, void *ctx)
{
    struct kh_qmon_window *w, **nw;

    w = malloc(sizeof *w);
    if (!w)
        return KYTOS_ENOMEM;
    kh_qmon_window_init(w, mc, fn, ctx);
    pthread_mutex_lock(&q->mu);
    nw = realloc(q->w, (q->n + 1) * sizeof *nw);
    if (!nw) {
        pthread_mutex_unlock(&q->mu);
        free(w);
        return KYTOS_ENOMEM;
    }
    q->w = nw;
    q->w[q->n++] = w;
    pthread_mutex_unlock(&q->mu);
    return 0;
}

void kh_qmon_set_log(kh_qmon *q, kh_qmon_log_fn fn, void *ud)
{
    pthread_mutex_lock(&q->mu);
    q->log = fn;
    q->log_ud = ud;
    pthread_mutex_unlock(&q->mu);
}

static void *sample_main(void *arg)
{
    kh_qmon *q = arg;
    struct timespec ts;
    int64_t next = kh_mono_us();
    size_t i;

    pthread_mutex_lock(&q->mu);
    while (!q->stopping) {
        for (i = 0; i < q->n; i++) {
            struct kh_qmon_window *w = q->w[i];
            kh_qmon_window_step(w, kh_real_us(), (long)w->qsize(w->ctx), q->log, q->log_ud);
        }
        next += (int64_t)q->sample_ms * 1000;
        kh_deadline_at_us(&ts, next);
        while (!q->stopping && pthread_cond_timedwait(&q->cv, &q->mu, &ts) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

int kh_qmon_start(kh_qmon *q)
{
    int rc = 0;

    pthread_mutex_lock(&q->mu);
    if (!q->started && !q->stopping && q->n > 0) {
        if (pthread_create(&q->thread, NULL, sample_main, q) == 0) {
            pthread_setname_np(q->thread, "kh-qmon");
            q->started = 1;
        } else {
            rc = KYTOS_ENOMEM;
        }
    }
    pthread_mutex_unlock(&q->mu);
    return rc;
}

void kh_qmon_stop(kh_qmon *q)
{
    int join;

    pthread_mutex_lock(&q->mu);
    q->stopping = 1;
    join = q->started;
    q->started = 0;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    if (join)
        pthread_join(q->thread, NULL);
}

void kh_qmon_free(kh_qmon *q)
{
    size_t i;

    if (!q)
        return;
    kh_qmon_stop(q);
    for (i = 0; i < q->n; i++)
        free(q->w[i]);
    free(q->w);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    free(q);
}

struct json_object *kh_qmon_status(kh_qmon *q)
{
    struct json_object *o = json_object_new_object();
    size_t i;

    pthread_mutex_lock(&q->mu);
    for (i = 0; i < q->n; i++) {
        struct kh_qmon_window *w = q->w[i];
        struct json_object *m = json_object_new_object();
        json_object_object_add(m, "threshold", json_object_new_int64(w->conf.min_size_threshold));
        json_object_object_add(m, "min_hits", json_object_new_int64(w->conf.min_hits));
        json_object_object_add(m, "delta_secs", json_object_new_int64(w->conf.delta_secs));
        json_object_object_add(m, "reports", json_object_new_int64((int64_t)w->reports));
        json_object_object_add(m, "last_size", json_object_new_int64((int64_t)w->last_size));
        json_object_object_add(o, w->conf.name, m);
    }
    pthread_mutex_unlock(&q->mu);
    return o;
}
