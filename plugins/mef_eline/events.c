/* plugins/mef_eline/events.c - what mef_eline hears from topology, and
 * what it tells the others.
 *
 * One subscription on a single-thread pool takes kytos/topology.updated,
 * .topology_loaded, .link_up and .link_down in the order topology published
 * them.  The first two replace the topology snapshot; a link going down
 * makes each active EVC using it move to another path or go down (inactive,
 * no current path); a link coming up deploys the enabled EVCs that are down.
 * Topology publishes a link event before the topology.updated that shows
 * it, so the link handlers read topology afresh first.
 *
 * A consistency round (Kytos' execute loop, every deploy_evcs_interval
 * seconds, default 60) catches what a race let through: an active EVC whose
 * path is no longer up (at this round and the one before) is redeployed, an
 * enabled one that is down is tried.
 * No request waits for these writes: a refused one is retried (retry.c). */
#include "me.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void me_publish(struct me *me, const char *what, const struct me_evc *e)
{
    static const char *const keys[] = {"id", "name", "metadata", "active", "enabled", "uni_a",
                                       "uni_z"};
    struct json_object *c = json_object_new_object(), *v;
    char name[96];
    size_t i;

    snprintf(name, sizeof name, "kytos/mef_eline.%s", what);
    json_object_object_add(c, "evc_id", json_object_new_string(e->id));
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (json_object_object_get_ex(e->doc, keys[i], &v))
            json_object_object_add(c, keys[i], json_object_get(v));
    json_object_object_add(c, "active", json_object_new_boolean(e->active));
    json_object_object_add(c, "enabled", json_object_new_boolean(e->enabled));
    kytos_event_publish(me->napp, name, c,
                        &(struct kytos_pub_opts){.struct_size = sizeof(struct kytos_pub_opts),
                                                 .timeout_ms = 1000});
    json_object_put(c);
}

/* The link id of a link event: {"link": {"id": ...}} (or "link_id"/"id"). */
static const char *link_id_of(struct json_object *c)
{
    struct json_object *l, *id;
    if (json_object_object_get_ex(c, "link", &l)) {
        if (json_object_is_type(l, json_type_string))
            return json_object_get_string(l);
        if (json_object_object_get_ex(l, "id", &id) && json_object_is_type(id, json_type_string))
            return json_object_get_string(id);
    }
    if (json_object_object_get_ex(c, "link_id", &id) && json_object_is_type(id, json_type_string))
        return json_object_get_string(id);
    if (json_object_object_get_ex(c, "id", &id) && json_object_is_type(id, json_type_string))
        return json_object_get_string(id);
    return NULL;
}

static bool down_but_enabled(const struct me_evc *e, void *ud)
{
    (void)ud;
    return !e->archived && e->enabled && !e->active;
}

static void on_link_up(struct me *me)
{
    struct me_evc **list = me_evc_select_locked(me, down_but_enabled, NULL);
    size_t i;

    me_snap_put(me_snapshot(me, 2));
    for (i = 0; list && list[i]; i++) {
        struct me_evc *e = list[i];
        bool scheduled;
        pthread_mutex_lock(&e->lock);
        scheduled = me_evc_scheduled(e);
        if (!e->archived && e->enabled && !e->active && !scheduled && me_deploy(me, e, NULL, 0)) {
            me_evc_save(me, e);
            me_publish(me, "redeployed_link_up", e);
        }
        pthread_mutex_unlock(&e->lock);
    }
    me_evc_release_all(list);
}

static bool live(const struct me_evc *e, void *ud)
{
    (void)ud;
    return !e->archived && e->enabled;
}

/* Whether any link of s is up. */
static bool any_link_up(const struct me_snap *s)
{
    size_t i;
    for (i = 0; i < s->nlinks; i++)
        if (s->links[i].up)
            return true;
    return false;
}

static void consistency(kytos_napp *napp, void *ud)
{
    struct me *me = ud;
    struct me_snap *snap;
    struct me_evc **list;
    bool links_up;
    size_t i;

    me_wait_loaded(me);   /* the first round runs at start */
    snap = me_snapshot(me, 2);

    (void)napp;
    if (!snap)
        return;
    /* No link up at all is what a start looks like (the timer's first round
     * runs at once, while topology still holds the links down for
     * link_up_timer): moving the active EVCs then could only take them
     * down and deploy them all again once the links come up, every flow
     * and document rewritten.  A real failure reaches them as link_down. */
    links_up = any_link_up(snap);
    list = me_evc_select_locked(me, live, NULL);
    for (i = 0; list && list[i]; i++) {
        struct me_evc *e = list[i];
        bool scheduled;
        pthread_mutex_lock(&e->lock);
        scheduled = me_evc_scheduled(e);
        if (e->archived || !e->enabled || scheduled) {
            pthread_mutex_unlock(&e->lock);
            continue;
        }
        if (!e->active && me_deploy(me, e, NULL, 0))
            me_evc_save(me, e);
        pthread_mutex_unlock(&e->lock);
    }
    me_evc_release_all(list);
    /* then those on a path that went down: in batches (failover.c), after
     * the deploys above so that one left without a path is not tried twice */
    if (links_up)
        me_failover_stale(me, snap);
    me_snap_put(snap);
}

int me_consistency_start(struct me *me)
{
    struct json_object *st = kytos_napp_settings(me->napp), *v;
    double secs = 60;

    if (json_object_object_get_ex(st, "deploy_evcs_interval", &v) &&
        (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
        secs = json_object_get_double(v);
    if (secs <= 0)
        return KYTOS_OK;
    if (secs > 86400)
        secs = 86400;
    return kytos_timer_add(me->napp, (unsigned)(secs * 1000), consistency, me);
}

static int on_topology(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct me *me = ud;
    const char *name = kytos_event_name(ev);
    struct json_object *c = kytos_event_content(ev), *tree;
    const char *link;

    (void)napp;
    if (!name)
        return KYTOS_OK;
    if (strcmp(name, "kytos/topology.link_down") == 0) {
        me_wait_loaded(me);
        if ((link = link_id_of(c)))
            me_failover_link_down(me, link);   /* failover.c */
    } else if (strcmp(name, "kytos/topology.link_up") == 0) {
        me_wait_loaded(me);
        on_link_up(me);
    } else if (json_object_object_get_ex(c, "topology", &tree)) {
        struct me_snap *s = me_snap_build(tree);
        struct json_object *gen;
        if (s) {
            /* kytos-c's topology adds its generation; 0 (none) always wins */
            if (json_object_object_get_ex(c, "generation", &gen) &&
                json_object_is_type(gen, json_type_int) && json_object_get_int64(gen) > 0)
                s->gen = (uint64_t)json_object_get_int64(gen);
            me_snapshot_set(me, s);
        }
    }
    return KYTOS_OK;
}

int me_events_subscribe(struct me *me)
{
    return kytos_event_subscribe(
        me->napp, &(struct kytos_sub){
                      .struct_size = sizeof(struct kytos_sub),
                      .pattern = "kytos/topology\\.(updated|topology_loaded|link_up|link_down)",
                      .handler = on_topology,
                      .ud = me,
                      .pool = "dynamic_single",
                  });
}
