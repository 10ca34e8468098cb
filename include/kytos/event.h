/* kytos/event.h - KytosEvents: publish, subscribe, pacer, timers.
 *
 * Ownership.  Publish borrows content: the host deep-copies it before
 * kytos_event_publish returns, so the caller may change or free it at once.
 * Content is a JSON object (NULL = {}).  A handler receives a borrowed,
 * read-only event valid until it returns; name and id strings too.  Each
 * subscriber gets its own copy of the content, so a handler may read and
 * serialise it freely (json-c caches serialised text inside an object, so
 * one object must never be serialised by two threads at once: that is why
 * copies are not shared).  Do not modify it, and do not keep a reference
 * past the call (json-c reference counts are not thread safe): deep-copy
 * (json_object_deep_copy) what you need to keep.
 *
 * Handlers run on their pool ("sb", "app", "db", a configured pool) and may
 * run concurrently with each other; "dynamic_single" gives the subscription
 * one thread of its own, so it sees its events one at a time in order;
 * "inline" runs the handler on the thread that takes events off the buffer,
 * with no hand-off at all (in order, and nothing else of that buffer runs
 * meanwhile: for short handlers that never wait, such as a switch's answer
 * to a message; never publish into the same buffer with a timeout).
 * "direct" (ABI 1.2) runs it on the publisher's thread, inside
 * kytos_event_publish, when every subscription to that name is direct (else
 * as "inline"): no buffer and no thread to wake, as a write to a switch's
 * socket would be.  The publisher may be any NApp's thread, including the
 * store's writer thread in a kytos_store_bulk_async callback, so a direct
 * handler must be short, thread safe and never wait: no synchronous store
 * write, no publish with a timeout into a full buffer, no lock the
 * publisher may hold.  Nested direct publishes run nested (a few levels,
 * then they take the buffer).  On the direct path the publish options'
 * buffer, timeout and priority do not apply; events published before the
 * bus runs (from init) take the buffer; while a name also has other
 * subscriptions, its direct ones run as "inline", so their order relative
 * to direct deliveries is not kept.  A
 * handler returning a negative status puts the event in the dead letter.
 * Subscriptions may be made at any time; they are removed when the NApp
 * unloads, before its code can be replaced, and no handler or timer of a
 * NApp runs after its stop.  Patterns are POSIX extended regexes matched
 * against the whole name (Kytos' listen_to rule).  Event names are 1..255
 * printable ASCII bytes without spaces.
 *
 * Publishing from a handler with timeout_ms = -1 can wait forever if the
 * buffer stays full; prefer a finite timeout.
 */
#ifndef KYTOS_EVENT_H
#define KYTOS_EVENT_H

#include "api.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef KYTOS_HOST
static inline int kytos_event_subscribe(kytos_napp *n, const struct kytos_sub *s)
{
    return kytos__api->event_subscribe(n, s);
}
/* KYTOS_OK; KYTOS_EFULL (non-blocking, buffer full); KYTOS_ETIMEDOUT;
 * KYTOS_EUNAVAIL after shutdown began; KYTOS_EINVAL for a bad name/buffer. */
static inline int kytos_event_publish(kytos_napp *n, const char *name, struct json_object *content,
                                      const struct kytos_pub_opts *opts)
{
    return kytos__api->event_publish(n, name, content, opts);
}
static inline const char *kytos_event_name(const kytos_event *e) { return kytos__api->event_name(e); }
static inline struct json_object *kytos_event_content(const kytos_event *e)
{
    return kytos__api->event_content(e);
}
static inline const char *kytos_event_id(const kytos_event *e) { return kytos__api->event_id(e); }
static inline int64_t kytos_event_time_us(const kytos_event *e) { return kytos__api->event_time_us(e); }
static inline int kytos_event_priority(const kytos_event *e) { return kytos__api->event_priority(e); }
static inline int kytos_event_reinjections(const kytos_event *e)
{
    return kytos__api->event_reinjections(e);
}

/* ---- ABI 1.2.  A NApp whose KYTOS_NAPP_ABI_MIN_MINOR is lower may call
 * these on an older host too: publish_give then publishes a copy,
 * wanted says 1, take_content gives a copy (the event keeps its content);
 * KYTOS_API_HAS(event_publish_give) etc. tell which. ----
 * kytos_event_publish without the copy: the call takes over the caller's
 * reference to content, whatever it returns.  content must be the caller's
 * alone: built for this call, sharing no object with anything the caller
 * (or another thread) still holds, since json-c reference counts are not
 * thread safe.  Same results as kytos_event_publish. */
static inline int kytos_event_publish_give(kytos_napp *n, const char *name,
                                           struct json_object *content,
                                           const struct kytos_pub_opts *opts)
{
#if KYTOS_NAPP_ABI_MIN_MINOR < 2
    if (!KYTOS_API_HAS(event_publish_give)) {   /* an older host: publish a copy */
        int rc = kytos__api->event_publish(n, name, content, opts);
        json_object_put(content);
        return rc;
    }
#endif
    return kytos__api->event_publish_give(n, name, content, opts);
}
/* 1 when a subscription (of any NApp) matches name now, else 0: lets a
 * publisher skip building content that nobody would receive.  A
 * subscription made afterwards is not seen; publishing anyway is always
 * correct. */
static inline int kytos_event_wanted(kytos_napp *n, const char *name)
{
#if KYTOS_NAPP_ABI_MIN_MINOR < 2
    if (!KYTOS_API_HAS(event_wanted))
        return 1;   /* an older host cannot tell: publishing is always correct */
#endif
    return kytos__api->event_wanted(n, name);
}
/* From a handler: its own copy of the content, for keeps (the caller puts
 * it; NULL when there is none or it was taken already).  The event has no
 * content afterwards, for this handler and for the dead letter. */
static inline struct json_object *kytos_event_take_content(const kytos_event *e)
{
#if KYTOS_NAPP_ABI_MIN_MINOR < 2
    if (!KYTOS_API_HAS(event_take_content)) {   /* an older host: a copy */
        struct json_object *c = NULL;
        if (json_object_deep_copy(kytos__api->event_content(e), &c, NULL) != 0) {
            json_object_put(c);
            c = NULL;
        }
        return c;
    }
#endif
    return kytos__api->event_take_content(e);
}
/* Fixed-window pacer: rate is "N/second", "N/minute", "N/hour" or "N/day".
 * Sleeps until the window admits the hit, or with KYTOS_PACE_NOWAIT returns
 * KYTOS_EFULL at once.  key may be NULL. */
static inline int kytos_pace(kytos_napp *n, const char *action, const char *key, const char *rate,
                             unsigned flags)
{
    return kytos__api->pace(n, action, key, rate, flags);
}
/* Kytos' execute_as_loop: fn runs every interval_ms on the app pool until stop. */
static inline int kytos_timer_add(kytos_napp *n, unsigned interval_ms, kytos_timer_fn fn, void *ud)
{
    return kytos__api->timer_add(n, interval_ms, fn, ud);
}
#endif /* KYTOS_HOST */

#ifdef __cplusplus
}
#endif

#endif
