/* host/events/event_buffer.h - a KytosEventBuffer: a bounded FIFO or priority queue
 * of events with blocking and non-blocking put, one consumer.
 *
 * Priority buffers order by (priority, arrival): lower priority first, FIFO
 * among equals (Kytos compares priority, then timestamp).  maxsize 0 is
 * Kytos' "unbounded", still capped at hard_cap so memory stays bounded.
 * Every refused put is counted; nothing is dropped silently. */
#ifndef KH_EVENT_BUFFER_H
#define KH_EVENT_BUFFER_H

#include <stddef.h>
#include <stdint.h>

struct kh_ev;
typedef struct kh_buffer kh_buffer;

enum kh_buf_type { KH_BUF_FIFO = 0, KH_BUF_PRIORITY = 1 };

struct kh_buffer_stats {
    int type;
    size_t depth, maxsize, limit, high_water;
    uint64_t put, got;
    uint64_t full;       /* non-blocking puts refused: buffer full */
    uint64_t timeouts;   /* blocking puts that timed out */
    uint64_t refused;    /* puts after close */
    uint64_t aborted;    /* queued events dropped by kh_buffer_abort */
};

kh_buffer *kh_buffer_new(const char *name, int type, size_t maxsize, size_t hard_cap);
void kh_buffer_free(kh_buffer *b);
/* Takes the caller's reference on success.  timeout_ms: 0 = KYTOS_EFULL at
 * once when full, >0 = wait then KYTOS_ETIMEDOUT, <0 = wait for room.
 * KYTOS_EUNAVAIL once closed; KYTOS_ENOMEM. */
int kh_buffer_put(kh_buffer *b, struct kh_ev *e, int timeout_ms);
/* Two-step put: reserve a slot (same waits and results as kh_buffer_put),
 * then commit an event into it (never fails for lack of room, even if the
 * buffer was closed meanwhile) or cancel it.  Lets the bus tell its
 * observer about an event before any consumer can see it. */
int kh_buffer_reserve(kh_buffer *b, int timeout_ms);
int kh_buffer_commit(kh_buffer *b, struct kh_ev *e);
/* Ignores the bound and the closed flag (the shutdown event). */
int kh_buffer_put_force(kh_buffer *b, struct kh_ev *e);
/* Blocks for the next event; NULL once closed and empty, or aborted. */
struct kh_ev *kh_buffer_get(kh_buffer *b);
void kh_buffer_close(kh_buffer *b);
/* Close, drop what is queued (counted in aborted), wake the consumer. */
size_t kh_buffer_abort(kh_buffer *b);
void kh_buffer_stats(kh_buffer *b, struct kh_buffer_stats *s);
size_t kh_buffer_depth(kh_buffer *b);
const char *kh_buffer_name(const kh_buffer *b);

#endif
