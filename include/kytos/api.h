/* kytos/api.h - the NApp descriptor and the host function table.
 *
 * A NApp is one shared object exporting one data symbol, kytos_napp_desc,
 * filled by KYTOS_NAPP_DEFINE().  The host checks the descriptor (magic, ABI
 * major and minor, build signature, unique username/name, dependencies)
 * before it runs any of the NApp's code, then calls init() with the table
 * below.  NApps reach the host only through that table, via the inline
 * wrappers in http.h, event.h, store.h and log.h.
 *
 * Append-only: slots are never reordered or reused; a new slot bumps
 * KYTOS_ABI_MINOR (host/napps/api_layout.h freezes every offset).
 *
 * Versions (the model of SQLite's and Redis' extension tables): a NApp
 * declares the lowest ABI minor it needs, KYTOS_NAPP_ABI_MIN_MINOR, which
 * defaults to the minor of the headers it was built with.  The host loads
 * any NApp of its ABI major whose minimum it meets, and refuses the rest
 * with a log line naming both versions.  A NApp that declares an older
 * minimum than its headers' must probe every newer slot it uses with
 * KYTOS_API_HAS(slot) (the slot's ABI is named beside it below) and do
 * without it when the host is older:
 *
 *     #define KYTOS_NAPP_ABI_MIN_MINOR 0     (before including kytos.h,
 *     #include <kytos/kytos.h>                or -DKYTOS_NAPP_ABI_MIN_MINOR=0)
 *     ...
 *     if (KYTOS_API_HAS(event_publish_give))  (ABI 1.2)
 *         kytos_event_publish_give(napp, name, content, NULL);
 *     else { kytos_event_publish(napp, name, content, NULL); json_object_put(content); }
 *
 * Sizes: every struct that crosses the ABI and may grow starts with
 * uint32_t struct_size (sizeof as its builder saw it).  struct kytos_write
 * and struct kytos_error are fixed for the life of ABI major 1 (passed as
 * arrays or filled by the host): a change to them takes new slots.
 *
 * Life cycle: init, then start once the server is up, then stop when the
 * NApp unloads.  When init fails (or the host refuses the NApp after it)
 * stop is not called; a NApp frees such state through napp_set_data_full's
 * release function (ABI 1.3), which runs in every case.
 *
 * Thread rules: init/start/stop run on the host's main thread, one NApp at a
 * time.  route_add only works inside init.  Everything else is thread safe
 * and may be called from any thread, including the NApp's own.
 */
#ifndef KYTOS_API_H
#define KYTOS_API_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "version.h"
#include "errors.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KYTOS_NAPP_MAGIC 0x4B59544Eu /* "KYTN" */

/* The lowest ABI minor this NApp needs (see above).  Define it before
 * including any kytos header to run on older hosts. */
#ifndef KYTOS_NAPP_ABI_MIN_MINOR
#define KYTOS_NAPP_ABI_MIN_MINOR KYTOS_ABI_MINOR
#endif

enum kytos_napp_flags {
    KYTOS_NAPP_VALIDATE_ALL = 1u << 0 /* every route bound to its OpenAPI operation */
};

struct kytos_api;

struct kytos_napp_desc {
    uint32_t magic;              /* KYTOS_NAPP_MAGIC */
    uint16_t abi_major;          /* KYTOS_ABI_MAJOR of the headers used */
    uint16_t abi_min_minor;      /* the lowest ABI minor this NApp needs:
                                    KYTOS_NAPP_ABI_MIN_MINOR (NApps built
                                    before it existed hold their headers'
                                    minor here, which it defaults to) */
    uint32_t struct_size;        /* sizeof(struct kytos_napp_desc) */
    uint32_t flags;              /* enum kytos_napp_flags */
    const char *build_sig;       /* KYTOS_BUILD_SIGNATURE */
    const char *username;        /* "kytos" */
    const char *name;            /* "mef_eline" */
    const char *version;         /* "2025.2.0" */
    const char *const *deps;     /* NULL-terminated "user/name" list, or NULL */
    const char *openapi;         /* embedded OpenAPI text (YAML or JSON), NUL-terminated, or NULL */
    size_t openapi_len;          /* 0: see openapi_len_fn */
    /* init: register routes and subscriptions, build state.  Return KYTOS_OK
     * or an error; on error set *errmsg (kytos_malloc'd, the host frees it). */
    int (*init)(kytos_napp *napp, const struct kytos_api *api, char **errmsg);
    /* start: the server is up (Kytos' execute()).  May be NULL. */
    int (*start)(kytos_napp *napp);
    /* stop: shutdown.  No handler of this NApp runs after it returns.  May be NULL. */
    void (*stop)(kytos_napp *napp);
    /* The spec's length in bytes (kytos-embed's NAME_len), or 0 for
     * strlen(openapi); NULL = strlen.  A function because the length of a
     * spec in another object file is no constant expression.  (Was
     * reserved[0]: older NApps hold NULL here, older hosts ignore it.) */
    size_t (*openapi_len_fn)(void);
    void *reserved[7];           /* zero */
};

/* A NApp's ui/ files, carried in its .so as its spec is (docs/ui.md).  Not
 * part of the descriptor nor of the function table (no ABI slot): the NApp
 * exports one more data symbol, kytos_napp_ui, and the host looks it up
 * with dlsym when it loads the NApp.  `kytos-embed --ui DIR FILE...`
 * writes it.  A host that does not know the symbol ignores it (the files
 * are then not served); a table that breaks the rules below makes the host
 * refuse the NApp, naming what was wrong.  Served at
 * /ui/{username}/{name}/{path}; a file of the same path on disk, under
 * <napps>/{username}/{name}/ui/, wins. */
#define KYTOS_NAPP_UI_MAGIC 0x4B595549u      /* "KYUI" */
#define KYTOS_NAPP_UI_MAX_FILES 1024u
#define KYTOS_NAPP_UI_MAX_NAME 1024u         /* bytes of a path, each '/' part 1..255 */
#define KYTOS_NAPP_UI_MAX_TOTAL (64u << 20)  /* bytes of all the files */

struct kytos_napp_ui_file {
    const char *path;            /* under ui/: "k-toolbar/main.kytos"; no "."/".."
                                    or dot-file part, no '\\' or control byte */
    const char *data;            /* its bytes (NULL only when len is 0) */
    size_t len;
};

struct kytos_napp_ui {
    uint32_t magic;              /* KYTOS_NAPP_UI_MAGIC */
    uint32_t struct_size;        /* sizeof(struct kytos_napp_ui) */
    uint32_t count;              /* files[0..count-1], at most KYTOS_NAPP_UI_MAX_FILES */
    const struct kytos_napp_ui_file *files;
};

struct kytos_api {
    uint32_t struct_size;        /* sizeof(struct kytos_api) as built by the host */
    uint16_t abi_major, abi_minor; /* the host's ABI */

    /* ---- ABI 1.0: memory ---- */
    void *(*malloc)(size_t n);
    void (*free)(void *p);
    const char *(*strerror)(int status);

    /* ---- ABI 1.0: NApp ---- */
    const char *(*napp_id)(const kytos_napp *napp);           /* "user/name" */
    void (*napp_set_data)(kytos_napp *napp, void *data);
    void *(*napp_data)(const kytos_napp *napp);
    /* Borrowed settings object: the kytos.conf section [user/name], values
     * parsed as JSON.  Never NULL (empty object when absent). */
    struct json_object *(*napp_settings)(const kytos_napp *napp);

    /* ---- ABI 1.0: log ---- */
    void (*logv)(const kytos_napp *napp, int level, const char *fmt, va_list ap);
    int (*log_enabled)(const kytos_napp *napp, int level);

    /* ---- ABI 1.0: routes (init only) ---- */
    int (*route_add)(kytos_napp *napp, const struct kytos_route *route);

    /* ---- ABI 1.0: request accessors (borrowed results, valid until the
     *      response is sent) ---- */
    const char *(*req_method)(const kytos_req *req);
    const char *(*req_path)(const kytos_req *req);            /* decoded, no query */
    const char *(*req_param)(const kytos_req *req, const char *name);
    int (*req_param_int)(const kytos_req *req, const char *name, int64_t *out);
    int (*req_param_double)(const kytos_req *req, const char *name, double *out);
    const char *(*req_query)(const kytos_req *req, const char *name);
    size_t (*req_query_all)(const kytos_req *req, const char *name, const char **out, size_t max);
    struct json_object *(*req_query_json)(const kytos_req *req, const char *name); /* OpenAPI-typed */
    const char *(*req_header)(const kytos_req *req, const char *name);  /* case-insensitive */
    const void *(*req_body)(const kytos_req *req, size_t *len);
    struct json_object *(*req_json)(const kytos_req *req);    /* parsed body or NULL */
    void *(*req_alloc)(kytos_req *req, size_t n);             /* freed with the request */
    kytos_napp *(*req_napp)(const kytos_req *req);

    /* ---- ABI 1.0: responses (each replaces an earlier one) ---- */
    int (*resp_json)(kytos_req *req, unsigned status, struct json_object *body);      /* borrowed */
    int (*resp_raw)(kytos_req *req, unsigned status, const char *content_type,
                    const void *data, size_t len);                                  /* copied */
    int (*resp_errorv)(kytos_req *req, unsigned status, const char *fmt, va_list ap);
    int (*resp_header)(kytos_req *req, const char *name, const char *value);
    int (*req_finish)(kytos_req *req);       /* deferred requests: any thread, exactly once */

    /* ---- ABI 1.0: in-process calls ---- */
    int (*call)(kytos_napp *caller, const char *method, const char *path,
                const char *body, size_t len, kytos_response **out);
    unsigned (*response_status)(const kytos_response *r);
    const char *(*response_body)(const kytos_response *r, size_t *len);
    struct json_object *(*response_json)(kytos_response *r);   /* borrowed, parsed once */
    const char *(*response_header)(const kytos_response *r, const char *name);
    void (*response_free)(kytos_response *r);

    /* ---- ABI 1.0: events ---- */
    int (*event_subscribe)(kytos_napp *napp, const struct kytos_sub *sub);
    int (*event_publish)(kytos_napp *napp, const char *name, struct json_object *content,
                         const struct kytos_pub_opts *opts);
    const char *(*event_name)(const kytos_event *ev);
    struct json_object *(*event_content)(const kytos_event *ev);
    const char *(*event_id)(const kytos_event *ev);
    int64_t (*event_time_us)(const kytos_event *ev);
    int (*event_priority)(const kytos_event *ev);
    int (*event_reinjections)(const kytos_event *ev);
    int (*pace)(kytos_napp *napp, const char *action, const char *key, const char *rate,
                unsigned flags);
    int (*timer_add)(kytos_napp *napp, unsigned interval_ms, kytos_timer_fn fn, void *ud);

    /* ---- ABI 1.0: store ---- */
    int (*store_get)(kytos_napp *napp, const char *coll, const char *id,
                     struct json_object **out, struct kytos_error *err);
    int (*store_put)(kytos_napp *napp, const char *coll, const char *id,
                     struct json_object *doc, struct kytos_error *err);
    int (*store_insert)(kytos_napp *napp, const char *coll, const char *id,
                        struct json_object *doc, struct kytos_error *err);
    int (*store_patch)(kytos_napp *napp, const char *coll, const char *id,
                       struct json_object *update, unsigned flags,
                       struct json_object **out, struct kytos_error *err);
    int (*store_delete)(kytos_napp *napp, const char *coll, const char *id,
                        struct kytos_error *err);
    int (*store_find)(kytos_napp *napp, const char *coll, const struct kytos_find *q,
                      kytos_cursor **out, struct kytos_error *err);
    int (*cursor_next)(kytos_cursor *c, struct json_object **doc, struct kytos_error *err);
    void (*cursor_free)(kytos_cursor *c);
    int (*store_count)(kytos_napp *napp, const char *coll, struct json_object *filter,
                       int64_t *out, struct kytos_error *err);
    int (*store_bulk)(kytos_napp *napp, const char *coll, const struct kytos_write *ops,
                      size_t n, struct kytos_error *err);
    int (*store_index)(kytos_napp *napp, const char *coll, const char *name,
                       struct json_object *keys, unsigned flags, struct kytos_error *err);

    /* ---- ABI 1.0: zero-copy responses ---- */
    /* Answer with bytes the NApp keeps alive; the host calls release(ud)
     * once they were sent (any thread).  For cached bodies. */
    int (*resp_static)(kytos_req *req, unsigned status, const char *content_type,
                       const void *data, size_t len, void (*release)(void *ud), void *ud);

    /* ---- ABI 1.1: asynchronous writes ---- */
    int (*store_bulk_async)(kytos_napp *napp, const char *coll, const struct kytos_write *ops,
                            size_t n, kytos_store_done_fn done, void *ud,
                            struct kytos_error *err);

    /* ---- ABI 1.2: events without copies ---- */
    int (*event_publish_give)(kytos_napp *napp, const char *name, struct json_object *content,
                              const struct kytos_pub_opts *opts);
    int (*event_wanted)(kytos_napp *napp, const char *name);
    struct json_object *(*event_take_content)(const kytos_event *e);

    /* ---- ABI 1.3: releasing a NApp's state ---- */
    /* Like napp_set_data, and release(napp, data) is called once when the
     * NApp leaves, whatever the way:
     *   - init failed, whatever step failed: init returned an error, or it
     *     succeeded and the host then refused the NApp (a route clash, the
     *     OpenAPI binding).  stop() is NOT called after a failed init: this
     *     is the one way to free what a failed init built.  release runs
     *     after the host undid the NApp's subscriptions, timers and routes;
     *   - the NApp unloads (disable, replacement, file removed, shutdown):
     *     right after stop() returned.
     * Not for a NApp taken out of service because it crashed (its code is
     * not run again).  On the host's main thread.  A later napp_set_data or
     * napp_set_data_full replaces the data and the function (the earlier
     * data is not released); release may be NULL. */
    void (*napp_set_data_full)(kytos_napp *napp, void *data,
                               void (*release)(kytos_napp *napp, void *data));

    /* ---- ABI 1.4: switch connections (conn.h) ---- */
    int (*conn_handle)(kytos_napp *napp, const struct kytos_conn_handler *h);
    void (*conn_ref)(kytos_conn *c);
    void (*conn_unref)(kytos_conn *c);
    kytos_conn *(*conn_get)(kytos_napp *napp, uint64_t id);
    int (*conn_send)(kytos_conn *c, const void *data, size_t len, unsigned flags);
    int (*conn_send_give)(kytos_conn *c, void *data, size_t len, unsigned flags);
    int (*conn_send_notify)(kytos_conn *c, kytos_napp *napp, const void *data, size_t len,
                            unsigned flags, const char *name, struct json_object *content,
                            const struct kytos_pub_opts *opts);
    int (*conn_close)(kytos_conn *c, const char *reason);
    void (*conn_set_data)(kytos_conn *c, void *data);
    void *(*conn_data)(const kytos_conn *c);
    int (*conn_set_state)(kytos_conn *c, int state);
    int (*conn_set_switch)(kytos_conn *c, const char *dpid);
    uint64_t (*conn_id)(const kytos_conn *c);
    int (*conn_info)(const kytos_conn *c, struct kytos_conn_info *out);
    struct json_object *(*conn_json)(const kytos_conn *c);

    /* ---- ABI 1.5: who is calling (docs/auth.md) ---- */
    int (*req_identity)(const kytos_req *req, const char **user, const char **token_id,
                        const char **role);

    /* ---- ABI 1.6: an in-process call whose body is a json-c tree ---- */
    int (*call_give)(kytos_napp *caller, const char *method, const char *path,
                     struct json_object *body, kytos_response **out);   /* body taken */
};

/* The NApp side: one hidden global per NApp, set before its init runs. */
#ifndef KYTOS_HOST
#if defined(__GNUC__)
#define KYTOS__HIDDEN __attribute__((visibility("hidden")))
#define KYTOS__EXPORT __attribute__((visibility("default")))
#else
#define KYTOS__HIDDEN
#define KYTOS__EXPORT
#endif
extern KYTOS__HIDDEN const struct kytos_api *kytos__api;

/* True when the host's table has slot f (and f is set).  Needed only for a
 * slot newer than KYTOS_NAPP_ABI_MIN_MINOR: the host refuses a NApp whose
 * minimum it does not meet, so older slots are always there. */
#define KYTOS_API_HAS(f) \
    (offsetof(struct kytos_api, f) < kytos__api->struct_size && kytos__api->f != NULL)

#define KYTOS_DEPS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define KYTOS_NO_DEPS NULL

/* KYTOS_NAPP_DEFINE(username, name, version, deps, openapi_text, openapi_len,
 *                   flags, init, start, stop)
 * Use once per NApp, in one source file.  openapi_text (NULL for none) must
 * be NUL-terminated (kytos-embed's output is); openapi_len is its length in
 * bytes, any expression (kytos-embed's NAME_len, or 0 for strlen): the
 * host reads it through a function the macro defines.  init has the
 * signature
 *     int init(kytos_napp *napp, char **errmsg);
 * start and stop may be NULL.  The descriptor carries
 * KYTOS_NAPP_ABI_MIN_MINOR. */
#define KYTOS_NAPP_DEFINE(user_, name_, version_, deps_, spec_, spec_len_, flags_, \
                          init_, start_, stop_)                                     \
    KYTOS__HIDDEN const struct kytos_api *kytos__api;                                 \
    static int kytos__init_trampoline(kytos_napp *napp, const struct kytos_api *api,  \
                                      char **errmsg)                                 \
    {                                                                                 \
        kytos__api = api;                                                             \
        return (init_)(napp, errmsg);                                                 \
    }                                                                                 \
    static size_t kytos__openapi_len(void) { return (size_t)(spec_len_); }            \
    KYTOS__EXPORT const struct kytos_napp_desc kytos_napp_desc = {                    \
        .magic = KYTOS_NAPP_MAGIC,                                                    \
        .abi_major = KYTOS_ABI_MAJOR,                                                 \
        .abi_min_minor = KYTOS_NAPP_ABI_MIN_MINOR,                                    \
        .struct_size = sizeof(struct kytos_napp_desc),                                \
        .flags = (flags_),                                                            \
        .build_sig = KYTOS_BUILD_SIGNATURE,                                           \
        .username = (user_),                                                          \
        .name = (name_),                                                              \
        .version = (version_),                                                        \
        .deps = (deps_),                                                              \
        .openapi = (spec_),                                                           \
        .openapi_len = 0,                                                             \
        .init = kytos__init_trampoline,                                               \
        .start = (start_),                                                            \
        .stop = (stop_),                                                              \
        .openapi_len_fn = kytos__openapi_len,                                         \
    }

static inline void *kytos_malloc(size_t n) { return kytos__api->malloc(n); }
static inline void kytos_free(void *p) { kytos__api->free(p); }
static inline const char *kytos_strerror(int status) { return kytos__api->strerror(status); }
static inline const char *kytos_napp_id(const kytos_napp *n) { return kytos__api->napp_id(n); }
static inline void kytos_napp_set_data(kytos_napp *n, void *d) { kytos__api->napp_set_data(n, d); }
static inline void *kytos_napp_data(const kytos_napp *n) { return kytos__api->napp_data(n); }
/* ABI 1.3 (see napp_set_data_full above); KYTOS_ENOTSUP on an older host,
 * where nothing calls release: free the state yourself then. */
static inline int kytos_napp_set_data_full(kytos_napp *n, void *d,
                                           void (*release)(kytos_napp *, void *))
{
    if (!KYTOS_API_HAS(napp_set_data_full))
        return KYTOS_ENOTSUP;
    kytos__api->napp_set_data_full(n, d, release);
    return KYTOS_OK;
}
static inline struct json_object *kytos_napp_settings(const kytos_napp *n)
{
    return kytos__api->napp_settings(n);
}
#endif /* KYTOS_HOST */

#ifdef __cplusplus
}
#endif

#endif
