/* plugins/flow_manager/pyjson.c - Python json.dumps text and md5 ids. */
#include "pyjson.h"
#include "pyprintable.h"   /* openapi/: str.isprintable()'s table */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* MD5() is deprecated in OpenSSL 3 in favour of EVP_Digest, which looks
 * the algorithm up in the provider store on every call: for the ~200-byte
 * texts Kytos hashes into flow ids, that lookup costs more than the hash
 * (two per flow posted).  md5 here names things, it protects nothing. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/md5.h>

void fm_buf_init(struct fm_buf *b, char *stack, size_t cap)
{
    b->p = stack;
    b->len = 0;
    b->cap = cap;
    b->heap = 0;
    b->oom = 0;
}

void fm_buf_free(struct fm_buf *b)
{
    if (b->heap)
        free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->heap = 0;
}

static int buf_reserve(struct fm_buf *b, size_t extra)
{
    size_t need, ncap;
    char *np;

    if (b->oom)
        return -1;
    need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    ncap = b->cap ? b->cap * 2 : 256;
    while (ncap < need)
        ncap *= 2;
    if (b->heap) {
        np = realloc(b->p, ncap);
    } else {
        np = malloc(ncap);
        if (np && b->len)
            memcpy(np, b->p, b->len);
    }
    if (!np) {
        b->oom = 1;
        return -1;
    }
    b->p = np;
    b->cap = ncap;
    b->heap = 1;
    return 0;
}

void fm_buf_add(struct fm_buf *b, const char *s, size_t n)
{
    if (buf_reserve(b, n) != 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void fm_buf_adds(struct fm_buf *b, const char *s)
{
    fm_buf_add(b, s, strlen(s));
}

size_t fm_utoa(char out[21], uint64_t v)
{
    char tmp[20];
    size_t n = 0, k;

    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    for (k = 0; k < n; k++)
        out[k] = tmp[n - 1 - k];
    out[n] = '\0';
    return n;
}

/* (snprintf was 4% of a flow POST: flow ids print every number) */
void fm_buf_addu64(struct fm_buf *b, uint64_t v)
{
    char tmp[21];
    fm_buf_add(b, tmp, fm_utoa(tmp, v));
}

void fm_buf_addi64(struct fm_buf *b, int64_t v)
{
    char tmp[22];
    if (v >= 0) {
        fm_buf_add(b, tmp, fm_utoa(tmp, (uint64_t)v));
        return;
    }
    tmp[0] = '-';
    fm_buf_add(b, tmp, 1 + fm_utoa(tmp + 1, (uint64_t)0 - (uint64_t)v));
}

void fm_join(char *out, size_t cap, const char *a, const char *sep, const char *b)
{
    size_t n = 0;
    const char *parts[3] = {a, sep, b};

    for (int k = 0; k < 3 && cap; k++)
        for (const char *p = parts[k]; *p && n + 1 < cap; p++)
            out[n++] = *p;
    if (cap)
        out[n] = '\0';
}

void fm_join_index(char *out, size_t cap, const char *a, size_t idx)
{
    char num[21];
    fm_utoa(num, (uint64_t)idx);
    fm_join(out, cap, a, ", ", num);
}

/* ---- strings (ensure_ascii=True) ---- */

static void add_u16(struct fm_buf *b, unsigned cp)
{
    char tmp[8];
    snprintf(tmp, sizeof tmp, "\\u%04x", cp & 0xffffu);
    fm_buf_add(b, tmp, 6);
}

/* Decode one UTF-8 sequence; returns its length, or 0 when malformed. */
static size_t utf8_decode(const unsigned char *s, size_t n, unsigned *cp)
{
    unsigned c = s[0];
    size_t len, i;
    unsigned v, min;

    if (c < 0xc2 || c > 0xf4)
        return 0;
    if (c < 0xe0) {
        len = 2, v = c & 0x1f, min = 0x80;
    } else if (c < 0xf0) {
        len = 3, v = c & 0x0f, min = 0x800;
    } else {
        len = 4, v = c & 0x07, min = 0x10000;
    }
    if (n < len)
        return 0;
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

void fm_py_str(struct fm_buf *b, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, run = 0;

    fm_buf_add(b, "\"", 1);
    while (i < n) {
        unsigned c = s[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            run++;
            i++;
            continue;
        }
        if (run)
            fm_buf_add(b, str + i - run, run);
        run = 0;
        switch (c) {
        case '"': fm_buf_add(b, "\\\"", 2); i++; continue;
        case '\\': fm_buf_add(b, "\\\\", 2); i++; continue;
        case '\n': fm_buf_add(b, "\\n", 2); i++; continue;
        case '\r': fm_buf_add(b, "\\r", 2); i++; continue;
        case '\t': fm_buf_add(b, "\\t", 2); i++; continue;
        case '\b': fm_buf_add(b, "\\b", 2); i++; continue;
        case '\f': fm_buf_add(b, "\\f", 2); i++; continue;
        default: break;
        }
        if (c < 0x80) {
            add_u16(b, c);
            i++;
            continue;
        }
        {
            unsigned cp;
            size_t len = utf8_decode(s + i, n - i, &cp);
            if (len == 0) { /* not UTF-8: escape the byte itself */
                add_u16(b, c);
                i++;
                continue;
            }
            if (cp >= 0x10000) {
                cp -= 0x10000;
                add_u16(b, 0xd800 | (cp >> 10));
                add_u16(b, 0xdc00 | (cp & 0x3ff));
            } else {
                add_u16(b, cp);
            }
            i += len;
        }
    }
    if (run)
        fm_buf_add(b, str + n - run, run);
    fm_buf_add(b, "\"", 1);
}

/* ---- numbers ---- */

void fm_py_int(struct fm_buf *b, struct json_object *v)
{
    int64_t s = json_object_get_int64(v);
    if (s < 0)
        fm_buf_addi64(b, s);
    else
        fm_buf_addu64(b, json_object_get_uint64(v));
}

/* Python's float repr: the shortest digits that round-trip, fixed notation
 * when the decimal exponent is in [-4, 16), else d.ddde+XX. */
void fm_py_float(struct fm_buf *b, double d)
{
    char tmp[40], digits[20], out[48];
    int prec, ndig = 0, exp10, decpt, pos = 0, i;
    char *e;

    if (isnan(d)) {
        fm_buf_adds(b, "NaN");
        return;
    }
    if (isinf(d)) {
        fm_buf_adds(b, d < 0 ? "-Infinity" : "Infinity");
        return;
    }
    for (prec = 0; prec < 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    if (prec == 17)
        snprintf(tmp, sizeof tmp, "%.16e", d);
    /* tmp = [-]d[.ddd]e[+-]XX */
    e = strchr(tmp, 'e');
    if (!e) {
        fm_buf_adds(b, tmp);
        return;
    }
    exp10 = atoi(e + 1);
    for (i = 0; tmp + i < e; i++) {
        if (tmp[i] >= '0' && tmp[i] <= '9' && ndig < (int)sizeof digits - 1)
            digits[ndig++] = tmp[i];
    }
    while (ndig > 1 && digits[ndig - 1] == '0')
        ndig--;
    digits[ndig] = '\0';
    decpt = exp10 + 1;
    if (tmp[0] == '-')
        out[pos++] = '-';
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            out[pos++] = '0';
            out[pos++] = '.';
            for (i = 0; i < -decpt; i++)
                out[pos++] = '0';
            memcpy(out + pos, digits, (size_t)ndig);
            pos += ndig;
        } else if (decpt >= ndig) {
            memcpy(out + pos, digits, (size_t)ndig);
            pos += ndig;
            for (i = ndig; i < decpt; i++)
                out[pos++] = '0';
            out[pos++] = '.';
            out[pos++] = '0';
        } else {
            memcpy(out + pos, digits, (size_t)decpt);
            pos += decpt;
            out[pos++] = '.';
            memcpy(out + pos, digits + decpt, (size_t)(ndig - decpt));
            pos += ndig - decpt;
        }
        out[pos] = '\0';
    } else {
        out[pos++] = digits[0];
        if (ndig > 1) {
            out[pos++] = '.';
            memcpy(out + pos, digits + 1, (size_t)(ndig - 1));
            pos += ndig - 1;
        }
        snprintf(out + pos, sizeof out - (size_t)pos, "e%c%02d", exp10 < 0 ? '-' : '+',
                 exp10 < 0 ? -exp10 : exp10);
    }
    fm_buf_adds(b, out);
}

/* ---- containers ---- */

struct kv {
    const char *k;
    struct json_object *v;
};

static int kv_cmp(const void *a, const void *b)
{
    return strcmp(((const struct kv *)a)->k, ((const struct kv *)b)->k);
}

static void dump_object(struct fm_buf *b, struct json_object *o)
{
    struct kv stack[32], *kvs = stack;
    size_t n = (size_t)json_object_object_length(o), i = 0;

    if (n == 0) {
        fm_buf_add(b, "{}", 2);
        return;
    }
    if (n > sizeof stack / sizeof stack[0]) {
        kvs = malloc(n * sizeof *kvs);
        if (!kvs) {
            b->oom = 1;
            return;
        }
    }
    json_object_object_foreach(o, key, val) {
        if (i < n) {
            kvs[i].k = key;
            kvs[i].v = val;
            i++;
        }
    }
    n = i;
    qsort(kvs, n, sizeof *kvs, kv_cmp);
    fm_buf_add(b, "{", 1);
    for (i = 0; i < n; i++) {
        if (i)
            fm_buf_add(b, ", ", 2);
        fm_py_str(b, kvs[i].k, strlen(kvs[i].k));
        fm_buf_add(b, ": ", 2);
        fm_py_dump(b, kvs[i].v);
    }
    fm_buf_add(b, "}", 1);
    if (kvs != stack)
        free(kvs);
}

void fm_py_dump(struct fm_buf *b, struct json_object *v)
{
    size_t i, n;

    switch (json_object_get_type(v)) {
    case json_type_null:
        fm_buf_add(b, "null", 4);
        break;
    case json_type_boolean:
        if (json_object_get_boolean(v))
            fm_buf_add(b, "true", 4);
        else
            fm_buf_add(b, "false", 5);
        break;
    case json_type_int:
        fm_py_int(b, v);
        break;
    case json_type_double:
        if (fm_py_is_bignum(v))
            fm_buf_adds(b, json_object_get_userdata(v));
        else
            fm_py_float(b, json_object_get_double(v));
        break;
    case json_type_string:
        fm_py_str(b, json_object_get_string(v), (size_t)json_object_get_string_len(v));
        break;
    case json_type_array:
        n = json_object_array_length(v);
        fm_buf_add(b, "[", 1);
        for (i = 0; i < n; i++) {
            if (i)
                fm_buf_add(b, ", ", 2);
            fm_py_dump(b, json_object_array_get_idx(v, i));
        }
        fm_buf_add(b, "]", 1);
        break;
    case json_type_object:
        dump_object(b, v);
        break;
    }
}

int fm_py_is_bignum(struct json_object *v)
{
    const char *lit;

    if (!json_object_is_type(v, json_type_double))
        return 0;
    lit = json_object_get_userdata(v);
    return lit && !strpbrk(lit, ".eE");
}

/* ---- repr ---- */

/* Python's str.isprintable() for a code point: openapi's generated table. */
static int printable(uint32_t cp)
{
    size_t lo = 0, hi = sizeof koa_py_nonprintable / sizeof koa_py_nonprintable[0];

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < koa_py_nonprintable[mid].lo)
            hi = mid;
        else if (cp > koa_py_nonprintable[mid].hi)
            lo = mid + 1;
        else
            return 0;
    }
    return 1;
}

/* The UTF-8 sequence at s (n > 0 bytes left): its length and code point;
 * a byte that starts no valid sequence is 1 byte, U+FFFD. */
static size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    size_t len, i;
    uint32_t c;

    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        len = 2, c = s[0] & 0x1Fu;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        len = 3, c = s[0] & 0x0Fu;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        len = 4, c = s[0] & 0x07u;
    else
        goto bad;
    if (n < len)
        goto bad;
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            goto bad;
        c = c << 6 | (s[i] & 0x3Fu);
    }
    if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10FFFF)))
        goto bad;
    *cp = c;
    return len;
bad:
    *cp = 0xFFFD;
    return 1;
}

/* repr() of a str: quotes as Python picks them, \\ \n \r \t, and what
 * str.isprintable() refuses as \xHH, \uHHHH or \UHHHHHHHH. */
static void repr_str(struct fm_buf *b, const char *s, size_t n)
{
    char q = (memchr(s, '\'', n) && !memchr(s, '"', n)) ? '"' : '\'';
    size_t i = 0, len;
    char tmp[12];
    uint32_t cp;

    fm_buf_add(b, &q, 1);
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\' || c == (unsigned char)q) {
            fm_buf_add(b, "\\", 1);
            fm_buf_add(b, s + i, 1);
            i++;
            continue;
        }
        if (c == '\n' || c == '\r' || c == '\t') {
            fm_buf_add(b, c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t", 2);
            i++;
            continue;
        }
        len = utf8_next((const unsigned char *)s + i, n - i, &cp);
        if (printable(cp)) {
            fm_buf_add(b, s + i, len);
        } else {
            int k = snprintf(tmp, sizeof tmp,
                             cp <= 0xFF ? "\\x%02x" : cp <= 0xFFFF ? "\\u%04x" : "\\U%08x",
                             (unsigned)cp);
            fm_buf_add(b, tmp, (size_t)k);
        }
        i += len;
    }
    fm_buf_add(b, &q, 1);
}

void fm_py_repr(struct fm_buf *b, struct json_object *v)
{
    size_t i, n;
    int first = 1;

    switch (json_object_get_type(v)) {
    case json_type_null:
        fm_buf_adds(b, "None");
        break;
    case json_type_boolean:
        fm_buf_adds(b, json_object_get_boolean(v) ? "True" : "False");
        break;
    case json_type_string:
        repr_str(b, json_object_get_string(v), (size_t)json_object_get_string_len(v));
        break;
    case json_type_array:
        n = json_object_array_length(v);
        fm_buf_add(b, "[", 1);
        for (i = 0; i < n; i++) {
            if (i)
                fm_buf_add(b, ", ", 2);
            fm_py_repr(b, json_object_array_get_idx(v, i));
        }
        fm_buf_add(b, "]", 1);
        break;
    case json_type_object:
        fm_buf_add(b, "{", 1);
        json_object_object_foreach(v, key, val) {
            if (!first)
                fm_buf_add(b, ", ", 2);
            first = 0;
            repr_str(b, key, strlen(key));
            fm_buf_add(b, ": ", 2);
            fm_py_repr(b, val);
        }
        fm_buf_add(b, "}", 1);
        break;
    default:
        fm_py_dump(b, v);
        break;
    }
}

void fm_md5_hex(const void *data, size_t len, char out[33])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[MD5_DIGEST_LENGTH];
    unsigned int i;

    MD5(data, len, md);
    for (i = 0; i < 16; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[32] = '\0';
}
