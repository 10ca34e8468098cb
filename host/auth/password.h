/* host/auth/password.h - Kytos' user rules and password hashing.
 *
 * Passwords are hashed as Kytos does (kytos/core/user.py): scrypt with a
 * 16-byte random salt, n=8192, r=8, p=1, 64 bytes, stored as hex.  The
 * validation messages are pydantic's, as Kytos' error_msg joins them:
 * "field: message; field2: message". */
#ifndef KH_AUTH_PASSWORD_H
#define KH_AUTH_PASSWORD_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

#define KH_SCRYPT_N 8192
#define KH_SCRYPT_R 8
#define KH_SCRYPT_P 1
#define KH_SALT_LEN 16
#define KH_HASH_HEX_LEN 128   /* 64 bytes as hex */

/* scrypt(password, salt, n, r, p) as 128 hex digits + NUL into hex.
 * Parameters outside sane bounds (n a power of two up to 2^20, r up to 32,
 * p up to 16) are refused: -1.  0 on success. */
int kh_password_hash(const char *pw, size_t pwlen, const unsigned char *salt, size_t saltlen,
                     uint64_t n, uint64_t r, uint64_t p, char hex[KH_HASH_HEX_LEN + 1]);

/* Does pw match the stored user document (its "password" and "hash")?
 * 1 yes, 0 no, -1 the document's hash is unreadable.  Compared in constant
 * time. */
int kh_password_check(struct json_object *user, const char *pw, size_t pwlen);

/* A new "hash" sub-document {salt, n, r, p} (salt as MongoDB extended JSON
 * binary, see users.c) with a random salt, and the password's hex into hex.
 * NULL on failure. */
struct json_object *kh_password_new_hash(const char *pw, size_t pwlen,
                                         char hex[KH_HASH_HEX_LEN + 1]);

/* Field checks, Kytos' messages; each appends "field: msg" to out (joined
 * with "; ").  v may be NULL (missing). */
void kh_check_username(struct json_object *v, char *out, size_t cap);
void kh_check_email(struct json_object *v, char *out, size_t cap);
void kh_check_password(struct json_object *v, char *out, size_t cap);
/* kytos-c's role field: "admin" or "viewer". */
void kh_check_role(struct json_object *v, char *out, size_t cap);

#endif
