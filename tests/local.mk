# (empty for now)
# Test-only NApps (not installed) and the host's tests.
check_LTLIBRARIES += tests/napps/testkit.la tests/napps/failinit.la tests/napps/needsdep.la \
	tests/napps/notanapp.la tests/napps/badroute.la tests/napps/abiprobe.la tests/napps/abifuture.la
TESTNAPP_LINK = $(NAPP_LINK) -rpath /nowhere
tests_napps_testkit_la_SOURCES = tests/napps/testkit.c
tests_napps_testkit_la_CFLAGS = $(NAPP_CC)
tests_napps_testkit_la_LDFLAGS = $(TESTNAPP_LINK)
tests_napps_testkit_la_LIBADD = $(JSONC_LIBS)
tests_napps_failinit_la_SOURCES = tests/napps/failinit.c
tests_napps_failinit_la_CFLAGS = $(NAPP_CC)
tests_napps_failinit_la_LDFLAGS = $(TESTNAPP_LINK)
tests_napps_badroute_la_SOURCES = tests/napps/badroute.c
tests_napps_badroute_la_CFLAGS = $(NAPP_CC)
tests_napps_badroute_la_LDFLAGS = $(TESTNAPP_LINK)
tests_napps_badroute_la_LIBADD = $(JSONC_LIBS)
tests_napps_needsdep_la_SOURCES = tests/napps/needsdep.c
tests_napps_needsdep_la_CFLAGS = $(NAPP_CC)
tests_napps_needsdep_la_LDFLAGS = $(TESTNAPP_LINK)
# The same probe twice: minimum ABI 1.0, and one minor past this host's.
tests_napps_abiprobe_la_SOURCES = tests/napps/abiprobe.c
tests_napps_abiprobe_la_CFLAGS = $(NAPP_CC)
tests_napps_abiprobe_la_LDFLAGS = $(TESTNAPP_LINK)
tests_napps_abiprobe_la_LIBADD = $(JSONC_LIBS)
tests_napps_abifuture_la_SOURCES = tests/napps/abiprobe.c
tests_napps_abifuture_la_CFLAGS = $(NAPP_CC) -DABIPROBE_NAME='"abifuture"' \
	-DKYTOS_NAPP_ABI_MIN_MINOR='(KYTOS_ABI_MINOR + 1)'
tests_napps_abifuture_la_LDFLAGS = $(TESTNAPP_LINK)
tests_napps_abifuture_la_LIBADD = $(JSONC_LIBS)
tests_napps_notanapp_la_SOURCES = tests/napps/notanapp.c
tests_napps_notanapp_la_CFLAGS = $(NAPP_CC)
tests_napps_notanapp_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere $(AM_LDFLAGS)

# End-to-end: a real kytosd on a free loopback port.
TESTS += tests/e2e/test_http.py tests/e2e/test_napps.py
EXTRA_DIST += tests/e2e/test_http.py tests/e2e/test_napps.py tests/e2e/kytosd_harness.py
EXTRA_DIST += tests/install/out-of-tree.sh tests/tsan.supp

# Unit tests of the host's building blocks.
check_PROGRAMS += tests/host/check_core
TESTS += tests/host/check_core
tests_host_check_core_SOURCES = tests/host/check_core.c
tests_host_check_core_CFLAGS = $(TEST_CC) $(MHD_CFLAGS)
tests_host_check_core_LDADD = $(KH_HOST_LIBS) $(TEST_LIBS)
check_PROGRAMS += tests/host/check_napp_refs
TESTS += tests/host/check_napp_refs
tests_host_check_napp_refs_SOURCES = tests/host/check_napp_refs.c
tests_host_check_napp_refs_CFLAGS = $(TEST_CC) -DTESTNAPP_DIR='"$(abs_top_builddir)/tests/napps/.libs"'
tests_host_check_napp_refs_LDADD = libkytos-test.la $(TEST_LIBS)
check_PROGRAMS += tests/host/check_abi
TESTS += tests/host/check_abi
tests_host_check_abi_SOURCES = tests/host/check_abi.c
tests_host_check_abi_CFLAGS = $(TEST_CC) -DNAPP_DIR='"$(abs_top_builddir)/tests/napps/.libs"'
tests_host_check_abi_LDADD = libkytos-test.la $(TEST_LIBS)
tests_host_check_abi_DEPENDENCIES = libkytos-test.la tests/napps/abiprobe.la \
	tests/napps/abifuture.la tests/napps/testkit.la
check_PROGRAMS += tests/host/check_log
TESTS += tests/host/check_log
tests_host_check_log_SOURCES = tests/host/check_log.c
tests_host_check_log_CFLAGS = $(TEST_CC)
tests_host_check_log_LDADD = host/libkh_util.la $(TEST_LIBS)
# docs/configuration.md is generated from host/util/conf_keys.c.
TESTS += tests/host/config_reference.sh
EXTRA_DIST += tests/host/config_reference.sh docs/configuration.md
# host/{util,events,store,http} do not reach up to the host object.
TESTS += tests/host/check_layers.sh
EXTRA_DIST += tests/host/check_layers.sh
EXTRA_DIST += tests/fuzz/run-fuzz.sh

# Real Open vSwitch (userspace datapath) in a private directory: the harness
# every southbound test uses, checked on its own.  SKIP without OVS or root.
TESTS += tests/ovs/test_ovs_harness.py
EXTRA_DIST += tests/ovs/test_ovs_harness.py tests/ovs/ovs_harness.py

include tests/southbound/local.mk
