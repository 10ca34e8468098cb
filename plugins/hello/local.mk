# plugins/hello: the template NApp.  The same files build here, in tree, and
# out of tree with this folder's own configure.ac and Makefile.am (used only
# there), installed with `make install` to $(napptemplatedir).
napps_LTLIBRARIES += plugins/hello.la
plugins_hello_la_SOURCES = plugins/hello/hello.c
nodist_plugins_hello_la_SOURCES = plugins/hello/openapi_spec.c plugins/hello/ui_files.c
plugins_hello_la_CFLAGS = $(NAPP_CC)
plugins_hello_la_LDFLAGS = $(NAPP_LINK)
plugins_hello_la_LIBADD = $(JSONC_LIBS)
plugins/hello/openapi_spec.c: $(srcdir)/plugins/hello/openapi.yml $(top_srcdir)/scripts/kytos-embed
	$(AM_V_GEN)mkdir -p plugins/hello && $(SHELL) $(top_srcdir)/scripts/kytos-embed $(srcdir)/plugins/hello/openapi.yml hello_openapi > $@
BUILT_SOURCES += plugins/hello/openapi_spec.c
CLEANFILES += plugins/hello/openapi_spec.c
# Its ui/ files travel inside the .so too (the kytos_napp_ui table), served
# at /ui/kytos/hello/<path> (docs/ui.md).
HELLO_UI_FILES = k-info-panel/hello.kytos
EXTRA_DIST += $(HELLO_UI_FILES:%=plugins/hello/ui/%)
plugins/hello/ui_files.c: $(HELLO_UI_FILES:%=$(srcdir)/plugins/hello/ui/%) $(top_srcdir)/scripts/kytos-embed
	$(AM_V_GEN)mkdir -p plugins/hello && $(SHELL) $(top_srcdir)/scripts/kytos-embed --ui $(srcdir)/plugins/hello/ui $(HELLO_UI_FILES) > $@-t && mv $@-t $@
BUILT_SOURCES += plugins/hello/ui_files.c
CLEANFILES += plugins/hello/ui_files.c

check_PROGRAMS += plugins/hello/test_hello
TESTS += plugins/hello/test_hello
plugins_hello_test_hello_SOURCES = plugins/hello/test_hello.c
plugins_hello_test_hello_CFLAGS = $(TEST_CC) -DNAPP_DIR='"$(abs_top_builddir)/plugins/.libs"'
plugins_hello_test_hello_LDADD = libkytos-test.la $(TEST_LIBS)

# The out-of-tree template: copy this folder, then autoreconf -fi && ./configure && make.
napptemplatedir = $(pkgdatadir)/napp-template
dist_napptemplate_DATA = plugins/hello/README.md plugins/hello/configure.ac \
	plugins/hello/Makefile.am plugins/hello/hello.c plugins/hello/openapi.yml \
	plugins/hello/test_hello.c
