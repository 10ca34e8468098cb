/* host/store/store_sqlite.h - the embedded store, private to its files: SQLite in WAL mode.
 *
 * Layout: <data_dir>/store.db, one table "c:<collection>" (id TEXT PRIMARY
 * KEY, doc TEXT, key columns) per collection, documents as compact JSON text
 * as json-c writes it (kh_json_write(), so uint64 values keep their digits),
 * indexes "i:<collection>:<name>" over key columns: each index key's value
 * kept beside the document, as json_extract() gives it (unique indexes: the
 * JSON text of the value, "doc -> path", so they compare exactly), see
 * store_sqlite_keycol.c; their definitions in kh_indexes, PRAGMA
 * user_version = schema (1: expression indexes, migrated at open).
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
#ifndef KH_STORE_SQLITE_H
#define KH_STORE_SQLITE_H
#include <stdatomic.h>
#include <stdint.h>
#include <sqlite3.h>
#include "store/store_doc.h"
#include "store/store_filter.h"
#include "store/store_impl.h"

#define SQ_SCHEMA_VERSION 2
#define SQ_STR_(x) #x
#define SQ_STR(x) SQ_STR_(x)          /* a number macro as SQL text */
#define SQ_CACHE 64                    /* prepared statements per connection */
#define SQ_READERS_DEFAULT 4
#define SQ_READERS_MAX 64
#define SQ_BUSY_MS 5000
#define SQ_MAX_COLLS 1000
#define SQ_MAX_INDEXES 64              /* per collection (MongoDB: 64) */
#define SQ_RESULT_MAX ((size_t)512 << 20) /* bytes one find may hold */
/* WAL pages since the last checkpoint that trigger one.  Fewer
 * checkpoints copy a page that many commits change (index leaves) fewer
 * times: 4000 against 1000 took a link failure at 10,000 EVCs from
 * 5.95-7.13 s to 5.58-5.71 s, 1.55 to 1.31 GB written (8000: 5.97 s,
 * 16000: 5.99 s; bench/scale-bench.py 10000, link_down).  With
 * store_wal_max_mb set, half of it if less (ckpt_pages). */
#define SQ_CKPT_PAGES 4000
#define SQ_CKPT_IDLE_MS 2000           /* and at least this often when idle */
#define SQ_WAL_KEEP_BYTES 8388608      /* the WAL file's size kept after it starts over */

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

/* A key column (store_sqlite_keycol.c). */
struct sq_kcol {
    struct kh_path *path;
    int unique;                   /* the JSON text form of a unique index */
    char *ident;                  /* the column's name, quoted for SQL */
};

struct sq_coll {
    char name[KH_STORE_MAX_COLL + 1];
    int nix;
    struct sq_index *ix;
    /* key columns; changed only with wmu and mmu held, so a writer (wmu)
     * reads them without mmu.  The SQL fragments the writes add for them
     * (each "" when there is none): names ,"k1","k2"; vals (of the text
     * bound as ?2) ,json_extract(?2,p1),...; excl ,"k1"=excluded."k1",...;
     * set ,"k1"=json_extract(?2,p1),... */
    int nkcol;
    struct sq_kcol *kcol;
    char *kc_names, *kc_vals, *kc_excl, *kc_set;
    int kc_broken;                /* out of memory publishing one: writes fail */
    /* finds and counts with a filter that no index (nor _id) served: each
     * read every row (shown in status/ as "full_scans") */
    atomic_uint_fast64_t full_scans;
    /* documents of it parsed to be matched in C (kh_match()), where SQL
     * alone could not tell (status/: "match_parses") */
    atomic_uint_fast64_t match_parses;
    /* the writer's upserts lately: > 0 mostly new documents, < 0 mostly
     * existing ones (under mmu; see store_sqlite_merge.c) */
    int upsert_bias;
};

struct sq_store {
    struct kh_store_backend base;
    char *path;                   /* file, or ":memory:" */
    int sync_full;
    pthread_mutex_t wmu;          /* the writer connection */
    struct sq_conn writer;
    struct ku_buf wbuf;           /* the writer's scratch text (wmu held) */
    /* Within one bulk (sq_bulk_run, wmu held): the plan of the update last
     * patched with, its values' text left at the start of wbuf, for the
     * next op given the same update (flow_manager gives one to thousands) */
    struct json_object *plan_of;  /* NULL: none */
    int plan_keep;                /* in such a bulk: plan_of may be set */
    /* The bulk sq_bulk_run is running, when its patches' values were
     * written by the thread that queued it (kh_store_sqlite_bulk_prepare),
     * and the op at hand */
    const struct kh_async_write *pre;
    size_t pre_k;
    struct kh_plan plan;
    size_t plan_len;
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
    int ckpt_base;                /* WAL frames at the last trigger (writer side, wmu held) */
    int ckpt_pages;               /* growth that triggers one: SQ_CKPT_PAGES, less with wal_max_bytes */
    atomic_uint_fast64_t checkpoints, wal_restarts;
    atomic_uint_fast64_t wal_restarts_held;  /* of them, made by holding the writer (a burst) */
    int64_t wal_max_bytes;        /* store_wal_max_mb; 0: no limit */
    int page_size;
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
    atomic_uint_fast64_t *parses; /* the collection's match_parses, or NULL */
    int keep;                     /* keep the last matching document */
    sqlite3_int64 rowid;
    struct json_object *doc;
    int failed;
    struct kytos_error err;
};

/* The per-statement context of kh_splice() (the fast path of a patch). */
struct sq_splice {
    const struct kh_plan *pl;
    struct ku_buf *b;
    size_t off, len;              /* the new text in b */
    int done;                     /* made: a second call in the statement returns it */
    int rc;                       /* 1: the general path; < 0: err */
    struct kytos_error err;
};


/* store_sqlite_commit.c */
/* store_sqlite_walbuf.c: the VFS name to open with (NULL: SQLite's
 * default); WAL writes SQLite made and writes of the gathered buffer,
 * since start; tests: make the next n buffer writes fail. */
const char *sq_walbuf_vfs(void);
void sq_walbuf_stats(uint64_t *writes, uint64_t *flushes);
void sq_walbuf_fail_writes(int n);

int sq_bulk_encode(const struct kytos_write *ops, size_t n, struct ku_buf *texts, size_t *offs,
                   size_t *bad, struct kytos_error *e);
int sq_bulk_fail(int rc, const struct kytos_write *ops, size_t n, size_t bad,
                 const struct kytos_error *e, struct kytos_error *err);
int sq_bulk_run(struct sq_store *s, const char *coll, const struct kytos_write *ops, size_t n,
                const struct ku_buf *texts, const size_t *offs, size_t *bad,
                struct kytos_error *e);
int sq_bulk(struct kh_store_backend *b, const char *coll, const struct kytos_write *ops, size_t n,
            struct kytos_error *err);
int sq_delete(struct kh_store_backend *b, const char *coll, const char *id,
              struct kytos_error *err);
int sq_get(struct kh_store_backend *b, const char *coll, const char *id,
           struct json_object **out, struct kytos_error *err);
int sq_patch(struct kh_store_backend *b, const char *coll, const char *id,
             struct json_object *update, unsigned flags, struct json_object **out,
             struct kytos_error *err);
int sq_put(struct kh_store_backend *b, const char *coll, const char *id,
           struct json_object *doc, int insert_only, struct kytos_error *err);

/* store_sqlite_conn.c */
void sq_coll_sql(char *sql, const char *pre, const char *coll, const char *post);
struct sq_conn *sq_reader_get(struct sq_store *s);
void sq_reader_put(struct sq_store *s, struct sq_conn *c);
int sq_begin(struct sq_conn *c, struct kytos_error *err);
int sq_commit(struct sq_conn *c, struct kytos_error *err);
void sq_done(sqlite3_stmt *st);
int sq_exec(struct sq_conn *c, const char *sql, struct kytos_error *err);
int sq_fail(sqlite3 *db, int rc, struct kytos_error *err, const char *coll, const char *id);
int sq_prep(struct sq_conn *c, const char *sql, sqlite3_stmt **out, struct kytos_error *err);
void sq_rollback(struct sq_conn *c);

/* store_sqlite_index.c */
struct sq_coll *sq_coll_add(struct sq_store *s, const char *name);
int sq_coll_ensure(struct sq_store *s, const char *name, struct kytos_error *err);
int sq_coll_exists(struct sq_store *s, const char *name);
struct sq_coll *sq_coll_find(struct sq_store *s, const char *name);
void sq_coll_free(struct sq_coll *c);
void sq_index_clear(struct sq_index *ix);
int sq_index_parse(struct sq_index *ix, struct json_object *keys, struct kytos_error *err);
int sq_key_expr(const struct kh_path *p, int unique, char *out, size_t outlen);
int sq_key_expr_of(const struct kh_path *p, int unique, const char *arg, char *out, size_t outlen);

/* store_sqlite_keycol.c */
#define SQ_IDENT_MAX (4 * KH_PATH_MAX + 24)   /* a key column's name, quoted */
int sq_kcol_ident(const char *path, int unique, char *out, size_t outlen);
const struct sq_kcol *sq_kcol_find(const struct sq_coll *c, const char *path, int unique);
int sq_kcol_add(struct sq_store *s, const char *coll, const struct kh_path *p, int unique,
                struct kytos_error *err);
int sq_kcol_publish(struct sq_store *s, const char *coll, const struct kh_path *p, int unique);
void sq_kcol_free(struct sq_coll *c);
int sq_kcol_splice_set(const struct sq_coll *c, const struct kh_plan *pl, struct ku_buf *b);
int sq_kcol_migrate(struct sq_store *s, const struct kh_store_opts *opts, struct kytos_error *err);
enum { SQ_W_PUT, SQ_W_INSERT, SQ_W_REPLACE, SQ_W_INSERT_IF_MISSING, SQ_W_SPLICE };
int sq_kcol_write_sql(struct sq_store *s, const char *coll, int kind, const struct kh_plan *pl,
                      struct ku_buf *b, struct kytos_error *err);
int sq_index(struct kh_store_backend *b, const char *coll, const char *name,
             struct json_object *keys, unsigned flags, struct kytos_error *err);

/* store_sqlite_merge.c */
int sq_load_doc(struct sq_store *s, struct sq_conn *c, const char *coll, const char *id,
                struct json_object **out, struct kytos_error *err);
int sq_w_delete(struct sq_store *s, const char *coll, const char *id, int *deleted,
                struct kytos_error *err);
int sq_w_patch(struct sq_store *s, const char *coll, const char *id, struct json_object *update,
               unsigned flags, struct json_object **out, struct kytos_error *err);
int sq_w_store(struct sq_store *s, const char *coll, const char *id, const char *text, size_t len,
               struct json_object *doc, int mode, struct kytos_error *err);

/* store_sqlite_query.c */
int sq_count(struct kh_store_backend *b, const char *coll, struct json_object *filter,
             int64_t *out, struct kytos_error *err);
int sq_find(struct kh_store_backend *b, const char *coll, const struct kytos_find *q,
            kytos_cursor **out, struct kytos_error *err);

#endif
