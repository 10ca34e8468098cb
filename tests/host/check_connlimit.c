/* tests/host/check_connlimit.c - connection counts per client address and in
 * total (host/http/connlimit.c). */
#include "check_tap.h"
#include "host/addr.h"
#include "host/http/connlimit.h"

/* Per address (the port does not count), then in total; a put makes room. */
START_TEST(connection_limits_count_per_address_and_in_total)
{
    struct kh_connlimit *cl = kh_connlimit_new(5, 2, 64);
    struct sockaddr_in a1 = v4("10.0.0.1", 1000), a2 = v4("10.0.0.1", 2000), b = v4("10.0.0.2", 1);
    struct sockaddr_in6 c = {.sin6_family = AF_INET6};

    inet_pton(AF_INET6, "::1", &c.sin6_addr);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a1), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a2), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a1), KH_CONN_PER_IP);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&b), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&c), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&c), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&b), KH_CONN_TOTAL);   /* 5 open */
    kh_connlimit_put(cl, (struct sockaddr *)&a2);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a1), KH_CONN_OK);     /* room again */
    kh_connlimit_put(cl, (struct sockaddr *)&c);
    kh_connlimit_put(cl, (struct sockaddr *)&c);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&c), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&c), KH_CONN_OK);       /* 5 open */
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a2), KH_CONN_TOTAL);
    kh_connlimit_free(cl);   /* with entries left: freed too (LeakSanitizer) */
    cl = kh_connlimit_new(0, 0, 64);   /* no limits */
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&b), KH_CONN_OK);
    kh_connlimit_free(cl);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("connlimit");

    kytos_check_add(s, "connection_limits_count_per_address_and_in_total", connection_limits_count_per_address_and_in_total);
    return kytos_check_run(s);
}
