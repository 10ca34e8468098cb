/* openapi/internal.h - shared declarations inside libkytos-openapi.
 * Internal names use the prefix koa_ ("kytos openapi"); nothing here is
 * exported from the shared library. */
#ifndef KYTOS_OPENAPI_INTERNAL_H
#define KYTOS_OPENAPI_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "kytos/openapi.h"

#if defined(__GNUC__)
#define KOA_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KOA_PRINTF(a, b)
#endif

/* ------------------------------------------------------------------ */
/* options.c                                                           */
/* ------------------------------------------------------------------ */

/* Copy what the caller gave (honouring struct_size) and fill defaults. */
void koa_options_resolve(const struct kytos_openapi_options *in,
                         struct kytos_openapi_options *out);

/* The string buffer: struct ku_buf, util/strbuf.h (shared with host/). */
#include "util/strbuf.h"

/* ------------------------------------------------------------------ */
/* arena.c: bump allocator for everything a compiled spec owns          */
/* ------------------------------------------------------------------ */

struct koa_arena_chunk;
struct koa_arena {
    struct koa_arena_chunk *head;
};

void *koa_arena_alloc(struct koa_arena *a, size_t n); /* zeroed */
char *koa_arena_strdup(struct koa_arena *a, const char *s);
char *koa_arena_strndup(struct koa_arena *a, const char *s, size_t n);
void koa_arena_free(struct koa_arena *a);

/* ------------------------------------------------------------------ */
/* diag.c                                                              */
/* ------------------------------------------------------------------ */

struct kytos_openapi_diags {
    struct kytos_openapi_diag *v;
    size_t n, cap;
    char *origin;
    size_t nerrors;
};

kytos_openapi_diags *koa_diags_new(const char *origin);
void koa_diag_add(kytos_openapi_diags *d, enum kytos_openapi_severity sev,
                  unsigned line, unsigned col, const char *pointer,
                  const char *fmt, ...) KOA_PRINTF(6, 7);
void koa_diag_vadd(kytos_openapi_diags *d, enum kytos_openapi_severity sev,
                   unsigned line, unsigned col, const char *pointer,
                   const char *fmt, va_list ap) KOA_PRINTF(6, 0);
/* Append a copy of every entry of src. */
void koa_diags_append(kytos_openapi_diags *dst, const kytos_openapi_diags *src);

/* ------------------------------------------------------------------ */
/* posmap.c: where each node of a loaded document came from.  Keys are
 * json_object pointers and object-key string pointers (both stable for
 * the life of the document). */
/* ------------------------------------------------------------------ */

struct koa_pos {
    const void *key;
    uint32_t line, col; /* 1-based */
};

struct koa_posmap {
    struct koa_pos *v;
    size_t n, cap; /* cap is 0 or a power of two */
};

void koa_posmap_put(struct koa_posmap *m, const void *key, uint32_t line,
                    uint32_t col);
bool koa_posmap_get(const struct koa_posmap *m, const void *key,
                    uint32_t *line, uint32_t *col);
void koa_posmap_free(struct koa_posmap *m);

/* ------------------------------------------------------------------ */
/* yaml_load.c                                                         */
/* ------------------------------------------------------------------ */

/* Parse YAML (1.1 scalar rules, as PyYAML) or JSON text into a json-c
 * tree.  Records positions in pos (may be NULL) and ambiguous plain
 * scalars as warnings in warn (may be NULL).  Errors go to d.  Returns 0
 * and *out, or -1. */
int koa_yaml_load(const char *text, size_t len,
                  const struct kytos_openapi_options *o,
                  struct koa_posmap *pos, kytos_openapi_diags *d,
                  kytos_openapi_diags *warn, json_object **out);

/* ------------------------------------------------------------------ */
/* json_strict.c                                                       */
/* ------------------------------------------------------------------ */

/* o must be resolved (koa_options_resolve). */
int koa_json_parse(const char *s, size_t len,
                   const struct kytos_openapi_options *o, json_object **out,
                   char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* jsonutil.c                                                          */
/* ------------------------------------------------------------------ */

enum koa_numkind { KOA_I64, KOA_U64, KOA_DBL };
struct koa_num {
    enum koa_numkind k;
    union {
        int64_t i;
        uint64_t u;
        double d;
    } v;
};

/* true when o is a JSON number; fills n. */
bool koa_num_get(json_object *o, struct koa_num *n);
/* Exact comparison (no lossy int/double casts): -1, 0, 1. */
int koa_num_cmp(const struct koa_num *a, const struct koa_num *b);
double koa_num_to_double(const struct koa_num *n);
/* Integer per dialect: OAS 3.0 (draft 4) wants a literal without fraction
 * or exponent; 3.1 (2020-12) any number with a zero fraction. */
bool koa_is_integer(json_object *o, bool dialect31);
/* JSON Schema equality: 1 == 1.0, true != 1, key order ignored. */
bool koa_json_equal(json_object *a, json_object *b);
uint64_t koa_json_hash(json_object *o);
/* Code points in valid UTF-8. */
size_t koa_utf8_len(const char *s, size_t n);
/* true when s[0..n) is valid UTF-8 (no surrogates, no overlongs). */
bool koa_utf8_valid(const char *s, size_t n);
/* Decode one code point at s (valid UTF-8 assumed); returns bytes used. */
int koa_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
void koa_utf8_encode(struct ku_buf *b, uint32_t cp);

/* JSON pointer helpers (RFC 6901). */
void koa_ptr_append_token(struct ku_buf *b, const char *tok, size_t n);
void koa_ptr_append_index(struct ku_buf *b, size_t i);
/* Resolve a URI fragment "#/a/b~1c" (percent-decoded, then ~1 ~0) within
 * root.  Returns 0 and *out (may be NULL for JSON null), -1 if absent. */
int koa_ptr_resolve(json_object *root, const char *ref, json_object **out);

/* ------------------------------------------------------------------ */
/* pyrepr.c: Python repr()/str() of JSON values for jsonschema-compatible
 * messages.  Output is capped near limit bytes (then "..."). */
/* ------------------------------------------------------------------ */

void koa_pyrepr(struct ku_buf *b, json_object *o, size_t limit);
void koa_pyrepr_str(struct ku_buf *b, const char *s, size_t n);
/* Python's str.isprintable() for one code point (Unicode categories from
 * the generated pyprintable.h, KOA_PY_UNIDATA_VERSION): what repr() keeps. */
bool koa_py_printable(uint32_t cp);
void koa_pystr(struct ku_buf *b, json_object *o, size_t limit);
void koa_pyrepr_num(struct ku_buf *b, const struct koa_num *n);
void koa_pyrepr_double(struct ku_buf *b, double d);

/* ------------------------------------------------------------------ */
/* regex.c: ECMA-262 patterns on PCRE2                                 */
/* ------------------------------------------------------------------ */

struct koa_regex;
/* Compile an ECMA-262 pattern; NULL with a message on failure. */
struct koa_regex *koa_regex_compile(const char *pat, size_t len, char *err,
                                    size_t errlen);
void koa_regex_free(struct koa_regex *re);
const char *koa_regex_source(const struct koa_regex *re);
/* The translated PCRE2 pattern (for tests). */
const char *koa_regex_pcre_source(const struct koa_regex *re);
/* Search s (valid UTF-8) for the pattern, within the given PCRE2 match
 * and depth limits.  1 = match, 0 = no match, -1 = limit hit or engine
 * error.  Thread safe (per-thread match data). */
int koa_regex_search(const struct koa_regex *re, const char *s, size_t n,
                     uint32_t match_limit, uint32_t depth_limit);

/* ------------------------------------------------------------------ */
/* format.c                                                            */
/* ------------------------------------------------------------------ */

enum koa_format {
    KOA_FMT_UNKNOWN = 0,
    KOA_FMT_INT32, KOA_FMT_INT64, KOA_FMT_FLOAT, KOA_FMT_DOUBLE,
    KOA_FMT_BYTE, KOA_FMT_BINARY, KOA_FMT_PASSWORD,
    KOA_FMT_DATE, KOA_FMT_DATE_TIME, KOA_FMT_TIME, KOA_FMT_DURATION,
    KOA_FMT_EMAIL, KOA_FMT_HOSTNAME, KOA_FMT_IPV4, KOA_FMT_IPV6,
    KOA_FMT_URI, KOA_FMT_URI_REFERENCE, KOA_FMT_URI_TEMPLATE,
    KOA_FMT_UUID, KOA_FMT_JSON_POINTER, KOA_FMT_REL_JSON_POINTER,
    KOA_FMT_REGEX
};

enum koa_format koa_format_lookup(const char *name);
/* true when the instance satisfies the format (non-applicable types
 * pass). */
bool koa_format_check(enum koa_format f, json_object *inst);

#endif
