/* plugins/flow_manager/pyjson.h - Python's json.dumps(x, sort_keys=True)
 * text for json-c values, and the md5 hex digest Kytos takes of it.
 *
 * Kytos names flows by md5(json.dumps(d, sort_keys=True)) with the default
 * separators ", " and ": " and ensure_ascii=True (napps.md 2.4, 5.6), so the
 * ids are only compatible if this text is byte-exact: keys sorted by code
 * point, non-ASCII as \uXXXX (surrogate pairs), ints in full uint64 range,
 * floats as Python's repr (shortest round trip, "1.0", "1e+16", "NaN"). */
#ifndef FM_PYJSON_H
#define FM_PYJSON_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

/* A growable byte buffer; starts on caller storage, moves to the heap. */
struct fm_buf {
    char *p;
    size_t len, cap;
    int heap;   /* p was malloc'd */
    int oom;    /* an append failed: the content is truncated */
};

void fm_buf_init(struct fm_buf *b, char *stack, size_t cap);
void fm_buf_free(struct fm_buf *b);
void fm_buf_add(struct fm_buf *b, const char *s, size_t n);
void fm_buf_adds(struct fm_buf *b, const char *s);
/* v in decimal into out (NUL terminated); its length. */
size_t fm_utoa(char out[21], uint64_t v);
/* "<a><sep><b>" into out, cut to cap; "<a>, <idx>". (Error paths' names,
 * built on every call: cheaper than snprintf.) */
void fm_join(char *out, size_t cap, const char *a, const char *sep, const char *b);
void fm_join_index(char *out, size_t cap, const char *a, size_t idx);
void fm_buf_addu64(struct fm_buf *b, uint64_t v);
void fm_buf_addi64(struct fm_buf *b, int64_t v);

/* Append json.dumps(v, sort_keys=True) of v (NULL = null). */
void fm_py_dump(struct fm_buf *b, struct json_object *v);
/* Append a Python JSON string literal (ensure_ascii) of s[0..n). */
void fm_py_str(struct fm_buf *b, const char *s, size_t n);
/* Append Python's repr() of a float as json.dumps writes it. */
void fm_py_float(struct fm_buf *b, double d);
/* Append an integer json-c value, keeping uint64 values above INT64_MAX. */
void fm_py_int(struct fm_buf *b, struct json_object *v);

/* 1 when v is an integer literal beyond int64..uint64, which the strict
 * reader keeps as a double remembering its text (its userdata): a Python
 * int, printed as that text. */
int fm_py_is_bignum(struct json_object *v);

/* Append Python's repr() of the value (error texts quote it: "flow: {...}"). */
void fm_py_repr(struct fm_buf *b, struct json_object *v);

/* md5 hex (32 chars + NUL) of data. */
void fm_md5_hex(const void *data, size_t len, char out[33]);

#endif
