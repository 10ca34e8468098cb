/* tests/napps/test_flow_manager.c - kytos/flow_manager through the
 * in-process test host, over simnet's 3-switch ring (topology + simnet +
 * flow_manager loaded): POST/DELETE codes and Kytos' texts, stored_flows
 * and its filters, Kytos' ids, uint64 cookies, installs confirmed by
 * simnet's barrier replies. */
#include "check_tap.h"
#include <kytos/kytos.h>
#include <kytos/test.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define S1 "00:00:00:00:00:00:00:01"
#define S2 "00:00:00:00:00:00:00:02"
#define S3 "00:00:00:00:00:00:00:03"
#define FM "/api/kytos/flow_manager/"
/* the benchmark's body (scenarios 2 and 3) */
#define BENCH_BODY                                                                                \
    "{\"force\":true,\"flows\":[{\"priority\":10,\"match\":{\"in_port\":1,\"dl_vlan\":100},"      \
    "\"actions\":[{\"action_type\":\"output\",\"port\":1}]}]}"
/* md5 of json.dumps(..., sort_keys=True) as Kytos computes them for it on S1 */
#define BENCH_MATCH_ID "2aeeed5fc69a5197b7a4a45a8f1de6f9"
#define BENCH_FLOW_ID "55b34c5229bb74353d6e4d25202ca69c"

static kytos_test_host *th;

static const char conf[] = "[kytos/topology]\n"
                           "link_up_timer = 0\n"
                           "[kytos/simnet]\n"
                           "flow_stats_interval = 0\n"
                           /* the alien half's exceptions (consistency_check_deletes_alien_flows) */
                           "[kytos/flow_manager]\n"
                           "consistency_cookie_ignored_range = [[4096, 8191], 65536]\n"
                           "consistency_table_id_ignored_range = [7]\n";

/* th: a started host with topology, flow_manager and simnet, on conf_text. */
static void host_with(const char *conf_text)
{
    struct kytos_test_opts o = {.struct_size = sizeof o, .conf_text = conf_text};
    th = kytos_test_host_new(&o);
    ck_assert_ptr_nonnull(th);
    ck_assert_msg(kytos_test_load(th, NAPP_DIR "/topology.so") == 0, "%s",
                  kytos_test_last_error(th));
    ck_assert_msg(kytos_test_load(th, NAPP_DIR "/flow_manager.so") == 0, "%s",
                  kytos_test_last_error(th));
    ck_assert_msg(kytos_test_load(th, NAPP_DIR "/simnet.so") == 0, "%s",
                  kytos_test_last_error(th));
    ck_assert_int_eq(kytos_test_start(th), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
}

static void setup(void)
{
    host_with(conf);
}

static void teardown(void)
{
    kytos_test_host_free(th);
}

static kytos_test_resp *req(const char *method, const char *path, const char *body)
{
    kytos_test_resp *r = kytos_test_request(th, method, path, body);
    ck_assert_ptr_nonnull(r);
    return r;
}

/* status of a request, the response freed */
static unsigned status_of(const char *method, const char *path, const char *body)
{
    kytos_test_resp *r = req(method, path, body);
    unsigned st = kytos_test_resp_status(r);
    kytos_test_resp_free(r);
    return st;
}

static const char *description(kytos_test_resp *r)
{
    struct json_object *v;
    if (!json_object_object_get_ex(kytos_test_resp_json(r), "description", &v))
        return "";
    return json_object_get_string(v);
}

static void expect_error(const char *method, const char *path, const char *body, unsigned status,
                         const char *text_prefix)
{
    kytos_test_resp *r = req(method, path, body);
    ck_assert_uint_eq(kytos_test_resp_status(r), status);
    ck_assert_msg(strncmp(description(r), text_prefix, strlen(text_prefix)) == 0,
                  "description '%s' does not start with '%s'", description(r), text_prefix);
    kytos_test_resp_free(r);
}

/* The description is exactly text (a JSON string, not an object). */
static void expect_exact(const char *method, const char *path, const char *body, unsigned status,
                         const char *text)
{
    kytos_test_resp *r = req(method, path, body);
    struct json_object *d = NULL;

    ck_assert_uint_eq(kytos_test_resp_status(r), status);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "description", &d));
    ck_assert_msg(json_object_is_type(d, json_type_string), "description is not a string: %s",
                  json_object_to_json_string(d));
    ck_assert_str_eq(json_object_get_string(d), text);
    kytos_test_resp_free(r);
}

/* GET stored_flows?query -> the array of dpid (NULL when absent); the
 * response is kept in *keep for the caller to free. */
static struct json_object *stored(const char *query, const char *dpid, kytos_test_resp **keep)
{
    char path[512];
    struct json_object *list = NULL;
    snprintf(path, sizeof path, FM "v2/stored_flows%s", query);
    *keep = req("GET", path, NULL);
    ck_assert_uint_eq(kytos_test_resp_status(*keep), 200);
    json_object_object_get_ex(kytos_test_resp_json(*keep), dpid, &list);
    return list;
}

/* GET stored_flows?query holds n flows of dpid (0: dpid absent). */
static void expect_stored(const char *query, const char *dpid, size_t n)
{
    kytos_test_resp *s;
    struct json_object *list = stored(query, dpid, &s);
    size_t got = list ? json_object_array_length(list) : 0;

    ck_assert_msg(got == n && (n > 0) == (list != NULL), "stored_flows%s: %zu flows of %s, want %zu",
                  query, got, dpid, n);
    kytos_test_resp_free(s);
}

static const char *field(struct json_object *o, const char *k)
{
    struct json_object *v;
    return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : "";
}

START_TEST(post_202_stores_with_kytos_ids_and_gets_installed)
{
    kytos_test_resp *r = req("POST", FM "v2/flows/" S1, BENCH_BODY), *s;
    size_t len = 0;
    const char *body = kytos_test_resp_body(r, &len);
    struct json_object *list, *doc;

    ck_assert_uint_eq(kytos_test_resp_status(r), 202);
    ck_assert_str_eq(body, "{\"response\":\"FlowMod Messages Sent\"}");
    kytos_test_resp_free(r);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    /* one FlowMod and one barrier went out; simnet's reply confirmed them */
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.messages.out.ofpt_flow_mod"), 1);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.messages.out.ofpt_barrier_request"), 1);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.flow.pending"), 1);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.flow.added"), 1);
    {
        /* flow.added carries the flow as the FlowMod did (read back from
         * the store: the pending records keep ids only) */
        struct json_object *mod = kytos_test_published(th, "kytos/flow_manager.messages.out.ofpt_flow_mod", 0),
                           *added = kytos_test_published(th, "kytos/flow_manager.flow.added", 0);
        ck_assert_ptr_nonnull(mod);
        ck_assert_ptr_nonnull(added);
        ck_assert_str_eq(field(added, "datapath"), S1);
        ck_assert_str_eq(field(json_object_object_get(added, "flow"), "id"), BENCH_FLOW_ID);
        ck_assert(json_object_equal(json_object_object_get(added, "flow"),
                                    json_object_object_get(mod, "flow")));
    }

    list = stored("?dpid=" S1, S1, &s);
    ck_assert_ptr_nonnull(list);
    ck_assert_uint_eq(json_object_array_length(list), 1);
    doc = json_object_array_get_idx(list, 0);
    ck_assert_str_eq(field(doc, "id"), BENCH_MATCH_ID);
    ck_assert_str_eq(field(doc, "flow_id"), BENCH_FLOW_ID);
    ck_assert_str_eq(field(doc, "switch"), S1);
    ck_assert_str_eq(field(doc, "state"), "installed");
    ck_assert(!json_object_object_get_ex(doc, "_id", NULL));
    ck_assert(json_object_object_get_ex(doc, "inserted_at", NULL));
    kytos_test_resp_free(s);

    /* the same match again overwrites the same document, confirmed again */
    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1, BENCH_BODY), 202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    list = stored("?dpid=" S1, S1, &s);
    ck_assert_uint_eq(json_object_array_length(list), 1);
    ck_assert_str_eq(field(json_object_array_get_idx(list, 0), "state"), "installed");
    kytos_test_resp_free(s);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.flow.added"), 2);

    /* one flow twice in one request: two FlowMods, one document, and only
     * the later write is confirmed (the earlier one's confirmation is stale) */
    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1,
                                "{\"force\":true,\"flows\":[{\"priority\":10,\"match\":{\"in_port\":1,"
                                "\"dl_vlan\":100},\"actions\":[{\"action_type\":\"output\",\"port\":1}]},"
                                "{\"priority\":10,\"match\":{\"in_port\":1,\"dl_vlan\":100},\"actions\":"
                                "[{\"action_type\":\"output\",\"port\":1}]}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.messages.out.ofpt_flow_mod"), 4);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.flow.added"), 3);
    list = stored("?dpid=" S1, S1, &s);
    ck_assert_uint_eq(json_object_array_length(list), 1);
    ck_assert_str_eq(field(json_object_array_get_idx(list, 0), "state"), "installed");
    kytos_test_resp_free(s);
}
END_TEST

/* The xid of the n-th FlowMod flow_manager published. */
static int64_t flow_mod_xid(size_t n)
{
    struct json_object *m = kytos_test_published(th, "kytos/flow_manager.messages.out.ofpt_flow_mod", n),
                       *x;
    ck_assert_ptr_nonnull(m);
    ck_assert(json_object_object_get_ex(m, "xid", &x));
    return json_object_get_int64(x);
}

START_TEST(switch_errors_become_flow_error)
{
    char msg[512];
    struct json_object *list, *e;
    kytos_test_resp *s;
    int64_t xid;

    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1, BENCH_BODY), 202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    xid = flow_mod_xid(0);

    /* an error about something else, or from another switch: not ours */
    snprintf(msg, sizeof msg, "{\"source\": \"%s\", \"xid\": %lld, \"error_type\": \"OFPET_FLOW_MOD_FAILED\"}",
             S2, (long long)xid);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.v0x04.messages.in.ofpt_error", msg), 0);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.v0x04.messages.in.ofpt_error",
                                        "{\"source\": \"" S1 "\", \"xid\": 999999}"), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.flow.error"), 0);

    /* the switch refuses our FlowMod: the stored flow goes, flow.error tells */
    snprintf(msg, sizeof msg, "{\"source\": \"%s\", \"xid\": %lld, \"error_type\": "
             "\"OFPET_FLOW_MOD_FAILED\", \"error_code\": \"OFPFMFC_TABLE_FULL\"}", S1, (long long)xid);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.v0x04.messages.in.ofpt_error", msg), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.flow.error"), 1);
    e = kytos_test_published(th, "kytos/flow_manager.flow.error", 0);
    ck_assert_str_eq(field(e, "datapath"), S1);
    ck_assert_str_eq(field(e, "error_command"), "add");
    ck_assert_str_eq(field(e, "error_type"), "OFPET_FLOW_MOD_FAILED");
    ck_assert_str_eq(field(e, "error_code"), "OFPFMFC_TABLE_FULL");
    ck_assert_str_eq(field(json_object_object_get(e, "flow"), "id"), BENCH_FLOW_ID);
    list = stored("?dpid=" S1, S1, &s);
    ck_assert(list == NULL || json_object_array_length(list) == 0);
    kytos_test_resp_free(s);
    /* told once per FlowMod */
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.v0x04.messages.in.ofpt_error", msg), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.flow.error"), 1);

    /* the connection was gone: flow.error with the exception, the flow stays */
    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1, BENCH_BODY), 202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    xid = flow_mod_xid(1);
    snprintf(msg, sizeof msg, "{\"destination\": \"%s\", \"xid\": %lld, \"command\": \"add\", "
             "\"exception\": \"switch %s is not connected\"}", S1, (long long)xid, S1);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/core.openflow.connection.error", msg), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.flow.error"), 2);
    e = kytos_test_published(th, "kytos/flow_manager.flow.error", 1);
    ck_assert_str_eq(field(e, "error_command"), "add");
    ck_assert_str_eq(field(e, "error_exception"), "switch " S1 " is not connected");
    ck_assert_str_eq(field(json_object_object_get(e, "flow"), "id"), BENCH_FLOW_ID);
    expect_stored("?dpid=" S1, S1, 1);
}
END_TEST

START_TEST(installed_flows_are_listed)
{
    kytos_test_resp *r;
    struct json_object *sw, *flows, *f;

    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S2, BENCH_BODY), 202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    r = req("GET", FM "v2/flows/" S2, NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), S2, &sw));
    ck_assert(json_object_object_get_ex(sw, "flows", &flows));
    ck_assert_uint_eq(json_object_array_length(flows), 1);
    f = json_object_array_get_idx(flows, 0);
    ck_assert_str_eq(field(f, "switch"), S2);
    ck_assert(json_object_object_get_ex(f, "instructions", NULL));
    ck_assert(json_object_object_get_ex(f, "stats", NULL));
    kytos_test_resp_free(r);

    r = req("GET", FM "v2/flows", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), S1, NULL));
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), S3, NULL));
    kytos_test_resp_free(r);
    expect_error("GET", FM "v2/flows/00:00:00:00:00:00:00:99", NULL, 404, "Switch not found");
}
END_TEST

START_TEST(unknown_switch_is_404_dpid_not_found)
{
    kytos_test_resp *r = req("POST", FM "v2/flows/00:00:00:00:00:00:00:99", BENCH_BODY);
    struct json_object *d;
    ck_assert_uint_eq(kytos_test_resp_status(r), 404);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "description", &d));
    ck_assert_str_eq(field(d, "response"), "dpid not found.");
    kytos_test_resp_free(r);
    r = req("POST", FM "v2/flows",
            "{\"switches\":[\"00:00:00:00:00:00:00:99\"],\"flows\":[{\"priority\":1}]}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 404);
    kytos_test_resp_free(r);
}
END_TEST

/* Topology enables three switches at once and a NApp (of_lldp) posts to
 * each before flow_manager has had topology's events: each POST must find
 * its switch enabled (flow_manager asks topology), none may be told 404
 * because another's request had just asked.  Rounds, as it is a race. */
START_TEST(switches_enabled_at_once_are_found_by_each_post)
{
    static const char *const sw[] = {S1, S2, S3};
    char path[160];

    for (int round = 0; round < 10; round++) {
        for (int i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "/api/kytos/topology/v3/switches/%s/disable", sw[i]);
            ck_assert_uint_eq(status_of("POST", path, NULL), 201);
        }
        ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
        snprintf(path, sizeof path, FM "v2/flows/%s", S1);
        ck_assert_uint_eq(status_of("POST", path, BENCH_BODY), 404);   /* disabled */
        for (int i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "/api/kytos/topology/v3/switches/%s/enable", sw[i]);
            ck_assert_uint_eq(status_of("POST", path, NULL), 201);
        }
        for (int i = 0; i < 3; i++) {
            snprintf(path, sizeof path, FM "v2/flows/%s", sw[i]);
            ck_assert_msg(status_of("POST", path, BENCH_BODY) == 202, "round %d: POST on %s", round,
                          sw[i]);
        }
    }
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
}
END_TEST

/* Events that carry an older topology, handled while a request refreshes
 * its switch map, must not make it refuse a switch the refresh found
 * enabled: a thread floods kytos/topology.updated naming S3 disabled (as
 * one published just before S3 was enabled would) while S3, enabled in
 * topology, takes POSTs.  Each POST finds S3 disabled in the map, asks
 * topology, and must answer from that answer (the old code read the map
 * again after merging it, and a stale event in between made it 404). */
struct stale_flood {
    pthread_mutex_t mu;
    int stop;
    int published;
};

static void *flood_stale_topology(void *arg)
{
    struct stale_flood *f = arg;
    static const char stale[] = "{\"topology\": {\"switches\": {\"" S3 "\": "
                                "{\"enabled\": false, \"active\": true}}}}";
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(&f->mu);
        int stop = f->stop;
        pthread_mutex_unlock(&f->mu);
        if (stop)
            break;
        if (kytos_test_publish(th, "kytos/topology.updated", stale) != 0)
            break;
        pthread_mutex_lock(&f->mu);
        f->published++;
        pthread_mutex_unlock(&f->mu);
    }
    return NULL;
}

START_TEST(stale_topology_events_never_refuse_an_enabled_switch)
{
    struct stale_flood f = {.mu = PTHREAD_MUTEX_INITIALIZER};
    pthread_t t;
    int refused = 0, published;

    ck_assert_int_eq(pthread_create(&t, NULL, flood_stale_topology, &f), 0);
    for (int i = 0; i < 200; i++)
        if (status_of("POST", FM "v2/flows/" S3, BENCH_BODY) != 202)
            refused++;
    pthread_mutex_lock(&f.mu);
    f.stop = 1;
    published = f.published;
    pthread_mutex_unlock(&f.mu);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_gt(published, 0);
    ck_assert_msg(refused == 0, "%d of 200 POSTs on enabled %s refused (%d stale events)", refused,
                  S3, published);
}
END_TEST

START_TEST(disconnected_switch_is_424_unless_force)
{
    kytos_test_resp *s;
    struct json_object *list;
    const char *body = "{\"flows\":[{\"priority\":7,\"match\":{\"in_port\":2},"
                       "\"actions\":[{\"action_type\":\"output\",\"port\":3}]}]}";

    ck_assert_uint_eq(status_of("POST", "/api/kytos/simnet/v1/switches/" S2 "/disconnect", NULL),
                      200);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    expect_error("POST", FM "v2/flows/" S2, body, 424,
                 "switch 00:00:00:00:00:00:00:02 isn't connected");
    /* Kytos stores before it sends: the flow stays pending */
    expect_stored("?dpid=" S2 "&state=pending", S2, 1);
    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S2,
                                "{\"force\":true,\"flows\":[{\"priority\":8}]}"),
                      202);

    /* flow stats listing the pending flow confirm it: checked against the
     * store (no FlowMod went out, so no record), flow.added carries the
     * stored flow in as_dict() shape */
    {
        struct json_object *doc, *added;
        char stats[256];
        size_t before = kytos_test_published_count(th, "kytos/flow_manager.flow.added");
        ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
        list = stored("?dpid=" S2 "&state=pending", S2, &s);
        ck_assert_ptr_nonnull(list);
        ck_assert_uint_eq(json_object_array_length(list), 2);   /* priorities 7 and 8 */
        doc = json_object_array_get_idx(list, 0);
        if (strcmp(field(json_object_object_get(doc, "flow"), "priority"), "7") != 0)
            doc = json_object_array_get_idx(list, 1);
        ck_assert_str_eq(field(json_object_object_get(doc, "flow"), "priority"), "7");
        snprintf(stats, sizeof stats, "{\"switch\": \"%s\", \"replies_flows\": [{\"id\": \"%s\"}]}",
                 S2, field(doc, "flow_id"));
        kytos_test_resp_free(s);
        ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.flow_stats.received", stats), 0);
        ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
        expect_stored("?dpid=" S2 "&state=installed", S2, 1);
        ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.flow.added"), before + 1);
        added = json_object_object_get(kytos_test_published(th, "kytos/flow_manager.flow.added", before),
                                       "flow");
        ck_assert_str_eq(field(added, "switch"), S2);
        ck_assert_int_eq(json_object_get_int(json_object_object_get(added, "priority")), 7);
        ck_assert(json_object_object_get_ex(added, "instructions", NULL));
        ck_assert_int_eq(json_object_array_length(json_object_object_get(added, "instructions")), 1);
    }
}
END_TEST

START_TEST(bad_bodies_are_400_with_kytos_texts)
{
    static const char *const text_ct[] = {"Content-Type: text/plain", NULL};
    kytos_test_resp *r;

    expect_error("POST", FM "v2/flows/" S1, "{}", 400, "The request body doesn't have any flows");
    expect_error("POST", FM "v2/flows/" S1, "{\"flows\":[]}", 400,
                 "The request body doesn't have any flows");
    expect_error("POST", FM "v2/flows/" S1, "{\"flows\":[{}]}", 400,
                 "The request body doesn't have any flows");
    expect_error("POST", FM "v2/flows/" S1, "[1]", 400, "Invalid payload: [1]");
    expect_error("POST", FM "v2/flows/" S1, "{\"flows\":[{\"cookie_mask\":1}]}", 400,
                 "cookie_mask shouldn't be set when adding flows. flow: {'cookie_mask': 1}");
    expect_error("DELETE", FM "v2/flows/" S1, "{\"flows\":[{\"cookie\":1}]}", 400,
                 "cookie is set, cookie_mask should be set too when deleting flows.");
    expect_error("POST", FM "v2/flows/" S1, "{\"flows\":[{\"priority\":\"high\"}]}", 400,
                 "flow, priority: Input should be a valid integer");
    expect_error("POST", FM "v2/flows/" S1, "{\"flows\":[{\"priority\":70000}]}", 400,
                 "flow, priority: Input should be less than or equal to 65535");
    expect_error("POST", FM "v2/flows/" S1, "{\"flows\":[{\"match\":{\"dl_vlan\":\"x/y\"}}]}",
                 400, "flow, match, dl_vlan: Value error, must be an integer or an integer with a mask");
    /* the field's place, each level named */
    expect_error("POST", FM "v2/flows/" S1,
                 "{\"flows\":[{\"instructions\":[{\"instruction_type\":\"apply_actions\",\"actions\":[]},"
                 "{\"instruction_type\":\"apply_actions\",\"actions\":[{\"action_type\":\"set_vlan\","
                 "\"vlan_id\":5000}]}]}]}",
                 400, "flow, instructions, 1, actions, 0, vlan_id: Input should be less than or equal to 4095");
    expect_error("POST", FM "v2/flows/" S1,
                 "{\"flows\":[{\"instructions\":[{\"instruction_type\":\"write_metadata\",\"metadata\":1,"
                 "\"metadata_mask\":-1}]}]}",
                 400, "flow, instructions, 0, metadata_mask: Input should be greater than or equal to 0");
    expect_error("POST", FM "v2/flows/" S1,
                 "{\"flows\":[{\"actions\":[],\"instructions\":[],\"priority\":1}]}", 400,
                 "flow: Value error");
    expect_error("POST", FM "v2/flows", "{\"switches\":\"" S1 "\",\"flows\":[{\"priority\":1}]}",
                 400, "Switches should be in a list.");
    expect_error("POST", FM "v2/flows/" S1, "{\"flows\":[{\"priority\":1}", 400, "Invalid json");

    r = kytos_test_request_h(th, "POST", FM "v2/flows/" S1, BENCH_BODY, text_ct);
    ck_assert_uint_eq(kytos_test_resp_status(r), 415);
    kytos_test_resp_free(r);
    /* nothing was stored by the refused requests */
    r = req("GET", FM "v2/stored_flows", NULL);
    ck_assert_int_eq(json_object_object_length(kytos_test_resp_json(r)), 0);
    kytos_test_resp_free(r);
}
END_TEST

/* What of_core's Flow.from_dict raises (KeyError, TypeError) is Kytos'
 * FlowSerializerError text: the flow's repr, the exception's class and
 * str(), and a trailing space (main.py _install_flows). */
START_TEST(unserialisable_flows_are_kytos_texts)
{
    static const struct {
        const char *flow, *text;
    } cases[] = {
        {"{\"priority\":1,\"actions\":[{\"action_type\":\"bogus\"}]}",
         "It couldn't serialize flow_dict: {'priority': 1, 'actions': [{'action_type': 'bogus'}]}. "
         "Exception type: <class 'KeyError'> Error: 'bogus' "},
        {"{\"actions\":[{\"port\":1}]}",
         "It couldn't serialize flow_dict: {'actions': [{'port': 1}]}. "
         "Exception type: <class 'KeyError'> Error: None "},
        {"{\"actions\":[{\"action_type\":5}]}",
         "It couldn't serialize flow_dict: {'actions': [{'action_type': 5}]}. "
         "Exception type: <class 'KeyError'> Error: 5 "},
        {"{\"actions\":[{\"action_type\":[\"output\"]}]}",
         "It couldn't serialize flow_dict: {'actions': [{'action_type': ['output']}]}. "
         "Exception type: <class 'TypeError'> Error: unhashable type: 'list' "},
        {"{\"match\":{\"in_port\":1},\"actions\":[{\"action_type\":\"output\",\"port\":1},"
         "{\"action_type\":\"output\"}]}",
         "It couldn't serialize flow_dict: {'match': {'in_port': 1}, 'actions': [{'action_type': "
         "'output', 'port': 1}, {'action_type': 'output'}]}. Exception type: <class 'TypeError'> "
         "Error: ActionOutput.__init__() missing 1 required positional argument: 'port' "},
        {"{\"actions\":[{\"action_type\":\"output\",\"port\":1,\"queue\":2}]}",
         "It couldn't serialize flow_dict: {'actions': [{'action_type': 'output', 'port': 1, "
         "'queue': 2}]}. Exception type: <class 'TypeError'> Error: ActionOutput.__init__() got "
         "an unexpected keyword argument 'queue' "},
        {"{\"actions\":[{\"action_type\":\"pop_vlan\",\"vlan_id\":2}]}",
         "It couldn't serialize flow_dict: {'actions': [{'action_type': 'pop_vlan', 'vlan_id': 2}]}. "
         "Exception type: <class 'TypeError'> Error: ActionPopVlan.__init__() got an unexpected "
         "keyword argument 'vlan_id' "},
        {"{\"actions\":[{\"action_type\":\"push_vlan\"}]}",
         "It couldn't serialize flow_dict: {'actions': [{'action_type': 'push_vlan'}]}. "
         "Exception type: <class 'TypeError'> Error: ActionPushVlan.__init__() missing 1 required "
         "positional argument: 'tag_type' "},
        {"{\"actions\":7}",
         "It couldn't serialize flow_dict: {'actions': 7}. Exception type: <class 'TypeError'> "
         "Error: 'int' object is not iterable "},
        {"{\"priority\":3,\"instructions\":null}",
         "It couldn't serialize flow_dict: {'priority': 3, 'instructions': None}. Exception type: "
         "<class 'TypeError'> Error: 'NoneType' object is not iterable "},
        {"{\"instructions\":[{\"instruction_type\":\"goto\"}]}",
         "It couldn't serialize flow_dict: {'instructions': [{'instruction_type': 'goto'}]}. "
         "Exception type: <class 'KeyError'> Error: 'goto' "},
        {"{\"instructions\":[{\"instruction_type\":\"apply_actions\",\"actions\":[{\"action_type\":"
         "\"set_vlan\",\"vlan\":3}]}]}",
         "It couldn't serialize flow_dict: {'instructions': [{'instruction_type': 'apply_actions', "
         "'actions': [{'action_type': 'set_vlan', 'vlan': 3}]}]}. Exception type: <class "
         "'TypeError'> Error: ActionSetVlan.__init__() got an unexpected keyword argument 'vlan' "},
        /* from_dict comes before the packing of a flow's fields */
        {"{\"priority\":\"high\",\"actions\":[{\"action_type\":\"bogus\"}]}",
         "It couldn't serialize flow_dict: {'priority': 'high', 'actions': [{'action_type': "
         "'bogus'}]}. Exception type: <class 'KeyError'> Error: 'bogus' "},
    };
    char body[1024];
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(body, sizeof body, "{\"flows\":[%s]}", cases[i].flow);
        expect_exact("POST", FM "v2/flows/" S1, body, 400, cases[i].text);
    }
    /* an empty action list, an absent instruction list: nothing raised */
    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1,
                                "{\"force\":true,\"flows\":[{\"priority\":9,\"actions\":[]}]}"),
                      202);
}
END_TEST

/* A cookie (or cookie_mask) that is not a uint64 fails where Kytos packs
 * the FlowMod, with pyof's words: the field, str() of the value and its
 * Python type; packing starts with them, before table_id or priority. */
START_TEST(bad_cookies_are_pyof_pack_texts)
{
    static const struct {
        const char *method, *flow, *text;
    } cases[] = {
        {"POST", "{\"cookie\":-1}",
         "FlowMod.cookie - Expected UBInt64, found value \"-1\" of type int"},
        {"POST", "{\"cookie\":\"x\"}",
         "FlowMod.cookie - Expected UBInt64, found value \"x\" of type str"},
        {"POST", "{\"cookie\":\"12\"}",
         "FlowMod.cookie - Expected UBInt64, found value \"12\" of type str"},
        {"POST", "{\"cookie\":1.5}",
         "FlowMod.cookie - Expected UBInt64, found value \"1.5\" of type float"},
        {"POST", "{\"cookie\":1e20}",
         "FlowMod.cookie - Expected UBInt64, found value \"1e+20\" of type float"},
        {"POST", "{\"cookie\":null}",
         "FlowMod.cookie - Expected UBInt64, found value \"None\" of type NoneType"},
        {"POST", "{\"cookie\":[1,\"a\"]}",
         "FlowMod.cookie - Expected UBInt64, found value \"[1, 'a']\" of type list"},
        {"POST", "{\"cookie\":{\"a\":1}}",
         "FlowMod.cookie - Expected UBInt64, found value \"{'a': 1}\" of type dict"},
        {"POST", "{\"priority\":\"high\",\"table_id\":300,\"cookie\":-2}",
         "FlowMod.cookie - Expected UBInt64, found value \"-2\" of type int"},
        {"DELETE", "{\"cookie\":1,\"cookie_mask\":-1}",
         "FlowMod.cookie_mask - Expected UBInt64, found value \"-1\" of type int"},
        {"DELETE", "{\"cookie\":\"a\",\"cookie_mask\":\"b\"}",
         "FlowMod.cookie - Expected UBInt64, found value \"a\" of type str"},
    };
    char body[512];
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(body, sizeof body, "{\"flows\":[%s]}", cases[i].flow);
        expect_exact(cases[i].method, FM "v2/flows/" S1, body, 400, cases[i].text);
    }
}
END_TEST

/* The flows routes read their own body as Python does: an integer beyond
 * uint64 is valid JSON, refused where Kytos refuses it (the FlowMod's
 * packing) and printed as the int it is; invalid JSON and a Content-Type
 * that is not exactly application/json get Kytos' texts. */
START_TEST(big_integers_and_bodies_as_kytos_reads_them)
{
    static const char *const no_ct[] = {"Accept: */*", NULL};
    static const char *const upper_ct[] = {"Content-Type: Application/JSON", NULL};
    static const char *const charset_ct[] = {"Content-Type: application/json; charset=utf-8", NULL};
    static const char *const substr_ct[] = {"Content-Type: x-application/json", NULL};
    static const char *const text_ct[] = {"Content-Type: text/plain", NULL};
    kytos_test_resp *r;
    struct json_object *list;

    expect_exact("POST", FM "v2/flows/" S1, "{\"flows\":[{\"cookie\":18446744073709551616}]}", 400,
                 "FlowMod.cookie - Expected UBInt64, found value \"18446744073709551616\" of type "
                 "int");
    expect_exact("POST", FM "v2/flows/" S1,
                 "{\"flows\":[{\"cookie\":-99999999999999999999999,\"priority\":1}]}", 400,
                 "FlowMod.cookie - Expected UBInt64, found value \"-99999999999999999999999\" of "
                 "type int");
    expect_exact("DELETE", FM "v2/flows/" S1,
                 "{\"flows\":[{\"cookie\":1,\"cookie_mask\":36893488147419103232}]}", 400,
                 "FlowMod.cookie_mask - Expected UBInt64, found value \"36893488147419103232\" of "
                 "type int");
    expect_exact("POST", FM "v2/flows/" S1, "{\"flows\":[{\"cookie_mask\":18446744073709551616}]}",
                 400, "cookie_mask shouldn't be set when adding flows. flow: {'cookie_mask': "
                 "18446744073709551616}");
    expect_exact("POST", FM "v2/flows_by_switch",
                 "{\"" S1 "\":{\"flows\":[{\"cookie\":18446744073709551616}]}}", 400,
                 "FlowMod.cookie - Expected UBInt64, found value \"18446744073709551616\" of type "
                 "int");
    expect_exact("POST", FM "v2/flows/" S1, "{\"flows\":[{\"priority\":1}", 400,
                 "Invalid json: Expecting ',' delimiter: line 1 column 25 (char 24)");

    r = kytos_test_request_h(th, "POST", FM "v2/flows/" S1, BENCH_BODY, no_ct);
    ck_assert_uint_eq(kytos_test_resp_status(r), 415);
    ck_assert_str_eq(description(r), "Expected Content-Type: application/json, got: ");
    kytos_test_resp_free(r);
    r = kytos_test_request_h(th, "POST", FM "v2/flows/" S1, BENCH_BODY, upper_ct);
    ck_assert_uint_eq(kytos_test_resp_status(r), 415);
    ck_assert_str_eq(description(r), "Expected Content-Type: application/json, got: Application/JSON");
    kytos_test_resp_free(r);
    r = kytos_test_request_h(th, "POST", FM "v2/flows/" S1, BENCH_BODY, charset_ct);
    ck_assert_uint_eq(kytos_test_resp_status(r), 202);
    kytos_test_resp_free(r);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);

    /* stored_flows: a body only when the Content-Type mentions JSON */
    r = kytos_test_request_h(th, "GET", FM "v2/stored_flows",
                             "{\"cookie_range\":[0,99999999999999999999]}", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    list = json_object_object_get(kytos_test_resp_json(r), S1);
    ck_assert_ptr_nonnull(list);
    ck_assert_uint_eq(json_object_array_length(list), 1);
    kytos_test_resp_free(r);
    expect_exact("GET", FM "v2/stored_flows", "{\"cookie_range\":[0,1,99999999999999999999]}", 400,
                 "Expected cookies length to be even, got length [0, 1, 99999999999999999999]");
    /* the query is cast before the body is read, which is before the count */
    r = kytos_test_request_h(th, "GET", FM "v2/stored_flows?cookie_range=x", "{", substr_ct);
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_str_eq(description(r), "cookie_range ['x'] couldn't be cast as an int");
    kytos_test_resp_free(r);
    r = kytos_test_request_h(th, "GET", FM "v2/stored_flows?cookie_range=1", "{", substr_ct);
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_str_eq(description(r), "failed to decode json body");
    kytos_test_resp_free(r);
    r = kytos_test_request_h(th, "GET", FM "v2/stored_flows", "{", substr_ct);
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_str_eq(description(r), "failed to decode json body");
    kytos_test_resp_free(r);
    r = kytos_test_request_h(th, "GET", FM "v2/stored_flows", "{", text_ct);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert_ptr_nonnull(json_object_object_get(kytos_test_resp_json(r), S1));
    kytos_test_resp_free(r);
    r = kytos_test_request_h(th, "GET", FM "v2/flows", "not json", text_ct);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(cookie_uint64_round_trip_and_ranges)
{
    kytos_test_resp *s;
    struct json_object *list, *flow, *c;
    size_t len;
    const char *text;

    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S3,
                                "{\"flows\":[{\"priority\":5,\"cookie\":18446744073709551615,"
                                "\"match\":{\"in_port\":1},\"actions\":[{\"action_type\":"
                                "\"output\",\"port\":2}]},{\"priority\":6,\"cookie\":"
                                "12249790986447749120,\"match\":{\"in_port\":2}}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    list = stored("?cookie_range=18446744073709551615&cookie_range=18446744073709551615", S3, &s);
    ck_assert_ptr_nonnull(list);
    ck_assert_uint_eq(json_object_array_length(list), 1);
    ck_assert(json_object_object_get_ex(json_object_array_get_idx(list, 0), "flow", &flow));
    ck_assert(json_object_object_get_ex(flow, "cookie", &c));
    ck_assert(json_object_get_uint64(c) == UINT64_MAX);
    text = kytos_test_resp_body(s, &len);
    ck_assert_ptr_nonnull(strstr(text, "18446744073709551615"));
    kytos_test_resp_free(s);

    /* two ranges, both cookies; sorted by priority, highest first */
    list = stored("?cookie_range=12249790986447749120&cookie_range=12249790986447749120"
                  "&cookie_range=18446744073709551615&cookie_range=18446744073709551615",
                  S3, &s);
    ck_assert_uint_eq(json_object_array_length(list), 2);
    json_object_object_get_ex(json_object_array_get_idx(list, 0), "flow", &flow);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(flow, "priority")), 6);
    kytos_test_resp_free(s);

    expect_stored("?cookie_range=0&cookie_range=10", S3, 0);
}
END_TEST

/* cookie_range values go through Python's int() (main.py list_stored):
 * Kytos' texts for what int() refuses and for an odd count (which shows
 * the ints), a body's cookie_range in place of the query's, and bounds
 * outside uint64 still bound the range. */
START_TEST(cookie_range_is_cast_as_kytos_does)
{
    kytos_test_resp *s;
    struct json_object *list;
    const char *sf = FM "v2/stored_flows";

    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S3,
                                "{\"flows\":[{\"priority\":5,\"cookie\":18446744073709551615},"
                                "{\"priority\":6,\"cookie\":7}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);

    expect_exact("GET", FM "v2/stored_flows?cookie_range=1", NULL, 400,
                 "Expected cookies length to be even, got length [1]");
    expect_exact("GET", FM "v2/stored_flows?cookie_range=%2B0_1&cookie_range=-5&cookie_range=%20007",
                 NULL, 400, "Expected cookies length to be even, got length [1, -5, 7]");
    expect_exact("GET", FM "v2/stored_flows?cookie_range=a&cookie_range=2", NULL, 400,
                 "cookie_range ['a', '2'] couldn't be cast as an int");
    expect_exact("GET", FM "v2/stored_flows?cookie_range=1__0&cookie_range=2", NULL, 400,
                 "cookie_range ['1__0', '2'] couldn't be cast as an int");
    expect_exact("GET", sf, "{\"cookie_range\":5}", 400, "cookie_range 5 couldn't be cast as an int");
    expect_exact("GET", sf, "{\"cookie_range\":null}", 400,
                 "cookie_range None couldn't be cast as an int");
    expect_exact("GET", sf, "{\"cookie_range\":[1,\"x\"]}", 400,
                 "cookie_range [1, 'x'] couldn't be cast as an int");
    expect_exact("GET", sf, "{\"cookie_range\":\"1x\"}", 400,
                 "cookie_range 1x couldn't be cast as an int");
    expect_exact("GET", sf, "{\"cookie_range\":[1.9,true,\"3\"]}", 400,
                 "Expected cookies length to be even, got length [1, 1, 3]");
    /* the query's values are cast first, even when the body replaces them */
    expect_exact("GET", FM "v2/stored_flows?cookie_range=x", "{\"cookie_range\":[0,1]}", 400,
                 "cookie_range ['x'] couldn't be cast as an int");

    /* the body's list replaces the query's odd one */
    s = req("GET", FM "v2/stored_flows?cookie_range=1", "{\"cookie_range\":[7,7]}");
    ck_assert_uint_eq(kytos_test_resp_status(s), 200);
    list = json_object_object_get(kytos_test_resp_json(s), S3);
    ck_assert_ptr_nonnull(list);
    ck_assert_uint_eq(json_object_array_length(list), 1);
    kytos_test_resp_free(s);
    /* "07" as a str is two ints, 0 and 7 */
    expect_stored("?cookie_range=0&cookie_range=0", S3, 0);
    s = req("GET", sf, "{\"cookie_range\":\"07\"}");
    ck_assert_uint_eq(kytos_test_resp_status(s), 200);
    list = json_object_object_get(kytos_test_resp_json(s), S3);
    ck_assert_ptr_nonnull(list);
    ck_assert_uint_eq(json_object_array_length(list), 1);
    kytos_test_resp_free(s);
    /* bounds below 0 and above 2**64-1 */
    expect_stored("?cookie_range=-5&cookie_range=99999999999999999999999", S3, 2);
    expect_stored("?cookie_range=-5&cookie_range=-1", S3, 0);
    expect_stored("?cookie_range=18446744073709551616&cookie_range=99999999999999999999999", S3, 0);
    expect_stored("?cookie_range=8&cookie_range=99999999999999999999999", S3, 1);
}
END_TEST

START_TEST(stored_flows_filters_by_dpid_and_state)
{
    kytos_test_resp *s;

    ck_assert_uint_eq(status_of("POST", FM "v2/flows",
                                "{\"switches\":[\"" S1 "\",\"" S2 "\"],\"flows\":[{\"priority\":"
                                "3,\"match\":{\"in_port\":3}}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    s = req("GET", FM "v2/stored_flows?dpid=" S1, NULL);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(s), S1, NULL));
    ck_assert(!json_object_object_get_ex(kytos_test_resp_json(s), S2, NULL));
    kytos_test_resp_free(s);
    expect_stored("?dpid=" S1 "&dpid=" S2 "&state=installed", S2, 1);
    expect_stored("?state=deleted", S1, 0);
}
END_TEST

START_TEST(delete_soft_deletes_matching_flows)
{
    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1,
                                "{\"flows\":[{\"priority\":9,\"cookie\":12249790986447749121,"
                                "\"match\":{\"in_port\":4,\"dl_vlan\":7}},{\"priority\":9,"
                                "\"cookie\":5,\"match\":{\"in_port\":5}}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(status_of("DELETE", FM "v2/flows/" S1,
                                "{\"flows\":[{\"cookie\":12249790986447749121,"
                                "\"cookie_mask\":18446744073709551615}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    expect_stored("?state=deleted", S1, 1);
    expect_stored("?state=installed", S1, 1);
    /* a delete by match (non-strict): in_port 5 goes too */
    ck_assert_uint_eq(status_of("POST", FM "v2/delete/" S1,
                                "{\"flows\":[{\"match\":{\"in_port\":5}}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    expect_stored("?state=installed&state=pending", S1, 0);
}
END_TEST

/* A cookie masked to 0 deletes only the stored flows in its cookie range,
 * 0 .. ~mask (Kytos' delete_matched_flows), though the match test itself
 * ignores a zero masked cookie. */
START_TEST(masked_delete_keeps_cookies_outside_its_range)
{
    kytos_test_resp *s;
    struct json_object *list, *flow;

    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S2,
                                "{\"flows\":[{\"priority\":9,\"cookie\":1,\"match\":{\"in_port\":4}},"
                                "{\"priority\":8,\"cookie\":18374686479671623681,"
                                "\"match\":{\"in_port\":5}}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    /* mask 0xff00000000000000: range 0 .. 0x00ffffffffffffff */
    ck_assert_uint_eq(status_of("DELETE", FM "v2/flows/" S2,
                                "{\"flows\":[{\"cookie\":0,\"cookie_mask\":18374686479671623680}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    list = stored("?state=deleted", S2, &s);
    ck_assert_ptr_nonnull(list);
    ck_assert_uint_eq(json_object_array_length(list), 1);
    json_object_object_get_ex(json_object_array_get_idx(list, 0), "flow", &flow);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(flow, "priority")), 9);
    kytos_test_resp_free(s);
    list = stored("?state=installed", S2, &s);
    ck_assert_ptr_nonnull(list);
    ck_assert_uint_eq(json_object_array_length(list), 1);
    json_object_object_get_ex(json_object_array_get_idx(list, 0), "flow", &flow);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(flow, "priority")), 8);
    kytos_test_resp_free(s);
}
END_TEST

START_TEST(flows_by_switch_installs_on_each)
{
    kytos_test_resp *s;

    ck_assert_uint_eq(status_of("POST", FM "v2/flows_by_switch?force=true",
                                "{\"" S1 "\":{\"flows\":[{\"priority\":11}]},\"" S3
                                "\":{\"flows\":[{\"priority\":12},{\"priority\":13}]}}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(json_object_array_length(stored("?state=installed", S3, &s)), 2);
    kytos_test_resp_free(s);
}
END_TEST

/* A delete naming several switches is one store write, all or nothing:
 * mef_eline's failover deletes a batch of EVCs' flows on many switches at
 * once and waits for one commit, not one per switch.  Per switch, the
 * second switch's write here would be the one failed, after the first
 * switch's flows were marked deleted. */
START_TEST(flows_by_switch_delete_is_one_write)
{
    size_t mods;

    ck_assert_uint_eq(status_of("POST", FM "v2/flows_by_switch?force=true",
                                "{\"" S1 "\":{\"flows\":[{\"priority\":11,\"cookie\":3}]},\"" S3
                                "\":{\"flows\":[{\"priority\":12,\"cookie\":3},"
                                "{\"priority\":13,\"cookie\":4}]}}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    mods = kytos_test_published_count(th, "kytos/flow_manager.messages.out.ofpt_flow_mod");
    /* the write after the next one fails */
    ck_assert_int_eq(kytos_test_store_fail_after(th, "flows", KYTOS_EIO, 1, 1), 0);
    ck_assert_uint_eq(status_of("DELETE", FM "v2/flows_by_switch?force=true",
                                "{\"" S1 "\":{\"flows\":[{\"cookie\":3,\"cookie_mask\":18446744073709551615}]},\"" S3
                                "\":{\"flows\":[{\"cookie\":3,\"cookie_mask\":18446744073709551615}]}}"),
                      202);
    ck_assert_int_eq(kytos_test_store_fail(th, "flows", KYTOS_EIO, 0), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    expect_stored("?state=deleted", S1, 1);
    expect_stored("?state=deleted", S3, 1);
    expect_stored("?state=installed", S3, 1);   /* cookie 4 */
    /* and a FlowMod (delete) to each switch */
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.messages.out.ofpt_flow_mod"),
                      mods + 2);
    /* a failed write deletes nothing, on any switch, and sends nothing */
    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1,
                                "{\"flows\":[{\"priority\":14,\"cookie\":5}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    mods = kytos_test_published_count(th, "kytos/flow_manager.messages.out.ofpt_flow_mod");
    ck_assert_int_eq(kytos_test_store_fail(th, "flows", KYTOS_EIO, 1), 0);
    ck_assert_uint_eq(status_of("DELETE", FM "v2/flows_by_switch?force=true",
                                "{\"" S1 "\":{\"flows\":[{\"cookie\":5,\"cookie_mask\":18446744073709551615}]},\"" S3
                                "\":{\"flows\":[{\"cookie\":4,\"cookie_mask\":18446744073709551615}]}}"),
                      500);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    expect_stored("?state=installed", S1, 1);
    expect_stored("?state=installed", S3, 1);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.messages.out.ofpt_flow_mod"),
                      mods);
}
END_TEST

/* flows_by_switch's own texts, in Kytos' order (main.py
 * _get_switches_from_request_by_switch): the body's shape before force,
 * then per switch its content, its flows, its cookies, and its dpid, whose
 * 404 description is the plain string (not v2/flows' object). */
START_TEST(flows_by_switch_texts_are_kytos)
{
    kytos_test_resp *r;
    const char *bs = FM "v2/flows_by_switch";

    expect_exact("POST", bs, "[1]", 400, "Invalid payload: [1]");
    /* repr() escapes what str.isprintable() refuses (Unicode categories) */
    expect_exact("POST", bs, "[\"\\u00a0\\u0600 \\u00e9\\ud83d\\ude00\\u0378\\u2028'\"]", 400,
                 "Invalid payload: [\"\\xa0\\u0600 \xc3\xa9\xf0\x9f\x98\x80\\u0378\\u2028'\"]");
    expect_exact("POST", bs, "{}", 400, "The request body doesn't have any flows");
    expect_exact("POST", FM "v2/flows_by_switch?force=maybe", "{}", 400,
                 "The request body doesn't have any flows");
    expect_exact("POST", FM "v2/flows_by_switch?force=maybe",
                 "{\"" S1 "\":{\"flows\":[{\"priority\":1}]}}", 400,
                 "Parameter force does not have a valid value.");
    expect_exact("POST", bs, "{\"" S1 "\":[{\"priority\":1}]}", 400,
                 "The content of the switch should be an object.");
    expect_exact("POST", bs, "{\"" S1 "\":{\"flows\":[{\"priority\":1}]},\"" S2 "\":{}}", 400,
                 "The switch " S2 " in the request body doesn't have any flows");
    expect_exact("POST", bs, "{\"" S1 "\":{\"flows\":[{}]}}", 400,
                 "The switch " S1 " in the request body doesn't have any flows");
    expect_exact("POST", bs, "{\"" S1 "\":{\"flows\":[{\"cookie_mask\":1}]}}", 400,
                 "cookie_mask shouldn't be set when adding flows. flow: {'cookie_mask': 1}");
    expect_exact("POST", bs, "{\"00:00:00:00:00:00:00:99\":{\"flows\":[{\"priority\":1}]}}",
                 404, "dpid not found.");
    /* an unknown dpid is found before a later switch's bad flow is read */
    expect_exact("POST", bs,
                 "{\"00:00:00:00:00:00:00:99\":{\"flows\":[{\"priority\":1}]},"
                 "\"" S1 "\":{\"flows\":[{\"priority\":\"x\"}]}}",
                 404, "dpid not found.");
    /* nothing was stored by the refused requests */
    r = req("GET", FM "v2/stored_flows", NULL);
    ck_assert_int_eq(json_object_object_length(kytos_test_resp_json(r)), 0);
    kytos_test_resp_free(r);
}
END_TEST

/* A store that fails the write: 500, nothing stored, nothing sent. */
START_TEST(store_failure_is_500_and_sends_nothing)
{

    ck_assert_int_eq(kytos_test_store_fail(th, "flows", KYTOS_EIO, 1), 0);
    expect_error("POST", FM "v2/flows/" S1, BENCH_BODY, 500, "Failed to store flows: injected failure");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.messages.out.ofpt_flow_mod"), 0);
    expect_stored("", S1, 0);
    /* the next one is stored and confirmed */
    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1, BENCH_BODY), 202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    expect_stored("?state=installed", S1, 1);
}
END_TEST

struct bg_request {
    pthread_t th;
    const char *method, *path, *body;
    unsigned status;
};

static void *bg_request_run(void *p)
{
    struct bg_request *b = p;
    kytos_test_resp *r = kytos_test_request(th, b->method, b->path, b->body);
    b->status = r ? kytos_test_resp_status(r) : 0;
    kytos_test_resp_free(r);
    return NULL;
}

/* A confirmation decided from the store (flow stats) while a DELETE of the
 * flow is queued but not committed: the store still says "pending", but
 * the acknowledged delete must stand, not be overwritten by "installed". */
START_TEST(stats_confirmation_never_overwrites_a_queued_delete)
{
    kytos_test_resp *s;
    struct json_object *list;
    char stats[256];
    struct bg_request del = {.method = "DELETE", .path = FM "v2/flows/" S2,
                             .body = "{\"force\":true,\"flows\":[{\"match\":{\"in_port\":2}}]}"};

    ck_assert_uint_eq(status_of("POST", "/api/kytos/simnet/v1/switches/" S2 "/disconnect", NULL), 200);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S2,
                                "{\"flows\":[{\"priority\":7,\"match\":{\"in_port\":2}}]}"),
                      424);   /* stored pending, not sent */
    list = stored("?state=pending", S2, &s);
    ck_assert_ptr_nonnull(list);
    ck_assert_uint_eq(json_object_array_length(list), 1);
    snprintf(stats, sizeof stats, "{\"switch\": \"%s\", \"replies_flows\": [{\"id\": \"%s\"}]}", S2,
             field(json_object_array_get_idx(list, 0), "flow_id"));
    kytos_test_resp_free(s);

    kytos_test_store_hold(th, 1);
    ck_assert_int_eq(pthread_create(&del.th, NULL, bg_request_run, &del), 0);
    ck_assert_int_eq(kytos_test_store_await_queued(th, 1, 10000), 0);   /* the delete's write */
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.flow_stats.received", stats), 0);
    /* whatever the confirmation queues behind it */
    ck_assert_int_eq(kytos_test_store_await_queued(th, 2, 10000), 0);
    kytos_test_store_hold(th, 0);
    ck_assert_int_eq(pthread_join(del.th, NULL), 0);
    ck_assert_uint_eq(del.status, 202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    expect_stored("?state=deleted", S2, 1);   /* (else the acknowledged delete was lost) */
    expect_stored("?state=installed&state=pending", S2, 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/flow_manager.flow.added"), 0);
}
END_TEST

/* Kytos' consistency check, its "missing" half: the first flow stats after
 * a switch's handshake that lack a stored flow send it again (an ADD; the
 * stored flow stays the one, installed); stats that list it, or come before the interval is
 * over, send nothing. */
START_TEST(consistency_check_sends_a_missing_flow_again_once)
{
    static const char flow_mod[] = "kytos/flow_manager.messages.out.ofpt_flow_mod";
    kytos_test_resp *s;
    struct json_object *list;
    char stats[256], fid[64];
    size_t n0;

    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1,
                                "{\"flows\":[{\"priority\":9,\"match\":{\"in_port\":3}}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    list = stored("?state=installed", S1, &s);
    ck_assert_ptr_nonnull(list);
    ck_assert_uint_eq(json_object_array_length(list), 1);
    snprintf(fid, sizeof fid, "%s", field(json_object_array_get_idx(list, 0), "flow_id"));
    kytos_test_resp_free(s);

    /* the switch reconnects and its stats list the flow: nothing to do */
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.handshake.completed",
                                        "{\"switch\": \"" S1 "\"}"), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    n0 = kytos_test_published_count(th, flow_mod);
    snprintf(stats, sizeof stats, "{\"switch\": \"%s\", \"replies_flows\": [{\"id\": \"%s\"}]}", S1,
             fid);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.flow_stats.received", stats), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, flow_mod), n0);

    /* it reconnects without the flow: sent again, once */
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.handshake.completed",
                                        "{\"switch\": \"" S1 "\"}"), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    snprintf(stats, sizeof stats, "{\"switch\": \"%s\", \"replies_flows\": []}", S1);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.flow_stats.received", stats), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, flow_mod), n0 + 1);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.flow_stats.received", stats), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, flow_mod), n0 + 1);   /* not due yet */

    list = stored("?state=installed", S1, &s);
    ck_assert_uint_eq(json_object_array_length(list), 1);
    ck_assert_str_eq(field(json_object_array_get_idx(list, 0), "flow_id"), fid);
    kytos_test_resp_free(s);
}
END_TEST

/* Put a flow on a simulated switch behind flow_manager's back (nothing
 * stored): an add FlowMod straight to simnet, as `ovs-ofctl add-flow`. */
static void sim_add_alien(const char *dpid, const char *flow_json)
{
    char ev[1024];
    snprintf(ev, sizeof ev,
             "{\"destination\": \"%s\", \"xid\": 1, \"command\": \"add\", \"flow\": %s}", dpid,
             flow_json);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/flow_manager.messages.out.ofpt_flow_mod", ev),
                     0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
}

/* simnet's flows on dpid with that priority (match_in_port >= 0: and that in_port). */
static size_t sim_flows_with(const char *dpid, int priority, int match_in_port)
{
    char path[128];
    kytos_test_resp *r;
    struct json_object *sw, *flows;
    size_t i, n = 0;

    snprintf(path, sizeof path, "/api/kytos/simnet/v1/flows/%s", dpid);
    r = req("GET", path, NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), dpid, &sw));
    ck_assert(json_object_object_get_ex(sw, "flows", &flows));
    for (i = 0; i < json_object_array_length(flows); i++) {
        struct json_object *f = json_object_array_get_idx(flows, i);
        if (atoi(field(f, "priority")) == priority &&
            (match_in_port < 0 ||
             atoi(field(json_object_object_get(f, "match"), "in_port")) == match_in_port))
            n++;
    }
    kytos_test_resp_free(r);
    return n;
}

/* The delete_strict FlowMods published since the first `from` FlowMods. */
static size_t strict_deletes_since(size_t from, struct json_object **last)
{
    static const char flow_mod[] = "kytos/flow_manager.messages.out.ofpt_flow_mod";
    size_t i, n = 0, total = kytos_test_published_count(th, flow_mod);

    for (i = from; i < total; i++) {
        struct json_object *e = kytos_test_published(th, flow_mod, i);
        if (strcmp(field(e, "command"), "delete_strict") == 0) {
            n++;
            if (last)
                *last = e;
        }
    }
    return n;
}

/* Kytos' consistency check, its "alien" half: a flow the switch's complete
 * flow stats list and the store does not hold is deleted with one
 * DELETE_STRICT of that flow (match, priority, table, cookie; owner alien;
 * nothing stored); flows whose cookie or table is in the ignored ranges
 * stay, and so do the stored ones.  Nothing is deleted before the stats. */
START_TEST(consistency_check_deletes_alien_flows)
{
    static const char flow_mod[] = "kytos/flow_manager.messages.out.ofpt_flow_mod";
    struct json_object *del = NULL, *flow, *match;
    kytos_test_resp *s;
    size_t n0;

    /* a stored flow, installed */
    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1,
                                "{\"flows\":[{\"priority\":9,\"match\":{\"in_port\":3},"
                                "\"actions\":[{\"action_type\":\"output\",\"port\":1}]}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    expect_stored("?state=installed", S1, 1);
    ck_assert_uint_eq(sim_flows_with(S1, 9, 3), 1);

    /* aliens: one to delete, one with an ignored cookie (in a range, and
     * alone), one in an ignored table */
    sim_add_alien(S1, "{\"priority\": 20, \"table_id\": 0, \"cookie\": 77, \"match\": "
                      "{\"in_port\": 2, \"dl_vlan\": 300}, \"instructions\": []}");
    sim_add_alien(S1, "{\"priority\": 21, \"table_id\": 0, \"cookie\": 5000, \"match\": "
                      "{\"in_port\": 2}, \"instructions\": []}");
    sim_add_alien(S1, "{\"priority\": 22, \"table_id\": 0, \"cookie\": 65536, \"match\": "
                      "{\"in_port\": 2}, \"instructions\": []}");
    sim_add_alien(S1, "{\"priority\": 23, \"table_id\": 7, \"cookie\": 77, \"match\": "
                      "{\"in_port\": 2}, \"instructions\": []}");
    ck_assert_uint_eq(sim_flows_with(S1, 20, 2), 1);

    /* before any flow stats (a handshake alone included): nothing deleted */
    n0 = kytos_test_published_count(th, flow_mod);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.handshake.completed",
                                        "{\"switch\": \"" S1 "\"}"), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(strict_deletes_since(n0, NULL), 0);

    /* the stats of every switch: one DELETE_STRICT, the alien's */
    s = req("POST", "/api/kytos/simnet/v1/flow_stats", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(s), 200);
    kytos_test_resp_free(s);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(strict_deletes_since(n0, &del), 1);
    ck_assert_str_eq(field(del, "destination"), S1);
    flow = json_object_object_get(del, "flow");
    ck_assert_str_eq(field(flow, "priority"), "20");
    ck_assert_str_eq(field(flow, "table_id"), "0");
    ck_assert_str_eq(field(flow, "cookie"), "77");
    match = json_object_object_get(flow, "match");
    ck_assert_str_eq(field(match, "in_port"), "2");
    ck_assert_str_eq(field(match, "dl_vlan"), "300");
    /* no other FlowMod: the stored flow is on the switch, not sent again */
    ck_assert_uint_eq(kytos_test_published_count(th, flow_mod), n0 + 1);

    /* on the switch: the alien gone, the ignored ones and the stored one kept */
    ck_assert_uint_eq(sim_flows_with(S1, 20, -1), 0);
    ck_assert_uint_eq(sim_flows_with(S1, 21, 2), 1);
    ck_assert_uint_eq(sim_flows_with(S1, 22, 2), 1);
    ck_assert_uint_eq(sim_flows_with(S1, 23, 2), 1);
    ck_assert_uint_eq(sim_flows_with(S1, 9, 3), 1);
    /* Kytos keeps no record of an alien flow */
    expect_stored("", S1, 1);
    expect_stored("?state=installed", S1, 1);
}
END_TEST

/* The documents of coll that the store parsed to match a filter in C
 * (core/status: store.match_parses). */
static int64_t match_parses(const char *coll)
{
    kytos_test_resp *r = req("GET", "/api/kytos/core/status/", NULL);
    struct json_object *store, *mp, *v;
    int64_t n;

    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "store", &store));
    ck_assert(json_object_object_get_ex(store, "match_parses", &mp));
    n = json_object_object_get_ex(mp, coll, &v) ? json_object_get_int64(v) : 0;
    kytos_test_resp_free(r);
    return n;
}

/* Soft-deleted flows pile up with every change of path.  The check reads
 * a switch's flows that are not deleted, and of the deleted ones only
 * those written since its verdict time: the older ones are not even
 * parsed, however many there are.  An old deletion still spares nothing:
 * its flow found on the switch again is an alien, deleted. */
START_TEST(consistency_check_skips_old_deletions)
{
    kytos_test_resp *s;
    struct json_object *del = NULL;
    char body[4096];
    size_t n0, o = 0;
    int64_t p0;
    int i;

    o += (size_t)snprintf(body + o, sizeof body - o, "{\"flows\":[");
    for (i = 1; i <= 20; i++)
        o += (size_t)snprintf(body + o, sizeof body - o,
                              "%s{\"priority\":40,\"cookie\":%d,\"match\":{\"in_port\":%d}}",
                              i > 1 ? "," : "", 1000 + i, i);
    snprintf(body + o, sizeof body - o, "]}");
    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1, body), 202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(status_of("POST", FM "v2/delete/" S1, "{\"flows\":[{\"priority\":40}]}"), 202);
    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1,
                                "{\"flows\":[{\"priority\":9,\"match\":{\"in_port\":3}}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    expect_stored("?state=deleted", S1, 20);
    expect_stored("?state=installed", S1, 1);
    ck_assert_uint_eq(sim_flows_with(S1, 40, -1), 0);
    /* one of them back on the switch, behind flow_manager's back */
    sim_add_alien(S1, "{\"priority\": 40, \"table_id\": 0, \"cookie\": 1001, \"match\": "
                      "{\"in_port\": 1}, \"instructions\": []}");

    /* the first stats after a handshake: verdict now, after every deletion */
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.handshake.completed",
                                        "{\"switch\": \"" S1 "\"}"), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    n0 = kytos_test_published_count(th, "kytos/flow_manager.messages.out.ofpt_flow_mod");
    p0 = match_parses("flows");
    s = req("POST", "/api/kytos/simnet/v1/flow_stats", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(s), 200);
    kytos_test_resp_free(s);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    /* the installed flow alone was parsed, none of the 20 deleted */
    ck_assert_int_eq(match_parses("flows") - p0, 1);
    ck_assert_uint_eq(strict_deletes_since(n0, &del), 1);
    ck_assert_str_eq(field(json_object_object_get(del, "flow"), "cookie"), "1001");
    ck_assert_uint_eq(sim_flows_with(S1, 40, -1), 0);
    ck_assert_uint_eq(sim_flows_with(S1, 9, 3), 1);
    expect_stored("?state=deleted", S1, 20);
}
END_TEST

/* A malformed ignored-range list is ignored whole, as Kytos'
 * _valid_consistency_ignored: [[10, 5], 77] spares not even cookie 77. */
START_TEST(malformed_ignored_range_is_ignored_whole)
{
    static const char bad_conf[] = "[kytos/topology]\n"
                                   "link_up_timer = 0\n"
                                   "[kytos/simnet]\n"
                                   "flow_stats_interval = 0\n"
                                   "[kytos/flow_manager]\n"
                                   "consistency_cookie_ignored_range = [[10, 5], 77]\n";
    struct json_object *del = NULL;
    kytos_test_resp *s;
    size_t n0;

    kytos_test_host_free(th);
    host_with(bad_conf);

    sim_add_alien(S2, "{\"priority\": 20, \"cookie\": 77, \"match\": {\"in_port\": 2}, "
                      "\"instructions\": []}");
    n0 = kytos_test_published_count(th, "kytos/flow_manager.messages.out.ofpt_flow_mod");
    s = req("POST", "/api/kytos/simnet/v1/flow_stats", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(s), 200);
    kytos_test_resp_free(s);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(strict_deletes_since(n0, &del), 1);
    ck_assert_str_eq(field(json_object_object_get(del, "flow"), "cookie"), "77");
    ck_assert_uint_eq(sim_flows_with(S2, 20, -1), 0);
}
END_TEST

/* ---- soft-deleted flows purged (purge.c), on a host of their own ---- */

static void setup_purge(void)
{
    static const char purge_conf[] = "[kytos/topology]\n"
                                     "link_up_timer = 0\n"
                                     "[kytos/simnet]\n"
                                     "flow_stats_interval = 0\n"
                                     "[kytos/flow_manager]\n"
                                     /* 3 s: a deleted flow cannot be purged before
                                      * a test has looked at it and held the store */
                                     "purge_deleted_flows_after = 3\n";
    host_with(purge_conf);
}

/* How many stored flows of dpid the query lists. */
static size_t stored_count(const char *query, const char *dpid)
{
    kytos_test_resp *s;
    struct json_object *list = stored(query, dpid, &s);
    size_t n = list ? json_object_array_length(list) : 0;

    kytos_test_resp_free(s);
    return n;
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Until dpid has no deleted flow stored (at most 20 s): the purge runs on a
 * timer, which kytos_test_drain() does not wait for. */
static void await_no_deleted(const char *dpid)
{
    double t0;

    for (t0 = mono_s(); stored_count("?state=deleted", dpid) && mono_s() - t0 < 20;) {
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);   /* between two looks */
        ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    }
    ck_assert_uint_eq(stored_count("?state=deleted", dpid), 0);
}

/* Deleted flows older than purge_deleted_flows_after (3 s here; the timer
 * then ticks every second) leave the store; installed ones stay, and a
 * purged flow posted again is stored anew. */
START_TEST(old_deleted_flows_are_purged)
{
    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1,
                                "{\"flows\":[{\"priority\":50,\"match\":{\"in_port\":1}},"
                                "{\"priority\":50,\"match\":{\"in_port\":2}},"
                                "{\"priority\":51,\"match\":{\"in_port\":3}}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(status_of("POST", FM "v2/delete/" S1,
                                "{\"flows\":[{\"match\":{\"in_port\":1}},{\"match\":{\"in_port\":2}}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(stored_count("?state=deleted", S1), 2);
    await_no_deleted(S1);   /* within a few ticks (3 s old, to the second) */
    ck_assert_uint_eq(stored_count("?state=installed", S1), 1);
    ck_assert_uint_eq(sim_flows_with(S1, 51, 3), 1);
    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1,
                                "{\"flows\":[{\"priority\":50,\"match\":{\"in_port\":1}}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(stored_count("?state=installed", S1), 2);
}
END_TEST

/* A flow deleted long ago and posted again while the purge is at work:
 * the purge found it deleted and old and waits for the writes queued
 * before (the store held), the post's write comes behind that wait.  The
 * flow stays (its latest write is no longer the one the purge saw, or the
 * purge's second read finds it pending); the other old deleted flow of the
 * batch goes. */
START_TEST(purge_spares_a_flow_posted_again)
{
    struct bg_request again = {.method = "POST", .path = FM "v2/flows/" S1,
                               .body = "{\"flows\":[{\"priority\":60,\"match\":{\"in_port\":1}}]}"};

    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S1,
                                "{\"flows\":[{\"priority\":60,\"match\":{\"in_port\":1}},"
                                "{\"priority\":60,\"match\":{\"in_port\":2}}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(status_of("POST", FM "v2/delete/" S1,
                                "{\"flows\":[{\"match\":{\"in_port\":1}},{\"match\":{\"in_port\":2}}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(stored_count("?state=deleted", S1), 2);

    kytos_test_store_hold(th, 1);
    /* nothing else writes: the first queued write is the purge's wait, once
     * both are 3 s old (within five) */
    ck_assert_int_eq(kytos_test_store_await_queued(th, 1, 20000), 0);
    ck_assert_int_eq(pthread_create(&again.th, NULL, bg_request_run, &again), 0);
    ck_assert_int_eq(kytos_test_store_await_queued(th, 2, 10000), 0);   /* the post's */
    kytos_test_store_hold(th, 0);
    ck_assert_int_eq(pthread_join(again.th, NULL), 0);
    ck_assert_uint_eq(again.status, 202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(stored_count("?state=installed&state=pending", S1), 1);
    ck_assert_uint_eq(sim_flows_with(S1, 60, 1), 1);
    await_no_deleted(S1);   /* in_port 2: purged */
    ck_assert_uint_eq(stored_count("?state=installed&state=pending", S1), 1);
}
END_TEST

/* The other order: the post's write is queued (the store held) before the
 * purge looks, so the purge's first read still finds the flow deleted, and
 * old.  The flow stays, pending (its switch is disconnected: 424, stored,
 * not sent); the other old deleted flow goes.  (Both guards of purge.c
 * hold here: its second read finds the flow pending, and the post's answer
 * gave the flow a newer generation than the purge's snapshot.) */
START_TEST(purge_spares_a_flow_posted_before_it_looked)
{
    struct bg_request again = {.method = "POST", .path = FM "v2/flows/" S2,
                               .body = "{\"flows\":[{\"priority\":60,\"match\":{\"in_port\":1}}]}"};
    int64_t p0;
    double t0;

    ck_assert_uint_eq(status_of("POST", FM "v2/flows/" S2,
                                "{\"flows\":[{\"priority\":60,\"match\":{\"in_port\":1}},"
                                "{\"priority\":60,\"match\":{\"in_port\":2}}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(status_of("POST", "/api/kytos/simnet/v1/switches/" S2 "/disconnect", NULL), 200);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(status_of("DELETE", FM "v2/flows/" S2,
                                "{\"force\":true,\"flows\":[{\"match\":{\"in_port\":1}},"
                                "{\"match\":{\"in_port\":2}}]}"),
                      202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(stored_count("?state=deleted", S2), 2);
    p0 = match_parses("flows");

    kytos_test_store_hold(th, 1);
    ck_assert_int_eq(pthread_create(&again.th, NULL, bg_request_run, &again), 0);
    ck_assert_int_eq(kytos_test_store_await_queued(th, 1, 10000), 0);   /* the post's */
    /* the purge's first read parsed both (young ones it does not parse) */
    for (t0 = mono_s(); match_parses("flows") - p0 < 2 && mono_s() - t0 < 20;)
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);   /* between two looks */
    ck_assert_int_ge(match_parses("flows") - p0, 2);
    kytos_test_store_hold(th, 0);
    ck_assert_int_eq(pthread_join(again.th, NULL), 0);
    ck_assert_uint_eq(again.status, 424);   /* stored pending, not sent */
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(stored_count("?state=pending", S2), 1);
    await_no_deleted(S2);   /* in_port 2: purged */
    ck_assert_uint_eq(stored_count("?state=pending", S2), 1);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("flow_manager");
    TCase *tc = tcase_create("napp");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, post_202_stores_with_kytos_ids_and_gets_installed);
    tcase_add_test(tc, installed_flows_are_listed);
    tcase_add_test(tc, switch_errors_become_flow_error);
    tcase_add_test(tc, unknown_switch_is_404_dpid_not_found);
    tcase_add_test(tc, switches_enabled_at_once_are_found_by_each_post);
    tcase_add_test(tc, stale_topology_events_never_refuse_an_enabled_switch);
    tcase_add_test(tc, disconnected_switch_is_424_unless_force);
    tcase_add_test(tc, bad_bodies_are_400_with_kytos_texts);
    tcase_add_test(tc, cookie_uint64_round_trip_and_ranges);
    tcase_add_test(tc, stored_flows_filters_by_dpid_and_state);
    tcase_add_test(tc, delete_soft_deletes_matching_flows);
    tcase_add_test(tc, masked_delete_keeps_cookies_outside_its_range);
    tcase_add_test(tc, flows_by_switch_installs_on_each);
    tcase_add_test(tc, flows_by_switch_delete_is_one_write);
    tcase_add_test(tc, flows_by_switch_texts_are_kytos);
    tcase_add_test(tc, cookie_range_is_cast_as_kytos_does);
    tcase_add_test(tc, unserialisable_flows_are_kytos_texts);
    tcase_add_test(tc, bad_cookies_are_pyof_pack_texts);
    tcase_add_test(tc, big_integers_and_bodies_as_kytos_reads_them);
    tcase_add_test(tc, store_failure_is_500_and_sends_nothing);
    tcase_add_test(tc, stats_confirmation_never_overwrites_a_queued_delete);
    tcase_add_test(tc, consistency_check_sends_a_missing_flow_again_once);
    tcase_add_test(tc, consistency_check_deletes_alien_flows);
    tcase_add_test(tc, consistency_check_skips_old_deletions);
    tcase_add_test(tc, malformed_ignored_range_is_ignored_whole);
    suite_add_tcase(s, tc);
    tc = tcase_create("purge");
    tcase_add_checked_fixture(tc, setup_purge, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, old_deleted_flows_are_purged);
    tcase_add_test(tc, purge_spares_a_flow_posted_again);
    tcase_add_test(tc, purge_spares_a_flow_posted_before_it_looked);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
