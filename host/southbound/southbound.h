/* host/southbound/southbound.h - the switch-facing TCP server (the host's
 * OpenFlow server), as the rest of the host sees it.  NApps see it through
 * include/kytos/conn.h.
 *
 * Life cycle: kh_sb_new (configuration, handler registry; no socket, so
 * NApps may register handlers in init) -> kh_sb_start (bind `listen`:`port`,
 * start the southbound I/O thread) -> kh_sb_stop_accepting -> NApps unload
 * (kh_sb_napp_unload closes each handler's connections) -> kh_sb_stop
 * (closes the rest, joins the thread) -> kh_sb_free.
 *
 * kytos.conf ([daemon]): listen, port (0 picks a free one), protocol_name,
 * sb_send_queue_max (bytes per connection), sb_read_max (bytes read per
 * connection per turn), sb_max_connections, sb_listen_backlog,
 * sb_raw_in_events (publish kytos/core.<proto>.raw.in). */
#ifndef KH_SOUTHBOUND_H
#define KH_SOUTHBOUND_H

#include "core/host.h"

typedef struct kh_sb kh_sb;

kh_sb *kh_sb_new(kh_bus *bus, const kh_config *cfg, char *err, size_t errlen);
/* Bind and listen, start the I/O thread.  0 or -1 with err. */
int kh_sb_start(kh_sb *sb, char *err, size_t errlen);
int kh_sb_running(const kh_sb *sb);
/* Close the listening socket (connections stay).  Waits for the thread. */
void kh_sb_stop_accepting(kh_sb *sb);
/* Close every connection (queued bytes flushed if the socket takes them,
 * then FIN), stop the thread.  Idempotent. */
void kh_sb_stop(kh_sb *sb);
void kh_sb_free(kh_sb *sb);
/* The bound port (0 before start), the listening address, the protocol
 * name ("openflow"; "" before start). */
unsigned kh_sb_port(const kh_sb *sb);
const char *kh_sb_address(const kh_sb *sb);
const char *kh_sb_protocol(const kh_sb *sb);

/* A NApp is going away: drop its handler registrations and close the
 * connections it handles, calling its on_close (not when crashed: its
 * code is not run again).  Waits until done, so no callback of it runs
 * afterwards.  Any thread. */
void kh_sb_napp_unload(kh_sb *sb, kytos_napp *n, int crashed);

/* {"listen": "0.0.0.0:6653", "address", "port", "protocol", "running",
 *  "connections", "connections_total", "bytes_in", "bytes_out",
 *  "messages_in", "messages_out", "send_queue_bytes", "send_queue_limit",
 *  "send_queue_high_water", "raw_in_dropped", "refused", "disconnects":
 *  {reason: n}, "handlers": {proto: napp}, "conns": [{id, address, port,
 *  state, dpid, handler, bytes_in, ..., send_queue_bytes}]}.  New ref. */
struct json_object *kh_sb_status(kh_sb *sb);

/* Fill the ABI 1.3 slots (conn.h). */
void kh_sb_api_fill(struct kytos_api *api);

#endif
