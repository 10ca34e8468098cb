/* plugins/flow_manager/req_util.h - Kytos' request helpers for the routes
 * that are not OpenAPI-validated (flow_manager validates in code). */
#ifndef FM_REQ_UTIL_H
#define FM_REQ_UTIL_H

#include <kytos/kytos.h>

/* content_type_json_or_415 + get_json_or_400 on a route registered with
 * KYTOS_ROUTE_RAW_BODY: 0 with *out the parsed body (a new reference for
 * the caller to put; NULL for the literal null), or -1 after answering 415
 * or 400 "Invalid json: <Python's json message>".  Integers beyond uint64
 * are read (as Python does) and kept as doubles that remember their text
 * (fm_py_is_bignum), so a handler can answer for them as Kytos does. */
int fm_req_body_json(kytos_req *req, struct json_object **out);
/* The same reading of body[0..len) without answering: 0, or -1 and err. */
int fm_json_parse_body(const char *body, size_t len, struct json_object **out, char *err,
                       size_t errlen);

/* Python truthiness of a JSON value (bool(x)). */
int fm_json_truthy(struct json_object *v);

/* Values lo..hi, inclusive (cookie_range filters, ignored ranges). */
struct fm_range {
    uint64_t lo, hi;
};

/* Is x in one of r[0..n)? */
int fm_in_ranges(const struct fm_range *r, size_t n, uint64_t x);

/* Answer 404 {"description": {"response": "dpid not found."}, "code": 404}. */
int fm_resp_dpid_not_found(kytos_req *req);

#endif
