/* host/http/req_api.h - requests as handlers see them (same semantics as the
 * kytos_api slots); implemented by host/http/request.c and dispatch.c. */
#ifndef KH_REQ_API_H
#define KH_REQ_API_H

#include "util/base.h"

const char *kh_req_method(const kytos_req *req);
const char *kh_req_path(const kytos_req *req);
const char *kh_req_param(const kytos_req *req, const char *name);
int kh_req_param_int(const kytos_req *req, const char *name, int64_t *out);
int kh_req_param_double(const kytos_req *req, const char *name, double *out);
const char *kh_req_query(const kytos_req *req, const char *name);
size_t kh_req_query_all(const kytos_req *req, const char *name, const char **out, size_t max);
struct json_object *kh_req_query_json(const kytos_req *req, const char *name);
const char *kh_req_header(const kytos_req *req, const char *name);
const void *kh_req_body(const kytos_req *req, size_t *len);
struct json_object *kh_req_json(const kytos_req *req);
void *kh_req_alloc(kytos_req *req, size_t n);
kytos_napp *kh_req_napp(const kytos_req *req);
int kh_resp_json(kytos_req *req, unsigned status, struct json_object *body);
int kh_resp_raw(kytos_req *req, unsigned status, const char *ctype, const void *data, size_t len);
int kh_resp_errorv(kytos_req *req, unsigned status, const char *fmt, va_list ap);
int kh_resp_error(kytos_req *req, unsigned status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int kh_resp_header(kytos_req *req, const char *name, const char *value);
int kh_req_finish(kytos_req *req);
int kh_req_identity(const kytos_req *req, const char **user, const char **token_id, const char **role);

#endif
