/* tests/events/check_deadletter.c - the dead letter store and the logic of
 * GET/PATCH/DELETE /api/kytos/core/dead_letter/ (bodies and codes as Kytos). */
#include "check_tap.h"
#include "fake_napp.h"
#include "host/events/deadletter.h"
#include "host/events/deadletter_ops.h"
#include "host/events/event_obj.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define WAIT_MS 10000

static struct kh_ev *ev(const char *name, int seq)
{
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "seq", json_object_new_int(seq));
    return kh_ev_new(name, c, 0);
}

/* Add a fresh event; returns its id (static buffer per call slot). */
static const char *add(kh_deadletter *dl, const char *name, int seq, char *idbuf)
{
    struct kh_ev *e = ev(name, seq);
    ck_assert_int_eq(kh_deadletter_add(dl, e, json_object_get(e->content)), 0);
    snprintf(idbuf, 37, "%s", e->id);
    kh_ev_unref(e);
    return idbuf;
}

static struct json_object *parse(const char *text)
{
    struct json_object *o = json_tokener_parse(text);
    ck_assert_ptr_nonnull(o);
    return o;
}

START_TEST(store_keeps_at_most_n_oldest_evicted)
{
    kh_deadletter *dl = kh_deadletter_new(3, 0);
    struct kh_deadletter_stats st;
    struct json_object *l, *events, *v;
    char ids[5][37];
    int i;

    for (i = 0; i < 5; i++)
        add(dl, "a.b", i, ids[i]);
    add(dl, "other", 9, ids[0] /* reused buffer, id not needed */);
    kh_deadletter_stats(dl, &st);
    ck_assert_uint_eq(st.count, 4);
    ck_assert_uint_eq(st.names, 2);
    ck_assert_uint_eq(st.evicted, 2);
    l = kh_deadletter_list(dl, "a.b");
    ck_assert(json_object_object_get_ex(l, "a.b", &events));
    ck_assert_int_eq(json_object_object_length(events), 3);
    ck_assert(!json_object_object_get_ex(events, ids[1], &v)); /* evicted */
    ck_assert(json_object_object_get_ex(events, ids[2], &v));
    ck_assert(json_object_object_get_ex(v, "timestamp", &v));
    ck_assert_uint_eq(json_object_get_string_len(v), 19); /* %Y-%m-%dT%H:%M:%S */
    /* oldest first */
    {
        int k = 2;
        json_object_object_foreach(events, id, e) {
            (void)e;
            ck_assert_str_eq(id, ids[k++]);
        }
    }
    json_object_put(l);
    l = kh_deadletter_list(dl, NULL);
    ck_assert_int_eq(json_object_object_length(l), 2);
    json_object_put(l);
    l = kh_deadletter_list(dl, "unknown");
    ck_assert_int_eq(json_object_object_length(l), 0);
    json_object_put(l);
    kh_deadletter_free(dl);
}
END_TEST

START_TEST(store_total_bound_and_duplicates)
{
    kh_deadletter *dl = kh_deadletter_new(100, 2);
    struct kh_ev *e = ev("x", 1);
    char id[37];

    ck_assert_int_eq(kh_deadletter_add(dl, e, json_object_get(e->content)), 0);
    /* the same event failing in a second handler keeps one entry */
    ck_assert_int_eq(kh_deadletter_add(dl, e, json_object_get(e->content)), 0);
    ck_assert_uint_eq(kh_deadletter_count(dl), 1);
    add(dl, "y", 2, id);
    kh_ev_unref(e);
    e = ev("z", 3);
    ck_assert_int_eq(kh_deadletter_add(dl, e, json_object_get(e->content)), KYTOS_EFULL);
    kh_ev_unref(e);
    ck_assert_uint_eq(kh_deadletter_count(dl), 2);
    kh_deadletter_free(dl);
}
END_TEST

START_TEST(remove_is_all_or_nothing)
{
    kh_deadletter *dl = kh_deadletter_new(0, 0);
    struct kh_dl_item *items;
    const char *ids[3];
    char a[37], b[37], c[37], *missing;
    size_t n;

    add(dl, "n", 1, a);
    add(dl, "n", 2, b);
    add(dl, "m", 3, c);
    ck_assert_int_eq(kh_deadletter_remove(dl, "nope", NULL, 0, NULL, NULL, &missing), KH_DL_NO_NAME);
    ids[0] = a;
    ids[1] = "not-an-id";
    ids[2] = c; /* exists, but under another name */
    ck_assert_int_eq(kh_deadletter_remove(dl, "n", ids, 3, &items, &n, &missing), KH_DL_NO_IDS);
    ck_assert_ptr_nonnull(missing);
    {
        char want[128];
        snprintf(want, sizeof want, "{'not-an-id', '%s'}", c);
        ck_assert_str_eq(missing, want);
    }
    free(missing);
    ck_assert_uint_eq(kh_deadletter_count(dl), 3); /* nothing changed */
    ids[1] = b;
    ids[2] = a; /* repeated */
    ck_assert_int_eq(kh_deadletter_remove(dl, "n", ids, 3, &items, &n, NULL), KH_DL_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(items[0].ev->id, a);
    ck_assert_str_eq(items[1].ev->id, b);
    kh_dl_items_free(items, n);
    ck_assert_uint_eq(kh_deadletter_count(dl), 1);
    ck_assert_int_eq(kh_deadletter_remove(dl, "n", NULL, 0, NULL, NULL, NULL), KH_DL_NO_NAME);
    kh_deadletter_free(dl);
}
END_TEST

/* ---- REST logic ---- */

static int fail_handler(kytos_napp *n, const kytos_event *e, void *ud)
{
    atomic_fetch_add((atomic_int *)ud, 1);
    return KYTOS_ERROR;
}

static atomic_int calls;

static kh_bus *bus_with_dead(struct fake_napp *n, int nevents)
{
    kh_bus *b = fake_bus(NULL);
    char err[256];
    int i;

    fake_napp_init(n, "test/a");
    ck_assert_int_eq(kh_bus_subscribe(b, FAKE(n),
                                      &(struct kytos_sub){sizeof(struct kytos_sub), "dl\\..*",
                                                          fail_handler, &calls, NULL},
                                      err, sizeof err), 0);
    ck_assert_int_eq(kh_bus_start(b), 0);
    for (i = 0; i < nevents; i++) {
        struct json_object *c = json_object_new_object();
        json_object_object_add(c, "seq", json_object_new_int(i));
        ck_assert_int_eq(kh_bus_publish(b, i % 2 ? "dl.odd" : "dl.even", c, NULL), 0);
        json_object_put(c);
    }
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    return b;
}

static const char *first_id(kh_bus *b, const char *name)
{
    static char id[37];
    struct json_object *l = kh_deadletter_list(kh_bus_deadletter(b), name), *events;

    id[0] = '\0';
    if (json_object_object_get_ex(l, name, &events)) {
        json_object_object_foreach(events, k, v) {
            (void)v;
            snprintf(id, sizeof id, "%s", k);
            break;
        }
    }
    json_object_put(l);
    return id;
}

START_TEST(rest_get)
{
    struct fake_napp n;
    kh_bus *b = bus_with_dead(&n, 4);
    struct kh_dl_reply r;
    struct json_object *v;

    kh_dl_do_get(b, NULL, &r);
    ck_assert_uint_eq(r.status, 200);
    ck_assert_int_eq(json_object_object_length(r.body), 2);
    kh_dl_reply_clear(&r);
    kh_dl_do_get(b, "", &r); /* empty means all, as Kytos' "if not event_name" */
    ck_assert_int_eq(json_object_object_length(r.body), 2);
    kh_dl_reply_clear(&r);
    kh_dl_do_get(b, "dl.odd", &r);
    ck_assert_int_eq(json_object_object_length(r.body), 1);
    ck_assert(json_object_object_get_ex(r.body, "dl.odd", &v));
    ck_assert_int_eq(json_object_object_length(v), 2);
    kh_dl_reply_clear(&r);
    kh_dl_do_get(b, "unknown", &r);
    ck_assert_uint_eq(r.status, 200);
    ck_assert_str_eq(json_object_to_json_string(r.body), "{ }");
    kh_dl_reply_clear(&r);
    kh_bus_free(b);
}
END_TEST

static void check_pydantic(struct kh_dl_reply *r, int idx, const char *type, const char *loc0)
{
    struct json_object *e = json_object_array_get_idx(r->body, (size_t)idx), *v;

    ck_assert_ptr_nonnull(e);
    ck_assert(json_object_object_get_ex(e, "type", &v));
    ck_assert_str_eq(json_object_get_string(v), type);
    ck_assert(json_object_object_get_ex(e, "loc", &v));
    ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(v, 0)), loc0);
    ck_assert(json_object_object_get_ex(e, "msg", &v));
    ck_assert(json_object_object_get_ex(e, "input", &v));
    ck_assert(json_object_object_get_ex(e, "url", &v));
}

START_TEST(rest_patch_validation)
{
    struct fake_napp n;
    kh_bus *b = bus_with_dead(&n, 2);
    struct kh_dl_reply r;
    struct json_object *body, *v;

    kh_dl_do_patch(b, NULL, &r);
    ck_assert_uint_eq(r.status, 400);
    ck_assert_ptr_nonnull(strstr(r.description, "Invalid json"));
    kh_dl_reply_clear(&r);

    body = parse("[1, 2]");
    kh_dl_do_patch(b, body, &r);
    ck_assert_uint_eq(r.status, 400);
    ck_assert_str_eq(r.description, "Invalid type value [1,2]");
    kh_dl_reply_clear(&r);
    json_object_put(body);

    body = parse("{}");
    kh_dl_do_patch(b, body, &r);
    ck_assert_uint_eq(r.status, 400);
    ck_assert_int_eq(json_object_array_length(r.body), 2);
    check_pydantic(&r, 0, "missing", "event_name");
    check_pydantic(&r, 1, "missing", "kytos_queue_buffer");
    v = json_object_array_get_idx(r.body, 0);
    ck_assert(json_object_object_get_ex(v, "msg", &v));
    ck_assert_str_eq(json_object_get_string(v), "Field required");
    kh_dl_reply_clear(&r);
    json_object_put(body);

    body = parse("{\"event_name\": \"\", \"ids\": [\"a\", 3], \"kytos_queue_buffer\": \"raw\"}");
    kh_dl_do_patch(b, body, &r);
    ck_assert_int_eq(json_object_array_length(r.body), 3);
    check_pydantic(&r, 0, "string_too_short", "event_name");
    check_pydantic(&r, 1, "string_type", "ids");
    check_pydantic(&r, 2, "enum", "kytos_queue_buffer");
    v = json_object_array_get_idx(r.body, 1);
    ck_assert(json_object_object_get_ex(v, "loc", &v));
    ck_assert_int_eq(json_object_get_int(json_object_array_get_idx(v, 1)), 1);
    v = json_object_array_get_idx(r.body, 2);
    ck_assert(json_object_object_get_ex(v, "msg", &v));
    ck_assert_str_eq(json_object_get_string(v), "Input should be 'app' or 'msg_in'");
    kh_dl_reply_clear(&r);
    json_object_put(body);

    body = parse("{\"event_name\": 5, \"ids\": \"x\", \"kytos_queue_buffer\": \"app\"}");
    kh_dl_do_patch(b, body, &r);
    ck_assert_int_eq(json_object_array_length(r.body), 2);
    check_pydantic(&r, 0, "string_type", "event_name");
    check_pydantic(&r, 1, "list_type", "ids");
    kh_dl_reply_clear(&r);
    json_object_put(body);
    kh_bus_free(b);
}
END_TEST

START_TEST(rest_patch_404s_and_reinjects)
{
    struct fake_napp n;
    kh_bus *b = bus_with_dead(&n, 4);
    struct kh_dl_reply r;
    struct json_object *body;
    char text[256], id[37];
    int before;

    body = parse("{\"event_name\": \"dl.none\", \"kytos_queue_buffer\": \"app\"}");
    kh_dl_do_patch(b, body, &r);
    ck_assert_uint_eq(r.status, 404);
    ck_assert_str_eq(r.description, "event_name dl.none not found");
    kh_dl_reply_clear(&r);
    json_object_put(body);

    body = parse("{\"event_name\": \"dl.odd\", \"ids\": [\"zzz\"], \"kytos_queue_buffer\": \"app\"}");
    kh_dl_do_patch(b, body, &r);
    ck_assert_uint_eq(r.status, 404);
    ck_assert_str_eq(r.description, "KytosEvent ids not found: {'zzz'}");
    kh_dl_reply_clear(&r);
    json_object_put(body);

    /* reinject one by id: it fails again and comes back with reinjections 1 */
    snprintf(id, sizeof id, "%s", first_id(b, "dl.odd"));
    snprintf(text, sizeof text, "{\"event_name\": \"dl.odd\", \"ids\": [\"%s\"],"
             " \"kytos_queue_buffer\": \"msg_in\"}", id);
    body = parse(text);
    before = atomic_load(&calls);
    kh_dl_do_patch(b, body, &r);
    ck_assert_uint_eq(r.status, 200);
    ck_assert_str_eq(json_object_to_json_string(r.body), "{ }");
    kh_dl_reply_clear(&r);
    json_object_put(body);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(atomic_load(&calls), before + 1);
    {
        struct json_object *l = kh_deadletter_list(kh_bus_deadletter(b), "dl.odd"), *e, *v;
        ck_assert(json_object_object_get_ex(l, "dl.odd", &e));
        ck_assert(json_object_object_get_ex(e, id, &e)); /* same id */
        ck_assert(json_object_object_get_ex(e, "reinjections", &v));
        ck_assert_int_eq(json_object_get_int(v), 1);
        json_object_put(l);
    }

    /* ids empty = every event of the name */
    body = parse("{\"event_name\": \"dl.even\", \"ids\": [], \"kytos_queue_buffer\": \"app\"}");
    before = atomic_load(&calls);
    kh_dl_do_patch(b, body, &r);
    ck_assert_uint_eq(r.status, 200);
    kh_dl_reply_clear(&r);
    json_object_put(body);
    ck_assert_int_eq(kh_bus_drain(b, WAIT_MS), 0);
    ck_assert_int_eq(atomic_load(&calls), before + 2);
    kh_bus_free(b);
}
END_TEST

START_TEST(rest_patch_full_buffer_503)
{
    /* the app buffer holds 1 and the bus is not started: reinjection of
     * two events fills it, the second comes back to the dead letter */
    kh_bus *b = fake_bus("{\"app\": {\"queue\": {\"maxsize\": 1}}}");
    struct kh_dl_reply r;
    struct json_object *body;
    int i;

    for (i = 0; i < 2; i++) {
        struct kh_ev *e = ev("dl.x", i);
        ck_assert_int_eq(kh_deadletter_add(kh_bus_deadletter(b), e, json_object_get(e->content)), 0);
        kh_ev_unref(e);
    }
    body = parse("{\"event_name\": \"dl.x\", \"kytos_queue_buffer\": \"app\"}");
    kh_dl_do_patch(b, body, &r);
    ck_assert_uint_eq(r.status, 503);
    ck_assert_ptr_nonnull(strstr(r.description, "1 of 2 events"));
    kh_dl_reply_clear(&r);
    json_object_put(body);
    ck_assert_uint_eq(kh_deadletter_count(kh_bus_deadletter(b)), 1);
    kh_bus_free(b);
}
END_TEST

START_TEST(rest_delete)
{
    struct fake_napp n;
    kh_bus *b = bus_with_dead(&n, 6);
    struct kh_dl_reply r;
    struct json_object *body;
    char text[256];

    body = parse("{\"ids\": []}");
    kh_dl_do_delete(b, body, &r);
    ck_assert_uint_eq(r.status, 400);
    check_pydantic(&r, 0, "missing", "event_name");
    ck_assert_int_eq(json_object_array_length(r.body), 1); /* no buffer needed for DELETE */
    kh_dl_reply_clear(&r);
    json_object_put(body);

    body = parse("{\"event_name\": \"dl.none\"}");
    kh_dl_do_delete(b, body, &r);
    ck_assert_uint_eq(r.status, 404);
    ck_assert_str_eq(r.description, "event_name dl.none not found");
    kh_dl_reply_clear(&r);
    json_object_put(body);

    snprintf(text, sizeof text, "{\"event_name\": \"dl.odd\", \"ids\": [\"%s\"]}", first_id(b, "dl.odd"));
    body = parse(text);
    kh_dl_do_delete(b, body, &r);
    ck_assert_uint_eq(r.status, 200);
    kh_dl_reply_clear(&r);
    json_object_put(body);
    ck_assert_uint_eq(kh_deadletter_count(kh_bus_deadletter(b)), 5);

    body = parse("{\"event_name\": \"dl.odd\"}");
    kh_dl_do_delete(b, body, &r);
    ck_assert_uint_eq(r.status, 200);
    kh_dl_reply_clear(&r);
    json_object_put(body);
    ck_assert_uint_eq(kh_deadletter_count(kh_bus_deadletter(b)), 3);

    /* "all" works on a non-empty store (Kytos' B3 gave 500) */
    body = parse("{\"event_name\": \"all\"}");
    kh_dl_do_delete(b, body, &r);
    ck_assert_uint_eq(r.status, 200);
    kh_dl_reply_clear(&r);
    json_object_put(body);
    ck_assert_uint_eq(kh_deadletter_count(kh_bus_deadletter(b)), 0);
    kh_bus_free(b);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("deadletter");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, store_keeps_at_most_n_oldest_evicted);
    tcase_add_test(tc, store_total_bound_and_duplicates);
    tcase_add_test(tc, remove_is_all_or_nothing);
    tcase_add_test(tc, rest_get);
    tcase_add_test(tc, rest_patch_validation);
    tcase_add_test(tc, rest_patch_404s_and_reinjects);
    tcase_add_test(tc, rest_patch_full_buffer_503);
    tcase_add_test(tc, rest_delete);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return kytos_check_run(suite()); }
