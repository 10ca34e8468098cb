# plugins/of_core: kytos/of_core, OpenFlow 1.3 towards real switches over the
# host's southbound server (of_core.h has its event contract), and its codec
# plugins/of_core/ofp/libofp.la (ofp.h): self-contained (libc + json-c).
napps_LTLIBRARIES += plugins/of_core.la
plugins_of_core_la_SOURCES = \
	plugins/of_core/of_core.h plugins/of_core/main.c plugins/of_core/conn.c \
	plugins/of_core/switches.c plugins/of_core/ports.c plugins/of_core/flows.c \
	plugins/of_core/errnames.c \
	plugins/common/evq.c plugins/common/evq.h \
	plugins/common/settings.c plugins/common/settings.h \
	plugins/topology/pyfloat.c plugins/topology/pyfloat.h \
	plugins/flow_manager/pyjson.c plugins/flow_manager/pyjson.h
plugins_of_core_la_CFLAGS = $(NAPP_CC) $(CRYPTO_CFLAGS) -I$(top_srcdir)/openapi
plugins_of_core_la_LDFLAGS = $(NAPP_LINK)
plugins_of_core_la_LIBADD = plugins/of_core/ofp/libofp.la openapi/libkytos-openapi.la \
	$(JSONC_LIBS) $(CRYPTO_LIBS) -lm

# The codec, plugins/of_core/ofp/libofp.la: no dependency on the host.
OFP_SOURCES = \
	plugins/of_core/ofp/ofp.h plugins/of_core/ofp/ofp_int.h \
	plugins/of_core/ofp/ofp_buf.c plugins/of_core/ofp/ofp_header.c plugins/of_core/ofp/ofp_basic.c \
	plugins/of_core/ofp/ofp_match.c plugins/of_core/ofp/ofp_actions.c \
	plugins/of_core/ofp/ofp_flow_mod.c plugins/of_core/ofp/ofp_port.c \
	plugins/of_core/ofp/ofp_multipart.c plugins/of_core/ofp/ofp_packet.c \
	plugins/of_core/ofp/ofp_flow_removed.c \
	plugins/of_core/ofp/ofp_json_int.h plugins/of_core/ofp/ofp_json_util.c \
	plugins/of_core/ofp/ofp_json_match.c plugins/of_core/ofp/ofp_json_flow.c \
	plugins/of_core/ofp/ofp_json_out.c
noinst_LTLIBRARIES += plugins/of_core/ofp/libofp.la
plugins_of_core_ofp_libofp_la_SOURCES = $(OFP_SOURCES)
plugins_of_core_ofp_libofp_la_CFLAGS = $(AM_CFLAGS)
plugins_of_core_ofp_libofp_la_LIBADD = $(JSONC_LIBS)

# Unit tests (Check, TAP) of encoders, decoders, hostile input and the JSON bridge.
check_PROGRAMS += tests/ofp/check_ofp_codec tests/ofp/check_ofp_json
TESTS += tests/ofp/check_ofp_codec tests/ofp/check_ofp_json
tests_ofp_check_ofp_codec_SOURCES = tests/ofp/check_ofp_codec.c tests/ofp/ofp_test_util.h
tests_ofp_check_ofp_codec_CFLAGS = $(TEST_CC) -I$(top_srcdir)/plugins/of_core/ofp
tests_ofp_check_ofp_codec_LDADD = plugins/of_core/ofp/libofp.la $(TEST_LIBS)
tests_ofp_check_ofp_json_SOURCES = tests/ofp/check_ofp_json.c tests/ofp/ofp_test_util.h
tests_ofp_check_ofp_json_CFLAGS = $(TEST_CC) -I$(top_srcdir)/plugins/of_core/ofp
tests_ofp_check_ofp_json_LDADD = plugins/of_core/ofp/libofp.la $(TEST_LIBS)

# Differential test against Debian's python3-openflow (pyof): ofp_hex encodes
# fixed messages as hex and decodes hex from pyof into text.
check_PROGRAMS += tests/ofp/ofp_hex
TESTS += tests/ofp/pyof_diff.py
EXTRA_DIST += tests/ofp/pyof_diff.py
tests_ofp_ofp_hex_SOURCES = tests/ofp/ofp_hex.c
tests_ofp_ofp_hex_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/plugins/of_core/ofp
tests_ofp_ofp_hex_LDADD = plugins/of_core/ofp/libofp.la $(JSONC_LIBS)

# libFuzzer target (configure --enable-fuzzing CC=clang; tests/fuzz/run-fuzz.sh).
EXTRA_DIST += tests/fuzz/ofp_decode_fuzz.c tests/fuzz/run-ofp-fuzz.sh
if ENABLE_FUZZING
OFP_FUZZ_FLAGS = -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer
noinst_PROGRAMS += tests/fuzz/ofp_decode_fuzz
tests_fuzz_ofp_decode_fuzz_SOURCES = tests/fuzz/ofp_decode_fuzz.c $(OFP_SOURCES)
tests_fuzz_ofp_decode_fuzz_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/plugins/of_core/ofp \
	$(OFP_FUZZ_FLAGS)
tests_fuzz_ofp_decode_fuzz_LDFLAGS = $(OFP_FUZZ_FLAGS)
tests_fuzz_ofp_decode_fuzz_LDADD = $(JSONC_LIBS)
endif

# of_core on real Open vSwitch, end to end with topology and flow_manager
# (tests/ovs/ofcore_env.py).  SKIP without OVS or root.
TESTS += tests/ovs/test_of_core_switches.py tests/ovs/test_of_core_flows.py \
	tests/ovs/test_of_core_mef_eline.py
EXTRA_DIST += tests/ovs/test_of_core_switches.py tests/ovs/test_of_core_flows.py \
	tests/ovs/test_of_core_mef_eline.py \
	tests/ovs/ofcore_env.py

# of_core in the in-process test host with its real OpenFlow server; the
# test plays the switch with the codec.
check_PROGRAMS += tests/napps/test_of_core
TESTS += tests/napps/test_of_core
tests_napps_test_of_core_SOURCES = tests/napps/test_of_core.c
tests_napps_test_of_core_CFLAGS = $(TEST_CC) -I$(top_srcdir)/plugins/of_core/ofp \
	-DNAPP_DIR='"$(abs_top_builddir)/plugins/.libs"'
tests_napps_test_of_core_LDADD = libkytos-test.la plugins/of_core/ofp/libofp.la $(TEST_LIBS)
