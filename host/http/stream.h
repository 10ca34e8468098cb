/* host/http/stream.h - a response body written while it is sent (server-
 * sent events): a bounded byte queue between producers (any thread) and
 * the transport that drains it.
 *
 * A producer's write never blocks: past the cap the write fails, the
 * stream is closed and its queue dropped, so a client that does not read
 * costs at most `cap` bytes and never slows whoever writes.  The transport
 * reads; with nothing queued it parks (its park callback runs under the
 * stream's lock, so a write that follows always sees it parked) and the
 * next write or close wakes it (wake, also under the lock).  Refcounted:
 * the producer and the transport each hold one. */
#ifndef KH_STREAM_H
#define KH_STREAM_H

#include <stddef.h>
#include <sys/types.h>

struct kh_stream;

struct kh_stream *kh_stream_new(size_t cap);
void kh_stream_ref(struct kh_stream *s);
void kh_stream_unref(struct kh_stream *s);

/* Queue len bytes: 0; -1 when closed or gone; -2 over the cap (the stream
 * is then closed and its queue dropped: the client is cut off). */
int kh_stream_write(struct kh_stream *s, const char *data, size_t len);
/* End the stream once what is queued is sent. */
void kh_stream_close(struct kh_stream *s);
/* 1 once closed, dropped or detached: the producer may forget it. */
int kh_stream_done(struct kh_stream *s);
/* The cap given to kh_stream_new. */
size_t kh_stream_cap(const struct kh_stream *s);
/* Bytes queued. */
size_t kh_stream_queued(struct kh_stream *s);

/* Transport: up to max bytes into buf (> 0), 0 when nothing is queued
 * (park(ud) was called under the lock), -1 at the end. */
ssize_t kh_stream_read(struct kh_stream *s, char *buf, size_t max, void (*park)(void *ud),
                       void *ud);
/* Transport: called (under the lock) when a write or close follows a park. */
void kh_stream_set_wake(struct kh_stream *s, void (*wake)(void *ud), void *ud);
/* Transport: the client is gone; no more wakes, writes fail. */
void kh_stream_detach(struct kh_stream *s);

#endif
