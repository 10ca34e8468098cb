/* tests/napps/test_mef_eline.c - kytos/mef_eline through the in-process
 * test host over simnet's 3-switch ring (topology, flow_manager, mef_eline,
 * simnet): every case of shared/fixtures/mef_eline_evc_cases.json, 409 for
 * a duplicated EPL UNI, list/get/patch/delete/metadata, flows installed
 * through flow_manager, and link failures moving or downing an EVC. */
#include "check_tap.h"
#include <kytos/kytos.h>
#include <kytos/test.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S1 "00:00:00:00:00:00:00:01"
#define S2 "00:00:00:00:00:00:00:02"
#define S3 "00:00:00:00:00:00:00:03"
#define ME "/api/kytos/mef_eline/"
#define EVPL(name, vlan)                                                                        \
    "{\"name\":\"" name "\",\"dynamic_backup_path\":true,\"uni_a\":{\"interface_id\":\"" S1    \
    ":1\",\"tag\":{\"tag_type\":\"vlan\",\"value\":" vlan "}},\"uni_z\":{\"interface_id\":\"" S3 \
    ":1\",\"tag\":{\"tag_type\":\"vlan\",\"value\":" vlan "}}}"

static kytos_test_host *th;

static const char conf[] = "[kytos/topology]\n"
                           "link_up_timer = 0\n"
                           "[kytos/simnet]\n"
                           "flow_stats_interval = 0\n";

static void setup(void)
{
    struct kytos_test_opts o = {.struct_size = sizeof o, .conf_text = conf};
    static const char *const napps[] = {"topology", "flow_manager", "mef_eline", "simnet"};
    char path[512];
    size_t i;

    th = kytos_test_host_new(&o);
    ck_assert_ptr_nonnull(th);
    for (i = 0; i < sizeof napps / sizeof napps[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.so", NAPP_DIR, napps[i]);
        ck_assert_msg(kytos_test_load(th, path) == 0, "%s: %s", napps[i],
                      kytos_test_last_error(th));
    }
    ck_assert_int_eq(kytos_test_start(th), 0);
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
    const char *dir = getenv("SHARED_DIR");
    char path[1024];
    struct json_object *cases;

    snprintf(path, sizeof path, "%s/fixtures/mef_eline_evc_cases.json", dir ? dir : SHARED_DIR);
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

static Suite *suite(void)
{
    Suite *s = suite_create("mef_eline");
    TCase *tc = tcase_create("napp");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, evc_cases_get_kytos_answers);
    tcase_add_test(tc, duplicated_epl_uni_is_409_and_tags_conflict_400);
    tcase_add_test(tc, list_get_patch_delete);
    tcase_add_test(tc, metadata_endpoints);
    tcase_add_test(tc, patch_uni_swaps_tags_and_redeploys);
    tcase_add_test(tc, deploy_installs_flows_through_flow_manager);
    tcase_add_test(tc, link_down_moves_the_evc_then_downs_it);
    tcase_add_test(tc, intra_switch_evc);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
