/* host/http/idle_conns.h - the open connections that sit between requests,
 * oldest first, so that a new client can take the slot of one that has
 * been idle a while instead of being refused (nginx's reusable
 * connections).
 *
 * Without it, api_max_connections idle keep-alive connections (a dashboard
 * per operator, clients that never close) hold every slot until
 * api_connection_timeout, and each new client meanwhile gets a 503.
 *
 * A reclaimed connection's socket is shut down, not closed: its owner
 * (libmicrohttpd's I/O thread) sees the end of the stream and closes it
 * itself.  The descriptor cannot be reused in between: the shutdown is
 * done under the set's lock, and the connection leaves the set (under the
 * lock) before libmicrohttpd closes its descriptor. */
#ifndef KH_IDLE_CONNS_H
#define KH_IDLE_CONNS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* One per open connection, embedded in its owner's record. */
struct kh_idle_link {
    struct kh_idle_link *prev, *next;
    int fd;
    struct sockaddr_storage addr;   /* the client's, for connlimit */
    int64_t idle_since_ms;
    bool idle;        /* on the list */
    bool reclaimed;   /* shut down here; its slot already given to another */
};

struct kh_idle_conns;

struct kh_idle_conns *kh_idle_conns_new(void);
void kh_idle_conns_free(struct kh_idle_conns *set);

/* The connection is between requests from now (at its start, and after
 * each answer). */
void kh_idle_enter(struct kh_idle_conns *set, struct kh_idle_link *l, int64_t now_ms);
/* A request began on it. */
void kh_idle_leave(struct kh_idle_conns *set, struct kh_idle_link *l);
/* It is closing (before its descriptor is closed): off the set for good.
 * True when it was reclaimed, so its slot is no longer its own. */
bool kh_idle_closed(struct kh_idle_conns *set, struct kh_idle_link *l);

/* Reclaim the connection idle the longest, if it has been idle for at
 * least min_idle_ms and no bytes of a next request wait on it: shut its
 * socket down, mark it reclaimed and copy its client address to *addr
 * (for the caller to give its slot away).  0 done, -1 none. */
int kh_idle_reclaim(struct kh_idle_conns *set, int64_t now_ms, int64_t min_idle_ms,
                    struct sockaddr_storage *addr);

/* Connections on the set now (for status and tests). */
unsigned kh_idle_count(struct kh_idle_conns *set);

#endif
