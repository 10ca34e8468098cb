/* host/http/stream.c - the bounded byte queue behind a streamed response
 * (stream.h). */
#include "http/stream.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct kh_stream {
    pthread_mutex_t mu;
    atomic_int refs;
    char *buf;
    size_t head, len, cap, alloc;
    int closed, detached, parked;
    void (*wake)(void *ud);
    void *wake_ud;
};

struct kh_stream *kh_stream_new(size_t cap)
{
    struct kh_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pthread_mutex_init(&s->mu, NULL);
    atomic_init(&s->refs, 1);
    s->cap = cap;
    return s;
}

void kh_stream_ref(struct kh_stream *s) { atomic_fetch_add(&s->refs, 1); }

void kh_stream_unref(struct kh_stream *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    pthread_mutex_destroy(&s->mu);
    free(s->buf);
    free(s);
}

/* A write or close after a park: wake the transport (lock held). */
static void wake_locked(struct kh_stream *s)
{
    if (s->parked && s->wake && !s->detached) {
        s->parked = 0;
        s->wake(s->wake_ud);
    }
}

int kh_stream_write(struct kh_stream *s, const char *data, size_t len)
{
    int rc = 0;

    pthread_mutex_lock(&s->mu);
    if (s->closed || s->detached) {
        rc = -1;
    } else if (s->len + len > s->cap) {
        s->closed = 1;            /* cut off: what is queued goes too */
        s->len = s->head = 0;
        rc = -2;
        wake_locked(s);
    } else {
        if (s->head + s->len + len > s->alloc) {
            if (s->head) {        /* slide the unread bytes to the front */
                memmove(s->buf, s->buf + s->head, s->len);
                s->head = 0;
            }
            if (s->len + len > s->alloc) {
                size_t want = s->alloc ? s->alloc : 4096;
                char *nb;
                while (want < s->len + len)
                    want *= 2;
                if (want > s->cap)
                    want = s->cap;
                if (!(nb = realloc(s->buf, want))) {
                    s->closed = 1;
                    s->len = s->head = 0;
                    wake_locked(s);
                    pthread_mutex_unlock(&s->mu);
                    return -2;
                }
                s->buf = nb;
                s->alloc = want;
            }
        }
        memcpy(s->buf + s->head + s->len, data, len);
        s->len += len;
        wake_locked(s);
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

void kh_stream_close(struct kh_stream *s)
{
    pthread_mutex_lock(&s->mu);
    s->closed = 1;
    wake_locked(s);
    pthread_mutex_unlock(&s->mu);
}

int kh_stream_done(struct kh_stream *s)
{
    int d;
    pthread_mutex_lock(&s->mu);
    d = s->closed || s->detached;
    pthread_mutex_unlock(&s->mu);
    return d;
}

size_t kh_stream_cap(const struct kh_stream *s) { return s->cap; }

size_t kh_stream_queued(struct kh_stream *s)
{
    size_t n;
    pthread_mutex_lock(&s->mu);
    n = s->len;
    pthread_mutex_unlock(&s->mu);
    return n;
}

ssize_t kh_stream_read(struct kh_stream *s, char *buf, size_t max, void (*park)(void *ud),
                       void *ud)
{
    ssize_t n;

    pthread_mutex_lock(&s->mu);
    if (s->len) {
        size_t k = s->len < max ? s->len : max;
        memcpy(buf, s->buf + s->head, k);
        s->head += k;
        s->len -= k;
        if (!s->len)
            s->head = 0;
        n = (ssize_t)k;
    } else if (s->closed || s->detached) {
        n = -1;
    } else {
        s->parked = 1;
        if (park)
            park(ud);
        n = 0;
    }
    pthread_mutex_unlock(&s->mu);
    return n;
}

void kh_stream_set_wake(struct kh_stream *s, void (*wake)(void *ud), void *ud)
{
    pthread_mutex_lock(&s->mu);
    s->wake = wake;
    s->wake_ud = ud;
    pthread_mutex_unlock(&s->mu);
}

void kh_stream_detach(struct kh_stream *s)
{
    pthread_mutex_lock(&s->mu);
    s->detached = 1;
    s->wake = NULL;
    s->len = s->head = 0;
    pthread_mutex_unlock(&s->mu);
}
