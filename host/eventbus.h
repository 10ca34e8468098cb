/* host/eventbus.h - KytosEvents: buffers, pools, subscriptions, dead letter,
 * pacer, timers, queue monitors.  See include/kytos/event.h for the ABI.
 *
 * Life cycle: kh_bus_new (config: thread_pool_max_workers, event_buffer_conf,
 * *_monitors, dead letter size) -> NApps subscribe in init -> kh_bus_start
 * (consumers run) -> ... -> kh_bus_shutdown (publish kytos/core.shutdown,
 * stop intake, drain to a deadline, stop pools) -> kh_bus_free. */
#ifndef KH_EVENTBUS_H
#define KH_EVENTBUS_H

#include "host.h"

typedef void (*kh_bus_observer)(void *ud, const char *name, struct json_object *content);

kh_bus *kh_bus_new(kh_host *host, const kh_config *cfg, char *err, size_t errlen);
int kh_bus_start(kh_bus *b);
/* Publish from the core (no NApp).  Same results as kytos_event_publish. */
int kh_bus_publish(kh_bus *b, const char *name, struct json_object *content,
                   const struct kytos_pub_opts *opts);
/* Remove a NApp's subscriptions and timers and wait until none of its
 * handlers runs any more (bounded by timeout_ms).  Called before its stop. */
void kh_bus_napp_unload(kh_bus *b, kytos_napp *n, int timeout_ms);
/* Wait until buffers and pools are idle: 0 or KYTOS_ETIMEDOUT. */
int kh_bus_drain(kh_bus *b, int timeout_ms);
/* kytos/core.shutdown to every buffer, refuse new events, drain up to the
 * deadline, stop the pools.  Idempotent. */
void kh_bus_shutdown(kh_bus *b, int deadline_ms);
void kh_bus_free(kh_bus *b);
/* Status: {"buffers_qsize":{...}, "thread_pool_qsize":{...}, "buffers":{name:{size,depth,
 * high_water,drops}}, "pools":{name:{threads,active,queued,...}}, "dead_letter": n}. New ref. */
struct json_object *kh_bus_status(kh_bus *b);
/* Register GET/PATCH/DELETE /api/kytos/core/dead_letter/ on the host. */
int kh_bus_register_core_routes(kh_bus *b, kh_host *h);
/* Test host hook: called for every event accepted by publish. */
void kh_bus_set_observer(kh_bus *b, kh_bus_observer fn, void *ud);
/* Fill the event/pacer/timer slots of the ABI table. */
void kh_bus_api_fill(struct kytos_api *api);

#endif
