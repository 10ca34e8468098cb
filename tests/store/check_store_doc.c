/* tests/store/check_store_doc.c - unit tests of the document helpers:
 * paths, exact number order, updates, filters, projections. */
#include <stdint.h>
#include <string.h>
#include "check_tap.h"
#include "host/store_doc.h"
#include "host/store_filter.h"

static struct json_object *J(const char *t)
{
    struct json_object *o = json_tokener_parse(t);
    ck_assert_msg(o != NULL, "bad JSON %s", t);
    return o;
}

START_TEST(paths)
{
    struct kh_path p;
    struct kytos_error e = {0};
    char lit[128];
    size_t idx;
    static const char *const bad[] = {"", ".a", "a.", "a..b", "$a", "a.$", "a\"b", "a\nb", NULL};

    ck_assert_int_eq(kh_path_parse(&p, "flow.match.in_port", "t", &e), 0);
    ck_assert_int_eq(p.n, 3);
    ck_assert_str_eq(p.seg[2], "in_port");
    for (int k = 0; bad[k]; k++) {
        ck_assert_int_eq(kh_path_parse(&p, bad[k], "t", &e), KYTOS_EFILTER);
        ck_assert(e.message[0]);
    }
    ck_assert_int_eq(kh_path_parse(&p, "it's.x y", "t", &e), 0);
    ck_assert_int_eq(kh_path_sql_literal(&p, lit, sizeof(lit)), 0);
    ck_assert_str_eq(lit, "'$.\"it''s\".\"x y\"'");
    ck_assert_int_eq(kh_path_sql_literal(&p, lit, 8), -1);
    ck_assert(kh_seg_index("0", &idx) && idx == 0);
    ck_assert(kh_seg_index("12", &idx) && idx == 12);
    ck_assert(!kh_seg_index("01", &idx));
    ck_assert(!kh_seg_index("-1", &idx));
    ck_assert(!kh_seg_index("1a", &idx));
    ck_assert(!kh_seg_index("99999999999999999999", &idx));
    {
        char long_path[600];
        memset(long_path, 'a', sizeof(long_path));
        long_path[599] = '\0';
        ck_assert_int_eq(kh_path_parse(&p, long_path, "t", &e), KYTOS_EFILTER);
        for (int k = 0; k < 40; k++) {
            long_path[2 * k] = 'a';
            long_path[2 * k + 1] = '.';
        }
        long_path[80] = 'z';
        long_path[81] = '\0';
        ck_assert_int_eq(kh_path_parse(&p, long_path, "t", &e), KYTOS_EFILTER);
    }
}
END_TEST

START_TEST(numbers)
{
    struct json_object *a = json_object_new_uint64(UINT64_MAX), *b = json_object_new_double(18446744073709551616.0);
    struct json_object *c = json_object_new_uint64(9223372036854775809u), *d = json_object_new_int64(INT64_MAX);
    struct json_object *e = json_object_new_double(9223372036854775808.0), *f = json_object_new_int64(-3);
    struct json_object *g = json_object_new_double(-2.5), *h = json_object_new_double(-3.0);

    ck_assert_int_lt(kh_json_cmp(a, b), 0);
    ck_assert_int_gt(kh_json_cmp(c, e), 0);
    ck_assert_int_lt(kh_json_cmp(d, e), 0);
    ck_assert_int_lt(kh_json_cmp(d, c), 0);
    ck_assert_int_lt(kh_json_cmp(f, g), 0);
    ck_assert_int_eq(kh_json_cmp(f, h), 0);
    ck_assert(kh_json_equal(f, h));
    {
        struct json_object *no = json_object_new_boolean(0);
        ck_assert_int_gt(kh_json_cmp(no, a), 0); /* booleans sort after numbers */
        json_object_put(no);
    }
    json_object_put(a); json_object_put(b); json_object_put(c); json_object_put(d);
    json_object_put(e); json_object_put(f); json_object_put(g); json_object_put(h);
}
END_TEST

START_TEST(filters)
{
    struct kh_filter *f = NULL;
    struct kytos_error e = {0};
    struct json_object *doc = J("{\"a\": [{\"b\": 1}, {\"b\": [2, 3]}], \"c\": {\"d\": null}, \"n\": 5}");
    struct json_object *spec;
    static const struct { const char *filter; int match; } cases[] = {
        {"{\"a.b\": 1}", 1}, {"{\"a.b\": 3}", 1}, {"{\"a.b\": 4}", 0}, {"{\"a.1.b\": 2}", 1},
        {"{\"a.0.b\": 2}", 0}, {"{\"c.d\": null}", 1}, {"{\"c.e\": null}", 1}, {"{\"c.d\": {\"$exists\": true}}", 1},
        {"{\"c.e\": {\"$exists\": true}}", 0}, {"{\"n\": {\"$gt\": 4.5, \"$lt\": 5.5}}", 1},
        {"{\"n\": {\"$nin\": [1, 5]}}", 0}, {"{\"$or\": [{\"n\": 1}, {\"a.b\": 2}]}", 1},
        {"{\"$or\": [{\"n\": 1}, {\"a.b\": 9}]}", 0}, {"{\"a.b\": {\"$gte\": 3}}", 1},
        {"{\"a.b\": {\"$gt\": 3}}", 0}, {"{\"n\": {\"$ne\": null}}", 1},
    };

    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        spec = J(cases[k].filter);
        ck_assert_msg(kh_filter_compile(spec, &f, &e) == 0, "%s: %s", cases[k].filter, e.message);
        ck_assert_msg(kh_filter_match(f, doc) == cases[k].match, "%s", cases[k].filter);
        kh_filter_free(f);
        json_object_put(spec);
    }
    ck_assert_int_eq(kh_filter_compile(NULL, &f, &e), 0);
    ck_assert_ptr_null(f);
    ck_assert(kh_filter_match(NULL, doc));
    json_object_put(doc);
}
END_TEST

START_TEST(updates)
{
    struct kytos_error e = {0};
    struct json_object *doc = J("{\"_id\": \"x\", \"a\": [1], \"s\": 1}");
    struct json_object *u = J("{\"$set\": {\"a.3\": 4, \"o.p.q\": true}, \"$unset\": {\"s\": 1, \"zz.y\": 1}}");

    ck_assert_int_eq(kh_update_check(u, &e), 0);
    ck_assert_int_eq(kh_update_apply(doc, u, 0, &e), 0);
    ck_assert_str_eq(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN),
                     "{\"_id\":\"x\",\"a\":[1,null,null,4],\"o\":{\"p\":{\"q\":true}}}");
    json_object_put(u);
    u = J("{\"$set\": {\"a.100001\": 1}}");
    ck_assert_int_eq(kh_update_check(u, &e), 0);
    ck_assert_int_eq(kh_update_apply(doc, u, 0, &e), KYTOS_EFILTER);
    json_object_put(u);
    u = J("{\"$unset\": {\"a.0\": 1}}");
    ck_assert_int_eq(kh_update_apply(doc, u, 0, &e), 0);
    ck_assert_str_eq(json_object_to_json_string_ext(json_object_object_get(doc, "a"), JSON_C_TO_STRING_PLAIN),
                     "[null,null,null,4]");
    json_object_put(u);
    json_object_put(doc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("store_doc");
    TCase *tc = tcase_create("doc");

    tcase_add_test(tc, paths);
    tcase_add_test(tc, numbers);
    tcase_add_test(tc, filters);
    tcase_add_test(tc, updates);
    suite_add_tcase(s, tc);
    return kytos_check_run(s);
}
