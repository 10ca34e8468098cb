/* bench/event_bench.c - the event bus from publish to handler:
 *   1. events/s with one subscriber,
 *   2. events/s (and deliveries/s) with four subscribers,
 *   3. p50/p99/max publish-to-handler latency at a fixed publish rate.
 * Usage: event_bench [-n events] [-r rate/s] [-d seconds] [-p pools-json]
 * Defaults: 50000 events, 10000/s for 2 s, Kytos' pools (sb 256, db 256,
 * app 512; threads start on demand).  -p '{"sb": 2, "db": 2, "app": 2}'
 * shows the bus' own cost without hundreds of threads on two cores. */
#include "events/fake_napp.h"
#include "host/events/event_obj.h"
#include "host/events/event_util.h"
#include "host/util/log.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sink {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_long got;
    long want;
    int64_t *lat_us;      /* latency run: one slot per event */
    atomic_long nlat;
    long maxlat;
};

static int count_handler(kytos_napp *n, const kytos_event *ev, void *ud)
{
    struct sink *s = ud;

    if (atomic_fetch_add(&s->got, 1) + 1 == s->want) {
        pthread_mutex_lock(&s->mu);
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    return 0;
}

static int latency_handler(kytos_napp *n, const kytos_event *ev, void *ud)
{
    struct sink *s = ud;
    struct json_object *t;
    long i;

    if (json_object_object_get_ex(kh_event_content(ev), "t", &t)) {
        i = atomic_fetch_add(&s->nlat, 1);
        if (i < s->maxlat)
            s->lat_us[i] = kh_mono_us() - json_object_get_int64(t);
    }
    return count_handler(n, ev, ud);
}

static void sink_wait(struct sink *s)
{
    pthread_mutex_lock(&s->mu);
    while (atomic_load(&s->got) < s->want)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

static kh_bus *make_bus(const char *pools_json)
{
    struct json_object *pools = json_tokener_parse(pools_json);
    struct kh_bus_conf c;
    char err[256];
    kh_bus *b;

    kh_bus_conf_defaults(&c);
    if (!pools || kh_bus_conf_apply(&c, pools, NULL, NULL, NULL, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "event_bench: bad pools '%s': %s\n", pools_json, pools ? err : "not JSON");
        exit(2);
    }
    json_object_put(pools);
    if (!(b = kh_bus_new_conf(&c, &fake_ops, err, sizeof err))) {
        fprintf(stderr, "event_bench: %s\n", err);
        exit(2);
    }
    return b;
}

static void subscribe(kh_bus *b, struct fake_napp *n, kytos_event_handler fn, struct sink *s)
{
    char err[256];

    if (kh_bus_subscribe(b, FAKE(n),
                         &(struct kytos_sub){.struct_size = sizeof(struct kytos_sub),
                                             .pattern = "bench/.*\\.tick", .handler = fn, .ud = s},
                         err, sizeof err) != 0) {
        fprintf(stderr, "event_bench: subscribe: %s\n", err);
        exit(2);
    }
}

static const struct kytos_pub_opts blocking = {sizeof(struct kytos_pub_opts), 0, "app", -1};

/* Threads the app pool started (they start on demand). */
static long app_threads(kh_bus *b)
{
    struct json_object *st = kh_bus_status(b), *p, *v;
    long n = -1;

    if (json_object_object_get_ex(st, "pools", &p) && json_object_object_get_ex(p, "app", &p) &&
        json_object_object_get_ex(p, "threads", &v))
        n = (long)json_object_get_int64(v);
    json_object_put(st);
    return n;
}

static long threads_used;

static double throughput(const char *pools, int nsubs, long n)
{
    kh_bus *b = make_bus(pools);
    struct fake_napp napps[4];
    struct sink s;
    struct json_object *c = json_object_new_object();
    int64_t t0, t1;
    long i;
    int k;

    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.cv, NULL);
    s.want = n * nsubs;
    for (k = 0; k < nsubs; k++) {
        char id[32];
        snprintf(id, sizeof id, "bench/s%d", k);
        fake_napp_init(&napps[k], id);
        subscribe(b, &napps[k], count_handler, &s);
    }
    json_object_object_add(c, "dpid", json_object_new_string("00:00:00:00:00:00:00:01"));
    json_object_object_add(c, "port", json_object_new_int(1));
    kh_bus_start(b);
    t0 = kh_mono_us();
    for (i = 0; i < n; i++)
        if (kh_bus_publish(b, "bench/x.tick", c, &blocking) != 0)
            abort();
    sink_wait(&s);
    t1 = kh_mono_us();
    threads_used = app_threads(b);
    kh_bus_shutdown(b, 10000);
    kh_bus_free(b);
    json_object_put(c);
    return (double)n / ((double)(t1 - t0) / 1e6);
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void latency(const char *pools, long rate, double secs)
{
    kh_bus *b = make_bus(pools);
    long n = (long)((double)rate * secs), i;
    int64_t start, interval_ns = 1000000000LL / rate;
    struct fake_napp napp;
    struct timespec next;
    struct sink s;

    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.cv, NULL);
    s.want = n;
    s.maxlat = n;
    s.lat_us = calloc((size_t)n, sizeof *s.lat_us);
    fake_napp_init(&napp, "bench/lat");
    subscribe(b, &napp, latency_handler, &s);
    kh_bus_start(b);
    clock_gettime(CLOCK_MONOTONIC, &next);
    start = kh_mono_us();
    for (i = 0; i < n; i++) {
        struct json_object *c = json_object_new_object();
        /* the generator's pace: sleep to the next send time (not a sync) */
        next.tv_nsec += interval_ns;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
        json_object_object_add(c, "t", json_object_new_int64(kh_mono_us()));
        if (kh_bus_publish(b, "bench/lat.tick", c, &blocking) != 0)
            abort();
        json_object_put(c);
    }
    sink_wait(&s);
    kh_bus_shutdown(b, 10000);
    kh_bus_free(b);
    n = atomic_load(&s.nlat);
    qsort(s.lat_us, (size_t)n, sizeof *s.lat_us, cmp64);
    printf("event_bench: latency at %ld events/s for %.1f s (%.0f achieved): p50 %lld us, "
           "p99 %lld us, max %lld us\n", rate, secs,
           (double)n / ((double)(kh_mono_us() - start) / 1e6),
           (long long)s.lat_us[n / 2], (long long)s.lat_us[(n * 99) / 100],
           (long long)s.lat_us[n - 1]);
    free(s.lat_us);
}

int main(int argc, char **argv)
{
    const char *pools = "{\"sb\": 256, \"db\": 256, \"app\": 512}";
    long n = 50000, rate = 10000;
    double secs = 2, r1, r4;
    int opt;

    while ((opt = getopt(argc, argv, "n:r:d:p:")) != -1) {
        switch (opt) {
        case 'n': n = atol(optarg); break;
        case 'r': rate = atol(optarg); break;
        case 'd': secs = atof(optarg); break;
        case 'p': pools = optarg; break;
        default:
            fprintf(stderr, "usage: %s [-n events] [-r rate] [-d seconds] [-p pools-json]\n", argv[0]);
            return 2;
        }
    }
    if (n < 1 || n > 100000000 || rate < 1 || rate > 10000000 || secs <= 0 || secs > 600) {
        fprintf(stderr, "event_bench: -n 1..1e8, -r 1..1e7, -d (0, 600]\n");
        return 2;
    }
    printf("event_bench: pools %s\n", pools);
    r1 = throughput(pools, 1, n);
    printf("event_bench: 1 subscriber: %.0f events/s publish->handler (%ld events, %ld app "
           "threads started)\n", r1, n, threads_used);
    r4 = throughput(pools, 4, n);
    printf("event_bench: 4 subscribers: %.0f events/s publish->handler, %.0f deliveries/s "
           "(%ld events, %ld app threads started)\n", r4, r4 * 4, n, threads_used);
    latency(pools, rate, secs);
    return 0;
}
