/* tests/auth/check_jwt.c - the token parser as an attacker sees it
 * (host/auth/jwt.c, b64.c): alg none and other algorithms, bad base64,
 * huge segments, wrong claim types, expired, not yet valid, wrong issuer,
 * a wrong key, and a token Kytos (PyJWT) made. */
#include "check_tap.h"
#include "auth/b64.h"
#include "auth/jwt.h"
#include <json-c/json.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char key[] = "0123456789abcdef0123456789abcdef";
#define NOW 1700000000

/* A token with any header and payload text, signed with k (HS256). */
static char *forge(const char *header, const char *payload, const char *k)
{
    static char tok[16384];
    unsigned char mac[32];
    unsigned maclen;
    size_t n = kh_b64url_encode((const unsigned char *)header, strlen(header), tok, sizeof tok);
    tok[n++] = '.';
    n += kh_b64url_encode((const unsigned char *)payload, strlen(payload), tok + n, sizeof tok - n);
    HMAC(EVP_sha256(), k, (int)strlen(k), (unsigned char *)tok, n, mac, &maclen);
    tok[n++] = '.';
    kh_b64url_encode(mac, 32, tok + n, sizeof tok - n);
    return tok;
}

static enum kh_jwt_result check(const char *tok, char *err)
{
    return kh_jwt_verify(tok, strlen(tok), key, strlen(key), NOW, KH_JWT_ISSUER, NULL, err, 200);
}

#define HS "{\"alg\":\"HS256\",\"typ\":\"JWT\"}"
#define GOOD "{\"username\":\"alice\",\"iss\":\"Kytos NApps Server\",\"exp\":1700000600}"

START_TEST(sign_then_verify)
{
    struct json_object *c = json_object_new_object(), *out = NULL;
    char *tok, err[200];
    json_object_object_add(c, "username", json_object_new_string("alice"));
    json_object_object_add(c, "iss", json_object_new_string(KH_JWT_ISSUER));
    json_object_object_add(c, "exp", json_object_new_int64(NOW + 60));
    ck_assert_int_eq(kh_jwt_sign(key, strlen(key), c, &tok), 0);
    ck_assert_int_eq(kh_jwt_verify(tok, strlen(tok), key, strlen(key), NOW, KH_JWT_ISSUER, &out, err, sizeof err),
                     KH_JWT_OK);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(out, "username")), "alice");
    /* another key: refused */
    ck_assert_int_eq(kh_jwt_verify(tok, strlen(tok), "other", 5, NOW, NULL, NULL, err, sizeof err),
                     KH_JWT_BAD_SIGNATURE);
    ck_assert_str_eq(err, "Signature verification failed");
    /* one flipped character of the signature */
    tok[strlen(tok) - 2] ^= 1;
    ck_assert_int_ne(check(tok, err), KH_JWT_OK);
    free(tok);
    json_object_put(c);
    json_object_put(out);
}
END_TEST

START_TEST(pyjwt_token_accepted)
{
    /* jwt.encode({"username": "alice", "iss": "Kytos NApps Server", "exp": 1700000600},
     *            "0123456789abcdef0123456789abcdef", algorithm="HS256") as PyJWT 2.x writes it */
    char err[200];
    const char *tok = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VybmFtZSI6ImFsaWNlIiwiaXNzIjoiS3l0b3MgTkFwcHMgU2VydmVyIiwiZXhwIjoxNzAwMDAwNjAwfQ.s-2GDAjms9oEDIHrXAsFzSo7zy6DkmpGX4frd2o3V14";
    ck_assert_int_eq(check(tok, err), KH_JWT_OK);
    ck_assert_int_eq(check(forge(HS, GOOD, key), err), KH_JWT_OK);
}
END_TEST

START_TEST(alg_none_and_others_refused)
{
    char err[200], tok[512];
    static const char *const algs[] = {"{\"alg\":\"none\"}", "{\"alg\":\"None\"}", "{\"alg\":\"HS512\"}",
                                       "{\"alg\":\"RS256\"}", "{\"alg\":\"hs256\"}", "{\"alg\":256}",
                                       "{\"typ\":\"JWT\"}", "{\"alg\":\"HS256\\u0000\"}", "[\"HS256\"]", NULL};
    size_t i, n;
    for (i = 0; algs[i]; i++) {
        ck_assert_int_ne(check(forge(algs[i], GOOD, key), err), KH_JWT_OK);
    }
    ck_assert_int_eq(check(forge("{\"alg\":\"none\"}", GOOD, key), err), KH_JWT_BAD_ALG);
    ck_assert_str_eq(err, "The specified alg value is not allowed");
    /* the classic: alg none with an empty signature */
    n = kh_b64url_encode((const unsigned char *)"{\"alg\":\"none\"}", 14, tok, sizeof tok);
    tok[n++] = '.';
    n += kh_b64url_encode((const unsigned char *)GOOD, strlen(GOOD), tok + n, sizeof tok - n);
    tok[n++] = '.';
    tok[n] = '\0';
    ck_assert_int_eq(check(tok, err), KH_JWT_BAD_ALG);
}
END_TEST

START_TEST(bad_shapes_refused)
{
    char err[200], *big;
    const char *good = forge(HS, GOOD, key);
    char copy[1024];
    ck_assert_int_eq(check("", err), KH_JWT_MALFORMED);
    ck_assert_int_eq(check("abc", err), KH_JWT_MALFORMED);
    ck_assert_str_eq(err, "Not enough segments");
    ck_assert_int_eq(check("a.b", err), KH_JWT_MALFORMED);
    ck_assert_int_eq(check("a.b.c.d", err), KH_JWT_MALFORMED);
    ck_assert_int_eq(check("..", err), KH_JWT_MALFORMED);
    ck_assert_int_eq(check("!!!.e30.sig", err), KH_JWT_MALFORMED);
    /* padding, standard alphabet, whitespace: not base64url */
    snprintf(copy, sizeof copy, "%s=", good);
    ck_assert_int_ne(check(copy, err), KH_JWT_OK);
    snprintf(copy, sizeof copy, " %s", good);
    ck_assert_int_ne(check(copy, err), KH_JWT_OK);
    ck_assert_int_ne(check(forge("{\"alg\":\"HS256\"", GOOD, key), err), KH_JWT_OK);   /* bad JSON */
    ck_assert_int_ne(check(forge(HS, "[1]", key), err), KH_JWT_OK);                   /* not an object */
    ck_assert_int_ne(check(forge(HS, GOOD " x", key), err), KH_JWT_OK);               /* trailing text */
    ck_assert_int_ne(check(forge(HS, "{\"a\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}", key), err), KH_JWT_OK);
    /* a huge token: refused unread */
    big = malloc(1 << 20);
    memset(big, 'A', (1 << 20) - 1);
    big[(1 << 20) - 1] = '\0';
    big[100] = '.';
    big[200] = '.';
    ck_assert_int_eq(check(big, err), KH_JWT_MALFORMED);
    ck_assert_str_eq(err, "Token too long");
    free(big);
    /* non-canonical base64 (non-zero pad bits) */
    {
        unsigned char out[8];
        size_t n;
        ck_assert_int_eq(kh_b64url_decode("QQ", 2, out, sizeof out, &n), 0);
        ck_assert_int_eq(n, 1);
        ck_assert_int_eq(out[0], 'A');
        ck_assert_int_ne(kh_b64url_decode("QR", 2, out, sizeof out, &n), 0);
        ck_assert_int_ne(kh_b64url_decode("Q", 1, out, sizeof out, &n), 0);
        ck_assert_int_ne(kh_b64url_decode("QUFBQUFBQUFBQUFB", 16, out, sizeof out, &n), 0);  /* > cap */
        ck_assert_int_eq(kh_b64_decode("dTpw", 4, out, sizeof out, &n), 0);
        ck_assert_int_ne(kh_b64_decode("dTp", 3, out, sizeof out, &n), 0);
    }
}
END_TEST

START_TEST(claims_checked)
{
    char err[200];
    ck_assert_int_eq(check(forge(HS, "{\"username\":\"a\",\"iss\":\"Kytos NApps Server\",\"exp\":1699999999}", key), err),
                     KH_JWT_EXPIRED);
    ck_assert_str_eq(err, "Signature has expired");
    ck_assert_int_eq(check(forge(HS, "{\"username\":\"a\",\"iss\":\"Kytos NApps Server\",\"exp\":1700000000}", key), err),
                     KH_JWT_EXPIRED);   /* exp == now: expired, as PyJWT */
    ck_assert_int_eq(check(forge(HS, "{\"username\":\"a\",\"iss\":\"Kytos NApps Server\",\"exp\":\"1800000000\"}", key), err),
                     KH_JWT_BAD_CLAIM);
    ck_assert_int_eq(check(forge(HS, "{\"username\":\"a\",\"iss\":\"Kytos NApps Server\",\"exp\":null}", key), err),
                     KH_JWT_BAD_CLAIM);
    ck_assert_int_eq(check(forge(HS, "{\"iss\":\"Kytos NApps Server\",\"exp\":1800000000,\"nbf\":1700000100}", key), err),
                     KH_JWT_NOT_YET_VALID);
    ck_assert_str_eq(err, "The token is not yet valid (nbf)");
    ck_assert_int_eq(check(forge(HS, "{\"iss\":\"Kytos NApps Server\",\"nbf\":[1]}", key), err), KH_JWT_BAD_CLAIM);
    ck_assert_int_eq(check(forge(HS, "{\"iss\":\"Kytos NApps Server\",\"iat\":{}}", key), err), KH_JWT_BAD_CLAIM);
    ck_assert_int_eq(check(forge(HS, "{\"iss\":\"Someone Else\",\"exp\":1800000000}", key), err), KH_JWT_BAD_ISSUER);
    ck_assert_str_eq(err, "Invalid issuer");
    ck_assert_int_eq(check(forge(HS, "{\"exp\":1800000000}", key), err), KH_JWT_BAD_ISSUER);
    ck_assert_int_eq(check(forge(HS, "{\"iss\":7,\"exp\":1800000000}", key), err), KH_JWT_BAD_CLAIM);
    ck_assert_int_eq(check(forge(HS, "{\"iss\":\"Kytos NApps Server\\u0000x\",\"exp\":1800000000}", key), err),
                     KH_JWT_BAD_ISSUER);
    /* a float exp is a NumericDate too */
    ck_assert_int_eq(check(forge(HS, "{\"iss\":\"Kytos NApps Server\",\"exp\":1700000600.5}", key), err), KH_JWT_OK);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jwt");
    kytos_check_add(s, "sign_then_verify", sign_then_verify);
    kytos_check_add(s, "pyjwt_token_accepted", pyjwt_token_accepted);
    kytos_check_add(s, "alg_none_and_others_refused", alg_none_and_others_refused);
    kytos_check_add(s, "bad_shapes_refused", bad_shapes_refused);
    kytos_check_add(s, "claims_checked", claims_checked);
    return kytos_check_run(s);
}
