/* plugins/topology/main.c - kytos/topology: keeps switches, interfaces and
 * links from the southbound events (events.c), persists them in the store
 * (persist.c), serves Kytos' v3 REST API (rest_*.c) and publishes Kytos'
 * topology events.
 *
 * Settings ([kytos/topology] in kytos.conf, JSON values):
 *   link_up_timer = 10              seconds a link stays DOWN after it comes
 *                                   up before link_up is reported (Kytos'
 *                                   LINK_UP_TIMER); 0 reports at once
 *   enable_entities_by_default = true   new switches, interfaces and links
 *                                   start enabled (Kytos' daemon option)
 *   store_retry_interval = 1        seconds (0.01..60) between retries of
 *                                   the store writes it refused that
 *                                   nothing put back (retry.c)
 *
 * Events published (content is JSON; DICT = the as_dict() shapes of GET v3/):
 *   kytos/topology.topology_loaded   {"topology": {"switches","links"}, "generation": n,
 *                                     "failed_switches": {id: text}, "failed_links": {id: text}}
 *   kytos/topology.updated           {"topology": {"switches": {...}, "links": {...}},
 *                                     "generation": n}
 *     ("generation" is kytos-c's own: the snapshot's, as in GET v3/'s
 *     X-Kytos-Topology-Generation; it only grows, across reloads too)
 *   kytos/topology.link_up|link_down {"link": LINK, "reason": text}
 *   kytos/topology.link.enabled|disabled|deleted   {"link": LINK}
 *   kytos/topology.switch.enabled|disabled         {"dpid": dpid}
 *   kytos/topology.switch.deleted                  {"switch": SWITCH}
 *   kytos/topology.interface.enabled|disabled|up|down  {"interface": INTERFACE}
 *   kytos/topology.switch.interface.created        {"interface": INTERFACE}
 *   kytos/topology.{switches,interfaces,links}.metadata.{added,removed}
 *                                    {"switch"|"interface"|"link": DICT, "metadata": {...}}
 *   kytos/topology.port.created      {"switch": dpid, "port": n,
 *                                     "port_description": {"alias", "mac", "state"}}
 */
#include "topo.h"
#include "../common/settings.h"
#include "../common/retry_interval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Generations go up across a reload of this NApp too, so that a reader
 * keeping the highest it saw (mef_eline) is never stuck behind an old
 * count: they start at the monotonic clock in microseconds, and far fewer
 * rebuilds than microseconds pass in a life of this NApp (each is a write
 * op and a full text of the topology). */
static uint64_t first_generation(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

extern const char topology_openapi[];
extern const size_t topology_openapi_len;

static int read_settings(struct topo *t, char **errmsg)
{
    struct json_object *st = kytos_napp_settings(t->napp), *v;

    t->link_up_timer_ms = 10000;
    t->enable_by_default = true;
    if (json_object_object_get_ex(st, "link_up_timer", &v)) {
        double secs;
        if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_double)) {
            *errmsg = napp_errdup("link_up_timer must be a number of seconds");
            return KYTOS_EINVAL;
        }
        secs = json_object_get_double(v);
        if (!isfinite(secs) || secs < 0 || secs > 86400) {
            *errmsg = napp_errdup("link_up_timer must be between 0 and 86400 seconds");
            return KYTOS_EINVAL;
        }
        t->link_up_timer_ms = (int64_t)(secs * 1000.0 + 0.5);
    }
    if (json_object_object_get_ex(st, "enable_entities_by_default", &v)) {
        if (!json_object_is_type(v, json_type_boolean)) {
            *errmsg = napp_errdup("enable_entities_by_default must be true or false");
            return KYTOS_EINVAL;
        }
        t->enable_by_default = json_object_get_boolean(v);
    }
    return napp_store_retry_ms(st, &t->store_retry_ms, errmsg);
}

static void topo_free(struct topo *t)
{
    if (!t)
        return;
    topo_model_free(t);
    topo_retry_free(t);
    topo_snapshot_free_all(t);
    jw_free(&t->scratch);
    json_object_put(t->failed_switches);
    json_object_put(t->failed_links);
    pthread_mutex_destroy(&t->write_lock);
    pthread_rwlock_destroy(&t->rw);
    pthread_mutex_destroy(&t->snap_lock);
    pthread_mutex_destroy(&t->spare_lock);
    free(t);
}

static int topology_init(kytos_napp *napp, char **errmsg)
{
    struct topo *t = calloc(1, sizeof(*t));
    int rc;

    if (!t) {
        *errmsg = napp_errdup("out of memory");
        return KYTOS_ENOMEM;
    }
    t->napp = napp;
    pthread_mutex_init(&t->write_lock, NULL);
    pthread_rwlock_init(&t->rw, NULL);
    pthread_mutex_init(&t->snap_lock, NULL);
    pthread_mutex_init(&t->spare_lock, NULL);
    atomic_init(&t->updated_pending, false);
    atomic_init(&t->pending_timers, 0);
    t->snap_gen = first_generation();
    atomic_init(&t->store_retry, false);
    t->failed_switches = json_object_new_object();
    t->failed_links = json_object_new_object();
    if (!t->failed_switches || !t->failed_links) {
        topo_free(t);
        *errmsg = napp_errdup("out of memory");
        return KYTOS_ENOMEM;
    }
    rc = read_settings(t, errmsg);
    if (rc == KYTOS_OK)
        rc = topo_restore(t, errmsg);
    if (rc != KYTOS_OK) {
        topo_free(t);
        return rc;
    }
    if (!topo_snapshot_rebuild(t)) {
        topo_free(t);
        *errmsg = napp_errdup("out of memory");
        return KYTOS_ENOMEM;
    }

    rc = topo_routes_get(t);
    if (rc == KYTOS_OK)
        rc = topo_routes_switch(t);
    if (rc == KYTOS_OK)
        rc = topo_routes_intf(t);
    if (rc == KYTOS_OK)
        rc = topo_routes_tags(t);
    if (rc == KYTOS_OK)
        rc = topo_routes_link(t);
    if (rc == KYTOS_OK)
        rc = topo_events_subscribe(t);
    if (rc == KYTOS_OK)
        rc = topo_op_subscribe(t);
    if (rc == KYTOS_OK && t->link_up_timer_ms > 0)
        rc = kytos_timer_add(napp, t->link_up_timer_ms < 250 ? (unsigned)t->link_up_timer_ms : 250,
                             topo_linkstate_tick, t);
    if (rc != KYTOS_OK) {
        topo_free(t);
        *errmsg = napp_errdup("cannot register routes, subscriptions or timers");
        return rc;
    }
    kytos_napp_set_data(napp, t);
    kytos_log(napp, KYTOS_LOG_INFO, "topology restored: %zu switches, %zu links", t->n_switches,
              t->n_links);
    return KYTOS_OK;
}

static struct json_object *copy_of(struct json_object *o)
{
    struct json_object *c = NULL;

    if (json_object_deep_copy(o, &c, NULL) != 0)
        return json_object_new_object();
    return c;
}

static struct json_object *port_created(const struct topo_intf *i)
{
    struct json_object *c = json_object_new_object(), *d = json_object_new_object();

    if (!c || !d) {
        json_object_put(c);
        json_object_put(d);
        return NULL;
    }
    json_object_object_add(d, "alias", json_object_new_string(i->name));
    json_object_object_add(d, "mac", i->mac ? json_object_new_string(i->mac) : NULL);
    json_object_object_add(d, "state", NULL);
    json_object_object_add(c, "switch", json_object_new_string(i->sw->dpid));
    json_object_object_add(c, "port", json_object_new_int64(i->port));
    json_object_object_add(c, "port_description", d);
    return c;
}

/* Kytos emits these from setup(); here from start, once every NApp has
 * subscribed (mef_eline loads its EVCs on topology_loaded). */
static int topology_start(kytos_napp *napp)
{
    struct topo *t = kytos_napp_data(napp);
    struct topo_op op;
    struct json_object *content;

    /* here, not in init: a timer may run as soon as it is added, and init
     * frees t when it fails (as mef_eline does) */
    if (topo_retry_start(t) != KYTOS_OK)
        kytos_log(napp, KYTOS_LOG_WARNING, "the store retry timer did not start: refused writes "
                                           "are tried again only at stop");
    topo_op_begin(&op, t);
    for (size_t n = 0; n < t->n_switches; n++)
        for (size_t k = 0; k < t->switches[n]->n_intfs; k++)
            topo_op_event(&op, "kytos/topology.port.created", port_created(t->switches[n]->intfs[k]));
    content = topo_snapshot_event(t);
    if (!content)
        content = json_object_new_object();
    json_object_object_add(content, "failed_switches", copy_of(t->failed_switches));
    json_object_object_add(content, "failed_links", copy_of(t->failed_links));
    topo_op_event(&op, "kytos/topology.topology_loaded", content);
    topo_op_end(&op);
    return KYTOS_OK;
}

static void topology_stop(kytos_napp *napp)
{
    struct topo *t = kytos_napp_data(napp);

    kytos_log(napp, KYTOS_LOG_INFO, "NApp kytos/topology shutting down.");
    /* the host removed our timers and handlers first: no op runs now */
    if (t)
        topo_retry_last(t);
    kytos_napp_set_data(napp, NULL);
    topo_free(t);
}

KYTOS_NAPP_DEFINE("kytos", "topology", "2025.2.0", KYTOS_NO_DEPS, topology_openapi,
                  topology_openapi_len, 0, topology_init, topology_start, topology_stop);
