/* host/http/acceptor.c - kytosd's own accept loop in front of libmicrohttpd.
 *
 * Why: libmicrohttpd 0.9.75 accepts one connection per turn of its poll
 * loop, and a turn over a thousand busy connections takes tens of
 * milliseconds; a burst of new clients then waits seconds in the kernel's
 * accept queue, with their requests already sent (bench: 1,000 clients at
 * once against the bare ceiling server gave 126 answers later than 5 s;
 * with this loop, none).  Here a thread accepts everything that is ready
 * and hands each socket to MHD_add_connection(), which keeps MHD's own
 * timeouts.  The connection limits are kytosd's (connlimit.h): a socket
 * over one is answered by the callback, then closed here gently. */
#include "http/acceptor.h"
#include "util/log.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define LOGGER "kytos.core.api_server"

#define LINGER_MAX 1024          /* refused sockets being closed at once */
#define LINGER_MS 2000           /* at most this long each */
#define LINGER_BYTES (64 * 1024) /* and reading at most this much */

struct lingering {
    int fd;
    int64_t deadline_ms;
    size_t drained;
};

struct kh_acceptor {
    int fd;                  /* listening, non-blocking */
    int stop_pipe[2];
    pthread_t th;
    kh_accept_fn add;
    void *ud;
    kh_poll_fn poll;         /* poll(2), or a test's */
    atomic_int stopping;     /* seen even while poll keeps failing */
    struct lingering linger[LINGER_MAX];
    size_t nlinger;
    struct pollfd pfd[2 + LINGER_MAX];
    char sink[4096];         /* what lingering clients send, dropped */
};

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A refused socket, answered: no more writes from us; closed once the
 * client has closed (or after LINGER_MS, or at once if too many linger). */
static void linger_start(struct kh_acceptor *a, int fd)
{
    shutdown(fd, SHUT_WR);
    if (a->nlinger == LINGER_MAX) {
        /* full (clients that never close): the oldest goes, whose answer
         * has had the longest to arrive, rather than this new one */
        close(a->linger[0].fd);
        memmove(&a->linger[0], &a->linger[1], (LINGER_MAX - 1) * sizeof a->linger[0]);
        a->nlinger--;
    }
    a->linger[a->nlinger++] = (struct lingering){fd, mono_ms() + LINGER_MS, 0};
}

/* Read and drop what the client sent; true when the socket is done. */
static int linger_done(struct kh_acceptor *a, struct lingering *l, int64_t now)
{
    for (;;) {
        ssize_t n = recv(l->fd, a->sink, sizeof a->sink, 0);
        if (n > 0) {
            l->drained += (size_t)n;
            if (l->drained > LINGER_BYTES)
                return 1;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return now >= l->deadline_ms;
        return 1;   /* the client closed (0) or the socket failed */
    }
}

/* Close the lingering sockets that are done (polled: their poll results,
 * in order). */
static void linger_sweep(struct kh_acceptor *a, const struct pollfd *polled, int64_t now)
{
    size_t i, j = 0;

    for (i = 0; i < a->nlinger; i++) {
        struct lingering *l = &a->linger[i];
        int done = polled[i].revents ? linger_done(a, l, now) : now >= l->deadline_ms;
        if (done)
            close(l->fd);
        else
            a->linger[j++] = *l;
    }
    a->nlinger = j;
}

/* A failure the loop waits out (out of descriptors or memory, a
 * listening socket in error): logged at most once a second, then a pause,
 * so the loop neither spins nor ends.  Ending it would leave kytosd
 * running and answering nobody. */
static void pause_after(const char *what, int64_t *last_log)
{
    struct timespec ts = {0, 10 * 1000000L};
    int64_t t = mono_ms();

    if (t - *last_log >= 1000) {
        *last_log = t;
        kh_log(LOGGER, KH_WARNING, "accept loop: %s: %s (retrying)", what, strerror(errno));
    }
    nanosleep(&ts, NULL);
}

static void *acceptor_main(void *arg)
{
    struct kh_acceptor *a = arg;
    struct pollfd *p = a->pfd;
    int64_t last_log = 0;

    for (;;) {
        int k, timeout = -1;
        size_t i;
        int64_t now;

        p[0] = (struct pollfd){a->fd, POLLIN, 0};
        p[1] = (struct pollfd){a->stop_pipe[0], POLLIN, 0};
        now = mono_ms();
        for (i = 0; i < a->nlinger; i++) {
            int64_t left = a->linger[i].deadline_ms - now;
            p[2 + i] = (struct pollfd){a->linger[i].fd, POLLIN, 0};
            if (timeout < 0 || left < timeout)
                timeout = left < 0 ? 0 : (int)left;
        }
        if (atomic_load(&a->stopping))
            break;
        if (a->poll(p, 2 + a->nlinger, timeout) < 0) {
            if (errno != EINTR)
                pause_after("poll failed", &last_log);
            continue;
        }
        if (p[1].revents)
            break;
        if (a->nlinger)
            linger_sweep(a, p + 2, mono_ms());
        if (!p[0].revents)
            continue;
        for (k = 0; k < 4096; k++) {   /* all that is ready, but let stop in */
            struct sockaddr_storage ss;
            socklen_t len = sizeof ss;
            int c = accept4(a->fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (c >= 0) {
                if (a->add(a->ud, c, (struct sockaddr *)&ss, len) != 0)
                    linger_start(a, c);
                continue;
            }
            if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
                continue;
            /* out of descriptors or memory, or anything else unexpected:
             * leave them queued and retry soon; EAGAIN: nothing more now */
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                pause_after("cannot accept connections", &last_log);
            break;
        }
    }
    return NULL;
}

struct kh_acceptor *kh_acceptor_start_with(int listen_fd, kh_accept_fn add, void *ud,
                                           kh_poll_fn poll_fn, char *err, size_t errlen)
{
    struct kh_acceptor *a = calloc(1, sizeof *a);

    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    a->fd = listen_fd;
    a->add = add;
    a->ud = ud;
    a->poll = poll_fn ? poll_fn : poll;
    if (pipe2(a->stop_pipe, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "accept loop: pipe: %s", strerror(errno));
        free(a);
        return NULL;
    }
    if (pthread_create(&a->th, NULL, acceptor_main, a) != 0) {
        snprintf(err, errlen, "accept loop: cannot start its thread");
        close(a->stop_pipe[0]);
        close(a->stop_pipe[1]);
        free(a);
        return NULL;
    }
    pthread_setname_np(a->th, "kh-accept");
    return a;
}

void kh_acceptor_stop(struct kh_acceptor *a)
{
    char x = 1;

    if (!a)
        return;
    atomic_store(&a->stopping, 1);
    while (write(a->stop_pipe[1], &x, 1) < 0 && errno == EINTR)
        ;
    pthread_join(a->th, NULL);
    while (a->nlinger)
        close(a->linger[--a->nlinger].fd);
    close(a->stop_pipe[0]);
    close(a->stop_pipe[1]);
    free(a);
}

struct kh_acceptor *kh_acceptor_start(int listen_fd, kh_accept_fn add, void *ud, char *err,
                                      size_t errlen)
{
    return kh_acceptor_start_with(listen_fd, add, ud, NULL, err, errlen);
}
