/* host/southbound/sendq.c - the per-connection send queue (see sendq.h). */
#include "southbound/sendq.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define CHUNK_MIN 4096     /* a copy chunk's room: small sends coalesce */
#define IOV_MAX_WRITE 64

struct kh_sendq_chunk {
    struct kh_sendq_chunk *next;
    uint8_t *data;          /* inline room (copy) or the given buffer */
    size_t len, off, cap;   /* data bytes, bytes written, room (copy only) */
    int given, urgent;
    int started;            /* its first bytes went out before it was queued */
    uint8_t room[];
};

static size_t chunk_mem(const struct kh_sendq_chunk *c)
{
    return sizeof *c + (c->given ? c->len : c->cap);
}

size_t kh_sendq_cost(size_t len)
{
    return sizeof(struct kh_sendq_chunk) + (len > CHUNK_MIN ? len : CHUNK_MIN);
}

/* The chunk new data goes after: urgent data after the urgent chunks
 * already queued, or after the chunk being written; else at the end.
 * NULL = at the front. */
static struct kh_sendq_chunk *insert_point(const struct kh_sendq *q, int urgent)
{
    if (!urgent)
        return q->tail;
    if (q->urgent_tail)
        return q->urgent_tail;
    if (q->head && (q->head->off > 0 || q->head->started))
        return q->head;
    return NULL;
}

static void link_after(struct kh_sendq *q, struct kh_sendq_chunk *at, struct kh_sendq_chunk *c)
{
    if (!at) {
        c->next = q->head;
        q->head = c;
    } else {
        c->next = at->next;
        at->next = c;
    }
    if (!c->next)
        q->tail = c;
    if (c->urgent)
        q->urgent_tail = c;
    q->mem += chunk_mem(c);
}

int kh_sendq_push(struct kh_sendq *q, const void *data, size_t len, size_t off, int urgent)
{
    struct kh_sendq_chunk *at, *c;

    if (off >= len)
        return 0;
    data = (const uint8_t *)data + off;
    len -= off;
    at = off ? q->tail : insert_point(q, urgent);
    /* room left in the chunk it would follow: a copy of the same kind
     * (urgent data never shares a chunk with other data, so later urgent
     * sends still go ahead of all of it) */
    if (at && !at->given && at->cap - at->len >= len && !at->urgent == !urgent) {
        memcpy(at->data + at->len, data, len);
        at->len += len;
        q->bytes += len;
        return 0;
    }
    c = malloc(sizeof *c + (len > CHUNK_MIN ? len : CHUNK_MIN));
    if (!c)
        return -1;
    c->data = c->room;
    c->cap = len > CHUNK_MIN ? len : CHUNK_MIN;
    c->len = len;
    c->off = 0;
    c->given = 0;
    c->urgent = urgent;
    c->started = off > 0;
    memcpy(c->data, data, len);
    link_after(q, at, c);
    q->bytes += len;
    return 0;
}

int kh_sendq_push_give(struct kh_sendq *q, void *data, size_t len, size_t off, int urgent)
{
    struct kh_sendq_chunk *c;

    if (off >= len) {
        free(data);
        return 0;
    }
    c = malloc(sizeof *c);
    if (!c) {
        free(data);
        return -1;
    }
    c->data = data;
    c->cap = c->len = len;
    c->off = off;
    c->given = 1;
    c->urgent = urgent;
    c->started = off > 0;
    link_after(q, off ? q->tail : insert_point(q, urgent), c);
    q->bytes += len - off;
    return 0;
}

static void pop_head(struct kh_sendq *q)
{
    struct kh_sendq_chunk *c = q->head;

    q->head = c->next;
    if (!q->head)
        q->tail = NULL;
    if (q->urgent_tail == c)
        q->urgent_tail = NULL;
    q->mem -= chunk_mem(c);
    if (c->given)
        free(c->data);
    free(c);
}

ssize_t kh_sendq_write(struct kh_sendq *q, int fd)
{
    struct iovec iov[IOV_MAX_WRITE];
    struct kh_sendq_chunk *c;
    size_t total = 0;

    while (q->head) {
        struct msghdr mh = {0};
        size_t n = 0;
        ssize_t w;

        for (c = q->head; c && n < IOV_MAX_WRITE; c = c->next, n++) {
            iov[n].iov_base = c->data + c->off;
            iov[n].iov_len = c->len - c->off;
        }
        mh.msg_iov = iov;
        mh.msg_iovlen = n;
        w = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            return -1;
        }
        total += (size_t)w;
        q->bytes -= (size_t)w;
        while (w > 0) {
            c = q->head;
            if ((size_t)w >= c->len - c->off) {
                w -= (ssize_t)(c->len - c->off);
                pop_head(q);
            } else {
                c->off += (size_t)w;
                w = 0;
            }
        }
        if (q->head && q->head->off > 0)
            break;          /* the socket is full */
    }
    return (ssize_t)total;
}

void kh_sendq_clear(struct kh_sendq *q)
{
    while (q->head)
        pop_head(q);
    q->bytes = q->mem = 0;
    q->urgent_tail = NULL;
}
