/* tests/check_tap.h - run a Check suite and report every test as a TAP line
 * (the automake tap driver counts them).  Tests fork (Check's default), so a
 * crash fails one test, not the suite. */
#ifndef KYTOS_TESTS_CHECK_TAP_H
#define KYTOS_TESTS_CHECK_TAP_H

#include <check.h>
#include <stdlib.h>

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
