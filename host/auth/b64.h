/* host/auth/b64.h - base64 (RFC 4648) for tokens and HTTP Basic credentials.
 * Decoders are strict (hostile input): only the alphabet, no whitespace,
 * canonical trailing bits; they never write past cap. */
#ifndef KH_AUTH_B64_H
#define KH_AUTH_B64_H

#include <stddef.h>

/* base64url without padding (JWT).  Returns the length written, or
 * (size_t)-1 if out is too small. */
size_t kh_b64url_encode(const unsigned char *in, size_t len, char *out, size_t cap);
/* 0 and *outlen, or -1 (bad character, bad length, non-zero pad bits,
 * '=' present, output larger than cap). */
int kh_b64url_decode(const char *in, size_t len, unsigned char *out, size_t cap, size_t *outlen);
/* Standard alphabet with '=' padding (HTTP Basic): the same rules; the
 * padding must be present and correct. */
int kh_b64_decode(const char *in, size_t len, unsigned char *out, size_t cap, size_t *outlen);
size_t kh_b64_encode(const unsigned char *in, size_t len, char *out, size_t cap);

#endif
