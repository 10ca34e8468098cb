/* host/southbound/connection.c - a switch connection: creation, references,
 * sending (any thread), closing, and the table of open connections. */
#include "southbound/sb_impl.h"
#include "util/log.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

const char *const kh_sb_dc_names[KH_SB_DC_N] = {
    "peer_closed", "io_error", "bad_framing", "send_queue_full",
    "closed_by_napp", "napp_unloaded", "refused", "shutdown", "tls_refused"};

const char *kh_sb_state_name(int state)
{
    static const char *const names[] = {"NEW", "SETUP", "ESTABLISHED", "FAILED", "FINISHED"};
    return state >= 0 && state <= KYTOS_CONN_FINISHED ? names[state] : "?";
}

kytos_conn *kh_sb_conn_new(kh_sb *sb, int fd, const struct sockaddr *peer, uint64_t id)
{
    kytos_conn *c = calloc(1, sizeof *c);

    if (!c)
        return NULL;
    atomic_init(&c->refs, 1);
    c->sb = sb;
    c->id = id;
    c->fd = fd;
    c->connected_at_ms = kh_sb_now_ms();
    c->connected_mono_ns = kh_sb_mono_ns();
    if (peer->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)peer;
        inet_ntop(AF_INET6, &a->sin6_addr, c->address, sizeof c->address);
        c->port = ntohs(a->sin6_port);
        snprintf(c->peer, sizeof c->peer, "[%s]:%u", c->address, c->port);
    } else {
        const struct sockaddr_in *a = (const struct sockaddr_in *)peer;
        inet_ntop(AF_INET, &a->sin_addr, c->address, sizeof c->address);
        c->port = ntohs(a->sin_port);
        snprintf(c->peer, sizeof c->peer, "%s:%u", c->address, c->port);
    }
    atomic_init(&c->state, KYTOS_CONN_NEW);
    atomic_init(&c->data, NULL);
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

void kh_sb_conn_ref(kytos_conn *c)
{
    atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
}

void kh_sb_conn_unref(kytos_conn *c)
{
    if (!c || atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (c->fd >= 0)            /* never served (start-up failure) */
        close(c->fd);
    kh_sendq_clear(&c->q);
    kh_framer_reset(&c->fr);
    kh_sb_tls_conn_free(c);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

uint64_t kh_sb_count_messages(const uint8_t *buf, size_t len)
{
    uint64_t n = 0;
    size_t off = 0;

    while (len - off >= KH_OFP_HEADER_LEN) {
        size_t l = (size_t)buf[off + 2] << 8 | buf[off + 3];
        if (l < KH_OFP_HEADER_LEN || l > len - off)
            break;
        n++;
        off += l;
    }
    return n ? n : 1;
}

/* ---- closing ---- */

int kh_sb_conn_request_close_locked(kytos_conn *c, int kind, const char *reason)
{
    kh_sb *sb = c->sb;

    if (c->closing)
        return KYTOS_ESTATE;
    c->closing = 1;
    c->close_kind = kind;
    snprintf(c->close_reason, sizeof c->close_reason, "%s", reason);
    pthread_mutex_lock(&sb->cmd_mu);
    if (!c->close_listed) {
        c->close_listed = 1;
        kh_sb_conn_ref(c);
        c->close_next = sb->close_head;
        sb->close_head = c;
    }
    kh_sb_wake_locked(sb);
    pthread_mutex_unlock(&sb->cmd_mu);
    return KYTOS_OK;
}

int kh_sb_conn_request_close(kytos_conn *c, int kind, const char *fmt, ...)
{
    char reason[200];
    va_list ap;
    int rc;

    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&c->mu);
    rc = kh_sb_conn_request_close_locked(c, kind, reason);
    pthread_mutex_unlock(&c->mu);
    return rc;
}

static int orderly(int kind)
{
    return kind == KH_SB_DC_NAPP || kind == KH_SB_DC_UNLOAD || kind == KH_SB_DC_SHUTDOWN ||
           kind == KH_SB_DC_REFUSED;
}

void kh_sb_conn_teardown(kh_sb *sb, kytos_conn *c, int kind, const char *reason)
{
    char why[200];
    size_t dropped;
    int fd;

    if (c->dead)
        return;
    c->dead = 1;
    pthread_mutex_lock(&c->mu);
    if (!c->closing) {
        c->closing = 1;
        c->close_kind = kind;
        snprintf(c->close_reason, sizeof c->close_reason, "%s", reason);
    }
    kind = c->close_kind;
    snprintf(why, sizeof why, "%s", c->close_reason);
    fd = c->fd;
    c->fd = -1;
    if (c->ssl && orderly(kind))
        kh_sb_tls_shutdown_locked(c);
    if (orderly(kind) && c->q.head) {
        ssize_t w = kh_sendq_write(&c->q, fd);
        if (w > 0) {
            atomic_fetch_add_explicit(&c->bytes_out, (uint64_t)w, memory_order_relaxed);
            atomic_fetch_add_explicit(&sb->bytes_out, (uint64_t)w, memory_order_relaxed);
        }
    }
    dropped = c->q.bytes;
    kh_sendq_clear(&c->q);
    atomic_store(&c->state, KYTOS_CONN_FINISHED);
    epoll_ctl(sb->epfd, EPOLL_CTL_DEL, fd, NULL);
    if (kind == KH_SB_DC_OVERFLOW || kind == KH_SB_DC_IO) {
        /* a reset: the kernel drops what it still holds for this peer */
        struct linger lg = {1, 0};
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    close(fd);
    pthread_mutex_unlock(&c->mu);

    kh_sb_table_remove(sb, c);
    if (atomic_load(&c->handshaking)) {
        /* never a switch: no connection.new was published, so no lost */
        sb->nhandshaking--;
        atomic_fetch_add_explicit(&sb->dc[kind], 1, memory_order_relaxed);
        c->grave_next = sb->grave;
        sb->grave = c;
        return;
    }
    atomic_fetch_add_explicit(&sb->dc[kind], 1, memory_order_relaxed);
    if (dropped)
        kh_log(KH_SB_LOGGER, kind == KH_SB_DC_PEER ? KH_INFO : KH_WARNING,
               "Connection lost with client %s. Reason: %s (%zu queued bytes dropped)", c->peer,
               why, dropped);
    else
        kh_log(KH_SB_LOGGER,
               kind == KH_SB_DC_FRAMING || kind == KH_SB_DC_OVERFLOW || kind == KH_SB_DC_IO
                   ? KH_WARNING : KH_INFO,
               "Connection lost with client %s. Reason: %s", c->peer, why);
    kh_sb_conn_closed_cb(sb, c, why);
    kh_sb_publish_lost(sb, c, kind, why);
    c->grave_next = sb->grave;
    sb->grave = c;
}

/* ---- sending ---- */

static void arm_out(kh_sb *sb, kytos_conn *c)
{
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP, .data.ptr = c};

    if (!c->out_armed && epoll_ctl(sb->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
        c->out_armed = 1;
}

static void note_high(kh_sb *sb, size_t mem)
{
    size_t hi = atomic_load_explicit(&sb->sendq_high, memory_order_relaxed);
    while (mem > hi && !atomic_compare_exchange_weak(&sb->sendq_high, &hi, mem)) {
    }
}

int kh_sb_conn_out_locked(kytos_conn *c, const void *data, size_t len, int *give, int urgent)
{
    kh_sb *sb = c->sb;
    size_t done = 0;
    char why[200];
    int rc = KYTOS_OK;

    if (!c->q.head) {
        ssize_t w;
        do
            w = send(c->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        while (w < 0 && errno == EINTR);
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            snprintf(why, sizeof why, "send: %s", strerror(errno));
            kh_sb_conn_request_close_locked(c, KH_SB_DC_IO, why);
            return KYTOS_EIO;
        }
        if (w > 0) {
            done = (size_t)w;
            atomic_fetch_add_explicit(&c->bytes_out, done, memory_order_relaxed);
            atomic_fetch_add_explicit(&sb->bytes_out, done, memory_order_relaxed);
        }
    }
    if (done < len) {
        if (c->q.mem + kh_sendq_cost(len - done) > sb->sendq_max) {
            snprintf(why, sizeof why,
                     "send queue full (%zu bytes queued, %zu more, sb_send_queue_max %zu)",
                     c->q.mem, len - done, sb->sendq_max);
            kh_sb_conn_request_close_locked(c, KH_SB_DC_OVERFLOW, why);
            return KYTOS_EFULL;
        }
        if (*give) {
            *give = 0;   /* the queue owns it now, whatever happens */
            if (kh_sendq_push_give(&c->q, (void *)data, len, done, urgent) != 0)
                rc = KYTOS_ENOMEM;
        } else if (kh_sendq_push(&c->q, data, len, done, urgent) != 0) {
            rc = KYTOS_ENOMEM;
        }
        if (rc == KYTOS_ENOMEM) {
            kh_sb_conn_request_close_locked(c, KH_SB_DC_IO, "out of memory queueing a send");
            return rc;
        }
        note_high(sb, c->q.mem);
        arm_out(sb, c);
    }
    return KYTOS_OK;
}

int kh_sb_conn_send(kytos_conn *c, const void *data, size_t len, int give, unsigned flags)
{
    kh_sb *sb = c->sb;
    int urgent = (flags & KYTOS_CONN_URGENT) != 0, rc;
    uint64_t msgs;

    if (!len || !data) {
        if (give)
            free((void *)data);
        return KYTOS_EINVAL;
    }
    if (kh_sendq_cost(len) > sb->sendq_max) {
        if (give)
            free((void *)data);
        return KYTOS_ETOOBIG;
    }
    msgs = kh_sb_count_messages(data, len);
    pthread_mutex_lock(&c->mu);
    if (c->closing || c->fd < 0)
        rc = KYTOS_ESTATE;
    else if (c->ssl)
        rc = kh_sb_tls_send_locked(c, data, len);
    else
        rc = kh_sb_conn_out_locked(c, data, len, &give, urgent);
    if (rc == KYTOS_OK) {
        atomic_fetch_add_explicit(&c->msgs_out, msgs, memory_order_relaxed);
        atomic_fetch_add_explicit(&sb->msgs_out, msgs, memory_order_relaxed);
    }
    pthread_mutex_unlock(&c->mu);
    if (give)
        free((void *)data);
    return rc;
}

/* ---- the table of open connections (sorted by id: ids only grow) ---- */

static size_t find_pos(kh_sb *sb, uint64_t id)
{
    size_t lo = 0, hi = sb->nconns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sb->conns[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int kh_sb_table_add(kh_sb *sb, kytos_conn *c)
{
    int rc = 0;

    pthread_mutex_lock(&sb->table_mu);
    if (sb->nconns == sb->cap) {
        size_t cap = sb->cap ? sb->cap * 2 : 64;
        kytos_conn **n = realloc(sb->conns, cap * sizeof *n);
        if (!n)
            rc = -1;
        else {
            sb->conns = n;
            sb->cap = cap;
        }
    }
    if (rc == 0)
        sb->conns[sb->nconns++] = c;
    pthread_mutex_unlock(&sb->table_mu);
    return rc;
}

void kh_sb_table_remove(kh_sb *sb, kytos_conn *c)
{
    size_t i;

    pthread_mutex_lock(&sb->table_mu);
    i = find_pos(sb, c->id);
    if (i < sb->nconns && sb->conns[i] == c) {
        memmove(sb->conns + i, sb->conns + i + 1, (sb->nconns - i - 1) * sizeof *sb->conns);
        sb->nconns--;
    }
    pthread_mutex_unlock(&sb->table_mu);
}

kytos_conn *kh_sb_table_get(kh_sb *sb, uint64_t id)
{
    kytos_conn *c = NULL;
    size_t i;

    pthread_mutex_lock(&sb->table_mu);
    i = find_pos(sb, id);
    if (i < sb->nconns && sb->conns[i]->id == id) {
        c = sb->conns[i];
        kh_sb_conn_ref(c);
    }
    pthread_mutex_unlock(&sb->table_mu);
    return c;
}

kytos_conn **kh_sb_table_snapshot(kh_sb *sb, size_t *n)
{
    kytos_conn **out;
    size_t i;

    pthread_mutex_lock(&sb->table_mu);
    out = malloc((sb->nconns ? sb->nconns : 1) * sizeof *out);
    *n = out ? sb->nconns : 0;
    for (i = 0; i < *n; i++) {
        out[i] = sb->conns[i];
        kh_sb_conn_ref(out[i]);
    }
    pthread_mutex_unlock(&sb->table_mu);
    return out;
}
