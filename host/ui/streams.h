/* host/ui/streams.h - live event and log streams as server-sent events:
 *   GET /api/kytos/core/events/stream?name=REGEX&content=false&tail=N
 *   GET /api/kytos/core/logs/stream?level=WARNING&logger=PREFIX&tail=N
 *   GET /api/kytos/core/streams/     clients, drops, counts
 * Events come from the bus's tap, lines from the log thread's tap; both
 * are on only while a stream is open (and for a grace period after, so a
 * client can resume with Last-Event-ID from the bounded history).  Each
 * client has a bounded buffer (http/stream.h): one that does not read is
 * dropped and counted, never waited for.  docs/ui.md. */
#ifndef KH_UI_STREAMS_H
#define KH_UI_STREAMS_H

#include "events/eventbus.h"
#include "http/request.h"

struct kh_streams;

struct kh_streams_conf {
    size_t max_streams;     /* api_max_streams: past it 503; 0: off */
    size_t buffer_bytes;    /* stream_buffer_bytes, per client */
    size_t history;         /* stream_history: events (and lines) kept */
    unsigned heartbeat_ms;  /* stream_heartbeat_ms */
    unsigned grace_ms;      /* taps stay on this long after the last client */
};

/* Starts the heartbeat thread; bus may be NULL (no event stream). */
struct kh_streams *kh_streams_new(const struct kh_streams_conf *conf, kh_bus *bus);
/* End every stream (their clients see the end), taps off, thread gone.
 * Before the HTTP server stops: a parked stream holds its connection. */
void kh_streams_stop(struct kh_streams *s);
/* After the bus is gone (a publisher may still be in the tap until then). */
void kh_streams_free(struct kh_streams *s);

/* Route handlers (ud: the kh_streams). */
int kh_streams_events_get(kytos_req *r, void *ud);
int kh_streams_logs_get(kytos_req *r, void *ud);
int kh_streams_status_get(kytos_req *r, void *ud);
struct json_object *kh_streams_status(struct kh_streams *s);

#endif
