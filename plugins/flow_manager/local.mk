# kytos/flow_manager NApp (plugins/flow_manager/main.c describes it).
napps_LTLIBRARIES += plugins/flow_manager.la
plugins_flow_manager_la_SOURCES = \
	plugins/flow_manager/main.c plugins/flow_manager/fm.h \
	plugins/flow_manager/flow.c plugins/flow_manager/flow.h \
	plugins/flow_manager/pyjson.c plugins/flow_manager/pyjson.h \
	plugins/flow_manager/switches.c plugins/flow_manager/switches.h \
	plugins/flow_manager/pending.c plugins/flow_manager/send.c \
	plugins/flow_manager/acks.c plugins/flow_manager/marks.c \
	plugins/flow_manager/consistency.c plugins/flow_manager/purge.c \
	plugins/flow_manager/req_util.c \
	plugins/flow_manager/req_util.h plugins/flow_manager/rest_flows.c \
	plugins/flow_manager/rest_list.c
nodist_plugins_flow_manager_la_SOURCES = plugins/flow_manager/openapi_spec.c
plugins_flow_manager_la_CFLAGS = $(NAPP_CC) $(CRYPTO_CFLAGS) -I$(top_srcdir)/openapi
plugins_flow_manager_la_LDFLAGS = $(NAPP_LINK)
plugins_flow_manager_la_LIBADD = openapi/libkytos-openapi.la $(JSONC_LIBS) $(CRYPTO_LIBS)
plugins/flow_manager/openapi_spec.c: $(srcdir)/plugins/flow_manager/openapi.yml $(top_srcdir)/scripts/kytos-embed
	$(AM_V_GEN)mkdir -p plugins/flow_manager && $(SHELL) $(top_srcdir)/scripts/kytos-embed $(srcdir)/plugins/flow_manager/openapi.yml flow_manager_openapi > $@
BUILT_SOURCES += plugins/flow_manager/openapi_spec.c
CLEANFILES += plugins/flow_manager/openapi_spec.c
EXTRA_DIST += plugins/flow_manager/openapi.yml

# Unit tests through the in-process test host (needs topology.so and simnet.so).
check_PROGRAMS += tests/napps/test_flow_manager
TESTS += tests/napps/test_flow_manager
tests_napps_test_flow_manager_SOURCES = tests/napps/test_flow_manager.c
tests_napps_test_flow_manager_CFLAGS = $(TEST_CC) -DNAPP_DIR='"$(abs_top_builddir)/plugins/.libs"'
tests_napps_test_flow_manager_LDADD = libkytos-test.la $(TEST_LIBS)

# The latest-write table on its own (pending.c, with pyjson.c's helpers).
check_PROGRAMS += tests/napps/check_fm_latest
TESTS += tests/napps/check_fm_latest
tests_napps_check_fm_latest_SOURCES = tests/napps/check_fm_latest.c \
	plugins/flow_manager/pending.c plugins/flow_manager/pyjson.c
tests_napps_check_fm_latest_CFLAGS = $(TEST_CC) $(CRYPTO_CFLAGS) -I$(top_srcdir)/plugins/flow_manager \
	-I$(top_srcdir)/openapi
tests_napps_check_fm_latest_LDADD = $(TEST_LIBS) $(JSONC_LIBS) $(CRYPTO_LIBS)

# The kept "installed" marks on their own (marks.c; the host and acks.c are
# stand-ins in the test).
check_PROGRAMS += tests/napps/check_fm_marks
TESTS += tests/napps/check_fm_marks
tests_napps_check_fm_marks_SOURCES = tests/napps/check_fm_marks.c plugins/flow_manager/marks.c
tests_napps_check_fm_marks_CFLAGS = $(TEST_CC) $(CRYPTO_CFLAGS) -I$(top_srcdir)/plugins/flow_manager \
	-I$(top_srcdir)/openapi -I$(top_srcdir)/tests
tests_napps_check_fm_marks_LDADD = $(TEST_LIBS) $(JSONC_LIBS)

# The consistency check's alien half on real Open vSwitch (ovs-ofctl
# add-flow behind kytosd's back).  SKIP without OVS or root.
TESTS += tests/ovs/test_fm_alien_flows.py
EXTRA_DIST += tests/ovs/test_fm_alien_flows.py
