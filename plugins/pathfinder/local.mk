# kytos/pathfinder NApp (plugins/pathfinder/main.c describes it).
napps_LTLIBRARIES += plugins/pathfinder.la
plugins_pathfinder_la_SOURCES = \
	plugins/pathfinder/main.c plugins/pathfinder/pathfinder.h plugins/pathfinder/pf.h \
	plugins/pathfinder/rest.c plugins/pathfinder/graph.c plugins/pathfinder/filters.c \
	plugins/pathfinder/ksp.c \
	plugins/topology/pyfloat.c plugins/topology/pyfloat.h
nodist_plugins_pathfinder_la_SOURCES = plugins/pathfinder/openapi_spec.c
plugins_pathfinder_la_CFLAGS = $(NAPP_CC)
plugins_pathfinder_la_LDFLAGS = $(NAPP_LINK)
plugins_pathfinder_la_LIBADD = $(JSONC_LIBS) -lm
plugins/pathfinder/openapi_spec.c: $(srcdir)/plugins/pathfinder/openapi.yml $(top_srcdir)/scripts/kytos-embed
	$(AM_V_GEN)mkdir -p plugins/pathfinder && $(SHELL) $(top_srcdir)/scripts/kytos-embed $(srcdir)/plugins/pathfinder/openapi.yml pathfinder_openapi > $@
BUILT_SOURCES += plugins/pathfinder/openapi_spec.c
CLEANFILES += plugins/pathfinder/openapi_spec.c
EXTRA_DIST += plugins/pathfinder/openapi.yml

# REST through the in-process test host (topology, simnet, pathfinder), and
# the search itself on large random graphs (graph.c, ksp.c, filters.c linked
# in) with its work counter.
check_PROGRAMS += tests/napps/test_pathfinder
TESTS += tests/napps/test_pathfinder
tests_napps_test_pathfinder_SOURCES = tests/napps/test_pathfinder.c \
	plugins/pathfinder/graph.c plugins/pathfinder/ksp.c plugins/pathfinder/filters.c \
	plugins/topology/pyfloat.c
tests_napps_test_pathfinder_CFLAGS = $(TEST_CC) -DNAPP_DIR='"$(abs_top_builddir)/plugins/.libs"'
tests_napps_test_pathfinder_LDADD = libkytos-test.la $(TEST_LIBS) -lm

# bench/pathfinder_bench: the search alone on random networks (bench/run-bench.sh, micro part)
noinst_PROGRAMS += bench/pathfinder_bench
bench_pathfinder_bench_SOURCES = bench/pathfinder_bench.c \
	plugins/pathfinder/graph.c plugins/pathfinder/ksp.c plugins/pathfinder/filters.c \
	plugins/topology/pyfloat.c
bench_pathfinder_bench_CFLAGS = $(AM_CFLAGS)
bench_pathfinder_bench_LDADD = $(JSONC_LIBS) -lm
