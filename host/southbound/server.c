/* host/southbound/server.c - the southbound server's life: configuration,
 * start, stop, free (see southbound.h). */
#include "southbound/sb_impl.h"
#include "util/log.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Bounds of the sb_* keys are in the configuration table
 * (host/util/conf_keys.c): out-of-range values stop kytosd at start. */
kh_sb *kh_sb_new(kh_bus *bus, const kh_config *cfg, char *err, size_t errlen)
{
    kh_sb *sb = calloc(1, sizeof *sb);
    const char *proto = kh_config_str(cfg, "protocol_name");
    size_t i;

    if (!sb) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    sb->bus = bus;
    sb->lfd = sb->epfd = sb->wakefd = -1;
    snprintf(sb->listen_addr, sizeof sb->listen_addr, "%s", kh_config_str(cfg, "listen"));
    sb->cfg_port = kh_config_int(cfg, "port");
    for (i = 0; proto[i]; i++)
        if (!((proto[i] >= 'a' && proto[i] <= 'z') || (proto[i] >= 'A' && proto[i] <= 'Z') ||
              (proto[i] >= '0' && proto[i] <= '9') || proto[i] == '_' || proto[i] == '-'))
            break;
    if (proto[i] || i >= sizeof sb->cfg_proto) {
        snprintf(err, errlen, "protocol_name '%.64s': want 1 to %zu letters, digits, '_' or '-'",
                 proto, sizeof sb->cfg_proto - 1);
        free(sb);
        return NULL;
    }
    snprintf(sb->cfg_proto, sizeof sb->cfg_proto, "%s", proto);
    sb->sendq_max = (size_t)kh_config_int(cfg, "sb_send_queue_max");
    sb->read_max = (size_t)kh_config_int(cfg, "sb_read_max");
    sb->max_conns = (unsigned)kh_config_int(cfg, "sb_max_connections");
    sb->backlog = (int)kh_config_int(cfg, "sb_listen_backlog");
    sb->raw_events = kh_config_bool(cfg, "sb_raw_in_events");
    sb->stop_timeout_ms = (int)kh_config_int(cfg, "shutdown_timeout_ms");
    if (kh_sb_tls_init(sb, cfg, err, errlen) != 0) {
        free(sb);
        return NULL;
    }
    pthread_mutex_init(&sb->cmd_mu, NULL);
    pthread_cond_init(&sb->cmd_cv, NULL);
    pthread_mutex_init(&sb->table_mu, NULL);
    pthread_mutex_init(&sb->hnd_mu, NULL);
    atomic_init(&sb->running, 0);
    atomic_init(&sb->port, 0);
    return sb;
}

int kh_sb_start(kh_sb *sb, char *err, size_t errlen)
{
    struct epoll_event lev = {.events = EPOLLIN, .data.ptr = &sb->lfd};
    struct epoll_event wev = {.events = EPOLLIN, .data.ptr = &sb->wakefd};
    sigset_t all, old;
    int rc;

    if (sb->thread_started) {
        snprintf(err, errlen, "the OpenFlow server runs already");
        return -1;
    }
    if (kh_sb_listener_open(sb, err, errlen) != 0)
        return -1;
    sb->epfd = epoll_create1(EPOLL_CLOEXEC);
    sb->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    sb->rbuf = malloc(sb->read_max);
    if (sb->epfd < 0 || sb->wakefd < 0 || !sb->rbuf ||
        epoll_ctl(sb->epfd, EPOLL_CTL_ADD, sb->lfd, &lev) != 0 ||
        epoll_ctl(sb->epfd, EPOLL_CTL_ADD, sb->wakefd, &wev) != 0) {
        snprintf(err, errlen, "OpenFlow server: %s", sb->rbuf ? strerror(errno) : "out of memory");
        goto fail;
    }
    atomic_store(&sb->running, 1);
    /* the thread takes no signals (kytosd waits for them in main) */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rc = pthread_create(&sb->thread, NULL, kh_sb_thread_main, sb);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        atomic_store(&sb->running, 0);
        snprintf(err, errlen, "cannot start the southbound thread: %s", strerror(rc));
        goto fail;
    }
    sb->thread_started = 1;
    return 0;
fail:
    if (sb->lfd >= 0)
        close(sb->lfd);
    if (sb->epfd >= 0)
        close(sb->epfd);
    if (sb->wakefd >= 0)
        close(sb->wakefd);
    free(sb->rbuf);
    sb->rbuf = NULL;
    sb->lfd = sb->epfd = sb->wakefd = -1;
    return -1;
}

int kh_sb_running(const kh_sb *sb) { return sb && atomic_load(&sb->running); }
unsigned kh_sb_port(const kh_sb *sb) { return sb ? atomic_load(&sb->port) : 0; }
const char *kh_sb_address(const kh_sb *sb) { return sb->listen_addr; }
const char *kh_sb_protocol(const kh_sb *sb) { return kh_sb_port(sb) ? sb->proto : ""; }

void kh_sb_stop_accepting(kh_sb *sb)
{
    if (!sb || !sb->thread_started)
        return;
    pthread_mutex_lock(&sb->cmd_mu);
    sb->stop_listening = 1;
    kh_sb_wake_locked(sb);
    while (!sb->listening_stopped && atomic_load(&sb->running))
        pthread_cond_wait(&sb->cmd_cv, &sb->cmd_mu);
    pthread_mutex_unlock(&sb->cmd_mu);
}

void kh_sb_stop(kh_sb *sb)
{
    if (!sb || !sb->thread_started)
        return;
    pthread_mutex_lock(&sb->cmd_mu);
    sb->stop = 1;
    kh_sb_wake_locked(sb);
    pthread_mutex_unlock(&sb->cmd_mu);
    pthread_join(sb->thread, NULL);
    sb->thread_started = 0;
    pthread_mutex_lock(&sb->cmd_mu);
    close(sb->wakefd);
    sb->wakefd = -1;
    pthread_mutex_unlock(&sb->cmd_mu);
    close(sb->epfd);
    sb->epfd = -1;
    free(sb->rbuf);
    sb->rbuf = NULL;
}

void kh_sb_free(kh_sb *sb)
{
    if (!sb)
        return;
    kh_sb_stop(sb);
    /* closes asked for after the thread ended: the connections are gone */
    while (sb->close_head) {
        kytos_conn *c = sb->close_head;
        sb->close_head = c->close_next;
        kh_sb_conn_unref(c);
    }
    free(sb->conns);
    kh_sb_tls_free(sb);
    pthread_mutex_destroy(&sb->cmd_mu);
    pthread_cond_destroy(&sb->cmd_cv);
    pthread_mutex_destroy(&sb->table_mu);
    pthread_mutex_destroy(&sb->hnd_mu);
    free(sb);
}
