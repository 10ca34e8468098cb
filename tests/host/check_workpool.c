/* tests/host/check_workpool.c - worker pools (host/util/workpool.c): FIFO, a
 * full queue refused or waited for, drain, SCHED_BATCH workers. */
#include "check_tap.h"
#include "host/util/workpool.h"
#include <kytos/errors.h>
#include <pthread.h>
#include <sched.h>

struct order {
    pthread_mutex_t mu;
    int seen[64];
    int n;
};

static void record(void *arg)
{
    struct order *o = *(struct order **)arg;
    int v = ((int *)arg)[sizeof(void *) / sizeof(int)];
    pthread_mutex_lock(&o->mu);
    o->seen[o->n++] = v;
    pthread_mutex_unlock(&o->mu);
}

static void policy_of(void *arg)
{
    *(int *)arg = sched_getscheduler(0);
}

/* Pool workers run as SCHED_BATCH (workpool.c: a woken worker must not
 * preempt the I/O thread that queued its job). */
START_TEST(workpool_workers_are_batch)
{
#ifdef SCHED_BATCH
    int before = sched_getscheduler(0), policy = -1;
    kh_workpool *p;

    if (before != SCHED_OTHER)
        return;   /* run under chrt: a SCHED_IDLE caller's workers may not leave it */
    p = kh_workpool_new("t", 2, 4);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(kh_workpool_submit(p, policy_of, &policy, 0), 0);
    ck_assert_int_eq(kh_workpool_drain(p, 5000), 0);
    ck_assert_int_eq(policy, SCHED_BATCH);
    ck_assert_int_eq(sched_getscheduler(0), before);   /* the caller's is its own */
    kh_workpool_free(p);
#endif
}
END_TEST

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static void blocker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&gate);
    pthread_mutex_unlock(&gate);
}

START_TEST(workpool_fifo_full_and_drain)
{
    kh_workpool *p = kh_workpool_new("t", 1, 4);
    static struct order o = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};
    struct { struct order *o; int v; } args[8];
    int i;
    ck_assert_ptr_nonnull(p);
    pthread_mutex_lock(&gate);
    ck_assert_int_eq(kh_workpool_submit(p, blocker, NULL, 0), 0);
    ck_assert_int_eq(kh_workpool_drain(p, 50), KYTOS_ETIMEDOUT);   /* blocked */
    for (i = 0; i < 4; i++) {
        args[i].o = &o;
        args[i].v = i;
        ck_assert_int_eq(kh_workpool_submit(p, record, &args[i], 0), 0);
    }
    /* the blocker may or may not have been taken off the queue yet */
    if (kh_workpool_queued(p) == 4) {
        ck_assert_int_eq(kh_workpool_submit(p, record, &args[0], 0), KYTOS_EFULL);
        ck_assert_int_eq(kh_workpool_submit(p, record, &args[0], 30), KYTOS_ETIMEDOUT);
    }
    pthread_mutex_unlock(&gate);
    ck_assert_int_eq(kh_workpool_drain(p, 5000), 0);
    ck_assert_int_eq(o.n, 4);
    for (i = 0; i < 4; i++)
        ck_assert_int_eq(o.seen[i], i);   /* one thread: FIFO */
    kh_workpool_free(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("workpool");

    kytos_check_add(s, "workpool_workers_are_batch", workpool_workers_are_batch);
    kytos_check_add(s, "workpool_fifo_full_and_drain", workpool_fifo_full_and_drain);
    return kytos_check_run(s);
}
