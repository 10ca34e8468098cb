/* host/store_update.c - $set / $unset / $setOnInsert on dotted paths, with
 * MongoDB's rules: missing objects on the way are created, arrays are
 * entered by numeric index (padded with null), a scalar on the way is an
 * error, two paths that overlap are an error, _id cannot change. */
#include <stdlib.h>
#include <string.h>
#include "store_doc.h"
#include "store_impl.h"

#define KH_UPDATE_MAX_PATHS 1000
#define KH_ARRAY_PAD_MAX 100000

static int op_kind(const char *op)
{
    if (!strcmp(op, "$set"))
        return 1;
    if (!strcmp(op, "$unset"))
        return 2;
    if (!strcmp(op, "$setOnInsert"))
        return 3;
    return 0;
}

/* Paths kept on the stack for the conflict checks: most updates have few. */
#define KH_UPDATE_STACK_PATHS 8

int kh_update_check(struct json_object *update, struct kytos_error *err)
{
    struct kh_path stack[KH_UPDATE_STACK_PATHS], *paths = stack;
    size_t n = 0, total = 0;
    int rc = 0;

    if (!json_object_is_type(update, json_type_object))
        return kh_store_err(err, KYTOS_EFILTER, "update must be a JSON object");
    if (json_object_object_length(update) == 0)
        return kh_store_err(err, KYTOS_EFILTER, "update is empty (use $set, $unset or $setOnInsert)");
    json_object_object_foreach(update, op0, fields0) {
        (void)op0;
        if (json_object_is_type(fields0, json_type_object))
            total += (size_t)json_object_object_length(fields0);
    }
    if (total > KH_UPDATE_STACK_PATHS &&
        !(paths = malloc(sizeof(*paths) * (total < KH_UPDATE_MAX_PATHS ? total : KH_UPDATE_MAX_PATHS))))
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    json_object_object_foreach(update, op, fields) {
        int kind = op_kind(op);
        if (!kind) {
            rc = kh_store_err(err, KYTOS_EFILTER,
                              "unknown update operator '%.60s' (use $set, $unset or $setOnInsert)",
                              op);
            goto out;
        }
        if (!json_object_is_type(fields, json_type_object)) {
            rc = kh_store_err(err, KYTOS_EFILTER, "%s needs an object of field: value", op);
            goto out;
        }
        json_object_object_foreach(fields, key, val) {
            if (n == KH_UPDATE_MAX_PATHS) {
                rc = kh_store_err(err, KYTOS_EFILTER, "update has more than %d fields",
                                  KH_UPDATE_MAX_PATHS);
                goto out;
            }
            if ((rc = kh_path_parse(&paths[n], key, op, err)) < 0)
                goto out;
            if (!strcmp(paths[n].seg[0], "_id")) {
                rc = kh_store_err(err, KYTOS_EINVAL, "%s: the _id field cannot be changed", op);
                goto out;
            }
            if (kind != 2 && (rc = kh_value_check(val, paths[n].n, op, err)) < 0)
                goto out;
            for (size_t k = 0; k < n; k++) {
                if (kh_path_conflict(&paths[k], &paths[n])) {
                    rc = kh_store_err(err, KYTOS_EFILTER,
                                      "updating the path '%.100s' would conflict with '%.100s'",
                                      paths[n].text, paths[k].text);
                    goto out;
                }
            }
            n++;
        }
    }
out:
    if (paths != stack)
        free(paths);
    return rc;
}

/* The container that holds the last segment, creating objects on the way. */
static int walk_create(struct json_object *doc, const struct kh_path *p, struct json_object **parent,
                       struct kytos_error *err)
{
    struct json_object *cur = doc;

    for (int k = 0; k < p->n - 1; k++) {
        struct json_object *child = NULL;
        size_t idx;
        if (json_object_is_type(cur, json_type_object)) {
            if (!json_object_object_get_ex(cur, p->seg[k], &child)) {
                if (!(child = json_object_new_object()) ||
                    json_object_object_add(cur, p->seg[k], child) < 0)
                    return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
            }
        } else if (json_object_is_type(cur, json_type_array)) {
            if (!kh_seg_index(p->seg[k], &idx) || idx > KH_ARRAY_PAD_MAX)
                return kh_store_err(err, KYTOS_EFILTER,
                                    "cannot use the part '%.60s' of '%.100s' to index an array",
                                    p->seg[k], p->text);
            if (idx < json_object_array_length(cur))
                child = json_object_array_get_idx(cur, idx);
            if (!child && idx >= json_object_array_length(cur)) {
                if (!(child = json_object_new_object()) ||
                    json_object_array_put_idx(cur, idx, child) < 0)
                    return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
            }
        }
        if (!child || !(json_object_is_type(child, json_type_object) ||
                        json_object_is_type(child, json_type_array)))
            return kh_store_err(err, KYTOS_EFILTER,
                                "cannot create field '%.60s' of '%.100s': '%.60s' is not an object",
                                p->seg[k + 1], p->text, p->seg[k]);
        cur = child;
    }
    *parent = cur;
    return 0;
}

static int set_path(struct json_object *doc, const struct kh_path *p, struct json_object *val,
                    struct kytos_error *err)
{
    struct json_object *parent = NULL, *copy = NULL;
    const char *last = p->seg[p->n - 1];
    size_t idx;
    int rc;

    if ((rc = walk_create(doc, p, &parent, err)) < 0)
        return rc;
    if (val && json_object_deep_copy(val, &copy, NULL) < 0)
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    if (json_object_is_type(parent, json_type_object)) {
        if (json_object_object_add(parent, last, copy) < 0)
            goto nomem;
        return 0;
    }
    if (!kh_seg_index(last, &idx) || idx > KH_ARRAY_PAD_MAX) {
        json_object_put(copy);
        return kh_store_err(err, KYTOS_EFILTER,
                            "cannot use the part '%.60s' of '%.100s' to index an array", last, p->text);
    }
    if (json_object_array_put_idx(parent, idx, copy) < 0)
        goto nomem;
    return 0;
nomem:
    json_object_put(copy);
    return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
}

static void unset_path(struct json_object *doc, const struct kh_path *p)
{
    struct kh_path parent = *p;
    struct json_object *c;
    size_t idx;

    parent.n = p->n - 1;
    c = parent.n ? kh_path_get(doc, &parent) : doc;
    if (json_object_is_type(c, json_type_object))
        json_object_object_del(c, p->seg[p->n - 1]);
    else if (c && json_object_is_type(c, json_type_array) && kh_seg_index(p->seg[p->n - 1], &idx) &&
             idx < json_object_array_length(c))
        json_object_array_put_idx(c, idx, NULL); /* MongoDB leaves a null in arrays */
}

int kh_update_apply(struct json_object *doc, struct json_object *update, int inserting,
                    struct kytos_error *err)
{
    struct kh_path p;
    int rc;

    json_object_object_foreach(update, op, fields) {
        int kind = op_kind(op);
        if (kind == 3 && !inserting)
            continue;
        json_object_object_foreach(fields, key, val) {
            if ((rc = kh_path_parse(&p, key, op, err)) < 0)
                return rc;
            if (kind == 2)
                unset_path(doc, &p);
            else if ((rc = set_path(doc, &p, val, err)) < 0)
                return rc;
        }
    }
    return kh_value_check(doc, 1, "updated document", err);
}

/* ---- plans for the embedded store's fast path ---- */

int kh_plan_make(struct kh_plan *p, struct json_object *update, struct kh_buf *b,
                 struct kytos_error *err)
{
    int rc;

    p->n = p->nset = p->nunset = p->nins = 0;
    p->sql_ok = p->flat = 1;
    p->grow = 0;
    json_object_object_foreach(update, op, fields) {
        int kind = op_kind(op);
        json_object_object_foreach(fields, key, val) {
            struct kh_plan_field *f;
            size_t klen = strlen(key);
            if (p->n == KH_PLAN_MAX_FIELDS)
                return 1;
            f = &p->f[p->n++];
            f->kind = kind;
            f->key = key;
            f->val = val;
            f->nseg = 1;
            f->val_off = f->val_len = 0;
            /* $."a"."b": the path as a bound parameter (no SQL quoting) */
            if (kh_buf_reserve(b, klen * 3 + 8) < 0)
                return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
            f->path_off = b->n;
            memcpy(b->p + b->n, "$.\"", 3);
            b->n += 3;
            for (size_t i = 0; i < klen; i++) {
                if (key[i] == '.') {
                    memcpy(b->p + b->n, "\".\"", 3);
                    b->n += 3;
                    f->nseg++;
                    continue;
                }
                if (key[i] == '\\')
                    p->sql_ok = 0;
                b->p[b->n++] = key[i];
            }
            b->p[b->n++] = '"';
            b->p[b->n] = '\0';
            f->path_len = b->n - f->path_off;
            if (kind == 2) {
                p->nunset++;
                continue;
            }
            if (kind == 1)
                p->nset++;
            else
                p->nins++;
            if (f->nseg > 1)
                p->flat = 0;
            if (!kh_utf8_valid(key, klen))
                p->sql_ok = p->flat = 0; /* the general path reports it */
            f->val_off = b->n;
            if ((rc = kh_json_write(b, val, f->nseg, op, err)) < 0)
                return rc;
            f->val_len = b->n - f->val_off;
            if (kind == 1) /* ,"a":{"b":value}: no more than this (see the path's text) */
                p->grow += f->val_len + f->path_len + 2 * (size_t)f->nseg + 2;
        }
    }
    /* an $unset path that is not UTF-8 cannot match a stored field */
    for (int k = 0; k < p->n; k++)
        if (p->f[k].kind == 2 && !kh_utf8_valid(p->f[k].key, strlen(p->f[k].key)))
            p->sql_ok = 0;
    return 0;
}

int kh_plan_has_array(const struct kh_plan *p, const struct kh_path *key, int inserting)
{
    for (int k = 0; k < p->n; k++) {
        const struct kh_plan_field *f = &p->f[k];
        size_t len;
        if (f->kind == 2 || (f->kind == 3 && !inserting) || f->nseg > key->n)
            continue;
        /* f's path is a prefix of key (both are checked paths) */
        len = strlen(f->key);
        if (strncmp(key->text, f->key, len) || (key->text[len] != '\0' && key->text[len] != '.'))
            continue;
        if (kh_path_has_array_from(f->val, key, f->nseg))
            return 1;
    }
    return 0;
}

int kh_plan_new_doc(const struct kh_plan *p, const char *id, struct kh_buf *b,
                    struct kytos_error *err)
{
    int rc;

    if (kh_buf_add(b, "{\"_id\":", 7) < 0)
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    if ((rc = kh_json_write_str(b, id, strlen(id), "_id", err)) < 0)
        return rc;
    for (int k = 0; k < p->n; k++) {
        const struct kh_plan_field *f = &p->f[k];
        rc = 0;
        if (f->kind == 2)
            continue; /* nothing to remove from a new document */
        if (kh_buf_add(b, ",", 1) < 0 ||
            (rc = kh_json_write_str(b, f->key, strlen(f->key), "updated document", err)) < 0 ||
            kh_buf_add(b, ":", 1) < 0 || kh_buf_reserve(b, f->val_len) < 0)
            return rc < 0 ? rc : kh_store_err(err, KYTOS_ENOMEM, "out of memory");
        /* b may have moved: copy by offset */
        memcpy(b->p + b->n, b->p + f->val_off, f->val_len);
        b->n += f->val_len;
        b->p[b->n] = '\0';
    }
    if (kh_buf_add(b, "}", 1) < 0)
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    return 0;
}
