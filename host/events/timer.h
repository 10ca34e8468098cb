/* host/events/timer.h - Kytos' execute_as_loop: a NApp function run every
 * interval on the app pool until the NApp unloads.
 *
 * Fixed delay, as Kytos (run, then wait interval): a slow function never
 * piles up runs, at most one run of a timer is queued or running.  The first
 * run is right after kh_timers_start (or right away when added later).  One
 * thread keeps the schedule; the functions run on the pool. */
#ifndef KH_TIMER_H
#define KH_TIMER_H

#include "events/eventbus.h"
#include "util/workpool.h"

typedef struct kh_timers kh_timers;

#define KH_TIMER_MIN_MS 1u
#define KH_TIMER_MAX_MS (7u * 24 * 3600 * 1000)

kh_timers *kh_timers_new(const struct kh_napp_ops *ops, kh_workpool *pool);
int kh_timers_start(kh_timers *t);
/* 0, KYTOS_EINVAL (interval or fn), KYTOS_ESTATE (stopped), KYTOS_ENOMEM. */
int kh_timers_add(kh_timers *t, kytos_napp *n, unsigned interval_ms, kytos_timer_fn fn, void *ud);
/* Remove napp's timers; wait (until deadline_us, CLOCK_MONOTONIC) for a run
 * in progress.  0 or KYTOS_ETIMEDOUT. */
int kh_timers_remove_napp(kh_timers *t, kytos_napp *n, int64_t deadline_us);
/* No new runs; wait for runs in progress until deadline_us.  Idempotent. */
int kh_timers_stop(kh_timers *t, int64_t deadline_us);
void kh_timers_free(kh_timers *t);
/* {"count", "runs", "skipped"}. New reference. */
struct json_object *kh_timers_status(kh_timers *t);

#endif
