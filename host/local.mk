# host/: the daemon.  Utilities (log, config, pools, errors) are a
# convenience library of their own so that module tests link without the core.
noinst_LTLIBRARIES += host/libkh_util.la
host_libkh_util_la_SOURCES = \
	host/error.c host/log.c host/log.h host/conf.c host/conf.h \
	host/workpool.c host/workpool.h host/thread_batch.h host/host.h
host_libkh_util_la_CFLAGS = $(AM_CFLAGS)
host_libkh_util_la_LIBADD = $(JSONC_LIBS)

# The core: router, requests, dispatcher, loader, watcher, HTTP server, core API.
noinst_LTLIBRARIES += host/libkh_core.la
host_libkh_core_la_SOURCES = \
	host/hostimpl.h host/napp.h host/router.h host/request.h host/http_server.h \
	host/watcher.h host/store.h host/eventbus.h \
	host/router.c host/request.c host/json_strict.c host/dispatch.c host/shed.c host/acceptor.c host/acceptor.h host/connlimit.c host/connlimit.h host/idle_conns.c host/idle_conns.h host/client_group.c host/client_group.h host/elfcheck.c \
	host/loader.c host/validate.c host/api_table.c host/host.c host/core_api.c \
	host/http_server.c host/watcher.c host/ratelimit.c host/ratelimit.h host/metrics.c \
	host/guard.c host/guard.h
host_libkh_core_la_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS)
host_libkh_core_la_LIBADD = $(MHD_LIBS) $(JSONC_LIBS)

# Everything the daemon and the test host link.
KH_HOST_LIBS = host/libkh_core.la host/libkh_events.la host/libkh_store.la host/libkh_util.la \
	openapi/libkytos-openapi-core.la $(FYAML_LIBS) \
	$(MHD_LIBS) $(JSONC_LIBS) $(SQLITE_LIBS) $(MONGOC_LIBS) $(PCRE2_LIBS) $(CRYPTO_LIBS) $(LIBS)

bin_PROGRAMS += host/kytosd
host_kytosd_SOURCES = host/main.c
host_kytosd_CFLAGS = $(AM_CFLAGS)
host_kytosd_LDADD = $(KH_HOST_LIBS) $(JEMALLOC_LIBS)

# libkytos-test: the in-process host for NApp tests (include/kytos/test.h).
lib_LTLIBRARIES += libkytos-test.la
libkytos_test_la_SOURCES = host/testhost.c
libkytos_test_la_CFLAGS = $(AM_CFLAGS)
libkytos_test_la_LIBADD = $(KH_HOST_LIBS)
libkytos_test_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 -export-symbols-regex '^kytos_test_'

bin_SCRIPTS = scripts/kytos-embed
EXTRA_DIST += scripts/kytos-embed
