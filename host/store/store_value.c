/* host/store/store_value.c - exact value order, document checks, encode/parse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "store/store_doc.h"
#include "store/store_impl.h"

#define KH_JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

int kh_num_get(struct json_object *v, struct kh_num *n)
{
    if (json_object_is_type(v, json_type_int)) {
        int64_t i = json_object_get_int64(v);
        /* json-c clamps a uint64 above INT64_MAX to INT64_MAX in get_int64 */
        if (i == INT64_MAX) {
            uint64_t u = json_object_get_uint64(v);
            if (u > (uint64_t)INT64_MAX) {
                n->kind = 1;
                n->u = u;
                return 1;
            }
        }
        n->kind = 0;
        n->i = i;
        return 1;
    }
    if (json_object_is_type(v, json_type_double)) {
        n->kind = 2;
        n->d = json_object_get_double(v);
        return 1;
    }
    return 0;
}

/* sign of (i - d); NaN sorts below every number, as in MongoDB */
static int cmp_i_d(int64_t i, double d)
{
    int64_t t;
    double f;

    if (isnan(d))
        return 1;
    if (d >= 9223372036854775808.0)
        return -1;
    if (d < -9223372036854775808.0)
        return 1;
    t = (int64_t)d;
    if (i != t)
        return i < t ? -1 : 1;
    f = d - (double)t;
    return f > 0 ? -1 : f < 0 ? 1 : 0;
}

static int cmp_u_d(uint64_t u, double d)
{
    uint64_t t;

    if (isnan(d) || d < 9223372036854775808.0)
        return 1;
    if (d >= 18446744073709551616.0)
        return -1;
    t = (uint64_t)d;
    return u < t ? -1 : u > t;
}

int kh_num_cmp(const struct kh_num *a, const struct kh_num *b)
{
    switch (a->kind * 3 + b->kind) {
    case 0: return a->i < b->i ? -1 : a->i > b->i;
    case 1: return -1;                          /* int64 < uint64 above INT64_MAX */
    case 2: return cmp_i_d(a->i, b->d);
    case 3: return 1;
    case 4: return a->u < b->u ? -1 : a->u > b->u;
    case 5: return cmp_u_d(a->u, b->d);
    case 6: return -cmp_i_d(b->i, a->d);
    case 7: return -cmp_u_d(b->u, a->d);
    default:
        if (isnan(a->d) || isnan(b->d))
            return isnan(a->d) ? (isnan(b->d) ? 0 : -1) : 1;
        return a->d < b->d ? -1 : a->d > b->d;
    }
}

int kh_json_class(struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null: return 1;
    case json_type_int:
    case json_type_double: return 2;
    case json_type_string: return 3;
    case json_type_object: return 4;
    case json_type_array: return 5;
    case json_type_boolean: return 8;
    }
    return 1;
}

static int cmp_str(struct json_object *a, struct json_object *b)
{
    size_t la = (size_t)json_object_get_string_len(a), lb = (size_t)json_object_get_string_len(b);
    int c = memcmp(json_object_get_string(a), json_object_get_string(b), la < lb ? la : lb);

    if (c)
        return c < 0 ? -1 : 1;
    return la < lb ? -1 : la > lb;
}

static int cmp_depth(struct json_object *a, struct json_object *b, int depth)
{
    int ca = kh_json_class(a), cb = kh_json_class(b);

    if (ca != cb)
        return ca < cb ? -1 : 1;
    if (depth > KH_STORE_MAX_DEPTH + 1)
        return 0;
    switch (ca) {
    case 2: {
        struct kh_num na, nb;
        kh_num_get(a, &na);
        kh_num_get(b, &nb);
        return kh_num_cmp(&na, &nb);
    }
    case 3: return cmp_str(a, b);
    case 4: {
        struct json_object_iterator ia = json_object_iter_begin(a), ea = json_object_iter_end(a);
        struct json_object_iterator ib = json_object_iter_begin(b), eb = json_object_iter_end(b);
        for (;;) {
            int enda = json_object_iter_equal(&ia, &ea), endb = json_object_iter_equal(&ib, &eb);
            struct json_object *va, *vb;
            int c;
            if (enda || endb)
                return enda && endb ? 0 : enda ? -1 : 1;
            va = json_object_iter_peek_value(&ia);
            vb = json_object_iter_peek_value(&ib);
            if ((c = kh_json_class(va) - kh_json_class(vb)) != 0)
                return c < 0 ? -1 : 1;
            if ((c = strcmp(json_object_iter_peek_name(&ia), json_object_iter_peek_name(&ib))) != 0)
                return c < 0 ? -1 : 1;
            if ((c = cmp_depth(va, vb, depth + 1)) != 0)
                return c;
            json_object_iter_next(&ia);
            json_object_iter_next(&ib);
        }
    }
    case 5: {
        size_t la = json_object_array_length(a), lb = json_object_array_length(b);
        for (size_t k = 0; k < la && k < lb; k++) {
            int c = cmp_depth(json_object_array_get_idx(a, k), json_object_array_get_idx(b, k),
                              depth + 1);
            if (c)
                return c;
        }
        return la < lb ? -1 : la > lb;
    }
    case 8: {
        int x = json_object_get_boolean(a), y = json_object_get_boolean(b);
        return x < y ? -1 : x > y;
    }
    default: return 0;
    }
}

int kh_json_cmp(struct json_object *a, struct json_object *b)
{
    return cmp_depth(a, b, 0);
}

int kh_json_equal(struct json_object *a, struct json_object *b)
{
    return cmp_depth(a, b, 0) == 0;
}

/* ---- checks ---- */

static int utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;

    while (i < n) {
        unsigned c = s[i];
        size_t k;
        unsigned cp;
        if (c < 0x80) {
            /* ASCII, the usual case: 8 bytes at a time */
            uint64_t x;
            i++;
            while (n - i >= 8) {
                memcpy(&x, s + i, 8);
                if (x & 0x8080808080808080ull)
                    break;
                i += 8;
            }
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf) { k = 1; cp = c & 0x1f; }
        else if (c >= 0xe0 && c <= 0xef) { k = 2; cp = c & 0x0f; }
        else if (c >= 0xf0 && c <= 0xf4) { k = 3; cp = c & 0x07; }
        else return 0;
        if (k >= n - i)
            return 0; /* truncated sequence */
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xc0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + j] & 0x3f);
        }
        if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += k + 1;
    }
    return 1;
}

int kh_utf8_valid(const char *s, size_t len)
{
    return utf8_valid((const unsigned char *)s, len);
}

int kh_value_check(struct json_object *v, int depth, const char *what, struct kytos_error *err)
{
    if (depth > KH_STORE_MAX_DEPTH)
        return kh_store_err(err, KYTOS_EINVAL, "%s: nested deeper than %d levels", what,
                            KH_STORE_MAX_DEPTH);
    switch (json_object_get_type(v)) {
    case json_type_double:
        if (!isfinite(json_object_get_double(v)))
            return kh_store_err(err, KYTOS_EINVAL, "%s: NaN and Infinity cannot be stored", what);
        return 0;
    case json_type_string:
        if (!utf8_valid((const unsigned char *)json_object_get_string(v),
                        (size_t)json_object_get_string_len(v)))
            return kh_store_err(err, KYTOS_EINVAL, "%s: a string is not valid UTF-8", what);
        return 0;
    case json_type_object: {
        json_object_object_foreach(v, key, val) {
            if (!utf8_valid((const unsigned char *)key, strlen(key)))
                return kh_store_err(err, KYTOS_EINVAL, "%s: a field name is not valid UTF-8", what);
            if (kh_value_check(val, depth + 1, what, err) < 0)
                return err ? err->code : KYTOS_EINVAL;
        }
        return 0;
    }
    case json_type_array: {
        size_t n = json_object_array_length(v);
        for (size_t k = 0; k < n; k++)
            if (kh_value_check(json_object_array_get_idx(v, k), depth + 1, what, err) < 0)
                return err ? err->code : KYTOS_EINVAL;
        return 0;
    }
    default:
        return 0;
    }
}

/* ---- writing JSON text ---- */

/* Length of the UTF-8 sequence at s (n bytes left, s[0] >= 0x80), 0 if
 * invalid: the same rules as utf8_valid(). */
size_t kh_utf8_seq_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0], cp;
    size_t k;

    if (c >= 0xc2 && c <= 0xdf) { k = 1; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { k = 2; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { k = 3; cp = c & 0x07; }
    else return 0;
    if (k >= n)
        return 0;
    for (size_t j = 1; j <= k; j++) {
        if ((s[j] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[j] & 0x3f);
    }
    if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return k + 1;
}

/* Bytes a JSON string copies as they are: printable ASCII but '"' and
 * '\\' ('/' too: NOSLASHESCAPE).  The rest is escaped or checked UTF-8. */
static const unsigned char plain[256] = {
    [0x20] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,            /* 0x20-0x2f: not '"' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,                     /* 0x30 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,                     /* 0x40 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,                     /* 0x50: not '\\' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,                     /* 0x60 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,                     /* 0x70 */
};

/* Escape s[0..len) into o as json-c does: \" \\ \b \f \n \r \t, other
 * bytes below 0x20 as \u00xx (lower case), UTF-8 as it is (checked).  o
 * has room for 6 * len bytes.  Returns the end, or NULL if not UTF-8. */
static char *escape(char *o, const unsigned char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *e = s + len;

    while (s < e) {
        /* 8 bytes at a time up to the first one below 0x20 or above 0x7f,
         * '"' or '\\' (the lowest flagged byte is a true one: borrows only
         * go up); o has room for all 8 */
        while (e - s >= 8) {
            uint64_t x, m;
            memcpy(&x, s, 8);
            m = kh_json_special_bytes(x);
            memcpy(o, &x, 8);
            if (m) {
                unsigned k = kh_first_flagged(m);
                o += k;
                s += k;
                break;
            }
            o += 8;
            s += 8;
        }
        /* then byte by byte, for up to 8 bytes */
        for (const unsigned char *stop = e - s > 8 ? s + 8 : e; s < stop;) {
            unsigned c = *s;
            size_t k;
            if (plain[c]) {
                *o++ = (char)c;
                s++;
            } else if (c == '"' || c == '\\') {
                o[0] = '\\';
                o[1] = (char)c;
                o += 2;
                s++;
            } else if (c < 0x20) {
                *o++ = '\\';
                switch (c) {
                case '\b': *o++ = 'b'; break;
                case '\f': *o++ = 'f'; break;
                case '\n': *o++ = 'n'; break;
                case '\r': *o++ = 'r'; break;
                case '\t': *o++ = 't'; break;
                default:
                    memcpy(o, "u00", 3);
                    o[3] = hex[c >> 4];
                    o[4] = hex[c & 0xf];
                    o += 5;
                }
                s++;
            } else if ((k = kh_utf8_seq_len(s, (size_t)(e - s))) != 0) {
                memcpy(o, s, k);
                o += k;
                s += k;
            } else {
                return NULL;
            }
        }
    }
    return o;
}

#define KH_STR_CHUNK 65536

/* pre (npre bytes: punctuation before it, so that one reservation covers
 * both), the JSON string s (len bytes), then post if not NUL. */
static int write_str(struct ku_buf *b, const char *pre, size_t npre, const unsigned char *s, size_t len,
                     char post, const char *what, int key, struct kytos_error *err)
{
    size_t i = 0;
    char *o;

    if (ku_buf_reserve(b, npre + 3 + (len < KH_STR_CHUNK ? len : KH_STR_CHUNK) * 6) < 0)
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    o = b->p + b->len;
    memcpy(o, pre, npre);
    o += npre;
    *o++ = '"';
    for (;;) {
        /* a large string in chunks, so as not to reserve 6 times its size;
         * a chunk ends on a character boundary (not inside a sequence) */
        size_t n = len - i;
        if (n > KH_STR_CHUNK) {
            n = KH_STR_CHUNK;
            while (n > KH_STR_CHUNK - 4 && (s[i + n] & 0xc0) == 0x80)
                n--;
        }
        if (!(o = escape(o, s + i, n)))
            return kh_store_err(err, KYTOS_EINVAL, "%s: a %s is not valid UTF-8", what,
                                key ? "field name" : "string");
        i += n;
        if (i == len)
            break;
        b->len = (size_t)(o - b->p);
        if (ku_buf_reserve(b, 3 + (len - i < KH_STR_CHUNK ? len - i : KH_STR_CHUNK) * 6) < 0)
            return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
        o = b->p + b->len;
    }
    *o++ = '"';
    if (post)
        *o++ = post;
    *o = '\0';
    b->len = (size_t)(o - b->p);
    return 0;
}

int kh_json_write_str(struct ku_buf *b, const char *s, size_t len, const char *what,
                      struct kytos_error *err)
{
    return write_str(b, "", 0, (const unsigned char *)s, len, 0, what, 0, err);
}

/* Short text, no NUL after it (the writer ends with one). */
static inline int put_raw(struct ku_buf *b, const char *t, size_t n)
{
    if (ku_buf_reserve(b, n) < 0)
        return -1;
    memcpy(b->p + b->len, t, n);
    b->len += n;
    return 0;
}

static inline int put_char(struct ku_buf *b, char c)
{
    if (ku_buf_reserve(b, 1) < 0)
        return -1;
    b->p[b->len++] = c;
    return 0;
}

static int write_u64(struct ku_buf *b, int neg, uint64_t u)
{
    char tmp[24], *e = tmp + sizeof(tmp), *q = e;

    do {
        *--q = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (neg)
        *--q = '-';
    return put_raw(b, q, (size_t)(e - q));
}

static int write_value(struct ku_buf *b, struct json_object *v, int depth, const char *what,
                       struct kytos_error *err);

/* The members of object v, each as ,"key":value (the first without the
 * comma when first): keys escaped, values at depth + 1. */
static int write_members(struct ku_buf *b, struct json_object *v, int first, int depth, const char *what,
                         struct kytos_error *err)
{
    int rc;

    json_object_object_foreach(v, key, val) {
        if ((rc = write_str(b, ",", first ? 0 : 1, (const unsigned char *)key, strlen(key), ':', what, 1,
                            err)) < 0)
            return rc;
        first = 0;
        if ((rc = write_value(b, val, depth + 1, what, err)) < 0)
            return rc;
    }
    return 0;
}

/* kh_json_write() without the final NUL. */
static int write_value(struct ku_buf *b, struct json_object *v, int depth, const char *what,
                       struct kytos_error *err)
{
    int rc;

    if (depth > KH_STORE_MAX_DEPTH)
        return kh_store_err(err, KYTOS_EINVAL, "%s: nested deeper than %d levels", what,
                            KH_STORE_MAX_DEPTH);
    switch (json_object_get_type(v)) {
    case json_type_null:
        rc = put_raw(b, "null", 4);
        break;
    case json_type_boolean:
        rc = json_object_get_boolean(v) ? put_raw(b, "true", 4) : put_raw(b, "false", 5);
        break;
    case json_type_int: {
        int64_t i = json_object_get_int64(v);
        /* json-c gives INT64_MAX for a uint64 above it */
        if (i == INT64_MAX)
            rc = write_u64(b, 0, json_object_get_uint64(v));
        else
            rc = write_u64(b, i < 0, i < 0 ? 0 - (uint64_t)i : (uint64_t)i);
        break;
    }
    case json_type_double: {
        const char *t;
        size_t len;
        if (!isfinite(json_object_get_double(v)))
            return kh_store_err(err, KYTOS_EINVAL, "%s: NaN and Infinity cannot be stored", what);
        /* json-c's own text: it keeps a parsed number's digits ("1.50") */
        if (!(t = json_object_to_json_string_length(v, KH_JSON_FLAGS, &len)))
            return kh_store_err(err, KYTOS_ENOMEM, "out of memory serializing a document");
        rc = put_raw(b, t, len);
        break;
    }
    case json_type_string:
        return write_str(b, "", 0, (const unsigned char *)json_object_get_string(v),
                         (size_t)json_object_get_string_len(v), 0, what, 0, err);
    case json_type_object:
        if (put_char(b, '{') < 0)
            goto nomem;
        if ((rc = write_members(b, v, 1, depth, what, err)) < 0)
            return rc;
        rc = put_char(b, '}');
        break;
    case json_type_array: {
        size_t n = json_object_array_length(v);
        if (put_char(b, '[') < 0)
            goto nomem;
        for (size_t k = 0; k < n; k++) {
            if (k && put_char(b, ',') < 0)
                goto nomem;
            if ((rc = write_value(b, json_object_array_get_idx(v, k), depth + 1, what, err)) < 0)
                return rc;
        }
        rc = put_char(b, ']');
        break;
    }
    default:
        rc = put_raw(b, "null", 4);
    }
    if (rc == 0)
        return 0;
nomem:
    return kh_store_err(err, KYTOS_ENOMEM, "out of memory serializing a document");
}

/* "what: nested deeper ..." etc.: the messages of kh_value_check(). */
int kh_json_write(struct ku_buf *b, struct json_object *v, int depth, const char *what,
                  struct kytos_error *err)
{
    int rc = write_value(b, v, depth, what, err);

    if (b->cap)
        b->p[b->len] = '\0';
    return rc;
}

int kh_doc_write(struct ku_buf *b, struct json_object *doc, const char *id, struct kytos_error *err)
{
    struct json_object *idv = NULL;
    size_t start = b->len, len;
    int rc;

    if (!json_object_is_type(doc, json_type_object))
        return kh_store_err(err, KYTOS_EINVAL, "document must be a JSON object");
    if (json_object_object_get_ex(doc, "_id", &idv)) {
        /* written as it is: "_id" stays where the caller put it */
        if ((rc = kh_json_write(b, doc, 1, "document", err)) < 0)
            goto fail;
        if (!json_object_is_type(idv, json_type_string) || strcmp(json_object_get_string(idv), id)) {
            rc = kh_store_err(err, KYTOS_EINVAL,
                              "document \"_id\" differs from the _id argument '%.100s'", id);
            goto fail;
        }
    } else {
        /* {"_id":<id>,<members>} */
        if ((rc = write_str(b, "{\"_id\":", 7, (const unsigned char *)id, strlen(id), 0, "_id", 0, err)) < 0 ||
            (rc = write_members(b, doc, 0, 1, "document", err)) < 0)
            goto fail;
        if (ku_buf_add(b, "}", 1) < 0)
            goto nomem;
    }
    len = b->len - start;
    if (len > KH_STORE_MAX_DOC) {
        rc = kh_store_err(err, KYTOS_ETOOBIG, "document is %zu bytes, the limit is %u", len,
                          KH_STORE_MAX_DOC);
        goto fail;
    }
    return 0;
nomem:
    rc = kh_store_err(err, KYTOS_ENOMEM, "out of memory");
fail:
    b->len = start;
    if (b->cap)
        b->p[start] = '\0';
    return rc;
}

int kh_doc_encode(struct json_object *doc, const char *id, char **out, size_t *outlen,
                  struct kytos_error *err)
{
    struct ku_buf b = {0};
    int rc;

    if ((rc = kh_doc_write(&b, doc, id, err)) < 0) {
        ku_buf_free(&b);
        return rc;
    }
    *out = b.p; /* on the heap: b started empty */
    *outlen = b.len;
    return 0;
}

struct json_object *kh_doc_parse(const char *text, size_t len, const char *coll,
                                 struct kytos_error *err)
{
    struct json_tokener *tok;
    struct json_object *o;

    if (len > (size_t)KH_STORE_MAX_DOC * 2 || len > INT32_MAX) {
        kh_store_err(err, KYTOS_EIO, "a stored document in '%s' is too large (%zu bytes)", coll, len);
        return NULL;
    }
    if (!(tok = json_tokener_new_ex(KH_STORE_MAX_DEPTH + 2))) {
        kh_store_err(err, KYTOS_ENOMEM, "out of memory");
        return NULL;
    }
    o = json_tokener_parse_ex(tok, text, (int)len);
    if (!o || json_tokener_get_error(tok) != json_tokener_success ||
        json_tokener_get_parse_end(tok) != len || !json_object_is_type(o, json_type_object)) {
        kh_store_err(err, KYTOS_EIO, "a stored document in '%s' is corrupt (%s)", coll,
                     o && json_tokener_get_error(tok) == json_tokener_success
                         ? "not a JSON object"
                         : json_tokener_error_desc(json_tokener_get_error(tok)));
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    return o;
}
