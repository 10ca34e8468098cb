# host/: the daemon, one folder per subsystem, each with its own fragment.
#   util/     log, config, worker pools, errors      -> libkh_util
#   events/   the event bus, dead letter, timers      -> libkh_events
#   store/    the document store (SQLite, MongoDB)    -> libkh_store
#   http/     the REST front door                     -> libkh_core
#   napps/    loader, watcher, ELF check, guard, ABI  -> libkh_core
#   southbound/ the OpenFlow TCP server (switch connections) -> libkh_core
#   ui/       the web UI, the dashboard, live streams -> libkh_core
#   core/     the host object, core REST API, metrics, kytosd's main
#   testhost/ libkytos-test, the in-process host for NApp tests
noinst_LTLIBRARIES += host/libkh_util.la host/libkh_core.la
host_libkh_util_la_SOURCES =
host_libkh_util_la_CFLAGS = $(AM_CFLAGS)
host_libkh_util_la_LIBADD = $(JSONC_LIBS)
host_libkh_core_la_SOURCES =
host_libkh_core_la_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(SSL_CFLAGS)
host_libkh_core_la_LIBADD = $(MHD_LIBS) $(JSONC_LIBS) $(ZLIB_LIBS) $(SSL_LIBS) $(CRYPTO_LIBS)

include host/util/local.mk
include host/http/local.mk
include host/napps/local.mk
include host/southbound/local.mk
include host/auth/local.mk
include host/core/local.mk
include host/ui/local.mk
include host/store/local.mk
include host/events/local.mk
include host/testhost/local.mk
