# host/http/: the REST front door: acceptor and connection limits, the
# libmicrohttpd server, router, request pipeline, admission, validation.
host_libkh_core_la_SOURCES += \
	host/http/acceptor.c host/http/acceptor.h \
	host/http/client_group.c host/http/client_group.h \
	host/http/connlimit.c host/http/connlimit.h \
	host/http/dispatch.c host/http/dispatch.h host/http/http_ctx.h host/http/req_api.h \
	host/http/http_server.c host/http/http_server.h \
	host/http/idle_conns.c host/http/idle_conns.h \
	host/http/json_strict.c \
	host/http/ratelimit.c host/http/ratelimit.h \
	host/http/request.c host/http/request.h \
	host/http/router.c host/http/router.h \
	host/http/shed.c host/http/shed.h \
	host/http/stream.c host/http/stream.h \
	host/http/validate.c
