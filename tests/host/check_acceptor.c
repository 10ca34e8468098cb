/* tests/host/check_acceptor.c - kytosd's accept loop (host/http/acceptor.c)
 * outlives a failing poll and still stops. */
#include "check_tap.h"
#include "host/addr.h"
#include "host/http/acceptor.h"
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static atomic_int poll_failures;
static pthread_mutex_t real_poll_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t real_poll_cv = PTHREAD_COND_INITIALIZER;
static unsigned real_polls;   /* calls that went on to poll(2) */

static int failing_poll(struct pollfd *fds, unsigned long nfds, int timeout)
{
    if (atomic_fetch_sub(&poll_failures, 1) > 0) {
        errno = ENOMEM;
        return -1;
    }
    pthread_mutex_lock(&real_poll_mu);
    real_polls++;
    pthread_cond_broadcast(&real_poll_cv);
    pthread_mutex_unlock(&real_poll_mu);
    return poll(fds, nfds, timeout);
}

/* Wait (bounded) until the loop has gone on to poll(2) more than seen times. */
static int await_real_poll(unsigned seen, const struct timespec *deadline)
{
    int more;

    pthread_mutex_lock(&real_poll_mu);
    while (real_polls <= seen && pthread_cond_timedwait(&real_poll_cv, &real_poll_mu, deadline) == 0)
        ;
    more = real_polls > seen;
    pthread_mutex_unlock(&real_poll_mu);
    return more;
}

struct accepted {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int fd;
    unsigned polls;   /* real_polls when it was accepted */
};

static int on_accept(void *ud, int fd, const struct sockaddr *addr, socklen_t len)
{
    struct accepted *a = ud;
    (void)addr;
    (void)len;
    pthread_mutex_lock(&real_poll_mu);
    unsigned polls = real_polls;
    pthread_mutex_unlock(&real_poll_mu);
    pthread_mutex_lock(&a->mu);
    a->fd = fd;
    a->polls = polls;
    pthread_cond_signal(&a->cv);
    pthread_mutex_unlock(&a->mu);
    return 0;
}

START_TEST(accept_loop_survives_poll_failures)
{
    struct accepted a = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, -1, 0};
    struct sockaddr_in sa = v4("127.0.0.1", 0);
    socklen_t sl = sizeof sa;
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), cfd, cfd2;
    struct kh_acceptor *acc;
    struct timespec deadline;
    char err[128];

    ck_assert_int_ge(lfd, 0);
    ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
    ck_assert_int_eq(listen(lfd, 8), 0);
    ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
    atomic_store(&poll_failures, 3);
    acc = kh_acceptor_start_with(lfd, on_accept, &a, failing_poll, err, sizeof err);
    ck_assert_ptr_nonnull(acc);
    cfd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_eq(connect(cfd, (struct sockaddr *)&sa, sizeof sa), 0);
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&a.mu);
    while (a.fd < 0 && pthread_cond_timedwait(&a.cv, &a.mu, &deadline) == 0)
        ;
    pthread_mutex_unlock(&a.mu);
    ck_assert_int_ge(a.fd, 0);   /* accepted after the failures */
    ck_assert_int_le(atomic_load(&poll_failures), 0);
    /* poll failing for good from the next call, once the loop is back in a
     * real one (which a second client ends): stop must still return */
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    ck_assert(await_real_poll(a.polls, &deadline));
    close(a.fd);
    a.fd = -1;
    atomic_store(&poll_failures, 1 << 30);
    cfd2 = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_eq(connect(cfd2, (struct sockaddr *)&sa, sizeof sa), 0);
    pthread_mutex_lock(&a.mu);
    while (a.fd < 0 && pthread_cond_timedwait(&a.cv, &a.mu, &deadline) == 0)
        ;
    pthread_mutex_unlock(&a.mu);
    ck_assert_int_ge(a.fd, 0);
    kh_acceptor_stop(acc);
    close(a.fd);
    close(cfd);
    close(cfd2);
    close(lfd);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acceptor");

    kytos_check_add(s, "accept_loop_survives_poll_failures", accept_loop_survives_poll_failures);
    return kytos_check_run(s);
}
