/* host/http/request.h - the request object shared by every transport (HTTP,
 * kytos_call, the test host).
 *
 * A request is refcounted: the transport holds one reference, the worker
 * running the handler another, and a deferred handler keeps the worker's
 * until kytos_req_finish.  State changes and response writes happen under
 * the request's mutex, so a handler that answers after the deadline (504)
 * writes into a request that nobody reads any more, safely. */
#ifndef KH_REQUEST_H
#define KH_REQUEST_H

#include "util/base.h"
#include "http/req_api.h"
#include "http/router.h"
#include "auth/auth.h"
#include <pthread.h>
#include <stdatomic.h>

#define KH_MAX_SEGS 64
#define KH_MAX_RESP_HEADERS 16

enum kh_req_state {
    KH_REQ_NEW = 0,       /* not yet dispatched */
    KH_REQ_RUNNING,       /* handler running */
    KH_REQ_DEFERRED,      /* handler returned DEFERRED, waiting for finish */
    KH_REQ_COMPLETED,     /* response final, transport told */
    KH_REQ_TIMED_OUT      /* 504 sent; late answers are dropped */
};

struct kh_transport {
    /* Header lookup (case-insensitive), NULL if absent. */
    const char *(*header)(const kytos_req *req, const char *name);
    /* The response is final: send it.  Called exactly once, any thread. */
    void (*complete)(kytos_req *req);
};

struct kh_resp_header {
    char *name, *value;
};

struct kh_arena_chunk {
    struct kh_arena_chunk *next;
    size_t used, cap;
    _Alignas(16) char data[];
};

struct kh_query_pair {
    char *key, *value;
};

/* A header a handler looked up, copied (name and value follow it). */
struct kh_header_copy {
    struct kh_header_copy *next;
    const char *name, *value;   /* value NULL: the request has none */
};

struct kh_http_ctx;

struct kytos_req {
    struct kh_http_ctx *ctx;    /* limits, counters, pools (http_ctx.h) */
    const struct kh_transport *tp;
    void *tp_ctx;
    atomic_int refs;
    pthread_mutex_t mu;
    int state;                  /* enum kh_req_state */
    int finished_early;         /* kytos_req_finish ran inside the handler */

    char method[16];
    char *path;                 /* decoded path, no query */
    char *raw_query;            /* after '?', raw, or NULL */
    char *segs[KH_MAX_SEGS];
    size_t nsegs;
    struct kh_match match;
    int matched;

    char *body;                 /* raw body (malloc'd), NUL-terminated */
    size_t body_len, body_cap, body_limit;
    int body_too_big;
    struct json_object *json;   /* parsed body */
    int body_given;             /* json is a tree an in-process call gave
                                 * (kytos_call_give): body holds its text
                                 * only once a handler asks for it */
    struct json_object *typed;  /* OpenAPI-coerced parameters {name: value} */

    struct kh_query_pair *query;
    size_t nquery;
    int query_parsed;
    struct kh_header_copy *headers_seen;   /* kh_req_header's copies (under mu) */

    unsigned status;            /* 0 = no response yet */
    char content_type[96];
    char *resp_body;            /* malloc'd, or borrowed when resp_release is set */
    size_t resp_len;
    void (*resp_release)(void *ud);  /* kytos_resp_static: give the body back */
    void *resp_release_ud;
    int resp_static;            /* resp_body is borrowed */
    struct kh_resp_header resp_headers[KH_MAX_RESP_HEADERS];
    size_t nresp_headers;
    int close_connection;       /* add Connection: close */
    struct kh_stream *stream;   /* a streamed body (kh_resp_stream), or NULL */

    int64_t deadline_ns;        /* CLOCK_MONOTONIC, 0 = none */
    int64_t start_ns;           /* CLOCK_MONOTONIC at arrival */
    int admitted;               /* counted for the overload governor */
    kytos_req *wprev, *wnext;   /* the watchdog's list */
    int in_watch;
    int counted_inflight;
    char peer[64];              /* client address, for logs and rate limits */
    unsigned peer_port;         /* its port (HTTP), for the audit trail */
    struct kh_identity ident;   /* who the token says the caller is (auth/) */

    struct kh_arena_chunk *arena;
    _Alignas(16) char arena_inline[2048];
    size_t arena_inline_used;
};

kytos_req *kh_req_new(struct kh_http_ctx *ctx, const struct kh_transport *tp, void *tp_ctx);
void kh_req_ref(kytos_req *r);
void kh_req_unref(kytos_req *r);

/* Set method and target ("/a/b%20c?x=1").  0, or 400 with the reason in err. */
int kh_req_set_target(kytos_req *r, const char *method, const char *target, char *err,
                      size_t errlen);
/* Append body bytes with the cap (body_limit); sets body_too_big past it. */
void kh_req_append_body(kytos_req *r, const char *data, size_t len);

/* Drop the response body (free it, or hand a static one back). */
void kh_req_drop_body(kytos_req *r);
int kh_resp_static(kytos_req *r, unsigned status, const char *ctype, const void *data, size_t len,
                   void (*release)(void *ud), void *ud);
/* A streamed body (http/stream.h): status, type, and a reference on s
 * that the transport takes over; what is written to s is sent as it
 * comes. */
int kh_resp_stream(kytos_req *r, unsigned status, const char *ctype, struct kh_stream *s);
/* Set a response while the handler is not involved (errors of the core). */
void kh_req_set_error(kytos_req *r, unsigned status, const char *description);
/* uvicorn's plain 503 with Connection: close and Retry-After. */
void kh_req_set_overload(kytos_req *r, unsigned status, const char *text, int retry_after);
/* Add a header without the state check; the caller holds r->mu. */
void kh_resp_header_force(kytos_req *r, const char *name, const char *value);
/* Strict JSON (json_strict.c): 0 and *out (NULL for the text "null"), or
 * -1 with a Python-json-like message. */
int kh_json_parse_strict(const char *text, size_t len, struct json_object **out, char *err,
                         size_t errlen);
/* Serialise JSON the way Kytos does (compact, UTF-8 as is). */
char *kh_json_dump(struct json_object *o, size_t *len);

#endif
