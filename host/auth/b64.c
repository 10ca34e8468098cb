/* host/auth/b64.c - base64 and base64url (b64.h). */
#include "auth/b64.h"
#include <stdint.h>
#include <string.h>

static const char std_alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char url_alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static size_t encode(const char *alpha, int pad, const unsigned char *in, size_t len, char *out,
                     size_t cap)
{
    size_t i, o = 0, need = pad ? (len + 2) / 3 * 4 : len / 3 * 4 + (len % 3 ? len % 3 + 1 : 0);

    if (need + 1 > cap)
        return (size_t)-1;
    for (i = 0; i + 2 < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = alpha[v >> 18 & 63];
        out[o++] = alpha[v >> 12 & 63];
        out[o++] = alpha[v >> 6 & 63];
        out[o++] = alpha[v & 63];
    }
    if (len - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        out[o++] = alpha[v >> 18 & 63];
        out[o++] = alpha[v >> 12 & 63];
        if (pad) {
            out[o++] = '=';
            out[o++] = '=';
        }
    } else if (len - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        out[o++] = alpha[v >> 18 & 63];
        out[o++] = alpha[v >> 12 & 63];
        out[o++] = alpha[v >> 6 & 63];
        if (pad)
            out[o++] = '=';
    }
    out[o] = '\0';
    return o;
}

size_t kh_b64url_encode(const unsigned char *in, size_t len, char *out, size_t cap)
{
    return encode(url_alpha, 0, in, len, out, cap);
}

size_t kh_b64_encode(const unsigned char *in, size_t len, char *out, size_t cap)
{
    return encode(std_alpha, 1, in, len, out, cap);
}

static int value_of(const char *alpha, char c)
{
    const char *p = c ? strchr(alpha, c) : NULL;
    return p ? (int)(p - alpha) : -1;
}

/* Decode len characters of alpha (no padding); len % 4 != 1. */
static int decode(const char *alpha, const char *in, size_t len, unsigned char *out, size_t cap,
                  size_t *outlen)
{
    size_t i, o = 0, rem = len % 4, need = len / 4 * 3 + (rem ? rem - 1 : 0);
    uint32_t acc = 0;
    int bits = 0;

    if (rem == 1 || need > cap)
        return -1;
    for (i = 0; i < len; i++) {
        int v = value_of(alpha, in[i]);
        if (v < 0)
            return -1;
        acc = (acc << 6 | (uint32_t)v) & 0xffffff;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    /* the bits left over must be zero: one encoding per value */
    if (bits && (acc & ((1u << bits) - 1)))
        return -1;
    *outlen = o;
    return 0;
}

int kh_b64url_decode(const char *in, size_t len, unsigned char *out, size_t cap, size_t *outlen)
{
    return decode(url_alpha, in, len, out, cap, outlen);
}

int kh_b64_decode(const char *in, size_t len, unsigned char *out, size_t cap, size_t *outlen)
{
    size_t pad = 0;

    if (len % 4)
        return -1;
    while (pad < 2 && len > pad && in[len - 1 - pad] == '=')
        pad++;
    if (pad && (len - pad) % 4 == 1)
        return -1;
    return decode(std_alpha, in, len - pad, out, cap, outlen);
}
