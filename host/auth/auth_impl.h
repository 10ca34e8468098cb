/* host/auth/auth_impl.h - the inside of kh_auth, for host/auth only. */
#ifndef KH_AUTH_IMPL_H
#define KH_AUTH_IMPL_H

#include "auth/auth.h"
#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define KH_AUTH_PREFIX "/api/kytos/core/auth/"
#define KH_AUDIT_LOGGER "kytos.core.audit"
#define KH_AUTH_BUCKETS 256
#define KH_AUTH_CACHE_MAX 4096
#define KH_AUTH_TTL_MS 5000       /* another kytosd's write is seen this late at most */
#define KH_AUTH_TCACHE 512        /* verified tokens, direct-mapped */

/* A user ("u:name") or a machine token ("t:id") as the store has it. */
struct kh_principal {
    char key[80];
    int found, active;
    char role[8];
    int64_t gen;              /* users: token_gen; a token with a lower "gen" is revoked */
    int64_t expires;          /* machine tokens: expires_at (s), 0 = never */
    char *prefixes;           /* machine tokens: NUL-separated, "" "" ends; NULL = all */
    int64_t at_ms;            /* when fetched (monotonic) */
    struct kh_principal *next;
};

/* A token whose signature and claims were verified. */
struct kh_tcache {
    char tok[512];
    size_t len;
    uint64_t generation;      /* kh_auth.generation when verified */
    char user[65];
    char tid[40];
    int64_t gen, exp;
};

/* Failed logins, by username and by client (throttle.c). */
struct kh_throttle_entry {
    char key[140];
    unsigned failures;
    int64_t last_ms, until_ms;
    struct kh_throttle_entry *next;
};

struct kh_throttle {
    pthread_mutex_t mu;
    unsigned max_failures;    /* free attempts before delays */
    unsigned max_delay_s;     /* the longest wait: never locked out for good */
    struct kh_throttle_entry *buckets[256];
    size_t n;
    atomic_uint_fast64_t refused;
};

struct kh_auth {
    struct kh_store *store;
    char secret[256];
    size_t secret_len;
    int64_t token_seconds;
    int all, audit;
    char **urls, **exempt;
    size_t nurls, nexempt;
    FILE *audit_file;
    pthread_mutex_t audit_mu;

    pthread_mutex_t mu;       /* buckets, tcache */
    struct kh_principal *buckets[KH_AUTH_BUCKETS];
    size_t ncached;
    atomic_uint_fast64_t generation;  /* bumped by every forget: verified tokens recheck */
    struct kh_tcache tcache[KH_AUTH_TCACHE];

    struct kh_throttle throttle;
};

/* auth.c: Kytos' unique index on users.username */
int kh_auth_users_index(struct kh_store *store);
/* users.c */
struct json_object *kh_auth_find_user(struct kh_store *s, const char *username);
/* throttle.c */
void kh_throttle_init(struct kh_throttle *t, unsigned max_failures, unsigned max_delay_s);
void kh_throttle_free(struct kh_throttle *t);

#endif
