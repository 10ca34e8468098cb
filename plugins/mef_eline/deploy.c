/* plugins/mef_eline/deploy.c - put an EVC on a path and take it off
 * (Kytos' EVC.deploy / remove_current_flows): primary path if up, else
 * backup path if up, else a dynamic shortest path when allowed; one S-VLAN
 * per link, lowest free on both ends. */
#include "me.h"

#include <stdlib.h>
#include <string.h>

#define MAX_HOPS 256

static bool path_avoids(const struct me_path *p, const char *const *avoid, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (avoid[i] && me_path_uses(p, avoid[i]))
            return false;
    return true;
}

static int copy_path(struct me_path *dst, const struct me_path *src)
{
    me_path_clear(dst);
    if (src->n == 0)
        return 0;
    dst->h = calloc(src->n, sizeof *dst->h);
    if (!dst->h)
        return -1;
    memcpy(dst->h, src->h, src->n * sizeof *dst->h);
    dst->n = src->n;
    for (size_t i = 0; i < dst->n; i++)
        dst->h[i].s_vlan = 0;
    return 0;
}

int me_deploy_dynamic(struct me *me, const struct me_evc *e, const struct me_snap *snap,
                      const char *const *avoid, size_t n_avoid, struct me_path *out)
{
    int links[MAX_HOPS], hops, rc;

    rc = me_paths_dynamic(me, e, snap, avoid, n_avoid, out);
    if (rc <= 0)
        return rc;
    /* no kytos/pathfinder loaded: the shortest path by hops, unconstrained */
    hops = me_snap_shortest(snap, e->a.dpid, e->z.dpid, avoid, n_avoid, links, MAX_HOPS);
    if (hops <= 0)
        return -1;
    return me_path_from_snap(out, snap, links, (size_t)hops);
}

/* The path to use now, without tags; -1 when none.  pc (may be NULL)
 * shares dynamic paths between EVCs of one batch. */
static int choose_path(struct me *me, const struct me_evc *e, const struct me_snap *snap,
                       const char *const *avoid, size_t n_avoid, struct me_pathcache *pc,
                       struct me_path *out)
{
    if (e->primary.n && me_path_up(&e->primary, snap) && path_avoids(&e->primary, avoid, n_avoid))
        return copy_path(out, &e->primary);
    if (e->backup.n && me_path_up(&e->backup, snap) && path_avoids(&e->backup, avoid, n_avoid))
        return copy_path(out, &e->backup);
    if (!e->dynamic || !snap)
        return -1;
    if (pc)
        return me_pathcache_dynamic(pc, me, e, snap, avoid, n_avoid, out);
    return me_deploy_dynamic(me, e, snap, avoid, n_avoid, out);
}

static void release_tags(struct me *me, struct me_path *p)
{
    size_t i;
    pthread_mutex_lock(&me->lock);
    for (i = 0; i < p->n; i++) {
        if (p->h[i].s_vlan)
            me_tagtab_free_pair(me->tags, p->h[i].a, p->h[i].b, p->h[i].s_vlan);
        p->h[i].s_vlan = 0;
    }
    pthread_mutex_unlock(&me->lock);
}

/* The S-VLAN the link between a and b had in old, or 0. */
static uint16_t old_tag(const struct me_path *old, const char *a, const char *b)
{
    size_t i;
    for (i = 0; old && i < old->n; i++)
        if ((strcmp(old->h[i].a, a) == 0 && strcmp(old->h[i].b, b) == 0) ||
            (strcmp(old->h[i].a, b) == 0 && strcmp(old->h[i].b, a) == 0))
            return old->h[i].s_vlan;
    return 0;
}

static int reserve_tags(struct me *me, struct me_path *p, const struct me_path *old)
{
    size_t i;
    pthread_mutex_lock(&me->lock);
    for (i = 0; i < p->n; i++) {
        p->h[i].s_vlan = me_tagtab_alloc_pair_avoid(me->tags, p->h[i].a, p->h[i].b,
                                                    old_tag(old, p->h[i].a, p->h[i].b));
        if (!p->h[i].s_vlan)
            break;
    }
    pthread_mutex_unlock(&me->lock);
    if (i < p->n) {
        release_tags(me, p);
        return -1;
    }
    return 0;
}

static void mark_time(struct me_evc *e, const char *field)
{
    char now[32];
    me_now(now);
    json_object_object_add(e->doc, field, json_object_new_string(now));
}

static bool deploy(struct me *me, struct me_evc *e, const char *const *avoid, size_t n_avoid,
                   const struct me_path *old);

bool me_deploy_finish(struct me *me, struct me_evc *e, struct me_path *path, bool installed)
{
    if (!installed) {
        /* Kytos removes what it may have left behind */
        struct json_object *del = me_flows_delete_body(e, path);
        me_flows_send(me, del, false, true);
        release_tags(me, path);
        me_path_clear(path);
        return false;
    }
    me_path_clear(&e->current);
    e->current = *path;
    *path = (struct me_path){0};
    e->intra_deployed = e->current.n == 0;
    e->active = true;
    /* the consistency rounds' sightings were of the old path: the new one
     * starts unseen (failover.c, stale_again) */
    e->stale_rounds = 0;
    return true;
}

/* Install the flows of e over path (tags reserved; taken over, released on
 * a failure) and make it e's current path.  true when installed. */
static bool install(struct me *me, struct me_evc *e, struct me_path *path)
{
    struct json_object *flows = me_flows_build(e, path);
    unsigned st = me_flows_send(me, flows, true, false);

    return me_deploy_finish(me, e, path, st == 202);
}

bool me_deploy(struct me *me, struct me_evc *e, const char *const *avoid, size_t n_avoid)
{
    return deploy(me, e, avoid, n_avoid, NULL);
}

bool me_deploy_avoiding_tags(struct me *me, struct me_evc *e, const struct me_path *old)
{
    return deploy(me, e, NULL, 0, old);
}

int me_deploy_prepare(struct me *me, struct me_evc *e, const struct me_snap *snap,
                      const char *const *avoid, size_t n_avoid, const struct me_path *old,
                      struct me_pathcache *pc, struct me_path *out)
{
    me_path_clear(out);
    if (strcmp(e->a.dpid, e->z.dpid) == 0)
        return 0;   /* intra-switch: no path */
    if (choose_path(me, e, snap, avoid, n_avoid, pc, out) != 0 || out->n == 0) {
        me_path_clear(out);
        kytos_log(me->napp, KYTOS_LOG_INFO, "EVC(%s) has no path to deploy on", e->id);
        return -1;
    }
    if (reserve_tags(me, out, old) != 0) {
        me_path_clear(out);
        kytos_log(me->napp, KYTOS_LOG_WARNING, "EVC(%s): no S-VLAN available on its path", e->id);
        return -1;
    }
    return 0;
}

void me_deploy_mark(struct me_evc *e)
{
    mark_time(e, "last_deployed_at");
}

static bool deploy(struct me *me, struct me_evc *e, const char *const *avoid, size_t n_avoid,
                   const struct me_path *old)
{
    struct me_snap *snap;
    struct me_path path = {0};
    int rc;

    if (!e->enabled || e->archived)
        return false;
    if (e->active)
        return true;
    snap = me_snapshot(me, 0);
    rc = me_deploy_prepare(me, e, snap, avoid, n_avoid, old, NULL, &path);
    me_snap_put(snap);
    if (rc != 0 || !install(me, e, &path))
        return false;
    mark_time(e, "last_deployed_at");
    return true;
}

bool me_deploy_on(struct me *me, struct me_evc *e, const struct me_path *p)
{
    struct me_path path = {0};
    size_t i;

    if (!e->enabled || e->archived || e->active ||
        (p->n == 0 && strcmp(e->a.dpid, e->z.dpid) != 0))
        return false;
    if (p->n && !(path.h = calloc(p->n, sizeof *path.h)))
        return false;
    pthread_mutex_lock(&me->lock);
    for (i = 0; i < p->n; i++) {
        path.h[i] = p->h[i];
        if (me_tagtab_use_pair(me->tags, p->h[i].a, p->h[i].b, p->h[i].s_vlan) != 0)
            break;
        path.n = i + 1;
    }
    pthread_mutex_unlock(&me->lock);
    if (i < p->n) {
        kytos_log(me->napp, KYTOS_LOG_WARNING, "EVC(%s): its previous S-VLANs are taken", e->id);
        release_tags(me, &path);
        me_path_clear(&path);
        return false;
    }
    return install(me, e, &path);
}

struct json_object *me_undeploy_local(struct me *me, struct me_evc *e)
{
    struct json_object *del = NULL;

    if (e->current.n || e->intra_deployed || e->active) {
        del = me_flows_delete_body(e, &e->current);
        mark_time(e, "last_removed_at");
    }
    release_tags(me, &e->current);
    me_path_clear(&e->current);
    e->intra_deployed = false;
    e->active = false;
    return del;
}

void me_undeploy(struct me *me, struct me_evc *e)
{
    struct json_object *del = me_undeploy_local(me, e);

    if (del) {
        me_flows_send(me, del, false, true);
    }
}
