/* host/store/store_sqlite_keycol.c - the embedded store (store_sqlite.h):
 * key columns.
 *
 * Each index key's value is kept in a column of its own beside the
 * document, computed by SQLite from the text being written with the same
 * expression an expression index would use (json_extract(), or for a
 * unique index the value's JSON text), and the indexes are over these
 * columns.  Why: SQLite rewrites the entries of every index whose columns
 * an UPDATE sets.  Over json_extract(doc, ...) that was every index of the
 * collection at every write: each key extracted from the old text and the
 * new, its entry deleted and put back, even when the write changed no key
 * (a flow's state, not its switch nor its cookie: flow_manager's three
 * indexes, at every pending -> installed).  Over columns, a patch sets only
 * the columns its paths reach (sq_kcol_splice_set), and a whole document
 * written again sets them all, as before.
 *
 * A column's name says what it holds: "x:<path>" (json_extract) or
 * "u:<path>" (JSON text), with ASCII capitals written '^' and the lower
 * case letter ('^' itself "^^"), since SQLite's names ignore case and
 * paths do not.  Columns stay when their index goes (there is no drop). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store/store_sqlite.h"

#define IDENT_MAX (2 * KH_PATH_MAX + 8)   /* a column's name, unquoted */

/* The column's name, unquoted. */
static int kcol_name(const char *path, int unique, char *out, size_t outlen)
{
    size_t o = 0;

    if (outlen < 3)
        return -1;
    out[o++] = unique ? 'u' : 'x';
    out[o++] = ':';
    for (const char *c = path; *c; c++) {
        if (o + 3 >= outlen)
            return -1;
        if (*c >= 'A' && *c <= 'Z') {
            out[o++] = '^';
            out[o++] = (char)(*c - 'A' + 'a');
        } else if (*c == '^') {
            out[o++] = '^';
            out[o++] = '^';
        } else {
            out[o++] = *c;
        }
    }
    out[o] = '\0';
    return 0;
}

/* name quoted for SQL ('"' doubled) */
static int quote_ident(const char *name, char *out, size_t outlen)
{
    size_t o = 0;

    if (outlen < 3)
        return -1;
    out[o++] = '"';
    for (const char *c = name; *c; c++) {
        if (o + 3 >= outlen)
            return -1;
        if (*c == '"')
            out[o++] = '"';
        out[o++] = *c;
    }
    out[o++] = '"';
    out[o] = '\0';
    return 0;
}

int sq_kcol_ident(const char *path, int unique, char *out, size_t outlen)
{
    char name[IDENT_MAX];

    return kcol_name(path, unique, name, sizeof name) < 0 || quote_ident(name, out, outlen) < 0 ? -1 : 0;
}

const struct sq_kcol *sq_kcol_find(const struct sq_coll *c, const char *path, int unique)
{
    for (int k = 0; c && k < c->nkcol; k++)
        if (c->kcol[k].unique == unique && !strcmp(c->kcol[k].path->text, path))
            return &c->kcol[k];
    return NULL;
}

/* Is the column in the table?  1, 0, or an error. */
static int column_exists(struct sq_store *s, const char *coll, const char *name,
                         struct kytos_error *err)
{
    char table[KH_STORE_MAX_COLL + 3];
    sqlite3_stmt *st;
    int rc;

    snprintf(table, sizeof table, "c:%s", coll);
    if ((rc = sq_prep(&s->writer, "SELECT 1 FROM pragma_table_info(?1) WHERE name=?2", &st, err)) < 0)
        return rc;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sq_done(st);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    return sq_fail(s->writer.db, rc, err, coll, NULL);
}

/* wmu held, inside a transaction: the column of key p, added and filled
 * from every stored document unless the table has it.  1 when added. */
int sq_kcol_add(struct sq_store *s, const char *coll, const struct kh_path *p, int unique,
                struct kytos_error *err)
{
    char name[IDENT_MAX], ident[SQ_IDENT_MAX], expr[KH_PATH_MAX * 2 + 96];
    struct ku_buf sql = {0};
    int rc;

    if (kcol_name(p->text, unique, name, sizeof name) < 0 ||
        quote_ident(name, ident, sizeof ident) < 0 || sq_key_expr(p, unique, expr, sizeof expr) < 0)
        return kh_store_err(err, KYTOS_EINVAL, "index key '%.100s' is too long", p->text);
    if ((rc = column_exists(s, coll, name, err)) != 0)
        return rc < 0 ? rc : 0;
    ku_buf_printf(&sql, "ALTER TABLE \"c:%s\" ADD COLUMN %s", coll, ident);
    if (sql.oom) {
        ku_buf_free(&sql);
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    }
    if ((rc = sq_exec(&s->writer, sql.p, err)) == 0) {
        ku_buf_reset(&sql);
        ku_buf_printf(&sql, "UPDATE \"c:%s\" SET %s=%s", coll, ident, expr);
        rc = sql.oom ? kh_store_err(err, KYTOS_ENOMEM, "out of memory") : sq_exec(&s->writer, sql.p, err);
    }
    ku_buf_free(&sql);
    return rc < 0 ? rc : 1;
}

/* The SQL the writes add for c's key columns (see struct sq_coll). */
static int build_fragments(struct sq_coll *c)
{
    struct ku_buf names = {0}, vals = {0}, excl = {0}, set = {0};
    int oom;

    for (int k = 0; k < c->nkcol; k++) {
        const struct sq_kcol *kc = &c->kcol[k];
        char expr[KH_PATH_MAX * 2 + 96];
        if (sq_key_expr_of(kc->path, kc->unique, "?2", expr, sizeof expr) < 0)
            return -1;
        ku_buf_printf(&names, ",%s", kc->ident);
        ku_buf_printf(&vals, ",%s", expr);
        ku_buf_printf(&excl, ",%s=excluded.%s", kc->ident, kc->ident);
        ku_buf_printf(&set, ",%s=%s", kc->ident, expr);
    }
    oom = names.oom || vals.oom || excl.oom || set.oom;
    if (oom) {
        ku_buf_free(&names);
        ku_buf_free(&vals);
        ku_buf_free(&excl);
        ku_buf_free(&set);
        return -1;
    }
    free(c->kc_names);
    free(c->kc_vals);
    free(c->kc_excl);
    free(c->kc_set);
    c->kc_names = ku_buf_take(&names);
    c->kc_vals = ku_buf_take(&vals);
    c->kc_excl = ku_buf_take(&excl);
    c->kc_set = ku_buf_take(&set);
    return 0;
}

/* wmu held, after the commit that added the column (or at open): the
 * writes from now on keep it.  0, or -1 out of memory: then the
 * collection's writes fail (kc_broken) rather than leave it stale. */
int sq_kcol_publish(struct sq_store *s, const char *coll, const struct kh_path *p, int unique)
{
    char name[IDENT_MAX], ident[SQ_IDENT_MAX];
    struct sq_coll *c = NULL;
    struct sq_kcol *n;
    int rc = -1;

    pthread_mutex_lock(&s->mmu);
    if (!(c = sq_coll_find(s, coll)))
        goto out;
    if (kcol_name(p->text, unique, name, sizeof name) < 0 || quote_ident(name, ident, sizeof ident) < 0)
        goto out;
    if (sq_kcol_find(c, p->text, unique)) {
        rc = 0;
        goto out;
    }
    if (!(n = realloc(c->kcol, sizeof(*n) * (size_t)(c->nkcol + 1))))
        goto out;
    c->kcol = n;
    n = &c->kcol[c->nkcol];
    n->unique = unique;
    n->path = malloc(sizeof *n->path);
    n->ident = strdup(ident);
    /* parsed again, not copied: a kh_path points into itself */
    if (!n->path || !n->ident || kh_path_parse(n->path, p->text, "index key", NULL) < 0) {
        free(n->path);
        free(n->ident);
        goto out;
    }
    c->nkcol++;
    rc = build_fragments(c);
out:
    if (rc < 0 && c)
        c->kc_broken = 1;
    pthread_mutex_unlock(&s->mmu);
    return rc;
}

void sq_kcol_free(struct sq_coll *c)
{
    for (int k = 0; k < c->nkcol; k++) {
        free(c->kcol[k].path);
        free(c->kcol[k].ident);
    }
    free(c->kcol);
    free(c->kc_names);
    free(c->kc_vals);
    free(c->kc_excl);
    free(c->kc_set);
}

/* Does the plan's $set or $unset of a stored document reach path (one a
 * prefix of the other)? */
static int plan_touches(const struct kh_plan *pl, const char *path)
{
    size_t plen = strlen(path);

    for (int k = 0; k < pl->n; k++) {
        const struct kh_plan_field *f = &pl->f[k];
        size_t len = strlen(f->key), n = len < plen ? len : plen;
        if (f->kind == 3)
            continue;   /* $setOnInsert: not on an update */
        if (strncmp(f->key, path, n))
            continue;
        if (len == plen || (len < plen && path[len] == '.') || (plen < len && f->key[plen] == '.'))
            return 1;
    }
    return 0;
}

/* wmu held: the SET terms of the key columns that the patch reaches, each
 * from the patched text (kh_splice(?2,doc), which makes the text once per
 * statement), appended to b. */
int sq_kcol_splice_set(const struct sq_coll *c, const struct kh_plan *pl, struct ku_buf *b)
{
    for (int k = 0; c && k < c->nkcol; k++) {
        const struct sq_kcol *kc = &c->kcol[k];
        char expr[KH_PATH_MAX * 2 + 128];
        if (!plan_touches(pl, kc->path->text))
            continue;
        if (sq_key_expr_of(kc->path, kc->unique, "kh_splice(?2,doc)", expr, sizeof expr) < 0)
            return -1;
        ku_buf_printf(b, ",%s=%s", kc->ident, expr);
    }
    return b->oom ? -1 : 0;
}

/* At open (wmu held, no transaction): every index of every collection over
 * key columns.  A file of schema 1 has expression indexes: their columns
 * are added and filled, and each index made again over them, in one
 * transaction.  A file of schema 2 that lacks a column or an index (the
 * file is input too) gets them back the same way.  Then the columns are
 * published.  0, or an error: the store cannot be used without them. */
int sq_kcol_migrate(struct sq_store *s, const struct kh_store_opts *opts, struct kytos_error *err)
{
    sqlite3_stmt *st;
    int rc, version, added = 0;

    if ((rc = sq_prep(&s->writer, "PRAGMA user_version", &st, err)) < 0)
        return rc;
    version = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sq_done(st);
    if ((rc = sq_begin(&s->writer, err)) < 0)
        return rc;
    for (int i = 0; i < s->ncolls; i++) {
        struct sq_coll *c = s->colls[i];
        for (int k = 0; k < c->nix; k++) {
            struct sq_index *ix = &c->ix[k];
            struct ku_buf sql = {0};
            for (int j = 0; j < ix->nkeys; j++) {
                if ((rc = sq_kcol_add(s, c->name, &ix->keys[j], ix->unique, err)) < 0)
                    goto fail;
                added += rc;
            }
            if (version < 2) {
                ku_buf_printf(&sql, "DROP INDEX IF EXISTS \"i:%s:%s\"", c->name, ix->name);
                if (sql.oom || (rc = sq_exec(&s->writer, sql.p, err)) < 0) {
                    ku_buf_free(&sql);
                    rc = sql.oom ? kh_store_err(err, KYTOS_ENOMEM, "out of memory") : rc;
                    goto fail;
                }
                ku_buf_reset(&sql);
            }
            ku_buf_printf(&sql, "CREATE %sINDEX IF NOT EXISTS \"i:%s:%s\" ON \"c:%s\"(",
                          ix->unique ? "UNIQUE " : "", c->name, ix->name, c->name);
            for (int j = 0; j < ix->nkeys; j++) {
                char ident[SQ_IDENT_MAX];
                if (sq_kcol_ident(ix->keys[j].text, ix->unique, ident, sizeof ident) < 0) {
                    ku_buf_free(&sql);
                    rc = kh_store_err(err, KYTOS_EINVAL, "index key '%.100s' is too long", ix->keys[j].text);
                    goto fail;
                }
                ku_buf_printf(&sql, "%s%s%s", j ? "," : "", ident, ix->dirs[j] < 0 ? " DESC" : "");
            }
            ku_buf_printf(&sql, ")");
            rc = sql.oom ? kh_store_err(err, KYTOS_ENOMEM, "out of memory") : sq_exec(&s->writer, sql.p, err);
            ku_buf_free(&sql);
            if (rc < 0)
                goto fail;
        }
    }
    if (version < SQ_SCHEMA_VERSION &&
        (rc = sq_exec(&s->writer, "PRAGMA user_version=" SQ_STR(SQ_SCHEMA_VERSION), err)) < 0)
        goto fail;
    /* (a transaction that changed nothing writes nothing) */
    if ((rc = sq_commit(&s->writer, err)) < 0)
        return rc;
    if (added)
        kh_store_logf(opts, 20, "store: %d key columns added to %s%s", added, s->path,
                      version < 2 ? " (schema 1 -> 2: indexes over key columns)" : "");
    for (int i = 0; i < s->ncolls; i++)
        for (int k = 0; k < s->colls[i]->nix; k++)
            for (int j = 0; j < s->colls[i]->ix[k].nkeys; j++)
                if (sq_kcol_publish(s, s->colls[i]->name, &s->colls[i]->ix[k].keys[j],
                                    s->colls[i]->ix[k].unique) < 0)
                    return kh_store_err(err, KYTOS_ENOMEM, "out of memory");   /* (the store closes) */
    return 0;
fail:
    sq_rollback(&s->writer);
    return rc;
}

/* wmu held: the SQL of a write to coll, with its key columns, into b: the
 * document's text is ?2, its id ?1.  pl: the plan of a splice (SQ_W_SPLICE).
 * 0, or an error. */
int sq_kcol_write_sql(struct sq_store *s, const char *coll, int kind, const struct kh_plan *pl,
                      struct ku_buf *b, struct kytos_error *err)
{
    static const char none[] = "";
    const char *names = none, *vals = none, *excl = none, *set = none;
    struct sq_coll *c;
    int broken = 0;

    pthread_mutex_lock(&s->mmu);
    c = sq_coll_find(s, coll);
    pthread_mutex_unlock(&s->mmu);
    /* the fields read below change only under wmu, which we hold */
    if (c && c->nkcol) {
        broken = c->kc_broken || !c->kc_names;
        names = c->kc_names, vals = c->kc_vals, excl = c->kc_excl, set = c->kc_set;
    } else if (c) {
        broken = c->kc_broken;
    }
    if (broken)
        return kh_store_err(err, KYTOS_ENOMEM, "'%s': its index columns could not be set up (out of memory)", coll);
    ku_buf_reset(b);
    switch (kind) {
    case SQ_W_PUT:
        ku_buf_printf(b, "INSERT INTO \"c:%s\"(id,doc%s) VALUES(?1,?2%s) ON CONFLICT(id) DO UPDATE SET doc=excluded.doc%s",
                      coll, names, vals, excl);
        break;
    case SQ_W_INSERT:
    case SQ_W_INSERT_IF_MISSING:
        ku_buf_printf(b, "INSERT INTO \"c:%s\"(id,doc%s) VALUES(?1,?2%s)%s", coll, names, vals,
                      kind == SQ_W_INSERT_IF_MISSING ? " ON CONFLICT(id) DO NOTHING" : "");
        break;
    case SQ_W_REPLACE:
        ku_buf_printf(b, "UPDATE \"c:%s\" SET doc=?2%s WHERE id=?1", coll, set);
        break;
    default:
        ku_buf_printf(b, "UPDATE \"c:%s\" SET doc=kh_splice(?2,doc)", coll);
        if (sq_kcol_splice_set(c, pl, b) < 0)
            return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
        ku_buf_adds(b, " WHERE id=?1");
        break;
    }
    return b->oom ? kh_store_err(err, KYTOS_ENOMEM, "out of memory") : 0;
}
