/* host/http/shed.h - the overload governor (shed.c); its state lives in the
 * front door's context (http_ctx.h). */
#ifndef KH_SHED_H
#define KH_SHED_H

#include "http/http_ctx.h"

/* latency_ms: api_shed_latency_ms (0 = off). */
void kh_shed_init(struct kh_http_ctx *h, int64_t latency_ms);
/* Every ~50 ms (watchdog thread): adjust the shed probability. */
void kh_shed_tick(struct kh_http_ctx *h);
/* 1: answer this new request 503 now (the process is saturated). */
int kh_shed_now(struct kh_http_ctx *h);
/* 1 when the last tick found the CPU nearly all used (and shedding is on). */
int kh_shed_saturated(struct kh_http_ctx *h);
/* An admitted request was answered after lat_ns. */
void kh_shed_observe(struct kh_http_ctx *h, int64_t lat_ns);
struct json_object *kh_shed_status(struct kh_http_ctx *h);

#endif
