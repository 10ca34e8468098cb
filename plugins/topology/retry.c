/* plugins/topology/retry.c - store writes that must not be lost, retried
 * until the store takes them (the design of plugins/mef_eline/retry.c).
 *
 * An op driven by events saves nothing to undo: memory keeps its change
 * whether the store takes it or not, and a refused write would leave a
 * stale document for the next start.  An undone REST op writes again the
 * documents its first writes had changed; a refused rewrite leaves the
 * store behind memory the same way.  Such a refused write marks its
 * (collection, id) (run_writes, op.c).  A timer (setting
 * store_retry_interval, seconds, default 1) writes the marked entities'
 * current documents: the switch, link or interface tags as memory has them
 * now, or a delete when memory no longer has the entity.  Any successful
 * write of a (collection, id) clears its mark, so a deletion stored since
 * is never undone.  One log line when first marked, one when stored again;
 * one last try at stop.  A retry changes no entity (only the documents'
 * updated_at stamps): no event, no snapshot rebuild.
 *
 * Locking: the marks are guarded by t->write_lock, which every op holds
 * from topo_op_begin to topo_op_end and the timer holds for its round, so
 * a round never interleaves with an op's writes.  Like an op, the round
 * takes t->rw (write mode: building a document stamps updated_at) only
 * while it builds a document, never during a store write: write_lock,
 * then rw.  The store calls are synchronous; no store callback takes a
 * lock of ours.  t->store_retry is the timer's lock-free "anything
 * marked?" for its idle ticks.
 *
 * Bounded: one mark per (collection, id), dropped once stored; repeated
 * refusals of one document never add a second. */
#include "topo.h"

#include <stdlib.h>
#include <string.h>

/* The collections topology writes, by enum topo_coll. */
static const char *const colls[TOPO_N_COLLS] = {
    [TOPO_COLL_SWITCHES] = "switches",
    [TOPO_COLL_LINKS] = "links",
    [TOPO_COLL_TAGS] = TOPO_TAGS_COLL,
};

static bool coll_of(const char *name, enum topo_coll *c)
{
    for (int k = 0; k < TOPO_N_COLLS; k++) {
        if (strcmp(colls[k], name) == 0) {
            *c = (enum topo_coll)k;
            return true;
        }
    }
    return false;
}

/* The mark of (coll, id), or the number of marks when none. */
static size_t find_mark(const struct topo *t, enum topo_coll coll, const char *id)
{
    size_t k;

    for (k = 0; k < t->n_marks; k++)
        if (t->marks[k].coll == coll && strcmp(t->marks[k].id, id) == 0)
            break;
    return k;
}

static bool add_mark(struct topo *t, enum topo_coll coll, const char *id)
{
    char *copy;

    if (t->n_marks == t->cap_marks) {
        size_t ncap = t->cap_marks ? t->cap_marks * 2 : 8;
        struct topo_mark *nv = realloc(t->marks, ncap * sizeof(*nv));
        if (!nv)
            return false;
        t->marks = nv;
        t->cap_marks = ncap;
    }
    copy = strdup(id);
    if (!copy)
        return false;
    t->marks[t->n_marks++] = (struct topo_mark){.coll = coll, .id = copy};
    atomic_store(&t->store_retry, true);
    return true;
}

/* The mark k is stored: logged and dropped. */
static void drop_mark(struct topo *t, size_t k)
{
    kytos_log(t->napp, KYTOS_LOG_INFO, "stored %s/%s again", colls[t->marks[k].coll], t->marks[k].id);
    free(t->marks[k].id);
    /* kept in the order marked: retried in that order */
    memmove(&t->marks[k], &t->marks[k + 1], (t->n_marks - k - 1) * sizeof(*t->marks));
    t->n_marks--;
    if (t->n_marks == 0)
        atomic_store(&t->store_retry, false);
}

void topo_retry_refused(struct topo *t, const char *coll, const char *id, const char *why)
{
    enum topo_coll c;
    bool known = coll_of(coll, &c);

    if (known && find_mark(t, c, id) < t->n_marks)
        return;   /* already retried (logged when first refused) */
    if (known && add_mark(t, c, id))
        kytos_log(t->napp, KYTOS_LOG_ERROR, "storing %s/%s failed: %s; retrying until stored",
                  coll, id, why);
    else
        kytos_log(t->napp, KYTOS_LOG_ERROR, "storing %s/%s failed: %s; not retried (%s)", coll,
                  id, why, known ? "out of memory" : "unknown collection");
}

void topo_retry_stored(struct topo *t, const char *coll, const char *id)
{
    enum topo_coll c;
    size_t k;

    if (t->n_marks == 0 || !coll_of(coll, &c))
        return;   /* the usual case: nothing marked */
    k = find_mark(t, c, id);
    if (k < t->n_marks)
        drop_mark(t, k);
}

/* The entity's current document (new ref) in *doc; false when memory no
 * longer has the entity.  true with *doc NULL: out of memory. */
static bool current_doc(struct topo *t, const struct topo_mark *m, struct json_object **doc)
{
    struct topo_switch *sw;
    struct topo_link *l;
    struct topo_intf *i;

    *doc = NULL;
    switch (m->coll) {
    case TOPO_COLL_SWITCHES:
        if (!(sw = topo_switch_find(t, m->id)))
            return false;
        *doc = topo_switch_doc(sw);
        return true;
    case TOPO_COLL_LINKS:
        if (!(l = topo_link_find(t, m->id)))
            return false;
        *doc = topo_link_doc(l);
        return true;
    case TOPO_COLL_TAGS:
        if (!(i = topo_intf_find_id(t, m->id)))
            return false;
        *doc = topo_tags_doc(i);
        return true;
    case TOPO_N_COLLS:
        break;
    }
    return false;
}

/* Write the marked entity's current document (or delete it): 0 once the
 * store has it, else the store's refusal (KYTOS_ENOMEM: no document). */
static int write_current(struct topo *t, const struct topo_mark *m)
{
    struct kytos_error err = {0};
    struct json_object *doc;
    bool found;
    int rc;

    pthread_rwlock_wrlock(&t->rw);
    found = current_doc(t, m, &doc);
    pthread_rwlock_unlock(&t->rw);
    if (found && !doc)
        return KYTOS_ENOMEM;
    if (!found) {
        rc = kytos_store_delete(t->napp, colls[m->coll], m->id, &err);
        return rc == KYTOS_ENOTFOUND ? 0 : rc;
    }
    rc = kytos_store_put(t->napp, colls[m->coll], m->id, doc, &err);
    json_object_put(doc);
    return rc;
}

/* Mark k to the end of the list (a document the store keeps refusing
 * does not stand before the others every round). */
static void move_last(struct topo *t, size_t k)
{
    struct topo_mark m = t->marks[k];

    memmove(&t->marks[k], &t->marks[k + 1], (t->n_marks - k - 1) * sizeof(*t->marks));
    t->marks[t->n_marks - 1] = m;
}

/* Rounds skipped after one that found the store down, at most. */
#define RETRY_BACKOFF_MAX 32

/* One round over the marks, in the order marked (caller holds
 * write_lock); false when it ended at a refusal of the whole store.  A
 * refusal is not logged again: the mark's first line said it is being
 * retried.  A store that is down may take long to say so (MongoDB's
 * server selection): the round ends at its first such answer instead of
 * holding every op back for one per mark; a refusal of one document (too
 * big, invalid) does not end it. */
static bool retry_round(struct topo *t)
{
    size_t k = 0;

    while (k < t->n_marks) {
        int rc = write_current(t, &t->marks[k]);
        if (rc >= 0) {
            drop_mark(t, k);
        } else if (rc == KYTOS_EUNAVAIL || rc == KYTOS_ETIMEDOUT || rc == KYTOS_EIO) {
            move_last(t, k);
            return false;
        } else {
            k++;
        }
    }
    return true;
}

/* While the store is down, each round waits for its answer with the write
 * lock held, so every op waits too: after such a round the next ones are
 * skipped, twice as many each time (1, 2, 4 ... RETRY_BACKOFF_MAX), until a
 * round gets through. */
static void on_retry_tick(kytos_napp *napp, void *ud)
{
    struct topo *t = ud;

    (void)napp;
    if (!atomic_load(&t->store_retry)) {
        t->retry_skip = t->retry_backoff = 0;   /* all stored: the next refusal starts afresh */
        return;
    }
    if (t->retry_skip > 0) {
        t->retry_skip--;   /* only this timer touches it: never two runs at once */
        return;
    }
    pthread_mutex_lock(&t->write_lock);
    if (retry_round(t)) {
        t->retry_backoff = 0;
    } else {
        t->retry_backoff = t->retry_backoff ? t->retry_backoff * 2 : 1;
        if (t->retry_backoff > RETRY_BACKOFF_MAX)
            t->retry_backoff = RETRY_BACKOFF_MAX;
        t->retry_skip = t->retry_backoff;
    }
    pthread_mutex_unlock(&t->write_lock);
}

int topo_retry_start(struct topo *t)
{
    return kytos_timer_add(t->napp, t->store_retry_ms, on_retry_tick, t);
}

void topo_retry_last(struct topo *t)
{
    pthread_mutex_lock(&t->write_lock);
    (void)retry_round(t);
    if (t->n_marks > 0)
        kytos_log(t->napp, KYTOS_LOG_ERROR, "stopping with %zu documents the store refused: it "
                                            "keeps their older state", t->n_marks);
    pthread_mutex_unlock(&t->write_lock);
}

void topo_retry_free(struct topo *t)
{
    for (size_t k = 0; k < t->n_marks; k++)
        free(t->marks[k].id);
    free(t->marks);
    t->marks = NULL;
    t->n_marks = t->cap_marks = 0;
}
