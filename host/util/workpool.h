/* host/util/workpool.h - a named pool of worker threads with a bounded FIFO queue.
 *
 * Used for HTTP handlers ("api") and event handlers ("app", "sb", "db", and
 * one-thread pools for dynamic_single).  Submitting to a full queue fails
 * (the caller decides: 503, wait, or count a drop); nothing is lost silently. */
#ifndef KH_WORKPOOL_H
#define KH_WORKPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

typedef struct kh_workpool kh_workpool;
typedef void (*kh_work_fn)(void *arg);

/* threads >= 1; queue_max = 0 means threads * 64. */
kh_workpool *kh_workpool_new(const char *name, unsigned threads, size_t queue_max);
/* 0 queued; KYTOS_EFULL queue full; KYTOS_EUNAVAIL pool stopping.
 * timeout_ms: 0 = do not wait, -1 = wait for room forever, >0 wait then ETIMEDOUT. */
int kh_workpool_submit(kh_workpool *p, kh_work_fn fn, void *arg, int timeout_ms);
/* Wait until the queue is empty and no job runs, or timeout: 0 or KYTOS_ETIMEDOUT. */
int kh_workpool_drain(kh_workpool *p, int timeout_ms);
/* Refuse new work, run what is queued, join the threads, free. */
void kh_workpool_free(kh_workpool *p);
/* Queue-delay target in ms (0 = off): when a job waited longer than that,
 * kh_workpool_shedding() is true for the next target interval, so callers
 * can answer 503 at once instead of queueing more. */
void kh_workpool_set_target(kh_workpool *p, unsigned ms);
int kh_workpool_shedding(kh_workpool *p);
/* True when the caller runs on one of this pool's threads. */
int kh_workpool_is_worker(const kh_workpool *p);
/* True when the caller runs on any workpool thread. */
int kh_workpool_in_any_worker(void);
/* {"threads","active","queued","queue_max","high_water","rejected","done"} */
struct json_object *kh_workpool_status(kh_workpool *p);
size_t kh_workpool_queued(kh_workpool *p);

#endif
