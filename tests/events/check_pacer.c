/* tests/events/check_pacer.c - Kytos' Pacer: rate syntax, fixed windows per
 * (NApp, action, key), blocking and non-blocking hits, bounds. */
#include "check_tap.h"
#include "fake_napp.h"
#include "host/events/event_util.h"
#include "host/events/pacer.h"
#include <pthread.h>
#include <string.h>

#define SEC INT64_C(1000000)

START_TEST(rate_syntax)
{
    char err[256];
    int64_t w;
    long n;

    ck_assert_int_eq(kh_pace_parse("10/second", &n, &w, err, sizeof err), 0);
    ck_assert(n == 10 && w == SEC);
    ck_assert_int_eq(kh_pace_parse("1000/minute", &n, &w, err, sizeof err), 0);
    ck_assert(n == 1000 && w == 60 * SEC);
    ck_assert_int_eq(kh_pace_parse("5 per hour", &n, &w, err, sizeof err), 0);
    ck_assert(n == 5 && w == 3600 * SEC);
    ck_assert_int_eq(kh_pace_parse("3/2 seconds", &n, &w, err, sizeof err), 0);
    ck_assert(n == 3 && w == 2 * SEC);
    ck_assert_int_eq(kh_pace_parse("7/day", &n, &w, err, sizeof err), 0);
    ck_assert(n == 7 && w == 86400 * SEC);
    ck_assert_int_eq(kh_pace_parse(" 2 / 10minutes ", &n, &w, err, sizeof err), 0);
    ck_assert(n == 2 && w == 600 * SEC);
    ck_assert_int_eq(kh_pace_parse("", &n, &w, err, sizeof err), KYTOS_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "N/second"));
    ck_assert_int_eq(kh_pace_parse(NULL, &n, &w, err, sizeof err), KYTOS_EINVAL);
    ck_assert_int_eq(kh_pace_parse("x/second", &n, &w, err, sizeof err), KYTOS_EINVAL);
    ck_assert_int_eq(kh_pace_parse("0/second", &n, &w, err, sizeof err), KYTOS_EINVAL);
    ck_assert_int_eq(kh_pace_parse("-1/second", &n, &w, err, sizeof err), KYTOS_EINVAL);
    ck_assert_int_eq(kh_pace_parse("10/fortnight", &n, &w, err, sizeof err), KYTOS_EINVAL);
    ck_assert_int_eq(kh_pace_parse("10/second!", &n, &w, err, sizeof err), KYTOS_EINVAL);
    ck_assert_int_eq(kh_pace_parse("99999999999/second", &n, &w, err, sizeof err), KYTOS_EINVAL);
}
END_TEST

START_TEST(fixed_window)
{
    kh_pacer *p = kh_pacer_new(0);
    int64_t t0 = 1000 * SEC, wait;
    char err[256];
    int i;

    for (i = 0; i < 3; i++)
        ck_assert_int_eq(kh_pacer_try(p, "u/n", "send", NULL, "3/second", t0 + i, &wait, err,
                                      sizeof err), 0);
    ck_assert_int_eq(kh_pacer_try(p, "u/n", "send", NULL, "3/second", t0 + 10, &wait, err,
                                  sizeof err), KYTOS_EFULL);
    ck_assert_int_eq(wait, SEC - 10);
    ck_assert_int_eq(kh_pacer_try(p, "u/n", "send", NULL, "3/second", t0 + SEC - 1, &wait, err,
                                  sizeof err), KYTOS_EFULL);
    ck_assert_int_eq(wait, 1);
    /* the window started at the first hit; the next opens at t0 + 1 s */
    ck_assert_int_eq(kh_pacer_try(p, "u/n", "send", NULL, "3/second", t0 + SEC, &wait, err,
                                  sizeof err), 0);
    kh_pacer_free(p);
}
END_TEST

START_TEST(windows_per_napp_action_key)
{
    kh_pacer *p = kh_pacer_new(0);
    int64_t t = 5 * SEC, wait;
    char err[256];

    ck_assert_int_eq(kh_pacer_try(p, "u/a", "flow", "dpid1", "1/minute", t, &wait, err, 256), 0);
    ck_assert_int_eq(kh_pacer_try(p, "u/a", "flow", "dpid1", "1/minute", t, &wait, err, 256), KYTOS_EFULL);
    ck_assert_int_eq(kh_pacer_try(p, "u/a", "flow", "dpid2", "1/minute", t, &wait, err, 256), 0);
    ck_assert_int_eq(kh_pacer_try(p, "u/a", "other", "dpid1", "1/minute", t, &wait, err, 256), 0);
    ck_assert_int_eq(kh_pacer_try(p, "u/b", "flow", "dpid1", "1/minute", t, &wait, err, 256), 0);
    ck_assert_int_eq(kh_pacer_try(p, "u/b", "", NULL, "1/minute", t, &wait, err, 256), KYTOS_EINVAL);
    ck_assert_int_eq(kh_pacer_try(p, "u/b", NULL, NULL, "1/minute", t, &wait, err, 256), KYTOS_EINVAL);
    kh_pacer_free(p);
}
END_TEST

START_TEST(bounded_keys)
{
    kh_pacer *p = kh_pacer_new(2);
    int64_t t = 5 * SEC, wait;
    char err[256];

    ck_assert_int_eq(kh_pacer_try(p, "u/a", "x", "1", "1/second", t, &wait, err, 256), 0);
    ck_assert_int_eq(kh_pacer_try(p, "u/a", "x", "2", "1/second", t, &wait, err, 256), 0);
    ck_assert_int_eq(kh_pacer_try(p, "u/a", "x", "3", "1/second", t, &wait, err, 256), KYTOS_ETOOBIG);
    /* once the windows expired they are swept */
    ck_assert_int_eq(kh_pacer_try(p, "u/a", "x", "3", "1/second", t + SEC, &wait, err, 256), 0);
    kh_pacer_free(p);
}
END_TEST

START_TEST(blocking_hit_waits_for_the_window)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a;
    int64_t t0;

    fake_napp_init(&a, "test/a");
    ck_assert_int_eq(kh_bus_pace(b, FAKE(&a), "send", NULL, "2/second", 0), 0);
    t0 = kh_mono_us();
    ck_assert_int_eq(kh_bus_pace(b, FAKE(&a), "send", NULL, "2/second", 0), 0);
    ck_assert_int_eq(kh_bus_pace(b, FAKE(&a), "send", NULL, "2/second", KYTOS_PACE_NOWAIT),
                     KYTOS_EFULL);
    ck_assert_int_lt(kh_mono_us() - t0, SEC / 2); /* NOWAIT did not sleep */
    ck_assert_int_eq(kh_bus_pace(b, FAKE(&a), "send", NULL, "2/second", 0), 0); /* sleeps */
    ck_assert_int_ge(kh_mono_us() - t0, SEC / 2);
    ck_assert_int_eq(kh_bus_pace(b, FAKE(&a), "send", NULL, "bogus", 0), KYTOS_EINVAL);
    kh_bus_free(b);
}
END_TEST

struct hit_arg {
    kh_pacer *p;
    int rc;
};

static void *hit_blocking(void *arg)
{
    struct hit_arg *h = arg;
    char err[64];
    h->rc = kh_pacer_hit(h->p, "u/a", "x", NULL, "1/hour", 0, err, sizeof err);
    return NULL;
}

START_TEST(shutdown_wakes_sleepers)
{
    kh_pacer *p = kh_pacer_new(0);
    struct hit_arg h = {p, -99};
    char err[64];
    pthread_t t;

    ck_assert_int_eq(kh_pacer_hit(p, "u/a", "x", NULL, "1/hour", 0, err, sizeof err), 0);
    pthread_create(&t, NULL, hit_blocking, &h); /* would sleep an hour */
    kh_pacer_shutdown(p);
    pthread_join(t, NULL);
    ck_assert_int_eq(h.rc, KYTOS_EUNAVAIL);
    kh_pacer_free(p);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pacer");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, rate_syntax);
    tcase_add_test(tc, fixed_window);
    tcase_add_test(tc, windows_per_napp_action_key);
    tcase_add_test(tc, bounded_keys);
    tcase_add_test(tc, blocking_hit_waits_for_the_window);
    tcase_add_test(tc, shutdown_wakes_sleepers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return kytos_check_run(suite()); }
