/* openapi/jsonutil.c - numbers, equality, hashing, UTF-8 and JSON pointers
 * over json-c values, with JSON Schema semantics. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util/text.h"

/* ---------------------------------------------------------------- */
/* Numbers                                                          */
/* ---------------------------------------------------------------- */

bool koa_num_get(json_object *o, struct koa_num *n)
{
    switch (json_object_get_type(o)) {
    case json_type_int: {
        /* json-c keeps int64 or uint64 but has no accessor for which; a
         * uint64 above INT64_MAX reads back as INT64_MAX through
         * get_int64, and a negative int64 as 0 through get_uint64. */
        int64_t i = json_object_get_int64(o);
        if (i == INT64_MAX) {
            uint64_t u = json_object_get_uint64(o);
            if (u > (uint64_t)INT64_MAX) {
                n->k = KOA_U64;
                n->v.u = u;
                return true;
            }
        }
        n->k = KOA_I64;
        n->v.i = i;
        return true;
    }
    case json_type_double:
        n->k = KOA_DBL;
        n->v.d = json_object_get_double(o);
        return true;
    default:
        return false;
    }
}

double koa_num_to_double(const struct koa_num *n)
{
    switch (n->k) {
    case KOA_I64: return (double)n->v.i;
    case KOA_U64: return (double)n->v.u;
    default: return n->v.d;
    }
}

static int cmp_i64_dbl(int64_t i, double d)
{
    double t;
    if (isnan(d))
        return 0; /* never produced by the parser; keep it total */
    if (d >= 9223372036854775808.0)
        return -1;
    if (d < -9223372036854775808.0)
        return 1;
    t = trunc(d);
    {
        int64_t ti = (int64_t)t; /* exact: t is integral and in range */
        if (i < ti)
            return -1;
        if (i > ti)
            return 1;
    }
    /* same integer part: the fraction decides */
    if (d > t)
        return -1;
    if (d < t)
        return 1;
    return 0;
}

static int cmp_u64_dbl(uint64_t u, double d)
{
    double t;
    if (isnan(d))
        return 0;
    if (d >= 18446744073709551616.0)
        return -1;
    if (d < 0)
        return 1;
    t = trunc(d);
    {
        uint64_t tu = (uint64_t)t;
        if (u < tu)
            return -1;
        if (u > tu)
            return 1;
    }
    return d > t ? -1 : 0;
}

int koa_num_cmp(const struct koa_num *a, const struct koa_num *b)
{
    if (a->k == KOA_DBL && b->k == KOA_DBL)
        return a->v.d < b->v.d ? -1 : a->v.d > b->v.d ? 1 : 0;
    if (a->k == KOA_DBL)
        return -koa_num_cmp(b, a);
    /* a is an integer */
    if (b->k == KOA_DBL)
        return a->k == KOA_I64 ? cmp_i64_dbl(a->v.i, b->v.d)
                               : cmp_u64_dbl(a->v.u, b->v.d);
    if (a->k == KOA_I64 && b->k == KOA_I64)
        return a->v.i < b->v.i ? -1 : a->v.i > b->v.i ? 1 : 0;
    if (a->k == KOA_U64 && b->k == KOA_U64)
        return a->v.u < b->v.u ? -1 : a->v.u > b->v.u ? 1 : 0;
    if (a->k == KOA_I64) /* b is u64 > INT64_MAX */
        return -1;
    return 1;
}

/* A double that came from an integer literal (bignum kept as double by
 * the reader) still counts as an integer literal in the draft-4 sense. */
static bool double_from_int_literal(json_object *o)
{
    const char *lit = json_object_get_userdata(o);
    if (!lit)
        return false;
    return strpbrk(lit, ".eE") == NULL;
}

bool koa_is_integer(json_object *o, bool dialect31)
{
    enum json_type t = json_object_get_type(o);
    if (t == json_type_int)
        return true;
    if (t != json_type_double)
        return false;
    if (double_from_int_literal(o))
        return true;
    if (dialect31) {
        double d = json_object_get_double(o);
        return isfinite(d) && d == trunc(d);
    }
    return false;
}

/* ---------------------------------------------------------------- */
/* Equality and hashing                                             */
/* ---------------------------------------------------------------- */

bool koa_json_equal(json_object *a, json_object *b)
{
    enum json_type ta = json_object_get_type(a), tb = json_object_get_type(b);
    struct koa_num na, nb;

    if (koa_num_get(a, &na) && koa_num_get(b, &nb))
        return koa_num_cmp(&na, &nb) == 0;
    if (ta != tb)
        return false;
    switch (ta) {
    case json_type_null:
        return true;
    case json_type_boolean:
        return !json_object_get_boolean(a) == !json_object_get_boolean(b);
    case json_type_string: {
        int la = json_object_get_string_len(a);
        return la == json_object_get_string_len(b) &&
               memcmp(json_object_get_string(a), json_object_get_string(b),
                      (size_t)la) == 0;
    }
    case json_type_array: {
        size_t i, n = json_object_array_length(a);
        if (n != json_object_array_length(b))
            return false;
        for (i = 0; i < n; i++)
            if (!koa_json_equal(json_object_array_get_idx(a, i),
                                json_object_array_get_idx(b, i)))
                return false;
        return true;
    }
    case json_type_object: {
        if (json_object_object_length(a) != json_object_object_length(b))
            return false;
        json_object_object_foreach(a, k, va) {
            json_object *vb;
            if (!json_object_object_get_ex(b, k, &vb))
                return false;
            if (!koa_json_equal(va, vb))
                return false;
        }
        return true;
    }
    default:
        return false;
    }
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h;
}

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Equal values (per koa_json_equal) hash equally: numbers hash by value
 * (an integral double like an integer), objects ignore key order. */
uint64_t koa_json_hash(json_object *o)
{
    struct koa_num n;

    if (koa_num_get(o, &n)) {
        double d = koa_num_to_double(&n);
        if (n.k == KOA_DBL && d == trunc(d) && d >= -9223372036854775808.0 &&
            d < 9223372036854775808.0)
            return mix(3, (uint64_t)(int64_t)d);
        if (n.k == KOA_DBL && d == trunc(d) && d >= 0 &&
            d < 18446744073709551616.0)
            return mix(3, (uint64_t)d);
        if (n.k == KOA_I64)
            return mix(3, (uint64_t)n.v.i);
        if (n.k == KOA_U64)
            return mix(3, n.v.u);
        {
            uint64_t bits;
            memcpy(&bits, &d, sizeof bits);
            return mix(4, bits);
        }
    }
    switch (json_object_get_type(o)) {
    case json_type_null:
        return 1;
    case json_type_boolean:
        return json_object_get_boolean(o) ? 7 : 5;
    case json_type_string:
        return mix(11, hash_bytes(json_object_get_string(o),
                                  (size_t)json_object_get_string_len(o)));
    case json_type_array: {
        uint64_t h = 13;
        size_t i, len = json_object_array_length(o);
        for (i = 0; i < len; i++)
            h = mix(h, koa_json_hash(json_object_array_get_idx(o, i)));
        return h;
    }
    case json_type_object: {
        uint64_t h = 17;
        json_object_object_foreach(o, k, v) {
            /* commutative combination: order-independent */
            h += mix(hash_bytes(k, strlen(k)), koa_json_hash(v));
        }
        return h;
    }
    default:
        return 0;
    }
}

/* ---------------------------------------------------------------- */
/* UTF-8                                                            */
/* ---------------------------------------------------------------- */

size_t koa_utf8_len(const char *s, size_t n)
{
    size_t i, c = 0;
    for (i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            c++;
    return c;
}

int koa_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char c = s[0];
    if (c < 0x80 || n < 2) {
        *cp = c;
        return 1;
    }
    if (c < 0xE0) {
        *cp = ((uint32_t)(c & 0x1F) << 6) | (s[1] & 0x3F);
        return 2;
    }
    if (c < 0xF0 || n < 4) {
        if (n < 3) {
            *cp = c;
            return 1;
        }
        *cp = ((uint32_t)(c & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) |
              (s[2] & 0x3F);
        return 3;
    }
    *cp = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) |
          ((uint32_t)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
    return 4;
}

bool koa_utf8_valid(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;

    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            if (n - i < 2 || (s[i + 1] & 0xC0) != 0x80)
                return false;
            i += 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            if (n - i < 3 || (s[i + 1] & 0xC0) != 0x80 ||
                (s[i + 2] & 0xC0) != 0x80)
                return false;
            if ((c == 0xE0 && s[i + 1] < 0xA0) || (c == 0xED && s[i + 1] >= 0xA0))
                return false;
            i += 3;
        } else if (c >= 0xF0 && c <= 0xF4) {
            if (n - i < 4 || (s[i + 1] & 0xC0) != 0x80 ||
                (s[i + 2] & 0xC0) != 0x80 || (s[i + 3] & 0xC0) != 0x80)
                return false;
            if ((c == 0xF0 && s[i + 1] < 0x90) || (c == 0xF4 && s[i + 1] >= 0x90))
                return false;
            i += 4;
        } else {
            return false;
        }
    }
    return true;
}

void koa_utf8_encode(struct ku_buf *b, uint32_t cp)
{
    char t[4];
    if (cp < 0x80) {
        t[0] = (char)cp;
        ku_buf_add(b, t, 1);
    } else if (cp < 0x800) {
        t[0] = (char)(0xC0 | (cp >> 6));
        t[1] = (char)(0x80 | (cp & 0x3F));
        ku_buf_add(b, t, 2);
    } else if (cp < 0x10000) {
        t[0] = (char)(0xE0 | (cp >> 12));
        t[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        t[2] = (char)(0x80 | (cp & 0x3F));
        ku_buf_add(b, t, 3);
    } else {
        t[0] = (char)(0xF0 | (cp >> 18));
        t[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        t[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        t[3] = (char)(0x80 | (cp & 0x3F));
        ku_buf_add(b, t, 4);
    }
}

/* ---------------------------------------------------------------- */
/* JSON pointers                                                    */
/* ---------------------------------------------------------------- */

void koa_ptr_append_token(struct ku_buf *b, const char *tok, size_t n)
{
    size_t i, run = 0;
    ku_buf_addc(b, '/');
    for (i = 0; i < n; i++) {
        if (tok[i] == '~' || tok[i] == '/') {
            ku_buf_add(b, tok + run, i - run);
            ku_buf_adds(b, tok[i] == '~' ? "~0" : "~1");
            run = i + 1;
        }
    }
    ku_buf_add(b, tok + run, n - run);
}

void koa_ptr_append_index(struct ku_buf *b, size_t i)
{
    ku_buf_printf(b, "/%zu", i);
}

/* Decode one reference token [s, s+n): percent-decoding (URI fragment),
 * then ~1 -> '/', ~0 -> '~'.  Returns false on a malformed escape. */
static bool decode_token(const char *s, size_t n, struct ku_buf *out)
{
    struct ku_buf pct;
    size_t i;
    bool ok = true;

    ku_buf_init(&pct);
    if (ku_buf_reserve(&pct, n) < 0) {
        ok = false;
    } else {
        long dl = ku_pct_decode(s, n, pct.p, 0, NULL);
        ok = dl >= 0;
        pct.len = ok ? (size_t)dl : 0;
    }
    if (ok) {
        const char *p = ku_buf_str(&pct);
        for (i = 0; i < pct.len; i++) {
            if (p[i] == '~') {
                if (i + 1 < pct.len && p[i + 1] == '0')
                    ku_buf_addc(out, '~');
                else if (i + 1 < pct.len && p[i + 1] == '1')
                    ku_buf_addc(out, '/');
                else {
                    ok = false;
                    break;
                }
                i++;
            } else {
                ku_buf_addc(out, p[i]);
            }
        }
    }
    ku_buf_free(&pct);
    return ok && !out->oom;
}

int koa_ptr_resolve(json_object *root, const char *ref, json_object **out)
{
    const char *p;
    json_object *cur = root;
    struct ku_buf tok;

    *out = NULL;
    if (!ref || ref[0] != '#')
        return -1;
    p = ref + 1;
    if (*p == '\0') {
        *out = root;
        return 0;
    }
    if (*p != '/')
        return -1;
    ku_buf_init(&tok);
    while (*p == '/') {
        const char *start = ++p;
        const char *end = strchr(start, '/');
        size_t n;
        if (!end)
            end = start + strlen(start);
        n = (size_t)(end - start);
        ku_buf_reset(&tok);
        if (!decode_token(start, n, &tok)) {
            ku_buf_free(&tok);
            return -1;
        }
        if (json_object_is_type(cur, json_type_object)) {
            json_object *next;
            if (strlen(ku_buf_str(&tok)) != tok.len ||
                !json_object_object_get_ex(cur, ku_buf_str(&tok), &next)) {
                ku_buf_free(&tok);
                return -1;
            }
            cur = next;
        } else if (json_object_is_type(cur, json_type_array)) {
            const char *t = ku_buf_str(&tok);
            size_t idx = 0, i;
            if (tok.len == 0 || (tok.len > 1 && t[0] == '0') || tok.len > 9) {
                ku_buf_free(&tok);
                return -1;
            }
            for (i = 0; i < tok.len; i++) {
                if (t[i] < '0' || t[i] > '9') {
                    ku_buf_free(&tok);
                    return -1;
                }
                idx = idx * 10 + (size_t)(t[i] - '0');
            }
            if (idx >= json_object_array_length(cur)) {
                ku_buf_free(&tok);
                return -1;
            }
            cur = json_object_array_get_idx(cur, idx);
        } else {
            ku_buf_free(&tok);
            return -1;
        }
        p = end;
    }
    ku_buf_free(&tok);
    *out = cur;
    return 0;
}
