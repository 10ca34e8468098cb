/* tests/host/check_client_group.c - how clients are counted and named
 * (host/http/client_group.c): IPv6 by prefix, IPv4-mapped as IPv4. */
#include "check_tap.h"
#include "host/addr.h"
#include "host/http/client_group.h"
#include "host/http/connlimit.h"

/* IPv6 clients count by their prefix (a host picks any address of its
 * /64), an IPv4-mapped one as its IPv4 address; 128 counts each address. */
START_TEST(per_client_limits_group_ipv6_by_prefix)
{
    struct kh_connlimit *cl = kh_connlimit_new(100, 2, 64);
    struct sockaddr_in6 a = v6("2001:db8:1:2::1"), b = v6("2001:db8:1:2:ffff::9"),
                        c = v6("2001:db8:1:3::1"), mapped = v6("::ffff:10.0.0.1");
    struct sockaddr_in four = v4("10.0.0.1", 80);
    char out[KH_CLIENT_TEXT_LEN];

    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&b), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a), KH_CONN_PER_IP);   /* same /64 */
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&c), KH_CONN_OK);      /* another */
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&four), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&mapped), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&four), KH_CONN_PER_IP); /* mapped = v4 */
    kh_connlimit_put(cl, (struct sockaddr *)&b);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a), KH_CONN_OK);
    kh_connlimit_free(cl);
    cl = kh_connlimit_new(100, 1, 128);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&b), KH_CONN_OK);      /* exact */
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a), KH_CONN_PER_IP);
    kh_connlimit_free(cl);

    kh_client_group_text("2001:db8:1:2:3:4:5:6", 64, out, sizeof out);
    ck_assert_str_eq(out, "2001:db8:1:2::/64");
    kh_client_group_text("2001:db8:1:2:3:4:5:6", 52, out, sizeof out);
    ck_assert_str_eq(out, "2001:db8:1::/52");
    kh_client_group_text("2001:db8:1:2:3:4:5:6", 128, out, sizeof out);
    ck_assert_str_eq(out, "2001:db8:1:2:3:4:5:6");
    kh_client_group_text("::ffff:10.0.0.1", 64, out, sizeof out);
    ck_assert_str_eq(out, "10.0.0.1");
    kh_client_group_text("10.0.0.1", 64, out, sizeof out);
    ck_assert_str_eq(out, "10.0.0.1");
    ck_assert_uint_eq(kh_client_prefix(0), 64);
    ck_assert_uint_eq(kh_client_prefix(129), 64);
    ck_assert_uint_eq(kh_client_prefix(128), 128);
    ck_assert_uint_eq(kh_client_prefix(48), 48);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("client_group");

    kytos_check_add(s, "per_client_limits_group_ipv6_by_prefix", per_client_limits_group_ipv6_by_prefix);
    return kytos_check_run(s);
}
