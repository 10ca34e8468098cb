/* openapi/request.c - validating one request against an operation, and
 * answering what Kytos-ng answers.
 *
 * Order (kytos/core/helpers.py validate_openapi + openapi-core 0.18.2):
 *   0. body larger than the limit: 413 (ours; Kytos has no limit);
 *   1. a non-empty body whose Content-Type, split on ';', has no element
 *      exactly "application/json": 415 "Expected Content-Type: ...";
 *   2. parameters (path, query, header), then the body: missing required
 *      body, media type, JSON, schema.
 * Every problem is collected; the description is built from the first
 * one, exactly as Kytos words it (openapi-core raises only the first):
 *   - "Missing required query parameter: x", "Missing required request
 *     body" (errors without a cause: their text);
 *   - "The request body contains invalid API data." for cast errors, empty
 *     query values, bad JSON, unknown media types;
 *   - the same sentence followed by ", <message> for field <a/b>." for
 *     each schema error of that parameter or of the body.
 * The "errors" array lists every problem with a JSON pointer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "params.h"

#define INVALID_DATA "The request body contains invalid API data."

enum ikind { I_MISSING, I_PLAIN, I_SCHEMA };

struct issue {
    enum ikind kind;
    const char *in;        /* "path", "query", "header", "body" */
    const char *name;      /* parameter name, or NULL for the body */
    char *message;         /* I_MISSING / I_PLAIN */
    struct koa_verrs errs; /* I_SCHEMA */
};

#define MAX_ISSUES 64

/* Grown on the first problem only: a valid request allocates nothing
 * here. */
struct issues {
    struct issue *v;
    size_t n, cap;
    bool dropped;
};

static struct issue *new_issue(struct issues *is, enum ikind k, const char *in,
                               const char *name)
{
    struct issue *i;
    if (is->n == is->cap) {
        size_t ncap = is->cap ? is->cap * 2 : 4;
        struct issue *nv;
        if (ncap > MAX_ISSUES || !(nv = realloc(is->v, ncap * sizeof *nv))) {
            is->dropped = true;
            return NULL;
        }
        is->v = nv;
        is->cap = ncap;
    }
    i = &is->v[is->n++];
    memset(i, 0, sizeof *i);
    i->kind = k;
    i->in = in;
    i->name = name;
    return i;
}

static void add_msg(struct issues *is, enum ikind k, const char *in,
                    const char *name, const char *fmt, ...) KOA_PRINTF(5, 6);
static void add_msg(struct issues *is, enum ikind k, const char *in,
                    const char *name, const char *fmt, ...)
{
    struct issue *i = new_issue(is, k, in, name);
    va_list ap;
    if (!i)
        return;
    va_start(ap, fmt);
    if (vasprintf(&i->message, fmt, ap) < 0)
        i->message = NULL;
    va_end(ap);
}

static void free_issues(struct issues *is)
{
    size_t i;
    for (i = 0; i < is->n; i++) {
        free(is->v[i].message);
        koa_verrs_free(&is->v[i].errs);
    }
    free(is->v);
    is->v = NULL;
    is->n = is->cap = 0;
}

static const char *in_name(enum koa_in in)
{
    switch (in) {
    case KOA_IN_PATH: return "path";
    case KOA_IN_QUERY: return "query";
    case KOA_IN_HEADER: return "header";
    default: return "cookie";
    }
}

/* ---- the error body ------------------------------------------------- */

/* One entry of "errors".  field: the member a "required" or
 * "additionalProperties" error is about (the pointer is then the object
 * that misses it or holds it), or NULL. */
static json_object *err_entry(const char *in, const char *name,
                              const char *pointer, const char *field,
                              const char *message)
{
    json_object *e = json_object_new_object();
    if (!e)
        return NULL;
    json_object_object_add(e, "in", json_object_new_string(in));
    if (name)
        json_object_object_add(e, "name", json_object_new_string(name));
    json_object_object_add(e, "pointer", json_object_new_string(pointer ? pointer : ""));
    if (field)
        json_object_object_add(e, "field", json_object_new_string(field));
    json_object_object_add(e, "message", json_object_new_string(message ? message : ""));
    return e;
}

static json_object *error_body(int code, const char *description,
                               json_object *errors)
{
    json_object *o = json_object_new_object();
    if (!o) {
        json_object_put(errors);
        return NULL;
    }
    json_object_object_add(o, "description", json_object_new_string(description));
    json_object_object_add(o, "code", json_object_new_int(code));
    json_object_object_add(o, "errors", errors ? errors : json_object_new_array());
    return o;
}

static json_object *issues_body(const struct issues *is)
{
    struct ku_buf d;
    json_object *errors = json_object_new_array(), *body;
    const struct issue *first = &is->v[0];
    size_t i, j;

    ku_buf_init(&d);
    if (first->kind != I_MISSING && !strcmp(first->in, "path")) {
        /* Kytos says "The request body contains invalid API data." here
         * too, about a value that is not in the body: name it instead */
        ku_buf_printf(&d, "Invalid path parameter: %s", first->name);
        if (first->kind == I_PLAIN && first->message)
            ku_buf_printf(&d, ", %s", first->message);
        for (j = 0; first->kind == I_SCHEMA && j < first->errs.n; j++)
            ku_buf_printf(&d, ", %s", first->errs.v[j].message);
        ku_buf_adds(&d, ".");
    } else {
        switch (first->kind) {
        case I_MISSING:
            ku_buf_adds(&d, first->message ? first->message : "");
            break;
        case I_PLAIN:
            ku_buf_adds(&d, INVALID_DATA);
            break;
        case I_SCHEMA:
            ku_buf_adds(&d, INVALID_DATA);
            for (j = 0; j < first->errs.n; j++)
                ku_buf_printf(&d, ", %s for field %s.", first->errs.v[j].message,
                               first->errs.v[j].field);
            break;
        }
    }
    for (i = 0; errors && i < is->n; i++) {
        const struct issue *x = &is->v[i];
        if (x->kind != I_SCHEMA) {
            json_object_array_add(errors, err_entry(x->in, x->name, "", NULL, x->message));
            continue;
        }
        for (j = 0; j < x->errs.n; j++) {
            const struct koa_verr *v = &x->errs.v[j];
            size_t m;
            if (!v->nmembers)
                json_object_array_add(errors, err_entry(x->in, x->name, v->pointer, NULL,
                                                        v->message));
            /* one entry per member: each names its field */
            for (m = 0; m < v->nmembers; m++)
                json_object_array_add(errors, err_entry(x->in, x->name, v->pointer,
                                                        v->members[m], v->message));
        }
        if (x->errs.truncated)
            json_object_array_add(errors, err_entry(x->in, x->name, "", NULL,
                                                    "more errors not reported "
                                                    "(error limit reached)"));
    }
    body = error_body(400, d.oom ? INVALID_DATA : ku_buf_str(&d), errors);
    ku_buf_free(&d);
    return body;
}

/* ---- parameters ------------------------------------------------------ */

static void check_value(const kytos_openapi_op *op, const struct koa_param *p,
                        json_object *v, struct issues *is, json_object *params)
{
    const char *in = in_name(p->in);
    if (p->schema) {
        struct koa_verrs errs = { NULL, 0, 0, false };
        if (!koa_validate(p->schema, v, &op->spec->vlim, &errs)) {
            struct issue *i = new_issue(is, I_SCHEMA, in, p->name);
            if (i)
                i->errs = errs;
            else
                koa_verrs_free(&errs);
            json_object_put(v);
            return;
        }
        koa_verrs_free(&errs);
    }
    if (!json_object_object_get_ex(params, p->name, NULL))
        json_object_object_add(params, p->name, v);
    else
        json_object_put(v);
}

/* Cast raw values, validate, store; or record the problem. */
static void take_param(const kytos_openapi_op *op, const struct koa_param *p,
                       const char *const *vals, const size_t *lens, size_t n,
                       struct issues *is, json_object *params)
{
    const char *in = in_name(p->in);
    struct ku_buf err;
    json_object *v;

    if (p->content_json) {
        /* "content: application/json": the value is a JSON text */
        char msg[256];
        if (koa_json_parse(vals[n - 1], lens[n - 1], &op->spec->opts, &v, msg,
                           sizeof msg) != 0) {
            add_msg(is, I_PLAIN, in, p->name, "Failed to deserialize value of %s "
                    "parameter %s: %s", in, p->name, msg);
            return;
        }
        check_value(op, p, v, is, params);
        return;
    }
    ku_buf_init(&err);
    v = koa_param_cast(p, vals, lens, n, &err);
    if (!v) {
        add_msg(is, I_PLAIN, in, p->name, "%s",
                err.len ? ku_buf_str(&err) : "out of memory");
        ku_buf_free(&err);
        return;
    }
    ku_buf_free(&err);
    check_value(op, p, v, is, params);
}

static void missing_param(const kytos_openapi_op *op, const struct koa_param *p,
                          struct issues *is, json_object *params)
{
    if (p->required) {
        add_msg(is, I_MISSING, in_name(p->in), p->name,
                "Missing required %s parameter: %s", in_name(p->in), p->name);
        return;
    }
    if (p->has_default) {
        json_object *v = NULL;
        /* a deep copy: the spec's tree is shared between threads */
        if (p->default_value &&
            json_object_deep_copy(p->default_value, &v, NULL) != 0)
            return;
        check_value(op, p, v, is, params);
    }
}

struct pathcaps {
    struct koa_capture caps[32];
    int n;
    struct ku_buf store; /* decoded values, NUL-separated */
    size_t off[32], len[32];
};

static void path_params(const kytos_openapi_op *op,
                        const struct kytos_openapi_request *req,
                        struct issues *is, json_object *params)
{
    struct pathcaps pc;
    size_t i, k;

    pc.n = -1;
    ku_buf_init(&pc.store);
    if (!req->path_params && req->path) {
        size_t plen = strcspn(req->path, "?");
        for (k = 0; k < op->ntmpls && pc.n < 0; k++) {
            pc.n = koa_tmpl_match(op->tmpls[k].canon, req->path, plen, pc.caps, 32);
            if (pc.n < 0 && plen > 1 && req->path[plen - 1] == '/')
                pc.n = koa_tmpl_match(op->tmpls[k].canon, req->path, plen - 1,
                                      pc.caps, 32);
        }
        for (i = 0; pc.n > 0 && i < (size_t)pc.n && i < 32; i++) {
            size_t bad;
            long dl;

            pc.off[i] = pc.store.len;
            dl = koa_pct_decode(&pc.store, pc.caps[i].value, pc.caps[i].value_len, &bad);
            if (dl < 0) {
                char msg[80];
                koa_pct_bad(msg, sizeof msg, pc.caps[i].value, pc.caps[i].value_len, bad, "path");
                add_msg(is, I_PLAIN, "path", NULL, "%s", msg);
                ku_buf_free(&pc.store);
                return;
            }
            pc.len[i] = (size_t)dl;
            ku_buf_addc(&pc.store, '\0');
        }
    }
    for (i = 0; i < op->nparams; i++) {
        const struct koa_param *p = &op->params[i];
        const char *val = NULL;
        size_t vlen = 0;
        if (p->in != KOA_IN_PATH)
            continue;
        if (req->path_params) {
            for (k = 0; k < req->n_path_params; k++) {
                const char *nm = req->path_params[2 * k];
                if (nm && !strcmp(nm, p->name) && req->path_params[2 * k + 1]) {
                    val = req->path_params[2 * k + 1];
                    vlen = strlen(val);
                }
            }
        } else if (pc.n > 0) {
            for (k = 0; k < (size_t)pc.n && k < 32; k++)
                if (pc.caps[k].name_len == strlen(p->name) &&
                    !memcmp(pc.caps[k].name, p->name, pc.caps[k].name_len)) {
                    val = pc.store.p + pc.off[k];
                    vlen = pc.len[k];
                }
        }
        if (!val) {
            missing_param(op, p, is, params);
            continue;
        }
        take_param(op, p, &val, &vlen, 1, is, params);
    }
    ku_buf_free(&pc.store);
}

static void query_params(const kytos_openapi_op *op,
                         const struct kytos_openapi_request *req,
                         struct issues *is, json_object *params)
{
    struct koa_query q;
    char err[160];
    size_t i, k;
    bool any = false;

    for (i = 0; i < op->nparams; i++)
        if (op->params[i].in == KOA_IN_QUERY)
            any = true;
    if (!any)
        return;
    if (koa_query_parse(req->query, &op->spec->opts, &q, err, sizeof err) != 0) {
        add_msg(is, I_PLAIN, "query", NULL, "%s", err);
        return;
    }
    for (i = 0; i < op->nparams; i++) {
        const struct koa_param *p = &op->params[i];
        const char *small_v[8], **vals = small_v;
        size_t small_l[8], *lens = small_l, n = 0, cap = 8;
        size_t nlen = strlen(p->name);
        bool deep = p->style == KOA_STYLE_DEEP;
        if (p->in != KOA_IN_QUERY)
            continue;
        if (deep) {
            /* name[key]=value pairs -> an object of strings */
            json_object *obj = NULL;
            for (k = 0; k < q.n; k++) {
                const struct koa_qpair *qp = &q.v[k];
                if (qp->nlen > nlen + 2 && !memcmp(qp->name, p->name, nlen) &&
                    qp->name[nlen] == '[' && qp->name[qp->nlen - 1] == ']') {
                    char *key = strndup(qp->name + nlen + 1, qp->nlen - nlen - 2);
                    if (!obj)
                        obj = json_object_new_object();
                    if (key && obj)
                        json_object_object_add(obj, key,
                                               json_object_new_string_len(qp->value,
                                                                          (int)qp->vlen));
                    free(key);
                }
            }
            if (!obj)
                missing_param(op, p, is, params);
            else
                check_value(op, p, obj, is, params);
            continue;
        }
        for (k = 0; k < q.n; k++) {
            if (q.v[k].nlen != nlen || memcmp(q.v[k].name, p->name, nlen))
                continue;
            if (n == cap) {
                const char **nv = malloc(2 * cap * sizeof *nv);
                size_t *nl = malloc(2 * cap * sizeof *nl);
                if (!nv || !nl) {
                    free(nv);
                    free(nl);
                    break;
                }
                memcpy(nv, vals, n * sizeof *nv);
                memcpy(nl, lens, n * sizeof *nl);
                if (vals != small_v) {
                    free(vals);
                    free(lens);
                }
                vals = nv;
                lens = nl;
                cap *= 2;
            }
            vals[n] = q.v[k].value;
            lens[n] = q.v[k].vlen;
            n++;
        }
        if (n == 0) {
            missing_param(op, p, is, params);
        } else if (lens[n - 1] == 0 && !p->allow_empty &&
                   !(p->cast == KOA_CAST_ARRAY && n > 1)) {
            add_msg(is, I_PLAIN, "query", p->name,
                    "Value of %s query parameter cannot be empty", p->name);
        } else {
            take_param(op, p, vals, lens, n, is, params);
        }
        if (vals != small_v) {
            free(vals);
            free(lens);
        }
    }
    koa_query_free(&q);
}

static void header_params(const kytos_openapi_op *op,
                          const struct kytos_openapi_request *req,
                          struct issues *is, json_object *params)
{
    size_t i;
    for (i = 0; i < op->nparams; i++) {
        const struct koa_param *p = &op->params[i];
        const char *v;
        size_t len;
        if (p->in != KOA_IN_HEADER)
            continue;
        v = req->get_header ? req->get_header(req->header_ctx, p->name) : NULL;
        if (!v) {
            missing_param(op, p, is, params);
            continue;
        }
        len = strlen(v);
        if (len > op->spec->opts.max_param_bytes) {
            add_msg(is, I_PLAIN, "header", p->name, "header %s is longer than %zu "
                    "bytes", p->name, op->spec->opts.max_param_bytes);
            continue;
        }
        take_param(op, p, &v, &len, 1, is, params);
    }
}

/* ---- body ----------------------------------------------------------- */

/* Kytos' rule: some ';'-separated element is exactly application/json. */
static bool ct_has_json(const char *ct)
{
    const char *p = ct;
    if (!ct)
        return false;
    for (;;) {
        size_t n = strcspn(p, ";");
        if (n == 16 && !memcmp(p, "application/json", 16))
            return true;
        if (!p[n])
            return false;
        p += n + 1;
    }
}

static bool mime_is_json(const char *m, size_t n)
{
    if (n == 16 && !strncasecmp(m, "application/json", 16))
        return true;
    return n > 5 && !strncasecmp(m + n - 5, "+json", 5);
}

/* The media type entry for the request's mimetype: exact, then a
 * wildcard (a type with subtype "*", or any type), in document order. */
static const struct koa_media *find_media(const kytos_openapi_op *op,
                                          const char *mime, size_t n)
{
    size_t i;
    for (i = 0; i < op->nmedia; i++)
        if (strlen(op->media[i].type) == n && !memcmp(op->media[i].type, mime, n))
            return &op->media[i];
    for (i = 0; i < op->nmedia; i++) {
        const char *t = op->media[i].type;
        const char *slash = strchr(t, '/');
        const char *ms = memchr(mime, '/', n);
        if (!strcmp(t, "*/*"))
            return &op->media[i];
        if (slash && ms && !strcmp(slash, "/*") &&
            (size_t)(slash - t) == (size_t)(ms - mime) && !memcmp(t, mime, (size_t)(ms - mime)))
            return &op->media[i];
    }
    return NULL;
}

static json_object *parse_body(const kytos_openapi_op *op, const char *body,
                               size_t len, bool json, struct issues *is)
{
    json_object *v = NULL;
    char msg[256];
    if (json) {
        if (koa_json_parse(body, len, &op->spec->opts, &v, msg, sizeof msg) != 0) {
            add_msg(is, I_PLAIN, "body", NULL, "Invalid JSON: %s", msg);
            return NULL;
        }
        return v;
    }
    if (!koa_utf8_valid(body, len)) {
        add_msg(is, I_PLAIN, "body", NULL, "the body is not valid UTF-8");
        return NULL;
    }
    return json_object_new_string_len(body, (int)len);
}

static json_object *check_body(const kytos_openapi_op *op,
                               const struct kytos_openapi_request *req,
                               struct issues *is)
{
    const char *ct = req->content_type;
    const char *mime = ct ? ct : "application/octet-stream";
    size_t mlen = strcspn(mime, ";");
    const struct koa_media *m;
    json_object *v;

    if (!op->has_body) {
        /* not described: still hand the handler a strictly parsed body */
        if (req->body_len == 0 || !mime_is_json(mime, mlen))
            return NULL;
        return parse_body(op, req->body, req->body_len, true, is);
    }
    if (req->body_len == 0) {
        if (op->body_required)
            add_msg(is, I_MISSING, "body", NULL, "Missing required request body");
        return NULL;
    }
    m = find_media(op, mime, mlen);
    if (!m) {
        struct ku_buf b;
        size_t i;
        ku_buf_init(&b);
        for (i = 0; i < op->nmedia; i++) {
            if (i)
                ku_buf_adds(&b, ", ");
            koa_pyrepr_str(&b, op->media[i].type, strlen(op->media[i].type));
        }
        add_msg(is, I_PLAIN, "body", NULL, "Content for the following mimetype not "
                "found: %.*s. Valid mimetypes: [%s]", (int)(mlen > 200 ? 200 : mlen),
                mime, ku_buf_str(&b));
        ku_buf_free(&b);
        return NULL;
    }
    {
        size_t before = is->n;
        v = parse_body(op, req->body, req->body_len,
                       m->json || mime_is_json(mime, mlen), is);
        if (is->n > before)
            return NULL; /* not JSON; v NULL otherwise is the text "null" */
    }
    if (m->schema) {
        struct koa_verrs errs = { NULL, 0, 0, false };
        if (!koa_validate(m->schema, v, &op->spec->vlim, &errs)) {
            struct issue *i = new_issue(is, I_SCHEMA, "body", NULL);
            if (i)
                i->errs = errs;
            else
                koa_verrs_free(&errs);
        } else {
            koa_verrs_free(&errs);
        }
    }
    return v;
}

/* ---- entry point ---------------------------------------------------- */

int kytos_openapi_validate(const kytos_openapi_op *op,
                           const struct kytos_openapi_request *req,
                           struct kytos_openapi_result *res)
{
    struct issues iss = { NULL, 0, 0, false }, *is = &iss;
    json_object *params, *body;

    struct kytos_openapi_request rq;

    if (!res)
        return 400;
    memset(res, 0, sizeof *res);
    if (req) {
        /* fields past the caller's struct_size are taken as 0 */
        size_t n = req->struct_size < sizeof rq ? req->struct_size : sizeof rq;
        memset(&rq, 0, sizeof rq);
        memcpy(&rq, req, n);
        req = &rq;
    }
    if (!op || !req) {
        res->status = 400;
        res->error = error_body(400, INVALID_DATA, NULL);
        return res->status;
    }
    if (req->body_len > op->spec->opts.max_body_bytes) {
        char msg[128];
        json_object *errors = json_object_new_array();
        snprintf(msg, sizeof msg, "Request body larger than %zu bytes",
                 op->spec->opts.max_body_bytes);
        if (errors)
            json_object_array_add(errors, err_entry("body", NULL, "", NULL, msg));
        res->status = 413;
        res->error = error_body(413, msg, errors);
        return res->status;
    }
    if (req->body_len > 0 && !ct_has_json(req->content_type)) {
        /* Kytos' rule, unless the spec itself accepts this media type */
        const char *mime = req->content_type ? req->content_type : "";
        size_t mlen = strcspn(mime, ";");
        const struct koa_media *m = op->has_body ? find_media(op, mime, mlen) : NULL;
        if (!m || m->json || !req->content_type) {
            struct ku_buf d;
            json_object *errors = json_object_new_array();
            ku_buf_init(&d);
            ku_buf_printf(&d, "Expected Content-Type: application/json, got: %s",
                           req->content_type ? req->content_type : "None");
            if (errors)
                json_object_array_add(errors, err_entry("header", "Content-Type", "", NULL,
                                                        ku_buf_str(&d)));
            res->status = 415;
            res->error = error_body(415, ku_buf_str(&d), errors);
            ku_buf_free(&d);
            return res->status;
        }
    }
    params = json_object_new_object();
    if (!params) {
        res->status = 400;
        res->error = error_body(400, INVALID_DATA, NULL);
        return res->status;
    }
    path_params(op, req, is, params);
    query_params(op, req, is, params);
    header_params(op, req, is, params);
    body = check_body(op, req, is);
    if (is->n) {
        res->status = 400;
        res->error = issues_body(is);
        json_object_put(body);
        json_object_put(params);
    } else {
        res->status = 0;
        res->body = body;
        res->params = params;
    }
    free_issues(is);
    return res->status;
}

void kytos_openapi_result_clear(struct kytos_openapi_result *res)
{
    if (!res)
        return;
    json_object_put(res->body);
    json_object_put(res->params);
    json_object_put(res->error);
    memset(res, 0, sizeof *res);
}
