/* host/store/store_sqlite_index.c - the embedded store (store_sqlite.h):
 * collections and their indexes: specs, SQL key expressions, creating indexes
 * and the multikey scan. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "store/store_sqlite.h"

/* ---- collections ---- */

struct sq_coll *sq_coll_find(struct sq_store *s, const char *name)
{
    for (int k = 0; k < s->ncolls; k++)
        if (!strcmp(s->colls[k]->name, name))
            return s->colls[k];
    return NULL;
}

struct sq_coll *sq_coll_add(struct sq_store *s, const char *name)
{
    struct sq_coll *c, **nc;

    if (s->ncolls >= SQ_MAX_COLLS)
        return NULL;
    if (!(c = calloc(1, sizeof(*c))))
        return NULL;
    if (!(nc = realloc(s->colls, sizeof(*nc) * (size_t)(s->ncolls + 1)))) {
        free(c);
        return NULL;
    }
    snprintf(c->name, sizeof(c->name), "%s", name);
    s->colls = nc;
    s->colls[s->ncolls++] = c;
    return c;
}

void sq_index_clear(struct sq_index *ix)
{
    free(ix->keys_json);
    free(ix->keys);
    free(ix->dirs);
}

void sq_coll_free(struct sq_coll *c)
{
    for (int k = 0; k < c->nix; k++)
        sq_index_clear(&c->ix[k]);
    free(c->ix);
    sq_kcol_free(c);
    free(c);
}

/* Is the collection's table there?  Readers ask; only writers create. */
int sq_coll_exists(struct sq_store *s, const char *name)
{
    int r;

    pthread_mutex_lock(&s->mmu);
    r = sq_coll_find(s, name) != NULL;
    pthread_mutex_unlock(&s->mmu);
    return r;
}

/* Writer side (wmu held): create the table on first use. */
int sq_coll_ensure(struct sq_store *s, const char *name, struct kytos_error *err)
{
    char sql[256];
    int rc;

    if (sq_coll_exists(s, name))
        return 0;
    snprintf(sql, sizeof(sql),
             "CREATE TABLE IF NOT EXISTS \"c:%s\"(id TEXT PRIMARY KEY NOT NULL, doc TEXT NOT NULL)", name);
    if ((rc = sq_exec(&s->writer, sql, err)) < 0)
        return rc;
    pthread_mutex_lock(&s->mmu);
    if (!sq_coll_find(s, name) && !sq_coll_add(s, name))
        rc = kh_store_err(err, KYTOS_EFULL, "more than %d collections", SQ_MAX_COLLS);
    pthread_mutex_unlock(&s->mmu);
    return rc;
}

/* Parse an index spec {"a": 1, "b.c": -1} into ix (keys, dirs, keys_json). */
int sq_index_parse(struct sq_index *ix, struct json_object *keys, struct kytos_error *err)
{
    int n, k = 0, rc;

    if (!json_object_is_type(keys, json_type_object) || (n = json_object_object_length(keys)) == 0)
        return kh_store_err(err, KYTOS_EINVAL, "index keys must be a non-empty object {\"field\": 1}");
    if (n > KH_STORE_MAX_INDEX_KEYS)
        return kh_store_err(err, KYTOS_EINVAL, "index has more than %d keys", KH_STORE_MAX_INDEX_KEYS);
    ix->keys = calloc((size_t)n, sizeof(*ix->keys));
    ix->dirs = calloc((size_t)n, sizeof(*ix->dirs));
    ix->keys_json = strdup(json_object_to_json_string_ext(keys, JSON_C_TO_STRING_PLAIN));
    if (!ix->keys || !ix->dirs || !ix->keys_json)
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    json_object_object_foreach(keys, key, val) {
        int64_t d = json_object_is_type(val, json_type_int) ? json_object_get_int64(val) : 0;
        if (d != 1 && d != -1)
            return kh_store_err(err, KYTOS_EINVAL, "index key '%.100s' must be 1 or -1", key);
        if ((rc = kh_path_parse(&ix->keys[k], key, "index key", err)) < 0) {
            if (err)
                err->code = KYTOS_EINVAL;
            return KYTOS_EINVAL;
        }
        ix->dirs[k++] = (int)d;
    }
    ix->nkeys = n;
    return 0;
}

/* The SQL expression of one index key (also used by queries, textually). */
int sq_key_expr(const struct kh_path *p, int unique, char *out, size_t outlen)
{
    return sq_key_expr_of(p, unique, "doc", out, outlen);
}

/* The same over the JSON text arg (an SQL expression): a key column's
 * value computed from the text being written. */
int sq_key_expr_of(const struct kh_path *p, int unique, const char *arg, char *out, size_t outlen)
{
    char lit[KH_PATH_MAX * 2 + 64];

    if (kh_path_sql_literal(p, lit, sizeof(lit)) < 0)
        return -1;
    if (unique)
        return snprintf(out, outlen, "ifnull(%s -> %s,'null')", arg, lit) >= (int)outlen ? -1 : 0;
    return snprintf(out, outlen, "json_extract(%s,%s)", arg, lit) >= (int)outlen ? -1 : 0;
}

/* ---- indexes ---- */

static int same_index(const struct sq_index *a, const struct sq_index *b)
{
    return a->unique == b->unique && !strcmp(a->keys_json, b->keys_json);
}

/* wmu held, in a transaction: does any stored document make ix multikey? */
static int scan_multikey(struct sq_store *s, const char *coll, struct sq_index *ix,
                         struct kytos_error *err)
{
    char sql[256];
    sqlite3_stmt *st;
    int rc;

    snprintf(sql, sizeof(sql), "SELECT doc FROM \"c:%s\"", coll);
    if ((rc = sq_prep(&s->writer, sql, &st, err)) < 0)
        return rc;
    while (!ix->multikey && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct json_object *doc = kh_doc_parse((const char *)sqlite3_column_text(st, 0),
                                               (size_t)sqlite3_column_bytes(st, 0), coll, NULL);
        for (int j = 0; doc && j < ix->nkeys; j++)
            if (kh_path_has_array(doc, &ix->keys[j]))
                ix->multikey = 1;
        if (!doc)
            ix->multikey = 1; /* unreadable: never trust the index for it */
        json_object_put(doc);
    }
    sq_done(st);
    return 0;
}

int sq_index(struct kh_store_backend *b, const char *coll, const char *name,
             struct json_object *keys, unsigned flags, struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct sq_index ix = {0}, *nix;
    struct sq_coll *c;
    struct ku_buf sql = {0};
    sqlite3_stmt *st;
    int rc, exists = 0;

    snprintf(ix.name, sizeof(ix.name), "%s", name);
    ix.unique = (flags & KYTOS_STORE_UNIQUE) != 0;
    if ((rc = sq_index_parse(&ix, keys, err)) < 0)
        goto out;
    pthread_mutex_lock(&s->wmu);
    if ((rc = sq_coll_ensure(s, coll, err)) < 0)
        goto unlock;
    pthread_mutex_lock(&s->mmu);
    c = sq_coll_find(s, coll);
    for (int k = 0; c && k < c->nix; k++) {
        if (!strcmp(c->ix[k].name, name)) {
            exists = same_index(&c->ix[k], &ix) ? 1 : -1;
            break;
        }
        if (same_index(&c->ix[k], &ix))
            exists = 1; /* the same keys under another name: there already */
    }
    if (c && !exists && c->nix >= SQ_MAX_INDEXES)
        exists = -2;
    pthread_mutex_unlock(&s->mmu);
    if (exists == -1) {
        rc = kh_store_err(err, KYTOS_EEXIST, "index '%s' on '%s' exists with other keys or options",
                          name, coll);
        goto unlock;
    }
    if (exists == -2) {
        rc = kh_store_err(err, KYTOS_EFULL, "'%s' has %d indexes already", coll, SQ_MAX_INDEXES);
        goto unlock;
    }
    if (exists)
        goto unlock;
    if ((rc = sq_begin(&s->writer, err)) < 0)
        goto unlock;
    /* over key columns (store_sqlite_keycol.c), added and filled first */
    ku_buf_printf(&sql, "CREATE %sINDEX \"i:%s:%s\" ON \"c:%s\"(", ix.unique ? "UNIQUE " : "", coll, name, coll);
    for (int k = 0; k < ix.nkeys; k++) {
        char ident[SQ_IDENT_MAX];
        if ((rc = sq_kcol_add(s, coll, &ix.keys[k], ix.unique, err)) < 0) {
            sq_rollback(&s->writer);
            goto unlock;
        }
        if (sq_kcol_ident(ix.keys[k].text, ix.unique, ident, sizeof ident) < 0) {
            rc = kh_store_err(err, KYTOS_EINVAL, "index key '%.100s' is too long", ix.keys[k].text);
            sq_rollback(&s->writer);
            goto unlock;
        }
        ku_buf_printf(&sql, "%s%s%s", k ? "," : "", ident, ix.dirs[k] < 0 ? " DESC" : "");
    }
    ku_buf_printf(&sql, ")");
    if (sql.oom) {
        rc = kh_store_err(err, KYTOS_ENOMEM, "out of memory");
        sq_rollback(&s->writer);
        goto unlock;
    }
    rc = sqlite3_exec(s->writer.db, sql.p, NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        if ((rc & 0xff) == SQLITE_CONSTRAINT)
            rc = kh_store_err(err, KYTOS_EEXIST,
                              "cannot create unique index '%s' on '%s': documents share a key", name, coll);
        else
            rc = sq_fail(s->writer.db, rc, err, coll, NULL);
        sq_rollback(&s->writer);
        goto unlock;
    }
    if ((rc = scan_multikey(s, coll, &ix, err)) < 0 ||
        (rc = sq_prep(&s->writer, "INSERT INTO kh_indexes(coll,name,keys,is_unique,multikey) "
                                  "VALUES(?1,?2,?3,?4,?5)", &st, err)) < 0) {
        sq_rollback(&s->writer);
        goto unlock;
    }
    sqlite3_bind_text(st, 1, coll, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, ix.keys_json, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, ix.unique);
    sqlite3_bind_int(st, 5, ix.multikey);
    rc = sqlite3_step(st);
    sq_done(st);
    if (rc != SQLITE_DONE) {
        rc = sq_fail(s->writer.db, rc, err, coll, NULL);
        sq_rollback(&s->writer);
        goto unlock;
    }
    if ((rc = sq_commit(&s->writer, err)) < 0)
        goto unlock;
    for (int k = 0; k < ix.nkeys; k++)
        if (sq_kcol_publish(s, coll, &ix.keys[k], ix.unique) < 0)
            rc = kh_store_err(err, KYTOS_ENOMEM, "out of memory");   /* (its writes now fail) */
    pthread_mutex_lock(&s->mmu);
    c = sq_coll_find(s, coll);
    if (c && (nix = realloc(c->ix, sizeof(*nix) * (size_t)(c->nix + 1))) != NULL) {
        c->ix = nix;
        c->ix[c->nix++] = ix;
        memset(&ix, 0, sizeof(ix)); /* owned by the collection now */
    }
    pthread_mutex_unlock(&s->mmu);
unlock:
    pthread_mutex_unlock(&s->wmu);
out:
    sq_index_clear(&ix);
    ku_buf_free(&sql);
    return rc;
}
