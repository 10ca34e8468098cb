/* host/store/store_sqlite_conn.c - the embedded store (store_sqlite.h):
 * connections: open, pragmas, WAL mode, the statement cache, the reader pool,
 * the checkpointer, schema, status and close. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "store/store_sqlite.h"

/* ---- errors ---- */

int sq_fail(sqlite3 *db, int rc, struct kytos_error *err, const char *coll, const char *id)
{
    const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    const char *ix;

    switch (rc & 0xff) {
    case SQLITE_CONSTRAINT:
        if ((ix = strstr(msg, "index '")) != NULL) {
            const char *name = ix + 7, *end = strchr(name, '\'');
            const char *colon = name;
            int len;
            /* "i:<coll>:<name>": report <name> */
            if (!strncmp(name, "i:", 2) && (colon = strchr(name + 2, ':')) != NULL && colon < end)
                name = colon + 1;
            len = end ? (int)(end - name) : (int)strlen(name);
            return kh_store_err(err, KYTOS_EEXIST, "duplicate key for unique index '%.*s' on '%s'",
                                len, name, coll);
        }
        if ((ix = strstr(msg, ".u:")) != NULL) {
            /* an index over key columns: "c:<coll>.u:<path>[, ...]" names
             * the first key (store_sqlite_keycol.c: capitals as ^x) */
            char path[KH_PATH_MAX + 1];
            size_t o = 0;
            for (const char *c = ix + 3; *c && *c != ',' && o < sizeof path - 1; c++) {
                if (*c == '^' && c[1]) {
                    c++;
                    path[o++] = *c == '^' ? '^' : (char)(*c - 'a' + 'A');
                } else {
                    path[o++] = *c;
                }
            }
            path[o] = '\0';
            return kh_store_err(err, KYTOS_EEXIST, "duplicate key for a unique index on '%s' in '%s'",
                                path, coll);
        }
        return kh_store_err(err, KYTOS_EEXIST, "duplicate _id '%.200s' in '%s'", id ? id : "", coll);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return kh_store_err(err, KYTOS_ETIMEDOUT, "embedded store busy for %d ms (%s)", SQ_BUSY_MS, msg);
    case SQLITE_NOMEM:
        return kh_store_err(err, KYTOS_ENOMEM, "embedded store: out of memory");
    case SQLITE_TOOBIG:
        return kh_store_err(err, KYTOS_ETOOBIG, "embedded store: %s", msg);
    case SQLITE_FULL:
        return kh_store_err(err, KYTOS_EIO, "embedded store: disk full (%s)", msg);
    case SQLITE_IOERR:
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return kh_store_err(err, KYTOS_EIO, "embedded store: I/O error (%s)", msg);
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
        return kh_store_err(err, KYTOS_EUNAVAIL, "embedded store unavailable (%s)", msg);
    default:
        if (strstr(msg, "malformed JSON"))
            return kh_store_err(err, KYTOS_EIO, "a stored document in '%s' is corrupt (%s)", coll, msg);
        return kh_store_err(err, KYTOS_ERROR, "embedded store: %s", msg);
    }
}

/* ---- connections and the statement cache ---- */

static void conn_close(struct sq_conn *c)
{
    for (int k = 0; k < SQ_CACHE; k++) {
        if (c->cache[k].st)
            sqlite3_finalize(c->cache[k].st);
        free(c->cache[k].sql);
        c->cache[k].st = NULL;
        c->cache[k].sql = NULL;
    }
    if (c->db)
        sqlite3_close_v2(c->db);
    c->db = NULL;
}

static uint64_t sql_hash(const char *sql)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */

    for (; *sql; sql++)
        h = (h ^ (unsigned char)*sql) * 1099511628211ull;
    return h;
}

/* A cached prepared statement for sql; give it back with sq_done(). */
int sq_prep(struct sq_conn *c, const char *sql, sqlite3_stmt **out, struct kytos_error *err)
{
    struct sq_stmt *victim = &c->cache[0];
    uint64_t h = sql_hash(sql);
    sqlite3_stmt *st;
    char *copy;
    int rc;

    if (c->hint[h & 255]) {
        struct sq_stmt *e = &c->cache[c->hint[h & 255] - 1];
        if (e->sql && e->hash == h && !strcmp(e->sql, sql)) {
            e->used = ++c->tick;
            *out = e->st;
            return 0;
        }
    }
    for (int k = 0; k < SQ_CACHE; k++) {
        struct sq_stmt *e = &c->cache[k];
        if (e->sql && e->hash == h && !strcmp(e->sql, sql)) {
            e->used = ++c->tick;
            c->hint[h & 255] = (unsigned char)(k + 1);
            *out = e->st;
            return 0;
        }
        if (e->used < victim->used)
            victim = e;
    }
    rc = sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
    if (rc != SQLITE_OK)
        return sq_fail(c->db, rc, err, "", NULL);
    if (!(copy = strdup(sql))) {
        sqlite3_finalize(st);
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    }
    if (victim->st)
        sqlite3_finalize(victim->st);
    free(victim->sql);
    victim->sql = copy;
    victim->hash = h;
    victim->st = st;
    victim->used = ++c->tick;
    c->hint[h & 255] = (unsigned char)(victim - c->cache + 1);
    *out = st;
    return 0;
}

void sq_done(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* pre "c:<coll>" post into sql[256], as snprintf would, for less on the
 * per-write path.  It fits: coll is a checked name (KH_STORE_MAX_COLL
 * bytes) and pre and post are short constants. */
void sq_coll_sql(char *sql, const char *pre, const char *coll, const char *post)
{
    size_t a = strlen(pre), b = strlen(coll), c = strlen(post);

    if (a + b + c + 4 > 256) {
        snprintf(sql, 256, "%s", "SELECT RAISE(ABORT, 'collection name too long')");
        return;
    }
    memcpy(sql, pre, a);
    memcpy(sql + a, "\"c:", 3);
    memcpy(sql + a + 3, coll, b);
    sql[a + 3 + b] = '"';
    memcpy(sql + a + 4 + b, post, c + 1);
}

/* Run a statement without results. */
int sq_exec(struct sq_conn *c, const char *sql, struct kytos_error *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((rc = sq_prep(c, sql, &st, err)) < 0)
        return rc;
    rc = sqlite3_step(st);
    sq_done(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return sq_fail(c->db, rc, err, "", NULL);
    return 0;
}

int sq_begin(struct sq_conn *c, struct kytos_error *err)
{
    return sq_exec(c, "BEGIN IMMEDIATE", err);
}

int sq_commit(struct sq_conn *c, struct kytos_error *err)
{
    int rc = sq_exec(c, "COMMIT", err);
    if (rc < 0 && !sqlite3_get_autocommit(c->db))
        sq_exec(c, "ROLLBACK", NULL);
    return rc;
}

void sq_rollback(struct sq_conn *c)
{
    if (!sqlite3_get_autocommit(c->db))
        sq_exec(c, "ROLLBACK", NULL);
}

/* kh_match(ctx, rowid, doc): the exact filter, in C. */
static void sq_match_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct sq_match *m = sqlite3_value_pointer(argv[0], "kh_match");
    struct json_object *doc;
    int r;

    (void)argc;
    if (!m) {
        sqlite3_result_error(ctx, "kh_match() is internal", -1);
        return;
    }
    if (m->parses)
        atomic_fetch_add_explicit(m->parses, 1, memory_order_relaxed);
    doc = kh_doc_parse((const char *)sqlite3_value_text(argv[2]), (size_t)sqlite3_value_bytes(argv[2]),
                       m->coll, &m->err);
    if (!doc) {
        m->failed = 1;
        sqlite3_result_error(ctx, m->err.message, -1);
        return;
    }
    r = kh_filter_match(m->f, doc);
    if (r && m->keep) {
        json_object_put(m->doc);
        m->doc = doc;
        m->rowid = sqlite3_value_int64(argv[1]);
    } else {
        json_object_put(doc);
    }
    sqlite3_result_int(ctx, r);
}

/* kh_splice(ctx, doc): the patched text of doc (kh_plan_splice()), for
 * UPDATE .. SET doc=kh_splice(..), so that the document is read and
 * written in one statement.  Where the fast path does not apply it fails
 * the statement (which then changes nothing) and says why in the context. */
static void sq_splice_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct sq_splice *x = sqlite3_value_pointer(argv[0], "kh_splice");
    const char *text = (const char *)sqlite3_value_text(argv[1]);

    (void)argc;
    if (!x || !text) {
        sqlite3_result_error(ctx, "kh_splice() is internal", -1);
        return;
    }
    if (x->done) {
        /* again in the same statement (a key column's value): the text
         * made the first time, which b still holds */
        sqlite3_result_text(ctx, x->b->p + x->off, (int)x->len, SQLITE_STATIC);
        return;
    }
    x->off = x->b->len;
    x->rc = kh_plan_splice(x->pl, text, (size_t)sqlite3_value_bytes(argv[1]), x->b, &x->err);
    if (x->rc == 0 && (x->len = x->b->len - x->off) > KH_STORE_MAX_DOC)
        x->rc = 1; /* the general path reports it */
    if (x->rc != 0) {
        sqlite3_result_error(ctx, "kh_splice: not here", -1);
        return;
    }
    /* b is not touched again before the statement is done */
    x->done = 1;
    sqlite3_result_text(ctx, x->b->p + x->off, (int)x->len, SQLITE_STATIC);
}

/* SQLite's "unix-excl" VFS: the process holds an exclusive lock on the
 * file (another process cannot open it while kytosd runs: a second kytosd
 * on the same data directory is refused) and the connections of this
 * process share the WAL index in memory, so no fcntl() lock on the -shm
 * file per transaction: 6 syscalls per commit and 2 per read otherwise,
 * each a trap on a paravirtualised machine.  Through a shim that writes
 * each transaction's WAL frames at once (store_sqlite_walbuf.c). */
static const char *sq_vfs(void)
{
    return sq_walbuf_vfs();
}

/* SQLite counts every allocation under a global mutex unless told not to;
 * kytosd never reads those counts (about 20 lock pairs per flow POST).
 * Only possible before SQLite initialises; if something already did, the
 * call fails harmlessly and the counts stay on. */
static void sq_global_config(void)
{
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static int conn_open(struct sq_store *s, struct sq_conn *c, int writer, struct kytos_error *err)
{
    static pthread_once_t configured = PTHREAD_ONCE_INIT;
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (writer ? SQLITE_OPEN_CREATE : 0);
    int rc;
    char sql[128];

    pthread_once(&configured, sq_global_config);
    rc = sqlite3_open_v2(s->path, &c->db, flags, sq_vfs());

    if (rc != SQLITE_OK) {
        kh_store_err(err, KYTOS_EUNAVAIL, "cannot open the embedded store %s: %s", s->path,
                     c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc));
        conn_close(c);
        return KYTOS_EUNAVAIL;
    }
    sqlite3_extended_result_codes(c->db, 0);
    if (writer) {
        /* the first read takes the file for this process (sq_vfs): held by
         * another one, say so at once rather than after the busy timeout */
        rc = sqlite3_exec(c->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
        if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
            kh_store_err(err, KYTOS_EUNAVAIL,
                         "%s is in use by another process (another kytosd with this data directory?)", s->path);
            conn_close(c);
            return KYTOS_EUNAVAIL;
        }
    }
    sqlite3_busy_timeout(c->db, SQ_BUSY_MS);
    rc = sqlite3_create_function(c->db, "kh_match", 3, SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL,
                                 sq_match_fn, NULL, NULL);
    if (rc == SQLITE_OK && writer)
        rc = sqlite3_create_function(c->db, "kh_splice", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL,
                                     sq_splice_fn, NULL, NULL);
    if (rc != SQLITE_OK)
        return sq_fail(c->db, rc, err, "", NULL);
    if ((rc = sq_exec(c, "PRAGMA cache_size=-8000", err)) < 0 ||
        (rc = sq_exec(c, "PRAGMA temp_store=MEMORY", err)) < 0)
        return rc;
    if (!writer)
        return sq_exec(c, "PRAGMA query_only=ON", err);
    snprintf(sql, sizeof(sql), "PRAGMA synchronous=%s", s->sync_full ? "FULL" : "NORMAL");
    if ((rc = sq_exec(c, sql, err)) < 0)
        return rc;
    /* a WAL that a burst of writes made large is cut back to this when it
     * starts over after a checkpoint: without it the file keeps its largest
     * size (hundreds of MB after thousands of EVCs were deployed) */
    return sq_exec(c, "PRAGMA journal_size_limit=" SQ_STR(SQ_WAL_KEEP_BYTES), err);
}
/* ---- the checkpointer ---- */

/* Writer side, after each commit (wmu held): wake the checkpointer once
 * the WAL has grown SQ_CKPT_PAGES frames since the last time.  Not on its
 * size: during a burst of commits the WAL does not start over, and a WAL
 * past the threshold then woke it after every commit; each checkpoint
 * copied the pages of a commit or two, and a page that every commit
 * changes (an index on random ids, such as flow_manager's) went to the
 * database file once per commit instead of once per checkpoint (a link
 * failure at 2,000 EVCs: 74 checkpoints in 183 commits, 130 MB written to
 * the database for 155 MB of WAL). */
static int wal_hook(void *ud, sqlite3 *db, const char *name, int pages)
{
    struct sq_store *s = ud;

    (void)db;
    (void)name;
    atomic_fetch_add_explicit(&s->wal_commits, 1, memory_order_relaxed);
    if (pages < s->ckpt_base)
        s->ckpt_base = 0;   /* the WAL started over */
    if (pages - s->ckpt_base >= s->ckpt_pages) {
        s->ckpt_base = pages;
        pthread_mutex_lock(&s->cmu);
        s->ckpt_wanted = 1;
        pthread_cond_signal(&s->ccv);
        pthread_mutex_unlock(&s->cmu);
    }
    return SQLITE_OK;
}

/* After a checkpoint that copied the whole WAL, the next commit starts the
 * WAL over, and SQLite fsyncs the new WAL header then: about a millisecond
 * on this kind of disk, in the way of whichever write comes next (often an
 * HTTP request's, answered after its commit).  So this thread makes that
 * commit itself, an unchanged user_version, under the writer's lock, when
 * nothing was written since the checkpoint; a write arriving meanwhile
 * waits for the rest of it instead of all of it.  restart_locked is that
 * commit (wmu held). */
static bool restart_locked(struct sq_store *s)
{
    if (sq_exec(&s->writer, "PRAGMA user_version=" SQ_STR(SQ_SCHEMA_VERSION), NULL) != 0)
        return false;
    atomic_fetch_add_explicit(&s->wal_restarts, 1, memory_order_relaxed);
    s->restart_commits = atomic_load(&s->wal_commits);
    return true;
}

static bool ckpt_restart_wal(struct sq_store *s, uint64_t commits_before)
{
    bool done;

    pthread_mutex_lock(&s->wmu);
    done = atomic_load(&s->wal_commits) == commits_before && restart_locked(s);
    pthread_mutex_unlock(&s->wmu);
    return done;
}

/* During a burst the writer commits again before a checkpoint is over, so
 * the WAL never starts over: it grew to 280 MB while 2,000 EVCs were
 * created (12 times the database), every page of it newly allocated by the
 * file system.  Past wal_max_bytes (store_wal_max_mb, off by default) the
 * writer is held for one more checkpoint, of what was committed since the
 * last (a few MB), and the WAL starts over with our own commit.  Off by
 * default because it costs the burst: each hold is ~25 ms of fsyncs with
 * the writer stopped, and a link failure at 10,000 EVCs took 8.4-10.7 s
 * with it (32 or 64 MB) against 7.2-8.2 s without; the WAL is cut back
 * to 8 MiB anyway within 2 s of the burst's end.  A reader still on old
 * frames keeps the checkpoint from finishing: then the writer goes on, and
 * the next wake tries again. */
static void ckpt_hold_and_restart(struct sq_store *s)
{
    int log = -1, done = -1;

    pthread_mutex_lock(&s->wmu);
    if (sqlite3_wal_checkpoint_v2(s->ckpt.db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done) == SQLITE_OK) {
        atomic_fetch_add_explicit(&s->checkpoints, 1, memory_order_relaxed);
        if (log > 0 && done == log && restart_locked(s))
            atomic_fetch_add_explicit(&s->wal_restarts_held, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&s->wmu);
}

static void ckpt_run(struct sq_store *s)
{
    uint64_t before = atomic_load(&s->wal_commits);
    int log = -1, done = -1;

    if (before == s->restart_commits)
        return;   /* nothing written since our own commit: idle */
    /* PASSIVE: never blocks the writer or the readers */
    if (sqlite3_wal_checkpoint_v2(s->ckpt.db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done) != SQLITE_OK)
        return;
    atomic_fetch_add_explicit(&s->checkpoints, 1, memory_order_relaxed);
    if (log > 0 && done == log && ckpt_restart_wal(s, before))
        return;
    /* written to meanwhile (a burst), or a reader on old frames */
    if (s->wal_max_bytes > 0 && log > 0 && (int64_t)log * s->page_size >= s->wal_max_bytes)
        ckpt_hold_and_restart(s);
}

static void *ckpt_main(void *p)
{
    struct sq_store *s = p;

    pthread_mutex_lock(&s->cmu);
    while (!s->ckpt_stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += SQ_CKPT_IDLE_MS / 1000;
        if (!s->ckpt_wanted)
            pthread_cond_timedwait(&s->ccv, &s->cmu, &ts);
        if (s->ckpt_stop)
            break;
        s->ckpt_wanted = 0;
        pthread_mutex_unlock(&s->cmu);
        ckpt_run(s);
        pthread_mutex_lock(&s->cmu);
    }
    pthread_mutex_unlock(&s->cmu);
    return NULL;
}

static int ckpt_start(struct sq_store *s, struct kytos_error *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((rc = conn_open(s, &s->ckpt, 0, err)) < 0)
        return rc;
    if (sqlite3_prepare_v2(s->writer.db, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) >= 512)
            s->page_size = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    /* with a limit on the WAL, woken at half of it at the latest */
    s->ckpt_pages = SQ_CKPT_PAGES;
    if (s->wal_max_bytes > 0) {
        int64_t half = s->wal_max_bytes / s->page_size / 2;
        if (half < s->ckpt_pages)
            s->ckpt_pages = half > 16 ? (int)half : 16;
    }
    if ((rc = sq_exec(&s->writer, "PRAGMA wal_autocheckpoint=0", err)) < 0)
        return rc;
    sqlite3_wal_hook(s->writer.db, wal_hook, s);
    if (pthread_create(&s->ckpt_thread, NULL, ckpt_main, s) != 0) {
        sqlite3_wal_hook(s->writer.db, NULL, NULL);
        sq_exec(&s->writer, "PRAGMA wal_autocheckpoint=1000", NULL);
        return 0; /* no thread: SQLite checkpoints inline, as by default */
    }
    s->ckpt_running = 1;
    return 0;
}

static void ckpt_stop(struct sq_store *s)
{
    if (!s->ckpt_running)
        return;
    pthread_mutex_lock(&s->cmu);
    s->ckpt_stop = 1;
    pthread_cond_signal(&s->ccv);
    pthread_mutex_unlock(&s->cmu);
    pthread_join(s->ckpt_thread, NULL);
    s->ckpt_running = 0;
}

/* ---- open / schema ---- */

static int schema_init(struct sq_store *s, struct kytos_error *err)
{
    sqlite3_stmt *st;
    int rc, version;

    if ((rc = sq_prep(&s->writer, "PRAGMA user_version", &st, err)) < 0)
        return rc;
    rc = sqlite3_step(st);
    version = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sq_done(st);
    if (version < 0)
        return sq_fail(s->writer.db, rc, err, "", NULL);
    if (version > SQ_SCHEMA_VERSION)
        return kh_store_err(err, KYTOS_EUNAVAIL,
                            "%s has store schema version %d; this kytosd knows up to %d", s->path,
                            version, SQ_SCHEMA_VERSION);
    if (version >= 1)
        return 0;   /* 1: its indexes are migrated once loaded (sq_kcol_migrate) */
    /* version 0: a new file */
    if ((rc = sq_begin(&s->writer, err)) < 0)
        return rc;
    if ((rc = sq_exec(&s->writer,
                      "CREATE TABLE IF NOT EXISTS kh_indexes(coll TEXT NOT NULL, name TEXT NOT NULL,"
                      " keys TEXT NOT NULL, is_unique INTEGER NOT NULL, multikey INTEGER NOT NULL,"
                      " PRIMARY KEY(coll, name))", err)) < 0 ||
        (rc = sq_exec(&s->writer, "PRAGMA user_version=" SQ_STR(SQ_SCHEMA_VERSION), err)) < 0) {
        sq_rollback(&s->writer);
        return rc;
    }
    return sq_commit(&s->writer, err);
}

static void schema_load(struct sq_store *s, const struct kh_store_opts *opts)
{
    sqlite3_stmt *st;

    if (sq_prep(&s->writer, "SELECT name FROM sqlite_schema WHERE type='table' AND name GLOB 'c:*'",
                &st, NULL) == 0) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *t = (const char *)sqlite3_column_text(st, 0);
            if (t && kh_store_check_coll(t + 2, NULL) == 0 && !sq_coll_find(s, t + 2))
                sq_coll_add(s, t + 2);
        }
        sq_done(st);
    }
    if (sq_prep(&s->writer, "SELECT coll, name, keys, is_unique, multikey FROM kh_indexes", &st,
                NULL) != 0)
        return;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *cn = (const char *)sqlite3_column_text(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *keys = (const char *)sqlite3_column_text(st, 2);
        struct sq_coll *c = cn ? sq_coll_find(s, cn) : NULL;
        struct json_object *kj = keys ? json_tokener_parse(keys) : NULL;
        struct sq_index ix = {0}, *nix;
        struct kytos_error e = {0};
        /* the file is input too: a bad row only costs its pushdown */
        if (!c || !name || kh_store_check_index_name(name, &e) < 0 || c->nix >= SQ_MAX_INDEXES ||
            sq_index_parse(&ix, kj, &e) < 0 || !(nix = realloc(c->ix, sizeof(*nix) * (size_t)(c->nix + 1)))) {
            kh_store_logf(opts, 30, "store: ignoring index row %s/%s in kh_indexes (%s)",
                          cn ? cn : "?", name ? name : "?", e.message[0] ? e.message : "unknown collection");
            sq_index_clear(&ix);
            json_object_put(kj);
            continue;
        }
        snprintf(ix.name, sizeof(ix.name), "%s", name);
        ix.unique = sqlite3_column_int(st, 3) != 0;
        ix.multikey = sqlite3_column_int(st, 4) != 0;
        c->ix = nix;
        c->ix[c->nix++] = ix;
        json_object_put(kj);
    }
    sq_done(st);
}

static void sq_close(struct kh_store_backend *b)
{
    struct sq_store *s = (struct sq_store *)b;

    if (!s)
        return;
    ckpt_stop(s);
    conn_close(&s->ckpt);
    for (int k = 0; k < s->nreaders; k++)
        conn_close(&s->readers[k]);
    free(s->readers);
    conn_close(&s->writer);
    ku_buf_free(&s->wbuf);
    for (int k = 0; k < s->ncolls; k++)
        sq_coll_free(s->colls[k]);
    free(s->colls);
    pthread_mutex_destroy(&s->wmu);
    pthread_mutex_destroy(&s->rmu);
    pthread_mutex_destroy(&s->mmu);
    pthread_mutex_destroy(&s->cmu);
    pthread_mutex_destroy(&s->qmu);
    pthread_cond_destroy(&s->acv);
    pthread_cond_destroy(&s->rcv);
    pthread_cond_destroy(&s->ccv);
    free(s->path);
    free(s);
}

/* ---- reader pool ---- */

struct sq_conn *sq_reader_get(struct sq_store *s)
{
    struct sq_conn *c;

    if (s->nreaders == 0) {
        pthread_mutex_lock(&s->wmu);
        return &s->writer;
    }
    pthread_mutex_lock(&s->rmu);
    while (!s->free_readers)
        pthread_cond_wait(&s->rcv, &s->rmu);
    c = s->free_readers;
    s->free_readers = c->next_free;
    pthread_mutex_unlock(&s->rmu);
    return c;
}

void sq_reader_put(struct sq_store *s, struct sq_conn *c)
{
    if (c == &s->writer) {
        pthread_mutex_unlock(&s->wmu);
        return;
    }
    pthread_mutex_lock(&s->rmu);
    c->next_free = s->free_readers;
    s->free_readers = c;
    pthread_cond_signal(&s->rcv);
    pthread_mutex_unlock(&s->rmu);
}

/* ---- status ---- */

static int sq_status(struct kh_store_backend *b, struct json_object *st)
{
    struct sq_store *s = (struct sq_store *)b;
    struct json_object *scans = json_object_new_object(), *parses = json_object_new_object();
    int n;

    pthread_mutex_lock(&s->mmu);
    n = s->ncolls;
    for (int k = 0; k < n; k++) {
        json_object_object_add(scans, s->colls[k]->name,
                               json_object_new_int64((int64_t)atomic_load(&s->colls[k]->full_scans)));
        json_object_object_add(parses, s->colls[k]->name,
                               json_object_new_int64((int64_t)atomic_load(&s->colls[k]->match_parses)));
    }
    pthread_mutex_unlock(&s->mmu);
    json_object_object_add(st, "full_scans", scans);
    json_object_object_add(st, "match_parses", parses);
    json_object_object_add(st, "path", json_object_new_string(s->path));
    json_object_object_add(st, "journal", json_object_new_string(s->nreaders ? "wal" : "memory"));
    json_object_object_add(st, "sync", json_object_new_string(s->sync_full ? "full" : "normal"));
    json_object_object_add(st, "readers", json_object_new_int(s->nreaders));
    json_object_object_add(st, "checkpoints", json_object_new_int64((int64_t)atomic_load(&s->checkpoints)));
    json_object_object_add(st, "wal_restarts", json_object_new_int64((int64_t)atomic_load(&s->wal_restarts)));
    json_object_object_add(st, "wal_restarts_held",
                           json_object_new_int64((int64_t)atomic_load(&s->wal_restarts_held)));
    json_object_object_add(st, "group_commits", json_object_new_int64((int64_t)atomic_load(&s->commits)));
    json_object_object_add(st, "group_writes", json_object_new_int64((int64_t)atomic_load(&s->writes)));
    json_object_object_add(st, "merged_writes", json_object_new_int64((int64_t)atomic_load(&s->merged)));
    json_object_object_add(st, "collections", json_object_new_int(n));
    json_object_object_add(st, "sqlite_version", json_object_new_string(sqlite3_libversion()));
    return 1;
}

static const struct kh_store_ops sq_ops = {
    .name = "sqlite",
    .close = sq_close,
    .status = sq_status,
    .get = sq_get,
    .put = sq_put,
    .patch = sq_patch,
    .del = sq_delete,
    .find = sq_find,
    .count = sq_count,
    .bulk = sq_bulk,
    .index = sq_index,
    .find_text = 1,
};

int kh_store_sqlite_open(struct kh_store_backend **out, const struct kh_store_opts *opts,
                         struct kytos_error *err)
{
    struct sq_store *s;
    const char *dir = opts ? opts->data_dir : NULL;
    int rc, nreaders;
    sqlite3_stmt *st;

    *out = NULL;
    if (sqlite3_libversion_number() < 3038000)
        return kh_store_err(err, KYTOS_EUNAVAIL, "SQLite %s is too old (3.38 or later needed)",
                            sqlite3_libversion());
    if (!(s = calloc(1, sizeof(*s))))
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    s->base.ops = &sq_ops;
    pthread_mutex_init(&s->wmu, NULL);
    s->restart_commits = UINT64_MAX;   /* a WAL left by a crash is checkpointed idle too */
    pthread_mutex_init(&s->rmu, NULL);
    pthread_mutex_init(&s->mmu, NULL);
    pthread_mutex_init(&s->cmu, NULL);
    pthread_mutex_init(&s->qmu, NULL);
    {
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&s->acv, &ca);
        pthread_condattr_destroy(&ca);
    }
    s->qtail = &s->qhead;
    pthread_cond_init(&s->rcv, NULL);
    pthread_cond_init(&s->ccv, NULL);
    s->sync_full = opts && opts->sync && !strcmp(opts->sync, "full");
    s->wal_max_bytes = (int64_t)(opts && opts->wal_max_mb > 0 ? opts->wal_max_mb : 0) << 20;
    s->page_size = 4096;
    if (opts && opts->sync && opts->sync[0] && strcmp(opts->sync, "full") && strcmp(opts->sync, "normal")) {
        rc = kh_store_err(err, KYTOS_EINVAL, "store_sync must be \"normal\" or \"full\", not \"%.40s\"",
                          opts->sync);
        goto fail;
    }
    if (dir && dir[0]) {
        struct stat sb;
        if (stat(dir, &sb) < 0 && (errno != ENOENT || mkdir(dir, 0700) < 0)) {
            rc = kh_store_err(err, KYTOS_EUNAVAIL, "data directory %s: %s", dir, strerror(errno));
            goto fail;
        }
        if (asprintf(&s->path, "%s/store.db", dir) < 0) {
            s->path = NULL;
            rc = kh_store_err(err, KYTOS_ENOMEM, "out of memory");
            goto fail;
        }
        nreaders = opts->readers > 0 ? opts->readers : SQ_READERS_DEFAULT;
        if (nreaders > SQ_READERS_MAX)
            nreaders = SQ_READERS_MAX;
    } else {
        s->path = strdup(":memory:");
        nreaders = 0;
    }
    if (!s->path) {
        rc = kh_store_err(err, KYTOS_ENOMEM, "out of memory");
        goto fail;
    }
    if ((rc = conn_open(s, &s->writer, 1, err)) < 0)
        goto fail;
    if (nreaders) {
        const char *mode = NULL;
        if ((rc = sq_prep(&s->writer, "PRAGMA journal_mode=WAL", &st, err)) < 0)
            goto fail;
        if (sqlite3_step(st) == SQLITE_ROW)
            mode = (const char *)sqlite3_column_text(st, 0);
        if (!mode || strcmp(mode, "wal")) {
            rc = kh_store_err(err, KYTOS_EUNAVAIL, "%s: cannot switch to WAL mode (%s)", s->path,
                              mode ? mode : sqlite3_errmsg(s->writer.db));
            sq_done(st);
            goto fail;
        }
        sq_done(st);
    }
    if ((rc = schema_init(s, err)) < 0)
        goto fail;
    schema_load(s, opts);
    /* indexes over key columns (schema 1 files migrated) */
    pthread_mutex_lock(&s->wmu);
    rc = sq_kcol_migrate(s, opts, err);
    pthread_mutex_unlock(&s->wmu);
    if (rc < 0)
        goto fail;
    if (nreaders && !(s->readers = calloc((size_t)nreaders, sizeof(*s->readers)))) {
        rc = kh_store_err(err, KYTOS_ENOMEM, "out of memory");
        goto fail;
    }
    for (int k = 0; k < nreaders; k++) {
        if ((rc = conn_open(s, &s->readers[k], 0, err)) < 0) {
            conn_close(&s->readers[k]);
            goto fail;
        }
        s->nreaders++;
        s->readers[k].next_free = s->free_readers;
        s->free_readers = &s->readers[k];
    }
    if (nreaders && (rc = ckpt_start(s, err)) < 0)
        goto fail;
    *out = &s->base;
    return 0;
fail:
    sq_close(&s->base);
    return rc;
}
