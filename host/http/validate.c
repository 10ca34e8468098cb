/* host/http/validate.c - binding NApp routes to their OpenAPI operations
 * (libkytos-openapi) and checking requests before the handler runs.
 *
 * At load: the spec (embedded in the .so, or <file>.openapi.{yml,yaml,json}
 * beside it) is compiled; a spec that does not load refuses the NApp.  A
 * route asking for validation (KYTOS_ROUTE_VALIDATE, or the NApp's
 * KYTOS_NAPP_VALIDATE_ALL) must have an operation in the spec, or the NApp
 * is refused.  Routes the spec does not describe, and operations no route
 * registers, are logged. */
#include "http/dispatch.h"
#include "napps/napp.h"
#include "util/log.h"
#include <limits.h>
#include <kytos/openapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LOGGER "kytos.core.openapi"

static void options_of(size_t max_body, struct kytos_openapi_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->max_body_bytes = max_body;
}

/* A spec file beside the .so, when the NApp embeds none. */
static char *spec_beside(const char *so, char *origin, size_t olen)
{
    static const char *const ext[] = {".openapi.yml", ".openapi.yaml", ".openapi.json"};
    size_t i, base = strlen(so) > 3 ? strlen(so) - 3 : strlen(so);
    for (i = 0; i < 3; i++) {
        FILE *f;
        long n;
        char *text;
        snprintf(origin, olen, "%.*s%s", (int)base, so, ext[i]);
        f = fopen(origin, "rb");
        if (!f)
            continue;
        if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || n > (16L << 20) ||
            fseek(f, 0, SEEK_SET) != 0 || !(text = malloc((size_t)n + 1))) {
            fclose(f);
            return NULL;
        }
        if (fread(text, 1, (size_t)n, f) != (size_t)n) {
            free(text);
            fclose(f);
            return NULL;
        }
        text[n] = '\0';
        fclose(f);
        return text;
    }
    return NULL;
}

int kh_validate_compile(kytos_napp *n, size_t max_body, char *err, size_t errlen)
{
    struct kytos_openapi_options opts;
    kytos_openapi_diags *diags = NULL;
    kytos_openapi_spec *spec;
    char origin[PATH_MAX + 32];
    char *owned = NULL;
    const char *text = n->desc->openapi;
    size_t len;

    if (text) {
        snprintf(origin, sizeof origin, "%s (embedded openapi)", n->id);
        len = kh_desc_openapi_len(n->desc);
    } else {
        owned = spec_beside(n->file, origin, sizeof origin);
        if (!owned)
            return 0;   /* no spec: nothing to validate against */
        text = owned;
        len = strlen(text);
    }
    options_of(max_body, &opts);
    spec = kytos_openapi_load(text, len, origin, &opts, &diags);
    if (!spec) {
        size_t i, off = 0, count = diags ? kytos_openapi_diags_count(diags) : 0;
        err[0] = '\0';
        for (i = 0; i < count && i < 3 && off + 1 < errlen; i++) {
            int w = kytos_openapi_diag_format(kytos_openapi_diags_get(diags, i), err + off, errlen - off);
            if (w < 0)
                break;
            off += (size_t)w < errlen - off ? (size_t)w : errlen - off - 1;
            if (i + 1 < count && i < 2 && off + 3 < errlen) {
                memcpy(err + off, "; ", 3);
                off += 2;
            }
        }
        if (!count)
            snprintf(err, errlen, "%s: cannot load", origin);
        kytos_openapi_diags_free(diags);
        free(owned);
        return -1;
    }
    kytos_openapi_diags_free(diags);
    free(owned);
    n->spec = spec;
    return 0;
}

static const kytos_openapi_op *find_op(const kytos_openapi_spec *spec, const struct kh_route *rt,
                                       const char *prefix)
{
    if (rt->operation) {
        const char *sp = strchr(rt->operation, ' ');
        if (sp) {   /* "METHOD /path" */
            char method[16];
            size_t ml = (size_t)(sp - rt->operation);
            if (ml >= sizeof method)
                return NULL;
            memcpy(method, rt->operation, ml);
            method[ml] = '\0';
            return kytos_openapi_find(spec, method, prefix, sp + 1 + (sp[1] == '/'));
        }
        return kytos_openapi_find_id(spec, rt->operation);
    }
    return kytos_openapi_find(spec, rt->method, prefix, rt->rel_path);
}

static int wants_validation(const kytos_napp *n, const struct kh_route *rt)
{
    return (rt->flags & KYTOS_ROUTE_VALIDATE) ||
           ((n->desc->flags & KYTOS_NAPP_VALIDATE_ALL) && !(rt->flags & KYTOS_ROUTE_NO_VALIDATE));
}

int kh_validate_route(const kytos_napp *n, const struct kh_route *rt, char *err, size_t errlen)
{
    char prefix[160];

    if (!wants_validation(n, rt))
        return 0;
    if (!n->spec) {
        snprintf(err, errlen, "route %s %s asks for OpenAPI validation but the NApp has no spec",
                 rt->method, rt->path);
        return -1;
    }
    snprintf(prefix, sizeof prefix, "/api/%s/%s/", n->desc->username, n->desc->name);
    if (!find_op(n->spec, rt, prefix)) {
        snprintf(err, errlen, "route %s %s asks for OpenAPI validation but the spec has no such "
                 "operation%s%s", rt->method, rt->path, rt->operation ? " " : "",
                 rt->operation ? rt->operation : "");
        return -1;
    }
    return 0;
}

int kh_validate_bind(kytos_napp *n, char *err, size_t errlen)
{
    const kytos_openapi_spec *spec = n->spec;
    struct kh_route *rt;
    char prefix[160];
    size_t i, count;

    snprintf(prefix, sizeof prefix, "/api/%s/%s/", n->desc->username, n->desc->name);
    for (rt = n->routes; rt; rt = rt->next) {
        int want = wants_validation(n, rt);
        const kytos_openapi_op *op = spec ? find_op(spec, rt, prefix) : NULL;
        /* (route_add refused these already; kept for routes added otherwise) */
        if (kh_validate_route(n, rt, err, errlen) != 0)
            return -1;
        rt->op = want ? (void *)op : NULL;
        if (spec && !op)
            kh_log(LOGGER, KH_INFO, "%s: route %s %s is not described by its OpenAPI spec", n->id,
                   rt->method, rt->path);
    }
    count = spec ? kytos_openapi_op_count(spec) : 0;
    for (i = 0; i < count; i++) {
        const kytos_openapi_op *op = kytos_openapi_op_at(spec, i);
        int found = 0;
        for (rt = n->routes; rt && !found; rt = rt->next)
            if (find_op(spec, rt, prefix) == op)
                found = 1;
        if (!found)
            kh_log(LOGGER, KH_INFO, "%s: OpenAPI operation %s %s has no route", n->id,
                   kytos_openapi_op_method(op), kytos_openapi_op_template(op));
    }
    return 0;
}

void kh_validate_free(kytos_napp *n)
{
    kytos_openapi_spec_free(n->spec);
    n->spec = NULL;
}

static const char *header_of(void *ctx, const char *name)
{
    return kh_req_header(ctx, name);
}

int kh_validate_request(kytos_req *r)
{
    const struct kh_route *rt = r->match.route;
    const char *pp[2 * KH_MAX_PARAMS];
    struct kytos_openapi_result res = {0};
    size_t i;
    int rc;

    for (i = 0; i < r->match.nparams; i++) {
        pp[2 * i] = r->match.params[i].name;
        pp[2 * i + 1] = r->match.params[i].value;
    }
    rc = kytos_openapi_validate(rt->op, &(struct kytos_openapi_request){
        .struct_size = sizeof(struct kytos_openapi_request),
        .method = r->method,
        .path = r->path,
        .path_params = pp,
        .n_path_params = r->match.nparams,
        .query = r->raw_query,
        .content_type = kh_req_header(r, "Content-Type"),
        .body = r->body_len ? r->body : NULL,
        .body_len = r->body_len,
        .get_header = header_of,
        .header_ctx = r}, &res);
    if (rc == 0) {
        r->json = res.body;
        r->typed = res.params;
        return 0;
    }
    kh_resp_json(r, (unsigned)rc, res.error);
    kytos_openapi_result_clear(&res);
    return -1;
}
