/* openapi/schema_compile.c - Schema Object -> node tree.
 *
 * Each schema is compiled once into a node that holds pre-digested
 * keyword data (type mask, numbers kept exact, compiled regexes, property
 * tables sorted for lookup) and the list of its keywords in document
 * order, so the validator reports errors in the order the schema lists
 * them, as jsonschema does.  Nodes are memoised by the schema object they
 * come from, so shared and recursive schemas compile once and a recursive
 * schema becomes a cyclic graph.
 *
 * OAS 3.0: the Schema Object is closed (an unknown keyword is a load
 * error, as openapi-spec-validator makes it for Kytos); $ref replaces the
 * whole object (siblings ignored, as the OAS text says); type is one name;
 * exclusiveMinimum/Maximum are booleans; nullable adds null.
 * OAS 3.1: JSON Schema 2020-12 keywords; $ref applies beside its siblings;
 * unknown keywords are annotations; the dynamic-scope keywords ($id,
 * $anchor, $dynamicRef, unevaluated*) are refused with a clear message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "util/text.h"

#define KOA_COMPILE_MAX_DEPTH 400

void koa_compiler_init(struct koa_compiler *c, struct koa_arena *a,
                       json_object *root, enum koa_dialect d, unsigned flags,
                       kytos_openapi_diags *diags, const struct koa_posmap *pos)
{
    memset(c, 0, sizeof *c);
    c->arena = a;
    c->root = root;
    c->dialect = d;
    c->flags = flags;
    c->diags = diags;
    c->pos = pos;
}

void koa_compiler_error(struct koa_compiler *c, const void *at,
                        const char *pointer, const char *fmt, ...)
{
    va_list ap;
    uint32_t line = 0, col = 0;

    c->failed = true;
    if (c->pos && at)
        koa_posmap_get(c->pos, at, &line, &col);
    if (pointer && pointer[0] == '#')
        pointer++;
    va_start(ap, fmt);
    koa_diag_vadd(c->diags, KYTOS_OPENAPI_ERROR, line, col, pointer, fmt, ap);
    va_end(ap);
}

/* ---- memo: json_object* -> node, open addressing ------------------ */

static size_t hslot(const void *p, size_t mask)
{
    uintptr_t h = (uintptr_t)p;
    h ^= h >> 16;
    h *= (uintptr_t)0x45d9f3b5bf2a1c69ull;
    h ^= h >> 31;
    return (size_t)h & mask;
}

static struct koa_node *memo_get(struct koa_compiler *c, json_object *key)
{
    size_t j;
    if (!c->capmemo)
        return NULL;
    j = hslot(key, c->capmemo - 1);
    while (c->memo[j].key) {
        if (c->memo[j].key == key)
            return c->memo[j].node;
        j = (j + 1) & (c->capmemo - 1);
    }
    return NULL;
}

static bool memo_put(struct koa_compiler *c, json_object *key,
                     struct koa_node *node)
{
    size_t j;
    if ((c->nmemo + 1) * 2 > c->capmemo) {
        size_t ncap = c->capmemo ? c->capmemo * 2 : 64, i;
        void *nv = calloc(ncap, sizeof *c->memo);
        if (!nv)
            return false;
        for (i = 0; i < c->capmemo; i++) {
            if (c->memo[i].key) {
                struct { json_object *key; struct koa_node *node; } *t = nv;
                size_t k = hslot(c->memo[i].key, ncap - 1);
                while (t[k].key)
                    k = (k + 1) & (ncap - 1);
                t[k].key = c->memo[i].key;
                t[k].node = c->memo[i].node;
            }
        }
        free(c->memo);
        c->memo = nv;
        c->capmemo = ncap;
    }
    j = hslot(key, c->capmemo - 1);
    while (c->memo[j].key && c->memo[j].key != key)
        j = (j + 1) & (c->capmemo - 1);
    if (!c->memo[j].key)
        c->nmemo++;
    c->memo[j].key = key;
    c->memo[j].node = node;
    return true;
}

static bool push_ptr(void ***v, size_t *n, size_t *cap, void *p)
{
    if (KU_RESERVE(*v, *cap, *n + 1) < 0)
        return false;
    (*v)[(*n)++] = p;
    return true;
}

void koa_compiler_done(struct koa_compiler *c, struct koa_regex ***regexes,
                       size_t *nregexes)
{
    free(c->memo);
    free(c->nodes);
    c->memo = NULL;
    c->nodes = NULL;
    if (regexes) {
        *regexes = c->regexes;
        *nregexes = c->nregexes;
    } else {
        size_t i;
        for (i = 0; i < c->nregexes; i++)
            koa_regex_free(c->regexes[i]);
        free(c->regexes);
    }
    c->regexes = NULL;
}

/* ---- helpers ------------------------------------------------------ */

static char *child_ptr(struct koa_compiler *c, const char *base,
                       const char *kw, const char *name, long idx)
{
    struct ku_buf b;
    char *out;

    ku_buf_init(&b);
    ku_buf_adds(&b, base);
    koa_ptr_append_token(&b, kw, strlen(kw));
    if (name)
        koa_ptr_append_token(&b, name, strlen(name));
    else if (idx >= 0)
        koa_ptr_append_index(&b, (size_t)idx);
    out = b.oom ? NULL : koa_arena_strdup(c->arena, ku_buf_str(&b));
    ku_buf_free(&b);
    return out;
}

static bool add_kw(struct koa_compiler *c, struct koa_node *n, uint8_t kw,
                   uint8_t *kws)
{
    (void)c;
    kws[n->nkws++] = kw;
    return true;
}

/* non-negative integer (an integral double is accepted, 2020-12 allows
 * 2.0) */
static bool get_count(json_object *v, int64_t *out)
{
    struct koa_num n;
    if (!koa_num_get(v, &n))
        return false;
    if (n.k == KOA_I64) {
        if (n.v.i < 0)
            return false;
        *out = n.v.i;
        return true;
    }
    if (n.k == KOA_U64) {
        *out = INT64_MAX;
        return true;
    }
    if (n.v.d < 0 || n.v.d != (double)(int64_t)n.v.d)
        return false;
    *out = (int64_t)n.v.d;
    return true;
}

/* Properties sort by length, then bytes: a lookup compares lengths (an
 * integer) before it compares any bytes. */
static int cmp_props(const void *a, const void *b, void *arg)
{
    const struct koa_prop *p = arg;
    const struct koa_prop *x = &p[*(const uint32_t *)a];
    const struct koa_prop *y = &p[*(const uint32_t *)b];
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->name, y->name, x->len);
}

static int cmp_disc(const void *a, const void *b)
{
    return strcmp(((const struct koa_disc_map *)a)->value,
                  ((const struct koa_disc_map *)b)->value);
}

/* OAS 3.0 Schema Object keywords (everything else but x-* is refused). */
static const char *const oas30_keywords[] = {
    "title", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems",
    "minItems", "uniqueItems", "maxProperties", "minProperties", "required",
    "enum", "type", "allOf", "oneOf", "anyOf", "not", "items", "properties",
    "additionalProperties", "description", "format", "default", "nullable",
    "discriminator", "readOnly", "writeOnly", "xml", "externalDocs",
    "example", "deprecated", "$ref", NULL
};

static bool in_list(const char *const *l, const char *k)
{
    for (; *l; l++)
        if (strcmp(*l, k) == 0)
            return true;
    return false;
}

static const char *const type_names[] = { "null", "boolean", "integer",
                                          "number", "string", "array",
                                          "object" };

static unsigned type_bit(const char *name, enum koa_dialect d)
{
    unsigned i;
    for (i = 0; i < 7; i++)
        if (strcmp(type_names[i], name) == 0)
            return i == 0 && d == KOA_OAS30 ? 0 : 1u << i;
    return 0;
}

static struct koa_node *compile_at(struct koa_compiler *c, json_object *schema,
                                   const char *pointer);

static struct koa_node *compile_child(struct koa_compiler *c, json_object *v,
                                      const char *base, const char *kw,
                                      const char *name, long idx)
{
    char *p = child_ptr(c, base, kw, name, idx);
    if (!p) {
        koa_compiler_error(c, v, base, "out of memory");
        return NULL;
    }
    return compile_at(c, v, p);
}

static struct koa_node **compile_list(struct koa_compiler *c, json_object *v,
                                      const char *base, const char *kw,
                                      size_t *n, bool nonempty)
{
    struct koa_node **list;
    size_t i, len;

    if (!json_object_is_type(v, json_type_array) ||
        (nonempty && json_object_array_length(v) == 0)) {
        koa_compiler_error(c, v, base, "'%s' must be a%s array of schemas", kw,
                           nonempty ? " non-empty" : "n");
        return NULL;
    }
    len = json_object_array_length(v);
    list = koa_arena_alloc(c->arena, (len ? len : 1) * sizeof *list);
    if (!list)
        return NULL;
    for (i = 0; i < len; i++) {
        list[i] = compile_child(c, json_object_array_get_idx(v, i), base, kw,
                                NULL, (long)i);
        if (!list[i])
            return NULL;
    }
    *n = len;
    return list;
}

static struct koa_node *false_node(struct koa_compiler *c, json_object *src,
                                   const char *ptr)
{
    struct koa_node *n = koa_arena_alloc(c->arena, sizeof *n);
    if (!n)
        return NULL;
    n->kws = koa_arena_alloc(c->arena, 1);
    if (!n->kws)
        return NULL;
    n->kws[0] = KW_FALSE;
    n->nkws = 1;
    n->ptr = ptr;
    n->src = src;
    n->max_length = n->min_length = n->max_items = n->min_items = -1;
    n->max_props = n->min_props = n->max_contains = n->min_contains = -1;
    return n;
}

static void init_node(struct koa_node *n, json_object *src, const char *ptr)
{
    n->ptr = ptr;
    n->src = src;
    n->max_length = n->min_length = n->max_items = n->min_items = -1;
    n->max_props = n->min_props = n->max_contains = n->min_contains = -1;
}

static bool compile_discriminator(struct koa_compiler *c, struct koa_node *n,
                                  json_object *v, const char *ptr)
{
    json_object *pn, *mapping = NULL, *comps = NULL, *schemas = NULL;
    struct koa_disc *d;
    size_t cap;

    if (!json_object_is_type(v, json_type_object) ||
        !json_object_object_get_ex(v, "propertyName", &pn) ||
        !json_object_is_type(pn, json_type_string)) {
        koa_compiler_error(c, v, ptr, "'discriminator' needs a string "
                           "'propertyName'");
        return false;
    }
    if (json_object_object_get_ex(v, "mapping", &mapping) &&
        !json_object_is_type(mapping, json_type_object)) {
        koa_compiler_error(c, mapping, ptr, "'discriminator.mapping' must be an "
                           "object of strings");
        return false;
    }
    if (json_object_object_get_ex(c->root, "components", &comps))
        json_object_object_get_ex(comps, "schemas", &schemas);
    if (!json_object_is_type(schemas, json_type_object))
        schemas = NULL;
    d = koa_arena_alloc(c->arena, sizeof *d);
    if (!d)
        return false;
    d->property = koa_arena_strdup(c->arena, json_object_get_string(pn));
    cap = (mapping ? (size_t)json_object_object_length(mapping) : 0) +
          (schemas ? (size_t)json_object_object_length(schemas) : 0) + 1;
    d->map = koa_arena_alloc(c->arena, cap * sizeof *d->map);
    if (!d->property || !d->map)
        return false;
    /* explicit mapping first; implicit #/components/schemas/<value> for
     * every other component name */
    if (mapping) {
        json_object_object_foreach(mapping, k, mv) {
            const char *ref;
            char *full;
            json_object *target;
            if (!json_object_is_type(mv, json_type_string)) {
                koa_compiler_error(c, mv, ptr, "discriminator mapping '%s' must "
                                   "be a string", k);
                return false;
            }
            ref = json_object_get_string(mv);
            /* a bare name means a component schema (OAS 3.0 text) */
            if (ref[0] != '#' && !strchr(ref, '/')) {
                size_t need = strlen(ref) + 24;
                full = koa_arena_alloc(c->arena, need);
                if (!full)
                    return false;
                snprintf(full, need, "#/components/schemas/%s", ref);
            } else {
                full = koa_arena_strdup(c->arena, ref);
            }
            d->map[d->nmap].value = koa_arena_strdup(c->arena, k);
            d->map[d->nmap].ref = full;
            if (full && koa_ptr_resolve(c->root, full, &target) == 0 && target) {
                d->map[d->nmap].node = compile_at(c, target, full);
                if (!d->map[d->nmap].node)
                    return false;
            }
            d->nmap++;
        }
    }
    if (schemas) {
        json_object_object_foreach(schemas, k, sv) {
            size_t j, need;
            bool dup = false;
            char *full;
            for (j = 0; j < d->nmap; j++)
                if (strcmp(d->map[j].value, k) == 0)
                    dup = true;
            if (dup)
                continue;
            need = strlen(k) * 3 + 24;
            full = koa_arena_alloc(c->arena, need);
            if (!full)
                return false;
            {
                struct ku_buf b;
                ku_buf_init(&b);
                ku_buf_adds(&b, "#/components/schemas");
                koa_ptr_append_token(&b, k, strlen(k));
                snprintf(full, need, "%s", ku_buf_str(&b));
                ku_buf_free(&b);
            }
            d->map[d->nmap].value = koa_arena_strdup(c->arena, k);
            d->map[d->nmap].ref = full;
            d->map[d->nmap].implicit = true;
            d->map[d->nmap].node = compile_at(c, sv, full);
            if (!d->map[d->nmap].node)
                return false;
            d->nmap++;
        }
    }
    qsort(d->map, d->nmap, sizeof *d->map, cmp_disc);
    n->disc = d;
    return true;
}

/* The body of compile for an object schema; node is already memoised. */
static bool compile_object(struct koa_compiler *c, struct koa_node *n,
                           json_object *s, const char *ptr)
{
    bool d31 = c->dialect == KOA_OAS31;
    size_t nkeys = (size_t)json_object_object_length(s);
    uint8_t *kws = koa_arena_alloc(c->arena, nkeys + 2);
    json_object *v;

    if (!kws)
        return false;
    n->kws = kws;

    /* 3.1: a $ref applies beside its siblings; compile it first so a
     * recursive reference meets this node already memoised. */
    json_object_object_foreach(s, key, val) {
        if (c->failed)
            return false;
        v = val;
        if (strncmp(key, "x-", 2) == 0)
            continue;
        if (!d31 && !in_list(oas30_keywords, key)) {
            if ((c->flags & KYTOS_OPENAPI_F_LENIENT) &&
                (strcmp(key, "definitions") == 0 || strcmp(key, "$schema") == 0 ||
                 strcmp(key, "$comment") == 0))
                continue;
            koa_compiler_error(c, key, ptr, "'%s' is not an OpenAPI 3.0 schema "
                               "keyword%s", key,
                               (!strcmp(key, "patternProperties") ||
                                !strcmp(key, "const") || !strcmp(key, "$defs"))
                                   ? " (it needs openapi: 3.1.x)" : "");
            return false;
        }
        if (!strcmp(key, "type")) {
            if (json_object_is_type(v, json_type_string)) {
                unsigned bit = type_bit(json_object_get_string(v), c->dialect);
                if (!bit) {
                    koa_compiler_error(c, v, ptr, "unknown type '%s'%s",
                                       json_object_get_string(v),
                                       !d31 && !strcmp(json_object_get_string(v), "null")
                                           ? " (OpenAPI 3.0 has no null type; use "
                                             "nullable: true)" : "");
                    return false;
                }
                n->types = bit;
                n->type_names = koa_arena_alloc(c->arena, sizeof *n->type_names);
                if (!n->type_names)
                    return false;
                n->type_names[0] = type_names[__builtin_ctz(bit)];
                n->ntype_names = 1;
            } else if (d31 && json_object_is_type(v, json_type_array) &&
                       json_object_array_length(v) > 0) {
                size_t i, len = json_object_array_length(v);
                n->type_names = koa_arena_alloc(c->arena, len * sizeof *n->type_names);
                if (!n->type_names)
                    return false;
                for (i = 0; i < len; i++) {
                    json_object *t = json_object_array_get_idx(v, i);
                    unsigned bit = json_object_is_type(t, json_type_string)
                                       ? type_bit(json_object_get_string(t), c->dialect) : 0;
                    if (!bit || (n->types & bit)) {
                        koa_compiler_error(c, v, ptr, "'type' must list distinct "
                                           "type names");
                        return false;
                    }
                    n->types |= bit;
                    n->type_names[n->ntype_names++] = type_names[__builtin_ctz(bit)];
                }
            } else {
                koa_compiler_error(c, v, ptr, d31 ? "'type' must be a type name "
                                   "or a non-empty array of them"
                                   : "'type' must be one type name");
                return false;
            }
            add_kw(c, n, KW_TYPE, kws);
        } else if (!strcmp(key, "nullable")) {
            if (!json_object_is_type(v, json_type_boolean)) {
                koa_compiler_error(c, v, ptr, "'nullable' must be a boolean");
                return false;
            }
            if (!d31)
                n->nullable = json_object_get_boolean(v);
        } else if (!strcmp(key, "enum")) {
            if (!json_object_is_type(v, json_type_array) ||
                (!d31 && json_object_array_length(v) == 0)) {
                koa_compiler_error(c, v, ptr, "'enum' must be a non-empty array");
                return false;
            }
            n->enum_values = v;
            add_kw(c, n, KW_ENUM, kws);
        } else if (!strcmp(key, "const")) {
            n->const_value = v;
            n->has_const = true;
            add_kw(c, n, KW_CONST, kws);
        } else if (!strcmp(key, "multipleOf")) {
            if (!koa_num_get(v, &n->multiple_of) ||
                koa_num_to_double(&n->multiple_of) <= 0) {
                koa_compiler_error(c, v, ptr, "'multipleOf' must be a number "
                                   "greater than 0");
                return false;
            }
            add_kw(c, n, KW_MULTIPLE_OF, kws);
        } else if (!strcmp(key, "maximum") || !strcmp(key, "minimum")) {
            bool mx = key[1] == 'a';
            if (!koa_num_get(v, mx ? &n->maximum : &n->minimum)) {
                koa_compiler_error(c, v, ptr, "'%s' must be a number", key);
                return false;
            }
            add_kw(c, n, mx ? KW_MAXIMUM : KW_MINIMUM, kws);
        } else if (!strcmp(key, "exclusiveMaximum") ||
                   !strcmp(key, "exclusiveMinimum")) {
            bool mx = key[10] == 'a';
            if (!d31) {
                if (!json_object_is_type(v, json_type_boolean)) {
                    koa_compiler_error(c, v, ptr, "'%s' must be a boolean in "
                                       "OpenAPI 3.0", key);
                    return false;
                }
                if (mx)
                    n->max_exclusive_bool = json_object_get_boolean(v);
                else
                    n->min_exclusive_bool = json_object_get_boolean(v);
            } else {
                if (!koa_num_get(v, mx ? &n->excl_maximum : &n->excl_minimum)) {
                    koa_compiler_error(c, v, ptr, "'%s' must be a number in "
                                       "OpenAPI 3.1", key);
                    return false;
                }
                add_kw(c, n, mx ? KW_EXCL_MAXIMUM : KW_EXCL_MINIMUM, kws);
            }
        } else if (!strcmp(key, "maxLength") || !strcmp(key, "minLength") ||
                   !strcmp(key, "maxItems") || !strcmp(key, "minItems") ||
                   !strcmp(key, "maxProperties") || !strcmp(key, "minProperties") ||
                   (d31 && (!strcmp(key, "maxContains") ||
                            !strcmp(key, "minContains")))) {
            int64_t cnt;
            if (!get_count(v, &cnt)) {
                koa_compiler_error(c, v, ptr, "'%s' must be a non-negative "
                                   "integer", key);
                return false;
            }
            if (!strcmp(key, "maxLength")) {
                n->max_length = cnt;
                add_kw(c, n, KW_MAX_LENGTH, kws);
            } else if (!strcmp(key, "minLength")) {
                n->min_length = cnt;
                add_kw(c, n, KW_MIN_LENGTH, kws);
            } else if (!strcmp(key, "maxItems")) {
                n->max_items = cnt;
                add_kw(c, n, KW_MAX_ITEMS, kws);
            } else if (!strcmp(key, "minItems")) {
                n->min_items = cnt;
                add_kw(c, n, KW_MIN_ITEMS, kws);
            } else if (!strcmp(key, "maxProperties")) {
                n->max_props = cnt;
                add_kw(c, n, KW_MAX_PROPERTIES, kws);
            } else if (!strcmp(key, "minProperties")) {
                n->min_props = cnt;
                add_kw(c, n, KW_MIN_PROPERTIES, kws);
            } else if (!strcmp(key, "maxContains")) {
                n->max_contains = cnt;
            } else {
                n->min_contains = cnt;
            }
        } else if (!strcmp(key, "pattern")) {
            char err[200];
            if (!json_object_is_type(v, json_type_string)) {
                koa_compiler_error(c, v, ptr, "'pattern' must be a string");
                return false;
            }
            n->pattern = koa_regex_compile(json_object_get_string(v),
                                           (size_t)json_object_get_string_len(v),
                                           err, sizeof err);
            if (!n->pattern) {
                koa_compiler_error(c, v, ptr, "invalid pattern '%s': %s",
                                   json_object_get_string(v), err);
                return false;
            }
            push_ptr((void ***)&c->regexes, &c->nregexes, &c->capregexes, n->pattern);
            add_kw(c, n, KW_PATTERN, kws);
        } else if (!strcmp(key, "format")) {
            if (!json_object_is_type(v, json_type_string)) {
                koa_compiler_error(c, v, ptr, "'format' must be a string");
                return false;
            }
            n->format_name = koa_arena_strdup(c->arena, json_object_get_string(v));
            n->format = koa_format_lookup(n->format_name);
            if (n->format != KOA_FMT_UNKNOWN)
                add_kw(c, n, KW_FORMAT, kws);
        } else if (!strcmp(key, "items")) {
            if (!d31 && !json_object_is_type(v, json_type_object)) {
                koa_compiler_error(c, v, ptr, "'items' must be a schema object "
                                   "in OpenAPI 3.0 (no tuple form)");
                return false;
            }
            n->items = compile_child(c, v, ptr, "items", NULL, -1);
            if (!n->items)
                return false;
            add_kw(c, n, KW_ITEMS, kws);
        } else if (d31 && !strcmp(key, "prefixItems")) {
            n->prefix = compile_list(c, v, ptr, "prefixItems", &n->nprefix, true);
            if (!n->prefix)
                return false;
            add_kw(c, n, KW_PREFIX_ITEMS, kws);
        } else if (d31 && !strcmp(key, "contains")) {
            n->contains = compile_child(c, v, ptr, "contains", NULL, -1);
            if (!n->contains)
                return false;
            add_kw(c, n, KW_CONTAINS, kws);
        } else if (!strcmp(key, "uniqueItems")) {
            if (!json_object_is_type(v, json_type_boolean)) {
                koa_compiler_error(c, v, ptr, "'uniqueItems' must be a boolean");
                return false;
            }
            if (json_object_get_boolean(v))
                add_kw(c, n, KW_UNIQUE_ITEMS, kws);
        } else if (!strcmp(key, "properties") ||
                   (d31 && !strcmp(key, "dependentSchemas"))) {
            bool props = key[0] == 'p';
            size_t i = 0, cnt;
            struct koa_prop *pv;
            if (!json_object_is_type(v, json_type_object)) {
                koa_compiler_error(c, v, ptr, "'%s' must be an object of schemas",
                                   key);
                return false;
            }
            cnt = (size_t)json_object_object_length(v);
            pv = koa_arena_alloc(c->arena, (cnt ? cnt : 1) * sizeof *pv);
            if (!pv)
                return false;
            {
                json_object_object_foreach(v, pname, pval) {
                    pv[i].name = koa_arena_strdup(c->arena, pname);
                    pv[i].len = strlen(pname);
                    pv[i].node = compile_child(c, pval, ptr, key, pname, -1);
                    if (!pv[i].node || !pv[i].name)
                        return false;
                    i++;
                }
            }
            if (props) {
                n->props = pv;
                n->nprops = cnt;
                n->props_sorted = koa_arena_alloc(c->arena,
                                                  (cnt ? cnt : 1) * sizeof(uint32_t));
                if (!n->props_sorted)
                    return false;
                for (i = 0; i < cnt; i++)
                    n->props_sorted[i] = (uint32_t)i;
                qsort_r(n->props_sorted, cnt, sizeof(uint32_t), cmp_props, pv);
                add_kw(c, n, KW_PROPERTIES, kws);
            } else {
                n->dep_schemas = pv;
                n->ndep_schemas = cnt;
                add_kw(c, n, KW_DEPENDENT_SCHEMAS, kws);
            }
        } else if (d31 && !strcmp(key, "patternProperties")) {
            size_t i = 0, cnt;
            if (!json_object_is_type(v, json_type_object)) {
                koa_compiler_error(c, v, ptr, "'patternProperties' must be an "
                                   "object of schemas");
                return false;
            }
            cnt = (size_t)json_object_object_length(v);
            n->pprops = koa_arena_alloc(c->arena, (cnt ? cnt : 1) * sizeof *n->pprops);
            if (!n->pprops)
                return false;
            {
                json_object_object_foreach(v, pat, pval) {
                    char err[200];
                    n->pprops[i].re = koa_regex_compile(pat, strlen(pat), err,
                                                        sizeof err);
                    if (!n->pprops[i].re) {
                        koa_compiler_error(c, pval, ptr, "invalid pattern '%s' in "
                                           "patternProperties: %s", pat, err);
                        return false;
                    }
                    push_ptr((void ***)&c->regexes, &c->nregexes, &c->capregexes,
                             n->pprops[i].re);
                    n->pprops[i].node = compile_child(c, pval, ptr,
                                                      "patternProperties", pat, -1);
                    if (!n->pprops[i].node)
                        return false;
                    i++;
                }
            }
            n->npprops = cnt;
            add_kw(c, n, KW_PATTERN_PROPERTIES, kws);
        } else if (!strcmp(key, "additionalProperties")) {
            if (json_object_is_type(v, json_type_boolean)) {
                if (!json_object_get_boolean(v)) {
                    n->additional = false_node(c, v, child_ptr(c, ptr,
                                               "additionalProperties", NULL, -1));
                    if (!n->additional)
                        return false;
                }
            } else if (json_object_is_type(v, json_type_object)) {
                n->additional = compile_child(c, v, ptr, "additionalProperties",
                                              NULL, -1);
                if (!n->additional)
                    return false;
            } else {
                koa_compiler_error(c, v, ptr, "'additionalProperties' must be a "
                                   "boolean or a schema");
                return false;
            }
            if (n->additional)
                add_kw(c, n, KW_ADDITIONAL_PROPERTIES, kws);
        } else if (!strcmp(key, "required")) {
            size_t i, len;
            if (!json_object_is_type(v, json_type_array)) {
                koa_compiler_error(c, v, ptr, "'required' must be an array of "
                                   "strings");
                return false;
            }
            len = json_object_array_length(v);
            n->required = koa_arena_alloc(c->arena, (len ? len : 1) * sizeof(char *));
            if (!n->required)
                return false;
            for (i = 0; i < len; i++) {
                json_object *r = json_object_array_get_idx(v, i);
                if (!json_object_is_type(r, json_type_string)) {
                    koa_compiler_error(c, v, ptr, "'required' must be an array "
                                       "of strings");
                    return false;
                }
                n->required[i] = koa_arena_strdup(c->arena, json_object_get_string(r));
            }
            n->nrequired = len;
            if (len)
                add_kw(c, n, KW_REQUIRED, kws);
        } else if (d31 && !strcmp(key, "propertyNames")) {
            n->property_names = compile_child(c, v, ptr, "propertyNames", NULL, -1);
            if (!n->property_names)
                return false;
            add_kw(c, n, KW_PROPERTY_NAMES, kws);
        } else if (d31 && !strcmp(key, "dependentRequired")) {
            size_t i = 0;
            if (!json_object_is_type(v, json_type_object)) {
                koa_compiler_error(c, v, ptr, "'dependentRequired' must be an "
                                   "object of string arrays");
                return false;
            }
            n->dep_req = koa_arena_alloc(c->arena,
                                         ((size_t)json_object_object_length(v) + 1) *
                                             sizeof *n->dep_req);
            if (!n->dep_req)
                return false;
            {
                json_object_object_foreach(v, dname, dval) {
                    size_t j, len;
                    if (!json_object_is_type(dval, json_type_array)) {
                        koa_compiler_error(c, dval, ptr, "'dependentRequired' "
                                           "values must be arrays of strings");
                        return false;
                    }
                    len = json_object_array_length(dval);
                    n->dep_req[i].name = koa_arena_strdup(c->arena, dname);
                    n->dep_req[i].req = koa_arena_alloc(c->arena,
                                                        (len ? len : 1) * sizeof(char *));
                    if (!n->dep_req[i].req)
                        return false;
                    for (j = 0; j < len; j++) {
                        json_object *r = json_object_array_get_idx(dval, j);
                        if (!json_object_is_type(r, json_type_string)) {
                            koa_compiler_error(c, dval, ptr, "'dependentRequired' "
                                               "values must be arrays of strings");
                            return false;
                        }
                        n->dep_req[i].req[j] =
                            koa_arena_strdup(c->arena, json_object_get_string(r));
                    }
                    n->dep_req[i].nreq = len;
                    i++;
                }
            }
            n->ndep_req = i;
            add_kw(c, n, KW_DEPENDENT_REQUIRED, kws);
        } else if (!strcmp(key, "allOf") || !strcmp(key, "anyOf") ||
                   !strcmp(key, "oneOf")) {
            size_t cnt = 0;
            struct koa_node **l = compile_list(c, v, ptr, key, &cnt, true);
            if (!l)
                return false;
            if (key[0] == 'a' && key[1] == 'l') {
                n->all_of = l;
                n->nall_of = cnt;
                add_kw(c, n, KW_ALL_OF, kws);
            } else if (key[0] == 'a') {
                n->any_of = l;
                n->nany_of = cnt;
                add_kw(c, n, KW_ANY_OF, kws);
            } else {
                n->one_of = l;
                n->none_of = cnt;
                add_kw(c, n, KW_ONE_OF, kws);
            }
        } else if (!strcmp(key, "not")) {
            n->not_ = compile_child(c, v, ptr, "not", NULL, -1);
            if (!n->not_)
                return false;
            add_kw(c, n, KW_NOT, kws);
        } else if (d31 && !strcmp(key, "if")) {
            n->if_ = compile_child(c, v, ptr, "if", NULL, -1);
            if (!n->if_)
                return false;
            add_kw(c, n, KW_IF, kws);
        } else if (d31 && (!strcmp(key, "then") || !strcmp(key, "else"))) {
            struct koa_node *t = compile_child(c, v, ptr, key, NULL, -1);
            if (!t)
                return false;
            if (key[0] == 't')
                n->then_ = t;
            else
                n->else_ = t;
        } else if (!strcmp(key, "readOnly") || !strcmp(key, "writeOnly")) {
            if (!json_object_is_type(v, json_type_boolean)) {
                koa_compiler_error(c, v, ptr, "'%s' must be a boolean", key);
                return false;
            }
            if (key[0] == 'r') {
                n->read_only = json_object_get_boolean(v);
                if (n->read_only)
                    add_kw(c, n, KW_READ_ONLY, kws);
            } else {
                n->write_only = json_object_get_boolean(v);
            }
        } else if (!strcmp(key, "discriminator")) {
            if (!compile_discriminator(c, n, v, ptr))
                return false;
        } else if (!strcmp(key, "$ref")) {
            /* 3.1 only (3.0 refs never reach here) */
            json_object *target;
            const char *ref;
            if (!json_object_is_type(v, json_type_string)) {
                koa_compiler_error(c, v, ptr, "'$ref' must be a string");
                return false;
            }
            ref = json_object_get_string(v);
            if (ref[0] != '#') {
                koa_compiler_error(c, v, ptr, "only local references (\"#/...\") "
                                   "are supported, not '%s'", ref);
                return false;
            }
            if (koa_ptr_resolve(c->root, ref, &target) != 0) {
                koa_compiler_error(c, v, ptr, "$ref '%s' does not resolve", ref);
                return false;
            }
            n->ref = compile_at(c, target, koa_arena_strdup(c->arena, ref));
            if (!n->ref)
                return false;
            add_kw(c, n, KW_REF, kws);
        } else if (d31 && (!strcmp(key, "$id") || !strcmp(key, "$anchor") ||
                           !strcmp(key, "$dynamicRef") ||
                           !strcmp(key, "$dynamicAnchor") ||
                           !strcmp(key, "$recursiveRef") ||
                           !strcmp(key, "$recursiveAnchor") ||
                           !strcmp(key, "unevaluatedProperties") ||
                           !strcmp(key, "unevaluatedItems") ||
                           !strcmp(key, "$vocabulary"))) {
            koa_compiler_error(c, v, ptr, "'%s' is not supported (dynamic scope "
                               "and URI-based references are out of scope)", key);
            return false;
        } else if (d31 && !strcmp(key, "$schema")) {
            const char *sch = json_object_get_string(v);
            if (!json_object_is_type(v, json_type_string) ||
                (strcmp(sch, "https://json-schema.org/draft/2020-12/schema") &&
                 strcmp(sch, "https://spec.openapis.org/oas/3.1/dialect/base"))) {
                koa_compiler_error(c, v, ptr, "unsupported $schema '%s' (only the "
                                   "2020-12 and OAS 3.1 dialects)",
                                   sch ? sch : "?");
                return false;
            }
        }
        /* everything else: annotations (title, description, default,
         * example(s), deprecated, xml, externalDocs, $comment, $defs, ...) */
    }
    return !c->failed;
}

/* Keywords that do not change what validates (3.1 annotations). */
static const char *const annotations31[] = {
    "$ref", "title", "description", "summary", "$comment", "examples", "example",
    "deprecated", "default", "xml", "externalDocs", NULL
};

/* A schema that is only a reference: in 3.0 any object with $ref (its
 * siblings are ignored); in 3.1 one whose siblings are annotations.  It
 * then stands for its target: one node less on every validation. */
static bool ref_only(const struct koa_compiler *c, json_object *s)
{
    if (!json_object_is_type(s, json_type_object) ||
        !json_object_object_get_ex(s, "$ref", NULL))
        return false;
    if (c->dialect == KOA_OAS30)
        return true;
    json_object_object_foreach(s, k, v) {
        (void)v;
        if (strncmp(k, "x-", 2) && !in_list(annotations31, k))
            return false;
    }
    return true;
}

/* Compile with memo and $ref handling. */
static struct koa_node *compile_at(struct koa_compiler *c, json_object *schema,
                                   const char *pointer)
{
    struct koa_node *n;
    json_object *refv;

    if (c->failed)
        return NULL;
    if (!pointer) {
        koa_compiler_error(c, schema, "", "out of memory");
        return NULL;
    }
    n = memo_get(c, schema);
    if (n)
        return n;
    if (json_object_is_type(schema, json_type_boolean) &&
        c->dialect == KOA_OAS31) {
        n = json_object_get_boolean(schema)
                ? koa_arena_alloc(c->arena, sizeof *n)
                : false_node(c, schema, pointer);
        if (!n)
            return NULL;
        if (json_object_get_boolean(schema))
            init_node(n, schema, pointer);
        memo_put(c, schema, n);
        return n;
    }
    if (!json_object_is_type(schema, json_type_object)) {
        koa_compiler_error(c, schema, pointer, "a schema must be an object%s",
                           c->dialect == KOA_OAS31 ? " or a boolean" : "");
        return NULL;
    }
    if (c->depth >= KOA_COMPILE_MAX_DEPTH) {
        koa_compiler_error(c, schema, pointer, "schemas nest deeper than %d "
                           "levels", KOA_COMPILE_MAX_DEPTH);
        return NULL;
    }

    if (ref_only(c, schema)) {
        /* A Reference Object; it stands for its target.  Walk
         * the direct chain (A -> B -> C) here, so a chain that returns to
         * itself is caught before anything is compiled. */
        json_object *chain[64], *cur = schema, *target = NULL;
        const char *ref = NULL;
        size_t depth = 0, i;
        for (;;) {
            json_object_object_get_ex(cur, "$ref", &refv);
            if (!json_object_is_type(refv, json_type_string)) {
                koa_compiler_error(c, refv, pointer, "'$ref' must be a string");
                return NULL;
            }
            ref = json_object_get_string(refv);
            if (ref[0] != '#') {
                koa_compiler_error(c, refv, pointer, "only local references "
                                   "(\"#/...\") are supported, not '%s'", ref);
                return NULL;
            }
            if (koa_ptr_resolve(c->root, ref, &target) != 0 || !target) {
                koa_compiler_error(c, refv, pointer, "$ref '%s' does not resolve",
                                   ref);
                return NULL;
            }
            chain[depth++] = cur;
            for (i = 0; i < depth; i++) {
                if (chain[i] == target) {
                    koa_compiler_error(c, refv, pointer, "circular $ref: '%s' "
                                       "leads back to itself", ref);
                    return NULL;
                }
            }
            if (!ref_only(c, target) || memo_get(c, target))
                break;
            if (depth == sizeof chain / sizeof chain[0]) {
                koa_compiler_error(c, refv, pointer, "$ref chain longer than "
                                   "%zu links at '%s'", depth, ref);
                return NULL;
            }
            cur = target;
        }
        c->depth++;
        n = compile_at(c, target, koa_arena_strdup(c->arena, ref));
        c->depth--;
        if (n)
            memo_put(c, schema, n);
        return n;
    }

    n = koa_arena_alloc(c->arena, sizeof *n);
    if (!n) {
        koa_compiler_error(c, schema, pointer, "out of memory");
        return NULL;
    }
    init_node(n, schema, pointer);
    if (!memo_put(c, schema, n) ||
        !push_ptr((void ***)&c->nodes, &c->nnodes, &c->capnodes, n)) {
        koa_compiler_error(c, schema, pointer, "out of memory");
        return NULL;
    }
    c->depth++;
    compile_object(c, n, schema, pointer);
    c->depth--;
    return c->failed ? NULL : n;
}

struct koa_node *koa_compile(struct koa_compiler *c, json_object *schema,
                             const char *pointer)
{
    return compile_at(c, schema, koa_arena_strdup(c->arena, pointer ? pointer : "#"));
}

/* ---- in-place recursion check ------------------------------------ */

/* The i-th edge that applies a schema to the same instance, or NULL. */
static struct koa_node *inplace_edge(const struct koa_node *n, size_t i)
{
    struct koa_node *fixed[5];
    size_t k = 0;

    fixed[0] = n->ref;
    fixed[1] = n->not_;
    fixed[2] = n->if_;
    fixed[3] = n->then_;
    fixed[4] = n->else_;
    for (k = 0; k < 5; k++) {
        if (!fixed[k])
            continue;
        if (i == 0)
            return fixed[k];
        i--;
    }
    if (i < n->nall_of)
        return n->all_of[i];
    i -= n->nall_of;
    if (i < n->nany_of)
        return n->any_of[i];
    i -= n->nany_of;
    if (i < n->none_of)
        return n->one_of[i];
    i -= n->none_of;
    if (i < n->ndep_schemas)
        return n->dep_schemas[i].node;
    i -= n->ndep_schemas;
    if (n->disc) {
        /* Explicit mapping entries only: the implicit ones cover every
         * component schema, often the one holding the discriminator;
         * such a loop needs a hostile instance and ends at the
         * evaluation depth limit. */
        size_t j;
        for (j = 0; j < n->disc->nmap; j++) {
            if (!n->disc->map[j].node || n->disc->map[j].implicit)
                continue;
            if (i == 0)
                return n->disc->map[j].node;
            i--;
        }
    }
    return NULL;
}

static bool dfs(struct koa_compiler *c, struct koa_node *n, unsigned depth)
{
    struct koa_node *e;
    size_t i;

    if (n->mark == 2)
        return true;
    if (n->mark == 1) {
        koa_compiler_error(c, n->src, n->ptr, "schema refers to itself without "
                           "going into the instance (infinite recursion)");
        return false;
    }
    if (depth > KOA_COMPILE_MAX_DEPTH) {
        koa_compiler_error(c, n->src, n->ptr, "schema applicators nest deeper "
                           "than %d levels", KOA_COMPILE_MAX_DEPTH);
        return false;
    }
    n->mark = 1;
    for (i = 0; (e = inplace_edge(n, i)) != NULL; i++)
        if (!dfs(c, e, depth + 1))
            return false;
    n->mark = 2;
    return true;
}

bool koa_compiler_check_cycles(struct koa_compiler *c)
{
    size_t i;
    for (i = 0; i < c->nnodes; i++)
        if (!dfs(c, c->nodes[i], 0))
            return false;
    return true;
}
