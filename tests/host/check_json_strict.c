/* tests/host/check_json_strict.c - strict JSON for request bodies
 * (host/http/json_strict.c): exact uint64, Python's messages, no NaN or
 * single quotes. */
#include "check_tap.h"
#include "host/http/request.h"
#include <stdint.h>

START_TEST(strict_json_messages)
{
    char err[200];
    struct json_object *o = NULL;
    ck_assert_int_eq(kh_json_parse_strict("18446744073709551615", 20, &o, err, sizeof err), 0);
    ck_assert_uint_eq(json_object_get_uint64(o), UINT64_MAX);
    json_object_put(o);
    ck_assert_int_eq(kh_json_parse_strict("null", 4, &o, err, sizeof err), 0);
    ck_assert_ptr_null(o);
    ck_assert_int_ne(kh_json_parse_strict("", 0, &o, err, sizeof err), 0);
    ck_assert_str_eq(err, "Expecting value: line 1 column 1 (char 0)");
    ck_assert_int_ne(kh_json_parse_strict("{} x", 4, &o, err, sizeof err), 0);
    ck_assert_str_eq(err, "Extra data: line 1 column 4 (char 3)");
    ck_assert_int_ne(kh_json_parse_strict("{'a': 1}", 8, &o, err, sizeof err), 0);
    ck_assert_int_ne(kh_json_parse_strict("[NaN]", 5, &o, err, sizeof err), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json_strict");

    kytos_check_add(s, "strict_json_messages", strict_json_messages);
    return kytos_check_run(s);
}
