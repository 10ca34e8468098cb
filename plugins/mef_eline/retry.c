/* plugins/mef_eline/retry.c - store writes no request waits for (link
 * events, the consistency round, schedules), retried until they succeed.
 *
 * Such a write changes what the switches and memory hold whether the store
 * takes it or not; a refused one would leave a stale document for the next
 * start.  The EVC is marked (store_pending, under its lock) and a timer
 * (setting store_retry_interval, seconds, default 1) writes the marked EVCs'
 * current documents.  Any successful write of the EVC clears the mark
 * (me_evc_put), so a deletion stored since is never undone: the archive is
 * written before the EVC is archived in memory and rolled back when refused,
 * and a refused creation archives an EVC nothing has marked.  One log line
 * when an EVC is first marked, one when it is stored again.  The host stops
 * the timer (and waits for a run in progress) before the NApp's stop, which
 * tries once more. */
#include "me.h"
#include "../common/retry_interval.h"

void me_evc_save(struct me *me, struct me_evc *e)
{
    struct kytos_error err = {0};

    if (me_evc_put(me, e, &err) == KYTOS_OK || atomic_load(&e->store_pending))
        return;   /* stored, or already retried (logged when first refused) */
    atomic_store(&e->store_pending, true);
    atomic_store(&me->store_retry, true);
    kytos_log(me->napp, KYTOS_LOG_ERROR, "storing EVC %s failed: %s; retrying until stored",
              e->id, err.message);
}

static bool is_pending(const struct me_evc *e, void *ud)
{
    (void)ud;
    return atomic_load(&e->store_pending);
}

static void retry(kytos_napp *napp, void *ud)
{
    struct me *me = ud;
    struct me_evc **list;
    bool left = false;
    size_t i;

    (void)napp;
    /* cleared before the scan: a mark set meanwhile sets it again */
    if (!atomic_exchange(&me->store_retry, false))
        return;
    list = me_evc_select(me, is_pending, NULL);   /* only those: no other EVC is locked */
    for (i = 0; list && list[i]; i++) {
        struct me_evc *e = list[i];
        struct kytos_error err = {0};
        int rc = KYTOS_OK;
        pthread_mutex_lock(&e->lock);
        if (atomic_load(&e->store_pending))
            rc = me_evc_put(me, e, &err);
        pthread_mutex_unlock(&e->lock);
        if (rc != KYTOS_OK)
            left = true;
        /* a store that is down may take long to say so (MongoDB's server
         * selection): once per round, not once per EVC */
        if (rc == KYTOS_EUNAVAIL || rc == KYTOS_ETIMEDOUT || rc == KYTOS_EIO)
            break;
    }
    me_evc_release_all(list);
    if (left || !list)
        atomic_store(&me->store_retry, true);
}

/* A bad value refuses the NApp with its reason, as topology does. */
int me_retry_settings(struct me *me, char **errmsg)
{
    return napp_store_retry_ms(kytos_napp_settings(me->napp), &me->store_retry_ms, errmsg);
}

int me_retry_start(struct me *me)
{
    return kytos_timer_add(me->napp, me->store_retry_ms, retry, me);
}

void me_retry_last(struct me *me)
{
    retry(me->napp, me);
    if (atomic_load(&me->store_retry))
        kytos_log(me->napp, KYTOS_LOG_ERROR, "stopping with EVCs the store refused: it keeps "
                                             "their older state");
}
