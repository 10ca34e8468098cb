/* host/store/store_sqlite_merge.c - the embedded store (store_sqlite.h):
 * writes inside the writer's transaction: store, patch (the text splice fast
 * path and the general path), delete, and queued patches of one document
 * merged (kh_store_sqlite_bulk_batch). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "store/store_sqlite.h"

/* ---- writes (wmu held, inside a transaction) ---- */

/* Mark indexes that this document makes multikey; persist the change. */
static int note_multikey(struct sq_store *s, const char *coll, struct json_object *doc,
                         struct kytos_error *err)
{
    char flipped[SQ_MAX_INDEXES][KH_STORE_MAX_INDEX_NAME + 1];
    int nflip = 0, rc;
    struct sq_coll *c;

    pthread_mutex_lock(&s->mmu);
    if ((c = sq_coll_find(s, coll)) != NULL) {
        for (int k = 0; k < c->nix; k++) {
            struct sq_index *ix = &c->ix[k];
            if (ix->multikey)
                continue;
            for (int j = 0; j < ix->nkeys; j++) {
                if (kh_path_has_array(doc, &ix->keys[j])) {
                    /* set before commit: a reader then scans, never misses */
                    ix->multikey = 1;
                    snprintf(flipped[nflip++], sizeof(flipped[0]), "%s", ix->name);
                    break;
                }
            }
        }
    }
    pthread_mutex_unlock(&s->mmu);
    for (int k = 0; k < nflip; k++) {
        sqlite3_stmt *st;
        if ((rc = sq_prep(&s->writer, "UPDATE kh_indexes SET multikey=1 WHERE coll=?1 AND name=?2",
                          &st, err)) < 0)
            return rc;
        sqlite3_bind_text(st, 1, coll, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, flipped[k], -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        sq_done(st);
        if (rc != SQLITE_DONE)
            return sq_fail(s->writer.db, rc, err, coll, NULL);
    }
    return 0;
}

/* The writer's statement of a write of kind (SQ_W_*) to coll, with the
 * collection's key columns (store_sqlite_keycol.c). */
static int prep_write(struct sq_store *s, const char *coll, int kind, const struct kh_plan *pl,
                      sqlite3_stmt **st, struct kytos_error *err)
{
    char a[512];
    struct ku_buf b = KU_BUF_ON(a);
    int rc = sq_kcol_write_sql(s, coll, kind, pl, &b, err);

    if (rc == 0)
        rc = sq_prep(&s->writer, b.p, st, err);
    ku_buf_free(&b);
    return rc;
}

/* mode: 0 put (insert or replace), 1 insert, 2 replace an existing row */
int sq_w_store(struct sq_store *s, const char *coll, const char *id, const char *text, size_t len,
               struct json_object *doc, int mode, struct kytos_error *err)
{
    static const int kinds[] = {SQ_W_PUT, SQ_W_INSERT, SQ_W_REPLACE};
    sqlite3_stmt *st;
    int rc;

    if (doc && (rc = note_multikey(s, coll, doc, err)) < 0)
        return rc;
    if ((rc = prep_write(s, coll, kinds[mode], NULL, &st, err)) < 0)
        return rc;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, text, (int)len, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sq_done(st);
    if (rc != SQLITE_DONE)
        return sq_fail(s->writer.db, rc, err, coll, id);
    return 0;
}

/* Load the stored document (NULL, 0 when missing). */
int sq_load_doc(struct sq_store *s, struct sq_conn *c, const char *coll, const char *id,
                struct json_object **out, struct kytos_error *err)
{
    char sql[256];
    sqlite3_stmt *st;
    int rc;

    (void)s;
    *out = NULL;
    sq_coll_sql(sql, "SELECT doc FROM ", coll, " WHERE id=?1");
    if ((rc = sq_prep(c, sql, &st, err)) < 0)
        return rc;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *out = kh_doc_parse((const char *)sqlite3_column_text(st, 0), (size_t)sqlite3_column_bytes(st, 0),
                            coll, err);
        rc = *out ? 0 : (err ? err->code : KYTOS_EIO);
    } else if (rc == SQLITE_DONE) {
        rc = 0;
    } else {
        rc = sq_fail(c->db, rc, err, coll, id);
    }
    sq_done(st);
    return rc;
}

/* 1 if the plan puts an array on the path of an index not multikey yet:
 * the general path then flips it (note_multikey()). */
static int plan_multikey(struct sq_store *s, const char *coll, const struct kh_plan *pl, int inserting)
{
    struct sq_coll *c;
    int r = 0;

    pthread_mutex_lock(&s->mmu);
    if ((c = sq_coll_find(s, coll)) != NULL)
        for (int k = 0; k < c->nix && !r; k++)
            for (int j = 0; j < c->ix[k].nkeys && !c->ix[k].multikey && !r; j++)
                r = kh_plan_has_array(pl, &c->ix[k].keys[j], inserting);
    pthread_mutex_unlock(&s->mmu);
    return r;
}

/* An upsert either updates a stored document or inserts a new one; trying
 * the wrong statement first costs a look-up that finds nothing or an insert
 * refused as a duplicate.  Which comes first follows what the collection's
 * upserts did lately: a link failure's flows are nearly all new (an
 * UPDATE that missed before each of them made bench/scale-bench.py's
 * link_down about a tenth slower), a round of re-sent flows finds them all
 * stored. */
#define UPSERT_BIAS_MAX 16

static int upsert_insert_first(struct sq_store *s, const char *coll)
{
    struct sq_coll *c;
    int r = 0;

    pthread_mutex_lock(&s->mmu);
    if ((c = sq_coll_find(s, coll)) != NULL)
        r = c->upsert_bias > 0;
    pthread_mutex_unlock(&s->mmu);
    return r;
}

static void upsert_outcome(struct sq_store *s, const char *coll, int inserted)
{
    struct sq_coll *c;

    pthread_mutex_lock(&s->mmu);
    if ((c = sq_coll_find(s, coll)) != NULL) {
        if (inserted && c->upsert_bias < UPSERT_BIAS_MAX)
            c->upsert_bias++;
        else if (!inserted && c->upsert_bias > -UPSERT_BIAS_MAX)
            c->upsert_bias--;
    }
    pthread_mutex_unlock(&s->mmu);
}

/* The new document of an upsert, from the plan, inserted unless one with
 * its id is stored: 1 inserted, 0 there already (nothing written), 2 for
 * the general path, or an error.  x->off, x->len: its text in s->wbuf. */
static int insert_new(struct sq_store *s, const char *coll, const char *id, const struct kh_plan *pl,
                      int if_missing, struct sq_splice *x, struct kytos_error *err)
{
    sqlite3_stmt *st;
    int rc;

    x->off = s->wbuf.len;
    if ((rc = kh_plan_new_doc(pl, id, &s->wbuf, err)) != 0)
        return rc;
    if ((x->len = s->wbuf.len - x->off) > KH_STORE_MAX_DOC)
        return 2; /* the general path reports it */
    if (!if_missing) /* plan_multikey() said no index turns multikey: no doc to look at */
        return (rc = sq_w_store(s, coll, id, s->wbuf.p + x->off, x->len, NULL, 1, err)) < 0 ? rc : 1;
    if ((rc = prep_write(s, coll, SQ_W_INSERT_IF_MISSING, NULL, &st, err)) < 0)
        return rc;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, s->wbuf.p + x->off, (int)x->len, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sq_done(st);
    if (rc != SQLITE_DONE)
        return sq_fail(s->writer.db, rc, err, coll, id);
    if (sqlite3_changes(s->writer.db) == 1)
        return 1;
    s->wbuf.len = x->off;
    return 0;
}

/* The fast path of a patch: the stored text patched as text
 * (kh_plan_splice(): no json-c objects, no SQLite JSON functions) in one
 * UPDATE, or for an upsert of a missing document the new document made
 * from the plan.  Returns 0 when done, 1 for the general path, or an
 * error. */
static int w_patch_splice(struct sq_store *s, const char *coll, const char *id, const struct kh_plan *pl,
                          unsigned flags, struct json_object **out, struct kytos_error *err)
{
    struct sq_splice x = {.pl = pl, .b = &s->wbuf};
    sqlite3_stmt *st;
    int rc, upsert = (flags & KYTOS_STORE_UPSERT) != 0;

    if (upsert && upsert_insert_first(s, coll)) {
        if ((rc = insert_new(s, coll, id, pl, 1, &x, err)) < 0)
            return rc;
        if (rc == 2)
            return 1;
        upsert_outcome(s, coll, rc);
        if (rc == 1)
            goto done;
        upsert = 0;   /* it is stored: the update below finds it */
    }
    /* the key columns the plan reaches are set from the same new text */
    if ((rc = prep_write(s, coll, SQ_W_SPLICE, pl, &st, err)) < 0)
        return rc;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_pointer(st, 2, &x, "kh_splice", NULL);
    rc = sqlite3_step(st);
    sq_done(st);
    if (rc != SQLITE_DONE) {
        if (x.rc > 0)
            return 1;
        if (x.rc < 0)
            return kh_store_err(err, x.rc, "%s", x.err.message);
        return sq_fail(s->writer.db, rc, err, coll, id);
    }
    if (sqlite3_changes(s->writer.db) == 0) {
        if (!(flags & KYTOS_STORE_UPSERT))
            return kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
        if ((rc = insert_new(s, coll, id, pl, 0, &x, err)) < 0)
            return rc;
        if (rc == 2)
            return 1;
        upsert_outcome(s, coll, 1);
    } else if (upsert) {
        upsert_outcome(s, coll, 0);
    }
done:
    if (out && !(*out = kh_doc_parse(s->wbuf.p + x.off, x.len, coll, err)))
        return err ? err->code : KYTOS_ENOMEM;
    return 0;
}

/* 0 done, 1 for the general path, or an error. */
static int w_patch_fast(struct sq_store *s, const char *coll, const char *id, struct json_object *update,
                        unsigned flags, struct json_object **out, struct kytos_error *err)
{
    struct kh_plan pl;
    int rc;

    if (s->plan_keep && update && s->plan_of == update) {
        /* the previous op's update (sq_bulk_run): its plan and values'
         * text are still there */
        pl = s->plan;
        s->wbuf.len = s->plan_len;
    } else {
        const struct kh_async_write *w = s->pre;
        size_t k = s->pre_k;
        s->plan_of = NULL;
        s->wbuf.len = 0;
        rc = 1;
        if (w && k < w->n && w->ops[k].doc == update && w->pre_vfirst[k + 1] > w->pre_vfirst[k]) {
            /* values written by the thread that queued it */
            rc = kh_plan_make_pre(&pl, update, &s->wbuf, w->pre_text + w->pre_offs[k],
                                  w->pre_vlens + w->pre_vfirst[k],
                                  w->pre_vfirst[k + 1] - w->pre_vfirst[k], err);
            if (rc < 0)
                return rc;
            if (rc)
                s->wbuf.len = 0;
        }
        if (rc && (rc = kh_plan_make(&pl, update, &s->wbuf, err)) != 0)
            return rc;
    }
    if (!pl.text_ok || pl.grow >= KH_STORE_MAX_DOC ||
        plan_multikey(s, coll, &pl, (flags & KYTOS_STORE_UPSERT) != 0)) {
        s->plan_of = NULL;
        return 1;
    }
    if (s->plan_of != update) {
        s->plan = pl;
        s->plan_len = s->wbuf.len;
    }
    if ((rc = w_patch_splice(s, coll, id, &pl, flags, out, err)) != 0) {
        s->plan_of = NULL;   /* the general path may reuse wbuf */
        return rc;
    }
    s->plan_of = s->plan_keep ? update : NULL;
    return 0;
}

int sq_w_patch(struct sq_store *s, const char *coll, const char *id, struct json_object *update,
               unsigned flags, struct json_object **out, struct kytos_error *err)
{
    struct json_object *doc;
    struct ku_buf *b = &s->wbuf;
    int rc, inserting = 0;

    if ((rc = w_patch_fast(s, coll, id, update, flags, out, err)) <= 0)
        return rc;
    if ((rc = sq_load_doc(s, &s->writer, coll, id, &doc, err)) < 0)
        return rc;
    if (!doc) {
        if (!(flags & KYTOS_STORE_UPSERT))
            return kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
        if (!(doc = json_object_new_object()) ||
            json_object_object_add(doc, "_id", json_object_new_string(id)) < 0) {
            json_object_put(doc);
            return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
        }
        inserting = 1;
    }
    b->len = 0;
    if ((rc = kh_update_apply(doc, update, inserting, err)) < 0 ||
        (rc = kh_json_write(b, doc, 1, "updated document", err)) < 0)
        goto fail;
    if (b->len > KH_STORE_MAX_DOC) {
        rc = kh_store_err(err, KYTOS_ETOOBIG, "document is %zu bytes, the limit is %u", b->len,
                          KH_STORE_MAX_DOC);
        goto fail;
    }
    if ((rc = sq_w_store(s, coll, id, b->p, b->len, doc, inserting ? 1 : 2, err)) < 0)
        goto fail;
    if (out)
        *out = doc;
    else
        json_object_put(doc);
    return 0;
fail:
    json_object_put(doc);
    return rc;
}

int sq_w_delete(struct sq_store *s, const char *coll, const char *id, int *deleted,
                struct kytos_error *err)
{
    char sql[256];
    sqlite3_stmt *st;
    int rc;

    sq_coll_sql(sql, "DELETE FROM ", coll, " WHERE id=?1");
    if ((rc = sq_prep(&s->writer, sql, &st, err)) < 0)
        return rc;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sq_done(st);
    if (rc != SQLITE_DONE)
        return sq_fail(s->writer.db, rc, err, coll, id);
    *deleted = sqlite3_changes(s->writer.db) > 0;
    return 0;
}

/* ---- queued patches of one document, merged ----
 * Consecutive queued writes that are each one patch of the same document
 * (a flow stored "pending" then confirmed "installed", the same flow sent
 * again) are applied to its text in memory, one after the other, and the
 * result is written once: one read and one UPDATE for the run instead of
 * one UPDATE (and its index upkeep) per write.  The writes commit in the
 * same transaction as before, so what a reader can see is the same.  Each
 * write keeps its own result: a patch that fails leaves the text as it was
 * and fails alone, as its savepoint would have. */

/* 1 if w can join a run that starts with first. */
static int merge_fits(const struct kh_async_write *first, const struct kh_async_write *w)
{
    return w->rc == 0 && w->n == 1 && w->ops[0].op == KYTOS_WRITE_PATCH &&
           !strcmp(w->coll, first->coll) && !strcmp(w->ops[0].id, first->ops[0].id);
}

/* 1 if the collection has a unique index: a duplicate key must fail the
 * write that makes it, which only its own UPDATE can tell. */
static int has_unique(struct sq_store *s, const char *coll)
{
    struct sq_coll *c;
    int r = 0;

    pthread_mutex_lock(&s->mmu);
    if ((c = sq_coll_find(s, coll)) != NULL)
        for (int k = 0; k < c->nix && !r; k++)
            r = c->ix[k].unique;
    pthread_mutex_unlock(&s->mmu);
    return r;
}

/* The stored text of coll/id into b (*found 0 when missing). */
static int load_text(struct sq_store *s, const char *coll, const char *id, struct ku_buf *b,
                     int *found, struct kytos_error *err)
{
    char sql[256];
    sqlite3_stmt *st;
    int rc;

    *found = 0;
    sq_coll_sql(sql, "SELECT doc FROM ", coll, " WHERE id=?1");
    if ((rc = sq_prep(&s->writer, sql, &st, err)) < 0)
        return rc;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *found = 1;
        rc = ku_buf_add(b, sqlite3_column_text(st, 0), (size_t)sqlite3_column_bytes(st, 0)) < 0
                 ? kh_store_err(err, KYTOS_ENOMEM, "out of memory") : 0;
    } else if (rc == SQLITE_DONE) {
        rc = 0;
    } else {
        rc = sq_fail(s->writer.db, rc, err, coll, id);
    }
    sq_done(st);
    return rc;
}

/* Apply w's patch to the text in cur (found: it exists), the result in
 * next.  0 done, 1 not here (the write takes the usual path), or an error
 * that is w's alone. */
static int merge_one(struct sq_store *s, struct kh_async_write *w, const struct ku_buf *cur, int found,
                     struct ku_buf *next, struct kytos_error *err)
{
    struct kh_plan pl;
    size_t off;
    int rc;

    s->wbuf.len = 0;
    if ((rc = kh_plan_make(&pl, w->ops[0].doc, &s->wbuf, err)) != 0)
        return rc;
    if (!pl.text_ok || pl.grow >= KH_STORE_MAX_DOC || plan_multikey(s, w->coll, &pl, !found))
        return 1;
    off = s->wbuf.len;   /* the new text follows the plan's values (it copies them) */
    if (found)
        rc = kh_plan_splice(&pl, cur->p, cur->len, &s->wbuf, err);
    else if (!(w->ops[0].flags & KYTOS_STORE_UPSERT))
        return kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", w->ops[0].id, w->coll);
    else
        rc = kh_plan_new_doc(&pl, w->ops[0].id, &s->wbuf, err);
    if (rc != 0)
        return rc;
    if (s->wbuf.len - off > KH_STORE_MAX_DOC)
        return 1;   /* the usual path reports it */
    next->len = 0;
    if (ku_buf_add(next, s->wbuf.p + off, s->wbuf.len - off) < 0)
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    return 0;
}

/* Run the writes from first on that merge_fits() it, inside the open
 * transaction.  Returns how many were taken (their rc set; 0 when the run
 * is shorter than two or its first write needs the usual path).  *lost is
 * set when the transaction itself had to be rolled back. */
static size_t merge_run(struct sq_store *s, struct kh_async_write *first, int *lost)
{
    char a0[512], a1[512];
    struct ku_buf bufs[2] = {KU_BUF_ON(a0), KU_BUF_ON(a1)};
    struct ku_buf *cur = &bufs[0], *next = &bufs[1], *t;
    struct kh_async_write *w;
    struct kytos_error e = {0};
    size_t taken = 0, ok = 0, k;
    int found, created = 0, rc;

    *lost = 0;
    if (!merge_fits(first, first) || !first->next || !merge_fits(first, first->next) ||
        has_unique(s, first->coll) ||
        sq_exec(&s->writer, "SAVEPOINT kh_m", &e) < 0)
        return 0;
    if (load_text(s, first->coll, first->ops[0].id, cur, &found, &e) < 0)
        goto undo;   /* (taken = 0: the usual path reports it) */
    for (w = first; w && merge_fits(first, w); w = w->next) {
        struct kytos_error we = {0};
        if ((rc = merge_one(s, w, cur, found, next, &we)) > 0)
            break;
        taken++;
        if (rc < 0) {
            w->rc = kh_store_err(&w->err, rc, "bulk op 0 (patch '%.100s'): %s", w->ops[0].id, we.message);
            continue;
        }
        created |= !found;
        found = 1;
        t = cur, cur = next, next = t;
        ok++;
    }
    rc = ok ? sq_w_store(s, first->coll, first->ops[0].id, cur->p, cur->len, NULL, created ? 1 : 2, &e) : 0;
    if (rc == 0 && (rc = sq_exec(&s->writer, "RELEASE kh_m", &e)) == 0) {
        if (ok > 1)
            atomic_fetch_add_explicit(&s->merged, ok - 1, memory_order_relaxed);
        goto out;
    }
    /* nothing of the run was written: the writes that had succeeded fail */
    for (w = first, k = 0; k < taken; w = w->next, k++)
        if (w->rc == 0)
            w->rc = kh_store_err(&w->err, rc, "bulk op 0 (patch '%.100s'): %s", w->ops[0].id, e.message);
undo:
    if (sq_exec(&s->writer, "ROLLBACK TO kh_m", NULL) < 0 || sq_exec(&s->writer, "RELEASE kh_m", NULL) < 0)
        *lost = 1;
out:
    ku_buf_free(&bufs[0]);
    ku_buf_free(&bufs[1]);
    return taken;
}

/* check_bulk left patch k's values to us: check them (0, or negative with
 * err "bulk op K: ..." as check_bulk says it). */
static int check_values(const struct kh_async_write *w, size_t k, struct kytos_error *err)
{
    struct kytos_error oe = {0};
    int rc = kh_update_check(w->ops[k].doc, &oe);

    return rc < 0 ? kh_store_err(err, rc, "bulk op %zu: %s", k, oe.message) : 0;
}

/* Was patch k's update (the same object as patch k - 1's) checked or
 * planned with it? */
static int shares_update(const struct kh_async_write *w, size_t k)
{
    return k && w->ops[k - 1].op == KYTOS_WRITE_PATCH && w->ops[k].doc == w->ops[k - 1].doc;
}

int kh_store_sqlite_bulk_prepare(struct kh_async_write *w, struct kytos_error *err)
{
    struct ku_buf t = KU_BUF_INIT;
    struct kytos_error e = {0};
    struct kh_plan pl;
    size_t *offs = calloc(w->n + 1, sizeof *offs), *vfirst = calloc(w->n + 1, sizeof *vfirst), k = 0;
    uint32_t *vl = NULL;
    size_t nvl = 0, cvl = 0;
    int rc;

    if (!offs || !vfirst)
        goto fail;
    for (k = 0; k < w->n; k++) {
        const struct kytos_write *op = &w->ops[k];
        offs[k] = t.len;
        vfirst[k] = nvl;
        if (op->op == KYTOS_WRITE_PUT || op->op == KYTOS_WRITE_INSERT) {
            if (kh_doc_write(&t, op->doc, op->id, &e) < 0)
                goto fail;   /* the writer says what is wrong */
        } else if (op->op == KYTOS_WRITE_PATCH && !shares_update(w, k)) {
            /* (an update shared with the patch before is planned once by
             * the writer: sq_bulk_run) */
            if (kh_plan_make(&pl, op->doc, &t, &e) != 0) {
                /* a value it cannot write, or an update it does not plan:
                 * the full check tells which; the writer plans the rest */
                t.len = offs[k];
                if ((rc = check_values(w, k, err)) < 0)
                    goto refuse;
                continue;
            }
            if (cvl - nvl < KH_PLAN_MAX_FIELDS) {
                uint32_t *n2 = realloc(vl, (cvl * 2 + KH_PLAN_MAX_FIELDS) * sizeof *vl);
                if (!n2)
                    goto fail;
                vl = n2;
                cvl = cvl * 2 + KH_PLAN_MAX_FIELDS;
            }
            for (int f = 0; f < pl.n; f++)
                if (pl.f[f].kind != 2)
                    vl[nvl++] = (uint32_t)pl.f[f].val_len;
        }
    }
    offs[k] = t.len;
    vfirst[k] = nvl;
    if (t.oom || !t.heap)
        goto fail;
    w->pre_text = t.p;   /* heap: ours now */
    w->pre_offs = offs;
    w->pre_vfirst = vfirst;
    w->pre_vlens = vl;
    return 0;
fail:
    /* the writer does it all; the values not written yet are checked here */
    for (size_t j = k; j < w->n; j++)
        if (w->ops[j].op == KYTOS_WRITE_PATCH && !(j > k && shares_update(w, j)) &&
            (rc = check_values(w, j, err)) < 0)
            goto refuse;
    rc = 0;
refuse:
    ku_buf_free(&t);
    free(offs);
    free(vfirst);
    free(vl);
    return rc;
}

/* kytos_store_bulk_async's writer: every queued bulk in one transaction,
 * each inside a savepoint so that one that fails leaves no trace and the
 * others still commit.  A failed commit fails them all.  As in wq_batch():
 * the documents are encoded before the writer lock (most already by the
 * threads that queued them: kh_store_sqlite_bulk_prepare), and every table is
 * created before the transaction (a CREATE undone by a rollback would stay
 * in our cache of existing tables). */
void kh_store_sqlite_bulk_batch(struct kh_store_backend *b, struct kh_async_write *list)
{
    struct sq_store *s = (struct sq_store *)b;
    struct kh_async_write *w;
    struct kytos_error e = {0};
    size_t nw = 0, k;
    struct ku_buf *texts;
    size_t **offs, *bad;
    int rc, open = 0, pending = 0;

    for (w = list; w; w = w->next)
        nw++;
    texts = calloc(nw, sizeof *texts);
    offs = calloc(nw, sizeof *offs);
    bad = calloc(nw, sizeof *bad);
    if (!texts || !offs || !bad) {
        for (w = list; w; w = w->next)
            w->rc = kh_store_err(&w->err, KYTOS_ENOMEM, "out of memory");
        goto out;
    }
    for (w = list, k = 0; w; w = w->next, k++) {
        struct kytos_error ee = {0};
        w->rc = 0;
        bad[k] = w->n;
        if (w->pre_offs) {   /* encoded by the thread that queued it */
            texts[k].p = w->pre_text;
            offs[k] = w->pre_offs;
            continue;
        }
        if (!(offs[k] = calloc(w->n + 1, sizeof **offs)))
            w->rc = kh_store_err(&w->err, KYTOS_ENOMEM, "out of memory");
        else if ((rc = sq_bulk_encode(w->ops, w->n, &texts[k], offs[k], &bad[k], &ee)) < 0)
            w->rc = sq_bulk_fail(rc, w->ops, w->n, bad[k], &ee, &w->err);
    }
    pthread_mutex_lock(&s->wmu);
    for (w = list; w; w = w->next)
        if (w->rc == 0 && (rc = sq_coll_ensure(s, w->coll, &e)) < 0)
            w->rc = kh_store_err(&w->err, rc, "%s", e.message);
    for (w = list, k = 0; w; w = w->next, k++) {
        struct kytos_error we = {0};

        if (w->rc < 0)
            continue;
        rc = 0;
        if (!open && (rc = sq_begin(&s->writer, &we)) == 0)
            open = 1;
        if (rc == 0) {
            int lost;
            size_t m = merge_run(s, w, &lost), q;
            if (m || lost) {
                struct kh_async_write *last = w, *x;
                for (q = 1; q < m; q++, k++)
                    last = last->next;
                for (x = w; m && x != last->next; x = x->next)
                    pending += x->rc == 0;
                if (lost) {
                    sq_rollback(&s->writer);
                    open = 0;
                    for (x = list; x != last->next; x = x->next)
                        if (x->rc == 0)
                            x->rc = kh_store_err(&x->err, KYTOS_EIO, "the transaction was rolled back");
                    pending = 0;
                }
                w = last;
                continue;
            }
        }
        if (rc == 0 && nw == 1) {
            /* alone in the transaction: a failure rolls all of it back,
             * which is all its savepoint would undo (two statements less a
             * commit; at light load every batch is a single write) */
            s->pre = w->pre_offs ? w : NULL;
            rc = sq_bulk_run(s, w->coll, w->ops, w->n, &texts[k], offs[k], &bad[k], &we);
            s->pre = NULL;
            if (rc < 0) {
                sq_rollback(&s->writer);
                open = 0;
            }
        } else if (rc == 0 && (rc = sq_exec(&s->writer, "SAVEPOINT kh_a", &we)) == 0) {
            s->pre = w->pre_offs ? w : NULL;
            rc = sq_bulk_run(s, w->coll, w->ops, w->n, &texts[k], offs[k], &bad[k], &we);
            s->pre = NULL;
            if (rc < 0 && sq_exec(&s->writer, "ROLLBACK TO kh_a", &e) < 0) {
                sq_rollback(&s->writer);   /* cannot undo just this one: fail the rest */
                open = 0;
            }
            if (open && sq_exec(&s->writer, "RELEASE kh_a", &e) < 0) {
                sq_rollback(&s->writer);
                open = 0;
            }
        }
        w->rc = rc < 0 ? sq_bulk_fail(rc, w->ops, w->n, bad[k], &we, &w->err) : 0;
        if (rc == 0)
            pending++;
        if (!open && pending) {
            /* the transaction is gone with what the earlier ones wrote */
            struct kh_async_write *x;
            for (x = list; x != w->next; x = x->next)
                if (x->rc == 0)
                    x->rc = kh_store_err(&x->err, KYTOS_EIO, "the transaction was rolled back: %s",
                                         e.message);
            pending = 0;
        }
    }
    if (open && (rc = sq_commit(&s->writer, &e)) < 0) {
        for (w = list; w; w = w->next)
            if (w->rc == 0)
                w->rc = kh_store_err(&w->err, rc, "commit failed: %s", e.message);
    } else if (open) {
        atomic_fetch_add_explicit(&s->commits, 1, memory_order_relaxed);
        for (w = list; w; w = w->next)
            if (w->rc == 0)
                atomic_fetch_add_explicit(&s->writes, (uint64_t)w->n, memory_order_relaxed);
    }
    pthread_mutex_unlock(&s->wmu);
out:
    for (w = list, k = 0; k < nw; k++, w = w ? w->next : NULL) {
        if (w && w->pre_offs)
            continue;   /* w's, freed with it */
        if (texts)
            ku_buf_free(&texts[k]);
        if (offs)
            free(offs[k]);
    }
    free(texts);
    free(offs);
    free(bad);
}
