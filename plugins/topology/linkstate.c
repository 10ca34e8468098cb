/* plugins/topology/linkstate.c - when topology says a link is up or down.
 *
 * Kytos rules (main.py): a link that becomes active is held DOWN for
 * link_up_timer seconds (status hook); notify_link_up_if_status waits that
 * long, then reports kytos/topology.link_up if the link is UP;
 * notify_link_status_change reports link_up/link_down only when the link
 * crosses in or out of the set of links last reported up.  The waits are a
 * periodic timer here instead of a sleeping thread. */
#include "topo.h"

#include <stdlib.h>
#include <string.h>

static void queue_link_event(struct topo_op *op, const char *name, struct topo_link *l,
                             const char *reason)
{
    struct json_object *c = json_object_new_object();

    if (!c)
        return;
    json_object_object_add(c, "link", topo_link_dict(l, topo_now_ms()));
    json_object_object_add(c, "reason", json_object_new_string(reason));
    topo_op_event(op, name, c);
}

void topo_link_eval(struct topo_op *op, struct topo_link *l, const char *reason)
{
    bool up = topo_link_status(l, topo_now_ms()) == TOPO_UP && topo_link_is_enabled(l);

    if (up && !l->notified_up) {
        l->notified_up = true;
        queue_link_event(op, "kytos/topology.link_up", l, reason);
    } else if (!up && l->notified_up) {
        l->notified_up = false;
        queue_link_event(op, "kytos/topology.link_down", l, reason);
    }
}

static void pending_update(struct topo *t, struct topo_link *l, bool was)
{
    bool now = l->hold_until_ms || l->notify_due_ms;

    if (now && !was)
        atomic_fetch_add(&t->pending_timers, 1);
    else if (!now && was)
        atomic_fetch_sub(&t->pending_timers, 1);
}

void topo_link_hold(struct topo_op *op, struct topo_link *l)
{
    bool was = l->hold_until_ms || l->notify_due_ms;

    if (op->t->link_up_timer_ms <= 0)
        return;
    l->hold_until_ms = topo_now_ms() + op->t->link_up_timer_ms;
    pending_update(op->t, l, was);
}

void topo_link_notify_later(struct topo_op *op, struct topo_link *l, const char *reason)
{
    bool was = l->hold_until_ms || l->notify_due_ms;

    if (op->t->link_up_timer_ms <= 0) {
        topo_link_eval(op, l, reason);
        return;
    }
    l->notify_due_ms = topo_now_ms() + op->t->link_up_timer_ms;
    topo_set_str(&l->notify_reason, reason);
    pending_update(op->t, l, was);
}

void topo_handle_link_up(struct topo_op *op, struct topo_intf *i)
{
    struct topo_link *l = i->link;
    struct topo_intf *other;

    op->changed = true;
    if (!l)
        return;
    other = l->a == i ? l->b : l->a;
    if (!l->seen_change || !topo_link_is_active(l)) {
        l->seen_change = true;
        topo_link_hold(op, l);
        l->active = true;
    }
    /* every dependency must be active before link up is reported */
    if (!other->sw->active || !i->sw->active || !other->active || !i->active)
        return;
    topo_link_notify_later(op, l, "link up");
}

void topo_handle_link_down(struct topo_op *op, struct topo_intf *i)
{
    struct topo_link *l = i->link;

    op->changed = true;
    if (!l)
        return;
    l->active = false;
    topo_link_eval(op, l, "link down");
}

/* One pass over the links with a pending hold or notification. */
static void tick_op(struct topo *t)
{
    struct topo_op op;
    int64_t now;

    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    now = topo_now_ms();
    for (size_t n = 0; n < t->n_links; n++) {
        struct topo_link *l = t->links[n];
        bool was = l->hold_until_ms || l->notify_due_ms;
        if (!was)
            continue;
        if (l->hold_until_ms && now >= l->hold_until_ms) {
            l->hold_until_ms = 0;
            op.changed = true;  /* its status changes in GET v3/ */
        }
        if (l->notify_due_ms && now >= l->notify_due_ms) {
            char *reason = l->notify_reason;
            l->notify_due_ms = 0;
            l->notify_reason = NULL;
            if (topo_link_status(l, now) == TOPO_UP) {
                op.changed = true;
                topo_link_eval(&op, l, reason ? reason : "link up");
            }
            free(reason);
        }
        pending_update(t, l, was);
    }
    topo_op_unlock_model(&op);
    topo_op_end(&op);
}

void topo_linkstate_tick(kytos_napp *napp, void *ud)
{
    struct topo *t = ud;

    (void)napp;
    if (atomic_load(&t->pending_timers) > 0)
        tick_op(t);
}
