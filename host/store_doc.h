/* host/store_doc.h - JSON document work shared by the store backends:
 * dotted paths, MongoDB's value order, $set/$unset updates, projections,
 * sort keys and the checks a document passes before it is stored.
 *
 * Numbers: json-c keeps int64, uint64 (above INT64_MAX) and double apart;
 * every comparison here is exact across the three (no rounding through
 * double), so cookies >= 2^63 compare, sort and match as integers. */
#ifndef KH_STORE_DOC_H
#define KH_STORE_DOC_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include <kytos/errors.h>

#define KH_PATH_MAX 512        /* bytes of a dotted path */
#define KH_PATH_MAX_SEGS 32    /* segments of a dotted path */

/* A checked dotted path "a.b.c": non-empty segments, no segment starting
 * with '$', no '"', '\'' is allowed, no control characters. */
struct kh_path {
    int n;
    char text[KH_PATH_MAX + 1];
    char buf[KH_PATH_MAX + 1];           /* the segments, NUL separated */
    const char *seg[KH_PATH_MAX_SEGS];
};

/* what names the path in error messages ("filter", "$set", "index key"). */
int kh_path_parse(struct kh_path *p, const char *s, const char *what, struct kytos_error *err);
/* SQLite JSON path '$."a"."b"' as an SQL string literal (quotes included,
 * single quotes doubled).  Returns 0, or -1 if out is too small. */
int kh_path_sql_literal(const struct kh_path *p, char *out, size_t outlen);
/* 1 if segment is a non-negative decimal array index (no sign, no leading 0). */
int kh_seg_index(const char *seg, size_t *idx);
/* 1 if a and b are equal or one is a segment prefix of the other. */
int kh_path_conflict(const struct kh_path *a, const struct kh_path *b);
/* The value at a path, walking objects (and arrays for numeric segments)
 * only; NULL when absent.  Borrowed. */
struct json_object *kh_path_get(struct json_object *doc, const struct kh_path *p);
/* 1 if walking p through doc meets an array (on the way or at the end). */
int kh_path_has_array(struct json_object *doc, const struct kh_path *p);

/* ---- values ---- */
/* MongoDB's type order: missing/null 1, numbers 2, strings 3, objects 4,
 * arrays 5, booleans 8. */
int kh_json_class(struct json_object *v);
/* Total order: by class, then by value (numbers exactly, strings bytewise,
 * objects and arrays member by member).  NULL counts as null. */
int kh_json_cmp(struct json_object *a, struct json_object *b);
int kh_json_equal(struct json_object *a, struct json_object *b);
/* A number read exactly.  Returns 0 if v is not a number. */
struct kh_num {
    int kind;      /* 0 int64, 1 uint64 above INT64_MAX, 2 double */
    int64_t i;
    uint64_t u;
    double d;
};
int kh_num_get(struct json_object *v, struct kh_num *n);
int kh_num_cmp(const struct kh_num *a, const struct kh_num *b);

/* ---- documents ---- */
/* Check doc for storage (an object; depth <= KH_STORE_MAX_DEPTH; finite
 * numbers; "_id", if present, a string equal to id) and serialize it with
 * "_id": id first.  *text is malloc'd.  doc is only read (json-c caches the
 * text in it, as json_object_to_json_string does). */
int kh_doc_encode(struct json_object *doc, const char *id, char **text, size_t *len,
                  struct kytos_error *err);
/* Serialized text (compact, '/' not escaped), valid until o changes or is
 * freed; ETOOBIG past KH_STORE_MAX_DOC. */
int kh_doc_text(struct json_object *o, const char **text, size_t *len, struct kytos_error *err);
/* Parse a stored document (hostile: bounded depth, must be an object). */
struct json_object *kh_doc_parse(const char *text, size_t len, const char *coll,
                                 struct kytos_error *err);
/* Check a value for use in a document (depth, finite numbers). */
int kh_value_check(struct json_object *v, int depth, const char *what, struct kytos_error *err);

/* ---- updates: {"$set": {...}, "$unset": {...}, "$setOnInsert": {...}} ---- */
int kh_update_check(struct json_object *update, struct kytos_error *err);
/* Apply a checked update in place; inserting = the document is being
 * created by an upsert ($setOnInsert applies). */
int kh_update_apply(struct json_object *doc, struct json_object *update, int inserting,
                    struct kytos_error *err);

/* ---- projections ---- */
struct kh_proj;
/* NULL or empty spec: *out = NULL (whole documents). */
int kh_proj_compile(struct json_object *spec, struct kh_proj **out, struct kytos_error *err);
/* Consumes doc, returns the projected document (new ref). */
struct json_object *kh_proj_apply(const struct kh_proj *p, struct json_object *doc);
void kh_proj_free(struct kh_proj *p);

/* ---- sort: {"a": 1, "b.c": -1} ---- */
struct kh_sort;
int kh_sort_compile(struct json_object *spec, struct kh_sort **out, struct kytos_error *err);
/* Sort docs in place by the spec, ties by _id. */
void kh_sort_docs(const struct kh_sort *s, struct json_object **docs, size_t n);
void kh_sort_free(struct kh_sort *s);

#endif
