/* host/http/dispatch.h - the transport-neutral request pipeline
 * (dispatch.c), in-process requests, the handler watchdog, and the OpenAPI
 * checks (validate.c).  Everything takes the front door's context
 * (http_ctx.h), never the host. */
#ifndef KH_DISPATCH_H
#define KH_DISPATCH_H

#include "http/http_ctx.h"
#include "http/request.h"

/* After the target is set: route it.  0 = routed (or an error response is
 * set: check r->status). */
void kh_dispatch_route(kytos_req *r);
/* Body complete: checks, then run (inline or on the pool).  The transport's
 * complete() is called once the response is final (maybe before return). */
void kh_dispatch_run(kytos_req *r);
/* Shutting down: every request still waiting for its handler (queued,
 * running or deferred) is answered status now, as the watchdog answers
 * 504; the handler's own answer, if it comes later, is dropped.  mine
 * (NULL: every request) picks the ones to answer (one server's). */
void kh_dispatch_answer_all(struct kh_http_ctx *h, unsigned status, const char *why,
                            int (*mine)(const kytos_req *r, void *ud), void *ud);
/* In-process request (kytos_call, test host).  Blocks until answered. */
int kh_call(struct kh_http_ctx *h, kytos_napp *caller, const char *method, const char *target,
            const char *body, size_t len, const char *const *headers, int use_pool,
            kytos_response **out);
/* kh_call with the body as a json-c tree, taken (the caller's reference):
 * a route that reads its body itself (KYTOS_ROUTE_RAW_BODY) gets the tree
 * as kytos_req_json, and its text only if it asks; any other route gets
 * the text, as from kh_call. */
int kh_call_give(struct kh_http_ctx *h, kytos_napp *caller, const char *method,
                 const char *target, struct json_object *body, const char *const *headers,
                 kytos_response **out);
int kh_watchdog_start(struct kh_http_ctx *h);
void kh_watchdog_stop(struct kh_http_ctx *h);
unsigned kh_response_status(const kytos_response *r);
const char *kh_response_body(const kytos_response *r, size_t *len);
struct json_object *kh_response_json(kytos_response *r);
const char *kh_response_header(const kytos_response *r, const char *name);
void kh_response_free(kytos_response *r);

/* validate.c: OpenAPI binding.  max_body: api_max_body, the cap the
 * compiled spec enforces. */
int kh_validate_compile(kytos_napp *n, size_t max_body, char *err, size_t errlen);
int kh_validate_bind(kytos_napp *n, char *err, size_t errlen);
/* One route, as route_add registers it: -1 with err naming the route when it
 * asks for validation and the spec cannot give it (no spec, no operation). */
int kh_validate_route(const kytos_napp *n, const struct kh_route *rt, char *err, size_t errlen);
void kh_validate_free(kytos_napp *n);
/* Run the route's checks: 0 to go on, else a response is set. */
int kh_validate_request(kytos_req *r);

#endif
