/* tests/napps/test_topology.c - kytos/topology through the in-process test
 * host, fed by kytos/simnet: GET v3/ byte for byte against
 * tests/data/fixtures/gen_topology.py (saved as test_topology_ring*.json),
 * enable/disable, metadata, deletes, link down/up, the link-up timer,
 * persistence across a host restart, hostile events and bodies, re-cabling
 * (links left behind by it), interface tag ranges
 * and special tags (and their interface_details documents), changes
 * the store refuses (500, put back in memory), and refused writes nothing
 * puts back (an event's), written again until the store takes them. */
#include "check_tap.h"
#include "await.h"
#include <kytos/kytos.h>
#include <kytos/test.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include <ftw.h>

#define TOPO_SO NAPP_DIR "/topology.so"
#define SIMNET_SO NAPP_DIR "/simnet.so"
#define SEED_SO SEED_DIR "/test_topology_seed.so"
#define API "/api/kytos/topology/v3/"
#define SIM "/api/kytos/simnet/v1/"

#define S1 "00:00:00:00:00:00:00:01"
#define S2 "00:00:00:00:00:00:00:02"
#define S3 "00:00:00:00:00:00:00:03"
#define L12 "78282c4d5b579265f04ebadc4405ca1b49628eb1d684bb45e5d0607fa8b713d0" /* s1:3-s2:2 */
#define L23 "4d42dc0852278accac7d9df15418f6d921db160b13d674029a87cef1b5f67f30" /* s2:3-s3:2 */
#define L13 "c8b55359990f89a5849813dc348d30e9e1f991bad1dcb7f82112bd35429d9b07" /* s1:4-s3:3 */

#define CONF_FAST "[kytos/topology]\nlink_up_timer = 0\n"

static kytos_test_host *th;

static kytos_test_host *host_with(const char *conf, const char *data_dir, bool simnet)
{
    struct kytos_test_opts o = {.struct_size = sizeof(o), .conf_text = conf, .data_dir = data_dir};
    kytos_test_host *h = kytos_test_host_new(&o);

    ck_assert_ptr_nonnull(h);
    ck_assert_msg(kytos_test_load(h, TOPO_SO) == 0, "topology: %s", kytos_test_last_error(h));
    if (simnet)
        ck_assert_msg(kytos_test_load(h, SIMNET_SO) == 0, "simnet: %s", kytos_test_last_error(h));
    ck_assert_int_eq(kytos_test_start(h), 0);
    ck_assert_int_eq(kytos_test_drain(h, 10000), 0);
    return h;
}

static void setup(void)
{
    th = host_with(CONF_FAST, NULL, true);
}

static void teardown(void)
{
    kytos_test_host_free(th);
    th = NULL;
}

static char *read_fixture(const char *name, size_t *len)
{
    char path[512];
    FILE *f;
    char *buf;
    long n;

    snprintf(path, sizeof(path), "%s/%s", FIXTURE_DIR, name);
    f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    while (n > 0 && buf[n - 1] == '\n')
        n--;  /* gen_topology.py ends with a newline */
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

/* Request, check the status, keep the response for the caller. */
static kytos_test_resp *call(const char *method, const char *path, const char *body, unsigned status)
{
    kytos_test_resp *r = kytos_test_request(th, method, path, body);
    size_t len = 0;

    ck_assert_ptr_nonnull(r);
    ck_assert_msg(kytos_test_resp_status(r) == status, "%s %s: %u, want %u: %.300s", method, path,
                  kytos_test_resp_status(r), status, kytos_test_resp_body(r, &len));
    return r;
}

/* Request expecting an error body with this description. */
static void expect_error(const char *method, const char *path, const char *body, unsigned status,
                         const char *description)
{
    kytos_test_resp *r = call(method, path, body, status);
    struct json_object *j = kytos_test_resp_json(r), *d = NULL, *c = NULL;

    ck_assert_ptr_nonnull(j);
    ck_assert(json_object_object_get_ex(j, "description", &d));
    ck_assert(json_object_object_get_ex(j, "code", &c));
    ck_assert_str_eq(json_object_get_string(d), description);
    ck_assert_int_eq(json_object_get_int(c), (int)status);
    kytos_test_resp_free(r);
}

/* Request expecting the JSON string body text. */
static void expect_ok(const char *method, const char *path, const char *body, unsigned status,
                      const char *text)
{
    kytos_test_resp *r = call(method, path, body, status);
    struct json_object *j = kytos_test_resp_json(r);

    ck_assert(json_object_is_type(j, json_type_string));
    ck_assert_str_eq(json_object_get_string(j), text);
    kytos_test_resp_free(r);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
}

/* GET v3/ parsed; the caller puts it. */
static struct json_object *topology(void)
{
    kytos_test_resp *r = call("GET", API, NULL, 200);
    struct json_object *j = kytos_test_resp_json(r), *t = NULL, *copy = NULL;

    ck_assert(json_object_object_get_ex(j, "topology", &t));
    ck_assert_int_eq(json_object_deep_copy(t, &copy, NULL), 0);
    kytos_test_resp_free(r);
    return copy;
}

/* Any GET's JSON body (200), a copy the caller puts. */
static struct json_object *get_json(const char *path)
{
    kytos_test_resp *r = call("GET", path, NULL, 200);
    struct json_object *copy = NULL;

    ck_assert_int_eq(json_object_deep_copy(kytos_test_resp_json(r), &copy, NULL), 0);
    kytos_test_resp_free(r);
    return copy;
}

static struct json_object *path_get(struct json_object *o, const char *a, const char *b, const char *c)
{
    struct json_object *v = o;

    if (a)
        ck_assert_msg(json_object_object_get_ex(v, a, &v), "missing %s", a);
    if (b)
        ck_assert_msg(json_object_object_get_ex(v, b, &v), "missing %s", b);
    if (c)
        ck_assert_msg(json_object_object_get_ex(v, c, &v), "missing %s", c);
    return v;
}

static const char *link_status(const char *link_id)
{
    static char buf[16];
    struct json_object *t = topology();

    snprintf(buf, sizeof(buf), "%s", json_object_get_string(path_get(t, "links", link_id, "status")));
    json_object_put(t);
    return buf;
}

static bool get_bool3(const char *a, const char *b, const char *c)
{
    struct json_object *t = topology();
    bool v = json_object_get_boolean(path_get(t, a, b, c));

    json_object_put(t);
    return v;
}

static const char *last_reason(const char *event)
{
    size_t n = kytos_test_published_count(th, event);
    struct json_object *c, *r = NULL;

    ck_assert_uint_gt(n, 0);
    c = kytos_test_published(th, event, n - 1);
    ck_assert(json_object_object_get_ex(c, "reason", &r));
    return json_object_get_string(r);
}

/* topology (conf, data in dir: NULL for a fresh one, printing log lines of
 * log_level and up: 0 for the default), simnet if asked, and the seed NApp
 * to read what topology stored. */
static kytos_test_host *host_seeded(const char *conf, const char *dir, bool simnet, int log_level)
{
    struct kytos_test_opts o = {.struct_size = sizeof(o), .conf_text = conf, .data_dir = dir,
                                .log_level = log_level};
    kytos_test_host *h = kytos_test_host_new(&o);

    ck_assert_ptr_nonnull(h);
    ck_assert_msg(kytos_test_load(h, TOPO_SO) == 0, "topology: %s", kytos_test_last_error(h));
    if (simnet)
        ck_assert_msg(kytos_test_load(h, SIMNET_SO) == 0, "simnet: %s", kytos_test_last_error(h));
    ck_assert_msg(kytos_test_load(h, SEED_SO) == 0, "seed: %s", kytos_test_last_error(h));
    ck_assert_int_eq(kytos_test_start(h), 0);
    ck_assert_int_eq(kytos_test_drain(h, 10000), 0);
    return h;
}

/* topology and simnet, plus the seed NApp to read what topology stored. */
static kytos_test_host *host_with_seed(void)
{
    return host_seeded(CONF_FAST, NULL, true, 0);
}

/* The stored document (a copy the caller puts), or NULL when there is none. */
static struct json_object *stored(const char *coll, const char *id)
{
    char path[256];
    kytos_test_resp *r;
    struct json_object *copy = NULL;

    snprintf(path, sizeof(path), "/api/kytos/topo_seed/v1/%s/%s", coll, id);
    r = kytos_test_request(th, "GET", path, NULL);
    ck_assert_ptr_nonnull(r);
    if (kytos_test_resp_status(r) == 200)
        ck_assert_int_eq(json_object_deep_copy(kytos_test_resp_json(r), &copy, NULL), 0);
    else
        ck_assert_uint_eq(kytos_test_resp_status(r), 404);
    kytos_test_resp_free(r);
    return copy;
}

/* The entry of a stored switch document's "interfaces" array with this id. */
static struct json_object *stored_intf(struct json_object *sw_doc, const char *intf_id)
{
    struct json_object *list = path_get(sw_doc, "interfaces", NULL, NULL);

    for (size_t k = 0; k < json_object_array_length(list); k++) {
        struct json_object *i = json_object_array_get_idx(list, k);
        if (strcmp(json_object_get_string(path_get(i, "id", NULL, NULL)), intf_id) == 0)
            return i;
    }
    return NULL;
}

/* The stored switch document's interface names this link ("" for none). */
static void expect_stored_link(const char *dpid, const char *intf, const char *link)
{
    struct json_object *doc = stored("switches", dpid);

    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(json_object_get_string(path_get(stored_intf(doc, intf), "link", NULL, NULL)), link);
    json_object_put(doc);
}

/* An interface dict of GET v3/ (borrowed from t). */
static struct json_object *intf_of(struct json_object *t, const char *dpid, const char *intf_id)
{
    struct json_object *i = path_get(t, "switches", dpid, "interfaces");

    ck_assert_msg(json_object_object_get_ex(i, intf_id, &i), "missing interface %s", intf_id);
    return i;
}

/* LLDP saw interface a (of switch dpid) cabled to b: the id of the link
 * a has now into link; GET v3/'s topology (the caller puts it). */
static struct json_object *lldp_saw(const char *dpid, const char *a, const char *b, char *link,
                                    size_t cap)
{
    char body[256];
    struct json_object *t;

    snprintf(body, sizeof body, "{\"interface_a\":{\"id\":\"%s\"},\"interface_b\":{\"id\":\"%s\"}}", a,
             b);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_lldp.interface.is.nni", body), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    t = topology();
    snprintf(link, cap, "%s", json_object_get_string(path_get(intf_of(t, dpid, a), "link", NULL, NULL)));
    return t;
}

/* LLDP saw s1:3 cabled to s3:1 (a host port so far): a new link for s1:3,
 * whose id goes to new_link; L12 still names s1:3 as its endpoint_a. */
static void recable_s1_3_to_s3_1(char *new_link, size_t cap)
{
    struct json_object *t = lldp_saw(S1, S1 ":3", S3 ":1", new_link, cap);

    ck_assert_str_ne(new_link, L12);
    ck_assert(json_object_object_get_ex(path_get(t, "links", NULL, NULL), new_link, NULL));
    ck_assert_str_eq(json_object_get_string(path_get(path_get(t, "links", L12, "endpoint_a"), "id", NULL, NULL)),
                     S1 ":3");
    json_object_put(t);
}

/* ---- GET v3/ shape ---- */

START_TEST(ring3_is_byte_for_byte_the_fixture)
{
    size_t want_len, len = 0;
    char *want = read_fixture("test_topology_ring3.json", &want_len);
    kytos_test_resp *r = call("GET", API, NULL, 200);
    const char *body = kytos_test_resp_body(r, &len);

    ck_assert_str_eq(kytos_test_resp_header(r, "Content-Type"), "application/json");
    ck_assert_uint_eq(len, want_len);
    ck_assert_msg(memcmp(body, want, len) == 0, "GET v3/ differs from gen_topology.py");
    kytos_test_resp_free(r);
    /* both slash forms */
    r = call("GET", "/api/kytos/topology/v3", NULL, 200);
    body = kytos_test_resp_body(r, &len);
    ck_assert_uint_eq(len, want_len);
    ck_assert(memcmp(body, want, len) == 0);
    kytos_test_resp_free(r);
    free(want);
}
END_TEST

START_TEST(ring5_setting_matches_fixture)
{
    kytos_test_host_free(th);
    th = host_with(CONF_FAST "[kytos/simnet]\nswitches = 5\n", NULL, true);
    size_t want_len, len = 0;
    char *want = read_fixture("test_topology_ring5.json", &want_len);
    kytos_test_resp *r = call("GET", API, NULL, 200);
    const char *body = kytos_test_resp_body(r, &len);

    ck_assert_uint_eq(len, want_len);
    ck_assert_msg(memcmp(body, want, len) == 0, "GET v3/ differs from gen_topology.py --switches 5");
    kytos_test_resp_free(r);
    free(want);
}
END_TEST

START_TEST(switches_interfaces_links_are_the_parts)
{
    size_t want_len;
    char *want = read_fixture("test_topology_ring3.json", &want_len);
    struct json_object *fx = json_tokener_parse(want), *fsw, *flk, *j;
    kytos_test_resp *r;
    int n_intf = 0;

    fsw = path_get(fx, "topology", "switches", NULL);
    flk = path_get(fx, "topology", "links", NULL);
    r = call("GET", API "switches", NULL, 200);
    ck_assert(json_object_equal(path_get(kytos_test_resp_json(r), "switches", NULL, NULL), fsw));
    kytos_test_resp_free(r);
    r = call("GET", API "links", NULL, 200);
    ck_assert(json_object_equal(path_get(kytos_test_resp_json(r), "links", NULL, NULL), flk));
    kytos_test_resp_free(r);
    r = call("GET", API "interfaces", NULL, 200);
    j = path_get(kytos_test_resp_json(r), "interfaces", NULL, NULL);
    json_object_object_foreach(fsw, dpid, sw) {
        json_object_object_foreach(path_get(sw, "interfaces", NULL, NULL), id, intf) {
            struct json_object *got = NULL;
            ck_assert_msg(json_object_object_get_ex(j, id, &got), "missing %s of %s", id, dpid);
            ck_assert(json_object_equal(got, intf));
            n_intf++;
        }
    }
    ck_assert_int_eq(n_intf, 13);
    ck_assert_int_eq(json_object_object_length(j), 13);
    kytos_test_resp_free(r);
    json_object_put(fx);
    free(want);
}
END_TEST

START_TEST(discovery_events)
{
    struct json_object *c, *v;

    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.topology_loaded"), 1);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.switch.enabled"), 3);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_up"), 3);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_down"), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.switch.interface.created"), 13);
    ck_assert_uint_gt(kytos_test_published_count(th, "kytos/topology.updated"), 0);
    ck_assert_str_eq(last_reason("kytos/topology.link_up"), "link up");
    c = kytos_test_published(th, "kytos/topology.link_up", 0);
    ck_assert(json_object_object_get_ex(c, "link", &v));
    ck_assert_str_eq(json_object_get_string(path_get(v, "status", NULL, NULL)), "UP");
    /* the last topology.updated carries the whole topology */
    c = kytos_test_published(th, "kytos/topology.updated",
                             kytos_test_published_count(th, "kytos/topology.updated") - 1);
    ck_assert_int_eq(json_object_object_length(path_get(c, "topology", "switches", NULL)), 3);
    ck_assert_int_eq(json_object_object_length(path_get(c, "topology", "links", NULL)), 3);
    /* ... and its generation, the one GET v3/ serves now (nothing changed
     * since): a NApp that also GETs v3/ drops an event older than that */
    {
        kytos_test_resp *r = kytos_test_request(th, "GET", "/api/kytos/topology/v3/", NULL);
        const char *h;
        int64_t last;
        ck_assert_ptr_nonnull(r);
        h = kytos_test_resp_header(r, "X-Kytos-Topology-Generation");
        ck_assert_ptr_nonnull(h);
        ck_assert(json_object_object_get_ex(c, "generation", &v));
        ck_assert(json_object_is_type(v, json_type_int));
        last = json_object_get_int64(v);
        ck_assert_str_eq(json_object_to_json_string(v), h);
        kytos_test_resp_free(r);
        c = kytos_test_published(th, "kytos/topology.topology_loaded", 0);
        ck_assert(json_object_object_get_ex(c, "generation", &v));
        ck_assert_int_gt(json_object_get_int64(v), 0);
        ck_assert_int_lt(json_object_get_int64(v), last);
    }
    ck_assert(json_object_object_get_ex(c, "failed_switches", NULL));
    ck_assert(json_object_object_get_ex(c, "failed_links", NULL));
}
END_TEST

/* ---- switches ---- */

START_TEST(switch_disable_enable)
{
    struct json_object *t, *c;

    expect_ok("POST", API "switches/" S1 "/disable", NULL, 201, "Operation successful");
    t = topology();
    ck_assert(!json_object_get_boolean(path_get(t, "switches", S1, "enabled")));
    ck_assert_str_eq(json_object_get_string(path_get(t, "switches", S1, "status")), "DISABLED");
    ck_assert_str_eq(json_object_to_json_string_ext(path_get(t, "switches", S1, "status_reason"),
                                                    JSON_C_TO_STRING_PLAIN),
                     "[\"disabled\"]");
    ck_assert(!json_object_get_boolean(path_get(t, "links", L12, "enabled")));
    ck_assert_str_eq(json_object_get_string(path_get(t, "links", L12, "status")), "DISABLED");
    ck_assert_str_eq(json_object_get_string(path_get(t, "links", L13, "status")), "DISABLED");
    ck_assert_str_eq(json_object_get_string(path_get(t, "links", L23, "status")), "UP");
    json_object_put(t);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.switch.disabled"), 1);
    c = kytos_test_published(th, "kytos/topology.switch.disabled", 0);
    ck_assert_str_eq(json_object_get_string(path_get(c, "dpid", NULL, NULL)), S1);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link.disabled"), 2);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_down"), 2);
    ck_assert_str_eq(last_reason("kytos/topology.link_down"), "link disabled");

    /* enabling the switch alone does not bring its interfaces back */
    expect_ok("POST", API "switches/" S1 "/enable", NULL, 201, "Operation successful");
    ck_assert(get_bool3("switches", S1, "enabled"));
    ck_assert_str_eq(link_status(L12), "DISABLED");
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.switch.enabled"), 4);
    expect_ok("POST", API "interfaces/switch/" S1 "/enable", NULL, 200, "Operation successful");
    ck_assert_str_eq(link_status(L12), "DISABLED"); /* the link itself is still disabled */
    expect_ok("POST", API "links/" L12 "/enable", NULL, 201, "Operation successful");
    ck_assert_str_eq(link_status(L12), "UP");
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_up"), 4);
    ck_assert_str_eq(last_reason("kytos/topology.link_up"), "link enabled");

    expect_error("POST", API "switches/00:00:00:00:00:00:00:99/enable", NULL, 404, "Switch not found");
    expect_error("POST", API "switches/00:00:00:00:00:00:00:99/disable", NULL, 404, "Switch not found");
}
END_TEST

START_TEST(switch_delete_rules)
{
    expect_error("DELETE", API "switches/00:00:00:00:00:00:00:99", NULL, 404, "Switch not found.");
    expect_error("DELETE", API "switches/" S1, NULL, 409, "Switch should be disabled.");
    expect_ok("POST", API "switches/" S1 "/disable", NULL, 201, "Operation successful");
    expect_error("DELETE", API "switches/" S1, NULL, 409,
                 "Switch should not have links. Link found " L12 ".");
    expect_ok("DELETE", API "links/" L12, NULL, 200, "Operation successful");
    expect_ok("DELETE", API "links/" L13, NULL, 200, "Operation successful");
    expect_ok("DELETE", API "switches/" S1, NULL, 200, "Operation successful");
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.switch.deleted"), 1);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link.deleted"), 2);
    expect_error("GET", API "switches/" S1 "/metadata", NULL, 404, "Switch not found");
}
END_TEST

START_TEST(switch_metadata)
{
    static const char *const text_plain[] = {"Content-Type: text/plain", NULL};
    kytos_test_resp *r;
    struct json_object *c;

    expect_ok("POST", API "switches/" S2 "/metadata", "{\"lat\":\"-10.5\",\"owner\":{\"a\":[1,2]}}",
              201, "Operation successful");
    r = call("GET", API "switches/" S2 "/metadata", NULL, 200);
    ck_assert_str_eq(json_object_to_json_string_ext(kytos_test_resp_json(r), JSON_C_TO_STRING_PLAIN),
                     "{\"metadata\":{\"lat\":\"-10.5\",\"owner\":{\"a\":[1,2]}}}");
    kytos_test_resp_free(r);
    c = kytos_test_published(th, "kytos/topology.switches.metadata.added", 0);
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(json_object_get_string(path_get(c, "switch", "id", NULL)), S2);
    ck_assert_str_eq(json_object_get_string(path_get(c, "metadata", "lat", NULL)), "-10.5");
    /* lat alone is not enough: GET v3/ fills both in */
    {
        struct json_object *t = topology();
        ck_assert_str_eq(json_object_get_string(path_get(t, "switches", S2, "metadata")),
                         "{ \"lat\": \"0.0\", \"owner\": { \"a\": [ 1, 2 ] }, \"lng\": \"-20.0\" }");
        json_object_put(t);
    }
    expect_ok("DELETE", API "switches/" S2 "/metadata/owner", NULL, 200, "Operation successful");
    expect_error("DELETE", API "switches/" S2 "/metadata/owner", NULL, 404, "Metadata not found");
    expect_error("DELETE", API "switches/00:00:00:00:00:00:00:99/metadata/x", NULL, 404,
                 "Switch not found");
    expect_error("GET", API "switches/00:00:00:00:00:00:00:99/metadata", NULL, 404, "Switch not found");
    expect_error("POST", API "switches/00:00:00:00:00:00:00:99/metadata", "{\"a\":1}", 404,
                 "Switch not found");
    expect_error("POST", API "switches/" S2 "/metadata", "[1,2]", 400,
                 "Invalid metadata value: {metadata}");
    expect_error("POST", API "switches/" S2 "/metadata", "\"text\"", 400,
                 "Invalid metadata value: {metadata}");
    /* JSON null is a value, not an object; no body is no value */
    expect_error("POST", API "switches/" S2 "/metadata", "null", 400,
                 "Invalid metadata value: {metadata}");
    expect_error("POST", API "switches/" S2 "/metadata", "", 400,
                 "Invalid json: Expecting value: line 1 column 1 (char 0)");
    r = kytos_test_request_h(th, "POST", API "switches/" S2 "/metadata", "{\"a\":1}", text_plain);
    ck_assert_uint_eq(kytos_test_resp_status(r), 415);
    ck_assert_str_eq(json_object_get_string(path_get(kytos_test_resp_json(r), "description", NULL, NULL)),
                     "Expected Content-Type: application/json, got: text/plain");
    kytos_test_resp_free(r);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.switches.metadata.removed"), 1);
}
END_TEST

START_TEST(metadata_bad_json_is_400)
{
    kytos_test_resp *r = kytos_test_request(th, "POST", API "switches/" S1 "/metadata", "{\"a\":");
    const char *d;

    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    d = json_object_get_string(path_get(kytos_test_resp_json(r), "description", NULL, NULL));
    ck_assert_msg(strncmp(d, "Invalid json", 12) == 0, "%s", d);
    kytos_test_resp_free(r);
    r = kytos_test_request(th, "POST", API "switches/" S1 "/metadata", "{\"a\":1} x");
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    kytos_test_resp_free(r);
    r = kytos_test_request(th, "POST", API "switches/" S1 "/metadata", "");
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    kytos_test_resp_free(r);
    /* nothing was stored */
    r = call("GET", API "switches/" S1 "/metadata", NULL, 200);
    ck_assert_int_eq(json_object_object_length(path_get(kytos_test_resp_json(r), "metadata", NULL, NULL)), 0);
    kytos_test_resp_free(r);
}
END_TEST

/* What json-c let through (and Python's json.loads refuses, or the store
 * cannot hold) is refused before anything changes: GET v3/ stays valid
 * JSON and the same, nothing is stored, no metadata event goes out. */
START_TEST(metadata_strict_json_is_400)
{
    static const char *const paths[] = {
        API "switches/" S1 "/metadata",
        API "interfaces/" S1 ":1/metadata",
        API "links/" L12 "/metadata",
    };
    static const char *const bodies[][2] = {
        {"{\"a\":NaN}", "Expecting value (NaN is not JSON): line 1 column 6 (char 5)"},
        {"{\"a\":Infinity}", "Expecting value (Infinity is not JSON): line 1 column 6 (char 5)"},
        {"{\"a\":-Infinity}", "Expecting value (Infinity is not JSON): line 1 column 6 (char 5)"},
        {"{\"a\":1.}", "Expecting ',' delimiter: line 1 column 7 (char 6)"},
        {"{\"a\":\"\xff\"}", "Invalid UTF-8 in string at: line 1 column 7 (char 6)"},
        {"{\"a\":\"x\ny\"}", "Invalid control character at: line 1 column 8 (char 7)"},
        {"{'a':1}", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
        {"{\"a\":123456789012345678901234567890}",
         "Integer out of range (-2^63 .. 2^64-1) at: line 1 column 6 (char 5)"},
    };
    struct json_object *before, *after, *doc;
    char want[160];

    kytos_test_host_free(th);
    th = host_with_seed();
    before = topology();
    for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
        for (size_t b = 0; b < sizeof(bodies) / sizeof(bodies[0]); b++) {
            snprintf(want, sizeof(want), "Invalid json: %s", bodies[b][1]);
            expect_error("POST", paths[p], bodies[b][0], 400, want);
        }
    }
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    after = topology();  /* parsed strictly: fails on invalid JSON */
    ck_assert_msg(json_object_equal(before, after), "GET v3/ changed:\n%s",
                  json_object_to_json_string(after));
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.switches.metadata.added"), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.interfaces.metadata.added"), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.links.metadata.added"), 0);
    doc = stored("switches", S1);
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(json_object_object_length(path_get(doc, "metadata", NULL, NULL)), 0);
    ck_assert_int_eq(json_object_object_length(path_get(stored_intf(doc, S1 ":1"), "metadata", NULL, NULL)), 0);
    json_object_put(doc);
    doc = stored("links", L12);
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(json_object_object_length(path_get(doc, "metadata", NULL, NULL)), 0);
    json_object_put(doc);
    /* a good body still goes in */
    expect_ok("POST", paths[0], "{\"a\":1.5e3}", 201, "Operation successful");
    json_object_put(before);
    json_object_put(after);
}
END_TEST

/* ---- interfaces ---- */

START_TEST(interface_enable_disable)
{
    expect_ok("POST", API "interfaces/" S1 ":3/disable", NULL, 200, "Operation successful");
    ck_assert(!get_bool3("switches", S1, "interfaces") || true);
    {
        struct json_object *t = topology();
        struct json_object *i = path_get(t, "switches", S1, "interfaces");
        ck_assert(json_object_object_get_ex(i, S1 ":3", &i));
        ck_assert(!json_object_get_boolean(path_get(i, "enabled", NULL, NULL)));
        ck_assert_str_eq(json_object_get_string(path_get(i, "status", NULL, NULL)), "DISABLED");
        ck_assert_str_eq(json_object_get_string(path_get(t, "links", L12, "status")), "DISABLED");
        json_object_put(t);
    }
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.interface.disabled"), 1);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_down"), 1);
    expect_error("POST", API "links/" L12 "/enable", NULL, 409, S1 ":3 needs enabling.");
    expect_ok("POST", API "interfaces/" S1 ":3/enable", NULL, 200, "Operation successful");
    expect_ok("POST", API "links/" L12 "/enable", NULL, 201, "Operation successful");
    ck_assert_str_eq(link_status(L12), "UP");

    expect_error("POST", API "interfaces/" S1 ":99/enable", NULL, 404, "Switch " S1 " interface 99 not found");
    expect_error("POST", API "interfaces/" S1 ":99/disable", NULL, 404, "Switch " S1 " interface 99 not found");
    expect_error("POST", API "interfaces/00:00:00:00:00:00:00:99:1/enable", NULL, 404, "Switch not found");
    expect_error("POST", API "interfaces/nocolon/disable", NULL, 404, "Switch not found");
    expect_error("POST", API "interfaces/" S1 ":x/disable", NULL, 400, "Invalid interface_id " S1 ":x");
    expect_error("POST", API "interfaces/switch/00:00:00:00:00:00:00:99/enable", NULL, 404, "Switch not found");

    /* a disabled switch: interfaces cannot be enabled */
    expect_ok("POST", API "switches/" S3 "/disable", NULL, 201, "Operation successful");
    expect_error("POST", API "interfaces/switch/" S3 "/enable", NULL, 409, "Enable Switch first");
    expect_error("POST", API "interfaces/" S3 ":1/enable", NULL, 409, "Enable Switch first");
    expect_ok("POST", API "interfaces/switch/" S2 "/disable", NULL, 200, "Operation successful");
    ck_assert_str_eq(link_status(L23), "DISABLED");
}
END_TEST

START_TEST(interface_metadata)
{
    kytos_test_resp *r;

    expect_ok("POST", API "interfaces/" S1 ":1/metadata", "{\"speed_note\":1.5}", 201,
              "Operation successful");
    r = call("GET", API "interfaces/" S1 ":1/metadata", NULL, 200);
    ck_assert_str_eq(json_object_to_json_string_ext(kytos_test_resp_json(r), JSON_C_TO_STRING_PLAIN),
                     "{\"metadata\":{\"speed_note\":1.5}}");
    kytos_test_resp_free(r);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.interfaces.metadata.added"), 1);
    expect_ok("DELETE", API "interfaces/" S1 ":1/metadata/speed_note", NULL, 200, "Operation successful");
    expect_error("DELETE", API "interfaces/" S1 ":1/metadata/speed_note", NULL, 404, "Metadata not found");
    expect_error("GET", API "interfaces/" S1 ":77/metadata", NULL, 404, "Interface not found");
    expect_error("GET", API "interfaces/00:00:00:00:00:00:00:99:1/metadata", NULL, 404, "Switch not found");
    expect_error("GET", API "interfaces/" S1 ":a/metadata", NULL, 400, "Invalid interface_id " S1 ":a");
    expect_error("DELETE", API "interfaces/" S1 ":a/metadata/k", NULL, 400, "Invalid interface_id " S1 ":a");
    expect_error("POST", API "interfaces/" S1 ":77/metadata", "{\"a\":1}", 404, "Interface not found");
    expect_error("POST", API "interfaces/" S1 ":1/metadata", "3", 400, "Invalid metadata value: {metadata}");
}
END_TEST

START_TEST(interface_delete_rules)
{
    expect_error("DELETE", API "interfaces/" S1 ":x", NULL, 400, "Invalid interface id.");
    expect_error("DELETE", API "interfaces/00:00:00:00:00:00:00:99:1", NULL, 404, "Switch not found.");
    expect_error("DELETE", API "interfaces/" S1 ":77", NULL, 404, "Interface not found.");
    expect_error("DELETE", API "interfaces/" S1 ":1", NULL, 409,
                 "Interface could not be deleted. Reason: It is enabled or active.");
    expect_ok("POST", API "interfaces/" S1 ":3/disable", NULL, 200, "Operation successful");
    expect_ok("POST", SIM "interfaces/" S1 ":3/down", NULL, 200, "Operation successful");
    expect_error("DELETE", API "interfaces/" S1 ":3", NULL, 409,
                 "Interface could not be deleted. Reason: It has a link, " L12 ".");
    /* LOCAL is down already: disable it and it can go */
    expect_ok("POST", API "interfaces/" S1 ":4294967294/disable", NULL, 200, "Operation successful");
    expect_ok("DELETE", API "interfaces/" S1 ":4294967294", NULL, 200, "Operation Successful");
    expect_error("GET", API "interfaces/" S1 ":4294967294/metadata", NULL, 404, "Interface not found");
}
END_TEST

/* s1:3 re-cabled to s3:1, then that new link deleted: s1:3 has no link of
 * its own but the stale L12 still names it.  Disabled and down, it passes
 * every other check of an interface delete. */
static void stale_link_endpoint(void)
{
    char new_link[80];

    recable_s1_3_to_s3_1(new_link, sizeof(new_link));
    {
        char path[160];
        snprintf(path, sizeof(path), API "links/%s/disable", new_link);
        expect_ok("POST", path, NULL, 201, "Operation successful");
        snprintf(path, sizeof(path), API "links/%s", new_link);
        expect_ok("DELETE", path, NULL, 200, "Operation successful");
    }
    expect_ok("POST", API "interfaces/" S1 ":3/disable", NULL, 200, "Operation successful");
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.switch.interface.link_down",
                                        "{\"interface\":{\"id\":\"" S1 ":3\"}}"),
                     0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    {
        struct json_object *t = topology(), *i = intf_of(t, S1, S1 ":3");
        ck_assert_str_eq(json_object_get_string(path_get(i, "link", NULL, NULL)), "");
        ck_assert(!json_object_get_boolean(path_get(i, "active", NULL, NULL)));
        ck_assert(!json_object_get_boolean(path_get(i, "enabled", NULL, NULL)));
        json_object_put(t);
    }
}

/* GET v3/ still shows L12 whole, s1:3 as its endpoint_a (the build with
 * sanitizers catches a read of a freed interface here). */
static void l12_still_ends_at_s1_3(void)
{
    struct json_object *t = topology(), *a;

    ck_assert_str_eq(json_object_get_string(path_get(intf_of(t, S1, S1 ":3"), "id", NULL, NULL)), S1 ":3");
    a = path_get(t, "links", L12, "endpoint_a");
    ck_assert_str_eq(json_object_get_string(path_get(a, "id", NULL, NULL)), S1 ":3");
    ck_assert_str_eq(json_object_get_string(path_get(a, "name", NULL, NULL)), "s1-eth3");
    ck_assert_str_eq(json_object_get_string(path_get(path_get(t, "links", L12, "endpoint_b"), "id", NULL, NULL)),
                     S2 ":2");
    json_object_put(t);
}

START_TEST(interface_delete_refused_while_a_stale_link_has_it)
{
    struct json_object *doc;

    kytos_test_host_free(th);
    th = host_with_seed();
    stale_link_endpoint();
    expect_error("DELETE", API "interfaces/" S1 ":3", NULL, 409,
                 "Interface could not be deleted. Reason: It has a link, " L12 ".");
    l12_still_ends_at_s1_3();
    doc = stored("switches", S1);
    ck_assert_ptr_nonnull(stored_intf(doc, S1 ":3"));
    json_object_put(doc);

    /* once the stale link is gone, so can the interface be */
    expect_ok("POST", API "links/" L12 "/disable", NULL, 201, "Operation successful");
    expect_ok("DELETE", API "links/" L12, NULL, 200, "Operation successful");
    expect_ok("DELETE", API "interfaces/" S1 ":3", NULL, 200, "Operation Successful");
    expect_error("GET", API "interfaces/" S1 ":3/metadata", NULL, 404, "Interface not found");
    doc = stored("switches", S1);
    ck_assert_ptr_null(stored_intf(doc, S1 ":3"));
    json_object_put(doc);
}
END_TEST

/* The port-deleted event removes a disabled, down interface, but not one a
 * stale link still names: that link keeps its endpoint. */
START_TEST(interface_deleted_event_keeps_a_stale_link_endpoint)
{
    kytos_test_host_free(th);
    th = host_with_seed();
    stale_link_endpoint();
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.switch.interface.deleted",
                                        "{\"interface\":{\"id\":\"" S1 ":3\"}}"),
                     0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    l12_still_ends_at_s1_3();
    expect_ok("POST", API "links/" L12 "/metadata", "{\"k\":1}", 201, "Operation successful");
    l12_still_ends_at_s1_3();

    /* without a link naming it, the same event removes it */
    expect_ok("POST", API "links/" L12 "/disable", NULL, 201, "Operation successful");
    expect_ok("DELETE", API "links/" L12, NULL, 200, "Operation successful");
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.switch.interface.deleted",
                                        "{\"interface\":{\"id\":\"" S1 ":3\"}}"),
                     0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    expect_error("GET", API "interfaces/" S1 ":3/metadata", NULL, 404, "Interface not found");
}
END_TEST

/* ---- links ---- */

START_TEST(link_metadata_and_delete)
{
    kytos_test_resp *r;
    size_t before = kytos_test_published_count(th, "kytos/topology.updated");

    expect_ok("POST", API "links/" L23 "/metadata", "{\"bandwidth\":10,\"ownership\":\"red\"}", 201,
              "Operation successful");
    ck_assert_uint_gt(kytos_test_published_count(th, "kytos/topology.updated"), before);
    r = call("GET", API "links/" L23 "/metadata", NULL, 200);
    ck_assert_str_eq(json_object_to_json_string_ext(kytos_test_resp_json(r), JSON_C_TO_STRING_PLAIN),
                     "{\"metadata\":{\"bandwidth\":10,\"ownership\":\"red\"}}");
    kytos_test_resp_free(r);
    expect_ok("DELETE", API "links/" L23 "/metadata/bandwidth", NULL, 200, "Operation successful");
    expect_error("DELETE", API "links/" L23 "/metadata/bandwidth", NULL, 404, "Metadata not found");
    expect_error("GET", API "links/nope/metadata", NULL, 404, "Link not found");
    expect_error("POST", API "links/nope/metadata", "{}", 404, "Link not found");
    expect_error("DELETE", API "links/nope/metadata/x", NULL, 404, "Link not found");
    expect_error("POST", API "links/nope/enable", NULL, 404, "Link not found");
    expect_error("POST", API "links/nope/disable", NULL, 404, "Link not found");
    expect_error("DELETE", API "links/nope", NULL, 404, "Link not found.");
    expect_error("DELETE", API "links/" L23, NULL, 409, "Link is not disabled.");
    expect_ok("POST", API "links/" L23 "/disable", NULL, 201, "Operation successful");
    ck_assert_str_eq(last_reason("kytos/topology.link_down"), "link disabled");
    expect_ok("DELETE", API "links/" L23, NULL, 200, "Operation successful");
    {
        struct json_object *t = topology(), *i;
        ck_assert(!json_object_object_get_ex(path_get(t, "links", NULL, NULL), L23, NULL));
        i = path_get(t, "switches", S2, "interfaces");
        ck_assert(json_object_object_get_ex(i, S2 ":3", &i));
        ck_assert_str_eq(json_object_get_string(path_get(i, "link", NULL, NULL)), "");
        ck_assert(!json_object_get_boolean(path_get(i, "nni", NULL, NULL)));
        json_object_put(t);
    }
}
END_TEST

/* After re-cabling, deleting the old link leaves the interface that moved
 * on with its new link, in memory and in the stored switch document. */
START_TEST(delete_old_link_keeps_the_recabled_endpoint)
{
    struct json_object *t, *before = NULL, *i, *doc;
    char new_link[80];

    kytos_test_host_free(th);
    th = host_with_seed();
    recable_s1_3_to_s3_1(new_link, sizeof(new_link));
    t = topology();
    ck_assert_int_eq(json_object_deep_copy(path_get(t, "links", new_link, NULL), &before, NULL), 0);
    /* the old link lost an end: DOWN, "mismatched_link" (Kytos' topology
     * status hooks), in GET v3/ and in the links list alike */
    ck_assert_str_eq(json_object_get_string(path_get(t, "links", L12, "status")), "DOWN");
    ck_assert_str_eq(json_object_to_json_string_ext(path_get(t, "links", L12, "status_reason"),
                                                    JSON_C_TO_STRING_PLAIN),
                     "[\"mismatched_link\"]");
    ck_assert_str_eq(json_object_get_string(path_get(t, "links", new_link, "status")), "UP");
    ck_assert_int_eq(json_object_array_length(path_get(t, "links", new_link, "status_reason")), 0);
    json_object_put(t);
    t = get_json(API "links");
    ck_assert_str_eq(json_object_get_string(path_get(t, "links", L12, "status")), "DOWN");
    ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(
                         path_get(t, "links", L12, "status_reason"), 0)),
                     "mismatched_link");
    json_object_put(t);

    expect_ok("POST", API "links/" L12 "/disable", NULL, 201, "Operation successful");
    t = topology();   /* sorted reasons */
    ck_assert_str_eq(json_object_to_json_string_ext(path_get(t, "links", L12, "status_reason"),
                                                    JSON_C_TO_STRING_PLAIN),
                     "[\"disabled\",\"mismatched_link\"]");
    json_object_put(t);
    expect_ok("DELETE", API "links/" L12, NULL, 200, "Operation successful");
    t = topology();
    ck_assert(!json_object_object_get_ex(path_get(t, "links", NULL, NULL), L12, NULL));
    ck_assert_msg(json_object_equal(path_get(t, "links", new_link, NULL), before), "new link changed:\n%s",
                  json_object_to_json_string(path_get(t, "links", new_link, NULL)));
    i = intf_of(t, S1, S1 ":3");
    ck_assert_str_eq(json_object_get_string(path_get(i, "link", NULL, NULL)), new_link);
    ck_assert(json_object_get_boolean(path_get(i, "nni", NULL, NULL)));
    i = intf_of(t, S2, S2 ":2");  /* the old link's other end, still on it */
    ck_assert_str_eq(json_object_get_string(path_get(i, "link", NULL, NULL)), "");
    ck_assert(!json_object_get_boolean(path_get(i, "nni", NULL, NULL)));
    json_object_put(t);
    json_object_put(before);

    doc = stored("switches", S1);
    ck_assert_ptr_nonnull(doc);
    i = stored_intf(doc, S1 ":3");
    ck_assert_ptr_nonnull(i);
    ck_assert_str_eq(json_object_get_string(path_get(i, "link", NULL, NULL)), new_link);
    ck_assert(json_object_get_boolean(path_get(i, "nni", NULL, NULL)));
    json_object_put(doc);
    expect_stored_link(S2, S2 ":2", "");
    ck_assert_ptr_null(stored("links", L12));
    doc = stored("links", new_link);
    ck_assert_ptr_nonnull(doc);
    json_object_put(doc);
}
END_TEST

/* ---- link down/up driven by simnet ---- */

START_TEST(simnet_link_down_up)
{
    struct json_object *t, *c;

    expect_ok("POST", SIM "links/" L13 "/down", NULL, 200, "Operation successful");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    t = topology();
    ck_assert_str_eq(json_object_get_string(path_get(t, "links", L13, "status")), "DOWN");
    ck_assert(!json_object_get_boolean(path_get(t, "links", L13, "active")));
    ck_assert(json_object_get_boolean(path_get(t, "links", L13, "enabled")));
    json_object_put(t);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_down"), 1);
    ck_assert_str_eq(last_reason("kytos/topology.link_down"), "link down");
    c = kytos_test_published(th, "kytos/topology.link_down", 0);
    ck_assert_str_eq(json_object_get_string(path_get(c, "link", "id", NULL)), L13);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.interface.down"), 2);

    expect_ok("POST", SIM "links/" L13 "/up", NULL, 200, "Operation successful");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_str_eq(link_status(L13), "UP");
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_up"), 4);
    ck_assert_str_eq(last_reason("kytos/topology.link_up"), "link up");

    /* one port down is enough */
    expect_ok("POST", SIM "interfaces/" S2 ":2/down", NULL, 200, "Operation successful");
    ck_assert_str_eq(link_status(L12), "DOWN");
    expect_ok("POST", SIM "interfaces/" S2 ":2/up", NULL, 200, "Operation successful");
    ck_assert_str_eq(link_status(L12), "UP");
}
END_TEST

START_TEST(simnet_switch_disconnect_and_add)
{
    kytos_test_resp *r;
    struct json_object *t;
    const char *new_link;

    expect_ok("POST", SIM "switches/" S3 "/disconnect", NULL, 200, "Operation successful");
    t = topology();
    ck_assert(!json_object_get_boolean(path_get(t, "switches", S3, "active")));
    ck_assert_str_eq(json_object_get_string(path_get(t, "switches", S3, "status")), "DOWN");
    json_object_put(t);
    expect_ok("POST", SIM "switches/" S3 "/connect", NULL, 200, "Operation successful");
    ck_assert(get_bool3("switches", S3, "active"));

    r = call("POST", SIM "switches", "{\"dpid\":\"00:00:00:00:00:00:00:0a\",\"host_ports\":1,\"peers\":[\"" S2 "\"]}", 201);
    new_link = json_object_get_string(json_object_array_get_idx(path_get(kytos_test_resp_json(r), "links", NULL, NULL), 0));
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_str_eq(link_status(new_link), "UP");
    t = topology();
    ck_assert_int_eq(json_object_object_length(path_get(t, "switches", NULL, NULL)), 4);
    ck_assert_int_eq(json_object_object_length(path_get(t, "links", NULL, NULL)), 4);
    json_object_put(t);
    kytos_test_resp_free(r);

    /* removing it: the peer port goes down, the link with it */
    expect_ok("DELETE", SIM "switches/00:00:00:00:00:00:00:0a", NULL, 200, "Operation successful");
    t = topology();
    ck_assert(!json_object_get_boolean(path_get(t, "switches", "00:00:00:00:00:00:00:0a", "active")));
    json_object_put(t);
}
END_TEST

/* ---- the link-up timer ---- */

static double mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool three_links_up(const void *ud)
{
    (void)ud;
    return kytos_test_published_count(th, "kytos/topology.link_up") == 3;
}

/* The links come up once the hold (2 s) has passed, not before: timed
 * from before the host started, so a slow start cannot make the links'
 * early UP look like a held one; the DOWN check is only made while the
 * hold surely runs. */
START_TEST(link_up_timer_holds_links_down)
{
    struct json_object *t;
    double t0, seen;

    kytos_test_host_free(th);
    t0 = mono_s();
    th = host_with("[kytos/topology]\nlink_up_timer = 2\n", NULL, true);
    t = topology();
    seen = mono_s() - t0;
    if (seen < 1.5) {
        ck_assert_str_eq(json_object_get_string(path_get(t, "links", L12, "status")), "DOWN");
        ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_up"), 0);
    } else
        fprintf(stderr, "link_up_timer_holds_links_down: start took %.1f s, DOWN not checked\n", seen);
    ck_assert(json_object_get_boolean(path_get(t, "links", L12, "active")));
    json_object_put(t);
    ck_assert(await_until(three_links_up, NULL, 15000));
    /* the hold began after t0: no link came up before it was over */
    ck_assert_msg(mono_s() - t0 >= 2.0, "links up after %.2f s", mono_s() - t0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_str_eq(link_status(L12), "UP");
    ck_assert_str_eq(link_status(L23), "UP");
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_up"), 3);
}
END_TEST

/* ---- persistence ---- */

START_TEST(restart_restores_from_store)
{
    char dir[] = "/tmp/topo-test-XXXXXX";
    struct json_object *t, *c, *i;
    kytos_test_resp *r;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    kytos_test_host_free(th);
    th = host_with(CONF_FAST, dir, true);
    expect_ok("POST", API "switches/" S3 "/disable", NULL, 201, "Operation successful");
    expect_ok("POST", API "switches/" S1 "/metadata", "{\"site\":\"ampath\"}", 201, "Operation successful");
    expect_ok("POST", API "interfaces/" S2 ":1/metadata", "{\"role\":\"uni\"}", 201, "Operation successful");
    expect_ok("POST", API "links/" L12 "/metadata", "{\"delay\":7}", 201, "Operation successful");
    kytos_test_host_free(th);

    /* topology alone: everything is back, inactive until the switches connect */
    th = host_with(CONF_FAST, dir, false);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.topology_loaded"), 1);
    c = kytos_test_published(th, "kytos/topology.topology_loaded", 0);
    ck_assert_int_eq(json_object_object_length(path_get(c, "topology", "switches", NULL)), 3);
    ck_assert_int_eq(json_object_object_length(path_get(c, "failed_switches", NULL, NULL)), 0);
    ck_assert_int_eq(json_object_object_length(path_get(c, "failed_links", NULL, NULL)), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.port.created"), 13);
    t = topology();
    ck_assert_int_eq(json_object_object_length(path_get(t, "links", NULL, NULL)), 3);
    ck_assert(!json_object_get_boolean(path_get(t, "switches", S1, "active")));
    ck_assert_str_eq(json_object_get_string(path_get(t, "switches", S1, "connection")), "");
    ck_assert(json_object_is_type(path_get(t, "switches", S1, "ofp_version"), json_type_null));
    ck_assert_str_eq(json_object_get_string(path_get(t, "switches", S1, "software")), "3.1.0");
    ck_assert_str_eq(json_object_get_string(path_get(t, "switches", S1, "metadata")),
                     "{ \"site\": \"ampath\", \"lat\": \"0.0\", \"lng\": \"-30.0\" }");
    ck_assert(!json_object_get_boolean(path_get(t, "switches", S3, "enabled")));
    ck_assert(json_object_get_boolean(path_get(t, "switches", S2, "enabled")));
    ck_assert(!json_object_get_boolean(path_get(t, "links", L13, "enabled")));
    ck_assert_str_eq(json_object_get_string(path_get(t, "links", L12, "metadata")), "{ \"delay\": 7 }");
    ck_assert_str_eq(json_object_get_string(path_get(t, "links", L12, "status")), "DOWN");
    i = path_get(t, "switches", S2, "interfaces");
    ck_assert(json_object_object_get_ex(i, S2 ":1", &i));
    ck_assert_str_eq(json_object_get_string(path_get(i, "metadata", "role", NULL)), "uni");
    ck_assert(!json_object_get_boolean(path_get(i, "active", NULL, NULL)));
    ck_assert_str_eq(json_object_get_string(path_get(i, "speed", NULL, NULL)), "1250000000.0");
    json_object_put(t);
    kytos_test_host_free(th);

    /* with simnet again: active, and the same ring with what was changed */
    th = host_with(CONF_FAST, dir, true);
    t = topology();
    ck_assert(json_object_get_boolean(path_get(t, "switches", S1, "active")));
    ck_assert_str_eq(json_object_get_string(path_get(t, "links", L12, "status")), "UP");
    ck_assert_str_eq(json_object_get_string(path_get(t, "links", L23, "status")), "DISABLED");
    ck_assert_str_eq(json_object_get_string(path_get(t, "switches", S1, "connection")), "127.0.0.1:56246");
    json_object_put(t);
    r = call("GET", API "switches/" S1 "/metadata", NULL, 200);
    ck_assert_str_eq(json_object_to_json_string_ext(kytos_test_resp_json(r), JSON_C_TO_STRING_PLAIN),
                     "{\"metadata\":{\"site\":\"ampath\"}}");
    kytos_test_resp_free(r);
    kytos_test_host_free(th);
    th = NULL;
    {
        char cmd[64];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        ck_assert_int_eq(system(cmd), 0);
    }
}
END_TEST

/* ---- hostile events ---- */

START_TEST(hostile_events_change_nothing)
{
    static const char *const bad[][2] = {
        {"kytos/core.switch.new", "{\"switch\":42}"},
        {"kytos/core.switch.new", "{\"switch\":{\"dpid\":\"\"}}"},
        {"kytos/core.switch.new", "{\"switch\":{\"dpid\":\"has space\"}}"},
        {"kytos/core.switch.new", "[1,2,3]"},
        {"kytos/core.switch.new", NULL},
        {"kytos/of_core.switch.interfaces.created", "{\"interfaces\":\"x\"}"},
        {"kytos/of_core.switch.interfaces.created", "{\"interfaces\":[1,null,{\"id\":\"x\"},{\"id\":\"99:99:1\"}]}"},
        {"kytos/of_core.switch.interfaces.created",
         "{\"interfaces\":[{\"switch\":\"" S1 "\",\"port_number\":-1},{\"switch\":\"" S1 "\",\"port_number\":99999999999}]}"},
        {"kytos/of_core.switch.interface.link_down", "{\"interface\":{\"id\":\"" S1 ":abc\"}}"},
        {"kytos/of_core.switch.interface.link_down", "{\"interface\":7}"},
        {"kytos/of_lldp.interface.is.nni", "{\"interface_a\":{\"id\":\"" S1 ":1\"},\"interface_b\":{\"id\":\"" S1 ":1\"}}"},
        {"kytos/of_lldp.interface.is.nni", "{\"interface_a\":{\"id\":\"" S1 ":1\"},\"interface_b\":{\"id\":\"nope:9\"}}"},
        {"kytos/of_lldp.interface.is.nni", "{}"},
        {"kytos/of_lldp.liveness.up", "{\"interface_a\":1,\"interface_b\":[]}"},
        {"kytos/of_lldp.liveness.disabled", "{\"interfaces\":{}}"},
        {"topology.interruption.start", "{\"type\":5,\"links\":\"x\"}"},
        {"topology.interruption.end", "{\"type\":\"maintenance\",\"links\":[1,\"nope\"]}"},
        {"kytos/core.connection.lost", "{\"dpid\":[]}"},
        {"kytos/of_lldp.network_status.updated", "{\"interface_ids\":[null,3]}"},
    };
    size_t want_len, len = 0;
    char *want = read_fixture("test_topology_ring3.json", &want_len);
    kytos_test_resp *r;

    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        int rc = kytos_test_publish(th, bad[k][0], bad[k][1]);
        ck_assert_msg(rc == 0 || rc == KYTOS_EINVAL, "publish %s: %d", bad[k][0], rc);  /* the bus may refuse */
    }
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    r = call("GET", API, NULL, 200);
    ck_assert_uint_eq(len = 0, 0);
    kytos_test_resp_body(r, &len);
    ck_assert_uint_eq(len, want_len);
    ck_assert(memcmp(kytos_test_resp_body(r, &len), want, len) == 0);
    kytos_test_resp_free(r);
    free(want);
}
END_TEST

START_TEST(liveness_sets_link_metadata)
{
    kytos_test_resp *r;

    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_lldp.liveness.up",
                                        "{\"interface_a\":{\"id\":\"" S2 ":2\"},\"interface_b\":{\"id\":\"" S1 ":3\"}}"),
                     0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    r = call("GET", API "links/" L12 "/metadata", NULL, 200);
    ck_assert_str_eq(json_object_to_json_string_ext(kytos_test_resp_json(r), JSON_C_TO_STRING_PLAIN),
                     "{\"metadata\":{\"liveness_status\":\"up\"}}");
    kytos_test_resp_free(r);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_lldp.liveness.disabled",
                                        "{\"interfaces\":[{\"id\":\"" S1 ":3\"}]}"),
                     0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    r = call("GET", API "links/" L12 "/metadata", NULL, 200);
    ck_assert_str_eq(json_object_to_json_string_ext(kytos_test_resp_json(r), JSON_C_TO_STRING_PLAIN),
                     "{\"metadata\":{}}");
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(bad_settings_refuse_the_napp)
{
    struct kytos_test_opts o = {.struct_size = sizeof(o), .conf_text = "[kytos/topology]\nlink_up_timer = \"soon\"\n"};
    kytos_test_host *h = kytos_test_host_new(&o);

    ck_assert_ptr_nonnull(h);
    ck_assert_int_lt(kytos_test_load(h, TOPO_SO), 0);
    ck_assert_ptr_nonnull(strstr(kytos_test_last_error(h), "link_up_timer"));
    ck_assert_int_eq(kytos_test_start(h), 0);  /* a host never started waits at free */
    kytos_test_host_free(h);
    /* never off: a refused write would be lost */
    o.conf_text = "[kytos/topology]\nstore_retry_interval = 0\n";
    h = kytos_test_host_new(&o);
    ck_assert_ptr_nonnull(h);
    ck_assert_int_lt(kytos_test_load(h, TOPO_SO), 0);
    ck_assert_ptr_nonnull(strstr(kytos_test_last_error(h), "store_retry_interval"));
    ck_assert_int_eq(kytos_test_start(h), 0);
    kytos_test_host_free(h);
}
END_TEST


/* ---- event contents have the GET shapes ---- */

START_TEST(event_dicts_match_get_bodies)
{
    kytos_test_resp *r;
    struct json_object *ev, *got = NULL;

    /* one port: the link goes down with that single change */
    expect_ok("POST", SIM "interfaces/" S3 ":3/down", NULL, 200, "Operation successful");
    ev = kytos_test_published(th, "kytos/topology.link_down", 0);
    ck_assert_ptr_nonnull(ev);
    r = call("GET", API "links", NULL, 200);
    ck_assert(json_object_object_get_ex(path_get(kytos_test_resp_json(r), "links", NULL, NULL), L13, &got));
    ck_assert_msg(json_object_equal(path_get(ev, "link", NULL, NULL), got), "event %s\nGET %s",
                  json_object_to_json_string(path_get(ev, "link", NULL, NULL)),
                  json_object_to_json_string(got));
    kytos_test_resp_free(r);

    expect_ok("POST", API "interfaces/" S3 ":1/metadata", "{\"a\":[1,{\"b\":null}],\"s\":\"x\\u0001/y\"}", 201,
              "Operation successful");
    ev = kytos_test_published(th, "kytos/topology.interfaces.metadata.added", 0);
    r = call("GET", API "interfaces", NULL, 200);
    ck_assert(json_object_object_get_ex(path_get(kytos_test_resp_json(r), "interfaces", NULL, NULL), S3 ":1", &got));
    ck_assert(json_object_equal(path_get(ev, "interface", NULL, NULL), got));
    kytos_test_resp_free(r);
    /* and the text escapes as Python's json.dumps */
    {
        size_t len = 0;
        r = call("GET", API, NULL, 200);
        ck_assert_ptr_nonnull(strstr(kytos_test_resp_body(r, &len), "\"s\":\"x\\u0001/y\""));
        kytos_test_resp_free(r);
    }
}
END_TEST

/* ---- readers and writers at once ---- */

static atomic_bool stop_flag;

static void *reader(void *arg)
{
    long n = 0;

    (void)arg;
    while (!atomic_load(&stop_flag)) {
        kytos_test_resp *r = kytos_test_request(th, "GET", API, NULL);
        if (!r || kytos_test_resp_status(r) != 200 || !kytos_test_resp_json(r))
            return (void *)-1L;
        kytos_test_resp_free(r);
        n++;
    }
    return (void *)n;
}

static void *flapper(void *arg)
{
    (void)arg;
    for (int k = 0; k < 30; k++) {
        kytos_test_resp *r = kytos_test_request(th, "POST", k % 2 ? SIM "links/" L23 "/up" : SIM "links/" L23 "/down", NULL);
        if (!r || kytos_test_resp_status(r) != 200)
            return (void *)-1L;
        kytos_test_resp_free(r);
        r = kytos_test_request(th, "POST", API "links/" L12 "/metadata", "{\"k\":1}");
        if (!r || kytos_test_resp_status(r) != 201)
            return (void *)-1L;
        kytos_test_resp_free(r);
    }
    return NULL;
}

START_TEST(concurrent_readers_and_writers)
{
    pthread_t rd[2], wr;
    void *res;

    atomic_store(&stop_flag, false);
    for (int k = 0; k < 2; k++)
        ck_assert_int_eq(pthread_create(&rd[k], NULL, reader, NULL), 0);
    ck_assert_int_eq(pthread_create(&wr, NULL, flapper, NULL), 0);
    pthread_join(wr, &res);
    ck_assert_ptr_null(res);
    atomic_store(&stop_flag, true);
    for (int k = 0; k < 2; k++) {
        pthread_join(rd[k], &res);
        ck_assert_int_gt((long)res, 0);
    }
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    /* 30 flaps ending on up */
    ck_assert_str_eq(link_status(L23), "UP");
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_down"), 15);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_up"), 3 + 15);
}
END_TEST

/* ---- stored documents are input too ---- */

static void seed(kytos_test_host *h, const char *coll, const char *id, const char *doc)
{
    char path[256];
    kytos_test_resp *r;

    snprintf(path, sizeof(path), "/api/kytos/topo_seed/v1/%s/%s", coll, id);
    r = kytos_test_request(h, "PUT", path, doc);
    ck_assert_ptr_nonnull(r);
    ck_assert_msg(kytos_test_resp_status(r) == 201, "seed %s/%s: %s", coll, id,
                  kytos_test_resp_body(r, &(size_t){0}));
    kytos_test_resp_free(r);
}

START_TEST(hostile_store_documents)
{
    char dir[] = "/tmp/topo-seed-XXXXXX";
    struct kytos_test_opts o = {.struct_size = sizeof(o), .data_dir = dir};
    struct json_object *c, *t;
    kytos_test_host *h;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    h = kytos_test_host_new(&o);
    ck_assert_int_eq(kytos_test_load(h, SEED_SO), 0);
    ck_assert_int_eq(kytos_test_start(h), 0);
    seed(h, "switches", "good", "{\"id\":\"00:00:00:00:00:00:00:0a\",\"enabled\":true,\"metadata\":[1],"
         "\"interfaces\":[{\"port_number\":1,\"name\":\"eth1\",\"enabled\":false,\"speed\":\"fast\"},"
         "{\"port_number\":\"2\",\"name\":\"eth2\"},7,{\"port_number\":-4,\"name\":\"x\"},"
         "{\"port_number\":3,\"name\":\"eth3\",\"speed\":100,\"mac\":5,\"metadata\":{\"k\":\"v\"}}]}");
    seed(h, "switches", "noenabled", "{\"id\":\"00:00:00:00:00:00:00:0b\"}");
    seed(h, "switches", "badid", "{\"id\":\"has space\",\"enabled\":true}");
    seed(h, "switches", "noid", "{\"enabled\":true,\"interfaces\":{}}");
    seed(h, "switches", "types", "{\"id\":\"00:00:00:00:00:00:00:0c\",\"enabled\":true,\"hardware\":[]}");
    seed(h, "links", "l1", "{\"id\":\"l1\",\"enabled\":true,\"endpoints\":[{\"id\":\"00:00:00:00:00:00:00:0a:1\"},"
         "{\"id\":\"00:00:00:00:00:00:00:0a:3\"}],\"metadata\":{\"last_status_change\":1,\"w\":2}}");
    seed(h, "links", "l2", "{\"id\":\"l2\",\"enabled\":true,\"endpoints\":[{\"id\":\"nope:1\"},{\"id\":\"00:00:00:00:00:00:00:0a:1\"}]}");
    seed(h, "links", "l3", "{\"id\":\"l3\",\"endpoints\":\"x\"}");
    seed(h, "links", "l4", "{\"id\":\"l4\",\"enabled\":1,\"endpoints\":[{\"id\":\"00:00:00:00:00:00:00:0a:1\"},{\"id\":\"00:00:00:00:00:00:00:0a:3\"}]}");
    kytos_test_host_free(h);

    kytos_test_host_free(th);
    th = host_with(CONF_FAST, dir, false);
    c = kytos_test_published(th, "kytos/topology.topology_loaded", 0);
    ck_assert_ptr_nonnull(c);
    ck_assert(json_object_object_get_ex(path_get(c, "failed_switches", NULL, NULL), "00:00:00:00:00:00:00:0b", NULL));
    ck_assert(json_object_object_get_ex(path_get(c, "failed_switches", NULL, NULL), "00:00:00:00:00:00:00:0c", NULL));
    ck_assert(json_object_object_get_ex(path_get(c, "failed_switches", NULL, NULL), "00:00:00:00:00:00:00:0a", NULL));
    ck_assert(json_object_object_get_ex(path_get(c, "failed_links", NULL, NULL), "l2", NULL));
    ck_assert(json_object_object_get_ex(path_get(c, "failed_links", NULL, NULL), "l3", NULL));
    ck_assert(json_object_object_get_ex(path_get(c, "failed_links", NULL, NULL), "l4", NULL));
    t = topology();
    /* 0a without its bad interfaces, and "noid" named by its _id */
    ck_assert_int_eq(json_object_object_length(path_get(t, "switches", NULL, NULL)), 2);
    ck_assert(json_object_object_get_ex(path_get(t, "switches", NULL, NULL), "noid", NULL));
    ck_assert_int_eq(json_object_object_length(path_get(t, "switches", "00:00:00:00:00:00:00:0a", "interfaces")), 2);
    ck_assert_int_eq(json_object_object_length(path_get(t, "links", NULL, NULL)), 1);
    ck_assert_str_eq(json_object_get_string(path_get(t, "switches", "00:00:00:00:00:00:00:0a", "metadata")),
                     "{ \"lat\": \"0.0\", \"lng\": \"-30.0\" }");
    json_object_put(t);
    {
        kytos_test_resp *r = call("GET", API "links", NULL, 200);
        size_t len = 0;
        const char *body = kytos_test_resp_body(r, &len);
        ck_assert_ptr_nonnull(strstr(body, "\"metadata\":{\"w\":2}"));
        ck_assert_ptr_nonnull(strstr(body, "\"speed\":100,"));
        ck_assert_ptr_nonnull(strstr(body, "\"mac\":null,"));
        kytos_test_resp_free(r);
    }
    kytos_test_host_free(th);
    th = NULL;
    {
        char cmd[64];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        ck_assert_int_eq(system(cmd), 0);
    }
}
END_TEST

/* ---- interface tag ranges and special tags ---- */

#define TAGS_DEFAULT "{\"available_tags\":{\"vlan\":[[1,4094]]},\"tag_ranges\":{\"vlan\":[[1,4094]]}," \
    "\"special_tags\":{\"vlan\":[\"untagged\",\"any\"]},\"special_available_tags\":{\"vlan\":[\"untagged\",\"any\"]}}"
#define TAGS_SET "{\"available_tags\":{\"vlan\":[[1,500],[2096,2096],[3001,3001]]}," \
    "\"tag_ranges\":{\"vlan\":[[1,500],[2096,2096],[3001,3001]]}," \
    "\"special_tags\":{\"vlan\":[\"any\"]},\"special_available_tags\":{\"vlan\":[\"any\"]}}"
#define TR(intf) API "interfaces/" intf "/tag_ranges"
#define ST(intf) API "interfaces/" intf "/special_tags"

/* Request expecting exactly this compact JSON body. */
static void expect_json(const char *method, const char *path, const char *body, unsigned status,
                        const char *want)
{
    kytos_test_resp *r = call(method, path, body, status);
    struct json_object *j = kytos_test_resp_json(r);

    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN), want);
    kytos_test_resp_free(r);
}

START_TEST(tag_ranges_get)
{
    kytos_test_resp *r = call("GET", API "interfaces/tag_ranges", NULL, 200);
    struct json_object *j = kytos_test_resp_json(r), *v = NULL;

    /* every interface of the ring, LOCAL ports included, at the defaults */
    ck_assert_int_eq(json_object_object_length(j), 13);
    ck_assert(json_object_object_get_ex(j, S3 ":4294967294", &v));
    ck_assert_str_eq(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), TAGS_DEFAULT);
    kytos_test_resp_free(r);
    expect_json("GET", TR(S1 ":1"), NULL, 200, "{\"" S1 ":1\":" TAGS_DEFAULT "}");
    expect_error("GET", TR(S1 ":99"), NULL, 404, "Interface not found");
    expect_error("GET", TR("00:00:00:00:00:00:00:09:1"), NULL, 404, "Interface not found");
    expect_error("GET", TR(S1 ":x"), NULL, 400, "Invalid interface_id " S1 ":x");
}
END_TEST

START_TEST(tag_ranges_set_and_reset)
{
    size_t updated = kytos_test_published_count(th, "kytos/topology.updated");
    kytos_test_resp *r;

    expect_ok("POST", TR(S1 ":1"), "{\"tag_type\":\"vlan\",\"tag_ranges\":[[1,500],2096,[3001]]}", 200,
              "Operation Successful");
    expect_ok("POST", ST(S1 ":1"), "{\"tag_type\":\"vlan\",\"special_tags\":[\"any\"]}", 200,
              "Operation Successful");
    expect_json("GET", TR(S1 ":1"), NULL, 200, "{\"" S1 ":1\":" TAGS_SET "}");
    /* only that interface changed; GET v3/ and its events are not about tags */
    expect_json("GET", TR(S1 ":2"), NULL, 200, "{\"" S1 ":2\":" TAGS_DEFAULT "}");
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.updated"), updated);
    r = call("GET", API, NULL, 200);
    ck_assert_ptr_null(strstr(kytos_test_resp_body(r, &(size_t){0}), "tag_ranges"));
    kytos_test_resp_free(r);

    /* special tags: any order, or none at all */
    expect_ok("POST", ST(S1 ":2"), "{\"tag_type\":\"vlan\",\"special_tags\":[\"any\",\"untagged\"]}", 200,
              "Operation Successful");
    r = call("GET", TR(S1 ":2"), NULL, 200);
    ck_assert_ptr_nonnull(strstr(kytos_test_resp_body(r, &(size_t){0}),
                                 "\"special_tags\":{\"vlan\":[\"any\",\"untagged\"]}"));
    kytos_test_resp_free(r);
    expect_ok("POST", ST(S1 ":2"), "{\"tag_type\":\"vlan\",\"special_tags\":[]}", 200, "Operation Successful");
    r = call("GET", TR(S1 ":2"), NULL, 200);
    ck_assert_ptr_nonnull(strstr(kytos_test_resp_body(r, &(size_t){0}),
                                 "\"special_tags\":{\"vlan\":[]},\"special_available_tags\":{\"vlan\":[]}"));
    kytos_test_resp_free(r);

    /* DELETE resets the ranges (tag_type defaults to vlan), not the special tags */
    expect_ok("DELETE", TR(S1 ":1") "?tag_type=vlan", NULL, 200, "Operation Successful");
    r = call("GET", TR(S1 ":1"), NULL, 200);
    ck_assert_ptr_nonnull(strstr(kytos_test_resp_body(r, &(size_t){0}),
                                 "{\"available_tags\":{\"vlan\":[[1,4094]]},\"tag_ranges\":{\"vlan\":[[1,4094]]},"
                                 "\"special_tags\":{\"vlan\":[\"any\"]}"));
    kytos_test_resp_free(r);
    expect_ok("POST", TR(S1 ":1"), "{\"tag_type\":\"vlan\",\"tag_ranges\":[[1,4095]]}", 200,
              "Operation Successful");
    r = call("GET", TR(S1 ":1"), NULL, 200);
    ck_assert_ptr_nonnull(strstr(kytos_test_resp_body(r, &(size_t){0}), "\"tag_ranges\":{\"vlan\":[[1,4095]]}"));
    kytos_test_resp_free(r);
    expect_ok("DELETE", TR(S1 ":1"), NULL, 200, "Operation Successful");
    r = call("GET", TR(S1 ":1"), NULL, 200);
    ck_assert_ptr_nonnull(strstr(kytos_test_resp_body(r, &(size_t){0}), "\"tag_ranges\":{\"vlan\":[[1,4094]]}"));
    kytos_test_resp_free(r);
    expect_error("DELETE", TR(S1 ":1") "?tag_type=mpls", NULL, 400,
                 "KytosTagtypeNotSupported, Tag type mpls is not supported.");
    expect_error("DELETE", TR(S1 ":77") "?tag_type=vlan", NULL, 404, "Interface not found");
    expect_error("DELETE", TR(S1 ":-1"), NULL, 400, "Invalid interface_id " S1 ":-1");
}
END_TEST

START_TEST(tag_ranges_bad_input_is_400)
{
    static const char *const kytos_texts[][2] = {
        {"[[5,1]]", "KytosInvalidTagRanges, The range [5, 1] is not ordered"},
        {"[[10,20],[5,6]]", "KytosInvalidTagRanges, Tag ranges are not ordered. 20 is higher than 5"},
        {"[[1,5],[6,9]]", "KytosInvalidTagRanges, Tag ranges have an unnecessary partition. 5 is before to 6"},
        {"[[1,5],[5,9]]", "KytosInvalidTagRanges, Tag ranges have repetition. [1, 5] have same values as [5, 9]"},
        {"[[1,4096]]", "KytosInvalidTagRanges, Maximum value for a tag is 4095"},
        {"[[0,5]]", "KytosInvalidTagRanges, Minimum value for a tag is 1"},
        {"[-3]", "KytosInvalidTagRanges, Minimum value for a tag is 1"},
        {"[[1,2],[9223372036854775807]]", "KytosInvalidTagRanges, Maximum value for a tag is 4095"},
        {"[[-9223372036854775808],[-9223372036854775808]]",
         "KytosInvalidTagRanges, Tag ranges have repetition. [-9223372036854775808, -9223372036854775808] "
         "have same values as [-9223372036854775808, -9223372036854775808]"},
    };
    /* refused by the spec before the handler runs */
    static const char *const invalid[] = {
        "{\"tag_type\":\"vlan\",\"tag_ranges\":[]}",
        "{\"tag_type\":\"vlan\",\"tag_ranges\":[[1,2,3]]}",
        "{\"tag_type\":\"vlan\",\"tag_ranges\":[[]]}",
        "{\"tag_type\":\"vlan\",\"tag_ranges\":[\"1\"]}",
        "{\"tag_type\":\"vlan\",\"tag_ranges\":[[1,\"2\"]]}",
        "{\"tag_type\":\"vlan\",\"tag_ranges\":[1.5]}",
        "{\"tag_type\":\"vlan\",\"tag_ranges\":[true]}",
        "{\"tag_type\":\"vlan\",\"tag_ranges\":{\"a\":1}}",
        "{\"tag_type\":\"mpls\",\"tag_ranges\":[1]}",
        "{\"tag_type\":\"vlan\"}",
        "{\"tag_ranges\":[1]}",
        "[1]",
        "\"vlan\"",
        "{\"tag_type\":",
        "",
    };
    char body[256];

    for (size_t k = 0; k < sizeof(kytos_texts) / sizeof(kytos_texts[0]); k++) {
        snprintf(body, sizeof(body), "{\"tag_type\":\"vlan\",\"tag_ranges\":%s}", kytos_texts[k][0]);
        expect_error("POST", TR(S1 ":1"), body, 400, kytos_texts[k][1]);
        /* the ranges are checked before the interface, as in Kytos */
        expect_error("POST", TR(S1 ":99"), body, 400, kytos_texts[k][1]);
    }
    for (size_t k = 0; k < sizeof(invalid) / sizeof(invalid[0]); k++) {
        kytos_test_resp *r = call("POST", TR(S1 ":1"), invalid[k], 400);
        kytos_test_resp_free(r);
    }
    expect_error("POST", TR(S1 ":99"), "{\"tag_type\":\"vlan\",\"tag_ranges\":[1]}", 404, "Interface not found");
    expect_error("POST", TR(S1 ":p1"), "{\"tag_type\":\"vlan\",\"tag_ranges\":[1]}", 400,
                 "Invalid interface_id " S1 ":p1");

    /* special tags */
    expect_error("POST", ST(S1 ":1"), "{\"tag_type\":\"vlan\",\"special_tags\":[\"untagged\",\"untagged\"]}",
                 400, "KytosInvalidTagRanges, There are duplicated values in the range.");
    expect_error("POST", ST(S1 ":1"), "{\"tag_type\":\"vlan\",\"special_tags\":[\"foo\",\"any\",\"any\"]}",
                 400, "KytosInvalidTagRanges, There are duplicated values in the range.");
    expect_error("POST", ST(S1 ":1"), "{\"tag_type\":\"vlan\",\"special_tags\":[\"any\",\"foo\"]}", 400,
                 "KytosInvalidTagRanges, The tag foo is not supported");
    expect_error("POST", ST(S1 ":1"), "{\"tag_type\":\"vlan\",\"special_tags\":[\"ANY\"]}", 400,
                 "KytosInvalidTagRanges, The tag ANY is not supported");
    expect_error("POST", ST(S1 ":99"), "{\"tag_type\":\"vlan\",\"special_tags\":[\"any\"]}", 404,
                 "Interface not found");
    {
        static const char *const bad_special[] = {
            "{\"tag_type\":\"vlan\",\"special_tags\":[1]}",
            "{\"tag_type\":\"vlan\",\"special_tags\":\"any\"}",
            "{\"tag_type\":\"mpls\",\"special_tags\":[\"any\"]}",
            "{\"special_tags\":[\"any\"]}",
            "{\"tag_type\":\"vlan\"}",
            "null",
        };
        for (size_t k = 0; k < sizeof(bad_special) / sizeof(bad_special[0]); k++)
            kytos_test_resp_free(call("POST", ST(S1 ":1"), bad_special[k], 400));
    }
    /* nothing above changed anything */
    expect_json("GET", TR(S1 ":1"), NULL, 200, "{\"" S1 ":1\":" TAGS_DEFAULT "}");
}
END_TEST

START_TEST(tag_ranges_need_json)
{
    static const char *const text_plain[] = {"Content-Type: text/plain", NULL};
    kytos_test_resp *r = kytos_test_request_h(th, "POST", TR(S1 ":1"),
                                              "{\"tag_type\":\"vlan\",\"tag_ranges\":[1]}", text_plain);

    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(kytos_test_resp_status(r), 415);
    kytos_test_resp_free(r);
    expect_json("GET", TR(S1 ":1"), NULL, 200, "{\"" S1 ":1\":" TAGS_DEFAULT "}");
}
END_TEST

START_TEST(tags_survive_a_restart)
{
    char dir[] = "/tmp/topo-tags-XXXXXX";
    struct kytos_test_opts o = {.struct_size = sizeof(o), .data_dir = dir};
    struct json_object *doc, *v;
    kytos_test_host *h;
    kytos_test_resp *r;
    char ins[64];

    ck_assert_ptr_nonnull(mkdtemp(dir));
    kytos_test_host_free(th);
    th = host_with(CONF_FAST, dir, true);
    expect_ok("POST", TR(S2 ":1"), "{\"tag_type\":\"vlan\",\"tag_ranges\":[[1,500],2096,[3001]]}", 200,
              "Operation Successful");
    expect_ok("POST", ST(S2 ":1"), "{\"tag_type\":\"vlan\",\"special_tags\":[\"any\"]}", 200,
              "Operation Successful");
    expect_ok("POST", TR(S3 ":1"), "{\"tag_type\":\"vlan\",\"tag_ranges\":[7]}", 200, "Operation Successful");
    expect_ok("DELETE", TR(S3 ":1"), NULL, 200, "Operation Successful");
    kytos_test_host_free(th);
    th = NULL;

    /* the stored interface_details documents */
    h = kytos_test_host_new(&o);
    ck_assert_int_eq(kytos_test_load(h, SEED_SO), 0);
    ck_assert_int_eq(kytos_test_start(h), 0);
    r = kytos_test_request(h, "GET", "/api/kytos/topo_seed/v1/interface_details/" S2 ":1", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    doc = kytos_test_resp_json(r);
    ck_assert_str_eq(json_object_get_string(path_get(doc, "_id", NULL, NULL)), S2 ":1");
    ck_assert_str_eq(json_object_get_string(path_get(doc, "id", NULL, NULL)), S2 ":1");
    ck_assert_str_eq(json_object_to_json_string_ext(path_get(doc, "tag_ranges", NULL, NULL), JSON_C_TO_STRING_PLAIN),
                     "{\"vlan\":[[1,500],[2096,2096],[3001,3001]]}");
    ck_assert_str_eq(json_object_to_json_string_ext(path_get(doc, "available_tags", NULL, NULL),
                                                    JSON_C_TO_STRING_PLAIN),
                     "{\"vlan\":[[1,500],[2096,2096],[3001,3001]]}");
    ck_assert_str_eq(json_object_to_json_string_ext(path_get(doc, "special_tags", NULL, NULL), JSON_C_TO_STRING_PLAIN),
                     "{\"vlan\":[\"any\"]}");
    ck_assert_str_eq(json_object_to_json_string_ext(path_get(doc, "special_available_tags", NULL, NULL),
                                                    JSON_C_TO_STRING_PLAIN),
                     "{\"vlan\":[\"any\"]}");
    v = path_get(doc, "inserted_at", NULL, NULL);
    ck_assert(json_object_is_type(v, json_type_string));
    snprintf(ins, sizeof(ins), "%s", json_object_get_string(v));
    ck_assert(json_object_is_type(path_get(doc, "updated_at", NULL, NULL), json_type_string));
    kytos_test_resp_free(r);
    r = kytos_test_request(h, "GET", "/api/kytos/topo_seed/v1/interface_details/" S3 ":1", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert_str_eq(json_object_to_json_string_ext(path_get(kytos_test_resp_json(r), "tag_ranges", NULL, NULL),
                                                    JSON_C_TO_STRING_PLAIN),
                     "{\"vlan\":[[1,4094]]}");
    kytos_test_resp_free(r);
    /* untouched interfaces have no document, as in Kytos */
    r = kytos_test_request(h, "GET", "/api/kytos/topo_seed/v1/interface_details/" S1 ":1", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 404);
    kytos_test_resp_free(r);
    /* hostile documents: ignored, or only their bad part */
    seed(h, "interface_details", S1 ":1", "{\"id\":\"" S1 ":1\",\"tag_ranges\":{\"vlan\":[[5,1]]},"
         "\"special_tags\":{\"vlan\":[\"untagged\"]}}");
    seed(h, "interface_details", S1 ":2", "{\"id\":\"" S1 ":2\",\"tag_ranges\":{\"vlan\":[[9,10]]},"
         "\"special_tags\":{\"vlan\":[\"any\",\"any\"]}}");
    seed(h, "interface_details", S1 ":3", "{\"id\":\"" S1 ":3\",\"tag_ranges\":[1],\"special_tags\":7}");
    seed(h, "interface_details", "x", "{\"id\":42,\"tag_ranges\":{\"vlan\":[[1,2]]}}");
    seed(h, "interface_details", "y", "{\"id\":\"" S1 ":999\",\"tag_ranges\":{\"vlan\":[[1,2]]}}");
    kytos_test_host_free(h);

    /* topology alone: the tags are back before the switches connect */
    th = host_with(CONF_FAST, dir, false);
    expect_json("GET", TR(S2 ":1"), NULL, 200, "{\"" S2 ":1\":" TAGS_SET "}");
    expect_json("GET", TR(S3 ":1"), NULL, 200, "{\"" S3 ":1\":" TAGS_DEFAULT "}");
    expect_json("GET", TR(S1 ":1"), NULL, 200,
                "{\"" S1 ":1\":{\"available_tags\":{\"vlan\":[[1,4094]]},\"tag_ranges\":{\"vlan\":[[1,4094]]},"
                "\"special_tags\":{\"vlan\":[\"untagged\"]},\"special_available_tags\":{\"vlan\":[\"untagged\"]}}}");
    expect_json("GET", TR(S1 ":2"), NULL, 200,
                "{\"" S1 ":2\":{\"available_tags\":{\"vlan\":[[9,10]]},\"tag_ranges\":{\"vlan\":[[9,10]]},"
                "\"special_tags\":{\"vlan\":[\"untagged\",\"any\"]},"
                "\"special_available_tags\":{\"vlan\":[\"untagged\",\"any\"]}}}");
    expect_json("GET", TR(S1 ":3"), NULL, 200, "{\"" S1 ":3\":" TAGS_DEFAULT "}");
    r = call("GET", API "interfaces/tag_ranges", NULL, 200);
    ck_assert_int_eq(json_object_object_length(kytos_test_resp_json(r)), 13);
    kytos_test_resp_free(r);
    /* a later change keeps the first inserted_at */
    expect_ok("POST", ST(S2 ":1"), "{\"tag_type\":\"vlan\",\"special_tags\":[\"untagged\"]}", 200,
              "Operation Successful");
    kytos_test_host_free(th);
    th = NULL;
    h = kytos_test_host_new(&o);
    ck_assert_int_eq(kytos_test_load(h, SEED_SO), 0);
    ck_assert_int_eq(kytos_test_start(h), 0);
    r = kytos_test_request(h, "GET", "/api/kytos/topo_seed/v1/interface_details/" S2 ":1", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert_str_eq(json_object_get_string(path_get(kytos_test_resp_json(r), "inserted_at", NULL, NULL)), ins);
    ck_assert_str_eq(json_object_to_json_string_ext(path_get(kytos_test_resp_json(r), "special_tags", NULL, NULL),
                                                    JSON_C_TO_STRING_PLAIN),
                     "{\"vlan\":[\"untagged\"]}");
    kytos_test_resp_free(r);
    kytos_test_host_free(h);

    /* deleting the interface deletes its document */
    th = host_with(CONF_FAST, dir, false);
    expect_ok("POST", API "interfaces/" S2 ":1/disable", NULL, 200, "Operation successful");
    expect_ok("DELETE", API "interfaces/" S2 ":1", NULL, 200, "Operation Successful");
    expect_error("GET", TR(S2 ":1"), NULL, 404, "Interface not found");
    kytos_test_host_free(th);
    th = NULL;
    h = kytos_test_host_new(&o);
    ck_assert_int_eq(kytos_test_load(h, SEED_SO), 0);
    ck_assert_int_eq(kytos_test_start(h), 0);
    r = kytos_test_request(h, "GET", "/api/kytos/topo_seed/v1/interface_details/" S2 ":1", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 404);
    kytos_test_resp_free(r);
    kytos_test_host_free(h);
    {
        char cmd[64];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        ck_assert_int_eq(system(cmd), 0);
    }
}
END_TEST

/* ---- a change the store refuses: 500, the model and the store unchanged ---- */

#define STORE_FAILED "The change could not be saved: I/O error"

/* The next write to the collection fails. */
static void fail_next_write(const char *coll)
{
    ck_assert_int_eq(kytos_test_store_fail(th, coll, KYTOS_EIO, 1), 0);
}

START_TEST(store_failure_switch_disable)
{
    struct json_object *t, *doc;

    kytos_test_host_free(th);
    th = host_with_seed();
    fail_next_write("switches");
    expect_error("POST", API "switches/" S1 "/disable", NULL, 500, STORE_FAILED);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    t = topology();
    ck_assert(json_object_get_boolean(path_get(t, "switches", S1, "enabled")));
    ck_assert(json_object_get_boolean(path_get(intf_of(t, S1, S1 ":3"), "enabled", NULL, NULL)));
    ck_assert(json_object_get_boolean(path_get(t, "links", L12, "enabled")));
    ck_assert_str_eq(json_object_get_string(path_get(t, "links", L12, "status")), "UP");
    json_object_put(t);
    /* nothing announced; the link documents written before the failure were put back */
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.switch.disabled"), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link.disabled"), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_down"), 0);
    doc = stored("links", L12);
    ck_assert_ptr_nonnull(doc);
    ck_assert(json_object_get_boolean(path_get(doc, "enabled", NULL, NULL)));
    json_object_put(doc);
    doc = stored("switches", S1);
    ck_assert_ptr_nonnull(doc);
    ck_assert(json_object_get_boolean(path_get(doc, "enabled", NULL, NULL)));
    json_object_put(doc);

    expect_ok("POST", API "switches/" S1 "/disable", NULL, 201, "Operation successful");
    ck_assert(!get_bool3("switches", S1, "enabled"));
    ck_assert_str_eq(link_status(L12), "DISABLED");
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_down"), 2);
    doc = stored("switches", S1);
    ck_assert_ptr_nonnull(doc);
    ck_assert(!json_object_get_boolean(path_get(doc, "enabled", NULL, NULL)));
    json_object_put(doc);
}
END_TEST

START_TEST(store_failure_link_enable)
{
    size_t up;

    expect_ok("POST", API "links/" L12 "/disable", NULL, 201, "Operation successful");
    up = kytos_test_published_count(th, "kytos/topology.link_up");
    fail_next_write("links");
    expect_error("POST", API "links/" L12 "/enable", NULL, 500, STORE_FAILED);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert(!get_bool3("links", L12, "enabled"));
    ck_assert_str_eq(link_status(L12), "DISABLED");
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link.enabled"), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_up"), up);

    expect_ok("POST", API "links/" L12 "/enable", NULL, 201, "Operation successful");
    ck_assert_str_eq(link_status(L12), "UP");
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.link_up"), up + 1);
}
END_TEST

START_TEST(store_failure_interface_metadata_add)
{
    fail_next_write("switches");
    expect_error("POST", API "interfaces/" S1 ":1/metadata", "{\"note\":1}", 500, STORE_FAILED);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    expect_json("GET", API "interfaces/" S1 ":1/metadata", NULL, 200, "{\"metadata\":{}}");
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.interfaces.metadata.added"), 0);

    expect_ok("POST", API "interfaces/" S1 ":1/metadata", "{\"note\":1}", 201, "Operation successful");
    expect_json("GET", API "interfaces/" S1 ":1/metadata", NULL, 200, "{\"metadata\":{\"note\":1}}");
}
END_TEST

START_TEST(store_failure_link_metadata_delete)
{
    expect_ok("POST", API "links/" L23 "/metadata", "{\"bandwidth\":10,\"ownership\":\"red\"}", 201,
              "Operation successful");
    fail_next_write("links");
    expect_error("DELETE", API "links/" L23 "/metadata/bandwidth", NULL, 500, STORE_FAILED);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    expect_json("GET", API "links/" L23 "/metadata", NULL, 200,
                "{\"metadata\":{\"bandwidth\":10,\"ownership\":\"red\"}}");
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.links.metadata.removed"), 0);

    expect_ok("DELETE", API "links/" L23 "/metadata/bandwidth", NULL, 200, "Operation successful");
    expect_json("GET", API "links/" L23 "/metadata", NULL, 200, "{\"metadata\":{\"ownership\":\"red\"}}");
}
END_TEST

START_TEST(store_failure_tags_set)
{
    static const char ranges[] = "{\"tag_type\":\"vlan\",\"tag_ranges\":[[1,500],2096,[3001]]}";
    static const char special[] = "{\"tag_type\":\"vlan\",\"special_tags\":[\"any\"]}";

    fail_next_write("interface_details");
    expect_error("POST", TR(S1 ":1"), ranges, 500, STORE_FAILED);
    expect_json("GET", TR(S1 ":1"), NULL, 200, "{\"" S1 ":1\":" TAGS_DEFAULT "}");
    fail_next_write("interface_details");
    expect_error("POST", ST(S1 ":1"), special, 500, STORE_FAILED);
    expect_json("GET", TR(S1 ":1"), NULL, 200, "{\"" S1 ":1\":" TAGS_DEFAULT "}");

    expect_ok("POST", TR(S1 ":1"), ranges, 200, "Operation Successful");
    expect_ok("POST", ST(S1 ":1"), special, 200, "Operation Successful");
    expect_json("GET", TR(S1 ":1"), NULL, 200, "{\"" S1 ":1\":" TAGS_SET "}");
}
END_TEST

/* GET v3/'s body text (malloc'd). */
static char *topology_text(void)
{
    kytos_test_resp *r = call("GET", API, NULL, 200);
    size_t len = 0;
    const char *body = kytos_test_resp_body(r, &len);
    char *copy = malloc(len + 1);

    ck_assert_ptr_nonnull(copy);
    memcpy(copy, body, len);
    copy[len] = '\0';
    kytos_test_resp_free(r);
    return copy;
}

/* A delete whose next write to coll the store refuses: 500, the entity
 * back in memory (GET v3/ byte for byte as before), and neither its event
 * (if any) nor kytos/topology.updated goes out. */
static void delete_refused(const char *coll, const char *path, const char *event)
{
    char *before = topology_text(), *after;
    size_t updated = kytos_test_published_count(th, "kytos/topology.updated"), k;

    fail_next_write(coll);
    expect_error("DELETE", path, NULL, 500, STORE_FAILED);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    after = topology_text();
    for (k = 0; before[k] && before[k] == after[k]; k++)
        ;
    ck_assert_msg(before[k] == after[k], "GET v3/ changed at byte %zu: %.120s\nwas: %.120s", k, after + k,
                  before + k);
    if (event)
        ck_assert_uint_eq(kytos_test_published_count(th, event), 0);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/topology.updated"), updated);
    free(before);
    free(after);
}

/* The delete refused before, now through: one event, the entity gone from
 * its metadata endpoint and from GET v3/'s section. */
static void delete_again(const char *path, const char *event, const char *not_found, const char *section,
                         const char *id)
{
    char meta[256];
    struct json_object *t;

    snprintf(meta, sizeof meta, "%s/metadata", path);
    expect_ok("DELETE", path, NULL, 200, "Operation successful");
    ck_assert_uint_eq(kytos_test_published_count(th, event), 1);
    expect_error("GET", meta, NULL, 404, not_found);
    t = topology();
    ck_assert(!json_object_object_get_ex(path_get(t, section, NULL, NULL), id, NULL));
    json_object_put(t);
}

START_TEST(store_failure_switch_delete)
{
    struct json_object *t, *doc;

    kytos_test_host_free(th);
    th = host_with_seed();
    expect_ok("POST", API "switches/" S1 "/metadata", "{\"site\":\"lab\"}", 201, "Operation successful");
    expect_ok("POST", API "interfaces/" S1 ":1/metadata", "{\"note\":1}", 201, "Operation successful");
    expect_ok("POST", TR(S1 ":1"), "{\"tag_type\":\"vlan\",\"tag_ranges\":[[1,500],2096,[3001]]}", 200,
              "Operation Successful");
    expect_ok("POST", API "switches/" S1 "/disable", NULL, 201, "Operation successful");
    expect_ok("DELETE", API "links/" L12, NULL, 200, "Operation successful");
    expect_ok("DELETE", API "links/" L13, NULL, 200, "Operation successful");

    /* the switch document's delete fails; its interface_details ones went
     * through and are written back */
    delete_refused("switches", API "switches/" S1, "kytos/topology.switch.deleted");
    expect_json("GET", API "switches/" S1 "/metadata", NULL, 200, "{\"metadata\":{\"site\":\"lab\"}}");
    expect_json("GET", API "interfaces/" S1 ":1/metadata", NULL, 200, "{\"metadata\":{\"note\":1}}");
    t = topology();
    ck_assert_str_eq(json_object_get_string(path_get(path_get(t, "switches", S1, "metadata"), "site", NULL, NULL)),
                     "lab");
    json_object_put(t);
    doc = stored("switches", S1);
    ck_assert_ptr_nonnull(doc);
    json_object_put(doc);
    doc = stored("interface_details", S1 ":1");
    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(json_object_to_json_string_ext(path_get(doc, "tag_ranges", NULL, NULL), JSON_C_TO_STRING_PLAIN),
                     "{\"vlan\":[[1,500],[2096,2096],[3001,3001]]}");
    json_object_put(doc);

    delete_again(API "switches/" S1, "kytos/topology.switch.deleted", "Switch not found", "switches", S1);
    ck_assert_ptr_null(stored("switches", S1));
    ck_assert_ptr_null(stored("interface_details", S1 ":1"));
}
END_TEST

START_TEST(store_failure_interface_delete)
{
    struct json_object *t, *doc, *i;

    kytos_test_host_free(th);
    th = host_with_seed();
    expect_ok("POST", API "interfaces/" S1 ":4294967294/metadata", "{\"note\":\"local\"}", 201,
              "Operation successful");
    expect_ok("POST", API "interfaces/" S1 ":4294967294/disable", NULL, 200, "Operation successful");

    /* the interface_details delete fails; the switch document put after it
     * (without the interface) went through and is written back */
    delete_refused("interface_details", API "interfaces/" S1 ":4294967294", NULL);
    expect_json("GET", API "interfaces/" S1 ":4294967294/metadata", NULL, 200,
                "{\"metadata\":{\"note\":\"local\"}}");
    t = topology();
    i = intf_of(t, S1, S1 ":4294967294");
    ck_assert_str_eq(json_object_get_string(path_get(i, "metadata", "note", NULL)), "local");
    json_object_put(t);
    doc = stored("switches", S1);
    ck_assert_ptr_nonnull(doc);
    i = stored_intf(doc, S1 ":4294967294");
    ck_assert_ptr_nonnull(i);
    ck_assert_str_eq(json_object_get_string(path_get(i, "metadata", "note", NULL)), "local");
    json_object_put(doc);

    expect_ok("DELETE", API "interfaces/" S1 ":4294967294", NULL, 200, "Operation Successful");
    expect_error("GET", API "interfaces/" S1 ":4294967294/metadata", NULL, 404, "Interface not found");
    t = topology();
    ck_assert(!json_object_object_get_ex(path_get(t, "switches", S1, "interfaces"), S1 ":4294967294", NULL));
    json_object_put(t);
    doc = stored("switches", S1);
    ck_assert_ptr_nonnull(doc);
    ck_assert_ptr_null(stored_intf(doc, S1 ":4294967294"));
    json_object_put(doc);
}
END_TEST

/* The first switch document fails; the link's delete went through after
 * it and the undo stores the link again, with both switches naming it. */
START_TEST(store_failure_link_delete_stores_the_link_again)
{
    struct json_object *doc;

    kytos_test_host_free(th);
    th = host_with_seed();
    expect_ok("POST", API "links/" L23 "/disable", NULL, 201, "Operation successful");
    delete_refused("switches", API "links/" L23, "kytos/topology.link.deleted");
    doc = stored("links", L23);
    ck_assert_ptr_nonnull(doc);
    json_object_put(doc);
    expect_stored_link(S2, S2 ":3", L23);
    expect_stored_link(S3, S3 ":2", L23);
}
END_TEST

START_TEST(store_failure_link_delete)
{
    struct json_object *t, *doc;

    kytos_test_host_free(th);
    th = host_with_seed();
    expect_ok("POST", API "links/" L23 "/metadata", "{\"bandwidth\":10}", 201, "Operation successful");
    expect_ok("POST", API "links/" L23 "/disable", NULL, 201, "Operation successful");

    /* the link document's delete fails; the switch documents put before it
     * (interfaces without the link) went through and are written back */
    delete_refused("links", API "links/" L23, "kytos/topology.link.deleted");
    expect_json("GET", API "links/" L23 "/metadata", NULL, 200, "{\"metadata\":{\"bandwidth\":10}}");
    t = topology();
    ck_assert_int_eq(json_object_get_int(path_get(path_get(t, "links", L23, "metadata"), "bandwidth", NULL, NULL)),
                     10);
    ck_assert_str_eq(json_object_get_string(path_get(intf_of(t, S2, S2 ":3"), "link", NULL, NULL)), L23);
    ck_assert(json_object_get_boolean(path_get(intf_of(t, S3, S3 ":2"), "nni", NULL, NULL)));
    json_object_put(t);
    expect_stored_link(S2, S2 ":3", L23);
    doc = stored("links", L23);
    ck_assert_ptr_nonnull(doc);
    json_object_put(doc);

    delete_again(API "links/" L23, "kytos/topology.link.deleted", "Link not found", "links", L23);
    t = topology();
    ck_assert_str_eq(json_object_get_string(path_get(intf_of(t, S2, S2 ":3"), "link", NULL, NULL)), "");
    json_object_put(t);
    ck_assert_ptr_null(stored("links", L23));
    expect_stored_link(S2, S2 ":3", "");
}
END_TEST

/* ---- a refused write nothing puts back: retried until stored ---- */

#define CONF_RETRY CONF_FAST "store_retry_interval = 0.02\n"

/* A string field of a stored document (malloc'd), NULL when the document
 * or the field is missing. */
static char *stored_str(const char *coll, const char *id, const char *key)
{
    struct json_object *doc = stored(coll, id), *v;
    char *copy = NULL;

    if (doc && json_object_object_get_ex(doc, key, &v) && json_object_is_type(v, json_type_string))
        copy = strdup(json_object_get_string(v));
    json_object_put(doc);
    return copy;
}

static void expect_stored_str(const char *coll, const char *id, const char *key, const char *want)
{
    char *got = stored_str(coll, id, key);

    ck_assert_msg(got && strcmp(got, want) == 0, "stored %s/%s %s: %s, want %s", coll, id, key,
                  got ? got : "(none)", want);
    free(got);
}

struct stored_want {
    const char *coll, *id, *key, *value;
};

static bool is_stored_as(const void *ud)
{
    const struct stored_want *w = ud;
    char *got = stored_str(w->coll, w->id, w->key);
    bool eq = got && strcmp(got, w->value) == 0;

    free(got);
    return eq;
}

static bool await_stored_str(const char *coll, const char *id, const char *key, const char *value)
{
    struct stored_want w = {coll, id, key, value};

    return await_until(is_stored_as, &w, 5000);
}

/* The switch reconnects reporting this software version: an event whose
 * switch document nothing puts back when the store refuses it. */
static void reconnect(const char *dpid, const char *software)
{
    char body[256];

    snprintf(body, sizeof body, "{\"switch\":{\"dpid\":\"%s\",\"software\":\"%s\"}}", dpid, software);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.switch.reconnected", body), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
}

static const char *memory_software(const char *dpid)
{
    static char buf[64];
    struct json_object *t = topology();

    snprintf(buf, sizeof buf, "%s", json_object_get_string(path_get(t, "switches", dpid, "software")));
    json_object_put(t);
    return buf;
}

static void refuse_writes(const char *coll)
{
    ck_assert_int_eq(kytos_test_store_fail(th, coll, KYTOS_EIO, 1000000), 0);
}

static void accept_writes(void)
{
    ck_assert_int_eq(kytos_test_store_fail(th, "switches", KYTOS_EIO, 0), 0);
}

/* stderr (where the test host prints log lines) into a file meanwhile. */
struct log_capture {
    FILE *f;
    int saved;
};

static void log_capture_begin(struct log_capture *c)
{
    c->f = tmpfile();
    ck_assert_ptr_nonnull(c->f);
    fflush(stderr);
    c->saved = dup(STDERR_FILENO);
    ck_assert_int_ge(c->saved, 0);
    ck_assert_int_ge(dup2(fileno(c->f), STDERR_FILENO), 0);
}

/* The captured text so far contains ud's text. */
struct log_wait {
    struct log_capture *c;
    const char *text;
};

static bool log_has(const void *ud)
{
    const struct log_wait *w = ud;
    struct stat st;
    char *buf;
    bool found = false;

    fflush(stderr);
    if (fstat(fileno(w->c->f), &st) != 0 || !(buf = malloc((size_t)st.st_size + 1)))
        return false;
    ssize_t n = pread(fileno(w->c->f), buf, (size_t)st.st_size, 0);
    if (n >= 0) {
        buf[n] = '\0';
        found = strstr(buf, w->text) != NULL;
    }
    free(buf);
    return found;
}

/* Back to the real stderr; the captured lines containing each of the texts
 * counted into n[]. */
static void log_capture_end(struct log_capture *c, const char *const *texts, size_t *n, size_t k)
{
    char line[2048];

    fflush(stderr);
    ck_assert_int_ge(dup2(c->saved, STDERR_FILENO), 0);
    close(c->saved);
    memset(n, 0, k * sizeof(*n));
    rewind(c->f);
    while (fgets(line, sizeof line, c->f)) {
        for (size_t j = 0; j < k; j++)
            n[j] += strstr(line, texts[j]) != NULL;
        fputs(line, stderr);   /* still shown */
    }
    fclose(c->f);
}

/* An event's switch document refused twice: memory keeps the change, the
 * store the old document until it takes writes again, then the timer
 * stores the current one; one mark (one log line) for both refusals. */
START_TEST(store_failure_on_event_is_retried)
{
    static const char *const texts[] = {"storing switches/" S1 " failed", "stored switches/" S1 " again"};
    struct log_capture cap;
    size_t n[2];

    log_capture_begin(&cap);
    kytos_test_host_free(th);
    th = host_seeded(CONF_RETRY, NULL, true, KYTOS_LOG_INFO);
    expect_stored_str("switches", S1, "software", "3.1.0");

    refuse_writes("switches");
    reconnect(S1, "4.0.0");
    reconnect(S1, "4.0.1");
    ck_assert_str_eq(memory_software(S1), "4.0.1");
    expect_stored_str("switches", S1, "software", "3.1.0");

    accept_writes();
    ck_assert_msg(await_stored_str("switches", S1, "software", "4.0.1"), "the switch was never stored");
    /* the timer logs it once the store has answered: after the document shows */
    ck_assert_msg(await_until(log_has, &(struct log_wait){&cap, texts[1]}, 5000), "no log line for the retry");
    log_capture_end(&cap, texts, n, 2);
    ck_assert_uint_eq(n[0], 1);
    ck_assert_uint_eq(n[1], 1);
}
END_TEST

/* A REST delete the store refuses while an event's switch document waits
 * for its retry: the delete is undone, and the switch document stored
 * later is memory's, the link still on its interface. */
START_TEST(store_failure_rest_delete_keeps_the_retried_switch)
{
    struct json_object *t;

    kytos_test_host_free(th);
    th = host_seeded(CONF_RETRY, NULL, true, 0);
    expect_ok("POST", API "links/" L23 "/disable", NULL, 201, "Operation successful");
    refuse_writes("switches");
    reconnect(S2, "4.0.0");
    /* the switch documents fail, the link's delete goes through and is undone */
    expect_error("DELETE", API "links/" L23, NULL, 500, STORE_FAILED);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    t = topology();
    ck_assert(json_object_object_get_ex(path_get(t, "links", NULL, NULL), L23, NULL));
    ck_assert_str_eq(json_object_get_string(path_get(intf_of(t, S2, S2 ":3"), "link", NULL, NULL)), L23);
    json_object_put(t);
    expect_stored_str("switches", S2, "software", "3.1.0");
    expect_stored_str("links", L23, "id", L23);

    accept_writes();
    ck_assert_msg(await_stored_str("switches", S2, "software", "4.0.0"), "the switch was never stored");
    expect_stored_link(S2, S2 ":3", L23);
    expect_stored_link(S3, S3 ":2", L23);
    expect_stored_str("links", L23, "id", L23);
}
END_TEST

/* The stored switch document's interface intf names link. */
struct stored_link_want {
    const char *dpid, *intf, *link;
};

static bool names_link(const void *ud)
{
    const struct stored_link_want *w = ud;
    struct json_object *doc = stored("switches", w->dpid);
    const char *got = json_object_get_string(path_get(stored_intf(doc, w->intf), "link", NULL, NULL));
    bool eq = got && strcmp(got, w->link) == 0;

    json_object_put(doc);
    return eq;
}

/* The undo's own rewrite refused too: the delete wrote S2 without the
 * link, S3 failed, and S2's rewrite (with the link again) failed; memory
 * has the link, the store's S2 does not until the retry writes it. */
START_TEST(store_failure_undo_rewrite_is_retried)
{
    struct stored_link_want w = {S2, S2 ":3", L23};

    kytos_test_host_free(th);
    th = host_seeded(CONF_RETRY, NULL, true, 0);
    expect_ok("POST", API "links/" L23 "/disable", NULL, 201, "Operation successful");
    /* S2 goes through, S3 and then S2's rewrite are refused */
    ck_assert_int_eq(kytos_test_store_fail_after(th, "switches", KYTOS_EIO, 1, 2), 0);
    expect_error("DELETE", API "links/" L23, NULL, 500, STORE_FAILED);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    expect_json("GET", API "links/" L23 "/metadata", NULL, 200, "{\"metadata\":{}}");
    ck_assert_msg(await_until(names_link, &w, 5000), "S2's document never named the link again");
    expect_stored_link(S3, S3 ":2", L23);
    expect_stored_str("links", L23, "id", L23);
}
END_TEST

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* A new link (s1:1 - s2:1) whose document the store refuses; its id into
 * link.  Links stay refused until another kytos_test_store_fail*. */
static void refused_new_link(char *link, size_t cap)
{
    refuse_writes("links");
    json_object_put(lldp_saw(S1, S1 ":1", S2 ":1", link, cap));
    ck_assert_uint_eq(strlen(link), 64);
    ck_assert_ptr_null(stored("links", link));
}

/* A link whose document was refused, then stored (its disable) and
 * deleted through REST, and a switch document refused: the last try at
 * stop (the timer ran once at start, the next round would come after
 * 60 s) stores the switch and leaves the link deleted. */
START_TEST(store_failure_retried_at_stop_keeps_a_later_delete)
{
    char dir[] = "/tmp/topo-test-XXXXXX", link[80], path[256];
    struct json_object *t;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    kytos_test_host_free(th);
    th = host_seeded(CONF_FAST "store_retry_interval = 60\n", dir, true, 0);

    refused_new_link(link, sizeof link);
    /* and a switch document refused (the links take writes again) */
    refuse_writes("switches");
    reconnect(S3, "4.0.0");
    accept_writes();

    /* the link stored by its disable, then deleted */
    snprintf(path, sizeof path, API "links/%s/disable", link);
    expect_ok("POST", path, NULL, 201, "Operation successful");
    snprintf(path, sizeof path, API "links/%s", link);
    expect_ok("DELETE", path, NULL, 200, "Operation successful");
    ck_assert_ptr_null(stored("links", link));
    expect_stored_str("switches", S3, "software", "3.1.0");
    kytos_test_host_free(th);

    /* the store as the next start finds it (no simnet to report the switches) */
    th = host_seeded(CONF_FAST, dir, false, 0);
    expect_stored_str("switches", S3, "software", "4.0.0");
    ck_assert_ptr_null(stored("links", link));
    t = topology();
    ck_assert(!json_object_object_get_ex(path_get(t, "links", NULL, NULL), link, NULL));
    ck_assert_str_eq(json_object_get_string(path_get(t, "switches", S3, "software")), "4.0.0");
    json_object_put(t);
    kytos_test_host_free(th);
    th = NULL;
    ck_assert_int_eq(nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS), 0);
}
END_TEST

/* A link created disabled whose document was refused, then deleted
 * through REST: its document's delete finds nothing, a switch document is
 * refused, and the delete is undone.  The link is back in memory and was
 * never stored: its mark must survive the delete that found nothing, so
 * the last try at stop stores it. */
START_TEST(store_failure_undone_delete_of_an_unstored_link)
{
    char dir[] = "/tmp/topo-test-XXXXXX", link[80], path[256];
    struct json_object *t, *doc;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    kytos_test_host_free(th);
    th = host_seeded(CONF_FAST "store_retry_interval = 60\nenable_entities_by_default = false\n", dir,
                     true, 0);
    refused_new_link(link, sizeof link);
    /* links take writes again; the second switch document is refused */
    ck_assert_int_eq(kytos_test_store_fail_after(th, "switches", KYTOS_EIO, 1, 1), 0);
    snprintf(path, sizeof path, API "links/%s", link);
    expect_error("DELETE", path, NULL, 500, STORE_FAILED);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    t = topology();
    ck_assert(json_object_object_get_ex(path_get(t, "links", NULL, NULL), link, NULL));
    json_object_put(t);
    ck_assert_ptr_null(stored("links", link));
    kytos_test_host_free(th);

    th = host_seeded(CONF_FAST, dir, false, 0);
    doc = stored("links", link);
    ck_assert_msg(doc != NULL, "the undone link was never stored");
    json_object_put(doc);
    kytos_test_host_free(th);
    th = NULL;
    ck_assert_int_eq(nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS), 0);
}
END_TEST

/* The store's error count (GET core/status/). */
static int64_t store_errors(void)
{
    kytos_test_resp *r = kytos_test_request(th, "GET", "/api/kytos/core/status/", NULL);
    struct json_object *st;
    int64_t n;

    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    st = kytos_test_resp_json(r);
    n = json_object_get_int64(path_get(st, "store", "errors", NULL));
    kytos_test_resp_free(r);
    return n;
}

/* A store that refuses everything (EIO: the store, not one document) is
 * not asked every round: over a second of 20 ms rounds, the skipped ones
 * (1, 2, 4, 8, 16 ...) leave about 6 tries instead of 50; it is still
 * tried, and stored once it takes writes. */
START_TEST(store_down_backs_off_the_retry)
{
    struct timespec second = {1, 0};
    int64_t before, tries;

    kytos_test_host_free(th);
    th = host_seeded(CONF_RETRY, NULL, true, 0);
    refuse_writes("switches");
    reconnect(S1, "4.0.0");
    before = store_errors();
    nanosleep(&second, NULL);   /* a window to count in, not a wait for an outcome */
    tries = store_errors() - before;
    ck_assert_msg(tries >= 2 && tries <= 15, "%lld tries in a second", (long long)tries);
    accept_writes();
    ck_assert_msg(await_stored_str("switches", S1, "software", "4.0.0"), "the switch was never stored");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("topology");
    TCase *tc;

    tc = kytos_check_case(s, "topology_v3", setup, teardown, 60);
    tcase_add_test(tc, ring3_is_byte_for_byte_the_fixture);
    tcase_add_test(tc, ring5_setting_matches_fixture);
    tcase_add_test(tc, switches_interfaces_links_are_the_parts);
    tcase_add_test(tc, event_dicts_match_get_bodies);
    tcase_add_test(tc, concurrent_readers_and_writers);
    tc = kytos_check_case(s, "switches", setup, teardown, 60);
    tcase_add_test(tc, switch_disable_enable);
    tcase_add_test(tc, switch_delete_rules);
    tcase_add_test(tc, switch_metadata);
    tcase_add_test(tc, metadata_bad_json_is_400);
    tcase_add_test(tc, metadata_strict_json_is_400);
    tc = kytos_check_case(s, "interfaces", setup, teardown, 60);
    tcase_add_test(tc, interface_enable_disable);
    tcase_add_test(tc, interface_metadata);
    tcase_add_test(tc, interface_delete_rules);
    tcase_add_test(tc, interface_delete_refused_while_a_stale_link_has_it);
    tcase_add_test(tc, interface_deleted_event_keeps_a_stale_link_endpoint);
    tc = kytos_check_case(s, "links", setup, teardown, 60);
    tcase_add_test(tc, link_metadata_and_delete);
    tcase_add_test(tc, delete_old_link_keeps_the_recabled_endpoint);
    tcase_add_test(tc, link_up_timer_holds_links_down);
    tcase_add_test(tc, liveness_sets_link_metadata);
    tc = kytos_check_case(s, "events", setup, teardown, 60);
    tcase_add_test(tc, discovery_events);
    tcase_add_test(tc, simnet_link_down_up);
    tcase_add_test(tc, simnet_switch_disconnect_and_add);
    tcase_add_test(tc, hostile_events_change_nothing);
    tc = kytos_check_case(s, "tags", setup, teardown, 60);
    tcase_add_test(tc, tag_ranges_get);
    tcase_add_test(tc, tag_ranges_set_and_reset);
    tcase_add_test(tc, tag_ranges_bad_input_is_400);
    tcase_add_test(tc, tag_ranges_need_json);
    tcase_add_test(tc, tags_survive_a_restart);
    tc = kytos_check_case(s, "store", setup, teardown, 60);
    tcase_add_test(tc, restart_restores_from_store);
    tcase_add_test(tc, hostile_store_documents);
    tcase_add_test(tc, bad_settings_refuse_the_napp);
    tc = kytos_check_case(s, "store_failures", setup, teardown, 60);
    tcase_add_test(tc, store_failure_switch_disable);
    tcase_add_test(tc, store_failure_link_enable);
    tcase_add_test(tc, store_failure_interface_metadata_add);
    tcase_add_test(tc, store_failure_link_metadata_delete);
    tcase_add_test(tc, store_failure_tags_set);
    tcase_add_test(tc, store_failure_switch_delete);
    tcase_add_test(tc, store_failure_interface_delete);
    tcase_add_test(tc, store_failure_link_delete);
    tcase_add_test(tc, store_failure_link_delete_stores_the_link_again);
    tcase_add_test(tc, store_failure_on_event_is_retried);
    tcase_add_test(tc, store_failure_rest_delete_keeps_the_retried_switch);
    tcase_add_test(tc, store_failure_retried_at_stop_keeps_a_later_delete);
    tcase_add_test(tc, store_failure_undone_delete_of_an_unstored_link);
    tcase_add_test(tc, store_down_backs_off_the_retry);
    tcase_add_test(tc, store_failure_undo_rewrite_is_retried);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
