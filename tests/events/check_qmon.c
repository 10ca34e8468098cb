/* tests/events/check_qmon.c - queue monitors: Kytos' window rules and log
 * text, driven with explicit times; the sampling thread; bus wiring. */
#include "check_tap.h"
#include "fake_napp.h"
#include "host/events/event_util.h"
#include "host/events/queue_monitor.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define SEC INT64_C(1000000)
#define T0 (INT64_C(1700000000) * SEC)

struct lines {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n;
    char text[16][512];
};

static void capture(void *ud, const char *line)
{
    struct lines *l = ud;
    pthread_mutex_lock(&l->mu);
    if (l->n < 16)
        snprintf(l->text[l->n], sizeof l->text[0], "%s", line);
    l->n++;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

static void lines_init(struct lines *l)
{
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
}

static struct kh_mon_conf mon(const char *name, long hits, long delta, long thr, long at_most)
{
    struct kh_mon_conf c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", name);
    c.min_hits = hits;
    c.delta_secs = delta;
    c.min_size_threshold = thr;
    c.log_at_most_n = at_most;
    return c;
}

static size_t ten(void *ctx) { return 10; }

START_TEST(window_reports_with_kytos_text)
{
    static struct kh_qmon_window w;
    struct kh_mon_conf c = mon("msg_in", 2, 5, 3, 0);
    struct lines l;
    char want[512], t1[48], t2[48];

    lines_init(&l);
    kh_qmon_window_init(&w, &c, ten, NULL);
    ck_assert_uint_eq(kh_qmon_window_step(&w, T0, 2, capture, &l), 0);   /* under threshold */
    ck_assert_uint_eq(kh_qmon_window_step(&w, T0 + SEC, 5, capture, &l), 0); /* 1 hit < 2 */
    ck_assert_uint_eq(kh_qmon_window_step(&w, T0 + 2 * SEC + 250000, 4, capture, &l), 2);
    kh_fmt_pytime(T0 + SEC, t1, sizeof t1);
    kh_fmt_pytime(T0 + 2 * SEC + 250000, t2, sizeof t2);
    snprintf(want, sizeof want, "msg_in, counted: 2, min/avg/max size: 4/4.5/5, first at: %s, "
             "last at: %s, delta secs: 5, min_hits: 2, min_size_threshold: 3", t1, t2);
    ck_assert_int_eq(l.n, 1);
    ck_assert_str_eq(l.text[0], want);
    ck_assert_str_eq(t1, "2023-11-14 22:13:21+00:00");
    ck_assert_str_eq(t2, "2023-11-14 22:13:22.250000+00:00");
    /* at most one report per delta_secs */
    ck_assert_uint_eq(kh_qmon_window_step(&w, T0 + 3 * SEC, 9, capture, &l), 0);
    ck_assert_uint_eq(kh_qmon_window_step(&w, T0 + 4 * SEC, 9, capture, &l), 0);
    ck_assert_uint_eq(kh_qmon_window_step(&w, T0 + 8 * SEC, 9, capture, &l), 3);
    ck_assert_int_eq(l.n, 2);
    ck_assert_ptr_nonnull(strstr(l.text[1], "counted: 3, min/avg/max size: 9/9.0/9"));
}
END_TEST

START_TEST(old_samples_expire)
{
    static struct kh_qmon_window w;
    struct kh_mon_conf c = mon("app", 3, 2, 1, 0);
    struct lines l;

    lines_init(&l);
    kh_qmon_window_init(&w, &c, ten, NULL);
    ck_assert_uint_eq(kh_qmon_window_step(&w, T0, 5, capture, &l), 0);
    ck_assert_uint_eq(kh_qmon_window_step(&w, T0 + SEC, 5, capture, &l), 0);
    /* the first sample is more than delta_secs old by now: only 2 hits */
    ck_assert_uint_eq(kh_qmon_window_step(&w, T0 + 4 * SEC, 5, capture, &l), 0);
    ck_assert_uint_eq(kh_qmon_window_step(&w, T0 + 5 * SEC, 5, capture, &l), 0);
    ck_assert_uint_eq(kh_qmon_window_step(&w, T0 + 6 * SEC, 5, capture, &l), 3);
    ck_assert_int_eq(l.n, 1);
}
END_TEST

START_TEST(log_at_most_n_records)
{
    static struct kh_qmon_window w;
    struct kh_mon_conf c = mon("threadpool_app", 5, 10, 1, 2);
    struct lines l;
    char t[48], want[256];
    int i;

    lines_init(&l);
    kh_qmon_window_init(&w, &c, ten, NULL);
    for (i = 0; i < 4; i++)
        ck_assert_uint_eq(kh_qmon_window_step(&w, T0 + i * SEC, 10 + i, capture, &l), 0);
    ck_assert_uint_eq(kh_qmon_window_step(&w, T0 + 4 * SEC, 14, capture, &l), 5);
    ck_assert_int_eq(l.n, 3); /* the report, then records 0 and 3 (step ceil(5/2)) */
    kh_fmt_pytime(T0 + 3 * SEC, t, sizeof t);
    snprintf(want, sizeof want, "threadpool_app, record[3]/[5]: size: 13, at: %s", t);
    ck_assert_str_eq(l.text[2], want);
    ck_assert_ptr_nonnull(strstr(l.text[0], "min/avg/max size: 10/12.0/14"));
}
END_TEST

START_TEST(sampling_thread_reports)
{
    kh_qmon *q = kh_qmon_new(5);
    struct kh_mon_conf c = mon("conn", 1, 1, 5, 0);
    struct lines l;
    struct json_object *st, *m, *v;

    lines_init(&l);
    ck_assert_int_eq(kh_qmon_add(q, &c, ten, NULL), 0);
    kh_qmon_set_log(q, capture, &l);
    ck_assert_int_eq(kh_qmon_start(q), 0);
    pthread_mutex_lock(&l.mu);
    while (l.n < 1)
        pthread_cond_wait(&l.cv, &l.mu);
    pthread_mutex_unlock(&l.mu);
    kh_qmon_stop(q);
    ck_assert_msg(strstr(l.text[0], "conn, counted: 1, min/avg/max size: 10/10.0/10") != NULL, "%s", l.text[0]);
    st = kh_qmon_status(q);
    ck_assert(json_object_object_get_ex(st, "conn", &m));
    ck_assert(json_object_object_get_ex(m, "reports", &v));
    ck_assert_int_ge(json_object_get_int(v), 1);
    json_object_put(st);
    kh_qmon_free(q);
}
END_TEST

START_TEST(bus_wires_monitors_from_config)
{
    struct json_object *pm = json_tokener_parse("[{\"min_hits\": 5, \"delta_secs\": 5,"
                                                " \"min_queue_full_percent\": 90, \"log_at_most_n\": 0,"
                                                " \"queues\": [\"sb\", \"app\", \"db\"]}]");
    struct json_object *bm = json_tokener_parse("[{\"min_hits\": 5, \"delta_secs\": 5,"
                                                " \"min_queue_full_percent\": 90,"
                                                " \"buffers\": [\"msg_in\", \"msg_out\", \"raw\", \"app\"]}]");
    struct json_object *pools = json_tokener_parse("{\"sb\": 10, \"app\": 20, \"db\": 4}");
    struct json_object *st, *mons, *m, *v;
    struct kh_bus_conf c;
    char err[256];
    kh_bus *b;

    kh_bus_conf_defaults(&c);
    ck_assert_int_eq(kh_bus_conf_apply(&c, pools, NULL, pm, bm, NULL, err, sizeof err), 0);
    b = kh_bus_new_conf(&c, &fake_ops, err, sizeof err);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(kh_bus_start(b), 0);
    st = kh_bus_status(b);
    ck_assert(json_object_object_get_ex(st, "monitors", &mons));
    ck_assert_int_eq(json_object_object_length(mons), 7);
    ck_assert(json_object_object_get_ex(mons, "threadpool_app", &m));
    ck_assert(json_object_object_get_ex(m, "threshold", &v));
    ck_assert_int_eq(json_object_get_int(v), 18);
    ck_assert(json_object_object_get_ex(mons, "msg_in", &m));
    ck_assert(json_object_object_get_ex(m, "threshold", &v));
    ck_assert_int_eq(json_object_get_int(v), 90); /* sb 10 x 10 x 90% */
    json_object_put(st);
    kh_bus_free(b);
    json_object_put(pm);
    json_object_put(bm);
    json_object_put(pools);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("queue_monitor");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, window_reports_with_kytos_text);
    tcase_add_test(tc, old_samples_expire);
    tcase_add_test(tc, log_at_most_n_records);
    tcase_add_test(tc, sampling_thread_reports);
    tcase_add_test(tc, bus_wires_monitors_from_config);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return kytos_check_run(suite()); }
