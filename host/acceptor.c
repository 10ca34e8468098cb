/* host/acceptor.c - kytosd's own accept loop in front of libmicrohttpd.
 *
 * Why: libmicrohttpd 0.9.75 accepts one connection per turn of its poll
 * loop, and a turn over a thousand busy connections takes tens of
 * milliseconds; a burst of new clients then waits seconds in the kernel's
 * accept queue, with their requests already sent (bench: 1,000 clients at
 * once against the bare ceiling server gave 126 answers later than 5 s;
 * with this loop, none).  Here a thread accepts everything that is ready
 * and hands each socket to MHD_add_connection(), which keeps MHD's own
 * limits (total and per IP) and timeouts. */
#include "acceptor.h"
#include "log.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LOGGER "kytos.core.api_server"

struct kh_acceptor {
    int fd;                  /* listening, non-blocking */
    int stop_pipe[2];
    pthread_t th;
    kh_accept_fn add;
    void *ud;
};

static void *acceptor_main(void *arg)
{
    struct kh_acceptor *a = arg;
    int64_t last_log = 0;

    for (;;) {
        struct pollfd p[2] = {{a->fd, POLLIN, 0}, {a->stop_pipe[0], POLLIN, 0}};
        int k;

        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            kh_log(LOGGER, KH_ERROR, "accept loop: poll failed: %s", strerror(errno));
            break;
        }
        if (p[1].revents)
            break;
        for (k = 0; k < 4096; k++) {   /* all that is ready, but let stop in */
            struct sockaddr_storage ss;
            socklen_t len = sizeof ss;
            int c = accept4(a->fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (c >= 0) {
                a->add(a->ud, c, (struct sockaddr *)&ss, len);
                continue;
            }
            if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* out of descriptors or memory: leave them queued, retry soon */
                struct timespec ts = {0, 10 * 1000000L}, now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                if (now.tv_sec - last_log >= 1) {
                    last_log = now.tv_sec;
                    kh_log(LOGGER, KH_WARNING, "cannot accept connections: %s", strerror(errno));
                }
                nanosleep(&ts, NULL);
            }
            break;   /* EAGAIN: nothing more for now */
        }
    }
    return NULL;
}

struct kh_acceptor *kh_acceptor_start(int listen_fd, kh_accept_fn add, void *ud, char *err,
                                      size_t errlen)
{
    struct kh_acceptor *a = calloc(1, sizeof *a);

    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    a->fd = listen_fd;
    a->add = add;
    a->ud = ud;
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
    while (write(a->stop_pipe[1], &x, 1) < 0 && errno == EINTR)
        ;
    pthread_join(a->th, NULL);
    close(a->stop_pipe[0]);
    close(a->stop_pipe[1]);
    free(a);
}
