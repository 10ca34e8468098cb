/* plugins/flow_manager/req_util.h - Kytos' request helpers for the routes
 * that are not OpenAPI-validated (flow_manager validates in code). */
#ifndef FM_REQ_UTIL_H
#define FM_REQ_UTIL_H

#include <kytos/kytos.h>

/* content_type_json_or_415 + get_json_or_400: 0 with *out the parsed body
 * (borrowed; NULL for the literal null), or -1 after answering 415 / 400.
 * An empty body is "Invalid json: Expecting value: line 1 column 1 (char 0)". */
int fm_req_body_json(kytos_req *req, struct json_object **out);

/* Python truthiness of a JSON value (bool(x)). */
int fm_json_truthy(struct json_object *v);

/* Answer 404 {"description": {"response": "dpid not found."}, "code": 404}. */
int fm_resp_dpid_not_found(kytos_req *req);

#endif
