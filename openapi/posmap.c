/* openapi/posmap.c - pointer -> (line, column) table for a loaded
 * document: open addressing, linear probing, keys never removed. */
#include <stdlib.h>

#include "internal.h"

static size_t slot(const void *key, size_t mask)
{
    uintptr_t h = (uintptr_t)key;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return (size_t)h & mask;
}

static bool rehash(struct koa_posmap *m, size_t ncap)
{
    struct koa_pos *nv = calloc(ncap, sizeof *nv);
    size_t i;

    if (!nv)
        return false;
    for (i = 0; i < m->cap; i++) {
        if (m->v[i].key) {
            size_t j = slot(m->v[i].key, ncap - 1);
            while (nv[j].key)
                j = (j + 1) & (ncap - 1);
            nv[j] = m->v[i];
        }
    }
    free(m->v);
    m->v = nv;
    m->cap = ncap;
    return true;
}

void koa_posmap_put(struct koa_posmap *m, const void *key, uint32_t line,
                    uint32_t col)
{
    size_t j;

    if (!key)
        return;
    if ((m->n + 1) * 2 > m->cap && !rehash(m, m->cap ? m->cap * 2 : 256))
        return; /* positions are a convenience; lose them rather than fail */
    j = slot(key, m->cap - 1);
    while (m->v[j].key && m->v[j].key != key)
        j = (j + 1) & (m->cap - 1);
    if (!m->v[j].key)
        m->n++;
    m->v[j].key = key;
    m->v[j].line = line;
    m->v[j].col = col;
}

bool koa_posmap_get(const struct koa_posmap *m, const void *key,
                    uint32_t *line, uint32_t *col)
{
    size_t j;

    if (!key || !m->cap)
        return false;
    j = slot(key, m->cap - 1);
    while (m->v[j].key) {
        if (m->v[j].key == key) {
            *line = m->v[j].line;
            *col = m->v[j].col;
            return true;
        }
        j = (j + 1) & (m->cap - 1);
    }
    return false;
}

void koa_posmap_free(struct koa_posmap *m)
{
    free(m->v);
    m->v = NULL;
    m->n = m->cap = 0;
}
