/* host/auth/password.c - scrypt hashing and Kytos' user field rules
 * (password.h). */
#include "auth/password.h"
#include "auth/b64.h"
#include <json-c/json.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>

int kh_password_hash(const char *pw, size_t pwlen, const unsigned char *salt, size_t saltlen,
                     uint64_t n, uint64_t r, uint64_t p, char hex[KH_HASH_HEX_LEN + 1])
{
    unsigned char key[64];
    size_t i;

    if (n < 2 || n > (1u << 20) || (n & (n - 1)) || r < 1 || r > 32 || p < 1 || p > 16)
        return -1;
    /* maxmem: 128*r*n plus slack, as Python's hashlib leaves to OpenSSL */
    if (EVP_PBE_scrypt(pw, pwlen, salt, saltlen, n, r, p, 128 * r * n * p + (1u << 20), key,
                       sizeof key) != 1)
        return -1;
    for (i = 0; i < sizeof key; i++)
        snprintf(hex + 2 * i, 3, "%02x", key[i]);
    OPENSSL_cleanse(key, sizeof key);
    return 0;
}

/* The salt of a stored hash: extended JSON {"$binary": {"base64": s}} (what
 * kytos-c writes, and what MongoDB's binary reads as), or a plain string
 * of raw bytes. */
static int salt_of(struct json_object *hash, unsigned char *salt, size_t cap, size_t *len)
{
    struct json_object *s, *bin, *b64;

    if (!json_object_object_get_ex(hash, "salt", &s))
        return -1;
    if (json_object_is_type(s, json_type_object) && json_object_object_get_ex(s, "$binary", &bin) &&
        json_object_object_get_ex(bin, "base64", &b64) && json_object_is_type(b64, json_type_string))
        return kh_b64_decode(json_object_get_string(b64), (size_t)json_object_get_string_len(b64),
                             salt, cap, len);
    if (json_object_is_type(s, json_type_string) && (size_t)json_object_get_string_len(s) <= cap) {
        *len = (size_t)json_object_get_string_len(s);
        memcpy(salt, json_object_get_string(s), *len);
        return 0;
    }
    return -1;
}

static int uint_field(struct json_object *o, const char *name, uint64_t *v)
{
    struct json_object *f;
    if (!json_object_object_get_ex(o, name, &f) || !json_object_is_type(f, json_type_int) ||
        json_object_get_int64(f) < 1)
        return -1;
    *v = (uint64_t)json_object_get_int64(f);
    return 0;
}

int kh_password_check(struct json_object *user, const char *pw, size_t pwlen)
{
    struct json_object *hash, *stored;
    unsigned char salt[256];
    size_t saltlen;
    uint64_t n, r, p;
    char hex[KH_HASH_HEX_LEN + 1];
    int ok;

    if (!json_object_object_get_ex(user, "hash", &hash) ||
        !json_object_object_get_ex(user, "password", &stored) ||
        !json_object_is_type(stored, json_type_string) ||
        salt_of(hash, salt, sizeof salt, &saltlen) != 0 || uint_field(hash, "n", &n) != 0 ||
        uint_field(hash, "r", &r) != 0 || uint_field(hash, "p", &p) != 0 ||
        kh_password_hash(pw, pwlen, salt, saltlen, n, r, p, hex) != 0)
        return -1;
    ok = (size_t)json_object_get_string_len(stored) == KH_HASH_HEX_LEN &&
         CRYPTO_memcmp(hex, json_object_get_string(stored), KH_HASH_HEX_LEN) == 0;
    OPENSSL_cleanse(hex, sizeof hex);
    return ok;
}

struct json_object *kh_password_new_hash(const char *pw, size_t pwlen,
                                         char hex[KH_HASH_HEX_LEN + 1])
{
    unsigned char salt[KH_SALT_LEN];
    char b64[32];
    struct json_object *h, *bin, *s;

    if (RAND_bytes(salt, sizeof salt) != 1 ||
        kh_password_hash(pw, pwlen, salt, sizeof salt, KH_SCRYPT_N, KH_SCRYPT_R, KH_SCRYPT_P, hex) != 0)
        return NULL;
    kh_b64_encode(salt, sizeof salt, b64, sizeof b64);
    h = json_object_new_object();
    s = json_object_new_object();
    bin = json_object_new_object();
    json_object_object_add(bin, "base64", json_object_new_string(b64));
    json_object_object_add(bin, "subType", json_object_new_string("00"));
    json_object_object_add(s, "$binary", bin);
    json_object_object_add(h, "salt", s);
    json_object_object_add(h, "n", json_object_new_int(KH_SCRYPT_N));
    json_object_object_add(h, "r", json_object_new_int(KH_SCRYPT_R));
    json_object_object_add(h, "p", json_object_new_int(KH_SCRYPT_P));
    return h;
}

/* ---- field rules (pydantic's messages, as Kytos shows them) ---- */

static void add(char *out, size_t cap, const char *field, const char *msg)
{
    size_t len = strlen(out);
    snprintf(out + len, cap - len, "%s%s: %s", len ? "; " : "", field, msg);
}

/* Characters (code points) of a UTF-8 string. */
static size_t chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* A string value, or NULL after "Input should be a valid string". */
static const char *string_or_err(struct json_object *v, const char *field, char *out, size_t cap)
{
    if (!v || !json_object_is_type(v, json_type_string) ||
        strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v)) {
        add(out, cap, field, "Input should be a valid string");
        return NULL;
    }
    return json_object_get_string(v);
}

static int length_ok(const char *s, size_t min, size_t max, const char *field, char *out, size_t cap)
{
    size_t n = chars(s);
    char msg[80];

    if (n < min) {
        snprintf(msg, sizeof msg, "String should have at least %zu character%s", min, min == 1 ? "" : "s");
        add(out, cap, field, msg);
        return 0;
    }
    if (n > max) {
        snprintf(msg, sizeof msg, "String should have at most %zu characters", max);
        add(out, cap, field, msg);
        return 0;
    }
    return 1;
}

void kh_check_username(struct json_object *v, char *out, size_t cap)
{
    const char *s = string_or_err(v, "username", out, cap);
    if (!s || !length_ok(s, 1, 64, "username", out, cap))
        return;
    if (strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(s))
        add(out, cap, "username", "String should match pattern '^[a-zA-Z0-9_-]+$'");
}

void kh_check_email(struct json_object *v, char *out, size_t cap)
{
    const char *s = string_or_err(v, "email", out, cap), *at, *dom;
    const char *why = NULL;
    char msg[200];

    if (!s)
        return;
    at = strchr(s, '@');
    if (!at)
        why = "An email address must have an @-sign.";
    else if (strchr(at + 1, '@'))
        why = "The email address is not valid. It must have exactly one @-sign.";
    else if (at == s)
        why = "There must be something before the @-sign.";
    else if (!at[1])
        why = "There must be something after the @-sign.";
    else if (strpbrk(s, " \t\r\n\"(),:;<>[\\]") || strlen(s) > 254)
        why = "The email address contains invalid characters.";
    else if (!(dom = strchr(at + 1, '.')) || dom == at + 1 || !dom[1] || s[strlen(s) - 1] == '.')
        why = "The part after the @-sign is not valid. It should have a period.";
    if (why) {
        snprintf(msg, sizeof msg, "value is not a valid email address: %s", why);
        add(out, cap, "email", msg);
    }
}

void kh_check_password(struct json_object *v, char *out, size_t cap)
{
    const char *s = string_or_err(v, "password", out, cap), *p;
    int upper = 0, lower = 0, digit = 0;

    if (!s || !length_ok(s, 8, 64, "password", out, cap))
        return;
    for (p = s; *p; p++) {
        upper |= *p >= 'A' && *p <= 'Z';
        lower |= *p >= 'a' && *p <= 'z';
        digit |= *p >= '0' && *p <= '9';
    }
    if (!(upper && lower && digit))
        add(out, cap, "password",
            "Value error, value should contain minimun 8 characters, at least one upper case "
            "character, at least 1 numeric character [0-9]");
}

void kh_check_role(struct json_object *v, char *out, size_t cap)
{
    const char *s = v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
    if (!s || (strcmp(s, "admin") != 0 && strcmp(s, "viewer") != 0))
        add(out, cap, "role", "Input should be 'admin' or 'viewer'");
}
