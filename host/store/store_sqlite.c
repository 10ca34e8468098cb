/* host/store/store_sqlite.c - the embedded store: SQLite in WAL mode.
 *
 * Layout: <data_dir>/store.db, one table "c:<collection>" (id TEXT PRIMARY
 * KEY, doc TEXT) per collection, documents as compact JSON text as json-c
 * writes it (kh_json_write(), so uint64 values keep their digits), indexes as SQLite
 * expression indexes "i:<collection>:<name>" over json_extract() (unique
 * ones over the JSON text of the value, "doc -> path", so they compare
 * exactly), their definitions in kh_indexes, PRAGMA user_version = schema.
 *
 * Concurrency: one writer connection behind a mutex (every write is one
 * transaction, so a write is acknowledged only once committed) and a pool
 * of reader connections (WAL readers never block the writer nor each
 * other).  In memory (no data_dir) there is one connection for both.
 *
 * Consistency: serializable.  A write is visible to every read that starts
 * after it returned (read-your-writes across threads); a find or count
 * reads one snapshot; bulk writes are all or nothing.  Durability: WAL with
 * synchronous=NORMAL survives a crash or kill -9 of the process (the WAL is
 * in the OS cache); sync = "full" fsyncs every commit, so acknowledged
 * writes survive power loss too.
 *
 * Patches are applied to the stored text (kh_plan_splice(), in one UPDATE
 * through kh_splice()): the document is not parsed into json-c objects and
 * written again (a caller that wants it back gets the new text parsed),
 * unless the update needs MongoDB's array rules, an index turns multikey,
 * or the stored text is something the splicer is not sure of: then the
 * general path, kh_update_apply(), decides as before.
 *
 * Filters are matched exactly in C (kh_match(), store_filter.c).  Conditions
 * on indexed paths are also given to SQLite, written so they select a
 * superset of the matches, so that it can use the index; an index on a
 * path where some document holds an array ("multikey", as MongoDB says) is
 * not used for that, as json_extract cannot see into arrays. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sqlite3.h>
#include "store/store_doc.h"
#include "store/store_filter.h"
#include "store/store_impl.h"

#define SQ_SCHEMA_VERSION 1
#define SQ_STR_(x) #x
#define SQ_STR(x) SQ_STR_(x)          /* a number macro as SQL text */
#define SQ_CACHE 64                    /* prepared statements per connection */
#define SQ_READERS_DEFAULT 4
#define SQ_READERS_MAX 64
#define SQ_BUSY_MS 5000
#define SQ_MAX_COLLS 1000
#define SQ_MAX_INDEXES 64              /* per collection (MongoDB: 64) */
#define SQ_RESULT_MAX ((size_t)512 << 20) /* bytes one find may hold */
#define SQ_CKPT_PAGES 1000             /* WAL pages that trigger a checkpoint */
#define SQ_CKPT_IDLE_MS 2000           /* and at least this often when idle */

struct sq_stmt {
    char *sql;
    uint64_t hash;                /* of sql: most lookups compare only this */
    sqlite3_stmt *st;
    uint64_t used;
};

struct sq_conn {
    sqlite3 *db;
    uint64_t tick;
    struct sq_stmt cache[SQ_CACHE];
    unsigned char hint[256];      /* hash & 255 -> cache slot + 1 (0: none) */
    struct sq_conn *next_free;
};

struct sq_index {
    char name[KH_STORE_MAX_INDEX_NAME + 1];
    int unique, multikey, nkeys;
    char *keys_json;              /* the spec as stored, to compare */
    struct kh_path *keys;
    int *dirs;
};

struct sq_coll {
    char name[KH_STORE_MAX_COLL + 1];
    int nix;
    struct sq_index *ix;
};

struct sq_store {
    struct kh_store_backend base;
    char *path;                   /* file, or ":memory:" */
    int sync_full;
    pthread_mutex_t wmu;          /* the writer connection */
    struct sq_conn writer;
    struct kh_buf wbuf;           /* the writer's scratch text (wmu held) */
    pthread_mutex_t rmu;          /* the reader pool */
    pthread_cond_t rcv;
    struct sq_conn *readers;
    int nreaders;
    struct sq_conn *free_readers;
    pthread_mutex_t mmu;          /* collections and their indexes */
    struct sq_coll **colls;
    int ncolls;
    /* checkpoints run on their own thread and connection, so that no write
     * waits for the fsyncs of a checkpoint */
    struct sq_conn ckpt;
    pthread_t ckpt_thread;
    int ckpt_running;
    pthread_mutex_t cmu;
    pthread_cond_t ccv;
    int ckpt_wanted, ckpt_stop;
    atomic_uint_fast64_t checkpoints, wal_restarts;
    atomic_uint_fast64_t wal_commits;   /* every commit of the writer connection (its WAL hook) */
    uint64_t restart_commits;     /* wal_commits after the checkpointer's own (its thread's) */
    /* the group-commit queue */
    pthread_mutex_t qmu;
    pthread_cond_t acv;           /* a leader gathering: a write queued */
    struct sq_wreq *qhead, **qtail;
    int leader, gathering;
    atomic_int arriving;          /* puts encoding, about to queue */
    atomic_long commit_ns;        /* how long a commit takes (moving average) */
    atomic_uint_fast64_t commits, writes;   /* of the queue: writes per commit */
    atomic_uint_fast64_t merged;  /* queued patches applied with the one before (merge_run) */
};

/* The per-statement context of kh_match(). */
struct sq_match {
    const struct kh_filter *f;
    const char *coll;
    int keep;                     /* keep the last matching document */
    sqlite3_int64 rowid;
    struct json_object *doc;
    int failed;
    struct kytos_error err;
};

/* ---- small string builder ---- */
struct sb {
    char *p;
    size_t n, cap;
    int oom;
};

static void sb_add(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sb *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->oom)
        return;
    for (;;) {
        size_t room = b->cap - b->n;
        va_start(ap, fmt);
        n = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->p && (size_t)n < room) {
            b->n += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->n + (size_t)n + 1)
            cap *= 2;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
}

/* ---- errors ---- */

static int sq_fail(sqlite3 *db, int rc, struct kytos_error *err, const char *coll, const char *id)
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
static int sq_prep(struct sq_conn *c, const char *sql, sqlite3_stmt **out, struct kytos_error *err)
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

static void sq_done(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* pre "c:<coll>" post into sql[256], as snprintf would, for less on the
 * per-write path.  It fits: coll is a checked name (KH_STORE_MAX_COLL
 * bytes) and pre and post are short constants. */
static void coll_sql(char *sql, const char *pre, const char *coll, const char *post)
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
static int sq_exec(struct sq_conn *c, const char *sql, struct kytos_error *err)
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

static int sq_begin(struct sq_conn *c, struct kytos_error *err)
{
    return sq_exec(c, "BEGIN IMMEDIATE", err);
}

static int sq_commit(struct sq_conn *c, struct kytos_error *err)
{
    int rc = sq_exec(c, "COMMIT", err);
    if (rc < 0 && !sqlite3_get_autocommit(c->db))
        sq_exec(c, "ROLLBACK", NULL);
    return rc;
}

static void sq_rollback(struct sq_conn *c)
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
struct sq_splice {
    const struct kh_plan *pl;
    struct kh_buf *b;
    size_t off, len;              /* the new text in b */
    int rc;                       /* 1: the general path; < 0: err */
    struct kytos_error err;
};

static void sq_splice_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct sq_splice *x = sqlite3_value_pointer(argv[0], "kh_splice");
    const char *text = (const char *)sqlite3_value_text(argv[1]);

    (void)argc;
    if (!x || !text) {
        sqlite3_result_error(ctx, "kh_splice() is internal", -1);
        return;
    }
    x->off = x->b->n;
    x->rc = kh_plan_splice(x->pl, text, (size_t)sqlite3_value_bytes(argv[1]), x->b, &x->err);
    if (x->rc == 0 && (x->len = x->b->n - x->off) > KH_STORE_MAX_DOC)
        x->rc = 1; /* the general path reports it */
    if (x->rc != 0) {
        sqlite3_result_error(ctx, "kh_splice: not here", -1);
        return;
    }
    /* b is not touched again before the statement is done */
    sqlite3_result_text(ctx, x->b->p + x->off, (int)x->len, SQLITE_STATIC);
}

/* SQLite's "unix-excl" VFS: the process holds an exclusive lock on the
 * file (another process cannot open it while kytosd runs: a second kytosd
 * on the same data directory is refused) and the connections of this
 * process share the WAL index in memory, so no fcntl() lock on the -shm
 * file per transaction: 6 syscalls per commit and 2 per read otherwise,
 * each a trap on a paravirtualised machine. */
static const char *sq_vfs(void)
{
    return sqlite3_vfs_find("unix-excl") ? "unix-excl" : NULL;
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
    return sq_exec(c, sql, err);
}

/* ---- collections ---- */

static struct sq_coll *coll_find(struct sq_store *s, const char *name)
{
    for (int k = 0; k < s->ncolls; k++)
        if (!strcmp(s->colls[k]->name, name))
            return s->colls[k];
    return NULL;
}

static struct sq_coll *coll_add(struct sq_store *s, const char *name)
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

static void index_clear(struct sq_index *ix)
{
    free(ix->keys_json);
    free(ix->keys);
    free(ix->dirs);
}

static void coll_free(struct sq_coll *c)
{
    for (int k = 0; k < c->nix; k++)
        index_clear(&c->ix[k]);
    free(c->ix);
    free(c);
}

/* Is the collection's table there?  Readers ask; only writers create. */
static int coll_exists(struct sq_store *s, const char *name)
{
    int r;

    pthread_mutex_lock(&s->mmu);
    r = coll_find(s, name) != NULL;
    pthread_mutex_unlock(&s->mmu);
    return r;
}

/* Writer side (wmu held): create the table on first use. */
static int coll_ensure(struct sq_store *s, const char *name, struct kytos_error *err)
{
    char sql[256];
    int rc;

    if (coll_exists(s, name))
        return 0;
    snprintf(sql, sizeof(sql),
             "CREATE TABLE IF NOT EXISTS \"c:%s\"(id TEXT PRIMARY KEY NOT NULL, doc TEXT NOT NULL)", name);
    if ((rc = sq_exec(&s->writer, sql, err)) < 0)
        return rc;
    pthread_mutex_lock(&s->mmu);
    if (!coll_find(s, name) && !coll_add(s, name))
        rc = kh_store_err(err, KYTOS_EFULL, "more than %d collections", SQ_MAX_COLLS);
    pthread_mutex_unlock(&s->mmu);
    return rc;
}

/* Parse an index spec {"a": 1, "b.c": -1} into ix (keys, dirs, keys_json). */
static int index_parse(struct sq_index *ix, struct json_object *keys, struct kytos_error *err)
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
static int key_expr(const struct kh_path *p, int unique, char *out, size_t outlen)
{
    char lit[KH_PATH_MAX * 2 + 64];

    if (kh_path_sql_literal(p, lit, sizeof(lit)) < 0)
        return -1;
    if (unique)
        return snprintf(out, outlen, "ifnull(doc -> %s,'null')", lit) >= (int)outlen ? -1 : 0;
    return snprintf(out, outlen, "json_extract(doc,%s)", lit) >= (int)outlen ? -1 : 0;
}

/* ---- the checkpointer ---- */

/* Writer side, after each commit (wmu held): wake the checkpointer. */
static int wal_hook(void *ud, sqlite3 *db, const char *name, int pages)
{
    struct sq_store *s = ud;

    (void)db;
    (void)name;
    atomic_fetch_add_explicit(&s->wal_commits, 1, memory_order_relaxed);
    if (pages >= SQ_CKPT_PAGES) {
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
 * waits for the rest of it instead of all of it. */
static void ckpt_restart_wal(struct sq_store *s, uint64_t commits_before)
{
    pthread_mutex_lock(&s->wmu);
    if (atomic_load(&s->wal_commits) == commits_before &&
        sq_exec(&s->writer, "PRAGMA user_version=" SQ_STR(SQ_SCHEMA_VERSION), NULL) == 0) {
        atomic_fetch_add_explicit(&s->wal_restarts, 1, memory_order_relaxed);
        s->restart_commits = atomic_load(&s->wal_commits);
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
    if (log > 0 && done == log)
        ckpt_restart_wal(s, before);
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
    int rc;

    if ((rc = conn_open(s, &s->ckpt, 0, err)) < 0)
        return rc;
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
    if (version == SQ_SCHEMA_VERSION)
        return 0;
    /* version 0: new file.  Later versions migrate here, step by step. */
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
            if (t && kh_store_check_coll(t + 2, NULL) == 0 && !coll_find(s, t + 2))
                coll_add(s, t + 2);
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
        struct sq_coll *c = cn ? coll_find(s, cn) : NULL;
        struct json_object *kj = keys ? json_tokener_parse(keys) : NULL;
        struct sq_index ix = {0}, *nix;
        struct kytos_error e = {0};
        /* the file is input too: a bad row only costs its pushdown */
        if (!c || !name || kh_store_check_index_name(name, &e) < 0 || c->nix >= SQ_MAX_INDEXES ||
            index_parse(&ix, kj, &e) < 0 || !(nix = realloc(c->ix, sizeof(*nix) * (size_t)(c->nix + 1)))) {
            kh_store_logf(opts, 30, "store: ignoring index row %s/%s in kh_indexes (%s)",
                          cn ? cn : "?", name ? name : "?", e.message[0] ? e.message : "unknown collection");
            index_clear(&ix);
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
    kh_buf_free(&s->wbuf);
    for (int k = 0; k < s->ncolls; k++)
        coll_free(s->colls[k]);
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

static struct sq_conn *reader_get(struct sq_store *s)
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

static void reader_put(struct sq_store *s, struct sq_conn *c)
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
    int n;

    pthread_mutex_lock(&s->mmu);
    n = s->ncolls;
    pthread_mutex_unlock(&s->mmu);
    json_object_object_add(st, "path", json_object_new_string(s->path));
    json_object_object_add(st, "journal", json_object_new_string(s->nreaders ? "wal" : "memory"));
    json_object_object_add(st, "sync", json_object_new_string(s->sync_full ? "full" : "normal"));
    json_object_object_add(st, "readers", json_object_new_int(s->nreaders));
    json_object_object_add(st, "checkpoints", json_object_new_int64((int64_t)atomic_load(&s->checkpoints)));
    json_object_object_add(st, "wal_restarts", json_object_new_int64((int64_t)atomic_load(&s->wal_restarts)));
    json_object_object_add(st, "group_commits", json_object_new_int64((int64_t)atomic_load(&s->commits)));
    json_object_object_add(st, "group_writes", json_object_new_int64((int64_t)atomic_load(&s->writes)));
    json_object_object_add(st, "merged_writes", json_object_new_int64((int64_t)atomic_load(&s->merged)));
    json_object_object_add(st, "collections", json_object_new_int(n));
    json_object_object_add(st, "sqlite_version", json_object_new_string(sqlite3_libversion()));
    return 1;
}

/* ---- writes (wmu held, inside a transaction) ---- */

/* Mark indexes that this document makes multikey; persist the change. */
static int note_multikey(struct sq_store *s, const char *coll, struct json_object *doc,
                         struct kytos_error *err)
{
    char flipped[SQ_MAX_INDEXES][KH_STORE_MAX_INDEX_NAME + 1];
    int nflip = 0, rc;
    struct sq_coll *c;

    pthread_mutex_lock(&s->mmu);
    if ((c = coll_find(s, coll)) != NULL) {
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

/* mode: 0 put (insert or replace), 1 insert, 2 replace an existing row */
static int w_store(struct sq_store *s, const char *coll, const char *id, const char *text, size_t len,
                   struct json_object *doc, int mode, struct kytos_error *err)
{
    char sql[256];
    sqlite3_stmt *st;
    int rc;

    if (doc && (rc = note_multikey(s, coll, doc, err)) < 0)
        return rc;
    if (mode == 0)
        coll_sql(sql, "INSERT INTO ", coll, "(id,doc) VALUES(?1,?2) ON CONFLICT(id) DO UPDATE SET doc=excluded.doc");
    else if (mode == 1)
        coll_sql(sql, "INSERT INTO ", coll, "(id,doc) VALUES(?1,?2)");
    else
        coll_sql(sql, "UPDATE ", coll, " SET doc=?2 WHERE id=?1");
    if ((rc = sq_prep(&s->writer, sql, &st, err)) < 0)
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
static int load_doc(struct sq_store *s, struct sq_conn *c, const char *coll, const char *id,
                    struct json_object **out, struct kytos_error *err)
{
    char sql[256];
    sqlite3_stmt *st;
    int rc;

    (void)s;
    *out = NULL;
    coll_sql(sql, "SELECT doc FROM ", coll, " WHERE id=?1");
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
    if ((c = coll_find(s, coll)) != NULL)
        for (int k = 0; k < c->nix && !r; k++)
            for (int j = 0; j < c->ix[k].nkeys && !c->ix[k].multikey && !r; j++)
                r = kh_plan_has_array(pl, &c->ix[k].keys[j], inserting);
    pthread_mutex_unlock(&s->mmu);
    return r;
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
    char sql[256];
    int rc;

    coll_sql(sql, "UPDATE ", coll, " SET doc=kh_splice(?2,doc) WHERE id=?1");
    if ((rc = sq_prep(&s->writer, sql, &st, err)) < 0)
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
        x.off = s->wbuf.n;
        if ((rc = kh_plan_new_doc(pl, id, &s->wbuf, err)) != 0)
            return rc;
        if ((x.len = s->wbuf.n - x.off) > KH_STORE_MAX_DOC)
            return 1; /* the general path reports it */
        /* plan_multikey() said no index turns multikey: no doc to look at */
        if ((rc = w_store(s, coll, id, s->wbuf.p + x.off, x.len, NULL, 1, err)) < 0)
            return rc;
    }
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

    s->wbuf.n = 0;
    if ((rc = kh_plan_make(&pl, update, &s->wbuf, err)) != 0)
        return rc;
    if (!pl.text_ok || pl.grow >= KH_STORE_MAX_DOC ||
        plan_multikey(s, coll, &pl, (flags & KYTOS_STORE_UPSERT) != 0))
        return 1;
    return w_patch_splice(s, coll, id, &pl, flags, out, err);
}

static int w_patch(struct sq_store *s, const char *coll, const char *id, struct json_object *update,
                   unsigned flags, struct json_object **out, struct kytos_error *err)
{
    struct json_object *doc;
    struct kh_buf *b = &s->wbuf;
    int rc, inserting = 0;

    if ((rc = w_patch_fast(s, coll, id, update, flags, out, err)) <= 0)
        return rc;
    if ((rc = load_doc(s, &s->writer, coll, id, &doc, err)) < 0)
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
    b->n = 0;
    if ((rc = kh_update_apply(doc, update, inserting, err)) < 0 ||
        (rc = kh_json_write(b, doc, 1, "updated document", err)) < 0)
        goto fail;
    if (b->n > KH_STORE_MAX_DOC) {
        rc = kh_store_err(err, KYTOS_ETOOBIG, "document is %zu bytes, the limit is %u", b->n,
                          KH_STORE_MAX_DOC);
        goto fail;
    }
    if ((rc = w_store(s, coll, id, b->p, b->n, doc, inserting ? 1 : 2, err)) < 0)
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

static int w_delete(struct sq_store *s, const char *coll, const char *id, int *deleted,
                    struct kytos_error *err)
{
    char sql[256];
    sqlite3_stmt *st;
    int rc;

    coll_sql(sql, "DELETE FROM ", coll, " WHERE id=?1");
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

/* ---- the backend calls ---- */

static int sq_get(struct kh_store_backend *b, const char *coll, const char *id,
                  struct json_object **out, struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct sq_conn *c;
    int rc;

    *out = NULL;
    if (!coll_exists(s, coll))
        return kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
    c = reader_get(s);
    rc = load_doc(s, c, coll, id, out, err);
    reader_put(s, c);
    if (rc == 0 && !*out)
        return kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
    return rc;
}

/* ---- group commit ----
 *
 * Single writes queue up; the first writer to find no leader becomes one
 * and runs everything queued as one transaction (each write in its own
 * savepoint, so one failure does not undo the others), then wakes the
 * writers of that batch, each on its own condition variable.  Before it
 * cuts a batch, a leader waits briefly for puts that are being encoded
 * (wq_gather); after the batch with its own write, it hands the queue to
 * the next queued writer and returns.  Under load many writes share one
 * commit; alone, a write is one transaction as before.  A write is
 * acknowledged only after its commit. */

enum { WQ_PUT, WQ_INSERT, WQ_PATCH, WQ_DELETE };
#define SQ_BATCH_MAX 256
#define SQ_GATHER_MAX_US 2000         /* longest a leader waits for encoding puts */

struct sq_wreq {
    int kind;
    const char *coll, *id;
    const char *text;             /* put, insert: the encoded document */
    size_t len;
    struct json_object *doc;      /* put, insert: for the multikey check */
    struct json_object *update;   /* patch */
    unsigned flags;
    int want_out;                 /* patch: the caller wants the document after */
    struct json_object *out;      /* patch: the document after */
    int deleted;
    int rc, done;
    int arriving;                 /* counted in s->arriving until queued */
    int lead;                     /* handed the leadership: run the queue */
    pthread_cond_t cv;            /* signalled when done */
    struct kytos_error err;
    struct sq_wreq *next;
};

static int wq_one(struct sq_store *s, struct sq_wreq *r)
{
    switch (r->kind) {
    case WQ_PUT:
    case WQ_INSERT:
        return w_store(s, r->coll, r->id, r->text, r->len, r->doc, r->kind == WQ_INSERT, &r->err);
    case WQ_PATCH:
        return w_patch(s, r->coll, r->id, r->update, r->flags, r->want_out ? &r->out : NULL, &r->err);
    default:
        return w_delete(s, r->coll, r->id, &r->deleted, &r->err);
    }
}

static void wq_batch(struct sq_store *s, struct sq_wreq *list, int n)
{
    struct kytos_error e = {0};
    struct sq_wreq *r;
    struct timespec t0, t1;
    long ns, old;
    int rc;

    pthread_mutex_lock(&s->wmu);
    /* tables first: a CREATE inside a transaction that fails would vanish */
    for (r = list; r; r = r->next) {
        r->rc = 0;
        if (r->kind != WQ_DELETE && (r->kind != WQ_PATCH || (r->flags & KYTOS_STORE_UPSERT)))
            r->rc = coll_ensure(s, r->coll, &r->err);
    }
    if ((rc = sq_begin(&s->writer, &e)) < 0)
        goto fail_all;
    for (r = list; r; r = r->next) {
        if (r->rc < 0)
            continue;
        if (n == 1) {
            r->rc = wq_one(s, r);
            continue;
        }
        if ((rc = sq_exec(&s->writer, "SAVEPOINT kh_w", &e)) < 0)
            goto rollback;
        if ((r->rc = wq_one(s, r)) < 0 && (rc = sq_exec(&s->writer, "ROLLBACK TO kh_w", &e)) < 0)
            goto rollback;
        if ((rc = sq_exec(&s->writer, "RELEASE kh_w", &e)) < 0)
            goto rollback;
    }
    if (n == 1 && list->rc < 0) {
        sq_rollback(&s->writer);
        pthread_mutex_unlock(&s->wmu);
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if ((rc = sq_commit(&s->writer, &e)) < 0)
        goto fail_all;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    pthread_mutex_unlock(&s->wmu);
    ns = (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec);
    old = atomic_load_explicit(&s->commit_ns, memory_order_relaxed);
    atomic_store_explicit(&s->commit_ns, old ? (old * 7 + ns) / 8 : ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->commits, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->writes, (uint64_t)n, memory_order_relaxed);
    return;
rollback:
    sq_rollback(&s->writer);
fail_all:
    pthread_mutex_unlock(&s->wmu);
    for (r = list; r; r = r->next) {
        if (r->rc == 0) {
            r->rc = rc;
            r->err = e;
            json_object_put(r->out);
            r->out = NULL;
        }
    }
}

/* qmu held, before a batch is cut: while other threads are encoding puts
 * (s->arriving), wait for them a little, so that they share this commit
 * rather than each wait for it and then commit alone.  A lone writer never
 * waits. */
static void wq_gather(struct sq_store *s)
{
    struct timespec ts;
    long wait = atomic_load_explicit(&s->commit_ns, memory_order_relaxed);

    if (atomic_load_explicit(&s->arriving, memory_order_relaxed) == 0)
        return;
    /* no longer than a commit takes: that is what a write that misses
     * this batch waits for, before its own commit */
    if (wait > SQ_GATHER_MAX_US * 1000L)
        wait = SQ_GATHER_MAX_US * 1000L;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += wait;
    while (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    s->gathering = 1;
    while (atomic_load_explicit(&s->arriving, memory_order_relaxed) > 0)
        if (pthread_cond_timedwait(&s->acv, &s->qmu, &ts) != 0)
            break; /* timed out */
    s->gathering = 0;
}

static int wq_submit(struct sq_store *s, struct sq_wreq *r)
{
    pthread_cond_init(&r->cv, NULL);
    pthread_mutex_lock(&s->qmu);
    *s->qtail = r;
    s->qtail = &r->next;
    if (r->arriving) {
        atomic_fetch_sub_explicit(&s->arriving, 1, memory_order_relaxed);
        if (s->gathering)
            pthread_cond_signal(&s->acv);
    }
    while (!r->done) {
        if (s->leader && !r->lead) {
            pthread_cond_wait(&r->cv, &s->qmu);
            continue;
        }
        s->leader = 1;
        r->lead = 0;
        while (s->qhead) {
            struct sq_wreq *list, *last, *rest;
            int n = 1;
            wq_gather(s);
            list = last = s->qhead;
            while (last->next && n < SQ_BATCH_MAX) {
                last = last->next;
                n++;
            }
            rest = last->next;
            last->next = NULL;
            s->qhead = rest;
            if (!rest)
                s->qtail = &s->qhead;
            pthread_mutex_unlock(&s->qmu);
            wq_batch(s, list, n);
            pthread_mutex_lock(&s->qmu);
            /* wake only these; x cannot return (and vanish) before qmu is free */
            for (struct sq_wreq *x = list, *nx; x; x = nx) {
                nx = x->next;
                x->done = 1;
                if (x != r)
                    pthread_cond_signal(&x->cv);
            }
            if (r->done && s->qhead) {
                /* hand the queue to the next writer: this caller gets its
                 * answer now and can make more work, rather than serve
                 * everyone else's writes for as long as they keep coming */
                s->qhead->lead = 1;
                pthread_cond_signal(&s->qhead->cv);
                goto out;
            }
        }
        s->leader = 0;
    }
out:
    pthread_mutex_unlock(&s->qmu);
    pthread_cond_destroy(&r->cv);
    return r->rc;
}

static int wq_result(struct sq_wreq *r, struct kytos_error *err)
{
    if (r->rc < 0 && err)
        *err = r->err;
    return r->rc;
}

static int sq_put(struct kh_store_backend *b, const char *coll, const char *id,
                  struct json_object *doc, int insert_only, struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct sq_wreq r = {.kind = insert_only ? WQ_INSERT : WQ_PUT, .coll = coll, .id = id, .doc = doc};
    char mem[4096];
    struct kh_buf text = KH_BUF_ON(mem);
    int rc;

    /* encode before queueing: the writer is the bottleneck (a leader may
     * wait for this put to share its commit: see wq_gather()) */
    atomic_fetch_add_explicit(&s->arriving, 1, memory_order_relaxed);
    r.arriving = 1;
    if ((rc = kh_doc_write(&text, doc, id, err)) < 0) {
        atomic_fetch_sub_explicit(&s->arriving, 1, memory_order_relaxed);
        kh_buf_free(&text);
        return rc;
    }
    r.text = text.p;
    r.len = text.n;
    wq_submit(s, &r);
    kh_buf_free(&text);
    return wq_result(&r, err);
}

static int sq_patch(struct kh_store_backend *b, const char *coll, const char *id,
                    struct json_object *update, unsigned flags, struct json_object **out,
                    struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct sq_wreq r = {.kind = WQ_PATCH, .coll = coll, .id = id, .update = update, .flags = flags,
                        .want_out = out != NULL};

    /* the front end checked the update (kh_update_check) */
    if (!(flags & KYTOS_STORE_UPSERT) && !coll_exists(s, coll))
        return kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
    wq_submit(s, &r);
    if (r.rc == 0 && out)
        *out = r.out;
    else
        json_object_put(r.out);
    return wq_result(&r, err);
}

static int sq_delete(struct kh_store_backend *b, const char *coll, const char *id,
                     struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct sq_wreq r = {.kind = WQ_DELETE, .coll = coll, .id = id};

    if (!coll_exists(s, coll))
        return kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
    if (wq_submit(s, &r) == 0 && !r.deleted)
        return kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
    return wq_result(&r, err);
}

static const char *op_name(int op)
{
    switch (op) {
    case KYTOS_WRITE_PUT: return "put";
    case KYTOS_WRITE_INSERT: return "insert";
    case KYTOS_WRITE_PATCH: return "patch";
    case KYTOS_WRITE_DELETE: return "delete";
    default: return "?";
    }
}

/* A bulk write's puts encoded before the writer lock (offs: n + 1 entries);
 * 0, or the error with *bad the op at fault. */
static int bulk_encode(const struct kytos_write *ops, size_t n, struct kh_buf *texts, size_t *offs,
                       size_t *bad, struct kytos_error *e)
{
    size_t k;
    int rc = 0;

    for (k = 0; k < n && rc == 0; k++) {
        offs[k] = texts->n;
        if (ops[k].op == KYTOS_WRITE_PUT || ops[k].op == KYTOS_WRITE_INSERT)
            rc = kh_doc_write(texts, ops[k].doc, ops[k].id, e);
        if (rc < 0)
            *bad = k;
    }
    offs[k] = texts->n;
    return rc;
}

/* The ops, inside the writer's open transaction (wmu held). */
static int bulk_run(struct sq_store *s, const char *coll, const struct kytos_write *ops, size_t n,
                    const struct kh_buf *texts, const size_t *offs, size_t *bad,
                    struct kytos_error *e)
{
    size_t k;
    int rc = 0;

    for (k = 0; k < n && rc == 0; k++) {
        int deleted;
        switch (ops[k].op) {
        case KYTOS_WRITE_PUT:
        case KYTOS_WRITE_INSERT:
            rc = w_store(s, coll, ops[k].id, texts->p + offs[k], offs[k + 1] - offs[k], ops[k].doc,
                         ops[k].op == KYTOS_WRITE_INSERT, e);
            break;
        case KYTOS_WRITE_PATCH:
            rc = w_patch(s, coll, ops[k].id, ops[k].doc, ops[k].flags, NULL, e);
            break;
        default:
            rc = w_delete(s, coll, ops[k].id, &deleted, e);
        }
        if (rc < 0)
            *bad = k;
    }
    return rc;
}

/* The caller's message: which op failed and why. */
static int bulk_fail(int rc, const struct kytos_write *ops, size_t n, size_t bad,
                     const struct kytos_error *e, struct kytos_error *err)
{
    if (bad < n)
        return kh_store_err(err, rc, "bulk op %zu (%s '%.100s'): %s", bad, op_name(ops[bad].op),
                            ops[bad].id, e->message);
    return kh_store_err(err, rc, "%s", e->message);
}

static int sq_bulk(struct kh_store_backend *b, const char *coll, const struct kytos_write *ops, size_t n,
                   struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct kytos_error e = {0};
    struct kh_buf texts = {0};    /* every put's text, one after the other */
    size_t *offs, bad = n;
    int rc;

    if (!(offs = calloc(n + 1, sizeof(*offs))))
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    /* encode everything first: nothing is written if any op is bad (the
     * front end checked the patches' updates) */
    rc = bulk_encode(ops, n, &texts, offs, &bad, &e);
    if (rc == 0) {
        pthread_mutex_lock(&s->wmu);
        if ((rc = coll_ensure(s, coll, &e)) == 0 && (rc = sq_begin(&s->writer, &e)) == 0) {
            rc = bulk_run(s, coll, ops, n, &texts, offs, &bad, &e);
            if (rc == 0)
                rc = sq_commit(&s->writer, &e);
            else
                sq_rollback(&s->writer);
        }
        pthread_mutex_unlock(&s->wmu);
    }
    if (rc < 0)
        bulk_fail(rc, ops, n, bad, &e, err);
    kh_buf_free(&texts);
    free(offs);
    return rc;
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
    if ((c = coll_find(s, coll)) != NULL)
        for (int k = 0; k < c->nix && !r; k++)
            r = c->ix[k].unique;
    pthread_mutex_unlock(&s->mmu);
    return r;
}

/* The stored text of coll/id into b (*found 0 when missing). */
static int load_text(struct sq_store *s, const char *coll, const char *id, struct kh_buf *b,
                     int *found, struct kytos_error *err)
{
    char sql[256];
    sqlite3_stmt *st;
    int rc;

    *found = 0;
    coll_sql(sql, "SELECT doc FROM ", coll, " WHERE id=?1");
    if ((rc = sq_prep(&s->writer, sql, &st, err)) < 0)
        return rc;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *found = 1;
        rc = kh_buf_add(b, sqlite3_column_text(st, 0), (size_t)sqlite3_column_bytes(st, 0));
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
static int merge_one(struct sq_store *s, struct kh_async_write *w, const struct kh_buf *cur, int found,
                     struct kh_buf *next, struct kytos_error *err)
{
    struct kh_plan pl;
    size_t off;
    int rc;

    s->wbuf.n = 0;
    if ((rc = kh_plan_make(&pl, w->ops[0].doc, &s->wbuf, err)) != 0)
        return rc;
    if (!pl.text_ok || pl.grow >= KH_STORE_MAX_DOC || plan_multikey(s, w->coll, &pl, !found))
        return 1;
    off = s->wbuf.n;   /* the new text follows the plan's values (it copies them) */
    if (found)
        rc = kh_plan_splice(&pl, cur->p, cur->n, &s->wbuf, err);
    else if (!(w->ops[0].flags & KYTOS_STORE_UPSERT))
        return kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", w->ops[0].id, w->coll);
    else
        rc = kh_plan_new_doc(&pl, w->ops[0].id, &s->wbuf, err);
    if (rc != 0)
        return rc;
    if (s->wbuf.n - off > KH_STORE_MAX_DOC)
        return 1;   /* the usual path reports it */
    next->n = 0;
    if (kh_buf_add(next, s->wbuf.p + off, s->wbuf.n - off) < 0)
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
    struct kh_buf bufs[2] = {KH_BUF_ON(a0), KH_BUF_ON(a1)};
    struct kh_buf *cur = &bufs[0], *next = &bufs[1], *t;
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
    rc = ok ? w_store(s, first->coll, first->ops[0].id, cur->p, cur->n, NULL, created ? 1 : 2, &e) : 0;
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
    kh_buf_free(&bufs[0]);
    kh_buf_free(&bufs[1]);
    return taken;
}

/* kytos_store_bulk_async's writer: every queued bulk in one transaction,
 * each inside a savepoint so that one that fails leaves no trace and the
 * others still commit.  A failed commit fails them all.  As in wq_batch():
 * the documents are encoded before the writer lock, and every table is
 * created before the transaction (a CREATE undone by a rollback would stay
 * in our cache of existing tables). */
void kh_store_sqlite_bulk_batch(struct kh_store_backend *b, struct kh_async_write *list)
{
    struct sq_store *s = (struct sq_store *)b;
    struct kh_async_write *w;
    struct kytos_error e = {0};
    size_t nw = 0, k;
    struct kh_buf *texts;
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
        if (!(offs[k] = calloc(w->n + 1, sizeof **offs)))
            w->rc = kh_store_err(&w->err, KYTOS_ENOMEM, "out of memory");
        else if ((rc = bulk_encode(w->ops, w->n, &texts[k], offs[k], &bad[k], &ee)) < 0)
            w->rc = bulk_fail(rc, w->ops, w->n, bad[k], &ee, &w->err);
    }
    pthread_mutex_lock(&s->wmu);
    for (w = list; w; w = w->next)
        if (w->rc == 0 && (rc = coll_ensure(s, w->coll, &e)) < 0)
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
            rc = bulk_run(s, w->coll, w->ops, w->n, &texts[k], offs[k], &bad[k], &we);
            if (rc < 0) {
                sq_rollback(&s->writer);
                open = 0;
            }
        } else if (rc == 0 && (rc = sq_exec(&s->writer, "SAVEPOINT kh_a", &we)) == 0) {
            rc = bulk_run(s, w->coll, w->ops, w->n, &texts[k], offs[k], &bad[k], &we);
            if (rc < 0 && sq_exec(&s->writer, "ROLLBACK TO kh_a", &e) < 0) {
                sq_rollback(&s->writer);   /* cannot undo just this one: fail the rest */
                open = 0;
            }
            if (open && sq_exec(&s->writer, "RELEASE kh_a", &e) < 0) {
                sq_rollback(&s->writer);
                open = 0;
            }
        }
        w->rc = rc < 0 ? bulk_fail(rc, w->ops, w->n, bad[k], &we, &w->err) : 0;
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
    for (k = 0; k < nw; k++) {
        if (texts)
            kh_buf_free(&texts[k]);
        if (offs)
            free(offs[k]);
    }
    free(texts);
    free(offs);
    free(bad);
}

/* ---- find / count ---- */

struct sq_cursor {
    struct kytos_cursor base;
    struct json_object **docs;
    size_t n, pos;
    struct kh_proj *proj;
};

static int cursor_next(kytos_cursor *cc, struct json_object **doc, struct kytos_error *err)
{
    struct sq_cursor *c = (struct sq_cursor *)cc;

    (void)err;
    *doc = NULL;
    if (c->pos >= c->n)
        return 0;
    *doc = kh_proj_apply(c->proj, c->docs[c->pos]);
    c->docs[c->pos++] = NULL;
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
    struct sb where;
    struct push push[SQ_MAX_PUSH * 2];
    int npush;
    int nparam;       /* last ?N used: ?1 kh_match, ?2 limit, ?3 offset */
    int exact;        /* SQL alone is exact: kh_match() not needed */
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
    sb_add(&pl->where, kind == TERM_PREFILTER ? " AND (" : " AND ");
    if (c->op == KH_OP_IN) {
        size_t len = json_object_array_length(c->val);
        sb_add(&pl->where, "%s IN (", expr);
        for (size_t k = 0; k < len; k++)
            sb_add(&pl->where, "%s?%d", k ? "," : "", ++pl->nparam);
        sb_add(&pl->where, ")");
    } else {
        sb_add(&pl->where, "%s %s ?%d", expr, op, ++pl->nparam);
    }
    if (kind == TERM_PREFILTER)
        sb_add(&pl->where, " OR ifnull(json_type(doc,%s)='array',1))", lit);
    pl->push[pl->npush].c = c;
    pl->push[pl->npush].as_json = as_json;
    pl->npush++;
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
            continue;
        }
        if (is_id_path(&c->path)) {
            if (all_strings(c)) {
                push_term(pl, c, "id", 0, TERM_PLAIN, NULL);
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
                char expr[KH_PATH_MAX * 2 + 96];
                if (strcmp(ix->keys[j].text, c->path.text) || !all_bindable(c, ix->unique) ||
                    key_expr(&c->path, ix->unique, expr, sizeof(expr)) < 0)
                    continue;
                push_term(pl, c, expr, ix->unique, TERM_PLAIN, NULL);
                used = 1;
                break;
            }
        }
        if (!used && all_bindable(c, 0)) {
            char lit[KH_PATH_MAX * 2 + 64], expr[KH_PATH_MAX * 2 + 96];
            if (kh_path_sql_literal(&c->path, lit, sizeof(lit)) == 0 &&
                key_expr(&c->path, 0, expr, sizeof(expr)) == 0)
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
                     int64_t skip, int64_t limit, struct json_object ***docs, size_t *ndocs,
                     int64_t *count, struct kytos_error *err)
{
    struct plan pl = {.nparam = 3};
    struct sq_match m = {0};
    struct sb sql = {0};
    struct sq_coll *cinfo;
    struct sq_conn *c;
    sqlite3_stmt *st;
    size_t cap = 0, bytes = 0;
    int rc = 0, step;

    pthread_mutex_lock(&s->mmu);
    if ((cinfo = coll_find(s, coll)) != NULL)
        plan_where(&pl, cinfo, f);
    pthread_mutex_unlock(&s->mmu);
    if (!cinfo)
        return 0; /* no table yet: nothing matches */
    if (keep)
        sb_add(&sql, "SELECT rowid, doc FROM \"c:%s\" WHERE 1", coll);
    else
        sb_add(&sql, "SELECT count(*) FROM \"c:%s\" WHERE 1", coll);
    sb_add(&sql, "%s", pl.where.p ? pl.where.p : "");
    if (!pl.exact)
        sb_add(&sql, " AND kh_match(?1, rowid, doc)");
    if (keep && (limit > 0 || skip > 0))
        sb_add(&sql, " LIMIT ?2 OFFSET ?3");
    free(pl.where.p);
    if (sql.oom || pl.where.oom) {
        free(sql.p);
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    }
    c = reader_get(s);
    if ((rc = sq_prep(c, sql.p, &st, err)) < 0)
        goto out;
    m.f = f;
    m.coll = coll;
    m.keep = keep;
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
        if (m.doc && m.rowid == sqlite3_column_int64(st, 0)) {
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
        if (*ndocs == cap) {
            struct json_object **nd = realloc(*docs, sizeof(*nd) * (cap ? cap * 2 : 16));
            if (!nd) {
                json_object_put(doc);
                rc = kh_store_err(err, KYTOS_ENOMEM, "out of memory");
                break;
            }
            *docs = nd;
            cap = cap ? cap * 2 : 16;
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
    reader_put(s, c);
    json_object_put(m.doc);
    free(sql.p);
    return rc;
}

static int sq_find(struct kh_store_backend *b, const char *coll, const struct kytos_find *q,
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
    if ((rc = kh_filter_compile(q ? q->filter : NULL, &f, err)) < 0 ||
        (rc = kh_sort_compile(q ? q->sort : NULL, &sort, err)) < 0 ||
        (rc = kh_proj_compile(q ? q->projection : NULL, &c->proj, err)) < 0)
        goto fail;
    if (!sort) {
        rc = run_query(s, coll, f, 1, skip, limit, &c->docs, &c->n, NULL, err);
    } else {
        /* MongoDB's order is not SQLite's (types, uint64): sort here */
        rc = run_query(s, coll, f, 1, 0, 0, &c->docs, &c->n, NULL, err);
        if (rc == 0) {
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

static int sq_count(struct kh_store_backend *b, const char *coll, struct json_object *filter,
                    int64_t *out, struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct kh_filter *f = NULL;
    int rc;

    *out = 0;
    if ((rc = kh_filter_compile(filter, &f, err)) < 0)
        return rc;
    rc = run_query(s, coll, f, 0, 0, 0, NULL, NULL, out, err);
    kh_filter_free(f);
    return rc;
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

static int sq_index(struct kh_store_backend *b, const char *coll, const char *name,
                    struct json_object *keys, unsigned flags, struct kytos_error *err)
{
    struct sq_store *s = (struct sq_store *)b;
    struct sq_index ix = {0}, *nix;
    struct sq_coll *c;
    struct sb sql = {0};
    sqlite3_stmt *st;
    int rc, exists = 0;

    snprintf(ix.name, sizeof(ix.name), "%s", name);
    ix.unique = (flags & KYTOS_STORE_UNIQUE) != 0;
    if ((rc = index_parse(&ix, keys, err)) < 0)
        goto out;
    pthread_mutex_lock(&s->wmu);
    if ((rc = coll_ensure(s, coll, err)) < 0)
        goto unlock;
    pthread_mutex_lock(&s->mmu);
    c = coll_find(s, coll);
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
    sb_add(&sql, "CREATE %sINDEX \"i:%s:%s\" ON \"c:%s\"(", ix.unique ? "UNIQUE " : "", coll, name, coll);
    for (int k = 0; k < ix.nkeys; k++) {
        char expr[KH_PATH_MAX * 2 + 96];
        if (key_expr(&ix.keys[k], ix.unique, expr, sizeof(expr)) < 0) {
            rc = kh_store_err(err, KYTOS_EINVAL, "index key '%.100s' is too long", ix.keys[k].text);
            goto unlock;
        }
        sb_add(&sql, "%s%s%s", k ? "," : "", expr, ix.dirs[k] < 0 ? " DESC" : "");
    }
    sb_add(&sql, ")");
    if (sql.oom) {
        rc = kh_store_err(err, KYTOS_ENOMEM, "out of memory");
        goto unlock;
    }
    if ((rc = sq_begin(&s->writer, err)) < 0)
        goto unlock;
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
    pthread_mutex_lock(&s->mmu);
    c = coll_find(s, coll);
    if (c && (nix = realloc(c->ix, sizeof(*nix) * (size_t)(c->nix + 1))) != NULL) {
        c->ix = nix;
        c->ix[c->nix++] = ix;
        memset(&ix, 0, sizeof(ix)); /* owned by the collection now */
    }
    pthread_mutex_unlock(&s->mmu);
unlock:
    pthread_mutex_unlock(&s->wmu);
out:
    index_clear(&ix);
    free(sql.p);
    return rc;
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
