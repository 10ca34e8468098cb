/* host/southbound/sendq.h - a connection's queue of bytes not yet written.
 *
 * A list of chunks: copies (small sends share a chunk) or buffers given
 * by the sender.  Its size is counted as the memory it holds (data, chunk
 * headers and unused room), so a bound on it bounds memory, whatever the
 * mix of small and large sends.  Urgent data goes ahead of everything not
 * yet started.  Not thread safe: the connection's lock guards it. */
#ifndef KH_SB_SENDQ_H
#define KH_SB_SENDQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct kh_sendq_chunk;

struct kh_sendq {
    struct kh_sendq_chunk *head, *tail;
    struct kh_sendq_chunk *urgent_tail;  /* the last urgent chunk, or NULL */
    size_t bytes;                        /* data not yet written */
    size_t mem;                          /* memory held (what the bound applies to) */
};

/* What pushing len bytes would add to mem, at most. */
size_t kh_sendq_cost(size_t len);
/* Queue len bytes: copied, or (give) taking ownership of data, a malloc'd
 * buffer, which is then freed whatever happens.  off > 0 (only when the
 * queue is empty): the first off bytes were written already, so the rest
 * is the message being written, which urgent data must not cut into.
 * 0 or -1 (out of memory). */
int kh_sendq_push(struct kh_sendq *q, const void *data, size_t len, size_t off, int urgent);
int kh_sendq_push_give(struct kh_sendq *q, void *data, size_t len, size_t off, int urgent);
/* Write what the socket takes (sendmsg, MSG_NOSIGNAL).  Returns the bytes
 * written (0 when the socket is full), or -1 with errno. */
ssize_t kh_sendq_write(struct kh_sendq *q, int fd);
/* Drop everything. */
void kh_sendq_clear(struct kh_sendq *q);

#endif
