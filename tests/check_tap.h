/* tests/check_tap.h - run a Check suite and report every test as a TAP line
 * (the automake tap driver counts them).  Tests fork (Check's default), so a
 * crash fails one test, not the suite. */
#ifndef KYTOS_TESTS_CHECK_TAP_H
#define KYTOS_TESTS_CHECK_TAP_H

#include <check.h>
#include <stdlib.h>

/* Add one test as a test case of its own, named after it, so that
 * CK_RUN_CASE=name runs that test alone (tests/README.md). */
static inline void kytos_check_add(Suite *s, const char *name, const TTest *test)
{
    TCase *tc = tcase_create(name);

    tcase_add_test(tc, test);
    suite_add_tcase(s, tc);
}

/* A test case of s (setup and teardown, when given, run in each test's
 * own process), with a timeout in seconds; CK_RUN_CASE=name runs it alone. */
static inline TCase *kytos_check_case(Suite *s, const char *name, SFun setup, SFun teardown,
                                      double timeout)
{
    TCase *tc = tcase_create(name);

    if (setup || teardown)
        tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, timeout);
    suite_add_tcase(s, tc);
    return tc;
}

static inline int kytos_check_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int failed;

    srunner_set_tap(sr, "-");
    srunner_run_all(sr, CK_SILENT);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
