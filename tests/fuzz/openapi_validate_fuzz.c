/* tests/fuzz/openapi_validate_fuzz.c - libFuzzer target: request
 * validation against compiled specs (3.0 and 3.1) covering the keywords
 * Kytos specs use.  Input: byte 0 picks the operation and the content
 * type, then the query string up to the first newline, then the body. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kytos/openapi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static const char SPEC30[] =
    "openapi: 3.0.3\n"
    "info: {title: fuzz, version: '1'}\n"
    "servers: [{url: /api/kytos/fuzz}]\n"
    "paths:\n"
    "  /v2/evc/{id}:\n"
    "    post:\n"
    "      parameters:\n"
    "        - {name: id, in: path, required: true, schema: {type: string, pattern: '^[0-9a-f]+$'}}\n"
    "        - {name: n, in: query, schema: {type: integer, minimum: -1, maximum: 7, format: int32}}\n"
    "        - {name: f, in: query, schema: {type: number, multipleOf: 0.5}}\n"
    "        - {name: b, in: query, schema: {type: boolean}}\n"
    "        - {name: a, in: query, schema: {type: array, items: {type: integer}, uniqueItems: true}}\n"
    "        - {name: c, in: query, explode: false, schema: {type: array, items: {type: string, maxLength: 3}}}\n"
    "        - {name: o, in: query, style: deepObject, schema: {type: object, additionalProperties: {type: string}}}\n"
    "        - {name: m, in: query, schema: {oneOf: [{type: string}, {type: integer}]}}\n"
    "      requestBody:\n"
    "        required: true\n"
    "        content:\n"
    "          application/json: {schema: {$ref: '#/components/schemas/Circuit'}}\n"
    "      responses: {'200': {description: ok}}\n"
    "  /v2/pets:\n"
    "    put:\n"
    "      requestBody:\n"
    "        content:\n"
    "          application/json: {schema: {$ref: '#/components/schemas/Pet'}}\n"
    "          text/plain: {schema: {type: string, format: date-time}}\n"
    "      responses: {'200': {description: ok}}\n"
    "components:\n"
    "  schemas:\n"
    "    Circuit:\n"
    "      type: object\n"
    "      required: [name, uni_a]\n"
    "      additionalProperties: false\n"
    "      properties:\n"
    "        name: {type: string, minLength: 1, maxLength: 20}\n"
    "        uni_a: {$ref: '#/components/schemas/Endpoint'}\n"
    "        uni_z: {$ref: '#/components/schemas/Endpoint'}\n"
    "        queue_id: {type: integer, nullable: true, minimum: -1, maximum: 7}\n"
    "        cookie: {type: integer, format: int64}\n"
    "        start: {type: string, format: date-time}\n"
    "        ip: {type: string, format: ipv4}\n"
    "        id: {type: string, readOnly: true}\n"
    "        bw: {type: number, exclusiveMinimum: true, minimum: 0}\n"
    "        tags: {type: array, maxItems: 5, items: {$ref: '#/components/schemas/Tag'}}\n"
    "        next: {$ref: '#/components/schemas/Circuit'}\n"
    "        meta: {type: object, maxProperties: 3}\n"
    "        any: {not: {type: boolean}}\n"
    "        all: {allOf: [{minimum: 1}, {multipleOf: 3}]}\n"
    "    Endpoint:\n"
    "      type: object\n"
    "      required: [interface_id]\n"
    "      properties:\n"
    "        interface_id: {type: string, pattern: '^([0-9A-Fa-f]{2}[:-]){8}(\\d{1,5})$'}\n"
    "        tag: {$ref: '#/components/schemas/Tag'}\n"
    "    Tag:\n"
    "      type: object\n"
    "      properties:\n"
    "        tag_type: {enum: [vlan, 1]}\n"
    "        value: {oneOf: [{type: integer}, {type: string, enum: [any, untagged]},\n"
    "                        {type: array, minItems: 1, items: {type: array, items: {type: integer}}}]}\n"
    "    Pet:\n"
    "      oneOf: [{$ref: '#/components/schemas/Cat'}, {$ref: '#/components/schemas/Dog'}]\n"
    "      discriminator: {propertyName: kind}\n"
    "    Cat: {type: object, properties: {kind: {type: string}, claws: {type: integer}}}\n"
    "    Dog: {type: object, properties: {kind: {type: string}, bark: {type: boolean}}}\n";

static const char SPEC31[] =
    "{\"openapi\": \"3.1.0\", \"info\": {\"title\": \"f\", \"version\": \"1\"},"
    " \"paths\": {\"/api/kytos/f/v2/flows\": {\"post\": {\"requestBody\": {\"content\":"
    " {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Body\"}}}}}}},"
    " \"components\": {\"schemas\": {\"Body\": {\"type\": \"object\", \"properties\": {"
    "  \"flows\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/components/schemas/Flow\"}, \"contains\": {\"required\": [\"cookie\"]}},"
    "  \"tuple\": {\"prefixItems\": [{\"type\": \"integer\"}, {\"type\": [\"string\", \"null\"]}], \"items\": false},"
    "  \"c\": {\"const\": {\"a\": [1, 2.0]}},"
    "  \"dep\": {\"dependentRequired\": {\"a\": [\"b\"]}, \"dependentSchemas\": {\"b\": {\"minProperties\": 2}},"
    "           \"propertyNames\": {\"pattern\": \"^[a-z]+$\"}},"
    "  \"cond\": {\"if\": {\"type\": \"integer\"}, \"then\": {\"exclusiveMaximum\": 10}, \"else\": {\"type\": \"string\"}}},"
    " \"patternProperties\": {\"^x-\": {\"type\": \"string\"}}, \"additionalProperties\": false},"
    " \"Flow\": {\"type\": \"object\", \"properties\": {\"cookie\": {\"type\": \"integer\", \"minimum\": 0},"
    "  \"priority\": {\"type\": \"integer\", \"maximum\": 65535}, \"match\": {\"type\": \"object\"},"
    "  \"next\": {\"$ref\": \"#/components/schemas/Flow\"}}}}}}";

static kytos_openapi_spec *specs[2];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    struct kytos_openapi_options o = { .struct_size = sizeof o, .max_errors = 16,
                                       .regex_match_limit = 100000 };
    (void)argc;
    (void)argv;
    specs[0] = kytos_openapi_load(SPEC30, sizeof SPEC30 - 1, "fuzz30", &o, NULL);
    specs[1] = kytos_openapi_load(SPEC31, sizeof SPEC31 - 1, "fuzz31", &o, NULL);
    if (!specs[0] || !specs[1])
        abort();
    return 0;
}

static const char *const ctypes[] = { "application/json", "text/plain",
                                      "application/json; charset=utf-8", NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kytos_openapi_request rq;
    struct kytos_openapi_result res;
    const kytos_openapi_op *op;
    kytos_openapi_spec *s;
    const uint8_t *nl;
    uint8_t sel;
    char *query = NULL;
    size_t nops;
    int st;
    static const char *const pp[2] = { "id", "abc123" };

    if (size < 1)
        return 0;
    sel = data[0];
    s = specs[sel & 1];
    nops = kytos_openapi_op_count(s);
    op = kytos_openapi_op_at(s, (data[0] >> 1) % nops);
    memset(&rq, 0, sizeof rq);
    rq.struct_size = sizeof rq;
    rq.content_type = ctypes[(data[0] >> 4) & 3];
    data++;
    size--;
    nl = memchr(data, '\n', size < 512 ? size : 512);
    if (nl) {
        query = malloc((size_t)(nl - data) + 1);
        if (!query)
            return 0;
        memcpy(query, data, (size_t)(nl - data));
        query[nl - data] = '\0';
        size -= (size_t)(nl - data) + 1;
        data = nl + 1;
    }
    rq.query = query;
    if (sel & 0x40) {
        rq.path_params = pp;
        rq.n_path_params = 1;
    } else {
        rq.path = "/api/kytos/fuzz/v2/evc/%61%62";
    }
    rq.body = data;
    rq.body_len = size;
    st = kytos_openapi_validate(op, &rq, &res);
    if (st != 0 && !res.error)
        __builtin_trap();
    if (st == 0 && res.error)
        __builtin_trap();
    kytos_openapi_result_clear(&res);
    free(query);
    return 0;
}
