/* host/util/base.h - what every host subsystem shares: the NApp ABI types
 * (<kytos/kytos.h> with KYTOS_HOST defined, so the NApp-side inline
 * wrappers are not compiled here), the opaque handles, error strings, and
 * how a lower layer reaches NApps without knowing the loader or the host.
 *
 * Layers: util, events, store and http are created by the host object
 * (host/core/host.c) and get what they need then (configuration values,
 * pools, the callbacks below); they never reach up to it.
 * tests/host/check_layers.sh keeps it so. */
#ifndef KH_BASE_H
#define KH_BASE_H

#ifndef KYTOS_HOST
#define KYTOS_HOST 1
#endif
#include <kytos/kytos.h>
#include <stdarg.h>
#include "util/conf.h"

typedef struct kh_store kh_store;
typedef struct kh_bus kh_bus;

/* How the bus, the router, the request pipeline and the store's ABI slots
 * reach NApps.  The host passes its kh_napp_* functions; unit tests pass
 * their own.  Every slot may be left NULL by a test that never needs it,
 * except ref, unref, is_active and id for the bus. */
struct kh_napp_ops {
    void (*ref)(kytos_napp *n);
    void (*unref)(kytos_napp *n);
    int (*is_active)(const kytos_napp *n);
    const char *(*id)(const kytos_napp *n);       /* "user/name" */
    const char *(*logger)(const kytos_napp *n);   /* "kytos.napps.user/name" */
    /* The NApp faulted in its own code: take it out of service. */
    void (*crashed)(kytos_napp *n, const char *where);
};

/* Register a core route at a full path (kh_host_core_route's shape), for a
 * subsystem that serves some: the host passes its own. */
typedef int (*kh_core_route_fn)(void *ud, const char *method, const char *path,
                                kytos_handler handler, void *handler_ud, unsigned flags);

/* Wall clock in ms since the epoch; CLOCK_MONOTONIC in ns (clock.c). */
int64_t kh_now_ms(void);
int64_t kh_mono_ns(void);

/* A status code as text (errors.h names). */
const char *kh_strerror(int status);

#endif
