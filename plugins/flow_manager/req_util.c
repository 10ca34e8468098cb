/* plugins/flow_manager/req_util.c - body checks as Kytos' helpers do them. */
#include "req_util.h"

#include <kytos/openapi.h>

#include <string.h>

/* Kytos' content_type_json_or_415: one of the ';'-separated parts of the
 * header is exactly "application/json" (no trimming, case as written). */
static int is_json_ctype(const char *ct)
{
    while (ct && *ct) {
        const char *end = strchr(ct, ';');
        size_t n = end ? (size_t)(end - ct) : strlen(ct);
        if (n == 16 && strncmp(ct, "application/json", 16) == 0)
            return 1;
        ct = end ? end + 1 : NULL;
    }
    return 0;
}

int fm_json_parse_body(const char *body, size_t len, struct json_object **out, char *err,
                       size_t errlen)
{
    struct kytos_openapi_options o = {.struct_size = sizeof o,
                                      .max_body_bytes = len + 1,
                                      .flags = KYTOS_OPENAPI_F_BIGNUM_AS_DOUBLE};

    *out = NULL;
    return kytos_openapi_json_parse(body, len, &o, out, err, errlen) == 0 ? 0 : -1;
}

int fm_req_body_json(kytos_req *req, struct json_object **out)
{
    const char *ct = kytos_req_header(req, "Content-Type");
    size_t len = 0;
    const char *body;
    char err[300];

    *out = NULL;
    /* an in-process call that gave its body as a tree (kytos_call_give,
     * mef_eline's flows): that tree, not its text parsed again */
    if ((*out = kytos_req_json(req)) != NULL) {
        json_object_get(*out);
        return 0;
    }
    if (!is_json_ctype(ct)) {
        kytos_resp_error(req, 415, "Expected Content-Type: application/json, got: %s",
                         ct ? ct : "");
        return -1;
    }
    body = kytos_req_body(req, &len);
    if (fm_json_parse_body(body ? body : "", body ? len : 0, out, err, sizeof err) != 0) {
        kytos_resp_error(req, 400, "Invalid json: %s", err);
        return -1;
    }
    return 0;
}

int fm_json_truthy(struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null:
        return 0;
    case json_type_boolean:
        return json_object_get_boolean(v);
    case json_type_int:
        return json_object_get_int64(v) != 0 || json_object_get_uint64(v) != 0;
    case json_type_double:
        return json_object_get_double(v) != 0.0;
    case json_type_string:
        return json_object_get_string_len(v) > 0;
    case json_type_array:
        return json_object_array_length(v) > 0;
    case json_type_object:
        return json_object_object_length(v) > 0;
    }
    return 0;
}

int fm_in_ranges(const struct fm_range *r, size_t n, uint64_t x)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].lo <= x && x <= r[i].hi)
            return 1;
    return 0;
}

int fm_resp_dpid_not_found(kytos_req *req)
{
    static const char body[] = "{\"description\":{\"response\":\"dpid not found.\"},\"code\":404}";
    return kytos_resp_raw(req, 404, "application/json", body, sizeof body - 1);
}
