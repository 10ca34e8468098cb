/* host/core/hostimpl.h - the inside of kh_host, for the core's own files only
 * (store and event modules go through host.h). */
#ifndef KH_HOSTIMPL_H
#define KH_HOSTIMPL_H

#include "core/host.h"
#include "napps/napp.h"
#include "http/request.h"
#include "http/router.h"
#include "util/workpool.h"
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>

#define KH_MAX_ROUTE_POOLS 8

struct kh_record {              /* one file seen in the napps directory */
    char *file;
    char id[130];
    char version[64];
    char state[16];             /* enabled, refused, waiting, disabled, unloaded */
    char reason[512];
    struct kh_record *next;
};

struct kh_http;
struct kh_watcher;

struct kh_host {
    kh_config *config;
    kh_router *router;
    kh_store *store;
    kh_bus *bus;
    kh_sb *sb;                  /* the OpenFlow server (southbound/) */
    kh_workpool *api_pool;
    struct {
        char name[32];
        kh_workpool *pool;
    } pools[KH_MAX_ROUTE_POOLS];
    size_t npools;
    pthread_mutex_t pools_mu;

    pthread_mutex_t load_mu;    /* one load/unload at a time */
    pthread_mutex_t reg_mu;     /* napps list and records */
    pthread_cond_t refs_cv;     /* a NApp being unloaded lost a reference */
    kytos_napp *napps;          /* enabled NApps in load order */
    kytos_napp *crashed;        /* faulted NApps, kept mapped until the host goes */
    struct kh_record *records;
    uint64_t generation;
    struct json_object *disabled; /* ids disabled through the REST API */

    struct kh_route *core_routes;
    char napps_dir[PATH_MAX];
    char data_dir[PATH_MAX];
    int own_data_dir;           /* test host: remove at free */

    /* limits */
    int64_t concurrency_limit;  /* in-flight requests, 0 = none */
    size_t max_body;
    unsigned handler_timeout_ms;
    int traceback_on_500;
    int json_500;
    unsigned rate_limit;        /* requests/second per client, 0 = off */
    unsigned client_v6_prefix;  /* api_ipv6_client_prefix (client_group.h) */
    int shutdown_timeout_ms;

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
    /* the HTTP server has stopped: an answer finished later (a handler past
     * shutdown_timeout_ms) must not resume its connection, which
     * libmicrohttpd has freed; http_resuming: resumes under way */
    atomic_int http_stopped, http_resuming;
    atomic_int_fast64_t in_flight;
    int64_t started_at;
    atomic_int running, stopping, draining;

    /* handler deadlines */
    pthread_t watchdog;
    int watchdog_started;
    pthread_mutex_t watch_mu;
    pthread_cond_t watch_cv;
    kytos_req *watch_head;
    int watch_stop;

    struct kh_http *http;
    struct kh_watcher *watcher;
    struct kh_ratelimit *ratelimit;

    /* test host: observe every published event */
    void (*observer)(void *ud, const char *name, struct json_object *content);
    void *observer_ud;
};

/* host.c */
kh_host *kh_host_new(kh_config *cfg, const char *data_dir, char *err, size_t errlen);
int kh_host_start(kh_host *h);          /* bus start, NApp start hooks */
void kh_host_stop(kh_host *h);          /* NApps down, bus down */
void kh_host_free(kh_host *h);
kh_workpool *kh_host_pool(kh_host *h, const char *name);
int64_t kh_now_ms(void);
int64_t kh_mono_ns(void);
struct json_object *kh_host_status(kh_host *h);

/* dispatch.c: the transport-neutral request pipeline */
/* After the target is set: route it.  0 = routed (or an error response is
 * set: check r->status). */
void kh_dispatch_route(kytos_req *r);
/* Body complete: checks, then run (inline or on the pool).  The transport's
 * complete() is called once the response is final (maybe before return). */
void kh_dispatch_run(kytos_req *r);
/* Shutting down: every request still waiting for its handler (queued,
 * running or deferred) is answered status now, as the watchdog answers
 * 504; the handler's own answer, if it comes later, is dropped. */
void kh_dispatch_answer_all(kh_host *h, unsigned status, const char *why);
/* In-process request (kytos_call, test host).  Blocks until answered. */
int kh_call(kh_host *h, kytos_napp *caller, const char *method, const char *target,
            const char *body, size_t len, const char *const *headers, int use_pool,
            kytos_response **out);
int kh_watchdog_start(kh_host *h);
void kh_watchdog_stop(kh_host *h);
unsigned kh_response_status(const kytos_response *r);
const char *kh_response_body(const kytos_response *r, size_t *len);
struct json_object *kh_response_json(kytos_response *r);
const char *kh_response_header(const kytos_response *r, const char *name);
void kh_response_free(kytos_response *r);

/* core_api.c, metrics.c */
int kh_core_api_register(kh_host *h);
int kh_metrics_register(kh_host *h);

/* validate.c: OpenAPI binding */
int kh_validate_compile(kytos_napp *n, char *err, size_t errlen);
int kh_validate_bind(kytos_napp *n, char *err, size_t errlen);
void kh_validate_free(kytos_napp *n);
/* Run the route's checks: 0 to go on, else a response is set. */
int kh_validate_request(kytos_req *r);

/* api_table.c */
void kh_api_table_init(void);

/* ---- shed.c: the overload governor ---- */
void kh_shed_init(kh_host *h);
/* Every ~50 ms (watchdog thread): adjust the shed probability. */
void kh_shed_tick(kh_host *h);
/* 1: answer this new request 503 now (the process is saturated). */
int kh_shed_now(kh_host *h);
/* 1 when the last tick found the CPU nearly all used (and shedding is on). */
int kh_shed_saturated(kh_host *h);
/* An admitted request was answered after lat_ns. */
void kh_shed_observe(kh_host *h, int64_t lat_ns);
struct json_object *kh_shed_status(kh_host *h);

#endif
