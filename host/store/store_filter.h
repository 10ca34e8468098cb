/* host/store/store_filter.h - compiled MongoDB-style filters, matched in C.
 *
 * {"a.b": v} equality, per-field $eq $ne $in $nin $gt $gte $lt $lte
 * $exists, and top-level $and / $or lists.  MongoDB's rules: a path that
 * meets an array matches when any element matches (or the whole array
 * equals the value), numeric parts index arrays, missing equals null, and
 * range operators only compare values of the same type class. */
#ifndef KH_STORE_FILTER_H
#define KH_STORE_FILTER_H

#include "store/store_doc.h"

enum kh_cond_op { KH_OP_EQ, KH_OP_IN, KH_OP_GT, KH_OP_GTE, KH_OP_LT, KH_OP_LTE, KH_OP_EXISTS };

struct kh_cond {
    struct kh_path path;
    int op;                   /* enum kh_cond_op */
    int negate;               /* $ne, $nin, $exists: false */
    struct json_object *val;  /* borrowed from the filter's own copy; $in: an array */
};

struct kh_filter {
    int is_or;                /* this node: all conds and kids (0), or any kid (1) */
    int nconds, nkids;
    struct kh_cond *conds;
    struct kh_filter **kids;
    struct json_object *copy; /* root only: the private copy of the spec */
};

/* NULL or {} spec gives *out = NULL (matches everything). */
int kh_filter_compile(struct json_object *spec, struct kh_filter **out, struct kytos_error *err);
int kh_filter_match(const struct kh_filter *f, struct json_object *doc);
void kh_filter_free(struct kh_filter *f);

#endif
