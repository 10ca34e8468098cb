/* util/text.h - hex digits, percent-decoding and growable arrays, shared
 * by host/ and openapi/. */
#ifndef KU_TEXT_H
#define KU_TEXT_H
#include <stddef.h>

/* The value of one hex digit, or -1. */
int ku_hexval(int c);

/* Percent-decoding (RFC 3986 2.1).  A '%' not followed by two hex digits
 * ("%zz", "%4", a trailing "%") is a bad escape: the input is malformed,
 * never passed through as it is, so every reader of a target agrees on
 * what it names. */
enum {
    KU_PCT_PLUS = 1,          /* '+' is a space (query strings, forms) */
    KU_PCT_NO_NUL = 2,        /* "%00" is an error (a C string would end there) */
};
/* Decode in[0, len) into out (room for len + 1 bytes; NUL terminated).
 * Returns the decoded length, or -1 with *bad (when not NULL) the offset
 * of the offending '%' in in.  out may be NULL: only check the escapes. */
long ku_pct_decode(const char *in, size_t len, char *out, unsigned flags, size_t *bad);

/* Growable arrays: room for need elements of *arrp (an array of elsize
 * bytes each, cap of them allocated), doubling from 8.  0, or -1 with the
 * array unchanged.  KU_RESERVE(arr, cap, need) for arr an element pointer
 * and cap a size_t. */
int ku_reserve(void *arrp, size_t *cap, size_t need, size_t elsize);
#define KU_RESERVE(arr, cap, need) \
    ((need) <= (cap) ? 0 : ku_reserve(&(arr), &(cap), (need), sizeof *(arr)))

#endif
