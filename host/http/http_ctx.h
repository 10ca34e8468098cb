/* host/http/http_ctx.h - everything the REST front door needs, handed to it
 * when the host creates it (host/core/host.c): the router, the API pool,
 * the limits read from kytos.conf, the counters status/ and /metrics show,
 * the overload governor, the handler watchdog, and how to reach NApps.
 * Requests point at it (kytos_req.ctx); nothing under host/http/ reaches
 * the host object. */
#ifndef KH_HTTP_CTX_H
#define KH_HTTP_CTX_H

#include "util/base.h"
#include "http/router.h"
#include "util/workpool.h"
#include <pthread.h>
#include <stdatomic.h>

struct kh_ratelimit;
struct kh_auth;

struct kh_http_ctx {
    kh_router *router;              /* borrowed */
    kh_workpool *api_pool;          /* borrowed: routes without a pool of their own */
    const struct kh_napp_ops *napps;
    struct kh_auth *auth;           /* borrowed: step 2 of the request path, the audit */
    void *owner;                    /* the host, handed back by kh_req_host */
    /* the web UI (host/ui/ui.h), asked only for a request no route took
     * outside /api/: 1 when it answered.  NULL: no UI. */
    int (*ui_serve)(void *ui, kytos_req *r);
    void *ui;

    /* limits (conf_keys.c) */
    int64_t concurrency_limit;      /* in-flight requests, 0 = none */
    size_t max_body;
    unsigned handler_timeout_ms;
    int traceback_on_500;
    int json_500;
    unsigned rate_limit;            /* requests/second per client, 0 = off */
    unsigned client_v6_prefix;      /* api_ipv6_client_prefix (client_group.h) */
    struct kh_ratelimit *ratelimit; /* owned by the host */

    /* overload governor (shed.c) */
    struct kh_shed {
        int64_t target_ns;          /* api_shed_latency_ms, 0 = off */
        _Atomic int64_t lat_ewma_ns; /* of admitted requests, arrival to answer */
        _Atomic unsigned p;         /* shed this many per 1024 new requests */
        atomic_uint_fast64_t shed;
        int64_t last_wall_ns, last_cpu_ns;
        unsigned cpus;
        _Atomic unsigned cpu_permille; /* of the CPUs we may use, last tick */
    } shed;

    /* counters */
    atomic_uint_fast64_t served, errors_500, rejected_503, rejected_429, timeouts_504;
    atomic_uint_fast64_t reclaimed_idle;   /* idle connections closed to make room */
    /* One gate per HTTP server on this front door (HTTPS on api_port and
     * plain HTTP on api_http_port), so each stops on its own
     * (http_server.c).  stopped: an answer finished later (a handler past
     * shutdown_timeout_ms) must not resume its connection, which
     * libmicrohttpd has freed; busy: its requests handed to the pipeline
     * and not yet answered.  Here, not in the server: a late answer
     * reaches its gate after the server is freed.  http_resuming: resumes
     * under way (any server); http_running: servers not yet stopped. */
#define KH_HTTP_GATES 4
    struct kh_http_gate {
        atomic_int stopped;
        atomic_int_fast64_t busy;
    } http_gate[KH_HTTP_GATES];
    atomic_int http_gates, http_running, http_resuming;
    atomic_int_fast64_t in_flight;
    atomic_int draining;            /* shutting down: close connections after answers */

    /* handler deadlines (dispatch.c) */
    pthread_t watchdog;
    int watchdog_started;
    pthread_mutex_t watch_mu;
    pthread_cond_t watch_cv;
    kytos_req *watch_head;
    int watch_stop;
};

#endif
