/* host/auth/jwt.c - HS256 JWT signing and verification (jwt.h). */
#include "auth/jwt.h"
#include "auth/b64.h"
#include <json-c/json.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEG_MAX KH_JWT_MAX_LEN   /* a decoded segment is never longer than its text */

static const char header_b64[] = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"; /* {"alg":"HS256","typ":"JWT"} */

static int hmac256(const void *key, size_t keylen, const char *data, size_t len,
                   unsigned char mac[32])
{
    unsigned int maclen = 0;
    /* HMAC() wants a non-NULL key even when it is empty */
    static const unsigned char empty[1];

    if (!HMAC(EVP_sha256(), keylen ? key : empty, (int)keylen, (const unsigned char *)data, len,
              mac, &maclen) || maclen != 32)
        return -1;
    return 0;
}

int kh_jwt_sign(const void *key, size_t keylen, struct json_object *claims, char **out)
{
    const char *payload = json_object_to_json_string_ext(claims, JSON_C_TO_STRING_PLAIN |
                                                                     JSON_C_TO_STRING_NOSLASHESCAPE);
    size_t plen = strlen(payload), hlen = sizeof header_b64 - 1, cap, n;
    unsigned char mac[32];
    char *tok;

    *out = NULL;
    cap = hlen + 1 + (plen + 2) / 3 * 4 + 1 + 44 + 1;
    if (cap > KH_JWT_MAX_LEN || !(tok = malloc(cap)))
        return -1;
    memcpy(tok, header_b64, hlen);
    tok[hlen] = '.';
    n = kh_b64url_encode((const unsigned char *)payload, plen, tok + hlen + 1, cap - hlen - 1);
    if (n == (size_t)-1)
        goto fail;
    n += hlen + 1;
    if (hmac256(key, keylen, tok, n, mac) != 0)
        goto fail;
    tok[n++] = '.';
    if (kh_b64url_encode(mac, sizeof mac, tok + n, cap - n) == (size_t)-1)
        goto fail;
    *out = tok;
    return 0;
fail:
    free(tok);
    return -1;
}

static enum kh_jwt_result fail(char *err, size_t errlen, enum kh_jwt_result r, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return r;
}

/* Decode a base64url segment and parse it as a JSON object (depth-bounded,
 * the whole text consumed). */
static struct json_object *segment_object(const char *s, size_t len)
{
    unsigned char buf[SEG_MAX];
    size_t n;
    struct json_tokener *tk;
    struct json_object *o;

    if (kh_b64url_decode(s, len, buf, sizeof buf, &n) != 0 || n == 0)
        return NULL;
    if (memchr(buf, '\0', n))   /* json-c would stop there */
        return NULL;
    tk = json_tokener_new_ex(8);
    if (!tk)
        return NULL;
    json_tokener_set_flags(tk, JSON_TOKENER_STRICT);
    o = json_tokener_parse_ex(tk, (const char *)buf, (int)n);
    if (!o || json_tokener_get_error(tk) != json_tokener_success ||
        json_tokener_get_parse_end(tk) != n || !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tk);
    return o;
}

/* A NumericDate claim: absent (1), a number (0, *v), or the wrong type (-1). */
static int numeric_claim(struct json_object *claims, const char *name, double *v)
{
    struct json_object *c;

    if (!json_object_object_get_ex(claims, name, &c))
        return 1;
    if (json_object_is_type(c, json_type_int))
        *v = (double)json_object_get_int64(c);
    else if (json_object_is_type(c, json_type_double))
        *v = json_object_get_double(c);
    else
        return -1;
    return 0;
}

enum kh_jwt_result kh_jwt_verify(const char *tok, size_t len, const void *key, size_t keylen,
                                 int64_t now, const char *issuer, struct json_object **claims,
                                 char *err, size_t errlen)
{
    const char *dot1, *dot2, *end = tok + len;
    struct json_object *hdr, *payload, *alg, *iss;
    unsigned char mac[32], sig[64];
    size_t siglen;
    double t;
    int rc;

    if (claims)
        *claims = NULL;
    if (!tok || len == 0)
        return fail(err, errlen, KH_JWT_MALFORMED, "Not enough segments");
    if (len > KH_JWT_MAX_LEN)
        return fail(err, errlen, KH_JWT_MALFORMED, "Token too long");
    dot1 = memchr(tok, '.', len);
    dot2 = dot1 ? memchr(dot1 + 1, '.', (size_t)(end - dot1 - 1)) : NULL;
    if (!dot2)
        return fail(err, errlen, KH_JWT_MALFORMED, "Not enough segments");
    if (memchr(dot2 + 1, '.', (size_t)(end - dot2 - 1)))
        return fail(err, errlen, KH_JWT_MALFORMED, "Too many segments");
    hdr = segment_object(tok, (size_t)(dot1 - tok));
    if (!hdr)
        return fail(err, errlen, KH_JWT_MALFORMED, "Invalid header string");
    rc = json_object_object_get_ex(hdr, "alg", &alg) && json_object_is_type(alg, json_type_string) &&
         strcmp(json_object_get_string(alg), "HS256") == 0 &&
         json_object_get_string_len(alg) == 5;
    json_object_put(hdr);
    if (!rc)
        return fail(err, errlen, KH_JWT_BAD_ALG, "The specified alg value is not allowed");
    if (kh_b64url_decode(dot2 + 1, (size_t)(end - dot2 - 1), sig, sizeof sig, &siglen) != 0)
        return fail(err, errlen, KH_JWT_MALFORMED, "Invalid crypto padding");
    if (hmac256(key, keylen, tok, (size_t)(dot2 - tok), mac) != 0 || siglen != sizeof mac ||
        CRYPTO_memcmp(mac, sig, sizeof mac) != 0)
        return fail(err, errlen, KH_JWT_BAD_SIGNATURE, "Signature verification failed");
    payload = segment_object(dot1 + 1, (size_t)(dot2 - dot1 - 1));
    if (!payload)
        return fail(err, errlen, KH_JWT_MALFORMED, "Invalid payload string: must be a json object");

    if ((rc = numeric_claim(payload, "exp", &t)) < 0) {
        json_object_put(payload);
        return fail(err, errlen, KH_JWT_BAD_CLAIM, "Expiration Time claim (exp) must be an integer.");
    }
    if (rc == 0 && t <= (double)now) {
        json_object_put(payload);
        return fail(err, errlen, KH_JWT_EXPIRED, "Signature has expired");
    }
    if ((rc = numeric_claim(payload, "nbf", &t)) < 0) {
        json_object_put(payload);
        return fail(err, errlen, KH_JWT_BAD_CLAIM, "Not Before claim (nbf) must be an integer.");
    }
    if (rc == 0 && t > (double)now) {
        json_object_put(payload);
        return fail(err, errlen, KH_JWT_NOT_YET_VALID, "The token is not yet valid (nbf)");
    }
    if (numeric_claim(payload, "iat", &t) < 0) {
        json_object_put(payload);
        return fail(err, errlen, KH_JWT_BAD_CLAIM, "Issued At claim (iat) must be an integer.");
    }
    if (json_object_object_get_ex(payload, "iss", &iss) && !json_object_is_type(iss, json_type_string)) {
        json_object_put(payload);
        return fail(err, errlen, KH_JWT_BAD_CLAIM, "Invalid issuer");
    }
    if (issuer && (!json_object_object_get_ex(payload, "iss", &iss) ||
                   (size_t)json_object_get_string_len(iss) != strlen(issuer) ||
                   strcmp(json_object_get_string(iss), issuer) != 0)) {
        json_object_put(payload);
        return fail(err, errlen, KH_JWT_BAD_ISSUER, "Invalid issuer");
    }
    if (claims)
        *claims = payload;
    else
        json_object_put(payload);
    return KH_JWT_OK;
}
