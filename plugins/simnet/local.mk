# kytos/simnet NApp: a simulated network for tests (event contract in simnet.h)
napps_LTLIBRARIES += plugins/simnet.la
plugins_simnet_la_SOURCES = \
	plugins/simnet/main.c plugins/simnet/simnet.h \
	plugins/simnet/net.c plugins/simnet/publish.c plugins/simnet/flows.c plugins/simnet/persist.c \
	plugins/simnet/rest.c plugins/simnet/pyrand.c plugins/simnet/pyrand.h \
	plugins/common/evq.c plugins/common/evq.h \
	plugins/common/settings.c plugins/common/settings.h \
	plugins/topology/linkid.c plugins/topology/linkid.h \
	plugins/topology/pyfloat.c plugins/topology/pyfloat.h
nodist_plugins_simnet_la_SOURCES = plugins/simnet/openapi_spec.c
plugins_simnet_la_CFLAGS = $(NAPP_CC) $(CRYPTO_CFLAGS)
plugins_simnet_la_LDFLAGS = $(NAPP_LINK)
plugins_simnet_la_LIBADD = $(JSONC_LIBS) $(CRYPTO_LIBS) -lm
plugins/simnet/openapi_spec.c: $(srcdir)/plugins/simnet/openapi.yml $(top_srcdir)/scripts/kytos-embed
	$(AM_V_GEN)mkdir -p plugins/simnet && $(SHELL) $(top_srcdir)/scripts/kytos-embed $(srcdir)/plugins/simnet/openapi.yml simnet_openapi > $@
BUILT_SOURCES += plugins/simnet/openapi_spec.c
CLEANFILES += plugins/simnet/openapi_spec.c
EXTRA_DIST += plugins/simnet/openapi.yml

check_PROGRAMS += tests/napps/test_simnet
TESTS += tests/napps/test_simnet
tests_napps_test_simnet_SOURCES = tests/napps/test_simnet.c
tests_napps_test_simnet_CFLAGS = $(TEST_CC) $(SQLITE_CFLAGS) -DNAPP_DIR='"$(abs_top_builddir)/plugins/.libs"'
tests_napps_test_simnet_LDADD = libkytos-test.la $(TEST_LIBS) $(SQLITE_LIBS)
