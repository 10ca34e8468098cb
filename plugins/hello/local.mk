# plugins/hello: the template NApp (copy this directory to start a NApp).
napps_LTLIBRARIES += plugins/hello.la
plugins_hello_la_SOURCES = plugins/hello/hello.c
nodist_plugins_hello_la_SOURCES = plugins/hello/openapi_spec.c
plugins_hello_la_CFLAGS = $(NAPP_CC)
plugins_hello_la_LDFLAGS = $(NAPP_LINK)
plugins_hello_la_LIBADD = $(JSONC_LIBS)
plugins/hello/openapi_spec.c: $(srcdir)/plugins/hello/openapi.yml $(top_srcdir)/scripts/kytos-embed
	$(AM_V_GEN)mkdir -p plugins/hello && $(SHELL) $(top_srcdir)/scripts/kytos-embed $(srcdir)/plugins/hello/openapi.yml hello_openapi > $@
BUILT_SOURCES += plugins/hello/openapi_spec.c
CLEANFILES += plugins/hello/openapi_spec.c
EXTRA_DIST += plugins/hello/openapi.yml plugins/hello/README.md

check_PROGRAMS += tests/napps/test_hello
TESTS += tests/napps/test_hello
tests_napps_test_hello_SOURCES = tests/napps/test_hello.c
tests_napps_test_hello_CFLAGS = $(TEST_CC) -DNAPP_DIR='"$(abs_top_builddir)/plugins/.libs"'
tests_napps_test_hello_LDADD = libkytos-test.la $(TEST_LIBS)
