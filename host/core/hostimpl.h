/* host/core/hostimpl.h - the inside of kh_host, for host/core and
 * host/napps only; the lower layers (util, events, store, http) never see
 * it (tests/host/check_layers.sh). */
#ifndef KH_HOSTIMPL_H
#define KH_HOSTIMPL_H

#include "core/host.h"
#include "napps/napp.h"
#include "auth/auth.h"
#include "http/dispatch.h"
#include "http/http_ctx.h"
#include "http/request.h"
#include "http/router.h"
#include "http/shed.h"
#include "util/workpool.h"
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>

#define KH_MAX_ROUTE_POOLS 8

struct kh_record {              /* one file seen in the napps directory */
    char *file;
    char id[130];
    char version[64];               /* of what serves (or served) from this file */
    char state[16];             /* enabled, refused, waiting, disabled, unloaded, crashed */
    char reason[512];
    int duplicate;              /* refused: another file holds the same NApp id */
    /* A newer copy of the file that was refused while an earlier version
     * from it serves, or could serve again (good_fd): state and version
     * stay that version's. */
    int has_rejected;
    char rejected_state[16];    /* refused, waiting */
    char rejected_version[64];
    char rejected_reason[512];
    struct kh_file_stamp {
        unsigned long long dev, ino, size, mtime_ns;
    } rejected_stamp;           /* the refused copy, to know it again */
    int good_fd;                /* the image that last loaded from this file (an
                                 * unlinked private copy), or -1 */
    double load_ms;             /* what serves from it took to load (vet, dlopen,
                                 * spec, init), measured by the host; -1 unknown */
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
    struct kh_auth *auth;       /* users, tokens, audit (auth/) */
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
    atomic_int unloading;       /* unload_napp calls waiting on refs_cv */
    kytos_napp *napps;          /* enabled NApps in load order */
    kytos_napp *crashed;        /* faulted NApps, kept mapped until the host goes */
    struct kh_record *records;
    uint64_t generation;
    struct json_object *disabled; /* ids disabled through the REST API */

    struct kh_route *core_routes;
    char napps_dir[PATH_MAX];
    char data_dir[PATH_MAX];
    int own_data_dir;           /* test host: remove at free */

    int shutdown_timeout_ms;
    atomic_int_fast64_t started_at;   /* set by kh_host_start while the API may already answer */
    atomic_int running, stopping;

    /* the REST front door's limits, counters, watchdog (http/http_ctx.h),
     * handed to host/http when the host creates it */
    struct kh_http_ctx web;

    struct kh_http *http;
    struct kh_watcher *watcher;

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
struct json_object *kh_host_status(kh_host *h);

/* The host's kh_napp_* functions, as the lower layers take them. */
const struct kh_napp_ops *kh_host_napp_ops(void);

/* core_api.c, metrics.c */
int kh_core_api_register(kh_host *h);
int kh_metrics_register(kh_host *h);

/* api_table.c */
void kh_api_table_init(void);

#endif
