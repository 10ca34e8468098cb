/* tests/auth/check_password.c - Kytos' password hashing and field rules
 * (host/auth/password.c): the scrypt hex Python's hashlib gives for the
 * same salt, constant-time check, pydantic's messages. */
#include "check_tap.h"
#include "auth/b64.h"
#include "auth/password.h"
#include <json-c/json.h>
#include <string.h>

START_TEST(scrypt_matches_hashlib)
{
    /* hashlib.scrypt(b'Passw0rd', salt=b'0123456789abcdef', n=8192, r=8, p=1).hex() */
    static const char want[] = "84be4dcaff32053b512c48aad75319c295810b75e0490a3ec7963e8f5f52775828b7be9d"
                               "9d7b4575b0df43a8a5cb38eb3c4ca4f246c7b086da96ee9e11414c46";
    char hex[KH_HASH_HEX_LEN + 1];
    ck_assert_int_eq(kh_password_hash("Passw0rd", 8, (const unsigned char *)"0123456789abcdef", 16, 8192,
                                      8, 1, hex), 0);
    ck_assert_str_eq(hex, want);
    /* absurd parameters from a stored document are refused, not run */
    ck_assert_int_ne(kh_password_hash("x", 1, (const unsigned char *)"s", 1, 1u << 30, 8, 1, hex), 0);
    ck_assert_int_ne(kh_password_hash("x", 1, (const unsigned char *)"s", 1, 1000, 8, 1, hex), 0);
    ck_assert_int_ne(kh_password_hash("x", 1, (const unsigned char *)"s", 1, 8192, 0, 1, hex), 0);
}
END_TEST

START_TEST(new_hash_checks)
{
    char hex[KH_HASH_HEX_LEN + 1];
    struct json_object *h = kh_password_new_hash("Secr3tPass", 10, hex), *user = json_object_new_object();
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(h, "n")), 8192);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(h, "r")), 8);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(h, "p")), 1);
    json_object_object_add(user, "hash", h);
    json_object_object_add(user, "password", json_object_new_string(hex));
    ck_assert_int_eq(kh_password_check(user, "Secr3tPass", 10), 1);
    ck_assert_int_eq(kh_password_check(user, "Secr3tPasz", 10), 0);
    ck_assert_int_eq(kh_password_check(user, "", 0), 0);
    /* a salt of 16 random bytes, as Kytos' HashSubDoc */
    {
        struct json_object *b64 = json_object_object_get(
            json_object_object_get(json_object_object_get(h, "salt"), "$binary"), "base64");
        unsigned char salt[32];
        size_t n;
        ck_assert_int_eq(kh_b64_decode(json_object_get_string(b64), (size_t)json_object_get_string_len(b64),
                                       salt, sizeof salt, &n), 0);
        ck_assert_int_eq(n, 16);
    }
    json_object_object_del(user, "hash");
    ck_assert_int_eq(kh_password_check(user, "Secr3tPass", 10), -1);
    json_object_put(user);
}
END_TEST

static const char *msg_for(void (*fn)(struct json_object *, char *, size_t), struct json_object *v)
{
    static char out[600];
    out[0] = '\0';
    fn(v, out, sizeof out);
    json_object_put(v);
    return out;
}

START_TEST(kytos_messages)
{
    ck_assert_str_eq(msg_for(kh_check_username, json_object_new_string("ok_user-1")), "");
    ck_assert_str_eq(msg_for(kh_check_username, json_object_new_string("")),
                     "username: String should have at least 1 character");
    ck_assert_str_eq(msg_for(kh_check_username, json_object_new_string("a b")),
                     "username: String should match pattern '^[a-zA-Z0-9_-]+$'");
    ck_assert_str_eq(msg_for(kh_check_username, json_object_new_string(
                         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")),
                     "username: String should have at most 64 characters");
    ck_assert_str_eq(msg_for(kh_check_username, NULL), "username: Input should be a valid string");
    ck_assert_str_eq(msg_for(kh_check_username, json_object_new_int(3)), "username: Input should be a valid string");
    ck_assert_str_eq(msg_for(kh_check_email, json_object_new_string("a@b.org")), "");
    ck_assert_str_eq(msg_for(kh_check_email, json_object_new_string("nope")),
                     "email: value is not a valid email address: An email address must have an @-sign.");
    ck_assert_str_eq(msg_for(kh_check_password, json_object_new_string("Short1")),
                     "password: String should have at least 8 characters");
    ck_assert_str_eq(msg_for(kh_check_password, json_object_new_string("alllowercase1")),
                     "password: Value error, value should contain minimun 8 characters, at least one upper "
                     "case character, at least 1 numeric character [0-9]");
    ck_assert_str_eq(msg_for(kh_check_password, json_object_new_string("GoodPassw0rd")), "");
    {
        char out[600] = "";
        kh_check_username(NULL, out, sizeof out);
        kh_check_password(NULL, out, sizeof out);
        ck_assert_str_eq(out, "username: Input should be a valid string; password: Input should be a valid string");
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("password");
    kytos_check_add(s, "scrypt_matches_hashlib", scrypt_matches_hashlib);
    kytos_check_add(s, "new_hash_checks", new_hash_checks);
    kytos_check_add(s, "kytos_messages", kytos_messages);
    return kytos_check_run(s);
}
