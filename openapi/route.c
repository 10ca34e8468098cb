/* openapi/route.c - finding operations by template, id or request path.
 *
 * A spec path is joined to each server base path ("/api/kytos/mef_eline"
 * from a relative url, the path part of an absolute one, "" without
 * servers), so the host can look an operation up by the full template it
 * mounts.  Templates compare in a canonical form: trailing '/' dropped
 * (Kytos registers both slash variants), "{name:converter}" read as
 * "{name}".  Concrete paths match as openapi-core does: a variable matches
 * [^/]* and literal paths win over templates with fewer variables. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "spec.h"

char *koa_tmpl_canon(const char *prefix, const char *tmpl)
{
    struct ku_buf b;
    const char *parts[2] = { prefix, tmpl };
    int k;

    ku_buf_init(&b);
    for (k = 0; k < 2; k++) {
        const char *p = parts[k];
        if (!p)
            continue;
        while (*p) {
            if (*p == '/') {
                /* one '/' between segments */
                if (!b.len || b.p[b.len - 1] != '/')
                    ku_buf_addc(&b, '/');
                p++;
            } else if (*p == '{') {
                const char *close = strchr(p, '}');
                const char *colon;
                if (!close) {
                    ku_buf_free(&b);
                    return NULL;
                }
                if (!b.len)
                    ku_buf_addc(&b, '/');
                colon = memchr(p, ':', (size_t)(close - p));
                ku_buf_add(&b, p, (size_t)((colon ? colon : close) - p));
                ku_buf_addc(&b, '}');
                p = close + 1;
            } else {
                if (!b.len)
                    ku_buf_addc(&b, '/');
                ku_buf_addc(&b, *p);
                p++;
            }
        }
        if (k == 0 && b.len && b.p[b.len - 1] != '/')
            ku_buf_addc(&b, '/');
    }
    if (!b.len)
        ku_buf_addc(&b, '/');
    if (b.len > 1 && b.p[b.len - 1] == '/')
        b.p[--b.len] = '\0';
    return ku_buf_take(&b);
}

/* Recursive matcher: t is the rest of the template, p..pe of the path. */
static int match_rec(const char *t, const char *p, const char *pe,
                     struct koa_capture *caps, size_t maxcap, size_t ncap)
{
    while (*t) {
        if (*t == '{') {
            const char *close = strchr(t, '}');
            const char *q;
            if (!close)
                return -1;
            /* a variable takes [^/]*; try the longest first */
            q = p;
            while (q < pe && *q != '/')
                q++;
            for (;; q--) {
                int r;
                if (ncap < maxcap) {
                    caps[ncap].name = t + 1;
                    caps[ncap].name_len = (size_t)(close - t - 1);
                    caps[ncap].value = p;
                    caps[ncap].value_len = (size_t)(q - p);
                }
                r = match_rec(close + 1, q, pe, caps, maxcap, ncap + 1);
                if (r >= 0)
                    return r;
                if (q == p)
                    break;
            }
            return -1;
        }
        if (p >= pe || *p != *t)
            return -1;
        p++;
        t++;
    }
    return p == pe ? (int)ncap : -1;
}

int koa_tmpl_match(const char *tmpl, const char *path, size_t path_len,
                   struct koa_capture *caps, size_t maxcap)
{
    return match_rec(tmpl, path, path + path_len, caps, maxcap, 0);
}

/* Match path, also in its other trailing-slash form; returns the number
 * of variables or -1. */
static int match_any_slash(const struct koa_tmpl *t, const char *path)
{
    size_t len = strlen(path);
    int r = koa_tmpl_match(t->canon, path, len, NULL, 0);
    if (r >= 0)
        return r;
    if (len > 1 && path[len - 1] == '/')
        return koa_tmpl_match(t->canon, path, len - 1, NULL, 0);
    return -1;
}

const kytos_openapi_op *kytos_openapi_find(const kytos_openapi_spec *spec,
                                           const char *method,
                                           const char *prefix,
                                           const char *path_template)
{
    char *canon;
    size_t i, j;
    const kytos_openapi_op *hit = NULL;

    if (!spec || !method || !path_template)
        return NULL;
    canon = koa_tmpl_canon(prefix, path_template);
    if (!canon)
        return NULL;
    for (i = 0; i < spec->nops && !hit; i++) {
        const kytos_openapi_op *op = &spec->ops[i];
        if (strcasecmp(op->method, method) != 0)
            continue;
        for (j = 0; j < op->ntmpls; j++)
            if (strcmp(op->tmpls[j].canon, canon) == 0) {
                hit = op;
                break;
            }
    }
    free(canon);
    return hit;
}

const kytos_openapi_op *kytos_openapi_find_id(const kytos_openapi_spec *spec,
                                              const char *operation_id)
{
    size_t i;
    if (!spec || !operation_id)
        return NULL;
    for (i = 0; i < spec->nops; i++)
        if (spec->ops[i].operation_id &&
            strcmp(spec->ops[i].operation_id, operation_id) == 0)
            return &spec->ops[i];
    return NULL;
}

const kytos_openapi_op *kytos_openapi_match(const kytos_openapi_spec *spec,
                                            const char *method,
                                            const char *path)
{
    size_t i, j;
    const kytos_openapi_op *best = NULL;
    int best_vars = 1 << 30;

    if (!spec || !method || !path)
        return NULL;
    for (i = 0; i < spec->nops; i++) {
        const kytos_openapi_op *op = &spec->ops[i];
        if (strcasecmp(op->method, method) != 0)
            continue;
        for (j = 0; j < op->ntmpls; j++) {
            int r = match_any_slash(&op->tmpls[j], path);
            if (r >= 0 && r < best_vars) {
                best = op;
                best_vars = r;
            }
        }
    }
    return best;
}

size_t kytos_openapi_op_count(const kytos_openapi_spec *spec)
{
    return spec ? spec->nops : 0;
}

const kytos_openapi_op *kytos_openapi_op_at(const kytos_openapi_spec *spec,
                                            size_t i)
{
    return spec && i < spec->nops ? &spec->ops[i] : NULL;
}

const char *kytos_openapi_op_method(const kytos_openapi_op *op)
{
    return op ? op->method : NULL;
}

const char *kytos_openapi_op_template(const kytos_openapi_op *op)
{
    return op && op->ntmpls ? op->tmpls[0].text : NULL;
}

const char *kytos_openapi_op_id(const kytos_openapi_op *op)
{
    return op ? op->operation_id : NULL;
}
