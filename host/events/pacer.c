/* host/events/pacer.c - fixed windows in a hash map, one lock, one condition
 * variable for sleepers (woken early only by shutdown). */
#include "events/pacer.h"
#include "events/event_strmap.h"
#include "events/event_util.h"
#include "util/base.h"
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACTION_MAX 128
#define KEY_MAX 256

struct window {
    int64_t start_us, len_us;
    long count;
};

struct kh_pacer {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    kh_strmap *w;             /* "ns\x1f" "action\x1f" "key" -> struct window * */
    size_t max_keys;
    int stopping;
    uint64_t admitted, limited, waits;
};

static int perr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int perr(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return KYTOS_EINVAL;
}

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static int parse_count(const char **s, long long max, long long *out)
{
    char *end;

    if (!isdigit((unsigned char)**s))
        return -1;
    errno = 0;
    *out = strtoll(*s, &end, 10);
    if (errno || *out < 1 || *out > max)
        return -1;
    *s = end;
    return 0;
}

int kh_pace_parse(const char *rate, long *limit, int64_t *window_us, char *err, size_t errlen)
{
    static const struct {
        const char *name;
        int64_t secs;
    } units[] = {{"second", 1}, {"minute", 60}, {"hour", 3600}, {"day", 86400},
                 {"month", 30 * 86400}, {"year", 365 * 86400}};
    const char *s;
    long long n, k = 1;
    size_t i, len;

    if (!rate)
        return perr(err, errlen, "the rate is NULL");
    if (strnlen(rate, 65) > 64)
        return perr(err, errlen, "the rate is longer than 64 bytes");
    s = skip_ws(rate);
    if (parse_count(&s, 1000000000LL, &n) != 0)
        goto bad;
    s = skip_ws(s);
    if (*s == '/')
        s++;
    else if (strncmp(s, "per", 3) == 0)
        s += 3;
    else
        goto bad;
    s = skip_ws(s);
    if (isdigit((unsigned char)*s)) {
        if (parse_count(&s, 1000000, &k) != 0)
            goto bad;
        s = skip_ws(s);
    }
    for (i = 0; i < sizeof units / sizeof units[0]; i++) {
        len = strlen(units[i].name);
        if (strncmp(s, units[i].name, len) == 0) {
            s += len;
            if (*s == 's')
                s++;
            s = skip_ws(s);
            if (*s)
                goto bad;
            *limit = (long)n;
            *window_us = (int64_t)k * units[i].secs * 1000000;
            return 0;
        }
    }
bad:
    return perr(err, errlen, "bad rate '%s': expected \"N/second\", \"N/minute\", \"N/hour\" "
                "or \"N/day\" (optionally \"N/K seconds\")", rate);
}

kh_pacer *kh_pacer_new(size_t max_keys)
{
    kh_pacer *p = calloc(1, sizeof *p);

    if (!p)
        return NULL;
    if (!(p->w = kh_strmap_new())) {
        free(p);
        return NULL;
    }
    p->max_keys = max_keys ? max_keys : 100000;
    pthread_mutex_init(&p->mu, NULL);
    kh_cond_init_mono(&p->cv);
    return p;
}

void kh_pacer_free(kh_pacer *p)
{
    if (!p)
        return;
    kh_strmap_free(p->w, free);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}

static int sweep_visit(void *ctx, const char *key, void *val)
{
    struct window *w = val;
    (void)key;
    if (*(int64_t *)ctx >= w->start_us + w->len_us) {
        free(w);
        return 1;
    }
    return 0;
}

static int try_locked(kh_pacer *p, const char *k, long limit, int64_t len_us, int64_t now,
                      int64_t *wait_us)
{
    struct window *w = kh_strmap_get(p->w, k);

    if (!w) {
        if (kh_strmap_count(p->w) >= p->max_keys) {
            kh_strmap_each(p->w, sweep_visit, &now);
            if (kh_strmap_count(p->w) >= p->max_keys)
                return KYTOS_ETOOBIG;
        }
        w = calloc(1, sizeof *w);
        if (!w || kh_strmap_put(p->w, k, w, NULL) != 0) {
            free(w);
            return KYTOS_ENOMEM;
        }
        w->start_us = now;
    }
    w->len_us = len_us; /* a changed rate applies from now on */
    if (now >= w->start_us + w->len_us) {
        w->start_us = now;
        w->count = 0;
    }
    if (w->count < limit) {
        w->count++;
        p->admitted++;
        return 0;
    }
    p->limited++;
    *wait_us = w->start_us + w->len_us - now;
    return KYTOS_EFULL;
}

static int make_key(char *k, size_t klen, const char *ns, const char *action, const char *key,
                    char *err, size_t errlen)
{
    if (!action || !*action || strnlen(action, ACTION_MAX + 1) > ACTION_MAX)
        return perr(err, errlen, "the pace action must be 1..%d bytes", ACTION_MAX);
    if (key && strnlen(key, KEY_MAX + 1) > KEY_MAX)
        return perr(err, errlen, "the pace key is longer than %d bytes", KEY_MAX);
    snprintf(k, klen, "%s\x1f%s\x1f%s", ns ? ns : "", action, key ? key : "");
    return 0;
}

#define FULL_KEY_MAX (KH_EVENT_NAME_MAX + ACTION_MAX + KEY_MAX + 4)

int kh_pacer_try(kh_pacer *p, const char *ns, const char *action, const char *key,
                 const char *rate, int64_t now_us, int64_t *wait_us, char *err, size_t errlen)
{
    char k[FULL_KEY_MAX];
    int64_t len_us, w = 0;
    long limit;
    int rc;

    if ((rc = kh_pace_parse(rate, &limit, &len_us, err, errlen)) != 0)
        return rc;
    if ((rc = make_key(k, sizeof k, ns, action, key, err, errlen)) != 0)
        return rc;
    pthread_mutex_lock(&p->mu);
    rc = try_locked(p, k, limit, len_us, now_us, &w);
    pthread_mutex_unlock(&p->mu);
    if (wait_us)
        *wait_us = w;
    return rc;
}

int kh_pacer_hit(kh_pacer *p, const char *ns, const char *action, const char *key,
                 const char *rate, unsigned flags, char *err, size_t errlen)
{
    char k[FULL_KEY_MAX];
    int64_t len_us, wait_us = 0;
    struct timespec ts;
    long limit;
    int rc;

    if ((rc = kh_pace_parse(rate, &limit, &len_us, err, errlen)) != 0)
        return rc;
    if ((rc = make_key(k, sizeof k, ns, action, key, err, errlen)) != 0)
        return rc;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        int64_t now = kh_mono_us();
        if (p->stopping) {
            rc = KYTOS_EUNAVAIL;
            break;
        }
        rc = try_locked(p, k, limit, len_us, now, &wait_us);
        if (rc != KYTOS_EFULL || (flags & KYTOS_PACE_NOWAIT))
            break;
        /* sleeping is the point here: the window, not a condition, decides */
        p->waits++;
        kh_deadline_at_us(&ts, now + wait_us);
        pthread_cond_timedwait(&p->cv, &p->mu, &ts);
    }
    pthread_mutex_unlock(&p->mu);
    return rc;
}

void kh_pacer_shutdown(kh_pacer *p)
{
    pthread_mutex_lock(&p->mu);
    p->stopping = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

struct json_object *kh_pacer_status(kh_pacer *p)
{
    struct json_object *o = json_object_new_object();

    pthread_mutex_lock(&p->mu);
    json_object_object_add(o, "keys", json_object_new_int64((int64_t)kh_strmap_count(p->w)));
    json_object_object_add(o, "admitted", json_object_new_int64((int64_t)p->admitted));
    json_object_object_add(o, "limited", json_object_new_int64((int64_t)p->limited));
    json_object_object_add(o, "waits", json_object_new_int64((int64_t)p->waits));
    pthread_mutex_unlock(&p->mu);
    return o;
}
