/* tests/fuzz/jwt_verify_fuzz.c - libFuzzer target for the token parser
 * (host/auth/jwt.c, b64.c): hostile input, as a Bearer header carries it.
 *
 * The first byte picks the mode: even, the input is the token as is (the
 * signature check stands first, so this mostly fuzzes segmenting, base64
 * and the header); odd, the rest is "header\npayload" signed with the key,
 * so the claim checks after a good signature get fuzzed too.  Whatever
 * the input, a token accepted must carry a JSON object of claims, and one
 * signed with another key must never be accepted. */
#include "auth/b64.h"
#include "auth/jwt.h"
#include <json-c/json.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char key[] = "fuzz-key-0123456789abcdef";

static void check(const char *tok, size_t len, int signed_by_us)
{
    struct json_object *claims = NULL;
    char err[200];
    enum kh_jwt_result r = kh_jwt_verify(tok, len, key, strlen(key), 1700000000, KH_JWT_ISSUER, &claims,
                                         err, sizeof err);
    if (r == KH_JWT_OK) {
        if (!claims || !json_object_is_type(claims, json_type_object))
            abort();
        if (!signed_by_us && len < 4096 &&
            kh_jwt_verify(tok, len, "another", 7, 1700000000, NULL, NULL, err, sizeof err) == KH_JWT_OK)
            abort();
    } else if (claims || !err[0]) {
        abort();
    }
    json_object_put(claims);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char tok[3 * 8192];
    const char *nl;
    unsigned char mac[32];
    unsigned maclen;
    size_t n, hlen;

    if (size < 1)
        return 0;
    if (!(data[0] & 1)) {
        check((const char *)data + 1, size - 1, 0);
        return 0;
    }
    data++;
    size--;
    if (size > 4096)
        return 0;
    nl = memchr(data, '\n', size);
    hlen = nl ? (size_t)(nl - (const char *)data) : size;
    n = kh_b64url_encode(data, hlen, tok, sizeof tok);
    tok[n++] = '.';
    if (nl)
        n += kh_b64url_encode((const unsigned char *)nl + 1, size - hlen - 1, tok + n, sizeof tok - n);
    HMAC(EVP_sha256(), key, (int)strlen(key), (unsigned char *)tok, n, mac, &maclen);
    tok[n++] = '.';
    n += kh_b64url_encode(mac, 32, tok + n, sizeof tok - n);
    check(tok, n, 1);
    return 0;
}
