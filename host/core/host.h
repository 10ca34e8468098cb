/* host/core/host.h - the host object every module hangs off, and the internal
 * face of NApps and requests.
 *
 * One kh_host runs in kytosd; the test host (libkytos-test) builds another
 * without the HTTP server.  Host code includes <kytos/...> with KYTOS_HOST
 * defined, so the NApp-side inline wrappers are not compiled here; host
 * modules call the kh_* functions below instead. */
#ifndef KH_HOST_H
#define KH_HOST_H

#ifndef KYTOS_HOST
#define KYTOS_HOST 1
#endif
#include <kytos/kytos.h>
#include <stdarg.h>
#include "util/conf.h"

typedef struct kh_host kh_host;
typedef struct kh_store kh_store;
typedef struct kh_bus kh_bus;
typedef struct kh_sb kh_sb;

/* ---- the host ---- */
kh_store *kh_host_store(const kh_host *h);
kh_bus *kh_host_bus(const kh_host *h);
/* The switch-facing server (host/southbound/southbound.h); never NULL. */
kh_sb *kh_host_sb(const kh_host *h);
const kh_config *kh_host_config(const kh_host *h);
/* The function table handed to every NApp (filled once). */
const struct kytos_api *kh_host_api(void);

/* Register a core route at a full path ("/api/kytos/core/dead_letter/").
 * Same handler signature and rules as NApp routes.  Before the server runs. */
int kh_host_core_route(kh_host *h, const char *method, const char *path,
                       kytos_handler handler, void *ud, unsigned flags);

/* ---- NApps (internal face of kytos_napp) ---- */
kh_host *kh_napp_host(const kytos_napp *n);
const char *kh_napp_id(const kytos_napp *n);        /* "user/name" */
const char *kh_napp_logger(const kytos_napp *n);    /* "kytos.napps.user/name" */
/* Hold a NApp's code mapped while something may run in it. */
void kh_napp_ref(kytos_napp *n);
void kh_napp_unref(kytos_napp *n);
/* False once the NApp began unloading: do not start new work in it. */
int kh_napp_is_active(const kytos_napp *n);
/* True once its init returned and until it begins unloading. */
int kh_napp_is_enabled(const kytos_napp *n);
/* An address inside the NApp's object (for dladdr). */
const void *kh_napp_desc_addr(const kytos_napp *n);
/* The NApp faulted in its own code (see guard.h): take it out of service
 * now, without calling into it again.  Safe from any thread. */
void kh_napp_crashed(kytos_napp *n, const char *where);

/* ---- requests (same semantics as the kytos_api slots) ---- */
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
kh_host *kh_req_host(const kytos_req *req);
int kh_resp_json(kytos_req *req, unsigned status, struct json_object *body);
int kh_resp_raw(kytos_req *req, unsigned status, const char *ctype, const void *data, size_t len);
int kh_resp_errorv(kytos_req *req, unsigned status, const char *fmt, va_list ap);
int kh_resp_error(kytos_req *req, unsigned status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int kh_resp_header(kytos_req *req, const char *name, const char *value);
int kh_req_finish(kytos_req *req);

/* Fill a kytos_error (err may be NULL); returns code. */
int kh_error_set(struct kytos_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *kh_strerror(int status);

#endif
