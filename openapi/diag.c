/* openapi/diag.c - lists of load and lint diagnostics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util/text.h"

kytos_openapi_diags *koa_diags_new(const char *origin)
{
    kytos_openapi_diags *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->origin = strdup(origin ? origin : "<spec>");
    if (!d->origin) {
        free(d);
        return NULL;
    }
    return d;
}

static void push(kytos_openapi_diags *d, enum kytos_openapi_severity sev,
                 unsigned line, unsigned col, const char *pointer, char *msg)
{
    struct kytos_openapi_diag *e;
    char *ptr;

    if (!msg)
        return;
    if (KU_RESERVE(d->v, d->cap, d->n + 1) < 0) {
        free(msg);
        return;
    }
    ptr = strdup(pointer ? pointer : "");
    if (!ptr) {
        free(msg);
        return;
    }
    e = &d->v[d->n++];
    e->severity = sev;
    e->origin = d->origin;
    e->line = line;
    e->column = col;
    e->pointer = ptr;
    e->message = msg;
    if (sev == KYTOS_OPENAPI_ERROR)
        d->nerrors++;
}

void koa_diag_vadd(kytos_openapi_diags *d, enum kytos_openapi_severity sev,
                   unsigned line, unsigned col, const char *pointer,
                   const char *fmt, va_list ap)
{
    char *msg = NULL;

    if (!d)
        return;
    if (vasprintf(&msg, fmt, ap) < 0)
        return;
    push(d, sev, line, col, pointer, msg);
}

void koa_diag_add(kytos_openapi_diags *d, enum kytos_openapi_severity sev,
                  unsigned line, unsigned col, const char *pointer,
                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    koa_diag_vadd(d, sev, line, col, pointer, fmt, ap);
    va_end(ap);
}

void koa_diags_append(kytos_openapi_diags *dst, const kytos_openapi_diags *src)
{
    size_t i;

    if (!dst || !src)
        return;
    for (i = 0; i < src->n; i++) {
        const struct kytos_openapi_diag *e = &src->v[i];
        push(dst, e->severity, e->line, e->column, e->pointer,
             strdup(e->message));
    }
}

size_t kytos_openapi_diags_count(const kytos_openapi_diags *d)
{
    return d ? d->n : 0;
}

const struct kytos_openapi_diag *
kytos_openapi_diags_get(const kytos_openapi_diags *d, size_t i)
{
    if (!d || i >= d->n)
        return NULL;
    return &d->v[i];
}

int kytos_openapi_diag_format(const struct kytos_openapi_diag *e, char *buf,
                              size_t size)
{
    const char *sev = e->severity == KYTOS_OPENAPI_ERROR ? "error" : "warning";
    const char *origin = e->origin ? e->origin : "";
    char pos[48] = "";

    if (e->line)
        snprintf(pos, sizeof pos, "%u:%u:", e->line, e->column);
    /* The pointer is always useful to find the place in a YAML file that
     * has many identical lines; the root pointer "" reads as "/". */
    if (e->pointer && e->pointer[0])
        return snprintf(buf, size, "%s:%s %s: %s [at %s]", origin, pos, sev,
                        e->message, e->pointer);
    return snprintf(buf, size, "%s:%s %s: %s", origin, pos, sev, e->message);
}

void kytos_openapi_diags_free(kytos_openapi_diags *d)
{
    size_t i;

    if (!d)
        return;
    for (i = 0; i < d->n; i++) {
        free((char *)d->v[i].pointer);
        free((char *)d->v[i].message);
    }
    free(d->v);
    free(d->origin);
    free(d);
}
