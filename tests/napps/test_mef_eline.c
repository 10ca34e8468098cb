/* tests/napps/test_mef_eline.c - kytos/mef_eline through the in-process
 * test host over simnet's 3-switch ring (topology, flow_manager, pathfinder,
 * mef_eline, simnet; dynamic paths come from pathfinder): every case of tests/data/fixtures/mef_eline_evc_cases.json, 409 for
 * a duplicated EPL UNI, list/get/patch/delete/metadata, flows installed
 * through flow_manager, link failures moving or downing an EVC, and the
 * schedule API (POST/PATCH/DELETE v2/evc/schedule, its 400s and 404s) with
 * "date" and "interval" schedules run by the NApp's one-second timer, and
 * store failures: 500s for requests, retries for link events. */
#include "check_tap.h"
#include "await.h"
#include <kytos/kytos.h>
#include <kytos/test.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define S1 "00:00:00:00:00:00:00:01"
#define S2 "00:00:00:00:00:00:00:02"
#define S3 "00:00:00:00:00:00:00:03"
#define ME "/api/kytos/mef_eline/"
#define EVPL(name, vlan)                                                                        \
    "{\"name\":\"" name "\",\"dynamic_backup_path\":true,\"uni_a\":{\"interface_id\":\"" S1    \
    ":1\",\"tag\":{\"tag_type\":\"vlan\",\"value\":" vlan "}},\"uni_z\":{\"interface_id\":\"" S3 \
    ":1\",\"tag\":{\"tag_type\":\"vlan\",\"value\":" vlan "}}}"

#define EVPL_SCHED(name, vlan, sched)                                                            \
    "{\"name\":\"" name "\",\"dynamic_backup_path\":true,\"uni_a\":{\"interface_id\":\"" S1    \
    ":1\",\"tag\":{\"tag_type\":\"vlan\",\"value\":" vlan "}},\"uni_z\":{\"interface_id\":\"" S3 \
    ":1\",\"tag\":{\"tag_type\":\"vlan\",\"value\":" vlan "}},\"circuit_scheduler\":[" sched "]}"

static kytos_test_host *th;

static const char conf[] = "[kytos/topology]\n"
                           "link_up_timer = 0\n"
                           "[kytos/simnet]\n"
                           "flow_stats_interval = 0\n"
                           "[kytos/mef_eline]\n"
                           "store_retry_interval = 0.02\n";

/* A host over data_dir (NULL = a fresh temporary one) with the five NApps
 * started, configured by conf_text. */
static kytos_test_host *host_conf(const char *data_dir, const char *conf_text)
{
    struct kytos_test_opts o = {.struct_size = sizeof o, .conf_text = conf_text, .data_dir = data_dir};
    static const char *const napps[] = {"topology", "flow_manager", "pathfinder", "mef_eline", "simnet"};
    char path[512];
    size_t i;

    kytos_test_host *h = kytos_test_host_new(&o);
    ck_assert_ptr_nonnull(h);
    for (i = 0; i < sizeof napps / sizeof napps[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.so", NAPP_DIR, napps[i]);
        ck_assert_msg(kytos_test_load(h, path) == 0, "%s: %s", napps[i],
                      kytos_test_last_error(h));
    }
    ck_assert_int_eq(kytos_test_start(h), 0);
    ck_assert_int_eq(kytos_test_drain(h, 10000), 0);
    return h;
}

static kytos_test_host *host_over(const char *data_dir)
{
    return host_conf(data_dir, conf);
}

static void setup(void)
{
    th = host_over(NULL);
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

static unsigned status_of(const char *method, const char *path, const char *body)
{
    kytos_test_resp *r = req(method, path, body);
    unsigned st = kytos_test_resp_status(r);
    kytos_test_resp_free(r);
    return st;
}

static const char *str(struct json_object *o, const char *k)
{
    struct json_object *v;
    return json_object_object_get_ex(o, k, &v) && v ? json_object_get_string(v) : "";
}

static const char *description(kytos_test_resp *r)
{
    return str(kytos_test_resp_json(r), "description");
}

/* POST an EVC; 201 expected; its id copied to id. */
static void create(const char *body, char id[15], int *deployed)
{
    kytos_test_resp *r = req("POST", ME "v2/evc/", body);
    struct json_object *j = kytos_test_resp_json(r), *d;
    ck_assert_msg(kytos_test_resp_status(r) == 201, "status %u: %s", kytos_test_resp_status(r),
                  description(r));
    ck_assert_uint_eq(strlen(str(j, "circuit_id")), 14);
    snprintf(id, 15, "%s", str(j, "circuit_id"));
    ck_assert(json_object_object_get_ex(j, "deployed", &d) && json_object_is_type(d, json_type_boolean));
    if (deployed)
        *deployed = json_object_get_boolean(d);
    kytos_test_resp_free(r);
}

/* GET the EVC; the response kept in *keep. */
static struct json_object *get_evc(const char *id, kytos_test_resp **keep)
{
    char path[256];
    snprintf(path, sizeof path, ME "v2/evc/%s", id);
    *keep = req("GET", path, NULL);
    ck_assert_uint_eq(kytos_test_resp_status(*keep), 200);
    return kytos_test_resp_json(*keep);
}

static int evc_active(const char *id, size_t *path_len, char *first_link, size_t link_len)
{
    kytos_test_resp *r;
    struct json_object *e = get_evc(id, &r), *cp;
    int active = json_object_get_boolean(json_object_object_get(e, "active"));
    ck_assert(json_object_object_get_ex(e, "current_path", &cp));
    *path_len = json_object_array_length(cp);
    if (first_link && *path_len)
        snprintf(first_link, link_len, "%s", str(json_object_array_get_idx(cp, 0), "id"));
    kytos_test_resp_free(r);
    return active;
}

/* ---- the fixture cases ---- */

static struct json_object *load_cases(void)
{
    const char *dir = getenv("TEST_DATA_DIR");
    char path[1024];
    struct json_object *cases;

    snprintf(path, sizeof path, "%s/fixtures/mef_eline_evc_cases.json", dir ? dir : TEST_DATA_DIR);
    cases = json_object_from_file(path);
    ck_assert_msg(cases != NULL, "cannot read %s", path);
    return cases;
}

START_TEST(evc_cases_get_kytos_answers)
{
    struct json_object *cases = load_cases();
    size_t i, n = json_object_array_length(cases), checked = 0;

    for (i = 0; i < n; i++) {
        struct json_object *c = json_object_array_get_idx(cases, i), *code, *v;
        const char *name = str(c, "name");
        const char *body = json_object_to_json_string_ext(json_object_object_get(c, "body"),
                                                          JSON_C_TO_STRING_PLAIN);
        bool valid = json_object_get_boolean(json_object_object_get(c, "valid"));
        kytos_test_resp *r = req("POST", ME "v2/evc/", body);
        unsigned st = kytos_test_resp_status(r);

        if (json_object_object_get_ex(c, "code_level", &code)) {
            ck_assert_msg(st == (unsigned)json_object_get_int(json_object_object_get(code, "status")),
                          "%s: status %u (%s)", name, st, description(r));
            if (json_object_object_get_ex(code, "detail_contains", &v))
                ck_assert_msg(strstr(description(r), json_object_get_string(v)) != NULL,
                              "%s: '%s'", name, description(r));
        } else if (valid) {
            struct json_object *j = kytos_test_resp_json(r);
            char path[256];
            ck_assert_msg(st == 201, "%s: status %u (%s)", name, st, description(r));
            ck_assert_uint_eq(strlen(str(j, "circuit_id")), 14);
            if (strcmp(name, "valid_scheduled_create") == 0)
                ck_assert(!json_object_get_boolean(json_object_object_get(j, "deployed")));
            else
                ck_assert_msg(json_object_get_boolean(json_object_object_get(j, "deployed")),
                              "%s: not deployed", name);
            /* free the UNI tags for the next cases */
            snprintf(path, sizeof path, ME "v2/evc/%s", str(j, "circuit_id"));
            ck_assert_uint_eq(status_of("DELETE", path, NULL), 200);
        } else {
            ck_assert_msg(st == 400, "%s: status %u", name, st);
            ck_assert_msg(strstr(description(r), str(c, "expect_error_contains")) != NULL,
                          "%s: '%s' lacks '%s'", name, description(r),
                          str(c, "expect_error_contains"));
            ck_assert_msg(strncmp(description(r), "The request body contains invalid API data.",
                                  43) == 0 ||
                              strcmp(str(c, "expect_error_contains"), "is not of type 'object'") ==
                                  0,
                          "%s: '%s'", name, description(r));
        }
        kytos_test_resp_free(r);
        checked++;
    }
    ck_assert_uint_eq(checked, 44);
    json_object_put(cases);
}
END_TEST

START_TEST(duplicated_epl_uni_is_409_and_tags_conflict_400)
{
    const char *epl = "{\"name\":\"epl\",\"dynamic_backup_path\":true,\"uni_a\":{\"interface_id\":"
                      "\"" S1 ":1\"},\"uni_z\":{\"interface_id\":\"" S3 ":1\"}}";
    char id[15], id2[15];
    kytos_test_resp *r;

    create(epl, id, NULL);
    r = req("POST", ME "v2/evc/", epl);
    ck_assert_uint_eq(kytos_test_resp_status(r), 409);
    ck_assert_ptr_nonnull(strstr(description(r), "UNI with interface " S1 ":1 is duplicated with"));
    ck_assert_ptr_nonnull(strstr(description(r), id));
    kytos_test_resp_free(r);

    create(EVPL("a", "1000"), id2, NULL);
    r = req("POST", ME "v2/evc/", EVPL("b", "1000"));
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_ptr_nonnull(strstr(description(r), "not available"));
    kytos_test_resp_free(r);
}
END_TEST

/* POST body expecting 400 with exactly text. */
static void expect_400(const char *body, const char *text)
{
    kytos_test_resp *r = req("POST", ME "v2/evc/", body);
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_str_eq(description(r), text);
    kytos_test_resp_free(r);
}

/* Tag errors read as Kytos' str() of its exceptions: the exception's name
 * first; the ranges not available are the ones in use (range_difference
 * with what is available), a special tag is named bare; a tag list goes
 * through get_tag_ranges' checks in its order. */
START_TEST(tag_errors_are_kytos_exceptions)
{
    char id[15];

    create(EVPL("a", "82"), id, NULL);
    expect_400(EVPL("b", "82"),
               "KytosTagsAreNotAvailable, The tags [[82, 82]] are not available in " S1 ":1");
    create(EVPL("r", "[[10, 20], 30]"), id, NULL);
    expect_400(EVPL("r2", "[[5, 12], [18, 25], [30, 31]]"),
               "KytosTagsAreNotAvailable, The tags [[10, 12], [18, 20], [30, 30]] are not "
               "available in " S1 ":1");
    create(EVPL("any", "\"any\""), id, NULL);
    expect_400(EVPL("any2", "\"any\""),
               "KytosTagsAreNotAvailable, The tags any are not available in " S1 ":1");
    create(EVPL("u", "\"untagged\""), id, NULL);
    expect_400(EVPL("u2", "\"untagged\""),
               "KytosTagsAreNotAvailable, The tags untagged are not available in " S1 ":1");

    expect_400(EVPL("x", "[[20, 10]]"), "KytosInvalidTagRanges, The range [20, 10] is not ordered");
    expect_400(EVPL("x", "[[100, 200], [50, 60]]"),
               "KytosInvalidTagRanges, Tag ranges are not ordered. 200 is higher than 50");
    expect_400(EVPL("x", "[[500], [400]]"),
               "KytosInvalidTagRanges, Tag ranges are not ordered. 500 is higher than 400");
    expect_400(EVPL("x", "[[100, 200], [201, 300]]"),
               "KytosInvalidTagRanges, Tag ranges have an unnecessary partition. 200 is before to "
               "201");
    expect_400(EVPL("x", "[[100, 200], [200, 300]]"),
               "KytosInvalidTagRanges, Tag ranges have repetition. [100, 200] have same values as "
               "[200, 300]");
    expect_400(EVPL("x", "[[100, 200], 200]"),
               "KytosInvalidTagRanges, Tag ranges have repetition. [100, 200] have same values as "
               "[200, 200]");
    expect_400(EVPL("x", "[[4000, 4096]]"), "KytosInvalidTagRanges, Maximum value for a tag is 4095");
    expect_400(EVPL("x", "[[0, 5]]"), "KytosInvalidTagRanges, Minimum value for a tag is 1");
    /* 4095 is a tag a range may hold */
    create(EVPL("top", "[[4000, 4095]]"), id, NULL);
}
END_TEST

START_TEST(list_get_patch_delete)
{
    char id[15], path[256], text[64];
    kytos_test_resp *r;
    struct json_object *j, *e, *v;
    int deployed = 0;

    create(EVPL("evpl-list", "1200"), id, &deployed);
    ck_assert(deployed);
    r = req("GET", ME "v2/evc/", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), id, &e));
    ck_assert_str_eq(str(e, "name"), "evpl-list");
    ck_assert(!json_object_object_get_ex(e, "_id", NULL));
    kytos_test_resp_free(r);

    e = get_evc(id, &r);
    ck_assert_str_eq(str(e, "id"), id);
    ck_assert(json_object_get_boolean(json_object_object_get(e, "enabled")));
    ck_assert(json_object_get_boolean(json_object_object_get(e, "active")));
    ck_assert(!json_object_get_boolean(json_object_object_get(e, "archived")));
    kytos_test_resp_free(r);
    r = req("GET", ME "v2/evc/0123456789abcd", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 404);
    ck_assert_str_eq(description(r), "circuit_id 0123456789abcd not found");
    kytos_test_resp_free(r);

    /* PATCH: rename, then disable (flows removed), then enable again */
    snprintf(path, sizeof path, ME "v2/evc/%s", id);
    r = req("PATCH", path, "{\"name\":\"renamed\"}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    j = kytos_test_resp_json(r);
    ck_assert(json_object_object_get_ex(j, id, &e));
    ck_assert_str_eq(str(e, "name"), "renamed");
    ck_assert(json_object_object_get_ex(j, "redeployed", &v));
    {
        /* the reply and the listing show the path it is on, as stored
         * (between writes mef_eline keeps it out of the document) */
        kytos_test_resp *g = req("GET", ME "v2/evc/", NULL), *one;
        struct json_object *a, *b, *c, *ge = get_evc(id, &one);
        ck_assert(json_object_object_get_ex(e, "current_path", &a));
        ck_assert(json_object_object_get_ex(ge, "current_path", &b));
        ck_assert(json_object_object_get_ex(
            json_object_object_get(kytos_test_resp_json(g), id), "current_path", &c));
        ck_assert_uint_gt(json_object_array_length(a), 0);
        ck_assert(json_object_equal(a, b));
        ck_assert(json_object_equal(a, c));
        kytos_test_resp_free(g);
        kytos_test_resp_free(one);
    }
    kytos_test_resp_free(r);
    r = req("PATCH", path, "{\"enabled\":false}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    kytos_test_resp_free(r);
    e = get_evc(id, &r);
    ck_assert(!json_object_get_boolean(json_object_object_get(e, "active")));
    ck_assert(!json_object_get_boolean(json_object_object_get(e, "enabled")));
    kytos_test_resp_free(r);
    r = req("PATCH", path, "{\"enabled\":true}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_get_boolean(json_object_object_get(kytos_test_resp_json(r), "redeployed")));
    kytos_test_resp_free(r);
    r = req("PATCH", path, "{\"active\":true}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_ptr_nonnull(strstr(description(r), "Additional properties are not allowed"));
    kytos_test_resp_free(r);
    ck_assert_uint_eq(status_of("PATCH", ME "v2/evc/0123456789abcd", "{\"name\":\"x\"}"), 404);

    /* DELETE archives: gone from the list, shown with archived=true */
    r = req("DELETE", path, NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    snprintf(text, sizeof text, "Circuit %s removed", id);
    ck_assert_str_eq(str(kytos_test_resp_json(r), "response"), text);
    kytos_test_resp_free(r);
    r = req("GET", ME "v2/evc/", NULL);
    ck_assert(!json_object_object_get_ex(kytos_test_resp_json(r), id, NULL));
    kytos_test_resp_free(r);
    r = req("GET", ME "v2/evc/?archived=true", NULL);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), id, &e));
    ck_assert(json_object_get_boolean(json_object_object_get(e, "archived")));
    kytos_test_resp_free(r);
    ck_assert_uint_eq(status_of("DELETE", path, NULL), 404);
    /* its VLAN is free again */
    create(EVPL("evpl-again", "1200"), id, NULL);
}
END_TEST

START_TEST(metadata_endpoints)
{
    char id[15], id2[15], path[256], body[256];
    kytos_test_resp *r;
    struct json_object *md, *failed;

    create(EVPL("evpl-md", "1300"), id, NULL);
    snprintf(path, sizeof path, ME "v2/evc/%s/metadata", id);
    ck_assert_uint_eq(status_of("POST", path, "{\"owner_team\":\"noc\",\"x\":1}"), 201);
    r = req("GET", path, NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "metadata", &md));
    ck_assert_str_eq(str(md, "owner_team"), "noc");
    kytos_test_resp_free(r);
    snprintf(path, sizeof path, ME "v2/evc/%s/metadata/x", id);
    ck_assert_uint_eq(status_of("DELETE", path, NULL), 200);
    snprintf(body, sizeof body, "{\"circuit_ids\":[\"%s\",\"ffffffffffffff\"],\"k\":\"v\"}", id);
    r = req("POST", ME "v2/evc/metadata", body);
    ck_assert_uint_eq(kytos_test_resp_status(r), 404);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "description", &failed));
    ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(failed, 0)), "ffffffffffffff");
    kytos_test_resp_free(r);
    snprintf(path, sizeof path, ME "v2/evc/%s/metadata", id);
    r = req("GET", path, NULL);
    json_object_object_get_ex(kytos_test_resp_json(r), "metadata", &md);
    ck_assert_str_eq(str(md, "k"), "v");
    ck_assert(!json_object_object_get_ex(md, "x", NULL));
    kytos_test_resp_free(r);
    /* list filters on metadata: int, then true/false/null, else string */
    create(EVPL("evpl-md2", "1301"), id2, NULL);
    r = req("GET", ME "v2/evc/?metadata.k=v", NULL);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), id, NULL));
    ck_assert(!json_object_object_get_ex(kytos_test_resp_json(r), id2, NULL));
    kytos_test_resp_free(r);
    snprintf(path, sizeof path, ME "v2/evc/%s/metadata", id2);
    ck_assert_uint_eq(status_of("POST", path, "{\"n\":5,\"on\":true}"), 201);
    r = req("GET", ME "v2/evc/?metadata.n=5&metadata.on=true", NULL);
    ck_assert_int_eq(json_object_object_length(kytos_test_resp_json(r)), 1);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), id2, NULL));
    kytos_test_resp_free(r);
    r = req("GET", ME "v2/evc/?metadata.k=other", NULL);
    ck_assert_int_eq(json_object_object_length(kytos_test_resp_json(r)), 0);
    kytos_test_resp_free(r);
    snprintf(body, sizeof body, "{\"circuit_ids\":[\"%s\"]}", id);
    ck_assert_uint_eq(status_of("DELETE", ME "v2/evc/metadata/k", body), 200);
    ck_assert_uint_eq(status_of("GET", ME "v2/evc/0123456789abcd/metadata", NULL), 404);
    r = req("GET", ME "v2/evc/schedule", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_is_type(kytos_test_resp_json(r), json_type_array));
    kytos_test_resp_free(r);
}
END_TEST

/* The EVC's flows in flow_manager (by its cookie), per switch. */
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

START_TEST(deploy_installs_flows_through_flow_manager)
{
    char id[15], link[128];
    size_t plen;

    create(EVPL("evpl-flows", "1400"), id, NULL);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert(evc_active(id, &plen, link, sizeof link));
    /* S1 and S3 are neighbours in the ring: a one-link path */
    ck_assert_uint_eq(plen, 1);
    /* push + pop at each UNI switch, confirmed by simnet */
    ck_assert_uint_eq(evc_flows(id, S1, "installed"), 2);
    ck_assert_uint_eq(evc_flows(id, S3, "installed"), 2);
    ck_assert_uint_eq(evc_flows(id, S2, "installed"), 0);
}
END_TEST

START_TEST(link_down_moves_the_evc_then_downs_it)
{
    char id[15], link[128], link2[128], path[256];
    size_t plen;

    create(EVPL("evpl-failover", "1500"), id, NULL);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert(evc_active(id, &plen, link, sizeof link));
    ck_assert_uint_eq(plen, 1);

    /* the direct link fails: the EVC moves through S2 */
    snprintf(path, sizeof path, "/api/kytos/simnet/v1/links/%s/down", link);
    ck_assert_uint_eq(status_of("POST", path, NULL), 200);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert(evc_active(id, &plen, link2, sizeof link2));
    ck_assert_uint_eq(plen, 2);
    ck_assert_str_ne(link2, link);
    ck_assert_uint_eq(evc_flows(id, S2, "installed"), 2);
    ck_assert_uint_eq(evc_flows(id, S1, "installed"), 2);
    ck_assert_uint_ge(kytos_test_published_count(th, "kytos/mef_eline.redeployed_link_down"), 1);

    /* a link of the new path fails too: no path left, the EVC is down */
    snprintf(path, sizeof path, "/api/kytos/simnet/v1/links/%s/down", link2);
    ck_assert_uint_eq(status_of("POST", path, NULL), 200);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert(!evc_active(id, &plen, NULL, 0));
    ck_assert_uint_eq(plen, 0);
    ck_assert_uint_eq(evc_flows(id, S1, "installed") + evc_flows(id, S1, "pending"), 0);

    /* the first link comes back: the EVC is deployed again */
    snprintf(path, sizeof path, "/api/kytos/simnet/v1/links/%s/up", link);
    ck_assert_uint_eq(status_of("POST", path, NULL), 200);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert(evc_active(id, &plen, NULL, 0));
    ck_assert_uint_eq(plen, 1);
}
END_TEST

START_TEST(intra_switch_evc)
{
    char id[15];
    size_t plen;
    const char *body = "{\"name\":\"intra\",\"uni_a\":{\"interface_id\":\"" S1 ":1\",\"tag\":{"
                       "\"tag_type\":\"vlan\",\"value\":11}},\"uni_z\":{\"interface_id\":\"" S1
                       ":2\",\"tag\":{\"tag_type\":\"vlan\",\"value\":12}}}";
    int deployed = 0;

    create(body, id, &deployed);
    ck_assert(deployed);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert(evc_active(id, &plen, NULL, 0));
    ck_assert_uint_eq(plen, 0);
    ck_assert_uint_eq(evc_flows(id, S1, "installed"), 2);
}
END_TEST

START_TEST(patch_uni_swaps_tags_and_redeploys)
{
    char id[15], other[15], path[256];
    kytos_test_resp *r;
    struct json_object *e, *tag;

    create(EVPL("evpl-a", "1600"), id, NULL);
    create(EVPL("evpl-b", "1700"), other, NULL);
    snprintf(path, sizeof path, ME "v2/evc/%s", id);
    /* a VLAN the other EVC holds: 400, nothing changes */
    r = req("PATCH", path, "{\"uni_a\":{\"interface_id\":\"" S1 ":1\",\"tag\":{\"tag_type\":"
                           "\"vlan\",\"value\":1700}}}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_ptr_nonnull(strstr(description(r), "not available"));
    kytos_test_resp_free(r);
    e = get_evc(id, &r);
    ck_assert(json_object_object_get_ex(json_object_object_get(e, "uni_a"), "tag", &tag));
    ck_assert_int_eq(json_object_get_int(json_object_object_get(tag, "value")), 1600);
    kytos_test_resp_free(r);
    /* a free VLAN: taken, the old one freed, the EVC redeployed */
    r = req("PATCH", path, "{\"uni_a\":{\"interface_id\":\"" S1 ":1\",\"tag\":{\"tag_type\":"
                           "\"vlan\",\"value\":1650}}}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_get_boolean(json_object_object_get(kytos_test_resp_json(r), "redeployed")));
    kytos_test_resp_free(r);
    /* 1600 is free again on uni_a's interface (uni_z keeps its own) */
    create("{\"name\":\"evpl-c\",\"dynamic_backup_path\":true,\"uni_a\":{\"interface_id\":\"" S1
           ":1\",\"tag\":{\"tag_type\":\"vlan\",\"value\":1600}},\"uni_z\":{\"interface_id\":\"" S3
           ":1\",\"tag\":{\"tag_type\":\"vlan\",\"value\":1601}}}",
           other, NULL);
    /* an unknown interface: 400 */
    r = req("PATCH", path, "{\"uni_z\":{\"interface_id\":\"00:00:00:00:00:00:00:09:1\"}}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_str_eq(description(r), "Error creating UNI: Invalid value");
    kytos_test_resp_free(r);
}
END_TEST

/* ---- schedules ---- */

/* An RFC 3339 UTC date-time secs from now. */
static void iso_in(int secs, char out[32])
{
    time_t t = time(NULL) + secs;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

struct evc_want {
    const char *id;
    bool enabled, active;
    size_t hops;
};

static bool evc_flags_are(const void *ud)
{
    const struct evc_want *w = ud;
    kytos_test_resp *r;
    struct json_object *e = get_evc(w->id, &r);
    bool en = json_object_get_boolean(json_object_object_get(e, "enabled"));
    bool ac = json_object_get_boolean(json_object_object_get(e, "active"));
    kytos_test_resp_free(r);
    return en == w->enabled && ac == w->active;
}

/* Wait (polling GET, up to timeout_ms) until the EVC is enabled/active as asked. */
static bool await_evc(const char *id, bool enabled, bool active, unsigned timeout_ms)
{
    struct evc_want w = {id, enabled, active, 0};
    return await_until(evc_flags_are, &w, timeout_ms);
}

/* POST a schedule; 201 expected; its id copied to sid. */
static void post_schedule(const char *evc, const char *schedule, char sid[15])
{
    char body[512];
    kytos_test_resp *r;
    snprintf(body, sizeof body, "{\"circuit_id\":\"%s\",\"schedule\":%s}", evc, schedule);
    r = req("POST", ME "v2/evc/schedule/", body);
    ck_assert_msg(kytos_test_resp_status(r) == 201, "status %u: %s", kytos_test_resp_status(r),
                  description(r));
    ck_assert_uint_eq(strlen(str(kytos_test_resp_json(r), "id")), 14);
    snprintf(sid, 15, "%s", str(kytos_test_resp_json(r), "id"));
    kytos_test_resp_free(r);
}

/* POST body to path: status st and a description containing want. */
static void expect_error(const char *method, const char *path, const char *body, unsigned st,
                         const char *want)
{
    kytos_test_resp *r = req(method, path, body);
    ck_assert_msg(kytos_test_resp_status(r) == st, "%s: status %u (%s)", body ? body : "-",
                  kytos_test_resp_status(r), description(r));
    ck_assert_msg(strstr(description(r), want) != NULL, "%s: '%s' lacks '%s'", body ? body : "-",
                  description(r),
                  want);
    kytos_test_resp_free(r);
}

/* The schedules of GET v2/evc/schedule with that schedule id. */
static size_t listed(const char *sid, const char *evc)
{
    kytos_test_resp *r = req("GET", ME "v2/evc/schedule", NULL);
    struct json_object *arr = kytos_test_resp_json(r);
    size_t i, n = 0;
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    for (i = 0; json_object_is_type(arr, json_type_array) && i < json_object_array_length(arr); i++) {
        struct json_object *v = json_object_array_get_idx(arr, i);
        if (strcmp(str(v, "schedule_id"), sid) == 0) {
            ck_assert_str_eq(str(v, "circuit_id"), evc);
            ck_assert_str_eq(str(json_object_object_get(v, "schedule"), "id"), sid);
            n++;
        }
    }
    kytos_test_resp_free(r);
    return n;
}

/* A body from S1:1 to uni_z's interface with the given primary_path and extra members. */
static void path_body(char *out, size_t len, const char *z, const char *path, const char *extra)
{
    snprintf(out, len,
             "{\"name\":\"p\",\"uni_a\":{\"interface_id\":\"" S1 ":1\",\"tag\":{\"tag_type\":"
             "\"vlan\",\"value\":2100}},\"uni_z\":{\"interface_id\":\"%s:1\",\"tag\":{\"tag_type\":"
             "\"vlan\",\"value\":2100}},\"primary_path\":[%s]%s}",
             z, path, extra);
}

#define HOP(a, b) "{\"endpoint_a\":{\"id\":\"" a "\"},\"endpoint_b\":{\"id\":\"" b "\"}}"

/* Kytos' Path.is_valid on create and update: each link leads from the
 * previous switch to one new one, no switch twice, links of the topology
 * (unless scheduled), ending at uni_z's switch. */
START_TEST(static_paths_are_checked_as_kytos_does)
{
    static const struct {
        const char *z, *path, *extra, *want;
    } bad[] = {
        {S3, HOP(S2 ":3", S3 ":2"), "",
         "primary_path is not valid: Previous switch {'" S1 "'} is not connected to current link "
         "with switches {'" S2 "', '" S3 "'}."},
        {S3, HOP(S1 ":3", S2 ":2") "," HOP(S2 ":3", S3 ":2") "," HOP(S3 ":3", S1 ":2"), "",
         "primary_path is not valid: Loop detected in path, switch {'" S1 "'} was visited more "
         "than once."},
        {S2, HOP(S1 ":3", S2 ":3"), "",
         "primary_path is not valid: Link " S1 ":3-" S2 ":3 is not available."},
        {S3, HOP(S1 ":3", S2 ":2"), "", "primary_path is not valid: Last link does not contain uni_z switch"},
    };
    char body[1024], id[15], path[256];
    kytos_test_resp *r;
    size_t i;
    int deployed = 1;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        path_body(body, sizeof body, bad[i].z, bad[i].path, bad[i].extra);
        r = req("POST", ME "v2/evc/", body);
        ck_assert_msg(kytos_test_resp_status(r) == 400, "case %zu: %u", i, kytos_test_resp_status(r));
        ck_assert_str_eq(description(r), bad[i].want);
        kytos_test_resp_free(r);
    }
    /* a link that is not there yet, for a scheduled EVC: accepted, not deployed */
    path_body(body, sizeof body, S2, HOP(S1 ":3", S2 ":3"),
              ",\"circuit_scheduler\":[{\"date\":\"2035-01-01T00:00:00Z\",\"action\":\"create\"}]");
    create(body, id, &deployed);
    ck_assert(!deployed);
    /* update: the same checks, nothing changed on a refusal */
    snprintf(path, sizeof path, ME "v2/evc/%s", id);
    r = req("PATCH", path, "{\"primary_path\":[" HOP(S1 ":3", S2 ":3") "]}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_str_eq(description(r),
                     "primary_path is not a valid path: Link " S1 ":3-" S2 ":3 is not available.");
    kytos_test_resp_free(r);
    r = req("PATCH", path, "{\"primary_path\":[" HOP(S1 ":3", S2 ":2") "]}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    kytos_test_resp_free(r);
    /* a link one of its interfaces has left (re-cabled to s3:1) is no
     * link of the path any more, though topology still lists it */
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_lldp.interface.is.nni",
                                        "{\"interface_a\":{\"id\":\"" S1 ":3\"},"
                                        "\"interface_b\":{\"id\":\"" S3 ":1\"}}"),
                     0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    path_body(body, sizeof body, S2, HOP(S1 ":3", S2 ":2"), "");
    r = req("POST", ME "v2/evc/", body);
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_str_eq(description(r), "primary_path is not valid: Link " S1 ":3-" S2 ":2 is not available.");
    kytos_test_resp_free(r);
}
END_TEST

/* Kytos' EVC.update checks the result as create does. */
START_TEST(update_keeps_the_create_rules)
{
    char id[15], path[256];
    kytos_test_resp *r;
    struct json_object *e;

    create(EVPL("evpl-rules", "2200"), id, NULL);
    snprintf(path, sizeof path, ME "v2/evc/%s", id);
    r = req("PATCH", path, "{\"dynamic_backup_path\":false}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_str_eq(description(r), "The EVC must have a primary path or allow dynamic paths.");
    kytos_test_resp_free(r);
    r = req("PATCH", path, "{\"uni_a\":{\"interface_id\":\"" S1 ":1\",\"tag\":{\"tag_type\":\"vlan\","
                           "\"value\":[[2300,2310]]}}}");
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_str_eq(description(r), "UNI_A and UNI_Z tag lists should be the same.");
    kytos_test_resp_free(r);
    /* neither applied: still dynamic, still on VLAN 2200, still deployed */
    e = get_evc(id, &r);
    ck_assert(json_object_get_boolean(json_object_object_get(e, "dynamic_backup_path")));
    ck_assert_int_eq(json_object_get_int(json_object_object_get(
                         json_object_object_get(json_object_object_get(e, "uni_a"), "tag"), "value")),
                     2200);
    ck_assert(json_object_get_boolean(json_object_object_get(e, "active")));
    kytos_test_resp_free(r);
}
END_TEST

/* The S-VLANs of the EVC's current path, in order; how many. */
static size_t current_s_vlans(const char *id, int *out, size_t cap)
{
    kytos_test_resp *r;
    struct json_object *e = get_evc(id, &r), *cp = json_object_object_get(e, "current_path");
    size_t i, n = json_object_array_length(cp);

    for (i = 0; i < n && i < cap; i++) {
        struct json_object *md = json_object_object_get(json_object_array_get_idx(cp, i), "metadata");
        out[i] = json_object_get_int(
            json_object_object_get(json_object_object_get(md, "s_vlan"), "value"));
        ck_assert_int_gt(out[i], 0);
    }
    kytos_test_resp_free(r);
    return n;
}

/* PATCH path: status, and {"response": "Circuit <id><rest>"}. */
static void expect_patch_response(const char *path, unsigned status, const char *id, const char *rest)
{
    kytos_test_resp *r = req("PATCH", path, NULL);
    char text[128];

    ck_assert_uint_eq(kytos_test_resp_status(r), status);
    snprintf(text, sizeof text, "Circuit %s%s", id, rest);
    ck_assert_str_eq(str(kytos_test_resp_json(r), "response"), text);
    kytos_test_resp_free(r);
}

START_TEST(redeploy_avoids_the_same_s_vlans)
{
    char id[15], path[256];
    int before[8], after[8], again[8];
    size_t n, i;
    kytos_test_resp *r;

    /* the query is checked first, even for an unknown EVC */
    r = req("PATCH", ME "v2/evc/0123456789abcd/redeploy?try_avoid_same_s_vlan=maybe", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 400);
    ck_assert_str_eq(description(r), "Parameter try_avoid_same_s_vlan has an invalid value.");
    kytos_test_resp_free(r);
    ck_assert_uint_eq(status_of("PATCH", ME "v2/evc/0123456789abcd/redeploy", NULL), 404);

    create(EVPL("evpl-redeploy", "2400"), id, NULL);
    n = current_s_vlans(id, before, 8);
    ck_assert_uint_gt(n, 0);
    /* default (true): every link of the path on another S-VLAN */
    snprintf(path, sizeof path, ME "v2/evc/%s/redeploy", id);
    expect_patch_response(path, 202, id, " redeploy received.");
    ck_assert_uint_eq(current_s_vlans(id, after, 8), n);
    for (i = 0; i < n; i++)
        ck_assert_int_ne(after[i], before[i]);
    /* false: the lowest free ones again, which the first deploy had */
    snprintf(path, sizeof path, ME "v2/evc/%s/redeploy?try_avoid_same_s_vlan=FALSE", id);
    ck_assert_uint_eq(status_of("PATCH", path, NULL), 202);
    ck_assert_uint_eq(current_s_vlans(id, again, 8), n);
    for (i = 0; i < n; i++)
        ck_assert_int_eq(again[i], before[i]);
    /* disabled: 409 */
    snprintf(path, sizeof path, ME "v2/evc/%s", id);
    ck_assert_uint_eq(status_of("PATCH", path, "{\"enabled\":false}"), 200);
    snprintf(path, sizeof path, ME "v2/evc/%s/redeploy", id);
    expect_patch_response(path, 409, id, " is disabled.");
}
END_TEST

/* of_lldp's vlan.used|released for a switch, as its punt flow goes in or out. */
static void lldp_vlan(const char *what, const char *dpid)
{
    char name[64], content[160];

    snprintf(name, sizeof name, "kytos/of_lldp.vlan.%s", what);
    snprintf(content, sizeof content, "{\"dpid\":\"%s\",\"tag_type\":\"vlan\",\"tags\":[3799]}", dpid);
    ck_assert_int_eq(kytos_test_publish(th, name, content), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
}

/* The interface of switch dpid at an end of the EVC's current path link
 * k (out), and that link's S-VLAN; -1 when the path has no link k. */
static int path_link_end(const char *id, size_t k, const char *dpid, char *out, size_t len)
{
    kytos_test_resp *r;
    struct json_object *e = get_evc(id, &r), *cp = json_object_object_get(e, "current_path"), *l;
    int svlan = -1;

    if (k < json_object_array_length(cp)) {
        l = json_object_array_get_idx(cp, k);
        svlan = json_object_get_int(json_object_object_get(
            json_object_object_get(json_object_object_get(l, "metadata"), "s_vlan"), "value"));
        out[0] = '\0';
        for (int end = 0; end < 2; end++) {
            const char *i = str(json_object_object_get(l, end ? "endpoint_b" : "endpoint_a"), "id");
            if (strncmp(i, dpid, strlen(dpid)) == 0)
                snprintf(out, len, "%s", i);
        }
    }
    kytos_test_resp_free(r);
    return svlan;
}

/* Kytos marks of_lldp's VLAN 3799 used on every interface of a switch once
 * the LLDP punt flow is in (EVCs never get it) and available again when the
 * flow is deleted (switch disabled): a UNI asking for it is refused as a tag
 * in use, and S-VLAN allocation passes over it even when it is the lowest
 * free one. */
START_TEST(lldp_vlan_is_never_an_evcs)
{
    char probe[15], id[15], nni[64], path[256], body[640];
    int sv;

    lldp_vlan("used", S1);
    lldp_vlan("used", S2);
    lldp_vlan("used", S3);
    expect_400(EVPL("lldp", "3799"),
               "KytosTagsAreNotAvailable, The tags [[3799, 3799]] are not available in " S1 ":1");
    expect_400(EVPL("lldp-r", "[[3790, 3810]]"),
               "KytosTagsAreNotAvailable, The tags [[3799, 3799]] are not available in " S1 ":1");
    /* other VLANs are still given */
    create(EVPL("probe", "3798"), probe, NULL);
    ck_assert_int_gt(path_link_end(probe, 0, S1, nni, sizeof nni), 0);
    ck_assert_str_ne(nni, "");
    snprintf(path, sizeof path, ME "v2/evc/%s", probe);
    ck_assert_uint_eq(status_of("DELETE", path, NULL), 200);
    /* VLANs 1..3798 of that link's S1 end taken by a UNI there (its EVC
     * goes the other way round): the lowest free S-VLAN on the link for
     * the next S1-S3 EVC would be 3799 */
    snprintf(body, sizeof body,
             "{\"name\":\"blocker\",\"dynamic_backup_path\":true,\"uni_a\":{\"interface_id\":"
             "\"%s\",\"tag\":{\"tag_type\":\"vlan\",\"value\":[[1, 3798]]}},\"uni_z\":{"
             "\"interface_id\":\"" S3 ":1\",\"tag\":{\"tag_type\":\"vlan\",\"value\":[[1, 3798]]}}}",
             nni);
    create(body, id, NULL);
    create(EVPL("over-lldp", "3900"), id, NULL);
    ck_assert(await_evc(id, true, true, 5000));
    sv = path_link_end(id, 0, S1, path, sizeof path);
    ck_assert_str_eq(path, nni);
    ck_assert_int_eq(sv, 3800);

    /* the switches disabled: of_lldp deletes its flows and gives 3799 back */
    lldp_vlan("released", S1);
    lldp_vlan("released", S2);
    lldp_vlan("released", S3);
    snprintf(path, sizeof path, ME "v2/evc/%s/redeploy?try_avoid_same_s_vlan=false", id);
    ck_assert_uint_eq(status_of("PATCH", path, NULL), 202);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(path_link_end(id, 0, S1, path, sizeof path), 3799);
    create(EVPL("lldp-freed", "3799"), probe, NULL);
}
END_TEST

/* Only the live EVCs' schedules; {} once none is left. */
START_TEST(schedules_of_deleted_evcs_are_not_listed)
{
    char id[15], path[256];
    kytos_test_resp *r;
    struct json_object *j;

    create(EVPL_SCHED("evpl-s", "2500", "{\"date\":\"2035-01-01T00:00:00Z\",\"action\":\"create\"}"),
           id, NULL);
    r = req("GET", ME "v2/evc/schedule", NULL);
    j = kytos_test_resp_json(r);
    ck_assert(json_object_is_type(j, json_type_array));
    ck_assert_uint_eq(json_object_array_length(j), 1);
    kytos_test_resp_free(r);
    snprintf(path, sizeof path, ME "v2/evc/%s", id);
    ck_assert_uint_eq(status_of("DELETE", path, NULL), 200);
    r = req("GET", ME "v2/evc/schedule", NULL);
    j = kytos_test_resp_json(r);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_is_type(j, json_type_object));
    ck_assert_int_eq(json_object_object_length(j), 0);
    kytos_test_resp_free(r);
}
END_TEST

START_TEST(schedule_create_list_patch_delete)
{
    char id[15], sid[15], fid[15], body[512], path[256];
    kytos_test_resp *r;
    struct json_object *j, *e, *arr, *iv;
    int deployed = 0;
    const char *post = ME "v2/evc/schedule/";
    static const struct {
        const char *schedule, *want;
    } bad[] = {
        /* spec layer */
        {"{\"date\":\"tomorrow\",\"action\":\"create\"}", "The request body contains invalid API data."},
        /* no 29th of February in 2027 (timegm would roll it into March) */
        {"{\"date\":\"2027-02-29T00:00:00Z\",\"action\":\"create\"}", ""},
        {"{\"interval\":{\"fortnights\":1},\"action\":\"create\"}", "Additional properties are not allowed"},
        {"{\"interval\":{\"hours\":-1},\"action\":\"create\"}", "less than the minimum of 0"},
        {"{\"interval\":\"1h\",\"action\":\"create\"}", "is not of type 'object'"},
        {"{\"action\":5,\"date\":\"2035-01-01T00:00:00Z\"}", "5 is not of type 'string'"},
        {"[]", "is not of type 'object'"},
        /* code layer */
        {"{}", "The schedule needs exactly one of date, interval or frequency"},
        {"{\"date\":\"2035-01-01T00:00:00Z\",\"interval\":{\"hours\":1},\"action\":\"create\"}",
         "The schedule needs exactly one of date, interval or frequency"},
        {"{\"date\":\"2035-01-01T00:00:00Z\"}", "The schedule action must be 'create' or 'remove'"},
        {"{\"date\":\"2035-01-01T00:00:00Z\",\"action\":\"explode\"}",
         "The schedule action must be 'create' or 'remove'"},
        {"{\"interval\":{},\"action\":\"remove\"}", "interval must be at least one second"},
        {"{\"interval\":{\"weeks\":99999999999},\"action\":\"remove\"}", "interval is longer than a century"},
        {"{\"frequency\":\"* *\",\"action\":\"remove\"}", "frequency must be a cron expression of 5 fields"},
        {"{\"frequency\":\"* * * * ; rm\",\"action\":\"remove\"}", "frequency must be a cron expression"},
    };
    size_t i;

    /* a scheduled EVC is not deployed at creation */
    create("{\"name\":\"evpl-sched\",\"dynamic_backup_path\":true,\"uni_a\":{\"interface_id\":\"" S1
           ":1\",\"tag\":{\"tag_type\":\"vlan\",\"value\":1800}},\"uni_z\":{\"interface_id\":\"" S3
           ":1\",\"tag\":{\"tag_type\":\"vlan\",\"value\":1800}},\"circuit_scheduler\":[{\"date\":"
           "\"2035-01-01T00:00:00Z\",\"action\":\"create\"}]}",
           id, &deployed);
    ck_assert(!deployed);
    e = get_evc(id, &r);
    arr = json_object_object_get(e, "circuit_scheduler");
    ck_assert_uint_eq(json_object_array_length(arr), 1);
    snprintf(fid, sizeof fid, "%s", str(json_object_array_get_idx(arr, 0), "id"));
    ck_assert_uint_eq(strlen(fid), 14);
    kytos_test_resp_free(r);
    ck_assert_uint_eq(listed(fid, id), 1);

    /* POST: 201 with the schedule */
    snprintf(body, sizeof body,
             "{\"circuit_id\":\"%s\",\"schedule\":{\"date\":\"2035-06-01T12:00:00Z\",\"action\":"
             "\"remove\"},\"extra\":1}",
             id);
    r = req("POST", post, body);
    ck_assert_msg(kytos_test_resp_status(r) == 201, "%s", description(r));
    j = kytos_test_resp_json(r);
    snprintf(sid, sizeof sid, "%s", str(j, "id"));
    ck_assert_uint_eq(strlen(sid), 14);
    ck_assert_str_eq(str(j, "date"), "2035-06-01T12:00:00Z");
    ck_assert_str_eq(str(j, "action"), "remove");
    ck_assert(!json_object_object_get_ex(j, "interval", NULL));
    kytos_test_resp_free(r);
    /* shown in GET of the EVC and in the schedule list */
    e = get_evc(id, &r);
    arr = json_object_object_get(e, "circuit_scheduler");
    ck_assert_uint_eq(json_object_array_length(arr), 2);
    ck_assert_str_eq(str(json_object_array_get_idx(arr, 1), "id"), sid);
    ck_assert_str_eq(str(json_object_array_get_idx(arr, 1), "date"), "2035-06-01T12:00:00Z");
    kytos_test_resp_free(r);
    ck_assert_uint_eq(listed(sid, id), 1);

    /* 404 for an unknown circuit, 400 for bad bodies */
    expect_error("POST", post,
                 "{\"circuit_id\":\"0123456789abcd\",\"schedule\":{\"date\":\"2035-01-01T00:00:00Z\","
                 "\"action\":\"create\"}}",
                 404, "circuit_id 0123456789abcd not found");
    snprintf(body, sizeof body, "{\"circuit_id\":\"%s\"}", id);
    expect_error("POST", post, body, 400, "'schedule' is a required property");
    expect_error("POST", post, "{\"circuit_id\":5,\"schedule\":{}}", 400, "5 is not of type 'string'");
    expect_error("POST", post, "\"x\"", 400, "is not of type 'object'");
    expect_error("POST", post, "{\"circuit_id\":", 400, "");
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(body, sizeof body, "{\"circuit_id\":\"%s\",\"schedule\":%s}", id, bad[i].schedule);
        expect_error("POST", post, body, 400, bad[i].want);
    }
    /* the same code checks for circuit_scheduler at creation */
    expect_error("POST", ME "v2/evc/",
                 EVPL_SCHED("evpl-bad", "1801", "{\"date\":\"2035-01-01T00:00:00Z\",\"action\":\"x\"}"),
                 400, "circuit_scheduler 0: The schedule action must be 'create' or 'remove'");
    /* a cron frequency is stored and listed (not run) */
    post_schedule(id, "{\"frequency\":\"0 3 * * 1\",\"action\":\"create\"}", fid);
    ck_assert_uint_eq(listed(fid, id), 1);

    /* PATCH replaces the schedule, keeping its id */
    snprintf(path, sizeof path, ME "v2/evc/schedule/%s", sid);
    r = req("PATCH", path, "{\"interval\":{\"hours\":2},\"action\":\"create\"}");
    ck_assert_msg(kytos_test_resp_status(r) == 200, "%s", description(r));
    j = kytos_test_resp_json(r);
    ck_assert_str_eq(str(j, "id"), sid);
    ck_assert_str_eq(str(j, "action"), "create");
    ck_assert(!json_object_object_get_ex(j, "date", NULL));
    ck_assert(json_object_object_get_ex(j, "interval", &iv));
    ck_assert_int_eq(json_object_get_int(json_object_object_get(iv, "hours")), 2);
    kytos_test_resp_free(r);
    e = get_evc(id, &r);
    arr = json_object_object_get(e, "circuit_scheduler");
    ck_assert_uint_eq(json_object_array_length(arr), 3);
    ck_assert(json_object_object_get_ex(json_object_array_get_idx(arr, 1), "interval", NULL));
    kytos_test_resp_free(r);
    expect_error("PATCH", path, "{\"action\":\"create\"}", 400,
                 "The schedule needs exactly one of date, interval or frequency");
    expect_error("PATCH", path, "{\"interval\":{\"days\":\"1\"},\"action\":\"create\"}", 400,
                 "'1' is not of type 'integer'");
    expect_error("PATCH", ME "v2/evc/schedule/ffffffffffffff",
                 "{\"interval\":{\"hours\":2},\"action\":\"create\"}", 404,
                 "schedule_id ffffffffffffff not found");

    /* DELETE, then 404 */
    r = req("DELETE", path, NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert_str_eq(json_object_get_string(kytos_test_resp_json(r)), "Schedule removed");
    kytos_test_resp_free(r);
    expect_error("DELETE", path, NULL, 404, "not found");
    expect_error("PATCH", path, "{\"interval\":{\"hours\":2},\"action\":\"create\"}", 404,
                 "not found");
    ck_assert_uint_eq(listed(sid, id), 0);
    e = get_evc(id, &r);
    ck_assert_uint_eq(json_object_array_length(json_object_object_get(e, "circuit_scheduler")), 2);
    kytos_test_resp_free(r);

    /* PATCH of the EVC replaces its list (checked, new ids) */
    snprintf(path, sizeof path, ME "v2/evc/%s", id);
    expect_error("PATCH", path, "{\"circuit_scheduler\":[{\"action\":\"remove\"}]}", 400,
                 "circuit_scheduler 0: The schedule needs exactly one of");
    ck_assert_uint_eq(status_of("PATCH", path,
                                "{\"circuit_scheduler\":[{\"date\":\"2036-01-01T00:00:00Z\","
                                "\"action\":\"remove\"}]}"),
                      200);
    ck_assert_uint_eq(listed(fid, id), 0);
    e = get_evc(id, &r);
    arr = json_object_object_get(e, "circuit_scheduler");
    ck_assert_uint_eq(json_object_array_length(arr), 1);
    snprintf(fid, sizeof fid, "%s", str(json_object_array_get_idx(arr, 0), "id"));
    kytos_test_resp_free(r);
    ck_assert_uint_eq(listed(fid, id), 1);

    /* an archived EVC's schedules are not found any more */
    ck_assert_uint_eq(status_of("DELETE", path, NULL), 200);
    snprintf(path, sizeof path, ME "v2/evc/schedule/%s", fid);
    ck_assert_uint_eq(status_of("DELETE", path, NULL), 404);
    snprintf(body, sizeof body,
             "{\"circuit_id\":\"%s\",\"schedule\":{\"date\":\"2035-01-01T00:00:00Z\",\"action\":"
             "\"create\"}}",
             id);
    ck_assert_uint_eq(status_of("POST", post, body), 404);
}
END_TEST

START_TEST(date_schedule_runs)
{
    char id[15], sid[15], when[32], sched[128];
    int deployed = 0;

    create(EVPL("evpl-date", "1900"), id, &deployed);
    ck_assert(deployed);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(evc_flows(id, S1, "installed"), 2);

    /* a date already past when posted runs at the next tick: remove */
    iso_in(-5, when);
    snprintf(sched, sizeof sched, "{\"date\":\"%s\",\"action\":\"remove\"}", when);
    post_schedule(id, sched, sid);
    ck_assert_msg(await_evc(id, false, false, 5000), "the past date did not run");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(evc_flows(id, S1, "installed") + evc_flows(id, S1, "pending"), 0);

    /* a date in the near future runs when due: create */
    iso_in(1, when);
    snprintf(sched, sizeof sched, "{\"date\":\"%s\",\"action\":\"create\"}", when);
    post_schedule(id, sched, sid);
    ck_assert_msg(await_evc(id, true, true, 6000), "the near date did not run");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(evc_flows(id, S1, "installed"), 2);
    ck_assert_uint_eq(listed(sid, id), 1);
}
END_TEST

START_TEST(interval_schedule_runs)
{
    char id[15], sid[15], path[256];

    create(EVPL("evpl-interval", "1950"), id, NULL);
    post_schedule(id, "{\"interval\":{\"seconds\":1},\"action\":\"remove\"}", sid);
    ck_assert_msg(await_evc(id, false, false, 6000), "the interval did not run");
    snprintf(path, sizeof path, ME "v2/evc/schedule/%s", sid);
    ck_assert_uint_eq(status_of("DELETE", path, NULL), 200);
    /* no longer run: enabling sticks */
    snprintf(path, sizeof path, ME "v2/evc/%s", id);
    ck_assert_uint_eq(status_of("PATCH", path, "{\"enabled\":true}"), 200);
    ck_assert(await_evc(id, true, true, 2000));
    /* and stays enabled past 2.5 ticks of the deleted 1 s interval */
    for (int waited = 0; waited < 2500; waited += 100) {
        struct timespec step = {0, 100 * 1000000L};
        ck_assert_msg(await_evc(id, true, true, 0), "the deleted interval ran after %d ms", waited);
        nanosleep(&step, NULL);
    }
}
END_TEST

START_TEST(schedules_survive_a_restart)
{
    char dir[] = "/tmp/test_mef_eline.XXXXXX", id[15], sid[15], past[15], when[32], sched[128];
    char path[256], cmd[64];
    unsigned waited;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    kytos_test_host_free(th);
    th = host_over(dir);
    create(EVPL("evpl-restart", "2000"), id, NULL);
    post_schedule(id, "{\"date\":\"2035-01-01T00:00:00Z\",\"action\":\"remove\"}", sid);
    /* a past date runs once... */
    iso_in(-5, when);
    snprintf(sched, sizeof sched, "{\"date\":\"%s\",\"action\":\"remove\"}", when);
    post_schedule(id, sched, past);
    ck_assert(await_evc(id, false, false, 5000));
    snprintf(path, sizeof path, ME "v2/evc/%s", id);
    ck_assert_uint_eq(status_of("PATCH", path, "{\"enabled\":true}"), 200);
    ck_assert(await_evc(id, true, true, 2000));

    kytos_test_host_free(th);
    th = host_over(dir);
    /* the schedules are loaded back (listed and found by id) */
    ck_assert_uint_eq(listed(sid, id), 1);
    ck_assert_uint_eq(listed(past, id), 1);
    snprintf(path, sizeof path, ME "v2/evc/schedule/%s", sid);
    ck_assert_uint_eq(status_of("PATCH", path, "{\"date\":\"2036-01-01T00:00:00Z\",\"action\":"
                                               "\"remove\"}"),
                      200);
    /* ...and not again after the restart: the EVC stays enabled for 2.5 ticks */
    for (waited = 0; waited < 2500; waited += 100) {
        struct timespec step = {0, 100 * 1000000L};
        ck_assert_msg(await_evc(id, true, true, 0) || await_evc(id, true, false, 0),
                      "the past date ran again after the restart");
        nanosleep(&step, NULL);
    }
    kytos_test_host_free(th);
    th = host_over(NULL);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- store write failures: 500, the EVC as it was, then the retry works ---- */

/* The next write to mef_eline's collection fails. */
static void fail_next_write(void)
{
    ck_assert_int_eq(kytos_test_store_fail(th, "evcs", KYTOS_EIO, 1), 0);
}

/* method path body: 500 with the NApp's store failure description. */
static void expect_store_500(const char *method, const char *path, const char *body)
{
    fail_next_write();
    expect_error(method, path, body, 500, "Failed to store the EVC");
}

/* The EVC's in-memory metadata (GET .../metadata), as JSON text. */
static void metadata_text(const char *id, char *out, size_t len)
{
    char path[256];
    kytos_test_resp *r;
    struct json_object *md;

    snprintf(path, sizeof path, ME "v2/evc/%s/metadata", id);
    r = req("GET", path, NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    ck_assert(json_object_object_get_ex(kytos_test_resp_json(r), "metadata", &md));
    snprintf(out, len, "%s", json_object_to_json_string_ext(md, JSON_C_TO_STRING_PLAIN));
    kytos_test_resp_free(r);
}

/* Store the in-memory EVC as it is (a metadata write), so that GET shows it. */
static void sync_through_metadata(const char *id)
{
    char path[256];
    snprintf(path, sizeof path, ME "v2/evc/%s/metadata", id);
    ck_assert_uint_eq(status_of("POST", path, "{\"synced\":true}"), 201);
}

/* A restart while topology still holds every link down (link_up_timer):
 * the consistency round, whose first run is at start, leaves the active
 * EVC alone (it took it down, and rewrote it and its flows, to deploy it
 * again once the links came up). */
START_TEST(restart_keeps_active_evcs_while_links_are_held)
{
    static const char held[] = "[kytos/topology]\n"
                               "link_up_timer = 30\n"
                               "[kytos/simnet]\n"
                               "flow_stats_interval = 0\n";
    char dir[] = "/tmp/test_mef_eline.XXXXXX", id[15], updated[32];
    kytos_test_resp *r;
    struct json_object *e;
    size_t plen;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    kytos_test_host_free(th);
    th = host_over(dir);
    create(EVPL("evpl-held", "2100"), id, NULL);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert(evc_active(id, &plen, NULL, 0));
    e = get_evc(id, &r);
    snprintf(updated, sizeof updated, "%s", str(e, "updated_at"));
    ck_assert(!json_object_object_get_ex(e, "last_removed_at", NULL));
    kytos_test_resp_free(r);

    kytos_test_host_free(th);
    th = host_conf(dir, held);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert(evc_active(id, &plen, NULL, 0));
    ck_assert_uint_eq(plen, 1);
    e = get_evc(id, &r);
    ck_assert(!json_object_object_get_ex(e, "last_removed_at", NULL));
    ck_assert_str_eq(str(e, "updated_at"), updated);
    kytos_test_resp_free(r);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/mef_eline.redeployed_link_down"), 0);
    kytos_test_host_free(th);
    th = host_over(NULL);
    {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        ck_assert_int_eq(system(cmd), 0);
    }
}
END_TEST

START_TEST(store_failure_on_delete_keeps_the_evc)
{
    char id[15], path[256];
    kytos_test_resp *r;
    struct json_object *e;
    size_t plen;

    create(EVPL("evpl-sf-del", "2600"), id, NULL);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    snprintf(path, sizeof path, ME "v2/evc/%s", id);
    expect_store_500("DELETE", path, NULL);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    /* still live: stored, in memory, deployed, its VLAN taken */
    e = get_evc(id, &r);
    ck_assert(!json_object_get_boolean(json_object_object_get(e, "archived")));
    ck_assert(json_object_get_boolean(json_object_object_get(e, "enabled")));
    kytos_test_resp_free(r);
    sync_through_metadata(id);
    ck_assert(evc_active(id, &plen, NULL, 0));
    ck_assert_uint_eq(plen, 1);
    ck_assert_uint_eq(evc_flows(id, S1, "installed"), 2);
    ck_assert_uint_eq(status_of("POST", ME "v2/evc/", EVPL("evpl-sf-del2", "2600")), 400);
    ck_assert_uint_eq(status_of("DELETE", path, NULL), 200);
    e = get_evc(id, &r);
    ck_assert(json_object_get_boolean(json_object_object_get(e, "archived")));
    kytos_test_resp_free(r);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(evc_flows(id, S1, "installed"), 0);
}
END_TEST

START_TEST(store_failure_on_metadata_keeps_it)
{
    char id[15], path[256], before[256], now[256];
    kytos_test_resp *r;
    struct json_object *md;

    create(EVPL("evpl-sf-md", "2610"), id, NULL);
    snprintf(path, sizeof path, ME "v2/evc/%s/metadata", id);
    ck_assert_uint_eq(status_of("POST", path, "{\"a\":1}"), 201);
    metadata_text(id, before, sizeof before);
    /* POST */
    expect_store_500("POST", path, "{\"a\":2,\"b\":3}");
    metadata_text(id, now, sizeof now);
    ck_assert_str_eq(now, before);
    md = json_object_object_get(get_evc(id, &r), "metadata");
    ck_assert_int_eq(json_object_get_int(json_object_object_get(md, "a")), 1);
    ck_assert(!json_object_object_get_ex(md, "b", NULL));
    kytos_test_resp_free(r);
    ck_assert_uint_eq(status_of("POST", path, "{\"a\":2,\"b\":3}"), 201);
    metadata_text(id, now, sizeof now);
    ck_assert_str_eq(now, "{\"a\":2,\"b\":3}");
    /* DELETE */
    snprintf(path, sizeof path, ME "v2/evc/%s/metadata/b", id);
    expect_store_500("DELETE", path, NULL);
    metadata_text(id, now, sizeof now);
    ck_assert_str_eq(now, "{\"a\":2,\"b\":3}");
    ck_assert_uint_eq(status_of("DELETE", path, NULL), 200);
    metadata_text(id, now, sizeof now);
    ck_assert_str_eq(now, "{\"a\":2}");
}
END_TEST

START_TEST(store_failure_on_bulk_metadata_keeps_it)
{
    char id[15], id2[15], body[256], one[256], two[256], now[256];

    create(EVPL("evpl-sf-b1", "2620"), id, NULL);
    create(EVPL("evpl-sf-b2", "2621"), id2, NULL);
    snprintf(body, sizeof body, "{\"circuit_ids\":[\"%s\",\"%s\"],\"k\":1}", id, id2);
    ck_assert_uint_eq(status_of("POST", ME "v2/evc/metadata", body), 201);
    metadata_text(id, one, sizeof one);
    metadata_text(id2, two, sizeof two);
    /* add */
    snprintf(body, sizeof body, "{\"circuit_ids\":[\"%s\",\"%s\"],\"k\":2,\"n\":3}", id, id2);
    expect_store_500("POST", ME "v2/evc/metadata", body);
    metadata_text(id, now, sizeof now);
    ck_assert_str_eq(now, one);
    metadata_text(id2, now, sizeof now);
    ck_assert_str_eq(now, two);
    ck_assert_uint_eq(status_of("POST", ME "v2/evc/metadata", body), 201);
    metadata_text(id, now, sizeof now);
    ck_assert_str_eq(now, "{\"k\":2,\"n\":3}");
    metadata_text(id2, now, sizeof now);
    ck_assert_str_eq(now, "{\"k\":2,\"n\":3}");
    /* delete */
    snprintf(body, sizeof body, "{\"circuit_ids\":[\"%s\",\"%s\"]}", id, id2);
    expect_store_500("DELETE", ME "v2/evc/metadata/n", body);
    metadata_text(id, now, sizeof now);
    ck_assert_str_eq(now, "{\"k\":2,\"n\":3}");
    metadata_text(id2, now, sizeof now);
    ck_assert_str_eq(now, "{\"k\":2,\"n\":3}");
    ck_assert_uint_eq(status_of("DELETE", ME "v2/evc/metadata/n", body), 200);
    metadata_text(id, now, sizeof now);
    ck_assert_str_eq(now, "{\"k\":2}");
    metadata_text(id2, now, sizeof now);
    ck_assert_str_eq(now, "{\"k\":2}");
}
END_TEST

START_TEST(store_failure_on_redeploy_keeps_the_path)
{
    char id[15], path[256];
    int before[8], now[8];
    size_t n, i;

    create(EVPL("evpl-sf-re", "2630"), id, NULL);
    n = current_s_vlans(id, before, 8);
    ck_assert_uint_gt(n, 0);
    snprintf(path, sizeof path, ME "v2/evc/%s/redeploy", id);
    expect_store_500("PATCH", path, NULL);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    /* in memory and on the switches: the same path, the same S-VLANs */
    sync_through_metadata(id);
    ck_assert(await_evc(id, true, true, 0));
    ck_assert_uint_eq(current_s_vlans(id, now, 8), n);
    for (i = 0; i < n; i++)
        ck_assert_int_eq(now[i], before[i]);
    ck_assert_uint_eq(evc_flows(id, S1, "installed"), 2);
    ck_assert_uint_eq(evc_flows(id, S3, "installed"), 2);
    expect_patch_response(path, 202, id, " redeploy received.");
    ck_assert_uint_eq(current_s_vlans(id, now, 8), n);
    for (i = 0; i < n; i++)
        ck_assert_int_ne(now[i], before[i]);
}
END_TEST

START_TEST(store_failure_on_patch_restores_the_evc)
{
    char id[15], other[15], path[256];
    int before[8], now[8];
    size_t n, i;
    kytos_test_resp *r;
    struct json_object *e;

    create(EVPL("evpl-sf-patch", "2640"), id, NULL);
    n = current_s_vlans(id, before, 8);
    ck_assert_uint_gt(n, 0);
    snprintf(path, sizeof path, ME "v2/evc/%s", id);
    expect_store_500("PATCH", path, "{\"name\":\"renamed\"}");
    expect_store_500("PATCH", path, "{\"enabled\":false}");
    expect_store_500("PATCH", path, "{\"uni_a\":{\"interface_id\":\"" S1 ":1\",\"tag\":{"
                                    "\"tag_type\":\"vlan\",\"value\":2641}}}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    /* what is in memory: the EVC as created, deployed as it was */
    sync_through_metadata(id);
    e = get_evc(id, &r);
    ck_assert_str_eq(str(e, "name"), "evpl-sf-patch");
    ck_assert(json_object_get_boolean(json_object_object_get(e, "enabled")));
    ck_assert(json_object_get_boolean(json_object_object_get(e, "active")));
    ck_assert_int_eq(json_object_get_int(json_object_object_get(
                         json_object_object_get(json_object_object_get(e, "uni_a"), "tag"), "value")),
                     2640);
    kytos_test_resp_free(r);
    ck_assert_uint_eq(current_s_vlans(id, now, 8), n);
    for (i = 0; i < n; i++)
        ck_assert_int_eq(now[i], before[i]);
    ck_assert_uint_eq(evc_flows(id, S1, "installed"), 2);
    /* its UNI VLAN is still its own, the refused one free */
    ck_assert_uint_eq(status_of("POST", ME "v2/evc/", EVPL("evpl-sf-other", "2640")), 400);
    create(EVPL("evpl-sf-free", "2641"), other, NULL);
    /* no failure: applied */
    ck_assert_uint_eq(status_of("PATCH", path, "{\"name\":\"renamed\",\"enabled\":false}"), 200);
    ck_assert(await_evc(id, false, false, 0));
    e = get_evc(id, &r);
    ck_assert_str_eq(str(e, "name"), "renamed");
    kytos_test_resp_free(r);
}
END_TEST

/* ---- store write failures outside requests: retried until stored ---- */

static bool evc_stored_as(const void *ud)
{
    const struct evc_want *w = ud;
    size_t plen;
    return evc_active(w->id, &plen, NULL, 0) == w->active && plen == w->hops;
}

/* Wait (polling GET, which reads the store, up to timeout_ms) until the
 * stored EVC is active as asked with a current path of hops links. */
static bool await_stored(const char *id, bool active, size_t hops, unsigned timeout_ms)
{
    struct evc_want w = {id, true, active, hops};
    return await_until(evc_stored_as, &w, timeout_ms);
}

static void link_down(const char *link)
{
    char path[256];
    snprintf(path, sizeof path, "/api/kytos/simnet/v1/links/%s/down", link);
    ck_assert_uint_eq(status_of("POST", path, NULL), 200);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
}

/* store_retry_interval is never off, nor beyond a minute: the NApp is
 * refused with the reason. */
START_TEST(bad_retry_interval_refuses_the_napp)
{
    static const char *const bad[] = {"0", "-1", "61", "\"1\""};
    static const char *const deps[] = {"topology", "flow_manager"};
    char conf_text[128], path[512];

    snprintf(path, sizeof path, "%s/mef_eline.so", NAPP_DIR);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct kytos_test_opts o = {.struct_size = sizeof o, .conf_text = conf_text};
        kytos_test_host *h;
        snprintf(conf_text, sizeof conf_text, "[kytos/mef_eline]\nstore_retry_interval = %s\n", bad[i]);
        h = kytos_test_host_new(&o);
        ck_assert_ptr_nonnull(h);
        for (size_t d = 0; d < sizeof deps / sizeof deps[0]; d++) {
            char dep[512];
            snprintf(dep, sizeof dep, "%s/%s.so", NAPP_DIR, deps[d]);
            ck_assert_msg(kytos_test_load(h, dep) == 0, "%s: %s", deps[d], kytos_test_last_error(h));
        }
        ck_assert_int_lt(kytos_test_load(h, path), 0);
        ck_assert_msg(strstr(kytos_test_last_error(h), "store_retry_interval") != NULL, "%s: %s", bad[i],
                      kytos_test_last_error(h));
        ck_assert_int_eq(kytos_test_start(h), 0);
        kytos_test_host_free(h);
    }
}
END_TEST

/* The stored EVC's metadata (GET v2/evc/{id} reads the store) is want. */
struct stored_md_want {
    const char *id, *want;
};

static bool stored_metadata_is(const void *ud)
{
    const struct stored_md_want *w = ud;
    kytos_test_resp *r;
    struct json_object *e = get_evc(w->id, &r);
    bool eq = strcmp(json_object_to_json_string_ext(json_object_object_get(e, "metadata"),
                                                    JSON_C_TO_STRING_PLAIN),
                     w->want) == 0;
    kytos_test_resp_free(r);
    return eq;
}

/* A bulk change whose second EVC is refused, and the undo of the first
 * refused too: memory has the old metadata at once, the store once the
 * retry writes it. */
START_TEST(store_failure_on_bulk_metadata_undo_is_retried)
{
    char id[15], id2[15], body[256], one[256], now[256];
    struct stored_md_want w = {id, one};

    create(EVPL("evpl-sf-bu1", "2622"), id, NULL);
    create(EVPL("evpl-sf-bu2", "2623"), id2, NULL);
    snprintf(body, sizeof body, "{\"circuit_ids\":[\"%s\",\"%s\"],\"k\":1}", id, id2);
    ck_assert_uint_eq(status_of("POST", ME "v2/evc/metadata", body), 201);
    metadata_text(id, one, sizeof one);
    ck_assert_str_eq(one, "{\"k\":1}");
    /* the first EVC's write goes through; the second's and the undo's fail */
    ck_assert_int_eq(kytos_test_store_fail_after(th, "evcs", KYTOS_EIO, 1, 2), 0);
    snprintf(body, sizeof body, "{\"circuit_ids\":[\"%s\",\"%s\"],\"k\":2}", id, id2);
    expect_error("POST", ME "v2/evc/metadata", body, 500, "Failed to store the EVC");
    metadata_text(id, now, sizeof now);
    ck_assert_str_eq(now, one);
    ck_assert_msg(await_until(stored_metadata_is, &w, 5000), "the undone metadata was never stored");
    metadata_text(id2, now, sizeof now);
    ck_assert_str_eq(now, one);
}
END_TEST

START_TEST(store_failure_on_link_down_is_retried)
{
    char id[15], link[128], link2[128];
    size_t plen;

    create(EVPL("evpl-sf-link", "2650"), id, NULL);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert(evc_active(id, &plen, link, sizeof link));
    ck_assert_uint_eq(plen, 1);

    /* the redeploy's write fails once: the store gets the new path later */
    fail_next_write();
    link_down(link);
    ck_assert_uint_eq(evc_flows(id, S2, "installed"), 2);
    ck_assert_msg(await_stored(id, true, 2, 5000), "the redeployed EVC was never stored");
    ck_assert(evc_active(id, &plen, link2, sizeof link2));
    ck_assert_str_ne(link2, link);

    /* the store refuses every write for a while: still the old state */
    ck_assert_int_eq(kytos_test_store_fail(th, "evcs", KYTOS_EIO, 1000000), 0);
    link_down(link2);
    ck_assert_uint_eq(evc_flows(id, S1, "installed") + evc_flows(id, S1, "pending"), 0);
    ck_assert(evc_active(id, &plen, NULL, 0));
    ck_assert_uint_eq(plen, 2);
    /* it takes writes again: the down EVC is stored */
    ck_assert_int_eq(kytos_test_store_fail(th, "evcs", KYTOS_EIO, 0), 0);
    ck_assert_msg(await_stored(id, false, 0, 5000), "the down EVC was never stored");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mef_eline");
    TCase *tc;
    tc = kytos_check_case(s, "evcs", setup, teardown, 120);
    tcase_add_test(tc, evc_cases_get_kytos_answers);
    tcase_add_test(tc, duplicated_epl_uni_is_409_and_tags_conflict_400);
    tcase_add_test(tc, list_get_patch_delete);
    tcase_add_test(tc, restart_keeps_active_evcs_while_links_are_held);
    tcase_add_test(tc, metadata_endpoints);
    tcase_add_test(tc, patch_uni_swaps_tags_and_redeploys);
    tcase_add_test(tc, static_paths_are_checked_as_kytos_does);
    tcase_add_test(tc, update_keeps_the_create_rules);
    tcase_add_test(tc, bad_retry_interval_refuses_the_napp);
    tc = kytos_check_case(s, "deploy", setup, teardown, 120);
    tcase_add_test(tc, deploy_installs_flows_through_flow_manager);
    tcase_add_test(tc, link_down_moves_the_evc_then_downs_it);
    tcase_add_test(tc, intra_switch_evc);
    tcase_add_test(tc, redeploy_avoids_the_same_s_vlans);
    tcase_add_test(tc, lldp_vlan_is_never_an_evcs);
    tc = kytos_check_case(s, "schedules", setup, teardown, 120);
    tcase_add_test(tc, schedule_create_list_patch_delete);
    tcase_add_test(tc, date_schedule_runs);
    tcase_add_test(tc, interval_schedule_runs);
    tcase_add_test(tc, schedules_survive_a_restart);
    tcase_add_test(tc, schedules_of_deleted_evcs_are_not_listed);
    tc = kytos_check_case(s, "store_failures", setup, teardown, 120);
    tcase_add_test(tc, store_failure_on_delete_keeps_the_evc);
    tcase_add_test(tc, store_failure_on_metadata_keeps_it);
    tcase_add_test(tc, store_failure_on_bulk_metadata_keeps_it);
    tcase_add_test(tc, store_failure_on_redeploy_keeps_the_path);
    tcase_add_test(tc, store_failure_on_patch_restores_the_evc);
    tcase_add_test(tc, store_failure_on_link_down_is_retried);
    tcase_add_test(tc, store_failure_on_bulk_metadata_undo_is_retried);
    tcase_add_test(tc, tag_errors_are_kytos_exceptions);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
