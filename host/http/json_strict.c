/* host/http/json_strict.c - strict JSON for bodies of routes without an OpenAPI
 * binding, and for kytos_call answers: libkytos-openapi's strict reader
 * (no NaN, no single quotes, no garbage, exact uint64), whose messages are
 * shaped like Python's json module (what Kytos answers after
 * "Invalid json: "). */
#include "http/request.h"
#include <kytos/openapi.h>
#include <stdio.h>

int kh_json_parse_strict(const char *text, size_t len, struct json_object **out, char *err,
                         size_t errlen)
{
    struct kytos_openapi_options opts = {.struct_size = sizeof opts, .max_body_bytes = len + 1};

    *out = NULL;
    return kytos_openapi_json_parse(text, len, &opts, out, err, errlen) == 0 ? 0 : -1;
}
