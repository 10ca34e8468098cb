/* tests/openapi/check_schema.c - schema compiler and validator: messages
 * in jsonschema's wording, Python repr, numbers, regexes, formats. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_tap.h"
#include "schema.h"

static json_object *J(const char *text)
{
    json_object *o = NULL;
    char err[256];
    struct kytos_openapi_options opt = { .struct_size = sizeof opt, .max_depth = 500 };
    koa_options_resolve(&opt, &opt);
    ck_assert_msg(koa_json_parse(text, strlen(text), &opt, &o, err, sizeof err) == 0,
                  "%s: %s", text, err);
    return o;
}

/* Validate data against schema (dialect d); return the messages joined
 * by " | " (empty when valid) in a static buffer. */
static const char *check_at(enum koa_dialect d, const char *schema,
                            const char *at, const char *data)
{
    static char out[4096];
    json_object *s = J(schema), *v = J(data), *target = NULL;
    struct koa_arena a = { NULL };
    struct koa_compiler c;
    kytos_openapi_diags *dg = koa_diags_new("t");
    struct koa_node *n;
    struct koa_vlimits lim = { 32, 128, 1000000, 10000, true, d == KOA_OAS31, true };
    struct koa_verrs errs = { NULL, 0, 0, false };
    size_t i;
    bool ok, probe;

    koa_compiler_init(&c, &a, s, d, 0, dg, NULL);
    ck_assert_int_eq(koa_ptr_resolve(s, at, &target), 0);
    n = koa_compile(&c, target, at);
    if (!n || !koa_compiler_check_cycles(&c)) {
        snprintf(out, sizeof out, "COMPILE: %s",
                 kytos_openapi_diags_get(dg, 0)->message);
    } else {
        ok = koa_validate(n, v, &lim, &errs);
        probe = koa_validate(n, v, &lim, NULL);
        ck_assert_int_eq(ok, probe);
        out[0] = '\0';
        for (i = 0; i < errs.n; i++) {
            size_t l = strlen(out);
            snprintf(out + l, sizeof out - l, "%s%s@%s", i ? " | " : "",
                     errs.v[i].message, errs.v[i].pointer);
        }
        ck_assert_int_eq(ok, errs.n == 0);
    }
    koa_verrs_free(&errs);
    koa_compiler_done(&c, NULL, NULL);
    koa_arena_free(&a);
    kytos_openapi_diags_free(dg);
    json_object_put(s);
    json_object_put(v);
    return out;
}

static const char *check(enum koa_dialect d, const char *schema, const char *data)
{
    return check_at(d, schema, "#", data);
}

#define C30(s, d, want) ck_assert_str_eq(check(KOA_OAS30, s, d), want)
#define C31(s, d, want) ck_assert_str_eq(check(KOA_OAS31, s, d), want)

START_TEST(test_repr)
{
    struct ku_buf b;
    static const struct { double d; const char *s; } dbl[] = {
        { 0.1, "0.1" }, { 1.0, "1.0" }, { 1e16, "1e+16" }, { 1e15, "1000000000000000.0" },
        { 1e-5, "1e-05" }, { 0.0001, "0.0001" }, { 123.456, "123.456" },
        { -2.5, "-2.5" }, { 1.7976931348623157e308, "1.7976931348623157e+308" },
        { 5e-324, "5e-324" }, { 0.58, "0.58" }, { 100.0, "100.0" },
    };
    size_t i;
    for (i = 0; i < sizeof dbl / sizeof dbl[0]; i++) {
        ku_buf_init(&b);
        koa_pyrepr_double(&b, dbl[i].d);
        ck_assert_str_eq(ku_buf_str(&b), dbl[i].s);
        ku_buf_free(&b);
    }
    {
        json_object *o = J("{\"a\": [1, 2.5, true, null, \"it's\", \"q\\\"'\", \"\\n\\u00e9\\u0001\"]}");
        ku_buf_init(&b);
        koa_pyrepr(&b, o, 1000);
        ck_assert_str_eq(ku_buf_str(&b),
                         "{'a': [1, 2.5, True, None, \"it's\", 'q\"\\'', '\\n\xc3\xa9\\x01']}");
        ku_buf_free(&b);
        json_object_put(o);
    }
    {
        /* str() of a string is its text */
        json_object *o = J("\"abc\"");
        ku_buf_init(&b);
        koa_pystr(&b, o, 100);
        ck_assert_str_eq(ku_buf_str(&b), "abc");
        ku_buf_free(&b);
        json_object_put(o);
    }
}
END_TEST

START_TEST(test_messages_oas30)
{
    C30("{\"type\": \"string\"}", "1", "1 is not of type 'string'@");
    C30("{\"type\": \"integer\"}", "null", "None for not nullable@ | None is not of type 'integer'@");
    C30("{\"type\": \"integer\", \"nullable\": true}", "null", "");
    C30("{\"nullable\": true, \"enum\": [1]}", "null", "None is not one of [1]@");
    C30("{\"type\": \"integer\"}", "1.0", "1.0 is not of type 'integer'@");
    C30("{\"type\": \"number\"}", "1", "");
    C30("{\"type\": \"boolean\"}", "\"yes\"", "'yes' is not of type 'boolean'@");
    C30("{\"type\": \"object\", \"required\": [\"name\"]}", "{}", "'name' is a required property@");
    C30("{\"additionalProperties\": false, \"properties\": {\"a\": {}}}", "{\"a\":1,\"z\":2,\"b\":3}",
        "Additional properties are not allowed ('b', 'z' were unexpected)@");
    C30("{\"enum\": [\"vlan\", 1]}", "\"vlan_qinq\"", "'vlan_qinq' is not one of ['vlan', 1]@");
    C30("{\"maximum\": 7}", "8", "8 is greater than the maximum of 7@");
    C30("{\"minimum\": 0.1}", "0", "0 is less than the minimum of 0.1@");
    C30("{\"minimum\": 2, \"exclusiveMinimum\": true}", "2", "2 is less than or equal to the minimum of 2@");
    C30("{\"maximum\": 2, \"exclusiveMaximum\": true}", "2.0", "2.0 is greater than or equal to the maximum of 2@");
    C30("{\"multipleOf\": 0.01}", "0.58", "0.58 is not a multiple of 0.01@");
    C30("{\"multipleOf\": 0.5}", "1e308", "");
    C30("{\"multipleOf\": 3}", "9", "");
    C30("{\"multipleOf\": 3}", "10", "10 is not a multiple of 3@");
    C30("{\"minLength\": 25}", "\"00:01:1\"", "'00:01:1' is too short@");
    C30("{\"minLength\": 1}", "\"\"", "'' should be non-empty@");
    C30("{\"maxLength\": 2}", "\"\xc3\xa9\xc3\xa9\"", "");
    C30("{\"maxLength\": 0}", "\"a\"", "'a' is expected to be empty@");
    C30("{\"minItems\": 1}", "[]", "[] should be non-empty@");
    C30("{\"maxItems\": 1}", "[1, 2]", "[1, 2] is too long@");
    C30("{\"minProperties\": 2}", "{\"a\":1}", "{'a': 1} does not have enough properties@");
    C30("{\"maxProperties\": 0}", "{\"a\":1}", "{'a': 1} is expected to be empty@");
    C30("{\"uniqueItems\": true}", "[1, 2, 1.0]", "[1, 2, 1.0] has non-unique elements@");
    C30("{\"uniqueItems\": true}", "[0, false, {\"a\": [1]}, {\"a\": [true]}]", "");
    C30("{\"pattern\": \"^a+$\"}", "\"ab\"", "'ab' does not match '^a+$'@");
    C30("{\"format\": \"int32\"}", "2147483648", "2147483648 is not a 'int32'@");
    C30("{\"format\": \"int64\"}", "18446744073709551615", "18446744073709551615 is not a 'int64'@");
    C30("{\"format\": \"date-time\"}", "\"2020-13-01T00:00:00Z\"", "'2020-13-01T00:00:00Z' is not a 'date-time'@");
    C30("{\"format\": \"int16\"}", "99999999", "");
    C30("{\"anyOf\": [{\"type\": \"integer\"}, {\"type\": \"string\"}]}", "true",
        "True is not valid under any of the given schemas@");
    C30("{\"oneOf\": [{\"type\": \"integer\"}, {\"minimum\": 0}]}", "1",
        "1 is valid under each of {'minimum': 0}, {'type': 'integer'}@");
    C30("{\"not\": {\"type\": \"integer\"}}", "1", "1 should not be valid under {'type': 'integer'}@");
    C30("{\"properties\": {\"a\": {\"readOnly\": true}}, \"required\": [\"a\"]}", "{}", "");
    C30("{\"properties\": {\"a\": {\"readOnly\": true}}}", "{\"a\": \"x\"}",
        "Tried to write read-only property with x@/a");
    C30("{\"items\": {\"properties\": {\"b\": {\"type\": \"string\"}}}}", "[{}, {\"b\": 1}]",
        "1 is not of type 'string'@/1/b");
    C30("{\"properties\": {\"a/b\": {\"properties\": {\"c~d\": {\"type\": \"string\"}}}}}",
        "{\"a/b\": {\"c~d\": 1}}", "1 is not of type 'string'@/a~1b/c~0d");
}
END_TEST

START_TEST(test_oas30_load_errors)
{
    ck_assert_str_eq(check(KOA_OAS30, "{\"type\": \"null\"}", "1"),
                     "COMPILE: unknown type 'null' (OpenAPI 3.0 has no null type; use nullable: true)");
    ck_assert_str_eq(check(KOA_OAS30, "{\"patternProperties\": {}}", "1"),
                     "COMPILE: 'patternProperties' is not an OpenAPI 3.0 schema keyword (it needs openapi: 3.1.x)");
    ck_assert_str_eq(check(KOA_OAS30, "{\"items\": [{}]}", "1"),
                     "COMPILE: 'items' must be a schema object in OpenAPI 3.0 (no tuple form)");
    ck_assert_str_eq(check(KOA_OAS30, "{\"pattern\": \"(\"}", "1"),
                     "COMPILE: invalid pattern '(': missing closing parenthesis (in the translated pattern at offset 1)");
    ck_assert_str_eq(check(KOA_OAS30, "{\"$ref\": \"#/nope\"}", "1"),
                     "COMPILE: $ref '#/nope' does not resolve");
    ck_assert_str_eq(check(KOA_OAS30, "{\"definitions\": {\"a\": {\"$ref\": \"#/definitions/b\"}, "
                           "\"b\": {\"$ref\": \"#/definitions/a\"}}, \"allOf\": [{\"$ref\": \"#/definitions/a\"}]}",
                           "1"), "COMPILE: 'definitions' is not an OpenAPI 3.0 schema keyword");
    ck_assert_str_eq(check(KOA_OAS30, "{\"$ref\": \"http://x/y.json\"}", "1"),
                     "COMPILE: only local references (\"#/...\") are supported, not 'http://x/y.json'");
    ck_assert_str_eq(check(KOA_OAS30, "{\"multipleOf\": 0}", "1"),
                     "COMPILE: 'multipleOf' must be a number greater than 0");
    ck_assert_str_eq(check(KOA_OAS30, "{\"x-anything\": [1], \"example\": 1}", "1"), "");
}
END_TEST

START_TEST(test_refs_and_recursion)
{
    /* a recursive tree schema */
    const char *tree = "{\"$defs\": {\"node\": {\"type\": \"object\", \"properties\": {"
                       "\"value\": {\"type\": \"integer\"}, \"children\": {\"type\": \"array\", "
                       "\"items\": {\"$ref\": \"#/$defs/node\"}}}}}, \"$ref\": \"#/$defs/node\"}";
    C31(tree, "{\"value\": 1, \"children\": [{\"value\": 2, \"children\": []}]}", "");
    C31(tree, "{\"value\": 1, \"children\": [{\"value\": \"x\"}]}",
        "'x' is not of type 'integer'@/children/0/value");
    /* refs that only point at each other never consume the instance */
    ck_assert_str_eq(check(KOA_OAS31, "{\"$defs\": {\"a\": {\"$ref\": \"#/$defs/b\"}, "
                           "\"b\": {\"$ref\": \"#/$defs/a\"}}, \"$ref\": \"#/$defs/a\"}", "1"),
                     "COMPILE: circular $ref: '#/$defs/a' leads back to itself");
    ck_assert_str_eq(check(KOA_OAS31, "{\"allOf\": [{\"$ref\": \"#\"}]}", "1"),
                     "COMPILE: schema refers to itself without going into the instance (infinite recursion)");
    /* escaped pointers */
    C31("{\"$defs\": {\"a/b\": {\"type\": \"string\"}, \"c%d\": {\"type\": \"integer\"}}, "
        "\"properties\": {\"x\": {\"$ref\": \"#/$defs/a~1b\"}, \"y\": {\"$ref\": \"#/$defs/c%25d\"}}}",
        "{\"x\": 1, \"y\": \"s\"}", "1 is not of type 'string'@/x | 's' is not of type 'integer'@/y");
    /* deep instance against a recursive schema hits the evaluation limit */
    {
        char deep[600];
        memset(deep, '[', 200);
        memset(deep + 200, ']', 200);
        deep[400] = '\0';
        const char *r = check(KOA_OAS31, "{\"items\": {\"$ref\": \"#\"}}", deep);
        ck_assert_msg(strncmp(r, "validation nested deeper than 128 levels@/0/0/0/", 48) == 0,
                      "%s", r);
    }
}
END_TEST

START_TEST(test_oas31)
{
    C31("{\"type\": [\"string\", \"null\"]}", "1", "1 is not of type 'string', 'null'@");
    C31("{\"type\": \"integer\"}", "1.0", "");
    C31("{\"const\": {\"a\": 1}}", "{\"a\": 1.0}", "");
    C31("{\"const\": 1}", "2", "1 was expected@");
    C31("{\"exclusiveMinimum\": 1}", "1", "1 is less than or equal to the minimum of 1@");
    C31("{\"prefixItems\": [{\"type\": \"integer\"}], \"items\": false}", "[1, 2, 3]",
        "Expected at most 1 item but found 2 extra: [2, 3]@");
    C31("{\"contains\": {\"type\": \"string\"}}", "[1]",
        "[1] does not contain items matching the given schema@");
    C31("{\"contains\": {\"type\": \"string\"}, \"minContains\": 2}", "[\"a\", 1]",
        "Too few items match the given schema (expected at least 2 but only 1 matched)@");
    C31("{\"patternProperties\": {\"^x\": {\"type\": \"integer\"}}, \"additionalProperties\": false}",
        "{\"xa\": \"s\", \"b\": 1}",
        "'s' is not of type 'integer'@/xa | 'b' does not match any of the regexes: '^x'@");
    C31("{\"dependentRequired\": {\"a\": [\"b\"]}}", "{\"a\": 1}", "'b' is a dependency of 'a'@");
    C31("{\"if\": {\"minimum\": 10}, \"then\": {\"multipleOf\": 2}, \"else\": {\"maximum\": 3}}", "11",
        "11 is not a multiple of 2@");
    C31("{\"propertyNames\": {\"maxLength\": 2}}", "{\"abc\": 1}", "'abc' is too long@");
    C31("false", "1", "False schema does not allow 1@");
    ck_assert_str_eq(check(KOA_OAS31, "{\"$id\": \"x\"}", "1"),
                     "COMPILE: '$id' is not supported (dynamic scope and URI-based references are out of scope)");
    C31("{\"nullable\": true, \"type\": \"string\"}", "null", "None is not of type 'string'@");
}
END_TEST

START_TEST(test_discriminator)
{
    const char *doc =
        "{\"components\": {\"schemas\": {"
        "\"Cat\": {\"type\": \"object\", \"properties\": {\"kind\": {\"type\": \"string\"}, \"claws\": {\"type\": \"integer\"}}},"
        "\"Dog\": {\"type\": \"object\", \"properties\": {\"kind\": {\"type\": \"string\"}, \"bark\": {\"type\": \"boolean\"}}},"
        "\"Pet\": {\"oneOf\": [{\"$ref\": \"#/components/schemas/Cat\"}, {\"$ref\": \"#/components/schemas/Dog\"}],"
        "\"discriminator\": {\"propertyName\": \"kind\", \"mapping\": {\"dog\": \"Dog\"}}}}}}";
#define D30(data, want) ck_assert_str_eq(check_at(KOA_OAS30, doc, "#/components/schemas/Pet", data), want)
    D30("{\"kind\": \"Cat\", \"claws\": 4}", "");
    D30("{\"kind\": \"dog\", \"bark\": 1}", "1 is not of type 'boolean'@/bark");
    D30("{\"claws\": 4}", "{'claws': 4} does not contain discriminating property 'kind'@");
    D30("{\"kind\": \"Cow\"}", "{'kind': 'Cow'} reference '#/components/schemas/Cow' could not be resolved@");
#undef D30
}
END_TEST

static const char *regex_pcre(const char *pat)
{
    static char out[512];
    char err[200];
    struct koa_regex *re = koa_regex_compile(pat, strlen(pat), err, sizeof err);
    if (!re) {
        snprintf(out, sizeof out, "ERR %s", err);
        return out;
    }
    snprintf(out, sizeof out, "%s", koa_regex_pcre_source(re));
    koa_regex_free(re);
    return out;
}

static int search(const char *pat, const char *s)
{
    char err[200];
    struct koa_regex *re = koa_regex_compile(pat, strlen(pat), err, sizeof err);
    int r;
    ck_assert_msg(re != NULL, "%s: %s", pat, err);
    r = koa_regex_search(re, s, strlen(s), 100000, 1000);
    koa_regex_free(re);
    return r;
}

START_TEST(test_regex_ecma)
{
    ck_assert_str_eq(regex_pcre("a.b"), "a[^\\n\\r\\u2028\\u2029]b");
    ck_assert_str_eq(regex_pcre("\\p{Letter}\\P{digit}"), "\\p{L}\\P{Nd}");
    ck_assert_str_eq(regex_pcre("\\uD83D\\uDC32"), "\\u{1f432}");
    ck_assert_str_eq(regex_pcre("[[:a]"), "[\\[:a]");
    ck_assert_str_eq(regex_pcre("\\a"), "ERR \\a at offset 0 is not an ECMA-262 escape");
    ck_assert_str_eq(regex_pcre("[^\\S]"), "ERR \\S inside a negated class (offset 0) is not supported");
    ck_assert_str_eq(regex_pcre("\\uD83D"), "ERR lone surrogate \\uD83D at offset 0 cannot match UTF-8 text");
    ck_assert_int_eq(search("^\\d$", "\xd9\xa3"), 0);      /* Arabic-Indic 3 is not \d */
    ck_assert_int_eq(search("^\\s$", "\xc2\xa0"), 1);      /* NBSP is \s in ECMA */
    ck_assert_int_eq(search("^[a\\S]$", "\xe2\x80\x83"), 0); /* EM SPACE */
    ck_assert_int_eq(search("^[a\\S]$", "b"), 1);
    ck_assert_int_eq(search("^abc$", "abc\n"), 0);        /* $ does not match before \n */
    ck_assert_int_eq(search("^.$", "\xf0\x9f\x90\xb2"), 1); /* one code point */
    ck_assert_int_eq(search("b", "abc"), 1);               /* a search, not anchored */
    ck_assert_int_eq(search("^\\cC$", "\x03"), 1);
    ck_assert_int_eq(search("^(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"), -1); /* limit */
}
END_TEST

START_TEST(test_formats)
{
    static const struct { const char *fmt, *val; bool ok; } t[] = {
        { "byte", "\"aGVsbG8=\"", true }, { "byte", "\"aGVsbG9=\"", false },
        { "byte", "\"aGVsbG8\"", false }, { "date", "\"2020-02-29\"", true },
        { "date", "\"2021-02-29\"", false }, { "date-time", "\"1998-12-31T23:59:60Z\"", true },
        { "date-time", "\"1998-12-31T23:58:60Z\"", false }, { "uuid", "\"2eb8aa08-aa98-11ea-b4aa-73b441d16380\"", true },
        { "email", "\"joe.bloggs@example.com\"", true }, { "email", "\"te..st@example.com\"", false },
        { "ipv4", "\"192.168.0.1\"", true }, { "ipv4", "\"192.168.0.01\"", false },
        { "ipv6", "\"::ffff:192.168.0.1\"", true }, { "ipv6", "\"1::2::3\"", false },
        { "hostname", "\"a-b.example\"", true }, { "hostname", "\"-a.example\"", false },
        { "uri", "\"http://example.com/a?b#c\"", true }, { "uri", "\"/relative\"", false },
        { "int32", "-2147483648", true }, { "int32", "-2147483649", false },
        { "int32", "\"not a number\"", true }, { "whatever", "1", true },
    };
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++) {
        json_object *v = J(t[i].val);
        ck_assert_msg(koa_format_check(koa_format_lookup(t[i].fmt), v) == t[i].ok,
                      "%s %s", t[i].fmt, t[i].val);
        json_object_put(v);
    }
}
END_TEST

START_TEST(test_numbers_exact)
{
    struct koa_num a, b;
    json_object *x = J("18446744073709551615"), *y = J("1.8446744073709552e19"),
                *z = J("9007199254740993"), *w = J("9007199254740992.0");
    koa_num_get(x, &a);
    koa_num_get(y, &b);
    ck_assert_int_eq(koa_num_cmp(&a, &b), -1); /* 2^64-1 < 2^64 */
    koa_num_get(z, &a);
    koa_num_get(w, &b);
    ck_assert_int_eq(koa_num_cmp(&a, &b), 1);  /* 2^53+1 > 2^53 */
    ck_assert(!koa_json_equal(z, w));
    json_object_put(x);
    json_object_put(y);
    json_object_put(z);
    json_object_put(w);
    C30("{\"maximum\": 9007199254740992}", "9007199254740993",
        "9007199254740993 is greater than the maximum of 9007199254740992@");
    C30("{\"enum\": [18446744073709551615]}", "18446744073709551615", "");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("openapi_schema");
    TCase *tc = tcase_create("schema");
    tcase_add_test(tc, test_repr);
    tcase_add_test(tc, test_messages_oas30);
    tcase_add_test(tc, test_oas30_load_errors);
    tcase_add_test(tc, test_refs_and_recursion);
    tcase_add_test(tc, test_oas31);
    tcase_add_test(tc, test_discriminator);
    tcase_add_test(tc, test_regex_ecma);
    tcase_add_test(tc, test_formats);
    tcase_add_test(tc, test_numbers_exact);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
