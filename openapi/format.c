/* openapi/format.c - "format" checkers.
 *
 * OAS 3.0 defines int32, int64, float, double, byte, binary, date,
 * date-time and password; JSON Schema adds email, hostname, ipv4, ipv6,
 * uri, uri-reference, uri-template, uuid, time, duration, json-pointer,
 * relative-json-pointer and regex.  Each checker follows the RFC grammar
 * (RFC 3339, 5321, 1123, 3986, 4291, 4122, 6570, 6901) on the exact bytes:
 * strings may contain NUL, so lengths are explicit, and only ASCII digits
 * count as digits.  A format applies to one JSON type; other types pass,
 * and so do unknown formats.
 *
 * Not implemented (they pass): idn-email, idn-hostname, iri,
 * iri-reference (need IDNA/Unicode tables). */
#include <string.h>

#include "internal.h"

struct fmt_name {
    const char *name;
    enum koa_format id;
};

static const struct fmt_name names[] = {
    { "int32", KOA_FMT_INT32 }, { "int64", KOA_FMT_INT64 },
    { "float", KOA_FMT_FLOAT }, { "double", KOA_FMT_DOUBLE },
    { "byte", KOA_FMT_BYTE }, { "binary", KOA_FMT_BINARY },
    { "password", KOA_FMT_PASSWORD }, { "date", KOA_FMT_DATE },
    { "date-time", KOA_FMT_DATE_TIME }, { "time", KOA_FMT_TIME },
    { "duration", KOA_FMT_DURATION }, { "email", KOA_FMT_EMAIL },
    { "hostname", KOA_FMT_HOSTNAME }, { "ipv4", KOA_FMT_IPV4 },
    { "ipv6", KOA_FMT_IPV6 }, { "uri", KOA_FMT_URI },
    { "uri-reference", KOA_FMT_URI_REFERENCE },
    { "uri-template", KOA_FMT_URI_TEMPLATE }, { "uuid", KOA_FMT_UUID },
    { "json-pointer", KOA_FMT_JSON_POINTER },
    { "relative-json-pointer", KOA_FMT_REL_JSON_POINTER },
    { "regex", KOA_FMT_REGEX },
};

enum koa_format koa_format_lookup(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i].name, name) == 0)
            return names[i].id;
    return KOA_FMT_UNKNOWN;
}

static bool dig(char c) { return c >= '0' && c <= '9'; }
static bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool hexd(char c)
{
    return dig(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* n ASCII digits at s -> value, or -1 */
static int num(const char *s, int n)
{
    int v = 0, i;
    for (i = 0; i < n; i++) {
        if (!dig(s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* ---- dates and times (RFC 3339) --------------------------------- */

static bool full_date(const char *s, size_t n)
{
    static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int y, m, d, max;
    if (n != 10 || s[4] != '-' || s[7] != '-')
        return false;
    y = num(s, 4);
    m = num(s + 5, 2);
    d = num(s + 8, 2);
    if (y < 0 || m < 1 || m > 12 || d < 1)
        return false;
    max = mdays[m - 1];
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
        max = 29;
    return d <= max;
}

/* partial-time time-offset; leap second only at 23:59:60 UTC */
static bool full_time(const char *s, size_t n)
{
    int h, mi, se, oh = 0, om = 0, sign = 0;
    size_t i = 8;
    if (n < 9 || s[2] != ':' || s[5] != ':')
        return false;
    h = num(s, 2);
    mi = num(s + 3, 2);
    se = num(s + 6, 2);
    if (h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 60)
        return false;
    if (i < n && s[i] == '.') {
        size_t st = ++i;
        while (i < n && dig(s[i]))
            i++;
        if (i == st)
            return false;
    }
    if (i >= n)
        return false;
    if ((s[i] == 'Z' || s[i] == 'z') && i + 1 == n) {
        sign = 0;
    } else if ((s[i] == '+' || s[i] == '-') && n - i == 6 && s[i + 3] == ':') {
        sign = s[i] == '+' ? 1 : -1;
        oh = num(s + i + 1, 2);
        om = num(s + i + 4, 2);
        if (oh < 0 || oh > 23 || om < 0 || om > 59)
            return false;
    } else {
        return false;
    }
    if (se == 60) {
        /* local = UTC + offset, so UTC = local - offset */
        int utc = (h * 60 + mi - sign * (oh * 60 + om)) % 1440;
        if (utc < 0)
            utc += 1440;
        if (utc != 23 * 60 + 59)
            return false;
    }
    return true;
}

static bool date_time(const char *s, size_t n)
{
    return n > 11 && (s[10] == 'T' || s[10] == 't') && full_date(s, 10) &&
           full_time(s + 11, n - 11);
}

/* RFC 3339 appendix A duration, by its ABNF (no fractions, no weeks
 * mixed with anything). */
static bool digits_unit(const char *s, size_t n, size_t *i, char *unit)
{
    size_t st = *i;
    while (*i < n && dig(s[*i]))
        (*i)++;
    if (*i == st || *i >= n)
        return false;
    *unit = s[(*i)++];
    return true;
}

static bool duration(const char *s, size_t n)
{
    size_t i = 1;
    const char *order;
    char u;
    int last = -1, k;
    bool any = false;

    if (n < 2 || s[0] != 'P')
        return false;
    /* dur-week */
    {
        size_t j = 1;
        while (j < n && dig(s[j]))
            j++;
        if (j > 1 && j + 1 == n && s[j] == 'W')
            return true;
    }
    order = "YMD";
    while (i < n && s[i] != 'T') {
        if (!digits_unit(s, n, &i, &u))
            return false;
        for (k = 0; order[k] && order[k] != u; k++)
            ;
        /* units in order and contiguous (Y D without M is not allowed) */
        if (!order[k] || k <= last || (last >= 0 && k != last + 1))
            return false;
        last = k;
        any = true;
    }
    if (i < n) { /* 'T' */
        i++;
        order = "HMS";
        last = -1;
        if (i >= n)
            return false;
        while (i < n) {
            if (!digits_unit(s, n, &i, &u))
                return false;
            for (k = 0; order[k] && order[k] != u; k++)
                ;
            if (!order[k] || k <= last || (last >= 0 && k != last + 1))
                return false;
            last = k;
            any = true;
        }
    }
    return any;
}

/* ---- network names ---------------------------------------------- */

static bool ipv4(const char *s, size_t n)
{
    size_t i = 0;
    int parts = 0;
    while (parts < 4) {
        size_t st = i;
        int v = 0;
        while (i < n && dig(s[i]) && i - st < 3) {
            v = v * 10 + (s[i] - '0');
            i++;
        }
        if (i == st || v > 255 || (i - st > 1 && s[st] == '0'))
            return false;
        parts++;
        if (parts < 4) {
            if (i >= n || s[i] != '.')
                return false;
            i++;
        }
    }
    return i == n;
}

static bool ipv6(const char *s, size_t n)
{
    int groups = 0;
    bool dbl = false;
    size_t i = 0;

    if (n < 2)
        return false;
    if (s[0] == ':') {
        if (s[1] != ':')
            return false;
        dbl = true;
        i = 2;
        if (i == n)
            return true;
    }
    while (i < n) {
        size_t st = i;
        while (i < n && hexd(s[i]) && i - st < 5)
            i++;
        if (i < n && s[i] == '.') {
            /* embedded IPv4 as the last 32 bits */
            size_t j = st;
            while (j < n && s[j] != ':')
                j++;
            if (j != n || !ipv4(s + st, n - st))
                return false;
            groups += 2;
            i = n;
            break;
        }
        if (i == st || i - st > 4)
            return false;
        groups++;
        if (i == n)
            break;
        if (s[i] != ':')
            return false;
        i++;
        if (i < n && s[i] == ':') {
            if (dbl)
                return false;
            dbl = true;
            i++;
            if (i == n)
                break;
        } else if (i == n) {
            return false; /* trailing single colon */
        }
    }
    return dbl ? groups <= 7 : groups == 8;
}

static bool hostname_label(const char *s, size_t n)
{
    size_t i;
    if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
        return false;
    for (i = 0; i < n; i++)
        if (!alpha(s[i]) && !dig(s[i]) && s[i] != '-')
            return false;
    return true;
}

static bool hostname(const char *s, size_t n)
{
    size_t st = 0, i;
    if (n == 0 || n > 253)
        return false;
    for (i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (!hostname_label(s + st, i - st))
                return false;
            st = i + 1;
        }
    }
    return true;
}

/* RFC 5321 Mailbox: dot-string or quoted-string "@" domain or
 * address literal. */
static bool email(const char *s, size_t n)
{
    static const char atext[] = "!#$%&'*+-/=?^_`{|}~";
    size_t i = 0, at;

    if (n == 0)
        return false;
    if (s[0] == '"') {
        for (i = 1; i < n && s[i] != '"'; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c == '\\') {
                if (++i >= n || (unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
                    return false;
            } else if (c < 0x20 || c > 0x7e) {
                return false;
            }
        }
        if (i >= n)
            return false;
        i++;
    } else {
        bool prev_dot = true; /* no leading dot */
        for (; i < n && s[i] != '@'; i++) {
            char c = s[i];
            if (c == '.') {
                if (prev_dot)
                    return false;
                prev_dot = true;
            } else if (alpha(c) || dig(c) || (c && strchr(atext, c))) {
                prev_dot = false;
            } else {
                return false;
            }
        }
        if (prev_dot)
            return false; /* empty or trailing dot */
    }
    if (i >= n || s[i] != '@')
        return false;
    at = i + 1;
    if (at >= n)
        return false;
    if (s[at] == '[') {
        if (s[n - 1] != ']')
            return false;
        if (n - at > 6 && !memcmp(s + at + 1, "IPv6:", 5))
            return ipv6(s + at + 6, n - at - 7);
        return ipv4(s + at + 1, n - at - 2);
    }
    return hostname(s + at, n - at);
}

/* ---- URIs (RFC 3986) --------------------------------------------- */

static bool unreserved(char c)
{
    return alpha(c) || dig(c) || c == '-' || c == '.' || c == '_' || c == '~';
}
static bool subdelim(char c)
{
    return c && strchr("!$&'()*+,;=", c) != NULL;
}

/* Characters of a component: unreserved, sub-delims, pct-encoded and
 * the extra characters in `extra`. */
static bool chars_ok(const char *s, size_t n, const char *extra)
{
    size_t i;
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (c == '%') {
            if (i + 2 >= n || !hexd(s[i + 1]) || !hexd(s[i + 2]))
                return false;
            i += 2;
        } else if (!unreserved(c) && !subdelim(c) && !(c && strchr(extra, c))) {
            return false;
        }
    }
    return true;
}

static bool authority(const char *s, size_t n)
{
    const char *at = memchr(s, '@', n);
    size_t hs = 0, i;

    if (at) {
        if (!chars_ok(s, (size_t)(at - s), ":"))
            return false;
        hs = (size_t)(at - s) + 1;
    }
    s += hs;
    n -= hs;
    if (n > 0 && s[0] == '[') {
        const char *close = memchr(s, ']', n);
        size_t hl;
        if (!close)
            return false;
        hl = (size_t)(close - s);
        if (hl > 1 && (s[1] == 'v' || s[1] == 'V')) {
            /* IPvFuture: "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) */
            size_t j = 2;
            while (j < hl && hexd(s[j]))
                j++;
            if (j == 2 || j >= hl || s[j] != '.' || j + 1 >= hl ||
                !chars_ok(s + j + 1, hl - j - 1, ":"))
                return false;
        } else if (!ipv6(s + 1, hl - 1)) {
            return false;
        }
        i = hl + 1;
    } else {
        for (i = 0; i < n && s[i] != ':'; i++)
            ;
        if (!chars_ok(s, i, ""))
            return false;
    }
    if (i < n) {
        if (s[i] != ':')
            return false;
        for (i++; i < n; i++)
            if (!dig(s[i]))
                return false;
    }
    return true;
}

/* hier-part / relative-part after the scheme (or from the start) up to
 * '?' or '#'; then query and fragment. */
static bool uri_rest(const char *s, size_t n, bool relative)
{
    size_t i = 0, pend;

    for (pend = 0; pend < n && s[pend] != '?' && s[pend] != '#'; pend++)
        ;
    if (pend >= 2 && s[0] == '/' && s[1] == '/') {
        size_t ae = 2;
        while (ae < pend && s[ae] != '/')
            ae++;
        if (!authority(s + 2, ae - 2))
            return false;
        i = ae;
    } else if (relative) {
        /* path-noscheme: no ':' in the first segment */
        size_t j;
        for (j = 0; j < pend && s[j] != '/'; j++)
            if (s[j] == ':')
                return false;
    }
    if (!chars_ok(s + i, pend - i, ":@/"))
        return false;
    i = pend;
    if (i < n && s[i] == '?') {
        size_t qe = i + 1;
        while (qe < n && s[qe] != '#')
            qe++;
        if (!chars_ok(s + i + 1, qe - i - 1, ":@/?"))
            return false;
        i = qe;
    }
    if (i < n && s[i] == '#') {
        if (!chars_ok(s + i + 1, n - i - 1, ":@/?"))
            return false;
        i = n;
    }
    return i == n;
}

/* scheme ":" ; returns the length through the colon, 0 if none */
static size_t scheme_len(const char *s, size_t n)
{
    size_t i;
    if (n == 0 || !alpha(s[0]))
        return 0;
    for (i = 1; i < n; i++) {
        if (s[i] == ':')
            return i + 1;
        if (!alpha(s[i]) && !dig(s[i]) && s[i] != '+' && s[i] != '-' && s[i] != '.')
            return 0;
    }
    return 0;
}

static bool uri(const char *s, size_t n)
{
    size_t sl = scheme_len(s, n);
    return sl && uri_rest(s + sl, n - sl, false);
}

static bool uri_reference(const char *s, size_t n)
{
    size_t sl = scheme_len(s, n);
    if (sl)
        return uri_rest(s + sl, n - sl, false);
    return uri_rest(s, n, true);
}

/* RFC 6570 level 4 syntax */
static bool uri_template(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '{') {
            size_t e = i + 1;
            bool expect_var = true;
            if (e < n && strchr("+#./;?&=,!@|", s[e]) && s[e])
                e++;
            for (;;) {
                size_t vs = e;
                bool prev_dot = true;
                if (!expect_var)
                    return false;
                while (e < n) {
                    char ch = s[e];
                    if (ch == '%') {
                        if (e + 2 >= n || !hexd(s[e + 1]) || !hexd(s[e + 2]))
                            return false;
                        e += 3;
                        prev_dot = false;
                    } else if (alpha(ch) || dig(ch) || ch == '_') {
                        e++;
                        prev_dot = false;
                    } else if (ch == '.' && !prev_dot) {
                        e++;
                        prev_dot = true;
                    } else {
                        break;
                    }
                }
                if (e == vs || prev_dot || e >= n)
                    return false;
                if (s[e] == ':') {
                    size_t ds = ++e;
                    while (e < n && dig(s[e]) && e - ds < 5)
                        e++;
                    if (e == ds || e - ds > 4 || s[ds] == '0')
                        return false;
                } else if (s[e] == '*') {
                    e++;
                }
                if (e >= n)
                    return false;
                if (s[e] == ',') {
                    e++;
                    continue;
                }
                if (s[e] == '}')
                    break;
                return false;
            }
            i = e + 1;
            continue;
        }
        if (c == '%') {
            if (i + 2 >= n || !hexd(s[i + 1]) || !hexd(s[i + 2]))
                return false;
            i += 3;
            continue;
        }
        if (c <= 0x20 || c == 0x7f || strchr("\"<>\\^`{|}", c))
            return false;
        i++;
    }
    return true;
}

static bool uuid(const char *s, size_t n)
{
    size_t i;
    if (n != 36)
        return false;
    for (i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return false;
        } else if (!hexd(s[i])) {
            return false;
        }
    }
    return true;
}

static bool json_pointer(const char *s, size_t n)
{
    size_t i;
    if (n == 0)
        return true;
    if (s[0] != '/')
        return false;
    for (i = 0; i < n; i++)
        if (s[i] == '~' && (i + 1 >= n || (s[i + 1] != '0' && s[i + 1] != '1')))
            return false;
    return true;
}

static bool rel_json_pointer(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && dig(s[i]))
        i++;
    if (i == 0 || (i > 1 && s[0] == '0'))
        return false;
    if (i == n)
        return true;
    if (s[i] == '#')
        return i + 1 == n;
    return json_pointer(s + i, n - i);
}

/* base64 as Python's b64encode(b64decode(s)) == s: canonical, padded */
static int b64v(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (dig(c)) return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

static bool byte_b64(const char *s, size_t n)
{
    size_t i, pad = 0;
    if (n % 4)
        return false;
    if (n && s[n - 1] == '=')
        pad++;
    if (n > 1 && s[n - 2] == '=')
        pad++;
    for (i = 0; i < n - pad; i++)
        if (b64v(s[i]) < 0)
            return false;
    /* unused bits of the last symbol must be zero */
    if (pad == 1 && (b64v(s[n - 2]) & 0x3))
        return false;
    if (pad == 2 && (b64v(s[n - 3]) & 0xF))
        return false;
    return true;
}

bool koa_format_check(enum koa_format f, json_object *inst)
{
    const char *s;
    size_t n;

    switch (f) {
    case KOA_FMT_INT32:
    case KOA_FMT_INT64: {
        struct koa_num v;
        if (!json_object_is_type(inst, json_type_int) || !koa_num_get(inst, &v))
            return true;
        if (v.k == KOA_U64)
            return false;
        if (f == KOA_FMT_INT32)
            return v.v.i >= INT32_MIN && v.v.i <= INT32_MAX;
        return true;
    }
    case KOA_FMT_UNKNOWN:
    case KOA_FMT_FLOAT:
    case KOA_FMT_DOUBLE:
    case KOA_FMT_BINARY:
    case KOA_FMT_PASSWORD:
        return true;
    default:
        break;
    }
    if (!json_object_is_type(inst, json_type_string))
        return true;
    s = json_object_get_string(inst);
    n = (size_t)json_object_get_string_len(inst);
    switch (f) {
    case KOA_FMT_BYTE: return byte_b64(s, n);
    case KOA_FMT_DATE: return full_date(s, n);
    case KOA_FMT_DATE_TIME: return date_time(s, n);
    case KOA_FMT_TIME: return full_time(s, n);
    case KOA_FMT_DURATION: return duration(s, n);
    case KOA_FMT_EMAIL: return email(s, n);
    case KOA_FMT_HOSTNAME: return hostname(s, n);
    case KOA_FMT_IPV4: return ipv4(s, n);
    case KOA_FMT_IPV6: return ipv6(s, n);
    case KOA_FMT_URI: return uri(s, n);
    case KOA_FMT_URI_REFERENCE: return uri_reference(s, n);
    case KOA_FMT_URI_TEMPLATE: return uri_template(s, n);
    case KOA_FMT_UUID: return uuid(s, n);
    case KOA_FMT_JSON_POINTER: return json_pointer(s, n);
    case KOA_FMT_REL_JSON_POINTER: return rel_json_pointer(s, n);
    case KOA_FMT_REGEX: {
        char err[8];
        struct koa_regex *re = koa_regex_compile(s, n, err, sizeof err);
        koa_regex_free(re);
        return re != NULL;
    }
    default:
        return true;
    }
}
