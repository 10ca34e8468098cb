# host/testhost/: libkytos-test, the in-process host for NApp tests
# (include/kytos/test.h): the real host without the HTTP server.
lib_LTLIBRARIES += libkytos-test.la
libkytos_test_la_SOURCES = host/testhost/testhost.c
libkytos_test_la_CFLAGS = $(AM_CFLAGS)
libkytos_test_la_LIBADD = $(KH_HOST_LIBS)
libkytos_test_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 -export-symbols-regex '^kytos_test_'
