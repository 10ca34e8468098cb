/* plugins/topology/op.c - write ops: serialise changes, persist them in
 * order, rebuild the snapshot, then publish the queued events with no lock
 * held (see the locking notes in topo.h). */
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
    struct topo_evq *q = &op->evq;

    if (q->n == q->cap) {
        size_t ncap = q->cap ? q->cap * 2 : 8;
        struct topo_event *nv = realloc(q->v, ncap * sizeof(*nv));
        if (!nv) {
            json_object_put(content);
            return;
        }
        q->v = nv;
        q->cap = ncap;
    }
    q->v[q->n].name = strdup(name);
    if (!q->v[q->n].name) {
        json_object_put(content);
        return;
    }
    q->v[q->n].content = content;
    q->n++;
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
            return;
        }
    }
    if (op->n_writes == op->cap_writes) {
        size_t ncap = op->cap_writes ? op->cap_writes * 2 : 4;
        struct topo_write *nv = realloc(op->writes, ncap * sizeof(*nv));
        if (!nv) {
            json_object_put(doc);
            return;
        }
        op->writes = nv;
        op->cap_writes = ncap;
    }
    op->writes[op->n_writes].coll = coll;
    op->writes[op->n_writes].id = strdup(id);
    op->writes[op->n_writes].doc = doc;
    if (!op->writes[op->n_writes].id) {
        json_object_put(doc);
        return;
    }
    op->n_writes++;
}

void topo_op_persist_switch(struct topo_op *op, struct topo_switch *sw)
{
    struct json_object *doc = topo_switch_doc(sw);

    if (doc)
        queue_write(op, "switches", sw->dpid, doc);
}

void topo_op_persist_link(struct topo_op *op, struct topo_link *l)
{
    struct json_object *doc = topo_link_doc(l);

    if (doc)
        queue_write(op, "links", l->id, doc);
}

void topo_op_persist_tags(struct topo_op *op, struct topo_intf *i)
{
    struct json_object *doc = topo_tags_doc(i);

    if (doc)
        queue_write(op, TOPO_TAGS_COLL, i->id, doc);
}

void topo_op_delete_doc(struct topo_op *op, const char *coll, const char *id)
{
    queue_write(op, coll, id, NULL);
}

static void run_writes(struct topo_op *op)
{
    struct kytos_error err;

    for (size_t i = 0; i < op->n_writes; i++) {
        struct topo_write *w = &op->writes[i];
        int rc;
        memset(&err, 0, sizeof(err));
        if (w->doc)
            rc = kytos_store_put(op->t->napp, w->coll, w->id, w->doc, &err);
        else
            rc = kytos_store_delete(op->t->napp, w->coll, w->id, &err);
        if (rc < 0 && !(rc == KYTOS_ENOTFOUND && !w->doc))
            kytos_log(op->t->napp, KYTOS_LOG_ERROR, "store %s %s/%s failed: %s",
                      w->doc ? "put" : "delete", w->coll, w->id,
                      err.message[0] ? err.message : kytos_strerror(rc));
        json_object_put(w->doc);
        free(w->id);
    }
    free(op->writes);
    op->writes = NULL;
    op->n_writes = op->cap_writes = 0;
}

void topo_op_end(struct topo_op *op)
{
    struct topo *t = op->t;
    struct topo_evq q;
    struct kytos_pub_opts opts = {.struct_size = sizeof(opts), .timeout_ms = -1};
    bool notify = false;

    run_writes(op);
    if (op->changed) {
        if (!topo_snapshot_rebuild(t))
            kytos_log(t->napp, KYTOS_LOG_ERROR, "out of memory rebuilding the topology bodies");
        notify = !op->quiet && !atomic_exchange(&t->updated_pending, true);
    }
    q = op->evq;
    op->evq = (struct topo_evq){0};
    pthread_mutex_unlock(&t->write_lock);

    for (size_t i = 0; i < q.n; i++) {
        int rc = kytos_event_publish(t->napp, q.v[i].name, q.v[i].content, &opts);
        if (rc < 0)
            kytos_log(t->napp, KYTOS_LOG_WARNING, "publish %s failed: %s", q.v[i].name,
                      kytos_strerror(rc));
        json_object_put(q.v[i].content);
        free(q.v[i].name);
    }
    free(q.v);
    if (notify) {
        int rc = kytos_event_publish(t->napp, TOPO_NOTIFY_UPDATE, NULL, &opts);
        if (rc < 0) {
            atomic_store(&t->updated_pending, false);
            kytos_log(t->napp, KYTOS_LOG_WARNING, "publish %s failed: %s", TOPO_NOTIFY_UPDATE,
                      kytos_strerror(rc));
        }
    }
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
    content = topo_snapshot_tree(t);
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
