/* plugins/mef_eline/failover.c - a link went down: its EVCs move in
 * batches instead of one at a time.
 *
 * One EVC after the other cost three round trips each (flow_manager's
 * delete and install, each waiting for its store commit, then the EVC's own
 * store write) and a pathfinder request: thousands of EVCs on a link took
 * minutes of mostly waiting.  Here the EVCs on the link are taken BATCH at a
 * time, each of them locked for the whole batch (Kytos' evc.lock), and:
 *   1. their flows are deleted in one flow_manager call (per switch, the
 *      cookies of every EVC that had flows there);
 *   2. each chooses its path as me_deploy does (primary path if up, backup
 *      path if up, else a dynamic path) avoiding the link; dynamic paths are
 *      computed once per distinct request (pathcache.c) for the whole
 *      failure, over one topology snapshot;
 *   3. the new flows of every EVC with a path go in one flow_manager call
 *      (flows grouped per switch).  If flow_manager refuses it (one switch
 *      may be gone), each EVC is installed on its own as before, so that
 *      only those that cannot be installed go down;
 *   4. each EVC publishes kytos/mef_eline.redeployed_link_down or
 *      .error_redeploy_link_down, as before, in the order of the batch;
 *   5. their documents are written in one store bulk; when the store refuses
 *      it, each is marked for retry.c's timer, as a single refused write is.
 * The consistency round moves the active EVCs whose path went down unnoticed
 * the same way (no link avoided, no events, as before).
 * Two movers (this thread and a helper) take batches from the list at
 * once: each batch waits on the store's writer three times, and while one
 * mover waits the other builds (move_all).
 * BATCH stays well under the 64 locks one thread may hold under
 * ThreadSanitizer's deadlock detector, and bounds how long a request on one
 * of these EVCs can wait for its lock.  It is 16, not more: each flow of a
 * batch becomes several json-c trees on its way through flow_manager (each
 * object a 640-byte table), and at 32 (40 flows per EVC the long way round
 * a ring) a batch's garbage outgrew what the allocator keeps warm: twice
 * the page faults, a third more CPU (bench/scale-bench.py, link_down, 667
 * EVCs: 62,000 faults and 3.4 CPU s at 32, 26,000 and 2.6 at 16, 2.8 at 8
 * for the extra calls). */
#include "me.h"

#include <stdlib.h>
#include <string.h>

#define BATCH 16

/* Append the flows of body (flows_by_switch) to into's, per switch. */
static void merge(struct json_object *into, struct json_object *body)
{
    json_object_object_foreach(body, dpid, sw)
    {
        struct json_object *flows, *dst, *dst_flows;
        if (!json_object_object_get_ex(sw, "flows", &flows))
            continue;
        if (!json_object_object_get_ex(into, dpid, &dst)) {
            json_object_object_add(into, dpid, json_object_get(sw));
            continue;
        }
        json_object_object_get_ex(dst, "flows", &dst_flows);
        for (size_t i = 0; i < json_object_array_length(flows); i++)
            json_object_array_add(dst_flows, json_object_get(json_object_array_get_idx(flows, i)));
    }
}

/* What a move takes (checked again under each EVC's lock) and how. */
struct move {
    const char *avoid;           /* the link that went down, or NULL */
    const struct me_snap *snap;  /* the topology the new paths are chosen on */
    bool events;                 /* redeployed_link_down / error_redeploy_link_down */
    bool (*take)(const struct me_evc *e, const struct move *m);
};

static bool on_link(const struct me_evc *e, const struct move *m)
{
    return !e->archived && e->active && me_path_uses(&e->current, m->avoid);
}

static bool select_on_link(const struct me_evc *e, void *m)
{
    return on_link(e, m);
}

/* Active, enabled, not scheduled, on a path that is no longer up. */
static bool stale(const struct me_evc *e, const struct move *m)
{
    return !e->archived && e->enabled && e->active && e->current.n &&
           !me_evc_scheduled(e) &&
           !me_path_up(&e->current, m->snap);
}

/* Step 5: one write for the batch, else retry.c takes each over. */
static void store(struct me *me, struct me_evc *const *evcs, size_t n, const char *why)
{
    struct kytos_error err = {0};
    size_t i;

    if (me_evc_put_many(me, evcs, n, &err) == KYTOS_OK)
        return;
    for (i = 0; i < n; i++)
        atomic_store(&evcs[i]->store_pending, true);
    atomic_store(&me->store_retry, true);
    kytos_log(me->napp, KYTOS_LOG_ERROR,
              "storing %zu EVCs moved (%s) failed: %s; retrying until stored", n, why, err.message);
}

/* evcs[0..n) locked and taken by m: steps 1 to 5.  Counts into *up, *down;
 * *last_up: when the batch's moved EVCs were on their new paths. */
static void batch(struct me *me, struct me_evc *const *evcs, size_t n, const struct move *m,
                  struct me_pathcache *pc, size_t *up, size_t *down, int64_t *last_up)
{
    const char *avoid[1] = {m->avoid};
    size_t n_avoid = m->avoid ? 1 : 0;
    struct me_path paths[BATCH];
    bool ready[BATCH], bulk_ok;
    struct json_object *del = json_object_new_object(), *add = json_object_new_object(), *b;
    size_t i, nready = 0, up0 = *up;

    for (i = 0; i < n; i++) {
        if ((b = me_undeploy_local(me, evcs[i]))) {
            merge(del, b);
            json_object_put(b);
        }
    }
    me_flows_send(me, del, false, true);

    for (i = 0; i < n; i++) {
        struct me_evc *e = evcs[i];
        paths[i] = (struct me_path){0};
        ready[i] = e->enabled && !e->archived &&
                   me_deploy_prepare(me, e, m->snap, avoid, n_avoid, NULL, pc, &paths[i]) == 0;
        if (ready[i]) {
            b = me_flows_build(e, &paths[i]);
            merge(add, b);
            json_object_put(b);
            nready++;
        }
    }
    bulk_ok = me_flows_send(me, add, true, false) == 202;   /* 202 when empty */
    if (!bulk_ok)
        kytos_log(me->napp, KYTOS_LOG_WARNING,
                  "installing %zu EVCs at once failed: installing them one by one", nready);

    for (i = 0; i < n; i++) {
        struct me_evc *e = evcs[i];
        bool ok = false;
        if (ready[i]) {
            bool sent = bulk_ok;
            if (!sent) {
                b = me_flows_build(e, &paths[i]);
                sent = me_flows_send(me, b, true, false) == 202;
            }
            ok = me_deploy_finish(me, e, &paths[i], sent);
            if (ok)
                me_deploy_mark(e);
        }
        ready[i] = ok;
        if (ok) {
            (*up)++;
        } else {
            if (m->avoid)
                kytos_log(me->napp, KYTOS_LOG_INFO, "EVC(%s) is down: link %s went down", e->id,
                          m->avoid);
            (*down)++;
        }
    }
    /* the batch's flows went out together: one time for all its moves */
    if (*up > up0)
        *last_up = me_now_ms();
    store(me, evcs, n, m->avoid ? m->avoid : "path down");
    /* after the store: a listener that reads the EVC back finds it moved */
    for (i = 0; m->events && i < n; i++)
        me_publish(me, ready[i] ? "redeployed_link_down" : "error_redeploy_link_down", evcs[i]);
}

/* One mover: batches claimed from the shared list until none is left. */
struct mover {
    struct me *me;
    struct me_evc **list;
    size_t len;
    atomic_size_t *next;         /* the first EVC of the list not claimed */
    const struct move *m;
    size_t up, down, computed;
    int64_t last_up;             /* when its last EVC was on its new path */
};

static void *mover_run(void *arg)
{
    struct mover *w = arg;
    struct me_pathcache *pc = me_pathcache_new();
    struct me_evc *held[BATCH];
    size_t i, end, n, k;

    while ((i = atomic_fetch_add(w->next, BATCH)) < w->len) {
        end = i + BATCH < w->len ? i + BATCH : w->len;
        /* lock the EVCs still taken (a request may have changed one since
         * the selection) */
        for (n = 0; i < end; i++) {
            pthread_mutex_lock(&w->list[i]->lock);
            if (w->m->take(w->list[i], w->m))
                held[n++] = w->list[i];
            else
                pthread_mutex_unlock(&w->list[i]->lock);
        }
        if (n)
            batch(w->me, held, n, w->m, pc, &w->up, &w->down, &w->last_up);
        for (k = 0; k < n; k++)
            pthread_mutex_unlock(&held[k]->lock);
    }
    w->computed = me_pathcache_misses(pc);
    me_pathcache_free(pc);
    return NULL;
}

/* Every EVC of list that m takes, BATCH at a time, by MOVERS threads (this
 * one and helpers) when there is more than one batch.  Each batch waits
 * three times for the store's writer (flow_manager stores the deletes and
 * then the adds before sending them; then the EVCs' documents): while one
 * mover waits, the other builds its batch, so the two cores and the writer
 * overlap instead of taking turns.  Each has its own path cache (at most one more
 * computation per distinct request). */
#define MOVERS 2

/* What move_all did: EVCs moved and down, dynamic paths computed, and
 * when the last EVC moved was on its new path (0 when none was). */
struct moved {
    size_t up, down, computed;
    int64_t last_up;
};

static struct moved move_all(struct me *me, struct me_evc **list, const struct move *m)
{
    atomic_size_t next = 0;
    struct mover w[MOVERS];
    pthread_t helper[MOVERS];
    bool started[MOVERS] = {false};
    struct moved r = {0};
    size_t len = 0, k;

    while (list && list[len])
        len++;
    for (k = 0; k < MOVERS; k++)
        w[k] = (struct mover){.me = me, .list = list, .len = len, .next = &next, .m = m};
    /* a helper that cannot start leaves its share to the others */
    for (k = 1; k < MOVERS && len > BATCH; k++)
        started[k] = pthread_create(&helper[k], NULL, mover_run, &w[k]) == 0;
    mover_run(&w[0]);
    for (k = 0; k < MOVERS; k++) {
        if (k && started[k])
            pthread_join(helper[k], NULL);
        r.up += w[k].up;
        r.down += w[k].down;
        r.computed += w[k].computed;
        if (w[k].last_up > r.last_up)
            r.last_up = w[k].last_up;
    }
    return r;
}

void me_failover_link_down(struct me *me, const char *link)
{
    struct move m = {.avoid = link, .events = true, .take = on_link};
    struct me_evc **list = me_evc_select_locked(me, select_on_link, &m);
    struct me_snap *snap = me_snapshot(me, 2);
    int64_t t0 = me_now_ms();
    struct moved r;

    if (!snap)
        snap = me_snapshot(me, 0);
    m.snap = snap;
    r = move_all(me, list, &m);
    /* the benches read this line: keep its start */
    if (r.up + r.down)
        kytos_log(me->napp, KYTOS_LOG_INFO,
                  "link %s down: %zu EVCs moved, %zu down, in %lld ms (%zu dynamic paths "
                  "computed; the last moved at %lld ms)",
                  link, r.up, r.down, (long long)(me_now_ms() - t0), r.computed,
                  (long long)(r.up ? r.last_up - t0 : 0));
    me_snap_put(snap);
    me_evc_release_all(list);
}

/* The round moves an EVC only when the round before found its path down
 * too.  After a start, topology holds each link down until the network
 * shows it again, one link after another: an EVC whose links are merely
 * not back yet must stay, or its flows and document are rewritten twice
 * (out and back).  A real failure reaches the EVCs at once as link_down;
 * this round only catches what a race let through, so a round's delay
 * costs nothing (Kytos' execute loop waits too: wait_for_old_path). */
static bool stale_again(const struct me_evc *e, const struct move *m)
{
    return stale(e, m) && e->stale_rounds >= 2;
}

/* Counts the rounds under the EVC's lock: me_evc_select_locked runs the
 * predicate holding it, the one place every live EVC is seen each round. */
static bool select_stale(const struct me_evc *e, void *m)
{
    struct me_evc *w = (struct me_evc *)e;

    w->stale_rounds = stale(e, m) ? (e->stale_rounds < 2 ? e->stale_rounds + 1 : 2) : 0;
    return stale_again(e, m);
}

void me_failover_stale(struct me *me, const struct me_snap *snap)
{
    struct move m = {.snap = snap, .take = stale_again};
    struct me_evc **list = me_evc_select_locked(me, select_stale, &m);
    int64_t t0 = me_now_ms();
    struct moved r = move_all(me, list, &m);

    if (r.up + r.down)
        kytos_log(me->napp, KYTOS_LOG_INFO,
                  "consistency: %zu EVCs off a path that went down moved, %zu down, in %lld ms",
                  r.up, r.down, (long long)(me_now_ms() - t0));
    me_evc_release_all(list);
}
