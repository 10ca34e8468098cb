# plugins/of_core: the OpenFlow 1.3 side of kytosd.  For now only the codec,
# plugins/of_core/ofp/libofp.la (ofp.h): self-contained (libc + json-c), no
# dependency on the host, linked into the of_core NApp once it exists.
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
