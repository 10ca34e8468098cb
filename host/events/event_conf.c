/* host/events/event_conf.c - parse and check the bus' kytos.conf keys. */
#include "events/event_conf.h"
#include "events/event_buffer.h"
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    unsigned threads;
} default_pools[] = {{"sb", 256}, {"db", 256}, {"app", 512}};

/* Kytos' buffers: base size from a pool (or 0 = unbounded) times a multiplier. */
struct buf_spec {
    char name[KH_BUS_NAME_MAX];
    int type;
    char pool[KH_BUS_NAME_MAX]; /* "" = use base */
    long long base, mult;
};

static const struct buf_spec default_bufs[] = {
    {"conn", KH_BUF_FIFO, "", 0, 1},     {"raw", KH_BUF_FIFO, "sb", 0, 10},
    {"msg_in", KH_BUF_PRIORITY, "sb", 0, 10}, {"msg_out", KH_BUF_PRIORITY, "sb", 0, 10},
    {"app", KH_BUF_FIFO, "app", 0, 20},  {"meta", KH_BUF_FIFO, "", 0, 1},
};

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

void kh_bus_conf_defaults(struct kh_bus_conf *c)
{
    size_t i;

    memset(c, 0, sizeof *c);
    for (i = 0; i < sizeof default_pools / sizeof default_pools[0]; i++) {
        snprintf(c->pools[i].name, sizeof c->pools[i].name, "%s", default_pools[i].name);
        c->pools[i].threads = default_pools[i].threads;
    }
    c->npools = i;
    for (i = 0; i < sizeof default_bufs / sizeof default_bufs[0]; i++) {
        const struct kh_pool_conf *p = kh_bus_conf_pool(c, default_bufs[i].pool);
        memcpy(c->bufs[i].name, default_bufs[i].name, sizeof c->bufs[i].name);
        c->bufs[i].type = default_bufs[i].type;
        c->bufs[i].maxsize = p ? (size_t)p->threads * (size_t)default_bufs[i].mult : 0;
    }
    c->nbufs = i;
    c->dead_letter_max_per_name = 50000;
    c->dead_letter_max_total = 1000000;
    c->unbounded_cap = 1000000;
    c->single_queue_max = 4096;
    c->match_cache_max = 4096;
    c->pacer_max_keys = 100000;
    c->monitor_sample_ms = 1000;
    c->submit_retry_ms = 100;
}

const struct kh_pool_conf *kh_bus_conf_pool(const struct kh_bus_conf *c, const char *name)
{
    size_t i;

    for (i = 0; name && i < c->npools; i++)
        if (strcmp(c->pools[i].name, name) == 0)
            return &c->pools[i];
    return NULL;
}

const struct kh_buf_conf *kh_bus_conf_buffer(const struct kh_bus_conf *c, const char *name)
{
    size_t i;

    for (i = 0; name && i < c->nbufs; i++)
        if (strcmp(c->bufs[i].name, name) == 0)
            return &c->bufs[i];
    return NULL;
}

/* Pool and buffer names: 1..31 of [A-Za-z0-9_-]. */
static int bad_name(const char *s)
{
    size_t n = 0;

    for (; s[n]; n++) {
        char ch = s[n];
        if (n >= KH_BUS_NAME_MAX - 1)
            return 1;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '-'))
            return 1;
    }
    return n == 0;
}

/* An integer JSON value (not a bool, not a float) in [lo, hi]. */
static int get_int(struct json_object *v, long long lo, long long hi, long long *out)
{
    if (!v || !json_object_is_type(v, json_type_int))
        return -1;
    errno = 0;
    *out = json_object_get_int64(v);
    if (errno != 0 || *out < lo || *out > hi)
        return -1;
    return 0;
}

static int apply_pools(struct kh_bus_conf *c, struct json_object *pools, char *err, size_t errlen)
{
    struct kh_bus_conf d;
    size_t i;

    if (!pools)
        return 0;
    if (!json_object_is_type(pools, json_type_object))
        return fail(err, errlen, "thread_pool_max_workers: expected a JSON object of pool: threads");
    kh_bus_conf_defaults(&d);
    c->npools = 0;
    json_object_object_foreach(pools, key, val) {
        long long n;
        if (strcmp(key, "api") == 0)
            continue; /* the HTTP server's pool */
        if (bad_name(key))
            return fail(err, errlen, "thread_pool_max_workers: bad pool name '%.64s' "
                        "(1..31 of A-Z a-z 0-9 _ -)", key);
        if (get_int(val, 1, KH_BUS_MAX_THREADS, &n) != 0)
            return fail(err, errlen, "thread_pool_max_workers: pool '%s' needs an integer "
                        "number of threads in 1..%d", key, KH_BUS_MAX_THREADS);
        if (c->npools == KH_BUS_MAX_POOLS)
            return fail(err, errlen, "thread_pool_max_workers: more than %d pools", KH_BUS_MAX_POOLS);
        snprintf(c->pools[c->npools].name, KH_BUS_NAME_MAX, "%s", key);
        c->pools[c->npools].threads = (unsigned)n;
        c->pools[c->npools].queue_max = 0;
        c->npools++;
    }
    /* sb, db and app always exist (threads start on demand, so this is free) */
    for (i = 0; i < d.npools; i++) {
        if (kh_bus_conf_pool(c, d.pools[i].name))
            continue;
        if (c->npools == KH_BUS_MAX_POOLS)
            return fail(err, errlen, "thread_pool_max_workers: more than %d pools", KH_BUS_MAX_POOLS);
        c->pools[c->npools++] = d.pools[i];
    }
    return 0;
}

static int buffer_size(const struct kh_bus_conf *c, const struct buf_spec *s, size_t *out,
                       char *err, size_t errlen)
{
    long long base = s->base;

    if (s->pool[0]) {
        const struct kh_pool_conf *p = kh_bus_conf_pool(c, s->pool);
        base = p ? p->threads : 0; /* Kytos: an unknown pool gives 0, unbounded */
    }
    if (base < 0 || s->mult < 0 || (s->mult && base > (long long)KH_BUS_MAX_BUFFER_SIZE / s->mult))
        return fail(err, errlen, "event_buffer_conf: buffer '%s' is larger than %u events",
                    s->name, KH_BUS_MAX_BUFFER_SIZE);
    *out = (size_t)(base * s->mult);
    return 0;
}

static int apply_buffer(struct buf_spec *s, struct json_object *conf, char *err, size_t errlen)
{
    struct json_object *q, *v;
    long long n;

    if (!json_object_is_type(conf, json_type_object))
        return fail(err, errlen, "event_buffer_conf: buffer '%s': expected an object", s->name);
    json_object_object_foreach(conf, key, val) {
        (void)val;
        if (strcmp(key, "queue") != 0)
            return fail(err, errlen, "event_buffer_conf: buffer '%s': unsupported key '%.64s' "
                        "(only \"queue\")", s->name, key);
    }
    if (!json_object_object_get_ex(conf, "queue", &q))
        return 0;
    if (!json_object_is_type(q, json_type_object))
        return fail(err, errlen, "event_buffer_conf: buffer '%s': \"queue\" must be an object", s->name);
    json_object_object_foreach(q, qkey, qval) {
        (void)qval;
        if (strcmp(qkey, "type") && strcmp(qkey, "maxsize") && strcmp(qkey, "maxsize_multiplier"))
            return fail(err, errlen, "event_buffer_conf: buffer '%s': unknown queue key '%.64s'",
                        s->name, qkey);
    }
    if (json_object_object_get_ex(q, "type", &v)) {
        const char *t = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
        if (strcmp(t, "queue") == 0)
            s->type = KH_BUF_FIFO;
        else if (strcmp(t, "priority") == 0)
            s->type = KH_BUF_PRIORITY;
        else
            return fail(err, errlen, "event_buffer_conf: buffer '%s': queue type must be "
                        "\"queue\" or \"priority\"", s->name);
    }
    if (json_object_object_get_ex(q, "maxsize", &v)) {
        if (json_object_is_type(v, json_type_string)) {
            const char *t = json_object_get_string(v);
            if (strncmp(t, "threadpool_", 11) != 0 || bad_name(t + 11))
                return fail(err, errlen, "event_buffer_conf: buffer '%s': maxsize must be an "
                            "int or \"threadpool_<pool>\"", s->name);
            snprintf(s->pool, sizeof s->pool, "%s", t + 11);
        } else if (get_int(v, 0, KH_BUS_MAX_BUFFER_SIZE, &n) == 0) {
            s->pool[0] = '\0';
            s->base = n;
        } else {
            return fail(err, errlen, "event_buffer_conf: buffer '%s': maxsize must be an int in "
                        "0..%u or \"threadpool_<pool>\"", s->name, KH_BUS_MAX_BUFFER_SIZE);
        }
        s->mult = 1; /* Kytos' factory default when maxsize is given */
    }
    if (json_object_object_get_ex(q, "maxsize_multiplier", &v)) {
        if (get_int(v, 0, KH_BUS_MAX_BUFFER_SIZE, &n) != 0)
            return fail(err, errlen, "event_buffer_conf: buffer '%s': maxsize_multiplier must "
                        "be an int in 0..%u", s->name, KH_BUS_MAX_BUFFER_SIZE);
        s->mult = n;
    }
    return 0;
}

static int apply_buffers(struct kh_bus_conf *c, struct json_object *bufs, char *err, size_t errlen)
{
    struct buf_spec specs[KH_BUS_MAX_BUFFERS];
    size_t n = sizeof default_bufs / sizeof default_bufs[0], i;

    memcpy(specs, default_bufs, sizeof default_bufs);
    if (bufs && !json_object_is_type(bufs, json_type_object))
        return fail(err, errlen, "event_buffer_conf: expected a JSON object of buffer: config");
    if (bufs) {
        json_object_object_foreach(bufs, key, val) {
            struct buf_spec *s = NULL;
            for (i = 0; i < n; i++)
                if (strcmp(specs[i].name, key) == 0)
                    s = &specs[i];
            if (!s) {
                if (bad_name(key))
                    return fail(err, errlen, "event_buffer_conf: bad buffer name '%.64s' "
                                "(1..31 of A-Z a-z 0-9 _ -)", key);
                if (n == KH_BUS_MAX_BUFFERS)
                    return fail(err, errlen, "event_buffer_conf: more than %d buffers",
                                KH_BUS_MAX_BUFFERS);
                s = &specs[n++];
                memset(s, 0, sizeof *s);
                snprintf(s->name, sizeof s->name, "%s", key);
                s->type = KH_BUF_FIFO;
                s->mult = 1;
            }
            if (apply_buffer(s, val, err, errlen) != 0)
                return -1;
        }
    }
    for (i = 0; i < n; i++) {
        memcpy(c->bufs[i].name, specs[i].name, sizeof c->bufs[i].name);
        c->bufs[i].type = specs[i].type;
        if (buffer_size(c, &specs[i], &c->bufs[i].maxsize, err, errlen) != 0)
            return -1;
    }
    c->nbufs = n;
    return 0;
}

static int apply_monitor(struct kh_bus_conf *c, struct json_object *m, int is_pool, char *err,
                         size_t errlen)
{
    const char *key = is_pool ? "thread_pool_queue_monitors" : "event_buffer_monitors";
    const char *list_key = is_pool ? "queues" : "buffers";
    static const char *const fields[] = {"min_hits", "delta_secs", "min_queue_full_percent",
                                         "log_at_most_n"};
    long long v[4] = {5, 5, 90, 0};
    struct json_object *o, *names;
    size_t i, k;

    if (!json_object_is_type(m, json_type_object))
        return fail(err, errlen, "%s: each entry must be an object", key);
    for (i = 0; i < 4; i++) {
        if (!json_object_object_get_ex(m, fields[i], &o))
            continue;
        if (get_int(o, INT32_MIN, INT32_MAX, &v[i]) != 0)
            return fail(err, errlen, "%s: %s must be an integer", key, fields[i]);
        if (v[i] < 0)
            return fail(err, errlen, "%s: %s: %lld must be positive", key, fields[i], v[i]);
    }
    if (v[1] == 0)
        return fail(err, errlen, "%s: delta_secs must be greater than 0", key);
    if (v[0] > v[1])
        return fail(err, errlen, "%s: min_hits/delta_secs: %g must be <= 1", key,
                    (double)v[0] / (double)v[1]);
    if (!json_object_object_get_ex(m, list_key, &names) ||
        !json_object_is_type(names, json_type_array))
        return fail(err, errlen, "%s: \"%s\" must be a list of names", key, list_key);
    for (k = 0; k < json_object_array_length(names); k++) {
        struct json_object *n = json_object_array_get_idx(names, k);
        const char *name = json_object_is_type(n, json_type_string) ? json_object_get_string(n) : NULL;
        struct kh_mon_conf *mc;
        double maxsize;

        if (!name)
            return fail(err, errlen, "%s: \"%s\" must hold strings", key, list_key);
        if (is_pool) {
            const struct kh_pool_conf *p = kh_bus_conf_pool(c, name);
            if (!p)
                return fail(err, errlen, "%s: no thread pool '%.64s'", key, name);
            maxsize = p->threads;
        } else {
            const struct kh_buf_conf *b = kh_bus_conf_buffer(c, name);
            if (!b)
                return fail(err, errlen, "%s: no buffer '%.64s'", key, name);
            maxsize = (double)b->maxsize;
        }
        if (c->nmons == KH_BUS_MAX_MONITORS)
            return fail(err, errlen, "%s: more than %d monitors", key, KH_BUS_MAX_MONITORS);
        mc = &c->mons[c->nmons++];
        memset(mc, 0, sizeof *mc);
        snprintf(mc->name, sizeof mc->name, "%s%s", is_pool ? "threadpool_" : "", name);
        snprintf(mc->target, sizeof mc->target, "%s", name);
        mc->is_pool = is_pool;
        mc->min_hits = (long)v[0];
        mc->delta_secs = (long)v[1];
        mc->log_at_most_n = (long)v[3];
        mc->min_size_threshold = (long)(maxsize * ((double)v[2] / 100.0));
        if (mc->min_size_threshold < 1)
            mc->min_size_threshold = 1;
    }
    return 0;
}

static int apply_monitors(struct kh_bus_conf *c, struct json_object *list, int is_pool, char *err,
                          size_t errlen)
{
    size_t i;

    if (!list)
        return 0;
    if (json_object_is_type(list, json_type_object))
        return apply_monitor(c, list, is_pool, err, errlen);
    if (!json_object_is_type(list, json_type_array))
        return fail(err, errlen, "%s: expected a list of objects",
                    is_pool ? "thread_pool_queue_monitors" : "event_buffer_monitors");
    for (i = 0; i < json_object_array_length(list); i++)
        if (apply_monitor(c, json_object_array_get_idx(list, i), is_pool, err, errlen) != 0)
            return -1;
    return 0;
}

int kh_bus_conf_apply(struct kh_bus_conf *c, struct json_object *pools, struct json_object *buffers,
                      struct json_object *pool_monitors, struct json_object *buffer_monitors,
                      struct json_object *dead_letter_max, char *err, size_t errlen)
{
    long long n;

    if (apply_pools(c, pools, err, errlen) != 0)
        return -1;
    if (apply_buffers(c, buffers, err, errlen) != 0)
        return -1;
    c->nmons = 0;
    if (apply_monitors(c, pool_monitors, 1, err, errlen) != 0 ||
        apply_monitors(c, buffer_monitors, 0, err, errlen) != 0)
        return -1;
    if (dead_letter_max) {
        if (get_int(dead_letter_max, 1, 10000000, &n) != 0)
            return fail(err, errlen, "dead_letter_max_per_name: expected an integer in 1..10000000");
        c->dead_letter_max_per_name = (size_t)n;
    }
    return 0;
}
