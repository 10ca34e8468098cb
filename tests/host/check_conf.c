/* tests/host/check_conf.c - kytos.conf (host/util/conf.c): Kytos' INI layout,
 * JSON values, continuation lines, secrets hidden, NApp sections, errors
 * naming the line. */
#include "check_tap.h"
#include "host/util/conf.h"
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
    ck_assert_str_eq(kh_config_str(c, "listen", ""), "127.0.0.1");
    ck_assert_int_eq(kh_config_int(c, "api_port", 0), 8282);
    ck_assert_int_eq(kh_config_bool(c, "debug", 1), 0);
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

int main(void)
{
    Suite *s = suite_create("conf");

    kytos_check_add(s, "conf_reads_kytos_ini", conf_reads_kytos_ini);
    return kytos_check_run(s);
}
