# (empty for now)
# Test-only NApps (not installed) and the host's tests.
check_LTLIBRARIES += tests/napps/testkit.la tests/napps/failinit.la tests/napps/needsdep.la \
	tests/napps/notanapp.la tests/napps/badroute.la tests/napps/abiprobe.la tests/napps/abifuture.la \
	tests/napps/badui.la tests/napps/shortui.la
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
tests_napps_badui_la_SOURCES = tests/napps/badui.c
tests_napps_badui_la_CFLAGS = $(NAPP_CC)
tests_napps_badui_la_LDFLAGS = $(TESTNAPP_LINK)
tests_napps_shortui_la_SOURCES = tests/napps/shortui.c
tests_napps_shortui_la_CFLAGS = $(NAPP_CC)
tests_napps_shortui_la_LDFLAGS = $(TESTNAPP_LINK)
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
TESTS += tests/e2e/test_http.py tests/e2e/test_napps.py tests/e2e/test_ui.py tests/e2e/test_streams.py \
	tests/e2e/test_dashboard.py tests/e2e/test_auth.py tests/e2e/test_tls.py tests/e2e/test_scale.py
EXTRA_DIST += tests/e2e/test_http.py tests/e2e/test_napps.py tests/e2e/test_ui.py tests/e2e/test_streams.py \
	tests/e2e/test_dashboard.py tests/e2e/test_auth.py tests/e2e/test_tls.py tests/e2e/test_scale.py \
	tests/e2e/cdp.py tests/e2e/kytosd_harness.py
# kytosd and the shipped NApps on MongoDB (a mockupdb server): each hot-path
# query served by an index created at start (skipped without python3-mockupdb)
TESTS += tests/e2e/test_mongo_indexes.py
EXTRA_DIST += tests/e2e/test_mongo_indexes.py
EXTRA_DIST += tests/install/out-of-tree.sh tests/tsan.supp

# Screenshots of the dashboard at desktop and phone sizes (headless
# Chromium against a kytosd with the shipped NApps): docs/ui.md.
screenshots: all
	$(AM_V_GEN)top_builddir='$(abs_top_builddir)' SCREENSHOT_DIR='$(abs_top_builddir)/screenshots' \
	  $(PYTHON3) $(srcdir)/tests/e2e/test_dashboard.py
.PHONY: screenshots
# test_dashboard.py writes them to the build directory's screenshots/
clean-local: clean-screenshots
clean-screenshots:
	-rm -rf screenshots
.PHONY: clean-screenshots

# Unit tests of the host's building blocks, one program per module.
HOST_HTTP_TESTS = tests/host/check_router tests/host/check_request tests/host/check_connlimit \
	tests/host/check_client_group tests/host/check_idle_conns tests/host/check_acceptor \
	tests/host/check_json_strict tests/host/check_ui tests/host/check_http_servers
check_PROGRAMS += $(HOST_HTTP_TESTS) tests/host/check_conf tests/host/check_workpool
TESTS += $(HOST_HTTP_TESTS) tests/host/check_conf tests/host/check_workpool
EXTRA_DIST += tests/host/addr.h
tests_host_check_router_SOURCES = tests/host/check_router.c
tests_host_check_router_CFLAGS = $(TEST_CC)
tests_host_check_router_LDADD = $(KH_HOST_LIBS) $(TEST_LIBS)
tests_host_check_request_SOURCES = tests/host/check_request.c
tests_host_check_request_CFLAGS = $(TEST_CC)
tests_host_check_request_LDADD = $(KH_HOST_LIBS) $(TEST_LIBS)
tests_host_check_connlimit_SOURCES = tests/host/check_connlimit.c
tests_host_check_connlimit_CFLAGS = $(TEST_CC)
tests_host_check_connlimit_LDADD = $(KH_HOST_LIBS) $(TEST_LIBS)
tests_host_check_client_group_SOURCES = tests/host/check_client_group.c
tests_host_check_client_group_CFLAGS = $(TEST_CC)
tests_host_check_client_group_LDADD = $(KH_HOST_LIBS) $(TEST_LIBS)
tests_host_check_idle_conns_SOURCES = tests/host/check_idle_conns.c
tests_host_check_idle_conns_CFLAGS = $(TEST_CC)
tests_host_check_idle_conns_LDADD = $(KH_HOST_LIBS) $(TEST_LIBS)
tests_host_check_acceptor_SOURCES = tests/host/check_acceptor.c
tests_host_check_acceptor_CFLAGS = $(TEST_CC)
tests_host_check_acceptor_LDADD = $(KH_HOST_LIBS) $(TEST_LIBS)
tests_host_check_json_strict_SOURCES = tests/host/check_json_strict.c
tests_host_check_json_strict_CFLAGS = $(TEST_CC)
tests_host_check_json_strict_LDADD = $(KH_HOST_LIBS) $(TEST_LIBS)
tests_host_check_http_servers_SOURCES = tests/host/check_http_servers.c
tests_host_check_http_servers_CFLAGS = $(TEST_CC)
tests_host_check_http_servers_LDADD = $(KH_HOST_LIBS) $(TEST_LIBS)
tests_host_check_ui_SOURCES = tests/host/check_ui.c
tests_host_check_ui_CFLAGS = $(TEST_CC)
tests_host_check_ui_LDADD = $(KH_HOST_LIBS) $(TEST_LIBS)
tests_host_check_conf_SOURCES = tests/host/check_conf.c
tests_host_check_conf_CFLAGS = $(TEST_CC)
tests_host_check_conf_LDADD = host/libkh_util.la $(TEST_LIBS)
tests_host_check_workpool_SOURCES = tests/host/check_workpool.c
tests_host_check_workpool_CFLAGS = $(TEST_CC)
tests_host_check_workpool_LDADD = host/libkh_util.la $(TEST_LIBS)
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
# Hostile switches (raw-socket fakes) beside well-behaved ones and, with
# of_core built and OVS available, a real OVS switch.
TESTS += tests/ovs/test_hostile_switches.py
EXTRA_DIST += tests/ovs/test_hostile_switches.py tests/ovs/fake_switch.py

include tests/southbound/local.mk
# The data the tests and benchmarks read (tests/data/README.md): in the
# tarball too, so distcheck runs the same tests.
EXTRA_DIST += tests/data
