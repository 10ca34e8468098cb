/* tests/host/check_napp_refs.c - a NApp's references against its unload.
 *
 * Requests hold a reference to their NApp; disabling it waits for them and
 * then frees it.  kh_napp_unref used to read the NApp after its decrement,
 * which raced with that free (ThreadSanitizer: a read by the request's
 * thread and the free by the unloader, unordered).  These tests fail under
 * ThreadSanitizer when that comes back, and check in any build that the
 * unload neither loses a wakeup (it would then wait out its timeout) nor
 * leaves a request half-served. */
#include "check_tap.h"
#include <kytos/kytos.h>
#include <kytos/test.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#define SO TESTNAPP_DIR "/testkit.so"
#define DISABLE "/api/kytos/core/napps/kytos/testkit/disable"
/* The unload's wait for requests in flight; the tests need far less. */
#define CONF "[daemon]\nshutdown_timeout_ms = 20000\n"

static kytos_test_host *th;

static void setup(void)
{
    struct kytos_test_opts o = {.struct_size = sizeof o, .conf_text = CONF};
    th = kytos_test_host_new(&o);
    ck_assert_ptr_nonnull(th);
    ck_assert_int_eq(kytos_test_load(th, SO), 0);
    ck_assert_int_eq(kytos_test_start(th), 0);
}

static void teardown(void)
{
    kytos_test_host_free(th);
}

static unsigned status_of(const char *method, const char *path)
{
    kytos_test_resp *r = kytos_test_request(th, method, path, NULL);
    unsigned st = r ? kytos_test_resp_status(r) : 0;
    kytos_test_resp_free(r);
    return st;
}

static long elapsed_ms(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* The worker (or the deferring thread) drops the request's reference after
 * the answer; nothing else orders that thread with the unloader's free. */
START_TEST(unload_after_requests_on_other_threads)
{
    ck_assert_uint_eq(status_of("GET", "/api/kytos/testkit/slow?ms=0"), 200);
    ck_assert_uint_eq(status_of("GET", "/api/kytos/testkit/deferred?ms=0"), 200);
    ck_assert_uint_eq(status_of("GET", DISABLE), 200);
    ck_assert_uint_eq(status_of("GET", "/api/kytos/testkit/slow?ms=0"), 404);
}
END_TEST

#define CLIENTS 3

struct client {
    pthread_t t;
    atomic_int *stop;
    atomic_uint served;      /* 200s (read by the main thread meanwhile) */
    unsigned other;          /* anything but 200/404/503 */
};

static void *client_run(void *arg)
{
    struct client *c = arg;
    while (!atomic_load(c->stop)) {
        unsigned st = status_of("GET", "/api/kytos/testkit/slow?ms=1");
        if (st == 200)
            atomic_fetch_add(&c->served, 1);
        else if (st != 404 && st != 503)
            c->other++;
    }
    return NULL;
}

static bool served_some(const struct client *cs)
{
    for (int i = 0; i < CLIENTS; i++)
        if (atomic_load(&cs[i].served) < 3)
            return false;
    return true;
}

/* Requests keep coming while the NApp goes: every one is answered (200
 * before, 404 after), and the unload ends when the last one lets go, not
 * at its timeout (a lost wakeup). */
START_TEST(unload_while_requests_run)
{
    atomic_int stop = 0;
    struct client cs[CLIENTS];
    struct timespec t0, step = {0, 5 * 1000000L};
    unsigned st;
    long took;
    int i, waited;

    memset(cs, 0, sizeof cs);
    for (i = 0; i < CLIENTS; i++) {
        cs[i].stop = &stop;
        ck_assert_int_eq(pthread_create(&cs[i].t, NULL, client_run, &cs[i]), 0);
    }
    for (waited = 0; waited < 2000 && !served_some(cs); waited++)
        nanosleep(&step, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = status_of("GET", DISABLE);
    took = elapsed_ms(&t0);
    atomic_store(&stop, 1);
    for (i = 0; i < CLIENTS; i++) {
        pthread_join(cs[i].t, NULL);
        ck_assert_uint_gt(atomic_load(&cs[i].served), 0);
        ck_assert_uint_eq(cs[i].other, 0);
    }
    ck_assert_uint_eq(st, 200);
    ck_assert_msg(took < 10000, "the unload took %ld ms: it waited out its timeout", took);
    ck_assert_uint_eq(status_of("GET", "/api/kytos/testkit/slow?ms=0"), 404);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("napp_refs");
    TCase *tc = tcase_create("unload");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, unload_after_requests_on_other_threads);
    tcase_add_test(tc, unload_while_requests_run);
    suite_add_tcase(s, tc);
    return kytos_check_run(s);
}
