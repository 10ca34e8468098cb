/* tests/events/check_timer.c - timers (Kytos' execute_as_loop): repeated
 * runs on the app pool, no pile-up, removal on unload, stop on shutdown. */
#include "check_tap.h"
#include "fake_napp.h"
#include <pthread.h>
#include <string.h>

#define WAIT_MS 10000

struct tick {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int runs, inside, max_inside, gated, open;
};

static void tick_init(struct tick *t)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
}

static void on_tick(kytos_napp *n, void *ud)
{
    struct tick *t = ud;

    pthread_mutex_lock(&t->mu);
    t->inside++;
    if (t->inside > t->max_inside)
        t->max_inside = t->inside;
    t->runs++;
    pthread_cond_broadcast(&t->cv);
    while (t->gated && !t->open)
        pthread_cond_wait(&t->cv, &t->mu);
    t->inside--;
    pthread_mutex_unlock(&t->mu);
}

static void wait_runs(struct tick *t, int n)
{
    pthread_mutex_lock(&t->mu);
    while (t->runs < n)
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
}

static int runs(struct tick *t)
{
    int n;
    pthread_mutex_lock(&t->mu);
    n = t->runs;
    pthread_mutex_unlock(&t->mu);
    return n;
}

START_TEST(runs_every_interval_until_unload)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a, c;
    struct tick ta, tc;
    int frozen;

    fake_napp_init(&a, "test/a");
    fake_napp_init(&c, "test/c");
    tick_init(&ta);
    tick_init(&tc);
    ck_assert_int_eq(kh_bus_timer_add(b, FAKE(&a), 5, on_tick, &ta), 0);
    ck_assert_int_eq(kh_bus_start(b), 0);
    wait_runs(&ta, 5);
    ck_assert_int_eq(kh_bus_napp_unload(b, FAKE(&a), WAIT_MS), 0);
    frozen = runs(&ta);
    /* another NApp's timer ticks several times meanwhile; a's does not */
    ck_assert_int_eq(kh_bus_timer_add(b, FAKE(&c), 5, on_tick, &tc), 0);
    wait_runs(&tc, 4);
    ck_assert_int_eq(runs(&ta), frozen);
    ck_assert_int_eq(atomic_load(&a.refs), 0);
    kh_bus_free(b);
    ck_assert_int_eq(atomic_load(&c.refs), 0);
}
END_TEST

START_TEST(first_run_at_start)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a;
    struct tick t;

    fake_napp_init(&a, "test/a");
    tick_init(&t);
    ck_assert_int_eq(kh_bus_timer_add(b, FAKE(&a), 3600 * 1000, on_tick, &t), 0);
    ck_assert_int_eq(runs(&t), 0); /* nothing before start */
    ck_assert_int_eq(kh_bus_start(b), 0);
    wait_runs(&t, 1); /* an hourly timer still runs right at start */
    kh_bus_free(b);
}
END_TEST

START_TEST(slow_function_never_piles_up)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a;
    struct tick t;

    fake_napp_init(&a, "test/a");
    tick_init(&t);
    t.gated = 1;
    ck_assert_int_eq(kh_bus_timer_add(b, FAKE(&a), 1, on_tick, &t), 0);
    ck_assert_int_eq(kh_bus_start(b), 0);
    wait_runs(&t, 1);
    /* while it is stuck, unload cannot finish */
    ck_assert_int_eq(kh_bus_napp_unload(b, FAKE(&a), 30), KYTOS_ETIMEDOUT);
    pthread_mutex_lock(&t.mu);
    ck_assert_int_eq(t.runs, 1); /* 30 intervals passed, no second run started */
    t.open = 1;
    pthread_cond_broadcast(&t.cv);
    pthread_mutex_unlock(&t.mu);
    ck_assert_int_eq(kh_bus_napp_unload(b, FAKE(&a), WAIT_MS), 0);
    ck_assert_int_eq(t.max_inside, 1);
    ck_assert_int_eq(atomic_load(&a.refs), 0);
    kh_bus_free(b);
}
END_TEST

START_TEST(no_pile_up_under_load)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a;
    struct tick t;

    fake_napp_init(&a, "test/a");
    tick_init(&t);
    ck_assert_int_eq(kh_bus_timer_add(b, FAKE(&a), 1, on_tick, &t), 0);
    ck_assert_int_eq(kh_bus_start(b), 0);
    wait_runs(&t, 50);
    kh_bus_shutdown(b, WAIT_MS);
    ck_assert_int_eq(t.max_inside, 1);
    ck_assert_int_eq(kh_bus_timer_add(b, FAKE(&a), 1, on_tick, &t), KYTOS_ESTATE);
    kh_bus_free(b);
}
END_TEST

START_TEST(invalid_and_inactive)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a, c;
    struct tick ta, tc;

    fake_napp_init(&a, "test/a");
    fake_napp_init(&c, "test/c");
    tick_init(&ta);
    tick_init(&tc);
    ck_assert_int_eq(kh_bus_timer_add(b, FAKE(&a), 0, on_tick, &ta), KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_timer_add(b, FAKE(&a), 10, NULL, &ta), KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_timer_add(b, FAKE(&a), 0xFFFFFFFFu, on_tick, &ta), KYTOS_EINVAL);
    atomic_store(&a.active, 0);
    ck_assert_int_eq(kh_bus_timer_add(b, FAKE(&a), 1, on_tick, &ta), 0);
    ck_assert_int_eq(kh_bus_timer_add(b, FAKE(&c), 1, on_tick, &tc), 0);
    ck_assert_int_eq(kh_bus_start(b), 0);
    wait_runs(&tc, 10);
    ck_assert_int_eq(runs(&ta), 0); /* an inactive NApp's timer does not run */
    {
        struct json_object *st = kh_bus_status(b), *tm, *v;
        ck_assert(json_object_object_get_ex(st, "timers", &tm));
        ck_assert(json_object_object_get_ex(tm, "count", &v));
        ck_assert_int_eq(json_object_get_int(v), 2);
        json_object_put(st);
    }
    kh_bus_free(b);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("timer");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, runs_every_interval_until_unload);
    tcase_add_test(tc, first_run_at_start);
    tcase_add_test(tc, slow_function_never_piles_up);
    tcase_add_test(tc, no_pile_up_under_load);
    tcase_add_test(tc, invalid_and_inactive);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return kytos_check_run(suite()); }
