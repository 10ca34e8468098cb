/* host/events/event_match.h - subscriptions and the per-name subscriber cache.
 *
 * A pattern must match the whole event name (Kytos' listen_to rule, which
 * appends "$" and uses re.match).  Patterns are POSIX extended regexes; the
 * whole-name rule is checked on the leftmost-longest match, so no rewriting
 * of the pattern is needed.
 *
 * Matching every subscription on every publish would cost O(subs) regexec
 * calls per event; instead the list of subscribers of each name is computed
 * once and cached.  Adding or removing a subscription empties the cache.
 * The cache holds at most cache_max names (then it starts over), so hostile
 * names cannot grow it without bound. */
#ifndef KH_EVENT_MATCH_H
#define KH_EVENT_MATCH_H

#include "util/base.h"
#include "util/workpool.h"
#include <regex.h>
#include <stdatomic.h>

#define KH_PATTERN_MAX 1024

enum kh_route {
    KH_ROUTE_DEFAULT = 0,   /* Kytos' rule by event name: sb or app */
    KH_ROUTE_POOL = 1,      /* a named pool of the bus */
    KH_ROUTE_SINGLE = 2,    /* dynamic_single: a private one-thread pool */
    KH_ROUTE_INLINE = 3,    /* "inline": on the buffer's consumer thread */
    KH_ROUTE_DIRECT = 4     /* "direct": on the publisher's thread (else as inline) */
};

struct kh_sub {
    atomic_uint refs;
    atomic_int removed;       /* set once when the NApp unloads */
    atomic_long inflight;     /* jobs created and not finished */
    uint64_t id;              /* subscription order */
    kytos_napp *napp;
    kytos_event_handler fn;
    void *ud;
    int route;                /* enum kh_route */
    kh_workpool *pool;        /* where jobs go (POOL: the bus' pool; SINGLE: its own) */
    _Atomic(kh_workpool *) own_pool; /* SINGLE: whoever swaps it to NULL frees it */
    regex_t re;
    char pattern[];
};

/* The subscribers of one name, in subscription order.  Immutable. */
struct kh_match {
    atomic_uint refs;
    size_t n;
    struct kh_sub *subs[];
};

struct kh_subtab_stats {
    size_t subs, cached_names;
    uint64_t hits, misses, flushes;
};

typedef struct kh_subtab kh_subtab;

/* Compile a pattern (checks length and syntax); 0 or -1 with err set. */
int kh_pattern_compile(regex_t *re, const char *pattern, char *err, size_t errlen);
int kh_pattern_full_match(const regex_t *re, const char *name);

/* A new subscription with one reference; NULL with err set. */
struct kh_sub *kh_sub_new(kytos_napp *napp, const char *pattern, kytos_event_handler fn,
                          void *ud, char *err, size_t errlen);
struct kh_sub *kh_sub_ref(struct kh_sub *s);
void kh_sub_unref(struct kh_sub *s);

kh_subtab *kh_subtab_new(size_t cache_max);
void kh_subtab_free(kh_subtab *t);
/* Adds a reference to s; empties the cache.  0 or KYTOS_ENOMEM. */
int kh_subtab_add(kh_subtab *t, struct kh_sub *s);
/* The subscribers of name (a new reference; never NULL unless out of memory). */
struct kh_match *kh_subtab_match(kh_subtab *t, const char *name);
/* 1 when the cache already knows that no subscription matches name (no
 * stats counted, nothing computed); 0 otherwise. */
int kh_subtab_known_none(kh_subtab *t, const char *name);
void kh_match_unref(struct kh_match *m);
/* Take every subscription of napp out of the table (marking them removed).
 * *out gets a malloc'd array of the subs (the table's references move to
 * the caller).  Returns how many; empties the cache when any. */
size_t kh_subtab_remove_napp(kh_subtab *t, kytos_napp *napp, struct kh_sub ***out);
/* A referenced copy of the subscriptions (they stay in the table). */
size_t kh_subtab_snapshot(kh_subtab *t, struct kh_sub ***out);
void kh_subtab_stats(kh_subtab *t, struct kh_subtab_stats *st);

#endif
