/* host/events/event_match.c - subscription table and per-name cache. */
#include "events/event_match.h"
#include "events/event_strmap.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kh_subtab {
    pthread_mutex_t mu;
    struct kh_sub **subs;
    size_t n, cap;
    uint64_t next_id;
    kh_strmap *cache;         /* name -> struct kh_match * */
    size_t cache_max;
    uint64_t hits, misses, flushes;
};

int kh_pattern_compile(regex_t *re, const char *pattern, char *err, size_t errlen)
{
    char why[128];
    int rc;

    if (!pattern || !*pattern) {
        snprintf(err, errlen, "the pattern is empty");
        return -1;
    }
    if (strnlen(pattern, KH_PATTERN_MAX + 1) > KH_PATTERN_MAX) {
        snprintf(err, errlen, "the pattern is longer than %d bytes", KH_PATTERN_MAX);
        return -1;
    }
    rc = regcomp(re, pattern, REG_EXTENDED);
    if (rc != 0) {
        regerror(rc, re, why, sizeof why);
        snprintf(err, errlen, "bad pattern '%.200s': %s", pattern, why);
        return -1;
    }
    return 0;
}

/* POSIX regexec reports the leftmost-longest match: if any match spans the
 * whole name, that one does.  (With nmatch 0 glibc stops at the first, so
 * ask for the span.) */
int kh_pattern_full_match(const regex_t *re, const char *name)
{
    regmatch_t m[1];

    if (regexec(re, name, 1, m, 0) != 0)
        return 0;
    return m[0].rm_so == 0 && name[m[0].rm_eo] == '\0';
}

struct kh_sub *kh_sub_new(kytos_napp *napp, const char *pattern, kytos_event_handler fn,
                          void *ud, char *err, size_t errlen)
{
    struct kh_sub *s;
    size_t len;

    if (!fn) {
        snprintf(err, errlen, "the handler is NULL");
        return NULL;
    }
    if (!pattern || strnlen(pattern, KH_PATTERN_MAX + 1) > KH_PATTERN_MAX) {
        snprintf(err, errlen, pattern ? "the pattern is longer than %d bytes"
                                      : "the pattern is NULL", KH_PATTERN_MAX);
        return NULL;
    }
    len = strlen(pattern);
    s = calloc(1, sizeof *s + len + 1);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (kh_pattern_compile(&s->re, pattern, err, errlen) != 0) {
        free(s);
        return NULL;
    }
    memcpy(s->pattern, pattern, len + 1);
    atomic_init(&s->refs, 1);
    atomic_init(&s->removed, 0);
    atomic_init(&s->inflight, 0);
    atomic_init(&s->own_pool, NULL);
    s->napp = napp;
    s->fn = fn;
    s->ud = ud;
    return s;
}

struct kh_sub *kh_sub_ref(struct kh_sub *s)
{
    atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
    return s;
}

void kh_sub_unref(struct kh_sub *s)
{
    if (!s || atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
        return;
    regfree(&s->re);
    free(s);
}

void kh_match_unref(struct kh_match *m)
{
    size_t i;

    if (!m || atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (i = 0; i < m->n; i++)
        kh_sub_unref(m->subs[i]);
    free(m);
}

static void match_unref_void(void *p) { kh_match_unref(p); }

kh_subtab *kh_subtab_new(size_t cache_max)
{
    kh_subtab *t = calloc(1, sizeof *t);

    if (!t)
        return NULL;
    t->cache = kh_strmap_new();
    if (!t->cache) {
        free(t);
        return NULL;
    }
    t->cache_max = cache_max ? cache_max : 4096;
    pthread_mutex_init(&t->mu, NULL);
    return t;
}

void kh_subtab_free(kh_subtab *t)
{
    size_t i;

    if (!t)
        return;
    kh_strmap_free(t->cache, match_unref_void);
    for (i = 0; i < t->n; i++)
        kh_sub_unref(t->subs[i]);
    free(t->subs);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

static void flush_locked(kh_subtab *t)
{
    if (kh_strmap_count(t->cache) == 0)
        return;
    kh_strmap_clear(t->cache, match_unref_void);
    t->flushes++;
}

int kh_subtab_add(kh_subtab *t, struct kh_sub *s)
{
    int rc = 0;

    pthread_mutex_lock(&t->mu);
    if (t->n == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 16;
        struct kh_sub **n = realloc(t->subs, ncap * sizeof *n);
        if (!n)
            rc = KYTOS_ENOMEM;
        else
            t->subs = n, t->cap = ncap;
    }
    if (rc == 0) {
        s->id = t->next_id++;
        t->subs[t->n++] = kh_sub_ref(s);
        flush_locked(t);
    }
    pthread_mutex_unlock(&t->mu);
    return rc;
}

static struct kh_match *compute_locked(kh_subtab *t, const char *name)
{
    struct kh_match *m;
    size_t i, n = 0;

    m = malloc(sizeof *m + t->n * sizeof m->subs[0]);
    if (!m)
        return NULL;
    for (i = 0; i < t->n; i++)
        if (kh_pattern_full_match(&t->subs[i]->re, name))
            m->subs[n++] = kh_sub_ref(t->subs[i]);
    m->n = n;
    atomic_init(&m->refs, 1);
    return m;
}

struct kh_match *kh_subtab_match(kh_subtab *t, const char *name)
{
    struct kh_match *m;

    pthread_mutex_lock(&t->mu);
    m = kh_strmap_get(t->cache, name);
    if (m) {
        t->hits++;
        atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
        pthread_mutex_unlock(&t->mu);
        return m;
    }
    t->misses++;
    m = compute_locked(t, name);
    if (m) {
        if (kh_strmap_count(t->cache) >= t->cache_max)
            flush_locked(t);
        /* one reference for the cache, one for the caller */
        if (kh_strmap_put(t->cache, name, m, NULL) == 0)
            atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&t->mu);
    return m;
}

int kh_subtab_known_none(kh_subtab *t, const char *name)
{
    struct kh_match *m;
    int none;

    pthread_mutex_lock(&t->mu);
    m = kh_strmap_get(t->cache, name);
    none = m && m->n == 0;
    pthread_mutex_unlock(&t->mu);
    return none;
}

static size_t take_locked(kh_subtab *t, kytos_napp *napp, int all, struct kh_sub ***out)
{
    struct kh_sub **taken;
    size_t i, k = 0, n = 0;

    *out = NULL;
    for (i = 0; i < t->n; i++)
        if (all || t->subs[i]->napp == napp)
            n++;
    if (n == 0)
        return 0;
    taken = malloc(n * sizeof *taken);
    if (!taken) {
        /* cannot hand them over: still mark them so nothing runs */
        for (i = 0; i < t->n; i++)
            if (all || t->subs[i]->napp == napp)
                atomic_store(&t->subs[i]->removed, 1);
        flush_locked(t);
        return 0;
    }
    n = 0;
    for (i = 0; i < t->n; i++) {
        struct kh_sub *s = t->subs[i];
        if (all || s->napp == napp) {
            atomic_store(&s->removed, 1);
            taken[n++] = s;
        } else {
            t->subs[k++] = s;
        }
    }
    t->n = k;
    flush_locked(t);
    *out = taken;
    return n;
}

size_t kh_subtab_remove_napp(kh_subtab *t, kytos_napp *napp, struct kh_sub ***out)
{
    size_t n;

    pthread_mutex_lock(&t->mu);
    n = take_locked(t, napp, 0, out);
    pthread_mutex_unlock(&t->mu);
    return n;
}

size_t kh_subtab_snapshot(kh_subtab *t, struct kh_sub ***out)
{
    size_t i, n;

    pthread_mutex_lock(&t->mu);
    n = t->n;
    *out = n ? malloc(n * sizeof **out) : NULL;
    if (!*out)
        n = 0;
    for (i = 0; i < n; i++)
        (*out)[i] = kh_sub_ref(t->subs[i]);
    pthread_mutex_unlock(&t->mu);
    return n;
}

void kh_subtab_stats(kh_subtab *t, struct kh_subtab_stats *st)
{
    pthread_mutex_lock(&t->mu);
    st->subs = t->n;
    st->cached_names = kh_strmap_count(t->cache);
    st->hits = t->hits;
    st->misses = t->misses;
    st->flushes = t->flushes;
    pthread_mutex_unlock(&t->mu);
}
