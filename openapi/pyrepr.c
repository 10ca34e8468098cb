/* openapi/pyrepr.c - Python repr() of JSON values.
 *
 * Kytos' error messages come from Python's jsonschema, which formats
 * instances with repr(): 'text' in single quotes (double quotes when the
 * text has a ' but no "), True/False/None, floats in the shortest
 * round-trip form, [a, b] and {'k': v}.  Byte-compatible text keeps the
 * NApps' existing tests (which assert substrings) portable.  Values are
 * cut near a byte limit with "..." so a hostile body cannot make a huge
 * message; the short values tests use are never cut. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pyprintable.h"

/* Python's str.isprintable() for one code point: outside every range of
 * the generated table (binary search). */
bool koa_py_printable(uint32_t cp)
{
    size_t lo = 0, hi = sizeof koa_py_nonprintable / sizeof koa_py_nonprintable[0];

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < koa_py_nonprintable[mid].lo)
            hi = mid;
        else if (cp > koa_py_nonprintable[mid].hi)
            lo = mid + 1;
        else
            return false;
    }
    return true;
}

void koa_pyrepr_str(struct ku_buf *b, const char *s, size_t n)
{
    char q = '\'';
    size_t i = 0;

    if (memchr(s, '\'', n) && !memchr(s, '"', n))
        q = '"';
    ku_buf_addc(b, q);
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        uint32_t cp;
        int len;
        if (c == '\\' || c == (unsigned char)q) {
            ku_buf_addc(b, '\\');
            ku_buf_addc(b, (char)c);
            i++;
            continue;
        }
        if (c == '\n') { ku_buf_adds(b, "\\n"); i++; continue; }
        if (c == '\r') { ku_buf_adds(b, "\\r"); i++; continue; }
        if (c == '\t') { ku_buf_adds(b, "\\t"); i++; continue; }
        len = koa_utf8_decode((const unsigned char *)s + i, n - i, &cp);
        if (!koa_py_printable(cp)) {
            if (cp <= 0xFF)
                ku_buf_printf(b, "\\x%02x", cp);
            else if (cp <= 0xFFFF)
                ku_buf_printf(b, "\\u%04x", cp);
            else
                ku_buf_printf(b, "\\U%08x", cp);
        } else {
            ku_buf_add(b, s + i, (size_t)len);
        }
        i += (size_t)len;
    }
    ku_buf_addc(b, q);
}

/* repr(float): shortest digits that round-trip, scientific notation when
 * the decimal exponent is < -4 or >= 16, and ".0" for integral values. */
void koa_pyrepr_double(struct ku_buf *b, double d)
{
    char tmp[40], digits[40];
    int prec, exp10, nd, i;
    char *e, *p;
    bool neg;

    if (isnan(d)) {
        ku_buf_adds(b, "nan");
        return;
    }
    if (isinf(d)) {
        ku_buf_adds(b, d < 0 ? "-inf" : "inf");
        return;
    }
    if (d == 0) {
        ku_buf_adds(b, signbit(d) ? "-0.0" : "0.0");
        return;
    }
    for (prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    /* tmp is like "-1.2345e+07": split digits and exponent */
    neg = tmp[0] == '-';
    p = tmp + (neg ? 1 : 0);
    e = strchr(p, 'e');
    exp10 = atoi(e + 1);
    nd = 0;
    for (; p < e; p++)
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    if (neg)
        ku_buf_addc(b, '-');
    if (exp10 < -4 || exp10 >= 16) {
        ku_buf_addc(b, digits[0]);
        if (nd > 1) {
            ku_buf_addc(b, '.');
            ku_buf_add(b, digits + 1, (size_t)(nd - 1));
        }
        ku_buf_printf(b, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
        return;
    }
    if (exp10 < 0) {
        ku_buf_adds(b, "0.");
        for (i = 0; i < -exp10 - 1; i++)
            ku_buf_addc(b, '0');
        ku_buf_add(b, digits, (size_t)nd);
        return;
    }
    /* exp10 >= 0: integer part has exp10 + 1 digits */
    for (i = 0; i <= exp10; i++)
        ku_buf_addc(b, i < nd ? digits[i] : '0');
    ku_buf_addc(b, '.');
    if (nd > exp10 + 1)
        ku_buf_add(b, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
    else
        ku_buf_addc(b, '0');
}

void koa_pyrepr_num(struct ku_buf *b, const struct koa_num *n)
{
    switch (n->k) {
    case KOA_I64:
        ku_buf_printf(b, "%lld", (long long)n->v.i);
        break;
    case KOA_U64:
        ku_buf_printf(b, "%llu", (unsigned long long)n->v.u);
        break;
    default:
        koa_pyrepr_double(b, n->v.d);
        break;
    }
}

static void repr(struct ku_buf *b, json_object *o, size_t limit);

/* A double read from an integer literal (bignum) is a Python int. */
static void repr_double(struct ku_buf *b, json_object *o)
{
    const char *lit = json_object_get_userdata(o);
    if (lit && !strpbrk(lit, ".eE")) {
        ku_buf_adds(b, lit);
        return;
    }
    koa_pyrepr_double(b, json_object_get_double(o));
}

static void repr(struct ku_buf *b, json_object *o, size_t limit)
{
    struct koa_num n;

    if (b->len > limit) {
        ku_buf_adds(b, "...");
        return;
    }
    switch (json_object_get_type(o)) {
    case json_type_null:
        ku_buf_adds(b, "None");
        return;
    case json_type_boolean:
        ku_buf_adds(b, json_object_get_boolean(o) ? "True" : "False");
        return;
    case json_type_double:
        repr_double(b, o);
        return;
    case json_type_int:
        koa_num_get(o, &n);
        koa_pyrepr_num(b, &n);
        return;
    case json_type_string: {
        size_t len = (size_t)json_object_get_string_len(o);
        const char *s = json_object_get_string(o);
        size_t room = limit > b->len ? limit - b->len : 0;
        if (len > room + 16) {
            /* cut at a code point boundary */
            size_t cut = room;
            while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
                cut--;
            koa_pyrepr_str(b, s, cut);
            ku_buf_adds(b, "...");
            return;
        }
        koa_pyrepr_str(b, s, len);
        return;
    }
    case json_type_array: {
        size_t i, len = json_object_array_length(o);
        ku_buf_addc(b, '[');
        for (i = 0; i < len; i++) {
            if (i)
                ku_buf_adds(b, ", ");
            if (b->len > limit) {
                ku_buf_adds(b, "...");
                break;
            }
            repr(b, json_object_array_get_idx(o, i), limit);
        }
        ku_buf_addc(b, ']');
        return;
    }
    case json_type_object: {
        bool first = true;
        ku_buf_addc(b, '{');
        json_object_object_foreach(o, k, v) {
            if (!first)
                ku_buf_adds(b, ", ");
            first = false;
            if (b->len > limit) {
                ku_buf_adds(b, "...");
                break;
            }
            koa_pyrepr_str(b, k, strlen(k));
            ku_buf_adds(b, ": ");
            repr(b, v, limit);
        }
        ku_buf_addc(b, '}');
        return;
    }
    }
}

void koa_pyrepr(struct ku_buf *b, json_object *o, size_t limit)
{
    repr(b, o, b->len + limit);
}

/* str(): like repr() except that a top-level string is its bare text. */
void koa_pystr(struct ku_buf *b, json_object *o, size_t limit)
{
    if (json_object_is_type(o, json_type_string)) {
        size_t len = (size_t)json_object_get_string_len(o);
        if (len > limit) {
            ku_buf_add(b, json_object_get_string(o), limit);
            ku_buf_adds(b, "...");
        } else {
            ku_buf_add(b, json_object_get_string(o), len);
        }
        return;
    }
    koa_pyrepr(b, o, limit);
}
