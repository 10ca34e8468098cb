/* plugins/simnet/main.c - kytos/simnet: settings, start (the whole network
 * is announced once every NApp has subscribed), stop.  See simnet.h. */
#include "simnet.h"
#include "../common/settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char simnet_openapi[];
extern const size_t simnet_openapi_len;

static bool int_setting(struct json_object *st, const char *key, int64_t lo, int64_t hi,
                        int64_t *out, char **errmsg)
{
    struct json_object *v;
    char buf[160];

    if (!json_object_object_get_ex(st, key, &v))
        return true;
    if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < lo ||
        json_object_get_int64(v) > hi) {
        snprintf(buf, sizeof(buf), "simnet: %s must be an integer from %lld to %lld", key,
                 (long long)lo, (long long)hi);
        *errmsg = napp_errdup(buf);
        return false;
    }
    *out = json_object_get_int64(v);
    return true;
}

static int read_settings(struct simnet *s, int64_t *n, int64_t *hosts, int64_t *seed,
                         char **errmsg)
{
    struct json_object *st = kytos_napp_settings(s->napp), *v;
    int64_t interval = 60;

    s->shape = SIM_RING;
    if (json_object_object_get_ex(st, "shape", &v)) {
        const char *shape = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
        if (strcmp(shape, "ring") == 0)
            s->shape = SIM_RING;
        else if (strcmp(shape, "linear") == 0)
            s->shape = SIM_LINEAR;
        else if (strcmp(shape, "mesh") == 0)
            s->shape = SIM_MESH;
        else {
            *errmsg = napp_errdup("simnet: shape must be \"ring\", \"linear\" or \"mesh\"");
            return KYTOS_EINVAL;
        }
    }
    snprintf(s->software, sizeof(s->software), "3.1.0");
    if (json_object_object_get_ex(st, "ovs_version", &v)) {
        if (!json_object_is_type(v, json_type_string) || json_object_get_string_len(v) == 0 ||
            json_object_get_string_len(v) >= (int)sizeof(s->software)) {
            *errmsg = napp_errdup("simnet: ovs_version must be a short string");
            return KYTOS_EINVAL;
        }
        snprintf(s->software, sizeof(s->software), "%s", json_object_get_string(v));
    }
    *n = 3;
    *hosts = -1;
    *seed = 1;
    if (!int_setting(st, "switches", 1, s->shape == SIM_MESH ? SIM_MAX_MESH : SIM_MAX_SWITCHES, n,
                     errmsg) ||
        !int_setting(st, "ports_per_switch", 0, SIM_MAX_HOST_PORTS, hosts, errmsg) ||
        !int_setting(st, "host_ports", 0, SIM_MAX_HOST_PORTS, hosts, errmsg) ||
        !int_setting(st, "seed", 0, INT64_MAX, seed, errmsg) ||
        !int_setting(st, "flow_stats_interval", 0, 86400, &interval, errmsg))
        return KYTOS_EINVAL;
    s->flow_stats_interval = (unsigned)interval;
    s->keep_flows = true;
    if (json_object_object_get_ex(st, "keep_flows", &v)) {
        if (!json_object_is_type(v, json_type_boolean)) {
            *errmsg = napp_errdup("simnet: keep_flows must be true or false");
            return KYTOS_EINVAL;
        }
        s->keep_flows = json_object_get_boolean(v);
    }
    return KYTOS_OK;
}

static void simnet_free(struct simnet *s)
{
    if (!s)
        return;
    sim_free(s);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->pub_lock);
    free(s);
}

static int simnet_init(kytos_napp *napp, char **errmsg)
{
    struct simnet *s = calloc(1, sizeof(*s));
    int64_t n, hosts, seed;
    char *err = NULL;
    int rc;

    *errmsg = NULL;
    if (!s) {
        *errmsg = napp_errdup("out of memory");
        return KYTOS_ENOMEM;
    }
    s->napp = napp;
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->pub_lock, NULL);
    rc = read_settings(s, &n, &hosts, &seed, errmsg);
    if (rc == KYTOS_OK) {
        pyrand_seed(&s->rng, (uint64_t)seed);
        rc = sim_build(s, (unsigned)n, (int)hosts, &err);
        if (rc != KYTOS_OK)
            *errmsg = napp_errdup(err);
        else
            s->load_pending = sim_flows_saved(s);
    }
    if (rc == KYTOS_OK)
        rc = sim_routes_register(s);
    if (rc == KYTOS_OK)
        rc = sim_flows_subscribe(s);
    if (rc == KYTOS_OK && s->flow_stats_interval > 0)
        rc = kytos_timer_add(napp, s->flow_stats_interval * 1000u, sim_flow_stats_tick, s);
    if (rc != KYTOS_OK) {
        if (!*errmsg)
            *errmsg = napp_errdup("simnet: cannot register routes, subscriptions or timers");
        simnet_free(s);
        return rc;
    }
    kytos_napp_set_data(napp, s);
    return KYTOS_OK;
}

/* Every switch connects and every link is seen (caller holds s->lock,
 * released here). */
static void announce_locked(struct simnet *s)
{
    struct napp_evq q = {0};

    for (size_t i = 0; i < s->n_switches; i++)
        sim_ev_switch_up(s, &q, s->switches[i], false);
    for (size_t i = 0; i < s->n_links; i++)
        sim_ev_link(s, &q, &s->links[i]);
    kytos_log(s->napp, KYTOS_LOG_INFO, "simulated %s network: %zu switches, %zu links",
              sim_shape_name(s->shape), s->n_switches, s->n_links);
    sim_evq_flush_locked(s, &q);
}

/* Kept flow tables load on a thread of their own (80,000 flows take a
 * second or more), so kytosd serves at once; the switches connect once
 * their tables are back, as real switches connect to a controller that
 * has just started.  Holding the lock, nothing sees a half-loaded table. */
static void *load_main(void *arg)
{
    struct simnet *s = arg;

    pthread_mutex_lock(&s->lock);
    sim_flows_load(s);
    announce_locked(s);
    return NULL;
}

static int simnet_start(kytos_napp *napp)
{
    struct simnet *s = kytos_napp_data(napp);

    if (s->load_pending && pthread_create(&s->loader, NULL, load_main, s) == 0) {
        s->loader_started = true;
        return KYTOS_OK;
    }
    pthread_mutex_lock(&s->lock);
    if (s->load_pending)
        sim_flows_load(s);
    announce_locked(s);
    return KYTOS_OK;
}

static void simnet_stop(kytos_napp *napp)
{
    struct simnet *s = kytos_napp_data(napp);

    if (s->loader_started)
        pthread_join(s->loader, NULL);
    pthread_mutex_lock(&s->lock);
    sim_flows_save(s);
    pthread_mutex_unlock(&s->lock);
    kytos_napp_set_data(napp, NULL);
    simnet_free(s);
}

KYTOS_NAPP_DEFINE("kytos", "simnet", "2025.2.0", KYTOS_NO_DEPS, simnet_openapi, simnet_openapi_len,
                  0, simnet_init, simnet_start, simnet_stop);
