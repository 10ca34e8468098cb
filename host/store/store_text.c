/* host/store/store_text.c - find with KYTOS_FIND_TEXT (store_text.h):
 * the canonical-text check, projection and sort keys read from the text,
 * and the cursor that writes documents for backends without stored text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "store/store_text.h"

/* ---- the canonical check ---- */

#define SCAN_MAX_KEYS 256   /* keys held at once along the nesting path */

struct scan {
    const unsigned char *p, *end;
    int nkeys;
    struct {
        const unsigned char *k;
        size_t n;
    } keys[SCAN_MAX_KEYS];
};

static int scan_value(struct scan *s, int depth);

static int hex_lower(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* A string as json-c writes it: only \" \\ \b \f \n \r \t and \u00xx
 * (lower case) for the other control characters; any other byte as is. */
static int scan_string(struct scan *s)
{
    const unsigned char *p = s->p + 1, *end = s->end;

    for (;;) {
        while (end - p >= 8) {   /* plain bytes, 8 at a time */
            uint64_t w, m;
            memcpy(&w, p, 8);
            if (!(m = kh_json_special_bytes(w))) {
                p += 8;
                continue;
            }
            p += kh_first_flagged(m);
            break;
        }
        if (p >= end)
            return 0;
        if (*p == '"') {
            s->p = p + 1;
            return 1;
        }
        if (*p < 0x20)
            return 0;
        if (*p == '\\') {
            int h, l, v;
            if (end - p < 2)
                return 0;
            switch (p[1]) {
            case '"': case '\\': case 'b': case 'f': case 'n': case 'r': case 't':
                p += 2;
                continue;
            case 'u':
                if (end - p < 6 || p[2] != '0' || p[3] != '0')
                    return 0;
                h = hex_lower(p[4]);
                l = hex_lower(p[5]);
                v = h * 16 + l;
                if (h < 0 || h > 1 || l < 0 || v == '\b' || v == '\f' || v == '\n' || v == '\r' ||
                    v == '\t')
                    return 0;
                p += 6;
                continue;
            default:
                return 0;
            }
        }
        p++;
    }
}

static int digits(const unsigned char **pp, const unsigned char *end)
{
    const unsigned char *p = *pp;
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    if (p == *pp)
        return 0;
    *pp = p;
    return 1;
}

/* A number json-c writes back as it reads it: doubles keep their text in
 * json-c; integers only within int64/uint64, without "-0". */
static int scan_number(struct scan *s)
{
    const unsigned char *p = s->p, *end = s->end, *d0;
    int neg = 0, is_double = 0;
    size_t nd;

    if (*p == '-') {
        neg = 1;
        p++;
    }
    d0 = p;
    if (p >= end || *p < '0' || *p > '9')
        return 0;
    if (*p == '0') {
        if (++p < end && *p >= '0' && *p <= '9')
            return 0;
    } else {
        digits(&p, end);
    }
    nd = (size_t)(p - d0);
    if (p < end && *p == '.') {
        p++;
        if (!digits(&p, end))
            return 0;
        is_double = 1;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (!digits(&p, end))
            return 0;
        is_double = 1;
    }
    if (!is_double) {
        const char *lim = neg ? "9223372036854775808" : "18446744073709551615";
        size_t ll = strlen(lim);
        if (neg && nd == 1 && *d0 == '0')
            return 0;
        if (nd > ll || (nd == ll && memcmp(d0, lim, ll) > 0))
            return 0;
    }
    s->p = p;
    return 1;
}

static int scan_literal(struct scan *s, const char *lit, size_t n)
{
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, lit, n))
        return 0;
    s->p += n;
    return 1;
}

/* An object without repeated keys (json-c keeps one of them). */
static int scan_object(struct scan *s, int depth)
{
    int base = s->nkeys, ok = 0;

    s->p++;
    if (s->p < s->end && *s->p == '}') {
        s->p++;
        return 1;
    }
    for (;;) {
        const unsigned char *k;
        size_t kn;
        if (s->p >= s->end || *s->p != '"' || s->nkeys == SCAN_MAX_KEYS)
            goto out;
        k = s->p + 1;
        if (!scan_string(s))
            goto out;
        kn = (size_t)(s->p - 1 - k);
        for (int i = base; i < s->nkeys; i++)
            if (s->keys[i].n == kn && !memcmp(s->keys[i].k, k, kn))
                goto out;
        s->keys[s->nkeys].k = k;
        s->keys[s->nkeys++].n = kn;
        if (s->p >= s->end || *s->p++ != ':' || !scan_value(s, depth + 1) || s->p >= s->end)
            goto out;
        if (*s->p == '}') {
            s->p++;
            ok = 1;
            goto out;
        }
        if (*s->p++ != ',')
            goto out;
    }
out:
    s->nkeys = base;
    return ok;
}

static int scan_array(struct scan *s, int depth)
{
    s->p++;
    if (s->p < s->end && *s->p == ']') {
        s->p++;
        return 1;
    }
    for (;;) {
        if (!scan_value(s, depth + 1) || s->p >= s->end)
            return 0;
        if (*s->p == ']') {
            s->p++;
            return 1;
        }
        if (*s->p++ != ',')
            return 0;
    }
}

static int scan_value(struct scan *s, int depth)
{
    if (depth > KH_STORE_MAX_DEPTH || s->p >= s->end)
        return 0;
    switch (*s->p) {
    case '{': return scan_object(s, depth);
    case '[': return scan_array(s, depth);
    case '"': return scan_string(s);
    case 't': return scan_literal(s, "true", 4);
    case 'f': return scan_literal(s, "false", 5);
    case 'n': return scan_literal(s, "null", 4);
    default: return scan_number(s);
    }
}

int kh_text_canonical(const char *text, size_t len)
{
    struct scan s;

    if (!text || len < 2 || text[0] != '{')
        return 0;
    s.p = (const unsigned char *)text;
    s.end = s.p + len;
    s.nkeys = 0;
    return scan_value(&s, 1) && s.p == s.end;
}

/* ---- reading canonical text (checked already: no bounds surprises) ---- */

static const char *skip_string(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        if (*p == '\\')
            p++;
        else if (*p == '"')
            return p + 1;
    }
    return end;
}

static const char *skip_value(const char *p, const char *end)
{
    int depth = 0;

    while (p < end) {
        switch (*p) {
        case '"':
            p = skip_string(p, end);
            if (!depth)
                return p;
            continue;
        case '{': case '[':
            depth++;
            break;
        case '}': case ']':
            if (!depth)
                return p;
            if (!--depth)
                return p + 1;
            break;
        case ',':
            if (!depth)
                return p;
            break;
        default:
            break;
        }
        p++;
    }
    return end;
}

/* The member key (its text equals the JSON-escaped key: keys without '"',
 * '\\' or control characters are written as they are) of the object text
 * obj: its span "key":value in *m, *mlen and its value in *v, *vlen. */
static int find_member(const char *obj, size_t olen, const char *key, const char **m, size_t *mlen,
                       const char **v, size_t *vlen)
{
    const char *p = obj + 1, *end = obj + olen;
    size_t kn = strlen(key);

    while (p < end && *p == '"') {
        const char *k = p, *ke = skip_string(p, end), *ve;
        if (ke >= end || *ke != ':')
            return 0;
        ve = skip_value(ke + 1, end);
        if ((size_t)(ke - k) == kn + 2 && !memcmp(k + 1, key, kn)) {
            *m = k;
            *mlen = (size_t)(ve - k);
            *v = ke + 1;
            *vlen = (size_t)(ve - ke - 1);
            return 1;
        }
        if (ve >= end || *ve != ',')
            return 0;
        p = ve + 1;
    }
    return 0;
}

static int plain_key(const char *k)
{
    for (; *k; k++)
        if (*k == '"' || *k == '\\' || (unsigned char)*k < 0x20)
            return 0;
    return 1;
}

struct json_object *kh_text_of_doc(struct json_object *doc, struct kytos_error *err)
{
    struct json_object *s = NULL;
    const char *t;
    size_t n;

    if ((t = json_object_to_json_string_length(doc, KH_TEXT_FLAGS, &n)) && n <= INT32_MAX)
        s = json_object_new_string_len(t, (int)n);
    json_object_put(doc);
    if (!s)
        kh_store_err(err, KYTOS_ENOMEM, "out of memory writing a document");
    return s;
}

struct json_object *kh_text_project(const char *text, size_t len, const struct kh_proj *proj,
                                    const char *coll, struct kytos_error *err)
{
    struct json_object *out = NULL, *doc;
    const char *m, *v;
    size_t mlen, vlen;

    if (len > INT32_MAX)
        goto parse;
    if (!proj || (kh_proj_drops_only_id(proj) && !find_member(text, len, "_id", &m, &mlen, &v, &vlen)))
        out = json_object_new_string_len(text, (int)len);
    else if (kh_proj_drops_only_id(proj)) {
        /* the member and the comma after it (or before it, if last) */
        size_t a = (size_t)(m - text), b = a + mlen;
        char *buf;
        if (text[b] == ',')
            b++;
        else if (text[a - 1] == ',')
            a--;
        if (!(buf = malloc(len - (b - a) + 1)))
            goto nomem;
        memcpy(buf, text, a);
        memcpy(buf + a, text + b, len - b);
        out = json_object_new_string_len(buf, (int)(len - (b - a)));
        free(buf);
    } else {
        goto parse;
    }
    if (!out)
        goto nomem;
    return out;
parse:
    if (!(doc = kh_doc_parse(text, len, coll, err)))
        return NULL;
    return kh_text_of_doc(kh_proj_apply(proj, doc), err);
nomem:
    kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    return NULL;
}

/* ---- sort keys from the text ---- */

/* The value text v parsed; 0, or -1 (not parsed: *out NULL). */
static int parse_value(struct json_tokener *tok, const char *v, size_t n, struct json_object **out)
{
    char num[64];

    /* a number or literal ends only where something follows it: parse a
     * copy with its terminating NUL */
    if (n && *v != '{' && *v != '[' && *v != '"') {
        if (n >= sizeof num)
            return -1;
        memcpy(num, v, n);
        num[n] = '\0';
        v = num;
        n++;
    }
    json_tokener_reset(tok);
    *out = json_tokener_parse_ex(tok, v, (int)n);
    if (json_tokener_get_error(tok) != json_tokener_success ||
        json_tokener_get_parse_end(tok) + (v == num) < n) {
        json_object_put(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

/* The sort key at path p read from the text, as key_walk() finds it in
 * the document: the value reached through objects, parsed (NULL when
 * missing, null, or a scalar is met on the way).  0, or -1 where the text
 * alone does not say (an array on the way or at the end, a key json-c
 * escapes): the caller parses the document. */
static int text_key(struct json_tokener *tok, const char *text, size_t len, const struct kh_path *p,
                    struct json_object **key)
{
    const char *obj = text, *m, *v;
    size_t olen = len, mlen, vlen;

    *key = NULL;
    for (int i = 0; i < p->n; i++) {
        if (!plain_key(p->seg[i]))
            return -1;
        if (!find_member(obj, olen, p->seg[i], &m, &mlen, &v, &vlen))
            return 0;
        if (*v == '[')
            return -1;
        if (i == p->n - 1)
            return parse_value(tok, v, vlen, key);
        if (*v != '{')
            return 0;
        obj = v;
        olen = vlen;
    }
    return 0;
}

/* Row j's keys and _id from its text; 0, or -1 (nothing left owned). */
static int text_keys(const struct kh_sort *s, struct json_tokener *tok, const char *t, size_t len,
                     struct json_object **keys, struct json_object **id)
{
    static const struct kh_path id_path = {.n = 1, .text = "_id", .seg = {"_id"}};
    int nk = kh_sort_nkeys(s), k = 0;

    if (text_key(tok, t, len, &id_path, id) < 0)
        return -1;
    for (; k < nk; k++)
        if (text_key(tok, t, len, kh_sort_path(s, k), &keys[k]) < 0)
            break;
    if (k == nk)
        return 0;
    while (k--)
        json_object_put(keys[k]);
    json_object_put(*id);
    *id = NULL;
    return -1;
}

size_t kh_text_sort(const struct kh_sort *s, struct json_object **rows, size_t n)
{
    struct json_object **keys = NULL, **ids = NULL, **held = NULL;
    struct json_tokener *tok = NULL;
    unsigned char *own = NULL;
    size_t parsed = 0, nk = (size_t)kh_sort_nkeys(s);

    if (!s || n < 2)
        return 0;
    if (!(keys = calloc(n * nk, sizeof(*keys))) || !(ids = calloc(n, sizeof(*ids))) ||
        !(held = calloc(n, sizeof(*held))) || !(own = calloc(n, 1)) ||
        !(tok = json_tokener_new_ex(KH_STORE_MAX_DEPTH + 2)))
        goto out; /* out of memory: the natural order, as kh_sort_docs() */
    for (size_t j = 0; j < n; j++) {
        struct json_object *doc = rows[j];
        if (json_object_is_type(rows[j], json_type_string)) {
            const char *t = json_object_get_string(rows[j]);
            size_t len = (size_t)json_object_get_string_len(rows[j]);
            if (text_keys(s, tok, t, len, keys + j * nk, &ids[j]) == 0) {
                own[j] = 1;
                continue;
            }
            parsed++;
            if (!(doc = held[j] = kh_doc_parse(t, len, "", NULL)))
                continue;   /* cannot be (the text is canonical): sorts as all null */
        }
        for (size_t k = 0; k < nk; k++)
            keys[j * nk + k] = kh_sort_key(s, (int)k, doc);
        json_object_object_get_ex(doc, "_id", &ids[j]);
    }
    kh_sort_keyed(s, keys, ids, (void **)rows, n);
out:
    for (size_t j = 0; own && j < n; j++) {
        if (own[j]) {
            for (size_t k = 0; k < nk; k++)
                json_object_put(keys[j * nk + k]);
            json_object_put(ids[j]);
        }
        json_object_put(held[j]);
    }
    json_tokener_free(tok);
    free(keys);
    free(ids);
    free(held);
    free(own);
    return parsed;
}

/* ---- text from documents ---- */

struct text_cursor {
    struct kytos_cursor base;
    kytos_cursor *inner;
};

static int text_next(kytos_cursor *cc, struct json_object **doc, struct kytos_error *err)
{
    struct text_cursor *c = (struct text_cursor *)cc;
    struct json_object *d = NULL;
    int rc = c->inner->next(c->inner, &d, err);

    *doc = NULL;
    if (rc != 1)
        return rc;
    if (!(*doc = kh_text_of_doc(d, err)))
        return KYTOS_ENOMEM;
    return 1;
}

static void text_free(kytos_cursor *cc)
{
    struct text_cursor *c = (struct text_cursor *)cc;

    c->inner->free(c->inner);
    free(c);
}

int kh_text_cursor_wrap(kytos_cursor *inner, kytos_cursor **out, struct kytos_error *err)
{
    struct text_cursor *c = calloc(1, sizeof(*c));

    *out = NULL;
    if (!c) {
        inner->free(inner);
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    }
    c->base.next = text_next;
    c->base.free = text_free;
    c->inner = inner;
    *out = &c->base;
    return 0;
}
