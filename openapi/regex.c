/* openapi/regex.c - ECMA-262 regular expressions on PCRE2.
 *
 * OpenAPI and JSON Schema patterns are ECMA-262 regexes (with the "u"
 * flag, as the JSON-Schema test suite assumes).  PCRE2 is close but not
 * equal, so a pattern is translated once, at spec load:
 *   - compile options: UTF (code points), DOLLAR_ENDONLY ($ does not match
 *     before a final newline), ALT_BSUX + EXTRA_ALT_BSUX (\uHHHH, \u{H..},
 *     \xHH), ALLOW_EMPTY_CLASS ([] never matches, [^] matches anything),
 *     MATCH_UNSET_BACKREF (an unset group matches empty).  No UCP: \d \w
 *     \b stay ASCII as in ECMA.
 *   - \s / \S become ECMA's whitespace set (PCRE2's is ASCII); inside a
 *     class its members are inserted; [..\S..] becomes (?:[..]|[^ws]).
 *   - '.' becomes [^\n\r\u2028\u2029].
 *   - \v is U+000B (PCRE2: any vertical space); '[' inside a class is a
 *     literal (PCRE2 would read "[:alpha:]" as a POSIX class).
 *   - \p{Long_Name} general categories become PCRE2's short names.
 *   - an escaped surrogate pair \uD83D\uDC32 becomes \u{1F432}.
 *   - escapes ECMA does not have (\a \e \A \Z \z \h \R \K \Q ...) and \S
 *     inside a negated class are refused with a clear message.
 * Matching is a search (never anchored), with per-thread match data and
 * JIT stack, and a match limit so a hostile pattern/input pair ends in an
 * error, not a hang. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util/text.h"

struct koa_regex {
    pcre2_code *code;
    char *source;
    char *pcre;
};

/* With ALT_BSUX, PCRE2 reads \uHHHH (and \u{H..} with EXTRA_ALT_BSUX) but
 * no longer \x{H..}; the translated text uses those forms only. */
#define WS_MEMBERS "\\t\\n\\x0b\\f\\r \\u00a0\\u1680\\u2000-\\u200a" \
                   "\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"

struct gc_name {
    const char *longname, *shortname;
};

/* ECMA accepts General_Category values by long or short name, PCRE2
 * 10.42 only by short name. */
static const struct gc_name gc_names[] = {
    { "Letter", "L" }, { "Cased_Letter", "L&" }, { "LC", "L&" },
    { "Uppercase_Letter", "Lu" }, { "Lowercase_Letter", "Ll" },
    { "Titlecase_Letter", "Lt" }, { "Modifier_Letter", "Lm" },
    { "Other_Letter", "Lo" }, { "Mark", "M" }, { "Combining_Mark", "M" },
    { "Nonspacing_Mark", "Mn" }, { "Spacing_Mark", "Mc" },
    { "Enclosing_Mark", "Me" }, { "Number", "N" }, { "Decimal_Number", "Nd" },
    { "digit", "Nd" }, { "Letter_Number", "Nl" }, { "Other_Number", "No" },
    { "Punctuation", "P" }, { "punct", "P" }, { "Connector_Punctuation", "Pc" },
    { "Dash_Punctuation", "Pd" }, { "Open_Punctuation", "Ps" },
    { "Close_Punctuation", "Pe" }, { "Initial_Punctuation", "Pi" },
    { "Final_Punctuation", "Pf" }, { "Other_Punctuation", "Po" },
    { "Symbol", "S" }, { "Math_Symbol", "Sm" }, { "Currency_Symbol", "Sc" },
    { "Modifier_Symbol", "Sk" }, { "Other_Symbol", "So" },
    { "Separator", "Z" }, { "Space_Separator", "Zs" },
    { "Line_Separator", "Zl" }, { "Paragraph_Separator", "Zp" },
    { "Other", "C" }, { "Control", "Cc" }, { "cntrl", "Cc" },
    { "Format", "Cf" }, { "Surrogate", "Cs" }, { "Private_Use", "Co" },
    { "Unassigned", "Cn" },
};

/* \uHHHH at p[0..n) (p points at the backslash); value or -1. */
static long u4(const char *p, size_t n)
{
    long v = 0;
    int i;
    if (n < 6 || p[0] != '\\' || p[1] != 'u')
        return -1;
    for (i = 2; i < 6; i++) {
        int h = ku_hexval(p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

struct xl {
    const char *s;
    size_t n, i;
    struct ku_buf out;
    char *err;
    size_t errlen;
    bool failed;
};

static void xfail(struct xl *x, const char *fmt, ...) KOA_PRINTF(2, 3);
static void xfail(struct xl *x, const char *fmt, ...)
{
    va_list ap;
    if (x->failed)
        return;
    x->failed = true;
    if (x->err && x->errlen) {
        va_start(ap, fmt);
        vsnprintf(x->err, x->errlen, fmt, ap);
        va_end(ap);
    }
}

/* \p{...} / \P{...} at x->i (the backslash); appends the PCRE2 form. */
static void xl_property(struct xl *x, struct ku_buf *out)
{
    char kind = x->s[x->i + 1];
    const char *open = x->s + x->i + 2, *close;
    const char *name;
    size_t len, k;
    const char *eq;

    if (x->i + 2 >= x->n || *open != '{') {
        xfail(x, "\\%c must be followed by {name} at offset %zu", kind, x->i);
        return;
    }
    close = memchr(open, '}', x->n - (x->i + 2));
    if (!close) {
        xfail(x, "unterminated \\%c{ at offset %zu", kind, x->i);
        return;
    }
    name = open + 1;
    len = (size_t)(close - name);
    eq = memchr(name, '=', len);
    ku_buf_addc(out, '\\');
    ku_buf_addc(out, kind);
    ku_buf_addc(out, '{');
    if (eq) {
        size_t plen = (size_t)(eq - name);
        const char *val = eq + 1;
        size_t vlen = len - plen - 1;
        if ((plen == 16 && !memcmp(name, "General_Category", 16)) ||
            (plen == 2 && !memcmp(name, "gc", 2))) {
            name = val;
            len = vlen;
        } else if ((plen == 6 && !memcmp(name, "Script", 6)) ||
                   (plen == 2 && !memcmp(name, "sc", 2))) {
            ku_buf_adds(out, "sc:");
            ku_buf_add(out, val, vlen);
            ku_buf_addc(out, '}');
            x->i = (size_t)(close - x->s) + 1;
            return;
        } else if ((plen == 17 && !memcmp(name, "Script_Extensions", 17)) ||
                   (plen == 3 && !memcmp(name, "scx", 3))) {
            ku_buf_adds(out, "scx:");
            ku_buf_add(out, val, vlen);
            ku_buf_addc(out, '}');
            x->i = (size_t)(close - x->s) + 1;
            return;
        } else {
            xfail(x, "unsupported Unicode property '%.*s' at offset %zu",
                  (int)len, name, x->i);
            return;
        }
    }
    for (k = 0; k < sizeof gc_names / sizeof gc_names[0]; k++) {
        if (strlen(gc_names[k].longname) == len &&
            !memcmp(gc_names[k].longname, name, len)) {
            name = gc_names[k].shortname;
            len = strlen(name);
            break;
        }
    }
    ku_buf_add(out, name, len);
    ku_buf_addc(out, '}');
    x->i = (size_t)(close - x->s) + 1;
}

/* One escape at x->i (the backslash).  in_class: inside [...].
 * Sets *big_s when it is \S inside a class (the caller rewrites). */
static void xl_escape(struct xl *x, struct ku_buf *out, bool in_class,
                      bool *big_s)
{
    char c;
    long hi, lo;

    if (x->i + 1 >= x->n) {
        xfail(x, "pattern ends with a lone backslash");
        return;
    }
    c = x->s[x->i + 1];
    switch (c) {
    case 's':
        if (in_class)
            ku_buf_adds(out, WS_MEMBERS);
        else
            ku_buf_adds(out, "[" WS_MEMBERS "]");
        x->i += 2;
        return;
    case 'S':
        if (in_class)
            *big_s = true;
        else
            ku_buf_adds(out, "[^" WS_MEMBERS "]");
        x->i += 2;
        return;
    case 'v':
        ku_buf_adds(out, "\\x0b");
        x->i += 2;
        return;
    case 'p':
    case 'P':
        xl_property(x, out);
        return;
    case 'u':
        hi = u4(x->s + x->i, x->n - x->i);
        if (hi >= 0xD800 && hi <= 0xDBFF) {
            lo = u4(x->s + x->i + 6, x->n - x->i - 6);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                ku_buf_printf(out, "\\u{%lx}",
                               0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
                x->i += 12;
                return;
            }
        }
        if (hi >= 0xD800 && hi <= 0xDFFF) {
            xfail(x, "lone surrogate \\u%04lX at offset %zu cannot match "
                  "UTF-8 text", hi, x->i);
            return;
        }
        break; /* \uHHHH, \u{...}: PCRE2 reads them (ALT_BSUX) */
    case 'd': case 'D': case 'w': case 'W': case 'b': case 'B':
    case 'f': case 'n': case 'r': case 't': case 'c': case 'x': case 'k':
    case '0': case '1': case '2': case '3': case '4': case '5': case '6':
    case '7': case '8': case '9':
        break;
    case '-':
        break; /* ECMA (u) allows \- in classes */
    default:
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            xfail(x, "\\%c at offset %zu is not an ECMA-262 escape", c, x->i);
            return;
        }
        break; /* identity escape of a punctuator */
    }
    ku_buf_add(out, x->s + x->i, 2);
    x->i += 2;
}

/* A class starting at x->i ('['). */
static void xl_class(struct xl *x)
{
    struct ku_buf cls;
    size_t start = x->i;
    bool neg = false, big_s = false;

    ku_buf_init(&cls);
    x->i++;
    if (x->i < x->n && x->s[x->i] == '^') {
        neg = true;
        x->i++;
    }
    while (!x->failed) {
        char c;
        if (x->i >= x->n) {
            xfail(x, "unterminated character class starting at offset %zu", start);
            break;
        }
        c = x->s[x->i];
        if (c == ']') {
            x->i++;
            break;
        }
        if (c == '\\') {
            xl_escape(x, &cls, true, &big_s);
        } else if (c == '[') {
            ku_buf_adds(&cls, "\\[");
            x->i++;
        } else {
            ku_buf_addc(&cls, c);
            x->i++;
        }
    }
    if (!x->failed) {
        if (big_s && neg) {
            xfail(x, "\\S inside a negated class (offset %zu) is not supported",
                  start);
        } else if (big_s) {
            ku_buf_adds(&x->out, "(?:");
            if (cls.len) {
                ku_buf_adds(&x->out, "[");
                ku_buf_add(&x->out, ku_buf_str(&cls), cls.len);
                ku_buf_adds(&x->out, "]|");
            }
            ku_buf_adds(&x->out, "[^" WS_MEMBERS "])");
        } else {
            ku_buf_adds(&x->out, neg ? "[^" : "[");
            ku_buf_add(&x->out, ku_buf_str(&cls), cls.len);
            ku_buf_addc(&x->out, ']');
        }
    }
    ku_buf_free(&cls);
}

static char *translate(const char *s, size_t n, char *err, size_t errlen)
{
    struct xl x;

    memset(&x, 0, sizeof x);
    x.s = s;
    x.n = n;
    x.err = err;
    x.errlen = errlen;
    ku_buf_init(&x.out);
    ku_buf_adds(&x.out, "");
    while (x.i < x.n && !x.failed) {
        char c = s[x.i];
        if (c == '\\') {
            bool unused = false;
            xl_escape(&x, &x.out, false, &unused);
        } else if (c == '[') {
            xl_class(&x);
        } else if (c == '.') {
            ku_buf_adds(&x.out, "[^\\n\\r\\u2028\\u2029]");
            x.i++;
        } else if (c == '(' && x.i + 2 < x.n && s[x.i + 1] == '?' &&
                   s[x.i + 2] != ':' && s[x.i + 2] != '=' && s[x.i + 2] != '!' &&
                   s[x.i + 2] != '<') {
            xfail(&x, "'(?%c' at offset %zu is not ECMA-262 syntax", s[x.i + 2], x.i);
        } else {
            ku_buf_addc(&x.out, c);
            x.i++;
        }
    }
    if (x.failed) {
        ku_buf_free(&x.out);
        return NULL;
    }
    if (x.out.oom) {
        snprintf(err, errlen, "out of memory");
        ku_buf_free(&x.out);
        return NULL;
    }
    return ku_buf_take(&x.out);
}

struct koa_regex *koa_regex_compile(const char *pat, size_t len, char *err,
                                    size_t errlen)
{
    struct koa_regex *re;
    pcre2_compile_context *cc;
    int ec = 0;
    PCRE2_SIZE eo = 0;

    if (err && errlen)
        err[0] = '\0';
    if (!koa_utf8_valid(pat, len)) {
        snprintf(err, errlen, "pattern is not valid UTF-8");
        return NULL;
    }
    re = calloc(1, sizeof *re);
    if (!re) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    re->source = malloc(len + 1);
    if (!re->source) {
        free(re);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    memcpy(re->source, pat, len);
    re->source[len] = '\0';
    re->pcre = translate(pat, len, err, errlen);
    if (!re->pcre) {
        koa_regex_free(re);
        return NULL;
    }
    cc = pcre2_compile_context_create(NULL);
    if (!cc) {
        koa_regex_free(re);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pcre2_set_compile_extra_options(cc, PCRE2_EXTRA_ALT_BSUX);
    re->code = pcre2_compile((PCRE2_SPTR)re->pcre, PCRE2_ZERO_TERMINATED,
                             PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_ALT_BSUX |
                                 PCRE2_ALLOW_EMPTY_CLASS |
                                 PCRE2_MATCH_UNSET_BACKREF |
                                 PCRE2_NEVER_BACKSLASH_C | PCRE2_NO_UTF_CHECK,
                             &ec, &eo, cc);
    pcre2_compile_context_free(cc);
    if (!re->code) {
        PCRE2_UCHAR msg[160];
        pcre2_get_error_message(ec, msg, sizeof msg);
        snprintf(err, errlen, "%s (in the translated pattern at offset %zu)",
                 (const char *)msg, (size_t)eo);
        koa_regex_free(re);
        return NULL;
    }
    /* JIT is an optimisation: without it (unsupported CPU, no exec
     * memory) pcre2_match interprets. */
    (void)pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);
    return re;
}

void koa_regex_free(struct koa_regex *re)
{
    if (!re)
        return;
    pcre2_code_free(re->code);
    free(re->source);
    free(re->pcre);
    free(re);
}

const char *koa_regex_source(const struct koa_regex *re)
{
    return re->source;
}

const char *koa_regex_pcre_source(const struct koa_regex *re)
{
    return re->pcre;
}

/* ---- per-thread match state -------------------------------------- */

struct tls {
    pcre2_match_data *md;
    pcre2_jit_stack *js;
    pcre2_match_context *mc;
};

static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static bool tls_ok;

static void tls_free(void *p)
{
    struct tls *t = p;
    if (!t)
        return;
    pcre2_match_data_free(t->md);
    pcre2_jit_stack_free(t->js);
    pcre2_match_context_free(t->mc);
    free(t);
}

static void tls_init(void)
{
    tls_ok = pthread_key_create(&tls_key, tls_free) == 0;
}

static struct tls *tls_get(void)
{
    struct tls *t;

    pthread_once(&tls_once, tls_init);
    if (!tls_ok)
        return NULL;
    t = pthread_getspecific(tls_key);
    if (t)
        return t;
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    /* One pair is enough: we only ask whether the pattern matches. */
    t->md = pcre2_match_data_create(1, NULL);
    t->mc = pcre2_match_context_create(NULL);
    t->js = pcre2_jit_stack_create(32 * 1024, 512 * 1024, NULL);
    if (!t->md || !t->mc) {
        tls_free(t);
        return NULL;
    }
    if (t->js)
        pcre2_jit_stack_assign(t->mc, NULL, t->js);
    if (pthread_setspecific(tls_key, t) != 0) {
        tls_free(t);
        return NULL;
    }
    return t;
}

int koa_regex_search(const struct koa_regex *re, const char *s, size_t n,
                     uint32_t match_limit, uint32_t depth_limit)
{
    struct tls *t = tls_get();
    int rc;

    if (!t)
        return -1;
    /* The limits are plain fields of this thread's context. */
    pcre2_set_match_limit(t->mc, match_limit ? match_limit : 1000000);
    pcre2_set_depth_limit(t->mc, depth_limit ? depth_limit : 10000);
    rc = pcre2_match(re->code, (PCRE2_SPTR)s, n, 0, PCRE2_NO_UTF_CHECK, t->md,
                     t->mc);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    return -1;
}
