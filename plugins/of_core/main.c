/* plugins/of_core/main.c - kytos/of_core: settings, init, stop (the
 * contract is in of_core.h). */
#include "of_core.h"
#include "../common/settings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t ofc_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint32_t ofc_xid(struct ofcore *oc)
{
    uint32_t x = atomic_fetch_add(&oc->xid, 1) + 1;

    return x ? x : atomic_fetch_add(&oc->xid, 1) + 1;
}

void ofc_publish(struct ofcore *oc, const char *name, struct json_object *content)
{
    struct napp_evq q = {0};

    if (!content)
        return;
    napp_evq_add(&q, name, content);
    napp_evq_publish(oc->napp, &q, 0, true);
}

/* A duration setting in seconds (integer or fractional) -> ms in *out. */
static bool seconds_setting(struct json_object *st, const char *key, double lo, double hi,
                            bool zero_ok, int64_t *out, char **errmsg)
{
    struct json_object *v;
    char buf[160];
    double d;

    if (!json_object_object_get_ex(st, key, &v))
        return true;
    d = json_object_get_double(v);
    if ((!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double)) ||
        !isfinite(d) || ((d < lo || d > hi) && !(zero_ok && d == 0))) {
        snprintf(buf, sizeof(buf), "of_core: %s must be a number of seconds from %g to %g%s", key,
                 lo, hi, zero_ok ? " (or 0)" : "");
        *errmsg = napp_errdup(buf);
        return false;
    }
    *out = (int64_t)llround(d * 1000.0);
    return true;
}

static void ofcore_free(struct ofcore *oc)
{
    if (!oc)
        return;
    ofc_switches_free(oc);
    pthread_mutex_destroy(&oc->lock);
    free(oc);
}

static int ofcore_init(kytos_napp *napp, char **errmsg)
{
    struct ofcore *oc = calloc(1, sizeof(*oc));
    struct json_object *st = kytos_napp_settings(napp);
    unsigned tick;
    int rc;

    *errmsg = NULL;
    if (!oc) {
        *errmsg = napp_errdup("out of memory");
        return KYTOS_ENOMEM;
    }
    oc->napp = napp;
    pthread_mutex_init(&oc->lock, NULL);
    oc->stats_ms = 60000;
    oc->echo_ms = 60000;
    oc->dead_ms = 130000;
    if (!seconds_setting(st, "stats_interval", 0.2, 86400, true, &oc->stats_ms, errmsg) ||
        !seconds_setting(st, "echo_interval", 0.2, 86400, false, &oc->echo_ms, errmsg) ||
        !seconds_setting(st, "dead_interval", 0.2, 86400, false, &oc->dead_ms, errmsg)) {
        ofcore_free(oc);
        return KYTOS_EINVAL;
    }
    if (!KYTOS_API_HAS(conn_handle)) {
        *errmsg = napp_errdup("of_core: the host has no southbound server (ABI 1.4 needed)");
        ofcore_free(oc);
        return KYTOS_EUNAVAIL;
    }
    kytos_napp_set_data(napp, oc);
    /* keepalive: a tick of a quarter of the shorter interval, 100 ms .. 1 s */
    tick = (unsigned)((oc->echo_ms < oc->dead_ms ? oc->echo_ms : oc->dead_ms) / 4);
    tick = tick < 100 ? 100 : tick > 1000 ? 1000 : tick;
    rc = ofc_flows_subscribe(oc);
    if (rc == KYTOS_OK)
        rc = kytos_timer_add(napp, tick, ofc_keepalive_tick, oc);
    if (rc == KYTOS_OK && oc->stats_ms > 0)
        rc = kytos_timer_add(napp, (unsigned)oc->stats_ms, ofc_stats_tick, oc);
    if (rc == KYTOS_OK)
        rc = ofc_conn_register(oc);
    if (rc != KYTOS_OK) {
        *errmsg = napp_errdup("of_core: cannot register its subscriptions, timers or connection handler");
        kytos_napp_set_data(napp, NULL);
        ofcore_free(oc);
        return rc;
    }
    return KYTOS_OK;
}

static void ofcore_stop(kytos_napp *napp)
{
    struct ofcore *oc = kytos_napp_data(napp);

    /* the host closed our connections (on_close ran) before this */
    kytos_napp_set_data(napp, NULL);
    ofcore_free(oc);
}

KYTOS_NAPP_DEFINE("kytos", "of_core", "2025.2.0", KYTOS_NO_DEPS, NULL, 0, 0, ofcore_init, NULL,
                  ofcore_stop);
