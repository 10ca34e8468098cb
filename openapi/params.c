/* openapi/params.c - query strings and parameter casting.
 *
 * The query string is split on '&' into name/value pairs, '+' and %XX
 * decoded (an invalid escape stays as written and invalid UTF-8 becomes
 * U+FFFD, as Python's parse_qsl does).  A parameter's string is cast to
 * the type its schema declares, strictly: integers are an optional sign
 * and ASCII digits, numbers a decimal literal (no nan, inf, hex or
 * blanks), booleans one of true/false/yes/no/on/off/y/n/t/f/1/0 in any
 * case.  (Python's int()/float() are laxer: " 7 ", "1_000" and Arabic
 * digits pass there; they do not here.) */
#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "params.h"
#include "util/text.h"

/* Append the percent-decoded form of s[0..n) to b, invalid UTF-8 as
 * U+FFFD per bad byte; the bytes appended, or -1 at a bad escape (*bad its
 * offset in s; see ku_pct_decode). */
static long decode_into(struct ku_buf *b, const char *s, size_t n, bool plus, size_t *bad)
{
    size_t start = b->len;
    struct ku_buf raw = KU_BUF_INIT;
    long dl;

    if (ku_buf_reserve(&raw, n) < 0) {
        b->oom = true;
        return 0;
    }
    dl = ku_pct_decode(s, n, raw.p, plus ? KU_PCT_PLUS : 0, bad);
    if (dl < 0) {
        ku_buf_free(&raw);
        return -1;
    }
    raw.len = (size_t)dl;
    /* invalid UTF-8 -> U+FFFD per bad byte */
    {
        const unsigned char *p = (const unsigned char *)ku_buf_str(&raw);
        size_t j = 0, len = raw.len;
        while (j < len) {
            size_t k = j;
            if (p[j] < 0x80) {
                ku_buf_addc(b, (char)p[j]);
                j++;
                continue;
            }
            /* find the longest valid sequence at j (1..4 bytes) */
            for (k = 2; k <= 4 && j + k <= len; k++)
                if (koa_utf8_valid((const char *)p + j, k))
                    break;
            if (k <= 4 && j + k <= len) {
                ku_buf_add(b, (const char *)p + j, k);
                j += k;
            } else {
                ku_buf_adds(b, "\xEF\xBF\xBD");
                j++;
            }
        }
    }
    ku_buf_free(&raw);
    return (long)(b->len - start);
}

long koa_pct_decode(struct ku_buf *b, const char *s, size_t n, size_t *bad)
{
    return decode_into(b, s, n, false, bad);
}

/* The message of a bad escape at s[bad] (s n bytes long). */
void koa_pct_bad(char *err, size_t errlen, const char *s, size_t n, size_t bad, const char *where)
{
    snprintf(err, errlen, "Bad percent-encoding '%.*s' in %s", (int)(n - bad < 3 ? n - bad : 3),
             s + bad, where);
}

int koa_query_parse(const char *q, const struct kytos_openapi_options *o,
                    struct koa_query *out, char *err, size_t errlen)
{
    size_t qlen, i, start;
    struct { size_t no, nl, vo, vl; } *tmp = NULL;
    size_t n = 0, cap = 0, bad = 0;
    long nl, vl;

    memset(out, 0, sizeof *out);
    ku_buf_init(&out->store);
    if (!q || !*q)
        return 0;
    qlen = strlen(q);
    start = 0;
    for (i = 0; i <= qlen; i++) {
        const char *part, *eq;
        size_t plen;
        if (i < qlen && q[i] != '&')
            continue;
        part = q + start;
        plen = i - start;
        start = i + 1;
        if (plen == 0)
            continue;
        if (n >= o->max_params) {
            snprintf(err, errlen, "more than %u query parameters", o->max_params);
            free(tmp);
            ku_buf_free(&out->store);
            return -1;
        }
        if (KU_RESERVE(tmp, cap, n + 1) < 0) {
            snprintf(err, errlen, "out of memory");
            free(tmp);
            ku_buf_free(&out->store);
            return -1;
        }
        eq = memchr(part, '=', plen);
        tmp[n].no = out->store.len;
        nl = decode_into(&out->store, part, eq ? (size_t)(eq - part) : plen, true, &bad);
        ku_buf_addc(&out->store, '\0');
        tmp[n].vo = out->store.len;
        vl = nl < 0 ? 0 : eq ? decode_into(&out->store, eq + 1, plen - (size_t)(eq - part) - 1,
                                           true, &bad) : 0;
        ku_buf_addc(&out->store, '\0');
        if (nl < 0 || vl < 0) {
            koa_pct_bad(err, errlen, part, plen, nl < 0 ? bad : (size_t)(eq + 1 - part) + bad, "query");
            free(tmp);
            ku_buf_free(&out->store);
            return -1;
        }
        tmp[n].nl = (size_t)nl;
        tmp[n].vl = (size_t)vl;
        if (tmp[n].vl > o->max_param_bytes) {
            snprintf(err, errlen, "query parameter '%.64s' is longer than %zu bytes",
                     out->store.p + tmp[n].no, o->max_param_bytes);
            free(tmp);
            ku_buf_free(&out->store);
            return -1;
        }
        n++;
    }
    if (out->store.oom) {
        snprintf(err, errlen, "out of memory");
        free(tmp);
        ku_buf_free(&out->store);
        return -1;
    }
    out->v = calloc(n ? n : 1, sizeof *out->v);
    if (!out->v) {
        snprintf(err, errlen, "out of memory");
        free(tmp);
        ku_buf_free(&out->store);
        return -1;
    }
    for (i = 0; i < n; i++) {
        out->v[i].name = out->store.p + tmp[i].no;
        out->v[i].nlen = tmp[i].nl;
        out->v[i].value = out->store.p + tmp[i].vo;
        out->v[i].vlen = tmp[i].vl;
    }
    out->n = n;
    free(tmp);
    return 0;
}

void koa_query_free(struct koa_query *q)
{
    free(q->v);
    ku_buf_free(&q->store);
    q->v = NULL;
    q->n = 0;
}

/* ---- casting -------------------------------------------------------- */

static locale_t c_locale;
static pthread_once_t c_once = PTHREAD_ONCE_INIT;

static void mk_locale(void)
{
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

static const char *cast_name(enum koa_cast c)
{
    switch (c) {
    case KOA_CAST_INTEGER: return "integer";
    case KOA_CAST_NUMBER: return "number";
    case KOA_CAST_BOOLEAN: return "boolean";
    case KOA_CAST_ARRAY: return "array";
    case KOA_CAST_OBJECT: return "object";
    default: return "string";
    }
}

static json_object *cast_scalar(enum koa_cast c, const char *s, size_t n,
                                struct ku_buf *err)
{
    switch (c) {
    case KOA_CAST_INTEGER: {
        size_t i = 0;
        bool neg = false;
        uint64_t acc = 0;
        if (n && (s[0] == '+' || s[0] == '-')) {
            neg = s[0] == '-';
            i++;
        }
        if (i == n)
            goto bad;
        for (; i < n; i++) {
            unsigned d;
            if (s[i] < '0' || s[i] > '9')
                goto bad;
            d = (unsigned)(s[i] - '0');
            if (acc > (UINT64_MAX - d) / 10)
                goto bad;
            acc = acc * 10 + d;
        }
        if (!neg)
            return acc <= (uint64_t)INT64_MAX ? json_object_new_int64((int64_t)acc)
                                              : json_object_new_uint64(acc);
        if (acc <= (uint64_t)INT64_MAX)
            return json_object_new_int64(-(int64_t)acc);
        if (acc == (uint64_t)INT64_MAX + 1)
            return json_object_new_int64(INT64_MIN);
        goto bad;
    }
    case KOA_CAST_NUMBER: {
        char small[64], *end;
        size_t i = 0;
        bool digits = false;
        double d;
        if (n == 0 || n >= sizeof small)
            goto bad;
        if (s[0] == '+' || s[0] == '-')
            i++;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            digits = true;
        if (i < n && s[i] == '.')
            for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
                digits = true;
        if (!digits)
            goto bad;
        if (i < n && (s[i] == 'e' || s[i] == 'E')) {
            size_t j = i + 1;
            if (j < n && (s[j] == '+' || s[j] == '-'))
                j++;
            if (j >= n || s[j] < '0' || s[j] > '9')
                goto bad;
            while (j < n && s[j] >= '0' && s[j] <= '9')
                j++;
            i = j;
        }
        if (i != n)
            goto bad;
        memcpy(small, s, n);
        small[n] = '\0';
        pthread_once(&c_once, mk_locale);
        errno = 0;
        d = c_locale ? strtod_l(small, &end, c_locale) : strtod(small, &end);
        if (errno == ERANGE && (d > 1 || d < -1))
            goto bad;
        return json_object_new_double(d);
    }
    case KOA_CAST_BOOLEAN: {
        static const char *const t[] = { "y", "yes", "t", "true", "on", "1", NULL };
        static const char *const f[] = { "n", "no", "f", "false", "off", "0", NULL };
        int k;
        for (k = 0; t[k]; k++)
            if (strlen(t[k]) == n && !strncasecmp(s, t[k], n))
                return json_object_new_boolean(1);
        for (k = 0; f[k]; k++)
            if (strlen(f[k]) == n && !strncasecmp(s, f[k], n))
                return json_object_new_boolean(0);
        goto bad;
    }
    default:
        return json_object_new_string_len(s, (int)n);
    }
bad:
    ku_buf_printf(err, "Failed to cast value to %s type: %.*s", cast_name(c),
                   (int)(n > 200 ? 200 : n), s);
    return NULL;
}

static char delim_of(enum koa_style st)
{
    switch (st) {
    case KOA_STYLE_SPACE: return ' ';
    case KOA_STYLE_PIPE: return '|';
    default: return ',';
    }
}

json_object *koa_param_cast(const struct koa_param *p, const char *const *vals,
                            const size_t *lens, size_t nvals, struct ku_buf *err)
{
    if (p->cast == KOA_CAST_ARRAY) {
        json_object *arr = json_object_new_array();
        size_t i;
        if (!arr)
            return NULL;
        for (i = 0; i < nvals; i++) {
            const char *s = vals[i];
            size_t n = lens[i], st = 0, j;
            /* one value per repeated key (form, explode) or split */
            bool split = !(p->in == KOA_IN_QUERY && p->style == KOA_STYLE_FORM &&
                           p->explode);
            for (j = 0; j <= n; j++) {
                json_object *it;
                if (split && j < n && s[j] != delim_of(p->style))
                    continue;
                if (!split && j < n)
                    continue;
                it = cast_scalar(p->item_cast, s + st, j - st, err);
                if (!it && err->len) {
                    json_object_put(arr);
                    return NULL;
                }
                json_object_array_add(arr, it);
                st = j + 1;
            }
        }
        return arr;
    }
    if (p->cast == KOA_CAST_OBJECT && nvals &&
        p->style != KOA_STYLE_DEEP && !p->explode) {
        /* form/simple, explode false: "k1,v1,k2,v2" */
        json_object *obj = json_object_new_object();
        const char *s = vals[nvals - 1];
        size_t n = lens[nvals - 1], st = 0, j;
        char *key = NULL;
        if (!obj)
            return NULL;
        for (j = 0; j <= n; j++) {
            if (j < n && s[j] != ',')
                continue;
            if (!key) {
                key = strndup(s + st, j - st);
            } else {
                json_object_object_add(obj, key,
                                       json_object_new_string_len(s + st, (int)(j - st)));
                free(key);
                key = NULL;
            }
            st = j + 1;
        }
        if (key) {
            free(key);
            ku_buf_printf(err, "Failed to cast value to object type: %.*s",
                           (int)(n > 200 ? 200 : n), s);
            json_object_put(obj);
            return NULL;
        }
        return obj;
    }
    if (nvals == 0)
        return NULL;
    /* the last value wins, as in Starlette's QueryParams */
    return cast_scalar(p->cast, vals[nvals - 1], lens[nvals - 1], err);
}
