/* tests/openapi/check_napps.c - the real Kytos-ng NApp specs in
 * $TEST_DATA_DIR/napps-openapi: every one loads, and lints clean except for
 * the findings listed below (each a real problem of that spec, with the
 * reason); the mef_eline EVC cases of $TEST_DATA_DIR/fixtures give the
 * verdict and message they expect; a flow_manager body with uint64
 * cookies passes.  Without the data (a broken tree): one "not ok" line. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check_tap.h"
#include <json-c/json.h>

#include "kytos/openapi.h"

static char shared[4096];

struct finding {
    const char *spec, *pointer, *message_prefix, *reason;
    unsigned hits;
};

#define FS "/paths/~1api~1amlight~1kytos_stats~1v1~1flow~1stats/get/responses/200/content/application~1json/schema/properties/switch/properties/value/properties/"

static struct finding expected[] = {
    { "flow_manager", "/components/schemas/Match/properties/in_port", "format 'int16' is not one",
      "int8/int16 are not OpenAPI formats: the range is not checked (Kytos does not check it either)", 0 },
    { "flow_manager", "/components/schemas/Match/properties/dl_type", "format 'int16' is not one", "idem", 0 },
    { "flow_manager", "/components/schemas/Match/properties/dl_vlan_pcp", "format 'int8' is not one", "idem", 0 },
    { "flow_manager", "/components/schemas/Match/properties/nw_proto", "format 'int8' is not one", "idem", 0 },
    { "flow_manager", "/components/schemas/Actions/items/properties/value", "format 'int16' is not one", "idem", 0 },
    { "flow_manager", "/components/schemas/Flow/properties/priority", "format 'int16' is not one", "idem", 0 },
    { "flow_manager", "/components/schemas/Flow/properties/idle_timeout", "format 'int16' is not one", "idem", 0 },
    { "flow_manager", "/components/schemas/Flow/properties/hard_timeout", "format 'int16' is not one", "idem", 0 },
    { "flow_manager", "/components/schemas/Actions",
      "examples[0] does not match its schema: {'action_type': 'output', 'port': 42} is not of type 'array'",
      "Actions is an array; its examples list single actions, not arrays of actions", 0 },
    { "flow_manager", "/components/schemas/Actions",
      "examples[1] does not match its schema: {'action_type': 'set_vlan', 'vlan_id': 42} is not of type 'array'",
      "idem", 0 },
    { "kytos_stats", FS "byte_count", "format 'int16' is not one", "not an OpenAPI format", 0 },
    { "kytos_stats", FS "duration_sec", "format 'int16' is not one", "not an OpenAPI format", 0 },
    { "kytos_stats", FS "cookie", "example does not match its schema: 12310228866111668291 is not a 'int64'",
      "cookies are uint64; format int64 rejects the example (and real cookies >= 2^63)", 0 },
    { "kytos_stats", "/paths/~1api~1amlight~1kytos_stats~1v1~1table~1stats/get/responses/200/content/"
      "application~1json/schema/properties/switch/properties/table/properties/table_id",
      "format 'int8' is not one", "not an OpenAPI format", 0 },
    { "mef_eline", "/paths/~1v2~1evc~1/get/responses/200/content/application~1json/schema",
      "'items' has no effect on a schema of type 'object'",
      "the list response is declared type: object with items (a dict of circuits was meant)", 0 },
    { "mef_eline", "/components/schemas/Path", "component schema 'Path' is never referenced",
      "dead definition: no operation or schema uses it", 0 },
    { "of_lldp", "/servers/0", "server url 'http://localhost:8181/api/kytos/of_lldp' names a host",
      "absolute server url: only its path /api/kytos/of_lldp is used", 0 },
    { "of_lldp", "/components/schemas/LivenessInterfacesPair/properties/interface_a",
      "'type' beside $ref is ignored in OpenAPI 3.0", "type: object next to $ref has no effect in 3.0", 0 },
    { "of_lldp", "/components/schemas/LivenessInterfacesPair/properties/interface_b",
      "'type' beside $ref is ignored in OpenAPI 3.0", "idem", 0 },
    { "of_lldp", "/paths/~1v1~1interfaces~1/get/responses/200/content/application~1json/schema",
      "example does not match its schema: {'interfaces': [",
      "the response schema says array, the example (and the code) return an object", 0 },
    { "of_multi_table", "/paths/~1v1~1pipeline/get/responses/200/content/application~1json/schema",
      "'items' has no effect on a schema of type 'object'", "type: object with items (array meant)", 0 },
    { "sdntrace_cp", "/paths/~1v1~1trace/put/requestBody/content/application~1json/schema/properties/"
      "trace/properties/eth/properties/dl_type",
      "example does not match its schema: '0x8100' is not of type 'integer'",
      "dl_type is an integer; the example is a hex string", 0 },
    { "telemetry_int", "/paths/~1v1~1evc~1expected_flows/post/responses/200/content/application~1json/"
      "schema/additionalProperties/properties/flows/items/properties/flow/properties/actions",
      "a schema of type 'array' must have 'items'", "OpenAPI 3.0 requires items for arrays", 0 },
    { "topology", "/components/schemas/Tag_ranges/properties/tag_ranges/items/anyOf/0",
      "a schema of type 'array' must have 'items'", "OpenAPI 3.0 requires items for arrays", 0 },
};

static const char *const specs[] = {
    "flow_manager", "kytos_stats", "maintenance", "mef_eline", "of_lldp",
    "of_multi_table", "pathfinder", "sdntrace_cp", "telemetry_int", "topology",
};

static kytos_openapi_spec *load_napp(const char *name)
{
    char path[4200];
    kytos_openapi_diags *d = NULL;
    kytos_openapi_spec *s;
    snprintf(path, sizeof path, "%s/napps-openapi/%s.openapi.yml", shared, name);
    s = kytos_openapi_load_file(path, NULL, &d);
    if (!s) {
        char buf[1024] = "?";
        if (kytos_openapi_diags_count(d))
            kytos_openapi_diag_format(kytos_openapi_diags_get(d, 0), buf, sizeof buf);
        ck_abort_msg("%s does not load: %s", name, buf);
    }
    kytos_openapi_diags_free(d);
    return s;
}

START_TEST(test_specs_load_and_lint)
{
    size_t i, j, k;
    for (i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        kytos_openapi_spec *s = load_napp(specs[i]);
        kytos_openapi_diags *w = NULL;
        size_t n = kytos_openapi_lint(s, &w);
        ck_assert_uint_gt(kytos_openapi_op_count(s), 0);
        for (j = 0; j < n; j++) {
            const struct kytos_openapi_diag *g = kytos_openapi_diags_get(w, j);
            bool known = false;
            for (k = 0; k < sizeof expected / sizeof expected[0] && !known; k++) {
                struct finding *f = &expected[k];
                if (!strcmp(f->spec, specs[i]) && !strcmp(f->pointer, g->pointer) &&
                    !strncmp(g->message, f->message_prefix, strlen(f->message_prefix))) {
                    f->hits++;
                    known = true;
                }
            }
            ck_assert_msg(known, "%s: unexpected finding at %s: %s", specs[i], g->pointer,
                          g->message);
        }
        kytos_openapi_diags_free(w);
        kytos_openapi_spec_free(s);
    }
    for (k = 0; k < sizeof expected / sizeof expected[0]; k++)
        ck_assert_msg(expected[k].hits == 1, "%s: finding at %s seen %u times", expected[k].spec,
                      expected[k].pointer, expected[k].hits);
}
END_TEST

/* Every path+method of every spec can be found by its own template
 * (what the host does for a whole-spec opt-in). */
START_TEST(test_find_every_operation)
{
    size_t i, j;
    for (i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        kytos_openapi_spec *s = load_napp(specs[i]);
        for (j = 0; j < kytos_openapi_op_count(s); j++) {
            const kytos_openapi_op *op = kytos_openapi_op_at(s, j);
            ck_assert_ptr_eq(kytos_openapi_find(s, kytos_openapi_op_method(op), NULL,
                                                kytos_openapi_op_template(op)), op);
            ck_assert_str_eq(kytos_openapi_op_template(op), kytos_openapi_op_template(op));
            ck_assert_msg(!strncmp(kytos_openapi_op_template(op), "/api/", 5), "%s: %s",
                          specs[i], kytos_openapi_op_template(op));
        }
        kytos_openapi_spec_free(s);
    }
}
END_TEST

static json_object *read_json(const char *rel)
{
    char path[4200];
    json_object *o;
    snprintf(path, sizeof path, "%s/%s", shared, rel);
    o = json_object_from_file(path);
    ck_assert_msg(o != NULL, "cannot read %s", path);
    return o;
}

START_TEST(test_mef_eline_cases)
{
    kytos_openapi_spec *s = load_napp("mef_eline");
    const kytos_openapi_op *op = kytos_openapi_find(s, "POST", "/api/kytos/mef_eline/", "v2/evc/");
    json_object *cases = read_json("fixtures/mef_eline_evc_cases.json");
    size_t i, n = json_object_array_length(cases);

    ck_assert_ptr_nonnull(op);
    ck_assert_ptr_eq(kytos_openapi_find(s, "POST", "/api/kytos/mef_eline", "v2/evc"), op);
    ck_assert_uint_ge(n, 40);
    for (i = 0; i < n; i++) {
        json_object *c = json_object_array_get_idx(cases, i);
        const char *name = json_object_get_string(json_object_object_get(c, "name"));
        bool valid = json_object_get_boolean(json_object_object_get(c, "valid"));
        json_object *want = json_object_object_get(c, "expect_error_contains");
        json_object *field = NULL;
        const char *body = json_object_to_json_string_ext(json_object_object_get(c, "body"),
                                                          JSON_C_TO_STRING_PLAIN);
        struct kytos_openapi_request rq = { .struct_size = sizeof rq };
        struct kytos_openapi_result res;
        int st;
        rq.method = "POST";
        rq.path = "/api/kytos/mef_eline/v2/evc/";
        rq.content_type = "application/json";
        rq.body = body;
        rq.body_len = strlen(body);
        st = kytos_openapi_validate(op, &rq, &res);
        if (valid) {
            ck_assert_msg(st == 0, "%s: expected to pass, got %d %s", name, st,
                          json_object_to_json_string(res.error));
        } else {
            const char *desc;
            ck_assert_msg(st == 400, "%s: expected 400, got %d", name, st);
            desc = json_object_get_string(json_object_object_get(res.error, "description"));
            ck_assert_msg(!strncmp(desc, "The request body contains invalid API data., ", 45),
                          "%s: %s", name, desc);
            ck_assert_msg(strstr(desc, json_object_get_string(want)) != NULL,
                          "%s: '%s' not in '%s'", name, json_object_get_string(want), desc);
            /* the message is reported for the expected field */
            if (json_object_object_get_ex(c, "field", &field)) {
                char frag[512];
                snprintf(frag, sizeof frag, " for field %s.", json_object_get_string(field));
                ck_assert_msg(strstr(desc, frag) != NULL, "%s: '%s' not in '%s'", name, frag,
                              desc);
            }
        }
        kytos_openapi_result_clear(&res);
    }
    json_object_put(cases);
    kytos_openapi_spec_free(s);
}
END_TEST

START_TEST(test_flow_manager_body)
{
    kytos_openapi_spec *s = load_napp("flow_manager");
    const kytos_openapi_op *op = kytos_openapi_find(s, "POST", "/api/kytos/flow_manager/",
                                                    "v2/flows/{dpid}");
    struct koa_body { char *p; size_t n; } b = { NULL, 0 };
    FILE *f = open_memstream(&b.p, &b.n);
    struct kytos_openapi_request rq = { .struct_size = sizeof rq };
    struct kytos_openapi_result res;
    const char *pp[2] = { "dpid", "00:00:00:00:00:00:00:01" };
    int i;

    ck_assert_ptr_nonnull(op);
    fputs("{\"flows\": [", f);
    for (i = 0; i < 100; i++)
        fprintf(f, "%s{\"priority\": %d, \"cookie\": %llu, \"match\": {\"in_port\": %d}, "
                "\"actions\": [{\"action_type\": \"output\", \"port\": %d}]}",
                i ? ", " : "", 1000 + i, 0xBB00000000000000ull + (unsigned long long)i,
                1 + (i & 1), 2 - (i & 1));
    fputs("], \"force\": false}", f);
    fclose(f);
    rq.path_params = pp;
    rq.n_path_params = 1;
    rq.content_type = "application/json";
    rq.body = b.p;
    rq.body_len = b.n;
    ck_assert_int_eq(kytos_openapi_validate(op, &rq, &res), 0);
    ck_assert(json_object_get_uint64(json_object_object_get(
                  json_object_array_get_idx(json_object_object_get(res.body, "flows"), 5),
                  "cookie")) == 0xBB00000000000005ull);
    kytos_openapi_result_clear(&res);
    free(b.p);
    kytos_openapi_spec_free(s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("openapi_napps");
    TCase *tc = tcase_create("napps");
    tcase_add_test(tc, test_specs_load_and_lint);
    tcase_add_test(tc, test_find_every_operation);
    tcase_add_test(tc, test_mef_eline_cases);
    tcase_add_test(tc, test_flow_manager_body);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char *dir = getenv("TEST_DATA_DIR");
    struct stat st;
    char probe[4200];

    snprintf(shared, sizeof shared, "%s", dir ? dir : "tests/data");
    snprintf(probe, sizeof probe, "%s/napps-openapi/mef_eline.openapi.yml", shared);
    /* the specs ship in tests/data: their absence is a broken tree, not a skip */
    if (stat(probe, &st) != 0) {
        printf("1..1\nnot ok 1 - %s not found\n", probe);
        return 1;
    }
    return kytos_check_run(suite());
}
