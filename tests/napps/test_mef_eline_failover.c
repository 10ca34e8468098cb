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

static bool installed_everywhere(const void *id)
{
    return evc_flows(id, S1, "installed") == 2 && evc_flows(id, S2, "installed") == 2 &&
           evc_flows(id, S3, "installed") == 2;
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
    /* flows confirmed while a batch's writes were in flight are marked
     * installed once flow_manager's writes go quiet (its timer) */
    ck_assert_msg(await_until(installed_everywhere, id, 5000), "EVC %d's flows stay pending", i);
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

/* kytos/topology.updated events and GET v3/ replies reach mef_eline in no
 * fixed order; one older than the topology it already has must not replace
 * it.  The stale event here is today's topology with every link down and
 * generation 1 (older than any topology sends): kept, it would leave a new
 * EVC without a path, since creating one deploys on the topology mef_eline
 * holds (asking topology again only for an unknown UNI). */
START_TEST(older_topology_event_does_not_replace_a_newer_one)
{
    kytos_test_resp *r = req("GET", "/api/kytos/topology/v3/", NULL);
    struct json_object *content = json_object_new_object(), *cur = NULL, *topo = NULL,
                       *links = NULL;
    const char *gen = kytos_test_resp_header(r, "X-Kytos-Topology-Generation");
    char id[15], link[128];
    size_t hops, downed = 0;

    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert_ptr_nonnull(gen);
    ck_assert_uint_gt(strtoull(gen, NULL, 10), 1);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "topology", &cur));
    ck_assert_int_eq(json_object_deep_copy(cur, &topo, NULL), 0);
    kytos_test_resp_free(r);
    ck_assert(json_object_object_get_ex(topo, "links", &links));
    json_object_object_foreach(links, lid, lk)
    {
        (void)lid;
        json_object_object_add(lk, "active", json_object_new_boolean(0));
        json_object_object_add(lk, "status", json_object_new_string("DOWN"));
        downed++;
    }
    ck_assert_uint_eq(downed, 3);
    json_object_object_add(content, "topology", topo);
    json_object_object_add(content, "generation", json_object_new_int64(1));
    ck_assert_int_eq(kytos_test_publish(th, "kytos/topology.updated",
                                        json_object_to_json_string(content)),
                     0);
    json_object_put(content);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);

    create(900, true, NULL, id);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_msg(evc_state(id, &hops, link, sizeof link),
                  "the EVC is not active: the older topology (every link down) replaced the newer");
    ck_assert_uint_eq(hops, 1);
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

/* ---- the consistency round's second sighting (failover.c's stale_again) ---- */

#define HOP(a, b) "{\"endpoint_a\":{\"id\":\"" a "\"},\"endpoint_b\":{\"id\":\"" b "\"}}"

/* POST an EVC a <-> z on vlan, dynamic or held to primary (a path's JSON
 * array); whether it was deployed at once. */
static bool create_between(const char *a, const char *z, int vlan, bool dynamic, const char *primary,
                           char id[15])
{
    char body[1024];
    kytos_test_resp *r;
    struct json_object *v;
    bool deployed;

    snprintf(body, sizeof body,
             "{\"name\":\"ss-%d\",\"dynamic_backup_path\":%s,%s%s%s"
             "\"uni_a\":{\"interface_id\":\"%s\",\"tag\":{\"tag_type\":\"vlan\",\"value\":%d}},"
             "\"uni_z\":{\"interface_id\":\"%s\",\"tag\":{\"tag_type\":\"vlan\",\"value\":%d}}}",
             vlan, dynamic ? "true" : "false", primary ? "\"primary_path\":" : "",
             primary ? primary : "", primary ? "," : "", a, vlan, z, vlan);
    r = req("POST", ME "v2/evc/", body);
    ck_assert_msg(kytos_test_resp_status(r) == 201, "status %u: %s", kytos_test_resp_status(r),
                  kytos_test_resp_body(r, NULL));
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "circuit_id", &v));
    snprintf(id, 15, "%s", json_object_get_string(v));
    deployed = json_object_get_boolean(json_object_object_get(kytos_test_resp_json(r), "deployed"));
    kytos_test_resp_free(r);
    return deployed;
}

/* The id of topology's link between interfaces a and b. */
static void link_between(const char *a, const char *b, char *out, size_t len)
{
    kytos_test_resp *r = req("GET", "/api/kytos/topology/v3/links", NULL);
    struct json_object *links;

    out[0] = '\0';
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "links", &links));
    json_object_object_foreach(links, lid, l)
    {
        const char *ea = json_object_get_string(
            json_object_object_get(json_object_object_get(l, "endpoint_a"), "id"));
        const char *eb = json_object_get_string(
            json_object_object_get(json_object_object_get(l, "endpoint_b"), "id"));
        if (ea && eb && ((!strcmp(ea, a) && !strcmp(eb, b)) || (!strcmp(ea, b) && !strcmp(eb, a))))
            snprintf(out, len, "%s", lid);
    }
    kytos_test_resp_free(r);
    ck_assert_msg(out[0], "no link %s - %s", a, b);
}

/* Topology shows link DOWN (or UP again) through its liveness status hook
 * (liveness_status in the link's metadata), and tells no one: no
 * link_down or link_up is published, as for a link that link_up_timer
 * holds after a start, so only the consistency round can find it.  The
 * kytos/topology.updated that follows is handled before this returns. */
static void liveness(const char *link, const char *status)
{
    char path[256], body[64];
    kytos_test_resp *r;

    snprintf(path, sizeof path, "/api/kytos/topology/v3/links/%s/metadata", link);
    snprintf(body, sizeof body, "{\"liveness_status\":\"%s\"}", status);
    r = req("POST", path, body);
    ck_assert_uint_eq(kytos_test_resp_status(r), 201);
    kytos_test_resp_free(r);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
}

/* The text of a GET: the EVC's stored document, or its flows as stored by
 * flow_manager (every switch, with their inserted_at and updated_at).
 * The caller frees it. */
static char *get_text(const char *path)
{
    kytos_test_resp *r = req("GET", path, NULL);
    char *text;

    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    text = strdup(kytos_test_resp_body(r, NULL));
    ck_assert_ptr_nonnull(text);
    kytos_test_resp_free(r);
    return text;
}

/* The string member key of the JSON object text, or "none". */
static const char *field(const char *text, const char *key, char *out, size_t len)
{
    struct json_object *o = json_tokener_parse(text), *v;

    snprintf(out, len, "%s",
             json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "none");
    json_object_put(o);
    return out;
}

static void evc_paths(const char *id, char *doc, size_t dlen, char *flows, size_t flen)
{
    unsigned long long cookie = (0xAAULL << 56) | strtoull(id, NULL, 16);

    snprintf(doc, dlen, ME "v2/evc/%s", id);
    snprintf(flows, flen, "/api/kytos/flow_manager/v2/stored_flows?cookie_range=%llu&cookie_range=%llu",
             cookie, cookie);
}

struct active_want {
    const char *id;
    bool active;
};

/* The EVC's stored document says active == w->active. */
static bool stored_active(const void *ud)
{
    const struct active_want *w = ud;
    size_t hops;

    return evc_state(w->id, &hops, NULL, 0) == w->active;
}

#define ROUNDS_CONF                                                                                \
    "[kytos/topology]\n"                                                                           \
    "link_up_timer = 0\n"                                                                          \
    "[kytos/simnet]\n"                                                                             \
    "flow_stats_interval = 0\n"                                                                    \
    "[kytos/mef_eline]\n"                                                                          \
    "deploy_evcs_interval = 1\n"

#define ROUND_GAP_MS 1000   /* ROUNDS_CONF's deploy_evcs_interval */

static int64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits (polling as await_until does, up to 10 s) for what a round visibly
 * does: w->id stored active or down.  Returns the deadline of the test's
 * next step: a step ended by then is seen whole by the next round, not at
 * all by this one.  The next round takes its snapshot deploy_evcs_interval
 * after this one ended, so after its write, which the last poll that missed
 * it began before (floor when none missed it: a time before the write). */
static int64_t await_round(const struct active_want *w, int64_t floor, const char *what)
{
    struct timespec step = {0, 20 * 1000000L};
    int64_t before = floor, t;

    for (unsigned waited = 0; waited <= 10000; waited += 20) {
        t = mono_ms();
        if (stored_active(w))
            return before + ROUND_GAP_MS;
        before = t;
        nanosleep(&step, NULL);
    }
    ck_abort_msg("%s never happened", what);
    return 0;
}

/* A step that had to end by deadline (await_round's) did: its end, a time
 * before anything the next round does, and in *took how long it had. */
static int64_t step_done(int64_t deadline, const char *step, int64_t *took)
{
    int64_t t = mono_ms();

    ck_assert_msg(t < deadline, "%s ended %lld ms after the next round may have begun", step,
                  (long long)(t - deadline));
    *took = t - (deadline - ROUND_GAP_MS);
    return t;
}

/* The second-sighting rule (failover.c's stale_again): the consistency
 * round leaves an active EVC whose path only ONE round found down where
 * it is, its stored document and its flows untouched, while a path down
 * for two rounds in a row gets its EVC moved (here: taken down, it has no
 * other path).  Links go down and up unnoticed (liveness(), no link
 * event), so only rounds act, a second apart (deploy_evcs_interval,
 * counted from the end of one round); no step sleeps, each is taken on
 * what a round visibly did, a few ms after it:
 *   W1, held to S1-S2, goes down once two rounds saw S1-S2 down (round
 *     B): B has taken its snapshot and is past its deploys;
 *   then S1-S3 (EVC A's path) goes down and S2-S3 up: round B+1 sees A's
 *     path down (its first sighting) and deploys W2, held to S2-S3;
 *   once W2 is up, S1-S3 comes back and S2-S3 goes down: round B+2 finds
 *     A's path up, and W2 goes down at B+3, the second round that saw
 *     S2-S3 down: by then B+2 and B+3 have both judged A.
 * Each step is checked to end before the next round can begin (it then
 * sees all of the step): a late one could prove nothing.  A round judges
 * the paths on the snapshot it took at its start but deploys on the newest
 * one, so B+1 could take its snapshot before S1-S3 went down yet deploy W2
 * on S2-S3 up: no round would see A's path down, and the test would pass
 * all the same.  (A late second step could let B+2 see A's path down
 * again: two rounds.)  Without the rule A leaves S1-S3 at B+1 (taken down:
 * S1-S2 is down too) and B+2 deploys it there again, its document and
 * flows rewritten out and back. */
START_TEST(consistency_round_leaves_an_evc_whose_path_one_round_saw_down)
{
    char a[15], w1[15], w2[15], l12[128], l23[128], l13[128], first[128];
    char doc_path[256], flows_path[256], *doc0, *flows0, *doc, *flows;
    char removed[40], deployed0[40], deployed[40];
    struct active_want w1_down = {w1, false}, w2_up = {w2, true}, w2_down = {w2, false};
    size_t hops;
    int64_t t, dl, took[2];

    start_host(NULL, ROUNDS_CONF);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    link_between(S1 ":3", S2 ":2", l12, sizeof l12);
    link_between(S2 ":3", S3 ":2", l23, sizeof l23);
    link_between(S1 ":4", S3 ":3", l13, sizeof l13);

    /* A on S1-S3; W1 on S1-S2; W2 held to S2-S3, down for now */
    liveness(l23, "down");
    ck_assert(create_between(S1 ":1", S3 ":1", 950, true, NULL, a));
    ck_assert(create_between(S1 ":2", S2 ":1", 951, false, "[" HOP(S1 ":3", S2 ":2") "]", w1));
    ck_assert(!create_between(S2 ":1", S3 ":1", 952, false, "[" HOP(S2 ":3", S3 ":2") "]", w2));
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert(evc_state(a, &hops, first, sizeof first));
    ck_assert_uint_eq(hops, 1);
    ck_assert_str_eq(first, l13);
    evc_paths(a, doc_path, sizeof doc_path, flows_path, sizeof flows_path);
    doc0 = get_text(doc_path);
    flows0 = get_text(flows_path);
    ck_assert_uint_eq(evc_flows(a, S1, "installed"), 2);
    ck_assert_uint_eq(evc_flows(a, S3, "installed"), 2);

    /* round B: the second to see S1-S2 down takes W1 down */
    t = mono_ms();
    liveness(l12, "down");
    dl = await_round(&w1_down, t, "W1 going down");
    /* round B+1: A's path down for the first time (W2 deployed) */
    liveness(l13, "down");
    liveness(l23, "up");
    t = step_done(dl, "bringing S1-S3 down and S2-S3 up", &took[0]);
    dl = await_round(&w2_up, t, "W2 being deployed");
    /* B+2 sees A's path up again; B+3 takes W2 down */
    liveness(l13, "up");
    liveness(l23, "down");
    step_done(dl, "bringing S1-S3 up and S2-S3 down", &took[1]);
    ck_assert_msg(await_until(stored_active, &w2_down, 10000), "W2 never went down");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    printf("# steps took %lld, %lld ms of their %d\n", (long long)took[0], (long long)took[1],
           ROUND_GAP_MS);

    /* A stayed: same path, its document and its flows never rewritten */
    ck_assert_msg(evc_state(a, &hops, first, sizeof first), "EVC A was taken down");
    ck_assert_uint_eq(hops, 1);
    ck_assert_str_eq(first, l13);
    doc = get_text(doc_path);
    flows = get_text(flows_path);
    ck_assert_msg(strcmp(doc, doc0) == 0,
                  "EVC A's document was rewritten: last_removed_at %s, last_deployed_at %s -> %s",
                  field(doc, "last_removed_at", removed, sizeof removed),
                  field(doc0, "last_deployed_at", deployed0, sizeof deployed0),
                  field(doc, "last_deployed_at", deployed, sizeof deployed));
    ck_assert_msg(strcmp(flows, flows0) == 0, "EVC A's flows were rewritten");
    ck_assert_uint_eq(evc_flows(a, S2, "installed") + evc_flows(a, S2, "pending"), 0);
    /* W2, whose path two rounds saw down, was moved: down, its flows gone */
    ck_assert(!evc_state(w2, &hops, NULL, 0));
    ck_assert_uint_eq(hops, 0);
    ck_assert_uint_eq(evc_flows(w2, S2, "installed") + evc_flows(w2, S3, "installed"), 0);
    free(doc0);
    free(flows0);
    free(doc);
    free(flows);
}
END_TEST

/* ---- a new path starts unseen (deploy.c's me_deploy_finish) ---- */

#define S4 "00:00:00:00:00:00:00:04"
#define S5 "00:00:00:00:00:00:00:05"
#define S6 "00:00:00:00:00:00:00:06"

/* A switch of simnet's own (two host ports) linked only to peer, away from
 * the ring: no path of the ring's EVCs can cross its link (in link). */
static void island_switch(const char *dpid, const char *peer, char *link, size_t len)
{
    char body[256];
    kytos_test_resp *r;
    struct json_object *links;

    snprintf(body, sizeof body, "{\"dpid\":\"%s\",\"host_ports\":2%s%s%s}", dpid,
             peer ? ",\"peers\":[\"" : "", peer ? peer : "", peer ? "\"]" : "");
    r = req("POST", "/api/kytos/simnet/v1/switches", body);
    ck_assert_msg(kytos_test_resp_status(r) == 201, "status %u: %s", kytos_test_resp_status(r),
                  kytos_test_resp_body(r, NULL));
    if (peer) {
        ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "links", &links));
        ck_assert_uint_eq(json_object_array_length(links), 1);
        snprintf(link, len, "%s", json_object_get_string(json_object_array_get_idx(links, 0)));
    }
    kytos_test_resp_free(r);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
}

/* The one-hop path over topology's link id, as a path's JSON array. */
static void path_over(const char *link, char *out, size_t len)
{
    kytos_test_resp *r = req("GET", "/api/kytos/topology/v3/links", NULL);
    struct json_object *links, *l, *ea, *eb;

    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "links", &links));
    ck_assert_msg(json_object_object_get_ex(links, link, &l), "no link %s", link);
    ck_assert(json_object_object_get_ex(l, "endpoint_a", &ea));
    ck_assert(json_object_object_get_ex(l, "endpoint_b", &eb));
    snprintf(out, len, "[{\"endpoint_a\":{\"id\":\"%s\"},\"endpoint_b\":{\"id\":\"%s\"}}]",
             json_object_get_string(json_object_object_get(ea, "id")),
             json_object_get_string(json_object_object_get(eb, "id")));
    kytos_test_resp_free(r);
}

/* The new path of an EVC starts unseen (deploy.c's me_deploy_finish resets
 * its stale_rounds): one round finds A's path S1-S3 down (unnoticed), a
 * real link_down then moves A to S1-S2-S3 before the next round, and that
 * round, the only one to find the new path down before it is up again,
 * leaves A where it is, its stored document and flows untouched.  Without
 * the reset the old path's sighting and the new one's made two in a row:
 * that round moved A (taken down).  Rounds are told apart, without sleeps, by
 * witnesses on links away from the ring (S4-S5: MX, S4-S6: MY) whose EVCs
 * a round visibly deploys or takes down (two sightings in a row):
 *   MX down (round Ra) -> S4-S6 down, S4-S5 up;
 *   MX deployed (R0) -> S1-S3 down (unnoticed), S4-S5 down;
 *   MY down (R1: A's first sighting, of S1-S3) -> S1-S3 cut (link_down
 *     moves A), S2-S3 down (unnoticed), S4-S6 up;
 *   MY deployed (R2, the one round to see S2-S3 down) -> S2-S3 up;
 *   MX down (R2 done: A judged).
 * Each step is checked to end before the next round can begin (it then
 * sees all of the step), so that a slow step fails the test instead of
 * letting it pass without proving anything. */
START_TEST(consistency_round_counts_a_new_path_from_its_own_first_sighting)
{
    char a[15], mx[15], my[15], l12[128], l23[128], l13[128], x[128], y[128], px[256], py[256];
    char first[128], first1[128], doc_path[256], flows_path[256], *doc1, *flows1, *doc, *flows;
    char removed[40], deployed1[40], deployed[40];
    struct active_want mx_down = {mx, false}, mx_up = {mx, true}, my_down = {my, false},
                       my_up = {my, true};
    size_t hops, moved0;
    int64_t t, dl, took[4];
    struct json_object *ev;

    start_host(NULL, ROUNDS_CONF);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    link_between(S1 ":3", S2 ":2", l12, sizeof l12);
    link_between(S2 ":3", S3 ":2", l23, sizeof l23);
    link_between(S1 ":4", S3 ":3", l13, sizeof l13);
    island_switch(S4, NULL, NULL, 0);
    island_switch(S5, S4, x, sizeof x);
    island_switch(S6, S4, y, sizeof y);
    path_over(x, px, sizeof px);
    path_over(y, py, sizeof py);

    ck_assert(create_between(S1 ":1", S3 ":1", 960, true, NULL, a));
    ck_assert(create_between(S4 ":1", S5 ":1", 961, false, px, mx));
    ck_assert(create_between(S4 ":2", S6 ":1", 962, false, py, my));
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert(evc_state(a, &hops, first, sizeof first));
    ck_assert_uint_eq(hops, 1);
    ck_assert_str_eq(first, l13);
    evc_paths(a, doc_path, sizeof doc_path, flows_path, sizeof flows_path);

    /* Ra: the second round to see S4-S5 down takes MX down */
    t = mono_ms();
    liveness(x, "down");
    dl = await_round(&mx_down, t, "MX going down");
    liveness(y, "down");
    liveness(x, "up");
    t = step_done(dl, "bringing S4-S6 down and S4-S5 up", &took[0]);
    /* R0 deploys MX: its snapshot was taken, S1-S3 up in it */
    dl = await_round(&mx_up, t, "MX being deployed");
    liveness(l13, "down");
    liveness(x, "down");
    t = step_done(dl, "bringing S1-S3 and S4-S5 down", &took[1]);
    /* R1 (second to see S4-S6 down) took MY down: it saw A's path down once */
    dl = await_round(&my_down, t, "MY going down");
    ck_assert(evc_state(a, &hops, first, sizeof first));
    ck_assert_str_eq(first, l13);
    moved0 = kytos_test_published_count(th, "kytos/mef_eline.redeployed_link_down");
    link_down(l13);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/mef_eline.redeployed_link_down"),
                      moved0 + 1);
    ev = kytos_test_published(th, "kytos/mef_eline.redeployed_link_down", moved0);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(ev, "evc_id")), a);
    ck_assert(evc_state(a, &hops, first1, sizeof first1));
    ck_assert_uint_eq(hops, 2);
    ck_assert_str_eq(first1, l12);
    doc1 = get_text(doc_path);
    flows1 = get_text(flows_path);
    liveness(l23, "down");
    liveness(y, "up");
    t = step_done(dl, "moving A and bringing S2-S3 down", &took[2]);
    /* R2 deploys MY: it sees A's new path down; S2-S3 is up again for R3 */
    dl = await_round(&my_up, t, "MY being deployed");
    liveness(l23, "up");
    step_done(dl, "bringing S2-S3 up", &took[3]);
    /* R2 (second to see S4-S5 down) took MX down: it has judged A */
    ck_assert_msg(await_until(stored_active, &mx_down, 10000), "MX never went down again");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    printf("# steps took %lld, %lld, %lld, %lld ms of their %d\n", (long long)took[0],
           (long long)took[1], (long long)took[2], (long long)took[3], ROUND_GAP_MS);

    /* A stayed on S1-S2-S3: its document and flows as the link_down left them */
    ck_assert_msg(evc_state(a, &hops, first, sizeof first), "EVC A was taken down");
    ck_assert_uint_eq(hops, 2);
    ck_assert_str_eq(first, first1);
    doc = get_text(doc_path);
    flows = get_text(flows_path);
    ck_assert_msg(strcmp(doc, doc1) == 0,
                  "EVC A's document was rewritten: last_removed_at %s, last_deployed_at %s -> %s",
                  field(doc, "last_removed_at", removed, sizeof removed),
                  field(doc1, "last_deployed_at", deployed1, sizeof deployed1),
                  field(doc, "last_deployed_at", deployed, sizeof deployed));
    ck_assert_msg(strcmp(flows, flows1) == 0, "EVC A's flows were rewritten");
    ck_assert_uint_eq(evc_flows(a, S2, "installed"), 2);
    free(doc1);
    free(flows1);
    free(doc);
    free(flows);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mef_eline_failover");
    TCase *tc = kytos_check_case(s, "failover", setup, teardown, 120);
    tcase_add_test(tc, link_down_moves_evcs_with_calls_per_switch);
    tcase_add_test(tc, older_topology_event_does_not_replace_a_newer_one);
    tcase_add_test(tc, link_down_moves_many_evcs_in_parallel_batches);
    tcase_add_test(tc, link_down_downs_those_without_a_path_and_moves_the_rest);
    tcase_add_test(tc, consistency_round_moves_evcs_off_a_link_down_unnoticed);
    /* a host of its own (rounds every second): CK_RUN_CASE=second_sighting */
    tc = kytos_check_case(s, "second_sighting", NULL, teardown, 60);
    tcase_add_test(tc, consistency_round_leaves_an_evc_whose_path_one_round_saw_down);
    /* a host of its own too: CK_RUN_CASE=new_path */
    tc = kytos_check_case(s, "new_path", NULL, teardown, 60);
    tcase_add_test(tc, consistency_round_counts_a_new_path_from_its_own_first_sighting);
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
