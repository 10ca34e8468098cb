/* host/store/store.c - the store front end: argument checks, dispatch to the
 * backend, operation counters and the health flag for the status endpoint. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store/store_doc.h"
#include "store/store_impl.h"
#include "store/store_text.h"

enum { OP_GET, OP_PUT, OP_INSERT, OP_PATCH, OP_DELETE, OP_FIND, OP_COUNT, OP_BULK, OP_INDEX, OP_N };
static const char *const op_names[OP_N] = {"get",  "put",   "insert", "patch", "delete",
                                           "find", "count", "bulk",   "index"};

struct kh_store {
    struct kh_store_backend *b;
    atomic_uint_fast64_t ops[OP_N];
    atomic_uint_fast64_t errors, unavailable;
    atomic_int faulty;            /* fast check before taking hmu */
    pthread_mutex_t hmu;
    char fault[256];              /* why unhealthy */
    struct kh_store_async *async; /* kytos_store_bulk_async's queue */
    int embedded;                 /* the SQLite backend */
    /* kytos_test_store_fail(): after inject_skip more writes to
     * inject_coll, the next inject_left fail with inject_code (under hmu;
     * inject_on is the fast check) */
    atomic_int inject_on;
    unsigned inject_skip, inject_left;
    int inject_code;
    char inject_coll[128];
};

int kh_store_err(struct kytos_error *err, int code, const char *fmt, ...)
{
    va_list ap;

    if (err) {
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof(err->message), fmt, ap);
        va_end(ap);
    }
    return code;
}

void kh_store_logf(const struct kh_store_opts *opts, int level, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    if (!opts || !opts->log)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    opts->log(opts->log_ud, level, msg);
}

static int name_chars_ok(const char *s)
{
    for (; *s; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

int kh_store_check_coll(const char *coll, struct kytos_error *err)
{
    size_t len;

    if (!coll || !(len = strlen(coll)))
        return kh_store_err(err, KYTOS_EINVAL, "collection name is empty");
    if (len > KH_STORE_MAX_COLL)
        return kh_store_err(err, KYTOS_EINVAL, "collection name longer than %d bytes", KH_STORE_MAX_COLL);
    if (!name_chars_ok(coll))
        return kh_store_err(err, KYTOS_EINVAL,
                            "collection name '%.120s' may only hold letters, digits, '_', '.' and '-'", coll);
    if (!strncmp(coll, "sqlite_", 7) || !strncmp(coll, "system.", 7))
        return kh_store_err(err, KYTOS_EINVAL, "collection name '%.120s' is reserved", coll);
    return 0;
}

int kh_store_check_index_name(const char *name, struct kytos_error *err)
{
    size_t len;

    if (!name || !(len = strlen(name)))
        return kh_store_err(err, KYTOS_EINVAL, "index name is empty");
    if (len > KH_STORE_MAX_INDEX_NAME || !name_chars_ok(name))
        return kh_store_err(err, KYTOS_EINVAL,
                            "index name '%.120s' must be 1-%d letters, digits, '_', '.' or '-'", name,
                            KH_STORE_MAX_INDEX_NAME);
    return 0;
}

static int check_id(const char *id, struct kytos_error *err)
{
    size_t len;
    struct json_object *s;
    int rc;

    if (!id || !(len = strlen(id)))
        return kh_store_err(err, KYTOS_EINVAL, "_id is empty");
    if (len > KH_STORE_MAX_ID)
        return kh_store_err(err, KYTOS_EINVAL, "_id longer than %d bytes", KH_STORE_MAX_ID);
    for (size_t k = 0; k < len; k++)
        if ((unsigned char)id[k] >= 0x80)
            goto utf8;
    return 0;
utf8:
    if (!(s = json_object_new_string(id)))
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    rc = kh_value_check(s, 0, "_id", err);
    json_object_put(s);
    return rc;
}

/* Count the call and keep the health flag; copies the detail to err. */
static int finish(kh_store *s, int op, int rc, const struct kytos_error *e, struct kytos_error *err)
{
    atomic_fetch_add_explicit(&s->ops[op], 1, memory_order_relaxed);
    if (rc < 0) {
        atomic_fetch_add_explicit(&s->errors, 1, memory_order_relaxed);
        if (err) {
            err->code = rc;
            memcpy(err->message, e->message, sizeof(err->message));
        }
        if (rc == KYTOS_EUNAVAIL || rc == KYTOS_ETIMEDOUT || rc == KYTOS_EIO) {
            atomic_fetch_add_explicit(&s->unavailable, 1, memory_order_relaxed);
            pthread_mutex_lock(&s->hmu);
            snprintf(s->fault, sizeof(s->fault), "%s", e->message);
            atomic_store(&s->faulty, 1);
            pthread_mutex_unlock(&s->hmu);
        }
    } else if (atomic_load_explicit(&s->faulty, memory_order_relaxed)) {
        pthread_mutex_lock(&s->hmu);
        atomic_store(&s->faulty, 0);
        s->fault[0] = '\0';
        pthread_mutex_unlock(&s->hmu);
    }
    return rc;
}

int kh_store_inject_failure(kh_store *s, const char *coll, int code, unsigned skip,
                            unsigned count)
{
    if (!s || !coll || strlen(coll) >= sizeof s->inject_coll || (count && code >= 0))
        return KYTOS_EINVAL;
    pthread_mutex_lock(&s->hmu);
    snprintf(s->inject_coll, sizeof s->inject_coll, "%s", coll);
    s->inject_code = code;
    s->inject_skip = count ? skip : 0;
    s->inject_left = count;
    atomic_store(&s->inject_on, count > 0);
    pthread_mutex_unlock(&s->hmu);
    return 0;
}

/* A write to coll that kh_store_inject_failure() says must fail: its code
 * with e filled, else 0. */
static int injected(kh_store *s, const char *coll, struct kytos_error *e)
{
    int rc = 0;

    if (!atomic_load_explicit(&s->inject_on, memory_order_relaxed))
        return 0;
    pthread_mutex_lock(&s->hmu);
    if (s->inject_left && !strcmp(s->inject_coll, coll) && s->inject_skip) {
        s->inject_skip--;   /* let through */
    } else if (s->inject_left && !strcmp(s->inject_coll, coll)) {
        rc = kh_store_err(e, s->inject_code, "injected failure of a write to '%s' (kytos_test_store_fail)",
                          coll);
        if (--s->inject_left == 0)
            atomic_store(&s->inject_on, 0);
    }
    pthread_mutex_unlock(&s->hmu);
    return rc;
}

/* The writer thread counts each async write as a bulk call. */
static void count_async(void *ctx, int rc, const struct kytos_error *e)
{
    finish(ctx, OP_BULK, rc, e, NULL);
}

int kh_store_open(kh_store **out, const struct kh_store_opts *opts, struct kytos_error *err)
{
    const char *backend = opts && opts->backend && opts->backend[0] ? opts->backend : "sqlite";
    kh_store *s;
    int rc, embedded;

    *out = NULL;
    if (!(s = calloc(1, sizeof(*s))))
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    pthread_mutex_init(&s->hmu, NULL);
    if (!strcmp(backend, "sqlite"))
        rc = kh_store_sqlite_open(&s->b, opts, err);
    else if (!strcmp(backend, "mongodb"))
        rc = kh_store_mongo_open(&s->b, opts, err);
    else
        rc = kh_store_err(err, KYTOS_EINVAL,
                          "unknown database '%.60s' (use mongodb, or leave it unset for the embedded store)",
                          backend);
    if (rc < 0) {
        pthread_mutex_destroy(&s->hmu);
        free(s);
        return rc;
    }
    embedded = s->embedded = !strcmp(backend, "sqlite");
    s->async = kh_store_async_new(s->b, embedded ? kh_store_sqlite_bulk_batch : NULL, 4096, count_async, s);
    if (!s->async) {
        s->b->ops->close(s->b);
        pthread_mutex_destroy(&s->hmu);
        free(s);
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    }
    if (embedded)
        kh_store_async_allow_claims(s->async);   /* its commits are local and quick */
    *out = s;
    return 0;
}

void kh_store_close(kh_store *s)
{
    if (!s)
        return;
    kh_store_async_close(s->async);   /* every queued write first */
    s->b->ops->close(s->b);
    pthread_mutex_destroy(&s->hmu);
    free(s);
}

uint64_t kh_store_async_count(kh_store *s)
{
    return s ? kh_store_async_submitted(s->async) : 0;
}

void kh_store_hold_async(kh_store *s, int on)
{
    if (s)
        kh_store_async_hold(s->async, on);
}

int kh_store_await_queued(kh_store *s, size_t n, int timeout_ms)
{
    return s ? kh_store_async_await_queued(s->async, n, timeout_ms) : KYTOS_EINVAL;
}

int kh_store_async_wait(kh_store *s, int timeout_ms)
{
    return s ? kh_store_async_idle(s->async, timeout_ms) : 0;
}

struct json_object *kh_store_status(kh_store *s)
{
    struct json_object *st = json_object_new_object(), *ops = json_object_new_object();
    int healthy;
    char fault[256];

    if (!st || !ops) {
        json_object_put(st);
        json_object_put(ops);
        return NULL;
    }
    json_object_object_add(st, "backend", json_object_new_string(s->b->ops->name));
    healthy = s->b->ops->status(s->b, st);
    kh_store_async_status(s->async, st);
    pthread_mutex_lock(&s->hmu);
    memcpy(fault, s->fault, sizeof(fault));
    if (atomic_load(&s->faulty))
        healthy = 0;
    pthread_mutex_unlock(&s->hmu);
    json_object_object_add(st, "healthy", json_object_new_boolean(healthy));
    if (!fault[0] && !healthy) {
        struct json_object *d;
        if (json_object_object_get_ex(st, "description", &d))
            snprintf(fault, sizeof(fault), "%s", json_object_get_string(d));
        else
            snprintf(fault, sizeof(fault), "%s", "store unavailable");
    }
    json_object_object_add(st, "description", json_object_new_string(healthy ? "ok" : fault));
    for (int k = 0; k < OP_N; k++)
        json_object_object_add(ops, op_names[k],
                               json_object_new_int64((int64_t)atomic_load(&s->ops[k])));
    json_object_object_add(st, "ops", ops);
    json_object_object_add(st, "errors", json_object_new_int64((int64_t)atomic_load(&s->errors)));
    json_object_object_add(st, "unavailable",
                           json_object_new_int64((int64_t)atomic_load(&s->unavailable)));
    return st;
}

#define CHECK(expr)                                 \
    do {                                            \
        if ((rc = (expr)) < 0)                      \
            return finish(s, op, rc, &e, err);      \
    } while (0)

int kh_store_get(kh_store *s, const char *coll, const char *id, struct json_object **out,
                 struct kytos_error *err)
{
    struct kytos_error e = {0};
    int rc, op = OP_GET;

    if (out)
        *out = NULL;
    CHECK(kh_store_check_coll(coll, &e));
    CHECK(check_id(id, &e));
    if (!out)
        CHECK(kh_store_err(&e, KYTOS_EINVAL, "get needs an output pointer"));
    return finish(s, op, s->b->ops->get(s->b, coll, id, out, &e), &e, err);
}

static int put_common(kh_store *s, int op, const char *coll, const char *id, struct json_object *doc,
                      struct kytos_error *err)
{
    struct kytos_error e = {0};
    int rc;

    CHECK(kh_store_check_coll(coll, &e));
    CHECK(check_id(id, &e));
    if (!json_object_is_type(doc, json_type_object))
        CHECK(kh_store_err(&e, KYTOS_EINVAL, "document must be a JSON object"));
    CHECK(injected(s, coll, &e));
    return finish(s, op, s->b->ops->put(s->b, coll, id, doc, op == OP_INSERT, &e), &e, err);
}

int kh_store_put(kh_store *s, const char *coll, const char *id, struct json_object *doc,
                 struct kytos_error *err)
{
    return put_common(s, OP_PUT, coll, id, doc, err);
}

int kh_store_insert(kh_store *s, const char *coll, const char *id, struct json_object *doc,
                    struct kytos_error *err)
{
    return put_common(s, OP_INSERT, coll, id, doc, err);
}

int kh_store_patch(kh_store *s, const char *coll, const char *id, struct json_object *update,
                   unsigned flags, struct json_object **out, struct kytos_error *err)
{
    struct kytos_error e = {0};
    int rc, op = OP_PATCH;

    if (out)
        *out = NULL;
    CHECK(kh_store_check_coll(coll, &e));
    CHECK(check_id(id, &e));
    if (flags & ~(unsigned)KYTOS_STORE_UPSERT)
        CHECK(kh_store_err(&e, KYTOS_EINVAL, "patch: unknown flags 0x%x", flags));
    CHECK(kh_update_check(update, &e));
    CHECK(injected(s, coll, &e));
    return finish(s, op, s->b->ops->patch(s->b, coll, id, update, flags, out, &e), &e, err);
}

int kh_store_delete(kh_store *s, const char *coll, const char *id, struct kytos_error *err)
{
    struct kytos_error e = {0};
    int rc, op = OP_DELETE;

    CHECK(kh_store_check_coll(coll, &e));
    CHECK(check_id(id, &e));
    CHECK(injected(s, coll, &e));
    return finish(s, op, s->b->ops->del(s->b, coll, id, &e), &e, err);
}

int kh_store_find(kh_store *s, const char *coll, const struct kytos_find *q, kytos_cursor **out,
                  struct kytos_error *err)
{
    struct kytos_error e = {0};
    struct kytos_find local = {0};
    int rc, op = OP_FIND;

    if (out)
        *out = NULL;
    CHECK(kh_store_check_coll(coll, &e));
    if (!out)
        CHECK(kh_store_err(&e, KYTOS_EINVAL, "find needs an output pointer"));
    if (q) {
        /* an older NApp may pass a shorter struct: the rest stays zero */
        if (q->struct_size < offsetof(struct kytos_find, filter) + sizeof(q->filter))
            CHECK(kh_store_err(&e, KYTOS_EINVAL, "struct kytos_find: struct_size %u is too small",
                               (unsigned)q->struct_size));
        memcpy(&local, q, q->struct_size < sizeof(local) ? q->struct_size : sizeof(local));
        local.struct_size = sizeof(local);
    }
    local.struct_size = sizeof(local);
    if (local.skip < 0 || local.limit < 0)
        CHECK(kh_store_err(&e, KYTOS_EINVAL, "find: skip and limit must not be negative"));
    if (local.flags & ~(uint32_t)KYTOS_FIND_TEXT)
        CHECK(kh_store_err(&e, KYTOS_EINVAL, "find: unknown flags 0x%x",
                           (unsigned)(local.flags & ~(uint32_t)KYTOS_FIND_TEXT)));
    rc = s->b->ops->find(s->b, coll, &local, out, &e);
    if (rc == 0 && (local.flags & KYTOS_FIND_TEXT) && !s->b->ops->find_text)
        rc = kh_text_cursor_wrap(*out, out, &e);
    return finish(s, op, rc, &e, err);
}

int kh_cursor_next(kytos_cursor *c, struct json_object **doc, struct kytos_error *err)
{
    if (doc)
        *doc = NULL;
    if (!c || !doc)
        return kh_store_err(err, KYTOS_EINVAL, "cursor_next needs a cursor and an output pointer");
    return c->next(c, doc, err);
}

void kh_cursor_free(kytos_cursor *c)
{
    if (c)
        c->free(c);
}

int kh_store_count(kh_store *s, const char *coll, struct json_object *filter, int64_t *out,
                   struct kytos_error *err)
{
    struct kytos_error e = {0};
    int64_t dummy;
    int rc, op = OP_COUNT;

    if (out)
        *out = 0;
    CHECK(kh_store_check_coll(coll, &e));
    return finish(s, op, s->b->ops->count(s->b, coll, filter, out ? out : &dummy, &e), &e, err);
}

/* The argument checks of a bulk write (n > 0); 0 or the error in e. */
/* values 0: the patches' values are left to kh_store_sqlite_bulk_prepare,
 * which writes them as text and checks them on the way. */
static int check_bulk(const char *coll, const struct kytos_write *ops, size_t n, int values,
                      struct kytos_error *e)
{
    /* the update checked last: a bulk often gives every op the same one
     * (flow_manager's "installed" and "deleted" marks), checked once */
    const struct json_object *checked = NULL;
    int rc;

    if ((rc = kh_store_check_coll(coll, e)) < 0)
        return rc;
    if (!ops)
        return kh_store_err(e, KYTOS_EINVAL, "bulk: no operations");
    if (n > KH_STORE_MAX_BULK)
        return kh_store_err(e, KYTOS_ETOOBIG, "bulk: %zu operations, the limit is %d", n,
                            KH_STORE_MAX_BULK);
    for (size_t k = 0; k < n; k++) {
        struct kytos_error oe = {0};
        const struct kytos_write *w = &ops[k];
        if (w->op < KYTOS_WRITE_PUT || w->op > KYTOS_WRITE_DELETE)
            rc = kh_store_err(&oe, KYTOS_EINVAL, "unknown op %d", w->op);
        else if (check_id(w->id, &oe) < 0)
            rc = oe.code;
        else if (w->op != KYTOS_WRITE_DELETE && !json_object_is_type(w->doc, json_type_object))
            rc = kh_store_err(&oe, KYTOS_EINVAL, "needs a JSON object");
        else if (w->op == KYTOS_WRITE_PATCH && (w->flags & ~(unsigned)KYTOS_STORE_UPSERT))
            rc = kh_store_err(&oe, KYTOS_EINVAL, "unknown flags 0x%x", w->flags);
        else if (w->op == KYTOS_WRITE_PATCH && w->doc != checked) {
            if ((rc = kh_update_check_ex(w->doc, values, &oe)) == 0)
                checked = w->doc;
        } else
            rc = 0;
        if (rc < 0)
            return kh_store_err(e, rc, "bulk op %zu: %s", k, oe.message);
    }
    return 0;
}

int kh_store_bulk_async(kh_store *s, const char *coll, const struct kytos_write *ops, size_t n,
                        kytos_store_done_fn done, void *ud, struct kytos_error *err)
{
    struct kytos_error e = {0};
    struct kh_async_write *w = NULL;
    size_t k;
    int rc;

    if (!done)
        rc = kh_store_err(&e, KYTOS_EINVAL, "bulk_async needs a done callback");
    else if (n == 0)
        rc = kh_store_err(&e, KYTOS_EINVAL, "bulk: no operations");
    else if ((rc = check_bulk(coll, ops, n, !s->embedded, &e)) == 0)
        rc = injected(s, coll, &e);
    if (rc == 0 && (!(w = calloc(1, sizeof *w)) || !(w->ops = calloc(n, sizeof *w->ops)) ||
                    !(w->coll = strdup(coll))))
        rc = kh_store_err(&e, KYTOS_ENOMEM, "out of memory");
    for (k = 0; rc == 0 && k < n; k++) {
        w->ops[k] = ops[k];
        w->ops[k].doc = NULL;
        if (!(w->ops[k].id = strdup(ops[k].id)))
            rc = kh_store_err(&e, KYTOS_ENOMEM, "out of memory");
        w->n = k + 1;
    }
    if (rc == 0) {
        for (k = 0; k < n; k++)   /* taken over now, not before: see below */
            w->ops[k].doc = ops[k].doc;
        w->done = done;
        w->ud = ud;
        /* the embedded store's prepare also checks the patches' values */
        if ((!s->embedded || (rc = kh_store_sqlite_bulk_prepare(w, &e)) >= 0) &&
            (rc = kh_store_async_submit(s->async, w, &e)) == 0)
            return 0;
        for (k = 0; k < n; k++)
            w->ops[k].doc = NULL;
    }
    /* refused: the docs are still the caller's references, which we took */
    for (k = 0; ops && k < n; k++)
        json_object_put(ops[k].doc);
    kh_store_async_free(w);
    return finish(s, OP_BULK, rc, &e, err);
}

int kh_store_bulk(kh_store *s, const char *coll, const struct kytos_write *ops, size_t n,
                  struct kytos_error *err)
{
    struct kytos_error e = {0};
    int rc, op = OP_BULK;

    CHECK(kh_store_check_coll(coll, &e));
    if (n == 0)
        return finish(s, op, 0, &e, err);
    CHECK(check_bulk(coll, ops, n, 1, &e));
    CHECK(injected(s, coll, &e));
    return finish(s, op, s->b->ops->bulk(s->b, coll, ops, n, &e), &e, err);
}

int kh_store_index(kh_store *s, const char *coll, const char *name, struct json_object *keys,
                   unsigned flags, struct kytos_error *err)
{
    struct kytos_error e = {0};
    int rc, op = OP_INDEX;

    CHECK(kh_store_check_coll(coll, &e));
    CHECK(kh_store_check_index_name(name, &e));
    if (flags & ~(unsigned)KYTOS_STORE_UNIQUE)
        CHECK(kh_store_err(&e, KYTOS_EINVAL, "index: unknown flags 0x%x", flags));
    return finish(s, op, s->b->ops->index(s->b, coll, name, keys, flags, &e), &e, err);
}
