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

int kh_update_check(struct json_object *update, struct kytos_error *err)
{
    struct kh_path *paths;
    size_t n = 0;
    int rc = 0;

    if (!json_object_is_type(update, json_type_object))
        return kh_store_err(err, KYTOS_EFILTER, "update must be a JSON object");
    if (json_object_object_length(update) == 0)
        return kh_store_err(err, KYTOS_EFILTER, "update is empty (use $set, $unset or $setOnInsert)");
    if (!(paths = malloc(sizeof(*paths) * KH_UPDATE_MAX_PATHS)))
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
