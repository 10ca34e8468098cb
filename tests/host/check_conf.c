/* tests/host/check_conf.c - kytos.conf (host/util/conf.c): Kytos' INI layout,
 * JSON values, continuation lines, secrets hidden, NApp sections, errors
 * naming the line. */
#include "check_tap.h"
#include "host/util/conf.h"
#include <stdio.h>
#include <string.h>

START_TEST(conf_reads_kytos_ini)
{
    kh_config *c = kh_config_new();
    char err[200];
    const char *text =
        "# comment\n[daemon]\nlisten = 127.0.0.1\napi_port = 8282\ndebug = False\n"
        "thread_pool_max_workers = {\"sb\": 4,\n"
        "    \"app\": 8}\n"
        "jwt_secret = s3cret\nmy_own_key = [1, 2]\n\n[kytos/simnet]\nswitches = 5\nshape = ring\n";
    struct json_object *pub, *v;
    ck_assert_int_eq(kh_config_load_text(c, text, "test.conf", err, sizeof err), 0);
    ck_assert_str_eq(kh_config_str(c, "listen"), "127.0.0.1");
    ck_assert_int_eq(kh_config_int(c, "api_port"), 8282);
    ck_assert_int_eq(kh_config_bool(c, "debug"), 0);
    ck_assert_int_eq(kh_config_check(c, err, sizeof err), 0);
    v = json_object_object_get(kh_config_get(c, "thread_pool_max_workers"), "app");
    ck_assert_int_eq(json_object_get_int(v), 8);
    ck_assert_int_eq(json_object_array_length(kh_config_get(c, "my_own_key")), 2);
    pub = kh_config_public(c);
    ck_assert(!json_object_object_get_ex(pub, "jwt_secret", NULL));
    ck_assert(json_object_object_get_ex(pub, "my_own_key", NULL));
    json_object_put(pub);
    v = kh_config_napp_settings(c, "kytos/simnet");
    ck_assert_int_eq(json_object_get_int(json_object_object_get(v, "switches")), 5);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(v, "shape")), "ring");
    ck_assert_int_eq(json_object_object_length(kh_config_napp_settings(c, "kytos/none")), 0);
    ck_assert_int_ne(kh_config_load_text(c, "[daemon]\nno equals sign\n", "bad.conf", err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "bad.conf:2"));
    ck_assert_int_ne(kh_config_load_text(c, "key = 1\n", "bad2.conf", err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "outside of a [section]"));
    kh_config_free(c);
}
END_TEST

/* Values are checked against host/util/conf_keys.c: type and bounds, with
 * a message naming the key; null and absent values read as the table's
 * default. */
START_TEST(conf_checks_types_and_bounds)
{
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"api_port = 70000", "api_port: 70000 is out of range 0..65535"},
        {"api_ipv6_client_prefix = 0", "api_ipv6_client_prefix: 0 is out of range 1..128"},
        {"api_reclaim_idle_ms = -2", "api_reclaim_idle_ms: -2 is out of range -1..86400000"},
        {"api_max_body = \"big\"", "api_max_body: expected an integer in 1..1073741824, got \"big\""},
        {"api_json_500 = maybe", "api_json_500: expected true or false, got \"maybe\""},
        {"api_poller = select", "api_poller: expected one of poll|epoll, got \"select\""},
        {"store_sync = 1", "store_sync: expected one of normal|full, got 1"},
        {"api_concurrency_limit = \"pool\"", "api_concurrency_limit: expected an integer in 0..1048576 or threadpool"},
        {"log_levels = [1]", "log_levels: expected a JSON object, got [1]"},
        {"dead_letter_max_per_name = 0", "dead_letter_max_per_name: 0 is out of range 1..10000000"},
    };
    char err[200], text[200];
    size_t i;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kh_config *c = kh_config_new();
        snprintf(text, sizeof text, "[daemon]\n%s\n", bad[i].text);
        ck_assert_int_eq(kh_config_load_text(c, text, "t.conf", err, sizeof err), 0);
        err[0] = '\0';
        ck_assert_int_eq(kh_config_check(c, err, sizeof err), -1);
        ck_assert_msg(strncmp(err, bad[i].msg, strlen(bad[i].msg)) == 0, "%s: got '%s'", bad[i].text, err);
        kh_config_free(c);
    }
    {
        kh_config *c = kh_config_new();
        const char *ok = "[daemon]\napi_port = 0\napi_json_500 = on\napi_poller = EPOLL\n"
                         "api_concurrency_limit = 8\nlog_level = debug\nnapps = None\n"
                         "api_max_body = 4096.0\nmy_key = 1\n";
        ck_assert_int_eq(kh_config_load_text(c, ok, "ok.conf", err, sizeof err), 0);
        ck_assert_int_eq(kh_config_check(c, err, sizeof err), 0);
        ck_assert_int_eq(kh_config_int(c, "api_port"), 0);
        ck_assert_int_eq(kh_config_bool(c, "api_json_500"), 1);
        ck_assert_int_eq(kh_config_int(c, "api_max_body"), 4096);
        ck_assert_int_eq(kh_config_int(c, "api_handler_timeout_ms"), 30000);   /* the default */
        ck_assert_str_eq(kh_config_str(c, "napps"), KYTOS_PKGLIBDIR "/napps"); /* null: the default */
        kh_config_free(c);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("conf");

    kytos_check_add(s, "conf_reads_kytos_ini", conf_reads_kytos_ini);
    kytos_check_add(s, "conf_checks_types_and_bounds", conf_checks_types_and_bounds);
    return kytos_check_run(s);
}
