/* host/store/store_impl.h - what the store front end (store.c) shares with its
 * backends (store_sqlite_*.c, store_mongo.c).  Not for other host modules.
 *
 * The front end validates names and arguments, counts operations and keeps
 * the health flag; a backend only does the work, on arguments that are
 * already checked (valid collection name, non-empty _id, object documents). */
#ifndef KH_STORE_IMPL_H
#define KH_STORE_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include "store/store.h"

/* Limits shared by every backend (MongoDB's where it has one). */
#define KH_STORE_MAX_COLL 120          /* collection name bytes */
#define KH_STORE_MAX_ID 1024           /* _id bytes */
#define KH_STORE_MAX_INDEX_NAME 120
#define KH_STORE_MAX_INDEX_KEYS 32
#define KH_STORE_MAX_DOC (16u << 20)   /* serialized document bytes (MongoDB: 16 MiB) */
#define KH_STORE_MAX_DEPTH 100         /* nesting of documents (MongoDB: 100) */
#define KH_STORE_MAX_BULK 100000       /* operations in one bulk call */

struct kh_store_backend;

/* One backend instance.  Every callback is thread safe. */
struct kh_store_ops {
    const char *name;
    void (*close)(struct kh_store_backend *b);
    /* Adds backend fields to the status object; returns 1 if healthy. */
    int (*status)(struct kh_store_backend *b, struct json_object *st);
    int (*get)(struct kh_store_backend *b, const char *coll, const char *id,
               struct json_object **out, struct kytos_error *err);
    int (*put)(struct kh_store_backend *b, const char *coll, const char *id,
               struct json_object *doc, int insert_only, struct kytos_error *err);
    int (*patch)(struct kh_store_backend *b, const char *coll, const char *id,
                 struct json_object *update, unsigned flags, struct json_object **out,
                 struct kytos_error *err);
    int (*del)(struct kh_store_backend *b, const char *coll, const char *id,
               struct kytos_error *err);
    int (*find)(struct kh_store_backend *b, const char *coll, const struct kytos_find *q,
                kytos_cursor **out, struct kytos_error *err);
    int (*count)(struct kh_store_backend *b, const char *coll, struct json_object *filter,
                 int64_t *out, struct kytos_error *err);
    int (*bulk)(struct kh_store_backend *b, const char *coll, const struct kytos_write *ops,
                size_t n, struct kytos_error *err);
    int (*index)(struct kh_store_backend *b, const char *coll, const char *name,
                 struct json_object *keys, unsigned flags, struct kytos_error *err);
    /* find serves KYTOS_FIND_TEXT itself; without it the front end writes
     * each document's text (store_text.c). */
    int find_text;
};

struct kh_store_backend {
    const struct kh_store_ops *ops;
};

/* One queued asynchronous bulk write (store_async.c): everything owned. */
struct kh_async_write {
    char *coll;
    struct kytos_write *ops;       /* ids strdup'ed, docs owned */
    size_t n;
    kytos_store_done_fn done;
    void *ud;
    int rc;                        /* set by the backend */
    struct kytos_error err;
    struct kh_async_write *next;
    /* The puts' documents and the patches' values as text, written by the
     * submitting thread (kh_store_sqlite_bulk_prepare) so that the writer,
     * the one thread every write waits for, does not; pre_offs NULL: not
     * done. */
    char *pre_text;
    size_t *pre_offs;              /* n + 1: op k's text is [pre_offs[k], pre_offs[k + 1]) */
    size_t *pre_vfirst;            /* n + 1: patch k's values' lengths are pre_vlens
                                      [pre_vfirst[k], pre_vfirst[k + 1]); none: planned
                                      by the writer */
    uint32_t *pre_vlens;
};

/* Optional backend op: run a list of bulk writes, in order, committing
 * them together where the backend can; each keeps its own all-or-nothing
 * and gets its own rc/err.  Without it, the writer calls bulk() per item. */
typedef void (*kh_store_bulk_batch_fn)(struct kh_store_backend *b, struct kh_async_write *list);

struct kh_store_async;
/* The writer thread starts at the first write; close drains the queue. */
struct kh_store_async *kh_store_async_new(struct kh_store_backend *b, kh_store_bulk_batch_fn batch,
                                          size_t max_queued,
                                          void (*count)(void *ctx, int rc, const struct kytos_error *e),
                                          void *count_ctx);
/* 0 queued (w is the writer's now), KYTOS_EFULL, KYTOS_EUNAVAIL, KYTOS_ENOMEM. */
int kh_store_async_submit(struct kh_store_async *a, struct kh_async_write *w, struct kytos_error *err);
void kh_store_async_free(struct kh_async_write *w);
/* Let inline handlers' threads run batches (kh_store_claims_allow): for
 * backends whose commit is quick and local (the embedded store). */
void kh_store_async_allow_claims(struct kh_store_async *a);
/* Runs every queued write, then stops the thread. */
void kh_store_async_close(struct kh_store_async *a);
/* Wait until nothing is queued and no batch (nor its callbacks) runs:
 * 0, or KYTOS_ETIMEDOUT. */
int kh_store_async_idle(struct kh_store_async *a, int timeout_ms);
/* Writes queued so far (a count that only grows). */
uint64_t kh_store_async_submitted(struct kh_store_async *a);
/* Testing: on 1, no batch starts (nor a claim) until on 0; await_queued:
 * until at least n writes wait for the writer (0, or KYTOS_ETIMEDOUT). */
void kh_store_async_hold(struct kh_store_async *a, int on);
int kh_store_async_await_queued(struct kh_store_async *a, size_t n, int timeout_ms);
/* Adds "async": {"queued", "max", "batches", "writes"} to st. */
void kh_store_async_status(struct kh_store_async *a, struct json_object *st);

/* SQLite's batch (store_sqlite_merge.c). */
void kh_store_sqlite_bulk_batch(struct kh_store_backend *b, struct kh_async_write *list);
/* Before w is queued, on the caller's thread: its puts' texts and its
 * patches' values (w's pre_*).  It also finishes check_bulk's work: a
 * patch whose values kh_update_check refuses refuses the bulk (negative,
 * err set, "bulk op K: ..."; nothing is queued).  Anything else wrong
 * leaves the texts to the writer, which reports it as before. */
int kh_store_sqlite_bulk_prepare(struct kh_async_write *w, struct kytos_error *err);

/* Every cursor starts with this header; kh_cursor_next/free dispatch on it. */
struct kytos_cursor {
    int (*next)(kytos_cursor *c, struct json_object **doc, struct kytos_error *err);
    void (*free)(kytos_cursor *c);
};

int kh_store_sqlite_open(struct kh_store_backend **out, const struct kh_store_opts *opts,
                         struct kytos_error *err);
int kh_store_mongo_open(struct kh_store_backend **out, const struct kh_store_opts *opts,
                        struct kytos_error *err);

/* Fill err (may be NULL); returns code.  Local to the store so its tests
 * link without the host's utility library. */
int kh_store_err(struct kytos_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Report through opts->log when set. */
void kh_store_logf(const struct kh_store_opts *opts, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Name checks shared by the front end and the backends. */
int kh_store_check_coll(const char *coll, struct kytos_error *err);
int kh_store_check_index_name(const char *name, struct kytos_error *err);

#endif
