/* plugins/topology/op.c - write ops: serialise changes, persist them in
 * order, rebuild the snapshot, then publish the queued events with no lock
 * held (see the locking notes in topo.h).  A REST op whose writes fail is
 * told so (topo_op_end's result) and, when it saved what it changes, put
 * back in memory: the caller answers 500, and what it answered for is what
 * a restart loads.  A refused write nothing puts back (an event's, or the
 * rewrite of an undone op) is retried until stored (retry.c). */
#include "topo.h"

#include <stdlib.h>
#include <string.h>

void topo_op_begin(struct topo_op *op, struct topo *t)
{
    memset(op, 0, sizeof(*op));
    op->t = t;
    pthread_mutex_lock(&t->write_lock);
}

void topo_op_lock_model(struct topo_op *op)
{
    pthread_rwlock_wrlock(&op->t->rw);
}

void topo_op_unlock_model(struct topo_op *op)
{
    pthread_rwlock_unlock(&op->t->rw);
}

void topo_op_event(struct topo_op *op, const char *name, struct json_object *content)
{
    napp_evq_add(&op->evq, name, content);
}

/* The first error of the op is the one reported. */
void topo_op_fail(struct topo_op *op, int rc)
{
    if (!op->err)
        op->err = rc;
}

static void queue_write(struct topo_op *op, const char *coll, const char *id,
                        struct json_object *doc)
{
    /* a later write of the same document supersedes an earlier one */
    for (size_t i = 0; i < op->n_writes; i++) {
        struct topo_write *w = &op->writes[i];
        if (w->coll == coll && strcmp(w->id, id) == 0) {
            json_object_put(w->doc);
            w->doc = doc;
            w->done = false;
            return;
        }
    }
    if (op->n_writes == op->cap_writes) {
        size_t ncap = op->cap_writes ? op->cap_writes * 2 : 4;
        struct topo_write *nv = realloc(op->writes, ncap * sizeof(*nv));
        if (!nv)
            goto dropped;
        op->writes = nv;
        op->cap_writes = ncap;
    }
    op->writes[op->n_writes] = (struct topo_write){.coll = coll, .id = strdup(id), .doc = doc};
    if (!op->writes[op->n_writes].id)
        goto dropped;
    op->n_writes++;
    return;
dropped:
    json_object_put(doc);
    kytos_log(op->t->napp, KYTOS_LOG_ERROR, "store %s %s/%s dropped: out of memory",
              doc ? "put" : "delete", coll, id);
    topo_op_fail(op, KYTOS_ENOMEM);
}

static void queue_doc(struct topo_op *op, const char *coll, const char *id,
                      struct json_object *doc)
{
    if (doc) {
        queue_write(op, coll, id, doc);
    } else {
        kytos_log(op->t->napp, KYTOS_LOG_ERROR, "store put %s/%s dropped: out of memory", coll, id);
        topo_op_fail(op, KYTOS_ENOMEM);
    }
}

void topo_op_persist_switch(struct topo_op *op, struct topo_switch *sw)
{
    queue_doc(op, "switches", sw->dpid, topo_switch_doc(sw));
}

void topo_op_persist_link(struct topo_op *op, struct topo_link *l)
{
    queue_doc(op, "links", l->id, topo_link_doc(l));
}

void topo_op_persist_tags(struct topo_op *op, struct topo_intf *i)
{
    queue_doc(op, TOPO_TAGS_COLL, i->id, topo_tags_doc(i));
}

void topo_op_delete_doc(struct topo_op *op, const char *coll, const char *id)
{
    queue_write(op, coll, id, NULL);
}

/* A write the store refused.  The first writes of an op that saved what
 * it changes are undone (memory goes back to what the store still has);
 * any other refused write (an event's, an undo's rewrite) leaves the store
 * behind memory: retried until stored (retry.c), which logs it. */
static void refused(struct topo_op *op, const struct topo_write *w, int rc,
                    const struct kytos_error *err)
{
    const char *why = err->message[0] ? err->message : kytos_strerror(rc);

    if (op->undo.saved && !op->undone)
        kytos_log(op->t->napp, KYTOS_LOG_ERROR, "store %s %s/%s failed: %s",
                  w->doc ? "put" : "delete", w->coll, w->id, why);
    else
        topo_retry_refused(op->t, w->coll, w->id, why);
    topo_op_fail(op, rc);
}

/* The writes not done yet, in order; they stay listed (done). */
static void run_writes(struct topo_op *op)
{
    struct kytos_error err;

    for (size_t i = 0; i < op->n_writes; i++) {
        struct topo_write *w = &op->writes[i];
        int rc;
        if (w->done)
            continue;
        memset(&err, 0, sizeof(err));
        if (w->doc)
            rc = kytos_store_put(op->t->napp, w->coll, w->id, w->doc, &err);
        else
            rc = kytos_store_delete(op->t->napp, w->coll, w->id, &err);
        w->ok = rc >= 0 || (rc == KYTOS_ENOTFOUND && !w->doc);
        w->absent = rc == KYTOS_ENOTFOUND && !w->doc;
        /* a mark it had is done; not by a delete that found nothing: an
         * undo would bring the entity back without writing it (undo()),
         * and a later round's delete drops the mark anyway */
        if (w->ok && !w->absent)
            topo_retry_stored(op->t, w->coll, w->id);
        else if (!w->ok)
            refused(op, w, rc, &err);
        json_object_put(w->doc);
        w->doc = NULL;
        w->done = true;
    }
}

static void free_writes(struct topo_op *op)
{
    for (size_t i = 0; i < op->n_writes; i++) {
        json_object_put(op->writes[i].doc);
        free(op->writes[i].id);
    }
    free(op->writes);
    op->writes = NULL;
    op->n_writes = op->cap_writes = 0;
}

/* ---- undo ---- */

static size_t count_flags(const struct topo *t)
{
    size_t n = t->n_links;

    for (size_t s = 0; s < t->n_switches; s++)
        n += 1 + t->switches[s]->n_intfs;
    return n;
}

/* enabled of each switch then its interfaces, then each link's enabled
 * and notified_up; the op holds write_lock, so the set stays the same. */
static void copy_flags(struct topo *t, uint8_t *v, bool save)
{
    size_t k = 0;

    for (size_t s = 0; s < t->n_switches; s++) {
        struct topo_switch *sw = t->switches[s];
        if (save)
            v[k] = sw->enabled;
        else
            sw->enabled = v[k] & 1;
        k++;
        for (size_t i = 0; i < sw->n_intfs; i++, k++) {
            if (save)
                v[k] = sw->intfs[i]->enabled;
            else
                sw->intfs[i]->enabled = v[k] & 1;
        }
    }
    for (size_t n = 0; n < t->n_links; n++, k++) {
        struct topo_link *l = t->links[n];
        if (save) {
            v[k] = (uint8_t)(l->enabled | l->notified_up << 1);
        } else {
            l->enabled = v[k] & 1;
            l->notified_up = v[k] & 2;
        }
    }
}

bool topo_op_save_flags(struct topo_op *op)
{
    struct topo_undo *u = &op->undo;

    u->n_flags = count_flags(op->t);
    u->flags = malloc(u->n_flags ? u->n_flags : 1);
    if (!u->flags) {
        topo_op_fail(op, KYTOS_ENOMEM);
        return false;
    }
    copy_flags(op->t, u->flags, true);
    u->saved = true;
    return true;
}

bool topo_op_save_metadata(struct topo_op *op, struct json_object **md)
{
    struct topo_undo *u = &op->undo;

    if (json_object_deep_copy(*md, &u->md, NULL) != 0) {
        u->md = NULL;
        topo_op_fail(op, KYTOS_ENOMEM);
        return false;
    }
    u->md_at = md;
    u->saved = true;
    return true;
}

bool topo_op_save_tags(struct topo_op *op, struct topo_intf *i)
{
    struct topo_undo *u = &op->undo;

    if (i->tag_ranges) {
        u->ranges = malloc(i->n_tag_ranges * sizeof(*u->ranges));
        if (!u->ranges) {
            topo_op_fail(op, KYTOS_ENOMEM);
            return false;
        }
        memcpy(u->ranges, i->tag_ranges, i->n_tag_ranges * sizeof(*u->ranges));
        u->n_ranges = i->n_tag_ranges;
    }
    u->tags = i;
    u->special_set = i->special_set;
    u->n_special = i->n_special;
    memcpy(u->special, i->special, sizeof(u->special));
    u->saved = true;
    return true;
}

/* Model locked: put back what was saved, write again the documents
 * already stored or deleted (the failed ones kept their old state). */
static void undo(struct topo_op *op)
{
    struct topo_undo *u = &op->undo;
    struct topo *t = op->t;

    topo_op_restore_removed(op);  /* first: the flags are saved by position */
    if (u->flags) {
        if (count_flags(t) == u->n_flags)
            copy_flags(t, u->flags, false);
        else
            kytos_log(t->napp, KYTOS_LOG_ERROR, "undo: the topology changed, flags kept");
    }
    if (u->md_at) {
        json_object_put(*u->md_at);
        *u->md_at = u->md;
        u->md = NULL;
    }
    if (u->tags) {
        topo_tags_set_ranges(u->tags, u->ranges, u->n_ranges);
        u->ranges = NULL;
        u->tags->special_set = u->special_set;
        u->tags->n_special = u->n_special;
        memcpy(u->tags->special, u->special, sizeof(u->special));
    }
    for (size_t i = 0; i < op->n_writes; i++) {
        struct topo_write *w = &op->writes[i];
        if (!w->done || !w->ok || w->absent) {
            continue;
        } else if (strcmp(w->coll, "switches") == 0) {
            struct topo_switch *sw = topo_switch_find(t, w->id);
            if (sw)
                topo_op_persist_switch(op, sw);
        } else if (strcmp(w->coll, "links") == 0) {
            struct topo_link *l = topo_link_find(t, w->id);
            if (l)
                topo_op_persist_link(op, l);
        } else if (strcmp(w->coll, TOPO_TAGS_COLL) == 0) {
            struct topo_intf *intf = topo_intf_find_id(t, w->id);
            if (intf)
                topo_op_persist_tags(op, intf);
        }
    }
}

static void free_undo(struct topo_op *op)
{
    struct topo_undo *u = &op->undo;

    topo_op_free_removed(op);  /* none left when undone */
    free(u->flags);
    json_object_put(u->md);
    free(u->ranges);
    memset(u, 0, sizeof(*u));
}

int topo_op_end(struct topo_op *op)
{
    struct topo *t = op->t;
    struct napp_evq q;
    struct kytos_pub_opts opts = {.struct_size = sizeof(opts), .timeout_ms = -1};
    bool notify = false;
    int err;

    run_writes(op);
    if (op->err && op->undo.saved) {
        topo_op_lock_model(op);
        undo(op);
        topo_op_unlock_model(op);
        napp_evq_drop(&op->evq);
        op->quiet = true;
        op->undone = true;
        run_writes(op);
    }
    free_writes(op);
    free_undo(op);
    err = op->err;
    if (op->changed) {
        if (!topo_snapshot_rebuild(t))
            kytos_log(t->napp, KYTOS_LOG_ERROR, "out of memory rebuilding the topology bodies");
        notify = !op->quiet && !atomic_exchange(&t->updated_pending, true);
    }
    q = op->evq;
    op->evq = (struct napp_evq){0};
    pthread_mutex_unlock(&t->write_lock);

    napp_evq_publish(t->napp, &q, -1, false);
    if (notify) {
        int rc = kytos_event_publish(t->napp, TOPO_NOTIFY_UPDATE, NULL, &opts);
        if (rc < 0) {
            atomic_store(&t->updated_pending, false);
            kytos_log(t->napp, KYTOS_LOG_WARNING, "publish %s failed: %s", TOPO_NOTIFY_UPDATE,
                      kytos_strerror(rc));
        }
    }
    return err;
}

/* The coalesced kytos/topology.updated (see topo.h). */
static int on_notify_update(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct topo *t = ud;
    struct kytos_pub_opts opts = {.struct_size = sizeof(opts), .timeout_ms = -1};
    struct json_object *content;
    int rc;

    (void)napp;
    (void)ev;
    atomic_store(&t->updated_pending, false);  /* before reading: no change is missed */
    content = topo_snapshot_event(t);
    if (!content)
        return KYTOS_ENOMEM;
    rc = kytos_event_publish(t->napp, "kytos/topology.updated", content, &opts);
    if (rc < 0)
        kytos_log(t->napp, KYTOS_LOG_WARNING, "publish kytos/topology.updated failed: %s",
                  kytos_strerror(rc));
    json_object_put(content);
    return KYTOS_OK;
}

int topo_op_subscribe(struct topo *t)
{
    return kytos_event_subscribe(t->napp, &(struct kytos_sub){
        .struct_size = sizeof(struct kytos_sub),
        .pattern = "kytos/topology\\.notify_topology_update",
        .handler = on_notify_update,
        .ud = t,
        .pool = "dynamic_single",
    });
}
