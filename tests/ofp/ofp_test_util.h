/* tests/ofp/ofp_test_util.h - hex helpers for the codec's unit tests. */
#ifndef KYTOS_OFP_TEST_UTIL_H
#define KYTOS_OFP_TEST_UTIL_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofp.h"

/* Hex text (spaces ignored) -> bytes in out (cap); returns the byte count. */
static inline size_t hex2bin(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int hi = -1;

    for (; *hex; hex++) {
        int v;
        char c = *hex;
        if (c == ' ')
            continue;
        v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        ck_assert_msg(v >= 0, "bad hex digit '%c'", c);
        if (hi < 0) {
            hi = v;
        } else {
            ck_assert_uint_lt(n, cap);
            out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    ck_assert_int_eq(hi, -1);
    return n;
}

/* bytes -> lower-case hex (no spaces) in a malloc'd string. */
static inline char *bin2hex(const uint8_t *p, size_t n)
{
    char *s = malloc(2 * n + 1);
    size_t i;

    ck_assert_ptr_nonnull(s);
    for (i = 0; i < n; i++) {
        s[2 * i] = "0123456789abcdef"[p[i] >> 4];
        s[2 * i + 1] = "0123456789abcdef"[p[i] & 15];
    }
    s[2 * n] = '\0';
    return s;
}

/* Assert the whole buffer equals the hex text (spaces ignored). */
#define ck_assert_buf_hex(buf, hex)                                                      \
    do {                                                                                 \
        char *got_ = bin2hex((buf)->data, (buf)->len);                                   \
        char want_[8192];                                                                \
        size_t w_ = 0;                                                                   \
        for (const char *h_ = (hex); *h_; h_++)                                          \
            if (*h_ != ' ')                                                              \
                want_[w_++] = *h_;                                                       \
        want_[w_] = '\0';                                                                \
        ck_assert_str_eq(got_, want_);                                                   \
        free(got_);                                                                      \
    } while (0)

/* Set the header length of a message in place (to forge hostile lengths). */
static inline void set_len(uint8_t *msg, size_t len)
{
    msg[2] = (uint8_t)(len >> 8);
    msg[3] = (uint8_t)len;
}

#endif
