# Flags for every Check-based test program.
TEST_CC = $(AM_CFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/tests
TEST_LIBS = $(CHECK_LIBS) $(JSONC_LIBS)
EXTRA_DIST += tests/check_tap.h tests/await.h tests/tmpdir.h
