/* openapi/lint.c - warnings for spec authors (kytos-openapi lint).
 *
 * Everything here loads fine; these are things that make a spec say
 * something other than what its author meant:
 *   - plain YAML scalars that PyYAML (YAML 1.1, what Kytos reads) and YAML
 *     1.2 tools read differently (from the loader);
 *   - example/examples/default values that their own schema rejects;
 *   - $ref siblings, which OpenAPI 3.0 ignores;
 *   - keywords without effect: items beside a non-array type, nullable
 *     without type (3.0) or in 3.1, array schemas without items (3.0);
 *   - formats this validator does not know (so not checked);
 *   - enum values of another type than the schema's, duplicates in enum
 *     or required, required properties that additionalProperties: false
 *     makes impossible;
 *   - responses without description, component schemas never referenced,
 *     server urls with a host (only the path is used). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

struct lint {
    const kytos_openapi_spec *spec;
    kytos_openapi_diags *out;
    struct koa_arena arena;
    struct koa_compiler comp;
    kytos_openapi_diags *cdiags; /* compile errors of the lint compiler */
    bool d31;
};

static void warn(struct lint *L, json_object *at, const char *ptr,
                 const char *fmt, ...) KOA_PRINTF(4, 5);
static void warn(struct lint *L, json_object *at, const char *ptr,
                 const char *fmt, ...)
{
    va_list ap;
    uint32_t line = 0, col = 0;
    if (at)
        koa_posmap_get(&L->spec->pos, at, &line, &col);
    va_start(ap, fmt);
    koa_diag_vadd(L->out, KYTOS_OPENAPI_WARNING, line, col, ptr, fmt, ap);
    va_end(ap);
}

static char *join(const char *base, const char *tok)
{
    struct ku_buf b;
    ku_buf_init(&b);
    ku_buf_adds(&b, base);
    koa_ptr_append_token(&b, tok, strlen(tok));
    return ku_buf_take(&b);
}

static char *join_idx(const char *base, size_t i)
{
    char t[24];
    snprintf(t, sizeof t, "%zu", i);
    return join(base, t);
}

/* Validate value against the schema s; warn with the first message. */
static void check_example(struct lint *L, json_object *s, const char *ptr,
                          json_object *value, json_object *at, const char *what)
{
    struct koa_node *n;
    struct koa_verrs errs = { NULL, 0, 0, false };
    struct koa_vlimits lim = L->spec->vlim;
    char *hp;

    hp = malloc(strlen(ptr) + 2);
    if (!hp)
        return;
    hp[0] = '#';
    strcpy(hp + 1, ptr);
    n = koa_compile(&L->comp, s, hp);
    free(hp);
    if (!n)
        return;
    lim.write = false; /* examples may show readOnly fields */
    lim.formats = true;
    lim.max_errors = 1;
    if (!koa_validate(n, value, &lim, &errs) && errs.n)
        warn(L, at, ptr, "%s does not match its schema: %s%s%s", what,
             errs.v[0].message, errs.v[0].field[0] ? " at " : "",
             errs.v[0].field);
    koa_verrs_free(&errs);
}

static const char *type_of(json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null: return "null";
    case json_type_boolean: return "boolean";
    case json_type_int: return "integer";
    case json_type_double: return "number";
    case json_type_string: return "string";
    case json_type_array: return "array";
    default: return "object";
    }
}

static void lint_schema(struct lint *L, json_object *s, const char *ptr,
                        unsigned depth);

static void lint_sub(struct lint *L, json_object *s, const char *ptr,
                     const char *kw, unsigned depth)
{
    json_object *v;
    char *p;
    if (!json_object_object_get_ex(s, kw, &v))
        return;
    p = join(ptr, kw);
    if (p && json_object_is_type(v, json_type_object))
        lint_schema(L, v, p, depth + 1);
    free(p);
}

static void lint_sub_map(struct lint *L, json_object *s, const char *ptr,
                         const char *kw, unsigned depth)
{
    json_object *v;
    char *p;
    if (!json_object_object_get_ex(s, kw, &v) ||
        !json_object_is_type(v, json_type_object))
        return;
    p = join(ptr, kw);
    if (!p)
        return;
    json_object_object_foreach(v, name, sub) {
        char *q = join(p, name);
        if (q && json_object_is_type(sub, json_type_object))
            lint_schema(L, sub, q, depth + 1);
        free(q);
    }
    free(p);
}

static void lint_sub_list(struct lint *L, json_object *s, const char *ptr,
                          const char *kw, unsigned depth)
{
    json_object *v;
    char *p;
    size_t i;
    if (!json_object_object_get_ex(s, kw, &v) ||
        !json_object_is_type(v, json_type_array))
        return;
    p = join(ptr, kw);
    if (!p)
        return;
    for (i = 0; i < json_object_array_length(v); i++) {
        char *q = join_idx(p, i);
        json_object *sub = json_object_array_get_idx(v, i);
        if (q && json_object_is_type(sub, json_type_object))
            lint_schema(L, sub, q, depth + 1);
        free(q);
    }
    free(p);
}

static void lint_schema(struct lint *L, json_object *s, const char *ptr,
                        unsigned depth)
{
    json_object *v, *type = NULL, *props = NULL;
    const char *tname = NULL;

    if (depth > 200 || !json_object_is_type(s, json_type_object))
        return;
    json_object_object_get_ex(s, "type", &type);
    if (json_object_is_type(type, json_type_string))
        tname = json_object_get_string(type);
    json_object_object_get_ex(s, "properties", &props);

    if (json_object_object_get_ex(s, "$ref", &v) && !L->d31) {
        json_object_object_foreach(s, k, x) {
            (void)x;
            if (strcmp(k, "$ref") && strcmp(k, "description") &&
                strcmp(k, "summary") && strncmp(k, "x-", 2))
                warn(L, x, ptr, "'%s' beside $ref is ignored in OpenAPI 3.0 (wrap "
                     "the reference in allOf to combine them)", k);
        }
        return;
    }
    if (json_object_object_get_ex(s, "nullable", &v)) {
        if (L->d31)
            warn(L, v, ptr, "'nullable' has no effect in OpenAPI 3.1; use "
                 "type: [..., 'null']");
        else if (!type && json_object_get_boolean(v))
            warn(L, v, ptr, "'nullable: true' has no effect without 'type' in "
                 "the same schema (OpenAPI 3.0.3)");
    }
    if (json_object_object_get_ex(s, "items", &v) && tname &&
        strcmp(tname, "array"))
        warn(L, v, ptr, "'items' has no effect on a schema of type '%s'", tname);
    if (!L->d31 && tname && !strcmp(tname, "array") &&
        !json_object_object_get_ex(s, "items", NULL))
        warn(L, type, ptr, "a schema of type 'array' must have 'items' in "
             "OpenAPI 3.0");
    if (json_object_object_get_ex(s, "format", &v) &&
        json_object_is_type(v, json_type_string) &&
        koa_format_lookup(json_object_get_string(v)) == KOA_FMT_UNKNOWN)
        warn(L, v, ptr, "format '%s' is not one this validator knows; it is "
             "not checked", json_object_get_string(v));
    if (json_object_object_get_ex(s, "enum", &v) &&
        json_object_is_type(v, json_type_array)) {
        size_t i, j, n = json_object_array_length(v);
        for (i = 0; i < n; i++) {
            json_object *e = json_object_array_get_idx(v, i);
            const char *et = type_of(e);
            struct ku_buf r;
            /* repr, not json_object_to_json_string: that would write a
             * cache into the shared document */
            ku_buf_init(&r);
            koa_pyrepr(&r, e, 200);
            if (tname && strcmp(et, tname) &&
                !(!strcmp(tname, "number") && !strcmp(et, "integer")) &&
                !(e == NULL && !L->d31))
                warn(L, v, ptr, "enum value %s is not of the schema's type '%s'",
                     ku_buf_str(&r), tname);
            for (j = 0; j < i; j++)
                if (koa_json_equal(e, json_object_array_get_idx(v, j)))
                    warn(L, v, ptr, "enum lists %s twice", ku_buf_str(&r));
            ku_buf_free(&r);
        }
    }
    if (json_object_object_get_ex(s, "required", &v) &&
        json_object_is_type(v, json_type_array)) {
        size_t i, j, n = json_object_array_length(v);
        json_object *ap;
        bool closed = json_object_object_get_ex(s, "additionalProperties", &ap) &&
                      json_object_is_type(ap, json_type_boolean) &&
                      !json_object_get_boolean(ap) &&
                      !json_object_object_get_ex(s, "patternProperties", NULL);
        for (i = 0; i < n; i++) {
            const char *r = json_object_get_string(json_object_array_get_idx(v, i));
            if (!r)
                continue;
            for (j = 0; j < i; j++) {
                const char *q = json_object_get_string(json_object_array_get_idx(v, j));
                if (q && !strcmp(q, r))
                    warn(L, v, ptr, "'required' lists '%s' twice", r);
            }
            if (closed && !(props && json_object_object_get_ex(props, r, NULL)))
                warn(L, v, ptr, "'%s' is required but additionalProperties: false "
                     "and no property of that name: no value can be valid", r);
        }
    }
    if (json_object_object_get_ex(s, "example", &v))
        check_example(L, s, ptr, v, v, "example");
    if (json_object_object_get_ex(s, "default", &v))
        check_example(L, s, ptr, v, v, "default");
    if (json_object_object_get_ex(s, "examples", &v) &&
        json_object_is_type(v, json_type_array)) {
        size_t i;
        for (i = 0; i < json_object_array_length(v); i++) {
            char what[40];
            snprintf(what, sizeof what, "examples[%zu]", i);
            check_example(L, s, ptr, json_object_array_get_idx(v, i), v, what);
        }
    }
    lint_sub_map(L, s, ptr, "properties", depth);
    lint_sub_map(L, s, ptr, "patternProperties", depth);
    lint_sub_map(L, s, ptr, "$defs", depth);
    lint_sub_map(L, s, ptr, "dependentSchemas", depth);
    lint_sub(L, s, ptr, "items", depth);
    lint_sub(L, s, ptr, "additionalProperties", depth);
    lint_sub(L, s, ptr, "not", depth);
    lint_sub(L, s, ptr, "contains", depth);
    lint_sub(L, s, ptr, "propertyNames", depth);
    lint_sub(L, s, ptr, "if", depth);
    lint_sub(L, s, ptr, "then", depth);
    lint_sub(L, s, ptr, "else", depth);
    lint_sub_list(L, s, ptr, "allOf", depth);
    lint_sub_list(L, s, ptr, "anyOf", depth);
    lint_sub_list(L, s, ptr, "oneOf", depth);
    lint_sub_list(L, s, ptr, "prefixItems", depth);
}

/* Every "$ref" string in the document. */
static void collect_refs(json_object *v, struct ku_buf *refs, unsigned depth)
{
    if (depth > 300)
        return;
    if (json_object_is_type(v, json_type_object)) {
        json_object_object_foreach(v, k, x) {
            if (!strcmp(k, "$ref") && json_object_is_type(x, json_type_string)) {
                ku_buf_adds(refs, json_object_get_string(x));
                ku_buf_addc(refs, '\n');
            } else {
                collect_refs(x, refs, depth + 1);
            }
        }
    } else if (json_object_is_type(v, json_type_array)) {
        size_t i;
        for (i = 0; i < json_object_array_length(v); i++)
            collect_refs(json_object_array_get_idx(v, i), refs, depth + 1);
    }
}

/* Walk the document outside schemas; lint each schema position. */
static void walk(struct lint *L, json_object *v, const char *ptr,
                 const char *key, unsigned depth)
{
    if (depth > 100)
        return;
    if (key && (!strcmp(key, "schema")) && json_object_is_type(v, json_type_object)) {
        lint_schema(L, v, ptr, 0);
        return;
    }
    if (key && (!strcmp(key, "example") || !strcmp(key, "examples")))
        return;
    if (json_object_is_type(v, json_type_object)) {
        json_object_object_foreach(v, k, x) {
            char *p = join(ptr, k);
            if (p)
                walk(L, x, p, k, depth + 1);
            free(p);
        }
    } else if (json_object_is_type(v, json_type_array)) {
        size_t i;
        for (i = 0; i < json_object_array_length(v); i++) {
            char *p = join_idx(ptr, i);
            if (p)
                walk(L, json_object_array_get_idx(v, i), p, NULL, depth + 1);
            free(p);
        }
    }
}

static void lint_responses(struct lint *L)
{
    size_t i;
    for (i = 0; i < L->spec->nops; i++) {
        const kytos_openapi_op *op = &L->spec->ops[i];
        json_object *r;
        if (!json_object_object_get_ex(op->src, "responses", &r))
            continue;
        json_object_object_foreach(r, code, resp) {
            if (json_object_is_type(resp, json_type_object) &&
                !json_object_object_get_ex(resp, "description", NULL) &&
                !json_object_object_get_ex(resp, "$ref", NULL)) {
                char *p = join(op->pointer, "responses");
                char *q = p ? join(p, code) : NULL;
                warn(L, resp, q ? q : op->pointer, "response '%s' of %s %s has no "
                     "'description' (required by OpenAPI 3.x)", code, op->method,
                     op->spec_path);
                free(q);
                free(p);
            }
        }
    }
}

static void lint_servers(struct lint *L)
{
    json_object *servers;
    size_t i;
    if (!json_object_object_get_ex(L->spec->doc, "servers", &servers) ||
        !json_object_is_type(servers, json_type_array))
        return;
    for (i = 0; i < json_object_array_length(servers); i++) {
        json_object *url = json_object_object_get(json_object_array_get_idx(servers, i),
                                                  "url");
        const char *u = json_object_get_string(url);
        if (u && strstr(u, "://")) {
            char *p = join_idx("/servers", i);
            warn(L, url, p ? p : "/servers", "server url '%s' names a host; only "
                 "its path is used to match requests", u);
            free(p);
        }
    }
}

static void lint_unused(struct lint *L)
{
    json_object *comps, *schemas;
    struct ku_buf refs;
    if (!json_object_object_get_ex(L->spec->doc, "components", &comps) ||
        !json_object_object_get_ex(comps, "schemas", &schemas) ||
        !json_object_is_type(schemas, json_type_object))
        return;
    ku_buf_init(&refs);
    ku_buf_addc(&refs, '\n');
    collect_refs(L->spec->doc, &refs, 0);
    json_object_object_foreach(schemas, name, s) {
        struct ku_buf want;
        ku_buf_init(&want);
        ku_buf_adds(&want, "\n#/components/schemas");
        koa_ptr_append_token(&want, name, strlen(name));
        /* a reference to the schema itself ("...\n") or into it (".../") */
        size_t wl = want.len;
        bool used;
        ku_buf_addc(&want, '\n');
        used = strstr(ku_buf_str(&refs), ku_buf_str(&want)) != NULL;
        want.p[wl] = '/';
        used = used || strstr(ku_buf_str(&refs), ku_buf_str(&want)) != NULL;
        if (!used) {
            char *p = join("/components/schemas", name);
            warn(L, s, p ? p : "/components/schemas", "component schema '%s' is "
                 "never referenced", name);
            free(p);
        }
        ku_buf_free(&want);
    }
    ku_buf_free(&refs);
}

size_t kytos_openapi_lint(const kytos_openapi_spec *spec,
                          kytos_openapi_diags **out)
{
    struct lint L;
    json_object *comps = NULL, *schemas = NULL;
    size_t n;

    if (out)
        *out = NULL;
    if (!spec)
        return 0;
    memset(&L, 0, sizeof L);
    L.spec = spec;
    L.d31 = spec->dialect == KOA_OAS31;
    L.out = koa_diags_new(spec->origin);
    L.cdiags = koa_diags_new(spec->origin);
    if (!L.out || !L.cdiags) {
        kytos_openapi_diags_free(L.out);
        kytos_openapi_diags_free(L.cdiags);
        return 0;
    }
    koa_diags_append(L.out, spec->yaml_warnings);
    koa_compiler_init(&L.comp, &L.arena, spec->doc, spec->dialect, spec->opts.flags,
                      L.cdiags, &spec->pos);
    lint_servers(&L);
    if (json_object_object_get_ex(spec->doc, "components", &comps) &&
        json_object_object_get_ex(comps, "schemas", &schemas) &&
        json_object_is_type(schemas, json_type_object)) {
        json_object_object_foreach(schemas, name, s) {
            char *p = join("/components/schemas", name);
            if (p)
                lint_schema(&L, s, p, 0);
            free(p);
        }
    }
    {
        json_object *paths;
        if (json_object_object_get_ex(spec->doc, "paths", &paths))
            walk(&L, paths, "/paths", NULL, 0);
        if (comps) {
            json_object_object_foreach(comps, k, v) {
                char *p;
                if (!strcmp(k, "schemas"))
                    continue;
                p = join("/components", k);
                if (p)
                    walk(&L, v, p, k, 0);
                free(p);
            }
        }
    }
    lint_responses(&L);
    lint_unused(&L);
    koa_compiler_done(&L.comp, NULL, NULL);
    koa_arena_free(&L.arena);
    kytos_openapi_diags_free(L.cdiags);
    n = L.out->n;
    if (out)
        *out = L.out;
    else
        kytos_openapi_diags_free(L.out);
    return n;
}
