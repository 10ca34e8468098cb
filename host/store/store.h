/* host/store/store.h - the document store behind include/kytos/store.h.
 *
 * One kh_store per host.  Backends: "sqlite" (embedded, default: WAL, one
 * table per collection, under <data_dir>/store.db), "mongodb" (libmongoc
 * client pool, Kytos' MONGO_* environment variables).  Every function is
 * thread safe and mirrors the ABI call of the same name; see
 * include/kytos/store.h for the semantics, and store_sqlite.h /
 * store_mongo.c for each backend's consistency and durability. */
#ifndef KH_STORE_H
#define KH_STORE_H

#include "util/base.h"

struct kh_store_opts {
    const char *backend;   /* NULL or "" or "sqlite" = embedded; "mongodb" */
    const char *data_dir;  /* embedded: directory for the database file; NULL = ":memory:" */
    int wait_for_server;   /* mongodb: wait at open as Kytos does (12 x 10 s), else fail fast */
    /* ---- appended (zero = default) ---- */
    const char *sync;      /* embedded: "normal" (default; survives kill -9) or "full"
                              (fsync per commit; survives power loss): kytos.conf store_sync */
    int readers;           /* embedded: reader connections, 0 = 4 */
    const char *mongo_uri; /* mongodb: a full mongodb:// URI instead of the MONGO_* variables */
    int wait_tries;        /* mongodb + wait_for_server: tries, 0 = 12 */
    int wait_interval_ms;  /* mongodb + wait_for_server: between tries, 0 = 10000 */
    /* Progress and warnings (level: 10 debug .. 50 critical); may be NULL. */
    void (*log)(void *ud, int level, const char *msg);
    void *log_ud;
    int wal_max_mb;        /* embedded: the WAL's size past which a burst of writes is held
                              for a moment to start it over; 0 = no limit (store_wal_max_mb) */
};

int kh_store_open(kh_store **out, const struct kh_store_opts *opts, struct kytos_error *err);
void kh_store_close(kh_store *s);
/* New ref: {"backend": "sqlite"|"mongodb", "healthy": bool, "description": "...",
 *  "ops": {"get": n, "put": n, "insert": n, "patch": n, "delete": n, "find": n,
 *          "count": n, "bulk": n, "index": n},
 *  "errors": n (calls that failed), "unavailable": n (EUNAVAIL/ETIMEDOUT/EIO),
 *  + backend fields ("path", "journal", "sync", ... or "hosts", "database", ...)}.
 * healthy is false from a failure of the backend itself (not a missing
 * document or a bad filter) until the next call that succeeds. */
struct json_object *kh_store_status(kh_store *s);
/* Wait until every kytos_store_bulk_async write queued so far was
 * committed and its callback ran (tests): 0 or KYTOS_ETIMEDOUT. */
int kh_store_async_wait(kh_store *s, int timeout_ms);
/* Claims (store_async.c): while allowed on this thread, a write it submits
 * while the writer sleeps and nothing is queued is committed by this
 * thread, with its callback, at kh_store_claims_run() instead of by the
 * writer.  For inline handlers on the I/O thread, which never wait;
 * before waiting for anything, release gives a pending claim back to the
 * writer.  allow returns the previous setting. */
int kh_store_claims_allow(int on);
void kh_store_claims_release(void);
void kh_store_claims_run(void);
/* kytos_store_bulk_async writes queued since the store opened. */
uint64_t kh_store_async_count(kh_store *s);
/* Testing (kytos_test_store_fail, _fail_after): after skip more writes to
 * coll (put, insert, patch, delete, bulk, bulk_async) go through, the next
 * count fail with code < 0 and write nothing; count 0 stops it.  0, or
 * KYTOS_EINVAL. */
int kh_store_inject_failure(kh_store *s, const char *coll, int code, unsigned skip,
                            unsigned count);
/* Testing (kytos_test_store_hold): hold the queued writes / await n of them. */
void kh_store_hold_async(kh_store *s, int on);
int kh_store_await_queued(kh_store *s, size_t n, int timeout_ms);

int kh_store_get(kh_store *s, const char *coll, const char *id, struct json_object **out,
                 struct kytos_error *err);
int kh_store_put(kh_store *s, const char *coll, const char *id, struct json_object *doc,
                 struct kytos_error *err);
int kh_store_insert(kh_store *s, const char *coll, const char *id, struct json_object *doc,
                    struct kytos_error *err);
int kh_store_patch(kh_store *s, const char *coll, const char *id, struct json_object *update,
                   unsigned flags, struct json_object **out, struct kytos_error *err);
int kh_store_delete(kh_store *s, const char *coll, const char *id, struct kytos_error *err);
int kh_store_find(kh_store *s, const char *coll, const struct kytos_find *q, kytos_cursor **out,
                  struct kytos_error *err);
int kh_cursor_next(kytos_cursor *c, struct json_object **doc, struct kytos_error *err);
void kh_cursor_free(kytos_cursor *c);
int kh_store_count(kh_store *s, const char *coll, struct json_object *filter, int64_t *out,
                   struct kytos_error *err);
int kh_store_bulk(kh_store *s, const char *coll, const struct kytos_write *ops, size_t n,
                  struct kytos_error *err);
/* Queue the writes for the writer thread (store_async.c); see
 * kytos_store_bulk_async.  Takes over every ops[i].doc, whatever it
 * returns; done is called exactly once when this returns 0. */
int kh_store_bulk_async(kh_store *s, const char *coll, const struct kytos_write *ops, size_t n,
                        kytos_store_done_fn done, void *ud, struct kytos_error *err);
int kh_store_index(kh_store *s, const char *coll, const char *name, struct json_object *keys,
                   unsigned flags, struct kytos_error *err);

/* Fill the store slots of the ABI table: store_of finds the calling NApp's
 * store; napp_ops (ref, unref) holds a NApp while its async write is queued.
 * One table per process, so one of each. */
void kh_store_api_fill(struct kytos_api *api, kh_store *(*store_of)(const kytos_napp *n),
                       const struct kh_napp_ops *napp_ops);

#endif
