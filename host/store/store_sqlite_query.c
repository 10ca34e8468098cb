/* host/store/store_sqlite_query.c - the embedded store (store_sqlite.h): find
 * and count: filters pushed down to SQL where an index helps, matched exactly
 * in C (kh_match), projection and cursors. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "store/store_sqlite.h"
#include "store/store_text.h"
#include "util/text.h"

/* ---- find / count ---- */

struct sq_cursor {
    struct kytos_cursor base;
    struct json_object **docs;   /* KYTOS_FIND_TEXT: canonical texts as strings, or documents */
    size_t n, pos;
    struct kh_proj *proj;
    int text;
};

static int cursor_next(kytos_cursor *cc, struct json_object **doc, struct kytos_error *err)
{
    struct sq_cursor *c = (struct sq_cursor *)cc;

    (void)err;
    *doc = NULL;
    if (c->pos >= c->n)
        return 0;
    if (c->text && json_object_is_type(c->docs[c->pos], json_type_string)) {
        struct json_object *t = c->docs[c->pos];
        *doc = kh_text_project(json_object_get_string(t), (size_t)json_object_get_string_len(t),
                               c->proj, "", err);
        json_object_put(t);
    } else if (c->text) {
        *doc = kh_text_of_doc(kh_proj_apply(c->proj, c->docs[c->pos]), err);
    } else {
        *doc = kh_proj_apply(c->proj, c->docs[c->pos]);
    }
    c->docs[c->pos++] = NULL;
    if (!*doc)
        return err ? err->code : KYTOS_ENOMEM;
    return 1;
}

static void cursor_free(kytos_cursor *cc)
{
    struct sq_cursor *c = (struct sq_cursor *)cc;

    for (size_t k = c->pos; k < c->n; k++)
        json_object_put(c->docs[k]);
    free(c->docs);
    kh_proj_free(c->proj);
    free(c);
}

/* A string SQLite handles: no NUL inside (its JSON functions stop there). */
static int plain_string(struct json_object *v)
{
    return json_object_is_type(v, json_type_string) &&
           strlen(json_object_get_string(v)) == (size_t)json_object_get_string_len(v);
}

/* Can SQLite's value for the json_extract form select a superset? */
static int bindable(struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_int:
    case json_type_double:
    case json_type_boolean: return 1;
    case json_type_string: return plain_string(v);
    default: return 0;
    }
}

static void bind_value(sqlite3_stmt *st, int i, struct json_object *v, int as_json)
{
    struct kh_num n;

    if (as_json) {
        size_t len;
        const char *t = json_object_to_json_string_length(v, JSON_C_TO_STRING_PLAIN |
                                                          JSON_C_TO_STRING_NOSLASHESCAPE, &len);
        sqlite3_bind_text(st, i, t, (int)len, SQLITE_TRANSIENT);
        return;
    }
    if (json_object_is_type(v, json_type_string)) {
        sqlite3_bind_text(st, i, json_object_get_string(v), json_object_get_string_len(v),
                          SQLITE_TRANSIENT);
    } else if (json_object_is_type(v, json_type_boolean)) {
        sqlite3_bind_int(st, i, json_object_get_boolean(v));
    } else if (kh_num_get(v, &n)) {
        if (n.kind == 0)
            sqlite3_bind_int64(st, i, n.i);
        else if (n.kind == 1)
            sqlite3_bind_double(st, i, (double)n.u); /* as SQLite reads such a number */
        else
            sqlite3_bind_double(st, i, n.d);
    }
}

/* One pushed-down condition: the SQL text and the values it binds. */
struct push {
    const struct kh_cond *c;
    int as_json;      /* bind JSON text (unique index form) */
};

/* Kinds of terms: over an index expression, or a prefilter for any path
 * that SQLite's JSON parser (much cheaper than building json-c objects)
 * evaluates before kh_match(): it keeps documents where the path is
 * missing, goes through an array or ends on one, so it never loses a match. */
enum { TERM_PLAIN, TERM_PREFILTER };

#define SQ_MAX_PUSH 16

struct plan {
    struct ku_buf where;
    struct push push[SQ_MAX_PUSH * 2];
    int npush;
    int nparam;       /* last ?N used: ?1 kh_match, ?2 limit, ?3 offset */
    int exact;        /* SQL alone is exact: kh_match() not needed */
    int indexed;      /* an index (or _id) narrows the rows read */
};

static int is_id_path(const struct kh_path *p)
{
    return p->n == 1 && !strcmp(p->seg[0], "_id");
}

static int all_strings(const struct kh_cond *c)
{
    if (c->op == KH_OP_IN) {
        size_t n = json_object_array_length(c->val);
        for (size_t k = 0; k < n; k++)
            if (!plain_string(json_object_array_get_idx(c->val, k)))
                return 0;
        return n > 0;
    }
    return plain_string(c->val);
}

static int all_bindable(const struct kh_cond *c, int unique)
{
    if (c->op == KH_OP_IN) {
        size_t n = json_object_array_length(c->val);
        for (size_t k = 0; k < n; k++) {
            struct json_object *v = json_object_array_get_idx(c->val, k);
            if (unique ? !(plain_string(v) || json_object_is_type(v, json_type_boolean)) : !bindable(v))
                return 0;
        }
        return n > 0;
    }
    if (unique)
        return c->op == KH_OP_EQ &&
               (plain_string(c->val) || json_object_is_type(c->val, json_type_boolean));
    return bindable(c->val);
}

static void push_term(struct plan *pl, const struct kh_cond *c, const char *expr, int as_json, int kind,
                      const char *lit)
{
    static const char *const cmp[] = {"=", "IN", ">", ">=", "<", "<="};
    const char *op = cmp[c->op];
    struct kh_num n;

    if (pl->npush == (int)(sizeof(pl->push) / sizeof(pl->push[0])))
        return;
    /* a uint64 above INT64_MAX is rounded to a double on both sides */
    if ((c->op == KH_OP_GT || c->op == KH_OP_LT) && kh_num_get(c->val, &n) && n.kind == 1)
        op = c->op == KH_OP_GT ? ">=" : "<=";
    ku_buf_printf(&pl->where, kind == TERM_PREFILTER ? " AND (" : " AND ");
    if (c->op == KH_OP_IN) {
        size_t len = json_object_array_length(c->val);
        ku_buf_printf(&pl->where, "%s IN (", expr);
        for (size_t k = 0; k < len; k++)
            ku_buf_printf(&pl->where, "%s?%d", k ? "," : "", ++pl->nparam);
        ku_buf_printf(&pl->where, ")");
    } else {
        ku_buf_printf(&pl->where, "%s %s ?%d", expr, op, ++pl->nparam);
    }
    if (kind == TERM_PREFILTER)
        ku_buf_printf(&pl->where, " OR ifnull(json_type(doc,%s)='array',1))", lit);
    pl->push[pl->npush].c = c;
    pl->push[pl->npush].as_json = as_json;
    pl->npush++;
}

/* $ne of a string on a key that has a column (a key of a non-unique
 * index): the rows whose column holds exactly that string are ones the
 * document itself fails, so SQL drops them without kh_match() parsing
 * them.  The column is json_extract()'s value, which is that string only
 * when the path ends on that very JSON string; "IS NOT" keeps a missing
 * value or a path through an array (NULL), and any other value (an
 * array's text, a number, another string) stays for kh_match() to judge.
 * So the term only narrows to a superset, multikey index or not.
 * flow_manager's reads of what is not deleted no longer parse every
 * soft-deleted flow. */
static void push_ne(struct plan *pl, const struct sq_coll *coll, const struct kh_cond *c)
{
    const struct sq_kcol *kc;

    if (!c->negate || c->op != KH_OP_EQ || !plain_string(c->val) ||
        pl->npush == (int)(sizeof(pl->push) / sizeof(pl->push[0])))
        return;
    for (int i = 0; i < coll->nix; i++) {
        const struct sq_index *ix = &coll->ix[i];
        if (ix->unique)
            continue;
        for (int j = 0; j < ix->nkeys; j++) {
            if (strcmp(ix->keys[j].text, c->path.text) || !(kc = sq_kcol_find(coll, c->path.text, 0)))
                continue;
            ku_buf_printf(&pl->where, " AND %s IS NOT ?%d", kc->ident, ++pl->nparam);
            pl->push[pl->npush].c = c;
            pl->push[pl->npush].as_json = 0;
            pl->npush++;
            return;
        }
    }
}

/* mmu held */
static void plan_where(struct plan *pl, const struct sq_coll *coll, const struct kh_filter *f)
{
    int pushed_all = 1;

    pl->exact = f == NULL;
    if (!f)
        return;
    if (f->is_or || f->nkids) {
        pushed_all = 0;
        if (f->is_or)
            return;
    }
    for (int k = 0; k < f->nconds && pl->npush < SQ_MAX_PUSH; k++) {
        const struct kh_cond *c = &f->conds[k];
        int used = 0;
        if (c->negate || c->op == KH_OP_EXISTS) {
            pushed_all = 0;
            push_ne(pl, coll, c);
            continue;
        }
        if (is_id_path(&c->path)) {
            if (all_strings(c)) {
                push_term(pl, c, "id", 0, TERM_PLAIN, NULL);
                pl->indexed = 1;
                continue;
            }
            pushed_all = 0;
            continue;
        }
        pushed_all = 0;
        for (int i = 0; i < coll->nix && !used; i++) {
            const struct sq_index *ix = &coll->ix[i];
            if (ix->multikey)
                continue;
            for (int j = 0; j < ix->nkeys; j++) {
                const struct sq_kcol *kc;
                if (strcmp(ix->keys[j].text, c->path.text) || !all_bindable(c, ix->unique) ||
                    !(kc = sq_kcol_find(coll, c->path.text, ix->unique)))
                    continue;
                /* the key column holds the expression's value */
                push_term(pl, c, kc->ident, ix->unique, TERM_PLAIN, NULL);
                pl->indexed = used = 1;
                break;
            }
        }
        if (!used && all_bindable(c, 0)) {
            char lit[KH_PATH_MAX * 2 + 64], expr[KH_PATH_MAX * 2 + 96];
            if (kh_path_sql_literal(&c->path, lit, sizeof(lit)) == 0 &&
                sq_key_expr(&c->path, 0, expr, sizeof(expr)) == 0)
                push_term(pl, c, expr, 0, TERM_PREFILTER, lit);
        }
    }
    pl->exact = pushed_all && f->nconds == pl->npush;
}

static int bind_plan(sqlite3_stmt *st, const struct plan *pl, int first)
{
    int i = first;

    for (int k = 0; k < pl->npush; k++) {
        const struct kh_cond *c = pl->push[k].c;
        if (c->op == KH_OP_IN) {
            size_t len = json_object_array_length(c->val);
            for (size_t j = 0; j < len; j++)
                bind_value(st, i++, json_object_array_get_idx(c->val, j), pl->push[k].as_json);
        } else {
            bind_value(st, i++, c->val, pl->push[k].as_json);
        }
    }
    return i;
}

/* Run SELECT over coll with filter f; keep = collect documents (find), else
 * only count.  sql_limit: LIMIT/OFFSET can go to SQLite (no sort). */
static int run_query(struct sq_store *s, const char *coll, const struct kh_filter *f, int keep,
                     int as_text, int64_t skip, int64_t limit, struct json_object ***docs, size_t *ndocs,
                     int64_t *count, struct kytos_error *err)
{
    struct plan pl = {.nparam = 3};
    struct sq_match m = {0};
    struct ku_buf sql = {0};
    struct sq_coll *cinfo;
    struct sq_conn *c;
    sqlite3_stmt *st;
    size_t cap = 0, bytes = 0;
    int rc = 0, step;

    pthread_mutex_lock(&s->mmu);
    if ((cinfo = sq_coll_find(s, coll)) != NULL) {
        plan_where(&pl, cinfo, f);
        /* a filter no index serves reads every row: counted, so that the
         * hot paths can be checked for it (an unfiltered listing reads
         * every row by definition and is not counted) */
        if (f && !pl.indexed)
            atomic_fetch_add_explicit(&cinfo->full_scans, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&s->mmu);
    if (!cinfo)
        return 0; /* no table yet: nothing matches */
    if (keep)
        ku_buf_printf(&sql, "SELECT rowid, doc FROM \"c:%s\" WHERE 1", coll);
    else
        ku_buf_printf(&sql, "SELECT count(*) FROM \"c:%s\" WHERE 1", coll);
    ku_buf_adds(&sql, ku_buf_str(&pl.where));
    if (!pl.exact)
        ku_buf_printf(&sql, " AND kh_match(?1, rowid, doc)");
    if (keep && (limit > 0 || skip > 0))
        ku_buf_printf(&sql, " LIMIT ?2 OFFSET ?3");
    ku_buf_free(&pl.where);
    if (sql.oom || pl.where.oom) {
        ku_buf_free(&sql);
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    }
    c = sq_reader_get(s);
    if ((rc = sq_prep(c, sql.p, &st, err)) < 0)
        goto out;
    m.f = f;
    m.coll = coll;
    m.keep = keep;
    m.parses = cinfo ? &cinfo->match_parses : NULL;
    m.rowid = -1;
    if (!pl.exact)
        sqlite3_bind_pointer(st, 1, &m, "kh_match", NULL);
    if (keep && (limit > 0 || skip > 0)) {
        sqlite3_bind_int64(st, 2, limit > 0 ? limit : -1);
        sqlite3_bind_int64(st, 3, skip);
    }
    bind_plan(st, &pl, 4);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        struct json_object *doc;
        if (!keep) {
            *count = sqlite3_column_int64(st, 0);
            continue;
        }
        if (as_text && kh_text_canonical((const char *)sqlite3_column_text(st, 1),
                                         (size_t)sqlite3_column_bytes(st, 1))) {
            /* handed out as it is stored: no json-c tree */
            if (m.doc && m.rowid == sqlite3_column_int64(st, 0)) {
                json_object_put(m.doc);
                m.doc = NULL;
            }
            if (!(doc = json_object_new_string_len((const char *)sqlite3_column_text(st, 1),
                                                   sqlite3_column_bytes(st, 1)))) {
                rc = kh_store_err(err, KYTOS_ENOMEM, "out of memory");
                break;
            }
        } else if (m.doc && m.rowid == sqlite3_column_int64(st, 0)) {
            doc = m.doc; /* parsed by kh_match() for this very row */
            m.doc = NULL;
        } else {
            doc = kh_doc_parse((const char *)sqlite3_column_text(st, 1),
                               (size_t)sqlite3_column_bytes(st, 1), coll, err);
            if (!doc) {
                rc = err ? err->code : KYTOS_EIO;
                break;
            }
        }
        bytes += (size_t)sqlite3_column_bytes(st, 1);
        if (bytes > SQ_RESULT_MAX) {
            json_object_put(doc);
            rc = kh_store_err(err, KYTOS_ETOOBIG,
                              "find on '%s' matched more than %zu MiB; use a limit or a narrower filter",
                              coll, SQ_RESULT_MAX >> 20);
            break;
        }
        if (KU_RESERVE(*docs, cap, *ndocs + 1) < 0) {
            json_object_put(doc);
            rc = kh_store_err(err, KYTOS_ENOMEM, "out of memory");
            break;
        }
        (*docs)[(*ndocs)++] = doc;
    }
    if (rc == 0 && step != SQLITE_DONE) {
        if (m.failed)
            rc = kh_store_err(err, m.err.code, "%s", m.err.message);
        else
            rc = sq_fail(c->db, step, err, coll, NULL);
    }
    sq_done(st);
out:
    sq_reader_put(s, c);
    json_object_put(m.doc);
    ku_buf_free(&sql);
    return rc;
}

int sq_find(struct kh_store_backend *b, const char *coll, const struct kytos_find *q,
            kytos_cursor **out, struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct kh_filter *f = NULL;
    struct kh_sort *sort = NULL;
    struct sq_cursor *c;
    int64_t skip = q ? q->skip : 0, limit = q ? q->limit : 0;
    int rc;

    *out = NULL;
    if (!(c = calloc(1, sizeof(*c))))
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    c->base.next = cursor_next;
    c->base.free = cursor_free;
    c->text = q && (q->flags & KYTOS_FIND_TEXT);
    if ((rc = kh_filter_compile(q ? q->filter : NULL, &f, err)) < 0 ||
        (rc = kh_sort_compile(q ? q->sort : NULL, &sort, err)) < 0 ||
        (rc = kh_proj_compile(q ? q->projection : NULL, &c->proj, err)) < 0)
        goto fail;
    if (!sort) {
        rc = run_query(s, coll, f, 1, c->text, skip, limit, &c->docs, &c->n, NULL, err);
    } else {
        /* MongoDB's order is not SQLite's (types, uint64): sort here */
        rc = run_query(s, coll, f, 1, c->text, 0, 0, &c->docs, &c->n, NULL, err);
        if (rc == 0) {
            if (c->text)
                kh_text_sort(sort, c->docs, c->n);
            else
                kh_sort_docs(sort, c->docs, c->n);
            c->pos = (size_t)skip < c->n ? (size_t)skip : c->n;
            for (size_t k = 0; k < c->pos; k++) {
                json_object_put(c->docs[k]);
                c->docs[k] = NULL;
            }
            if (limit > 0 && c->n - c->pos > (uint64_t)limit) {
                for (size_t k = c->pos + (size_t)limit; k < c->n; k++)
                    json_object_put(c->docs[k]);
                c->n = c->pos + (size_t)limit;
            }
        }
    }
    if (rc < 0)
        goto fail;
    kh_filter_free(f);
    kh_sort_free(sort);
    *out = &c->base;
    return 0;
fail:
    kh_filter_free(f);
    kh_sort_free(sort);
    cursor_free(&c->base);
    return rc;
}

int sq_count(struct kh_store_backend *b, const char *coll, struct json_object *filter,
             int64_t *out, struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct kh_filter *f = NULL;
    int rc;

    *out = 0;
    if ((rc = kh_filter_compile(filter, &f, err)) < 0)
        return rc;
    rc = run_query(s, coll, f, 0, 0, 0, 0, NULL, NULL, out, err);
    kh_filter_free(f);
    return rc;
}
