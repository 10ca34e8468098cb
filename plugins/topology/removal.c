/* plugins/topology/removal.c - the deletes of a write op, undoable.  An
 * entity a delete takes out of the model stays alive, on no list, until
 * the op's store writes are known (topo_op_end): freed when they all
 * succeeded, put back where it was when one failed, the same object with
 * its fields, metadata, tags and interfaces.  Kytos deletes from the
 * database first and from memory only after: a refused delete leaves the
 * entity in place, here too. */
#include "topo.h"

#include <stdlib.h>

/* Room for one more record; NULL (op->err set) when out of memory. */
static struct topo_removed *reserve(struct topo_op *op)
{
    struct topo_undo *u = &op->undo;

    if (u->n_removed == u->cap_removed) {
        size_t ncap = u->cap_removed ? u->cap_removed * 2 : 4;
        struct topo_removed *nv = realloc(u->removed, ncap * sizeof(*nv));
        if (!nv) {
            topo_op_fail(op, KYTOS_ENOMEM);
            return NULL;
        }
        u->removed = nv;
        u->cap_removed = ncap;
    }
    return &u->removed[u->n_removed];
}

static void recorded(struct topo_op *op)
{
    op->undo.n_removed++;
    op->undo.saved = true;
}

/* An endpoint re-cabled since belongs to its newer link: keep that one. */
static void unlink_endpoint(struct topo_intf *i, const struct topo_link *l)
{
    if (i->link != l)
        return;
    i->link = NULL;
    i->nni = false;
}

bool topo_op_remove_link(struct topo_op *op, struct topo_link *l)
{
    struct topo_removed *r = reserve(op);

    if (!r)
        return false;
    *r = (struct topo_removed){
        .kind = TOPO_RM_LINK, .link = l,
        .a_link = l->a->link, .b_link = l->b->link, .a_nni = l->a->nni, .b_nni = l->b->nni,
    };
    unlink_endpoint(l->a, l);
    unlink_endpoint(l->b, l);
    r->idx = topo_link_detach(op->t, l);
    recorded(op);
    return true;
}

bool topo_op_remove_intf(struct topo_op *op, struct topo_intf *i)
{
    struct topo_removed *r;

    if (topo_intf_any_link(op->t, i))
        return false;  /* the link would point at an interface on no list */
    r = reserve(op);
    if (!r)
        return false;
    *r = (struct topo_removed){.kind = TOPO_RM_INTF, .intf = i, .idx = topo_intf_detach(i)};
    recorded(op);
    return true;
}

bool topo_op_remove_switch(struct topo_op *op, struct topo_switch *sw)
{
    struct topo *t = op->t;
    struct topo_removed *r;

    /* the caller refuses a switch with links (a link left would point into
     * it once freed; removing them here would skip their documents and
     * events) */
    for (size_t n = 0; n < t->n_links; n++)
        if (t->links[n]->a->sw == sw || t->links[n]->b->sw == sw)
            return false;
    r = reserve(op);
    if (!r)
        return false;
    *r = (struct topo_removed){.kind = TOPO_RM_SWITCH, .sw = sw, .idx = topo_switch_detach(t, sw)};
    recorded(op);
    return true;
}

void topo_op_restore_removed(struct topo_op *op)
{
    struct topo_undo *u = &op->undo;

    /* last out, first back: each index is the one it had then */
    while (u->n_removed) {
        struct topo_removed *r = &u->removed[--u->n_removed];
        switch (r->kind) {
        case TOPO_RM_SWITCH:
            topo_switch_attach(op->t, r->sw, r->idx);
            break;
        case TOPO_RM_INTF:
            topo_intf_attach(r->intf, r->idx);
            break;
        case TOPO_RM_LINK:
            topo_link_attach(op->t, r->link, r->idx);
            r->link->a->link = r->a_link;
            r->link->a->nni = r->a_nni;
            r->link->b->link = r->b_link;
            r->link->b->nni = r->b_nni;
            break;
        }
    }
}

void topo_op_free_removed(struct topo_op *op)
{
    struct topo_undo *u = &op->undo;

    for (size_t k = 0; k < u->n_removed; k++) {
        struct topo_removed *r = &u->removed[k];
        switch (r->kind) {
        case TOPO_RM_SWITCH:
            topo_switch_free(r->sw);
            break;
        case TOPO_RM_INTF:
            topo_intf_free(r->intf);
            break;
        case TOPO_RM_LINK:
            topo_link_free(op->t, r->link);
            break;
        }
    }
    free(u->removed);
    u->removed = NULL;
    u->n_removed = u->cap_removed = 0;
}
