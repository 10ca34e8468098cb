/* kytos/conn.h - switch connections: the host's southbound TCP server, as a
 * protocol NApp (of_core) sees it.  ABI 1.4: check KYTOS_API_HAS(conn_handle).
 *
 * As in Kytos-ng, the core owns the switch-facing server (kytos.conf
 * `listen`:`port`, default 0.0.0.0:6653) and its connections; the protocol
 * belongs to a NApp.  The host accepts, frames messages by the OpenFlow
 * header (version 1..6, length 8..65535; anything else closes that
 * connection), bounds every connection's send queue (kytos.conf
 * `sb_send_queue_max`: a switch that stops reading is disconnected, never
 * allowed to grow kytosd) and publishes Kytos' core events:
 *
 *   kytos/core.<proto>.connection.new   buffer conn  {"source": SOURCE}
 *   kytos/core.<proto>.raw.in           buffer raw   {"source": SOURCE, "new_data": base64}
 *                                       (one per read, not message-aligned; built only
 *                                       when someone subscribes; dropped, and counted,
 *                                       when the raw buffer is full)
 *   kytos/core.<proto>.connection.lost  buffer conn  {"source": SOURCE, "reason": text,
 *                                       ["exception": text], ["dpid": dpid]}
 *                                       (after the socket is closed and on_close ran)
 *   kytos/core.<proto>.connection.error buffer conn  see kytos_conn_send_notify
 *
 *   SOURCE = {"id": n, "address": "10.0.0.1", "port": 50000,
 *             "connection": "10.0.0.1:50000", "protocol": "openflow",
 *             "state": "NEW"|"SETUP"|"ESTABLISHED"|"FAILED"|"FINISHED",
 *             ["dpid": "00:00:00:00:00:00:00:01"]}
 *
 * <proto> is Kytos' protocol name of the listening port: kytos.conf
 * `protocol_name` when set, else "openflow" on 6633 and 6653, else the port
 * number as four or more digits ("16653").
 *
 * ---- Threads ----
 * One southbound thread does all the connections' I/O and runs every
 * handler callback (on_open, on_message, on_close): one at a time, in
 * order for each connection.  Callbacks must be short and never wait: no
 * synchronous store write, no kytos_call, no publish with a timeout into a
 * full buffer (publish with timeout_ms 0), no lock another thread may hold
 * for long.  Hand slow work to an event (app pool) or a NApp thread.  A
 * callback that faults takes its NApp out of service, as a route does.
 *
 * Everything else here may be called from any thread, callbacks included:
 * send, close, references, data, state, info.  Sending never blocks: what
 * the socket does not take at once is queued and written by the
 * southbound thread.  Sends from one thread keep their order; sends from
 * several threads interleave whole (a send's bytes are never split by
 * another's).
 *
 * ---- Lifetime and ownership ----
 * A kytos_conn is reference counted.  The connection passed to a callback
 * is borrowed for that call; to keep it (a dpid -> connection map, a reply
 * sent later from another thread) take a reference with kytos_conn_ref and
 * release it with kytos_conn_unref, typically in on_close.  A closed
 * connection stays a valid object while referenced: sends then fail with
 * KYTOS_ESTATE, kytos_conn_info still answers.  Message bytes given to
 * on_message are borrowed: valid until the callback returns.
 *
 * Callbacks: on_open once per connection, then on_message for every
 * complete message, then on_close once (only when on_open returned
 * KYTOS_OK), after the socket is closed and before the lost event.  When
 * the handler's NApp unloads (or is replaced), the host closes its
 * connections first (on_close runs, before the NApp's stop hook); switches
 * reconnect to the next handler.  Callbacks may run as soon as the host is
 * up, which can be before the NApp's start hook returns.
 */
#ifndef KYTOS_CONN_H
#define KYTOS_CONN_H

#include "api.h"

/* Kytos' ConnectionState numbers. */
enum kytos_conn_state {
    KYTOS_CONN_NEW = 0,
    KYTOS_CONN_SETUP = 1,
    KYTOS_CONN_ESTABLISHED = 2,
    KYTOS_CONN_FAILED = 3,
    KYTOS_CONN_FINISHED = 4      /* closed: set by the host only */
};

enum kytos_conn_send_flags {
    /* Goes ahead of what is queued and not yet started (after the message
     * being written): for answers a switch times out on (ECHO_REPLY), as
     * Kytos' msg_out priority queue lets them overtake FLOW_MODs.  Urgent
     * sends keep their order among themselves. */
    KYTOS_CONN_URGENT = 1u << 0
};

struct kytos_conn_handler {
    uint32_t struct_size;        /* sizeof(struct kytos_conn_handler) */
    const char *protocol;        /* "openflow": which connections (see <proto> above) */
    /* A new connection.  Return KYTOS_OK to take it; anything else closes it.
     * May be NULL. */
    int (*on_open)(kytos_napp *napp, kytos_conn *c, void *ud);
    /* One complete framed message (header included), borrowed.  A negative
     * return closes the connection.  Required. */
    int (*on_message)(kytos_napp *napp, kytos_conn *c, const void *msg, size_t len, void *ud);
    /* The connection is closed (reason: "peer closed the connection",
     * "send queue full (...)", ...).  Free what kytos_conn_data holds here.
     * May be NULL. */
    void (*on_close)(kytos_napp *napp, kytos_conn *c, const char *reason, void *ud);
    void *ud;
};

struct kytos_conn_info {
    uint32_t struct_size;        /* set by the caller: sizeof(struct kytos_conn_info) */
    int state;                   /* enum kytos_conn_state */
    uint64_t id;                 /* unique while kytosd runs, never 0 */
    char address[48];            /* the peer's IP address, text */
    uint16_t port;               /* the peer's TCP port */
    uint16_t local_port;         /* the listening port it came in on */
    char protocol[32];           /* "openflow" */
    char dpid[32];               /* kytos_conn_set_switch, or "" */
    int64_t connected_at_ms;     /* unix time, milliseconds */
    uint64_t bytes_in, bytes_out;   /* read from / written to the socket */
    uint64_t msgs_in, msgs_out;     /* framed messages received / sent */
    uint64_t send_queued;        /* bytes the send queue holds now */
};

#ifndef KYTOS_HOST
/* Become the handler of a protocol's connections (in init, or later).
 * KYTOS_EEXIST when another NApp handles it; a new version of the same
 * NApp (a reload) takes over: connections accepted from then on are its,
 * the old version's close when it unloads.  A handler whose callbacks are
 * all NULL unregisters (this NApp's connections of that protocol close).
 * Connections accepted before any handler existed are closed when one
 * registers, so the switches reconnect to it. */
static inline int kytos_conn_handle(kytos_napp *n, const struct kytos_conn_handler *h)
{
    return kytos__api->conn_handle(n, h);
}
static inline void kytos_conn_ref(kytos_conn *c) { kytos__api->conn_ref(c); }
static inline void kytos_conn_unref(kytos_conn *c) { kytos__api->conn_unref(c); }
/* The open connection with this id (events carry it as source.id),
 * referenced (kytos_conn_unref it), or NULL. */
static inline kytos_conn *kytos_conn_get(kytos_napp *n, uint64_t id)
{
    return kytos__api->conn_get(n, id);
}
/* Send len bytes (copied; one or more whole messages, as the protocol
 * wants).  KYTOS_OK: written or queued.  KYTOS_ESTATE: the connection is
 * closed (nothing sent).  KYTOS_EFULL: the send queue passed
 * sb_send_queue_max, the connection is being closed for it.  KYTOS_EIO: the
 * socket failed, the connection is being closed.  KYTOS_EINVAL: len 0.
 * KYTOS_ETOOBIG: len alone exceeds the queue bound. */
static inline int kytos_conn_send(kytos_conn *c, const void *data, size_t len, unsigned flags)
{
    return kytos__api->conn_send(c, data, len, flags);
}
/* The same, taking ownership of data (from kytos_malloc): the host frees
 * it, whatever the result.  Saves the copy for large messages. */
static inline int kytos_conn_send_give(kytos_conn *c, void *data, size_t len, unsigned flags)
{
    return kytos__api->conn_send_give(c, data, len, flags);
}
/* Kytos' msg_out: send, then notify.  After the bytes are written or queued,
 * event `name` is published with content (borrowed, copied; opts as
 * kytos_event_publish, default buffer "msg_out", timeout 0), so listeners
 * of kytos/<napp>.messages.out.<type> hear of it after the write.  When the
 * send fails with KYTOS_EIO or KYTOS_EFULL, Kytos' error event is published
 * instead: kytos/core.<proto>.connection.error on the conn buffer, with a
 * copy of content plus "exception": "Connection state: ConnectionState.X"
 * and "destination": SOURCE when content has none.  A closed connection
 * (KYTOS_ESTATE) publishes nothing, as Kytos drops such events. */
static inline int kytos_conn_send_notify(kytos_conn *c, kytos_napp *n, const void *data, size_t len,
                                         unsigned flags, const char *name,
                                         struct json_object *content,
                                         const struct kytos_pub_opts *opts)
{
    return kytos__api->conn_send_notify(c, n, data, len, flags, name, content, opts);
}
/* Close the connection (reason is logged and given to on_close; NULL =
 * "closed by its NApp").  Asynchronous: returns at once, and no message is
 * delivered after it; what is queued is flushed if the socket takes it,
 * then on_close runs on the southbound thread and the lost event goes out.
 * KYTOS_ESTATE if already closing. */
static inline int kytos_conn_close(kytos_conn *c, const char *reason)
{
    return kytos__api->conn_close(c, reason);
}
/* One pointer for the handler NApp (its per-switch state).  Atomic; the
 * host never touches what it points to. */
static inline void kytos_conn_set_data(kytos_conn *c, void *data) { kytos__api->conn_set_data(c, data); }
static inline void *kytos_conn_data(const kytos_conn *c) { return kytos__api->conn_data(c); }
/* NEW, SETUP, ESTABLISHED or FAILED (Kytos' handshake states; FINISHED is
 * the host's).  KYTOS_EINVAL for another value, KYTOS_ESTATE once closed. */
static inline int kytos_conn_set_state(kytos_conn *c, int state)
{
    return kytos__api->conn_set_state(c, state);
}
/* Name the switch behind the connection (Kytos' connection.switch): shown
 * in status, in SOURCE and as "dpid" in the lost event (topology
 * deactivates that switch).  NULL or "" clears it: do that on a connection
 * a newer one replaced, so its late lost event names no switch.  At most
 * 31 printable characters. */
static inline int kytos_conn_set_switch(kytos_conn *c, const char *dpid)
{
    return kytos__api->conn_set_switch(c, dpid);
}
static inline uint64_t kytos_conn_id(const kytos_conn *c) { return kytos__api->conn_id(c); }
/* Fill *out (out->struct_size set by the caller).  KYTOS_OK or KYTOS_EINVAL. */
static inline int kytos_conn_info(const kytos_conn *c, struct kytos_conn_info *out)
{
    return kytos__api->conn_info(c, out);
}
/* SOURCE above, a new object (the caller puts it). */
static inline struct json_object *kytos_conn_json(const kytos_conn *c)
{
    return kytos__api->conn_json(c);
}
#endif /* KYTOS_HOST */

#endif
