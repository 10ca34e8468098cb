/* plugins/mef_eline/main.c - kytos/mef_eline: Ethernet virtual circuits
 * (EVCs) between two UNIs (Kytos-ng mef_eline, napps.md section 3).
 *
 * Routes (under /api/kytos/mef_eline/; "spec" = checked against openapi.yml):
 *   GET    v2/evc/?archived=true|false|null&metadata.<k>=<v>   {evc_id: EVC}
 *   POST   v2/evc/  (spec: NewCircuit)             201 {"circuit_id", "deployed"}
 *   GET    v2/evc/{circuit_id}                     EVC | 404
 *   PATCH  v2/evc/{circuit_id}  (spec: UpdateCircuit)  {evc_id: EVC, "redeployed": bool}
 *   DELETE v2/evc/{circuit_id}                     soft delete (archived)
 *   PATCH  v2/evc/{circuit_id}/redeploy            202 | 409 disabled
 *   GET/POST v2/evc/{circuit_id}/metadata, DELETE v2/evc/{circuit_id}/metadata/{key}
 *   POST   v2/evc/metadata, DELETE v2/evc/metadata/{key}   bulk, {"circuit_ids": [...]}
 *   GET    v2/evc/schedule                         schedules of every EVC
 *   POST   v2/evc/schedule/  (spec: NewCircuitSchedule)  201 {id, date|interval|frequency, action}
 *   PATCH  v2/evc/schedule/{schedule_id}  (spec: CircuitSchedule)  200 schedule | 404
 *   DELETE v2/evc/schedule/{schedule_id}          200 "Schedule removed" | 404
 *   Schedules are stored in the EVC's circuit_scheduler[]; schedule.c runs
 *   "date" and "interval" ones ("create" enables, "remove" disables); a cron
 *   "frequency" is stored and listed only.
 *
 * Storage: collection "evcs", one document per EVC keyed by its id (14 hex
 * chars), Kytos' EVCBaseDoc fields (napps.md 3.4); dates "%Y-%m-%dT%H:%M:%S".
 * current_path links carry {"metadata": {"s_vlan": {"tag_type": "vlan",
 * "value": N}}}.  Archived EVCs stay stored and leave memory.  The plain
 * GET v2/evc/ joins each live EVC's last stored text (listing.c); the
 * stored EVCs load on a thread at start, the routes waiting (loader.c).
 *
 * Paths: computed here, shortest by hops over the links topology reports
 * active, enabled and UP (primary_path / backup_path first when given).
 * Flows: built as Kytos' models/evc.py does (cookie 0xAA<<56 | id, owner
 * "mef_eline", table_group "evpl"/"epl", priorities 20000/15000/10000 or
 * sb_priority) and sent with an in-process call to
 * /api/kytos/flow_manager/v2/flows_by_switch (POST force=false to install,
 * DELETE force=true with the EVC cookie to remove).
 *
 * Events consumed: kytos/topology.(updated|topology_loaded) {"topology":
 * {"switches", "links"}} (the snapshot), kytos/topology.link_down and
 * .link_up {"link": {"id", ...}} (redeploy / down, deploy the down ones).
 * Also reads GET /api/kytos/topology/v3/ at start and when a request names
 * an interface the snapshot lacks.
 * Settings ([kytos/mef_eline]): deploy_evcs_interval = 60 (seconds, 0 = off):
 * the consistency round that redeploys EVCs whose path went down unnoticed
 * and deploys enabled EVCs that are down (Kytos' DEPLOY_EVCS_INTERVAL);
 * store_retry_interval = 1 (seconds, 0.01..60): how often a store write
 * refused outside a request (link events, schedules) is retried (retry.c).
 *
 * Events published: kytos/mef_eline.(created|updated|deleted|
 * redeployed_link_down|error_redeploy_link_down|redeployed_link_up)
 * {"evc_id","id","name","metadata","active","enabled","uni_a","uni_z"}.
 */
#include "me.h"

#include <stdlib.h>
#include <string.h>

extern const char mef_eline_openapi[];
extern const size_t mef_eline_openapi_len;

#define NBUCKETS 4096

static char *dup_msg(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = kytos_malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

/* Reserve what a stored, live EVC holds: UNI tags and its path's S-VLANs. */
static void adopt(struct me *me, struct me_evc *e)
{
    char err[256];
    size_t i;

    pthread_mutex_lock(&me->lock);
    if (me_tagtab_use_uni(me->tags, e->a.intf, &e->a.tag, err, sizeof err) != 0 ||
        me_tagtab_use_uni(me->tags, e->z.intf, &e->z.tag, err, sizeof err) != 0)
        kytos_log(me->napp, KYTOS_LOG_WARNING, "EVC(%s): %s", e->id, err);
    if (e->a.tag.kind == ME_TAG_NONE)
        me_tagtab_set_epl_owner(me->tags, e->a.intf, e->id);
    if (e->z.tag.kind == ME_TAG_NONE)
        me_tagtab_set_epl_owner(me->tags, e->z.intf, e->id);
    for (i = 0; i < e->current.n; i++)
        if (e->current.h[i].s_vlan &&
            me_tagtab_use_pair(me->tags, e->current.h[i].a, e->current.h[i].b,
                               e->current.h[i].s_vlan) != 0)
            kytos_log(me->napp, KYTOS_LOG_WARNING, "EVC(%s): S-VLAN %u taken twice", e->id,
                      e->current.h[i].s_vlan);
    if (!me_evc_find(me, e->id)) {
        me_evc_insert(me, e);
        e = NULL;
    }
    pthread_mutex_unlock(&me->lock);
    me_evc_unref(e);
}

void me_load_all(struct me *me)
{
    struct json_object *filter = json_object_new_object(), *doc;
    struct kytos_error err = {0};
    kytos_cursor *cur = NULL;
    struct me_snap *snap = me_snapshot(me, 0);
    size_t n = 0;

    json_object_object_add(filter, "archived", json_object_new_boolean(0));
    /* as text, each parsed in turn: parsed all at once by the store, the
     * path trees me_evc_drop_path frees would leave holes among what
     * stays, and RSS after a restart would stay where the load took it */
    if (kytos_store_find(me->napp, ME_COLL,
                         &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                              .filter = filter,
                                              .flags = KYTOS_FIND_TEXT},
                         &cur, &err) != KYTOS_OK) {
        kytos_log(me->napp, KYTOS_LOG_ERROR, "loading EVCs failed: %s", err.message);
        json_object_put(filter);
        me_snap_put(snap);
        return;
    }
    json_object_put(filter);
    while (kytos_cursor_next(cur, &doc, &err) == 1) {
        const char *id;
        struct me_evc *e;
        char msg[256];
        /* text, parsed here (a host older than the flag hands out objects) */
        if (json_object_is_type(doc, json_type_string)) {
            struct json_object *parsed = json_tokener_parse(json_object_get_string(doc));
            json_object_put(doc);
            doc = parsed;
        }
        id = json_object_get_string(json_object_object_get(doc, "id"));
        if (!json_object_is_type(doc, json_type_object) || !id || strlen(id) != ME_ID_LEN ||
            !(e = me_evc_new(id))) {
            json_object_put(doc);
            atomic_store(&me->listing_partial, true);
            continue;
        }
        e->doc = doc;
        if (me_evc_load(e, snap, msg, sizeof msg) != 0) {
            kytos_log(me->napp, KYTOS_LOG_WARNING, "EVC %s not loaded: %s", id, msg);
            me_evc_unref(e);
            atomic_store(&me->listing_partial, true);
            continue;
        }
        me_listing_set(me, e);
        me_evc_drop_path(e);
        me_sched_track_all(me, e->id, json_object_object_get(doc, "circuit_scheduler"), true);
        adopt(me, e);
        n++;
    }
    kytos_cursor_free(cur);
    me_snap_put(snap);
    kytos_log(me->napp, KYTOS_LOG_INFO, "%zu EVCs loaded", n);
}

static void me_destroy(struct me *me)
{
    size_t i;
    if (!me)
        return;
    for (i = 0; me->buckets && i < me->nbuckets; i++) {
        struct me_evc *e = me->buckets[i], *n;
        for (; e; e = n) {
            n = e->next;
            me_evc_unref(e);
        }
    }
    free(me->buckets);
    free(me->jobs);
    me_route_gates_free(me);
    pthread_mutex_destroy(&me->load_mu);
    pthread_cond_destroy(&me->load_cv);
    me_tagtab_free(me->tags);
    me_snap_put(me->snap);
    pthread_mutex_destroy(&me->lock);
    pthread_mutex_destroy(&me->refresh_lock);
    pthread_mutex_destroy(&me->sched_lock);
    free(me);
}

/* Register a file's route table (rest_evc.c, rest_meta.c, schedule.c). */
int me_routes_add(struct me *me, const struct me_route *routes, size_t n)
{
    size_t i;
    int rc;

    for (i = 0; i < n; i++) {
        kytos_handler h;
        void *ud;
        if ((rc = me_route_gate(me, routes[i].h, &h, &ud)) != KYTOS_OK)
            return rc;
        rc = kytos_route_add(me->napp, &(struct kytos_route){
                                           .struct_size = sizeof(struct kytos_route),
                                           .method = routes[i].method,
                                           .path = routes[i].path,
                                           .handler = h,
                                           .ud = ud,
                                           .flags = routes[i].flags,
                                       });
        if (rc != KYTOS_OK)
            return rc;
    }
    return KYTOS_OK;
}

static int me_init(kytos_napp *napp, char **errmsg)
{
    struct me *me = calloc(1, sizeof *me);
    struct kytos_error err = {0};
    struct json_object *keys;
    int rc;

    if (!me) {
        *errmsg = dup_msg("out of memory");
        return KYTOS_ENOMEM;
    }
    me->napp = napp;
    pthread_mutex_init(&me->lock, NULL);
    pthread_mutex_init(&me->refresh_lock, NULL);
    pthread_mutex_init(&me->sched_lock, NULL);
    atomic_init(&me->store_retry, false);
    atomic_init(&me->listing_partial, false);
    atomic_init(&me->loaded, false);
    pthread_mutex_init(&me->load_mu, NULL);
    pthread_cond_init(&me->load_cv, NULL);
    me->nbuckets = NBUCKETS;
    me->buckets = calloc(me->nbuckets, sizeof *me->buckets);
    me->tags = me_tagtab_new();
    me->last_refresh_ms = -1000;
    if (!me->buckets || !me->tags) {
        me_destroy(me);
        *errmsg = dup_msg("out of memory");
        return KYTOS_ENOMEM;
    }
    if ((rc = me_retry_settings(me, errmsg)) != KYTOS_OK) {
        me_destroy(me);
        return rc;
    }
    kytos_napp_set_data(napp, me);
    /* the fixed paths first: the first matching route wins */
    if ((rc = me_rest_sched_register(me)) != KYTOS_OK ||
        (rc = me_rest_meta_register(me)) != KYTOS_OK ||
        (rc = me_rest_evc_register(me)) != KYTOS_OK || (rc = me_events_subscribe(me)) != KYTOS_OK ||
        (rc = me_lldp_vlan_subscribe(me)) != KYTOS_OK) {
        *errmsg = dup_msg("registering routes or subscriptions failed");
        return rc;
    }
    keys = json_object_new_object();
    json_object_object_add(keys, "archived", json_object_new_int(1));
    if (kytos_store_index(napp, ME_COLL, "archived", keys, 0, &err) != KYTOS_OK)
        kytos_log(napp, KYTOS_LOG_WARNING, "index archived: %s", err.message);
    json_object_put(keys);
    return KYTOS_OK;
}

static int me_start(kytos_napp *napp)
{
    struct me *me = kytos_napp_data(napp);
    if (me) {
        /* kytosd serves meanwhile; what needs the EVCs waits (loader.c) */
        me_loader_start(me);
        if (me_consistency_start(me) != KYTOS_OK)
            kytos_log(napp, KYTOS_LOG_WARNING, "the consistency round did not start");
        if (me_sched_start(me) != KYTOS_OK)
            kytos_log(napp, KYTOS_LOG_WARNING, "the schedule runner did not start");
        if (me_retry_start(me) != KYTOS_OK)
            kytos_log(napp, KYTOS_LOG_WARNING, "the store retry timer did not start");
    }
    return KYTOS_OK;
}

static void me_stop(kytos_napp *napp)
{
    struct me *me = kytos_napp_data(napp);
    /* no timer or handler of ours runs any more: the host removed them */
    if (me) {
        me_loader_join(me);
        me_retry_last(me);
    }
    kytos_napp_set_data(napp, NULL);
    me_destroy(me);
}

KYTOS_NAPP_DEFINE("kytos", "mef_eline", "2025.2.0",
                  KYTOS_DEPS("kytos/topology", "kytos/flow_manager"), mef_eline_openapi,
                  mef_eline_openapi_len, 0, me_init, me_start, me_stop);
