/* host/store_value.c - exact value order, document checks, encode/parse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "store_doc.h"
#include "store_impl.h"

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
            i++;
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

int kh_doc_text(struct json_object *o, const char **text, size_t *len, struct kytos_error *err)
{
    *text = json_object_to_json_string_length(o, KH_JSON_FLAGS, len);
    if (!*text)
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory serializing a document");
    if (*len > KH_STORE_MAX_DOC)
        return kh_store_err(err, KYTOS_ETOOBIG, "document is %zu bytes, the limit is %u", *len,
                            KH_STORE_MAX_DOC);
    return 0;
}

int kh_doc_encode(struct json_object *doc, const char *id, char **out, size_t *outlen,
                  struct kytos_error *err)
{
    struct json_object *idv = NULL, *ids;
    const char *text, *idtext;
    size_t len, idlen;
    char *buf;
    int rc;

    if (!json_object_is_type(doc, json_type_object))
        return kh_store_err(err, KYTOS_EINVAL, "document must be a JSON object");
    if ((rc = kh_value_check(doc, 1, "document", err)) < 0)
        return rc;
    if (json_object_object_get_ex(doc, "_id", &idv)) {
        if (!json_object_is_type(idv, json_type_string) || strcmp(json_object_get_string(idv), id))
            return kh_store_err(err, KYTOS_EINVAL,
                                "document \"_id\" differs from the _id argument '%.100s'", id);
    }
    if ((rc = kh_doc_text(doc, &text, &len, err)) < 0)
        return rc;
    if (idv) {
        if (!(buf = malloc(len + 1)))
            return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
        memcpy(buf, text, len + 1);
        *out = buf;
        *outlen = len;
        return 0;
    }
    if (!(ids = json_object_new_string(id)))
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    idtext = json_object_to_json_string_length(ids, KH_JSON_FLAGS, &idlen);
    /* {"_id":<id>,<members>} or {"_id":<id>} */
    if (!idtext || !(buf = malloc(len + idlen + 16))) {
        json_object_put(ids);
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    }
    memcpy(buf, "{\"_id\":", 7);
    memcpy(buf + 7, idtext, idlen);
    *outlen = 7 + idlen;
    if (len > 2) {
        buf[(*outlen)++] = ',';
        memcpy(buf + *outlen, text + 1, len - 1); /* members and the closing brace */
        *outlen += len - 1;
    } else {
        buf[(*outlen)++] = '}';
    }
    buf[*outlen] = '\0';
    json_object_put(ids);
    if (*outlen > KH_STORE_MAX_DOC) {
        free(buf);
        return kh_store_err(err, KYTOS_ETOOBIG, "document is %zu bytes, the limit is %u", *outlen,
                            KH_STORE_MAX_DOC);
    }
    *out = buf;
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
