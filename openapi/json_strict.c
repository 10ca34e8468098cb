/* openapi/json_strict.c - strict RFC 8259 reader producing json-c values.
 *
 * Why not json_tokener: even with JSON_TOKENER_STRICT, json-c 0.16 accepts
 * single-quoted keys, raw control characters and NaN/Infinity, silently
 * saturates integers beyond int64/uint64, truncates keys at \u0000 and has
 * no byte limit on strings.  A request body is hostile input, so this is a
 * small recursive-descent parser (depth bounded by the options) that
 * builds json-c objects directly and reports errors the way Python's json
 * module words them ("Expecting value: line 1 column 1 (char 0)"), which
 * is what Kytos answers.
 *
 * Numbers: integer literals become json-c int64 or uint64 (exact up to
 * 2^64-1); anything outside -2^63..2^64-1 is refused (or, with
 * KYTOS_OPENAPI_F_BIGNUM_AS_DOUBLE, kept as a double that remembers its
 * literal).  Fractions/exponents become doubles that keep their literal
 * text, so a handler re-serialising the body writes what it received. */
#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util/text.h"

struct jp {
    const unsigned char *s;
    size_t len, pos;
    const struct kytos_openapi_options *o;
    size_t nvalues;
    unsigned depth;
    struct ku_buf sbuf; /* scratch for strings with escapes */
    char *err;
    size_t errlen;
    bool failed;
};

/* Error position as Python reports it: line, column (1-based, in code
 * points) and char offset (0-based, in code points). */
static void fail_at(struct jp *p, size_t at, const char *what)
{
    size_t i, line = 1, col, chars = 0, line_start_chars = 0;

    if (p->failed)
        return;
    p->failed = true;
    if (at > p->len)
        at = p->len;
    for (i = 0; i < at; i++) {
        if ((p->s[i] & 0xC0) != 0x80)
            chars++;
        if (p->s[i] == '\n') {
            line++;
            line_start_chars = chars;
        }
    }
    col = chars - line_start_chars + 1;
    if (p->err && p->errlen)
        snprintf(p->err, p->errlen, "%s: line %zu column %zu (char %zu)", what,
                 line, col, chars);
}

static void skip_ws(struct jp *p)
{
    while (p->pos < p->len) {
        unsigned char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static bool literal_at(const struct jp *p, const char *lit)
{
    size_t n = strlen(lit);
    return p->len - p->pos >= n && memcmp(p->s + p->pos, lit, n) == 0;
}

/* Length of a valid UTF-8 sequence at s[0..n), 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
            return 0;
        if (c == 0xE0 && s[1] < 0xA0)
            return 0; /* overlong */
        if (c == 0xED && s[1] >= 0xA0)
            return 0; /* UTF-16 surrogate */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 ||
            (s[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && s[1] < 0x90)
            return 0; /* overlong */
        if (c == 0xF4 && s[1] >= 0x90)
            return 0; /* above U+10FFFF */
        return 4;
    }
    return 0;
}

static int hex4(const unsigned char *s)
{
    int v = 0, i;
    for (i = 0; i < 4; i++) {
        int d = ku_hexval(s[i]);
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

/* Parse the string whose opening quote is at p->pos.  On success *out /
 * *outlen point either into the input (no escapes) or into p->sbuf, and
 * *has_nul says whether the decoded text contains U+0000. */
static bool parse_string(struct jp *p, const char **out, size_t *outlen,
                         bool *has_nul)
{
    size_t start = p->pos, i, run;
    bool escaped = false;

    *has_nul = false;
    i = ++p->pos;
    ku_buf_reset(&p->sbuf);
    run = i;
    for (;;) {
        unsigned char c;
        if (i >= p->len) {
            fail_at(p, start, "Unterminated string starting at");
            return false;
        }
        c = p->s[i];
        if (c == '"')
            break;
        if (c < 0x20) {
            fail_at(p, i, "Invalid control character at");
            return false;
        }
        if (c == '\\') {
            int cp;
            escaped = true;
            ku_buf_add(&p->sbuf, (const char *)p->s + run, i - run);
            if (i + 1 >= p->len) {
                fail_at(p, start, "Unterminated string starting at");
                return false;
            }
            switch (p->s[i + 1]) {
            case '"': ku_buf_addc(&p->sbuf, '"'); i += 2; break;
            case '\\': ku_buf_addc(&p->sbuf, '\\'); i += 2; break;
            case '/': ku_buf_addc(&p->sbuf, '/'); i += 2; break;
            case 'b': ku_buf_addc(&p->sbuf, '\b'); i += 2; break;
            case 'f': ku_buf_addc(&p->sbuf, '\f'); i += 2; break;
            case 'n': ku_buf_addc(&p->sbuf, '\n'); i += 2; break;
            case 'r': ku_buf_addc(&p->sbuf, '\r'); i += 2; break;
            case 't': ku_buf_addc(&p->sbuf, '\t'); i += 2; break;
            case 'u':
                if (i + 6 > p->len || (cp = hex4(p->s + i + 2)) < 0) {
                    fail_at(p, i, "Invalid \\uXXXX escape");
                    return false;
                }
                i += 6;
                if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= p->len &&
                    p->s[i] == '\\' && p->s[i + 1] == 'u') {
                    int lo = hex4(p->s + i + 2);
                    if (lo >= 0xDC00 && lo <= 0xDFFF) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        i += 6;
                    }
                }
                /* A lone surrogate cannot be UTF-8: U+FFFD, as json-c
                 * does (one code point, like Python's lone surrogate). */
                if (cp >= 0xD800 && cp <= 0xDFFF)
                    cp = 0xFFFD;
                if (cp == 0)
                    *has_nul = true;
                koa_utf8_encode(&p->sbuf, (uint32_t)cp);
                break;
            default:
                fail_at(p, i, "Invalid \\escape");
                return false;
            }
            run = i;
            continue;
        }
        if (c >= 0x80) {
            size_t n = utf8_seq(p->s + i, p->len - i);
            if (!n) {
                fail_at(p, i, "Invalid UTF-8 in string at");
                return false;
            }
            i += n;
            continue;
        }
        i++;
    }
    /* i is at the closing quote */
    if (escaped) {
        ku_buf_add(&p->sbuf, (const char *)p->s + run, i - run);
        if (p->sbuf.oom) {
            fail_at(p, start, "Out of memory in string starting at");
            return false;
        }
        *out = ku_buf_str(&p->sbuf);
        *outlen = p->sbuf.len;
    } else {
        *out = (const char *)p->s + start + 1;
        *outlen = i - start - 1;
    }
    if (*outlen > p->o->max_string_bytes) {
        char msg[96];
        snprintf(msg, sizeof msg, "String longer than %zu bytes starting at",
                 p->o->max_string_bytes);
        fail_at(p, start, msg);
        return false;
    }
    p->pos = i + 1;
    return true;
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

/* strtod that ignores the process locale (a daemon may run with a locale
 * whose decimal point is ','). */
static double strtod_c(const char *s, char **end)
{
    pthread_once(&c_locale_once, make_c_locale);
    if (c_locale)
        return strtod_l(s, end, c_locale);
    return strtod(s, end);
}

static json_object *parse_number(struct jp *p)
{
    size_t start = p->pos, i = p->pos, n;
    bool neg = false, frac = false;
    uint64_t acc = 0;
    bool overflow = false;
    char small[64], *lit;
    json_object *o;

    if (p->s[i] == '-') {
        neg = true;
        i++;
    }
    if (i >= p->len || p->s[i] < '0' || p->s[i] > '9') {
        if (literal_at(p, "-Infinity"))
            fail_at(p, start, "Expecting value (Infinity is not JSON)");
        else
            fail_at(p, start, "Expecting value");
        return NULL;
    }
    if (p->s[i] == '0') {
        i++;
    } else {
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') {
            unsigned d = p->s[i] - '0';
            if (acc > (UINT64_MAX - d) / 10)
                overflow = true;
            else
                acc = acc * 10 + d;
            i++;
        }
    }
    if (i + 1 < p->len && p->s[i] == '.' && p->s[i + 1] >= '0' &&
        p->s[i + 1] <= '9') {
        frac = true;
        i++;
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9')
            i++;
    }
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        size_t j = i + 1;
        if (j < p->len && (p->s[j] == '+' || p->s[j] == '-'))
            j++;
        if (j < p->len && p->s[j] >= '0' && p->s[j] <= '9') {
            frac = true;
            while (j < p->len && p->s[j] >= '0' && p->s[j] <= '9')
                j++;
            i = j;
        }
    }
    p->pos = i;
    n = i - start;
    if (!frac && !overflow) {
        o = NULL;
        if (!neg)
            o = acc <= (uint64_t)INT64_MAX ? json_object_new_int64((int64_t)acc)
                                           : json_object_new_uint64(acc);
        else if (acc <= (uint64_t)INT64_MAX)
            o = json_object_new_int64(-(int64_t)acc);
        else if (acc == (uint64_t)INT64_MAX + 1)
            o = json_object_new_int64(INT64_MIN);
        else
            overflow = true;
        if (!overflow) {
            if (!o)
                fail_at(p, start, "Out of memory reading number at");
            return o;
        }
    }
    if (!frac && overflow &&
        !(p->o->flags & KYTOS_OPENAPI_F_BIGNUM_AS_DOUBLE)) {
        fail_at(p, start,
                "Integer out of range (-2^63 .. 2^64-1) at");
        return NULL;
    }
    lit = n < sizeof small ? small : malloc(n + 1);
    if (!lit) {
        fail_at(p, start, "Out of memory reading number at");
        return NULL;
    }
    memcpy(lit, p->s + start, n);
    lit[n] = '\0';
    {
        char *end;
        double d;
        errno = 0;
        d = strtod_c(lit, &end);
        if (errno == ERANGE && (d > 1.0 || d < -1.0)) {
            fail_at(p, start, "Number out of range at");
            o = NULL;
        } else {
            /* keep the literal: exact re-serialisation, and the
             * validator can tell an integer literal (bignum) apart */
            o = json_object_new_double_s(d, lit);
            if (!o)
                fail_at(p, start, "Out of memory reading number at");
        }
    }
    if (lit != small)
        free(lit);
    return o;
}

static json_object *parse_value(struct jp *p);

static bool count_value(struct jp *p, size_t at)
{
    if (++p->nvalues > p->o->max_values) {
        char msg[96];
        snprintf(msg, sizeof msg, "More than %zu values at", p->o->max_values);
        fail_at(p, at, msg);
        return false;
    }
    return true;
}

static bool enter(struct jp *p)
{
    if (p->depth >= p->o->max_depth) {
        char msg[96];
        snprintf(msg, sizeof msg, "Nesting deeper than %u levels at",
                 p->o->max_depth);
        fail_at(p, p->pos, msg);
        return false;
    }
    p->depth++;
    return true;
}

static void free_key(char *key, const char *kbuf)
{
    if (key != kbuf)
        free(key);
}

static json_object *parse_object(struct jp *p)
{
    json_object *obj;

    if (!enter(p))
        return NULL;
    obj = json_object_new_object();
    if (!obj) {
        fail_at(p, p->pos, "Out of memory at");
        return NULL;
    }
    p->pos++; /* '{' */
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == '}') {
        p->pos++;
        p->depth--;
        return obj;
    }
    for (;;) {
        const char *k;
        size_t klen, kat;
        bool nul;
        char kbuf[128], *key;   /* json-c copies the key: ours only needs a NUL */
        json_object *v;

        if (p->pos >= p->len || p->s[p->pos] != '"') {
            fail_at(p, p->pos,
                    "Expecting property name enclosed in double quotes");
            goto bad;
        }
        kat = p->pos;
        if (!parse_string(p, &k, &klen, &nul))
            goto bad;
        if (nul) {
            /* json-c keys are C strings: a key with U+0000 would be
             * silently truncated, so refuse it. */
            fail_at(p, kat, "Object key containing \\u0000 is not supported at");
            goto bad;
        }
        key = klen < sizeof kbuf ? kbuf : malloc(klen + 1);
        if (!key) {
            fail_at(p, kat, "Out of memory at");
            goto bad;
        }
        memcpy(key, k, klen);
        key[klen] = '\0';
        skip_ws(p);
        if (p->pos >= p->len || p->s[p->pos] != ':') {
            free_key(key, kbuf);
            fail_at(p, p->pos, "Expecting ':' delimiter");
            goto bad;
        }
        p->pos++;
        skip_ws(p);
        v = parse_value(p);
        if (p->failed) {
            free_key(key, kbuf);
            goto bad;
        }
        /* Duplicate keys: the last value wins at the first position,
         * as in Python's dict. */
        if (json_object_object_add(obj, key, v) != 0) {
            json_object_put(v);
            free_key(key, kbuf);
            fail_at(p, kat, "Out of memory at");
            goto bad;
        }
        free_key(key, kbuf);
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            skip_ws(p);
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == '}') {
            p->pos++;
            break;
        }
        fail_at(p, p->pos, "Expecting ',' delimiter");
        goto bad;
    }
    p->depth--;
    return obj;
bad:
    json_object_put(obj);
    return NULL;
}

static json_object *parse_array(struct jp *p)
{
    json_object *arr;

    if (!enter(p))
        return NULL;
    arr = json_object_new_array();
    if (!arr) {
        fail_at(p, p->pos, "Out of memory at");
        return NULL;
    }
    p->pos++; /* '[' */
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == ']') {
        p->pos++;
        p->depth--;
        return arr;
    }
    for (;;) {
        json_object *v = parse_value(p);
        if (p->failed)
            goto bad;
        if (json_object_array_add(arr, v) != 0) {
            json_object_put(v);
            fail_at(p, p->pos, "Out of memory at");
            goto bad;
        }
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            skip_ws(p);
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == ']') {
            p->pos++;
            break;
        }
        fail_at(p, p->pos, "Expecting ',' delimiter");
        goto bad;
    }
    p->depth--;
    return arr;
bad:
    json_object_put(arr);
    return NULL;
}

/* Parse one value at p->pos (whitespace already skipped).  Returns the
 * value (NULL is JSON null unless p->failed). */
static json_object *parse_value(struct jp *p)
{
    unsigned char c;
    size_t at = p->pos;

    if (p->pos >= p->len) {
        fail_at(p, p->pos, "Expecting value");
        return NULL;
    }
    if (!count_value(p, at))
        return NULL;
    c = p->s[p->pos];
    switch (c) {
    case '{':
        return parse_object(p);
    case '[':
        return parse_array(p);
    case '"': {
        const char *s;
        size_t n;
        bool nul;
        json_object *o;
        if (!parse_string(p, &s, &n, &nul))
            return NULL;
        o = json_object_new_string_len(s, (int)n);
        if (!o)
            fail_at(p, at, "Out of memory at");
        return o;
    }
    case 't':
        if (literal_at(p, "true")) {
            json_object *o = json_object_new_boolean(1);
            p->pos += 4;
            if (!o)
                fail_at(p, at, "Out of memory at");
            return o;
        }
        break;
    case 'f':
        if (literal_at(p, "false")) {
            json_object *o = json_object_new_boolean(0);
            p->pos += 5;
            if (!o)
                fail_at(p, at, "Out of memory at");
            return o;
        }
        break;
    case 'n':
        if (literal_at(p, "null")) {
            p->pos += 4;
            return NULL;
        }
        break;
    case 'N':
        if (literal_at(p, "NaN")) {
            fail_at(p, at, "Expecting value (NaN is not JSON)");
            return NULL;
        }
        break;
    case 'I':
        if (literal_at(p, "Infinity")) {
            fail_at(p, at, "Expecting value (Infinity is not JSON)");
            return NULL;
        }
        break;
    case '\'':
        fail_at(p, at, "Expecting value (strings take double quotes)");
        return NULL;
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return parse_number(p);
        if (c >= 0x80 && !utf8_seq(p->s + at, p->len - at)) {
            fail_at(p, at, "Invalid UTF-8 at");
            return NULL;
        }
        break;
    }
    fail_at(p, at, "Expecting value");
    return NULL;
}

int koa_json_parse(const char *s, size_t len,
                   const struct kytos_openapi_options *o, json_object **out,
                   char *err, size_t errlen)
{
    struct jp p;
    json_object *v;

    memset(&p, 0, sizeof p);
    p.s = (const unsigned char *)(s ? s : "");
    p.len = s ? len : 0;
    p.o = o;
    p.err = err;
    p.errlen = errlen;
    ku_buf_init(&p.sbuf);
    *out = NULL;
    if (err && errlen)
        err[0] = '\0';

    /* Python's json.loads(bytes) accepts a UTF-8 byte order mark. */
    if (p.len >= 3 && memcmp(p.s, "\xEF\xBB\xBF", 3) == 0)
        p.pos = 3;
    skip_ws(&p);
    v = parse_value(&p);
    if (!p.failed) {
        skip_ws(&p);
        if (p.pos < p.len)
            fail_at(&p, p.pos, "Extra data");
    }
    ku_buf_free(&p.sbuf);
    if (p.failed) {
        json_object_put(v);
        return -1;
    }
    *out = v;
    return 0;
}

int kytos_openapi_json_parse(const void *bytes, size_t len,
                             const struct kytos_openapi_options *opts,
                             json_object **out, char *errbuf, size_t errlen)
{
    struct kytos_openapi_options o;

    koa_options_resolve(opts, &o);
    if (!out) {
        if (errbuf && errlen)
            snprintf(errbuf, errlen, "no output pointer given");
        return -1;
    }
    return koa_json_parse(bytes, len, &o, out, errbuf, errlen);
}
