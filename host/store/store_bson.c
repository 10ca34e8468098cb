/* host/store/store_bson.c - json-c <-> BSON (see store_bson.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/evp.h>
#include "store/store_bson.h"
#include "store/store_doc.h"
#include "store/store_impl.h"

static int append(bson_t *b, const char *key, int keylen, struct json_object *v, int depth);

/* MongoDB extended JSON binary, {"$binary": {"base64": s, "subType": "hh"}}
 * (what Kytos' users' salts are): 1 appended, 0 not that shape, -1 bad. */
static int append_binary(bson_t *b, const char *key, int keylen, struct json_object *v)
{
    struct json_object *bin, *b64, *st;
    unsigned char *buf;
    int len, n, pad = 0, ok;
    unsigned sub = 0;

    if (json_object_object_length(v) != 1 || !json_object_object_get_ex(v, "$binary", &bin) ||
        !json_object_is_type(bin, json_type_object) || !json_object_object_get_ex(bin, "base64", &b64) ||
        !json_object_is_type(b64, json_type_string))
        return 0;
    if (json_object_object_get_ex(bin, "subType", &st)) {
        if (!json_object_is_type(st, json_type_string) || sscanf(json_object_get_string(st), "%2x", &sub) != 1)
            return -1;
    }
    len = json_object_get_string_len(b64);
    if (len % 4 || len > (16 << 20))
        return -1;
    buf = malloc((size_t)len / 4 * 3 + 1);
    if (!buf)
        return -1;
    n = EVP_DecodeBlock(buf, (const unsigned char *)json_object_get_string(b64), len);
    while (pad < 2 && len > pad && json_object_get_string(b64)[len - 1 - pad] == '=')
        pad++;
    ok = n >= 0 && bson_append_binary(b, key, keylen, (bson_subtype_t)sub, buf, (uint32_t)(n - pad));
    free(buf);
    return ok ? 1 : -1;
}

static int append_members(bson_t *b, struct json_object *o, int depth)
{
    json_object_object_foreach(o, k, v) {
        if (append(b, k, -1, v, depth + 1) < 0)
            return -1;
    }
    return 0;
}

static int append(bson_t *b, const char *key, int keylen, struct json_object *v, int depth)
{
    struct kh_num n;
    bson_t child;
    int rc = 0;

    if (depth > KH_STORE_MAX_DEPTH + 1)
        return -1;
    switch (json_object_get_type(v)) {
    case json_type_null:
        return bson_append_null(b, key, keylen) ? 0 : -1;
    case json_type_boolean:
        return bson_append_bool(b, key, keylen, json_object_get_boolean(v)) ? 0 : -1;
    case json_type_double:
        return bson_append_double(b, key, keylen, json_object_get_double(v)) ? 0 : -1;
    case json_type_int:
        kh_num_get(v, &n);
        if (n.kind == 1) {
            char text[32];
            bson_decimal128_t dec;
            snprintf(text, sizeof(text), "%" PRIu64, n.u);
            if (!bson_decimal128_from_string(text, &dec))
                return -1;
            return bson_append_decimal128(b, key, keylen, &dec) ? 0 : -1;
        }
        if (n.i >= INT32_MIN && n.i <= INT32_MAX)
            return bson_append_int32(b, key, keylen, (int32_t)n.i) ? 0 : -1;
        return bson_append_int64(b, key, keylen, n.i) ? 0 : -1;
    case json_type_string:
        return bson_append_utf8(b, key, keylen, json_object_get_string(v), json_object_get_string_len(v))
                   ? 0 : -1;
    case json_type_object:
        if ((rc = append_binary(b, key, keylen, v)) != 0)
            return rc > 0 ? 0 : -1;
        if (!bson_append_document_begin(b, key, keylen, &child))
            return -1;
        rc = append_members(&child, v, depth);
        return bson_append_document_end(b, &child) && rc == 0 ? 0 : -1;
    case json_type_array: {
        size_t len = json_object_array_length(v);
        if (!bson_append_array_begin(b, key, keylen, &child))
            return -1;
        for (size_t k = 0; k < len && rc == 0; k++) {
            char buf[16];
            const char *ks;
            size_t kl = bson_uint32_to_string((uint32_t)k, &ks, buf, sizeof(buf));
            rc = append(&child, ks, (int)kl, json_object_array_get_idx(v, k), depth + 1);
        }
        return bson_append_array_end(b, &child) && rc == 0 ? 0 : -1;
    }
    }
    return -1;
}

int kh_bson_append_object(bson_t *b, struct json_object *o)
{
    return append_members(b, o, 0);
}

int kh_bson_append_value(bson_t *b, const char *key, struct json_object *v)
{
    return append(b, key, -1, v, 0);
}

static struct json_object *decimal_to_json(const bson_decimal128_t *dec)
{
    char text[BSON_DECIMAL128_STRING];
    const char *p;
    char *end;

    bson_decimal128_to_string(dec, text);
    p = text[0] == '-' ? text + 1 : text;
    if (*p && strspn(p, "0123456789") == strlen(p)) {
        errno = 0;
        if (text[0] == '-') {
            long long v = strtoll(text, &end, 10);
            if (!errno && !*end)
                return json_object_new_int64(v);
        } else {
            unsigned long long v = strtoull(text, &end, 10);
            if (!errno && !*end)
                return v > INT64_MAX ? json_object_new_uint64(v) : json_object_new_int64((int64_t)v);
        }
    }
    {
        double d = strtod(text, &end);
        if (*end || d != d || d > 1.7976931348623157e308 || d < -1.7976931348623157e308)
            return NULL; /* NaN, Infinity: not JSON */
        return json_object_new_double(d);
    }
}

static struct json_object *iter_to_json(bson_iter_t *it, int depth);

static struct json_object *doc_to_json(bson_iter_t *it, int array, int depth)
{
    struct json_object *o = array ? json_object_new_array() : json_object_new_object();

    if (!o)
        return NULL;
    while (bson_iter_next(it)) {
        struct json_object *v = iter_to_json(it, depth + 1);
        if (v == (struct json_object *)it) { /* malformed */
            json_object_put(o);
            return (struct json_object *)it;
        }
        if (array)
            json_object_array_add(o, v);
        else
            json_object_object_add(o, bson_iter_key(it), v);
    }
    return o;
}

/* Returns the value (NULL is JSON null), or (json_object *)it on error. */
static struct json_object *iter_to_json(bson_iter_t *it, int depth)
{
    bson_iter_t child;

    if (depth > KH_STORE_MAX_DEPTH + 2)
        return (struct json_object *)it;
    switch (bson_iter_type(it)) {
    case BSON_TYPE_DOUBLE: return json_object_new_double(bson_iter_double(it));
    case BSON_TYPE_UTF8: {
        uint32_t len;
        const char *s = bson_iter_utf8(it, &len);
        return json_object_new_string_len(s, (int)len);
    }
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_ARRAY:
        if (!bson_iter_recurse(it, &child))
            return (struct json_object *)it;
        {
            struct json_object *o = doc_to_json(&child, bson_iter_type(it) == BSON_TYPE_ARRAY, depth);
            return o == (struct json_object *)&child ? (struct json_object *)it : o;
        }
    case BSON_TYPE_BOOL: return json_object_new_boolean(bson_iter_bool(it));
    case BSON_TYPE_INT32: return json_object_new_int64(bson_iter_int32(it));
    case BSON_TYPE_INT64: return json_object_new_int64(bson_iter_int64(it));
    case BSON_TYPE_DECIMAL128: {
        bson_decimal128_t dec;
        bson_iter_decimal128(it, &dec);
        return decimal_to_json(&dec);
    }
    case BSON_TYPE_DATE_TIME: {
        int64_t ms = bson_iter_date_time(it);
        time_t t = (time_t)(ms / 1000 - (ms % 1000 < 0));
        struct tm tm;
        char buf[40];
        if (!gmtime_r(&t, &tm))
            return NULL;
        strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
        return json_object_new_string(buf);
    }
    case BSON_TYPE_BINARY: {   /* as extended JSON, which append_binary reads back */
        bson_subtype_t st;
        uint32_t len;
        const uint8_t *data;
        char *text, sub[4];
        struct json_object *o, *bin;
        bson_iter_binary(it, &st, &len, &data);
        if (len > (16u << 20) || !(text = malloc((size_t)(len + 2) / 3 * 4 + 1)))
            return NULL;
        EVP_EncodeBlock((unsigned char *)text, data, (int)len);
        snprintf(sub, sizeof sub, "%02x", (unsigned)st & 0xff);
        bin = json_object_new_object();
        json_object_object_add(bin, "base64", json_object_new_string(text));
        json_object_object_add(bin, "subType", json_object_new_string(sub));
        free(text);
        o = json_object_new_object();
        json_object_object_add(o, "$binary", bin);
        return o;
    }
    case BSON_TYPE_OID: {
        char hex[25];
        bson_oid_to_string(bson_iter_oid(it), hex);
        return json_object_new_string(hex);
    }
    default:
        return NULL;
    }
}

struct json_object *kh_bson_to_json(const bson_t *b)
{
    bson_iter_t it;
    struct json_object *o;

    if (!bson_iter_init(&it, b))
        return NULL;
    o = doc_to_json(&it, 0, 0);
    if (o == (struct json_object *)&it)
        return NULL;
    /* bson_iter_next stops early on a malformed document */
    if (it.err_off) {
        json_object_put(o);
        return NULL;
    }
    return o;
}
