/* host/http/acceptor.h - a thread that accepts connections on a listening
 * socket and hands each to a callback (libmicrohttpd's MHD_add_connection). */
#ifndef KH_ACCEPTOR_H
#define KH_ACCEPTOR_H

#include <stddef.h>
#include <sys/socket.h>

struct kh_acceptor;
/* Takes the accepted (non-blocking) socket and returns 0; or answers on it
 * (a refusal) and returns 1: the accept loop then closes it gently, as
 * nginx's lingering close: no more writes, the client's bytes read and
 * dropped until it closes or LINGER_MS pass, so that its request left
 * unread does not turn the close into a reset that loses the answer. */
typedef int (*kh_accept_fn)(void *ud, int fd, const struct sockaddr *addr, socklen_t len);

/* listen_fd stays the caller's (closed after kh_acceptor_stop). */
struct kh_acceptor *kh_acceptor_start(int listen_fd, kh_accept_fn add, void *ud, char *err,
                                      size_t errlen);

/* The same with poll(2) replaced (tests: a poll that fails). */
struct pollfd;
typedef int (*kh_poll_fn)(struct pollfd *fds, unsigned long nfds, int timeout);
struct kh_acceptor *kh_acceptor_start_with(int listen_fd, kh_accept_fn add, void *ud,
                                           kh_poll_fn poll_fn, char *err, size_t errlen);
/* Returns once the thread is gone: nothing more is accepted. */
void kh_acceptor_stop(struct kh_acceptor *a);

#endif
