/* host/store/store_doc.h - JSON document work shared by the store backends:
 * dotted paths, MongoDB's value order, $set/$unset updates, projections,
 * sort keys and the checks a document passes before it is stored.
 *
 * Numbers: json-c keeps int64, uint64 (above INT64_MAX) and double apart;
 * every comparison here is exact across the three (no rounding through
 * double), so cookies >= 2^63 compare, sort and match as integers. */
#ifndef KH_STORE_DOC_H
#define KH_STORE_DOC_H

#include "util/strbuf.h"
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

/* ---- the growable byte buffer: struct ku_buf (util/strbuf.h) ---- */

/* ---- documents ---- */
/* Append v's JSON text to b, checking it as kh_value_check does (v at
 * nesting depth; strings and field names valid UTF-8; finite numbers).
 * The text is byte for byte json-c's (JSON_C_TO_STRING_PLAIN |
 * JSON_C_TO_STRING_NOSLASHESCAPE; json-c itself writes doubles), so stored
 * text never depends on which path wrote it: unique indexes compare it. */
int kh_json_write(struct ku_buf *b, struct json_object *v, int depth, const char *what,
                  struct kytos_error *err);
/* Append s (len bytes) as a JSON string; KYTOS_EINVAL if not UTF-8. */
int kh_json_write_str(struct ku_buf *b, const char *s, size_t len, const char *what,
                      struct kytos_error *err);
/* Check doc for storage (an object; depth <= KH_STORE_MAX_DEPTH; finite
 * numbers; "_id", if present, a string equal to id) and append its text
 * to b, with "_id": id first when doc has none.  doc is only read (json-c
 * caches the text of doubles in them, as json_object_to_json_string does). */
int kh_doc_write(struct ku_buf *b, struct json_object *doc, const char *id,
                 struct kytos_error *err);
/* The same, into a malloc'd *text. */
int kh_doc_encode(struct json_object *doc, const char *id, char **text, size_t *len,
                  struct kytos_error *err);
/* Parse a stored document (hostile: bounded depth, must be an object). */
struct json_object *kh_doc_parse(const char *text, size_t len, const char *coll,
                                 struct kytos_error *err);
/* Check a value for use in a document (depth, finite numbers). */
int kh_value_check(struct json_object *v, int depth, const char *what, struct kytos_error *err);

/* ---- updates: {"$set": {...}, "$unset": {...}, "$setOnInsert": {...}} ---- */
int kh_update_check(struct json_object *update, struct kytos_error *err);
/* The same, the values' own checks (kh_value_check's) left out when
 * values is 0: for an update whose values the caller writes as text at
 * once (kh_json_write checks the same things, with the same messages). */
int kh_update_check_ex(struct json_object *update, int values, struct kytos_error *err);
/* Apply a checked update in place; inserting = the document is being
 * created by an upsert ($setOnInsert applies). */
int kh_update_apply(struct json_object *doc, struct json_object *update, int inserting,
                    struct kytos_error *err);

/* ---- updates applied to the stored text (the embedded store's fast path) ----
 * A checked update, split into fields with their values' JSON text, so that
 * the stored document's text can be patched as text (kh_plan_splice), not
 * parsed into json-c objects and written again. */
#define KH_PLAN_MAX_FIELDS 16
struct kh_plan_field {
    int kind;                 /* 1 $set, 2 $unset, 3 $setOnInsert */
    const char *key;          /* the dotted path, borrowed from the update */
    int nseg;
    unsigned short seg[KH_PATH_MAX_SEGS + 1]; /* where segment k starts in key;
                                                 seg[nseg] = strlen(key) + 1 */
    struct json_object *val;  /* borrowed */
    size_t val_off, val_len;  /* $set, $setOnInsert: the value's text in the buffer */
};
struct kh_plan {
    int n;
    int text_ok;              /* the $set/$setOnInsert paths are UTF-8 (else the general
                                 path reports them) */
    size_t grow;              /* the $set fields add at most this many bytes */
    struct kh_plan_field f[KH_PLAN_MAX_FIELDS];
};
/* Plan a checked update (kh_update_check passed), the values' text
 * appended to b.  Returns 0, 1 if the update has more than
 * KH_PLAN_MAX_FIELDS fields (no plan), or an error (values are checked
 * again as they are written). */
int kh_plan_make(struct kh_plan *p, struct json_object *update, struct ku_buf *b,
                 struct kytos_error *err);
/* kh_plan_make() with the values' text written beforehand (by an earlier
 * kh_plan_make() of the same, unchanged update: vals, the nlens values'
 * lengths in order), copied instead of written again.  1 also when the
 * update does not have nlens values (the caller plans it itself). */
int kh_plan_make_pre(struct kh_plan *p, struct json_object *update, struct ku_buf *b,
                     const char *vals, const uint32_t *lens, size_t nlens,
                     struct kytos_error *err);
/* 1 if a $set (with inserting, also $setOnInsert) value puts an array on
 * the path key.  (A plan applied by kh_plan_splice() goes through objects
 * only, so no other array can appear on an index's path.) */
int kh_plan_has_array(const struct kh_plan *p, const struct kh_path *key, int inserting);
/* Apply $set and $unset to a stored document's text, the result appended
 * to b, as kh_update_apply() + kh_json_write() would make it: values
 * replaced in place, new fields appended in the update's order (missing
 * objects on the way created).  The text is input too, checked as strictly
 * as kh_doc_parse() + kh_value_check() would (JSON, an object, UTF-8,
 * depth, finite numbers).  Where this is not sure -- a path through an
 * array, a scalar or null; escaped field names; \\u escapes but control
 * characters; odd numbers -- it returns 1 and leaves b as it was, for the
 * general path to decide.  Returns 0 done, 1, or an error. */
int kh_plan_splice(const struct kh_plan *p, const char *text, size_t len, struct ku_buf *b,
                   struct kytos_error *err);
/* The new document {"_id": id, <$set and $setOnInsert fields>} of an
 * upsert, appended to b, as kh_update_apply() on {"_id": id} makes it.
 * Returns 0, 1 (!text_ok: the general path), or an error. */
int kh_plan_new_doc(const struct kh_plan *p, const char *id, struct ku_buf *b,
                    struct kytos_error *err);
/* 1 if s (len bytes) is valid UTF-8. */
int kh_utf8_valid(const char *s, size_t len);
/* Bytes in the UTF-8 sequence at s (n left, s[0] >= 0x80), 0 if invalid. */
size_t kh_utf8_seq_len(const unsigned char *s, size_t n);
/* kh_path_has_array() for the part of p from segment k on, starting at v. */
int kh_path_has_array_from(struct json_object *v, const struct kh_path *p, int k);

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
/* kh_sort_docs() ordering docs (documents or the parts of them that hold
 * the sort paths and "_id") and items (NULL, or one per doc) alike. */
void kh_sort_by_keys(const struct kh_sort *s, struct json_object **docs, void **items, size_t n);
/* The key of doc for the sort's path k, as kh_sort_docs() compares it
 * (borrowed from doc; NULL for missing or null). */
struct json_object *kh_sort_key(const struct kh_sort *s, int k, struct json_object *doc);
/* Sort items by keys already found: row j has keys[j * nkeys ..] and the
 * tie breaker ids[j] ("_id").  0, or -1 out of memory (order unchanged). */
int kh_sort_keyed(const struct kh_sort *s, struct json_object **keys, struct json_object **ids,
                  void **items, size_t n);
/* The paths a compiled sort reads (0 for NULL). */
int kh_sort_nkeys(const struct kh_sort *s);
const struct kh_path *kh_sort_path(const struct kh_sort *s, int k);
/* 1 if p is the exclusion {"_id": 0} alone. */
int kh_proj_drops_only_id(const struct kh_proj *p);

/* JSON strings 8 bytes at a time (the splicer's scanner, the writer's
 * escaper): the high bit of each byte of x that is '"', '\\', below 0x20
 * or above 0x7f.  Only the lowest flagged byte is sure to be a true one
 * (borrows only go up), which is all the callers use. */
static inline uint64_t kh_json_special_bytes(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t q = x ^ (ones * '"'), bs = x ^ (ones * '\\');
    return ((x - ones * 0x20) | x | ((q - ones) & ~q) | ((bs - ones) & ~bs)) & highs;
}

/* The index of the first byte (in memory order) flagged in m, a word
 * loaded with memcpy. */
static inline unsigned kh_first_flagged(uint64_t m)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return (unsigned)__builtin_ctzll(m) >> 3;
#else
    return (unsigned)__builtin_clzll(m) >> 3;
#endif
}

#endif
