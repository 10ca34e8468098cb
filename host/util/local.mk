# host/util/: what every other subsystem uses (log, config, worker pools,
# error strings); a library of its own so module tests link without the core.
host_libkh_util_la_SOURCES += \
	host/util/error.c host/util/log.c host/util/log.h host/util/conf.c host/util/conf.h \
	host/util/conf_keys.c host/util/conf_keys.h host/util/base.h host/util/clock.c \
	host/util/workpool.c host/util/workpool.h host/util/thread_batch.h
