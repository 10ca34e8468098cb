# host/core/: the host object that wires the subsystems together, the core
# REST API, metrics, and kytosd's main.
host_libkh_core_la_SOURCES += \
	host/core/host.c host/core/host.h host/core/hostimpl.h \
	host/core/core_api.c host/core/metrics.c

# Everything the daemon and the test host link.
KH_HOST_LIBS = host/libkh_core.la host/libkh_events.la host/libkh_store.la host/libkh_util.la \
	openapi/libkytos-openapi-core.la $(FYAML_LIBS) \
	$(MHD_LIBS) $(ZLIB_LIBS) $(JSONC_LIBS) $(SQLITE_LIBS) $(MONGOC_LIBS) $(PCRE2_LIBS) $(SSL_LIBS) $(CRYPTO_LIBS) $(LIBS)

bin_PROGRAMS += host/kytosd
host_kytosd_SOURCES = host/core/main.c
host_kytosd_CFLAGS = $(AM_CFLAGS)
host_kytosd_LDADD = $(KH_HOST_LIBS) $(JEMALLOC_LIBS)

bin_SCRIPTS = scripts/kytos-embed
EXTRA_DIST += scripts/kytos-embed
