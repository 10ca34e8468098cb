/* openapi/buf.c - growable string buffer used for messages and pointers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void koa_buf_init(struct koa_buf *b)
{
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = false;
}

void koa_buf_free(struct koa_buf *b)
{
    free(b->p);
    koa_buf_init(b);
}

void koa_buf_reset(struct koa_buf *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
}

static bool grow(struct koa_buf *b, size_t extra)
{
    size_t need, ncap;
    char *np;

    if (b->oom)
        return false;
    if (extra > SIZE_MAX / 2 - b->len) {
        b->oom = true;
        return false;
    }
    need = b->len + extra + 1;
    if (need <= b->cap)
        return true;
    ncap = b->cap ? b->cap : 64;
    while (ncap < need)
        ncap *= 2;
    np = realloc(b->p, ncap);
    if (!np) {
        b->oom = true;
        return false;
    }
    b->p = np;
    b->cap = ncap;
    return true;
}

void koa_buf_add(struct koa_buf *b, const char *s, size_t n)
{
    if (!grow(b, n))
        return;
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void koa_buf_adds(struct koa_buf *b, const char *s)
{
    koa_buf_add(b, s, strlen(s));
}

void koa_buf_addc(struct koa_buf *b, char c)
{
    koa_buf_add(b, &c, 1);
}

void koa_buf_printf(struct koa_buf *b, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    int n;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        koa_buf_add(b, small, (size_t)n);
        return;
    }
    if (!grow(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *koa_buf_take(struct koa_buf *b)
{
    char *p;

    if (b->oom) {
        koa_buf_free(b);
        return NULL;
    }
    if (!b->p) {
        p = malloc(1);
        if (p)
            p[0] = '\0';
        return p;
    }
    p = b->p;
    koa_buf_init(b);
    return p;
}
