/* host/http/request.c - kytos_req: target parsing, arena, accessors, responses. */
#include "http/request.h"
#include "http/http_ctx.h"
#include "util/text.h"
#include "http/stream.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Freed requests are kept for reuse: a kytos_req is ~6 KB (its inline
 * arena), and glibc serves a block that size from its large bins, which
 * consolidates the fast bins on nearly every request (bench: POST flows
 * spent 5% of the I/O thread in malloc_consolidate).  Bounded; off under
 * AddressSanitizer so that it still sees every use after free. */
#if defined(__SANITIZE_ADDRESS__)
#define REQ_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REQ_CACHE 0
#endif
#endif
#ifndef REQ_CACHE
#define REQ_CACHE 256
#endif

#if REQ_CACHE
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static kytos_req *cache[REQ_CACHE];
static size_t ncache;

static kytos_req *req_get(void)
{
    kytos_req *r = NULL;
    pthread_mutex_lock(&cache_mu);
    if (ncache)
        r = cache[--ncache];
    pthread_mutex_unlock(&cache_mu);
    return r ? r : malloc(sizeof *r);
}

static void req_put(kytos_req *r)
{
    pthread_mutex_lock(&cache_mu);
    if (ncache < REQ_CACHE) {
        cache[ncache++] = r;
        r = NULL;
    }
    pthread_mutex_unlock(&cache_mu);
    free(r);
}
#else
static kytos_req *req_get(void) { return malloc(sizeof(kytos_req)); }
static void req_put(kytos_req *r) { free(r); }
#endif

kytos_req *kh_req_new(struct kh_http_ctx *ctx, const struct kh_transport *tp, void *tp_ctx)
{
    kytos_req *r = req_get();
    if (!r)
        return NULL;
    /* everything but the inline arena starts zeroed */
    memset(r, 0, offsetof(struct kytos_req, arena_inline));
    r->arena_inline_used = 0;
    r->ctx = ctx;
    r->tp = tp;
    r->tp_ctx = tp_ctx;
    r->start_ns = kh_mono_ns();
    atomic_init(&r->refs, 1);
    pthread_mutex_init(&r->mu, NULL);
    return r;
}

void kh_req_ref(kytos_req *r) { atomic_fetch_add(&r->refs, 1); }

void kh_req_unref(kytos_req *r)
{
    size_t i;

    if (atomic_fetch_sub(&r->refs, 1) != 1)
        return;
    if (r->matched)
        kh_match_release(&r->match);
    json_object_put(r->json);
    json_object_put(r->typed);
    if (r->stream)
        kh_stream_unref(r->stream);
    free(r->body);
    kh_req_drop_body(r);
    for (i = 0; i < r->nresp_headers; i++) {
        free(r->resp_headers[i].name);
        free(r->resp_headers[i].value);
    }
    while (r->arena) {
        struct kh_arena_chunk *c = r->arena;
        r->arena = c->next;
        free(c);
    }
    while (r->headers_seen) {
        struct kh_header_copy *hc = r->headers_seen;
        r->headers_seen = hc->next;
        free(hc);
    }
    pthread_mutex_destroy(&r->mu);
    req_put(r);
}

int kh_req_identity(const kytos_req *r, const char **user, const char **token_id, const char **role)
{
    int on = r && r->ident.authed;

    if (user)
        *user = on ? r->ident.user : "";
    if (token_id)
        *token_id = on ? r->ident.token_id : "";
    if (role)
        *role = on ? r->ident.role : "";
    return on;
}

/* ---- arena ---- */

void *kh_req_alloc(kytos_req *r, size_t n)
{
    struct kh_arena_chunk *c;
    size_t need = (n + 15) & ~(size_t)15;

    if (n == 0 || n > (64u << 20))
        return NULL;
    if (r->arena_inline_used + need <= sizeof r->arena_inline) {
        void *p = r->arena_inline + r->arena_inline_used;
        r->arena_inline_used += need;
        return p;
    }
    c = r->arena;
    if (c && c->used + need <= c->cap) {
        void *p = c->data + c->used;
        c->used += need;
        return p;
    }
    size_t cap = need > 8192 ? need : 8192;
    c = malloc(sizeof *c + cap);
    if (!c)
        return NULL;
    c->cap = cap;
    c->used = need;
    c->next = r->arena;
    r->arena = c;
    return c->data;
}

static char *arena_strndup(kytos_req *r, const char *s, size_t n)
{
    char *p = kh_req_alloc(r, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* ---- target ---- */

/* "Bad percent-encoding '%zz' in path": a bad escape named in the 400. */
static int bad_escape(const char *s, size_t len, size_t at, const char *where, char *err,
                      size_t errlen)
{
    int n = (int)(len - at < 3 ? len - at : 3);

    snprintf(err, errlen, "Bad percent-encoding '%.*s' in %s", n, s + at, where);
    return 400;
}

/* Query pairs a request may have: more is a 400 (nginx-style limit), not
 * pairs silently dropped that a handler would then never see. */
#define QUERY_PAIRS_MAX 256

/* Non-empty '&'-separated segments, as parse_query keeps them. */
static size_t query_pairs(const char *q)
{
    size_t n = 0;

    for (; *q; q++)
        n += *q != '&' && (q[1] == '&' || q[1] == '\0');
    return n;
}

int kh_req_set_target(kytos_req *r, const char *method, const char *target, char *err,
                      size_t errlen)
{
    const char *q, *p, *end;
    size_t plen, off = 0, bad;
    char *path;
    size_t mlen = method ? strnlen(method, sizeof r->method) : sizeof r->method;

    if (mlen >= sizeof r->method) {
        snprintf(err, errlen, "Bad method");
        return 400;
    }
    memcpy(r->method, method, mlen + 1);   /* (snprintf: ~500 instructions a request) */
    if (!target || target[0] != '/') {
        snprintf(err, errlen, "Bad request target");
        return 400;
    }
    if (strlen(target) > 16384) {
        snprintf(err, errlen, "Request target too long");
        return 414;
    }
    q = strchr(target, '?');
    if (q && query_pairs(q + 1) > QUERY_PAIRS_MAX) {
        snprintf(err, errlen, "Too many query parameters: %zu (the limit is %d)", query_pairs(q + 1),
                 QUERY_PAIRS_MAX);
        return 400;
    }
    if (q && ku_pct_decode(q + 1, strlen(q + 1), NULL, KU_PCT_PLUS | KU_PCT_NO_NUL, &bad) < 0)
        return bad_escape(q + 1, strlen(q + 1), bad, "query", err, errlen);
    plen = q ? (size_t)(q - target) : strlen(target);
    if (q)
        r->raw_query = arena_strndup(r, q + 1, strlen(q + 1));
    path = kh_req_alloc(r, plen + 1);
    if (!path || (q && !r->raw_query)) {
        snprintf(err, errlen, "out of memory");
        return 500;
    }
    /* split on '/', then decode each segment: "%2F" never creates a segment */
    p = target + 1;
    end = target + plen;
    r->nsegs = 0;
    path[off++] = '/';
    while (p <= end) {
        const char *slash = memchr(p, '/', (size_t)(end - p));
        size_t len = slash ? (size_t)(slash - p) : (size_t)(end - p);
        char *seg;
        long dl;

        if (!slash && len == 0)
            break;               /* trailing slash */
        if (r->nsegs == KH_MAX_SEGS) {
            snprintf(err, errlen, "Too many path segments");
            return 414;
        }
        seg = kh_req_alloc(r, len + 1);
        if (!seg) {
            snprintf(err, errlen, "out of memory");
            return 500;
        }
        dl = ku_pct_decode(p, len, seg, KU_PCT_NO_NUL, &bad);
        if (dl < 0)
            return bad_escape(p, len, bad, "path", err, errlen);
        r->segs[r->nsegs++] = seg;
        if (off > 1)
            path[off++] = '/';
        memcpy(path + off, seg, (size_t)dl);
        off += (size_t)dl;
        if (!slash)
            break;
        p = slash + 1;
        if (p == end) {
            break;               /* trailing slash */
        }
    }
    if (plen > 1 && target[plen - 1] == '/' && off > 1)
        path[off++] = '/';
    path[off] = '\0';
    r->path = path;
    return 0;
}

void kh_req_append_body(kytos_req *r, const char *data, size_t len)
{
    if (r->body_too_big)
        return;
    if (r->body_len + len > r->body_limit) {
        r->body_too_big = 1;
        free(r->body);
        r->body = NULL;
        r->body_len = r->body_cap = 0;
        return;
    }
    if (r->body_len + len + 1 > r->body_cap) {
        /* under 1 KiB: glibc's small bins (a larger first block would
         * consolidate its fast bins on every request) */
        size_t cap = r->body_cap ? r->body_cap : 1000;
        char *nb;
        while (cap < r->body_len + len + 1)
            cap *= 2;
        if (cap > r->body_limit + 1)
            cap = r->body_limit + 1;
        nb = realloc(r->body, cap);
        if (!nb) {
            r->body_too_big = 1;
            return;
        }
        r->body = nb;
        r->body_cap = cap;
    }
    memcpy(r->body + r->body_len, data, len);
    r->body_len += len;
    r->body[r->body_len] = '\0';
}

/* ---- accessors ---- */

const char *kh_req_method(const kytos_req *r) { return r->method; }
const char *kh_req_path(const kytos_req *r) { return r->path; }
kytos_napp *kh_req_napp(const kytos_req *r) { return r->matched && r->match.route ? r->match.route->napp : NULL; }

const char *kh_req_param(const kytos_req *r, const char *name)
{
    size_t i;
    if (!name)
        return NULL;
    for (i = 0; i < r->match.nparams; i++)
        if (strcmp(r->match.params[i].name, name) == 0)
            return r->match.params[i].value;
    return NULL;
}

int kh_req_param_int(const kytos_req *r, const char *name, int64_t *out)
{
    const char *v = kh_req_param(r, name);
    char *end;
    long long x;
    if (!v)
        return KYTOS_ENOTFOUND;
    errno = 0;
    x = strtoll(v, &end, 10);
    if (!*v || *end || errno)
        return KYTOS_EINVAL;
    if (out)
        *out = x;
    return KYTOS_OK;
}

int kh_req_param_double(const kytos_req *r, const char *name, double *out)
{
    const char *v = kh_req_param(r, name);
    char *end;
    double x;
    if (!v)
        return KYTOS_ENOTFOUND;
    errno = 0;
    x = strtod(v, &end);
    if (!*v || *end || errno)
        return KYTOS_EINVAL;
    if (out)
        *out = x;
    return KYTOS_OK;
}

/* Parse the query string once, lazily, into the arena. */
static void parse_query(kytos_req *r)
{
    const char *p;
    size_t n = 1, i = 0;

    r->query_parsed = 1;
    if (!r->raw_query || !*r->raw_query)
        return;
    for (p = r->raw_query; *p; p++)
        if (*p == '&')
            n++;
    if (n > QUERY_PAIRS_MAX)
        n = QUERY_PAIRS_MAX;   /* (kh_req_set_target refused more) */
    r->query = kh_req_alloc(r, n * sizeof *r->query);
    if (!r->query)
        return;
    p = r->raw_query;
    while (*p && i < n) {
        const char *amp = strchr(p, '&');
        size_t len = amp ? (size_t)(amp - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        size_t klen = eq ? (size_t)(eq - p) : len;
        size_t vlen = eq ? len - klen - 1 : 0;
        char *k = kh_req_alloc(r, klen + 1), *v = kh_req_alloc(r, vlen + 1);

        if (len > 0 && k && v && ku_pct_decode(p, klen, k, KU_PCT_PLUS | KU_PCT_NO_NUL, NULL) >= 0 &&
            ku_pct_decode(eq ? eq + 1 : "", vlen, v, KU_PCT_PLUS | KU_PCT_NO_NUL, NULL) >= 0) {
            r->query[i].key = k;
            r->query[i].value = v;
            i++;
        }
        if (!amp)
            break;
        p = amp + 1;
    }
    r->nquery = i;
}

const char *kh_req_query(const kytos_req *r, const char *name)
{
    kytos_req *w = (kytos_req *)r;  /* lazily filled cache */
    size_t i;
    if (!r->query_parsed)
        parse_query(w);
    for (i = 0; i < r->nquery; i++)
        if (strcmp(r->query[i].key, name) == 0)
            return r->query[i].value;
    return NULL;
}

size_t kh_req_query_all(const kytos_req *r, const char *name, const char **out, size_t max)
{
    kytos_req *w = (kytos_req *)r;
    size_t i, n = 0;
    if (!r->query_parsed)
        parse_query(w);
    for (i = 0; i < r->nquery; i++)
        if (!name || strcmp(r->query[i].key, name) == 0) {
            if (out && n < max)
                out[n] = name ? r->query[i].value : r->query[i].key;
            n++;
        }
    return n;
}

struct json_object *kh_req_query_json(const kytos_req *r, const char *name)
{
    struct json_object *v = NULL;
    if (r->typed)
        json_object_object_get_ex(r->typed, name, &v);
    return v;
}

/* The transport keeps headers in its own memory (libmicrohttpd: the
 * connection's pool), which it reuses for the next request once the answer
 * is final, and a handler may run on after its request was answered (a 504,
 * a shutdown's 503).  So a header is looked up only while the request is
 * unanswered, and copied (one block per header, not the arena: the handler
 * may allocate from that on another thread), where it stays until the
 * request is freed; after the answer only earlier lookups are found. */
const char *kh_req_header(const kytos_req *r, const char *name)
{
    kytos_req *w = (kytos_req *)r;   /* the copies are a cache */
    struct kh_header_copy *hc;
    const char *v = NULL;

    if (!r->tp || !r->tp->header || !name)
        return NULL;
    pthread_mutex_lock(&w->mu);
    for (hc = w->headers_seen; hc; hc = hc->next)
        if (strcasecmp(hc->name, name) == 0)
            break;
    if (hc) {
        v = hc->value;
    } else if (r->state != KH_REQ_COMPLETED && r->state != KH_REQ_TIMED_OUT) {
        const char *found = r->tp->header(r, name);
        size_t nl = strlen(name), vl = found ? strlen(found) : 0;

        if ((hc = malloc(sizeof *hc + nl + 1 + (found ? vl + 1 : 0))) != NULL) {
            char *p = (char *)(hc + 1);
            memcpy(p, name, nl + 1);
            hc->name = p;
            hc->value = NULL;
            if (found)
                hc->value = memcpy(p + nl + 1, found, vl + 1);
            hc->next = w->headers_seen;
            w->headers_seen = hc;
            v = hc->value;
        }
    }
    pthread_mutex_unlock(&w->mu);
    return v;
}

const void *kh_req_body(const kytos_req *r, size_t *len)
{
    if (r->body_given) {
        /* a tree given by an in-process call, to a handler that reads text:
         * written once, on the handler's thread (the only one using r) */
        kytos_req *w = (kytos_req *)r;
        size_t n = 0;
        const char *t = json_object_to_json_string_length(
            r->json, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
        w->body_given = 0;
        w->body_limit = n + 1;   /* the caller's own tree: no client limit */
        if (t)
            kh_req_append_body(w, t, n);
    }
    if (len)
        *len = r->body_len;
    return r->body_len ? r->body : NULL;
}

struct json_object *kh_req_json(const kytos_req *r) { return r->json; }

/* ---- responses ---- */

char *kh_json_dump(struct json_object *o, size_t *len)
{
    size_t n = 0;
    const char *s = json_object_to_json_string_length(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    memcpy(out, s, n + 1);
    *len = n;
    return out;
}

void kh_req_drop_body(kytos_req *r)
{
    if (r->resp_static) {
        if (r->resp_release)
            r->resp_release(r->resp_release_ud);
    } else {
        free(r->resp_body);
    }
    r->resp_body = NULL;
    r->resp_len = 0;
    r->resp_static = 0;
    r->resp_release = NULL;
    r->resp_release_ud = NULL;
}

static void set_ctype(kytos_req *r, const char *ctype)
{
    size_t n = strlen(ctype);
    if (n >= sizeof r->content_type)
        n = sizeof r->content_type - 1;
    memcpy(r->content_type, ctype, n);
    r->content_type[n] = '\0';
}

/* Replace the response; the caller holds r->mu.  Refused after the answer
 * went out (late deferred answers, answers after a 504). */
static int set_response_locked(kytos_req *r, unsigned status, const char *ctype, char *body,
                               size_t len)
{
    if (r->state == KH_REQ_COMPLETED || r->state == KH_REQ_TIMED_OUT) {
        free(body);
        return KYTOS_ESTATE;
    }
    if (status < 100 || status > 599) {
        free(body);
        return KYTOS_EINVAL;
    }
    kh_req_drop_body(r);
    r->resp_body = body;
    r->resp_len = len;
    r->status = status;
    set_ctype(r, ctype ? ctype : "application/json");
    return KYTOS_OK;
}

int kh_resp_static(kytos_req *r, unsigned status, const char *ctype, const void *data, size_t len,
                   void (*release)(void *ud), void *ud)
{
    int rc = KYTOS_OK;
    if ((!data && len) || (ctype && (strlen(ctype) >= 96 || strpbrk(ctype, "\r\n"))) ||
        status < 100 || status > 599) {
        if (release)
            release(ud);
        return KYTOS_EINVAL;
    }
    pthread_mutex_lock(&r->mu);
    if (r->state == KH_REQ_COMPLETED || r->state == KH_REQ_TIMED_OUT) {
        rc = KYTOS_ESTATE;
    } else {
        kh_req_drop_body(r);
        r->resp_body = (char *)data;
        r->resp_len = len;
        r->resp_static = 1;
        r->resp_release = release;
        r->resp_release_ud = ud;
        r->status = status;
        set_ctype(r, ctype ? ctype : "application/octet-stream");
    }
    pthread_mutex_unlock(&r->mu);
    if (rc != KYTOS_OK && release)
        release(ud);
    return rc;
}

int kh_resp_stream(kytos_req *r, unsigned status, const char *ctype, struct kh_stream *st)
{
    int rc = KYTOS_OK;
    if (!st || !ctype || strlen(ctype) >= 96 || strpbrk(ctype, "\r\n"))
        return KYTOS_EINVAL;
    pthread_mutex_lock(&r->mu);
    if (r->state == KH_REQ_COMPLETED || r->state == KH_REQ_TIMED_OUT || r->stream) {
        rc = KYTOS_ESTATE;
    } else {
        kh_req_drop_body(r);
        kh_stream_ref(st);
        r->stream = st;
        r->status = status;
        set_ctype(r, ctype);
    }
    pthread_mutex_unlock(&r->mu);
    return rc;
}

int kh_resp_json(kytos_req *r, unsigned status, struct json_object *body)
{
    size_t len = 4;
    char *text = body ? kh_json_dump(body, &len) : strdup("null");
    int rc;
    if (!text)
        return KYTOS_ENOMEM;
    pthread_mutex_lock(&r->mu);
    rc = set_response_locked(r, status, "application/json", text, len);
    pthread_mutex_unlock(&r->mu);
    return rc;
}

int kh_resp_raw(kytos_req *r, unsigned status, const char *ctype, const void *data, size_t len)
{
    char *copy;
    int rc;
    if (len > (256u << 20))
        return KYTOS_ETOOBIG;
    if (ctype && (strlen(ctype) >= 96 || strpbrk(ctype, "\r\n")))
        return KYTOS_EINVAL;
    copy = malloc(len + 1);
    if (!copy)
        return KYTOS_ENOMEM;
    if (len)
        memcpy(copy, data, len);
    copy[len] = '\0';
    pthread_mutex_lock(&r->mu);
    rc = set_response_locked(r, status, ctype ? ctype : "application/octet-stream", copy, len);
    pthread_mutex_unlock(&r->mu);
    return rc;
}

int kh_resp_errorv(kytos_req *r, unsigned status, const char *fmt, va_list ap)
{
    char msg[2048];
    struct json_object *o = json_object_new_object();
    int rc;

    vsnprintf(msg, sizeof msg, fmt ? fmt : "", ap);
    json_object_object_add(o, "description", json_object_new_string(msg));
    json_object_object_add(o, "code", json_object_new_int((int)status));
    rc = kh_resp_json(r, status, o);
    json_object_put(o);
    return rc;
}

int kh_resp_error(kytos_req *r, unsigned status, const char *fmt, ...)
{
    va_list ap;
    int rc;
    va_start(ap, fmt);
    rc = kh_resp_errorv(r, status, fmt, ap);
    va_end(ap);
    return rc;
}

static int header_ok(const char *s, size_t max)
{
    return s && *s && strlen(s) < max && !strpbrk(s, "\r\n");
}

int kh_resp_header(kytos_req *r, const char *name, const char *value)
{
    int rc = KYTOS_OK;
    if (!header_ok(name, 256) || !value || strlen(value) >= 8192 || strpbrk(value, "\r\n") ||
        strchr(name, ':'))
        return KYTOS_EINVAL;
    pthread_mutex_lock(&r->mu);
    if (r->state == KH_REQ_COMPLETED || r->state == KH_REQ_TIMED_OUT)
        rc = KYTOS_ESTATE;
    else if (r->nresp_headers == KH_MAX_RESP_HEADERS)
        rc = KYTOS_EFULL;
    else {
        char *n = strdup(name), *v = strdup(value);
        if (!n || !v) {
            free(n);
            free(v);
            rc = KYTOS_ENOMEM;
        } else {
            r->resp_headers[r->nresp_headers].name = n;
            r->resp_headers[r->nresp_headers].value = v;
            r->nresp_headers++;
        }
    }
    pthread_mutex_unlock(&r->mu);
    return rc;
}

void kh_req_set_error(kytos_req *r, unsigned status, const char *description)
{
    kh_resp_error(r, status, "%s", description);
}

void kh_req_set_overload(kytos_req *r, unsigned status, const char *text, int retry_after)
{
    char ra[16];
    kh_resp_raw(r, status, "text/plain; charset=utf-8", text, strlen(text));
    snprintf(ra, sizeof ra, "%d", retry_after);
    kh_resp_header(r, "Retry-After", ra);
    r->close_connection = 1;
}

void kh_resp_header_force(kytos_req *r, const char *name, const char *value)
{
    if (r->nresp_headers < KH_MAX_RESP_HEADERS) {
        r->resp_headers[r->nresp_headers].name = strdup(name);
        r->resp_headers[r->nresp_headers].value = strdup(value);
        if (r->resp_headers[r->nresp_headers].name && r->resp_headers[r->nresp_headers].value)
            r->nresp_headers++;
        else {
            free(r->resp_headers[r->nresp_headers].name);
            free(r->resp_headers[r->nresp_headers].value);
        }
    }
}
