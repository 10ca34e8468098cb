/* tests/events/check_conf.c - the bus' kytos.conf keys: Kytos' defaults,
 * event_buffer_conf with maxsize_multiplier, monitors, and clear errors. */
#include "check_tap.h"
#include "host/events/event_buffer.h"
#include "host/events/event_conf.h"
#include <string.h>

static int apply(struct kh_bus_conf *c, const char *pools, const char *bufs, const char *pmon,
                 const char *bmon, const char *dl, char *err, size_t errlen)
{
    struct json_object *p = pools ? json_tokener_parse(pools) : NULL;
    struct json_object *b = bufs ? json_tokener_parse(bufs) : NULL;
    struct json_object *pm = pmon ? json_tokener_parse(pmon) : NULL;
    struct json_object *bm = bmon ? json_tokener_parse(bmon) : NULL;
    struct json_object *d = dl ? json_tokener_parse(dl) : NULL;
    int rc;

    kh_bus_conf_defaults(c);
    err[0] = '\0';
    rc = kh_bus_conf_apply(c, p, b, pm, bm, d, err, errlen);
    json_object_put(p);
    json_object_put(b);
    json_object_put(pm);
    json_object_put(bm);
    json_object_put(d);
    return rc;
}

START_TEST(kytos_defaults)
{
    struct kh_bus_conf c;
    const struct kh_buf_conf *b;
    char err[256];

    ck_assert_int_eq(apply(&c, "{\"sb\": 256, \"db\": 256, \"app\": 512, \"api\": 512}", "{}",
                           "[]", "[]", NULL, err, sizeof err), 0);
    ck_assert_ptr_null(kh_bus_conf_pool(&c, "api")); /* the HTTP server's */
    ck_assert_uint_eq(kh_bus_conf_pool(&c, "app")->threads, 512);
    ck_assert_uint_eq(c.nbufs, 6);
    b = kh_bus_conf_buffer(&c, "conn");
    ck_assert(b->type == KH_BUF_FIFO && b->maxsize == 0);
    b = kh_bus_conf_buffer(&c, "raw");
    ck_assert(b->type == KH_BUF_FIFO && b->maxsize == 2560);
    b = kh_bus_conf_buffer(&c, "msg_in");
    ck_assert(b->type == KH_BUF_PRIORITY && b->maxsize == 2560);
    b = kh_bus_conf_buffer(&c, "msg_out");
    ck_assert(b->type == KH_BUF_PRIORITY && b->maxsize == 2560);
    b = kh_bus_conf_buffer(&c, "app");
    ck_assert(b->type == KH_BUF_FIFO && b->maxsize == 10240);
    b = kh_bus_conf_buffer(&c, "meta");
    ck_assert(b->type == KH_BUF_FIFO && b->maxsize == 0);
    ck_assert_uint_eq(c.nmons, 0);
    ck_assert_uint_eq(c.dead_letter_max_per_name, 50000);
}
END_TEST

START_TEST(buffer_sizes_follow_pools)
{
    struct kh_bus_conf c;
    char err[256];

    ck_assert_int_eq(apply(&c, "{\"sb\": 4, \"app\": 8}", NULL, NULL, NULL, NULL, err, sizeof err), 0);
    ck_assert_uint_eq(kh_bus_conf_buffer(&c, "msg_in")->maxsize, 40);
    ck_assert_uint_eq(kh_bus_conf_buffer(&c, "app")->maxsize, 160);
    ck_assert_ptr_nonnull(kh_bus_conf_pool(&c, "db")); /* sb/db/app always exist */
}
END_TEST

START_TEST(event_buffer_conf_overrides)
{
    struct kh_bus_conf c;
    char err[256];

    ck_assert_int_eq(apply(&c, "{\"sb\": 4, \"app\": 8, \"bulk\": 3}",
                           "{\"msg_in\": {\"queue\": {\"maxsize\": 100}},"
                           " \"app\": {\"queue\": {\"maxsize_multiplier\": 2}},"
                           " \"raw\": {\"queue\": {\"type\": \"priority\", \"maxsize\": \"threadpool_bulk\","
                           "                       \"maxsize_multiplier\": 5}},"
                           " \"extra\": {\"queue\": {\"maxsize\": 7}}}",
                           NULL, NULL, "10", err, sizeof err), 0);
    ck_assert_uint_eq(kh_bus_conf_buffer(&c, "msg_in")->maxsize, 100);   /* x1 when maxsize given */
    ck_assert_int_eq(kh_bus_conf_buffer(&c, "msg_in")->type, KH_BUF_PRIORITY); /* type kept */
    ck_assert_uint_eq(kh_bus_conf_buffer(&c, "app")->maxsize, 16);       /* threadpool_app x 2 */
    ck_assert_uint_eq(kh_bus_conf_buffer(&c, "raw")->maxsize, 15);
    ck_assert_int_eq(kh_bus_conf_buffer(&c, "raw")->type, KH_BUF_PRIORITY);
    ck_assert_uint_eq(kh_bus_conf_buffer(&c, "extra")->maxsize, 7);      /* extra buffers exist */
    ck_assert_uint_eq(c.nbufs, 7);
    ck_assert_uint_eq(c.dead_letter_max_per_name, 10);
}
END_TEST

START_TEST(monitors)
{
    struct kh_bus_conf c;
    char err[256];

    ck_assert_int_eq(apply(&c, "{\"sb\": 10, \"app\": 20, \"db\": 1}", NULL,
                           "[{\"min_hits\": 5, \"delta_secs\": 5, \"min_queue_full_percent\": 90,"
                           "  \"log_at_most_n\": 0, \"queues\": [\"sb\", \"app\", \"db\"]}]",
                           "[{\"min_hits\": 2, \"delta_secs\": 4, \"min_queue_full_percent\": 50,"
                           "  \"buffers\": [\"msg_in\", \"conn\"]}]",
                           NULL, err, sizeof err), 0);
    ck_assert_uint_eq(c.nmons, 5);
    ck_assert_str_eq(c.mons[0].name, "threadpool_sb");
    ck_assert_int_eq(c.mons[0].min_size_threshold, 9);
    ck_assert_str_eq(c.mons[2].name, "threadpool_db");
    ck_assert_int_eq(c.mons[2].min_size_threshold, 1);  /* max(int(0.9), 1) */
    ck_assert_str_eq(c.mons[3].name, "msg_in");
    ck_assert_int_eq(c.mons[3].min_size_threshold, 50); /* 100 * 50% */
    ck_assert_int_eq(c.mons[4].min_size_threshold, 1);  /* unbounded conn */
    ck_assert_int_eq(c.mons[3].min_hits, 2);
}
END_TEST

#define BAD(pools, bufs, pmon, bmon, dl, needle)                                   \
    do {                                                                           \
        ck_assert_int_ne(apply(&c, pools, bufs, pmon, bmon, dl, err, sizeof err), 0); \
        ck_assert_msg(strstr(err, needle) != NULL, "'%s' lacks '%s'", err, needle); \
    } while (0)

START_TEST(errors_name_what_is_wrong)
{
    struct kh_bus_conf c;
    char err[256];

    BAD("[1]", NULL, NULL, NULL, NULL, "thread_pool_max_workers");
    BAD("{\"sb\": 0}", NULL, NULL, NULL, NULL, "'sb' needs an integer");
    BAD("{\"sb\": \"x\"}", NULL, NULL, NULL, NULL, "'sb'");
    BAD("{\"sb\": 100000}", NULL, NULL, NULL, NULL, "1..4096");
    BAD("{\"bad name\": 1}", NULL, NULL, NULL, NULL, "bad pool name");
    BAD(NULL, "{\"app\": {\"queue\": {\"type\": \"lifo\"}}}", NULL, NULL, NULL, "queue type");
    BAD(NULL, "{\"app\": {\"queue\": {\"maxsize\": -1}}}", NULL, NULL, NULL, "maxsize");
    BAD(NULL, "{\"app\": {\"queue\": {\"maxsize\": \"pool_sb\"}}}", NULL, NULL, NULL, "threadpool_");
    BAD(NULL, "{\"app\": {\"queue\": {\"maxsize_multiplier\": 1.5}}}", NULL, NULL, NULL,
        "maxsize_multiplier");
    BAD(NULL, "{\"app\": {\"queue\": {\"maxsize\": 9000000, \"maxsize_multiplier\": 9}}}", NULL,
        NULL, NULL, "larger than");
    BAD(NULL, "{\"app\": {\"extensions\": {}}}", NULL, NULL, NULL, "unsupported key 'extensions'");
    BAD(NULL, NULL, "[{\"min_hits\": 6, \"delta_secs\": 5, \"queues\": [\"app\"]}]", NULL, NULL,
        "min_hits/delta_secs: 1.2 must be <= 1");
    BAD(NULL, NULL, "[{\"min_hits\": -1, \"delta_secs\": 5, \"queues\": [\"app\"]}]", NULL, NULL,
        "min_hits: -1 must be positive");
    BAD(NULL, NULL, "[{\"queues\": [\"nope\"]}]", NULL, NULL, "no thread pool 'nope'");
    BAD(NULL, NULL, NULL, "[{\"buffers\": [\"nope\"]}]", NULL, "no buffer 'nope'");
    BAD(NULL, NULL, NULL, "[{\"buffers\": \"app\"}]", NULL, "must be a list");
    BAD(NULL, NULL, NULL, NULL, "0", "dead_letter_max_per_name");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("event_conf");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, kytos_defaults);
    tcase_add_test(tc, buffer_sizes_follow_pools);
    tcase_add_test(tc, event_buffer_conf_overrides);
    tcase_add_test(tc, monitors);
    tcase_add_test(tc, errors_name_what_is_wrong);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return kytos_check_run(suite()); }
