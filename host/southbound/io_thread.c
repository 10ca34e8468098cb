/* host/southbound/io_thread.c - the southbound thread: one epoll loop for the
 * listening socket, every connection and the wake-up eventfd.
 *
 * Level-triggered, and each turn reads at most sb_read_max bytes from each
 * ready connection, so a switch flooding PACKET_INs gets its share and no
 * more: epoll hands back the others' events in the same turn.  Requests
 * from other threads (closes, NApps unloading, stop) are served after each
 * turn; connections torn down during a turn are freed after it, since the
 * turn's event list may still name them. */
#include "southbound/sb_impl.h"
#include "napps/guard.h"
#include "util/log.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#define EVENTS_PER_TURN 64
#define TLS_SWEEP_MS 200

static __thread const kh_sb *tls_self;

int kh_sb_on_thread(const kh_sb *sb) { return tls_self == sb; }

void kh_sb_wake_locked(kh_sb *sb)
{
    uint64_t one = 1;

    if (sb->wakefd >= 0 && write(sb->wakefd, &one, sizeof one) < 0 && errno != EAGAIN)
        kh_log(KH_SB_LOGGER, KH_ERROR, "cannot wake the southbound thread: %s", strerror(errno));
}

int kh_sb_guarded(kytos_napp *n, const char *what, int (*fn)(void *), void *arg)
{
    int rc = kh_guard_call(n, fn, arg);

    if (rc == KH_ECRASHED) {
        char where[160];
        snprintf(where, sizeof where, "its southbound %s callback (signal %d)", what,
                 kh_guard_last_signal());
        kh_napp_crashed(n, where);
    }
    return rc;
}

/* ---- reading ---- */

struct msg_call {
    kytos_conn *c;
    const uint8_t *msg;
    size_t len;
};

static int call_message(void *arg)
{
    struct msg_call *m = arg;
    kytos_conn *c = m->c;
    return c->hnd.cb.on_message(c->hnd.napp, c, m->msg, m->len, c->hnd.cb.ud);
}

/* A close was asked for (by a NApp, a failed send): the connection gets no
 * more messages; the southbound thread tears it down after this turn. */
static int closing(kytos_conn *c)
{
    int v;
    pthread_mutex_lock(&c->mu);
    v = c->closing;
    pthread_mutex_unlock(&c->mu);
    return v;
}

/* The framer's callback: one whole message.  Nonzero stops the framer. */
static int deliver(void *ud, const uint8_t *msg, size_t len)
{
    kytos_conn *c = ud;
    kh_sb *sb = c->sb;
    struct msg_call m = {c, msg, len};
    int rc;

    if (c->dead)
        return 1;
    atomic_fetch_add_explicit(&c->msgs_in, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&sb->msgs_in, 1, memory_order_relaxed);
    if (!c->opened || !c->hnd.napp || !kh_napp_is_active(c->hnd.napp))
        return 0;
    rc = kh_sb_guarded(c->hnd.napp, "on_message", call_message, &m);
    if (c->dead || rc == KH_ECRASHED || closing(c))
        return 1;
    if (rc < 0) {
        char why[200];
        snprintf(why, sizeof why, "closed by %s (on_message: %s)", kh_napp_id(c->hnd.napp),
                 kh_strerror(rc));
        kh_sb_conn_teardown(sb, c, KH_SB_DC_NAPP, why);
        return 1;
    }
    return 0;
}

void kh_sb_plain_in(kh_sb *sb, kytos_conn *c, const uint8_t *buf, size_t n)
{
    struct kh_frame_error fe = {0, 0};
    enum kh_frame_status st;
    char why[200];

    kh_sb_publish_raw(sb, c, buf, n);
    st = kh_framer_feed(&c->fr, buf, n, deliver, c, &fe);
    if (st == KH_FRAME_BAD_VERSION || st == KH_FRAME_BAD_LENGTH) {
        snprintf(why, sizeof why, "bad OpenFlow header (%s: version %u, length %u)",
                 st == KH_FRAME_BAD_VERSION ? "version not 1..6" : "length below 8", fe.version,
                 fe.length);
        kh_sb_conn_teardown(sb, c, KH_SB_DC_FRAMING, why);
    } else if (st == KH_FRAME_NOMEM) {
        kh_sb_conn_teardown(sb, c, KH_SB_DC_IO, "out of memory reading a message");
    }
}

static void on_readable(kh_sb *sb, kytos_conn *c)
{
    char why[200];
    ssize_t n;

    if (closing(c))
        return;
    do
        n = recv(c->fd, sb->rbuf, sb->read_max, 0);
    while (n < 0 && errno == EINTR);
    if (n == 0) {
        kh_sb_conn_teardown(sb, c, KH_SB_DC_PEER, "connection closed by the peer");
        return;
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return;
        snprintf(why, sizeof why, "%s", strerror(errno));
        kh_sb_conn_teardown(sb, c, KH_SB_DC_IO, why);
        return;
    }
    atomic_fetch_add_explicit(&c->bytes_in, (uint64_t)n, memory_order_relaxed);
    atomic_fetch_add_explicit(&sb->bytes_in, (uint64_t)n, memory_order_relaxed);
    if (c->ssl)
        kh_sb_tls_readable(sb, c, (size_t)n);
    else
        kh_sb_plain_in(sb, c, sb->rbuf, (size_t)n);
}

/* ---- writing what queued up ---- */

static void on_writable(kh_sb *sb, kytos_conn *c)
{
    char why[200] = "";
    ssize_t w;

    pthread_mutex_lock(&c->mu);
    w = c->fd >= 0 ? kh_sendq_write(&c->q, c->fd) : 0;
    if (w > 0) {
        atomic_fetch_add_explicit(&c->bytes_out, (uint64_t)w, memory_order_relaxed);
        atomic_fetch_add_explicit(&sb->bytes_out, (uint64_t)w, memory_order_relaxed);
    } else if (w < 0) {
        snprintf(why, sizeof why, "send: %s", strerror(errno));
    }
    if (w >= 0 && !c->q.head && c->out_armed && c->fd >= 0) {
        struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = c};
        if (epoll_ctl(sb->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
            c->out_armed = 0;
    }
    pthread_mutex_unlock(&c->mu);
    if (why[0])
        kh_sb_conn_teardown(sb, c, KH_SB_DC_IO, why);
}

/* ---- requests from other threads ---- */

static void close_listener(kh_sb *sb)
{
    if (sb->lfd >= 0) {
        epoll_ctl(sb->epfd, EPOLL_CTL_DEL, sb->lfd, NULL);
        close(sb->lfd);
        sb->lfd = -1;
        kh_log(KH_SB_LOGGER, KH_INFO, "stopped accepting switch connections on %s",
               sb->listen_text);
    }
}

static void serve(kh_sb *sb, struct kytos_conn *closes, struct kh_sb_unbind *unbinds, int orphans)
{
    while (closes) {
        kytos_conn *c = closes, *next;
        pthread_mutex_lock(&sb->cmd_mu);
        next = c->close_next;
        pthread_mutex_unlock(&sb->cmd_mu);
        /* the reason given with the request wins over this one */
        kh_sb_conn_teardown(sb, c, KH_SB_DC_NAPP, "closed");
        kh_sb_conn_unref(c);
        closes = next;
    }
    if (orphans)
        kh_sb_unbind_now(sb, NULL, 0);
    while (unbinds) {
        struct kh_sb_unbind *u = unbinds;
        unbinds = u->next;
        kh_sb_unbind_now(sb, u->napp, u->crashed);
        pthread_mutex_lock(&sb->cmd_mu);
        u->done = 1;
        if (u->abandoned)
            free(u);
        pthread_cond_broadcast(&sb->cmd_cv);
        pthread_mutex_unlock(&sb->cmd_mu);
    }
}

/* Serve what other threads asked for.  1 when the thread must stop. */
static int serve_requests(kh_sb *sb)
{
    struct kytos_conn *closes;
    struct kh_sb_unbind *unbinds;
    int orphans, stop_listening, stop;

    pthread_mutex_lock(&sb->cmd_mu);
    closes = sb->close_head;
    sb->close_head = NULL;
    unbinds = sb->unbind_head;
    sb->unbind_head = NULL;
    orphans = sb->orphans_close;
    sb->orphans_close = 0;
    stop_listening = sb->stop_listening && !sb->listening_stopped;
    stop = sb->stop;
    pthread_mutex_unlock(&sb->cmd_mu);

    serve(sb, closes, unbinds, orphans);
    if (stop_listening || stop) {
        close_listener(sb);
        pthread_mutex_lock(&sb->cmd_mu);
        sb->listening_stopped = 1;
        pthread_cond_broadcast(&sb->cmd_cv);
        pthread_mutex_unlock(&sb->cmd_mu);
    }
    return stop;
}

static void bury(kh_sb *sb)
{
    while (sb->grave) {
        kytos_conn *c = sb->grave;
        sb->grave = c->grave_next;
        kh_sb_conn_unref(c);
    }
}

/* Stopping: every connection goes (queued bytes flushed if the socket
 * takes them, then FIN), then the requests that came meanwhile. */
static void close_all(kh_sb *sb)
{
    struct kytos_conn *closes;
    struct kh_sb_unbind *unbinds;
    kytos_conn **all;
    size_t i, n;

    all = kh_sb_table_snapshot(sb, &n);
    for (i = 0; i < n; i++) {
        kh_sb_conn_teardown(sb, all[i], KH_SB_DC_SHUTDOWN, "kytosd is shutting down");
        kh_sb_conn_unref(all[i]);
    }
    free(all);
    pthread_mutex_lock(&sb->cmd_mu);
    atomic_store(&sb->running, 0);   /* no request is queued after this */
    closes = sb->close_head;
    sb->close_head = NULL;
    unbinds = sb->unbind_head;
    sb->unbind_head = NULL;
    pthread_mutex_unlock(&sb->cmd_mu);
    serve(sb, closes, unbinds, 0);
    bury(sb);
}

static void resume_accepting(kh_sb *sb)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &sb->lfd};

    sb->accept_resume_ns = 0;
    if (sb->lfd >= 0)
        epoll_ctl(sb->epfd, EPOLL_CTL_ADD, sb->lfd, &ev);
}

void *kh_sb_thread_main(void *arg)
{
    kh_sb *sb = arg;
    struct epoll_event evs[EVENTS_PER_TURN];

    tls_self = sb;
    for (;;) {
        int i, n, timeout = -1;

        if (sb->accept_resume_ns) {
            int64_t left = (sb->accept_resume_ns - kh_sb_mono_ns()) / 1000000;
            timeout = left > 0 ? (int)left + 1 : 0;
        }
        if (sb->nhandshaking && (timeout < 0 || timeout > TLS_SWEEP_MS))
            timeout = TLS_SWEEP_MS;   /* handshakes time out */
        n = epoll_wait(sb->epfd, evs, EVENTS_PER_TURN, timeout);
        if (n < 0) {
            if (errno != EINTR) {
                kh_log(KH_SB_LOGGER, KH_ERROR, "epoll_wait: %s", strerror(errno));
                struct timespec pause = {0, 10 * 1000000L};
                nanosleep(&pause, NULL);
            }
            n = 0;
        }
        if (sb->accept_resume_ns && kh_sb_mono_ns() >= sb->accept_resume_ns)
            resume_accepting(sb);
        for (i = 0; i < n; i++) {
            void *p = evs[i].data.ptr;
            kytos_conn *c;

            if (p == &sb->wakefd) {
                uint64_t v;
                if (read(sb->wakefd, &v, sizeof v) < 0 && errno != EAGAIN)
                    kh_log(KH_SB_LOGGER, KH_ERROR, "eventfd: %s", strerror(errno));
                continue;
            }
            if (p == &sb->lfd) {
                kh_sb_accept_ready(sb);
                continue;
            }
            c = p;
            if (!c->dead && (evs[i].events & EPOLLOUT))
                on_writable(sb, c);
            if (!c->dead && (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
                on_readable(sb, c);
        }
        if (sb->nhandshaking && kh_sb_mono_ns() - sb->tls_sweep_ns >= TLS_SWEEP_MS * 1000000LL) {
            sb->tls_sweep_ns = kh_sb_mono_ns();
            kh_sb_tls_sweep(sb);
        }
        if (serve_requests(sb))
            break;
        bury(sb);
    }
    close_all(sb);
    return NULL;
}
