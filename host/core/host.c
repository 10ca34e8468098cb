/* host/core/host.c - creating, starting, stopping and freeing the host. */
#include "core/hostimpl.h"
#include "events/eventbus.h"
#include "napps/guard.h"
#include "util/log.h"
#include "http/client_group.h"
#include "http/ratelimit.h"
#include "store/store.h"
#include "southbound/southbound.h"
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOGGER "kytos.core.controller"

kh_store *kh_host_store(const kh_host *h) { return h->store; }
kh_bus *kh_host_bus(const kh_host *h) { return h->bus; }
kh_sb *kh_host_sb(const kh_host *h) { return h->sb; }

static const struct kh_napp_ops napp_ops = {
    .ref = kh_napp_ref,
    .unref = kh_napp_unref,
    .is_active = kh_napp_is_active,
    .id = kh_napp_id,
    .logger = kh_napp_logger,
    .crashed = kh_napp_crashed,
};

const struct kh_napp_ops *kh_host_napp_ops(void) { return &napp_ops; }

static int mkdir_p(const char *path)
{
    char tmp[PATH_MAX];
    char *p;
    snprintf(tmp, sizeof tmp, "%s", path);
    for (p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static unsigned pool_size(kh_config *c, const char *name, unsigned def)
{
    struct json_object *m = kh_config_get(c, "thread_pool_max_workers"), *v = NULL;
    if (m && json_object_is_type(m, json_type_object) && json_object_object_get_ex(m, name, &v) &&
        json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0)
        return json_object_get_int64(v) > 4096 ? 4096 : (unsigned)json_object_get_int64(v);
    return def;
}

kh_workpool *kh_host_pool(kh_host *h, const char *name)
{
    size_t i;
    kh_workpool *p = NULL;

    if (!name || !strcmp(name, "api"))
        return h->api_pool;
    pthread_mutex_lock(&h->pools_mu);
    for (i = 0; i < h->npools; i++)
        if (!strcmp(h->pools[i].name, name))
            p = h->pools[i].pool;
    if (!p && h->npools < KH_MAX_ROUTE_POOLS && strlen(name) < sizeof h->pools[0].name) {
        unsigned n = pool_size(h->config, name, 16);
        p = kh_workpool_new(name, n, (size_t)n * 16);
        if (p) {
            kh_workpool_set_target(p, (unsigned)kh_config_int(h->config, "api_queue_target_ms"));
            snprintf(h->pools[h->npools].name, sizeof h->pools[0].name, "%s", name);
            h->pools[h->npools++].pool = p;
        }
    }
    pthread_mutex_unlock(&h->pools_mu);
    return p ? p : h->api_pool;
}

/* The router resolves a route's pool once, when the route is added. */
static struct kh_workpool *route_pool(void *h, const char *name)
{
    return kh_host_pool(h, name);
}

int kh_host_core_route(kh_host *h, const char *method, const char *path, kytos_handler handler,
                       void *ud, unsigned flags)
{
    struct kh_route *rt = calloc(1, sizeof *rt);
    char err[256];
    int rc;

    if (!rt)
        return KYTOS_ENOMEM;
    rt->method = strdup(method);
    rt->path = strdup(path);
    rt->rel_path = strdup(path);
    rt->handler = handler;
    rt->ud = ud;
    rt->flags = flags;
    if (!rt->method || !rt->path || !rt->rel_path ||
        (rc = kh_router_swap(h->router, rt, NULL, err, sizeof err)) != 0) {
        kh_log(LOGGER, KH_ERROR, "core route %s %s: %s", method, path,
               rt->method && rt->path ? err : "out of memory");
        free(rt->method);
        free(rt->path);
        free(rt->rel_path);
        free(rt);
        return KYTOS_EINVAL;
    }
    rt->next = h->core_routes;
    h->core_routes = rt;
    return KYTOS_OK;
}

/* kh_host_core_route for the subsystems that serve core routes. */
static int core_route_add(void *h, const char *method, const char *path, kytos_handler handler,
                          void *ud, unsigned flags)
{
    return kh_host_core_route(h, method, path, handler, ud, flags);
}

static int64_t concurrency_limit(kh_host *h)
{
    struct json_object *v = kh_config_get(h->config, "api_concurrency_limit");
    if (!v)
        return 0;
    if (json_object_is_type(v, json_type_int))
        return json_object_get_int64(v) > 0 ? json_object_get_int64(v) : 0;
    if (json_object_is_type(v, json_type_string) && !strcmp(json_object_get_string(v), "threadpool"))
        return pool_size(h->config, "api", 512);
    return 0;
}

static void store_log(void *ud, int level, const char *msg)
{
    (void)ud;
    kh_log("kytos.core.store", level, "%s", msg);
}

kh_host *kh_host_new(kh_config *cfg, const char *data_dir, char *err, size_t errlen)
{
    kh_host *h = calloc(1, sizeof *h);
    struct kytos_error serr = {0};
    unsigned api_threads;

    if (!h) {
        snprintf(err, errlen, "out of memory");
        kh_config_free(cfg);
        return NULL;
    }
    h->config = cfg;
    pthread_mutex_init(&h->pools_mu, NULL);
    pthread_mutex_init(&h->load_mu, NULL);
    pthread_mutex_init(&h->reg_mu, NULL);
    pthread_cond_init(&h->refs_cv, NULL);
    pthread_mutex_init(&h->web.watch_mu, NULL);
    if (kh_config_check(cfg, err, errlen) != 0)
        goto fail;
    snprintf(h->napps_dir, sizeof h->napps_dir, "%s", kh_config_str(cfg, "napps"));
    snprintf(h->data_dir, sizeof h->data_dir, "%s",
             data_dir ? data_dir : kh_config_str(cfg, "data_dir"));
    if (mkdir_p(h->data_dir) != 0) {
        snprintf(err, errlen, "cannot create data directory %s: %s", h->data_dir, strerror(errno));
        goto fail;
    }
    h->web.max_body = (size_t)kh_config_int(cfg, "api_max_body");
    h->web.handler_timeout_ms = (unsigned)kh_config_int(cfg, "api_handler_timeout_ms");
    h->web.traceback_on_500 = kh_config_bool(cfg, "api_traceback_on_500");
    h->web.json_500 = kh_config_bool(cfg, "api_json_500");
    h->shutdown_timeout_ms = (int)kh_config_int(cfg, "shutdown_timeout_ms");
    h->web.rate_limit = (unsigned)kh_config_int(cfg, "api_rate_limit");
    h->web.client_v6_prefix = kh_client_prefix(kh_config_int(cfg, "api_ipv6_client_prefix"));
    h->web.concurrency_limit = concurrency_limit(h);
    kh_shed_init(&h->web, kh_config_int(cfg, "api_shed_latency_ms"));
    h->web.ratelimit = kh_ratelimit_new(h->web.rate_limit);
    api_threads = pool_size(cfg, "api", 512);
    h->api_pool = kh_workpool_new("api", api_threads,
                                  (size_t)(h->web.concurrency_limit > 0 ? h->web.concurrency_limit : 1024) + 64);
    h->router = kh_router_new(route_pool, h, &napp_ops);
    if (h->api_pool)
        kh_workpool_set_target(h->api_pool, (unsigned)kh_config_int(cfg, "api_queue_target_ms"));
    if (!h->api_pool || !h->router) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    /* what the REST front door gets from the host (http/http_ctx.h) */
    h->web.router = h->router;
    h->web.api_pool = h->api_pool;
    h->web.napps = &napp_ops;
    h->web.owner = h;
    if (kh_store_open(&h->store, &(struct kh_store_opts){
                          .backend = kh_config_str(cfg, "database"),
                          .data_dir = h->data_dir,
                          .wait_for_server = 1,
                          .sync = kh_config_str(cfg, "store_sync"),
                          .log = store_log,
                          .wal_max_mb = (int)kh_config_int(cfg, "store_wal_max_mb")},
                      &serr) != 0) {
        snprintf(err, errlen, "store: %s", serr.message);
        goto fail;
    }
    h->auth = kh_auth_new(cfg, h->store, h->data_dir, err, errlen);
    if (!h->auth)
        goto fail;
    h->web.auth = h->auth;
    h->bus = kh_bus_new(cfg, &napp_ops, err, errlen);
    if (!h->bus)
        goto fail;
    /* the OpenFlow server's registry exists from the start (NApps register
     * their protocol handlers in init); it listens from kh_host_start */
    h->sb = kh_sb_new(h->bus, cfg, err, errlen);
    if (!h->sb)
        goto fail;
    if (kh_core_api_register(h) != 0 || kh_bus_register_core_routes(h->bus, core_route_add, h) != 0 ||
        kh_auth_register_routes(h->auth, core_route_add, h) != 0) {
        snprintf(err, errlen, "cannot register the core routes");
        goto fail;
    }
    if (kh_watchdog_start(&h->web) != 0) {
        snprintf(err, errlen, "cannot start the watchdog thread");
        goto fail;
    }
    kh_host_api();
    return h;
fail:
    kh_host_free(h);
    return NULL;
}

int kh_host_start(kh_host *h)
{
    char err[300];

    if (h->bus && kh_bus_start(h->bus) != 0) {
        kh_log(LOGGER, KH_CRITICAL, "cannot start the event bus");
        return KYTOS_ERROR;   /* crosses the ABI as kytos_test_start's result */
    }
    /* switches may connect from here on: every NApp has run its init (a
     * protocol handler is registered), the bus delivers the events */
    if (kh_config_bool(h->config, "sb_enabled") && kh_sb_start(h->sb, err, sizeof err) != 0) {
        kh_log(LOGGER, KH_CRITICAL, "cannot start the OpenFlow server: %s", err);
        return KYTOS_ERROR;
    }
    atomic_store(&h->started_at, kh_now_ms());
    atomic_store(&h->running, 1);
    kh_napps_start_all(h);
    return KYTOS_OK;
}

void kh_host_stop(kh_host *h)
{
    if (atomic_exchange(&h->stopping, 1))
        return;
    /* Shutdown order:
     * 1. no new switch connections (the open ones stay, so NApps can still
     *    talk to their switches while they drain);
     * 2. Kytos' order: every NApp gets kytos/core.shutdown and the pools
     *    drain (a bus that never started has nobody to drain its queues:
     *    do not wait for it);
     * 3. the NApps stop in reverse load order; a protocol handler's
     *    connections close as it unloads (its on_close runs before its
     *    stop hook; their lost events find the bus closed);
     * 4. the OpenFlow server closes what is left (queued bytes flushed if
     *    the socket takes them, then FIN) and its thread ends. */
    kh_sb_stop_accepting(h->sb);
    if (h->bus)
        kh_bus_shutdown(h->bus, atomic_load(&h->running) ? h->shutdown_timeout_ms : 0);
    kh_napps_unload_all(h);
    kh_sb_stop(h->sb);
    atomic_store(&h->running, 0);
}

void kh_host_free(kh_host *h)
{
    size_t i;

    if (!h)
        return;
    if (h->router)
        kh_host_stop(h);
    kh_watchdog_stop(&h->web);
    kh_workpool_free(h->api_pool);
    for (i = 0; i < h->npools; i++)
        kh_workpool_free(h->pools[i].pool);
    kh_sb_free(h->sb);          /* before the bus it publishes into */
    if (h->bus)
        kh_bus_free(h->bus);
    kh_auth_free(h->auth);
    if (h->store)
        kh_store_close(h->store);
    kh_router_free(h->router);
    while (h->core_routes) {
        struct kh_route *r = h->core_routes;
        h->core_routes = r->next;
        free(r->method);
        free(r->path);
        free(r->rel_path);
        free(r);
    }
    kh_registry_free(h);
    kh_ratelimit_free(h->web.ratelimit);
    json_object_put(h->disabled);
    kh_config_free(h->config);
    pthread_mutex_destroy(&h->pools_mu);
    pthread_mutex_destroy(&h->load_mu);
    pthread_mutex_destroy(&h->reg_mu);
    pthread_cond_destroy(&h->refs_cv);
    pthread_mutex_destroy(&h->web.watch_mu);
    free(h);
}

/* Does malloc resolve into the object that exports jemalloc's mallctl?
 * (a library that merely links jemalloc would export mallctl too) */
static int malloc_is_jemalloc(void)
{
    void *m = dlsym(RTLD_DEFAULT, "malloc"), *c = dlsym(RTLD_DEFAULT, "mallctl");
    Dl_info a, b;

    return m && c && dladdr(m, &a) && dladdr(c, &b) && a.dli_fname && b.dli_fname &&
           strcmp(a.dli_fname, b.dli_fname) == 0;
}

struct json_object *kh_host_status(kh_host *h)
{
    struct json_object *o = json_object_new_object(), *http = json_object_new_object();
    struct json_object *bus = h->bus ? kh_bus_status(h->bus) : NULL, *v, *pools;
    char started[64] = "";
    int64_t started_at = atomic_load(&h->started_at);
    time_t t = (time_t)(started_at / 1000);
    struct tm tm;
    size_t i;

    json_object_object_add(o, "response", json_object_new_string("running"));
    json_object_object_add(o, "system_status", json_object_new_string("running"));
    if (started_at) {
        gmtime_r(&t, &tm);
        strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(started + strlen(started), sizeof started - strlen(started), ".%03d000",
                 (int)(started_at % 1000));
    }
    json_object_object_add(o, "started_at", started_at ? json_object_new_string(started) : NULL);
    json_object_object_add(o, "uptime_seconds",
                           json_object_new_int64(started_at ? (kh_now_ms() - started_at) / 1000 : 0));
    if (bus && json_object_object_get_ex(bus, "buffers_qsize", &v))
        json_object_object_add(o, "buffers_qsize", json_object_get(v));
    else
        json_object_object_add(o, "buffers_qsize", json_object_new_object());
    if (bus && json_object_object_get_ex(bus, "thread_pool_qsize", &v))
        json_object_object_add(o, "thread_pool_qsize", json_object_get(v));
    else
        json_object_object_add(o, "thread_pool_qsize", json_object_new_object());
    json_object_object_add(o, "core_task_status", json_object_new_object());
    {
        /* "napps" by NApp id, "napp_files" by file path (loader.c) */
        struct json_object *ns = kh_napps_status(h), *part;
        if (json_object_object_get_ex(ns, "napps", &part))
            json_object_object_add(o, "napps", json_object_get(part));
        if (json_object_object_get_ex(ns, "napp_files", &part))
            json_object_object_add(o, "napp_files", json_object_get(part));
        json_object_put(ns);
    }
    json_object_object_add(http, "requests_served", json_object_new_int64((int64_t)atomic_load(&h->web.served)));
    json_object_object_add(http, "in_flight", json_object_new_int64(atomic_load(&h->web.in_flight)));
    json_object_object_add(http, "concurrency_limit", json_object_new_int64(h->web.concurrency_limit));
    json_object_object_add(http, "rejected_503", json_object_new_int64((int64_t)atomic_load(&h->web.rejected_503)));
    json_object_object_add(http, "rejected_429", json_object_new_int64((int64_t)atomic_load(&h->web.rejected_429)));
    json_object_object_add(http, "timeouts_504", json_object_new_int64((int64_t)atomic_load(&h->web.timeouts_504)));
    json_object_object_add(http, "reclaimed_idle", json_object_new_int64((int64_t)atomic_load(&h->web.reclaimed_idle)));
    json_object_object_add(http, "errors_500", json_object_new_int64((int64_t)atomic_load(&h->web.errors_500)));
    json_object_object_add(http, "overload", kh_shed_status(&h->web));
    json_object_object_add(o, "http", http);
    pools = json_object_new_object();
    json_object_object_add(pools, "api", kh_workpool_status(h->api_pool));
    pthread_mutex_lock(&h->pools_mu);
    for (i = 0; i < h->npools; i++)
        json_object_object_add(pools, h->pools[i].name, kh_workpool_status(h->pools[i].pool));
    pthread_mutex_unlock(&h->pools_mu);
    json_object_object_add(o, "http_pools", pools);
    if (bus)
        json_object_object_add(o, "events", bus);
    if (h->store)
        json_object_object_add(o, "store", kh_store_status(h->store));
    if (h->sb)
        json_object_object_add(o, "southbound", kh_sb_status(h->sb));
    json_object_object_add(o, "auth", kh_auth_status(h->auth));
    json_object_object_add(o, "crash_guard", json_object_new_boolean(kh_guard_enabled()));
    /* what serves malloc in this process (see configure's --with-jemalloc) */
    json_object_object_add(o, "allocator", json_object_new_string(malloc_is_jemalloc() ? "jemalloc"
                                                                                         : "libc"));
    json_object_object_add(o, "log_dropped", json_object_new_int64((int64_t)kh_log_dropped()));
    return o;
}
