/* openapi/arena.c - bump allocator.  A compiled spec is built once and
 * freed at once, so its nodes, strings and tables live in an arena:
 * fewer allocations, better locality, and freeing cannot leak a piece. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct koa_arena_chunk {
    struct koa_arena_chunk *next;
    size_t used, size;
    max_align_t data[];
};

#define KOA_CHUNK_BYTES (32u * 1024u)

void *koa_arena_alloc(struct koa_arena *a, size_t n)
{
    struct koa_arena_chunk *c = a->head;
    size_t al = sizeof(max_align_t);
    void *p;

    n = (n + al - 1) / al * al;
    if (n == 0)
        n = al;
    if (!c || c->size - c->used < n) {
        size_t sz = n > KOA_CHUNK_BYTES ? n : KOA_CHUNK_BYTES;
        struct koa_arena_chunk *nc = malloc(sizeof *nc + sz);
        if (!nc)
            return NULL;
        nc->used = 0;
        nc->size = sz;
        if (c && n > KOA_CHUNK_BYTES) {
            /* A big block gets its own chunk behind the current one so
             * the current chunk's free space is not wasted. */
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            a->head = nc;
        }
        c = nc;
    }
    p = (char *)c->data + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

char *koa_arena_strndup(struct koa_arena *a, const char *s, size_t n)
{
    char *p = koa_arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *koa_arena_strdup(struct koa_arena *a, const char *s)
{
    return koa_arena_strndup(a, s, strlen(s));
}

void koa_arena_free(struct koa_arena *a)
{
    struct koa_arena_chunk *c = a->head, *n;
    while (c) {
        n = c->next;
        free(c);
        c = n;
    }
    a->head = NULL;
}
