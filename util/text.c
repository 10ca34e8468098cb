/* util/text.c - hex digits, percent-decoding, growable arrays (text.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util/text.h"

int ku_hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

long ku_pct_decode(const char *in, size_t len, char *out, unsigned flags, size_t *bad)
{
    size_t i, o = 0;

    for (i = 0; i < len; i++) {
        int c = (unsigned char)in[i];
        if (c == '%') {
            int hi = -1, lo = -1;
            if (len - i >= 3) {
                hi = ku_hexval((unsigned char)in[i + 1]);
                lo = ku_hexval((unsigned char)in[i + 2]);
            }
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0 && (flags & KU_PCT_NO_NUL))) {
                if (bad)
                    *bad = i;
                if (out)
                    out[o] = '\0';
                return -1;
            }
            c = hi * 16 + lo;
            i += 2;
        } else if (c == '+' && (flags & KU_PCT_PLUS)) {
            c = ' ';
        }
        if (out)
            out[o] = (char)c;
        o++;
    }
    if (out)
        out[o] = '\0';
    return (long)o;
}

int ku_reserve(void *arrp, size_t *cap, size_t need, size_t elsize)
{
    void *arr, *np;
    size_t ncap = *cap ? *cap : 8;

    if (need <= *cap)
        return 0;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return -1;
        ncap *= 2;
    }
    if (elsize && ncap > SIZE_MAX / elsize)
        return -1;
    memcpy(&arr, arrp, sizeof arr);
    if (!(np = realloc(arr, ncap * elsize)))
        return -1;
    memcpy(arrp, &np, sizeof np);
    *cap = ncap;
    return 0;
}
