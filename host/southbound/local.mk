# host/southbound/: the OpenFlow TCP server the switches connect to: the
# listener, connections, framing, send queues, the core events, handler
# registry and the ABI of include/kytos/conn.h (one I/O thread, epoll).
host_libkh_core_la_SOURCES += \
	host/southbound/southbound.h host/southbound/sb_impl.h \
	host/southbound/server.c \
	host/southbound/listener.c \
	host/southbound/io_thread.c \
	host/southbound/connection.c \
	host/southbound/framing.c host/southbound/framing.h \
	host/southbound/sendq.c host/southbound/sendq.h \
	host/southbound/handlers.c \
	host/southbound/events.c \
	host/southbound/status.c \
	host/southbound/tls.c \
	host/southbound/api.c
