# host/napps/: NApps as .so files: loader, directory watcher, ELF check,
# fault guard, the function table handed to NApps.
host_libkh_core_la_SOURCES += \
	host/napps/api_table.c host/napps/api_layout.h \
	host/napps/descriptor.c \
	host/napps/elfcheck.c \
	host/napps/guard.c host/napps/guard.h \
	host/napps/loader.c host/napps/napp.h \
	host/napps/watcher.c host/napps/watcher.h
