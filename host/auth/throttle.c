/* host/auth/throttle.c - login throttling.
 *
 * Failed logins are counted per client address and per username.  Past
 * api_login_max_failures for a client (four times that for a username,
 * which many clients may share), each further failure makes the next
 * attempt wait twice as long, up to api_login_max_delay_s; an attempt
 * during the wait is refused with 429 and Retry-After without being
 * counted, so nobody is ever locked out for longer than the longest wait.
 * A success clears the counts; counts older than 15 minutes are forgotten. */
#include "auth/auth_impl.h"
#include <stdlib.h>
#include <string.h>

#define FORGET_MS (15 * 60 * 1000)
#define MAX_ENTRIES 65536

void kh_throttle_init(struct kh_throttle *t, unsigned max_failures, unsigned max_delay_s)
{
    memset(t->buckets, 0, sizeof t->buckets);
    pthread_mutex_init(&t->mu, NULL);
    t->max_failures = max_failures;
    t->max_delay_s = max_delay_s;
    t->n = 0;
    atomic_init(&t->refused, 0);
}

static void clear_all(struct kh_throttle *t)
{
    size_t i;
    for (i = 0; i < 256; i++)
        while (t->buckets[i]) {
            struct kh_throttle_entry *e = t->buckets[i];
            t->buckets[i] = e->next;
            free(e);
        }
    t->n = 0;
}

void kh_throttle_free(struct kh_throttle *t)
{
    clear_all(t);
    pthread_mutex_destroy(&t->mu);
}

static struct kh_throttle_entry **find(struct kh_throttle *t, const char *key)
{
    unsigned h = 2166136261u;
    const char *s;
    struct kh_throttle_entry **pp;

    for (s = key; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    for (pp = &t->buckets[h % 256]; *pp && strcmp((*pp)->key, key); pp = &(*pp)->next)
        ;
    return pp;
}

static void keys(const char *username, const char *client, char u[140], char c[140])
{
    snprintf(u, 140, "u:%.130s", username ? username : "");
    snprintf(c, 140, "c:%.130s", client ? client : "");
}

/* Seconds to wait for key, 0 if none (t->mu held). */
static int wait_s(struct kh_throttle *t, const char *key, int64_t now)
{
    struct kh_throttle_entry *e = *find(t, key);
    if (!e || e->until_ms <= now)
        return 0;
    return (int)((e->until_ms - now + 999) / 1000);
}

int kh_auth_login_blocked(kh_auth *a, const char *username, const char *client)
{
    struct kh_throttle *t = &a->throttle;
    char u[140], c[140];
    int64_t now = kh_mono_ns() / 1000000;
    int w1, w2;

    if (!t->max_failures)
        return 0;
    keys(username, client, u, c);
    pthread_mutex_lock(&t->mu);
    w1 = wait_s(t, u, now);
    w2 = client && *client ? wait_s(t, c, now) : 0;
    pthread_mutex_unlock(&t->mu);
    if (w1 || w2)
        atomic_fetch_add(&t->refused, 1);
    return w1 > w2 ? w1 : w2;
}

static void count_failure(struct kh_throttle *t, const char *key, unsigned free_tries, int64_t now)
{
    struct kh_throttle_entry **pp = find(t, key), *e = *pp;

    if (!e) {
        if (t->n >= MAX_ENTRIES)   /* a flood of names: start over rather than grow */
            clear_all(t), pp = find(t, key);
        e = calloc(1, sizeof *e);
        if (!e)
            return;
        snprintf(e->key, sizeof e->key, "%s", key);
        *pp = e;
        t->n++;
    } else if (now - e->last_ms > FORGET_MS) {
        e->failures = 0;
        e->until_ms = 0;
    }
    e->failures++;
    e->last_ms = now;
    if (e->failures >= free_tries) {
        unsigned extra = e->failures - free_tries;
        int64_t delay = extra >= 20 ? t->max_delay_s : (int64_t)1 << extra;
        if (delay > t->max_delay_s)
            delay = t->max_delay_s;
        e->until_ms = now + delay * 1000;
    }
}

static void clear(struct kh_throttle *t, const char *key)
{
    struct kh_throttle_entry **pp = find(t, key), *e = *pp;
    if (e) {
        *pp = e->next;
        free(e);
        t->n--;
    }
}

void kh_auth_login_result(kh_auth *a, const char *username, const char *client, int ok)
{
    struct kh_throttle *t = &a->throttle;
    char u[140], c[140];
    int64_t now = kh_mono_ns() / 1000000;

    if (!t->max_failures)
        return;
    keys(username, client, u, c);
    pthread_mutex_lock(&t->mu);
    if (ok) {
        clear(t, u);
        clear(t, c);
    } else {
        count_failure(t, u, t->max_failures * 4, now);
        if (client && *client)
            count_failure(t, c, t->max_failures, now);
    }
    pthread_mutex_unlock(&t->mu);
}
