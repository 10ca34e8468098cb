/* kytos/http.h - routes, requests, responses and in-process calls.
 *
 * Ownership: every pointer a request accessor returns is borrowed and valid
 * until the response is sent (the handler returned, or kytos_req_finish for
 * a deferred request).  Copy strings, or json_object_get() JSON, to keep them.
 * kytos_resp_json borrows its body (it is serialised at the call).
 *
 * Handlers return KYTOS_OK after setting a response, KYTOS_DEFERRED to
 * answer later from any thread with kytos_resp_* then kytos_req_finish
 * (exactly once), or a negative status: the host answers 500.
 * A handler that returns KYTOS_OK without a response gives a 500 as well.
 * Past the route's deadline the host answers 504; a late finish is dropped.
 */
#ifndef KYTOS_HTTP_H
#define KYTOS_HTTP_H

#include "api.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef KYTOS_HOST
/* Register a route; init only.  Strings are copied. */
static inline int kytos_route_add(kytos_napp *n, const struct kytos_route *r)
{
    return kytos__api->route_add(n, r);
}

static inline const char *kytos_req_method(const kytos_req *r) { return kytos__api->req_method(r); }
static inline const char *kytos_req_path(const kytos_req *r) { return kytos__api->req_path(r); }
/* A path parameter ({name} in the template), percent-decoded; NULL if none. */
static inline const char *kytos_req_param(const kytos_req *r, const char *name)
{
    return kytos__api->req_param(r, name);
}
/* Typed forms: KYTOS_OK, KYTOS_ENOTFOUND, or KYTOS_EINVAL if it does not parse. */
static inline int kytos_req_param_int(const kytos_req *r, const char *name, int64_t *out)
{
    return kytos__api->req_param_int(r, name, out);
}
static inline int kytos_req_param_double(const kytos_req *r, const char *name, double *out)
{
    return kytos__api->req_param_double(r, name, out);
}
/* First value of a query parameter, decoded; NULL if absent. */
static inline const char *kytos_req_query(const kytos_req *r, const char *name)
{
    return kytos__api->req_query(r, name);
}
/* All values of a repeated query parameter; returns how many there are.
 * With name NULL: every parameter's name, in order (for prefix filters such
 * as mef_eline's metadata.*). */
static inline size_t kytos_req_query_all(const kytos_req *r, const char *name,
                                         const char **out, size_t max)
{
    return kytos__api->req_query_all(r, name, out, max);
}
/* A query parameter coerced to its OpenAPI type (validated routes), else NULL. */
static inline struct json_object *kytos_req_query_json(const kytos_req *r, const char *name)
{
    return kytos__api->req_query_json(r, name);
}
/* A request header (name case-insensitive), NULL if absent.  The value is
 * the request's: valid until the request is freed, from any thread.  After
 * the request was answered without its handler (a 504 past the deadline, a
 * shutdown's 503) only headers already looked up are found. */
/* Who is calling (ABI 1.5; docs/auth.md): 1 when the request carried a
 * token kytosd checked (its route needed one), then *user is the username
 * ("" for a machine token), *token_id the machine token's id ("" for a
 * user's token), *role "admin" or "viewer"; 0 otherwise (all ""), or on a
 * host older than 1.5.  Any out pointer may be NULL; the strings live as
 * long as the request. */
static inline int kytos_req_identity(const kytos_req *r, const char **user, const char **token_id,
                                     const char **role)
{
    if (!KYTOS_API_HAS(req_identity)) {
        if (user)
            *user = "";
        if (token_id)
            *token_id = "";
        if (role)
            *role = "";
        return 0;
    }
    return kytos__api->req_identity(r, user, token_id, role);
}
static inline const char *kytos_req_header(const kytos_req *r, const char *name)
{
    return kytos__api->req_header(r, name);
}
static inline const void *kytos_req_body(const kytos_req *r, size_t *len)
{
    return kytos__api->req_body(r, len);
}
/* The parsed (and, on validated routes, checked) JSON body, or NULL. */
static inline struct json_object *kytos_req_json(const kytos_req *r) { return kytos__api->req_json(r); }
static inline void *kytos_req_alloc(kytos_req *r, size_t n) { return kytos__api->req_alloc(r, n); }
static inline kytos_napp *kytos_req_napp(const kytos_req *r) { return kytos__api->req_napp(r); }

static inline int kytos_resp_json(kytos_req *r, unsigned status, struct json_object *body)
{
    return kytos__api->resp_json(r, status, body);
}
/* Like kytos_resp_json, then json_object_put(body). */
static inline int kytos_resp_json_take(kytos_req *r, unsigned status, struct json_object *body)
{
    int rc = kytos__api->resp_json(r, status, body);
    json_object_put(body);
    return rc;
}
static inline int kytos_resp_raw(kytos_req *r, unsigned status, const char *content_type,
                                 const void *data, size_t len)
{
    return kytos__api->resp_raw(r, status, content_type, data, len);
}
/* Zero copy: data stays the NApp's until the host calls release(ud) (any
 * thread), after the bytes were sent.  For cached, immutable bodies (GET
 * topology/v3); release may be NULL for data that lives forever. */
static inline int kytos_resp_static(kytos_req *r, unsigned status, const char *content_type,
                                    const void *data, size_t len, void (*release)(void *ud), void *ud)
{
    return kytos__api->resp_static(r, status, content_type, data, len, release, ud);
}
/* Kytos' error body {"description": <formatted>, "code": status}. Returns KYTOS_OK. */
static inline int kytos_resp_error(kytos_req *r, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int kytos_resp_error(kytos_req *r, unsigned status, const char *fmt, ...)
{
    va_list ap;
    int rc;
    va_start(ap, fmt);
    rc = kytos__api->resp_errorv(r, status, fmt, ap);
    va_end(ap);
    return rc;
}
static inline int kytos_resp_header(kytos_req *r, const char *name, const char *value)
{
    return kytos__api->resp_header(r, name, value);
}
static inline int kytos_req_finish(kytos_req *r) { return kytos__api->req_finish(r); }

/* In-process request to any route (full path, query allowed), through the
 * same router and OpenAPI checks, no socket.  A body is sent as
 * application/json.  Runs inline on the calling thread, so it cannot
 * deadlock on a busy pool.  *out belongs to the caller
 * (kytos_response_free).  Returns KYTOS_OK when a response was produced,
 * whatever its status. */
static inline int kytos_call(kytos_napp *caller, const char *method, const char *path,
                             const char *body, size_t len, kytos_response **out)
{
    return kytos__api->call(caller, method, path, body, len, out);
}
static inline int kytos_call_json(kytos_napp *caller, const char *method, const char *path,
                                  struct json_object *body, kytos_response **out)
{
    size_t len = 0;
    const char *text = body ? json_object_to_json_string_length(body, JSON_C_TO_STRING_PLAIN, &len)
                            : NULL;
    return kytos__api->call(caller, method, path, text, len, out);
}
/* kytos_call_json giving the tree instead of its text (ABI 1.6): body is
 * taken, whatever the result, and must share nothing with what another
 * thread may touch (the callee may keep parts of it).  A route that reads
 * its body itself (KYTOS_ROUTE_RAW_BODY, not checked against the spec)
 * finds it as kytos_req_json, and its text only if it asks
 * (kytos_req_body); any other route gets the text, as kytos_call_json
 * sends it.  On an older host the text is sent. */
static inline int kytos_call_give(kytos_napp *caller, const char *method, const char *path,
                                  struct json_object *body, kytos_response **out)
{
    int rc;
    if (KYTOS_API_HAS(call_give))
        return kytos__api->call_give(caller, method, path, body, out);
    rc = kytos_call_json(caller, method, path, body, out);
    json_object_put(body);
    return rc;
}
static inline unsigned kytos_response_status(const kytos_response *r)
{
    return kytos__api->response_status(r);
}
static inline const char *kytos_response_body(const kytos_response *r, size_t *len)
{
    return kytos__api->response_body(r, len);
}
static inline struct json_object *kytos_response_json(kytos_response *r)
{
    return kytos__api->response_json(r);
}
static inline const char *kytos_response_header(const kytos_response *r, const char *name)
{
    return kytos__api->response_header(r, name);
}
static inline void kytos_response_free(kytos_response *r) { kytos__api->response_free(r); }
#endif /* KYTOS_HOST */

#ifdef __cplusplus
}
#endif

#endif
