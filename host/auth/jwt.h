/* host/auth/jwt.h - HS256 JSON Web Tokens (RFC 7519) as Kytos issues them.
 *
 * The parser takes hostile input: a bounded token of exactly three
 * base64url segments; a header that is a JSON object whose "alg" is the
 * string "HS256" (anything else, "none" included, is refused before any
 * signature check); the HMAC compared in constant time; only then is the
 * payload parsed, and its registered claims must have the right types
 * (exp, nbf, iat numbers; iss a string).  Messages follow PyJWT's, which
 * Kytos puts after "Token not sent or expired: ". */
#ifndef KH_AUTH_JWT_H
#define KH_AUTH_JWT_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

#define KH_JWT_MAX_LEN 4096      /* a longer token is refused unread */
#define KH_JWT_ISSUER "Kytos NApps Server"

enum kh_jwt_result {
    KH_JWT_OK = 0,
    KH_JWT_MALFORMED,            /* segments, base64, JSON, size */
    KH_JWT_BAD_ALG,              /* alg is not HS256 */
    KH_JWT_BAD_SIGNATURE,
    KH_JWT_BAD_CLAIM,            /* a registered claim of the wrong type */
    KH_JWT_EXPIRED,
    KH_JWT_NOT_YET_VALID,
    KH_JWT_BAD_ISSUER
};

/* Sign claims (a JSON object) with key: a new "header.payload.sig" string
 * in *out (malloc'd).  0, or -1 (out of memory, too long). */
int kh_jwt_sign(const void *key, size_t keylen, struct json_object *claims, char **out);

/* Verify tok (len bytes, not NUL-terminated necessarily) at time now
 * (seconds since the epoch).  issuer: the "iss" it must carry, or NULL to
 * accept any (or none).  On KH_JWT_OK, *claims (may be NULL) gets the
 * payload (a new reference).  Otherwise err says why. */
enum kh_jwt_result kh_jwt_verify(const char *tok, size_t len, const void *key, size_t keylen,
                                 int64_t now, const char *issuer, struct json_object **claims,
                                 char *err, size_t errlen);

#endif
