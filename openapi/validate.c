/* openapi/validate.c - instance validation against compiled nodes.
 *
 * Two modes: collect (every error, jsonschema's wording and order) and
 * probe (verdict only, stops at the first failure; used inside anyOf,
 * oneOf, not, if and contains, whose branch errors jsonschema does not
 * report either).  The valid path allocates nothing: the instance
 * location is a chain of stack frames, turned into a JSON pointer only
 * when an error is recorded. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "util/text.h"

#define REPR_LIMIT 2048 /* bytes of one repr() in a message */

/* Keyword handlers stay out of line: inlined into v_node they give it a
 * large stack frame that every node visit pays for. */
#define COLD __attribute__((noinline))

struct seg {
    const struct seg *up;
    const char *key; /* NULL: array index */
    size_t idx;
};

struct vctx {
    const struct koa_vlimits *lim;
    struct koa_verrs *errs; /* NULL: probe mode */
    unsigned depth;
    bool stop;              /* error cap or depth limit reached */
};

/* ---- error recording ---------------------------------------------- */

static void build_paths(const struct seg *s, struct ku_buf *ptr,
                        struct ku_buf *field)
{
    const struct seg *chain[64];
    const struct seg **v = chain;
    size_t n = 0, i, cap = 64;

    for (const struct seg *p = s; p; p = p->up)
        n++;
    if (n > cap) {
        v = malloc(n * sizeof *v);
        if (!v)
            return;
    }
    i = n;
    for (const struct seg *p = s; p; p = p->up)
        v[--i] = p;
    for (i = 0; i < n; i++) {
        if (i)
            ku_buf_addc(field, '/');
        if (v[i]->key) {
            koa_ptr_append_token(ptr, v[i]->key, strlen(v[i]->key));
            ku_buf_adds(field, v[i]->key);
        } else {
            koa_ptr_append_index(ptr, v[i]->idx);
            ku_buf_printf(field, "%zu", v[i]->idx);
        }
    }
    if (v != chain)
        free(v);
}

static void add_err_members(struct vctx *c, const struct seg *s, const char *kw,
                            const struct koa_node *n, struct ku_buf *msg,
                            const char **members, size_t nmembers);

/* Record msg (taken) at location s. */
static void add_err(struct vctx *c, const struct seg *s, const char *kw,
                    const struct koa_node *n, struct ku_buf *msg)
{
    add_err_members(c, s, kw, n, msg, NULL, 0);
}

static void free_members(char **v, size_t n)
{
    size_t i;
    for (i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* Record msg (taken) at location s, about these members of the object
 * at s (copied). */
static void add_err_members(struct vctx *c, const struct seg *s, const char *kw,
                            const struct koa_node *n, struct ku_buf *msg,
                            const char **members, size_t nmembers)
{
    char **mv = NULL;
    size_t i;
    struct koa_verrs *e = c->errs;
    struct koa_verr *r;
    struct ku_buf ptr, field;

    if (!e) {
        ku_buf_free(msg);
        return;
    }
    if (e->n >= c->lim->max_errors) {
        e->truncated = true;
        c->stop = true;
        ku_buf_free(msg);
        return;
    }
    if (KU_RESERVE(e->v, e->cap, e->n + 1) < 0) {
        ku_buf_free(msg);
        c->stop = true;
        return;
    }
    ku_buf_init(&ptr);
    ku_buf_init(&field);
    ku_buf_adds(&ptr, "");
    ku_buf_adds(&field, "");
    build_paths(s, &ptr, &field);
    r = &e->v[e->n];
    r->message = ku_buf_take(msg);
    r->pointer = ku_buf_take(&ptr);
    r->field = ku_buf_take(&field);
    r->keyword = kw;
    r->schema_ptr = n ? n->ptr : NULL;
    if (nmembers && (mv = calloc(nmembers, sizeof *mv)))
        for (i = 0; i < nmembers; i++)
            if (!(mv[i] = strdup(members[i]))) {
                free_members(mv, nmembers);
                mv = NULL;
                break;
            }
    r->members = mv;
    r->nmembers = mv ? nmembers : 0;
    if (!r->message || !r->pointer || !r->field || (nmembers && !mv)) {
        free(r->message);
        free(r->pointer);
        free(r->field);
        free_members(mv, nmembers);
        c->stop = true;
        return;
    }
    e->n++;
    if (e->n >= c->lim->max_errors) {
        /* keep going would only be dropped; say there may be more */
        e->truncated = true;
        c->stop = true;
    }
}

void koa_verrs_free(struct koa_verrs *e)
{
    size_t i;
    if (!e)
        return;
    for (i = 0; i < e->n; i++) {
        free(e->v[i].message);
        free(e->v[i].pointer);
        free(e->v[i].field);
        free_members(e->v[i].members, e->v[i].nmembers);
    }
    free(e->v);
    e->v = NULL;
    e->n = e->cap = 0;
    e->truncated = false;
}

/* "<repr(inst)> <text>" */
static void err_inst(struct vctx *c, const struct seg *s, const char *kw,
                     const struct koa_node *n, json_object *inst,
                     const char *text)
{
    struct ku_buf m;
    if (!c->errs)
        return;
    ku_buf_init(&m);
    koa_pyrepr(&m, inst, REPR_LIMIT);
    ku_buf_addc(&m, ' ');
    ku_buf_adds(&m, text);
    add_err(c, s, kw, n, &m);
}

/* ---- type --------------------------------------------------------- */

static bool type_ok(unsigned types, json_object *inst, bool d31)
{
    switch (json_object_get_type(inst)) {
    case json_type_null: return types & KOA_T_NULL;
    case json_type_boolean: return types & KOA_T_BOOLEAN;
    case json_type_int:
        return types & (KOA_T_INTEGER | KOA_T_NUMBER);
    case json_type_double:
        if (types & KOA_T_NUMBER)
            return true;
        return (types & KOA_T_INTEGER) && koa_is_integer(inst, d31);
    case json_type_string: return types & KOA_T_STRING;
    case json_type_array: return types & KOA_T_ARRAY;
    case json_type_object: return types & KOA_T_OBJECT;
    }
    return false;
}

static void type_msg(struct ku_buf *m, const struct koa_node *n,
                     json_object *inst)
{
    unsigned i;
    koa_pyrepr(m, inst, REPR_LIMIT);
    ku_buf_adds(m, " is not of type ");
    for (i = 0; i < n->ntype_names; i++) {
        if (i)
            ku_buf_adds(m, ", ");
        koa_pyrepr_str(m, n->type_names[i], strlen(n->type_names[i]));
    }
}

static bool kw_type(struct vctx *c, const struct koa_node *n, json_object *inst,
                    const struct seg *s)
{
    bool ok = true;
    struct ku_buf m;

    if (inst == NULL && !c->lim->dialect31) {
        /* OAS 3.0 nullable, as openapi-schema-validator words it */
        if (n->nullable)
            return true;
        if (!c->errs)
            return false;
        ku_buf_init(&m);
        ku_buf_adds(&m, "None for not nullable");
        add_err(c, s, "type", n, &m);
        ok = false;
    }
    if (type_ok(n->types, inst, c->lim->dialect31))
        return ok;
    if (c->errs) {
        ku_buf_init(&m);
        type_msg(&m, n, inst);
        add_err(c, s, "type", n, &m);
    }
    return false;
}

/* ---- numbers ------------------------------------------------------ */

static bool multiple_ok(const struct koa_num *x, const struct koa_num *d)
{
    if (d->k != KOA_DBL && x->k != KOA_DBL) {
        /* exact integer modulo */
        if (d->k == KOA_U64 || (d->k == KOA_I64 && d->v.i < 0)) {
            __int128 xv = x->k == KOA_U64 ? (__int128)x->v.u : (__int128)x->v.i;
            __int128 dv = d->k == KOA_U64 ? (__int128)d->v.u : (__int128)d->v.i;
            return dv != 0 && xv % dv == 0;
        }
        if (d->v.i == 0)
            return false;
        if (x->k == KOA_U64)
            return x->v.u % (uint64_t)d->v.i == 0;
        return x->v.i % d->v.i == 0;
    }
    {
        double xd = koa_num_to_double(x), dd = koa_num_to_double(d), q;
        if (d->k != KOA_DBL) /* int divisor, float instance: x % d */
            return fmod(xd, dd) == 0;
        q = xd / dd;
        if (isinf(q))
            return fmod(xd, dd) == 0;
        return isfinite(q) && q == trunc(q);
    }
}

static COLD bool kw_number(struct vctx *c, const struct koa_node *n, uint8_t kw,
                      json_object *inst, const struct seg *s)
{
    struct koa_num x;
    struct ku_buf m;
    const struct koa_num *lim = NULL;
    const char *word = NULL;
    bool failed = false;
    int r;

    if (!koa_num_get(inst, &x))
        return true;
    switch (kw) {
    case KW_MULTIPLE_OF:
        if (multiple_ok(&x, &n->multiple_of))
            return true;
        if (c->errs) {
            ku_buf_init(&m);
            koa_pyrepr(&m, inst, REPR_LIMIT);
            ku_buf_adds(&m, " is not a multiple of ");
            koa_pyrepr_num(&m, &n->multiple_of);
            add_err(c, s, "multipleOf", n, &m);
        }
        return false;
    case KW_MAXIMUM:
        lim = &n->maximum;
        r = koa_num_cmp(&x, lim);
        if (n->max_exclusive_bool) {
            failed = r >= 0;
            word = " is greater than or equal to the maximum of ";
        } else {
            failed = r > 0;
            word = " is greater than the maximum of ";
        }
        break;
    case KW_MINIMUM:
        lim = &n->minimum;
        r = koa_num_cmp(&x, lim);
        if (n->min_exclusive_bool) {
            failed = r <= 0;
            word = " is less than or equal to the minimum of ";
        } else {
            failed = r < 0;
            word = " is less than the minimum of ";
        }
        break;
    case KW_EXCL_MAXIMUM:
        lim = &n->excl_maximum;
        failed = koa_num_cmp(&x, lim) >= 0;
        word = " is greater than or equal to the maximum of ";
        break;
    case KW_EXCL_MINIMUM:
        lim = &n->excl_minimum;
        failed = koa_num_cmp(&x, lim) <= 0;
        word = " is less than or equal to the minimum of ";
        break;
    default:
        return true;
    }
    if (!failed)
        return true;
    if (c->errs) {
        static const char *const names[] = { [KW_MAXIMUM] = "maximum",
                                             [KW_MINIMUM] = "minimum",
                                             [KW_EXCL_MAXIMUM] = "exclusiveMaximum",
                                             [KW_EXCL_MINIMUM] = "exclusiveMinimum" };
        ku_buf_init(&m);
        koa_pyrepr(&m, inst, REPR_LIMIT);
        ku_buf_adds(&m, word);
        koa_pyrepr_num(&m, lim);
        add_err(c, s, names[kw], n, &m);
    }
    return false;
}

/* ---- sizes: "is too long" / "should be non-empty" ... ------------- */

static COLD bool kw_size(struct vctx *c, const struct koa_node *n, uint8_t kw,
                    json_object *inst, const struct seg *s)
{
    int64_t have, want;
    bool is_max;
    const char *text, *name;

    switch (kw) {
    case KW_MAX_LENGTH:
    case KW_MIN_LENGTH:
        if (!json_object_is_type(inst, json_type_string))
            return true;
        have = (int64_t)koa_utf8_len(json_object_get_string(inst),
                                     (size_t)json_object_get_string_len(inst));
        break;
    case KW_MAX_ITEMS:
    case KW_MIN_ITEMS:
        if (!json_object_is_type(inst, json_type_array))
            return true;
        have = (int64_t)json_object_array_length(inst);
        break;
    default:
        if (!json_object_is_type(inst, json_type_object))
            return true;
        have = json_object_object_length(inst);
        break;
    }
    is_max = kw == KW_MAX_LENGTH || kw == KW_MAX_ITEMS || kw == KW_MAX_PROPERTIES;
    want = kw == KW_MAX_LENGTH ? n->max_length : kw == KW_MIN_LENGTH ? n->min_length
         : kw == KW_MAX_ITEMS ? n->max_items : kw == KW_MIN_ITEMS ? n->min_items
         : kw == KW_MAX_PROPERTIES ? n->max_props : n->min_props;
    if (is_max ? have <= want : have >= want)
        return true;
    if (!c->errs)
        return false;
    if (is_max)
        text = want == 0 ? "is expected to be empty"
             : kw == KW_MAX_PROPERTIES ? "has too many properties" : "is too long";
    else
        text = want == 1 ? "should be non-empty"
             : kw == KW_MIN_PROPERTIES ? "does not have enough properties"
                                       : "is too short";
    name = kw == KW_MAX_LENGTH ? "maxLength" : kw == KW_MIN_LENGTH ? "minLength"
         : kw == KW_MAX_ITEMS ? "maxItems" : kw == KW_MIN_ITEMS ? "minItems"
         : kw == KW_MAX_PROPERTIES ? "maxProperties" : "minProperties";
    err_inst(c, s, name, n, inst, text);
    return false;
}

/* ---- strings ------------------------------------------------------ */

static COLD bool kw_pattern(struct vctx *c, const struct koa_node *n,
                       json_object *inst, const struct seg *s)
{
    int r;
    struct ku_buf m;
    const char *src;

    if (!json_object_is_type(inst, json_type_string))
        return true;
    r = koa_regex_search(n->pattern, json_object_get_string(inst),
                         (size_t)json_object_get_string_len(inst),
                         c->lim->regex_match_limit, c->lim->regex_depth_limit);
    if (r == 1)
        return true;
    if (!c->errs)
        return false;
    src = koa_regex_source(n->pattern);
    ku_buf_init(&m);
    koa_pyrepr(&m, inst, REPR_LIMIT);
    ku_buf_adds(&m, r == 0 ? " does not match " : " could not be checked against ");
    koa_pyrepr_str(&m, src, strlen(src));
    if (r < 0)
        ku_buf_adds(&m, " (pattern evaluation limit exceeded)");
    add_err(c, s, "pattern", n, &m);
    return false;
}

static COLD bool kw_format(struct vctx *c, const struct koa_node *n,
                      json_object *inst, const struct seg *s)
{
    struct ku_buf m;
    if (!c->lim->formats || inst == NULL || koa_format_check(n->format, inst))
        return true;
    if (!c->errs)
        return false;
    ku_buf_init(&m);
    koa_pyrepr(&m, inst, REPR_LIMIT);
    ku_buf_adds(&m, " is not a ");
    koa_pyrepr_str(&m, n->format_name, strlen(n->format_name));
    add_err(c, s, "format", n, &m);
    return false;
}

/* ---- forward ------------------------------------------------------ */

static bool v_node(struct vctx *c, const struct koa_node *n, json_object *inst,
                   const struct seg *s);

/* Descend into a child: a schema that is only a type check (most leaf
 * properties) or empty is answered here, without a v_node call. */
static inline bool visit(struct vctx *c, const struct koa_node *n,
                         json_object *inst, const struct seg *s)
{
    if (n->nkws == 0)
        return !c->stop;
    if (n->nkws == 1 && n->kws[0] == KW_TYPE && inst != NULL &&
        type_ok(n->types, inst, c->lim->dialect31))
        return !c->stop;
    return v_node(c, n, inst, s);
}

/* Validate in probe mode (no errors recorded). */
static bool probe(struct vctx *c, const struct koa_node *n, json_object *inst,
                  const struct seg *s)
{
    struct vctx p = *c;
    bool ok;
    p.errs = NULL;
    p.stop = false;
    ok = v_node(&p, n, inst, s);
    return ok;
}

static bool is_false_node(const struct koa_node *n)
{
    return n->nkws == 1 && n->kws[0] == KW_FALSE;
}

/* ---- arrays ------------------------------------------------------- */

static COLD bool kw_items(struct vctx *c, const struct koa_node *n, json_object *inst,
                     const struct seg *s)
{
    size_t i, len, start;
    bool ok = true;

    if (!json_object_is_type(inst, json_type_array))
        return true;
    len = json_object_array_length(inst);
    start = n->prefix ? n->nprefix : 0;
    if (start >= len)
        return true;
    if (is_false_node(n->items)) {
        if (c->errs) {
            struct ku_buf m;
            size_t extra = len - start;
            ku_buf_init(&m);
            ku_buf_printf(&m, "Expected at most %zu item%s but found %zu extra: ",
                           start, start == 1 ? "" : "s", extra);
            if (extra == 1) {
                koa_pyrepr(&m, json_object_array_get_idx(inst, start), REPR_LIMIT);
            } else {
                ku_buf_addc(&m, '[');
                for (i = start; i < len; i++) {
                    if (i > start)
                        ku_buf_adds(&m, ", ");
                    koa_pyrepr(&m, json_object_array_get_idx(inst, i), REPR_LIMIT);
                }
                ku_buf_addc(&m, ']');
            }
            add_err(c, s, "items", n, &m);
        }
        return false;
    }
    for (i = start; i < len && !c->stop; i++) {
        struct seg cs = { s, NULL, i };
        if (!visit(c, n->items, json_object_array_get_idx(inst, i), &cs)) {
            ok = false;
            if (!c->errs)
                return false;
        }
    }
    return ok;
}

static COLD bool kw_prefix(struct vctx *c, const struct koa_node *n,
                      json_object *inst, const struct seg *s)
{
    size_t i, len;
    bool ok = true;
    if (!json_object_is_type(inst, json_type_array))
        return true;
    len = json_object_array_length(inst);
    for (i = 0; i < len && i < n->nprefix && !c->stop; i++) {
        struct seg cs = { s, NULL, i };
        if (!visit(c, n->prefix[i], json_object_array_get_idx(inst, i), &cs)) {
            ok = false;
            if (!c->errs)
                return false;
        }
    }
    return ok;
}

static COLD bool kw_contains(struct vctx *c, const struct koa_node *n,
                        json_object *inst, const struct seg *s)
{
    size_t i, len, matches = 0;
    int64_t min = n->min_contains >= 0 ? n->min_contains : 1;
    struct ku_buf m;

    if (!json_object_is_type(inst, json_type_array))
        return true;
    len = json_object_array_length(inst);
    for (i = 0; i < len; i++) {
        struct seg cs = { s, NULL, i };
        if (probe(c, n->contains, json_object_array_get_idx(inst, i), &cs))
            matches++;
    }
    if ((int64_t)matches >= min &&
        (n->max_contains < 0 || (int64_t)matches <= n->max_contains))
        return true;
    if (!c->errs)
        return false;
    ku_buf_init(&m);
    if ((int64_t)matches < min) {
        if (matches == 0 && n->min_contains < 0) {
            koa_pyrepr(&m, inst, REPR_LIMIT);
            ku_buf_adds(&m, " does not contain items matching the given schema");
        } else {
            ku_buf_printf(&m, "Too few items match the given schema (expected at "
                           "least %lld but only %zu matched)", (long long)min,
                           matches);
        }
        add_err(c, s, "minContains", n, &m);
    } else {
        ku_buf_printf(&m, "Too many items match the given schema (expected at "
                       "most %lld)", (long long)n->max_contains);
        add_err(c, s, "maxContains", n, &m);
    }
    return false;
}

struct hidx {
    uint64_t h;
    size_t i;
};

static int cmp_hidx(const void *a, const void *b)
{
    const struct hidx *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* O(n log n): sort by a hash that equal values share, then compare only
 * neighbours with the same hash. */
static COLD bool kw_unique(struct vctx *c, const struct koa_node *n,
                      json_object *inst, const struct seg *s)
{
    size_t len, i, j;
    struct hidx small[32], *v;
    bool dup = false;

    if (!json_object_is_type(inst, json_type_array))
        return true;
    len = json_object_array_length(inst);
    if (len < 2)
        return true;
    v = len <= 32 ? small : malloc(len * sizeof *v);
    if (!v) {
        /* cannot tell: report as a failure rather than pass silently */
        err_inst(c, s, "uniqueItems", n, inst, "could not be checked (out of memory)");
        return false;
    }
    for (i = 0; i < len; i++) {
        v[i].h = koa_json_hash(json_object_array_get_idx(inst, i));
        v[i].i = i;
    }
    qsort(v, len, sizeof *v, cmp_hidx);
    for (i = 0; i < len && !dup; i++)
        for (j = i + 1; j < len && v[j].h == v[i].h && !dup; j++)
            if (koa_json_equal(json_object_array_get_idx(inst, v[i].i),
                               json_object_array_get_idx(inst, v[j].i)))
                dup = true;
    if (v != small)
        free(v);
    if (!dup)
        return true;
    err_inst(c, s, "uniqueItems", n, inst, "has non-unique elements");
    return false;
}

/* ---- objects ------------------------------------------------------ */

/* Binary search in the table sorted by (length, bytes); see
 * schema_compile.c. */
static const struct koa_prop *find_prop(const struct koa_node *n, const char *k,
                                        size_t klen)
{
    size_t lo = 0, hi = n->nprops;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct koa_prop *p = &n->props[n->props_sorted[mid]];
        int r;
        if (p->len != klen)
            r = p->len < klen ? -1 : 1;
        else
            r = memcmp(p->name, k, klen);
        if (r == 0)
            return p;
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

struct pmatch {
    size_t idx;
    const char *key;
    json_object *val;
};

static COLD bool kw_properties(struct vctx *c, const struct koa_node *n,
                          json_object *inst, const struct seg *s)
{
    size_t i, nkeys;
    bool ok = true;

    if (!json_object_is_type(inst, json_type_object))
        return true;
    nkeys = (size_t)json_object_object_length(inst);
    if (nkeys <= 32) {
        /* Look the instance's keys up in the sorted property table (a
         * binary search on bytes) rather than every property up in the
         * instance (a json-c hash lookup each, mostly misses: a Match
         * has one field of twenty), then validate in schema order, the
         * order jsonschema reports in. */
        struct pmatch m[32];
        size_t nm = 0, j;
        json_object_object_foreach(inst, k, v) {
            const struct koa_prop *p = find_prop(n, k, strlen(k));
            if (!p)
                continue;
            for (j = nm; j > 0 && m[j - 1].idx > (size_t)(p - n->props); j--)
                m[j] = m[j - 1];
            m[j].idx = (size_t)(p - n->props);
            m[j].key = k;
            m[j].val = v;
            nm++;
        }
        for (i = 0; i < nm && !c->stop; i++) {
            struct seg cs = { s, n->props[m[i].idx].name, 0 };
            if (!visit(c, n->props[m[i].idx].node, m[i].val, &cs)) {
                ok = false;
                if (!c->errs)
                    return false;
            }
        }
        return ok;
    }
    for (i = 0; i < n->nprops && !c->stop; i++) {
        json_object *v;
        if (!json_object_object_get_ex(inst, n->props[i].name, &v))
            continue;
        {
            struct seg cs = { s, n->props[i].name, 0 };
            if (!visit(c, n->props[i].node, v, &cs)) {
                ok = false;
                if (!c->errs)
                    return false;
            }
        }
    }
    return ok;
}

/* 1 match, 0 none, -1 limit */
static int key_matches(const struct vctx *c, const struct koa_regex *re,
                       const char *k)
{
    return koa_regex_search(re, k, strlen(k), c->lim->regex_match_limit,
                            c->lim->regex_depth_limit);
}

static COLD bool kw_pattern_props(struct vctx *c, const struct koa_node *n,
                             json_object *inst, const struct seg *s)
{
    size_t i;
    bool ok = true;

    if (!json_object_is_type(inst, json_type_object))
        return true;
    for (i = 0; i < n->npprops && !c->stop; i++) {
        json_object_object_foreach(inst, k, v) {
            int r = key_matches(c, n->pprops[i].re, k);
            struct seg cs = { s, k, 0 };
            if (r < 0) {
                struct ku_buf m;
                const char *src = koa_regex_source(n->pprops[i].re);
                if (!c->errs)
                    return false;
                ku_buf_init(&m);
                koa_pyrepr_str(&m, k, strlen(k));
                ku_buf_adds(&m, " could not be checked against ");
                koa_pyrepr_str(&m, src, strlen(src));
                ku_buf_adds(&m, " (pattern evaluation limit exceeded)");
                add_err(c, s, "patternProperties", n, &m);
                ok = false;
                continue;
            }
            if (r == 1 && !visit(c, n->pprops[i].node, v, &cs)) {
                ok = false;
                if (!c->errs)
                    return false;
            }
        }
    }
    return ok;
}

static bool is_additional(const struct vctx *c, const struct koa_node *n,
                          const char *k)
{
    size_t i;
    if (n->nprops && find_prop(n, k, strlen(k)))
        return false;
    for (i = 0; i < n->npprops; i++)
        if (key_matches(c, n->pprops[i].re, k) != 0)
            return false; /* a limit hit counts as matched: no double error */
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static COLD bool kw_additional(struct vctx *c, const struct koa_node *n,
                          json_object *inst, const struct seg *s)
{
    bool ok = true;

    if (!json_object_is_type(inst, json_type_object))
        return true;
    if (!is_false_node(n->additional)) {
        json_object_object_foreach(inst, k, v) {
            if (c->stop)
                break;
            if (!is_additional(c, n, k))
                continue;
            {
                struct seg cs = { s, k, 0 };
                if (!visit(c, n->additional, v, &cs)) {
                    ok = false;
                    if (!c->errs)
                        return false;
                }
            }
        }
        return ok;
    }
    {
        const char *small[16], **extras = small;
        size_t nx = 0, cap = 16, i;
        struct ku_buf m;

        json_object_object_foreach(inst, k, v) {
            (void)v;
            if (!is_additional(c, n, k))
                continue;
            if (!c->errs)
                return false;
            if (nx == cap) {
                const char **ne = malloc(cap * 2 * sizeof *ne);
                if (!ne)
                    break;
                memcpy(ne, extras, nx * sizeof *ne);
                if (extras != small)
                    free(extras);
                extras = ne;
                cap *= 2;
            }
            extras[nx++] = k;
        }
        if (nx == 0) {
            if (extras != small)
                free(extras);
            return true;
        }
        /* jsonschema sorts the names (openapi-schema-validator 0.6.2
         * prints set order, which is not reproducible) */
        qsort(extras, nx, sizeof *extras, cmp_str);
        ku_buf_init(&m);
        if (n->npprops) {
            for (i = 0; i < nx; i++) {
                if (i)
                    ku_buf_adds(&m, ", ");
                koa_pyrepr_str(&m, extras[i], strlen(extras[i]));
            }
            ku_buf_adds(&m, nx == 1 ? " does not match any of the regexes: "
                                     : " do not match any of the regexes: ");
            {
                /* patterns sorted, as jsonschema prints them */
                const char *ps[64];
                size_t np = n->npprops < 64 ? n->npprops : 64;
                for (i = 0; i < np; i++)
                    ps[i] = koa_regex_source(n->pprops[i].re);
                qsort(ps, np, sizeof *ps, cmp_str);
                for (i = 0; i < np; i++) {
                    if (i)
                        ku_buf_adds(&m, ", ");
                    koa_pyrepr_str(&m, ps[i], strlen(ps[i]));
                }
            }
        } else {
            ku_buf_adds(&m, "Additional properties are not allowed (");
            for (i = 0; i < nx; i++) {
                if (i)
                    ku_buf_adds(&m, ", ");
                koa_pyrepr_str(&m, extras[i], strlen(extras[i]));
            }
            ku_buf_adds(&m, nx == 1 ? " was unexpected)" : " were unexpected)");
        }
        add_err_members(c, s, "additionalProperties", n, &m, extras, nx);
        if (extras != small)
            free(extras);
        return false;
    }
}

static COLD bool kw_required(struct vctx *c, const struct koa_node *n,
                        json_object *inst, const struct seg *s)
{
    size_t i;
    bool ok = true;

    if (!json_object_is_type(inst, json_type_object))
        return true;
    for (i = 0; i < n->nrequired; i++) {
        const char *name = n->required[i];
        struct ku_buf m;
        if (json_object_object_get_ex(inst, name, NULL))
            continue;
        if (c->lim->write && n->nprops) {
            /* a readOnly property is not required in a request */
            const struct koa_prop *p = find_prop(n, name, strlen(name));
            if (p && p->node->read_only)
                continue;
        }
        if (!c->errs)
            return false;
        ku_buf_init(&m);
        koa_pyrepr_str(&m, name, strlen(name));
        ku_buf_adds(&m, " is a required property");
        add_err_members(c, s, "required", n, &m, &name, 1);
        ok = false;
    }
    return ok;
}

static COLD bool kw_property_names(struct vctx *c, const struct koa_node *n,
                              json_object *inst, const struct seg *s)
{
    bool ok = true;
    if (!json_object_is_type(inst, json_type_object))
        return true;
    json_object_object_foreach(inst, k, v) {
        json_object *ks;
        (void)v;
        if (c->stop)
            break;
        ks = json_object_new_string(k);
        if (!ks) {
            c->stop = true;
            return false;
        }
        if (!v_node(c, n->property_names, ks, s)) {
            ok = false;
            json_object_put(ks);
            if (!c->errs)
                return false;
            continue;
        }
        json_object_put(ks);
    }
    return ok;
}

static COLD bool kw_dep_required(struct vctx *c, const struct koa_node *n,
                            json_object *inst, const struct seg *s)
{
    size_t i, j;
    bool ok = true;
    if (!json_object_is_type(inst, json_type_object))
        return true;
    for (i = 0; i < n->ndep_req; i++) {
        if (!json_object_object_get_ex(inst, n->dep_req[i].name, NULL))
            continue;
        for (j = 0; j < n->dep_req[i].nreq; j++) {
            struct ku_buf m;
            const char *r = n->dep_req[i].req[j];
            if (json_object_object_get_ex(inst, r, NULL))
                continue;
            if (!c->errs)
                return false;
            ku_buf_init(&m);
            koa_pyrepr_str(&m, r, strlen(r));
            ku_buf_adds(&m, " is a dependency of ");
            koa_pyrepr_str(&m, n->dep_req[i].name, strlen(n->dep_req[i].name));
            add_err(c, s, "dependentRequired", n, &m);
            ok = false;
        }
    }
    return ok;
}

static COLD bool kw_dep_schemas(struct vctx *c, const struct koa_node *n,
                           json_object *inst, const struct seg *s)
{
    size_t i;
    bool ok = true;
    if (!json_object_is_type(inst, json_type_object))
        return true;
    for (i = 0; i < n->ndep_schemas && !c->stop; i++) {
        if (!json_object_object_get_ex(inst, n->dep_schemas[i].name, NULL))
            continue;
        if (!v_node(c, n->dep_schemas[i].node, inst, s)) {
            ok = false;
            if (!c->errs)
                return false;
        }
    }
    return ok;
}

/* ---- applicators -------------------------------------------------- */

/* The raw subschema as written (for repr in oneOf/not messages). */
static json_object *raw_sub(const struct koa_node *n, const char *kw, size_t i)
{
    json_object *v;
    if (!json_object_object_get_ex(n->src, kw, &v))
        return NULL;
    if (json_object_is_type(v, json_type_array))
        return json_object_array_get_idx(v, i);
    return v;
}

/* Python truthiness of a JSON value */
static bool truthy(json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null: return false;
    case json_type_boolean: return json_object_get_boolean(v);
    case json_type_int: return json_object_get_int64(v) != 0 ||
                               json_object_get_uint64(v) != 0;
    case json_type_double: return json_object_get_double(v) != 0;
    case json_type_string: return json_object_get_string_len(v) != 0;
    case json_type_array: return json_object_array_length(v) != 0;
    case json_type_object: return json_object_object_length(v) != 0;
    }
    return false;
}

/* OAS discriminator inside anyOf/oneOf/allOf: validate only against the
 * schema the discriminating property names (openapi-schema-validator's
 * handle_discriminator). */
static COLD bool discriminate(struct vctx *c, const struct koa_node *n,
                         json_object *inst, const struct seg *s)
{
    const struct koa_disc *d = n->disc;
    json_object *pv = NULL;
    struct ku_buf key, m;
    size_t lo = 0, hi = d->nmap;
    const struct koa_disc_map *hit = NULL;
    bool ok;

    if (!json_object_is_type(inst, json_type_object) ||
        !json_object_object_get_ex(inst, d->property, &pv) || !truthy(pv)) {
        if (c->errs) {
            ku_buf_init(&m);
            koa_pyrepr(&m, inst, REPR_LIMIT);
            ku_buf_adds(&m, " does not contain discriminating property ");
            koa_pyrepr_str(&m, d->property, strlen(d->property));
            add_err(c, s, "discriminator", n, &m);
        }
        return false;
    }
    ku_buf_init(&key);
    koa_pystr(&key, pv, 256);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int r = strcmp(d->map[mid].value, ku_buf_str(&key));
        if (r == 0) {
            hit = &d->map[mid];
            break;
        }
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!hit || !hit->node) {
        if (c->errs) {
            ku_buf_init(&m);
            koa_pyrepr(&m, inst, REPR_LIMIT);
            ku_buf_adds(&m, " reference ");
            if (hit) {
                koa_pyrepr_str(&m, hit->ref, strlen(hit->ref));
            } else {
                struct ku_buf r;
                ku_buf_init(&r);
                ku_buf_adds(&r, "#/components/schemas/");
                ku_buf_add(&r, ku_buf_str(&key), key.len);
                koa_pyrepr_str(&m, ku_buf_str(&r), r.len);
                ku_buf_free(&r);
            }
            ku_buf_adds(&m, " could not be resolved");
            add_err(c, s, "discriminator", n, &m);
        }
        ku_buf_free(&key);
        return false;
    }
    ku_buf_free(&key);
    ok = v_node(c, hit->node, inst, s);
    return ok;
}

static COLD bool kw_all_of(struct vctx *c, const struct koa_node *n,
                      json_object *inst, const struct seg *s)
{
    size_t i;
    bool ok = true;
    if (n->disc)
        return discriminate(c, n, inst, s);
    for (i = 0; i < n->nall_of && !c->stop; i++) {
        if (!v_node(c, n->all_of[i], inst, s)) {
            ok = false;
            if (!c->errs)
                return false;
        }
    }
    return ok;
}

static COLD bool kw_any_of(struct vctx *c, const struct koa_node *n,
                      json_object *inst, const struct seg *s)
{
    size_t i;
    if (n->disc)
        return discriminate(c, n, inst, s);
    for (i = 0; i < n->nany_of; i++)
        if (probe(c, n->any_of[i], inst, s))
            return true;
    err_inst(c, s, "anyOf", n, inst, "is not valid under any of the given schemas");
    return false;
}

static COLD bool kw_one_of(struct vctx *c, const struct koa_node *n,
                      json_object *inst, const struct seg *s)
{
    size_t i, nvalid = 0, valid[16];
    struct ku_buf m;

    if (n->disc)
        return discriminate(c, n, inst, s);
    for (i = 0; i < n->none_of; i++) {
        if (!probe(c, n->one_of[i], inst, s))
            continue;
        if (nvalid < 16)
            valid[nvalid] = i;
        nvalid++;
        if (nvalid > 1 && !c->errs)
            return false; /* two valid branches: a probe knows enough */
    }
    if (nvalid == 1)
        return true;
    if (nvalid == 0) {
        err_inst(c, s, "oneOf", n, inst, "is not valid under any of the given schemas");
        return false;
    }
    /* jsonschema: "is valid under each of <later ones...>, <first>" */
    ku_buf_init(&m);
    koa_pyrepr(&m, inst, REPR_LIMIT);
    ku_buf_adds(&m, " is valid under each of ");
    for (i = 1; i < nvalid && i < 16; i++) {
        koa_pyrepr(&m, raw_sub(n, "oneOf", valid[i]), REPR_LIMIT);
        ku_buf_adds(&m, ", ");
    }
    koa_pyrepr(&m, raw_sub(n, "oneOf", valid[0]), REPR_LIMIT);
    add_err(c, s, "oneOf", n, &m);
    return false;
}

static COLD bool kw_not(struct vctx *c, const struct koa_node *n, json_object *inst,
                   const struct seg *s)
{
    struct ku_buf m;
    if (!probe(c, n->not_, inst, s))
        return true;
    if (!c->errs)
        return false;
    ku_buf_init(&m);
    koa_pyrepr(&m, inst, REPR_LIMIT);
    ku_buf_adds(&m, " should not be valid under ");
    koa_pyrepr(&m, raw_sub(n, "not", 0), REPR_LIMIT);
    add_err(c, s, "not", n, &m);
    return false;
}

static COLD bool kw_if(struct vctx *c, const struct koa_node *n, json_object *inst,
                  const struct seg *s)
{
    if (probe(c, n->if_, inst, s))
        return n->then_ ? v_node(c, n->then_, inst, s) : true;
    return n->else_ ? v_node(c, n->else_, inst, s) : true;
}

static COLD bool kw_enum(struct vctx *c, const struct koa_node *n, json_object *inst,
                    const struct seg *s)
{
    size_t i, len = json_object_array_length(n->enum_values);
    struct ku_buf m;
    for (i = 0; i < len; i++)
        if (koa_json_equal(inst, json_object_array_get_idx(n->enum_values, i)))
            return true;
    if (!c->errs)
        return false;
    ku_buf_init(&m);
    koa_pyrepr(&m, inst, REPR_LIMIT);
    ku_buf_adds(&m, " is not one of ");
    koa_pyrepr(&m, n->enum_values, REPR_LIMIT);
    add_err(c, s, "enum", n, &m);
    return false;
}

/* ---- dispatcher --------------------------------------------------- */

static bool v_node(struct vctx *c, const struct koa_node *n, json_object *inst,
                   const struct seg *s)
{
    unsigned k;
    bool ok = true;

    if (c->stop)
        return false;
    if (++c->depth > c->lim->max_eval_depth) {
        if (c->errs) {
            struct ku_buf m;
            ku_buf_init(&m);
            ku_buf_printf(&m, "validation nested deeper than %u levels",
                           c->lim->max_eval_depth);
            add_err(c, s, "depth", n, &m);
        }
        c->depth--;
        c->stop = true;
        return false;
    }
    for (k = 0; k < n->nkws && !c->stop; k++) {
        bool r = true;
        uint8_t kw = n->kws[k];
        switch (kw) {
        case KW_FALSE:
            if (c->errs) {
                struct ku_buf m;
                ku_buf_init(&m);
                ku_buf_adds(&m, "False schema does not allow ");
                koa_pyrepr(&m, inst, REPR_LIMIT);
                add_err(c, s, "false", n, &m);
            }
            r = false;
            break;
        case KW_TYPE: r = kw_type(c, n, inst, s); break;
        case KW_ENUM: r = kw_enum(c, n, inst, s); break;
        case KW_CONST:
            r = koa_json_equal(inst, n->const_value);
            if (!r && c->errs) {
                struct ku_buf m;
                ku_buf_init(&m);
                koa_pyrepr(&m, n->const_value, REPR_LIMIT);
                ku_buf_adds(&m, " was expected");
                add_err(c, s, "const", n, &m);
            }
            break;
        case KW_MULTIPLE_OF:
        case KW_MAXIMUM:
        case KW_MINIMUM:
        case KW_EXCL_MAXIMUM:
        case KW_EXCL_MINIMUM:
            r = kw_number(c, n, kw, inst, s);
            break;
        case KW_MAX_LENGTH:
        case KW_MIN_LENGTH:
        case KW_MAX_ITEMS:
        case KW_MIN_ITEMS:
        case KW_MAX_PROPERTIES:
        case KW_MIN_PROPERTIES:
            r = kw_size(c, n, kw, inst, s);
            break;
        case KW_PATTERN: r = kw_pattern(c, n, inst, s); break;
        case KW_FORMAT: r = kw_format(c, n, inst, s); break;
        case KW_ITEMS: r = kw_items(c, n, inst, s); break;
        case KW_PREFIX_ITEMS: r = kw_prefix(c, n, inst, s); break;
        case KW_CONTAINS: r = kw_contains(c, n, inst, s); break;
        case KW_UNIQUE_ITEMS: r = kw_unique(c, n, inst, s); break;
        case KW_PROPERTIES: r = kw_properties(c, n, inst, s); break;
        case KW_PATTERN_PROPERTIES: r = kw_pattern_props(c, n, inst, s); break;
        case KW_ADDITIONAL_PROPERTIES: r = kw_additional(c, n, inst, s); break;
        case KW_REQUIRED: r = kw_required(c, n, inst, s); break;
        case KW_PROPERTY_NAMES: r = kw_property_names(c, n, inst, s); break;
        case KW_DEPENDENT_REQUIRED: r = kw_dep_required(c, n, inst, s); break;
        case KW_DEPENDENT_SCHEMAS: r = kw_dep_schemas(c, n, inst, s); break;
        case KW_ALL_OF: r = kw_all_of(c, n, inst, s); break;
        case KW_ANY_OF: r = kw_any_of(c, n, inst, s); break;
        case KW_ONE_OF: r = kw_one_of(c, n, inst, s); break;
        case KW_NOT: r = kw_not(c, n, inst, s); break;
        case KW_IF: r = kw_if(c, n, inst, s); break;
        case KW_REF: r = v_node(c, n->ref, inst, s); break;
        case KW_READ_ONLY:
            if (c->lim->write) {
                if (c->errs) {
                    struct ku_buf m;
                    ku_buf_init(&m);
                    ku_buf_adds(&m, "Tried to write read-only property with ");
                    koa_pystr(&m, inst, REPR_LIMIT);
                    add_err(c, s, "readOnly", n, &m);
                }
                r = false;
            }
            break;
        default:
            break;
        }
        if (!r) {
            ok = false;
            if (!c->errs)
                break;
        }
    }
    c->depth--;
    return ok && !(c->stop && !c->errs);
}

bool koa_validate(const struct koa_node *node, json_object *inst,
                  const struct koa_vlimits *lim, struct koa_verrs *errs)
{
    struct vctx c;
    memset(&c, 0, sizeof c);
    c.lim = lim;
    c.errs = errs;
    return v_node(&c, node, inst, NULL);
}
