# kytos/mef_eline NApp (plugins/mef_eline/main.c describes it).
napps_LTLIBRARIES += plugins/mef_eline.la
plugins_mef_eline_la_SOURCES = \
	plugins/mef_eline/main.c plugins/mef_eline/me.h plugins/mef_eline/evc.c \
	plugins/mef_eline/tags.c plugins/mef_eline/topo.c plugins/mef_eline/flows.c \
	plugins/mef_eline/deploy.c plugins/mef_eline/events.c \
	plugins/mef_eline/rest_evc.c plugins/mef_eline/rest_meta.c \
	plugins/mef_eline/schedule.c plugins/mef_eline/sched_check.c \
	plugins/mef_eline/retry.c plugins/mef_eline/paths.c plugins/mef_eline/lldp_vlan.c \
	plugins/mef_eline/listing.c plugins/mef_eline/loader.c \
	plugins/common/retry_interval.c plugins/common/retry_interval.h
# a link failure's EVCs moved in batches (kept apart from the list/load paths)
plugins_mef_eline_la_SOURCES += plugins/mef_eline/failover.c plugins/mef_eline/pathcache.c
nodist_plugins_mef_eline_la_SOURCES = plugins/mef_eline/openapi_spec.c
plugins_mef_eline_la_CFLAGS = $(NAPP_CC)
plugins_mef_eline_la_LDFLAGS = $(NAPP_LINK)
plugins_mef_eline_la_LIBADD = $(JSONC_LIBS) -lm
plugins/mef_eline/openapi_spec.c: $(srcdir)/plugins/mef_eline/openapi.yml $(top_srcdir)/scripts/kytos-embed
	$(AM_V_GEN)mkdir -p plugins/mef_eline && $(SHELL) $(top_srcdir)/scripts/kytos-embed $(srcdir)/plugins/mef_eline/openapi.yml mef_eline_openapi > $@
BUILT_SOURCES += plugins/mef_eline/openapi_spec.c
CLEANFILES += plugins/mef_eline/openapi_spec.c
EXTRA_DIST += plugins/mef_eline/openapi.yml

# Unit tests through the in-process test host (needs topology.so, flow_manager.so, pathfinder.so
# and simnet.so; reads tests/data/fixtures/mef_eline_evc_cases.json).
check_PROGRAMS += tests/napps/test_mef_eline
TESTS += tests/napps/test_mef_eline
tests_napps_test_mef_eline_SOURCES = tests/napps/test_mef_eline.c
tests_napps_test_mef_eline_CFLAGS = $(TEST_CC) -DNAPP_DIR='"$(abs_top_builddir)/plugins/.libs"' \
	-DTEST_DATA_DIR='"$(abs_top_srcdir)/tests/data"'
tests_napps_test_mef_eline_LDADD = libkytos-test.la $(TEST_LIBS)

# A link failure moving many EVCs: flow_manager calls and store writes per
# switch and batch, not per EVC (plugins/mef_eline/failover.c).
check_PROGRAMS += tests/napps/test_mef_eline_failover
TESTS += tests/napps/test_mef_eline_failover
tests_napps_test_mef_eline_failover_SOURCES = tests/napps/test_mef_eline_failover.c
tests_napps_test_mef_eline_failover_CFLAGS = $(TEST_CC) -DNAPP_DIR='"$(abs_top_builddir)/plugins/.libs"'
tests_napps_test_mef_eline_failover_LDADD = libkytos-test.la $(TEST_LIBS)

# EVCs carrying real traffic between hosts in network namespaces over a
# ring of Open vSwitch switches (links found by of_lldp): failover, restart,
# delete.  SKIP without OVS, root or namespaces.
TESTS += tests/ovs/test_evc_traffic.py
EXTRA_DIST += tests/ovs/test_evc_traffic.py
