/* tests/openapi/check_request.c - request validation and Kytos' answers:
 * 413/415, parameters (required, casting, styles, defaults), bodies,
 * descriptions worded as kytos/core/helpers.py answers, the errors array,
 * concurrent use from many threads. */
#include <pthread.h>
#include <strings.h>
#include <stdio.h>
#include <string.h>

#include "check_tap.h"
#include "kytos/openapi.h"

static const char *SPEC =
    "openapi: 3.0.0\n"
    "info: {title: t, version: '1'}\n"
    "servers: [{url: /api/kytos/t}]\n"
    "paths:\n"
    "  /v1/items/{id}:\n"
    "    parameters:\n"
    "      - {name: id, in: path, required: true, schema: {type: integer, minimum: 1}}\n"
    "    post:\n"
    "      parameters:\n"
    "        - {name: force, in: query, schema: {type: boolean}}\n"
    "        - {name: limit, in: query, schema: {type: integer, default: 10, maximum: 100}}\n"
    "        - {name: mode, in: query, required: true, schema: {type: string, enum: [a, b]}}\n"
    "        - {name: tags, in: query, schema: {type: array, items: {type: integer}}}\n"
    "        - {name: csv, in: query, explode: false, schema: {type: array, items: {type: string}}}\n"
    "        - {name: X-Trace, in: header, schema: {type: string, maxLength: 4}}\n"
    "      requestBody:\n"
    "        required: true\n"
    "        content:\n"
    "          application/json:\n"
    "            schema: {$ref: '#/components/schemas/Item'}\n"
    "      responses: {'200': {description: ok}}\n"
    "  /v1/free:\n"
    "    delete:\n"
    "      responses: {'200': {description: ok}}\n"
    "    put:\n"
    "      requestBody:\n"
    "        content:\n"
    "          text/plain: {schema: {type: string, maxLength: 3}}\n"
    "      responses: {'200': {description: ok}}\n"
    "components:\n"
    "  schemas:\n"
    "    Item:\n"
    "      type: object\n"
    "      required: [name]\n"
    "      additionalProperties: false\n"
    "      properties:\n"
    "        name: {type: string}\n"
    "        id: {type: string, readOnly: true}\n"
    "        cookie: {type: integer}\n"
    "        match:\n"
    "          type: object\n"
    "          required: [in_port]\n"
    "          additionalProperties: false\n"
    "          properties: {in_port: {type: integer}}\n";

static kytos_openapi_spec *spec;
static const kytos_openapi_op *op_post, *op_free_delete, *op_free_put;

static void setup(void)
{
    kytos_openapi_diags *d = NULL;
    spec = kytos_openapi_load(SPEC, strlen(SPEC), "t.yml", NULL, &d);
    ck_assert_msg(spec != NULL, "%s",
                  kytos_openapi_diags_count(d) ? kytos_openapi_diags_get(d, 0)->message : "?");
    kytos_openapi_diags_free(d);
    op_post = kytos_openapi_find(spec, "POST", "/api/kytos/t/", "v1/items/{id}");
    op_free_delete = kytos_openapi_find(spec, "DELETE", "/api/kytos/t/", "v1/free");
    op_free_put = kytos_openapi_find(spec, "PUT", "/api/kytos/t/", "v1/free");
    ck_assert_ptr_nonnull(op_post);
    ck_assert_ptr_nonnull(op_free_delete);
    ck_assert_ptr_nonnull(op_free_put);
}

static void teardown(void)
{
    kytos_openapi_spec_free(spec);
}

static const char *hdr_trace;
static const char *get_header(void *ctx, const char *name)
{
    (void)ctx;
    return !strcasecmp(name, "X-Trace") ? hdr_trace : NULL;
}

/* POST /api/kytos/t/v1/items/<id>?<query> with body; returns the
 * status and, in out, the error body or the params+body JSON. */
static int post(const char *id, const char *query, const char *ctype,
                const char *body, char *out, size_t outlen)
{
    struct kytos_openapi_request rq;
    struct kytos_openapi_result res;
    const char *pp[2] = { "id", id };
    int st;

    memset(&rq, 0, sizeof rq);
    rq.struct_size = sizeof rq;
    rq.method = "POST";
    rq.path_params = id ? pp : NULL;
    rq.n_path_params = id ? 1 : 0;
    rq.path = id ? NULL : "/api/kytos/t/v1/items/7/";
    rq.query = query;
    rq.content_type = ctype;
    rq.body = body;
    rq.body_len = body ? strlen(body) : 0;
    rq.get_header = get_header;
    st = kytos_openapi_validate(op_post, &rq, &res);
    if (st) {
        snprintf(out, outlen, "%s", json_object_to_json_string_ext(res.error,
                 JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    } else {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "params", json_object_get(res.params));
        json_object_object_add(o, "body", json_object_get(res.body));
        snprintf(out, outlen, "%s", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
    }
    kytos_openapi_result_clear(&res);
    return st;
}

#define OK_BODY "{\"name\": \"n\"}"
#define JSON "application/json"

START_TEST(test_content_type_415)
{
    char out[2048];
    ck_assert_int_eq(post("1", "mode=a", "text/plain", OK_BODY, out, sizeof out), 415);
    ck_assert_str_eq(out, "{\"description\":\"Expected Content-Type: application/json, got: text/plain\",\"code\":415,"
                     "\"errors\":[{\"in\":\"header\",\"name\":\"Content-Type\",\"pointer\":\"\",\"message\":"
                     "\"Expected Content-Type: application/json, got: text/plain\"}]}");
    ck_assert_int_eq(post("1", "mode=a", NULL, OK_BODY, out, sizeof out), 415);
    ck_assert_ptr_nonnull(strstr(out, "got: None"));
    /* Kytos splits on ';' without trimming */
    ck_assert_int_eq(post("1", "mode=a", "application/json; charset=utf-8", OK_BODY, out, sizeof out), 0);
    ck_assert_int_eq(post("1", "mode=a", "charset=utf-8;application/json", OK_BODY, out, sizeof out), 400);
    ck_assert_int_eq(post("1", "mode=a", "Application/JSON", OK_BODY, out, sizeof out), 415);
}
END_TEST

START_TEST(test_body)
{
    char out[2048];
    ck_assert_int_eq(post("1", "mode=a", JSON, NULL, out, sizeof out), 400);
    ck_assert_str_eq(out, "{\"description\":\"Missing required request body\",\"code\":400,"
                     "\"errors\":[{\"in\":\"body\",\"pointer\":\"\",\"message\":\"Missing required request body\"}]}");
    ck_assert_int_eq(post("1", "mode=a", JSON, "{\"name\": ", out, sizeof out), 400);
    ck_assert_str_eq(out, "{\"description\":\"The request body contains invalid API data.\",\"code\":400,"
                     "\"errors\":[{\"in\":\"body\",\"pointer\":\"\",\"message\":"
                     "\"Invalid JSON: Expecting value: line 1 column 10 (char 9)\"}]}");
    ck_assert_int_eq(post("1", "mode=a", JSON, "{\"name\": 1, \"id\": \"x\", \"zz\": 0}", out, sizeof out), 400);
    ck_assert_str_eq(out, "{\"description\":\"The request body contains invalid API data., Additional properties "
                     "are not allowed ('zz' was unexpected) for field ., 1 is not of type 'string' for field name., "
                     "Tried to write read-only property with x for field id.\",\"code\":400,\"errors\":["
                     "{\"in\":\"body\",\"pointer\":\"\",\"field\":\"zz\",\"message\":\"Additional properties are not allowed ('zz' was unexpected)\"},"
                     "{\"in\":\"body\",\"pointer\":\"/name\",\"message\":\"1 is not of type 'string'\"},"
                     "{\"in\":\"body\",\"pointer\":\"/id\",\"message\":\"Tried to write read-only property with x\"}]}");
    /* nested: the pointer is the object that misses the field or holds
     * the extra ones, and each error names its field */
    ck_assert_int_eq(post("1", "mode=a", JSON, "{\"name\": \"n\", \"match\": {\"b\": 1, \"a\": 2}}",
                          out, sizeof out), 400);
    ck_assert_str_eq(out, "{\"description\":\"The request body contains invalid API data., "
                     "'in_port' is a required property for field match., Additional properties are "
                     "not allowed ('a', 'b' were unexpected) for field match.\",\"code\":400,\"errors\":["
                     "{\"in\":\"body\",\"pointer\":\"/match\",\"field\":\"in_port\",\"message\":"
                     "\"'in_port' is a required property\"},"
                     "{\"in\":\"body\",\"pointer\":\"/match\",\"field\":\"a\",\"message\":"
                     "\"Additional properties are not allowed ('a', 'b' were unexpected)\"},"
                     "{\"in\":\"body\",\"pointer\":\"/match\",\"field\":\"b\",\"message\":"
                     "\"Additional properties are not allowed ('a', 'b' were unexpected)\"}]}");
    /* uint64 cookies are kept exactly and reach the handler */
    ck_assert_int_eq(post("1", "mode=a", JSON, "{\"name\": \"n\", \"cookie\": 13474790939069419520}",
                          out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "\"cookie\":13474790939069419520"));
}
END_TEST

START_TEST(test_params)
{
    char out[2048];
    /* a missing required query parameter: its own message, no prefix */
    ck_assert_int_eq(post("1", "force=true", JSON, OK_BODY, out, sizeof out), 400);
    ck_assert_str_eq(out, "{\"description\":\"Missing required query parameter: mode\",\"code\":400,"
                     "\"errors\":[{\"in\":\"query\",\"name\":\"mode\",\"pointer\":\"\",\"message\":"
                     "\"Missing required query parameter: mode\"}]}");
    /* a schema error in a parameter: "for field ." */
    ck_assert_int_eq(post("1", "mode=c", JSON, OK_BODY, out, sizeof out), 400);
    ck_assert_ptr_nonnull(strstr(out, "\"description\":\"The request body contains invalid API data., "
                                      "'c' is not one of ['a', 'b'] for field .\""));
    /* a cast error: only the first sentence */
    ck_assert_int_eq(post("1", "mode=a&limit=ten", JSON, OK_BODY, out, sizeof out), 400);
    ck_assert_str_eq(out, "{\"description\":\"The request body contains invalid API data.\",\"code\":400,"
                     "\"errors\":[{\"in\":\"query\",\"name\":\"limit\",\"pointer\":\"\",\"message\":"
                     "\"Failed to cast value to integer type: ten\"}]}");
    /* path parameters come first; all problems are listed */
    ck_assert_int_eq(post("0", "mode=z&limit=500", JSON, "{}", out, sizeof out), 400);
    ck_assert_str_eq(out, "{\"description\":\"Invalid path parameter: id, "
                     "0 is less than the minimum of 1.\",\"code\":400,\"errors\":["
                     "{\"in\":\"path\",\"name\":\"id\",\"pointer\":\"\",\"message\":\"0 is less than the minimum of 1\"},"
                     "{\"in\":\"query\",\"name\":\"limit\",\"pointer\":\"\",\"message\":\"500 is greater than the maximum of 100\"},"
                     "{\"in\":\"query\",\"name\":\"mode\",\"pointer\":\"\",\"message\":\"'z' is not one of ['a', 'b']\"},"
                     "{\"in\":\"body\",\"pointer\":\"\",\"field\":\"name\",\"message\":\"'name' is a required property\"}]}");
    /* a path parameter that does not cast: named, not called the body */
    ck_assert_int_eq(post("x", "mode=a", JSON, OK_BODY, out, sizeof out), 400);
    ck_assert_str_eq(out, "{\"description\":\"Invalid path parameter: id, "
                     "Failed to cast value to integer type: x.\",\"code\":400,\"errors\":["
                     "{\"in\":\"path\",\"name\":\"id\",\"pointer\":\"\",\"message\":"
                     "\"Failed to cast value to integer type: x\"}]}");
    /* typed values, defaults, repeated keys, explode=false, decoding */
    hdr_trace = "abc";
    ck_assert_int_eq(post("42", "mode=a&force=Yes&tags=1&tags=2&csv=x,y%2Cz&name=%C3%A9+x",
                          JSON, OK_BODY, out, sizeof out), 0);
    ck_assert_str_eq(out, "{\"params\":{\"id\":42,\"force\":true,\"limit\":10,\"mode\":\"a\",\"tags\":[1,2],"
                     "\"csv\":[\"x\",\"y\",\"z\"],\"X-Trace\":\"abc\"},\"body\":{\"name\":\"n\"}}");
    hdr_trace = "abcde";
    ck_assert_int_eq(post("42", "mode=a", JSON, OK_BODY, out, sizeof out), 400);
    ck_assert_ptr_nonnull(strstr(out, "'abcde' is too long for field ."));
    hdr_trace = NULL;
    /* path parameters taken from the path when the host gives none */
    ck_assert_int_eq(post(NULL, "mode=b", JSON, OK_BODY, out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "\"id\":7"));
    /* empty query values are refused (openapi-core) */
    ck_assert_int_eq(post("1", "mode=", JSON, OK_BODY, out, sizeof out), 400);
    ck_assert_ptr_nonnull(strstr(out, "Value of mode query parameter cannot be empty"));
    /* strict casting */
    ck_assert_int_eq(post("1", "mode=a&limit=%207", JSON, OK_BODY, out, sizeof out), 400);
    ck_assert_int_eq(post("1x", "mode=a", JSON, OK_BODY, out, sizeof out), 400);
    ck_assert_ptr_nonnull(strstr(out, "Failed to cast value to integer type: 1x"));
}
END_TEST

START_TEST(test_limits)
{
    struct kytos_openapi_options o = { .struct_size = sizeof o, .max_body_bytes = 8,
                                       .max_params = 2, .max_errors = 2 };
    kytos_openapi_spec *s = kytos_openapi_load(SPEC, strlen(SPEC), "t", &o, NULL);
    const kytos_openapi_op *op = kytos_openapi_find(s, "POST", NULL, "/api/kytos/t/v1/items/{id}");
    struct kytos_openapi_request rq = { .struct_size = sizeof rq };
    struct kytos_openapi_result res;
    const char *pp[2] = { "id", "1" };
    rq.path_params = pp;
    rq.n_path_params = 1;
    rq.content_type = JSON;
    rq.body = "{\"name\": \"abc\"}";
    rq.body_len = strlen(rq.body);
    ck_assert_int_eq(kytos_openapi_validate(op, &rq, &res), 413);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(res.error, "description")),
                     "Request body larger than 8 bytes");
    kytos_openapi_result_clear(&res);
    rq.body = "{}";
    rq.body_len = 2;
    rq.query = "mode=a&a=1&b=2";
    ck_assert_int_eq(kytos_openapi_validate(op, &rq, &res), 400);
    ck_assert_ptr_nonnull(strstr(json_object_to_json_string(res.error), "more than 2 query parameters"));
    kytos_openapi_result_clear(&res);
    kytos_openapi_spec_free(s);
}
END_TEST

START_TEST(test_unbound_body_and_media)
{
    struct kytos_openapi_request rq = { .struct_size = sizeof rq };
    struct kytos_openapi_result res;
    /* no requestBody in the spec: the body is still parsed strictly */
    rq.content_type = JSON;
    rq.body = "[1, 2]";
    rq.body_len = 6;
    ck_assert_int_eq(kytos_openapi_validate(op_free_delete, &rq, &res), 0);
    ck_assert_int_eq(json_object_array_length(res.body), 2);
    kytos_openapi_result_clear(&res);
    rq.body = "[1, 2";
    rq.body_len = 5;
    ck_assert_int_eq(kytos_openapi_validate(op_free_delete, &rq, &res), 400);
    kytos_openapi_result_clear(&res);
    rq.body = NULL;
    rq.body_len = 0;
    ck_assert_int_eq(kytos_openapi_validate(op_free_delete, &rq, &res), 0);
    ck_assert_ptr_null(res.body);
    kytos_openapi_result_clear(&res);
    /* a spec that declares text/plain accepts it (not Kytos' 415) */
    rq.content_type = "text/plain";
    rq.body = "abcd";
    rq.body_len = 4;
    ck_assert_int_eq(kytos_openapi_validate(op_free_put, &rq, &res), 400);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(res.error, "description")),
                     "The request body contains invalid API data., 'abcd' is too long for field .");
    kytos_openapi_result_clear(&res);
    rq.body_len = 3;
    ck_assert_int_eq(kytos_openapi_validate(op_free_put, &rq, &res), 0);
    ck_assert_str_eq(json_object_get_string(res.body), "abc");
    kytos_openapi_result_clear(&res);
    /* JSON to a text/plain-only operation: no content for that type */
    rq.content_type = JSON;
    ck_assert_int_eq(kytos_openapi_validate(op_free_put, &rq, &res), 400);
    ck_assert_ptr_nonnull(strstr(json_object_to_json_string_ext(res.error,
                                 JSON_C_TO_STRING_NOSLASHESCAPE),
                                 "Content for the following mimetype not found: application/json. "
                                 "Valid mimetypes: ['text/plain']"));
    kytos_openapi_result_clear(&res);
}
END_TEST

static void *worker(void *arg)
{
    int i, bad = 0;
    char out[2048];
    (void)arg;
    for (i = 0; i < 300; i++) {
        if (post("5", "mode=a", JSON, "{\"name\": \"x\"}", out, sizeof out) != 0)
            bad++;
        if (post("5", "mode=a", JSON, "{\"name\": 5, \"q\": 1}", out, sizeof out) != 400 ||
            !strstr(out, "('q' was unexpected)"))
            bad++;
    }
    return (void *)(long)bad;
}

START_TEST(test_threads)
{
    pthread_t t[6];
    int i;
    long bad = 0;
    for (i = 0; i < 6; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, worker, NULL), 0);
    for (i = 0; i < 6; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad += (long)r;
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(test_strict_json_api)
{
    json_object *o = (json_object *)1;
    char err[128];
    ck_assert_int_eq(kytos_openapi_json_parse("", 0, NULL, &o, err, sizeof err), -1);
    ck_assert_str_eq(err, "Expecting value: line 1 column 1 (char 0)");
    ck_assert_int_eq(kytos_openapi_json_parse("null", 4, NULL, &o, err, sizeof err), 0);
    ck_assert_ptr_null(o);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("openapi_request");
    TCase *tc = tcase_create("request");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_content_type_415);
    tcase_add_test(tc, test_body);
    tcase_add_test(tc, test_params);
    tcase_add_test(tc, test_limits);
    tcase_add_test(tc, test_unbound_body_and_media);
    tcase_add_test(tc, test_threads);
    tcase_add_test(tc, test_strict_json_api);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
