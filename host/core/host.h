/* host/core/host.h - the host object every module hangs off, and the internal
 * face of NApps and requests.
 *
 * One kh_host runs in kytosd; the test host (libkytos-test) builds another
 * without the HTTP server.  For host/core and host/napps only: the lower
 * layers (util, events, store, http) include util/base.h and get what they
 * need from the host when it creates them (tests/host/check_layers.sh). */
#ifndef KH_HOST_H
#define KH_HOST_H

#include "util/base.h"
#include "http/req_api.h"

typedef struct kh_host kh_host;
typedef struct kh_sb kh_sb;

/* ---- the host ---- */
kh_store *kh_host_store(const kh_host *h);
kh_bus *kh_host_bus(const kh_host *h);
/* The switch-facing server (host/southbound/southbound.h); never NULL. */
kh_sb *kh_host_sb(const kh_host *h);
/* The function table handed to every NApp (filled once). */
const struct kytos_api *kh_host_api(void);
/* Tests: from now on kh_host_api() gives the table of ABI 1.minor, as an
 * older host would (smaller struct_size, abi_minor = minor), so the loader
 * also refuses NApps needing more; minor < 0 or the current minor: the full
 * table again.  Process-wide.  KYTOS_OK, or KYTOS_EINVAL for a future minor. */
int kh_host_api_emulate(int minor);
/* A NApp's ABI (its major, its minimum minor) against the table
 * kh_host_api() gives: KYTOS_OK, or KYTOS_ENOTSUP with the reason (naming
 * both versions) in err.  kh_desc_check_abi: the same for a descriptor. */
int kh_abi_check(unsigned major, unsigned min_minor, char *err, size_t errlen);
int kh_desc_check_abi(const struct kytos_napp_desc *d, char *err, size_t errlen);
/* The length of the descriptor's OpenAPI text (0 when it has none). */
size_t kh_desc_openapi_len(const struct kytos_napp_desc *d);

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


#endif
