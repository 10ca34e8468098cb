/* tests/openapi/check_json_strict.c - the strict JSON reader. */
#include <stdio.h>
#include <string.h>

#include "check_tap.h"
#include "internal.h"

static int parse(const char *s, json_object **out, char *err, size_t errlen)
{
    return kytos_openapi_json_parse(s, strlen(s), NULL, out, err, errlen);
}

/* Parse and expect failure with exactly msg. */
#define BAD(text, msg) do { \
        char e_[256]; json_object *o_ = NULL; \
        ck_assert_int_eq(parse(text, &o_, e_, sizeof e_), -1); \
        ck_assert_ptr_null(o_); \
        ck_assert_str_eq(e_, msg); \
    } while (0)

/* Parse and expect success; the value re-serialised equals want. */
#define GOOD(text, want) do { \
        char e_[256]; json_object *o_ = NULL; \
        ck_assert_msg(parse(text, &o_, e_, sizeof e_) == 0, "%s: %s", text, e_); \
        ck_assert_str_eq(o_ ? json_object_to_json_string_ext(o_, \
                         JSON_C_TO_STRING_PLAIN) : "null", want); \
        json_object_put(o_); \
    } while (0)

START_TEST(test_python_messages)
{
    BAD("", "Expecting value: line 1 column 1 (char 0)");
    BAD("   ", "Expecting value: line 1 column 4 (char 3)");
    BAD("{", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)");
    BAD("{\"a\" 1}", "Expecting ':' delimiter: line 1 column 6 (char 5)");
    BAD("{\"a\": 1 \"b\": 2}", "Expecting ',' delimiter: line 1 column 9 (char 8)");
    BAD("[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)");
    BAD("[1,]", "Expecting value: line 1 column 4 (char 3)");
    BAD("{\"a\":1,}", "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)");
    BAD("{} x", "Extra data: line 1 column 4 (char 3)");
    BAD("\"abc", "Unterminated string starting at: line 1 column 1 (char 0)");
    BAD("\"a\\qb\"", "Invalid \\escape: line 1 column 3 (char 2)");
    BAD("\"\\u12G4\"", "Invalid \\uXXXX escape: line 1 column 2 (char 1)");
    BAD("{\n  \"a\": tru\n}", "Expecting value: line 2 column 8 (char 9)");
    BAD("01", "Extra data: line 1 column 2 (char 1)");
    BAD("-", "Expecting value: line 1 column 1 (char 0)");
    BAD("\"\xc3\xa9\" x", "Extra data: line 1 column 5 (char 4)");
}
END_TEST

START_TEST(test_rejects_lax_input)
{
    BAD("NaN", "Expecting value (NaN is not JSON): line 1 column 1 (char 0)");
    BAD("[Infinity]", "Expecting value (Infinity is not JSON): line 1 column 2 (char 1)");
    BAD("-Infinity", "Expecting value (Infinity is not JSON): line 1 column 1 (char 0)");
    BAD("{'a': 1}", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)");
    BAD("['a']", "Expecting value (strings take double quotes): line 1 column 2 (char 1)");
    BAD("\"a\tb\"", "Invalid control character at: line 1 column 3 (char 2)");
    BAD("\"a\nb\"", "Invalid control character at: line 1 column 3 (char 2)");
    BAD("\"\xff\"", "Invalid UTF-8 in string at: line 1 column 2 (char 1)");
    BAD("\"\xc0\xaf\"", "Invalid UTF-8 in string at: line 1 column 2 (char 1)");
    BAD("\"\xed\xa0\x80\"", "Invalid UTF-8 in string at: line 1 column 2 (char 1)");
    BAD("\xff", "Invalid UTF-8 at: line 1 column 1 (char 0)");
    BAD("[1] // c", "Extra data: line 1 column 5 (char 4)");
    BAD("{\"a\\u0000b\": 1}", "Object key containing \\u0000 is not supported at: line 1 column 2 (char 1)");
    BAD("true false", "Extra data: line 1 column 6 (char 5)");
    BAD("nul", "Expecting value: line 1 column 1 (char 0)");
}
END_TEST

START_TEST(test_numbers)
{
    GOOD("18446744073709551615", "18446744073709551615");
    GOOD("9223372036854775807", "9223372036854775807");
    GOOD("-9223372036854775808", "-9223372036854775808");
    GOOD("[0, -0, 1.5, 1e2, 0.1, -2.5E-3]", "[0,0,1.5,1e2,0.1,-2.5E-3]");
    BAD("18446744073709551616", "Integer out of range (-2^63 .. 2^64-1) at: line 1 column 1 (char 0)");
    BAD("-9223372036854775809", "Integer out of range (-2^63 .. 2^64-1) at: line 1 column 1 (char 0)");
    BAD("1e400", "Number out of range at: line 1 column 1 (char 0)");
    BAD("-1e400", "Number out of range at: line 1 column 1 (char 0)");
    GOOD("1e-400", "1e-400");
    BAD("1.", "Extra data: line 1 column 2 (char 1)");
    BAD(".5", "Expecting value: line 1 column 1 (char 0)");
    BAD("+1", "Expecting value: line 1 column 1 (char 0)");
    {
        /* uint64 cookies survive exactly */
        json_object *o;
        char e[128];
        struct koa_num n;
        ck_assert_int_eq(parse("{\"cookie\": 13474790939069419520}", &o, e, sizeof e), 0);
        ck_assert(koa_num_get(json_object_object_get(o, "cookie"), &n));
        ck_assert_int_eq(n.k, KOA_U64);
        ck_assert(n.v.u == 13474790939069419520ull);
        json_object_put(o);
    }
}
END_TEST

START_TEST(test_bignum_option)
{
    struct kytos_openapi_options o = { .struct_size = sizeof o,
                                       .flags = KYTOS_OPENAPI_F_BIGNUM_AS_DOUBLE };
    json_object *v;
    char e[128];
    const char *big = "12345678910111213141516171819202122232425262728293031";
    ck_assert_int_eq(kytos_openapi_json_parse(big, strlen(big), &o, &v, e, sizeof e), 0);
    ck_assert(json_object_is_type(v, json_type_double));
    ck_assert(koa_is_integer(v, false));
    json_object_put(v);
}
END_TEST

START_TEST(test_strings)
{
    GOOD("\"\\u00e9\\ud83d\\ude00\"", "\"\xc3\xa9\xf0\x9f\x98\x80\"");
    GOOD("\"\\ud83d\"", "\"\xef\xbf\xbd\""); /* lone surrogate: U+FFFD */
    GOOD("\"a\\u0000b\"", "\"a\\u0000b\"");
    GOOD("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"");
    GOOD("\xEF\xBB\xBF{}", "{}");
    GOOD("{\"a\": 1, \"b\": 2, \"a\": 3}", "{\"a\":3,\"b\":2}");
    GOOD("null", "null");
    GOOD(" [true, false, null, {}] ", "[true,false,null,{}]");
}
END_TEST

START_TEST(test_limits)
{
    struct kytos_openapi_options o = { .struct_size = sizeof o, .max_depth = 3,
                                       .max_string_bytes = 4, .max_values = 5 };
    json_object *v = NULL;
    char e[128];
    ck_assert_int_eq(kytos_openapi_json_parse("[[[1]]]", 7, &o, &v, e, sizeof e), 0);
    json_object_put(v);
    ck_assert_int_eq(kytos_openapi_json_parse("[[[[1]]]]", 9, &o, &v, e, sizeof e), -1);
    ck_assert_str_eq(e, "Nesting deeper than 3 levels at: line 1 column 4 (char 3)");
    ck_assert_int_eq(kytos_openapi_json_parse("\"abcde\"", 7, &o, &v, e, sizeof e), -1);
    ck_assert_str_eq(e, "String longer than 4 bytes starting at: line 1 column 1 (char 0)");
    ck_assert_int_eq(kytos_openapi_json_parse("[1,2,3,4,5]", 11, &o, &v, e, sizeof e), -1);
    ck_assert_str_eq(e, "More than 5 values at: line 1 column 10 (char 9)");
    /* default depth 64 */
    {
        char deep[200];
        memset(deep, '[', 65);
        memset(deep + 65, ']', 65);
        ck_assert_int_eq(kytos_openapi_json_parse(deep, 130, NULL, &v, e, sizeof e), -1);
        ck_assert_int_eq(kytos_openapi_json_parse(deep + 1, 128, NULL, &v, e, sizeof e), 0);
        json_object_put(v);
    }
    /* NUL bytes and no terminator: explicit length is honoured */
    ck_assert_int_eq(kytos_openapi_json_parse("1\0", 2, NULL, &v, e, sizeof e), -1);
    ck_assert_str_eq(e, "Extra data: line 1 column 2 (char 1)");
    ck_assert_int_eq(kytos_openapi_json_parse("12", 1, NULL, &v, e, sizeof e), 0);
    ck_assert_int_eq(json_object_get_int(v), 1);
    json_object_put(v);
}
END_TEST

/* Keys of any length (short ones are copied on the stack, long ones on the
 * heap), duplicates among them, and a failure right after each kind. */
START_TEST(test_key_lengths)
{
    static const size_t lens[] = {1, 126, 127, 128, 129, 300};
    char doc[2048], key[400], e[128];
    json_object *v, *x;

    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
        size_t n = lens[i];
        memset(key, 'a' + (int)(i % 26), n);
        key[n] = '\0';
        snprintf(doc, sizeof doc, "{\"%s\": 1, \"%s\\u00e9\": 2, \"%s\": 3}", key, key, key);
        ck_assert_int_eq(kytos_openapi_json_parse(doc, strlen(doc), NULL, &v, e, sizeof e), 0);
        ck_assert_int_eq(json_object_object_length(v), 2);
        ck_assert(json_object_object_get_ex(v, key, &x));
        ck_assert_int_eq(json_object_get_int(x), 3);   /* the last one wins */
        strcat(key, "\xc3\xa9");
        ck_assert(json_object_object_get_ex(v, key, &x));
        ck_assert_int_eq(json_object_get_int(x), 2);
        json_object_put(v);
        key[n] = '\0';
        snprintf(doc, sizeof doc, "{\"%s\" 1}", key);
        ck_assert_int_eq(kytos_openapi_json_parse(doc, strlen(doc), NULL, &v, e, sizeof e), -1);
        ck_assert_ptr_nonnull(strstr(e, "Expecting ':' delimiter"));
        snprintf(doc, sizeof doc, "{\"%s\": [}", key);
        ck_assert_int_eq(kytos_openapi_json_parse(doc, strlen(doc), NULL, &v, e, sizeof e), -1);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("openapi_json_strict");
    TCase *tc = tcase_create("json");
    tcase_add_test(tc, test_python_messages);
    tcase_add_test(tc, test_rejects_lax_input);
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_bignum_option);
    tcase_add_test(tc, test_strings);
    tcase_add_test(tc, test_limits);
    tcase_add_test(tc, test_key_lengths);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
