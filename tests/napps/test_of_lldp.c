/* tests/napps/test_of_lldp.c - kytos/of_lldp through the in-process test
 * host, on simnet's 3-switch ring (topology + flow_manager + simnet +
 * of_lldp loaded): the punt flow through flow_manager on switch
 * enable/disable, the PACKET_OUT round, links made from fake PACKET_INs,
 * forged frames that must make nothing, liveness up and down (and the
 * link's status with it), loops, and the REST API's codes and texts. */
#include "check_tap.h"
#include "tmpdir.h"
#include "await.h"
#include "lldp_frame.h"
#include <kytos/kytos.h>
#include <kytos/test.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S1 "00:00:00:00:00:00:00:01"
#define S2 "00:00:00:00:00:00:00:02"
#define S3 "00:00:00:00:00:00:00:03"
#define LL "/api/kytos/of_lldp/"
#define TOPO "/api/kytos/topology/v3/"
#define FM "/api/kytos/flow_manager/v2/"
#define EV_IN "kytos/of_core.v0x04.messages.in.ofpt_packet_in"
#define EV_OUT "kytos/of_lldp.messages.out.ofpt_packet_out"
#define EV_NNI "kytos/of_lldp.interface.is.nni"

static kytos_test_host *th;

static const char conf[] = "[kytos/topology]\n"
                           "link_up_timer = 0\n"
                           "[kytos/simnet]\n"
                           "flow_stats_interval = 0\n"
                           "[kytos/of_lldp]\n"
                           "polling_time = 1\n"
                           "liveness_dead_multiplier = 1\n"
                           "lldp_loop_dead_multiplier = 1\n"
                           "flow_retry_ms = 0\n";

/* The host over data_dir (NULL: a fresh temporary one). */
static void start_host(const char *data_dir)
{
    struct kytos_test_opts o = {.struct_size = sizeof o, .conf_text = conf, .data_dir = data_dir};
    static const char *const napps[] = {"topology", "flow_manager", "simnet", "of_lldp"};
    char path[512];

    th = kytos_test_host_new(&o);
    ck_assert_ptr_nonnull(th);
    for (size_t k = 0; k < 4; k++) {
        snprintf(path, sizeof path, NAPP_DIR "/%s.so", napps[k]);
        ck_assert_msg(kytos_test_load(th, path) == 0, "%s: %s", napps[k], kytos_test_last_error(th));
    }
    ck_assert_int_eq(kytos_test_start(th), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
}

static void setup(void)
{
    start_host(NULL);
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

/* status and body text (compact JSON) of a request */
static void expect(const char *method, const char *path, const char *body, unsigned status,
                   const char *json)
{
    kytos_test_resp *r = req(method, path, body);
    const char *got = json_object_to_json_string_ext(kytos_test_resp_json(r), JSON_C_TO_STRING_PLAIN);

    ck_assert_msg(kytos_test_resp_status(r) == status, "%s %s: %u %s", method, path,
                  kytos_test_resp_status(r), got);
    if (json)
        ck_assert_str_eq(got, json);
    kytos_test_resp_free(r);
}

static size_t count(const char *name)
{
    return kytos_test_published_count(th, name);
}

/* A PACKET_IN on dpid_rx/in_port carrying the frame dpid_tx/port_tx sends. */
static void packet_in(const char *dpid_rx, uint32_t in_port, uint64_t dpid_tx, uint32_t port_tx)
{
    uint8_t frame[LLDP_FRAME_LEN], mac[6] = {0x02, 0, 0, 0, 0, 1};
    char hex[2 * LLDP_FRAME_LEN + 1], content[256];

    ck_assert_int_eq(lldp_frame_encode(frame, sizeof frame, dpid_tx, port_tx, mac, 3799),
                     LLDP_FRAME_LEN);
    lldp_hex_encode(frame, sizeof frame, hex);
    snprintf(content, sizeof content, "{\"dpid\":\"%s\",\"in_port\":%" PRIu32 ",\"data\":\"%s\"}",
             dpid_rx, in_port, hex);
    ck_assert_int_eq(kytos_test_publish(th, EV_IN, content), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
}

static const char *str_at(struct json_object *o, const char *k1, const char *k2)
{
    struct json_object *v = o;

    if (k1 && !json_object_object_get_ex(v, k1, &v))
        return NULL;
    if (k2 && !json_object_object_get_ex(v, k2, &v))
        return NULL;
    return json_object_get_string(v);
}

/* topology's link between a and b (either order), as a fresh copy, or NULL */
static struct json_object *topo_link(const char *a, const char *b)
{
    kytos_test_resp *r = req("GET", TOPO "links", NULL);
    struct json_object *links, *found = NULL;

    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "links", &links));
    json_object_object_foreach(links, id, l)
    {
        const char *ea = str_at(l, "endpoint_a", "id"), *eb = str_at(l, "endpoint_b", "id");
        (void)id;
        if (ea && eb && ((!strcmp(ea, a) && !strcmp(eb, b)) || (!strcmp(ea, b) && !strcmp(eb, a))))
            json_object_deep_copy(l, &found, NULL);
    }
    kytos_test_resp_free(r);
    return found;
}

static size_t n_links(void)
{
    kytos_test_resp *r = req("GET", TOPO "links", NULL);
    struct json_object *links;
    size_t n;

    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "links", &links));
    n = (size_t)json_object_object_length(links);
    kytos_test_resp_free(r);
    return n;
}

/* installed of_lldp flows of dpid in flow_manager's store */
static size_t punt_flows(const char *dpid, struct json_object **first)
{
    char path[256];
    kytos_test_resp *r;
    struct json_object *list;
    size_t n = 0;

    snprintf(path, sizeof path,
             FM "stored_flows?state=installed&cookie_range=%llu&cookie_range=%llu&dpid=%s",
             0xabULL << 56, 0xabULL << 56 | 0x00ffffffffffffffULL, dpid);
    r = req("GET", path, NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    if (json_object_object_get_ex(kytos_test_resp_json(r), dpid, &list)) {
        n = json_object_array_length(list);
        if (first && n)
            json_object_deep_copy(json_object_array_get_idx(list, 0), first, NULL);
    }
    kytos_test_resp_free(r);
    return n;
}

static bool s1_has_flow(const void *ud)
{
    (void)ud;
    return punt_flows(S1, NULL) == 1;
}

/* each switch's punt flow is installed on its own handshake: await each */
static bool has_flow(const void *dpid)
{
    return punt_flows(dpid, NULL) == 1;
}

static bool s1_has_none(const void *ud)
{
    (void)ud;
    return punt_flows(S1, NULL) == 0;
}

static bool count_reached(const void *ud)
{
    const struct {
        const char *name;
        size_t n;
    } *c = ud;
    return count(c->name) >= c->n;
}

/* A valid frame, sent again until the n-th event `name` (of_lldp's answer
 * to it) is there.  A frame naming an interface of_lldp's cached topology
 * view lacks makes it refetch the view, at most every 500 ms
 * (topo_view.c): a frame meeting a view not yet fresh (switches just
 * added, forged frames just before) is ignored, as LLDP sent every
 * polling_time tolerates; one of the next within a few seconds must make
 * the event.  packet_in() drains the bus: a frame not counted was ignored,
 * not late, so no frame is answered twice. */
static void packet_in_until(const char *name, size_t n, const char *dpid_rx, uint32_t in_port,
                            uint64_t dpid_tx, uint32_t port_tx)
{
    struct {
        const char *name;
        size_t n;
    } c = {name, n};
    int tries;

    for (tries = 0; tries < 5; tries++) {
        packet_in(dpid_rx, in_port, dpid_tx, port_tx);
        if (await_until(count_reached, &c, 1000))
            break;
    }
    ck_assert_msg(tries < 5, "no %s for a valid frame after 5 tries", name);
    ck_assert_uint_eq(count(name), n);
}

static void packet_in_seen(const char *dpid_rx, uint32_t in_port, uint64_t dpid_tx,
                           uint32_t port_tx, size_t n)
{
    packet_in_until(EV_NNI, n, dpid_rx, in_port, dpid_tx, port_tx);
}

static void await_count(const char *name, size_t n, unsigned ms)
{
    struct {
        const char *name;
        size_t n;
    } c = {name, n};
    ck_assert_msg(await_until(count_reached, &c, ms), "%s: %zu events, wanted %zu", name,
                  count(name), n);
}

START_TEST(punt_flow_follows_switch_enable)
{
    struct json_object *doc = NULL, *flow;

    ck_assert(await_until(s1_has_flow, NULL, 10000));
    ck_assert(await_until(has_flow, S2, 10000));
    ck_assert(await_until(has_flow, S3, 10000));
    ck_assert_uint_eq(punt_flows(S3, &doc), 1);
    flow = json_object_object_get(doc, "flow");
    ck_assert_str_eq(json_object_to_json_string_ext(json_object_object_get(flow, "match"),
                                                    JSON_C_TO_STRING_PLAIN),
                     "{\"dl_type\":35020,\"dl_vlan\":3799}");
    ck_assert_str_eq(json_object_to_json_string_ext(json_object_object_get(flow, "actions"),
                                                    JSON_C_TO_STRING_PLAIN),
                     "[{\"action_type\":\"output\",\"port\":4294967293}]");
    ck_assert_int_eq(json_object_get_int(json_object_object_get(flow, "priority")), 50000);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(flow, "table_id")), 0);
    ck_assert(json_object_get_uint64(json_object_object_get(flow, "cookie")) ==
              (0xabULL << 56 | 3));
    ck_assert_str_eq(str_at(flow, "owner", NULL), "of_lldp");
    ck_assert_str_eq(str_at(flow, "table_group", NULL), "base");
    json_object_put(doc);
    await_count("kytos/of_lldp.vlan.used", 3, 5000);

    /* disabled: the flow is deleted; enabled again: back, once */
    expect("POST", TOPO "switches/" S1 "/disable", NULL, 201, NULL);
    ck_assert(await_until(s1_has_none, NULL, 10000));
    await_count("kytos/of_lldp.vlan.released", 1, 5000);
    ck_assert_uint_eq(punt_flows(S2, NULL), 1);
    expect("POST", TOPO "switches/" S1 "/enable", NULL, 201, NULL);
    ck_assert(await_until(s1_has_flow, NULL, 10000));
    /* a second enable finds it installed and posts nothing */
    expect("POST", TOPO "switches/" S1 "/enable", NULL, 201, NULL);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(punt_flows(S1, NULL), 1);
    ck_assert_uint_eq(count("kytos/of_lldp.vlan.used"), 4);
}
END_TEST

/* After a restart the punt flows are still installed (flow_manager's
 * store): none is posted again, but each switch's VLAN is announced used
 * again, once, for the NApp holding the tags (mef_eline keeps them in
 * memory; Kytos' topology keeps them in its stored interfaces). */
START_TEST(vlan_used_again_after_a_restart)
{
    const char *dir = tmp_dir;

    ck_assert(dir[0]);
    kytos_test_host_free(th);
    start_host(dir);
    /* each switch's handshake comes in its own time: generous deadlines
     * (distcheck beside a ThreadSanitizer run took over 5 s) */
    ck_assert(await_until(has_flow, S1, 20000));
    ck_assert(await_until(has_flow, S2, 20000));
    ck_assert(await_until(has_flow, S3, 20000));
    await_count("kytos/of_lldp.vlan.used", 3, 20000);
    kytos_test_host_free(th);
    start_host(dir);
    await_count("kytos/of_lldp.vlan.used", 3, 20000);
    /* a second enable tells nothing more */
    expect("POST", TOPO "switches/" S1 "/enable", NULL, 201, NULL);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(count("kytos/of_lldp.vlan.used"), 3);
    ck_assert_uint_eq(punt_flows(S1, NULL), 1);
    ck_assert_uint_eq(punt_flows(S3, NULL), 1);
}
END_TEST

/* Whether a frame went out of S2:1 (a round that began before S2's ports
 * were known sends none there: wait for one that knew them). */
static bool sent_out_of_s2_1(const void *unused)
{
    (void)unused;
    for (size_t k = 0; k < count(EV_OUT); k++) {
        struct json_object *c = kytos_test_published(th, EV_OUT, k);
        const char *dest = str_at(c, "destination", NULL);
        if (dest && !strcmp(dest, S2) &&
            json_object_get_int64(json_object_object_get(
                json_object_array_get_idx(json_object_object_get(c, "actions"), 0), "port")) == 1)
            return true;
    }
    return false;
}

/* The frames of rounds: one per enabled, active, lldp port, never LOCAL. */
/* The distinct ports the first n frames went out of. */
static size_t ports_in_rounds(size_t n)
{
    char seen[64][LLDP_DPID_STR_LEN + 16];
    size_t m = 0;

    for (size_t k = 0; k < n; k++) {
        struct json_object *c = kytos_test_published(th, EV_OUT, k);
        char key[LLDP_DPID_STR_LEN + 16];
        bool dup = false;

        snprintf(key, sizeof key, "%.23s:%" PRId64, str_at(c, "destination", NULL),
                 json_object_get_int64(json_object_object_get(
                     json_object_array_get_idx(json_object_object_get(c, "actions"), 0), "port")));
        for (size_t j = 0; j < m && !dup; j++)
            dup = !strcmp(seen[j], key);
        if (!dup) {
            ck_assert_uint_lt(m, 64);
            strcpy(seen[m++], key);
        }
    }
    ck_assert_uint_gt(m, 1);
    return m;
}

START_TEST(packet_out_round)
{
    size_t n, r, per_port_s2_1 = 0;
    bool seen_local = false;
    struct json_object *c;
    uint8_t frame[64];
    struct lldp_peer p;

    ck_assert_msg(await_until(sent_out_of_s2_1, NULL, 10000), "no LLDP frame out of S2:1");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    n = count(EV_OUT);
    for (size_t k = 0; k < n; k++) {
        const char *data, *dest;
        int64_t port;
        c = kytos_test_published(th, EV_OUT, k);
        dest = str_at(c, "destination", NULL);
        port = json_object_get_int64(
            json_object_object_get(json_object_array_get_idx(json_object_object_get(c, "actions"), 0),
                                   "port"));
        ck_assert_int_eq(json_object_get_int64(json_object_object_get(c, "in_port")), 4294967293LL);
        seen_local |= port == 4294967294LL;
        data = str_at(c, "data", NULL);
        ck_assert_uint_eq(strlen(data), 84);
        ck_assert_int_eq(lldp_hex_decode(data, 84, frame, sizeof frame), 42);
        ck_assert_int_eq(lldp_frame_decode(frame, 42, &p, NULL, 0), 0);
        ck_assert_int_eq(p.vid, 3799);
        ck_assert_int_eq((int64_t)p.port, port);
        {
            char d[LLDP_DPID_STR_LEN + 1];
            lldp_dpid_format(p.dpid, d);
            ck_assert_str_eq(d, dest);
        }
        if (!strcmp(dest, S2) && port == 1)
            per_port_s2_1++;
    }
    ck_assert(!seen_local);
    ck_assert_uint_ge(per_port_s2_1, 1);

    /* LLDP disabled on S2:1: no more frames out of it */
    expect("POST", LL "v1/interfaces/disable", "{\"interfaces\":[\"" S2 ":1\"]}", 200,
           "\"All the requested interfaces have been disabled.\"");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    /* A round that began before the disable may still send out of S2:1
     * after it; rounds send one frame per port in turn, so skipping one
     * round's worth of frames (r, the ports seen so far) skips what it has
     * left, and the next r frames cover every port at least once. */
    r = ports_in_rounds(count(EV_OUT));
    n = count(EV_OUT);
    await_count(EV_OUT, n + 2 * r, 10000);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    for (size_t k = n + r; k < count(EV_OUT); k++) {
        c = kytos_test_published(th, EV_OUT, k);
        ck_assert_msg(!(!strcmp(str_at(c, "destination", NULL), S2) &&
                        json_object_get_int64(json_object_object_get(
                            json_object_array_get_idx(json_object_object_get(c, "actions"), 0),
                            "port")) == 1),
                      "a frame went out of S2:1 with LLDP disabled");
    }
}
END_TEST

START_TEST(link_discovered_from_packet_in)
{
    size_t before = count(EV_NNI), links = n_links();
    struct json_object *c, *l;

    ck_assert_ptr_null(topo_link(S3 ":1", S2 ":1"));
    packet_in_seen(S3, 1, 2, 1, before + 1);   /* S2:1's frame arrives on S3:1 */
    c = kytos_test_published(th, EV_NNI, before);
    ck_assert_str_eq(str_at(c, "interface_a", "id"), S3 ":1");
    ck_assert_str_eq(str_at(c, "interface_b", "id"), S2 ":1");
    l = topo_link(S3 ":1", S2 ":1");
    ck_assert_ptr_nonnull(l);
    json_object_put(l);
    ck_assert_uint_eq(n_links(), links + 1);
    /* the same frame again: one more event, no new link */
    packet_in(S3, 1, 2, 1);
    ck_assert_uint_eq(count(EV_NNI), before + 2);
    ck_assert_uint_eq(n_links(), links + 1);
}
END_TEST

START_TEST(forged_frames_make_nothing)
{
    size_t before = count(EV_NNI), links = n_links();
    static const char *const bad[] = {
        /* unknown receiving switch */
        "{\"dpid\":\"00:00:00:00:00:00:00:63\",\"in_port\":1,\"data\":\"@\"}",
        /* no dpid, dpid not text, not a dpid */
        "{\"in_port\":1,\"data\":\"@\"}",
        "{\"dpid\":7,\"in_port\":1,\"data\":\"@\"}",
        "{\"dpid\":\"s3\",\"in_port\":1,\"data\":\"@\"}",
        /* in_port missing, negative, too large, unknown */
        "{\"dpid\":\"" S3 "\",\"data\":\"@\"}",
        "{\"dpid\":\"" S3 "\",\"in_port\":-1,\"data\":\"@\"}",
        "{\"dpid\":\"" S3 "\",\"in_port\":4294967296,\"data\":\"@\"}",
        "{\"dpid\":\"" S3 "\",\"in_port\":77,\"data\":\"@\"}",
    };
    uint8_t frame[LLDP_FRAME_LEN], mac[6] = {2, 0, 0, 0, 0, 1};
    char hex[2 * LLDP_FRAME_LEN + 1], content[512];

    /* a frame naming a switch that does not exist, and a port that does not */
    packet_in(S3, 1, 0x63, 1);
    packet_in(S3, 1, 2, 77);
    packet_in(S3, 1, 0xab00000000000002ull, 1);
    /* a valid frame with hostile surroundings */
    lldp_frame_encode(frame, sizeof frame, 2, 1, mac, 3799);
    lldp_hex_encode(frame, sizeof frame, hex);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        /* "@" stands for the frame */
        const char *at = strchr(bad[k], '@');
        snprintf(content, sizeof content, "%.*s%s%s", (int)(at - bad[k]), bad[k], hex, at + 1);
        ck_assert_int_eq(kytos_test_publish(th, EV_IN, content), 0);
    }
    /* data that is not hex, odd, a foreign LLDP frame, truncated; no content */
    ck_assert_int_eq(kytos_test_publish(th, EV_IN, "{\"dpid\":\"" S3 "\",\"in_port\":1,\"data\":\"zz\"}"), 0);
    ck_assert_int_eq(kytos_test_publish(th, EV_IN, "{\"dpid\":\"" S3 "\",\"in_port\":1,\"data\":\"abc\"}"), 0);
    ck_assert_int_eq(kytos_test_publish(th, EV_IN, "{\"dpid\":\"" S3 "\",\"in_port\":1,\"data\":"
                                        "\"0180c200000e00112233445588cc0207040011223344550403056531060200780000\"}"), 0);
    hex[60] = '\0';
    snprintf(content, sizeof content, "{\"dpid\":\"" S3 "\",\"in_port\":1,\"data\":\"%s\"}", hex);
    ck_assert_int_eq(kytos_test_publish(th, EV_IN, content), 0);
    ck_assert_int_eq(kytos_test_publish(th, EV_IN, NULL), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(count(EV_NNI), before);
    ck_assert_uint_eq(n_links(), links);
    /* and the NApp still works */
    packet_in_seen(S3, 1, 2, 1, before + 1);
}
END_TEST

static bool link_down(const void *ud)
{
    struct json_object *l = topo_link(S3 ":1", S2 ":1");
    bool down = l && !strcmp(str_at(l, "status", NULL), "DOWN") &&
                !strcmp(str_at(l, "metadata", "liveness_status") ? str_at(l, "metadata", "liveness_status") : "", "down");
    (void)ud;
    json_object_put(l);
    return down;
}

START_TEST(liveness_up_then_down)
{
    struct json_object *l, *c;
    kytos_test_resp *r;

    packet_in_seen(S3, 1, 2, 1, count(EV_NNI) + 1);   /* the link exists */
    expect("POST", LL "v1/liveness/enable", "{\"interfaces\":[\"" S2 ":1\",\"" S3 ":1\"]}", 200, "{}");
    ck_assert_uint_eq(count("kytos/of_lldp.liveness.enabled"), 1);
    expect("GET", LL "v1/liveness/?interface_id=" S2 ":1", NULL, 200,
           "{\"interfaces\":[{\"id\":\"" S2 ":1\",\"status\":\"init\",\"last_hello_at\":null}]}");
    /* two hellos each way (liveness_min_hellos_up = 2) */
    packet_in(S3, 1, 2, 1);
    packet_in(S2, 1, 3, 1);
    packet_in(S3, 1, 2, 1);
    ck_assert_uint_eq(count("kytos/of_lldp.liveness.up"), 0);
    packet_in(S2, 1, 3, 1);
    ck_assert_uint_eq(count("kytos/of_lldp.liveness.up"), 1);
    c = kytos_test_published(th, "kytos/of_lldp.liveness.up", 0);
    ck_assert_str_eq(str_at(c, "interface_a", "id"), S2 ":1");
    ck_assert_str_eq(str_at(c, "interface_b", "id"), S3 ":1");
    /* more hellos: no new event */
    packet_in(S3, 1, 2, 1);
    ck_assert_uint_eq(count("kytos/of_lldp.liveness.up"), 1);
    r = req("GET", LL "v1/liveness/pair", NULL);
    c = json_object_array_get_idx(json_object_object_get(kytos_test_resp_json(r), "pairs"), 0);
    ck_assert_str_eq(str_at(c, "status", NULL), "up");
    ck_assert_str_eq(str_at(c, "interface_a", "id"), S2 ":1");
    ck_assert_str_eq(str_at(c, "interface_a", "status"), "up");
    ck_assert_ptr_nonnull(str_at(c, "interface_a", "last_hello_at"));
    ck_assert_ptr_nonnull(str_at(c, "link_id", NULL));
    kytos_test_resp_free(r);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    l = topo_link(S3 ":1", S2 ":1");
    ck_assert_str_eq(str_at(l, "metadata", "liveness_status"), "up");
    ck_assert_str_eq(str_at(l, "status", NULL), "UP");
    json_object_put(l);
    /* the frames stop: dead after more than 1 s (polling 1 x multiplier 1) */
    ck_assert(await_until(link_down, NULL, 8000));
    ck_assert_uint_eq(count("kytos/of_lldp.liveness.down"), 1);
    /* disabling liveness removes the metadata: the link is UP again */
    expect("POST", LL "v1/liveness/disable", "{\"interfaces\":[\"" S2 ":1\",\"" S3 ":1\"]}", 200, "{}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    l = topo_link(S3 ":1", S2 ":1");
    ck_assert_ptr_null(str_at(l, "metadata", "liveness_status"));
    ck_assert_str_eq(str_at(l, "status", NULL), "UP");
    json_object_put(l);
    expect("GET", LL "v1/liveness/pair", NULL, 200, "{\"pairs\":[]}");
}
END_TEST

static bool loop_stopped(const void *ud)
{
    (void)ud;
    return count("kytos/of_lldp.loop.stopped") >= 1;
}

START_TEST(loop_detected_and_stopped)
{
    struct json_object *c;
    kytos_test_resp *r;

    /* S1:1's frame back on S1:2: port_a 2 > port_b 1, Kytos checks the other way only */
    packet_in(S1, 2, 1, 1);
    ck_assert_uint_eq(count("kytos/of_lldp.loop.detected"), 0);
    packet_in_until("kytos/of_lldp.loop.detected", 1, S1, 1, 1, 2);
    ck_assert_uint_eq(count("kytos/of_lldp.loop.action.log"), 1);
    c = kytos_test_published(th, "kytos/of_lldp.loop.detected", 0);
    ck_assert_str_eq(json_object_to_json_string_ext(c, JSON_C_TO_STRING_PLAIN),
                     "{\"interface_id\":\"" S1 ":1\",\"dpid\":\"" S1 "\",\"port_numbers\":[1,2]}");
    r = req("GET", TOPO "interfaces/" S1 ":1/metadata", NULL);
    ck_assert_ptr_nonnull(str_at(kytos_test_resp_json(r), "metadata", "looped"));
    kytos_test_resp_free(r);
    ck_assert(await_until(loop_stopped, NULL, 8000));
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    r = req("GET", TOPO "interfaces/" S1 ":1/metadata", NULL);
    ck_assert_ptr_null(str_at(kytos_test_resp_json(r), "metadata", "looped"));
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(rest_codes_and_texts)
{
    kytos_test_resp *r;
    struct json_object *ids;
    bool has = false;

    r = req("GET", LL "v1/interfaces", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ids = json_object_object_get(kytos_test_resp_json(r), "interfaces");
    for (size_t k = 0; k < json_object_array_length(ids); k++)
        has |= !strcmp(json_object_get_string(json_object_array_get_idx(ids, k)), S1 ":1");
    ck_assert(has);
    kytos_test_resp_free(r);

    expect("POST", LL "v1/interfaces/disable", "{\"interfaces\":[\"" S1 ":1\",\"nope\",\"\"]}", 400,
           "{\"Some interfaces couldn't be found and deactivated: \":[\"nope\"]}");
    ck_assert_uint_eq(count("kytos/of_lldp.network_status.updated"), 1);
    ck_assert_str_eq(json_object_to_json_string_ext(
                         kytos_test_published(th, "kytos/of_lldp.network_status.updated", 0),
                         JSON_C_TO_STRING_PLAIN),
                     "{\"attribute\":\"LLDP\",\"state\":\"disabled\",\"interface_ids\":[\"" S1 ":1\"]}");
    ck_assert_uint_eq(count("kytos/of_lldp.liveness.disabled"), 1);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    /* topology applied it */
    r = req("GET", TOPO "interfaces", NULL);
    ck_assert_str_eq(json_object_to_json_string(json_object_object_get(
                         json_object_object_get(json_object_object_get(kytos_test_resp_json(r), "interfaces"),
                                                S1 ":1"),
                         "lldp")),
                     "false");
    kytos_test_resp_free(r);
    expect("POST", LL "v1/liveness/enable", "{\"interfaces\":[\"" S1 ":1\"]}", 400,
           "{\"description\":\"Interface IDs ['" S1 ":1'] don't have LLDP enabled\",\"code\":400}");
    expect("POST", LL "v1/interfaces/enable", "{\"interfaces\":[\"" S1 ":1\"]}", 200,
           "\"All the requested interfaces have been enabled.\"");
    expect("POST", LL "v1/interfaces/enable", "{\"interfaces\":[\"x\"]}", 400,
           "{\"Some interfaces couldn't be found and activated: \":[\"x\"]}");
    expect("POST", LL "v1/interfaces/enable", "[1]", 400, NULL);

    expect("POST", LL "v1/liveness/enable", "{\"interfaces\":[]}", 400,
           "{\"description\":\"Interfaces payload is empty\",\"code\":400}");
    expect("POST", LL "v1/liveness/enable", "{}", 400,
           "{\"description\":\"Interfaces payload is empty\",\"code\":400}");
    expect("POST", LL "v1/liveness/disable", "{\"interfaces\":[\"" S1 ":1\",\"a\",\"a\"]}", 404,
           "{\"description\":\"Interface IDs {'a'} not found\",\"code\":404}");
    expect("POST", LL "v1/liveness/enable", "{\"interfaces\":[\"" S1 ":1\"]}", 200, "{}");
    expect("GET", LL "v1/liveness/", NULL, 200,
           "{\"interfaces\":[{\"id\":\"" S1 ":1\",\"status\":\"init\",\"last_hello_at\":null}]}");
    expect("GET", LL "v1/liveness/?interface_id=other", NULL, 200, "{\"interfaces\":[]}");
    /* persisted */
    r = req("GET", LL "v1/liveness/pair", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    kytos_test_resp_free(r);

    expect("GET", LL "v1/polling_time", NULL, 200, "{\"polling_time\":1}");
    expect("POST", LL "v1/polling_time", "{\"polling_time\":0}", 400,
           "{\"description\":\"invalid polling_time 0, must be greater than zero\",\"code\":400}");
    expect("POST", LL "v1/polling_time", "{}", 400,
           "{\"description\":\"This operation is not completed: 'polling_time'\",\"code\":400}");
    expect("POST", LL "v1/polling_time", "{\"polling_time\":\"abc\"}", 400,
           "{\"description\":\"This operation is not completed: invalid literal for int() with "
           "base 10: 'abc'\",\"code\":400}");
    expect("POST", LL "v1/polling_time", "{\"polling_time\":\"7\"}", 200,
           "\"Polling time has been updated.\"");
    expect("GET", LL "v1/polling_time", NULL, 200, "{\"polling_time\":7}");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("of_lldp");
    TCase *tc;
#define CASE(name)                                                        \
    tc = kytos_check_case(s, #name, setup, teardown, 60);                 \
    tcase_add_test(tc, name)
    CASE(punt_flow_follows_switch_enable);
    CASE(packet_out_round);
    CASE(link_discovered_from_packet_in);
    CASE(forged_frames_make_nothing);
    CASE(liveness_up_then_down);
    CASE(loop_detected_and_stopped);
    CASE(rest_codes_and_texts);
    CASE(vlan_used_again_after_a_restart);
#undef CASE
    return s;
}

int main(void)
{
    int rc;

    tmp_dir_make("test_of_lldp");
    rc = kytos_check_run(suite());
    tmp_dir_remove();
    return rc;
}
