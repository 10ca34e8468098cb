/* host/store/store_proj.c - projections ({"a": 1} or {"b.c": 0}) and sorting
 * with MongoDB's rules (arrays of objects are projected element-wise; an
 * array sorts by its smallest element ascending, its largest descending). */
#include <stdlib.h>
#include <string.h>
#include "store/store_doc.h"
#include "store/store_impl.h"

#define KH_PROJ_MAX 200
#define KH_SORT_MAX 32

struct kh_proj {
    int include;      /* 1 inclusion, 0 exclusion */
    int keep_id;
    int n;
    struct kh_path paths[];
};

static int flag_value(struct json_object *v, int *on)
{
    if (json_object_is_type(v, json_type_boolean)) {
        *on = json_object_get_boolean(v);
        return 0;
    }
    if (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v);
        if (d == 0 || d == 1) {
            *on = d == 1;
            return 0;
        }
    }
    return -1;
}

int kh_proj_compile(struct json_object *spec, struct kh_proj **out, struct kytos_error *err)
{
    struct kh_proj *p;
    int n, mode = -1, rc;

    *out = NULL;
    if (!spec)
        return 0;
    if (!json_object_is_type(spec, json_type_object))
        return kh_store_err(err, KYTOS_EFILTER, "projection must be a JSON object");
    n = json_object_object_length(spec);
    if (n == 0)
        return 0;
    if (n > KH_PROJ_MAX)
        return kh_store_err(err, KYTOS_EFILTER, "projection has more than %d fields", KH_PROJ_MAX);
    if (!(p = calloc(1, sizeof(*p) + sizeof(p->paths[0]) * (size_t)n)))
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    p->keep_id = 1;
    json_object_object_foreach(spec, key, val) {
        int on;
        if (flag_value(val, &on) < 0) {
            rc = kh_store_err(err, KYTOS_EFILTER,
                              "projection field '%.100s' must be 1, 0, true or false", key);
            goto fail;
        }
        if (!strcmp(key, "_id")) {
            p->keep_id = on;
            continue;
        }
        if (mode >= 0 && mode != on) {
            rc = kh_store_err(err, KYTOS_EFILTER,
                              "projection mixes inclusion and exclusion (field '%.100s')", key);
            goto fail;
        }
        mode = on;
        if ((rc = kh_path_parse(&p->paths[p->n], key, "projection", err)) < 0)
            goto fail;
        for (int k = 0; k < p->n; k++) {
            if (kh_path_conflict(&p->paths[k], &p->paths[p->n])) {
                rc = kh_store_err(err, KYTOS_EFILTER, "projection paths '%.100s' and '%.100s' collide",
                                  p->paths[k].text, p->paths[p->n].text);
                goto fail;
            }
        }
        p->n++;
    }
    p->include = mode == 1;
    *out = p;
    return 0;
fail:
    free(p);
    return rc;
}

static void include_path(struct json_object *src, struct json_object *dst, const struct kh_path *p,
                         int k)
{
    struct json_object *v, *d = NULL;

    if (!json_object_object_get_ex(src, p->seg[k], &v))
        return;
    if (k == p->n - 1) {
        json_object_object_add(dst, p->seg[k], json_object_get(v));
        return;
    }
    if (json_object_is_type(v, json_type_object)) {
        if (!json_object_object_get_ex(dst, p->seg[k], &d) || !json_object_is_type(d, json_type_object)) {
            if (!(d = json_object_new_object()))
                return;
            json_object_object_add(dst, p->seg[k], d);
        }
        include_path(v, d, p, k + 1);
    } else if (json_object_is_type(v, json_type_array)) {
        size_t len = json_object_array_length(v), m = 0;
        if (!json_object_object_get_ex(dst, p->seg[k], &d) || !json_object_is_type(d, json_type_array)) {
            if (!(d = json_object_new_array()))
                return;
            for (size_t j = 0; j < len; j++)
                if (json_object_is_type(json_object_array_get_idx(v, j), json_type_object))
                    json_object_array_add(d, json_object_new_object());
            json_object_object_add(dst, p->seg[k], d);
        }
        for (size_t j = 0; j < len; j++) {
            struct json_object *e = json_object_array_get_idx(v, j), *de;
            if (!json_object_is_type(e, json_type_object))
                continue;
            de = json_object_array_get_idx(d, m++);
            if (de && json_object_is_type(de, json_type_object))
                include_path(e, de, p, k + 1);
        }
    }
}

static void exclude_path(struct json_object *v, const struct kh_path *p, int k)
{
    if (json_object_is_type(v, json_type_object)) {
        struct json_object *c;
        if (k == p->n - 1)
            json_object_object_del(v, p->seg[k]);
        else if (json_object_object_get_ex(v, p->seg[k], &c))
            exclude_path(c, p, k + 1);
    } else if (v && json_object_is_type(v, json_type_array)) {
        size_t len = json_object_array_length(v);
        for (size_t j = 0; j < len; j++)
            exclude_path(json_object_array_get_idx(v, j), p, k);
    }
}

struct json_object *kh_proj_apply(const struct kh_proj *p, struct json_object *doc)
{
    struct json_object *out, *id;

    if (!p)
        return doc;
    if (!p->include) {
        if (!p->keep_id)
            json_object_object_del(doc, "_id");
        for (int k = 0; k < p->n; k++)
            exclude_path(doc, &p->paths[k], 0);
        return doc;
    }
    if (!(out = json_object_new_object()))
        return doc; /* out of memory: the whole document beats nothing */
    if (p->keep_id && json_object_object_get_ex(doc, "_id", &id))
        json_object_object_add(out, "_id", json_object_get(id));
    for (int k = 0; k < p->n; k++)
        include_path(doc, out, &p->paths[k], 0);
    json_object_put(doc);
    return out;
}

void kh_proj_free(struct kh_proj *p)
{
    free(p);
}

/* ---- sort ---- */

struct kh_sort {
    int n;
    int dir[KH_SORT_MAX];
    struct kh_path paths[];
};

int kh_sort_compile(struct json_object *spec, struct kh_sort **out, struct kytos_error *err)
{
    struct kh_sort *s;
    int n, rc;

    *out = NULL;
    if (!spec)
        return 0;
    if (!json_object_is_type(spec, json_type_object))
        return kh_store_err(err, KYTOS_EFILTER, "sort must be a JSON object");
    n = json_object_object_length(spec);
    if (n == 0)
        return 0;
    if (n > KH_SORT_MAX)
        return kh_store_err(err, KYTOS_EFILTER, "sort has more than %d fields", KH_SORT_MAX);
    if (!(s = calloc(1, sizeof(*s) + sizeof(s->paths[0]) * (size_t)n)))
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    json_object_object_foreach(spec, key, val) {
        int64_t d = json_object_is_type(val, json_type_int) ? json_object_get_int64(val) : 0;
        if (d != 1 && d != -1) {
            rc = kh_store_err(err, KYTOS_EFILTER, "sort field '%.100s' must be 1 or -1", key);
            goto fail;
        }
        if ((rc = kh_path_parse(&s->paths[s->n], key, "sort", err)) < 0)
            goto fail;
        s->dir[s->n++] = (int)d;
    }
    *out = s;
    return 0;
fail:
    free(s);
    return rc;
}

void kh_sort_free(struct kh_sort *s)
{
    free(s);
}

static void consider(struct json_object *v, int dir, struct json_object **best, int *found)
{
    if (!*found || kh_json_cmp(v, *best) * dir < 0)
        *best = v;
    *found = 1;
}

/* The sort key at p: the smallest (dir 1) or largest (dir -1) candidate;
 * missing counts as null. */
static void key_walk(struct json_object *v, const struct kh_path *p, int k, int dir,
                     struct json_object **best, int *found)
{
    if (k == p->n) {
        if (v && json_object_is_type(v, json_type_array)) {
            size_t len = json_object_array_length(v);
            for (size_t j = 0; j < len; j++)
                consider(json_object_array_get_idx(v, j), dir, best, found);
            if (len == 0)
                consider(NULL, dir, best, found); /* MongoDB: [] sorts before null-ish keys */
        } else {
            consider(v, dir, best, found);
        }
        return;
    }
    if (json_object_is_type(v, json_type_object)) {
        struct json_object *c = NULL;
        json_object_object_get_ex(v, p->seg[k], &c);
        key_walk(c, p, k + 1, dir, best, found);
    } else if (v && json_object_is_type(v, json_type_array)) {
        size_t len = json_object_array_length(v);
        for (size_t j = 0; j < len; j++) {
            struct json_object *e = json_object_array_get_idx(v, j);
            if (json_object_is_type(e, json_type_object))
                key_walk(e, p, k, dir, best, found);
        }
    } else {
        consider(NULL, dir, best, found);
    }
}

struct sort_row {
    struct json_object *doc;
    void *item;
    struct json_object **keys;
};

static int row_cmp(const void *a, const void *b, void *ctx)
{
    const struct kh_sort *s = ctx;
    const struct sort_row *x = a, *y = b;
    struct json_object *ix = NULL, *iy = NULL;

    for (int k = 0; k < s->n; k++) {
        int c = kh_json_cmp(x->keys[k], y->keys[k]);
        if (c)
            return c * s->dir[k];
    }
    json_object_object_get_ex(x->doc, "_id", &ix);
    json_object_object_get_ex(y->doc, "_id", &iy);
    return kh_json_cmp(ix, iy);
}

void kh_sort_docs(const struct kh_sort *s, struct json_object **docs, size_t n)
{
    kh_sort_by_keys(s, docs, NULL, n);
}

void kh_sort_by_keys(const struct kh_sort *s, struct json_object **docs, void **items, size_t n)
{
    struct sort_row *rows;
    struct json_object **keys;

    if (!s || n < 2)
        return;
    rows = malloc(sizeof(*rows) * n);
    keys = malloc(sizeof(*keys) * n * (size_t)s->n);
    if (!rows || !keys)
        goto out; /* out of memory: leave the natural order */
    for (size_t j = 0; j < n; j++) {
        rows[j].doc = docs[j];
        rows[j].item = items ? items[j] : NULL;
        rows[j].keys = keys + j * (size_t)s->n;
        for (int k = 0; k < s->n; k++) {
            int found = 0;
            rows[j].keys[k] = NULL;
            key_walk(docs[j], &s->paths[k], 0, s->dir[k], &rows[j].keys[k], &found);
        }
    }
    qsort_r(rows, n, sizeof(*rows), row_cmp, (void *)s);
    for (size_t j = 0; j < n; j++) {
        docs[j] = rows[j].doc;
        if (items)
            items[j] = rows[j].item;
    }
out:
    free(rows);
    free(keys);
}

struct json_object *kh_sort_key(const struct kh_sort *s, int k, struct json_object *doc)
{
    struct json_object *best = NULL;
    int found = 0;

    key_walk(doc, &s->paths[k], 0, s->dir[k], &best, &found);
    return best;
}

struct keyed_row {
    void *item;
    struct json_object *id, **keys;
};

static int keyed_cmp(const void *a, const void *b, void *ctx)
{
    const struct kh_sort *s = ctx;
    const struct keyed_row *x = a, *y = b;

    for (int k = 0; k < s->n; k++) {
        int c = kh_json_cmp(x->keys[k], y->keys[k]);
        if (c)
            return c * s->dir[k];
    }
    return kh_json_cmp(x->id, y->id);
}

int kh_sort_keyed(const struct kh_sort *s, struct json_object **keys, struct json_object **ids,
                  void **items, size_t n)
{
    struct keyed_row *rows;

    if (!s || n < 2)
        return 0;
    if (!(rows = malloc(sizeof(*rows) * n)))
        return -1;
    for (size_t j = 0; j < n; j++)
        rows[j] = (struct keyed_row){items[j], ids[j], keys + j * (size_t)s->n};
    qsort_r(rows, n, sizeof(*rows), keyed_cmp, (void *)s);
    for (size_t j = 0; j < n; j++)
        items[j] = rows[j].item;
    free(rows);
    return 0;
}

int kh_sort_nkeys(const struct kh_sort *s)
{
    return s ? s->n : 0;
}

const struct kh_path *kh_sort_path(const struct kh_sort *s, int k)
{
    return &s->paths[k];
}

int kh_proj_drops_only_id(const struct kh_proj *p)
{
    return p && !p->include && !p->keep_id && p->n == 0;
}
