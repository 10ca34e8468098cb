/* host/http/http_server.h - libmicrohttpd in thread-pool mode in front of the
 * dispatcher.  MHD threads only parse, route, read bodies, and queue
 * responses; handlers run on worker pools while the connection is
 * suspended (inline routes excepted). */
#ifndef KH_HTTP_SERVER_H
#define KH_HTTP_SERVER_H

#include "http/dispatch.h"

struct kh_http;

/* Start listening (cfg: listen, api_port, api_* limits) in front of ctx's
 * pipeline.  NULL on error. */
struct kh_http *kh_http_start(struct kh_http_ctx *ctx, const kh_config *cfg, char *err, size_t errlen);
/* The same on another port; tls_ok 0: plain HTTP whatever api_tls_* say
 * (api_http_port, beside HTTPS on api_port). */
struct kh_http *kh_http_start_on(struct kh_http_ctx *ctx, const kh_config *cfg, int64_t port,
                                 int tls_ok, char *err, size_t errlen);
/* The bound port (useful with api_port = 0). */
unsigned kh_http_port(const struct kh_http *s);
/* Does it serve HTTPS (api_tls_cert, api_tls_key)? */
int kh_http_tls(const struct kh_http *s);
/* Stop accepting; wait for in-flight requests up to timeout; stop. */
void kh_http_stop(struct kh_http *s, int timeout_ms);

#endif
