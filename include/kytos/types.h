/* kytos/types.h - opaque handles and the option structs of the ABI.
 *
 * NApps only ever hold pointers to the opaque handles.  The option structs
 * a NApp passes in all begin with uint32_t struct_size so that fields can be
 * appended later: always fill them with a compound literal, e.g.
 *     &(struct kytos_route){ .struct_size = sizeof(struct kytos_route), ... }
 * Two structs have no size and never change within ABI major 1: struct
 * kytos_write (passed as an array, whose stride must not change) and
 * struct kytos_error (errors.h; filled by the host).  Growing either takes
 * a new struct and new slots.
 */
#ifndef KYTOS_TYPES_H
#define KYTOS_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#ifdef __cplusplus
extern "C" {
#endif

/* obj[key] = val for a key that is a string literal and new in obj: json-c
 * keeps the pointer instead of a copy and skips its duplicate lookup (the
 * "" makes anything but a literal a compile error).  Safe in a NApp: once
 * its init has run, the host never unmaps its file, even when it is
 * unloaded or replaced, so the literal outlives every object naming it.
 * (A copy of such an object, json_object_deep_copy, copies the key.) */
#define kytos_json_add_lit(obj, key, val)                                                    \
    json_object_object_add_ex((obj), "" key, (val),                                          \
                              JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT)

typedef struct kytos_napp kytos_napp;         /* one loaded NApp */
typedef struct kytos_req kytos_req;           /* one HTTP request (or kytos_call) */
typedef struct kytos_response kytos_response; /* the answer of kytos_call */
typedef struct kytos_event kytos_event;       /* one KytosEvent */
typedef struct kytos_cursor kytos_cursor;     /* results of kytos_store_find */
typedef struct kytos_conn kytos_conn;         /* one switch connection (conn.h, ABI 1.3) */
struct kytos_conn_handler;                    /* conn.h */
struct kytos_conn_info;                       /* conn.h */

/* ---- log levels: Python's numbers, as in Kytos' logging.ini ---- */
enum kytos_log_level {
    KYTOS_LOG_DEBUG = 10,
    KYTOS_LOG_INFO = 20,
    KYTOS_LOG_WARNING = 30,
    KYTOS_LOG_ERROR = 40,
    KYTOS_LOG_CRITICAL = 50
};

/* ---- routes ---- */
typedef int (*kytos_handler)(kytos_req *req, void *ud);

enum kytos_route_flags {
    KYTOS_ROUTE_INLINE = 1u << 0,      /* runs on the I/O thread: must never block */
    KYTOS_ROUTE_VALIDATE = 1u << 1,    /* check against the NApp's OpenAPI operation */
    KYTOS_ROUTE_NO_VALIDATE = 1u << 2, /* opt out when the NApp validates all */
    KYTOS_ROUTE_AUTH = 1u << 3,        /* require a Bearer token */
    KYTOS_ROUTE_RAW_BODY = 1u << 4     /* do not parse the body as JSON */
};

struct kytos_route {
    uint32_t struct_size;      /* sizeof(struct kytos_route) */
    const char *method;        /* "GET", "POST", "PUT", "PATCH", "DELETE" */
    const char *path;          /* relative to /api/<user>/<name>/, e.g. "v2/evc/{circuit_id}" */
    kytos_handler handler;
    void *ud;                  /* passed to the handler */
    uint32_t flags;            /* enum kytos_route_flags */
    const char *pool;          /* worker pool, NULL = "api" */
    size_t max_body;           /* 0 = host default (kytos.conf api_max_body) */
    uint32_t timeout_ms;       /* handler deadline, 0 = host default */
    const char *operation;     /* OpenAPI binding "METHOD /path" or operationId; NULL = by template */
};

/* ---- events ---- */
typedef int (*kytos_event_handler)(kytos_napp *napp, const kytos_event *ev, void *ud);

struct kytos_sub {
    uint32_t struct_size;      /* sizeof(struct kytos_sub) */
    const char *pattern;       /* regex that must match the whole name */
    kytos_event_handler handler;
    void *ud;
    const char *pool;          /* "app", "sb", "db", a configured pool, "dynamic_single",
                                  "inline" (ABI 1.1, see event.h);
                                  NULL = Kytos' default routing by event name */
};

struct kytos_pub_opts {
    uint32_t struct_size;      /* sizeof(struct kytos_pub_opts) */
    int priority;              /* lower runs first (KytosEvent.priority), default 0 */
    const char *buffer;        /* "app" (default), "msg_in", "msg_out", "conn", "raw", "meta" */
    int timeout_ms;            /* when the buffer is full: 0 = fail at once with KYTOS_EFULL,
                                  >0 = wait that long then KYTOS_ETIMEDOUT, -1 = wait forever */
};

enum kytos_pace_flags {
    KYTOS_PACE_NOWAIT = 1u << 0    /* return KYTOS_EFULL instead of sleeping */
};

typedef void (*kytos_timer_fn)(kytos_napp *napp, void *ud);

/* ---- store ---- */
enum kytos_store_flags {
    KYTOS_STORE_UPSERT = 1u << 0,  /* patch: create the document when missing */
    KYTOS_STORE_UNIQUE = 1u << 1   /* index: unique */
};

struct kytos_find {
    uint32_t struct_size;          /* sizeof(struct kytos_find) */
    struct json_object *filter;    /* NULL = all; {"a.b": v, "c": {"$in": [...]}, "d": {"$gte": 1}} */
    struct json_object *sort;      /* NULL or {"field": 1 | -1, ...} in priority order */
    int64_t skip;                  /* 0 = none */
    int64_t limit;                 /* 0 = no limit */
    struct json_object *projection;/* NULL or {"a": 1, "b.c": 1} (inclusion) or {"x": 0} (exclusion) */
    /* Appended (hosts before it copy only struct_size bytes and ignore it). */
    uint32_t flags;                /* enum kytos_find_flags */
};

enum kytos_find_flags {
    /* kytos_cursor_next gives each document as a JSON string whose value is
     * the document's text (projection applied), exactly as
     * json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
     * JSON_C_TO_STRING_NOSLASHESCAPE) would write the object: for answers
     * made of whole documents, without parsing them.  A host that predates
     * the flag gives objects: callers accept both. */
    KYTOS_FIND_TEXT = 1u << 0
};

enum kytos_write_op {
    KYTOS_WRITE_PUT = 1,           /* insert or replace */
    KYTOS_WRITE_INSERT = 2,        /* insert, KYTOS_EEXIST if present */
    KYTOS_WRITE_PATCH = 3,         /* $set/$unset update; flags may hold KYTOS_STORE_UPSERT */
    KYTOS_WRITE_DELETE = 4         /* delete; a missing document is not an error in bulk */
};

/* Fixed layout (see the top of this file). */
struct kytos_write {
    int op;                        /* enum kytos_write_op */
    const char *id;                /* the document's _id */
    struct json_object *doc;       /* PUT/INSERT: document; PATCH: update; DELETE: NULL */
    unsigned flags;                /* enum kytos_store_flags */
};

struct kytos_error;
/* The answer to kytos_store_bulk_async (store.h). */
typedef void (*kytos_store_done_fn)(void *ud, int rc, const struct kytos_error *err);

#ifdef __cplusplus
}
#endif

#endif
