/* host/store/store_mongo.c - the MongoDB store: a libmongoc client pool.
 *
 * Configured as Kytos does (kytos/core/db.py), from the environment:
 * MONGO_HOST_SEEDS (default mongo1:27017,mongo2:27018,mongo3:27019),
 * MONGO_USERNAME, MONGO_PASSWORD, MONGO_DBNAME (default napps, also the
 * authSource), MONGO_MAX_POOLSIZE (300), MONGO_MIN_POOLSIZE (30),
 * MONGO_TIMEOUTMS (30000: server selection), MONGO_OP_TIMEOUTMS (20000:
 * maxTimeMS of reads, wtimeout of writes), MONGO_SOCKET_TIMEOUTMS (30000),
 * MONGO_IDX_TIMEOUTMS (30000: index builds); or a whole URI in
 * opts->mongo_uri (tests).  Client policy as Kytos': retryable reads and
 * writes, readPreference primaryPreferred, read and write concern majority.
 *
 * Consistency: what MongoDB gives with those settings.  An acknowledged
 * write is on a majority of the replica set (it survives a failover); a
 * read sees majority-committed data, so on the primary it sees every
 * acknowledged write, while a read that falls back to a secondary (primary
 * down) may be slightly behind.  Single-document writes (put, patch, delete)
 * are atomic; a bulk write is ordered and stops at the first error, with
 * the earlier operations applied (not atomic).  Several kytosd may share one
 * database.
 *
 * Documents are converted with store_bson.c (uint64 cookies as Decimal128,
 * as Kytos stores them).  Filters, updates and projections are checked by
 * the same code as the embedded store before they are sent, so a bad one
 * fails the same way on both. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mongoc/mongoc.h>
#include "store/store_bson.h"
#include "store/store_doc.h"
#include "store/store_filter.h"
#include "store/store_impl.h"

struct mg_store {
    struct kh_store_backend base;
    mongoc_client_pool_t *pool;
    mongoc_uri_t *uri;
    char dbname[128];
    char seeds[512];
    int op_timeout_ms, idx_timeout_ms;
};

static pthread_once_t mg_once = PTHREAD_ONCE_INIT;
/* libmongoc logs through one process-wide handler: the last store opened
 * with a log callback receives them (there is one store per host). */
static pthread_mutex_t mg_log_mu = PTHREAD_MUTEX_INITIALIZER;
static void (*mg_log_fn)(void *, int, const char *);
static void *mg_log_ud;

static void mg_log_handler(mongoc_log_level_t level, const char *domain, const char *message, void *ud)
{
    void (*fn)(void *, int, const char *);
    void *fud;
    char line[600];
    int lvl;

    (void)ud;
    switch (level) {
    case MONGOC_LOG_LEVEL_ERROR: lvl = 50; break;
    case MONGOC_LOG_LEVEL_CRITICAL: lvl = 40; break;
    case MONGOC_LOG_LEVEL_WARNING: lvl = 30; break;
    case MONGOC_LOG_LEVEL_MESSAGE:
    case MONGOC_LOG_LEVEL_INFO: lvl = 20; break;
    default: return; /* debug and trace: far too chatty */
    }
    pthread_mutex_lock(&mg_log_mu);
    fn = mg_log_fn;
    fud = mg_log_ud;
    pthread_mutex_unlock(&mg_log_mu);
    if (!fn)
        return;
    snprintf(line, sizeof(line), "store: libmongoc %s: %s", domain ? domain : "", message ? message : "");
    fn(fud, lvl, line);
}

static void mg_init_once(void)
{
    mongoc_init(); /* once per process; libmongoc cleans up at exit by itself */
    mongoc_log_set_handler(mg_log_handler, NULL);
}

/* ---- errors ---- */

static int mg_fail(const bson_error_t *e, struct kytos_error *err, const char *coll, const char *what)
{
    uint32_t c = e->code;

    if (e->domain == MONGOC_ERROR_SERVER_SELECTION || e->domain == MONGOC_ERROR_STREAM ||
        e->domain == MONGOC_ERROR_CLIENT) {
        if (strstr(e->message, "timed out") || strstr(e->message, "Timed out"))
            return kh_store_err(err, e->domain == MONGOC_ERROR_SERVER_SELECTION ? KYTOS_EUNAVAIL
                                                                                : KYTOS_ETIMEDOUT,
                                "MongoDB unavailable (%s)", e->message);
        if (e->domain == MONGOC_ERROR_CLIENT && c == MONGOC_ERROR_CLIENT_AUTHENTICATE)
            return kh_store_err(err, KYTOS_EUNAVAIL, "MongoDB authentication failed (%s)", e->message);
        return kh_store_err(err, KYTOS_EUNAVAIL, "MongoDB unavailable (%s)", e->message);
    }
    if (e->domain == MONGOC_ERROR_BSON || e->domain == MONGOC_ERROR_COMMAND)
        return kh_store_err(err, KYTOS_EINVAL, "MongoDB: %s", e->message);
    switch (c) {
    case 11000:
    case 11001:
    case 12582:
        return kh_store_err(err, KYTOS_EEXIST, "duplicate key in '%s' (%s)", coll, e->message);
    case 50:   /* MaxTimeMSExpired */
    case 262:  /* ExceededTimeLimit */
    case 64:   /* WriteConcernFailed (wtimeout) */
        return kh_store_err(err, KYTOS_ETIMEDOUT, "MongoDB %s on '%s' timed out (%s)", what, coll, e->message);
    case 2:    /* BadValue */
    case 9:    /* FailedToParse */
    case 14:   /* TypeMismatch */
    case 52:   /* DollarPrefixedFieldName */
    case 56:   /* EmptyFieldName */
    case 57:   /* DottedFieldName */
    case 28:   /* PathNotViable */
    case 40:   /* ConflictingUpdateOperators */
        return kh_store_err(err, KYTOS_EFILTER, "MongoDB refused the %s on '%s' (%s)", what, coll, e->message);
    case 66:   /* ImmutableField */
        return kh_store_err(err, KYTOS_EINVAL, "MongoDB refused the %s on '%s' (%s)", what, coll, e->message);
    case 13:   /* Unauthorized */
    case 18:   /* AuthenticationFailed */
        return kh_store_err(err, KYTOS_EUNAVAIL, "MongoDB refused access (%s)", e->message);
    case 6:    /* HostUnreachable */
    case 7:    /* HostNotFound */
    case 89:   /* NetworkTimeout */
    case 91:   /* ShutdownInProgress */
    case 189:  /* PrimarySteppedDown */
    case 10107: /* NotWritablePrimary */
    case 11600: /* InterruptedAtShutdown */
    case 11602: /* InterruptedDueToReplStateChange */
    case 13435: /* NotPrimaryNoSecondaryOk */
    case 13436: /* NotPrimaryOrSecondary */
        return kh_store_err(err, KYTOS_EUNAVAIL, "MongoDB unavailable (%s)", e->message);
    default:
        return kh_store_err(err, KYTOS_ERROR, "MongoDB %s on '%s' failed (%u: %s)", what, coll, c, e->message);
    }
}

/* ---- configuration ---- */

static int env_int(const char *name, int def, int min, int *out, struct kytos_error *err)
{
    const char *v = getenv(name);
    char *end;
    long n;

    if (!v || !*v) {
        *out = def;
        return 0;
    }
    errno = 0;
    n = strtol(v, &end, 10);
    if (errno || *end || n < min || n > 100000000)
        return kh_store_err(err, KYTOS_EINVAL, "%s must be an integer >= %d, not '%.40s'", name, min, v);
    *out = (int)n;
    return 0;
}

static const char *env_str(const char *name, const char *def)
{
    const char *v = getenv(name);
    return v && *v ? v : def;
}

static int build_uri(struct mg_store *s, const struct kh_store_opts *opts, struct kytos_error *err)
{
    int maxp, minp, sel, op, sock, idx, rc;
    bson_error_t e;
    char text[1024];
    const char *user = env_str("MONGO_USERNAME", NULL), *pass = env_str("MONGO_PASSWORD", NULL);

    if ((rc = env_int("MONGO_MAX_POOLSIZE", 300, 1, &maxp, err)) < 0 ||
        (rc = env_int("MONGO_MIN_POOLSIZE", 30, 0, &minp, err)) < 0 ||
        (rc = env_int("MONGO_TIMEOUTMS", 30000, 1, &sel, err)) < 0 ||
        (rc = env_int("MONGO_OP_TIMEOUTMS", 20000, 1, &op, err)) < 0 ||
        (rc = env_int("MONGO_SOCKET_TIMEOUTMS", 30000, 1, &sock, err)) < 0 ||
        (rc = env_int("MONGO_IDX_TIMEOUTMS", 30000, 1, &idx, err)) < 0)
        return rc;
    /* MONGO_MIN_POOLSIZE is checked but not passed on: libmongoc's
     * minPoolSize destroys pooled clients above it (not a floor; deprecated) */
    (void)minp;
    s->op_timeout_ms = op;
    s->idx_timeout_ms = idx;
    if (opts && opts->mongo_uri && opts->mongo_uri[0]) {
        if (!(s->uri = mongoc_uri_new_with_error(opts->mongo_uri, &e)))
            return kh_store_err(err, KYTOS_EINVAL, "bad MongoDB URI: %s", e.message);
        snprintf(s->dbname, sizeof(s->dbname), "%s",
                 mongoc_uri_get_database(s->uri) ? mongoc_uri_get_database(s->uri) : "napps");
        snprintf(s->seeds, sizeof(s->seeds), "%s", "(uri)");
    } else {
        const char *seeds = env_str("MONGO_HOST_SEEDS", "mongo1:27017,mongo2:27018,mongo3:27019");
        const char *db = env_str("MONGO_DBNAME", "napps");
        if (strlen(seeds) >= sizeof(s->seeds) || strlen(db) >= 64 || strpbrk(seeds, "/?@ ") ||
            kh_store_check_coll(db, NULL) < 0 || strchr(db, '.'))
            return kh_store_err(err, KYTOS_EINVAL, "MONGO_HOST_SEEDS ('%.100s') or MONGO_DBNAME ('%.60s') is malformed",
                                seeds, db);
        snprintf(s->seeds, sizeof(s->seeds), "%s", seeds);
        snprintf(s->dbname, sizeof(s->dbname), "%s", db);
        snprintf(text, sizeof(text),
                 "mongodb://%s/?maxPoolSize=%d&serverSelectionTimeoutMS=%d"
                 "&socketTimeoutMS=%d&connectTimeoutMS=%d&appname=kytos-c",
                 seeds, maxp, sel, sock, sel < 10000 ? sel : 10000);
        if (!(s->uri = mongoc_uri_new_with_error(text, &e)))
            return kh_store_err(err, KYTOS_EINVAL, "MONGO_HOST_SEEDS '%.100s': %s", seeds, e.message);
        mongoc_uri_set_database(s->uri, db);
        if (user) {
            /* set through the API: no URL escaping of odd characters */
            if (!mongoc_uri_set_username(s->uri, user) || (pass && !mongoc_uri_set_password(s->uri, pass)) ||
                !mongoc_uri_set_auth_source(s->uri, db))
                return kh_store_err(err, KYTOS_EINVAL, "MONGO_USERNAME or MONGO_PASSWORD is not valid UTF-8");
        }
    }
    /* Kytos' client policy, whatever the URI said */
    {
        mongoc_read_prefs_t *rp = mongoc_read_prefs_new(MONGOC_READ_PRIMARY_PREFERRED);
        mongoc_read_concern_t *rc_ = mongoc_read_concern_new();
        mongoc_write_concern_t *wc = mongoc_write_concern_new();
        mongoc_read_concern_set_level(rc_, MONGOC_READ_CONCERN_LEVEL_MAJORITY);
        mongoc_write_concern_set_w(wc, MONGOC_WRITE_CONCERN_W_MAJORITY);
        mongoc_write_concern_set_wtimeout_int64(wc, op);
        mongoc_uri_set_read_prefs_t(s->uri, rp);
        mongoc_uri_set_read_concern(s->uri, rc_);
        mongoc_uri_set_write_concern(s->uri, wc);
        mongoc_uri_set_option_as_bool(s->uri, MONGOC_URI_RETRYWRITES, true);
        mongoc_uri_set_option_as_bool(s->uri, MONGOC_URI_RETRYREADS, true);
        mongoc_read_prefs_destroy(rp);
        mongoc_read_concern_destroy(rc_);
        mongoc_write_concern_destroy(wc);
    }
    return 0;
}

/* ---- open / close / status ---- */

static void mg_close(struct kh_store_backend *b)
{
    struct mg_store *s = (struct mg_store *)b;

    if (!s)
        return;
    if (s->pool)
        mongoc_client_pool_destroy(s->pool);
    if (s->uri)
        mongoc_uri_destroy(s->uri);
    free(s);
}

static int ping(struct mg_store *s, bson_error_t *e)
{
    mongoc_client_t *c = mongoc_client_pool_pop(s->pool);
    bson_t cmd = BSON_INITIALIZER;
    bool ok;

    BSON_APPEND_INT32(&cmd, "ping", 1);
    ok = mongoc_client_command_simple(c, "admin", &cmd, NULL, NULL, e);
    bson_destroy(&cmd);
    mongoc_client_pool_push(s->pool, c);
    return ok ? 0 : -1;
}

static int mg_status(struct kh_store_backend *b, struct json_object *st)
{
    struct mg_store *s = (struct mg_store *)b;
    struct json_object *servers = json_object_new_array();
    mongoc_client_t *c = mongoc_client_pool_try_pop(s->pool);
    int healthy = 0;

    json_object_object_add(st, "database", json_object_new_string(s->dbname));
    json_object_object_add(st, "hosts", json_object_new_string(s->seeds));
    if (c) {
        size_t n = 0;
        mongoc_server_description_t **sds = mongoc_client_get_server_descriptions(c, &n);
        for (size_t k = 0; k < n; k++) {
            struct json_object *o = json_object_new_object();
            const char *type = mongoc_server_description_type(sds[k]);
            json_object_object_add(o, "host", json_object_new_string(mongoc_server_description_host(sds[k])->host_and_port));
            json_object_object_add(o, "type", json_object_new_string(type));
            json_object_array_add(servers, o);
            if (strcmp(type, "Unknown") != 0)
                healthy = 1;
        }
        mongoc_server_descriptions_destroy_all(sds, n);
        mongoc_client_pool_push(s->pool, c);
    }
    json_object_object_add(st, "servers", servers);
    if (!healthy)
        json_object_object_add(st, "description",
                               json_object_new_string("no MongoDB server reachable (see servers)"));
    return healthy;
}

/* ---- per-call plumbing ---- */

struct mg_call {
    mongoc_client_t *client;
    mongoc_collection_t *coll;
};

static void call_begin(struct mg_store *s, const char *coll, struct mg_call *c)
{
    c->client = mongoc_client_pool_pop(s->pool);
    c->coll = mongoc_client_get_collection(c->client, s->dbname, coll);
}

static void call_end(struct mg_store *s, struct mg_call *c)
{
    mongoc_collection_destroy(c->coll);
    mongoc_client_pool_push(s->pool, c->client);
}

static int to_bson(bson_t *b, struct json_object *o, struct kytos_error *err)
{
    if (o && kh_bson_append_object(b, o) < 0)
        return kh_store_err(err, KYTOS_EINVAL, "document cannot be converted to BSON");
    return 0;
}

/* The _id selector */
static void id_filter(bson_t *b, const char *id)
{
    bson_init(b);
    BSON_APPEND_UTF8(b, "_id", id);
}

/* A document for storage: checked as on the embedded store, "_id" first. */
static int doc_bson(bson_t *b, const char *id, struct json_object *doc, struct kytos_error *err)
{
    char *text;
    size_t len;
    int rc;

    /* same checks and limits as the embedded store */
    if ((rc = kh_doc_encode(doc, id, &text, &len, err)) < 0)
        return rc;
    free(text);
    bson_init(b);
    BSON_APPEND_UTF8(b, "_id", id);
    json_object_object_foreach(doc, k, v) {
        if (!strcmp(k, "_id"))
            continue;
        if (kh_bson_append_value(b, k, v) < 0) {
            bson_destroy(b);
            return kh_store_err(err, KYTOS_EINVAL, "document cannot be converted to BSON");
        }
    }
    return 0;
}

static struct json_object *from_bson(const bson_t *b, const char *coll, struct kytos_error *err)
{
    struct json_object *o = kh_bson_to_json(b);
    if (!o)
        kh_store_err(err, KYTOS_EIO, "a document from MongoDB in '%s' is malformed", coll);
    return o;
}

static void add_max_time(bson_t *opts, int ms)
{
    BSON_APPEND_INT64(opts, "maxTimeMS", ms);
}

/* ---- the backend calls ---- */

static int mg_get(struct kh_store_backend *b, const char *coll, const char *id, struct json_object **out,
                  struct kytos_error *err)
{
    struct mg_store *s = (struct mg_store *)b;
    struct mg_call c;
    bson_t filter, opts = BSON_INITIALIZER;
    const bson_t *doc;
    mongoc_cursor_t *cur;
    bson_error_t e;
    int rc = 0;

    *out = NULL;
    id_filter(&filter, id);
    BSON_APPEND_INT64(&opts, "limit", 1);
    BSON_APPEND_BOOL(&opts, "singleBatch", true);
    add_max_time(&opts, s->op_timeout_ms);
    call_begin(s, coll, &c);
    cur = mongoc_collection_find_with_opts(c.coll, &filter, &opts, NULL);
    if (mongoc_cursor_next(cur, &doc))
        rc = (*out = from_bson(doc, coll, err)) ? 0 : KYTOS_EIO;
    else if (mongoc_cursor_error(cur, &e))
        rc = mg_fail(&e, err, coll, "get");
    else
        rc = kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
    mongoc_cursor_destroy(cur);
    call_end(s, &c);
    bson_destroy(&filter);
    bson_destroy(&opts);
    return rc;
}

static int mg_put(struct kh_store_backend *b, const char *coll, const char *id, struct json_object *doc,
                  int insert_only, struct kytos_error *err)
{
    struct mg_store *s = (struct mg_store *)b;
    struct mg_call c;
    bson_t d, filter, opts = BSON_INITIALIZER;
    bson_error_t e;
    bool ok;
    int rc;

    if ((rc = doc_bson(&d, id, doc, err)) < 0)
        return rc;
    call_begin(s, coll, &c);
    if (insert_only) {
        ok = mongoc_collection_insert_one(c.coll, &d, NULL, NULL, &e);
    } else {
        id_filter(&filter, id);
        BSON_APPEND_BOOL(&opts, "upsert", true);
        ok = mongoc_collection_replace_one(c.coll, &filter, &d, &opts, NULL, &e);
        bson_destroy(&filter);
    }
    call_end(s, &c);
    rc = ok ? 0 : mg_fail(&e, err, coll, insert_only ? "insert" : "put");
    if (rc == KYTOS_EEXIST && !strstr(e.message, "_id_"))
        kh_store_err(err, rc, "duplicate key for a unique index on '%s' (%s)", coll, e.message);
    else if (rc == KYTOS_EEXIST)
        kh_store_err(err, rc, "duplicate _id '%.200s' in '%s'", id, coll);
    bson_destroy(&d);
    bson_destroy(&opts);
    return rc;
}

static int mg_patch(struct kh_store_backend *b, const char *coll, const char *id, struct json_object *update,
                    unsigned flags, struct json_object **out, struct kytos_error *err)
{
    struct mg_store *s = (struct mg_store *)b;
    mongoc_find_and_modify_opts_t *fam = mongoc_find_and_modify_opts_new();
    struct mg_call c;
    bson_t filter, upd = BSON_INITIALIZER, reply, extra = BSON_INITIALIZER;
    bson_iter_t it;
    bson_error_t e;
    int rc = 0;

    if ((rc = kh_update_check(update, err)) < 0 || (rc = to_bson(&upd, update, err)) < 0)
        goto out0;
    id_filter(&filter, id);
    mongoc_find_and_modify_opts_set_update(fam, &upd);
    mongoc_find_and_modify_opts_set_flags(fam, MONGOC_FIND_AND_MODIFY_RETURN_NEW |
                                                   ((flags & KYTOS_STORE_UPSERT) ? MONGOC_FIND_AND_MODIFY_UPSERT : 0));
    mongoc_find_and_modify_opts_set_max_time_ms(fam, (uint32_t)s->op_timeout_ms);
    mongoc_find_and_modify_opts_append(fam, &extra);
    call_begin(s, coll, &c);
    if (!mongoc_collection_find_and_modify_with_opts(c.coll, &filter, fam, &reply, &e)) {
        rc = mg_fail(&e, err, coll, "patch");
        if (rc == KYTOS_EEXIST)
            kh_store_err(err, rc, "duplicate key for a unique index on '%s' (%s)", coll, e.message);
    } else if (bson_iter_init_find(&it, &reply, "value") && BSON_ITER_HOLDS_DOCUMENT(&it)) {
        const uint8_t *data;
        uint32_t len;
        bson_t v;
        bson_iter_document(&it, &len, &data);
        if (out && bson_init_static(&v, data, len))
            rc = (*out = from_bson(&v, coll, err)) ? 0 : KYTOS_EIO;
    } else {
        rc = kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
    }
    call_end(s, &c);
    bson_destroy(&reply);
    bson_destroy(&filter);
out0:
    bson_destroy(&upd);
    bson_destroy(&extra);
    mongoc_find_and_modify_opts_destroy(fam);
    return rc;
}

static int64_t reply_int(const bson_t *reply, const char *key)
{
    bson_iter_t it;
    return bson_iter_init_find(&it, reply, key) && BSON_ITER_HOLDS_NUMBER(&it) ? bson_iter_as_int64(&it) : 0;
}

static int mg_delete(struct kh_store_backend *b, const char *coll, const char *id, struct kytos_error *err)
{
    struct mg_store *s = (struct mg_store *)b;
    struct mg_call c;
    bson_t filter, reply;
    bson_error_t e;
    int rc = 0;

    id_filter(&filter, id);
    call_begin(s, coll, &c);
    if (!mongoc_collection_delete_one(c.coll, &filter, NULL, &reply, &e))
        rc = mg_fail(&e, err, coll, "delete");
    else if (reply_int(&reply, "deletedCount") == 0)
        rc = kh_store_err(err, KYTOS_ENOTFOUND, "no document '%.200s' in '%s'", id, coll);
    call_end(s, &c);
    bson_destroy(&reply);
    bson_destroy(&filter);
    return rc;
}

/* ---- find ---- */

struct mg_cursor {
    struct kytos_cursor base;
    struct mg_store *s;
    struct mg_call c;
    mongoc_cursor_t *cur;
    bson_t *pending;              /* the first document, read by find */
    bool done;                    /* find read the end: no next (libmongoc errs on it) */
    char coll[KH_STORE_MAX_COLL + 1];
};

static int mg_cursor_next(kytos_cursor *cc, struct json_object **out, struct kytos_error *err)
{
    struct mg_cursor *c = (struct mg_cursor *)cc;
    const bson_t *doc;
    bson_error_t e;

    *out = NULL;
    if (c->pending) {
        *out = from_bson(c->pending, c->coll, err);
        bson_destroy(c->pending);
        c->pending = NULL;
        return *out ? 1 : KYTOS_EIO;
    }
    if (c->done)
        return 0;
    if (mongoc_cursor_next(c->cur, &doc))
        return (*out = from_bson(doc, c->coll, err)) ? 1 : KYTOS_EIO;
    if (mongoc_cursor_error(c->cur, &e))
        return mg_fail(&e, err, c->coll, "find");
    return 0;
}

static void mg_cursor_free(kytos_cursor *cc)
{
    struct mg_cursor *c = (struct mg_cursor *)cc;

    if (c->pending)
        bson_destroy(c->pending);
    mongoc_cursor_destroy(c->cur);
    call_end(c->s, &c->c);
    free(c);
}

static int mg_find(struct kh_store_backend *b, const char *coll, const struct kytos_find *q, kytos_cursor **out,
                   struct kytos_error *err)
{
    struct mg_store *s = (struct mg_store *)b;
    struct kh_filter *f = NULL;
    struct kh_sort *sort = NULL;
    struct kh_proj *proj = NULL;
    struct mg_cursor *c;
    bson_t filter = BSON_INITIALIZER, opts = BSON_INITIALIZER, child;
    const bson_t *first;
    bson_error_t e;
    int rc;

    *out = NULL;
    /* the embedded store's checks: the same errors on both backends */
    if ((rc = kh_filter_compile(q->filter, &f, err)) < 0 || (rc = kh_sort_compile(q->sort, &sort, err)) < 0 ||
        (rc = kh_proj_compile(q->projection, &proj, err)) < 0)
        goto out;
    if ((rc = to_bson(&filter, q->filter, err)) < 0)
        goto out;
    /* ties in _id order, as on the embedded store */
    bson_append_document_begin(&opts, "sort", 4, &child);
    if (q->sort)
        kh_bson_append_object(&child, q->sort);
    if (!q->sort || !json_object_object_get_ex(q->sort, "_id", NULL))
        BSON_APPEND_INT32(&child, "_id", 1);
    bson_append_document_end(&opts, &child);
    if (q->skip)
        BSON_APPEND_INT64(&opts, "skip", q->skip);
    if (q->limit)
        BSON_APPEND_INT64(&opts, "limit", q->limit);
    if (proj) {
        bson_append_document_begin(&opts, "projection", 10, &child);
        kh_bson_append_object(&child, q->projection);
        bson_append_document_end(&opts, &child);
    }
    add_max_time(&opts, s->op_timeout_ms);
    if (!(c = calloc(1, sizeof(*c)))) {
        rc = kh_store_err(err, KYTOS_ENOMEM, "out of memory");
        goto out;
    }
    c->base.next = mg_cursor_next;
    c->base.free = mg_cursor_free;
    c->s = s;
    snprintf(c->coll, sizeof(c->coll), "%s", coll);
    call_begin(s, coll, &c->c);
    c->cur = mongoc_collection_find_with_opts(c->c.coll, &filter, &opts, NULL);
    /* run the query now: a bad query or a dead server fails find itself */
    if (mongoc_cursor_next(c->cur, &first)) {
        c->pending = bson_copy(first);
    } else if (mongoc_cursor_error(c->cur, &e)) {
        rc = mg_fail(&e, err, coll, "find");
        mg_cursor_free(&c->base);
        goto out;
    } else {
        /* nothing matched: a second mongoc_cursor_next on this cursor would
         * fail ("Cannot advance a completed or failed cursor") */
        c->done = true;
    }
    *out = &c->base;
out:
    kh_filter_free(f);
    kh_sort_free(sort);
    kh_proj_free(proj);
    bson_destroy(&filter);
    bson_destroy(&opts);
    return rc;
}

static int mg_count(struct kh_store_backend *b, const char *coll, struct json_object *filter, int64_t *out,
                    struct kytos_error *err)
{
    struct mg_store *s = (struct mg_store *)b;
    struct kh_filter *f = NULL;
    struct mg_call c;
    bson_t fb = BSON_INITIALIZER, opts = BSON_INITIALIZER;
    bson_error_t e;
    int64_t n;
    int rc;

    *out = 0;
    if ((rc = kh_filter_compile(filter, &f, err)) < 0)
        goto out;
    kh_filter_free(f);
    if ((rc = to_bson(&fb, filter, err)) < 0)
        goto out;
    add_max_time(&opts, s->op_timeout_ms);
    call_begin(s, coll, &c);
    n = mongoc_collection_count_documents(c.coll, &fb, &opts, NULL, NULL, &e);
    call_end(s, &c);
    if (n < 0)
        rc = mg_fail(&e, err, coll, "count");
    else
        *out = n;
out:
    bson_destroy(&fb);
    bson_destroy(&opts);
    return rc;
}

static int mg_bulk(struct kh_store_backend *b, const char *coll, const struct kytos_write *ops, size_t n,
                   struct kytos_error *err)
{
    struct mg_store *s = (struct mg_store *)b;
    struct mg_call c;
    mongoc_bulk_operation_t *bulk;
    bson_t bopts = BSON_INITIALIZER, reply;
    bson_error_t e;
    size_t patches = 0;
    int rc = 0;

    BSON_APPEND_BOOL(&bopts, "ordered", true);
    call_begin(s, coll, &c);
    bulk = mongoc_collection_create_bulk_operation_with_opts(c.coll, &bopts);
    for (size_t k = 0; k < n && rc == 0; k++) {
        bson_t d, filter, o = BSON_INITIALIZER;
        bool ok = true;
        struct kytos_error oe = {0};
        id_filter(&filter, ops[k].id);
        switch (ops[k].op) {
        case KYTOS_WRITE_PUT:
        case KYTOS_WRITE_INSERT:
            if ((rc = doc_bson(&d, ops[k].id, ops[k].doc, &oe)) < 0)
                break;
            if (ops[k].op == KYTOS_WRITE_INSERT) {
                ok = mongoc_bulk_operation_insert_with_opts(bulk, &d, NULL, &e);
            } else {
                BSON_APPEND_BOOL(&o, "upsert", true);
                ok = mongoc_bulk_operation_replace_one_with_opts(bulk, &filter, &d, &o, &e);
            }
            bson_destroy(&d);
            break;
        case KYTOS_WRITE_PATCH:
            bson_init(&d);
            if ((rc = to_bson(&d, ops[k].doc, &oe)) == 0) {
                BSON_APPEND_BOOL(&o, "upsert", (ops[k].flags & KYTOS_STORE_UPSERT) != 0);
                ok = mongoc_bulk_operation_update_one_with_opts(bulk, &filter, &d, &o, &e);
                if (!(ops[k].flags & KYTOS_STORE_UPSERT))
                    patches++;
            }
            bson_destroy(&d);
            break;
        default:
            ok = mongoc_bulk_operation_remove_one_with_opts(bulk, &filter, NULL, &e);
        }
        if (rc == 0 && !ok)
            rc = kh_store_err(&oe, KYTOS_EINVAL, "%s", e.message);
        if (rc < 0)
            kh_store_err(err, rc, "bulk op %zu ('%.100s'): %s", k, ops[k].id, oe.message);
        bson_destroy(&filter);
        bson_destroy(&o);
    }
    if (rc == 0) {
        if (!mongoc_bulk_operation_execute(bulk, &reply, &e)) {
            bson_iter_t it, we, doc;
            int64_t index = -1;
            /* writeErrors[0].index names the op that failed */
            if (bson_iter_init_find(&it, &reply, "writeErrors") && bson_iter_recurse(&it, &we) &&
                bson_iter_next(&we) && bson_iter_recurse(&we, &doc) && bson_iter_find(&doc, "index"))
                index = bson_iter_as_int64(&doc);
            rc = mg_fail(&e, err, coll, "bulk write");
            if (index >= 0 && (size_t)index < n) {
                struct kytos_error tmp = *err;
                kh_store_err(err, rc, "bulk op %" PRId64 " ('%.100s'): %s", index, ops[index].id, tmp.message);
            }
        } else if (patches && (size_t)reply_int(&reply, "nMatched") + (size_t)reply_int(&reply, "nUpserted") <
                                  patches) {
            /* MongoDB does not fail an update that matched nothing */
            rc = kh_store_err(err, KYTOS_ENOTFOUND, "bulk on '%s': a patched document was missing (the other "
                              "operations were applied)", coll);
        }
        bson_destroy(&reply);
    }
    mongoc_bulk_operation_destroy(bulk);
    call_end(s, &c);
    bson_destroy(&bopts);
    return rc;
}

static int mg_index(struct kh_store_backend *b, const char *coll, const char *name, struct json_object *keys,
                    unsigned flags, struct kytos_error *err)
{
    struct mg_store *s = (struct mg_store *)b;
    struct mg_call c;
    bson_t cmd = BSON_INITIALIZER, arr, ix, kb, reply;
    bson_error_t e;
    int n, rc = 0;

    if (!json_object_is_type(keys, json_type_object) || (n = json_object_object_length(keys)) == 0 ||
        n > KH_STORE_MAX_INDEX_KEYS)
        return kh_store_err(err, KYTOS_EINVAL, "index keys must be an object of 1 to %d {\"field\": 1}",
                            KH_STORE_MAX_INDEX_KEYS);
    json_object_object_foreach(keys, key, val) {
        struct kh_path p;
        int64_t d = json_object_is_type(val, json_type_int) ? json_object_get_int64(val) : 0;
        if (d != 1 && d != -1)
            return kh_store_err(err, KYTOS_EINVAL, "index key '%.100s' must be 1 or -1", key);
        if (kh_path_parse(&p, key, "index key", err) < 0) {
            if (err)
                err->code = KYTOS_EINVAL;
            return KYTOS_EINVAL;
        }
    }
    BSON_APPEND_UTF8(&cmd, "createIndexes", coll);
    bson_append_array_begin(&cmd, "indexes", 7, &arr);
    bson_append_document_begin(&arr, "0", 1, &ix);
    bson_append_document_begin(&ix, "key", 3, &kb);
    kh_bson_append_object(&kb, keys);
    bson_append_document_end(&ix, &kb);
    BSON_APPEND_UTF8(&ix, "name", name);
    if (flags & KYTOS_STORE_UNIQUE)
        BSON_APPEND_BOOL(&ix, "unique", true);
    bson_append_document_end(&arr, &ix);
    bson_append_array_end(&cmd, &arr);
    BSON_APPEND_INT64(&cmd, "maxTimeMS", s->idx_timeout_ms);
    call_begin(s, coll, &c);
    if (!mongoc_collection_write_command_with_opts(c.coll, &cmd, NULL, &reply, &e)) {
        if (e.code == 85) /* IndexOptionsConflict: these keys are indexed under another name */
            rc = 0;
        else if (e.code == 86) /* IndexKeySpecsConflict */
            rc = kh_store_err(err, KYTOS_EEXIST, "index '%s' on '%s' exists with other keys or options (%s)",
                              name, coll, e.message);
        else if ((rc = mg_fail(&e, err, coll, "index")) == KYTOS_EEXIST)
            kh_store_err(err, rc, "cannot create unique index '%s' on '%s': documents share a key", name, coll);
    }
    call_end(s, &c);
    bson_destroy(&reply);
    bson_destroy(&cmd);
    return rc;
}

static const struct kh_store_ops mg_ops = {
    .name = "mongodb",
    .close = mg_close,
    .status = mg_status,
    .get = mg_get,
    .put = mg_put,
    .patch = mg_patch,
    .del = mg_delete,
    .find = mg_find,
    .count = mg_count,
    .bulk = mg_bulk,
    .index = mg_index,
};

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

int kh_store_mongo_open(struct kh_store_backend **out, const struct kh_store_opts *opts, struct kytos_error *err)
{
    struct mg_store *s;
    bson_error_t e;
    int rc;

    *out = NULL;
    pthread_once(&mg_once, mg_init_once);
    if (opts && opts->log) {
        pthread_mutex_lock(&mg_log_mu);
        mg_log_fn = opts->log;
        mg_log_ud = opts->log_ud;
        pthread_mutex_unlock(&mg_log_mu);
    }
    if (!(s = calloc(1, sizeof(*s))))
        return kh_store_err(err, KYTOS_ENOMEM, "out of memory");
    s->base.ops = &mg_ops;
    if ((rc = build_uri(s, opts, err)) < 0)
        goto fail;
    if (!(s->pool = mongoc_client_pool_new_with_error(s->uri, &e))) {
        rc = kh_store_err(err, KYTOS_EINVAL, "MongoDB client: %s", e.message);
        goto fail;
    }
    mongoc_client_pool_set_error_api(s->pool, MONGOC_ERROR_API_VERSION_2);
    if (opts && opts->wait_for_server) {
        int tries = opts->wait_tries > 0 ? opts->wait_tries : 12;
        int interval = opts->wait_interval_ms > 0 ? opts->wait_interval_ms : 10000;
        for (int k = 1;; k++) {
            if (ping(s, &e) == 0) {
                kh_store_logf(opts, 20, "store: MongoDB at %s is up (database %s)", s->seeds, s->dbname);
                break;
            }
            if (k == tries) {
                rc = kh_store_err(err, KYTOS_EUNAVAIL, "MongoDB at %s did not answer after %d tries: %s", s->seeds,
                                  tries, e.message);
                goto fail;
            }
            kh_store_logf(opts, 30, "store: waiting for MongoDB at %s (try %d of %d): %s", s->seeds, k, tries,
                          e.message);
            sleep_ms(interval);
        }
    }
    *out = &s->base;
    return 0;
fail:
    mg_close(&s->base);
    return rc;
}
