/* host/http/http_server.c - the libmicrohttpd glue.
 *
 * Per request: the URI log callback creates the kytos_req (MHD decodes the
 * URL it passes later, so we keep the raw target and decode per segment
 * ourselves).  First access-handler call: route and early limits.  Body
 * calls: append with the cap.  Final call: dispatch; pooled handlers run
 * while the connection is suspended and resume it when the response is
 * final; MHD then calls us again and we queue the response.  Responses are
 * always queued on the second call or later, so keep-alive works on 0.9.75
 * (DESIGN.md). */
#include "http/http_server.h"
#include "http/acceptor.h"
#include "http/client_group.h"
#include "http/connlimit.h"
#include "http/idle_conns.h"
#include "http/stream.h"
#include "util/log.h"
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define LOGGER "kytos.core.api_server"

struct kh_http {
    struct kh_http_ctx *ctx;
    struct MHD_Daemon *d;
    unsigned port;
    atomic_int_fast64_t connections;
    atomic_uint_fast64_t connections_total;
    atomic_int_fast64_t live;    /* requests begun and not yet sent (or dropped) */
    int listen_fd;
    struct kh_acceptor *acc;     /* our accept loop (acceptor.c) */
    struct kh_connlimit *limits; /* api_max_connections, api_per_ip_connection_limit */
    struct kh_idle_conns *idle;  /* connections between requests (idle_conns.h) */
    int64_t reclaim_idle_ms;     /* api_reclaim_idle_ms: -1 never */
    atomic_int_fast64_t refused_log_ms;
    int tls;                     /* HTTPS (api_tls_cert, api_tls_key) */
    struct kh_http_gate *gate;   /* this server's, in ctx (http_ctx.h) */
    char *tls_cert, *tls_key;    /* PEM text, kept while the daemon runs */
};

/* A PEM file's text (bounded), or NULL with err. */
static char *read_pem(const char *what, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "re");
    char *buf;
    size_t n;

    if (!f) {
        snprintf(err, errlen, "%s %s: %s", what, path, strerror(errno));
        return NULL;
    }
    buf = malloc(1 << 20);
    n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    if (buf && (n == 0 || !feof(f) || !strstr((buf[n] = '\0', buf), "-----BEGIN "))) {
        snprintf(err, errlen, "%s %s: not a PEM file (or larger than 1 MB)", what, path);
        free(buf);
        buf = NULL;
    } else if (!buf) {
        snprintf(err, errlen, "out of memory");
    }
    fclose(f);
    return buf;
}

static void free_pem(char *p)
{
    if (p) {
        explicit_bzero(p, strlen(p));   /* the key */
        free(p);
    }
}

/* An address as text (empty if not IPv4/IPv6). */
static void addr_text(const struct sockaddr *sa, char *out, size_t len)
{
    out[0] = '\0';
    if (sa && sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out, (socklen_t)len);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out, (socklen_t)len);
}

/* A refusal written on a fresh socket (it fits in any send buffer). */
static void send_refusal(int fd, unsigned status, const char *reason, const char *ctype,
                         const char *body)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf,
                     "HTTP/1.1 %u %s\r\nContent-Type: %s\r\nRetry-After: 1\r\n"
                     "Access-Control-Allow-Origin: *\r\nConnection: close\r\nContent-Length: %zu\r\n\r\n%s",
                     status, reason, ctype, strlen(body), body);
    if (n > 0 && (size_t)n < sizeof buf)
        (void)send(fd, buf, (size_t)n, MSG_NOSIGNAL);
}

/* The accept loop's callback: over a limit, an answer instead of the reset
 * libmicrohttpd's own limits give (connlimit.h); 1 then, and the loop
 * closes the socket gently. */
static int add_connection(void *ud, int fd, const struct sockaddr *addr, socklen_t len)
{
    struct kh_http *s = ud;
    enum kh_conn_verdict v = kh_connlimit_take(s->limits, addr);
    char peer[KH_CLIENT_TEXT_LEN], body[256];
    int64_t now, last;

    if (v == KH_CONN_TOTAL && s->reclaim_idle_ms >= 0 && !kh_connlimit_ip_full(s->limits, addr)) {
        /* every slot taken: the connection idle the longest gives its
         * slot, if it has been idle long enough (idle_conns.h); not for a
         * client that its own limit refuses anyway.  (This thread is the
         * only one that takes slots: the check still holds below.) */
        struct sockaddr_storage old;
        if (kh_idle_reclaim(s->idle, kh_mono_ns() / 1000000, s->reclaim_idle_ms, &old) == 0) {
            kh_connlimit_put(s->limits, (const struct sockaddr *)&old);
            atomic_fetch_add(&s->ctx->reclaimed_idle, 1);
            v = kh_connlimit_take(s->limits, addr);
        }
    }
    if (v == KH_CONN_OK) {
        /* on failure (memory) libmicrohttpd closes fd itself */
        if (MHD_add_connection(s->d, fd, addr, len) != MHD_YES)
            kh_connlimit_put(s->limits, addr);
        return 0;
    }
    addr_text(addr, body, sizeof body);
    kh_client_group_text(body, s->ctx->client_v6_prefix, peer, sizeof peer);
    if (s->tls) {
        /* no plain-text answer on a TLS port: the connection just closes */
        atomic_fetch_add(v == KH_CONN_TOTAL ? &s->ctx->rejected_503 : &s->ctx->rejected_429, 1);
    } else if (v == KH_CONN_TOTAL) {
        atomic_fetch_add(&s->ctx->rejected_503, 1);
        send_refusal(fd, 503, "Service Unavailable", "text/plain; charset=utf-8", "Service Unavailable");
    } else {
        atomic_fetch_add(&s->ctx->rejected_429, 1);
        snprintf(body, sizeof body,
                 "{\"description\": \"Too Many Requests: more than %u connections from %s\", \"code\": 429}",
                 kh_connlimit_max_per_ip(s->limits), peer);
        send_refusal(fd, 429, "Too Many Requests", "application/json", body);
    }
    now = kh_mono_ns() / 1000000;
    last = atomic_load(&s->refused_log_ms);
    if (now - last >= 1000 && atomic_compare_exchange_strong(&s->refused_log_ms, &last, now))
        kh_log(LOGGER, KH_WARNING, "connection from %s refused: %s (%u)", peer,
               v == KH_CONN_TOTAL ? "api_max_connections" : "api_per_ip_connection_limit",
               v == KH_CONN_TOTAL ? kh_connlimit_max_total(s->limits)
                                  : kh_connlimit_max_per_ip(s->limits));
    return 1;
}

/* The listening socket, ours (see acceptor.c); -1 with err. */
static int listen_on(const struct sockaddr_storage *ss, socklen_t sl, int backlog, char *err,
                     size_t errlen)
{
    int one = 1, fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (const struct sockaddr *)ss, sl) != 0 || listen(fd, backlog) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

struct conn_rec;

struct http_ctx {
    struct MHD_Connection *conn;
    struct conn_rec *rec;    /* its connection's (NULL when out of memory) */
    struct kh_http_gate *gate; /* its server's (http_ctx.h) */
    char *raw_target;
    atomic_int ready;        /* response final */
    atomic_int resume_owed;  /* an inline handler deferred: suspended, not yet resumed */
    int started, dispatched, suspended, queued;
};

static const char *http_header(const kytos_req *r, const char *name)
{
    struct http_ctx *c = r->tp_ctx;
    return MHD_lookup_connection_value(c->conn, MHD_HEADER_KIND, name);
}

static void http_complete(kytos_req *r)
{
    struct http_ctx *c = r->tp_ctx;
    struct kh_http_ctx *h = r->ctx;

    if (!atomic_exchange(&c->ready, 1))
        atomic_fetch_sub(&c->gate->busy, 1);   /* counted in run() */
    /* (seq_cst both sides: kh_http_stop sets its gate's stopped, then
     * waits for http_resuming to be 0, so no resume runs into a stopped
     * daemon) */
    atomic_fetch_add(&h->http_resuming, 1);
    if (!atomic_load(&c->gate->stopped)) {
        if (c->suspended)
            MHD_resume_connection(c->conn);
        else if (atomic_exchange(&c->resume_owed, 0))
            MHD_resume_connection(c->conn);   /* see defer_inline() */
    }
    atomic_fetch_sub(&h->http_resuming, 1);
}

/* An inline handler returned KYTOS_DEFERRED: the answer comes from another
 * thread, maybe already.  Suspend, then whoever sees the other side done
 * (this thread, or http_complete) resumes, exactly once. */
static void defer_inline(struct http_ctx *c)
{
    MHD_suspend_connection(c->conn);
    atomic_store(&c->resume_owed, 1);
    if (atomic_load(&c->ready) && atomic_exchange(&c->resume_owed, 0))
        MHD_resume_connection(c->conn);
}

static const struct kh_transport http_transport = {http_header, http_complete};

/* A request's client address as text: the size of kytos_req's peer. */
#define PEER_LEN sizeof(((kytos_req *)0)->peer)

/* Per connection (libmicrohttpd's socket context): its address as text,
 * made once (inet_ntop formats with sprintf: 1-2% of a small request's
 * CPU, every request), and its place among the idle ones. */
struct conn_rec {
    char peer[PEER_LEN];
    struct kh_idle_link link;
};

static struct conn_rec *conn_rec_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

/* The client's address as text, into out[PEER_LEN] (empty if unknown). */
static void peer_text(struct MHD_Connection *conn, char *out)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

    addr_text(ci ? ci->client_addr : NULL, out, PEER_LEN);
}

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *conn)
{
    struct kh_http *s = cls;
    kytos_req *r = kh_req_new(s->ctx, &http_transport, NULL);
    struct http_ctx *c;
    struct conn_rec *rec;

    if (!r)
        return NULL;
    atomic_fetch_add(&s->live, 1);
    c = kh_req_alloc(r, sizeof *c);
    if (!c) {
        atomic_fetch_sub(&s->live, 1);
        kh_req_unref(r);
        return NULL;
    }
    memset(c, 0, sizeof *c);
    c->conn = conn;
    c->gate = s->gate;
    c->raw_target = kh_req_alloc(r, strlen(uri) + 1);
    if (c->raw_target)
        strcpy(c->raw_target, uri);
    r->tp_ctx = c;
    {   /* the client's port, for the audit trail (no formatting: cheap) */
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        const struct sockaddr *sa = ci ? ci->client_addr : NULL;
        if (sa && sa->sa_family == AF_INET)
            r->peer_port = ntohs(((const struct sockaddr_in *)(const void *)sa)->sin_port);
        else if (sa && sa->sa_family == AF_INET6)
            r->peer_port = ntohs(((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
    }
    if ((rec = conn_rec_of(conn))) {
        memcpy(r->peer, rec->peer, PEER_LEN);
        c->rec = rec;
    } else {
        peer_text(conn, r->peer);
    }
    return r;
}

static void free_body(void *p) { free(p); }

struct static_body {
    void (*release)(void *ud);
    void *ud;
};

static void release_static(void *p)
{
    struct static_body *sb = p;
    if (sb->release)
        sb->release(sb->ud);
    free(sb);
}

/* A streamed body (http/stream.h): libmicrohttpd pulls from the stream;
 * with nothing queued the connection is suspended (only allowed from this
 * callback) until a write or close resumes it. */
struct stream_ctx {
    struct kh_stream *st;
    struct MHD_Connection *conn;
    struct kh_http_ctx *h;
    struct kh_http_gate *gate;
};

static void stream_park(void *ud)
{
    struct stream_ctx *x = ud;
    MHD_suspend_connection(x->conn);
}

static void stream_wake(void *ud)
{
    struct stream_ctx *x = ud;
    /* as http_complete: never into a daemon that is stopping */
    atomic_fetch_add(&x->h->http_resuming, 1);
    if (!atomic_load(&x->gate->stopped))
        MHD_resume_connection(x->conn);
    atomic_fetch_sub(&x->h->http_resuming, 1);
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct stream_ctx *x = cls;
    ssize_t n = kh_stream_read(x->st, buf, max, stream_park, x);
    (void)pos;
    return n < 0 ? MHD_CONTENT_READER_END_OF_STREAM : n;
}

static void stream_gone(void *cls)
{
    struct stream_ctx *x = cls;
    kh_stream_detach(x->st);   /* no wake after this: the connection may go */
    kh_stream_unref(x->st);
    free(x);
}

static struct MHD_Response *stream_response(kytos_req *r, struct MHD_Connection *conn)
{
    struct stream_ctx *x = malloc(sizeof *x);
    struct MHD_Response *resp;

    if (!x)
        return NULL;
    x->st = r->stream;
    x->conn = conn;
    {   /* the kernel's share bounded too: without this, a client that does
         * not read let the socket's send buffer grow (autotuned up to
         * tcp_wmem's 4 MB) before the stream's own cap was ever reached */
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        size_t cap = kh_stream_cap(x->st);
        int sz = cap > (1u << 30) ? 1 << 30 : (int)cap;
        if (ci)
            (void)setsockopt(ci->connect_fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
    }
    x->h = r->ctx;
    x->gate = ((struct http_ctx *)r->tp_ctx)->gate;
    r->stream = NULL;   /* its reference is x's now */
    kh_stream_set_wake(x->st, stream_wake, x);
    resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, stream_read, x, stream_gone);
    if (!resp)
        stream_gone(x);
    return resp;
}

static enum MHD_Result queue_response(struct kh_http *s, kytos_req *r)
{
    struct http_ctx *c = r->tp_ctx;
    struct MHD_Response *resp;
    enum MHD_Result ret;
    char *body;
    size_t len, i;

    c->queued = 1;
    pthread_mutex_lock(&r->mu);
    body = r->resp_body;
    len = body ? r->resp_len : 0;
    if (r->stream) {
        pthread_mutex_unlock(&r->mu);
        if (!(resp = stream_response(r, c->conn)))
            return MHD_NO;
    } else if (r->resp_static) {
        /* zero copy: MHD hands the NApp's buffer back when it is sent */
        struct static_body *sb = malloc(sizeof *sb);
        if (!sb) {
            pthread_mutex_unlock(&r->mu);
            return MHD_NO;   /* the request frees the body */
        }
        sb->release = r->resp_release;
        sb->ud = r->resp_release_ud;
        r->resp_static = 0;
        r->resp_release = NULL;
        r->resp_body = NULL;
        pthread_mutex_unlock(&r->mu);
        resp = MHD_create_response_from_buffer_with_free_callback_cls(len, body, release_static, sb);
        if (!resp) {
            release_static(sb);
            return MHD_NO;
        }
    } else {
        r->resp_body = NULL;
        pthread_mutex_unlock(&r->mu);
        resp = MHD_create_response_from_buffer_with_free_callback_cls(len, body, free_body, body);
        if (!resp) {
            free(body);
            return MHD_NO;
        }
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                            r->content_type[0] ? r->content_type : "application/json");
    MHD_add_response_header(resp, "Access-Control-Allow-Origin", "*");
    for (i = 0; i < r->nresp_headers; i++)
        MHD_add_response_header(resp, r->resp_headers[i].name, r->resp_headers[i].value);
    if (r->close_connection || atomic_load(&s->ctx->draining))
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    ret = MHD_queue_response(c->conn, r->status ? r->status : 500, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* A request refused before its body (bad target, no route, wrong
 * method) is answered at once, instead of on the final call, when its
 * client waits for 100 Continue or declares a body larger than any route
 * takes: reading that body would only be thrown away. */
static int refuse_at_once(struct MHD_Connection *conn, const kytos_req *r)
{
    const char *expect = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);
    const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

    if (expect && strcasecmp(expect, "100-continue") == 0)
        return 1;
    if (cl) {
        char *end;
        unsigned long long n = strtoull(cl, &end, 10);
        if (*end == '\0' && n > r->ctx->max_body)
            return 1;
    }
    return 0;
}

/* Hand r to the pipeline, counted busy on its server until http_complete. */
static void run(struct http_ctx *c, kytos_req *r)
{
    c->dispatched = 1;
    atomic_fetch_add(&c->gate->busy, 1);
    kh_dispatch_run(r);
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *conn, const char *url,
                                      const char *method, const char *version,
                                      const char *upload_data, size_t *upload_data_size,
                                      void **con_cls)
{
    struct kh_http *s = cls;
    kytos_req *r = *con_cls;
    struct http_ctx *c;

    (void)url;
    (void)version;
    if (!r)
        return MHD_NO;   /* out of memory in uri_log: drop the connection */
    c = r->tp_ctx;
    if (!c->started) {
        char err[128];
        unsigned st;
        const char *cl;

        c->started = 1;
        /* its headers are all in: busy until answered.  Before, it stays
         * reclaimable, so a client that trickles its headers (slowloris)
         * cannot keep a slot from a new one at the limit. */
        if (c->rec && s->reclaim_idle_ms >= 0)
            kh_idle_leave(s->idle, &c->rec->link);
        st = c->raw_target ? (unsigned)kh_req_set_target(r, method, c->raw_target, err, sizeof err) : 500;
        if (st)
            kh_req_set_error(r, st, c->raw_target ? err : "out of memory");
        else
            kh_dispatch_route(r);
        cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (!r->status && cl) {
            char *end;
            unsigned long long n = strtoull(cl, &end, 10);
            if (*end == '\0' && n > r->body_limit) {
                /* refuse before reading: MHD discards the body and closes */
                kh_resp_error(r, 413, "Request body larger than %zu bytes", r->body_limit);
                r->close_connection = 1;
                r->state = KH_REQ_COMPLETED;
                atomic_fetch_add(&s->ctx->served, 1);
                return queue_response(s, r);
            }
        }
        if (r->status && refuse_at_once(conn, r)) {
            /* the final answer now: libmicrohttpd sends 100 Continue
             * after this call unless a response is queued in it, and the
             * client would then send a body nobody reads.  Queued on the
             * first call, it goes out with Connection: close (DESIGN.md),
             * and libmicrohttpd does not read the body. */
            r->close_connection = 1;
            run(c, r);   /* routing answered: completes at once */
            return queue_response(s, r);
        }
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (!r->status)
            kh_req_append_body(r, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (c->queued)
        return MHD_YES;
    if (atomic_load(&c->ready))
        return queue_response(s, r);
    if (c->dispatched)
        return MHD_YES;   /* spurious call while the handler runs */
    if (!r->status && !(r->match.route && (r->match.route->flags & KYTOS_ROUTE_INLINE))) {
        /* suspend first: the worker may finish before dispatch returns */
        c->suspended = 1;
        MHD_suspend_connection(conn);
        run(c, r);
        return MHD_YES;
    }
    run(c, r);
    if (atomic_load(&c->ready))
        return queue_response(s, r);
    defer_inline(c);
    return MHD_YES;
}

static void request_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                              enum MHD_RequestTerminationCode toe)
{
    kytos_req *r = *con_cls;
    struct kh_http *s = cls;
    /* answered, and the connection stays open: idle from now (nothing
     * looked up when reclaiming is off) */
    if (s->reclaim_idle_ms >= 0 && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK) {
        struct conn_rec *rec = conn_rec_of(conn);
        if (rec)
            kh_idle_enter(s->idle, &rec->link, kh_mono_ns() / 1000000);
    }
    if (r) {
        atomic_fetch_sub(&s->live, 1);
        struct http_ctx *c = r->tp_ctx;
        if (c && c->started && !c->dispatched && !r->status)
            kh_req_set_error(r, 400, "Bad Request");   /* client went away mid-body */
        kh_req_unref(r);
    }
    *con_cls = NULL;
}

static void connection_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                              enum MHD_ConnectionNotificationCode toe)
{
    struct kh_http *s = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        /* NULL when out of memory: uri_log then formats the address per
         * request, and the connection is never reclaimed */
        struct conn_rec *rec = calloc(1, sizeof *rec);
        const union MHD_ConnectionInfo *fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        if (rec) {
            peer_text(conn, rec->peer);
            rec->link.fd = fd ? fd->connect_fd : -1;
            if (ci && ci->client_addr)
                memcpy(&rec->link.addr, ci->client_addr,
                       ci->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                              : sizeof(struct sockaddr_in));
            /* idle until its first request's headers are in */
            if (s->reclaim_idle_ms >= 0)
                kh_idle_enter(s->idle, &rec->link, kh_mono_ns() / 1000000);
        }
        *socket_context = rec;
        atomic_fetch_add(&s->connections, 1);
        atomic_fetch_add(&s->connections_total, 1);
    } else {
        /* (libmicrohttpd closes the descriptor after this returns) */
        struct conn_rec *rec = *socket_context;
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        bool given = rec && kh_idle_closed(s->idle, &rec->link);
        free(rec);
        *socket_context = NULL;
        atomic_fetch_sub(&s->connections, 1);
        if (!given)   /* a reclaimed one's slot went to a new client */
            kh_connlimit_put(s->limits, ci ? ci->client_addr : NULL);
    }
}


static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
    char msg[512];
    size_t l;
    (void)cls;
    vsnprintf(msg, sizeof msg, fmt, ap);
    l = strlen(msg);
    while (l && (msg[l - 1] == '\n' || msg[l - 1] == '\r'))
        msg[--l] = '\0';
    kh_log("kytos.core.api_server.mhd", KH_DEBUG, "%s", msg);
}

static void mhd_panic(void *cls, const char *file, unsigned int line, const char *reason)
{
    (void)cls;
    kh_log(LOGGER, KH_CRITICAL, "libmicrohttpd panic at %s:%u: %s", file ? file : "?", line,
           reason ? reason : "");
    kh_log_stop();
    abort();
}

/* A connection count setting: 0 (none) up to 1<<20 (conf_keys.c). */
static unsigned config_count(const kh_config *cfg, const char *key)
{
    return (unsigned)kh_config_int(cfg, key);
}

static unsigned mhd_connection_limit(unsigned max_conns, long io)
{
    uint64_t per_thread = (uint64_t)(max_conns ? max_conns : 1u << 16) + 1024;
    uint64_t total = per_thread * (uint64_t)io;
    return total > (1u << 24) ? (1u << 24) : (unsigned)total;
}

/* Descriptors: the soft limit raised to the hard one, since every
 * connection is one; a warning when even that is below the connection
 * limit (past it, new clients wait in the listen queue). */
static void raise_fd_limit(unsigned max_conns)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    if (rl.rlim_cur < rl.rlim_max) {
        rlim_t want = rl.rlim_max;
        if (want == RLIM_INFINITY || want > (1u << 20))
            want = 1u << 20;
        if (want > rl.rlim_cur) {
            rl.rlim_cur = want;
            (void)setrlimit(RLIMIT_NOFILE, &rl);
            (void)getrlimit(RLIMIT_NOFILE, &rl);
        }
    }
    if (max_conns && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)max_conns + 256)
        kh_log(LOGGER, KH_WARNING,
               "open files limited to %llu: fewer than api_max_connections (%u) connections fit",
               (unsigned long long)rl.rlim_cur, max_conns);
}

struct kh_http *kh_http_start(struct kh_http_ctx *h, const kh_config *cfg, char *err, size_t errlen)
{
    return kh_http_start_on(h, cfg, kh_config_int(cfg, "api_port"), 1, err, errlen);
}

struct kh_http *kh_http_start_on(struct kh_http_ctx *h, const kh_config *cfg, int64_t port,
                                 int tls_ok, char *err, size_t errlen)
{
    struct kh_http *s = calloc(1, sizeof *s);
    const char *listen = kh_config_str(cfg, "listen");
    long io = (long)kh_config_int(cfg, "api_io_threads");
    const char *poller = kh_config_str(cfg, "api_poller");
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD |
                     (strcmp(poller, "epoll") == 0 ? MHD_USE_EPOLL : MHD_USE_POLL) |
                     MHD_ALLOW_SUSPEND_RESUME | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG;
    struct sockaddr_storage ss;
    socklen_t sl;
    unsigned max_conns;

    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->ctx = h;
    {
        int g = atomic_fetch_add(&h->http_gates, 1);
        if (g >= KH_HTTP_GATES) {
            snprintf(err, errlen, "more than %d HTTP servers on one front door", KH_HTTP_GATES);
            free(s);
            return NULL;
        }
        s->gate = &h->http_gate[g];
    }
    if (port < 0 || port > 65535) {
        snprintf(err, errlen, "api_port %lld out of range", (long long)port);
        free(s);
        return NULL;
    }
    memset(&ss, 0, sizeof ss);
    if (strchr(listen, ':')) {
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        if (inet_pton(AF_INET6, listen, &a6->sin6_addr) != 1) {
            snprintf(err, errlen, "listen: bad IPv6 address '%s'", listen);
            free(s);
            return NULL;
        }
        flags |= MHD_USE_IPv6;
        sl = sizeof *a6;
    } else {
        struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        if (inet_pton(AF_INET, listen, &a4->sin_addr) != 1) {
            snprintf(err, errlen, "listen: bad IPv4 address '%s'", listen);
            free(s);
            return NULL;
        }
        sl = sizeof *a4;
    }
    s->listen_fd = listen_on(&ss, sl, (int)kh_config_int(cfg, "api_listen_backlog"), err, errlen);
    if (s->listen_fd < 0) {
        char why[200];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "cannot listen on %s:%lld: %s", listen, (long long)port, why);
        free(s);
        return NULL;
    }
    if (io <= 0)
        io = sysconf(_SC_NPROCESSORS_ONLN);
    if (io <= 0)
        io = 1;
    if (io > 64)
        io = 64;
    MHD_set_panic_func(mhd_panic, NULL);
    max_conns = config_count(cfg, "api_max_connections");
    raise_fd_limit(max_conns);
    s->limits = kh_connlimit_new(max_conns, config_count(cfg, "api_per_ip_connection_limit"),
                                 h->client_v6_prefix);
    s->idle = kh_idle_conns_new();
    if (!s->limits || !s->idle) {
        snprintf(err, errlen, "out of memory");
        close(s->listen_fd);
        kh_connlimit_free(s->limits);
        kh_idle_conns_free(s->idle);
        free(s);
        return NULL;
    }
    s->reclaim_idle_ms = kh_config_int(cfg, "api_reclaim_idle_ms");
    if (s->reclaim_idle_ms < 0)
        s->reclaim_idle_ms = -1;
    {
        const char *cert = kh_config_str(cfg, "api_tls_cert"), *key = kh_config_str(cfg, "api_tls_key");
        if (tls_ok && ((cert && *cert) || (key && *key))) {
            if (!(cert && *cert) || !(key && *key))
                snprintf(err, errlen, "HTTPS needs both api_tls_cert and api_tls_key");
            else if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
                snprintf(err, errlen, "this libmicrohttpd was built without TLS: no HTTPS");
            else if ((s->tls_cert = read_pem("api_tls_cert", cert, err, errlen)) &&
                     (s->tls_key = read_pem("api_tls_key", key, err, errlen)))
                s->tls = 1;
            if (!s->tls) {
                close(s->listen_fd);
                kh_connlimit_free(s->limits);
                kh_idle_conns_free(s->idle);
                free_pem(s->tls_cert);
                free(s);
                return NULL;
            }
            flags |= MHD_USE_TLS;
        }
    }
    struct MHD_OptionItem tls_opts[] = {
        {s->tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, s->tls_cert},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, s->tls_key},
        {MHD_OPTION_END, 0, NULL},
    };
    s->d = MHD_start_daemon(
        flags, 0, NULL, NULL, access_handler, s,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)io,
        /* the limits are kytosd's (connlimit.h); libmicrohttpd's own is
         * set out of the way: it splits it evenly over its I/O threads and
         * gives a connection to a thread by its socket's number, so each
         * thread's share is kytosd's whole limit, plus room for connections
         * it is still closing */
        MHD_OPTION_CONNECTION_LIMIT, mhd_connection_limit(max_conns, io),
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)kh_config_int(cfg, "api_connection_timeout"),
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)kh_config_int(cfg, "api_connection_memory"),
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, s,
        MHD_OPTION_NOTIFY_COMPLETED, request_completed, s,
        MHD_OPTION_NOTIFY_CONNECTION, connection_notify, s,
        MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, s,
        MHD_OPTION_ARRAY, tls_opts,
        MHD_OPTION_END);
    if (!s->d) {
        snprintf(err, errlen, "cannot start the HTTP server on %s:%lld (%s)", listen, (long long)port,
                 s->tls ? "is the certificate or key bad, or do they not match?" : "a bad option?");
        free_pem(s->tls_cert);
        free_pem(s->tls_key);
        close(s->listen_fd);
        kh_connlimit_free(s->limits);
        kh_idle_conns_free(s->idle);
        free(s);
        return NULL;
    }
    sl = sizeof ss;
    if (getsockname(s->listen_fd, (struct sockaddr *)&ss, &sl) == 0)
        s->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                 : ((struct sockaddr_in *)&ss)->sin_port);
    else
        s->port = (unsigned)port;
    if (!(s->acc = kh_acceptor_start(s->listen_fd, add_connection, s, err, errlen))) {
        MHD_stop_daemon(s->d);
        free_pem(s->tls_cert);
        free_pem(s->tls_key);
        close(s->listen_fd);
        kh_connlimit_free(s->limits);
        kh_idle_conns_free(s->idle);
        free(s);
        return NULL;
    }
    atomic_fetch_add(&h->http_running, 1);
    kh_log(LOGGER, KH_INFO, "listening on %s:%u (%ld I/O threads%s)", listen, s->port, io,
           s->tls ? ", HTTPS" : "");
    return s;
}

unsigned kh_http_port(const struct kh_http *s) { return s->port; }
int kh_http_tls(const struct kh_http *s) { return s && s->tls; }

/* Is r one of gate's server's requests?  (kh_dispatch_answer_all) */
static int of_gate(const kytos_req *r, void *gate)
{
    return r->tp == &http_transport && ((const struct http_ctx *)r->tp_ctx)->gate == gate;
}

void kh_http_stop(struct kh_http *s, int timeout_ms)
{
    int64_t deadline = kh_mono_ns() + (int64_t)timeout_ms * 1000000;
    int last;

    if (!s)
        return;
    /* the last server to stop also answers in-process requests (kytos_call);
     * another only its own: HTTPS goes on while plain HTTP stops */
    last = atomic_fetch_sub(&s->ctx->http_running, 1) == 1;
    /* no new connections: the accept loop goes, then the socket */
    kh_acceptor_stop(s->acc);
    close(s->listen_fd);
    /* requests in flight finish (or the watchdog answers 504 for them),
     * and their answers are written: a request stops counting busy
     * when its answer is final, a little before MHD has sent it */
    while ((last ? atomic_load(&s->ctx->in_flight) : atomic_load(&s->gate->busy)) > 0 &&
           kh_mono_ns() < deadline) {
        struct timespec ts = {0, 5 * 1000000L};
        nanosleep(&ts, NULL);  /* polled: MHD has no completion signal to wait on */
    }
    /* what is still waiting for its handler is answered 503 now:
     * libmicrohttpd cannot stop with a connection suspended (it panics),
     * and the client gets an answer rather than a closed connection */
    if ((last ? atomic_load(&s->ctx->in_flight) : atomic_load(&s->gate->busy)) > 0) {
        kh_dispatch_answer_all(s->ctx, 503, "kytosd is shutting down", last ? NULL : of_gate,
                               s->gate);
        deadline = kh_mono_ns() + 1000000000LL;   /* for the answers to go out */
    }
    /* (a client that never finishes sending its request is not waited for
     * past a second) */
    if (deadline > kh_mono_ns() + 1000000000LL)
        deadline = kh_mono_ns() + 1000000000LL;
    while (atomic_load(&s->live) > 0 && kh_mono_ns() < deadline) {
        struct timespec ts = {0, 2 * 1000000L};
        nanosleep(&ts, NULL);
    }
    /* a handler still running past this point answers into the void: its
     * connection goes with the daemon (libmicrohttpd frees suspended ones) */
    atomic_store(&s->gate->stopped, 1);
    while (atomic_load(&s->ctx->http_resuming) > 0)
        sched_yield();
    MHD_stop_daemon(s->d);
    kh_connlimit_free(s->limits);   /* after the daemon: its closes count down */
    kh_idle_conns_free(s->idle);
    free_pem(s->tls_cert);
    free_pem(s->tls_key);
    free(s);
}
