/* host/util/thread_batch.h - run a thread as Linux's SCHED_BATCH.
 *
 * The same share of the CPU as any other thread, but a wake-up does not
 * preempt the thread that is running: the one that queued the work.  The
 * store's writer and the work pools' workers use it.  On a busy core a
 * woken writer or worker otherwise ran at once for each job, ran into the
 * locks its waker still held and switched back, and the resume it sent
 * when done switched again (alternated runs, kytosd on one core: +15-25%
 * flow POSTs per second with a batch writer; a pooled POST answered at
 * once 30k -> 58k per second with batch workers).  Woken on an idle core,
 * as usual with more than one, the thread runs at once anyway.  Threads it
 * starts inherit the policy.  Refusal (not Linux, or a caller already
 * SCHED_IDLE without the right to leave it) costs nothing but that. */
#ifndef KH_THREAD_BATCH_H
#define KH_THREAD_BATCH_H

#include <pthread.h>
#include <sched.h>

static inline void kh_thread_batch(pthread_t th)
{
#ifdef SCHED_BATCH
    struct sched_param sp = {0};
    (void)pthread_setschedparam(th, SCHED_BATCH, &sp);
#else
    (void)th;
#endif
}

#endif
