/* kytos/store.h - collections of JSON documents keyed by a string _id.
 *
 * The same calls on every backend (embedded SQLite, MongoDB).  Documents,
 * filters and updates are json-c values, borrowed; results through **out
 * belong to the caller (json_object_put, kytos_cursor_free).
 *
 * Filters: {"a.b": value} equality on dotted paths, and per field the
 * operators $in, $nin, $ne, $gt, $gte, $lt, $lte, $exists.
 * Updates (patch): {"$set": {"a.b": v}, "$unset": {"c": ""}}.
 * Every call may block (disk, network): call it from pooled handlers, never
 * from KYTOS_ROUTE_INLINE ones.  Every call is thread safe.
 * Errors: a negative status, with detail in *err when err is not NULL:
 * KYTOS_ENOTFOUND, KYTOS_EEXIST (duplicate _id or unique index),
 * KYTOS_EUNAVAIL, KYTOS_ETIMEDOUT, KYTOS_EFILTER, KYTOS_EINVAL.
 */
#ifndef KYTOS_STORE_H
#define KYTOS_STORE_H

#include "api.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef KYTOS_HOST
static inline int kytos_store_get(kytos_napp *n, const char *coll, const char *id,
                                  struct json_object **out, struct kytos_error *err)
{
    return kytos__api->store_get(n, coll, id, out, err);
}
/* Insert or replace.  The stored document gets "_id": id. */
static inline int kytos_store_put(kytos_napp *n, const char *coll, const char *id,
                                  struct json_object *doc, struct kytos_error *err)
{
    return kytos__api->store_put(n, coll, id, doc, err);
}
/* Insert only: KYTOS_EEXIST when the _id is taken. */
static inline int kytos_store_insert(kytos_napp *n, const char *coll, const char *id,
                                     struct json_object *doc, struct kytos_error *err)
{
    return kytos__api->store_insert(n, coll, id, doc, err);
}
/* Partial update; KYTOS_ENOTFOUND unless KYTOS_STORE_UPSERT.  *out (may be
 * NULL) receives the document after the update. */
static inline int kytos_store_patch(kytos_napp *n, const char *coll, const char *id,
                                    struct json_object *update, unsigned flags,
                                    struct json_object **out, struct kytos_error *err)
{
    return kytos__api->store_patch(n, coll, id, update, flags, out, err);
}
static inline int kytos_store_delete(kytos_napp *n, const char *coll, const char *id,
                                     struct kytos_error *err)
{
    return kytos__api->store_delete(n, coll, id, err);
}
static inline int kytos_store_find(kytos_napp *n, const char *coll, const struct kytos_find *q,
                                   kytos_cursor **out, struct kytos_error *err)
{
    return kytos__api->store_find(n, coll, q, out, err);
}
/* 1 with a document (caller owns it), 0 at the end, negative on error. */
static inline int kytos_cursor_next(kytos_cursor *c, struct json_object **doc,
                                    struct kytos_error *err)
{
    return kytos__api->cursor_next(c, doc, err);
}
static inline void kytos_cursor_free(kytos_cursor *c) { kytos__api->cursor_free(c); }
static inline int kytos_store_count(kytos_napp *n, const char *coll, struct json_object *filter,
                                    int64_t *out, struct kytos_error *err)
{
    return kytos__api->store_count(n, coll, filter, out, err);
}
/* Several writes; atomic (all or none) on the embedded store, ordered and
 * stopping at the first error on MongoDB. */
static inline int kytos_store_bulk(kytos_napp *n, const char *coll, const struct kytos_write *ops,
                                   size_t count, struct kytos_error *err)
{
    return kytos__api->store_bulk(n, coll, ops, count, err);
}
/* The same writes, queued: returns at once and done(ud, rc, err) is called
 * exactly once, from the store's writer thread, when they are committed
 * (rc KYTOS_OK, err NULL) or failed (rc < 0, err says why).  Writes queued
 * by any NApp are applied in the order they were queued, many of them in
 * one transaction (group commit), each bulk still all or nothing on the
 * embedded store.  A handler can queue its write, return KYTOS_DEFERRED and
 * finish the request in done: no thread waits for the commit.
 * Ownership (hence _give): the call takes over every ops[i].doc reference,
 * whatever it returns (do not use or put them afterwards; build them for
 * this call); ids and coll are copied.  Any error return (KYTOS_EINVAL for
 * a bad op, KYTOS_EFULL when too many writes are queued: answer 503,
 * KYTOS_EUNAVAIL) means done will not be called.  done must be short and
 * must not wait for another store write (it would wait for its own
 * thread): publish events, finish requests.  ABI 1.1: a NApp whose
 * KYTOS_NAPP_ABI_MIN_MINOR is 0 checks KYTOS_API_HAS(store_bulk_async). */
static inline int kytos_store_bulk_async_give(kytos_napp *n, const char *coll,
                                              const struct kytos_write *ops, size_t count,
                                              kytos_store_done_fn done, void *ud,
                                              struct kytos_error *err)
{
#if KYTOS_NAPP_ABI_MIN_MINOR < 1
    /* a NApp that runs on ABI 1.0 hosts: no crash there, an error */
    if (!KYTOS_API_HAS(store_bulk_async)) {
        for (size_t i = 0; i < count; i++)
            json_object_put(ops[i].doc);
        if (err) {
            static const char m[] = "the host has no store_bulk_async (ABI 1.1)";
            for (size_t i = 0; i < sizeof m; i++)
                err->message[i] = m[i];
            err->code = KYTOS_ENOTSUP;
        }
        return KYTOS_ENOTSUP;
    }
#endif
    return kytos__api->store_bulk_async(n, coll, ops, count, done, ud, err);
}
/* The old name of kytos_store_bulk_async_give, which did not say that it
 * takes the documents.  Same call. */
#if defined(__GNUC__)
__attribute__((deprecated("use kytos_store_bulk_async_give (it takes the documents)")))
#endif
static inline int kytos_store_bulk_async(kytos_napp *n, const char *coll,
                                         const struct kytos_write *ops, size_t count,
                                         kytos_store_done_fn done, void *ud,
                                         struct kytos_error *err)
{
    return kytos_store_bulk_async_give(n, coll, ops, count, done, ud, err);
}
/* Create an index if missing: keys {"field": 1, "other.field": -1}. */
static inline int kytos_store_index(kytos_napp *n, const char *coll, const char *name,
                                    struct json_object *keys, unsigned flags,
                                    struct kytos_error *err)
{
    return kytos__api->store_index(n, coll, name, keys, flags, err);
}
#endif /* KYTOS_HOST */

#ifdef __cplusplus
}
#endif

#endif
