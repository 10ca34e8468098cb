/* tests/events/check_api.c - the host-facing glue: kh_bus_new from
 * kytos.conf, the ABI slots (kh_bus_api_fill), and the dead letter routes
 * (kh_bus_register_core_routes), with what the host hands in (NApp hooks,
 * the bus lookup, the route adder) and the request functions faked here. */
#include "check_tap.h"
#include "fake_napp.h"
#include "host/util/conf.h"
#include "host/events/deadletter.h"
#include "host/http/req_api.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- what the host hands the bus, and stubs of http/req_api.h ---- */

static kh_bus *the_bus;

struct kytos_req {
    const char *query_event_name;
    struct json_object *body;
    unsigned status;
    char out[4096];
};

static kh_bus *bus_of(const kytos_napp *n) { return the_bus; }

static struct {
    char method[8];
    char path[64];
    kytos_handler fn;
    void *ud;
} routes[8];
static int nroutes;

static int add_route(void *add_ud, const char *method, const char *path, kytos_handler handler,
                     void *ud, unsigned flags)
{
    ck_assert_ptr_eq(add_ud, &routes);
    snprintf(routes[nroutes].method, sizeof routes[0].method, "%s", method);
    snprintf(routes[nroutes].path, sizeof routes[0].path, "%s", path);
    routes[nroutes].fn = handler;
    routes[nroutes].ud = ud;
    nroutes++;
    return 0;
}

const char *kh_req_query(const kytos_req *req, const char *name)
{
    return strcmp(name, "event_name") == 0 ? req->query_event_name : NULL;
}

struct json_object *kh_req_json(const kytos_req *req) { return req->body; }

int kh_resp_json(kytos_req *req, unsigned status, struct json_object *body)
{
    req->status = status;
    snprintf(req->out, sizeof req->out, "%s",
             json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    return 0;
}

int kh_resp_error(kytos_req *req, unsigned status, const char *fmt, ...)
{
    struct json_object *o = json_object_new_object();
    char desc[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(desc, sizeof desc, fmt, ap);
    va_end(ap);
    json_object_object_add(o, "description", json_object_new_string(desc));
    json_object_object_add(o, "code", json_object_new_int((int)status));
    kh_resp_json(req, status, o);
    json_object_put(o);
    return 0;
}

/* ---- tests ---- */

static kh_bus *bus_from_conf(const char *text, char *err, size_t errlen)
{
    kh_config *cfg = kh_config_new();
    kh_bus *b;

    ck_assert_int_eq(kh_config_load_text(cfg, text, "test", err, errlen), 0);
    b = kh_bus_new(cfg, &fake_ops, err, errlen);
    kh_config_free(cfg);
    return b;
}

static int got;
static char got_name[64], got_id[40];
static int64_t got_time;

static int handler(kytos_napp *n, const kytos_event *ev, void *ud)
{
    const struct kytos_api *api = ud;
    struct json_object *v;

    snprintf(got_name, sizeof got_name, "%s", api->event_name(ev));
    snprintf(got_id, sizeof got_id, "%s", api->event_id(ev));
    got_time = api->event_time_us(ev);
    ck_assert_int_eq(api->event_priority(ev), 3);
    ck_assert_int_eq(api->event_reinjections(ev), 0);
    ck_assert(json_object_object_get_ex(api->event_content(ev), "k", &v));
    got++;
    return 0;
}

static void on_timer(kytos_napp *n, void *ud) { (void)n; (void)ud; }

START_TEST(abi_slots_round_trip)
{
    struct kytos_api api;
    struct fake_napp a;
    struct json_object *c = json_tokener_parse("{\"k\": true}");
    char err[256];

    memset(&api, 0, sizeof api);
    kh_bus_api_fill(&api, bus_of);
    ck_assert(api.event_subscribe && api.event_publish && api.event_name && api.event_content &&
              api.event_id && api.event_time_us && api.event_priority &&
              api.event_reinjections && api.pace && api.timer_add && api.event_publish_give &&
              api.event_wanted && api.event_take_content);
    the_bus = bus_from_conf("[daemon]\nthread_pool_max_workers = {\"sb\": 2, \"db\": 1, \"app\": 2, "
                            "\"api\": 4}\n", err, sizeof err);
    ck_assert_msg(the_bus != NULL, "%s", err);
    fake_napp_init(&a, "test/a");
    ck_assert_int_eq(api.event_subscribe(FAKE(&a), &(struct kytos_sub){sizeof(struct kytos_sub),
                                         "kytos/a\\.x", handler, &api, NULL}), 0);
    ck_assert_int_eq(api.event_subscribe(FAKE(&a), &(struct kytos_sub){sizeof(struct kytos_sub),
                                         "(", handler, &api, NULL}), KYTOS_EINVAL);
    ck_assert_int_eq(api.timer_add(FAKE(&a), 1000, on_timer, NULL), 0);
    ck_assert_int_eq(kh_bus_start(the_bus), 0);
    ck_assert_int_eq(api.event_publish(FAKE(&a), "kytos/a.x", c,
                                       &(struct kytos_pub_opts){sizeof(struct kytos_pub_opts), 3,
                                                                NULL, 1000}), 0);
    ck_assert_int_eq(kh_bus_drain(the_bus, 10000), 0);
    ck_assert_int_eq(got, 1);
    ck_assert_str_eq(got_name, "kytos/a.x");
    ck_assert_uint_eq(strlen(got_id), 36);
    ck_assert_int_gt(got_time, 0);
    ck_assert_int_eq(api.pace(FAKE(&a), "act", NULL, "5/second", KYTOS_PACE_NOWAIT), 0);
    ck_assert_int_eq(api.pace(FAKE(&a), "act", NULL, "nonsense", 0), KYTOS_EINVAL);
    ck_assert_int_eq(kh_bus_napp_unload(the_bus, FAKE(&a), 10000), 0);
    ck_assert_int_eq(atomic_load(&a.refs), 0);
    kh_bus_free(the_bus);
    json_object_put(c);
}
END_TEST

START_TEST(config_errors_refuse_the_bus)
{
    char err[256];

    ck_assert_ptr_null(bus_from_conf("[daemon]\nevent_buffer_conf = {\"app\": {\"queue\": "
                                     "{\"type\": \"stack\"}}}\n", err, sizeof err));
    ck_assert_msg(strstr(err, "event_buffer_conf") != NULL, "%s", err);
    ck_assert_ptr_null(bus_from_conf("[daemon]\nevent_buffer_monitors = [{\"min_hits\": 9, "
                                     "\"delta_secs\": 1, \"buffers\": [\"app\"]}]\n", err, sizeof err));
    ck_assert_msg(strstr(err, "min_hits/delta_secs") != NULL, "%s", err);
}
END_TEST

static int fail_handler(kytos_napp *n, const kytos_event *ev, void *ud) { return KYTOS_ERROR; }

static kytos_handler route(const char *method)
{
    int i;
    for (i = 0; i < nroutes; i++)
        if (strcmp(routes[i].method, method) == 0) {
            ck_assert_str_eq(routes[i].path, "/api/kytos/core/dead_letter/");
            ck_assert_ptr_eq(routes[i].ud, the_bus);
            return routes[i].fn;
        }
    ck_abort_msg("no %s route", method);
    return NULL;
}

START_TEST(dead_letter_routes)
{
    struct fake_napp a;
    struct kytos_req req;
    char err[256];

    the_bus = fake_bus(NULL);
    ck_assert_int_eq(kh_bus_register_core_routes(the_bus, add_route, &routes), 0);
    ck_assert_int_eq(nroutes, 3);
    fake_napp_init(&a, "test/a");
    ck_assert_int_eq(kh_bus_subscribe(the_bus, FAKE(&a),
                                      &(struct kytos_sub){sizeof(struct kytos_sub), "d\\.x",
                                                          fail_handler, NULL, NULL},
                                      err, sizeof err), 0);
    ck_assert_int_eq(kh_bus_start(the_bus), 0);
    ck_assert_int_eq(kh_bus_publish(the_bus, "d.x", NULL, NULL), 0);
    ck_assert_int_eq(kh_bus_drain(the_bus, 10000), 0);

    memset(&req, 0, sizeof req);
    req.query_event_name = "d.x";
    ck_assert_int_eq(route("GET")(&req, the_bus), 0);
    ck_assert_uint_eq(req.status, 200);
    ck_assert_ptr_nonnull(strstr(req.out, "{\"d.x\":{\""));
    ck_assert_ptr_nonnull(strstr(req.out, "\"reinjections\":0"));

    memset(&req, 0, sizeof req);
    req.body = json_tokener_parse("{\"event_name\": \"d.y\", \"kytos_queue_buffer\": \"app\"}");
    ck_assert_int_eq(route("PATCH")(&req, the_bus), 0);
    ck_assert_uint_eq(req.status, 404);
    ck_assert_str_eq(req.out, "{\"description\":\"event_name d.y not found\",\"code\":404}");
    json_object_put(req.body);

    memset(&req, 0, sizeof req);
    req.body = json_tokener_parse("{\"event_name\": \"\"}");
    ck_assert_int_eq(route("DELETE")(&req, the_bus), 0);
    ck_assert_uint_eq(req.status, 400);
    ck_assert_str_eq(req.out, "[{\"type\":\"string_too_short\",\"loc\":[\"event_name\"],"
                              "\"msg\":\"String should have at least 1 character\",\"input\":\"\","
                              "\"ctx\":{\"min_length\":1},"
                              "\"url\":\"https://errors.pydantic.dev/2.6/v/string_too_short\"}]");
    json_object_put(req.body);

    memset(&req, 0, sizeof req);
    req.body = json_tokener_parse("{\"event_name\": \"all\"}");
    ck_assert_int_eq(route("DELETE")(&req, the_bus), 0);
    ck_assert_uint_eq(req.status, 200);
    ck_assert_str_eq(req.out, "{}");
    json_object_put(req.body);
    ck_assert_uint_eq(kh_deadletter_count(kh_bus_deadletter(the_bus)), 0);
    kh_bus_free(the_bus);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("eventbus_api");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, abi_slots_round_trip);
    tcase_add_test(tc, config_errors_refuse_the_bus);
    tcase_add_test(tc, dead_letter_routes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return kytos_check_run(suite()); }
