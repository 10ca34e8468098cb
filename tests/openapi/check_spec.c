/* tests/openapi/check_spec.c - loading specs: document checks with their
 * locations, YAML 1.1 scalars, $refs, servers, operation lookup. */
#include <stdio.h>
#include <string.h>

#include "check_tap.h"
#include "internal.h"

static kytos_openapi_spec *load(const char *text, kytos_openapi_diags **d)
{
    return kytos_openapi_load(text, strlen(text), "t.yml", NULL, d);
}

/* Load must fail; the first diagnostic, formatted, must equal want. */
#define LOAD_FAILS(text, want) do { \
        kytos_openapi_diags *d_ = NULL; char b_[1024]; \
        ck_assert_ptr_null(load(text, &d_)); \
        ck_assert_uint_ge(kytos_openapi_diags_count(d_), 1); \
        kytos_openapi_diag_format(kytos_openapi_diags_get(d_, 0), b_, sizeof b_); \
        ck_assert_str_eq(b_, want); \
        kytos_openapi_diags_free(d_); \
    } while (0)

#define HEAD "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n"

START_TEST(test_document_errors)
{
    LOAD_FAILS("", "t.yml: error: empty document (no YAML content)");
    LOAD_FAILS("a: [1,\n", "t.yml:2:1: error: YAML: did not find expected node content");
    LOAD_FAILS("a: 1\na: 2\n", "t.yml:2:1: error: YAML: duplicate key");
    LOAD_FAILS("swagger: '2.0'\n",
               "t.yml:1:1: error: no 'openapi' field (this library reads OpenAPI 3.0.x and 3.1.x; Swagger 2.0 is not supported)");
    LOAD_FAILS("openapi: 3.0\n",
               "t.yml:1:10: error: 'openapi' must be a string such as \"3.0.3\" (quote it in YAML) [at /openapi]");
    LOAD_FAILS("openapi: 2.0.0\n",
               "t.yml:1:10: error: unsupported OpenAPI version '2.0.0' (3.0.x and 3.1.x are supported) [at /openapi]");
    LOAD_FAILS("openapi: 3.0.0\ninfo: {title: t, version: 1.0}\npaths: {}\n",
               "t.yml:2:27: error: 'info.version' must be a string (quote a version like 1.0 in YAML) [at /info/version]");
    LOAD_FAILS(HEAD "paths: {}\nfoo: 1\n",
               "t.yml:4:1: error: unknown field 'foo' in the OpenAPI Object [at /foo]");
    LOAD_FAILS(HEAD "paths:\n  v1/x: {}\n",
               "t.yml:4:3: error: path 'v1/x' must start with '/' [at /paths/v1~1x]");
    LOAD_FAILS(HEAD "paths:\n  /a/{id}:\n    get:\n      responses: {'200': {description: ok}}\n",
               "t.yml:5:5: error: path template variable '{id}' of GET /a/{id} has no 'in: path' parameter [at /paths/~1a~1{id}/get]");
    LOAD_FAILS(HEAD "paths:\n  /a:\n    get:\n      parameters:\n      - {name: id, in: path, required: true, schema: {type: string}}\n"
               "      responses: {'200': {description: ok}}\n",
               "t.yml:7:10: error: path parameter 'id' is not a variable of the path template [at /paths/~1a/get/parameters/0]");
    LOAD_FAILS(HEAD "paths:\n  /a/{id}:\n    get:\n      parameters:\n      - {name: id, in: path, schema: {type: string}}\n"
               "      responses: {'200': {description: ok}}\n",
               "t.yml:7:10: error: path parameter 'id' must have 'required: true' [at /paths/~1a~1{id}/get/parameters/0]");
    LOAD_FAILS(HEAD "paths:\n  /a:\n    get:\n      parameters:\n      - {name: q, in: body, schema: {type: string}}\n"
               "      responses: {'200': {description: ok}}\n",
               "t.yml:7:23: error: parameter 'q': 'in' must be path, query, header or cookie, not 'body' [at /paths/~1a/get/parameters/0]");
    LOAD_FAILS(HEAD "paths:\n  /a:\n    post:\n      requestBody:\n        content:\n          application/json:\n"
               "            schema: {$ref: '#/components/schemas/Nope'}\n      responses: {'200': {description: ok}}\n",
               "t.yml:9:29: error: $ref '#/components/schemas/Nope' does not resolve [at /paths/~1a/post/requestBody/content/application~1json/schema]");
    LOAD_FAILS(HEAD "paths: {}\ncomponents:\n  schemas:\n    A:\n      type: object\n      properties:\n"
               "        x: {type: string, minLenght: 3}\n",
               "t.yml:9:27: error: 'minLenght' is not an OpenAPI 3.0 schema keyword [at /components/schemas/A/properties/x]");
    LOAD_FAILS(HEAD "paths: {}\ncomponents:\n  schemas:\n    A: {$ref: '#/components/schemas/B'}\n"
               "    B: {$ref: '#/components/schemas/A'}\n",
               "t.yml:7:16: error: circular $ref: '#/components/schemas/A' leads back to itself [at /components/schemas/A]");
    LOAD_FAILS(HEAD "paths:\n  /a:\n    get: {operationId: x, responses: {'200': {description: ok}}}\n"
               "  /b:\n    get: {operationId: x, responses: {'200': {description: ok}}}\n",
               "t.yml:7:5: error: operationId 'x' is also used by GET /a [at /paths/~1b/get]");
    LOAD_FAILS(HEAD "paths:\n  /a:\n    get: {}\n",
               "t.yml:5:5: error: GET /a has no 'responses' (required in OpenAPI 3.0) [at /paths/~1a/get]");
    LOAD_FAILS(HEAD "paths:\n  /a:\n    post:\n      requestBody: {content: {}}\n      responses: {'200': {description: ok}}\n",
               "t.yml:6:7: error: 'requestBody' needs a non-empty 'content' map [at /paths/~1a/post/requestBody]");
    LOAD_FAILS(HEAD "paths: {}\ncomponents: {schemas: {A: {pattern: '[z-a]'}}}\n",
               "t.yml:4:38: error: invalid pattern '[z-a]': range out of order in character class (in the translated pattern at offset 3) [at /components/schemas/A]");
}
END_TEST

START_TEST(test_yaml_scalars)
{
    /* PyYAML reads yes/on as booleans, 1e3 as a string, 0o... as a string */
    const char *y = HEAD "paths: {}\ncomponents:\n  schemas:\n    A:\n      enum: [yes, on, 1e3, 1.5e+3, 0x1F, 017, ~, 2020-01-01, '200']\n";
    kytos_openapi_diags *d = NULL, *w = NULL;
    kytos_openapi_spec *s = load(y, &d);
    size_t i, n, nplain = 0;
    ck_assert_ptr_nonnull(s);
    n = kytos_openapi_lint(s, &w);
    /* yes, on, 1e3, 017 (octal in 1.1), 2020-01-01; not 1.5e+3, 0x1F, ~,
     * '200' */
    for (i = 0; i < n; i++) {
        const struct kytos_openapi_diag *g = kytos_openapi_diags_get(w, i);
        if (strncmp(g->message, "plain scalar", 12))
            continue;
        nplain++;
        ck_assert_uint_eq(g->line, 7);
    }
    ck_assert_uint_eq(nplain, 5);
    ck_assert_str_eq(kytos_openapi_diags_get(w, 3)->message,
                     "plain scalar '017' is a different number in YAML 1.1 (PyYAML, which Kytos uses) than in YAML 1.2; quote it or write it unambiguously");
    ck_assert_str_eq(kytos_openapi_diags_get(w, 0)->message,
                     "plain scalar 'yes' is a boolean in YAML 1.1 (PyYAML, which Kytos uses) but a string in YAML 1.2; quote it or write it unambiguously");
    kytos_openapi_diags_free(w);
    kytos_openapi_diags_free(d);
    kytos_openapi_spec_free(s);
}
END_TEST

/* Scalars decode as PyYAML (YAML 1.1) decodes them; the expected values
 * were produced with PyYAML's safe_load. */
START_TEST(test_yaml_decoding)
{
    const char *y = "a: ['it''s', 'a''''''''''''''''b', 'x\n  y\n\n  z  ', \"q\\t\\u00e9\"]\n"
                    "l: |\n  l1\n  l2\ng: >-\n  f1\n  f2\n'k''ey': 0o17\n200: 1_000\n"
                    "t: 2020-01-01\nn: ~\nb: [Yes, OFF, y]\nf: [1.5e+3, .5, 1:30, 1e3]\n";
    struct kytos_openapi_options o;
    kytos_openapi_diags *d = koa_diags_new("t");
    json_object *v = NULL;
    koa_options_resolve(NULL, &o);
    ck_assert_int_eq(koa_yaml_load(y, strlen(y), &o, NULL, d, NULL, &v), 0);
    ck_assert_str_eq(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
                     "{\"a\":[\"it's\",\"a''''''''b\",\"x y\\nz  \",\"q\\t\xc3\xa9\"],"
                     "\"l\":\"l1\\nl2\\n\",\"g\":\"f1 f2\",\"k'ey\":\"0o17\",\"200\":1000,"
                     "\"t\":\"2020-01-01\",\"n\":null,\"b\":[true,false,\"y\"],"
                     "\"f\":[1500.0,0.5,90,\"1e3\"]}");
    json_object_put(v);
    kytos_openapi_diags_free(d);
}
END_TEST

START_TEST(test_json_and_refs)
{
    const char *j = "{\"openapi\": \"3.1.0\", \"info\": {\"title\": \"t\", \"version\": \"1\"},"
                    "\"paths\": {\"/t\": {\"post\": {\"requestBody\": {\"$ref\": \"#/components/requestBodies/B\"},"
                    "\"parameters\": [{\"$ref\": \"#/components/parameters/P\"}]}}},"
                    "\"components\": {\"requestBodies\": {\"B\": {\"required\": true, \"content\": {\"application/json\": "
                    "{\"schema\": {\"$ref\": \"#/components/schemas/Node\"}}}}},"
                    "\"parameters\": {\"P\": {\"name\": \"n\", \"in\": \"query\", \"schema\": {\"type\": \"integer\", \"default\": 3}}},"
                    "\"schemas\": {\"Node\": {\"type\": \"object\", \"properties\": {\"next\": "
                    "{\"$ref\": \"#/components/schemas/Node\"}, \"v\": {\"type\": \"integer\"}}}}}}";
    kytos_openapi_diags *d = NULL;
    kytos_openapi_spec *s = load(j, &d);
    const kytos_openapi_op *op;
    struct kytos_openapi_request rq = { .struct_size = sizeof rq };
    struct kytos_openapi_result res;
    const char *body = "{\"v\": 1, \"next\": {\"v\": 2, \"next\": {\"v\": \"x\"}}}";

    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(kytos_openapi_spec_version(s), "3.1");
    op = kytos_openapi_find(s, "post", NULL, "/t");
    ck_assert_ptr_nonnull(op);
    rq.content_type = "application/json";
    rq.body = body;
    rq.body_len = strlen(body);
    ck_assert_int_eq(kytos_openapi_validate(op, &rq, &res), 400);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(res.error, "description")),
                     "The request body contains invalid API data., 'x' is not of type 'integer' for field next/next/v.");
    kytos_openapi_result_clear(&res);
    body = "{\"v\": 1}";
    rq.body = body;
    rq.body_len = strlen(body);
    ck_assert_int_eq(kytos_openapi_validate(op, &rq, &res), 0);
    /* the default of an absent optional parameter is passed on */
    ck_assert_int_eq(json_object_get_int(json_object_object_get(res.params, "n")), 3);
    kytos_openapi_result_clear(&res);
    kytos_openapi_diags_free(d);
    kytos_openapi_spec_free(s);
}
END_TEST

START_TEST(test_servers_and_find)
{
    static const char *const forms[] = {
        HEAD "servers: [{url: /api/kytos/mef_eline}]\npaths:\n  /v2/evc/{circuit_id}:\n",
        HEAD "servers: [{url: 'http://localhost:8181/api/kytos/mef_eline/'}]\npaths:\n  /v2/evc/{circuit_id}:\n",
        HEAD "paths:\n  /api/kytos/mef_eline/v2/evc/{circuit_id}:\n",
        HEAD "servers: [{url: '{scheme}://h/{base}', variables: {scheme: {default: http}, base: {default: api/kytos/mef_eline}}}]\n"
             "paths:\n  /v2/evc/{circuit_id}:\n",
    };
    size_t i;
    for (i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char text[1024];
        kytos_openapi_diags *d = NULL;
        kytos_openapi_spec *s;
        const kytos_openapi_op *op;
        snprintf(text, sizeof text, "%s    get:\n      operationId: get_circuit\n"
                 "      parameters: [{name: circuit_id, in: path, required: true, schema: {type: string}}]\n"
                 "      responses: {'200': {description: ok}}\n", forms[i]);
        s = load(text, &d);
        ck_assert_msg(s != NULL, "form %zu: %s", i,
                      kytos_openapi_diags_count(d) ? kytos_openapi_diags_get(d, 0)->message : "?");
        op = kytos_openapi_find(s, "GET", "/api/kytos/mef_eline/", "v2/evc/{circuit_id}");
        ck_assert_ptr_nonnull(op);
        ck_assert_ptr_eq(kytos_openapi_find(s, "get", NULL, "/api/kytos/mef_eline/v2/evc/{circuit_id}/"), op);
        ck_assert_ptr_eq(kytos_openapi_find(s, "GET", "/api/kytos/mef_eline", "/v2/evc/{circuit_id:str}"), op);
        ck_assert_ptr_null(kytos_openapi_find(s, "POST", "/api/kytos/mef_eline", "v2/evc/{circuit_id}"));
        ck_assert_ptr_null(kytos_openapi_find(s, "GET", "/api/kytos/mef_eline", "v2/evc/{id}"));
        ck_assert_ptr_eq(kytos_openapi_find_id(s, "get_circuit"), op);
        ck_assert_str_eq(kytos_openapi_op_template(op), "/api/kytos/mef_eline/v2/evc/{circuit_id}");
        ck_assert_str_eq(kytos_openapi_op_method(op), "GET");
        ck_assert_uint_eq(kytos_openapi_op_count(s), 1);
        ck_assert_ptr_eq(kytos_openapi_op_at(s, 0), op);
        ck_assert_ptr_eq(kytos_openapi_match(s, "GET", "/api/kytos/mef_eline/v2/evc/abc"), op);
        ck_assert_ptr_null(kytos_openapi_match(s, "GET", "/api/kytos/mef_eline/v2/evc/abc/x"));
        kytos_openapi_diags_free(d);
        kytos_openapi_spec_free(s);
    }
}
END_TEST

START_TEST(test_match_priority)
{
    const char *y = HEAD "paths:\n"
        "  /a/{x}:\n    get:\n      parameters: [{name: x, in: path, required: true, schema: {type: string}}]\n"
        "      responses: {'200': {description: ok}}\n"
        "  /a/b:\n    get: {operationId: lit, responses: {'200': {description: ok}}}\n";
    kytos_openapi_spec *s = load(y, NULL);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(kytos_openapi_op_id(kytos_openapi_match(s, "GET", "/a/b")), "lit");
    ck_assert_str_eq(kytos_openapi_op_id(kytos_openapi_match(s, "GET", "/a/b/")), "lit");
    ck_assert_str_eq(kytos_openapi_op_template(kytos_openapi_match(s, "GET", "/a/c")), "/a/{x}");
    kytos_openapi_spec_free(s);
}
END_TEST

START_TEST(test_yaml_hostile)
{
    /* an alias bomb stops at the node budget */
    const char *bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                       "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                       "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                       "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                       "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
                       "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n";
    struct kytos_openapi_options o = { .struct_size = sizeof o, .max_spec_nodes = 100000 };
    kytos_openapi_diags *d = NULL;
    ck_assert_ptr_null(kytos_openapi_load(bomb, strlen(bomb), "bomb.yml", &o, &d));
    ck_assert_ptr_nonnull(strstr(kytos_openapi_diags_get(d, 0)->message,
                                 "more than 100000 nodes (after expanding aliases)"));
    kytos_openapi_diags_free(d);
    /* recursive alias */
    LOAD_FAILS("a: &a [*a]\n", "t.yml:1:9: error: recursive alias '*a' [at /a/0]");
    /* binary junk */
    LOAD_FAILS("\xff\xfe", "t.yml: error: spec is not valid UTF-8");
    {
        const char nul[] = "a: 1\0b";
        kytos_openapi_diags *d2 = NULL;
        ck_assert_ptr_null(kytos_openapi_load(nul, sizeof nul - 1, "n", NULL, &d2));
        ck_assert_str_eq(kytos_openapi_diags_get(d2, 0)->message, "spec contains a NUL byte at offset 4");
        kytos_openapi_diags_free(d2);
    }
}
END_TEST

START_TEST(test_merge_keys)
{
    const char *y = HEAD "paths: {}\ncomponents:\n  schemas:\n"
        "    Base: &base {type: object, properties: {a: {type: string}}}\n"
        "    Derived:\n      <<: *base\n      required: [a]\n";
    kytos_openapi_spec *s = load(y, NULL);
    ck_assert_ptr_nonnull(s);
    kytos_openapi_spec_free(s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("openapi_spec");
    TCase *tc = tcase_create("spec");
    tcase_add_test(tc, test_document_errors);
    tcase_add_test(tc, test_yaml_scalars);
    tcase_add_test(tc, test_yaml_decoding);
    tcase_add_test(tc, test_json_and_refs);
    tcase_add_test(tc, test_servers_and_find);
    tcase_add_test(tc, test_match_priority);
    tcase_add_test(tc, test_yaml_hostile);
    tcase_add_test(tc, test_merge_keys);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
