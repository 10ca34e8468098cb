# kytos/of_lldp NApp (plugins/of_lldp/main.c describes it).
LLDP_FRAME_SOURCES = plugins/of_lldp/lldp_frame.c plugins/of_lldp/lldp_frame.h
napps_LTLIBRARIES += plugins/of_lldp.la
plugins_of_lldp_la_SOURCES = \
	plugins/of_lldp/main.c plugins/of_lldp/lldp.h $(LLDP_FRAME_SOURCES) \
	plugins/of_lldp/topo_view.c plugins/of_lldp/punt.c plugins/of_lldp/send.c \
	plugins/of_lldp/receive.c plugins/of_lldp/liveness.c plugins/of_lldp/loops.c \
	plugins/of_lldp/rest.c plugins/common/settings.c plugins/common/settings.h
nodist_plugins_of_lldp_la_SOURCES = plugins/of_lldp/openapi_spec.c
plugins_of_lldp_la_CFLAGS = $(NAPP_CC)
plugins_of_lldp_la_LDFLAGS = $(NAPP_LINK)
plugins_of_lldp_la_LIBADD = $(JSONC_LIBS)
plugins/of_lldp/openapi_spec.c: $(srcdir)/plugins/of_lldp/openapi.yml $(top_srcdir)/scripts/kytos-embed
	$(AM_V_GEN)mkdir -p plugins/of_lldp && $(SHELL) $(top_srcdir)/scripts/kytos-embed $(srcdir)/plugins/of_lldp/openapi.yml of_lldp_openapi > $@
BUILT_SOURCES += plugins/of_lldp/openapi_spec.c
CLEANFILES += plugins/of_lldp/openapi_spec.c
EXTRA_DIST += plugins/of_lldp/openapi.yml

# The frame codec alone (Check, TAP): encoder bytes, decoder on hostile input.
check_PROGRAMS += tests/napps/check_lldp_frame
TESTS += tests/napps/check_lldp_frame
tests_napps_check_lldp_frame_SOURCES = tests/napps/check_lldp_frame.c $(LLDP_FRAME_SOURCES)
tests_napps_check_lldp_frame_CFLAGS = $(TEST_CC) -I$(top_srcdir)/plugins/of_lldp
tests_napps_check_lldp_frame_LDADD = $(TEST_LIBS)

# Through the in-process test host, with topology, flow_manager and simnet.
check_PROGRAMS += tests/napps/test_of_lldp
TESTS += tests/napps/test_of_lldp
tests_napps_test_of_lldp_SOURCES = tests/napps/test_of_lldp.c plugins/of_lldp/lldp_frame.c
tests_napps_test_of_lldp_CFLAGS = $(TEST_CC) -I$(top_srcdir)/plugins/of_lldp \
	-DNAPP_DIR='"$(abs_top_builddir)/plugins/.libs"'
tests_napps_test_of_lldp_LDADD = libkytos-test.la $(TEST_LIBS)

# libFuzzer target (configure --enable-fuzzing CC=clang; tests/fuzz/run-fuzz.sh).
EXTRA_DIST += tests/fuzz/lldp_frame_fuzz.c tests/fuzz/run-lldp-fuzz.sh
if ENABLE_FUZZING
LLDP_FUZZ_FLAGS = -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer
noinst_PROGRAMS += tests/fuzz/lldp_frame_fuzz
tests_fuzz_lldp_frame_fuzz_SOURCES = tests/fuzz/lldp_frame_fuzz.c $(LLDP_FRAME_SOURCES)
tests_fuzz_lldp_frame_fuzz_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/plugins/of_lldp $(LLDP_FUZZ_FLAGS)
tests_fuzz_lldp_frame_fuzz_LDFLAGS = $(LLDP_FUZZ_FLAGS)
endif

# On real Open vSwitch through of_core (tests/ovs/ofcore_env.py).  SKIP without OVS or root.
TESTS += tests/ovs/test_of_lldp_ovs.py
EXTRA_DIST += tests/ovs/test_of_lldp_ovs.py
