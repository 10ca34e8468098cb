/* plugins/flow_manager/req_util.c - body checks as Kytos' helpers do them. */
#include "req_util.h"

#include <string.h>
#include <strings.h>

/* One of the ';'-separated parts of the header is exactly application/json. */
static int is_json_ctype(const char *ct)
{
    while (ct && *ct) {
        const char *end = strchr(ct, ';');
        size_t n = end ? (size_t)(end - ct) : strlen(ct);
        while (n && (*ct == ' ' || *ct == '\t'))
            ct++, n--;
        while (n && (ct[n - 1] == ' ' || ct[n - 1] == '\t'))
            n--;
        if (n == 16 && strncasecmp(ct, "application/json", 16) == 0)
            return 1;
        ct = end ? end + 1 : NULL;
    }
    return 0;
}

int fm_req_body_json(kytos_req *req, struct json_object **out)
{
    const char *ct = kytos_req_header(req, "Content-Type");
    size_t len = 0;
    struct json_object *j;
    const char *body;

    if (!is_json_ctype(ct)) {
        kytos_resp_error(req, 415, "Expected Content-Type: application/json, got: %s",
                         ct ? ct : "None");
        return -1;
    }
    *out = NULL;
    body = kytos_req_body(req, &len);
    j = kytos_req_json(req);
    if (len == 0) {
        kytos_resp_error(req, 400, "Invalid json: Expecting value: line 1 column 1 (char 0)");
        return -1;
    }
    if (j == NULL) {
        /* the host parses every body; NULL here should be the literal null */
        while (len && (*body == ' ' || *body == '\t' || *body == '\r' || *body == '\n'))
            body++, len--;
        if (len >= 4 && strncmp(body, "null", 4) == 0)
            return 0;
        kytos_resp_error(req, 400, "Invalid json: could not parse the body");
        return -1;
    }
    *out = j;
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

int fm_resp_dpid_not_found(kytos_req *req)
{
    static const char body[] = "{\"description\":{\"response\":\"dpid not found.\"},\"code\":404}";
    return kytos_resp_raw(req, 404, "application/json", body, sizeof body - 1);
}
