# openapi/: libkytos-openapi (OpenAPI 3.0/3.1 loader and request validator,
# no dependency on the host) and the kytos-openapi CLI.
#
# The objects live in a convenience library so the tests can reach the
# internal koa_* functions; the installed library re-exports only the
# public kytos_openapi_* names.
OPENAPI_CORE_SRC = \
	openapi/internal.h openapi/options.c openapi/arena.c \
	openapi/diag.c openapi/posmap.c openapi/jsonutil.c \
	openapi/json_strict.c openapi/yaml_load.c openapi/regex.c \
	openapi/pyrepr.c openapi/pyprintable.h openapi/format.c openapi/schema.h \
	openapi/schema_compile.c openapi/validate.c openapi/spec.h \
	openapi/spec.c openapi/route.c openapi/params.h openapi/params.c \
	openapi/request.c openapi/lint.c
noinst_LTLIBRARIES += openapi/libkytos-openapi-core.la
openapi_libkytos_openapi_core_la_SOURCES = $(OPENAPI_CORE_SRC)
openapi_libkytos_openapi_core_la_CFLAGS = $(AM_CFLAGS) $(FYAML_CFLAGS) \
	$(PCRE2_CFLAGS)
openapi_libkytos_openapi_core_la_LIBADD = util/libkytos-util.la $(FYAML_LIBS) $(PCRE2_LIBS) \
	$(JSONC_LIBS) -lm

lib_LTLIBRARIES += openapi/libkytos-openapi.la
openapi_libkytos_openapi_la_SOURCES =
openapi_libkytos_openapi_la_LIBADD = openapi/libkytos-openapi-core.la
openapi_libkytos_openapi_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 \
	-export-symbols-regex '^kytos_openapi_'
kytosinclude_HEADERS += include/kytos/openapi.h

bin_PROGRAMS += openapi/kytos-openapi
openapi_kytos_openapi_SOURCES = openapi/cli.c
openapi_kytos_openapi_LDADD = openapi/libkytos-openapi.la $(JSONC_LIBS)

# ---- tests ----------------------------------------------------------
OPENAPI_TEST_LIBS = openapi/libkytos-openapi-core.la $(TEST_LIBS)

check_PROGRAMS += tests/openapi/check_json_strict
tests_openapi_check_json_strict_SOURCES = tests/openapi/check_json_strict.c
tests_openapi_check_json_strict_CFLAGS = $(TEST_CC) -I$(top_srcdir)/openapi
tests_openapi_check_json_strict_LDADD = $(OPENAPI_TEST_LIBS)
TESTS += tests/openapi/check_json_strict

check_PROGRAMS += tests/openapi/jsts_conformance
tests_openapi_jsts_conformance_SOURCES = tests/openapi/jsts_conformance.c
tests_openapi_jsts_conformance_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/openapi
tests_openapi_jsts_conformance_LDADD = openapi/libkytos-openapi-core.la \
	$(JSONC_LIBS)
TESTS += tests/openapi/jsts_conformance
EXTRA_DIST += tests/openapi/jsts-skip.txt

check_PROGRAMS += tests/openapi/check_pyprintable
tests_openapi_check_pyprintable_SOURCES = tests/openapi/check_pyprintable.c
tests_openapi_check_pyprintable_CFLAGS = $(TEST_CC) -I$(top_srcdir)/openapi
tests_openapi_check_pyprintable_LDADD = $(OPENAPI_TEST_LIBS)
TESTS += tests/openapi/check_pyprintable
EXTRA_DIST += openapi/gen_pyprintable.py

check_PROGRAMS += tests/openapi/check_schema
tests_openapi_check_schema_SOURCES = tests/openapi/check_schema.c
tests_openapi_check_schema_CFLAGS = $(TEST_CC) -I$(top_srcdir)/openapi
tests_openapi_check_schema_LDADD = $(OPENAPI_TEST_LIBS) -lm
TESTS += tests/openapi/check_schema

check_PROGRAMS += tests/openapi/check_spec
tests_openapi_check_spec_SOURCES = tests/openapi/check_spec.c
tests_openapi_check_spec_CFLAGS = $(TEST_CC) -I$(top_srcdir)/openapi
tests_openapi_check_spec_LDADD = $(OPENAPI_TEST_LIBS)
TESTS += tests/openapi/check_spec

check_PROGRAMS += tests/openapi/check_request
tests_openapi_check_request_SOURCES = tests/openapi/check_request.c
tests_openapi_check_request_CFLAGS = $(TEST_CC)
tests_openapi_check_request_LDADD = $(OPENAPI_TEST_LIBS)
TESTS += tests/openapi/check_request

check_PROGRAMS += tests/openapi/check_napps
tests_openapi_check_napps_SOURCES = tests/openapi/check_napps.c
tests_openapi_check_napps_CFLAGS = $(TEST_CC)
tests_openapi_check_napps_LDADD = $(OPENAPI_TEST_LIBS)
TESTS += tests/openapi/check_napps

TESTS += tests/openapi/cli.sh
EXTRA_DIST += tests/openapi/cli.sh

# ---- bench: parse + validate cost per request (the lead wires make bench)
noinst_PROGRAMS += bench/openapi_bench
bench_openapi_bench_SOURCES = tests/openapi/openapi_bench.c
bench_openapi_bench_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/openapi
bench_openapi_bench_LDADD = openapi/libkytos-openapi-core.la $(JSONC_LIBS)

# ---- fuzz targets (configure --enable-fuzzing CC=clang) -------------
# Each target compiles the library sources itself so libFuzzer's
# coverage instrumentation reaches them.  CI: tests/fuzz/run-openapi-fuzz.sh
EXTRA_DIST += tests/fuzz/run-openapi-fuzz.sh tests/fuzz/openapi_json_fuzz.c \
	tests/fuzz/openapi_yaml_fuzz.c tests/fuzz/openapi_validate_fuzz.c
if ENABLE_FUZZING
OPENAPI_FUZZ_FLAGS = -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer
OPENAPI_FUZZ_CC = $(AM_CFLAGS) $(FYAML_CFLAGS) $(PCRE2_CFLAGS) \
	-I$(top_srcdir)/openapi -I$(top_srcdir)/util $(OPENAPI_FUZZ_FLAGS)
OPENAPI_FUZZ_LIBS = $(FYAML_LIBS) $(PCRE2_LIBS) $(JSONC_LIBS) -lm
noinst_PROGRAMS += tests/fuzz/openapi_json_fuzz tests/fuzz/openapi_yaml_fuzz \
	tests/fuzz/openapi_validate_fuzz
tests_fuzz_openapi_json_fuzz_SOURCES = tests/fuzz/openapi_json_fuzz.c \
	$(OPENAPI_CORE_SRC) $(UTIL_SRC)
tests_fuzz_openapi_json_fuzz_CFLAGS = $(OPENAPI_FUZZ_CC)
tests_fuzz_openapi_json_fuzz_LDFLAGS = $(OPENAPI_FUZZ_FLAGS)
tests_fuzz_openapi_json_fuzz_LDADD = $(OPENAPI_FUZZ_LIBS)
tests_fuzz_openapi_yaml_fuzz_SOURCES = tests/fuzz/openapi_yaml_fuzz.c \
	$(OPENAPI_CORE_SRC) $(UTIL_SRC)
tests_fuzz_openapi_yaml_fuzz_CFLAGS = $(OPENAPI_FUZZ_CC)
tests_fuzz_openapi_yaml_fuzz_LDFLAGS = $(OPENAPI_FUZZ_FLAGS)
tests_fuzz_openapi_yaml_fuzz_LDADD = $(OPENAPI_FUZZ_LIBS)
tests_fuzz_openapi_validate_fuzz_SOURCES = tests/fuzz/openapi_validate_fuzz.c \
	$(OPENAPI_CORE_SRC) $(UTIL_SRC)
tests_fuzz_openapi_validate_fuzz_CFLAGS = $(OPENAPI_FUZZ_CC)
tests_fuzz_openapi_validate_fuzz_LDFLAGS = $(OPENAPI_FUZZ_FLAGS)
tests_fuzz_openapi_validate_fuzz_LDADD = $(OPENAPI_FUZZ_LIBS)
endif
