/* tests/napps/test_mef_eline_failover.c - a link failure under many EVCs
 * (plugins/mef_eline/failover.c) through the in-process test host over
 * simnet's 3-switch ring (topology, flow_manager, pathfinder, mef_eline,
 * simnet): every EVC on the link moves through S2 (or goes down when it
 * may not), each with its event as before, while flow_manager sees one
 * barrier per switch for the whole batch (one delete call, one install
 * call) instead of five per EVC, and the store a few writes instead of
 * one per EVC. */
#include "check_tap.h"
#include "tmpdir.h"
#include <kytos/kytos.h>
#include <kytos/test.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "await.h"

#define S1 "00:00:00:00:00:00:00:01"
#define S2 "00:00:00:00:00:00:00:02"
#define S3 "00:00:00:00:00:00:00:03"
#define ME "/api/kytos/mef_eline/"
#define BARRIER "kytos/flow_manager.messages.out.ofpt_barrier_request"
#define N_EVCS 16   /* one batch (failover.c's BATCH) */

static kytos_test_host *th;

static const char conf[] = "[kytos/topology]\n"
                           "link_up_timer = 0\n"
                           "[kytos/simnet]\n"
                           "flow_stats_interval = 0\n"
                           "[kytos/mef_eline]\n"
                           "store_retry_interval = 0.02\n";

/* A host over data_dir (NULL: a fresh one) configured by conf_text. */
static void start_host(const char *data_dir, const char *conf_text)
{
    static const char *const napps[] = {"topology", "flow_manager", "pathfinder", "mef_eline", "simnet"};
    struct kytos_test_opts o = {.struct_size = sizeof o, .conf_text = conf_text, .data_dir = data_dir};
    char path[512];

    th = kytos_test_host_new(&o);
    ck_assert_ptr_nonnull(th);
    for (size_t i = 0; i < sizeof napps / sizeof napps[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.so", NAPP_DIR, napps[i]);
        ck_assert_msg(kytos_test_load(th, path) == 0, "%s: %s", napps[i], kytos_test_last_error(th));
    }
    ck_assert_int_eq(kytos_test_start(th), 0);
}

static void setup(void)
{
    start_host(NULL, conf);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
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

/* POST an EVC S1:1 <-> S3:1 on vlan; dynamic or on the direct link only. */
static void create(int vlan, bool dynamic, const char *primary_link_body, char id[15])
{
    char body[1024];
    kytos_test_resp *r;
    struct json_object *v;

    snprintf(body, sizeof body,
             "{\"name\":\"fo-%d\",\"dynamic_backup_path\":%s,%s"
             "\"uni_a\":{\"interface_id\":\"" S1 ":1\",\"tag\":{\"tag_type\":\"vlan\",\"value\":%d}},"
             "\"uni_z\":{\"interface_id\":\"" S3 ":1\",\"tag\":{\"tag_type\":\"vlan\",\"value\":%d}}}",
             vlan, dynamic ? "true" : "false", primary_link_body ? primary_link_body : "", vlan, vlan);
    r = req("POST", ME "v2/evc/", body);
    ck_assert_msg(kytos_test_resp_status(r) == 201, "status %u: %s", kytos_test_resp_status(r),
                  kytos_test_resp_body(r, NULL));
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "circuit_id", &v));
    snprintf(id, 15, "%s", json_object_get_string(v));
    kytos_test_resp_free(r);
}

/* The stored EVC (GET reads the store): active flag, hop count, first link. */
static bool evc_state(const char *id, size_t *hops, char *link, size_t len)
{
    char path[256];
    kytos_test_resp *r;
    struct json_object *e, *cp;
    bool active;

    snprintf(path, sizeof path, ME "v2/evc/%s", id);
    r = req("GET", path, NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    e = kytos_test_resp_json(r);
    active = json_object_get_boolean(json_object_object_get(e, "active"));
    ck_assert(json_object_object_get_ex(e, "current_path", &cp));
    *hops = json_object_array_length(cp);
    if (link && *hops)
        snprintf(link, len, "%s",
                 json_object_get_string(json_object_object_get(json_object_array_get_idx(cp, 0), "id")));
    kytos_test_resp_free(r);
    return active;
}

/* The EVC's flows in flow_manager on dpid in state. */
static size_t evc_flows(const char *id, const char *dpid, const char *state)
{
    char path[512];
    unsigned long long cookie = (0xAAULL << 56) | strtoull(id, NULL, 16);
    kytos_test_resp *r;
    struct json_object *list;
    size_t n = 0;

    snprintf(path, sizeof path,
             "/api/kytos/flow_manager/v2/stored_flows?cookie_range=%llu&cookie_range=%llu&state=%s",
             cookie, cookie, state);
    r = req("GET", path, NULL);
    if (json_object_object_get_ex(kytos_test_resp_json(r), dpid, &list))
        n = json_object_array_length(list);
    kytos_test_resp_free(r);
    return n;
}

/* Store writes so far (every collection): puts and bulks (core/status). */
static int64_t store_writes(void)
{
    kytos_test_resp *r = req("GET", "/api/kytos/core/status/", NULL);
    struct json_object *store, *ops, *v;
    int64_t n = 0;

    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "store", &store));
    ck_assert(json_object_object_get_ex(store, "ops", &ops));
    if (json_object_object_get_ex(ops, "put", &v))
        n += json_object_get_int64(v);
    if (json_object_object_get_ex(ops, "bulk", &v))
        n += json_object_get_int64(v);
    kytos_test_resp_free(r);
    return n;
}

/* EVC id (number i) active on a two-link path off link, with its two
 * flows installed in each of S1, S2 and S3. */
static void assert_moved(const char *id, int i, const char *link)
{
    char first[128];
    size_t hops;

    ck_assert_msg(evc_state(id, &hops, first, sizeof first), "EVC %d is down", i);
    ck_assert_uint_eq(hops, 2);
    ck_assert_str_ne(first, link);
    ck_assert_uint_eq(evc_flows(id, S1, "installed"), 2);
    ck_assert_uint_eq(evc_flows(id, S2, "installed"), 2);
    ck_assert_uint_eq(evc_flows(id, S3, "installed"), 2);
}

static void link_down(const char *link)
{
    char path[256];
    kytos_test_resp *r;

    snprintf(path, sizeof path, "/api/kytos/simnet/v1/links/%s/down", link);
    r = req("POST", path, NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    kytos_test_resp_free(r);
    ck_assert_int_eq(kytos_test_drain(th, 20000), 0);
}

/* N EVCs on the S1-S3 link move through S2: flow_manager gets one delete
 * (S1, S3) and one install (S1, S2, S3), five barriers in all; one at a
 * time it was five per EVC.  The store takes the EVCs in one write. */
START_TEST(link_down_moves_evcs_with_calls_per_switch)
{
    char ids[N_EVCS][15], link[128], link2[128];
    size_t hops, barriers0, moved0, failed0;
    int64_t writes0, writes;

    for (int i = 0; i < N_EVCS; i++)
        create(700 + i, true, NULL, ids[i]);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert(evc_state(ids[0], &hops, link, sizeof link));
    ck_assert_uint_eq(hops, 1);
    for (int i = 1; i < N_EVCS; i++) {
        ck_assert(evc_state(ids[i], &hops, link2, sizeof link2));
        ck_assert_str_eq(link2, link);
    }
    barriers0 = kytos_test_published_count(th, BARRIER);
    moved0 = kytos_test_published_count(th, "kytos/mef_eline.redeployed_link_down");
    failed0 = kytos_test_published_count(th, "kytos/mef_eline.error_redeploy_link_down");
    writes0 = store_writes();

    link_down(link);

    for (int i = 0; i < N_EVCS; i++) {
        assert_moved(ids[i], i, link);
    }
    /* one event per EVC, as before */
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/mef_eline.redeployed_link_down") - moved0,
                      N_EVCS);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/mef_eline.error_redeploy_link_down"),
                      failed0);
    /* one barrier per switch of each flow_manager call: 2 + 3, not 5 * N */
    ck_assert_uint_eq(kytos_test_published_count(th, BARRIER) - barriers0, 5);
    /* flow_manager's delete and install, mef_eline's EVCs, topology's link:
     * a handful of writes (7 here), not one per EVC */
    writes = store_writes() - writes0;
    printf("# %d EVCs moved: %zu barriers, %lld store writes\n", N_EVCS,
           kytos_test_published_count(th, BARRIER) - barriers0, (long long)writes);
    ck_assert_int_le(writes, 8);
}
END_TEST

/* More EVCs than one batch (failover.c's BATCH, 16): the batches are
 * shared by two movers at once.  Every EVC still moves once, with its own
 * event, its flows in every switch of its new path, and S-VLANs no other
 * EVC holds on the same link (both movers reserve tags at once). */
#define N_MANY 100

START_TEST(link_down_moves_many_evcs_in_parallel_batches)
{
    static char ids[N_MANY][15];
    char link[128], path[256], seen[N_MANY * 2][160];
    size_t hops, moved0, nseen = 0;

    for (int i = 0; i < N_MANY; i++)
        create(1000 + i, true, NULL, ids[i]);
    ck_assert_int_eq(kytos_test_drain(th, 20000), 0);
    ck_assert(evc_state(ids[0], &hops, link, sizeof link));
    moved0 = kytos_test_published_count(th, "kytos/mef_eline.redeployed_link_down");

    link_down(link);

    for (int i = 0; i < N_MANY; i++) {
        kytos_test_resp *r;
        struct json_object *cp;

        assert_moved(ids[i], i, link);
        /* "<link id>/<s_vlan>" of each hop: no two EVCs share one */
        snprintf(path, sizeof path, ME "v2/evc/%s", ids[i]);
        r = req("GET", path, NULL);
        ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "current_path", &cp));
        for (size_t h = 0; h < json_object_array_length(cp); h++) {
            struct json_object *hop = json_object_array_get_idx(cp, h), *md, *sv, *v;
            ck_assert(json_object_object_get_ex(hop, "metadata", &md));
            ck_assert(json_object_object_get_ex(md, "s_vlan", &sv));
            ck_assert(json_object_object_get_ex(sv, "value", &v));
            snprintf(seen[nseen], sizeof seen[0], "%s/%d",
                     json_object_get_string(json_object_object_get(hop, "id")), json_object_get_int(v));
            for (size_t k = 0; k < nseen; k++)
                ck_assert_msg(strcmp(seen[k], seen[nseen]) != 0, "S-VLAN %s held twice", seen[k]);
            nseen++;
        }
        kytos_test_resp_free(r);
    }
    ck_assert_uint_eq(nseen, 2 * N_MANY);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/mef_eline.redeployed_link_down") - moved0,
                      N_MANY);
}
END_TEST

/* A batch where some EVCs cannot move: the one held to the failed link
 * (its only path, no dynamic path allowed) goes down with its event and
 * its flows removed, the others move. */
START_TEST(link_down_downs_those_without_a_path_and_moves_the_rest)
{
    char ids[6][15], pinned[15], link[128], primary[512];
    size_t hops;

    for (int i = 0; i < 6; i++)
        create(800 + i, true, NULL, ids[i]);
    ck_assert(evc_state(ids[0], &hops, link, sizeof link));
    ck_assert_uint_eq(hops, 1);
    /* the pinned EVC's only path: that same link */
    {
        char path[256];
        kytos_test_resp *r;
        struct json_object *hop;
        snprintf(path, sizeof path, ME "v2/evc/%s", ids[0]);
        r = req("GET", path, NULL);
        hop = json_object_array_get_idx(json_object_object_get(kytos_test_resp_json(r), "current_path"), 0);
        snprintf(primary, sizeof primary,
                 "\"primary_path\":[{\"endpoint_a\":{\"id\":\"%s\"},\"endpoint_b\":{\"id\":\"%s\"}}],",
                 json_object_get_string(json_object_object_get(json_object_object_get(hop, "endpoint_a"), "id")),
                 json_object_get_string(json_object_object_get(json_object_object_get(hop, "endpoint_b"), "id")));
        kytos_test_resp_free(r);
    }
    create(899, false, primary, pinned);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    {
        char plink[128];
        ck_assert(evc_state(pinned, &hops, plink, sizeof plink));
        ck_assert_uint_eq(hops, 1);
        ck_assert_str_eq(plink, link);
    }

    link_down(link);

    for (int i = 0; i < 6; i++) {
        ck_assert_msg(evc_state(ids[i], &hops, NULL, 0), "EVC %d is down", i);
        ck_assert_uint_eq(hops, 2);
        ck_assert_uint_eq(evc_flows(ids[i], S2, "installed"), 2);
    }
    ck_assert(!evc_state(pinned, &hops, NULL, 0));
    ck_assert_uint_eq(hops, 0);
    ck_assert_uint_eq(evc_flows(pinned, S1, "installed") + evc_flows(pinned, S1, "pending"), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/mef_eline.error_redeploy_link_down"), 1);
    ck_assert_uint_ge(kytos_test_published_count(th, "kytos/mef_eline.redeployed_link_down"), 6);
}
END_TEST

struct moved_want {
    char (*ids)[15];
    int n;
    const char *link;
};

/* Every EVC of w stored active on a two-link path avoiding w->link. */
static bool all_moved(const void *ud)
{
    const struct moved_want *w = ud;
    char first[128];
    size_t hops;

    for (int i = 0; i < w->n; i++)
        if (!evc_state(w->ids[i], &hops, first, sizeof first) || hops != 2)
            return false;
    return true;
}

/* A link failing while topology still holds the links after a start gets
 * no link_down (topology never reported it up): mef_eline's consistency
 * rounds find the EVCs on it (two rounds in a row: see failover.c's
 * stale_again) and move them in batches, without events. */
START_TEST(consistency_round_moves_evcs_off_a_link_down_unnoticed)
{
    static const char held[] = "[kytos/topology]\n"
                               "link_up_timer = 4\n"
                               "[kytos/simnet]\n"
                               "flow_stats_interval = 0\n"
                               "[kytos/mef_eline]\n"
                               "deploy_evcs_interval = 0.3\n";
    const char *dir = tmp_dir;
    char ids[8][15], link[128];
    struct moved_want w = {ids, 8, link};
    size_t hops;

    ck_assert(dir[0]);
    kytos_test_host_free(th);
    start_host(dir, conf);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    for (int i = 0; i < 8; i++)
        create(900 + i, true, NULL, ids[i]);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert(evc_state(ids[0], &hops, link, sizeof link));
    ck_assert_uint_eq(hops, 1);
    kytos_test_host_free(th);

    start_host(dir, held);
    {
        char path[256];
        kytos_test_resp *r;
        snprintf(path, sizeof path, "/api/kytos/simnet/v1/links/%s/down", link);
        r = req("POST", path, NULL);
        ck_assert_uint_eq(kytos_test_resp_status(r), 200);
        kytos_test_resp_free(r);
    }
    ck_assert_msg(await_until(all_moved, &w, 30000), "the EVCs never left the failed link");
    /* a flow's pending -> installed write was queued before the EVCs'
     * commit: drained, the two reads below cannot straddle it */
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(evc_flows(ids[i], S2, "installed") + evc_flows(ids[i], S2, "pending"), 2);
    /* the round moved them (it publishes nothing), not a link_down */
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/mef_eline.redeployed_link_down"), 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mef_eline_failover");
    TCase *tc = kytos_check_case(s, "failover", setup, teardown, 120);
    tcase_add_test(tc, link_down_moves_evcs_with_calls_per_switch);
    tcase_add_test(tc, link_down_moves_many_evcs_in_parallel_batches);
    tcase_add_test(tc, link_down_downs_those_without_a_path_and_moves_the_rest);
    tcase_add_test(tc, consistency_round_moves_evcs_off_a_link_down_unnoticed);
    return s;
}

int main(void)
{
    int rc;

    tmp_dir_make("test_mef_eline_failover");
    rc = kytos_check_run(suite());
    tmp_dir_remove();
    return rc;
}
