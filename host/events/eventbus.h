/* host/events/eventbus.h - KytosEvents: buffers, pools, subscriptions, dead letter,
 * pacer, timers, queue monitors.  See include/kytos/event.h for the ABI.
 *
 * Life cycle: kh_bus_new (config: thread_pool_max_workers, event_buffer_conf,
 * *_monitors, dead letter size) -> NApps subscribe in init -> kh_bus_start
 * (consumers, timers and monitors run) -> ... -> kh_bus_shutdown (publish
 * kytos/core.shutdown, stop intake, drain to a deadline, stop the pools) ->
 * kh_bus_free.
 *
 * Flow: publish copies the content once and puts the event in a buffer (one
 * consumer thread per buffer).  The consumer looks up the subscribers of
 * the name (cached per name) and submits one job per subscriber to its
 * pool; each job gets its own copy of the content (a lone subscriber takes
 * the publish copy, several copy it on their worker threads).  A pool full
 * of work blocks the consumer (backpressure reaches the buffer, then the
 * publisher); nothing is dropped without a counter.
 *
 * Deadlock note: a handler that publishes with timeout_ms = -1 into a full
 * buffer whose consumer waits for that handler's pool can wait forever;
 * handlers should publish with a finite timeout (or 0).
 *
 * kytos/core.shutdown is delivered once (on the app buffer), not once per
 * buffer as in Kytos; kytos/core.shutdown.<u>/<n> is delivered by
 * kh_bus_napp_unload to that NApp's own handlers only, exactly once. */
#ifndef KH_EVENTBUS_H
#define KH_EVENTBUS_H

#include "util/base.h"

struct kh_bus_conf;

typedef void (*kh_bus_observer)(void *ud, const char *name, struct json_object *content);

/* The bus from kytos.conf's keys; ops (util/base.h: how the bus reaches
 * NApps, the host's kh_napp_* functions or a test's) is copied. */
kh_bus *kh_bus_new(const kh_config *cfg, const struct kh_napp_ops *ops, char *err, size_t errlen);
/* The same from a parsed configuration (event_conf.h). */
kh_bus *kh_bus_new_conf(const struct kh_bus_conf *conf, const struct kh_napp_ops *ops,
                        char *err, size_t errlen);
int kh_bus_start(kh_bus *b);

/* Publish from the core (no NApp).  Same results as kytos_event_publish. */
int kh_bus_publish(kh_bus *b, const char *name, struct json_object *content,
                   const struct kytos_pub_opts *opts);
/* Publish on behalf of a NApp (from may be NULL): KYTOS_OK, KYTOS_EFULL,
 * KYTOS_ETIMEDOUT, KYTOS_EUNAVAIL (shutting down), KYTOS_EINVAL (name,
 * buffer or content), KYTOS_ENOMEM.  content is borrowed and copied. */
int kh_bus_publish_from(kh_bus *b, kytos_napp *from, const char *name,
                        struct json_object *content, const struct kytos_pub_opts *opts);
/* The same, taking over the caller's reference to content (no copy). */
int kh_bus_publish_give(kh_bus *b, kytos_napp *from, const char *name,
                        struct json_object *content, const struct kytos_pub_opts *opts);
/* 1 when a subscription matches name now (or an observer records every
 * event), else 0. */
int kh_bus_wanted(kh_bus *b, const char *name);
/* Events published since the bus was made (a count that only grows). */
uint64_t kh_bus_published(kh_bus *b);
/* kytos/core.<u>/<n>.loaded on the meta buffer (the loader calls it after start). */
int kh_bus_napp_loaded(kh_bus *b, kytos_napp *n);

/* Subscribe a NApp's handler.  0, or KYTOS_EINVAL (pattern, handler, pool;
 * reason in err), KYTOS_ESTATE (shutting down), KYTOS_ENOMEM. */
int kh_bus_subscribe(kh_bus *b, kytos_napp *n, const struct kytos_sub *s, char *err, size_t errlen);

/* Remove a NApp's subscriptions and timers, wait until none of its
 * handlers runs or is queued (bounded by timeout_ms), then deliver
 * kytos/core.shutdown.<u>/<n> to its own handlers of that name, in the
 * caller's thread (and tell the observer): the loader must not publish it
 * again.  Called before its stop, before or after kh_bus_shutdown.
 * Returns 0 or KYTOS_ETIMEDOUT (some handler still ran at the deadline). */
int kh_bus_napp_unload(kh_bus *b, kytos_napp *n, int timeout_ms);
/* The same without kytos/core.shutdown.<u>/<n>: to roll back a failed init. */
int kh_bus_napp_forget(kh_bus *b, kytos_napp *n, int timeout_ms);
/* Wait until buffers and pools are idle: 0, KYTOS_ETIMEDOUT, or
 * KYTOS_ESTATE when called from a handler (it would wait for itself).
 * Timers are not waited for (they never go idle). */
int kh_bus_drain(kh_bus *b, int timeout_ms);
/* kytos/core.shutdown, refuse new events, drain up to the deadline, drop
 * what is left (counted), stop timers, monitors and pools.  Idempotent.
 * Running handlers are waited for (threads cannot be cancelled safely). */
void kh_bus_shutdown(kh_bus *b, int deadline_ms);
void kh_bus_free(kh_bus *b);
/* Status: {"buffers_qsize":{...}, "thread_pool_qsize":{...}, "buffers":{name:{type,maxsize,
 * depth,high_water,drops,...}}, "pools":{name:{threads,active,queued,...}}, "dead_letter":{...},
 * "subscriptions":{...}, "events":{...}, "timers":{...}, "monitors":{...}}. New ref. */
struct json_object *kh_bus_status(kh_bus *b);
/* Register GET/PATCH/DELETE /api/kytos/core/dead_letter/ through add (the
 * host's kh_host_core_route). */
int kh_bus_register_core_routes(kh_bus *b, kh_core_route_fn add, void *add_ud);
/* Test host hook: called for every event accepted by publish (and for the
 * core's kytos/core.shutdown and kytos/core.shutdown.<u>/<n>), in the
 * publishing thread, before any handler can see the event: an event is
 * observed before the events its handlers publish.  Called from many
 * threads at once: fn must lock.  content is borrowed and read-only
 * (deep-copy it to keep it).  Set before kh_bus_start. */
void kh_bus_set_observer(kh_bus *b, kh_bus_observer fn, void *ud);
/* The live event stream's tap (host/ui/streams.c): while enabled, publish
 * asks wants(name) and, if so, hands event() the content as JSON text, on
 * the publishing thread, before the event is queued (an event nobody
 * subscribes to included).  Both must be quick and must not block.
 * Disabled, it costs publish one relaxed load.  Set it once, before
 * enabling; enable and disable from any thread. */
struct kh_bus_tap {
    int (*wants)(void *ud, const char *name);
    void (*event)(void *ud, const char *name, const char *json, size_t len);
};
void kh_bus_set_tap(kh_bus *b, const struct kh_bus_tap *tap, void *ud);
void kh_bus_tap_enable(kh_bus *b, int on);
/* Fill the event/pacer/timer slots of the ABI table; bus_of finds the bus
 * of the calling NApp (NULL: none, the slot fails with KYTOS_EINVAL).  The
 * table is one per process, and so is bus_of. */
void kh_bus_api_fill(struct kytos_api *api, kh_bus *(*bus_of)(const kytos_napp *n));
/* The NApp hooks the bus was created with. */
const struct kh_napp_ops *kh_bus_napp_ops(const kh_bus *b);

/* Pacer and timers (the ABI slots call these). */
int kh_bus_pace(kh_bus *b, kytos_napp *n, const char *action, const char *key, const char *rate,
                unsigned flags);
int kh_bus_timer_add(kh_bus *b, kytos_napp *n, unsigned interval_ms, kytos_timer_fn fn, void *ud);

struct kh_dl_item;
/* Dead letter, for the REST handlers. */
struct kh_deadletter *kh_bus_deadletter(kh_bus *b);
/* Put dead-letter items back into buffer ("app" or "msg_in") with
 * reinjections + 1.  Items are consumed.  Returns how many could not be
 * queued (they go back to the dead letter). */
size_t kh_bus_reinject(kh_bus *b, struct kh_dl_item *items, size_t n, const char *buffer);

#endif
