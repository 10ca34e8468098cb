# (empty for now)
# Test-only NApps (not installed) and the host's tests.
check_LTLIBRARIES += tests/napps/testkit.la tests/napps/failinit.la tests/napps/needsdep.la \
	tests/napps/notanapp.la
TESTNAPP_LINK = $(NAPP_LINK) -rpath /nowhere
tests_napps_testkit_la_SOURCES = tests/napps/testkit.c
tests_napps_testkit_la_CFLAGS = $(NAPP_CC)
tests_napps_testkit_la_LDFLAGS = $(TESTNAPP_LINK)
tests_napps_testkit_la_LIBADD = $(JSONC_LIBS)
tests_napps_failinit_la_SOURCES = tests/napps/failinit.c
tests_napps_failinit_la_CFLAGS = $(NAPP_CC)
tests_napps_failinit_la_LDFLAGS = $(TESTNAPP_LINK)
tests_napps_needsdep_la_SOURCES = tests/napps/needsdep.c
tests_napps_needsdep_la_CFLAGS = $(NAPP_CC)
tests_napps_needsdep_la_LDFLAGS = $(TESTNAPP_LINK)
tests_napps_notanapp_la_SOURCES = tests/napps/notanapp.c
tests_napps_notanapp_la_CFLAGS = $(NAPP_CC)
tests_napps_notanapp_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere $(AM_LDFLAGS)

# End-to-end: a real kytosd on a free loopback port.
TESTS += tests/e2e/test_http.py tests/e2e/test_napps.py
EXTRA_DIST += tests/e2e/test_http.py tests/e2e/test_napps.py tests/e2e/kytosd_harness.py
EXTRA_DIST += tests/install/out-of-tree.sh

# Unit tests of the host's building blocks.
check_PROGRAMS += tests/host/check_core
TESTS += tests/host/check_core
tests_host_check_core_SOURCES = tests/host/check_core.c
tests_host_check_core_CFLAGS = $(TEST_CC) $(MHD_CFLAGS)
tests_host_check_core_LDADD = $(KH_HOST_LIBS) $(TEST_LIBS)
check_PROGRAMS += tests/host/check_log
TESTS += tests/host/check_log
tests_host_check_log_SOURCES = tests/host/check_log.c
tests_host_check_log_CFLAGS = $(TEST_CC)
tests_host_check_log_LDADD = host/libkh_util.la $(TEST_LIBS)
EXTRA_DIST += tests/fuzz/run-fuzz.sh

# The data the tests and benchmarks read (tests/data/README.md): in the
# tarball too, so distcheck runs the same tests.
EXTRA_DIST += tests/data
