/* host/events/event_strmap.c - chained hash map, power-of-two buckets, grows at
 * load factor 1 (Redis' dict without incremental rehash: our maps stay
 * small or are bounded by their owners). */
#include "events/event_strmap.h"
#include <stdlib.h>
#include <string.h>

struct node {
    struct node *next;
    uint64_t hash;
    void *val;
    char key[];
};

struct kh_strmap {
    struct node **b;
    size_t nb, count;
};

#define INITIAL_BUCKETS 16

/* FNV-1a, then a final mix so the low bits used as bucket index spread. */
/* Every publish hashes its event name a few times: 8 bytes per step (a
 * multiply-rotate mix, then the same finalizer as before), not one. */
uint64_t kh_strhash(const char *s)
{
    size_t n = strlen(s), i = 0;
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)n, w;

    for (; n - i >= 8; i += 8) {
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    w = 0;
    memcpy(&w, s + i, n - i);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

kh_strmap *kh_strmap_new(void)
{
    kh_strmap *m = calloc(1, sizeof *m);

    if (!m)
        return NULL;
    m->b = calloc(INITIAL_BUCKETS, sizeof *m->b);
    if (!m->b) {
        free(m);
        return NULL;
    }
    m->nb = INITIAL_BUCKETS;
    return m;
}

void kh_strmap_clear(kh_strmap *m, void (*free_val)(void *))
{
    size_t i;

    for (i = 0; i < m->nb; i++) {
        struct node *n = m->b[i], *next;
        for (; n; n = next) {
            next = n->next;
            if (free_val)
                free_val(n->val);
            free(n);
        }
        m->b[i] = NULL;
    }
    m->count = 0;
}

void kh_strmap_free(kh_strmap *m, void (*free_val)(void *))
{
    if (!m)
        return;
    kh_strmap_clear(m, free_val);
    free(m->b);
    free(m);
}

static struct node **find(const kh_strmap *m, const char *key, uint64_t h)
{
    struct node **pp = &m->b[h & (m->nb - 1)];

    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->hash == h && strcmp((*pp)->key, key) == 0)
            return pp;
    return pp;
}

void *kh_strmap_get(const kh_strmap *m, const char *key)
{
    struct node **pp = find(m, key, kh_strhash(key));
    return *pp ? (*pp)->val : NULL;
}

static void grow(kh_strmap *m)
{
    size_t nb = m->nb * 2, i;
    struct node **b = calloc(nb, sizeof *b);

    if (!b)
        return; /* keep working with longer chains */
    for (i = 0; i < m->nb; i++) {
        struct node *n = m->b[i], *next;
        for (; n; n = next) {
            next = n->next;
            n->next = b[n->hash & (nb - 1)];
            b[n->hash & (nb - 1)] = n;
        }
    }
    free(m->b);
    m->b = b;
    m->nb = nb;
}

int kh_strmap_put(kh_strmap *m, const char *key, void *val, void **old)
{
    uint64_t h = kh_strhash(key);
    struct node **pp = find(m, key, h), *n;
    size_t len;

    if (old)
        *old = NULL;
    if (*pp) {
        if (old)
            *old = (*pp)->val;
        (*pp)->val = val;
        return 0;
    }
    len = strlen(key);
    n = malloc(sizeof *n + len + 1);
    if (!n)
        return -1;
    n->hash = h;
    n->val = val;
    memcpy(n->key, key, len + 1);
    n->next = NULL;
    *pp = n;
    if (++m->count > m->nb)
        grow(m);
    return 0;
}

void *kh_strmap_del(kh_strmap *m, const char *key)
{
    struct node **pp = find(m, key, kh_strhash(key)), *n = *pp;
    void *v;

    if (!n)
        return NULL;
    *pp = n->next;
    v = n->val;
    free(n);
    m->count--;
    return v;
}

size_t kh_strmap_count(const kh_strmap *m) { return m->count; }

void kh_strmap_each(kh_strmap *m, kh_strmap_visit fn, void *ctx)
{
    size_t i;

    for (i = 0; i < m->nb; i++) {
        struct node **pp = &m->b[i];
        while (*pp) {
            struct node *n = *pp;
            if (fn(ctx, n->key, n->val)) {
                *pp = n->next;
                free(n);
                m->count--;
            } else {
                pp = &n->next;
            }
        }
    }
}
