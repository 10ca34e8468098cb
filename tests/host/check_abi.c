/* tests/host/check_abi.c - the ABI's version contract through the test host:
 * a NApp declaring an older minimum loads and finds newer slots absent on an
 * older host (and its fallback runs), one needing a newer minor than the
 * host's is refused with both versions named, and the descriptor's spec
 * length is honoured. */
#include "check_tap.h"
#include <kytos/kytos.h>
#include <kytos/test.h>
#include <stdio.h>
#include <string.h>

#define PROBE NAPP_DIR "/abiprobe.so"
#define FUTURE NAPP_DIR "/abifuture.so"
#define TESTKIT NAPP_DIR "/testkit.so"

static kytos_test_host *th;

static void setup(void) { ck_assert_ptr_nonnull(th = kytos_test_host_new(NULL)); }
static void teardown(void) { kytos_test_host_free(th); }

/* GET the probe: host_minor, struct_size and has.<slot> */
static struct json_object *probe(kytos_test_resp **r)
{
    *r = kytos_test_request(th, "GET", "/api/kytos/abiprobe/v1/", NULL);
    ck_assert_ptr_nonnull(*r);
    ck_assert_uint_eq(kytos_test_resp_status(*r), 200);
    return kytos_test_resp_json(*r);
}

static int has(struct json_object *o, const char *slot)
{
    struct json_object *h = NULL, *v = NULL;
    ck_assert(json_object_object_get_ex(o, "has", &h));
    ck_assert_msg(json_object_object_get_ex(h, slot, &v), "no has.%s", slot);
    return json_object_get_boolean(v);
}

static int64_t num(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    ck_assert(json_object_object_get_ex(o, key, &v));
    return json_object_get_int64(v);
}

static const char *published_via(void)
{
    struct json_object *c = kytos_test_published(th, "kytos/abiprobe.hello", 0), *v = NULL;
    ck_assert_ptr_nonnull(c);
    ck_assert(json_object_object_get_ex(c, "via", &v));
    return json_object_get_string(v);
}

static void post_hello(void)
{
    kytos_test_resp *r = kytos_test_request(th, "POST", "/api/kytos/abiprobe/v1/", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 201);
    kytos_test_resp_free(r);
    ck_assert_int_eq(kytos_test_drain(th, 5000), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/abiprobe.hello"), 1);
}

START_TEST(older_minimum_loads_on_the_current_host)
{
    kytos_test_resp *r;
    struct json_object *o;

    ck_assert_int_eq(kytos_test_load(th, PROBE), KYTOS_OK);
    ck_assert_int_eq(kytos_test_start(th), KYTOS_OK);
    o = probe(&r);
    ck_assert_int_eq(num(o, "host_minor"), KYTOS_ABI_MINOR);
    ck_assert_int_eq(num(o, "struct_size"), (int64_t)sizeof(struct kytos_api));
    ck_assert(has(o, "resp_static"));
    ck_assert(has(o, "store_bulk_async"));
    ck_assert(has(o, "event_publish_give"));
    ck_assert(has(o, "event_wanted"));
    ck_assert(has(o, "event_take_content"));
    /* the test host records every event, so it wants every name */
    ck_assert_int_eq(num(o, "wanted"), 1);
    kytos_test_resp_free(r);
    post_hello();
    ck_assert_str_eq(published_via(), "give");
}
END_TEST

START_TEST(on_an_abi_1_0_host_newer_slots_are_absent_and_the_fallback_runs)
{
    kytos_test_resp *r;
    struct json_object *o;

    ck_assert_int_eq(kytos_test_emulate_abi_minor(th, 0), KYTOS_OK);
    ck_assert_int_eq(kytos_test_load(th, PROBE), KYTOS_OK);
    ck_assert_int_eq(kytos_test_start(th), KYTOS_OK);
    o = probe(&r);
    ck_assert_int_eq(num(o, "host_minor"), 0);
    ck_assert_int_lt(num(o, "struct_size"), (int64_t)sizeof(struct kytos_api));
    ck_assert(has(o, "resp_static"));
    ck_assert(!has(o, "store_bulk_async"));
    ck_assert(!has(o, "event_publish_give"));
    ck_assert(!has(o, "event_wanted"));
    ck_assert(!has(o, "event_take_content"));
    ck_assert_int_eq(num(o, "wanted"), 1);   /* the wrapper's answer: cannot tell */
    kytos_test_resp_free(r);
    post_hello();
    ck_assert_str_eq(published_via(), "copy");
    /* an unprobed 1.2 call from a NApp declaring 1.0: a copy is published */
    r = kytos_test_request(th, "POST", "/api/kytos/abiprobe/v1/give", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 201);
    kytos_test_resp_free(r);
    ck_assert_int_eq(kytos_test_drain(th, 5000), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/abiprobe.given"), 1);
}
END_TEST

START_TEST(on_an_abi_1_1_host_only_the_1_1_slot_is_added)
{
    kytos_test_resp *r;
    struct json_object *o;

    ck_assert_int_eq(kytos_test_emulate_abi_minor(th, 1), KYTOS_OK);
    ck_assert_int_eq(kytos_test_load(th, PROBE), KYTOS_OK);
    o = probe(&r);
    ck_assert_int_eq(num(o, "host_minor"), 1);
    ck_assert(has(o, "store_bulk_async"));
    ck_assert(!has(o, "event_publish_give"));
    ck_assert(!has(o, "event_take_content"));
    kytos_test_resp_free(r);
}
END_TEST

/* GET v1/call_give?to=<to>: the answer the probe relays {"status", "body"} */
static kytos_test_resp *call_give(const char *to, struct json_object **status, struct json_object **body)
{
    char path[128];
    kytos_test_resp *r;

    snprintf(path, sizeof path, "/api/kytos/abiprobe/v1/call_give?to=%s", to);
    r = kytos_test_request(th, "GET", path, NULL);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "status", status));
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "body", body));
    return r;
}

static const char given[] = "{\"a\":[1,{\"b\":\"c\"}]}";

/* ABI 1.6: a route that reads its body itself gets the caller's tree, and
 * its text when it asks; a route the host parses for gets the text. */
START_TEST(call_give_hands_the_tree_to_a_raw_route)
{
    struct json_object *st, *body, *want = json_tokener_parse(given), *v;
    kytos_test_resp *r;

    ck_assert_int_eq(kytos_test_load(th, PROBE), KYTOS_OK);
    ck_assert_int_eq(kytos_test_start(th), KYTOS_OK);
    r = call_give("raw", &st, &body);
    ck_assert_int_eq(json_object_get_int(st), 200);
    ck_assert(json_object_object_get_ex(body, "tree", &v) && json_object_get_boolean(v));
    ck_assert(json_object_object_get_ex(body, "body", &v) && json_object_equal(v, want));
    ck_assert(json_object_object_get_ex(body, "text", &v));
    ck_assert_str_eq(json_object_get_string(v), given);
    kytos_test_resp_free(r);

    r = call_give("echo", &st, &body);
    ck_assert_int_eq(json_object_get_int(st), 200);
    ck_assert(json_object_equal(body, want));
    kytos_test_resp_free(r);

    /* from a client the raw route has text only */
    r = kytos_test_request(th, "POST", "/api/kytos/abiprobe/v1/raw", given);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "tree", &v) &&
              !json_object_get_boolean(v));
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "text", &v));
    ck_assert_str_eq(json_object_get_string(v), given);
    kytos_test_resp_free(r);
    json_object_put(want);
}
END_TEST

/* On a 1.5 host kytos_call_give sends the text: the raw route reads it. */
START_TEST(on_an_abi_1_5_host_call_give_sends_text)
{
    struct json_object *st, *body, *v;
    kytos_test_resp *r;

    ck_assert_int_eq(kytos_test_emulate_abi_minor(th, 5), KYTOS_OK);
    ck_assert_int_eq(kytos_test_load(th, PROBE), KYTOS_OK);
    ck_assert_int_eq(kytos_test_start(th), KYTOS_OK);
    r = call_give("raw", &st, &body);
    ck_assert_int_eq(json_object_get_int(st), 200);
    ck_assert(json_object_object_get_ex(body, "tree", &v) && !json_object_get_boolean(v));
    ck_assert(json_object_object_get_ex(body, "text", &v));
    ck_assert_str_eq(json_object_get_string(v), given);
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(a_napp_needing_a_newer_minor_is_refused_naming_both_versions)
{
    char want[128];

    ck_assert_int_eq(kytos_test_load(th, FUTURE), KYTOS_EINVAL);
    ck_assert_ptr_nonnull(kytos_test_last_error(th));
    snprintf(want, sizeof want, "needs ABI %d.%d or later, newer than the host's ABI %d.%d", KYTOS_ABI_MAJOR,
             KYTOS_ABI_MINOR + 1, KYTOS_ABI_MAJOR, KYTOS_ABI_MINOR);
    ck_assert_msg(strstr(kytos_test_last_error(th), want), "'%s' lacks '%s'",
                  kytos_test_last_error(th), want);
    kytos_test_resp *r = kytos_test_request(th, "GET", "/api/kytos/abifuture/v1/", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 404);
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(a_napp_with_the_default_minimum_is_refused_by_an_older_host)
{
    char want[128];

    /* testkit declares nothing: its minimum is its headers' minor */
    ck_assert_int_eq(kytos_test_emulate_abi_minor(th, 1), KYTOS_OK);
    ck_assert_int_eq(kytos_test_load(th, TESTKIT), KYTOS_EINVAL);
    snprintf(want, sizeof want, "needs ABI %d.%d or later, newer than the host's ABI %d.1", KYTOS_ABI_MAJOR,
             KYTOS_ABI_MINOR, KYTOS_ABI_MAJOR);
    ck_assert_msg(strstr(kytos_test_last_error(th), want), "'%s' lacks '%s'",
                  kytos_test_last_error(th), want);
    /* back to the current ABI: it loads */
    ck_assert_int_eq(kytos_test_emulate_abi_minor(th, KYTOS_ABI_MINOR), KYTOS_OK);
    ck_assert_int_eq(kytos_test_load(th, TESTKIT), KYTOS_OK);
}
END_TEST

START_TEST(no_emulating_a_future_minor)
{
    ck_assert_int_eq(kytos_test_emulate_abi_minor(th, KYTOS_ABI_MINOR + 1), KYTOS_EINVAL);
    ck_assert_int_eq(kytos_test_load(th, PROBE), KYTOS_OK);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("abi");
    TCase *tc = tcase_create("versions");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, older_minimum_loads_on_the_current_host);
    tcase_add_test(tc, on_an_abi_1_0_host_newer_slots_are_absent_and_the_fallback_runs);
    tcase_add_test(tc, on_an_abi_1_1_host_only_the_1_1_slot_is_added);
    tcase_add_test(tc, call_give_hands_the_tree_to_a_raw_route);
    tcase_add_test(tc, on_an_abi_1_5_host_call_give_sends_text);
    tcase_add_test(tc, a_napp_needing_a_newer_minor_is_refused_naming_both_versions);
    tcase_add_test(tc, a_napp_with_the_default_minimum_is_refused_by_an_older_host);
    tcase_add_test(tc, no_emulating_a_future_minor);
    suite_add_tcase(s, tc);
    return kytos_check_run(s);
}
