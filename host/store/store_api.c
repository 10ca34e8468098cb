/* host/store/store_api.c - the store slots of the ABI table: NApp -> its
 * store, found and held through what the host hands kh_store_api_fill.
 * Kept apart from store.c so that store tests link without the host core. */
#include <stdlib.h>
#include "store/store.h"
#include "store/store_impl.h"

/* Set once, by the host's kh_store_api_fill (before any NApp runs). */
static kh_store *(*store_of)(const kytos_napp *n);
static const struct kh_napp_ops *napps;

static kh_store *napp_store(kytos_napp *n, struct kytos_error *err)
{
    kh_store *s = n && store_of ? store_of(n) : NULL;

    if (!s)
        kh_store_err(err, KYTOS_EUNAVAIL, "the store is not open");
    return s;
}

static int api_get(kytos_napp *n, const char *coll, const char *id, struct json_object **out,
                   struct kytos_error *err)
{
    kh_store *s = napp_store(n, err);
    if (out)
        *out = NULL;
    return s ? kh_store_get(s, coll, id, out, err) : KYTOS_EUNAVAIL;
}

static int api_put(kytos_napp *n, const char *coll, const char *id, struct json_object *doc,
                   struct kytos_error *err)
{
    kh_store *s = napp_store(n, err);
    return s ? kh_store_put(s, coll, id, doc, err) : KYTOS_EUNAVAIL;
}

static int api_insert(kytos_napp *n, const char *coll, const char *id, struct json_object *doc,
                      struct kytos_error *err)
{
    kh_store *s = napp_store(n, err);
    return s ? kh_store_insert(s, coll, id, doc, err) : KYTOS_EUNAVAIL;
}

static int api_patch(kytos_napp *n, const char *coll, const char *id, struct json_object *update,
                     unsigned flags, struct json_object **out, struct kytos_error *err)
{
    kh_store *s = napp_store(n, err);
    if (out)
        *out = NULL;
    return s ? kh_store_patch(s, coll, id, update, flags, out, err) : KYTOS_EUNAVAIL;
}

static int api_delete(kytos_napp *n, const char *coll, const char *id, struct kytos_error *err)
{
    kh_store *s = napp_store(n, err);
    return s ? kh_store_delete(s, coll, id, err) : KYTOS_EUNAVAIL;
}

static int api_find(kytos_napp *n, const char *coll, const struct kytos_find *q, kytos_cursor **out,
                    struct kytos_error *err)
{
    kh_store *s = napp_store(n, err);
    if (out)
        *out = NULL;
    return s ? kh_store_find(s, coll, q, out, err) : KYTOS_EUNAVAIL;
}

static int api_count(kytos_napp *n, const char *coll, struct json_object *filter, int64_t *out,
                     struct kytos_error *err)
{
    kh_store *s = napp_store(n, err);
    if (out)
        *out = 0;
    return s ? kh_store_count(s, coll, filter, out, err) : KYTOS_EUNAVAIL;
}

static int api_bulk(kytos_napp *n, const char *coll, const struct kytos_write *ops, size_t count,
                    struct kytos_error *err)
{
    kh_store *s = napp_store(n, err);
    return s ? kh_store_bulk(s, coll, ops, count, err) : KYTOS_EUNAVAIL;
}

/* An async write keeps its NApp loaded (and its stop() waiting) until the
 * NApp's done callback has run. */
struct napp_done {
    kytos_napp *napp;
    kytos_store_done_fn done;
    void *ud;
};

static void napp_done_cb(void *p, int rc, const struct kytos_error *err)
{
    struct napp_done *d = p;
    d->done(d->ud, rc, err);
    napps->unref(d->napp);
    free(d);
}

static int api_bulk_async(kytos_napp *n, const char *coll, const struct kytos_write *ops,
                          size_t count, kytos_store_done_fn done, void *ud, struct kytos_error *err)
{
    kh_store *s = napp_store(n, err);
    struct napp_done *d = s && done ? malloc(sizeof *d) : NULL;
    int rc;

    if (!d) {
        /* the docs are ours whatever happens */
        for (size_t k = 0; ops && k < count; k++)
            json_object_put(ops[k].doc);
        if (!s)
            return KYTOS_EUNAVAIL;
        return kh_store_err(err, done ? KYTOS_ENOMEM : KYTOS_EINVAL,
                            done ? "out of memory" : "bulk_async needs a done callback");
    }
    d->napp = n;
    d->done = done;
    d->ud = ud;
    napps->ref(n);
    rc = kh_store_bulk_async(s, coll, ops, count, napp_done_cb, d, err);
    if (rc < 0) {
        napps->unref(n);
        free(d);
    }
    return rc;
}

static int api_index(kytos_napp *n, const char *coll, const char *name, struct json_object *keys,
                     unsigned flags, struct kytos_error *err)
{
    kh_store *s = napp_store(n, err);
    return s ? kh_store_index(s, coll, name, keys, flags, err) : KYTOS_EUNAVAIL;
}

void kh_store_api_fill(struct kytos_api *api, kh_store *(*store_of_napp)(const kytos_napp *n),
                       const struct kh_napp_ops *napp_ops)
{
    store_of = store_of_napp;
    napps = napp_ops;
    api->store_get = api_get;
    api->store_put = api_put;
    api->store_insert = api_insert;
    api->store_patch = api_patch;
    api->store_delete = api_delete;
    api->store_find = api_find;
    api->cursor_next = kh_cursor_next;
    api->cursor_free = kh_cursor_free;
    api->store_count = api_count;
    api->store_bulk = api_bulk;
    api->store_bulk_async = api_bulk_async;
    api->store_index = api_index;
}
