/* host/store/store_filter.c - compile and match MongoDB-style filters. */
#include <stdlib.h>
#include <string.h>
#include "store/store_filter.h"
#include "store/store_impl.h"

#define KH_FILTER_MAX_CONDS 512
#define KH_FILTER_MAX_DEPTH 8
#define KH_FILTER_MAX_IN 10000

struct compile_ctx {
    int total;
    struct kytos_error *err;
};

static const struct {
    const char *name;
    int op, negate;
} ops[] = {
    {"$eq", KH_OP_EQ, 0},   {"$ne", KH_OP_EQ, 1},   {"$in", KH_OP_IN, 0},
    {"$nin", KH_OP_IN, 1},  {"$gt", KH_OP_GT, 0},   {"$gte", KH_OP_GTE, 0},
    {"$lt", KH_OP_LT, 0},   {"$lte", KH_OP_LTE, 0}, {"$exists", KH_OP_EXISTS, 0},
};

static int is_operator_object(struct json_object *v)
{
    struct json_object_iterator it, end;

    if (!json_object_is_type(v, json_type_object) || json_object_object_length(v) == 0)
        return 0;
    it = json_object_iter_begin(v);
    end = json_object_iter_end(v);
    return !json_object_iter_equal(&it, &end) && json_object_iter_peek_name(&it)[0] == '$';
}

static int add_cond(struct kh_filter *f, int cap, const char *path, int op, int negate,
                    struct json_object *val, struct compile_ctx *cx)
{
    struct kh_cond *c;
    int rc;

    if (f->nconds == cap || ++cx->total > KH_FILTER_MAX_CONDS)
        return kh_store_err(cx->err, KYTOS_EFILTER, "filter has more than %d conditions",
                            KH_FILTER_MAX_CONDS);
    c = &f->conds[f->nconds];
    if ((rc = kh_path_parse(&c->path, path, "filter", cx->err)) < 0)
        return rc;
    if (op == KH_OP_IN) {
        size_t n;
        if (!json_object_is_type(val, json_type_array))
            return kh_store_err(cx->err, KYTOS_EFILTER, "filter: %s on '%.100s' needs an array",
                                negate ? "$nin" : "$in", path);
        n = json_object_array_length(val);
        if (n > KH_FILTER_MAX_IN)
            return kh_store_err(cx->err, KYTOS_EFILTER, "filter: $in on '%.100s' has more than %d values",
                                path, KH_FILTER_MAX_IN);
    }
    if (op == KH_OP_EXISTS) {
        int on;
        if (json_object_is_type(val, json_type_boolean) || json_object_is_type(val, json_type_int) ||
            json_object_is_type(val, json_type_double))
            on = json_object_get_boolean(val);
        else
            return kh_store_err(cx->err, KYTOS_EFILTER, "filter: $exists on '%.100s' needs true or false",
                                path);
        negate = !on;
    }
    if (kh_value_check(val, 1, "filter", cx->err) < 0) {
        if (cx->err)
            cx->err->code = KYTOS_EFILTER;
        return KYTOS_EFILTER;
    }
    c->op = op;
    c->negate = negate;
    c->val = val;
    f->nconds++;
    return 0;
}

static int compile_node(struct json_object *spec, struct kh_filter *f, int depth,
                        struct compile_ctx *cx);

static int compile_list(struct json_object *list, const char *name, struct kh_filter *kid, int depth,
                        struct compile_ctx *cx)
{
    size_t n;
    int rc;

    if (!json_object_is_type(list, json_type_array) || (n = json_object_array_length(list)) == 0)
        return kh_store_err(cx->err, KYTOS_EFILTER, "filter: %s needs a non-empty array of filters",
                            name);
    if (n > KH_FILTER_MAX_CONDS)
        return kh_store_err(cx->err, KYTOS_EFILTER, "filter: %s has too many entries", name);
    if (!(kid->kids = calloc(n, sizeof(*kid->kids))))
        return kh_store_err(cx->err, KYTOS_ENOMEM, "out of memory");
    for (size_t k = 0; k < n; k++) {
        struct json_object *e = json_object_array_get_idx(list, k);
        if (!json_object_is_type(e, json_type_object))
            return kh_store_err(cx->err, KYTOS_EFILTER, "filter: %s entries must be objects", name);
        if (!(kid->kids[k] = calloc(1, sizeof(struct kh_filter))))
            return kh_store_err(cx->err, KYTOS_ENOMEM, "out of memory");
        kid->nkids++;
        if ((rc = compile_node(e, kid->kids[k], depth + 1, cx)) < 0)
            return rc;
    }
    return 0;
}

static int compile_node(struct json_object *spec, struct kh_filter *f, int depth, struct compile_ctx *cx)
{
    int cap = 0, nkids = 0, rc;

    if (depth > KH_FILTER_MAX_DEPTH)
        return kh_store_err(cx->err, KYTOS_EFILTER, "filter nests $and/$or deeper than %d",
                            KH_FILTER_MAX_DEPTH);
    json_object_object_foreach(spec, key0, val0) {
        if (key0[0] == '$')
            nkids++;
        else if (is_operator_object(val0))
            cap += json_object_object_length(val0);
        else
            cap++;
    }
    if (cap > KH_FILTER_MAX_CONDS)
        return kh_store_err(cx->err, KYTOS_EFILTER, "filter has more than %d conditions",
                            KH_FILTER_MAX_CONDS);
    if ((cap && !(f->conds = calloc((size_t)cap, sizeof(*f->conds)))) ||
        (nkids && !(f->kids = calloc((size_t)nkids, sizeof(*f->kids)))))
        return kh_store_err(cx->err, KYTOS_ENOMEM, "out of memory");
    json_object_object_foreach(spec, key, val) {
        if (key[0] == '$') {
            int is_or = !strcmp(key, "$or");
            struct kh_filter *kid;
            if (!is_or && strcmp(key, "$and"))
                return kh_store_err(cx->err, KYTOS_EFILTER,
                                    "filter: unknown top-level operator '%.60s' (use $and or $or)", key);
            if (!(kid = calloc(1, sizeof(*kid))))
                return kh_store_err(cx->err, KYTOS_ENOMEM, "out of memory");
            kid->is_or = is_or;
            f->kids[f->nkids++] = kid;
            if ((rc = compile_list(val, key, kid, depth, cx)) < 0)
                return rc;
            continue;
        }
        if (!is_operator_object(val)) {
            if ((rc = add_cond(f, cap, key, KH_OP_EQ, 0, val, cx)) < 0)
                return rc;
            continue;
        }
        json_object_object_foreach(val, opname, arg) {
            size_t k;
            for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
                if (!strcmp(ops[k].name, opname))
                    break;
            if (k == sizeof(ops) / sizeof(ops[0]))
                return kh_store_err(cx->err, KYTOS_EFILTER,
                                    "filter: unknown operator '%.60s' on field '%.100s'", opname, key);
            if ((rc = add_cond(f, cap, key, ops[k].op, ops[k].negate, arg, cx)) < 0)
                return rc;
        }
    }
    return 0;
}

int kh_filter_compile(struct json_object *spec, struct kh_filter **out, struct kytos_error *err)
{
    struct compile_ctx cx = {0, err};
    struct kh_filter *f;
    int rc;

    *out = NULL;
    if (!spec || (json_object_is_type(spec, json_type_object) && json_object_object_length(spec) == 0))
        return 0;
    if (!json_object_is_type(spec, json_type_object))
        return kh_store_err(err, KYTOS_EFILTER, "filter must be a JSON object");
    if (!(f = calloc(1, sizeof(*f))))
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    /* a private copy: the caller's objects are never referenced or changed */
    if (json_object_deep_copy(spec, &f->copy, NULL) < 0) {
        free(f);
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    }
    if ((rc = compile_node(f->copy, f, 0, &cx)) < 0) {
        kh_filter_free(f);
        return rc;
    }
    *out = f;
    return 0;
}

void kh_filter_free(struct kh_filter *f)
{
    if (!f)
        return;
    for (int k = 0; k < f->nkids; k++)
        kh_filter_free(f->kids[k]);
    free(f->kids);
    free(f->conds);
    json_object_put(f->copy);
    free(f);
}

/* ---- matching ---- */

static int test_one(const struct kh_cond *c, struct json_object *v)
{
    int r;

    switch (c->op) {
    case KH_OP_EQ:
        return kh_json_equal(v, c->val);
    case KH_OP_IN: {
        size_t n = json_object_array_length(c->val);
        for (size_t k = 0; k < n; k++)
            if (kh_json_equal(v, json_object_array_get_idx(c->val, k)))
                return 1;
        return 0;
    }
    default:
        if (kh_json_class(v) != kh_json_class(c->val))
            return 0;
        r = kh_json_cmp(v, c->val);
        switch (c->op) {
        case KH_OP_GT: return r > 0;
        case KH_OP_GTE: return r >= 0;
        case KH_OP_LT: return r < 0;
        default: return r <= 0;
        }
    }
}

static int leaf(const struct kh_cond *c, struct json_object *v, int present)
{
    if (c->op == KH_OP_EXISTS)
        return present;
    if (test_one(c, v))
        return 1;
    if (v && json_object_is_type(v, json_type_array)) {
        size_t n = json_object_array_length(v);
        for (size_t k = 0; k < n; k++)
            if (test_one(c, json_object_array_get_idx(v, k)))
                return 1;
    }
    return 0;
}

static int walk(const struct kh_cond *c, struct json_object *v, int present, int k)
{
    size_t idx;

    if (k == c->path.n)
        return leaf(c, v, present);
    if (json_object_is_type(v, json_type_object)) {
        struct json_object *child = NULL;
        int has = json_object_object_get_ex(v, c->path.seg[k], &child);
        return walk(c, child, has, k + 1);
    }
    if (v && json_object_is_type(v, json_type_array)) {
        size_t n = json_object_array_length(v);
        if (kh_seg_index(c->path.seg[k], &idx) && idx < n &&
            walk(c, json_object_array_get_idx(v, idx), 1, k + 1))
            return 1;
        for (size_t j = 0; j < n; j++) {
            struct json_object *e = json_object_array_get_idx(v, j);
            if (json_object_is_type(e, json_type_object) && walk(c, e, 1, k))
                return 1;
        }
        return 0;
    }
    return leaf(c, NULL, 0);
}

int kh_filter_match(const struct kh_filter *f, struct json_object *doc)
{
    if (!f)
        return 1;
    if (f->is_or) {
        for (int k = 0; k < f->nkids; k++)
            if (kh_filter_match(f->kids[k], doc))
                return 1;
        return 0;
    }
    for (int k = 0; k < f->nconds; k++)
        if (walk(&f->conds[k], doc, 1, 0) == f->conds[k].negate)
            return 0;
    for (int k = 0; k < f->nkids; k++)
        if (!kh_filter_match(f->kids[k], doc))
            return 0;
    return 1;
}
