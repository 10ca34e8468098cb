# kytos/topology NApp
napps_LTLIBRARIES += plugins/topology.la
plugins_topology_la_SOURCES = \
	plugins/topology/main.c plugins/topology/topo.h \
	plugins/topology/model.c plugins/topology/view.c plugins/topology/snapshot.c \
	plugins/topology/op.c plugins/topology/removal.c plugins/topology/linkstate.c \
	plugins/topology/persist.c plugins/topology/retry.c \
	plugins/common/retry_interval.c plugins/common/retry_interval.h \
	plugins/common/evq.c plugins/common/evq.h \
	plugins/common/settings.c plugins/common/settings.h \
	plugins/topology/events.c plugins/topology/rest_util.c plugins/topology/rest_get.c \
	plugins/topology/rest_switch.c plugins/topology/rest_intf.c plugins/topology/rest_link.c \
	plugins/topology/tags.c plugins/topology/rest_tags.c \
	plugins/topology/linkid.c plugins/topology/linkid.h \
	plugins/topology/pyfloat.c plugins/topology/pyfloat.h \
	plugins/topology/jsonw.c plugins/topology/jsonw.h
nodist_plugins_topology_la_SOURCES = plugins/topology/openapi_spec.c
plugins_topology_la_CFLAGS = $(NAPP_CC) $(CRYPTO_CFLAGS)
plugins_topology_la_LDFLAGS = $(NAPP_LINK)
plugins_topology_la_LIBADD = $(JSONC_LIBS) $(CRYPTO_LIBS) -lm
plugins/topology/openapi_spec.c: $(srcdir)/plugins/topology/openapi.yml $(top_srcdir)/scripts/kytos-embed
	$(AM_V_GEN)mkdir -p plugins/topology && $(SHELL) $(top_srcdir)/scripts/kytos-embed $(srcdir)/plugins/topology/openapi.yml topology_openapi > $@
BUILT_SOURCES += plugins/topology/openapi_spec.c
CLEANFILES += plugins/topology/openapi_spec.c
EXTRA_DIST += plugins/topology/openapi.yml

check_PROGRAMS += tests/napps/test_topology
TESTS += tests/napps/test_topology
tests_napps_test_topology_SOURCES = tests/napps/test_topology.c
tests_napps_test_topology_CFLAGS = $(TEST_CC) -DNAPP_DIR='"$(abs_top_builddir)/plugins/.libs"' \
	-DFIXTURE_DIR='"$(abs_top_srcdir)/tests/napps"' \
	-DSEED_DIR='"$(abs_top_builddir)/tests/napps/.libs"'
tests_napps_test_topology_LDADD = libkytos-test.la $(TEST_LIBS)
tests_napps_test_topology_DEPENDENCIES = libkytos-test.la tests/napps/test_topology_seed.la
EXTRA_DIST += tests/napps/test_topology_ring3.json tests/napps/test_topology_ring5.json
# a test-only NApp that seeds the store with hostile documents
check_LTLIBRARIES += tests/napps/test_topology_seed.la
tests_napps_test_topology_seed_la_SOURCES = tests/napps/test_topology_seed.c
tests_napps_test_topology_seed_la_CFLAGS = $(NAPP_CC)
tests_napps_test_topology_seed_la_LDFLAGS = $(NAPP_LINK) -rpath /nowhere
tests_napps_test_topology_seed_la_LIBADD = $(JSONC_LIBS)
