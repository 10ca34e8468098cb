/* tests/events/check_bus.c - the bus end to end (without the core): publish
 * and delivery, ordering, fan-out, routing, backpressure, dead letter from
 * failing handlers, unload with events in flight, drain, shutdown. */
#include "await.h"
#include "check_tap.h"
#include "fake_napp.h"
#include "host/events/deadletter.h"
#include "host/events/event_obj.h"
#include "host/events/event_util.h"
#include "host/util/workpool.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WAIT_MS 10000 /* generous: sanitizer builds on a shared machine */

/* ---- a recording handler ---- */

#define MAX_SEEN 4096

struct rec {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n;
    int seq[MAX_SEEN];               /* content "seq" of each call, in call order */
    char name[MAX_SEEN][64];
    const void *content[MAX_SEEN];
    char thread[MAX_SEEN][16];
    int fail_seq;                    /* return KYTOS_ERROR for this seq (-1 none) */
    int gate_open;                   /* 0: block every call until opened */
    int use_gate;
    int running;
};

static void rec_init(struct rec *r)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->fail_seq = -1;
}

static void rec_open(struct rec *r)
{
    pthread_mutex_lock(&r->mu);
    r->gate_open = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* Wait until at least n handler calls are inside (or past) the handler. */
static void rec_wait_running(struct rec *r, int n)
{
    pthread_mutex_lock(&r->mu);
    while (r->running < n)
        pthread_cond_wait(&r->cv, &r->mu);
    pthread_mutex_unlock(&r->mu);
}

static int on_event(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct rec *r = ud;
    struct json_object *c = kh_event_content(ev), *v;
    int seq = -1, i;

    if (json_object_object_get_ex(c, "seq", &v))
        seq = json_object_get_int(v);
    (void)json_object_to_json_string(c); /* serialising our copy must be safe */
    pthread_mutex_lock(&r->mu);
    r->running++;
    pthread_cond_broadcast(&r->cv);
    while (r->use_gate && !r->gate_open)
        pthread_cond_wait(&r->cv, &r->mu);
    i = r->n++;
    if (i < MAX_SEEN) {
        r->seq[i] = seq;
        snprintf(r->name[i], sizeof r->name[i], "%s", kh_event_name(ev));
        r->content[i] = c;
        pthread_getname_np(pthread_self(), r->thread[i], sizeof r->thread[i]);
    }
    pthread_mutex_unlock(&r->mu);
    return r->fail_seq >= 0 && seq == r->fail_seq ? KYTOS_ERROR : KYTOS_OK;
}

static int count(struct rec *r)
{
    int n;
    pthread_mutex_lock(&r->mu);
    n = r->n;
    pthread_mutex_unlock(&r->mu);
    return n;
}

static void subscribe(kh_bus *b, struct fake_napp *n, const char *pattern, const char *pool,
                      struct rec *r)
{
    char err[256];
    int rc = kh_bus_subscribe(b, FAKE(n),
                              &(struct kytos_sub){.struct_size = sizeof(struct kytos_sub),
                                                  .pattern = pattern, .handler = on_event,
                                                  .ud = r, .pool = pool},
                              err, sizeof err);
    ck_assert_msg(rc == 0, "subscribe %s: %s", pattern, err);
}

static int publish(kh_bus *b, const char *name, int seq, const char *buffer, int prio, int timeout)
{
    struct json_object *c = json_object_new_object();
    int rc;

    json_object_object_add(c, "seq", json_object_new_int(seq));
    rc = kh_bus_publish(b, name, c,
                        &(struct kytos_pub_opts){.struct_size = sizeof(struct kytos_pub_opts),
                                                 .priority = prio, .buffer = buffer,
                                                 .timeout_ms = timeout});
    json_object_put(c);
    return rc;
}

static struct json_object *status_get(kh_bus *b, const char *a, const char *k)
{
    struct json_object *st = kh_bus_status(b), *o = NULL, *v = NULL;
    json_object_object_get_ex(st, a, &o);
    if (k)
        json_object_object_get_ex(o, k, &v);
    else
        v = o;
    v = json_object_get(v);
    json_object_put(st);
    return v;
}

static int64_t stat_int(kh_bus *b, const char *a, const char *k)
{
    struct json_object *v = status_get(b, a, k);
    int64_t n = json_object_get_int64(v);
    json_object_put(v);
    return n;
}

/* ---- tests ---- */

static int64_t seen_time;
static char seen_id[64];
static int seen_prio, seen_reinj;

static int inspect(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct json_object *v;
    seen_time = kh_event_time_us(ev);
    snprintf(seen_id, sizeof seen_id, "%s", kh_event_id(ev));
    seen_prio = kh_event_priority(ev);
    seen_reinj = kh_event_reinjections(ev);
    ck_assert(json_object_object_get_ex(kh_event_content(ev), "a", &v));
    ck_assert_int_eq(json_object_get_int(v), 1);
    return on_event(napp, ev, ud);
}

START_TEST(publish_delivers_fields)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp n;
    struct rec r;
    struct json_object *c = json_tokener_parse("{\"a\": 1}");
    char err[256];
    int64_t t0 = kh_real_us();

    fake_napp_init(&n, "test/a");
    rec_init(&r);
    ck_assert_int_eq(kh_bus_subscribe(b, FAKE(&n),
                                      &(struct kytos_sub){sizeof(struct kytos_sub),
                                                          "kytos/test\\.hello", inspect, &r, NULL},
                                      err, sizeof err), 0);
    ck_assert_int_eq(kh_bus_start(b), 0);
    ck_assert_int_eq(kh_bus_publish(b, "kytos/test.hello", c,
                                    &(struct kytos_pub_opts){sizeof(struct kytos_pub_opts), 7,
                                                             NULL, 0}), 0);
    /* the publisher's object is borrowed: changing it later changes nothing */
    json_object_object_add(c, "a", json_object_new_int(2));
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r), 1);
    ck_assert_str_eq(r.name[0], "kytos/test.hello");
    ck_assert_uint_eq(strlen(seen_id), 36);
    ck_assert_int_eq(seen_id[14], '4'); /* uuid4 */
    ck_assert_int_eq(seen_prio, 7);
    ck_assert_int_eq(seen_reinj, 0);
    ck_assert_int_ge(seen_time, t0);
    ck_assert_int_eq(atomic_load(&n.refs), 0); /* handler refs released */
    ck_assert_int_ge(atomic_load(&n.max_refs), 1);
    json_object_put(c);
    kh_bus_free(b);
}
END_TEST

START_TEST(fifo_pool_keeps_order)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp n;
    struct rec r;
    int i;

    fake_napp_init(&n, "test/a");
    rec_init(&r);
    subscribe(b, &n, "test\\.seq", "dynamic_single", &r);
    ck_assert_int_eq(kh_bus_start(b), 0);
    for (i = 0; i < 2000; i++)
        ck_assert_int_eq(publish(b, "test.seq", i, NULL, 0, -1), 0);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r), 2000);
    for (i = 0; i < 2000; i++)
        ck_assert_int_eq(r.seq[i], i);
    kh_bus_free(b);
}
END_TEST

START_TEST(priority_buffer_delivers_by_priority)
{
    kh_bus *b = fake_bus(NULL);
    static const int prios[] = {5, 1, 3, 1, 0, 9, -2, 3, 1, 0, 4, 4};
    struct fake_napp n;
    struct rec r;
    int i, expect[12], k = 0, p;

    fake_napp_init(&n, "test/a");
    rec_init(&r);
    subscribe(b, &n, "test\\.prio", "dynamic_single", &r);
    /* queued before the consumer runs, so the buffer orders them all */
    for (i = 0; i < 12; i++)
        ck_assert_int_eq(publish(b, "test.prio", i, "msg_in", prios[i], 0), 0);
    for (p = -2; p <= 9; p++)
        for (i = 0; i < 12; i++)
            if (prios[i] == p)
                expect[k++] = i;
    ck_assert_int_eq(kh_bus_start(b), 0);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r), 12);
    for (i = 0; i < 12; i++)
        ck_assert_int_eq(r.seq[i], expect[i]);
    kh_bus_free(b);
}
END_TEST

START_TEST(fan_out_own_copies)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp n1, n2;
    struct rec r[4];
    int i, k;

    fake_napp_init(&n1, "test/one");
    fake_napp_init(&n2, "test/two");
    for (i = 0; i < 4; i++)
        rec_init(&r[i]);
    subscribe(b, &n1, "kytos/topology\\.link_up", NULL, &r[0]);
    subscribe(b, &n1, "kytos/topology\\..*", "db", &r[1]);
    subscribe(b, &n2, ".*\\.link_(up|down)", "dynamic_single", &r[2]);
    subscribe(b, &n2, "kytos/.*", "sb", &r[3]);
    ck_assert_int_eq(kh_bus_start(b), 0);
    for (i = 0; i < 200; i++)
        ck_assert_int_eq(publish(b, "kytos/topology.link_up", i, NULL, 0, -1), 0);
    ck_assert_int_eq(publish(b, "other/x.link_down", 999, NULL, 0, -1), 0);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r[0]), 200);
    ck_assert_int_eq(count(&r[1]), 200);
    ck_assert_int_eq(count(&r[2]), 201);
    ck_assert_int_eq(count(&r[3]), 200);
    /* no two handlers saw the same content object for one event (the
     * dynamic_single one sees events in order, so compare by seq) */
    for (i = 0; i < 200; i++)
        for (k = 0; k < 200; k++)
            if (r[3].seq[k] == r[2].seq[i])
                ck_assert_ptr_ne(r[3].content[k], r[2].content[i]);
    ck_assert_int_eq(stat_int(b, "events", "delivered"), 801);
    kh_bus_free(b);
}
END_TEST

/* A handler that keeps its content (kytos_event_take_content). */
static struct json_object *kept[4];
static int nkept;

static int keep_content(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    (void)napp;
    (void)ud;
    if (nkept < 4)
        kept[nkept++] = kh_event_take_content(ev);
    ck_assert_ptr_null(kh_event_content(ev));       /* taken: none left */
    ck_assert_ptr_null(kh_event_take_content(ev));
    return KYTOS_OK;
}

START_TEST(give_wanted_and_take)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp n;
    struct rec r;
    struct json_object *c;
    char err[256];
    int rc;

    fake_napp_init(&n, "test/give");
    rec_init(&r);
    /* nobody listens yet: not wanted, and a given content is let go */
    ck_assert_int_eq(kh_bus_wanted(b, "kytos/test.given"), 0);
    subscribe(b, &n, "kytos/test\\.given", "inline", &r);
    rc = kh_bus_subscribe(b, FAKE(&n),
                          &(struct kytos_sub){.struct_size = sizeof(struct kytos_sub),
                                              .pattern = "kytos/test\\.kept",
                                              .handler = keep_content, .pool = "inline"},
                          err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_int_eq(kh_bus_wanted(b, "kytos/test.given"), 1);
    ck_assert_int_eq(kh_bus_wanted(b, "kytos/test.other"), 0);
    ck_assert_int_eq(kh_bus_wanted(b, "bad name"), 0);
    ck_assert_int_eq(kh_bus_start(b), 0);

    /* give: the handler sees the very object published (no copy) */
    c = json_object_new_object();
    json_object_object_add(c, "seq", json_object_new_int(7));
    ck_assert_int_eq(kh_bus_publish_give(b, FAKE(&n), "kytos/test.given", c, NULL), 0);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r), 1);
    ck_assert_int_eq(r.seq[0], 7);
    ck_assert_ptr_eq(r.content[0], c);
    /* refused gives still take the reference (LeakSanitizer checks) */
    ck_assert_int_eq(kh_bus_publish_give(b, FAKE(&n), "bad name", json_object_new_object(), NULL),
                     KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_publish_give(b, FAKE(&n), "kytos/test.given", json_object_new_array(),
                                         NULL),
                     KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_publish_give(b, FAKE(&n), "kytos/test.given", json_object_new_object(),
                                         &(struct kytos_pub_opts){
                                             .struct_size = sizeof(struct kytos_pub_opts),
                                             .buffer = "nope"}),
                     KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_publish_give(b, FAKE(&n), "kytos/test.nobody", json_object_new_object(),
                                         NULL),
                     0);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(kh_bus_publish_give(b, FAKE(&n), "kytos/test.nobody", json_object_new_object(),
                                         NULL),
                     0);   /* (now known to have no subscriber: dropped at once) */

    /* take: the handler keeps its copy past the call */
    c = json_object_new_object();
    json_object_object_add(c, "k", json_object_new_string("v"));
    nkept = 0;
    ck_assert_int_eq(kh_bus_publish_from(b, FAKE(&n), "kytos/test.kept", c, NULL), 0);
    json_object_put(c);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(nkept, 1);
    ck_assert_ptr_nonnull(kept[0]);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(kept[0], "k")), "v");
    json_object_put(kept[0]);
    kh_bus_free(b);
}
END_TEST

/* A "direct" handler that republishes once (nesting). */
static kh_bus *direct_bus;
static pthread_t direct_seen_thread;
static int direct_calls;

static int direct_handler(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    (void)napp;
    direct_seen_thread = pthread_self();
    direct_calls++;
    if (strcmp(kh_event_name(ev), "kytos/test.direct") == 0)
        ck_assert_int_eq(publish(direct_bus, "kytos/test.direct2", 1, NULL, 0, 0), 0);
    return on_event(napp, ev, ud);
}

START_TEST(direct_runs_on_the_publisher)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp n;
    struct rec r, r2;
    char err[256];
    int i;

    direct_bus = b;
    fake_napp_init(&n, "test/direct");
    rec_init(&r);
    rec_init(&r2);
    for (i = 0; i < 2; i++) {
        int rc = kh_bus_subscribe(b, FAKE(&n),
                                  &(struct kytos_sub){.struct_size = sizeof(struct kytos_sub),
                                                      .pattern = i ? "kytos/test\\.direct2"
                                                                   : "kytos/test\\.direct",
                                                      .handler = direct_handler, .ud = &r,
                                                      .pool = "direct"},
                                  err, sizeof err);
        ck_assert_msg(rc == 0, "%s", err);
    }
    /* mixed: direct + a pooled one on the same name (the direct one then
     * runs as inline, on the buffer's thread) */
    subscribe(b, &n, "kytos/test\\.mixed", NULL, &r2);
    ck_assert_int_eq(kh_bus_subscribe(b, FAKE(&n),
                                      &(struct kytos_sub){.struct_size = sizeof(struct kytos_sub),
                                                          .pattern = "kytos/test\\.mixed",
                                                          .handler = direct_handler, .ud = &r,
                                                          .pool = "direct"},
                                      err, sizeof err),
                     0);
    ck_assert_int_eq(kh_bus_start(b), 0);

    /* before publish returns, on this thread, and the nested one too */
    direct_calls = 0;
    ck_assert_int_eq(publish(b, "kytos/test.direct", 7, NULL, 0, 0), 0);
    ck_assert_int_eq(direct_calls, 2);
    ck_assert(pthread_equal(direct_seen_thread, pthread_self()));
    ck_assert_int_eq(count(&r), 2);
    ck_assert_str_eq(r.name[0], "kytos/test.direct2");   /* the nested one finished first */
    ck_assert_str_eq(r.name[1], "kytos/test.direct");

    direct_calls = 0;
    ck_assert_int_eq(publish(b, "kytos/test.mixed", 8, NULL, 0, -1), 0);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(direct_calls, 1);
    ck_assert(!pthread_equal(direct_seen_thread, pthread_self()));
    ck_assert_int_eq(count(&r2), 1);
    ck_assert_int_eq(stat_int(b, "events", "delivered"), 4);
    kh_bus_free(b);
}
END_TEST

START_TEST(default_routing_by_name)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp n;
    struct rec r_of, r_raw, r_app, r_db, r_single;

    fake_napp_init(&n, "test/a");
    rec_init(&r_of);
    rec_init(&r_raw);
    rec_init(&r_app);
    rec_init(&r_db);
    rec_init(&r_single);
    subscribe(b, &n, "kytos/of_core\\..*", NULL, &r_of);
    subscribe(b, &n, "kytos/core\\.openflow\\..*", NULL, &r_raw);
    subscribe(b, &n, "kytos/topology\\..*", NULL, &r_app);
    subscribe(b, &n, "db\\.x", "db", &r_db);
    subscribe(b, &n, "single\\.x", "dynamic_single", &r_single);
    ck_assert_int_eq(kh_bus_start(b), 0);
    publish(b, "kytos/of_core.v0x04.messages.in.ofpt_packet_in", 1, "msg_in", 0, -1);
    publish(b, "kytos/core.openflow.raw.in", 1, "raw", 0, -1);
    publish(b, "kytos/topology.link_up", 1, NULL, 0, -1);
    publish(b, "db.x", 1, NULL, 0, -1);
    publish(b, "single.x", 1, NULL, 0, -1);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(strncmp(r_of.thread[0], "sb-", 3), 0);
    ck_assert_int_eq(strncmp(r_raw.thread[0], "sb-", 3), 0);
    ck_assert_int_eq(strncmp(r_app.thread[0], "app-", 4), 0);
    ck_assert_int_eq(strncmp(r_db.thread[0], "db-", 3), 0);
    ck_assert_int_eq(strncmp(r_single.thread[0], "dsingle-", 8), 0);
    kh_bus_free(b);
}
END_TEST

START_TEST(subscription_cache_follows_changes)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp n1, n2;
    struct rec r1, r2;
    int i;

    fake_napp_init(&n1, "test/one");
    fake_napp_init(&n2, "test/two");
    rec_init(&r1);
    rec_init(&r2);
    subscribe(b, &n1, "t\\.x", NULL, &r1);
    ck_assert_int_eq(kh_bus_start(b), 0);
    for (i = 0; i < 50; i++)
        publish(b, "t.x", i, NULL, 0, -1);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(stat_int(b, "subscriptions", "cache_misses"), 1); /* matched once */
    ck_assert_int_eq(stat_int(b, "subscriptions", "cache_hits"), 49);
    subscribe(b, &n2, "t\\..*", NULL, &r2); /* a NApp loaded: the cache starts over */
    publish(b, "t.x", 50, NULL, 0, -1);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r1), 51);
    ck_assert_int_eq(count(&r2), 1);
    ck_assert_int_eq(kh_bus_napp_unload(b, FAKE(&n1), WAIT_MS), 0);
    publish(b, "t.x", 51, NULL, 0, -1);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r1), 51);
    ck_assert_int_eq(count(&r2), 2);
    ck_assert_int_eq(stat_int(b, "subscriptions", "count"), 1);
    kh_bus_free(b);
}
END_TEST

START_TEST(backpressure_counted)
{
    kh_bus *b = fake_bus("{\"app\": {\"queue\": {\"maxsize\": 4}}}");
    struct fake_napp n;
    struct rec r;
    int64_t t0;
    int i;

    fake_napp_init(&n, "test/a");
    rec_init(&r);
    subscribe(b, &n, "bp\\..*", NULL, &r);
    for (i = 0; i < 4; i++) /* the consumer is not running yet: the buffer fills */
        ck_assert_int_eq(publish(b, "bp.x", i, NULL, 0, 0), 0);
    ck_assert_int_eq(publish(b, "bp.x", 4, NULL, 0, 0), KYTOS_EFULL);
    t0 = kh_mono_us();
    ck_assert_int_eq(publish(b, "bp.x", 5, NULL, 0, 40), KYTOS_ETIMEDOUT);
    ck_assert_int_ge(kh_mono_us() - t0, 39000);
    {
        struct json_object *app = status_get(b, "buffers", "app"), *v;
        ck_assert(json_object_object_get_ex(app, "drops", &v));
        ck_assert_int_eq(json_object_get_int(v), 2);
        ck_assert(json_object_object_get_ex(app, "depth", &v));
        ck_assert_int_eq(json_object_get_int(v), 4);
        ck_assert(json_object_object_get_ex(app, "high_water", &v));
        ck_assert_int_eq(json_object_get_int(v), 4);
        json_object_put(app);
    }
    ck_assert_int_eq(stat_int(b, "buffers_qsize", "app"), 4);
    ck_assert_int_eq(kh_bus_drain(b, 0), KYTOS_ETIMEDOUT); /* not started: not idle */
    ck_assert_int_eq(kh_bus_start(b), 0);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r), 4);
    ck_assert_int_eq(stat_int(b, "events", "published"), 4);
    kh_bus_free(b);
}
END_TEST

struct pub_arg {
    kh_bus *b;
    int rc;
};

static void *publish_blocking(void *arg)
{
    struct pub_arg *p = arg;
    p->rc = publish(p->b, "bp.late", 99, NULL, 0, -1);
    return NULL;
}

START_TEST(blocking_publish_waits_for_room)
{
    kh_bus *b = fake_bus("{\"app\": {\"queue\": {\"maxsize\": 1}}}");
    struct pub_arg p;
    struct fake_napp n;
    struct rec r;
    pthread_t t;

    fake_napp_init(&n, "test/a");
    rec_init(&r);
    subscribe(b, &n, "bp\\..*", "dynamic_single", &r);
    ck_assert_int_eq(publish(b, "bp.first", 1, NULL, 0, 0), 0);
    p.b = b;
    p.rc = -99;
    pthread_create(&t, NULL, publish_blocking, &p);
    ck_assert_int_eq(kh_bus_start(b), 0); /* the consumer makes room */
    pthread_join(t, NULL);
    ck_assert_int_eq(p.rc, 0);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r), 2);
    ck_assert_str_eq(r.name[1], "bp.late");
    kh_bus_free(b);
}
END_TEST

START_TEST(full_pool_pushes_back_without_loss)
{
    /* a one-thread pool with a 1-job queue and a blocked handler: the
     * consumer waits for room, nothing is dropped */
    struct kh_bus_conf c;
    struct fake_napp n;
    struct rec r;
    char err[256];
    kh_bus *b;
    int i;

    fake_conf(&c, NULL);
    c.single_queue_max = 1;
    b = kh_bus_new_conf(&c, &fake_ops, err, sizeof err);
    ck_assert_ptr_nonnull(b);
    fake_napp_init(&n, "test/a");
    rec_init(&r);
    r.use_gate = 1;
    subscribe(b, &n, "pp\\.x", "dynamic_single", &r);
    ck_assert_int_eq(kh_bus_start(b), 0);
    for (i = 0; i < 20; i++)
        ck_assert_int_eq(publish(b, "pp.x", i, NULL, 0, -1), 0);
    rec_wait_running(&r, 1);
    ck_assert_int_eq(kh_bus_drain(b, 50), KYTOS_ETIMEDOUT);
    rec_open(&r);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r), 20);
    for (i = 0; i < 20; i++)
        ck_assert_int_eq(r.seq[i], i);
    ck_assert_int_ge(stat_int(b, "events", "pool_waits"), 1);
    ck_assert_int_eq(stat_int(b, "events", "dropped"), 0);
    kh_bus_free(b);
}
END_TEST

START_TEST(failing_handler_goes_to_dead_letter)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp n;
    struct rec r, ok;
    struct json_object *list, *byname;

    fake_napp_init(&n, "test/a");
    rec_init(&r);
    rec_init(&ok);
    r.fail_seq = 2;
    subscribe(b, &n, "dl\\.x", NULL, &r);
    subscribe(b, &n, "dl\\.x", NULL, &ok); /* the other subscriber is unaffected */
    ck_assert_int_eq(kh_bus_start(b), 0);
    publish(b, "dl.x", 1, NULL, 0, -1);
    publish(b, "dl.x", 2, NULL, 0, -1);
    publish(b, "dl.x", 3, NULL, 0, -1);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r), 3);
    ck_assert_int_eq(count(&ok), 3);
    ck_assert_int_eq(stat_int(b, "events", "handler_errors"), 1);
    ck_assert_int_eq(stat_int(b, "dead_letter", "count"), 1);
    list = kh_deadletter_list(kh_bus_deadletter(b), "dl.x");
    ck_assert(json_object_object_get_ex(list, "dl.x", &byname));
    ck_assert_int_eq(json_object_object_length(byname), 1);
    json_object_object_foreach(byname, id, e) {
        struct json_object *v, *content;
        ck_assert_uint_eq(strlen(id), 36);
        ck_assert(json_object_object_get_ex(e, "content", &content));
        ck_assert(json_object_object_get_ex(content, "seq", &v));
        ck_assert_int_eq(json_object_get_int(v), 2);
        ck_assert(json_object_object_get_ex(e, "reinjections", &v));
        ck_assert_int_eq(json_object_get_int(v), 0);
    }
    json_object_put(list);
    kh_bus_free(b);
}
END_TEST

START_TEST(reinjection_redelivers)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp n;
    struct rec r;
    struct kh_dl_item *items;
    size_t ni;

    fake_napp_init(&n, "test/a");
    rec_init(&r);
    r.fail_seq = 5;
    subscribe(b, &n, "re\\.x", NULL, &r);
    ck_assert_int_eq(kh_bus_start(b), 0);
    publish(b, "re.x", 5, NULL, 0, -1);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(kh_deadletter_count(kh_bus_deadletter(b)), 1);
    r.fail_seq = -1;
    ck_assert_int_eq(kh_deadletter_remove(kh_bus_deadletter(b), "re.x", NULL, 0, &items, &ni, NULL),
                     KH_DL_OK);
    ck_assert_uint_eq(ni, 1);
    ck_assert_uint_eq(kh_bus_reinject(b, items, ni, "msg_in"), 0);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r), 2);
    ck_assert_int_eq(r.seq[1], 5);
    ck_assert_int_eq(kh_deadletter_count(kh_bus_deadletter(b)), 0);
    kh_bus_free(b);
}
END_TEST

struct unload_arg {
    kh_bus *b;
    struct fake_napp *n;
    int timeout, rc;
};

static void *do_unload(void *arg)
{
    struct unload_arg *u = arg;
    u->rc = kh_bus_napp_unload(u->b, FAKE(u->n), u->timeout);
    return NULL;
}

/* the bus's subscription count, read from its status */
static int64_t sub_count(kh_bus *b)
{
    struct json_object *st = kh_bus_status(b), *subs, *n;
    int64_t c = -1;

    if (json_object_object_get_ex(st, "subscriptions", &subs) &&
        json_object_object_get_ex(subs, "count", &n))
        c = json_object_get_int64(n);
    json_object_put(st);
    return c;
}

static bool subs_down_to_two(const void *b)
{
    return sub_count((kh_bus *)b) == 2;
}

static int shutdown_calls;
static int on_own_shutdown(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct rec *busy = ud;
    int idle;

    /* no handler of the NApp runs any more when its shutdown event comes */
    pthread_mutex_lock(&busy->mu);
    idle = busy->n == busy->running;
    pthread_mutex_unlock(&busy->mu);
    ck_assert(idle);
    ck_assert_str_eq(kh_event_name(ev), "kytos/core.shutdown.test/a");
    shutdown_calls++;
    return 0;
}

START_TEST(unload_waits_for_handlers_in_flight)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a, other;
    struct rec r, ro, never;
    struct unload_arg u;
    char err[256];
    pthread_t t;
    int i;

    fake_napp_init(&a, "test/a");
    fake_napp_init(&other, "test/other");
    rec_init(&r);
    rec_init(&ro);
    rec_init(&never);
    r.use_gate = 1;
    subscribe(b, &a, "ul\\.x", "dynamic_single", &r);
    subscribe(b, &other, "ul\\.x", NULL, &ro);
    subscribe(b, &other, "kytos/core\\.shutdown\\..*", NULL, &never); /* not the other's */
    ck_assert_int_eq(kh_bus_subscribe(b, FAKE(&a),
                                      &(struct kytos_sub){sizeof(struct kytos_sub),
                                                          "kytos/core\\.shutdown\\.test/a",
                                                          on_own_shutdown, &r, NULL},
                                      err, sizeof err), 0);
    ck_assert_int_eq(kh_bus_start(b), 0);
    for (i = 0; i < 10; i++)
        publish(b, "ul.x", i, NULL, 0, -1);
    rec_wait_running(&r, 1); /* one handler of test/a runs, the rest queue behind it */
    u = (struct unload_arg){b, &a, WAIT_MS, -99};
    ck_assert_int_eq(sub_count(b), 4);
    pthread_create(&t, NULL, do_unload, &u);
    /* the unload has taken test/a's two subscriptions away before the
     * handler is let go (on a loaded machine the thread may start late:
     * opened earlier, the queued events would still reach test/a) */
    ck_assert(await_until(subs_down_to_two, b, WAIT_MS));
    /* unload cannot finish while the handler runs: a drain with a short
     * timeout shows the bus still busy */
    ck_assert_int_eq(kh_bus_drain(b, 30), KYTOS_ETIMEDOUT);
    rec_open(&r);
    pthread_join(t, NULL);
    ck_assert_int_eq(u.rc, 0);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r), 1);   /* the queued ones never ran */
    ck_assert_int_eq(count(&ro), 10); /* the other NApp got all of them */
    ck_assert_int_eq(shutdown_calls, 1);
    ck_assert_int_eq(count(&never), 0);
    ck_assert_int_eq(atomic_load(&a.refs), 0);
    /* later events never reach the unloaded NApp */
    publish(b, "ul.x", 100, NULL, 0, -1);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r), 1);
    ck_assert_int_eq(kh_bus_napp_unload(b, FAKE(&a), WAIT_MS), 0); /* again: nothing left */
    kh_bus_free(b);
}
END_TEST

static int slow_handler(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct rec *r = ud;

    pthread_mutex_lock(&r->mu);
    r->running++;
    pthread_cond_broadcast(&r->cv);
    /* a handler stuck until the test lets it go */
    while (!r->gate_open)
        pthread_cond_wait(&r->cv, &r->mu);
    r->n++;
    pthread_mutex_unlock(&r->mu);
    return 0;
}

START_TEST(unload_times_out_on_stuck_handler)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a;
    struct rec r;
    char err[256];

    fake_napp_init(&a, "test/a");
    rec_init(&r);
    ck_assert_int_eq(kh_bus_subscribe(b, FAKE(&a),
                                      &(struct kytos_sub){sizeof(struct kytos_sub), "st\\.x",
                                                          slow_handler, &r, "dynamic_single"},
                                      err, sizeof err), 0);
    ck_assert_int_eq(kh_bus_start(b), 0);
    publish(b, "st.x", 1, NULL, 0, -1);
    publish(b, "st.x", 2, NULL, 0, -1);
    rec_wait_running(&r, 1);
    ck_assert_int_eq(kh_bus_napp_unload(b, FAKE(&a), 30), KYTOS_ETIMEDOUT);
    ck_assert_int_ge(atomic_load(&a.refs), 1); /* held by the running (and a queued) job */
    rec_open(&r);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(atomic_load(&a.refs), 0);
    ck_assert_int_eq(r.n, 1);
    kh_bus_free(b); /* the single pool waited in the graveyard */
}
END_TEST

START_TEST(inactive_napp_skipped)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a;
    struct rec r;

    fake_napp_init(&a, "test/a");
    rec_init(&r);
    subscribe(b, &a, "in\\.x", NULL, &r);
    ck_assert_int_eq(kh_bus_start(b), 0);
    atomic_store(&a.active, 0);
    publish(b, "in.x", 1, NULL, 0, -1);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r), 0);
    ck_assert_int_eq(stat_int(b, "events", "skipped"), 1);
    kh_bus_free(b);
}
END_TEST

static int chain(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    kh_bus *b = ud;
    const char *name = kh_event_name(ev);

    ck_assert_int_eq(kh_bus_drain(b, 0), KYTOS_ESTATE); /* would wait for itself */
    if (strcmp(name, "ch.a") == 0)
        return kh_bus_publish_from(b, napp, "ch.b", NULL, NULL);
    if (strcmp(name, "ch.b") == 0)
        return kh_bus_publish_from(b, napp, "ch.c", NULL, NULL);
    return 0;
}

static char observed[16][64];
static int nobserved;
static pthread_mutex_t observed_mu = PTHREAD_MUTEX_INITIALIZER;

/* Called from every publishing thread: it must lock. */
static void observe(void *ud, const char *name, struct json_object *content)
{
    (void)ud;
    ck_assert_ptr_nonnull(content);
    pthread_mutex_lock(&observed_mu);
    if (nobserved < 16)
        snprintf(observed[nobserved++], 64, "%s", name);
    pthread_mutex_unlock(&observed_mu);
}

START_TEST(drain_covers_chains_and_observer_sees_all)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a;
    struct rec r;
    char err[256];

    fake_napp_init(&a, "test/a");
    rec_init(&r);
    kh_bus_set_observer(b, observe, NULL);
    ck_assert_int_eq(kh_bus_subscribe(b, FAKE(&a),
                                      &(struct kytos_sub){sizeof(struct kytos_sub), "ch\\.[ab]",
                                                          chain, b, NULL},
                                      err, sizeof err), 0);
    subscribe(b, &a, "ch\\.c", "db", &r);
    ck_assert_int_eq(kh_bus_start(b), 0);
    ck_assert_int_eq(kh_bus_publish(b, "ch.a", NULL, NULL), 0);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(count(&r), 1); /* a -> b -> c all ran before drain returned */
    ck_assert_int_eq(nobserved, 3);
    ck_assert_str_eq(observed[0], "ch.a");
    ck_assert_str_eq(observed[1], "ch.b");
    ck_assert_str_eq(observed[2], "ch.c");
    ck_assert_int_eq(kh_bus_napp_loaded(b, FAKE(&a)), 0);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_str_eq(observed[3], "kytos/core.test/a.loaded");
    kh_bus_free(b);
    ck_assert_str_eq(observed[4], "kytos/core.shutdown");
}
END_TEST

START_TEST(invalid_publish_and_subscribe)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a;
    struct json_object *arr = json_object_new_array();
    char err[256], longname[300];

    fake_napp_init(&a, "test/a");
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    ck_assert_int_eq(kh_bus_publish(b, NULL, NULL, NULL), KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_publish(b, "", NULL, NULL), KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_publish(b, "has space", NULL, NULL), KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_publish(b, "ctl\x01", NULL, NULL), KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_publish(b, longname, NULL, NULL), KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_publish(b, "x", arr, NULL), KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_publish(b, "x", NULL,
                                    &(struct kytos_pub_opts){sizeof(struct kytos_pub_opts), 0,
                                                             "nope", 0}), KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_publish(b, "x", NULL, &(struct kytos_pub_opts){2, 0, NULL, 0}),
                     KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_subscribe(b, FAKE(&a), &(struct kytos_sub){sizeof(struct kytos_sub),
                                      "x(", on_event, NULL, NULL}, err, sizeof err), KYTOS_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "bad pattern"));
    ck_assert_int_eq(kh_bus_subscribe(b, FAKE(&a), &(struct kytos_sub){sizeof(struct kytos_sub),
                                      "x", NULL, NULL, NULL}, err, sizeof err), KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_subscribe(b, FAKE(&a), &(struct kytos_sub){sizeof(struct kytos_sub),
                                      "x", on_event, NULL, "api"}, err, sizeof err), KYTOS_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "no event pool 'api'"));
    ck_assert_int_eq(kh_bus_subscribe(b, FAKE(&a), &(struct kytos_sub){4, "x", on_event, NULL,
                                      NULL}, err, sizeof err), KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_subscribe(b, FAKE(&a), NULL, err, sizeof err), KYTOS_EINVAL);
    json_object_put(arr);
    kh_bus_free(b);
}
END_TEST

START_TEST(shutdown_drains_then_refuses)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a;
    struct rec r, sd;
    char err[256];
    int i;

    fake_napp_init(&a, "test/a");
    rec_init(&r);
    rec_init(&sd);
    subscribe(b, &a, "sd\\.x", "dynamic_single", &r);
    subscribe(b, &a, "kytos/core\\.shutdown", NULL, &sd);
    ck_assert_int_eq(kh_bus_start(b), 0);
    for (i = 0; i < 500; i++)
        ck_assert_int_eq(publish(b, "sd.x", i, NULL, 0, -1), 0);
    kh_bus_shutdown(b, WAIT_MS);
    ck_assert_int_eq(count(&r), 500); /* everything queued ran before the deadline */
    ck_assert_int_eq(count(&sd), 1);  /* kytos/core.shutdown once, not once per buffer */
    ck_assert_int_eq(publish(b, "sd.x", 1, NULL, 0, 0), KYTOS_EUNAVAIL);
    ck_assert_int_eq(kh_bus_subscribe(b, FAKE(&a), &(struct kytos_sub){sizeof(struct kytos_sub),
                                      "x", on_event, &r, NULL}, err, sizeof err), KYTOS_ESTATE);
    kh_bus_shutdown(b, WAIT_MS); /* idempotent */
    {
        struct json_object *st = status_get(b, "state", NULL);
        ck_assert_str_eq(json_object_get_string(st), "stopped");
        json_object_put(st);
    }
    ck_assert_int_eq(atomic_load(&a.refs), 0);
    kh_bus_free(b);
}
END_TEST

static int slow_bounded(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct rec *r = ud;
    struct timespec ts;

    /* slow work (not synchronisation): 100 ms per event */
    pthread_mutex_lock(&r->mu);
    r->running++;
    r->n++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    ts.tv_sec = 0;
    ts.tv_nsec = 100 * 1000000L;
    nanosleep(&ts, NULL);
    return 0;
}

START_TEST(shutdown_deadline_drops_the_rest)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a;
    struct rec r;
    char err[256];
    int64_t t0;
    int i;

    fake_napp_init(&a, "test/a");
    rec_init(&r);
    ck_assert_int_eq(kh_bus_subscribe(b, FAKE(&a),
                                      &(struct kytos_sub){sizeof(struct kytos_sub), "dd\\.x",
                                                          slow_bounded, &r, "dynamic_single"},
                                      err, sizeof err), 0);
    ck_assert_int_eq(kh_bus_start(b), 0);
    for (i = 0; i < 100; i++)
        ck_assert_int_eq(publish(b, "dd.x", i, NULL, 0, -1), 0);
    rec_wait_running(&r, 1);
    t0 = kh_mono_us();
    kh_bus_shutdown(b, 50);
    ck_assert_int_lt(kh_mono_us() - t0, 2000000); /* deadline + the one running handler */
    ck_assert_int_lt(count(&r), 100);
    ck_assert_int_ge(stat_int(b, "events", "dropped") + stat_int(b, "events", "skipped"),
                     100 - count(&r));
    ck_assert_int_eq(atomic_load(&a.refs), 0);
    kh_bus_free(b);
}
END_TEST

static atomic_int never_observed;

static void observe_count(void *ud, const char *name, struct json_object *content)
{
    (void)ud;
    (void)name;
    (void)content;
    atomic_fetch_add(&never_observed, 1);
}

/* A bus that never started (a test host freed without kytos_test_start)
 * had nothing running: what was published before start is discarded
 * without a warning about dropped events, and no kytos/core.shutdown is
 * published that nobody could receive. */
START_TEST(never_started_bus_frees_quietly)
{
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a;
    struct rec r;
    char text[4096];
    size_t n;
    FILE *cap = tmpfile();
    int saved = dup(2);

    ck_assert_ptr_nonnull(cap);
    ck_assert_int_ge(saved, 0);
    fake_napp_init(&a, "test/a");
    rec_init(&r);
    subscribe(b, &a, "ns\\.x", NULL, &r);
    kh_bus_set_observer(b, observe_count, NULL);
    ck_assert_int_eq(publish(b, "ns.x", 1, NULL, 0, -1), 0);
    ck_assert_int_eq(publish(b, "ns.x", 2, NULL, 0, -1), 0);
    ck_assert_int_eq(atomic_load(&never_observed), 2);
    /* (before kh_log_start, log lines go to stderr at once) */
    fflush(stderr);
    ck_assert_int_ge(dup2(fileno(cap), 2), 0);
    kh_bus_free(b);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(cap);
    n = fread(text, 1, sizeof text - 1, cap);
    text[n] = '\0';
    fclose(cap);
    ck_assert_msg(strstr(text, "dropped") == NULL, "logged: %s", text);
    ck_assert_int_eq(count(&r), 0);                         /* delivered nothing */
    ck_assert_int_eq(atomic_load(&never_observed), 2);      /* no kytos/core.shutdown */
    ck_assert_int_eq(atomic_load(&a.refs), 0);
}
END_TEST

START_TEST(status_has_kytos_keys)
{
    kh_bus *b = fake_bus(NULL);
    struct json_object *st = kh_bus_status(b), *o, *v;
    static const char *const bufs[] = {"conn", "raw", "msg_in", "msg_out", "app", "meta"};
    size_t i;

    ck_assert(json_object_object_get_ex(st, "buffers_qsize", &o));
    for (i = 0; i < 6; i++)
        ck_assert_msg(json_object_object_get_ex(o, bufs[i], &v), "%s", bufs[i]);
    ck_assert(json_object_object_get_ex(st, "thread_pool_qsize", &o));
    ck_assert(json_object_object_get_ex(o, "sb", &v));
    ck_assert(json_object_object_get_ex(o, "app", &v));
    ck_assert(json_object_object_get_ex(o, "db", &v));
    ck_assert(json_object_object_get_ex(st, "buffers", &o));
    ck_assert(json_object_object_get_ex(o, "msg_out", &o));
    ck_assert(json_object_object_get_ex(o, "type", &v));
    ck_assert_str_eq(json_object_get_string(v), "priority");
    ck_assert(json_object_object_get_ex(st, "pools", &o));
    ck_assert(json_object_object_get_ex(o, "app", &o));
    ck_assert(json_object_object_get_ex(o, "high_water", &v));
    ck_assert(json_object_object_get_ex(st, "dead_letter", &o));
    ck_assert(json_object_object_get_ex(st, "pacer", &o));
    ck_assert(json_object_object_get_ex(st, "timers", &o));
    ck_assert(json_object_object_get_ex(st, "monitors", &o));
    json_object_put(st);
    kh_bus_free(b);
}
END_TEST

START_TEST(napp_shutdown_event_after_bus_shutdown)
{
    /* Kytos' order: kytos/core.shutdown, pools stop, then each NApp unloads
     * and gets kytos/core.shutdown.<u>/<n> (once); a rolled-back init gets none */
    kh_bus *b = fake_bus(NULL);
    struct fake_napp a, c;
    struct rec ra, rc;

    fake_napp_init(&a, "test/a");
    fake_napp_init(&c, "test/c");
    rec_init(&ra);
    rec_init(&rc);
    subscribe(b, &a, "kytos/core\\.shutdown.*", "dynamic_single", &ra);
    subscribe(b, &c, "kytos/core\\.shutdown.*", NULL, &rc);
    ck_assert_int_eq(kh_bus_start(b), 0);
    kh_bus_shutdown(b, WAIT_MS);
    ck_assert_int_eq(count(&ra), 1);
    ck_assert_str_eq(ra.name[0], "kytos/core.shutdown");
    ck_assert_int_eq(kh_bus_napp_unload(b, FAKE(&a), WAIT_MS), 0);
    ck_assert_int_eq(count(&ra), 2);
    ck_assert_str_eq(ra.name[1], "kytos/core.shutdown.test/a");
    ck_assert_int_eq(kh_bus_napp_unload(b, FAKE(&a), WAIT_MS), 0);
    ck_assert_int_eq(count(&ra), 2); /* exactly once */
    ck_assert_int_eq(kh_bus_napp_forget(b, FAKE(&c), WAIT_MS), 0);
    ck_assert_int_eq(count(&rc), 1); /* only kytos/core.shutdown */
    ck_assert_int_eq(atomic_load(&a.refs), 0);
    kh_bus_free(b);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("eventbus");
    TCase *tc;

    tc = kytos_check_case(s, "delivery", NULL, NULL, 60);
    tcase_add_test(tc, publish_delivers_fields);
    tcase_add_test(tc, fifo_pool_keeps_order);
    tcase_add_test(tc, priority_buffer_delivers_by_priority);
    tcase_add_test(tc, fan_out_own_copies);
    tcase_add_test(tc, give_wanted_and_take);
    tcase_add_test(tc, direct_runs_on_the_publisher);
    tcase_add_test(tc, default_routing_by_name);
    tcase_add_test(tc, subscription_cache_follows_changes);
    tcase_add_test(tc, inactive_napp_skipped);
    tcase_add_test(tc, invalid_publish_and_subscribe);
    tcase_add_test(tc, status_has_kytos_keys);
    tc = kytos_check_case(s, "backpressure", NULL, NULL, 60);
    tcase_add_test(tc, backpressure_counted);
    tcase_add_test(tc, blocking_publish_waits_for_room);
    tcase_add_test(tc, full_pool_pushes_back_without_loss);
    tc = kytos_check_case(s, "dead_letter", NULL, NULL, 60);
    tcase_add_test(tc, failing_handler_goes_to_dead_letter);
    tcase_add_test(tc, reinjection_redelivers);
    tc = kytos_check_case(s, "unload_and_shutdown", NULL, NULL, 60);
    tcase_add_test(tc, unload_waits_for_handlers_in_flight);
    tcase_add_test(tc, unload_times_out_on_stuck_handler);
    tcase_add_test(tc, drain_covers_chains_and_observer_sees_all);
    tcase_add_test(tc, shutdown_drains_then_refuses);
    tcase_add_test(tc, shutdown_deadline_drops_the_rest);
    tcase_add_test(tc, never_started_bus_frees_quietly);
    tcase_add_test(tc, napp_shutdown_event_after_bus_shutdown);
    return s;
}

int main(void) { return kytos_check_run(suite()); }
