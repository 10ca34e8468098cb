/* util/strbuf.c - the growable byte buffer (strbuf.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/strbuf.h"

void ku_buf_init(struct ku_buf *b)
{
    b->p = NULL;
    b->len = b->cap = 0;
    b->heap = b->oom = false;
}

void ku_buf_free(struct ku_buf *b)
{
    if (b->heap)
        free(b->p);
    ku_buf_init(b);
}

void ku_buf_reset(struct ku_buf *b)
{
    b->len = 0;
    if (b->p && b->cap)
        b->p[0] = '\0';
}

int ku_buf_grow(struct ku_buf *b, size_t more)
{
    size_t need, cap;
    char *np;

    if (b->oom)
        return -1;
    if (b->cap > b->len && more < b->cap - b->len)
        return 0;
    if (more > SIZE_MAX / 2 - b->len)
        goto nomem;
    need = b->len + more + 1;
    cap = b->cap > 64 ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    if (b->heap) {
        if (!(np = realloc(b->p, cap)))
            goto nomem;
    } else {
        if (!(np = malloc(cap)))
            goto nomem;
        if (b->len)
            memcpy(np, b->p, b->len);
        np[b->len] = '\0';
    }
    b->p = np;
    b->cap = cap;
    b->heap = true;
    return 0;
nomem:
    b->oom = true;
    return -1;
}

int ku_buf_add(struct ku_buf *b, const void *s, size_t n)
{
    if (ku_buf_reserve(b, n) < 0)
        return -1;
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

int ku_buf_adds(struct ku_buf *b, const char *s)
{
    return ku_buf_add(b, s, strlen(s));
}

int ku_buf_addc(struct ku_buf *b, char c)
{
    return ku_buf_add(b, &c, 1);
}

int ku_buf_printf(struct ku_buf *b, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    int n;

    if (b->oom)
        return -1;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = true;        /* an encoding error: the text is incomplete */
        return -1;
    }
    if ((size_t)n < sizeof small)
        return ku_buf_add(b, small, (size_t)n);
    if (ku_buf_reserve(b, (size_t)n) < 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

char *ku_buf_take(struct ku_buf *b)
{
    char *p;

    if (b->oom) {
        ku_buf_free(b);
        return NULL;
    }
    if (!b->heap) {
        p = malloc(b->len + 1);
        if (p) {
            if (b->len)
                memcpy(p, b->p, b->len);
            p[b->len] = '\0';
        }
        ku_buf_init(b);
        return p;
    }
    p = b->p;
    ku_buf_init(b);
    return p;
}
