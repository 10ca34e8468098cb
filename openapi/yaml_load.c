/* openapi/yaml_load.c - YAML or JSON text -> json-c tree, with positions.
 *
 * libfyaml parses; we convert.  Kytos reads specs with PyYAML, i.e. YAML
 * 1.1 scalar rules (yes/no/on/off are booleans, 1e3 without a dot is a
 * string, 0755 is octal, 2020-01-01 is a date), while libfyaml resolves by
 * 1.2.  So plain scalars are resolved here, by PyYAML's regular
 * expressions, and the ones where the two YAML versions disagree are
 * reported as warnings (the linter shows them).  JSON text (first
 * character '{' or '[') is resolved by JSON rules.
 *
 * Aliases are expanded while converting, with a budget on the number of
 * nodes produced (a "billion laughs" document stops at the budget) and a
 * depth limit (a recursive alias stops there). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/linkhash.h>
#include <libfyaml.h>

#include "internal.h"

#define KOA_YAML_MAX_DEPTH 256

struct yconv {
    const struct kytos_openapi_options *o;
    struct koa_posmap *pos;
    kytos_openapi_diags *d;
    kytos_openapi_diags *warn;
    size_t nodes;
    bool json;
    bool failed;
    const char *src;    /* the text being loaded */
    struct ku_buf ptr; /* JSON pointer of the node being converted */
    /* containers being converted, to refuse an alias to an ancestor */
    struct fy_node *stack[KOA_YAML_MAX_DEPTH + 2];
    unsigned nstack;
};

static bool mark_of(struct fy_node *n, uint32_t *line, uint32_t *col)
{
    struct fy_token *t = NULL;
    const struct fy_mark *m;

    if (!n)
        return false;
    if (fy_node_is_scalar(n))
        t = fy_node_get_scalar_token(n);
    if (!t)
        return false;
    m = fy_token_start_mark(t);
    if (!m)
        return false;
    *line = (uint32_t)m->line + 1;
    *col = (uint32_t)m->column + 1;
    return true;
}

static void yerr(struct yconv *c, struct fy_node *n, uint32_t hl, uint32_t hc,
                 const char *fmt, ...) KOA_PRINTF(5, 6);
static void yerr(struct yconv *c, struct fy_node *n, uint32_t hl, uint32_t hc,
                 const char *fmt, ...)
{
    uint32_t l = hl, col = hc;
    va_list ap;

    mark_of(n, &l, &col);
    va_start(ap, fmt);
    koa_diag_vadd(c->d, KYTOS_OPENAPI_ERROR, l, col, ku_buf_str(&c->ptr), fmt,
                  ap);
    va_end(ap);
    c->failed = true;
}

/* ---------------------------------------------------------------- */
/* YAML 1.1 plain-scalar resolution (PyYAML's implicit resolvers)    */
/* ---------------------------------------------------------------- */

enum stype { S_STR, S_NULL, S_BOOL, S_INT, S_FLOAT };

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool all_in(const char *s, size_t n, const char *set)
{
    size_t i;
    if (n == 0)
        return false;
    for (i = 0; i < n; i++)
        if (!strchr(set, s[i]) || s[i] == '\0')
            return false;
    return true;
}

static bool word_in(const char *s, size_t n, const char *const *words)
{
    for (; *words; words++)
        if (strlen(*words) == n && memcmp(*words, s, n) == 0)
            return true;
    return false;
}

static const char *const nulls11[] = { "~", "null", "Null", "NULL", NULL };
static const char *const trues11[] = { "yes", "Yes", "YES", "true", "True",
                                       "TRUE", "on", "On", "ON", NULL };
static const char *const falses11[] = { "no", "No", "NO", "false", "False",
                                        "FALSE", "off", "Off", "OFF", NULL };

/* [-+]?[1-9][0-9_]*(:[0-5]?[0-9])+  (sexagesimal), after the sign */
static bool sexagesimal_int(const char *s, size_t n)
{
    size_t i = 0, seg;
    if (i >= n || s[i] < '1' || s[i] > '9')
        return false;
    while (i < n && (is_digit(s[i]) || s[i] == '_'))
        i++;
    if (i >= n || s[i] != ':')
        return false;
    while (i < n && s[i] == ':') {
        i++;
        seg = 0;
        if (i < n && s[i] >= '0' && s[i] <= '5' && i + 1 < n && is_digit(s[i + 1])) {
            i += 2;
            seg = 2;
        } else if (i < n && is_digit(s[i])) {
            i += 1;
            seg = 1;
        }
        if (!seg)
            return false;
    }
    return i == n;
}

static bool yaml11_int(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    s += i;
    n -= i;
    if (n == 0)
        return false;
    if (n > 2 && s[0] == '0' && s[1] == 'b')
        return all_in(s + 2, n - 2, "01_");
    if (n > 2 && s[0] == '0' && s[1] == 'x')
        return all_in(s + 2, n - 2, "0123456789abcdefABCDEF_");
    if (n > 1 && s[0] == '0')
        return all_in(s + 1, n - 1, "01234567_");
    if (n == 1 && s[0] == '0')
        return true;
    if (s[0] >= '1' && s[0] <= '9' && all_in(s, n, "0123456789_"))
        return true;
    return sexagesimal_int(s, n);
}

/* [eE][-+][0-9]+ at s[0..n) exactly */
static bool exp11(const char *s, size_t n)
{
    return n >= 3 && (s[0] == 'e' || s[0] == 'E') && (s[1] == '+' || s[1] == '-') &&
           all_in(s + 2, n - 2, "0123456789");
}

static bool yaml11_float(const char *s, size_t n)
{
    size_t i = 0, j;
    if (n == 4 && (!memcmp(s, ".nan", 4) || !memcmp(s, ".NaN", 4) ||
                   !memcmp(s, ".NAN", 4)))
        return true;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (n - i == 4 && (!memcmp(s + i, ".inf", 4) || !memcmp(s + i, ".Inf", 4) ||
                       !memcmp(s + i, ".INF", 4)))
        return true;
    /* \.[0-9][0-9_]*(exp)?  -- PyYAML allows it without a sign only */
    if (i == 0 && n >= 2 && s[0] == '.' && is_digit(s[1])) {
        j = 2;
        while (j < n && (is_digit(s[j]) || s[j] == '_'))
            j++;
        return j == n || exp11(s + j, n - j);
    }
    /* [0-9][0-9_]*(:[0-5]?[0-9])*\.[0-9_]*(exp)? */
    if (i >= n || !is_digit(s[i]))
        return false;
    j = i;
    while (j < n && (is_digit(s[j]) || s[j] == '_'))
        j++;
    while (j < n && s[j] == ':') {
        size_t k = j + 1, d = 0;
        while (k < n && is_digit(s[k]) && d < 2) {
            k++;
            d++;
        }
        if (d == 0 || (d == 2 && s[j + 1] > '5'))
            return false;
        j = k;
    }
    if (j >= n || s[j] != '.')
        return false;
    j++;
    while (j < n && (is_digit(s[j]) || s[j] == '_'))
        j++;
    if (j == n)
        return true;
    /* the exponent form is only for the plain (non-sexagesimal) variant */
    return memchr(s, ':', j) == NULL && exp11(s + j, n - j);
}

static bool yaml11_timestamp(const char *s, size_t n)
{
    /* [0-9]{4}-[0-9]{1,2}-[0-9]{1,2} and the longer date-time forms all
     * start like this; that is enough to warn. */
    return n >= 8 && is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) &&
           is_digit(s[3]) && s[4] == '-' && is_digit(s[5]);
}

static enum stype resolve11(const char *s, size_t n)
{
    if (n == 0 || word_in(s, n, nulls11))
        return S_NULL;
    if (word_in(s, n, trues11) || word_in(s, n, falses11))
        return S_BOOL;
    if (yaml11_int(s, n))
        return S_INT;
    if (yaml11_float(s, n))
        return S_FLOAT;
    return S_STR;
}

/* What YAML 1.2 (core schema) would make of the scalar, to warn when the
 * two disagree: a spec should read the same in every tool. */
static enum stype resolve12(const char *s, size_t n)
{
    static const char *const n12[] = { "~", "null", "Null", "NULL", NULL };
    static const char *const b12[] = { "true", "True", "TRUE", "false",
                                       "False", "FALSE", NULL };
    size_t i = 0;
    bool digits = false, dot = false, ex = false;

    if (n == 0 || word_in(s, n, n12))
        return S_NULL;
    if (word_in(s, n, b12))
        return S_BOOL;
    if (n > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x'))
        return all_in(s + 2, n - 2, s[1] == 'o' ? "01234567" :
                      "0123456789abcdefABCDEF") ? S_INT : S_STR;
    if (s[0] == '+' || s[0] == '-')
        i++;
    if (n - i == 4 && (!memcmp(s + i, ".inf", 4) || !memcmp(s + i, ".Inf", 4) ||
                       !memcmp(s + i, ".INF", 4)))
        return S_FLOAT;
    if (n == 4 && (!memcmp(s, ".nan", 4) || !memcmp(s, ".NaN", 4) ||
                   !memcmp(s, ".NAN", 4)))
        return S_FLOAT;
    for (; i < n; i++) {
        if (is_digit(s[i]))
            digits = true;
        else if (s[i] == '.' && !dot && !ex)
            dot = true;
        else if ((s[i] == 'e' || s[i] == 'E') && digits && !ex) {
            ex = true;
            if (i + 1 < n && (s[i + 1] == '+' || s[i + 1] == '-'))
                i++;
            if (i + 1 >= n)
                return S_STR;
        } else
            return S_STR;
    }
    if (!digits)
        return S_STR;
    return dot || ex ? S_FLOAT : S_INT;
}

static const char *stype_name(enum stype t)
{
    switch (t) {
    case S_NULL: return "null";
    case S_BOOL: return "a boolean";
    case S_INT: return "an integer";
    case S_FLOAT: return "a float";
    default: return "a string";
    }
}

static json_object *int_from_text(const char *s, size_t n)
{
    bool neg = false;
    unsigned base = 10;
    uint64_t acc = 0;
    bool overflow = false, sexa = memchr(s, ':', n) != NULL;
    size_t i = 0;
    double dacc = 0;

    if (s[0] == '+' || s[0] == '-') {
        neg = s[0] == '-';
        i++;
    }
    if (sexa) {
        /* base 60 groups, each group decimal */
        uint64_t group = 0;
        for (; i <= n; i++) {
            if (i == n || s[i] == ':') {
                dacc = dacc * 60 + (double)group;
                group = 0;
            } else if (s[i] != '_') {
                group = group * 10 + (uint64_t)(s[i] - '0');
            }
        }
        if (dacc > 9.0e15)
            return json_object_new_double(neg ? -dacc : dacc);
        acc = (uint64_t)dacc;
    } else {
        if (n - i > 2 && s[i] == '0' && s[i + 1] == 'b') {
            base = 2;
            i += 2;
        } else if (n - i > 2 && s[i] == '0' && s[i + 1] == 'x') {
            base = 16;
            i += 2;
        } else if (n - i > 1 && s[i] == '0') {
            base = 8;
            i += 1;
        }
        for (; i < n; i++) {
            unsigned d;
            char ch = s[i];
            if (ch == '_')
                continue;
            d = is_digit(ch) ? (unsigned)(ch - '0')
                             : (unsigned)((ch | 0x20) - 'a' + 10);
            dacc = dacc * base + d;
            if (acc > (UINT64_MAX - d) / base)
                overflow = true;
            else
                acc = acc * base + d;
        }
    }
    if (overflow || (neg && acc > (uint64_t)INT64_MAX + 1))
        return json_object_new_double(neg ? -dacc : dacc);
    if (!neg)
        return acc <= (uint64_t)INT64_MAX ? json_object_new_int64((int64_t)acc)
                                          : json_object_new_uint64(acc);
    if (acc == (uint64_t)INT64_MAX + 1)
        return json_object_new_int64(INT64_MIN);
    return json_object_new_int64(-(int64_t)acc);
}

static bool float_from_text(const char *s, size_t n, double *out)
{
    char small[128], *t;
    size_t i, j = 0;
    char *end;

    t = n < sizeof small ? small : malloc(n + 1);
    if (!t)
        return false;
    for (i = 0; i < n; i++)
        if (s[i] != '_')
            t[j++] = s[i];
    t[j] = '\0';
    if (strchr(t, ':')) {
        /* sexagesimal float: a:b:c.d */
        double acc = 0, sign = 1;
        char *p = t;
        if (*p == '-' || *p == '+') {
            sign = *p == '-' ? -1 : 1;
            p++;
        }
        while (strchr(p, ':')) {
            acc = acc * 60 + strtod(p, &end);
            p = strchr(p, ':') + 1;
        }
        acc = acc * 60 + strtod(p, &end);
        *out = sign * acc;
    } else {
        *out = strtod(t, &end);
    }
    if (t != small)
        free(t);
    return true;
}

static void warn_ambiguous(struct yconv *c, struct fy_node *n, const char *s,
                           size_t len, enum stype t11)
{
    enum stype t12 = resolve12(s, len);
    uint32_t l = 0, col = 0;
    bool ts = t11 == S_STR && yaml11_timestamp(s, len);
    /* same type, other value: 1.1 octal 017, 0b101, 1_000, 1:30 */
    size_t sg = len && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    bool octal = len > sg + 1 && s[sg] == '0' && is_digit(s[sg + 1]);
    bool num = t11 == S_INT && t12 == S_INT &&
               (octal || memchr(s, '_', len) || memchr(s, ':', len));

    if (!c->warn || (t11 == t12 && !ts && !num))
        return;
    mark_of(n, &l, &col);
    if (num)
        koa_diag_add(c->warn, KYTOS_OPENAPI_WARNING, l, col, ku_buf_str(&c->ptr),
                     "plain scalar '%.*s' is a different number in YAML 1.1 "
                     "(PyYAML, which Kytos uses) than in YAML 1.2; quote it or "
                     "write it unambiguously", (int)(len > 60 ? 60 : len), s);
    else if (ts)
        koa_diag_add(c->warn, KYTOS_OPENAPI_WARNING, l, col, ku_buf_str(&c->ptr),
                     "plain scalar '%.*s' is a timestamp in YAML 1.1 (PyYAML, "
                     "which Kytos uses) and a string here; quote it",
                     (int)(len > 60 ? 60 : len), s);
    else
        koa_diag_add(c->warn, KYTOS_OPENAPI_WARNING, l, col, ku_buf_str(&c->ptr),
                     "plain scalar '%.*s' is %s in YAML 1.1 (PyYAML, which "
                     "Kytos uses) but %s in YAML 1.2; quote it or write it "
                     "unambiguously",
                     (int)(len > 60 ? 60 : len), s, stype_name(t11),
                     stype_name(t12));
}

/* JSON-mode scalar: numbers by the JSON grammar. */
static enum stype resolve_json(const char *s, size_t n)
{
    enum stype t = resolve12(s, n);
    if (t == S_NULL && !(n == 4 && !memcmp(s, "null", 4)))
        return S_STR;
    if (t == S_BOOL && !(n == 4 && !memcmp(s, "true", 4)) &&
        !(n == 5 && !memcmp(s, "false", 5)))
        return S_STR;
    return t;
}

/* libfyaml 0.7.12 leaks the chunk array when it formats a single-quoted
 * scalar with several '' escapes (found by the fuzzer), so such scalars
 * are decoded here from the source text: '' is ', and line folding as
 * YAML 1.2 7.3.2 says (a single break is a space, n empty lines are n
 * newlines, indentation and trailing blanks go). */
static char *sq_decode(const char *raw, size_t n, size_t *outlen)
{
    struct ku_buf b;
    size_t i = 0, pending = 0;
    bool first = true;

    ku_buf_init(&b);
    ku_buf_adds(&b, "");
    while (i <= n) {
        size_t st = i, e, ls, le;
        bool last;
        while (i < n && raw[i] != '\n' && raw[i] != '\r')
            i++;
        e = i;
        last = i >= n;
        if (i < n && raw[i] == '\r' && i + 1 < n && raw[i + 1] == '\n')
            i++;
        i++;
        ls = st;
        le = e;
        if (!first)
            while (ls < le && (raw[ls] == ' ' || raw[ls] == '\t'))
                ls++;
        if (!last)
            while (le > ls && (raw[le - 1] == ' ' || raw[le - 1] == '\t'))
                le--;
        if (!first) {
            if (ls == le && !last) {
                pending++;
                continue;
            }
            if (pending)
                while (pending--)
                    ku_buf_addc(&b, '\n');
            else
                ku_buf_addc(&b, ' ');
            pending = 0;
        }
        first = false;
        for (; ls < le; ls++) {
            ku_buf_addc(&b, raw[ls]);
            if (raw[ls] == '\'' && ls + 1 < le && raw[ls + 1] == '\'')
                ls++;
        }
        if (last)
            break;
    }
    *outlen = b.len;
    return ku_buf_take(&b);
}

/* The scalar's text; *owned is set when the caller must free it. */
static const char *scalar_text(const char *src, struct fy_node *n, size_t *len,
                               char **owned)
{
    struct fy_token *t = fy_node_get_scalar_token(n);
    *owned = NULL;
    if (src && t && fy_node_get_style(n) == FYNS_SINGLE_QUOTED) {
        const struct fy_mark *a = fy_token_start_mark(t), *b = fy_token_end_mark(t);
        if (a && b && b->input_pos >= a->input_pos &&
            memmem(src + a->input_pos, b->input_pos - a->input_pos, "''", 2)) {
            *owned = sq_decode(src + a->input_pos, b->input_pos - a->input_pos, len);
            return *owned;
        }
    }
    return fy_node_get_scalar(n, len);
}

static json_object *scalar_to_json(struct yconv *c, struct fy_node *n,
                                   const char *s, size_t len)
{
    enum fy_node_style st = fy_node_get_style(n);
    size_t tlen = 0;
    const char *tag = fy_node_get_tag(n, &tlen);
    enum stype t = S_STR;
    json_object *o = NULL;

    if (!s) {
        s = "";
        len = 0;
    }
    if (tag && tlen) {
        /* explicit tags: the core ones force the type; others are kept
         * as the scalar's string value. */
        if (tlen == 21 && !memcmp(tag, "tag:yaml.org,2002:str", 21))
            t = S_STR;
        else if (tlen == 21 && !memcmp(tag, "tag:yaml.org,2002:int", 21))
            t = S_INT;
        else if (tlen == 23 && !memcmp(tag, "tag:yaml.org,2002:float", 23))
            t = S_FLOAT;
        else if (tlen == 22 && !memcmp(tag, "tag:yaml.org,2002:bool", 22))
            t = S_BOOL;
        else if (tlen == 22 && !memcmp(tag, "tag:yaml.org,2002:null", 22))
            t = S_NULL;
        else if (st == FYNS_PLAIN)
            t = c->json ? resolve_json(s, len) : resolve11(s, len);
        if ((t == S_INT && !yaml11_int(s, len)) ||
            (t == S_FLOAT && !yaml11_float(s, len) && !yaml11_int(s, len))) {
            yerr(c, n, 0, 0, "scalar '%.*s' does not match its tag", (int)len, s);
            return NULL;
        }
    } else if (st == FYNS_PLAIN) {
        t = c->json ? resolve_json(s, len) : resolve11(s, len);
        if (!c->json)
            warn_ambiguous(c, n, s, len, t);
    }
    switch (t) {
    case S_NULL:
        return NULL;
    case S_BOOL:
        o = json_object_new_boolean(s[0] == 'y' || s[0] == 'Y' || s[0] == 't' ||
                                    s[0] == 'T' || (len == 2 && (s[1] | 0x20) == 'n'));
        break;
    case S_INT:
        if (c->json) {
            double d;
            if (!float_from_text(s, len, &d)) {
                yerr(c, n, 0, 0, "out of memory");
                return NULL;
            }
            o = fabs(d) < 9.0e18 ? int_from_text(s, len) : json_object_new_double(d);
        } else {
            o = int_from_text(s, len);
        }
        break;
    case S_FLOAT: {
        double d = 0;
        if (!float_from_text(s, len, &d)) {
            yerr(c, n, 0, 0, "out of memory");
            return NULL;
        }
        if (!isfinite(d)) {
            yerr(c, n, 0, 0, "'%.*s': infinite and NaN numbers cannot be "
                 "represented in JSON", (int)len, s);
            return NULL;
        }
        o = json_object_new_double(d);
        break;
    }
    default:
        o = json_object_new_string_len(s, (int)len);
        break;
    }
    if (!o)
        yerr(c, n, 0, 0, "out of memory");
    return o;
}

static json_object *convert_scalar(struct yconv *c, struct fy_node *n)
{
    size_t len = 0;
    char *owned = NULL;
    const char *s = scalar_text(c->src, n, &len, &owned);
    json_object *o = scalar_to_json(c, n, s, len);
    free(owned);
    return o;
}

static json_object *convert(struct yconv *c, struct fy_node *n, unsigned depth,
                            uint32_t hl, uint32_t hc);

static void record(struct yconv *c, const void *key, uint32_t l, uint32_t col)
{
    if (c->pos && key && l)
        koa_posmap_put(c->pos, key, l, col);
}

/* The text of a scalar key as a JSON object key: strings as they are,
 * other scalars by their canonical text (200 -> "200"). */
static char *key_text(struct yconv *c, struct fy_node *k)
{
    size_t len = 0;
    const char *s;
    json_object *v;
    char *out;

    if (!k) /* "? " with no key: null */
        return strdup("null");
    if (fy_node_is_alias(k))
        k = fy_node_resolve_alias(k);
    if (!k || !fy_node_is_scalar(k)) {
        yerr(c, k, 0, 0, "mapping keys must be scalars");
        return NULL;
    }
    if (fy_node_get_style(k) != FYNS_PLAIN) {
        char *owned = NULL;
        s = scalar_text(c->src, k, &len, &owned);
        if (!s)
            s = "";
        if (memchr(s, '\0', len)) {
            free(owned);
            yerr(c, k, 0, 0, "mapping key contains U+0000");
            return NULL;
        }
        out = owned ? owned : strndup(s, len);
        return out;
    }
    s = fy_node_get_scalar(k, &len);
    if (!s)
        s = "";
    if (memchr(s, '\0', len)) {
        yerr(c, k, 0, 0, "mapping key contains U+0000");
        return NULL;
    }
    v = convert_scalar(c, k);
    if (c->failed)
        return NULL;
    if (v == NULL)
        return strdup("null");
    if (json_object_is_type(v, json_type_string))
        out = strndup(json_object_get_string(v), (size_t)json_object_get_string_len(v));
    else
        out = strdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
    json_object_put(v);
    return out;
}

static bool is_merge_key(struct fy_node *k)
{
    size_t len = 0;
    const char *s;
    if (!k || !fy_node_is_scalar(k) || fy_node_get_style(k) != FYNS_PLAIN)
        return false;
    s = fy_node_get_scalar(k, &len);
    return s && len == 2 && s[0] == '<' && s[1] == '<';
}

static bool add_member(struct yconv *c, json_object *obj, const char *key,
                       json_object *v, struct fy_node *kn, bool own)
{
    struct lh_entry *e;
    uint32_t l = 0, col = 0;

    if (!own && json_object_object_get_ex(obj, key, NULL)) {
        json_object_put(v); /* merged keys never override */
        return true;
    }
    if (json_object_object_add(obj, key, v) != 0) {
        json_object_put(v);
        yerr(c, kn, 0, 0, "out of memory");
        return false;
    }
    e = lh_table_lookup_entry(json_object_get_object(obj), key);
    if (e && mark_of(kn, &l, &col))
        record(c, e->k, l, col);
    return true;
}

static json_object *convert_mapping(struct yconv *c, struct fy_node *n,
                                    unsigned depth)
{
    json_object *obj = json_object_new_object();
    void *it = NULL;
    struct fy_node_pair *pr;
    struct fy_node *merges[64];
    size_t nmerge = 0, i;

    if (!obj) {
        yerr(c, n, 0, 0, "out of memory");
        return NULL;
    }
    while ((pr = fy_node_mapping_iterate(n, &it)) != NULL && !c->failed) {
        struct fy_node *kn = fy_node_pair_key(pr);
        struct fy_node *vn = fy_node_pair_value(pr);
        size_t mark = c->ptr.len;
        uint32_t kl = 0, kc = 0;
        char *key;
        json_object *v;

        if (is_merge_key(kn) && !c->json) {
            if (nmerge < sizeof merges / sizeof merges[0])
                merges[nmerge++] = vn;
            else
                yerr(c, kn, 0, 0, "too many merge keys");
            continue;
        }
        key = key_text(c, kn);
        if (!key)
            break;
        koa_ptr_append_token(&c->ptr, key, strlen(key));
        mark_of(kn, &kl, &kc);
        if (json_object_object_get_ex(obj, key, NULL)) {
            yerr(c, kn, 0, 0, "duplicate key '%s'", key);
            free(key);
            break;
        }
        v = convert(c, vn, depth + 1, kl, kc);
        if (c->failed) {
            json_object_put(v);
            free(key);
            break;
        }
        add_member(c, obj, key, v, kn, true);
        free(key);
        c->ptr.len = mark;
        c->ptr.p[mark] = '\0';
    }
    /* "<<: *base" or "<<: [*a, *b]": keys of the merged mappings that the
     * mapping does not set itself (earlier sources win), as PyYAML. */
    for (i = 0; i < nmerge && !c->failed; i++) {
        struct fy_node *src = merges[i];
        struct fy_node *list[64];
        size_t nlist = 0, j;
        if (fy_node_is_alias(src))
            src = fy_node_resolve_alias(src);
        if (src && fy_node_is_sequence(src)) {
            void *sit = NULL;
            struct fy_node *item;
            while ((item = fy_node_sequence_iterate(src, &sit)) && nlist < 64)
                list[nlist++] = item;
        } else {
            list[nlist++] = src;
        }
        for (j = 0; j < nlist && !c->failed; j++) {
            json_object *m;
            struct fy_node *mn = list[j];
            if (mn && fy_node_is_alias(mn))
                mn = fy_node_resolve_alias(mn);
            if (!mn || !fy_node_is_mapping(mn)) {
                yerr(c, merges[i], 0, 0, "a merge key (<<) needs a mapping "
                     "or a sequence of mappings");
                break;
            }
            m = convert(c, mn, depth + 1, 0, 0);
            if (c->failed) {
                json_object_put(m);
                break;
            }
            {
                json_object_object_foreach(m, mk, mv) {
                    if (!json_object_object_get_ex(obj, mk, NULL))
                        json_object_object_add(obj, mk, json_object_get(mv));
                }
            }
            json_object_put(m);
        }
    }
    if (c->failed) {
        json_object_put(obj);
        return NULL;
    }
    return obj;
}

static json_object *convert_sequence(struct yconv *c, struct fy_node *n,
                                     unsigned depth)
{
    json_object *arr = json_object_new_array();
    void *it = NULL;
    struct fy_node *item;
    size_t idx = 0;

    if (!arr) {
        yerr(c, n, 0, 0, "out of memory");
        return NULL;
    }
    while ((item = fy_node_sequence_iterate(n, &it)) != NULL) {
        size_t mark = c->ptr.len;
        json_object *v;
        koa_ptr_append_index(&c->ptr, idx++);
        v = convert(c, item, depth + 1, 0, 0);
        if (c->failed) {
            json_object_put(v);
            json_object_put(arr);
            return NULL;
        }
        if (json_object_array_add(arr, v) != 0) {
            json_object_put(v);
            json_object_put(arr);
            yerr(c, item, 0, 0, "out of memory");
            return NULL;
        }
        c->ptr.len = mark;
        c->ptr.p[mark] = '\0';
    }
    return arr;
}

/* Position of a container without a key (an item of a sequence): that of
 * its first scalar (key or item). */
static bool first_mark(struct fy_node *n, unsigned depth, uint32_t *l, uint32_t *c)
{
    void *it = NULL;
    if (!n || depth > 8)
        return false;
    if (fy_node_is_alias(n) || fy_node_is_scalar(n))
        return mark_of(n, l, c);
    if (fy_node_is_mapping(n)) {
        struct fy_node_pair *p = fy_node_mapping_iterate(n, &it);
        return p && first_mark(fy_node_pair_key(p), depth + 1, l, c);
    }
    if (fy_node_is_sequence(n))
        return first_mark(fy_node_sequence_iterate(n, &it), depth + 1, l, c);
    return false;
}

/* hl/hc: position to use for a container (that of its key), 0 if none. */
static json_object *convert(struct yconv *c, struct fy_node *n, unsigned depth,
                            uint32_t hl, uint32_t hc)
{
    json_object *o;
    uint32_t l = 0, col = 0;

    if (c->failed)
        return NULL;
    if (depth > KOA_YAML_MAX_DEPTH) {
        yerr(c, n, hl, hc, "nesting deeper than %d levels (or a recursive "
             "alias)", KOA_YAML_MAX_DEPTH);
        return NULL;
    }
    if (++c->nodes > c->o->max_spec_nodes) {
        yerr(c, n, hl, hc, "more than %zu nodes (after expanding aliases)",
             c->o->max_spec_nodes);
        return NULL;
    }
    if (!n) /* empty value: null */
        return NULL;
    if (fy_node_is_alias(n)) {
        struct fy_node *t = fy_node_resolve_alias(n);
        size_t len = 0;
        const char *name = fy_node_get_scalar(n, &len);
        unsigned i;
        if (!t) {
            yerr(c, n, hl, hc, "undefined alias '*%.*s'", (int)len, name ? name : "");
            return NULL;
        }
        for (i = 0; i < c->nstack; i++) {
            if (c->stack[i] == t) {
                yerr(c, n, hl, hc, "recursive alias '*%.*s'", (int)len,
                     name ? name : "");
                return NULL;
            }
        }
        mark_of(n, &hl, &hc);
        n = t;
    }
    if (fy_node_is_mapping(n) || fy_node_is_sequence(n)) {
        c->stack[c->nstack++] = n;
        o = fy_node_is_mapping(n) ? convert_mapping(c, n, depth)
                                  : convert_sequence(c, n, depth);
        c->nstack--;
    } else {
        o = convert_scalar(c, n);
    }
    if (o) {
        if (!mark_of(n, &l, &col)) {
            l = hl;
            col = hc;
            if (!l)
                first_mark(n, 0, &l, &col);
        }
        record(c, o, l, col);
    }
    return o;
}

static bool looks_like_json(const char *s, size_t n)
{
    size_t i = 0;
    if (n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3))
        i = 3;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    return i < n && (s[i] == '{' || s[i] == '[');
}

int koa_yaml_load(const char *text, size_t len,
                  const struct kytos_openapi_options *o,
                  struct koa_posmap *pos, kytos_openapi_diags *d,
                  kytos_openapi_diags *warn, json_object **out)
{
    struct fy_diag_cfg dc;
    struct fy_diag *fdiag;
    struct fy_parse_cfg cfg;
    struct fy_document *fyd;
    struct yconv c;
    json_object *root = NULL;

    *out = NULL;
    if (len > o->max_spec_bytes) {
        koa_diag_add(d, KYTOS_OPENAPI_ERROR, 0, 0, "",
                     "spec is %zu bytes, more than the limit of %zu", len,
                     o->max_spec_bytes);
        return -1;
    }
    if (memchr(text, '\0', len)) {
        const char *z = memchr(text, '\0', len);
        koa_diag_add(d, KYTOS_OPENAPI_ERROR, 0, 0, "",
                     "spec contains a NUL byte at offset %zu", (size_t)(z - text));
        return -1;
    }
    if (!koa_utf8_valid(text, len)) {
        koa_diag_add(d, KYTOS_OPENAPI_ERROR, 0, 0, "", "spec is not valid UTF-8");
        return -1;
    }

    memset(&c, 0, sizeof c);
    c.o = o;
    c.pos = pos;
    c.d = d;
    c.warn = warn;
    c.json = looks_like_json(text, len);
    c.src = text;
    ku_buf_init(&c.ptr);
    ku_buf_adds(&c.ptr, "");

    fy_diag_cfg_default(&dc);
    dc.fp = NULL;
    dc.output_fn = NULL;
    dc.colorize = false;
    fdiag = fy_diag_create(&dc);
    if (!fdiag) {
        koa_diag_add(d, KYTOS_OPENAPI_ERROR, 0, 0, "", "out of memory");
        ku_buf_free(&c.ptr);
        return -1;
    }
    fy_diag_set_collect_errors(fdiag, true);
    memset(&cfg, 0, sizeof cfg);
    /* PyYAML accepts flow collections and quoted scalars indented less
     * than the YAML spec asks; three Kytos specs rely on it. */
    cfg.flags = FYPCF_QUIET | FYPCF_SLOPPY_FLOW_INDENTATION |
                (c.json ? FYPCF_JSON_FORCE : FYPCF_JSON_NONE);
    cfg.diag = fdiag;
    fyd = fy_document_build_from_string(&cfg, text, len);
    if (!fyd || fy_diag_got_error(fdiag)) {
        void *it = NULL;
        struct fy_diag_error *e;
        size_t nerr = 0;
        while ((e = fy_diag_errors_iterate(fdiag, &it)) != NULL) {
            if (e->type < FYET_ERROR)
                continue;
            koa_diag_add(d, KYTOS_OPENAPI_ERROR,
                         e->line > 0 ? (unsigned)e->line : 0,
                         e->column > 0 ? (unsigned)e->column : 0, "",
                         "%s: %s", c.json ? "JSON" : "YAML",
                         e->msg ? e->msg : "syntax error");
            nerr++;
        }
        if (!nerr)
            koa_diag_add(d, KYTOS_OPENAPI_ERROR, 0, 0, "",
                         fyd ? "YAML error" : "empty document (no YAML content)");
        if (fyd)
            fy_document_destroy(fyd);
        fy_diag_destroy(fdiag);
        ku_buf_free(&c.ptr);
        return -1;
    }
    if (!fy_document_root(fyd)) {
        koa_diag_add(d, KYTOS_OPENAPI_ERROR, 0, 0, "", "empty document");
        c.failed = true;
    } else {
        root = convert(&c, fy_document_root(fyd), 0, 1, 1);
    }
    fy_document_destroy(fyd);
    fy_diag_destroy(fdiag);
    ku_buf_free(&c.ptr);
    if (c.failed) {
        json_object_put(root);
        return -1;
    }
    *out = root;
    return 0;
}
