/* tests/events/check_buffer.c - KytosEventBuffer: FIFO and priority order,
 * bounds, blocking and non-blocking put, close and abort. */
#include "check_tap.h"
#include "host/events/event_buffer.h"
#include "host/events/event_obj.h"
#include <pthread.h>
#include <stdio.h>

static struct kh_ev *ev(const char *name, int prio)
{
    struct kh_ev *e = kh_ev_new(name, NULL, prio);
    ck_assert_ptr_nonnull(e);
    return e;
}

START_TEST(fifo_keeps_order)
{
    kh_buffer *b = kh_buffer_new("app", KH_BUF_FIFO, 0, 100000);
    char name[32];
    int i;

    for (i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "e.%d", i);
        ck_assert_int_eq(kh_buffer_put(b, ev(name, 1000 - i), 0), 0); /* priority ignored */
    }
    for (i = 0; i < 1000; i++) {
        struct kh_ev *e = kh_buffer_get(b);
        snprintf(name, sizeof name, "e.%d", i);
        ck_assert_str_eq(e->name, name);
        kh_ev_unref(e);
    }
    kh_buffer_free(b);
}
END_TEST

START_TEST(priority_then_arrival)
{
    kh_buffer *b = kh_buffer_new("msg_in", KH_BUF_PRIORITY, 0, 100000);
    static const int prios[] = {5, 1, 3, 1, 0, 5, -2, 3, 1, 0};
    int last_prio = -1000, i;
    unsigned long last_seq = 0;

    for (i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof name, "p.%d", i);
        ck_assert_int_eq(kh_buffer_put(b, ev(name, prios[i]), 0), 0);
    }
    for (i = 0; i < 10; i++) {
        struct kh_ev *e = kh_buffer_get(b);
        ck_assert_int_ge(e->priority, last_prio);
        if (e->priority == last_prio)
            ck_assert_uint_gt(e->seq, last_seq); /* FIFO among equals */
        last_prio = e->priority;
        last_seq = e->seq;
        kh_ev_unref(e);
    }
    kh_buffer_free(b);
}
END_TEST

START_TEST(priority_many_random)
{
    kh_buffer *b = kh_buffer_new("msg_out", KH_BUF_PRIORITY, 5000, 0);
    int last = -1, i;
    unsigned s = 12345;

    for (i = 0; i < 5000; i++) {
        s = s * 1103515245u + 12345u;
        ck_assert_int_eq(kh_buffer_put(b, ev("x", (int)((s >> 16) % 50)), 0), 0);
    }
    {
        struct kh_ev *e = ev("x", 0);
        ck_assert_int_eq(kh_buffer_put(b, e, 0), KYTOS_EFULL);
        kh_ev_unref(e);
    }
    for (i = 0; i < 5000; i++) {
        struct kh_ev *e = kh_buffer_get(b);
        ck_assert_int_ge(e->priority, last);
        last = e->priority;
        kh_ev_unref(e);
    }
    kh_buffer_free(b);
}
END_TEST

START_TEST(full_nonblocking_and_timeout_counted)
{
    kh_buffer *b = kh_buffer_new("app", KH_BUF_FIFO, 2, 0);
    struct kh_buffer_stats st;
    struct kh_ev *e = ev("x", 0);
    int64_t t0;

    ck_assert_int_eq(kh_buffer_put(b, ev("a", 0), 0), 0);
    ck_assert_int_eq(kh_buffer_put(b, ev("b", 0), 0), 0);
    ck_assert_int_eq(kh_buffer_put(b, e, 0), KYTOS_EFULL);
    t0 = kh_mono_us();
    ck_assert_int_eq(kh_buffer_put(b, e, 30), KYTOS_ETIMEDOUT);
    ck_assert_int_ge(kh_mono_us() - t0, 29000);
    kh_buffer_stats(b, &st);
    ck_assert_uint_eq(st.full, 1);
    ck_assert_uint_eq(st.timeouts, 1);
    ck_assert_uint_eq(st.depth, 2);
    ck_assert_uint_eq(st.high_water, 2);
    ck_assert_uint_eq(st.maxsize, 2);
    kh_ev_unref(e);
    kh_buffer_free(b);
}
END_TEST

struct putter {
    kh_buffer *b;
    int rc;
};

static void *put_forever(void *arg)
{
    struct putter *p = arg;
    struct kh_ev *e = ev("late", 0);

    p->rc = kh_buffer_put(p->b, e, -1);
    if (p->rc != 0)
        kh_ev_unref(e);
    return NULL;
}

START_TEST(blocking_put_waits_for_room)
{
    kh_buffer *b = kh_buffer_new("app", KH_BUF_FIFO, 1, 0);
    struct putter p = {b, -99};
    pthread_t t;
    struct kh_ev *e;

    ck_assert_int_eq(kh_buffer_put(b, ev("first", 0), 0), 0);
    pthread_create(&t, NULL, put_forever, &p);
    e = kh_buffer_get(b); /* makes room: the blocked put goes through */
    ck_assert_str_eq(e->name, "first");
    kh_ev_unref(e);
    e = kh_buffer_get(b);
    ck_assert_str_eq(e->name, "late");
    kh_ev_unref(e);
    pthread_join(t, NULL);
    ck_assert_int_eq(p.rc, 0);
    kh_buffer_free(b);
}
END_TEST

START_TEST(close_refuses_and_wakes)
{
    kh_buffer *b = kh_buffer_new("app", KH_BUF_FIFO, 1, 0);
    struct putter p = {b, -99};
    struct kh_buffer_stats st;
    struct kh_ev *e = ev("refused", 0);
    pthread_t t;

    ck_assert_int_eq(kh_buffer_put(b, ev("queued", 0), 0), 0);
    pthread_create(&t, NULL, put_forever, &p);
    kh_buffer_close(b);
    pthread_join(t, NULL);
    ck_assert_int_eq(p.rc, KYTOS_EUNAVAIL); /* the blocked put woke up refused */
    ck_assert_int_eq(kh_buffer_put(b, e, 0), KYTOS_EUNAVAIL);
    kh_ev_unref(e);
    e = kh_buffer_get(b); /* what was queued still comes out */
    ck_assert_str_eq(e->name, "queued");
    kh_ev_unref(e);
    ck_assert_ptr_null(kh_buffer_get(b));
    kh_buffer_stats(b, &st);
    ck_assert_uint_eq(st.refused, 2);
    kh_buffer_free(b);
}
END_TEST

START_TEST(force_put_ignores_bound_and_close)
{
    kh_buffer *b = kh_buffer_new("app", KH_BUF_FIFO, 1, 0);
    struct kh_ev *e;

    ck_assert_int_eq(kh_buffer_put(b, ev("a", 0), 0), 0);
    kh_buffer_close(b);
    ck_assert_int_eq(kh_buffer_put_force(b, ev("kytos/core.shutdown", 0)), 0);
    ck_assert_uint_eq(kh_buffer_depth(b), 2);
    e = kh_buffer_get(b);
    kh_ev_unref(e);
    e = kh_buffer_get(b);
    ck_assert_str_eq(e->name, "kytos/core.shutdown");
    kh_ev_unref(e);
    kh_buffer_free(b);
}
END_TEST

START_TEST(abort_drops_counted)
{
    kh_buffer *b = kh_buffer_new("app", KH_BUF_FIFO, 0, 10);
    struct kh_buffer_stats st;
    struct kh_ev *e;
    int i;

    for (i = 0; i < 10; i++)
        ck_assert_int_eq(kh_buffer_put(b, ev("x", 0), 0), 0);
    e = ev("x", 0);
    ck_assert_int_eq(kh_buffer_put(b, e, 0), KYTOS_EFULL); /* unbounded is capped */
    kh_ev_unref(e);
    ck_assert_uint_eq(kh_buffer_abort(b), 10);
    ck_assert_ptr_null(kh_buffer_get(b));
    kh_buffer_stats(b, &st);
    ck_assert_uint_eq(st.aborted, 10);
    ck_assert_uint_eq(st.maxsize, 0);
    ck_assert_uint_eq(st.limit, 10);
    kh_buffer_free(b);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("event_buffer");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, fifo_keeps_order);
    tcase_add_test(tc, priority_then_arrival);
    tcase_add_test(tc, priority_many_random);
    tcase_add_test(tc, full_nonblocking_and_timeout_counted);
    tcase_add_test(tc, blocking_put_waits_for_room);
    tcase_add_test(tc, close_refuses_and_wakes);
    tcase_add_test(tc, force_put_ignores_bound_and_close);
    tcase_add_test(tc, abort_drops_counted);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return kytos_check_run(suite()); }
