/* plugins/mef_eline/loader.c - the stored EVCs load on a thread of their
 * own, so that kytosd serves as soon as the NApps started (issue 22: at
 * 2,000 EVCs the load held kytosd's start for 1.5 to 4 s on a loaded
 * machine, parsing every stored document).
 *
 * Until the load is done, whatever reads or changes the EVCs in memory
 * waits for it: every mef_eline route (me_routes_add wraps the handlers) and
 * the link events, the consistency round and the schedules' tick
 * (me_wait_loaded).  So nothing sees a partly loaded map: a request during
 * the load is only answered later, not wrongly.  The load needs no pool
 * thread (its topology read is an inline kytos_call), so the waits cannot
 * hold it up. */
#include "me.h"

#include <stdlib.h>

struct me_gate {
    struct me *me;
    kytos_handler h;
    struct me_gate *next;
};

static void *load_main(void *arg)
{
    struct me *me = arg;

    me_snap_put(me_snapshot(me, 2));
    me_load_all(me);
    pthread_mutex_lock(&me->load_mu);
    atomic_store(&me->loaded, true);
    pthread_cond_broadcast(&me->load_cv);
    pthread_mutex_unlock(&me->load_mu);
    return NULL;
}

void me_loader_start(struct me *me)
{
    if (pthread_create(&me->loader, NULL, load_main, me) == 0) {
        me->loader_started = true;
        return;
    }
    kytos_log(me->napp, KYTOS_LOG_WARNING, "no thread for loading EVCs: loading them now");
    load_main(me);
}

void me_loader_join(struct me *me)
{
    if (me->loader_started) {
        pthread_join(me->loader, NULL);
        me->loader_started = false;
    }
}

void me_wait_loaded(struct me *me)
{
    if (atomic_load(&me->loaded))
        return;
    pthread_mutex_lock(&me->load_mu);
    while (!atomic_load(&me->loaded))
        pthread_cond_wait(&me->load_cv, &me->load_mu);
    pthread_mutex_unlock(&me->load_mu);
}

static int gated(kytos_req *req, void *ud)
{
    struct me_gate *g = ud;
    me_wait_loaded(g->me);
    return g->h(req, g->me);
}

int me_route_gate(struct me *me, kytos_handler h, kytos_handler *out_h, void **out_ud)
{
    struct me_gate *g = malloc(sizeof *g);
    if (!g)
        return KYTOS_ENOMEM;
    g->me = me;
    g->h = h;
    g->next = me->gates;
    me->gates = g;
    *out_h = gated;
    *out_ud = g;
    return KYTOS_OK;
}

void me_route_gates_free(struct me *me)
{
    struct me_gate *g = me->gates, *n;
    for (; g; g = n) {
        n = g->next;
        free(g);
    }
    me->gates = NULL;
}
