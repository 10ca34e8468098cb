/* host/southbound/sb_impl.h - the inside of the southbound server, for its
 * own files only.
 *
 * Threads.  One southbound thread owns the listening socket, the epoll set
 * and every connection's reading side; it accepts, reads, frames, runs the
 * handler callbacks, writes what queued up (EPOLLOUT) and tears connections
 * down.  Any thread may send: under the connection's lock it writes
 * straight to the socket when nothing is queued, else queues (and arms
 * EPOLLOUT).  Other threads never close a socket: they mark the connection
 * closing (no more sends) and put it on the close list, and the southbound
 * thread, woken by an eventfd, does the rest.  So a socket is closed only
 * under its connection's lock, with fd = -1 after, and a sender never
 * writes to a reused descriptor.
 *
 * Lock order: hnd_mu, then table_mu, then a connection's mu, then cmd_mu;
 * no lock is held while a NApp callback runs or an event is published. */
#ifndef KH_SB_IMPL_H
#define KH_SB_IMPL_H

#include "southbound/southbound.h"
#include "southbound/framing.h"
#include "southbound/sendq.h"
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>

#define KH_SB_LOGGER "kytos.core.atcp_server"
#define KH_SB_MAX_HANDLERS 8
#define KH_SB_PROTO_MAX 32
#define KH_SB_EVNAME_MAX 128

/* Why a connection closed: counted, shown in status and /metrics. */
enum kh_sb_dc {
    KH_SB_DC_PEER,          /* the switch closed it */
    KH_SB_DC_IO,            /* a socket error (reset, ...) */
    KH_SB_DC_FRAMING,       /* a bad OpenFlow header */
    KH_SB_DC_OVERFLOW,      /* the send queue passed its bound */
    KH_SB_DC_NAPP,          /* closed by a NApp (kytos_conn_close, on_message < 0) */
    KH_SB_DC_UNLOAD,        /* its handler NApp unloaded */
    KH_SB_DC_REFUSED,       /* on_open refused it, no handler ready, too many */
    KH_SB_DC_SHUTDOWN,      /* kytosd stopping */
    KH_SB_DC_TLS,           /* TLS handshake failed or timed out: never a switch */
    KH_SB_DC_N
};
extern const char *const kh_sb_dc_names[KH_SB_DC_N];

struct kh_sb_handler {
    kytos_napp *napp;                /* NULL: none */
    struct kytos_conn_handler cb;
};

struct kytos_conn {
    atomic_int refs;
    kh_sb *sb;
    uint64_t id;
    char address[48];
    uint16_t port;
    char peer[64];                   /* "10.0.0.1:50000" / "[::1]:50000", for logs */
    int64_t connected_at_ms;         /* wall clock: for status and logs only */
    int64_t connected_mono_ns;       /* for timeouts (a clock step moves no deadline) */

    pthread_mutex_t mu;              /* guards the fields up to the atomics */
    int fd;                          /* -1 once closed */
    struct kh_sendq q;
    int out_armed;                   /* EPOLLOUT in the epoll set */
    int closing;                     /* no more sends: a close is requested or done */
    int close_kind;                  /* enum kh_sb_dc of the first reason */
    char close_reason[200];
    char dpid[32];
    /* TLS (tls.c): every use of ssl is under mu */
    struct ssl_st *ssl;              /* NULL: plain TCP */
    struct bio_st *wbio;             /* what OpenSSL wants sent */
    /* no connection.new yet, no sends.  Written by the southbound thread
     * (under mu once the connection is visible); read by NApp threads
     * sending (under mu) and by the southbound thread (sweep, teardown,
     * unbind): atomic, so no read depends on which lock it holds. */
    atomic_int handshaking;

    atomic_int state;                /* enum kytos_conn_state */
    _Atomic(void *) data;
    atomic_uint_fast64_t bytes_in, bytes_out, msgs_in, msgs_out;

    /* under cmd_mu */
    struct kytos_conn *close_next;
    int close_listed;

    /* southbound thread only */
    struct kh_framer fr;
    struct kh_sb_handler hnd;
    int opened;                      /* on_open returned KYTOS_OK: on_close is owed */
    int dead;                        /* torn down */
    struct kytos_conn *grave_next;   /* torn down this turn, unref'd after it */
};

struct kh_sb_unbind {                /* a NApp going away; the caller waits */
    kytos_napp *napp;
    int crashed;
    int done, abandoned;             /* abandoned: the waiter gave up, the thread frees it */
    struct kh_sb_unbind *next;
};

struct kh_sb {
    kh_bus *bus;

    /* configuration */
    char listen_addr[64];
    int64_t cfg_port;
    char cfg_proto[KH_SB_PROTO_MAX];
    size_t sendq_max, read_max;
    unsigned max_conns;
    int backlog, raw_events, stop_timeout_ms;

    /* once bound */
    char proto[KH_SB_PROTO_MAX];
    _Atomic unsigned port;
    char listen_text[96];            /* "0.0.0.0:6653" */
    char ev_new[KH_SB_EVNAME_MAX], ev_raw[KH_SB_EVNAME_MAX];
    char ev_lost[KH_SB_EVNAME_MAX], ev_error[KH_SB_EVNAME_MAX];

    /* the thread (fds and rbuf: set before it starts, closed after it ends) */
    int lfd, epfd, wakefd;
    pthread_t thread;
    int thread_started;
    uint8_t *rbuf;
    int64_t accept_resume_ns;        /* accepting paused (out of descriptors) until */
    int64_t refused_log_ns;
    struct kytos_conn *grave;

    /* requests to the thread (cmd_mu) */
    pthread_mutex_t cmd_mu;
    pthread_cond_t cmd_cv;
    struct kytos_conn *close_head;   /* each holds a reference */
    struct kh_sb_unbind *unbind_head;
    int orphans_close;               /* a handler registered: close unowned connections */
    int stop_listening, listening_stopped, stop;
    atomic_int running;              /* the thread serves requests */

    /* open connections, sorted by id */
    pthread_mutex_t table_mu;
    struct kytos_conn **conns;
    size_t nconns, cap;
    uint64_t next_id;                /* southbound thread only */

    /* protocol handlers */
    pthread_mutex_t hnd_mu;
    struct {
        char protocol[KH_SB_PROTO_MAX];
        struct kh_sb_handler h;
    } handlers[KH_SB_MAX_HANDLERS];
    size_t nhandlers;
    /* NApps a newer version replaced as handlers: their connections close
     * when they unload */
    kytos_napp *retired[KH_SB_MAX_HANDLERS];
    size_t nretired;

    /* counters */
    atomic_uint_fast64_t conns_total, bytes_in, bytes_out, msgs_in, msgs_out;
    atomic_uint_fast64_t raw_dropped, refused;
    atomic_uint_fast64_t dc[KH_SB_DC_N];
    atomic_size_t sendq_high;        /* the largest send queue seen, bytes */

    /* TLS (sb_tls_*): NULL when the port speaks plain TCP */
    struct ssl_ctx_st *tls_ctx;
    int64_t tls_timeout_ms;
    unsigned nhandshaking;           /* southbound thread only */
    int64_t tls_sweep_ns;            /* southbound thread only */
};

static inline int64_t kh_sb_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline int64_t kh_sb_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- listener.c ---- */
/* Bind and listen on listen:port; sets lfd, port, proto, listen_text and
 * the event names.  0 or -1 with err. */
int kh_sb_listener_open(kh_sb *sb, char *err, size_t errlen);
/* The listening socket is readable: accept what is waiting (a bounded
 * number).  Southbound thread. */
void kh_sb_accept_ready(kh_sb *sb);

/* ---- connection.c ---- */
kytos_conn *kh_sb_conn_new(kh_sb *sb, int fd, const struct sockaddr *peer, uint64_t id);
void kh_sb_conn_ref(kytos_conn *c);
void kh_sb_conn_unref(kytos_conn *c);
/* Any thread.  Copy, or give (data freed whatever happens).  Returns
 * KYTOS_OK, KYTOS_ESTATE, KYTOS_EFULL, KYTOS_EIO, KYTOS_EINVAL,
 * KYTOS_ETOOBIG, KYTOS_ENOMEM (see conn.h). */
int kh_sb_conn_send(kytos_conn *c, const void *data, size_t len, int give, unsigned flags);
/* Any thread: no more sends; the southbound thread will close it with this
 * reason (unless an earlier one).  KYTOS_OK, or KYTOS_ESTATE if already
 * closing.  The caller must not hold c->mu. */
int kh_sb_conn_request_close(kytos_conn *c, int kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same with c->mu held. */
int kh_sb_conn_request_close_locked(kytos_conn *c, int kind, const char *reason);
/* Southbound thread: close the socket, forget the connection, log,
 * on_close, lost event.  An earlier requested reason wins over this one.
 * What is queued is flushed first (if the socket takes it) when the close
 * is an orderly one (a NApp's, an unload, shutdown).  The table's
 * reference moves to the grave (dropped after the turn). */
void kh_sb_conn_teardown(kh_sb *sb, kytos_conn *c, int kind, const char *reason);
/* Table of open connections. */
int kh_sb_table_add(kh_sb *sb, kytos_conn *c);
void kh_sb_table_remove(kh_sb *sb, kytos_conn *c);
kytos_conn *kh_sb_table_get(kh_sb *sb, uint64_t id);   /* referenced, or NULL */
/* Referenced snapshot of the open connections (free the array, unref each). */
kytos_conn **kh_sb_table_snapshot(kh_sb *sb, size_t *n);
/* Messages in buf (whole OpenFlow headers walked; at least 1). */
uint64_t kh_sb_count_messages(const uint8_t *buf, size_t len);
const char *kh_sb_state_name(int state);

/* Any thread, c->mu held, c not closing: bytes for the socket, written at
 * once when nothing is queued, else queued (EPOLLOUT armed).  *give: data
 * is a malloc'd buffer the call takes (set to 0 once taken).  On a failure
 * the close is requested: KYTOS_EIO, KYTOS_EFULL, KYTOS_ENOMEM. */
int kh_sb_conn_out_locked(kytos_conn *c, const void *data, size_t len, int *give, int urgent);

/* ---- tls.c ---- */
/* From the sb_tls_* keys: 0 (TLS or not), -1 with err. */
int kh_sb_tls_init(kh_sb *sb, const kh_config *cfg, char *err, size_t errlen);
void kh_sb_tls_free(kh_sb *sb);
/* Southbound thread: a new connection starts its handshake.  0 or -1. */
int kh_sb_tls_conn_new(kh_sb *sb, kytos_conn *c);
void kh_sb_tls_conn_free(kytos_conn *c);
/* c->mu held: encrypt and send (as kh_sb_conn_out_locked). */
int kh_sb_tls_send_locked(kytos_conn *c, const void *data, size_t len);
/* c->mu held, tearing down: close_notify onto the send queue. */
void kh_sb_tls_shutdown_locked(kytos_conn *c);
/* Southbound thread: n ciphertext bytes are in sb->rbuf. */
void kh_sb_tls_readable(kh_sb *sb, kytos_conn *c, size_t n);
/* Southbound thread: close handshakes older than sb_tls_handshake_timeout_ms. */
void kh_sb_tls_sweep(kh_sb *sb);

/* ---- io_thread.c ---- */
/* Southbound thread: OpenFlow bytes read from c (raw event, framing,
 * delivery); c may be torn down after. */
void kh_sb_plain_in(kh_sb *sb, kytos_conn *c, const uint8_t *buf, size_t n);
void *kh_sb_thread_main(void *arg);
/* Wake the thread up (a request is waiting).  With cmd_mu held. */
void kh_sb_wake_locked(kh_sb *sb);
/* Is the caller the southbound thread? */
int kh_sb_on_thread(const kh_sb *sb);
/* Run a NApp callback under the crash guard; on a fault the NApp is taken
 * out of service.  Returns the callback's result or KH_ECRASHED. */
int kh_sb_guarded(kytos_napp *n, const char *what, int (*fn)(void *), void *arg);

/* ---- handlers.c ---- */
int kh_sb_handle(kh_sb *sb, kytos_napp *n, const struct kytos_conn_handler *h);
/* The handler for this protocol (copied), napp NULL when none. */
void kh_sb_handler_for(kh_sb *sb, const char *protocol, struct kh_sb_handler *out);
/* Southbound thread: close the connections of n (or the unowned ones when
 * n is NULL), calling on_close unless crashed. */
void kh_sb_unbind_now(kh_sb *sb, kytos_napp *n, int crashed);
/* Southbound thread: give a new connection its handler and call on_open.
 * 0, or -1 when the connection was torn down. */
int kh_sb_conn_bind(kh_sb *sb, kytos_conn *c);
/* Southbound thread: the connection is closed; call on_close if owed. */
void kh_sb_conn_closed_cb(kh_sb *sb, kytos_conn *c, const char *reason);

/* ---- events.c ---- */
/* SOURCE of conn.h (new object). */
struct json_object *kh_sb_source_json(const kytos_conn *c);
void kh_sb_publish_new(kh_sb *sb, kytos_conn *c);
void kh_sb_publish_raw(kh_sb *sb, kytos_conn *c, const uint8_t *data, size_t n);
void kh_sb_publish_lost(kh_sb *sb, kytos_conn *c, int kind, const char *reason);
/* kytos/core.<proto>.connection.error for a failed send_notify. */
void kh_sb_publish_error(kh_sb *sb, kytos_napp *n, kytos_conn *c, struct json_object *content);

#endif
