/* host/southbound/listener.c - the listening socket: binding `listen`:`port`,
 * Kytos' protocol name of the port, and accepting switches. */
#include "southbound/sb_impl.h"
#include "util/log.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#define ACCEPTS_PER_TURN 64
#define ACCEPT_PAUSE_NS (100 * 1000000LL)

/* Kytos' atcp_server known_ports: 6633 and 6653 are OpenFlow's; a set
 * protocol_name names the listening port; any other port is its number. */
static void protocol_of(kh_sb *sb, unsigned port)
{
    if (sb->cfg_proto[0])
        snprintf(sb->proto, sizeof sb->proto, "%s", sb->cfg_proto);
    else if (port == 6633 || port == 6653)
        snprintf(sb->proto, sizeof sb->proto, "openflow");
    else
        snprintf(sb->proto, sizeof sb->proto, "%04u", port);
    snprintf(sb->ev_new, sizeof sb->ev_new, "kytos/core.%s.connection.new", sb->proto);
    snprintf(sb->ev_raw, sizeof sb->ev_raw, "kytos/core.%s.raw.in", sb->proto);
    snprintf(sb->ev_lost, sizeof sb->ev_lost, "kytos/core.%s.connection.lost", sb->proto);
    snprintf(sb->ev_error, sizeof sb->ev_error, "kytos/core.%s.connection.error", sb->proto);
}

int kh_sb_listener_open(kh_sb *sb, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    unsigned bound;
    int one = 1, fd, v6 = strchr(sb->listen_addr, ':') != NULL;

    if (sb->cfg_port < 0 || sb->cfg_port > 65535) {
        snprintf(err, errlen, "port %lld out of range (0..65535)", (long long)sb->cfg_port);
        return -1;
    }
    memset(&ss, 0, sizeof ss);
    if (v6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)sb->cfg_port);
        if (inet_pton(AF_INET6, sb->listen_addr, &a->sin6_addr) != 1) {
            snprintf(err, errlen, "listen: bad IPv6 address '%s'", sb->listen_addr);
            return -1;
        }
        sl = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons((uint16_t)sb->cfg_port);
        if (inet_pton(AF_INET, sb->listen_addr, &a->sin_addr) != 1) {
            snprintf(err, errlen, "listen: bad IPv4 address '%s'", sb->listen_addr);
            return -1;
        }
        sl = sizeof *a;
    }
    fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, sb->backlog) != 0) {
        snprintf(err, errlen, "cannot listen on %s%s%s:%lld: %s", v6 ? "[" : "", sb->listen_addr,
                 v6 ? "]" : "", (long long)sb->cfg_port, strerror(errno));
        close(fd);
        return -1;
    }
    sl = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        bound = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                         : ((struct sockaddr_in *)&ss)->sin_port);
    else
        bound = (unsigned)sb->cfg_port;
    sb->lfd = fd;
    snprintf(sb->listen_text, sizeof sb->listen_text, "%s%s%s:%u", v6 ? "[" : "", sb->listen_addr,
             v6 ? "]" : "", bound);
    protocol_of(sb, bound);
    /* last: other threads read listen_text and proto once they see a port */
    atomic_store(&sb->port, bound);
    kh_log(KH_SB_LOGGER, KH_INFO, "OpenFlow server listening on %s (protocol %s%s)",
           sb->listen_text, sb->proto, sb->tls_ctx ? ", TLS only" : "");
    if (strcmp(sb->proto, "openflow") != 0 && !sb->cfg_proto[0])
        kh_log(KH_SB_LOGGER, KH_WARNING,
               "port %u is not an OpenFlow port (6633, 6653): its connections are protocol '%s' "
               "(kytos/core.%s.*); set protocol_name = openflow for of_core to get them",
               bound, sb->proto, sb->proto);
    return 0;
}

static int at_limit(kh_sb *sb)
{
    size_t n;
    pthread_mutex_lock(&sb->table_mu);
    n = sb->nconns;
    pthread_mutex_unlock(&sb->table_mu);
    return n >= sb->max_conns;
}

/* At most one line a second for refusals that can repeat fast. */
static int log_now(kh_sb *sb)
{
    int64_t now = kh_sb_mono_ns();
    if (now - sb->refused_log_ns < 1000000000LL)
        return 0;
    sb->refused_log_ns = now;
    return 1;
}

static void accept_one(kh_sb *sb, int fd, const struct sockaddr *peer)
{
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP};
    int one = 1;
    kytos_conn *c;

    if (at_limit(sb)) {
        atomic_fetch_add_explicit(&sb->refused, 1, memory_order_relaxed);
        if (log_now(sb))
            kh_log(KH_SB_LOGGER, KH_WARNING,
                   "switch connection refused: sb_max_connections (%u) reached", sb->max_conns);
        close(fd);
        return;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c = kh_sb_conn_new(sb, fd, peer, ++sb->next_id);
    if (!c) {
        close(fd);
        return;
    }
    ev.data.ptr = c;
    if (sb->tls_ctx && kh_sb_tls_conn_new(sb, c) != 0) {
        kh_log(KH_SB_LOGGER, KH_ERROR, "switch connection from %s: out of memory for TLS", c->peer);
        kh_sb_conn_unref(c);
        return;
    }
    if (kh_sb_table_add(sb, c) != 0) {
        kh_sb_conn_unref(c);
        return;
    }
    if (epoll_ctl(sb->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        kh_log(KH_SB_LOGGER, KH_ERROR, "epoll_ctl for %s: %s", c->peer, strerror(errno));
        kh_sb_table_remove(sb, c);
        kh_sb_conn_unref(c);
        return;
    }
    atomic_fetch_add_explicit(&sb->conns_total, 1, memory_order_relaxed);
    if (c->ssl) {
        /* connection.new and the handler once the switch's certificate is
         * checked (tls.c) */
        sb->nhandshaking++;
        return;
    }
    kh_log(KH_SB_LOGGER, KH_INFO, "New connection from %s", c->peer);
    kh_sb_publish_new(sb, c);
    kh_sb_conn_bind(sb, c);
}

void kh_sb_accept_ready(kh_sb *sb)
{
    int i;

    for (i = 0; i < ACCEPTS_PER_TURN && sb->lfd >= 0; i++) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int fd = accept4(sb->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd >= 0) {
            accept_one(sb, fd, (struct sockaddr *)&ss);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return;
        /* out of descriptors or memory: the socket stays readable, so stop
         * watching it for a while rather than spin */
        if (log_now(sb))
            kh_log(KH_SB_LOGGER, KH_ERROR, "cannot accept a switch connection: %s (pausing)",
                   strerror(errno));
        epoll_ctl(sb->epfd, EPOLL_CTL_DEL, sb->lfd, NULL);
        sb->accept_resume_ns = kh_sb_mono_ns() + ACCEPT_PAUSE_NS;
        return;
    }
}
