/* host/http/connlimit.h - api_max_connections and api_per_ip_connection_limit,
 * counted by kytosd itself.
 *
 * libmicrohttpd enforces both limits by closing a connection it has just
 * been given, with the client's request often already sent: the client
 * sees a reset or an empty answer.  kytosd counts instead, in its accept
 * loop, and answers a connection over a limit with a 503 (total) or a 429
 * (per IP) before closing it gently (acceptor.c). */
#ifndef KH_CONNLIMIT_H
#define KH_CONNLIMIT_H

#include <stddef.h>
#include <sys/socket.h>

struct kh_connlimit;

enum kh_conn_verdict { KH_CONN_OK = 0, KH_CONN_TOTAL, KH_CONN_PER_IP };

/* 0 for a limit: none.  Per address means per client group
 * (client_group.h): IPv6 addresses by their first v6_prefix bits. */
struct kh_connlimit *kh_connlimit_new(unsigned max_total, unsigned max_per_ip, unsigned v6_prefix);
void kh_connlimit_free(struct kh_connlimit *cl);

/* Count one more connection from addr, or refuse it (nothing counted). */
enum kh_conn_verdict kh_connlimit_take(struct kh_connlimit *cl, const struct sockaddr *addr);
/* Whether addr is at the per-address limit now (nothing counted). */
int kh_connlimit_ip_full(struct kh_connlimit *cl, const struct sockaddr *addr);
/* One connection taken for addr is gone. */
void kh_connlimit_put(struct kh_connlimit *cl, const struct sockaddr *addr);

unsigned kh_connlimit_max_total(const struct kh_connlimit *cl);
unsigned kh_connlimit_max_per_ip(const struct kh_connlimit *cl);

#endif
