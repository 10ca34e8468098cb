# util/: the small utility layer shared by host/ and openapi/ (string
# buffer, hex digits, percent-decoding, growable arrays).  It depends on
# nothing but libc, so the openapi library stays usable without the host.
noinst_LTLIBRARIES += util/libkytos-util.la
UTIL_SRC = util/strbuf.h util/strbuf.c util/text.h util/text.c
util_libkytos_util_la_SOURCES = $(UTIL_SRC)

check_PROGRAMS += tests/util/check_util
TESTS += tests/util/check_util
tests_util_check_util_SOURCES = tests/util/check_util.c
tests_util_check_util_CFLAGS = $(TEST_CC)
tests_util_check_util_LDADD = util/libkytos-util.la $(TEST_LIBS)
