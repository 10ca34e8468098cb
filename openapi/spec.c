/* openapi/spec.c - loading a spec: parse, check the document, compile
 * every operation once.
 *
 * The document checks follow what openapi-spec-validator refuses for
 * Kytos (a spec that does not load refuses the NApp): version, info,
 * paths and their templates, path items and operations with their known
 * fields, parameters (in/name, path parameters required and present in
 * the template and every template variable declared), request bodies,
 * unique operationIds, local $refs that resolve, and every schema (all of
 * components/schemas too).  Each problem is reported with the JSON
 * pointer and, when known, the line and column. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "spec.h"

struct ld {
    kytos_openapi_spec *spec;
    kytos_openapi_diags *d;
    struct koa_compiler comp;
    json_object *root;
};

static void lerr(struct ld *l, json_object *at, const char *ptr,
                 const char *fmt, ...) KOA_PRINTF(4, 5);
static void lerr(struct ld *l, json_object *at, const char *ptr,
                 const char *fmt, ...)
{
    va_list ap;
    uint32_t line = 0, col = 0;
    if (at)
        koa_posmap_get(&l->spec->pos, at, &line, &col);
    va_start(ap, fmt);
    koa_diag_vadd(l->d, KYTOS_OPENAPI_ERROR, line, col, ptr, fmt, ap);
    va_end(ap);
}

/* Position of a key inside an object (the key's own line). */
static void key_pos(struct ld *l, json_object *obj, const char *key,
                    uint32_t *line, uint32_t *col)
{
    struct lh_entry *e = lh_table_lookup_entry(json_object_get_object(obj), key);
    *line = *col = 0;
    if (e)
        koa_posmap_get(&l->spec->pos, e->k, line, col);
    if (!*line)
        koa_posmap_get(&l->spec->pos, obj, line, col);
}

static void lerr_key(struct ld *l, json_object *obj, const char *key,
                     const char *ptr, const char *fmt, ...) KOA_PRINTF(5, 6);
static void lerr_key(struct ld *l, json_object *obj, const char *key,
                     const char *ptr, const char *fmt, ...)
{
    va_list ap;
    uint32_t line, col;
    key_pos(l, obj, key, &line, &col);
    va_start(ap, fmt);
    koa_diag_vadd(l->d, KYTOS_OPENAPI_ERROR, line, col, ptr, fmt, ap);
    va_end(ap);
}

/* ptr + "/" + escaped token, as an arena string */
static char *ptr_join(struct ld *l, const char *base, const char *tok)
{
    struct ku_buf b;
    char *out;
    ku_buf_init(&b);
    ku_buf_adds(&b, base);
    koa_ptr_append_token(&b, tok, strlen(tok));
    out = b.oom ? NULL : koa_arena_strdup(&l->spec->arena, ku_buf_str(&b));
    ku_buf_free(&b);
    return out ? out : (char *)"";
}

static char *ptr_index(struct ld *l, const char *base, size_t i)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%zu", i);
    return ptr_join(l, base, tmp);
}

static bool is_ext(const char *k)
{
    return k[0] == 'x' && k[1] == '-';
}

static bool in_set(const char *k, const char *const *set)
{
    for (; *set; set++)
        if (!strcmp(k, *set))
            return true;
    return false;
}

/* Refuse fields the object type does not have. */
static bool check_fields(struct ld *l, json_object *obj, const char *ptr,
                         const char *what, const char *const *allowed)
{
    bool ok = true;
    json_object_object_foreach(obj, k, v) {
        (void)v;
        if (is_ext(k) || in_set(k, allowed))
            continue;
        lerr_key(l, obj, k, ptr_join(l, ptr, k), "unknown field '%s' in %s", k, what);
        ok = false;
    }
    return ok;
}

/* Follow a Reference Object ({"$ref": "#/..."}) to its target (non-schema
 * positions: parameters, request bodies, path items). */
static json_object *deref(struct ld *l, json_object *v, const char **ptr)
{
    int hops;
    for (hops = 0; hops < 32; hops++) {
        json_object *r, *t;
        const char *ref;
        if (!json_object_is_type(v, json_type_object) ||
            !json_object_object_get_ex(v, "$ref", &r))
            return v;
        if (!json_object_is_type(r, json_type_string)) {
            lerr(l, r, *ptr, "'$ref' must be a string");
            return NULL;
        }
        ref = json_object_get_string(r);
        if (ref[0] != '#') {
            lerr(l, r, *ptr, "only local references (\"#/...\") are supported, "
                 "not '%s'", ref);
            return NULL;
        }
        if (koa_ptr_resolve(l->root, ref, &t) != 0 || !t) {
            lerr(l, r, *ptr, "$ref '%s' does not resolve", ref);
            return NULL;
        }
        *ptr = koa_arena_strdup(&l->spec->arena, ref + 1);
        v = t;
    }
    lerr(l, v, *ptr, "$ref chain longer than 32 links (circular?)");
    return NULL;
}

/* ---- servers -------------------------------------------------------- */

struct bases {
    const char *v[16];
    size_t n;
};

static void add_base(struct ld *l, struct bases *b, const char *url, size_t n)
{
    char *s;
    size_t i;
    while (n > 0 && url[n - 1] == '/')
        n--;
    s = koa_arena_alloc(&l->spec->arena, n + 2);
    if (!s)
        return;
    if (n && url[0] != '/') {
        s[0] = '/';
        memcpy(s + 1, url, n);
        s[n + 1] = '\0';
    } else {
        memcpy(s, url, n);
        s[n] = '\0';
    }
    for (i = 0; i < b->n; i++)
        if (!strcmp(b->v[i], s))
            return;
    if (b->n < 16)
        b->v[b->n++] = s;
}

/* The path part of each server url: "/api/kytos/x" (relative),
 * "http://host:8181/api/kytos/x" (absolute), variables by default. */
static bool parse_servers(struct ld *l, json_object *servers, const char *ptr,
                          struct bases *out)
{
    size_t i, n;
    out->n = 0;
    if (!servers)
        return true;
    if (!json_object_is_type(servers, json_type_array)) {
        lerr(l, servers, ptr, "'servers' must be an array of Server Objects");
        return false;
    }
    n = json_object_array_length(servers);
    for (i = 0; i < n; i++) {
        json_object *sv = json_object_array_get_idx(servers, i), *url, *vars = NULL;
        const char *sptr = ptr_index(l, ptr, i);
        struct ku_buf b;
        const char *u, *p;
        if (!json_object_is_type(sv, json_type_object) ||
            !json_object_object_get_ex(sv, "url", &url) ||
            !json_object_is_type(url, json_type_string)) {
            lerr(l, sv, sptr, "a Server Object needs a string 'url'");
            return false;
        }
        json_object_object_get_ex(sv, "variables", &vars);
        ku_buf_init(&b);
        for (u = json_object_get_string(url); *u; u++) {
            if (*u == '{') {
                const char *close = strchr(u, '}');
                json_object *var, *def;
                char name[128];
                size_t nl;
                if (!close || (nl = (size_t)(close - u - 1)) >= sizeof name) {
                    lerr(l, url, sptr, "malformed variable in server url '%s'",
                         json_object_get_string(url));
                    ku_buf_free(&b);
                    return false;
                }
                memcpy(name, u + 1, nl);
                name[nl] = '\0';
                if (!vars || !json_object_object_get_ex(vars, name, &var) ||
                    !json_object_object_get_ex(var, "default", &def) ||
                    !json_object_is_type(def, json_type_string)) {
                    lerr(l, url, sptr, "server url variable '%s' has no string "
                         "default", name);
                    ku_buf_free(&b);
                    return false;
                }
                ku_buf_adds(&b, json_object_get_string(def));
                u = close;
            } else {
                ku_buf_addc(&b, *u);
            }
        }
        u = ku_buf_str(&b);
        p = strstr(u, "://");
        if (p) {
            p = strchr(p + 3, '/');
            if (!p)
                p = "";
        } else {
            p = u;
        }
        /* drop a query or fragment, keep the path */
        add_base(l, out, p, strcspn(p, "?#"));
        ku_buf_free(&b);
    }
    return true;
}

/* ---- parameters ----------------------------------------------------- */

/* The raw schema behind $refs (3.0 Reference Objects), for cast types. */
static json_object *raw_schema(struct ld *l, json_object *s)
{
    int hops;
    for (hops = 0; hops < 32; hops++) {
        json_object *r, *t;
        if (!json_object_is_type(s, json_type_object) ||
            !json_object_object_get_ex(s, "$ref", &r) ||
            !json_object_is_type(r, json_type_string) ||
            koa_ptr_resolve(l->root, json_object_get_string(r), &t) != 0)
            return s;
        s = t;
    }
    return s;
}

static enum koa_cast cast_of(struct ld *l, json_object *schema)
{
    json_object *t;
    const char *name = NULL;
    schema = raw_schema(l, schema);
    if (!json_object_object_get_ex(schema, "type", &t))
        return KOA_CAST_NONE;
    if (json_object_is_type(t, json_type_string)) {
        name = json_object_get_string(t);
    } else if (json_object_is_type(t, json_type_array)) {
        size_t i;
        for (i = 0; i < json_object_array_length(t) && !name; i++) {
            const char *x = json_object_get_string(json_object_array_get_idx(t, i));
            if (x && strcmp(x, "null"))
                name = x;
        }
    }
    if (!name)
        return KOA_CAST_NONE;
    if (!strcmp(name, "string")) return KOA_CAST_STRING;
    if (!strcmp(name, "integer")) return KOA_CAST_INTEGER;
    if (!strcmp(name, "number")) return KOA_CAST_NUMBER;
    if (!strcmp(name, "boolean")) return KOA_CAST_BOOLEAN;
    if (!strcmp(name, "array")) return KOA_CAST_ARRAY;
    if (!strcmp(name, "object")) return KOA_CAST_OBJECT;
    return KOA_CAST_NONE;
}

static bool is_json_media(const char *t)
{
    size_t n = strcspn(t, ";");
    if (n == 16 && !strncasecmp(t, "application/json", 16))
        return true;
    return n > 5 && !strncasecmp(t + n - 5, "+json", 5);
}

static const char *const param_fields[] = {
    "name", "in", "description", "required", "deprecated", "allowEmptyValue",
    "style", "explode", "allowReserved", "schema", "example", "examples",
    "content", NULL
};

/* Compile one Parameter Object into *p. */
static bool compile_param(struct ld *l, json_object *v, const char *ptr,
                          struct koa_param *p, char **vars, size_t nvars)
{
    json_object *x, *schema = NULL, *content = NULL;
    const char *in, *sptr = NULL;

    v = deref(l, v, &ptr);
    if (!v)
        return false;
    if (!json_object_is_type(v, json_type_object)) {
        lerr(l, v, ptr, "a parameter must be an object");
        return false;
    }
    if (!check_fields(l, v, ptr, "a Parameter Object", param_fields))
        return false;
    if (!json_object_object_get_ex(v, "name", &x) ||
        !json_object_is_type(x, json_type_string)) {
        lerr(l, v, ptr, "a parameter needs a string 'name'");
        return false;
    }
    memset(p, 0, sizeof *p);
    p->name = koa_arena_strdup(&l->spec->arena, json_object_get_string(x));
    if (!json_object_object_get_ex(v, "in", &x) ||
        !json_object_is_type(x, json_type_string)) {
        lerr(l, v, ptr, "parameter '%s' needs 'in' (path, query, header or cookie)",
             p->name);
        return false;
    }
    in = json_object_get_string(x);
    if (!strcmp(in, "path")) {
        p->in = KOA_IN_PATH;
        p->style = KOA_STYLE_SIMPLE;
    } else if (!strcmp(in, "query")) {
        p->in = KOA_IN_QUERY;
        p->style = KOA_STYLE_FORM;
    } else if (!strcmp(in, "header")) {
        p->in = KOA_IN_HEADER;
        p->style = KOA_STYLE_SIMPLE;
    } else if (!strcmp(in, "cookie")) {
        p->in = KOA_IN_COOKIE;
        p->style = KOA_STYLE_FORM;
    } else {
        lerr(l, x, ptr, "parameter '%s': 'in' must be path, query, header or "
             "cookie, not '%s'", p->name, in);
        return false;
    }
    if (json_object_object_get_ex(v, "required", &x)) {
        if (!json_object_is_type(x, json_type_boolean)) {
            lerr(l, x, ptr, "parameter '%s': 'required' must be a boolean", p->name);
            return false;
        }
        p->required = json_object_get_boolean(x);
    }
    if (p->in == KOA_IN_PATH) {
        size_t i;
        bool found = false;
        if (!p->required) {
            lerr(l, v, ptr, "path parameter '%s' must have 'required: true'", p->name);
            return false;
        }
        for (i = 0; i < nvars; i++)
            if (!strcmp(vars[i], p->name))
                found = true;
        if (!found) {
            lerr(l, v, ptr, "path parameter '%s' is not a variable of the path "
                 "template", p->name);
            return false;
        }
    }
    if (json_object_object_get_ex(v, "style", &x)) {
        const char *st = json_object_get_string(x);
        static const struct { const char *name; enum koa_style s; unsigned ins; } styles[] = {
            { "simple", KOA_STYLE_SIMPLE, 1u << KOA_IN_PATH | 1u << KOA_IN_HEADER },
            { "label", KOA_STYLE_LABEL, 1u << KOA_IN_PATH },
            { "matrix", KOA_STYLE_MATRIX, 1u << KOA_IN_PATH },
            { "form", KOA_STYLE_FORM, 1u << KOA_IN_QUERY | 1u << KOA_IN_COOKIE },
            { "spaceDelimited", KOA_STYLE_SPACE, 1u << KOA_IN_QUERY },
            { "pipeDelimited", KOA_STYLE_PIPE, 1u << KOA_IN_QUERY },
            { "deepObject", KOA_STYLE_DEEP, 1u << KOA_IN_QUERY },
        };
        size_t i;
        bool ok = false;
        for (i = 0; st && i < sizeof styles / sizeof styles[0]; i++) {
            if (!strcmp(st, styles[i].name) && (styles[i].ins & (1u << p->in))) {
                p->style = styles[i].s;
                ok = true;
            }
        }
        if (!ok) {
            lerr(l, x, ptr, "parameter '%s': style '%s' is not valid for in: %s",
                 p->name, st ? st : "?", in);
            return false;
        }
    }
    p->explode = p->style == KOA_STYLE_FORM;
    if (json_object_object_get_ex(v, "explode", &x)) {
        if (!json_object_is_type(x, json_type_boolean)) {
            lerr(l, x, ptr, "parameter '%s': 'explode' must be a boolean", p->name);
            return false;
        }
        p->explode = json_object_get_boolean(x);
    }
    if (json_object_object_get_ex(v, "allowEmptyValue", &x))
        p->allow_empty = json_object_get_boolean(x);
    json_object_object_get_ex(v, "schema", &schema);
    json_object_object_get_ex(v, "content", &content);
    if ((schema != NULL) == (content != NULL)) {
        lerr(l, v, ptr, "parameter '%s' needs exactly one of 'schema' and 'content'",
             p->name);
        return false;
    }
    if (content) {
        if (!json_object_is_type(content, json_type_object) ||
            json_object_object_length(content) != 1) {
            lerr(l, content, ptr, "parameter '%s': 'content' must have exactly one "
                 "media type", p->name);
            return false;
        }
        json_object_object_foreach(content, mt, mv) {
            p->content_json = is_json_media(mt);
            sptr = ptr_join(l, ptr_join(l, ptr_join(l, ptr, "content"), mt), "schema");
            if (!json_object_object_get_ex(mv, "schema", &schema))
                schema = NULL;
        }
    } else {
        sptr = ptr_join(l, ptr, "schema");
    }
    if (schema) {
        char *hp = koa_arena_alloc(&l->spec->arena, strlen(sptr) + 2);
        json_object *raw, *items, *def;
        if (!hp)
            return false;
        hp[0] = '#';
        strcpy(hp + 1, sptr);
        p->schema = koa_compile(&l->comp, schema, hp);
        if (!p->schema)
            return false;
        p->cast = cast_of(l, schema);
        raw = raw_schema(l, schema);
        if (p->cast == KOA_CAST_ARRAY && json_object_object_get_ex(raw, "items", &items))
            p->item_cast = cast_of(l, items);
        if (json_object_object_get_ex(raw, "default", &def)) {
            p->default_value = def;
            p->has_default = true;
        }
    }
    return true;
}

/* Operation-level parameters override path-level ones (same name+in). */
static bool compile_params(struct ld *l, kytos_openapi_op *op,
                           json_object *path_params, const char *pp_ptr,
                           json_object *op_params, const char *op_ptr,
                           char **vars, size_t nvars)
{
    size_t cap = 0, i, j;
    json_object *lists[2] = { op_params, path_params };
    const char *ptrs[2] = { op_ptr, pp_ptr };
    int k;

    for (k = 0; k < 2; k++) {
        if (!lists[k])
            continue;
        if (!json_object_is_type(lists[k], json_type_array)) {
            lerr(l, lists[k], ptrs[k], "'parameters' must be an array");
            return false;
        }
        cap += json_object_array_length(lists[k]);
    }
    op->params = koa_arena_alloc(&l->spec->arena, (cap ? cap : 1) * sizeof *op->params);
    if (!op->params)
        return false;
    for (k = 0; k < 2; k++) {
        size_t n, first = op->nparams;
        if (!lists[k])
            continue;
        n = json_object_array_length(lists[k]);
        for (i = 0; i < n; i++) {
            struct koa_param p;
            const char *ptr = ptr_index(l, ptrs[k], i);
            bool dup = false;
            if (!compile_param(l, json_object_array_get_idx(lists[k], i), ptr, &p,
                               vars, nvars))
                return false;
            for (j = 0; j < op->nparams; j++) {
                if (op->params[j].in == p.in && !strcmp(op->params[j].name, p.name)) {
                    if (j >= first) {
                        lerr(l, json_object_array_get_idx(lists[k], i), ptr,
                             "parameter '%s' is listed twice", p.name);
                        return false;
                    }
                    dup = true; /* path-level one overridden */
                }
            }
            if (!dup)
                op->params[op->nparams++] = p;
        }
    }
    for (i = 0; i < nvars; i++) {
        bool found = false;
        for (j = 0; j < op->nparams; j++)
            if (op->params[j].in == KOA_IN_PATH && !strcmp(op->params[j].name, vars[i]))
                found = true;
        if (!found) {
            lerr(l, op->src, op->pointer, "path template variable '{%s}' of %s %s "
                 "has no 'in: path' parameter", vars[i], op->method, op->spec_path);
            return false;
        }
    }
    return true;
}

/* ---- request bodies ------------------------------------------------- */

static bool compile_body(struct ld *l, kytos_openapi_op *op, json_object *v,
                         const char *ptr)
{
    static const char *const fields[] = { "description", "content", "required", NULL };
    json_object *content, *x;
    size_t i = 0;

    v = deref(l, v, &ptr);
    if (!v)
        return false;
    if (!json_object_is_type(v, json_type_object)) {
        lerr(l, v, ptr, "'requestBody' must be an object");
        return false;
    }
    if (!check_fields(l, v, ptr, "a Request Body Object", fields))
        return false;
    if (!json_object_object_get_ex(v, "content", &content) ||
        !json_object_is_type(content, json_type_object) ||
        json_object_object_length(content) == 0) {
        lerr(l, v, ptr, "'requestBody' needs a non-empty 'content' map");
        return false;
    }
    if (json_object_object_get_ex(v, "required", &x)) {
        if (!json_object_is_type(x, json_type_boolean)) {
            lerr(l, x, ptr, "'requestBody.required' must be a boolean");
            return false;
        }
        op->body_required = json_object_get_boolean(x);
    }
    op->has_body = true;
    op->nmedia = (size_t)json_object_object_length(content);
    op->media = koa_arena_alloc(&l->spec->arena, op->nmedia * sizeof *op->media);
    if (!op->media)
        return false;
    {
        json_object_object_foreach(content, mt, mv) {
            static const char *const mfields[] = { "schema", "example", "examples",
                                                   "encoding", NULL };
            const char *mptr = ptr_join(l, ptr_join(l, ptr, "content"), mt);
            json_object *schema;
            struct koa_media *m = &op->media[i++];
            if (!strchr(mt, '/')) {
                lerr_key(l, content, mt, mptr, "'%s' is not a media type (type/subtype)",
                         mt);
                return false;
            }
            if (!json_object_is_type(mv, json_type_object)) {
                lerr(l, mv, mptr, "a Media Type Object must be an object");
                return false;
            }
            if (!check_fields(l, mv, mptr, "a Media Type Object", mfields))
                return false;
            m->type = koa_arena_strdup(&l->spec->arena, mt);
            m->json = is_json_media(mt);
            if (json_object_object_get_ex(mv, "schema", &schema)) {
                const char *sp = ptr_join(l, mptr, "schema");
                char *hp = koa_arena_alloc(&l->spec->arena, strlen(sp) + 2);
                if (!hp)
                    return false;
                hp[0] = '#';
                strcpy(hp + 1, sp);
                m->schema = koa_compile(&l->comp, schema, hp);
                if (!m->schema)
                    return false;
            }
        }
    }
    return true;
}

/* ---- responses (checked lightly: never used to validate) ------------ */

static bool check_responses(struct ld *l, json_object *r, const char *ptr)
{
    if (!json_object_is_type(r, json_type_object)) {
        lerr(l, r, ptr, "'responses' must be an object");
        return false;
    }
    json_object_object_foreach(r, code, v) {
        size_t n = strlen(code);
        bool ok = !strcmp(code, "default") ||
                  (n == 3 && code[0] >= '1' && code[0] <= '5' &&
                   ((code[1] >= '0' && code[1] <= '9' && code[2] >= '0' && code[2] <= '9') ||
                    (code[1] == 'X' && code[2] == 'X')));
        if (is_ext(code))
            continue;
        if (!ok) {
            lerr_key(l, r, code, ptr_join(l, ptr, code), "'%s' is not a response "
                     "code (100-599, 1XX-5XX or default)", code);
            return false;
        }
        if (!json_object_is_type(v, json_type_object)) {
            lerr(l, v, ptr_join(l, ptr, code), "a Response Object must be an object");
            return false;
        }
    }
    return true;
}

/* ---- paths ----------------------------------------------------------- */

static const char *const methods[] = { "get", "put", "post", "delete", "options",
                                       "head", "patch", "trace", NULL };

/* Variables of a path template; false on a malformed template. */
static bool template_vars(struct ld *l, json_object *paths, const char *path,
                          const char *ptr, char ***vars, size_t *nvars)
{
    const char *p = path;
    size_t cap = 0;
    *vars = NULL;
    *nvars = 0;
    for (; *p; p++) {
        if (*p == '}') {
            lerr_key(l, paths, path, ptr, "unbalanced '}' in path '%s'", path);
            return false;
        }
        if (*p == '{') {
            const char *close = strchr(p, '}');
            const char *open2 = strchr(p + 1, '{');
            size_t i, n;
            char *name;
            if (!close || (open2 && open2 < close) || close == p + 1 ||
                memchr(p, '/', (size_t)(close - p))) {
                lerr_key(l, paths, path, ptr, "malformed variable in path '%s'", path);
                return false;
            }
            n = (size_t)(close - p - 1);
            name = koa_arena_strndup(&l->spec->arena, p + 1, n);
            for (i = 0; i < *nvars; i++)
                if (!strcmp((*vars)[i], name)) {
                    lerr_key(l, paths, path, ptr, "variable '{%s}' appears twice in "
                             "path '%s'", name, path);
                    return false;
                }
            if (*nvars == cap) {
                char **nv = koa_arena_alloc(&l->spec->arena, (cap + 8) * sizeof *nv);
                if (!nv)
                    return false;
                if (*nvars)
                    memcpy(nv, *vars, *nvars * sizeof *nv);
                *vars = nv;
                cap += 8;
            }
            (*vars)[(*nvars)++] = name;
            p = close;
        }
    }
    return true;
}

static bool compile_op(struct ld *l, const char *path, json_object *item,
                       const char *item_ptr, const char *method, json_object *opv,
                       const struct bases *root_bases, char **vars, size_t nvars,
                       kytos_openapi_op *op)
{
    static const char *const op_fields[] = {
        "tags", "summary", "description", "externalDocs", "operationId",
        "parameters", "requestBody", "responses", "callbacks", "deprecated",
        "security", "servers", NULL
    };
    const char *ptr = ptr_join(l, item_ptr, method);
    json_object *x, *pp = NULL, *servers = NULL;
    struct bases bases;
    size_t i;

    memset(op, 0, sizeof *op);
    op->spec = l->spec;
    for (i = 0; method[i] && i < sizeof op->method - 1; i++)
        op->method[i] = (char)(method[i] - 'a' + 'A');
    op->method_lower = method;
    op->spec_path = koa_arena_strdup(&l->spec->arena, path);
    op->pointer = ptr;
    op->src = opv;
    if (!json_object_is_type(opv, json_type_object)) {
        lerr(l, opv, ptr, "an Operation Object must be an object");
        return false;
    }
    if (!check_fields(l, opv, ptr, "an Operation Object", op_fields))
        return false;
    if (json_object_object_get_ex(opv, "operationId", &x)) {
        if (!json_object_is_type(x, json_type_string)) {
            lerr(l, x, ptr, "'operationId' must be a string");
            return false;
        }
        op->operation_id = koa_arena_strdup(&l->spec->arena, json_object_get_string(x));
    }
    if (json_object_object_get_ex(opv, "responses", &x)) {
        if (!check_responses(l, x, ptr_join(l, ptr, "responses")))
            return false;
    } else if (l->spec->dialect == KOA_OAS30) {
        lerr(l, opv, ptr, "%s %s has no 'responses' (required in OpenAPI 3.0)",
             op->method, path);
        return false;
    }
    /* servers: operation, else path item, else root */
    if (!json_object_object_get_ex(opv, "servers", &servers))
        json_object_object_get_ex(item, "servers", &servers);
    if (servers) {
        if (!parse_servers(l, servers, ptr_join(l, ptr, "servers"), &bases))
            return false;
    } else {
        bases = *root_bases;
    }
    if (bases.n == 0)
        add_base(l, &bases, "", 0);
    op->tmpls = koa_arena_alloc(&l->spec->arena, bases.n * sizeof *op->tmpls);
    if (!op->tmpls)
        return false;
    for (i = 0; i < bases.n; i++) {
        char *canon = koa_tmpl_canon(bases.v[i], path);
        struct ku_buf full;
        if (!canon) {
            lerr(l, item, item_ptr, "malformed path template '%s'", path);
            return false;
        }
        ku_buf_init(&full);
        ku_buf_adds(&full, bases.v[i]);
        ku_buf_adds(&full, path);
        op->tmpls[i].text = koa_arena_strdup(&l->spec->arena, ku_buf_str(&full));
        op->tmpls[i].canon = koa_arena_strdup(&l->spec->arena, canon);
        op->tmpls[i].nvars = (unsigned)nvars;
        ku_buf_free(&full);
        free(canon);
    }
    op->ntmpls = bases.n;
    json_object_object_get_ex(item, "parameters", &pp);
    x = NULL;
    json_object_object_get_ex(opv, "parameters", &x);
    if (!compile_params(l, op, pp, ptr_join(l, item_ptr, "parameters"), x,
                        ptr_join(l, ptr, "parameters"), vars, nvars))
        return false;
    if (json_object_object_get_ex(opv, "requestBody", &x) &&
        !compile_body(l, op, x, ptr_join(l, ptr, "requestBody")))
        return false;
    return true;
}

static bool compile_paths(struct ld *l, json_object *paths,
                          const struct bases *root_bases)
{
    static const char *const item_fields[] = {
        "$ref", "summary", "description", "get", "put", "post", "delete",
        "options", "head", "patch", "trace", "servers", "parameters", NULL
    };
    size_t cap = 0;

    if (!json_object_is_type(paths, json_type_object)) {
        lerr(l, paths, "/paths", "'paths' must be an object");
        return false;
    }
    json_object_object_foreach(paths, path0, item0) {
        const char *m;
        int k;
        if (is_ext(path0))
            continue;
        for (k = 0; (m = methods[k]) != NULL; k++)
            if (json_object_is_type(item0, json_type_object) &&
                json_object_object_get_ex(item0, m, NULL))
                cap++;
        if (json_object_is_type(item0, json_type_object) &&
            json_object_object_get_ex(item0, "$ref", NULL))
            cap += 8;
    }
    l->spec->ops = calloc(cap ? cap : 1, sizeof *l->spec->ops);
    if (!l->spec->ops)
        return false;
    {
        json_object_object_foreach(paths, path, item) {
            const char *iptr = ptr_join(l, "/paths", path);
            char **vars;
            size_t nvars;
            int k;
            if (is_ext(path))
                continue;
            if (path[0] != '/') {
                lerr_key(l, paths, path, iptr, "path '%s' must start with '/'", path);
                return false;
            }
            if (!template_vars(l, paths, path, iptr, &vars, &nvars))
                return false;
            item = deref(l, item, &iptr);
            if (!item)
                return false;
            if (!json_object_is_type(item, json_type_object)) {
                lerr(l, item, iptr, "a Path Item must be an object");
                return false;
            }
            if (!check_fields(l, item, iptr, "a Path Item Object", item_fields))
                return false;
            for (k = 0; methods[k]; k++) {
                json_object *opv;
                if (!json_object_object_get_ex(item, methods[k], &opv))
                    continue;
                if (l->spec->nops >= cap) {
                    lerr(l, item, iptr, "too many operations");
                    return false;
                }
                if (!compile_op(l, path, item, iptr, methods[k], opv, root_bases,
                                vars, nvars, &l->spec->ops[l->spec->nops]))
                    return false;
                l->spec->nops++;
            }
        }
    }
    return true;
}

/* ---- the root -------------------------------------------------------- */

static bool check_root(struct ld *l)
{
    static const char *const root30[] = { "openapi", "info", "servers", "paths",
                                          "components", "security", "tags",
                                          "externalDocs", NULL };
    static const char *const root31[] = { "openapi", "info", "servers", "paths",
                                          "components", "security", "tags",
                                          "externalDocs", "webhooks",
                                          "jsonSchemaDialect", NULL };
    json_object *v, *x;
    const char *ver;

    if (!json_object_is_type(l->root, json_type_object)) {
        lerr(l, l->root, "", "the document must be a mapping (an OpenAPI object)");
        return false;
    }
    if (!json_object_object_get_ex(l->root, "openapi", &v)) {
        lerr(l, l->root, "", "no 'openapi' field (this library reads OpenAPI "
             "3.0.x and 3.1.x; Swagger 2.0 is not supported)");
        return false;
    }
    if (!json_object_is_type(v, json_type_string)) {
        lerr(l, v, "/openapi", "'openapi' must be a string such as \"3.0.3\" "
             "(quote it in YAML)");
        return false;
    }
    ver = json_object_get_string(v);
    if (!strncmp(ver, "3.0.", 4) && ver[4] >= '0' && ver[4] <= '9') {
        l->spec->dialect = KOA_OAS30;
    } else if (!strncmp(ver, "3.1.", 4) && ver[4] >= '0' && ver[4] <= '9') {
        l->spec->dialect = KOA_OAS31;
    } else {
        lerr(l, v, "/openapi", "unsupported OpenAPI version '%s' (3.0.x and "
             "3.1.x are supported)", ver);
        return false;
    }
    if (!check_fields(l, l->root, "", "the OpenAPI Object",
                      l->spec->dialect == KOA_OAS30 ? root30 : root31))
        return false;
    if (!json_object_object_get_ex(l->root, "info", &v) ||
        !json_object_is_type(v, json_type_object)) {
        lerr(l, l->root, "/info", "an 'info' object is required");
        return false;
    }
    if (!json_object_object_get_ex(v, "title", &x) ||
        !json_object_is_type(x, json_type_string)) {
        lerr(l, v, "/info/title", "'info.title' (a string) is required");
        return false;
    }
    if (!json_object_object_get_ex(v, "version", &x) ||
        !json_object_is_type(x, json_type_string)) {
        lerr(l, x ? x : v, "/info/version", "'info.version' must be a string "
             "(quote a version like 1.0 in YAML)");
        return false;
    }
    if (json_object_object_get_ex(l->root, "jsonSchemaDialect", &v)) {
        const char *dl = json_object_get_string(v);
        if (!json_object_is_type(v, json_type_string) ||
            (strcmp(dl, "https://spec.openapis.org/oas/3.1/dialect/base") &&
             strcmp(dl, "https://json-schema.org/draft/2020-12/schema"))) {
            lerr(l, v, "/jsonSchemaDialect", "unsupported jsonSchemaDialect '%s'",
                 dl ? dl : "?");
            return false;
        }
    }
    if (!json_object_object_get_ex(l->root, "paths", &v) &&
        l->spec->dialect == KOA_OAS30) {
        lerr(l, l->root, "/paths", "a 'paths' object is required in OpenAPI 3.0");
        return false;
    }
    return true;
}

static bool compile_components(struct ld *l)
{
    json_object *comps, *schemas;
    if (!json_object_object_get_ex(l->root, "components", &comps))
        return true;
    if (!json_object_is_type(comps, json_type_object)) {
        lerr(l, comps, "/components", "'components' must be an object");
        return false;
    }
    json_object_object_foreach(comps, k, v) {
        if (!is_ext(k) && !json_object_is_type(v, json_type_object)) {
            lerr(l, v, ptr_join(l, "/components", k), "'components.%s' must be an "
                 "object", k);
            return false;
        }
    }
    if (!json_object_object_get_ex(comps, "schemas", &schemas))
        return true;
    {
        json_object_object_foreach(schemas, name, s) {
            struct ku_buf b;
            bool ok;
            ku_buf_init(&b);
            ku_buf_adds(&b, "#/components/schemas");
            koa_ptr_append_token(&b, name, strlen(name));
            ok = koa_compile(&l->comp, s, ku_buf_str(&b)) != NULL;
            ku_buf_free(&b);
            if (!ok)
                return false;
        }
    }
    return true;
}

void kytos_openapi_spec_free(kytos_openapi_spec *spec)
{
    size_t i;
    if (!spec)
        return;
    for (i = 0; i < spec->nregexes; i++)
        koa_regex_free(spec->regexes[i]);
    free(spec->regexes);
    free(spec->ops);
    json_object_put(spec->doc);
    koa_posmap_free(&spec->pos);
    koa_arena_free(&spec->arena);
    kytos_openapi_diags_free(spec->yaml_warnings);
    free(spec->origin);
    free(spec);
}

kytos_openapi_spec *kytos_openapi_load(const char *text, size_t len,
                                       const char *origin,
                                       const struct kytos_openapi_options *opts,
                                       kytos_openapi_diags **diags)
{
    struct ld l;
    kytos_openapi_spec *spec;
    json_object *paths = NULL, *servers = NULL;
    struct bases root_bases;
    bool ok = false;

    if (diags)
        *diags = NULL;
    memset(&l, 0, sizeof l);
    l.d = koa_diags_new(origin);
    spec = calloc(1, sizeof *spec);
    if (!spec || !l.d) {
        free(spec);
        kytos_openapi_diags_free(l.d);
        return NULL;
    }
    l.spec = spec;
    koa_options_resolve(opts, &spec->opts);
    spec->origin = strdup(origin ? origin : "<spec>");
    spec->yaml_warnings = koa_diags_new(origin);
    if (!text) {
        koa_diag_add(l.d, KYTOS_OPENAPI_ERROR, 0, 0, "", "no spec text");
        goto out;
    }
    if (koa_yaml_load(text, len, &spec->opts, &spec->pos, l.d, spec->yaml_warnings,
                      &spec->doc) != 0)
        goto out;
    l.root = spec->doc;
    if (!check_root(&l))
        goto out;
    koa_compiler_init(&l.comp, &spec->arena, l.root, spec->dialect,
                      spec->opts.flags, l.d, &spec->pos);
    json_object_object_get_ex(l.root, "servers", &servers);
    if (parse_servers(&l, servers, "/servers", &root_bases) &&
        compile_components(&l) &&
        (!json_object_object_get_ex(l.root, "paths", &paths) ||
         compile_paths(&l, paths, &root_bases)) &&
        !l.comp.failed && koa_compiler_check_cycles(&l.comp))
        ok = l.d->nerrors == 0;
    koa_compiler_done(&l.comp, &spec->regexes, &spec->nregexes);
    /* operationIds are unique */
    if (ok) {
        size_t i, j;
        for (i = 0; i < spec->nops && ok; i++)
            for (j = i + 1; j < spec->nops && ok; j++)
                if (spec->ops[i].operation_id && spec->ops[j].operation_id &&
                    !strcmp(spec->ops[i].operation_id, spec->ops[j].operation_id)) {
                    lerr(&l, spec->ops[j].src, spec->ops[j].pointer,
                         "operationId '%s' is also used by %s %s",
                         spec->ops[j].operation_id, spec->ops[i].method,
                         spec->ops[i].spec_path);
                    ok = false;
                }
    }
out:
    if (ok) {
        spec->vlim.max_errors = spec->opts.max_errors;
        spec->vlim.max_eval_depth = spec->opts.max_eval_depth;
        spec->vlim.regex_match_limit = spec->opts.regex_match_limit;
        spec->vlim.regex_depth_limit = spec->opts.regex_depth_limit;
        spec->vlim.dialect31 = spec->dialect == KOA_OAS31;
        spec->vlim.formats = spec->opts.formats == KYTOS_OPENAPI_FORMATS_ASSERT ||
                             (spec->opts.formats == KYTOS_OPENAPI_FORMATS_DEFAULT &&
                              spec->dialect == KOA_OAS30);
        spec->vlim.write = true;
    } else if (l.d->nerrors == 0) {
        koa_diag_add(l.d, KYTOS_OPENAPI_ERROR, 0, 0, "", "out of memory");
    }
    if (diags)
        *diags = l.d;
    else
        kytos_openapi_diags_free(l.d);
    if (!ok) {
        kytos_openapi_spec_free(spec);
        return NULL;
    }
    return spec;
}

kytos_openapi_spec *kytos_openapi_load_file(const char *path,
                                            const struct kytos_openapi_options *opts,
                                            kytos_openapi_diags **diags)
{
    struct kytos_openapi_options o;
    FILE *f;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    kytos_openapi_spec *spec;

    if (diags)
        *diags = NULL;
    koa_options_resolve(opts, &o);
    f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        if (diags) {
            *diags = koa_diags_new(path);
            koa_diag_add(*diags, KYTOS_OPENAPI_ERROR, 0, 0, "", "cannot open: %s",
                         strerror(errno));
        }
        return NULL;
    }
    for (;;) {
        size_t n;
        if (len == cap) {
            char *nb;
            if (cap > o.max_spec_bytes)
                break;
            cap = cap ? cap * 2 : 65536;
            nb = realloc(buf, cap + 1);
            if (!nb)
                break;
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    fclose(f);
    if (!buf) {
        if (diags) {
            *diags = koa_diags_new(path);
            koa_diag_add(*diags, KYTOS_OPENAPI_ERROR, 0, 0, "", "cannot read the file");
        }
        return NULL;
    }
    spec = kytos_openapi_load(buf, len, path, opts, diags);
    free(buf);
    return spec;
}

const char *kytos_openapi_spec_version(const kytos_openapi_spec *spec)
{
    if (!spec)
        return NULL;
    return spec->dialect == KOA_OAS31 ? "3.1" : "3.0";
}
