/* tests/napps/test_hello.c - the template NApp through the in-process test
 * host: routes, path parameters, 404/405, the store, events. */
#include "check_tap.h"
#include <kytos/kytos.h>
#include <kytos/test.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SO NAPP_DIR "/hello.so"

static kytos_test_host *th;

static void setup(void)
{
    th = kytos_test_host_new(NULL);
    ck_assert_ptr_nonnull(th);
    ck_assert_int_eq(kytos_test_load(th, SO), 0);
    ck_assert_int_eq(kytos_test_start(th), 0);
}

static void teardown(void)
{
    kytos_test_host_free(th);
}

static const char *str_field(kytos_test_resp *r, const char *key)
{
    struct json_object *j = kytos_test_resp_json(r), *v = NULL;
    if (!j || !json_object_object_get_ex(j, key, &v))
        return NULL;
    return json_object_get_string(v);
}

START_TEST(root_answers_both_slash_forms)
{
    const char *paths[] = {"/api/kytos/hello/v1/", "/api/kytos/hello/v1"};
    size_t i;
    for (i = 0; i < 2; i++) {
        kytos_test_resp *r = kytos_test_request(th, "GET", paths[i], NULL);
        ck_assert_ptr_nonnull(r);
        ck_assert_uint_eq(kytos_test_resp_status(r), 200);
        ck_assert_str_eq(str_field(r, "greeting"), "hello");
        ck_assert_str_eq(kytos_test_resp_header(r, "Content-Type"), "application/json");
        kytos_test_resp_free(r);
    }
}
END_TEST

START_TEST(path_param_is_decoded)
{
    kytos_test_resp *r = kytos_test_request(th, "GET", "/api/kytos/hello/v1/a%20b%3Ac", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert_str_eq(str_field(r, "greeting"), "hello, a b:c");
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(unknown_path_is_404_json)
{
    kytos_test_resp *r = kytos_test_request(th, "GET", "/api/kytos/hello/v2/", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 404);
    ck_assert_str_eq(str_field(r, "description"), "Not Found");
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(wrong_method_is_405_with_allow)
{
    kytos_test_resp *r = kytos_test_request(th, "DELETE", "/api/kytos/hello/v1/", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 405);
    ck_assert_str_eq(str_field(r, "description"), "Method Not Allowed");
    ck_assert_ptr_nonnull(strstr(kytos_test_resp_header(r, "Allow"), "POST"));
    ck_assert_ptr_nonnull(strstr(kytos_test_resp_header(r, "Allow"), "GET"));
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(post_stores_and_publishes)
{
    kytos_test_resp *r = kytos_test_request(th, "POST", "/api/kytos/hello/v1/", "{\"name\":\"ana\"}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 201);
    ck_assert_str_eq(str_field(r, "stored"), "ana");
    kytos_test_resp_free(r);
    ck_assert_int_eq(kytos_test_drain(th, 5000), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/hello.stored"), 1);
    r = kytos_test_request(th, "GET", "/api/kytos/hello/v1/ana", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_get_boolean(json_object_object_get(kytos_test_resp_json(r), "stored")));
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(malformed_json_is_400)
{
    kytos_test_resp *r = kytos_test_request(th, "POST", "/api/kytos/hello/v1/", "{\"name\":");
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_ptr_nonnull(strstr(str_field(r, "description"), "Invalid json") ?
                          strstr(str_field(r, "description"), "Invalid json") :
                          strstr(str_field(r, "description"), "invalid API data"));
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(openapi_checks_the_body_before_the_handler)
{
    kytos_test_resp *r = kytos_test_request(th, "POST", "/api/kytos/hello/v1/", "{\"name\": 5}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_str_eq(str_field(r, "description"),
                     "The request body contains invalid API data., 5 is not of type 'string' for field name.");
    kytos_test_resp_free(r);
    r = kytos_test_request(th, "POST", "/api/kytos/hello/v1/", "{\"name\": \"a\", \"x\": 1}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_ptr_nonnull(strstr(str_field(r, "description"),
                                 "Additional properties are not allowed ('x' was unexpected)"));
    kytos_test_resp_free(r);
    r = kytos_test_request(th, "POST", "/api/kytos/hello/v1/", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_str_eq(str_field(r, "description"), "Missing required request body");
    kytos_test_resp_free(r);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/hello.stored"), 0);
}
END_TEST

START_TEST(wrong_content_type_is_415)
{
    static const char *const h[] = {"Content-Type: text/plain", NULL};
    kytos_test_resp *r = kytos_test_request_h(th, "POST", "/api/kytos/hello/v1/", "{\"name\":\"x\"}", h);
    ck_assert_uint_eq(kytos_test_resp_status(r), 415);
    ck_assert_str_eq(str_field(r, "description"), "Expected Content-Type: application/json, got: text/plain");
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(core_status_lists_the_napp)
{
    kytos_test_resp *r = kytos_test_request(th, "GET", "/api/kytos/core/status/", NULL);
    struct json_object *napps, *hello, *state;
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "napps", &napps));
    ck_assert(json_object_object_get_ex(napps, "kytos/hello", &hello));
    ck_assert(json_object_object_get_ex(hello, "state", &state));
    ck_assert_str_eq(json_object_get_string(state), "enabled");
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(loading_twice_is_refused)
{
    /* the same file again is a reload (replace), which works */
    ck_assert_int_eq(kytos_test_load(th, SO), 0);
    kytos_test_resp *r = kytos_test_request(th, "GET", "/api/kytos/hello/v1/", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    kytos_test_resp_free(r);
}
END_TEST

/* A test host that never started had nothing running: freeing it says
 * nothing of events "dropped" (what was published before start is not
 * delivered, and no kytos/core.shutdown is published). */
START_TEST(never_started_host_frees_quietly)
{
    kytos_test_host *h = kytos_test_host_new(NULL);
    char text[8192];
    size_t n;
    FILE *cap = tmpfile();
    int saved = dup(2);

    ck_assert_ptr_nonnull(h);
    ck_assert_ptr_nonnull(cap);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_eq(kytos_test_load(h, SO), 0);
    ck_assert_int_eq(kytos_test_publish(h, "kytos/test.before_start", "{}"), 0);
    fflush(stderr);
    ck_assert_int_ge(dup2(fileno(cap), 2), 0);
    kytos_test_host_free(h);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(cap);
    n = fread(text, 1, sizeof text - 1, cap);
    text[n] = '\0';
    fclose(cap);
    ck_assert_msg(strstr(text, "dropped") == NULL, "logged: %s", text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("napp_hello");
    TCase *tc = tcase_create("hello");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, root_answers_both_slash_forms);
    tcase_add_test(tc, path_param_is_decoded);
    tcase_add_test(tc, unknown_path_is_404_json);
    tcase_add_test(tc, wrong_method_is_405_with_allow);
    tcase_add_test(tc, post_stores_and_publishes);
    tcase_add_test(tc, malformed_json_is_400);
    tcase_add_test(tc, wrong_content_type_is_415);
    tcase_add_test(tc, openapi_checks_the_body_before_the_handler);
    tcase_add_test(tc, core_status_lists_the_napp);
    tcase_add_test(tc, loading_twice_is_refused);
    suite_add_tcase(s, tc);
    tc = tcase_create("lifecycle");
    tcase_add_test(tc, never_started_host_frees_quietly);
    suite_add_tcase(s, tc);
    return kytos_check_run(s);
}
