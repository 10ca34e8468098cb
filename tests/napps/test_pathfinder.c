/* tests/napps/test_pathfinder.c - kytos/pathfinder.
 *
 * Through the in-process test host over simnet's 4-switch mesh (topology,
 * simnet, pathfinder): Kytos' order of paths and its costs by hop, delay and
 * priority, deterministic ties, dpid and interface ends, spf_max_paths,
 * spf_max_path_cost, undesired_links, mandatory and flexible metrics with
 * minimum_flexible_hits (Kytos' combination rule), not_ownership, the 400s
 * (OpenAPI and Python's TypeErrors), a link going down, mef_eline's dynamic
 * paths honouring primary_constraints and secondary_constraints, and large
 * networks (a 24-switch full mesh, a 200-switch ring) answering within the
 * work budget.  Then the search alone (graph.c, ksp.c linked in): random
 * small graphs against every simple path enumerated and sorted, and a random
 * 200-switch network whose search stays within a bounded work count. */
#include "check_tap.h"
#include "await.h"
#include "../../plugins/pathfinder/pf.h"
#include <kytos/kytos.h>
#include <kytos/test.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S1 "00:00:00:00:00:00:00:01"
#define S2 "00:00:00:00:00:00:00:02"
#define S3 "00:00:00:00:00:00:00:03"
#define S4 "00:00:00:00:00:00:00:04"
#define PF "/api/kytos/pathfinder/v3/"
#define TOPO "/api/kytos/topology/v3/"

/* simnet's mesh of 4 with one host port each: s<i>:1 the host, then one
 * port per link in order (1-2, 1-3, 1-4, 2-3, 2-4, 3-4) */
#define P1 S1 ":1," S1 "," S1 ":4," S4 ":2," S4 "," S4 ":1"
#define P2 S1 ":1," S1 "," S1 ":2," S2 ":2," S2 "," S2 ":4," S4 ":3," S4 "," S4 ":1"
#define P3 S1 ":1," S1 "," S1 ":3," S3 ":2," S3 "," S3 ":4," S4 ":4," S4 "," S4 ":1"
#define P4 S1 ":1," S1 "," S1 ":2," S2 ":2," S2 "," S2 ":3," S3 ":3," S3 "," S3 ":4," S4 ":4," S4 "," S4 ":1"
#define P5 S1 ":1," S1 "," S1 ":3," S3 ":2," S3 "," S3 ":3," S2 ":3," S2 "," S2 ":4," S4 ":3," S4 "," S4 ":1"

static kytos_test_host *th;

static const char mesh4[] = "[kytos/topology]\nlink_up_timer = 0\n"
                            "[kytos/simnet]\nshape = \"mesh\"\nswitches = 4\nhost_ports = 1\n"
                            "flow_stats_interval = 0\n";

static kytos_test_host *host_with(const char *conf, const char *const *napps, size_t n,
                                  unsigned drain_ms)
{
    struct kytos_test_opts o = {.struct_size = sizeof o, .conf_text = conf};
    char path[512];
    kytos_test_host *h = kytos_test_host_new(&o);

    ck_assert_ptr_nonnull(h);
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s.so", NAPP_DIR, napps[i]);
        ck_assert_msg(kytos_test_load(h, path) == 0, "%s: %s", napps[i], kytos_test_last_error(h));
    }
    ck_assert_int_eq(kytos_test_start(h), 0);
    ck_assert_int_eq(kytos_test_drain(h, drain_ms), 0);
    return h;
}

static kytos_test_host *host_conf(const char *conf, unsigned drain_ms)
{
    static const char *const napps[] = {"topology", "pathfinder", "simnet"};
    return host_with(conf, napps, 3, drain_ms);
}

static void setup(void) { th = host_conf(mesh4, 10000); }

static void teardown(void)
{
    kytos_test_host_free(th);
    th = NULL;
}

/* POST v3/ expecting status; the response (caller frees). */
static kytos_test_resp *ask(const char *body, unsigned status)
{
    kytos_test_resp *r = kytos_test_request(th, "POST", PF, body);
    size_t len;
    ck_assert_ptr_nonnull(r);
    ck_assert_msg(kytos_test_resp_status(r) == status, "%s: status %u, want %u: %s", body,
                  kytos_test_resp_status(r), status, kytos_test_resp_body(r, &len));
    return r;
}

/* The paths as "cost:hop,hop|cost:hop..." (costs as JSON prints them). */
static void paths_text(struct json_object *ans, char *buf, size_t cap)
{
    struct json_object *paths;
    size_t off = 0;

    buf[0] = '\0';
    ck_assert(json_object_object_get_ex(ans, "paths", &paths));
    for (size_t i = 0; i < json_object_array_length(paths); i++) {
        struct json_object *p = json_object_array_get_idx(paths, i), *hops, *cost;
        ck_assert(json_object_object_get_ex(p, "hops", &hops));
        ck_assert(json_object_object_get_ex(p, "cost", &cost));
        off += (size_t)snprintf(buf + off, cap - off, "%s%s:", i ? "|" : "",
                                json_object_to_json_string(cost));
        for (size_t h = 0; h < json_object_array_length(hops); h++)
            off += (size_t)snprintf(buf + off, cap - off, "%s%s", h ? "," : "",
                                    json_object_get_string(json_object_array_get_idx(hops, h)));
        ck_assert_uint_lt(off, cap);
    }
}

static void expect_paths(const char *body, const char *want)
{
    static char got[16384];
    kytos_test_resp *r = ask(body, 200);
    paths_text(kytos_test_resp_json(r), got, sizeof got);
    ck_assert_msg(strcmp(got, want) == 0, "%s:\n got  %s\n want %s", body, got, want);
    kytos_test_resp_free(r);
}

static void expect_error(const char *body, const char *description)
{
    kytos_test_resp *r = ask(body, 400);
    struct json_object *d;
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "description", &d));
    if (description)
        ck_assert_msg(strstr(json_object_get_string(d), description), "%s: got %s, want %s", body,
                      json_object_get_string(d), description);
    kytos_test_resp_free(r);
}

/* The id of the link between two interfaces (topology's GET v3/links). */
static void link_id(const char *a, const char *b, char *out, size_t cap)
{
    kytos_test_resp *r = kytos_test_request(th, "GET", TOPO "links", NULL);
    struct json_object *links;
    out[0] = '\0';
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "links", &links));
    json_object_object_foreach(links, id, l) {
        const char *x = json_object_get_string(json_object_object_get(json_object_object_get(l, "endpoint_a"), "id"));
        const char *y = json_object_get_string(json_object_object_get(json_object_object_get(l, "endpoint_b"), "id"));
        if ((strcmp(x, a) == 0 && strcmp(y, b) == 0) || (strcmp(x, b) == 0 && strcmp(y, a) == 0))
            snprintf(out, cap, "%s", id);
    }
    kytos_test_resp_free(r);
    ck_assert_msg(out[0], "no link %s - %s", a, b);
}

static void set_metadata(const char *link, const char *md)
{
    char path[256];
    kytos_test_resp *r;
    snprintf(path, sizeof path, TOPO "links/%s/metadata", link);
    r = kytos_test_request(th, "POST", path, md);
    ck_assert_uint_eq(kytos_test_resp_status(r), 201);
    kytos_test_resp_free(r);
}

static char L12[80], L13[80], L14[80], L23[80], L24[80], L34[80];

static void mesh_links(void)
{
    link_id(S1 ":2", S2 ":2", L12, sizeof L12);
    link_id(S1 ":3", S3 ":2", L13, sizeof L13);
    link_id(S1 ":4", S4 ":2", L14, sizeof L14);
    link_id(S2 ":3", S3 ":3", L23, sizeof L23);
    link_id(S2 ":4", S4 ":3", L24, sizeof L24);
    link_id(S3 ":4", S4 ":4", L34, sizeof L34);
}

#define FROM_1_TO_4 "\"source\":\"" S1 ":1\",\"destination\":\"" S4 ":1\""

START_TEST(hop_paths_come_in_kytos_order_ties_by_hop_ids)
{
    /* default k = 2; a path over N switches costs 3N - 1 */
    expect_paths("{" FROM_1_TO_4 "}", "5:" P1 "|8:" P2);
    /* every simple path: equal costs ordered by their hop ids */
    expect_paths("{" FROM_1_TO_4 ",\"spf_max_paths\":10}",
                 "5:" P1 "|8:" P2 "|8:" P3 "|11:" P4 "|11:" P5);
    expect_paths("{" FROM_1_TO_4 ",\"spf_max_paths\":1,\"spf_attribute\":\"hop\"}", "5:" P1);
    /* the deprecated "parameter" is ignored */
    expect_paths("{" FROM_1_TO_4 ",\"spf_max_paths\":1,\"parameter\":\"delay\"}", "5:" P1);
    /* switches as ends */
    expect_paths("{\"source\":\"" S1 "\",\"destination\":\"" S4 "\",\"spf_max_paths\":1}",
                 "3:" S1 "," S1 ":4," S4 ":2," S4);
    /* the same node: itself, cost 0 */
    expect_paths("{\"source\":\"" S2 "\",\"destination\":\"" S2 "\"}", "0:" S2);
    /* unknown ends: no path */
    expect_paths("{\"source\":\"" S1 ":1\",\"destination\":\"00:00:00:00:00:00:00:09:1\"}", "");
    expect_paths("{\"source\":\"nothing\",\"destination\":\"" S4 "\"}", "");
}
END_TEST

START_TEST(max_path_cost_and_undesired_links)
{
    mesh_links();
    expect_paths("{" FROM_1_TO_4 ",\"spf_max_paths\":10,\"spf_max_path_cost\":8}",
                 "5:" P1 "|8:" P2 "|8:" P3);
    expect_paths("{" FROM_1_TO_4 ",\"spf_max_paths\":10,\"spf_max_path_cost\":4.5}", "");
    {
        char body[512];
        snprintf(body, sizeof body, "{" FROM_1_TO_4 ",\"undesired_links\":[\"%s\"]}", L14);
        expect_paths(body, "8:" P2 "|8:" P3);
        snprintf(body, sizeof body,
                 "{" FROM_1_TO_4 ",\"spf_max_paths\":10,\"undesired_links\":[\"%s\",\"%s\"]}", L14, L12);
        expect_paths(body, "8:" P3 "|11:" P5);
    }
    /* unknown link ids are ignored */
    expect_paths("{" FROM_1_TO_4 ",\"spf_max_paths\":1,\"undesired_links\":[\"nope\"]}", "5:" P1);
}
END_TEST

START_TEST(delay_and_priority_weights)
{
    char body[512];

    mesh_links();
    set_metadata(L14, "{\"delay\": 10, \"priority\": null}");
    set_metadata(L12, "{\"delay\": 2.5}");
    /* P3 all 1s: 8; P2 7 + 2.5; P5 11; P4 10 + 2.5; P1 4 + 10 */
    expect_paths("{" FROM_1_TO_4 ",\"spf_attribute\":\"delay\",\"spf_max_paths\":10}",
                 "8:" P3 "|9.5:" P2 "|11:" P5 "|12.5:" P4 "|14:" P1);
    expect_paths("{" FROM_1_TO_4 ",\"spf_attribute\":\"delay\",\"spf_max_paths\":2,"
                 "\"spf_max_path_cost\":9}", "8:" P3);
    /* a null weight: networkx leaves the edge out */
    expect_paths("{" FROM_1_TO_4 ",\"spf_attribute\":\"priority\",\"spf_max_paths\":1}", "8:" P2);
    set_metadata(L34, "{\"priority\": 0}");
    expect_paths("{" FROM_1_TO_4 ",\"spf_attribute\":\"priority\",\"spf_max_paths\":1}", "7:" P3);
    snprintf(body, sizeof body, "{" FROM_1_TO_4 ",\"spf_attribute\":\"priority\",\"spf_max_paths\":1,"
             "\"undesired_links\":[\"%s\"]}", L34);
    expect_paths(body, "8:" P2);
}
END_TEST

START_TEST(mandatory_and_flexible_metrics)
{
    mesh_links();
    set_metadata(L14, "{\"bandwidth\": 5, \"ownership\": \"red blue\"}");
    set_metadata(L12, "{\"bandwidth\": 100, \"delay\": 50}");
    /* L14 too slow; links without bandwidth pass */
    expect_paths("{" FROM_1_TO_4 ",\"mandatory_metrics\":{\"bandwidth\":10}}", "8:" P2 "|8:" P3);
    {
        kytos_test_resp *r = ask("{" FROM_1_TO_4 ",\"spf_max_paths\":1,\"mandatory_metrics\":{\"bandwidth\":10}}", 200);
        ck_assert_str_eq(json_object_to_json_string_ext(kytos_test_resp_json(r), JSON_C_TO_STRING_PLAIN),
                         "{\"paths\":[{\"hops\":[\"" S1 ":1\",\"" S1 "\",\"" S1 ":2\",\"" S2 ":2\",\"" S2
                         "\",\"" S2 ":4\",\"" S4 ":3\",\"" S4 "\",\"" S4 ":1\"],"
                         "\"metrics\":{\"bandwidth\":10},\"cost\":8}]}");
        kytos_test_resp_free(r);
    }
    expect_paths("{" FROM_1_TO_4 ",\"spf_max_paths\":1,\"mandatory_metrics\":{\"bandwidth\":5}}", "5:" P1);
    /* ownership: a word of the link's; not_ownership: none of them */
    expect_paths("{" FROM_1_TO_4 ",\"spf_max_paths\":1,\"mandatory_metrics\":{\"ownership\":\"blue\"}}", "5:" P1);
    expect_paths("{" FROM_1_TO_4 ",\"spf_max_paths\":1,\"mandatory_metrics\":{\"ownership\":\"green\"}}", "8:" P2);
    expect_paths("{" FROM_1_TO_4 ",\"spf_max_paths\":1,\"mandatory_metrics\":{\"not_ownership\":[\"red\"]}}",
                 "8:" P2);
    expect_paths("{" FROM_1_TO_4 ",\"spf_max_paths\":1,\"mandatory_metrics\":{\"not_ownership\":[\"x\",\"y\"]}}",
                 "5:" P1);
    /* flexible: both hold on P1 (L14 has no delay): k paths with both */
    {
        kytos_test_resp *r = ask("{" FROM_1_TO_4 ",\"spf_max_paths\":1,\"flexible_metrics\":"
                                 "{\"ownership\":\"red\",\"delay\":20},\"minimum_flexible_hits\":1}", 200);
        struct json_object *p = json_object_array_get_idx(json_object_object_get(kytos_test_resp_json(r), "paths"), 0);
        ck_assert_str_eq(json_object_to_json_string_ext(json_object_object_get(p, "metrics"), JSON_C_TO_STRING_PLAIN),
                         "{\"ownership\":\"red\",\"delay\":20}");
        kytos_test_resp_free(r);
    }
    /* both hold off L14 (green) and L12 (delay 50 > 20): P3 and P5 */
    expect_paths("{" FROM_1_TO_4 ",\"flexible_metrics\":{\"ownership\":\"green\",\"delay\":20},"
                 "\"minimum_flexible_hits\":1}", "8:" P3 "|11:" P5);
    /* mandatory first (bandwidth 50 takes L14 out), then the flexible ones */
    expect_paths("{" FROM_1_TO_4 ",\"spf_max_paths\":1,\"undesired_links\":[\"" "x" "\"],"
                 "\"mandatory_metrics\":{\"bandwidth\":50},"
                 "\"flexible_metrics\":{\"ownership\":\"green\",\"delay\":20},\"minimum_flexible_hits\":1}",
                 "8:" P3);
    {
        char body[512];
        snprintf(body, sizeof body, "{" FROM_1_TO_4 ",\"spf_max_paths\":2,\"undesired_links\":[\"%s\"],"
                 "\"flexible_metrics\":{\"ownership\":\"red\",\"delay\":20},\"minimum_flexible_hits\":0}", L13);
        /* 2 of 2: L12 (delay 50) out, L13 undesired: only P1; a level with
         * paths ends the search even short of k */
        expect_paths(body, "5:" P1);
        snprintf(body, sizeof body, "{" FROM_1_TO_4 ",\"spf_max_paths\":2,\"undesired_links\":[\"%s\"],"
                 "\"flexible_metrics\":{\"ownership\":\"green\",\"delay\":20},\"minimum_flexible_hits\":0}", L13);
        /* 2 of 2: s1 is cut off (L14 green, L12 delay, L13 undesired);
         * 1 of 2, ownership alone (L14 out): P2 and P4 fill k */
        expect_paths(body, "8:" P2 "|11:" P4);
        snprintf(body, sizeof body, "{" FROM_1_TO_4 ",\"spf_max_paths\":3,\"undesired_links\":[\"%s\"],"
                 "\"flexible_metrics\":{\"ownership\":\"green\",\"delay\":20},\"minimum_flexible_hits\":0}", L13);
        /* k = 3: ownership alone gives 2, delay alone (L12 out) adds P1:
         * the level ends with 3, the delay combination's metrics on it */
        expect_paths(body, "8:" P2 "|11:" P4 "|5:" P1);
    }
    /* minimum_flexible_hits above the count is clamped */
    expect_paths("{" FROM_1_TO_4 ",\"spf_max_paths\":1,\"flexible_metrics\":{\"bandwidth\":50},"
                 "\"minimum_flexible_hits\":6}", "8:" P2);
}
END_TEST

START_TEST(errors_are_kytos_400s)
{
    mesh_links();
    expect_error("{\"destination\":\"" S4 "\"}", NULL);
    expect_error("{\"source\":\"" S1 "\"}", NULL);
    expect_error("{" FROM_1_TO_4 ",\"spf_max_paths\":0}", NULL);
    expect_error("{" FROM_1_TO_4 ",\"spf_max_paths\":11}", NULL);
    expect_error("{" FROM_1_TO_4 ",\"spf_attribute\":\"bandwidth\"}", NULL);
    expect_error("{" FROM_1_TO_4 ",\"spf_max_path_cost\":0.5}", NULL);
    expect_error("{" FROM_1_TO_4 ",\"minimum_flexible_hits\":7}", NULL);
    expect_error("{" FROM_1_TO_4 ",\"mandatory_metrics\":{\"bandwidth\":0.01}}", NULL);
    expect_error("{" FROM_1_TO_4 ",\"mandatory_metrics\":{\"reliability\":101}}", NULL);
    expect_error("{" FROM_1_TO_4 ",\"mandatory_metrics\":{\"not_ownership\":\"a\"}}", NULL);
    expect_error("{" FROM_1_TO_4 ",\"undesired_links\":\"x\"}", NULL);
    expect_error("[1]", NULL);
    /* link values Python cannot compare: its TypeError */
    set_metadata(L23, "{\"bandwidth\": \"fast\", \"ownership\": 5, \"delay\": \"slow\"}");
    expect_error("{" FROM_1_TO_4 ",\"mandatory_metrics\":{\"bandwidth\":1}}",
                 "'>=' not supported between instances of 'str' and 'int'");
    expect_error("{" FROM_1_TO_4 ",\"mandatory_metrics\":{\"delay\":1.5}}",
                 "'<=' not supported between instances of 'str' and 'float'");
    expect_error("{" FROM_1_TO_4 ",\"flexible_metrics\":{\"ownership\":\"x\"}}",
                 "has invalid metadata \"ownership\" with value 5: Expected types: [<class 'str'>, "
                 "<class 'dict'>, <class 'list'>, <class 'NoneType'>]");
    expect_error("{" FROM_1_TO_4 ",\"spf_attribute\":\"delay\"}",
                 "unsupported operand type(s) for +: 'int' and 'str'");
    /* left out by undesired_links, the bad values are never looked at */
    {
        char body[256];
        snprintf(body, sizeof body, "{" FROM_1_TO_4 ",\"spf_max_paths\":1,\"spf_attribute\":\"delay\","
                 "\"undesired_links\":[\"%s\"]}", L23);
        expect_paths(body, "5:" P1);
    }
}
END_TEST

static bool first_path_is(const void *ud)
{
    static char got[4096];
    kytos_test_resp *r = kytos_test_request(th, "POST", PF, "{" FROM_1_TO_4 ",\"spf_max_paths\":1}");
    bool ok = r && kytos_test_resp_status(r) == 200;
    if (ok) {
        paths_text(kytos_test_resp_json(r), got, sizeof got);
        ok = strcmp(got, ud) == 0;
    }
    kytos_test_resp_free(r);
    return ok;
}

START_TEST(paths_follow_the_topology)
{
    char path[256];
    kytos_test_resp *r;

    mesh_links();
    ck_assert(first_path_is("5:" P1));
    snprintf(path, sizeof path, "/api/kytos/simnet/v1/links/%s/down", L14);
    r = kytos_test_request(th, "POST", path, NULL);
    ck_assert_uint_lt(kytos_test_resp_status(r), 300);
    kytos_test_resp_free(r);
    ck_assert(await_until(first_path_is, "8:" P2, 5000));
    snprintf(path, sizeof path, "/api/kytos/simnet/v1/links/%s/up", L14);
    r = kytos_test_request(th, "POST", path, NULL);
    kytos_test_resp_free(r);
    ck_assert(await_until(first_path_is, "5:" P1, 5000));
    /* a disabled switch leaves the graph */
    r = kytos_test_request(th, "POST", TOPO "switches/" S1 "/disable", NULL);
    ck_assert_uint_lt(kytos_test_resp_status(r), 300);
    kytos_test_resp_free(r);
    ck_assert(await_until(first_path_is, "", 5000));
}
END_TEST

static uint64_t generation(void)
{
    kytos_test_resp *r = kytos_test_request(th, "GET", TOPO "generation", NULL);
    struct json_object *v;
    uint64_t g;
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "generation", &v));
    ck_assert(json_object_is_type(v, json_type_int));
    g = (uint64_t)json_object_get_int64(v);
    kytos_test_resp_free(r);
    return g;
}

START_TEST(topology_numbers_its_snapshots)
{
    kytos_test_resp *r;
    uint64_t g = generation();
    char want[32];

    ck_assert_uint_gt(g, 0);
    ck_assert_uint_eq(generation(), g);         /* nothing changed */
    r = kytos_test_request(th, "GET", TOPO, NULL);
    snprintf(want, sizeof want, "%llu", (unsigned long long)g);
    ck_assert_str_eq(kytos_test_resp_header(r, "X-Kytos-Topology-Generation"), want);
    kytos_test_resp_free(r);
    mesh_links();
    set_metadata(L12, "{\"delay\": 3}");
    ck_assert_uint_gt(generation(), g);
}
END_TEST

static uint64_t work_of(kytos_test_resp *r)
{
    const char *w = kytos_test_resp_header(r, "X-Kytos-Pathfinder-Work");
    ck_assert_ptr_nonnull(w);
    return strtoull(w, NULL, 10);
}

static void assert_ordered(struct json_object *ans, size_t want)
{
    struct json_object *paths = json_object_object_get(ans, "paths");
    double last = -1;
    ck_assert_uint_eq(json_object_array_length(paths), want);
    for (size_t i = 0; i < want; i++) {
        double c = json_object_get_double(json_object_object_get(json_object_array_get_idx(paths, i), "cost"));
        ck_assert(c >= last);
        last = c;
    }
}

START_TEST(a_full_mesh_of_24_switches_answers_within_budget)
{
    kytos_test_host_free(th);
    th = host_conf("[kytos/topology]\nlink_up_timer = 0\n[kytos/simnet]\nshape = \"mesh\"\n"
                   "switches = 24\nhost_ports = 1\nflow_stats_interval = 0\n", 60000);
    kytos_test_resp *r = ask("{\"source\":\"" S1 ":1\",\"destination\":\"00:00:00:00:00:00:00:18:1\","
                             "\"spf_max_paths\":10}", 200);
    uint64_t w = work_of(r);
    /* 276 links, ~600 nodes, more simple paths than could ever be listed */
    fprintf(stderr, "# 24-switch mesh, k = 10: %llu work units\n", (unsigned long long)w);
    ck_assert_uint_gt(w, 0);
    ck_assert_uint_le(w, 150000);   /* 47198 when written; the budget is 2,000,000 */
    assert_ordered(kytos_test_resp_json(r), 10);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(
                         json_object_array_get_idx(json_object_object_get(kytos_test_resp_json(r), "paths"), 0),
                         "cost")), 5);
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(a_ring_of_200_switches_answers_within_budget)
{
    kytos_test_host_free(th);
    th = host_conf("[kytos/topology]\nlink_up_timer = 0\n[kytos/simnet]\nshape = \"ring\"\n"
                   "switches = 200\nhost_ports = 1\nflow_stats_interval = 0\n", 180000);
    kytos_test_resp *r = ask("{\"source\":\"" S1 ":1\",\"destination\":\"00:00:00:00:00:00:00:64:1\","
                             "\"spf_max_paths\":10}", 200);
    /* two ways round: 100 and 102 switches */
    assert_ordered(kytos_test_resp_json(r), 2);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(
                         json_object_array_get_idx(json_object_object_get(kytos_test_resp_json(r), "paths"), 0),
                         "cost")), 3 * 100 - 1);
    /* ~1000 nodes: a few searches over them, not k * path length of them */
    fprintf(stderr, "# 200-switch ring, k = 10: %llu work units\n", (unsigned long long)work_of(r));
    ck_assert_uint_le(work_of(r), 40000);   /* 10615 when written */
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(many_flexible_metrics_stay_within_budget)
{
    /* 16 metrics: 65536 combinations, none finding a path (unknown source);
     * each filters every edge, counted, and the budget caps the total */
    kytos_test_resp *r = ask("{\"source\":\"nowhere\",\"destination\":\"" S4 "\",\"flexible_metrics\":"
                             "{\"a\":1,\"b\":1,\"c\":1,\"d\":1,\"e\":1,\"f\":1,\"g\":1,\"h\":1,"
                             "\"i\":1,\"j\":1,\"k\":1,\"l\":1,\"m\":1,\"n\":1,\"o\":1,\"p\":1},"
                             "\"minimum_flexible_hits\":0}", 200);
    uint64_t w = work_of(r);
    ck_assert_uint_ge(w, 65536);
    ck_assert_uint_le(w, PF_WORK_BUDGET + 1000);
    kytos_test_resp_free(r);
    expect_error("{" FROM_1_TO_4 ",\"flexible_metrics\":{\"a\":1,\"b\":1,\"c\":1,\"d\":1,\"e\":1,"
                 "\"f\":1,\"g\":1,\"h\":1,\"i\":1,\"j\":1,\"k\":1,\"l\":1,\"m\":1,\"n\":1,\"o\":1,"
                 "\"p\":1,\"q\":1}}", "flexible_metrics has more than 16 metrics");
}
END_TEST

/* ---- mef_eline asks pathfinder ---- */

static const char *const me_napps[] = {"topology", "flow_manager", "pathfinder", "mef_eline", "simnet"};

static void create_evc(const char *extra, char id[15])
{
    static int vlan = 100;
    char body[1024];
    kytos_test_resp *r;
    struct json_object *v;
    snprintf(body, sizeof body,
             "{\"name\":\"e\",\"dynamic_backup_path\":true,\"uni_a\":{\"interface_id\":\"" S1 ":1\","
             "\"tag\":{\"tag_type\":\"vlan\",\"value\":%d}},\"uni_z\":{\"interface_id\":\"" S4 ":1\","
             "\"tag\":{\"tag_type\":\"vlan\",\"value\":%d}}%s}", vlan, vlan, extra);
    vlan++;
    r = kytos_test_request(th, "POST", "/api/kytos/mef_eline/v2/evc/", body);
    ck_assert_msg(kytos_test_resp_status(r) == 201, "%s", kytos_test_resp_body(r, NULL));
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "circuit_id", &v));
    snprintf(id, 15, "%s", json_object_get_string(v));
    kytos_test_resp_free(r);
}

/* The EVC's current path as "link,link". */
static void current_links(const char *id, char *out, size_t cap)
{
    char path[128];
    kytos_test_resp *r;
    struct json_object *cp;
    size_t off = 0;
    snprintf(path, sizeof path, "/api/kytos/mef_eline/v2/evc/%s", id);
    r = kytos_test_request(th, "GET", path, NULL);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "current_path", &cp));
    out[0] = '\0';
    for (size_t i = 0; i < json_object_array_length(cp); i++)
        off += (size_t)snprintf(out + off, cap - off, "%s%s", i ? "," : "",
                                json_object_get_string(json_object_object_get(json_object_array_get_idx(cp, i), "id")));
    kytos_test_resp_free(r);
}

struct evc_want {
    const char *id;
    char want[256];
};

static bool evc_on(const void *ud)
{
    const struct evc_want *w = ud;
    char got[512];
    current_links(w->id, got, sizeof got);
    return strcmp(got, w->want) == 0;
}

START_TEST(mef_eline_dynamic_paths_honour_constraints)
{
    char id[15], extra[512], got[512];
    struct evc_want w;

    kytos_test_host_free(th);
    th = host_with(mesh4, me_napps, 5, 10000);
    mesh_links();
    /* no constraint: the shortest, L14 */
    create_evc("", id);
    current_links(id, got, sizeof got);
    ck_assert_str_eq(got, L14);
    /* primary_constraints: L14 undesired, then by ties the path over s2 */
    snprintf(extra, sizeof extra, ",\"primary_constraints\":{\"undesired_links\":[\"%s\"]}", L14);
    create_evc(extra, id);
    current_links(id, got, sizeof got);
    snprintf(w.want, sizeof w.want, "%s,%s", L12, L24);
    ck_assert_str_eq(got, w.want);
    /* link metadata: a mandatory bandwidth L14 and L12 lack */
    set_metadata(L14, "{\"bandwidth\": 1}");
    set_metadata(L12, "{\"bandwidth\": 1}");
    create_evc(",\"primary_constraints\":{\"mandatory_metrics\":{\"bandwidth\":10}}", id);
    current_links(id, got, sizeof got);
    snprintf(w.want, sizeof w.want, "%s,%s", L13, L34);
    ck_assert_str_eq(got, w.want);
    /* by delay */
    set_metadata(L34, "{\"delay\": 100}");
    create_evc(",\"primary_constraints\":{\"spf_attribute\":\"delay\",\"undesired_links\":[\"nope\"],"
               "\"mandatory_metrics\":{\"bandwidth\":10}}", id);
    current_links(id, got, sizeof got);
    snprintf(w.want, sizeof w.want, "%s,%s,%s", L13, L23, L24);
    ck_assert_str_eq(got, w.want);
    /* secondary_constraints after a link went down: L12 undesired there */
    snprintf(extra, sizeof extra, ",\"secondary_constraints\":{\"undesired_links\":[\"%s\"]}", L12);
    create_evc(extra, id);
    current_links(id, got, sizeof got);
    ck_assert_str_eq(got, L14);
    {
        char path[256];
        kytos_test_resp *r;
        snprintf(path, sizeof path, "/api/kytos/simnet/v1/links/%s/down", L14);
        r = kytos_test_request(th, "POST", path, NULL);
        ck_assert_uint_lt(kytos_test_resp_status(r), 300);
        kytos_test_resp_free(r);
    }
    w.id = id;
    snprintf(w.want, sizeof w.want, "%s,%s", L13, L34);
    ck_assert_msg(await_until(evc_on, &w, 5000), "the EVC did not move off L14 avoiding L12");
}
END_TEST

/* ---- the search alone ---- */

static uint64_t rng_state;

static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng_state >> 33) % n);
}

static const char *dpid(unsigned i, char *buf)
{
    snprintf(buf, 24, "00:00:00:00:00:00:%02x:%02x", (i >> 8) & 0xff, i & 0xff);
    return buf;
}

/* A topology body of n switches and m random links (no repeated pair),
 * delays 1..3 (ties abound). */
static struct json_object *random_topology(unsigned n, unsigned m)
{
    struct json_object *body = json_object_new_object(), *top = json_object_new_object(),
                       *sws = json_object_new_object(), *lks = json_object_new_object();
    unsigned *ports = calloc(n, sizeof *ports);
    uint8_t *pair = calloc((size_t)n * n, 1);
    char a[24], b[24], ia[40], ib[40], lid[32];

    json_object_object_add(body, "topology", top);
    json_object_object_add(top, "switches", sws);
    json_object_object_add(top, "links", lks);
    for (unsigned i = 0; i < n; i++) {
        struct json_object *sw = json_object_new_object();
        json_object_object_add(sw, "status", json_object_new_string("UP"));
        json_object_object_add(sw, "interfaces", json_object_new_object());
        json_object_object_add(sws, dpid(i + 1, a), sw);
    }
    for (unsigned l = 0; l < m; l++) {
        unsigned x = l < n ? l : rnd(n), y = l < n ? (l + 1) % n : rnd(n);   /* a ring, then chords */
        struct json_object *lk = json_object_new_object(), *ea = json_object_new_object(),
                           *eb = json_object_new_object(), *md = json_object_new_object();
        if (x == y || pair[x * n + y]) {
            json_object_put(lk);
            json_object_put(ea);
            json_object_put(eb);
            json_object_put(md);
            continue;
        }
        pair[x * n + y] = pair[y * n + x] = 1;
        snprintf(ia, sizeof ia, "%s:%u", dpid(x + 1, a), ++ports[x]);
        snprintf(ib, sizeof ib, "%s:%u", dpid(y + 1, b), ++ports[y]);
        {
            struct json_object *ifa = json_object_new_object(), *ifb = json_object_new_object();
            json_object_object_add(ifa, "status", json_object_new_string("UP"));
            json_object_object_add(ifb, "status", json_object_new_string("UP"));
            json_object_object_add(json_object_object_get(json_object_object_get(sws, a), "interfaces"), ia, ifa);
            json_object_object_add(json_object_object_get(json_object_object_get(sws, b), "interfaces"), ib, ifb);
        }
        json_object_object_add(ea, "id", json_object_new_string(ia));
        json_object_object_add(eb, "id", json_object_new_string(ib));
        json_object_object_add(lk, "endpoint_a", ea);
        json_object_object_add(lk, "endpoint_b", eb);
        json_object_object_add(md, "delay", json_object_new_int((int)rnd(3) + 1));
        json_object_object_add(lk, "metadata", md);
        json_object_object_add(lk, "status", json_object_new_string("UP"));
        snprintf(lid, sizeof lid, "link%u", l);
        json_object_object_add(lks, lid, lk);
    }
    free(ports);
    free(pair);
    return body;
}

struct fixture {
    struct pf_graph *g;
    double *w;
    uint8_t *wf;
};

static void fixture_new(struct fixture *f, unsigned n, unsigned m)
{
    struct json_object *body = random_topology(n, m);
    f->g = pf_graph_build(body, 1);
    json_object_put(body);
    ck_assert_ptr_nonnull(f->g);
    f->w = calloc(f->g->n_edges, sizeof *f->w);
    f->wf = calloc(f->g->n_edges, 1);
    for (size_t e = 0; e < f->g->n_edges; e++) {
        int l = f->g->edges[e].link;
        f->w[e] = l < 0 ? 1 : json_object_get_double(f->g->links[l].md[PF_DELAY]);
    }
}

static void fixture_free(struct fixture *f)
{
    pf_graph_put(f->g);
    free(f->w);
    free(f->wf);
}

/* Every simple path by depth-first search, sorted by (cost, node ids). */
struct brute {
    const struct fixture *f;
    int dst, *stack;
    size_t depth;
    uint8_t *on;
    struct pf_path *all;
    size_t n, cap;
};

static void dfs(struct brute *b, int u, double cost)
{
    const struct pf_graph *g = b->f->g;
    b->stack[b->depth++] = u;
    b->on[u] = 1;
    if (u == b->dst) {
        if (b->n == b->cap) {
            b->cap = b->cap ? 2 * b->cap : 64;
            b->all = realloc(b->all, b->cap * sizeof *b->all);
        }
        b->all[b->n].nodes = malloc(b->depth * sizeof(int));
        memcpy(b->all[b->n].nodes, b->stack, b->depth * sizeof(int));
        b->all[b->n].n = b->depth;
        b->all[b->n++].cost = cost;
    } else {
        for (int j = g->adj_off[u]; j < g->adj_off[u + 1]; j++)
            if (!b->on[g->adj_node[j]])
                dfs(b, g->adj_node[j], cost + b->f->w[g->adj_edge[j]]);
    }
    b->on[u] = 0;
    b->depth--;
}

static int brute_cmp(const void *x, const void *y)
{
    const struct pf_path *a = x, *b = y;
    if (a->cost != b->cost)
        return a->cost < b->cost ? -1 : 1;
    for (size_t i = 0; i < a->n && i < b->n; i++)
        if (a->nodes[i] != b->nodes[i])
            return a->nodes[i] < b->nodes[i] ? -1 : 1;
    return (a->n > b->n) - (a->n < b->n);
}

START_TEST(yen_matches_every_simple_path_sorted)
{
    rng_state = 12345;
    for (int round = 0; round < 40; round++) {
        struct fixture f;
        struct brute b = {0};
        struct pf_path out[PF_MAX_PATHS];
        char x[24], y[24];
        unsigned n = 4 + rnd(4);
        int src, dst, got;

        fixture_new(&f, n, n + rnd(n));
        src = pf_graph_node(f.g, dpid(1 + rnd(n), x));
        dst = pf_graph_node(f.g, dpid(1 + rnd(n), y));
        b.f = &f;
        b.dst = dst;
        b.stack = calloc(f.g->n_nodes, sizeof(int));
        b.on = calloc(f.g->n_nodes, 1);
        dfs(&b, src, 0);
        qsort(b.all, b.n, sizeof *b.all, brute_cmp);
        struct pf_search s = {.g = f.g, .w = f.w, .w_float = f.wf, .budget = PF_WORK_BUDGET};
        memset(out, 0, sizeof out);
        got = pf_ksp(&s, src, dst, PF_MAX_PATHS, out);
        ck_assert_int_eq(got, (int)(b.n < PF_MAX_PATHS ? b.n : PF_MAX_PATHS));
        for (int i = 0; i < got; i++) {
            ck_assert_msg(out[i].n == b.all[i].n &&
                              memcmp(out[i].nodes, b.all[i].nodes, out[i].n * sizeof(int)) == 0,
                          "round %d path %d differs", round, i);
            ck_assert(out[i].cost == b.all[i].cost);
            pf_path_free(&out[i]);
        }
        for (size_t i = 0; i < b.n; i++)
            free(b.all[i].nodes);
        free(b.all);
        free(b.stack);
        free(b.on);
        fixture_free(&f);
    }
}
END_TEST

START_TEST(a_random_200_switch_network_is_searched_with_bounded_work)
{
    struct fixture f;
    struct pf_path out[PF_MAX_PATHS];
    char x[24], y[24];
    uint64_t worst = 0;

    rng_state = 777;
    fixture_new(&f, 200, 500);       /* a ring plus 300 random chords */
    for (int round = 0; round < 20; round++) {
        struct pf_search s = {.g = f.g, .w = f.w, .w_float = f.wf, .budget = PF_WORK_BUDGET};
        int src = pf_graph_node(f.g, dpid(1 + rnd(200), x)), dst = pf_graph_node(f.g, dpid(1 + rnd(200), y));
        int got;
        memset(out, 0, sizeof out);
        got = pf_ksp(&s, src, dst, PF_MAX_PATHS, out);
        ck_assert_int_eq(got, src == dst ? 1 : PF_MAX_PATHS);
        ck_assert(!s.truncated);
        for (int i = 0; i < got; i++) {
            if (i)
                ck_assert(out[i].cost >= out[i - 1].cost);
            pf_path_free(&out[i]);
        }
        if (s.work > worst)
            worst = s.work;
    }
    /* Yen: k * (path length) spur searches, A* guided: ~1900 nodes and
     * ~2700 edges here, and plain Dijkstra spurs would cost k * length *
     * (V + E), about a million units per request. */
    fprintf(stderr, "# random 200-switch network, k = 10: at most %llu work units\n",
            (unsigned long long)worst);
    ck_assert_uint_le(worst, 60000);   /* 13365 when written */
    /* a budget stops the search early with the paths found so far */
    {
        struct pf_search s = {.g = f.g, .w = f.w, .w_float = f.wf, .budget = 3000};
        int got = pf_ksp(&s, pf_graph_node(f.g, dpid(1, x)), pf_graph_node(f.g, dpid(101, y)),
                         PF_MAX_PATHS, out);
        ck_assert(s.truncated);
        ck_assert_int_lt(got, PF_MAX_PATHS);
        ck_assert_uint_le(s.work, 3001);
        for (int i = 0; i < got; i++)
            pf_path_free(&out[i]);
    }
    fixture_free(&f);
}
END_TEST

static void no_setup(void) {}

static Suite *suite(void)
{
    Suite *s = suite_create("pathfinder");
    TCase *tc = kytos_check_case(s, "api", setup, teardown, 120);
    tcase_add_test(tc, hop_paths_come_in_kytos_order_ties_by_hop_ids);
    tcase_add_test(tc, max_path_cost_and_undesired_links);
    tcase_add_test(tc, delay_and_priority_weights);
    tcase_add_test(tc, mandatory_and_flexible_metrics);
    tcase_add_test(tc, errors_are_kytos_400s);
    tcase_add_test(tc, paths_follow_the_topology);
    tcase_add_test(tc, topology_numbers_its_snapshots);
    tcase_add_test(tc, mef_eline_dynamic_paths_honour_constraints);
    tc = kytos_check_case(s, "large", setup, teardown, 240);
    tcase_add_test(tc, a_full_mesh_of_24_switches_answers_within_budget);
    tcase_add_test(tc, a_ring_of_200_switches_answers_within_budget);
    tcase_add_test(tc, many_flexible_metrics_stay_within_budget);
    tc = kytos_check_case(s, "search", no_setup, no_setup, 120);
    tcase_add_test(tc, yen_matches_every_simple_path_sorted);
    tcase_add_test(tc, a_random_200_switch_network_is_searched_with_bounded_work);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
