/* host/http/dispatch.c - the request pipeline every transport shares:
 * route -> admission -> body checks -> OpenAPI checks -> handler (inline or
 * on a pool) -> deadline -> response.  See DESIGN.md, "The request path". */
#include "http/dispatch.h"
#include "auth/auth.h"
#include "http/shed.h"
#include "napps/guard.h"
#include "util/log.h"
#include "http/ratelimit.h"
#include "http/client_group.h"
#include "store/store.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define LOGGER "kytos.core.api_server"

/* ---- watchdog: handler deadlines ---- */

static void watch_add(kytos_req *r)
{
    struct kh_http_ctx *h = r->ctx;
    pthread_mutex_lock(&h->watch_mu);
    r->wprev = NULL;
    r->wnext = h->watch_head;
    if (h->watch_head)
        h->watch_head->wprev = r;
    h->watch_head = r;
    r->in_watch = 1;
    pthread_mutex_unlock(&h->watch_mu);
}

/* Take r off the watch list (watch_mu held, r on it). */
static void unwatch_locked(struct kh_http_ctx *h, kytos_req *r)
{
    if (r->wprev)
        r->wprev->wnext = r->wnext;
    else
        h->watch_head = r->wnext;
    if (r->wnext)
        r->wnext->wprev = r->wprev;
    r->in_watch = 0;
}

static void watch_del(kytos_req *r)
{
    struct kh_http_ctx *h = r->ctx;
    pthread_mutex_lock(&h->watch_mu);
    if (r->in_watch)
        unwatch_locked(h, r);
    pthread_mutex_unlock(&h->watch_mu);
}

static void finish_inflight(kytos_req *r)
{
    if (r->counted_inflight) {
        r->counted_inflight = 0;
        atomic_fetch_sub(&r->ctx->in_flight, 1);
    }
}

/* The response is final: tell the transport.  Caller holds r->mu and has
 * set r->state; this unlocks it. */
static const struct kh_transport call_transport;

static void complete_unlock(kytos_req *r)
{
    pthread_mutex_unlock(&r->mu);
    if (r->ctx->auth && r->tp != &call_transport)
        kh_auth_audit(r->ctx->auth, r);
    watch_del(r);
    if (r->admitted) {
        r->admitted = 0;
        kh_shed_observe(r->ctx, kh_mono_ns() - r->start_ns);
    }
    finish_inflight(r);
    atomic_fetch_add(&r->ctx->served, 1);
    if (r->status >= 500 && r->status != 503 && r->status != 504)
        atomic_fetch_add(&r->ctx->errors_500, 1);
    r->tp->complete(r);
}

/* Answer a request the handler never saw (routing, limits, validation). */
static void complete_now(kytos_req *r)
{
    pthread_mutex_lock(&r->mu);
    r->state = KH_REQ_COMPLETED;
    complete_unlock(r);
}

/* Answer r, taken off the watch list, with status and msg unless its
 * handler answered meanwhile (NEW: still queued; run_handler then skips
 * it).  The handler's own answer, if it comes later, is dropped. */
static void expire(struct kh_http_ctx *h, kytos_req *r, unsigned status, const char *msg)
{
    pthread_mutex_lock(&r->mu);
    if (r->state == KH_REQ_NEW || r->state == KH_REQ_RUNNING || r->state == KH_REQ_DEFERRED) {
        struct json_object *o = json_object_new_object();
        size_t len = 0;
        char *text;
        json_object_object_add(o, "description", json_object_new_string(msg));
        json_object_object_add(o, "code", json_object_new_int((int)status));
        text = kh_json_dump(o, &len);
        json_object_put(o);
        kh_req_drop_body(r);
        r->resp_body = text;
        r->resp_len = text ? len : 0;
        r->status = status;
        snprintf(r->content_type, sizeof r->content_type, "application/json");
        r->state = KH_REQ_TIMED_OUT;
        if (status == 504)
            atomic_fetch_add(&h->timeouts_504, 1);
        kh_log(LOGGER, KH_WARNING, "%s", msg);
        pthread_mutex_unlock(&r->mu);
        if (h->auth && r->tp != &call_transport)
            kh_auth_audit(h->auth, r);
        finish_inflight(r);
        atomic_fetch_add(&h->served, 1);
        r->tp->complete(r);
    } else {
        pthread_mutex_unlock(&r->mu);
    }
}

/* The first watched request (deadline_due: only one past its deadline),
 * taken off the list with a reference; NULL when none (watch_mu held). */
static kytos_req *take_watched(struct kh_http_ctx *h, int deadline_due, int64_t now,
                               int (*mine)(const kytos_req *r, void *ud), void *ud)
{
    kytos_req *r;

    for (r = h->watch_head; r; r = r->wnext)
        if ((!deadline_due || (r->deadline_ns && r->deadline_ns <= now)) && (!mine || mine(r, ud)))
            break;
    if (!r)
        return NULL;
    unwatch_locked(h, r);
    kh_req_ref(r);
    return r;
}

static void *watchdog_main(void *arg)
{
    struct kh_http_ctx *h = arg;
    struct timespec ts;

    pthread_mutex_lock(&h->watch_mu);
    while (!h->watch_stop) {
        int64_t now = kh_mono_ns();
        kh_shed_tick(h);   /* about every 50 ms; takes no lock */
        kytos_req *expired = take_watched(h, 1, now, NULL, NULL);

        if (expired) {
            char msg[256];
            /* answered without the list lock */
            pthread_mutex_unlock(&h->watch_mu);
            snprintf(msg, sizeof msg, "Handler of %s %s did not answer within %u ms",
                     expired->method, expired->path,
                     expired->match.route && expired->match.route->timeout_ms
                         ? expired->match.route->timeout_ms
                         : h->handler_timeout_ms);
            expire(h, expired, 504, msg);
            kh_req_unref(expired);
            pthread_mutex_lock(&h->watch_mu);
            continue;
        }
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += 50 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&h->watch_cv, &h->watch_mu, &ts);
    }
    pthread_mutex_unlock(&h->watch_mu);
    return NULL;
}

void kh_dispatch_answer_all(struct kh_http_ctx *h, unsigned status, const char *why,
                            int (*mine)(const kytos_req *r, void *ud), void *ud)
{
    kytos_req *r;

    pthread_mutex_lock(&h->watch_mu);
    while ((r = take_watched(h, 0, 0, mine, ud)) != NULL) {
        char msg[256];
        pthread_mutex_unlock(&h->watch_mu);
        snprintf(msg, sizeof msg, "%s %s: %s", r->method, r->path, why);
        expire(h, r, status, msg);
        kh_req_unref(r);
        pthread_mutex_lock(&h->watch_mu);
    }
    pthread_mutex_unlock(&h->watch_mu);
}

int kh_watchdog_start(struct kh_http_ctx *h)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&h->watch_cv, &a);
    pthread_condattr_destroy(&a);
    h->watch_stop = 0;
    if (pthread_create(&h->watchdog, NULL, watchdog_main, h) != 0)
        return -1;
    pthread_setname_np(h->watchdog, "watchdog");
    h->watchdog_started = 1;
    return 0;
}

void kh_watchdog_stop(struct kh_http_ctx *h)
{
    if (!h->watchdog_started)
        return;
    pthread_mutex_lock(&h->watch_mu);
    h->watch_stop = 1;
    pthread_cond_signal(&h->watch_cv);
    pthread_mutex_unlock(&h->watch_mu);
    pthread_join(h->watchdog, NULL);
    pthread_cond_destroy(&h->watch_cv);
    h->watchdog_started = 0;
}

/* ---- routing and admission ---- */

static void cors_preflight(kytos_req *r)
{
    const char *want = kh_req_header(r, "Access-Control-Request-Headers");
    kh_resp_raw(r, 200, "text/plain; charset=utf-8", "OK", 2);
    kh_resp_header(r, "Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
    kh_resp_header(r, "Access-Control-Allow-Headers",
                   want && strlen(want) < 1024 ? want : "Content-Type, Authorization");
    kh_resp_header(r, "Access-Control-Max-Age", "600");
}

void kh_dispatch_route(kytos_req *r)
{
    struct kh_http_ctx *h = r->ctx;

    if (strcmp(r->method, "OPTIONS") == 0) {
        cors_preflight(r);
        return;
    }
    kh_router_match(h->router, r->method, r->segs, r->nsegs, &r->match);
    r->matched = 1;
    if (r->match.status == 404) {
        /* after the routes, never before: a route always wins (B1) */
        if (h->ui_serve && h->ui_serve(h->ui, r))
            return;
        kh_req_set_error(r, 404, "Not Found");
        return;
    }
    if (r->match.status == 405) {
        kh_req_set_error(r, 405, "Method Not Allowed");
        kh_resp_header(r, "Allow", r->match.allow);
        return;
    }
    r->body_limit = r->match.route->max_body ? r->match.route->max_body : h->max_body;
    /* step 2: a token where one is needed (a NApp's in-process call runs
     * inside a request that was checked already) */
    if (h->auth && r->tp != &call_transport)
        kh_auth_request(h->auth, r);
}

/* Count the request against api_concurrency_limit; 0 admitted.  pool: the
 * route's worker pool, NULL for inline routes. */
static int admit(kytos_req *r, kh_workpool *pool)
{
    struct kh_http_ctx *h = r->ctx;
    /* a NApp's in-process call is part of a request already admitted */
    int from_client = r->tp != &call_transport;
    int64_t now_in = atomic_fetch_add(&h->in_flight, 1) + 1;

    r->counted_inflight = 1;
    if (h->ratelimit && r->peer[0]) {
        char client[KH_CLIENT_TEXT_LEN];   /* an IPv6 client by its prefix */
        kh_client_group_text(r->peer, h->client_v6_prefix, client, sizeof client);
        if (kh_ratelimit_hit(h->ratelimit, client, kh_now_ms()) != 0) {
            atomic_fetch_add(&h->rejected_429, 1);
            kh_resp_error(r, 429, "Too Many Requests: more than %u requests per second from %s",
                          h->rate_limit, client);
            kh_resp_header(r, "Retry-After", "1");
            return -1;
        }
    }
    if ((h->concurrency_limit > 0 && now_in > h->concurrency_limit) ||
        (from_client && pool && kh_workpool_shedding(pool))) {
        static atomic_int_fast64_t last_log;
        int64_t now = kh_now_ms();
        atomic_fetch_add(&h->rejected_503, 1);
        if (now - atomic_load(&last_log) >= 1000) {  /* one line a second at most */
            atomic_store(&last_log, now);
            kh_log(LOGGER, KH_WARNING, "Exceeded concurrency limit.");
        }
        kh_req_set_overload(r, 503, "Service Unavailable", 1);
        /* The connection stays open (uvicorn closes it).  Closed, its
         * client reconnected at once while the closing connections still
         * counted against api_per_ip_connection_limit, and libmicrohttpd
         * dropped the new ones over it: a reset instead of an answer
         * (1,000 connections at 3x the maximum flow POST rate, two I/O
         * threads: 848 and 1,554 resets in 5 s; kept open: none).  The body
         * has been read by now, so the connection is ready for the next. */
        r->close_connection = 0;
        return -1;
    }
    /* saturated (shed.c): a share of new NApp requests get a quick 503; the
     * connection stays open (this is routine under overload, not a fault) */
    if (from_client && r->match.route->napp && kh_shed_now(h)) {
        atomic_fetch_add(&h->rejected_503, 1);
        kh_req_set_overload(r, 503, "Service Unavailable", 1);
        r->close_connection = 0;
        return -1;
    }
    r->admitted = 1;
    return 0;
}

/* Kytos' content_type_json_or_415: the exact token among ';' parts. */
static int content_type_is_json(const char *ct)
{
    const char *p = ct;
    if (!ct)
        return 0;
    while (*p) {
        const char *semi = strchr(p, ';');
        size_t len = semi ? (size_t)(semi - p) : strlen(p);
        while (len && *p == ' ') {
            p++;
            len--;
        }
        if (len == 16 && memcmp(p, "application/json", 16) == 0)
            return 1;
        if (!semi)
            break;
        p = semi + 1;
    }
    return 0;
}

static int check_body(kytos_req *r)
{
    const struct kh_route *rt = r->match.route;
    char err[300];

    if (r->body_too_big) {
        kh_resp_error(r, 413, "Request body larger than %zu bytes", r->body_limit);
        r->close_connection = 1;
        return -1;
    }
    if (rt->op)
        return kh_validate_request(r);
    if (r->body_len == 0 || (rt->flags & KYTOS_ROUTE_RAW_BODY))
        return 0;
    if (!content_type_is_json(kh_req_header(r, "Content-Type"))) {
        const char *ct = kh_req_header(r, "Content-Type");
        kh_resp_error(r, 415, "Expected Content-Type: application/json, got: %s", ct ? ct : "None");
        return -1;
    }
    if (kh_json_parse_strict(r->body, r->body_len, &r->json, err, sizeof err) != 0) {
        kh_resp_error(r, 400, "Invalid json: %s", err);
        return -1;
    }
    return 0;
}

/* ---- running the handler ---- */

/* A handler that failed: its client reads what happened, in words
 * ("failed", or `without` when it gave no response: "returned without
 * setting a response"); the status code it returned goes to the log only. */
static void answer_500(kytos_req *r, int rc, const char *without)
{
    struct kh_http_ctx *h = r->ctx;
    const struct kh_route *rt = r->match.route;
    char what[400], msg[512];

    if (without)
        snprintf(what, sizeof what, "the %s handler of %s %s %s", rt->napp ? h->napps->id(rt->napp) : "kytos/core", r->method,
                 rt->path, without);
    else
        snprintf(what, sizeof what, "the %s handler of %s %s failed", rt->napp ? h->napps->id(rt->napp) : "kytos/core",
                 r->method, rt->path);
    snprintf(msg, sizeof msg, "Internal Server Error: %s", what);
    if (without)
        kh_log(rt->napp ? h->napps->logger(rt->napp) : LOGGER, KH_ERROR, "%s", what);
    else
        kh_log(rt->napp ? h->napps->logger(rt->napp) : LOGGER, KH_ERROR, "%s: it returned %d (%s)",
               what, rc, kh_strerror(rc));
    kh_req_drop_body(r);
    if (h->json_500) {
        struct json_object *o = json_object_new_object();
        size_t len = 0;
        json_object_object_add(o, "description", json_object_new_string(msg));
        json_object_object_add(o, "code", json_object_new_int(500));
        r->resp_body = kh_json_dump(o, &len);
        r->resp_len = r->resp_body ? len : 0;
        json_object_put(o);
        snprintf(r->content_type, sizeof r->content_type, "application/json");
    } else {
        const char *text = h->traceback_on_500 ? msg : "Internal Server Error";
        r->resp_body = strdup(text);
        r->resp_len = r->resp_body ? strlen(text) : 0;
        snprintf(r->content_type, sizeof r->content_type, "text/plain; charset=utf-8");
    }
    r->status = 500;
}

struct handler_call {
    const struct kh_route *rt;
    kytos_req *r;
};

static int call_handler(void *arg)
{
    struct handler_call *c = arg;
    return c->rt->handler(c->r, c->rt->ud);
}

static void run_handler(kytos_req *r)
{
    const struct kh_route *rt = r->match.route;
    int rc;

    pthread_mutex_lock(&r->mu);
    if (r->state != KH_REQ_NEW) {   /* timed out while queued */
        pthread_mutex_unlock(&r->mu);
        kh_req_unref(r);
        return;
    }
    r->state = KH_REQ_RUNNING;
    pthread_mutex_unlock(&r->mu);

    if (rt->napp) {
        struct handler_call hc = {rt, r};
        rc = kh_guard_call(rt->napp, call_handler, &hc);
        if (rc == KH_ECRASHED) {
            char where[300];
            snprintf(where, sizeof where, "the handler of %s %s (signal %d)", r->method, rt->path,
                     kh_guard_last_signal());
            r->ctx->napps->crashed(rt->napp, where);
        }
    } else {
        rc = rt->handler(r, rt->ud);
    }

    pthread_mutex_lock(&r->mu);
    if (r->state == KH_REQ_TIMED_OUT) {
        pthread_mutex_unlock(&r->mu);
        kh_req_unref(r);
        return;
    }
    if (rc == KYTOS_DEFERRED && !r->finished_early) {
        r->state = KH_REQ_DEFERRED;   /* our reference now belongs to finish */
        pthread_mutex_unlock(&r->mu);
        return;
    }
    if (rc < 0)
        answer_500(r, rc, NULL);
    else if (r->status == 0)
        answer_500(r, rc, "returned without setting a response");
    r->state = KH_REQ_COMPLETED;
    complete_unlock(r);
    kh_req_unref(r);
}

int kh_req_finish(kytos_req *r)
{
    pthread_mutex_lock(&r->mu);
    switch (r->state) {
    case KH_REQ_RUNNING:
        r->finished_early = 1;
        pthread_mutex_unlock(&r->mu);
        return KYTOS_OK;
    case KH_REQ_DEFERRED:
        if (r->status == 0)
            answer_500(r, KYTOS_OK, "finished its deferred request without setting a response");
        r->state = KH_REQ_COMPLETED;
        complete_unlock(r);
        kh_req_unref(r);
        return KYTOS_OK;
    case KH_REQ_TIMED_OUT:
        r->state = KH_REQ_COMPLETED;   /* a second late finish is an error */
        pthread_mutex_unlock(&r->mu);
        kh_req_unref(r);
        return KYTOS_ETIMEDOUT;
    default:
        pthread_mutex_unlock(&r->mu);
        return KYTOS_ESTATE;
    }
}

static void pool_job(void *arg)
{
    run_handler(arg);
}

/* Light load: no other request in flight, and this I/O thread's previous
 * inline request came at least CLAIM_GAP_NS earlier.  Only then may a
 * handler's store write run on this thread (claims, store_async.c): under
 * load the writer batches the writes while this thread goes on reading
 * requests.  (With a 1 ms gap, a saturating POST load still made a claim
 * every few hundred requests, in the short lulls of a one-core run, and
 * lost 3-10% of its rate; with 5 ms none, and 100/s is still all claims.) */
#define CLAIM_GAP_NS (5 * 1000 * 1000)

static int light_load(const kytos_req *r)
{
    static _Thread_local int64_t last;
    int light = r->start_ns - last >= CLAIM_GAP_NS && atomic_load(&r->ctx->in_flight) <= 1;

    last = r->start_ns;
    return light;
}

/* inline_only: the caller wants the handler on this thread (kytos_call). */
static void dispatch_run(kytos_req *r, int inline_only, int count_inflight)
{
    struct kh_http_ctx *h = r->ctx;
    const struct kh_route *rt;
    kh_workpool *pool;
    unsigned timeout;

    if (r->status) {              /* routing already answered */
        complete_now(r);
        return;
    }
    rt = r->match.route;
    /* the route's pool was resolved when it was added (kh_router_swap) */
    pool = (inline_only || (rt->flags & KYTOS_ROUTE_INLINE)) ? NULL
           : rt->wpool ? rt->wpool : h->api_pool;
    if (count_inflight && admit(r, pool) != 0) {
        complete_now(r);
        return;
    }
    if (check_body(r) != 0) {
        complete_now(r);
        return;
    }
    timeout = rt->timeout_ms ? rt->timeout_ms : h->handler_timeout_ms;
    r->deadline_ns = timeout ? kh_mono_ns() + (int64_t)timeout * 1000000 : 0;
    kh_req_ref(r);                /* the handler's reference */
    /* watched even without a deadline: a shutdown answers what is left
     * (kh_dispatch_answer_all) */
    watch_add(r);
    if (inline_only || (rt->flags & KYTOS_ROUTE_INLINE)) {
        /* An inline handler's write that finds the store's writer idle is
         * committed here once the handler has returned (its callback may
         * finish the request, answered then without a suspend).  Not in a
         * kytos_call: its caller waits for the answer, so a claim would
         * wait for the caller. */
        int prev = kh_store_claims_allow(!inline_only && light_load(r));

        if (prev)   /* a kytos_call from an inline handler: it will wait */
            kh_store_claims_release();
        run_handler(r);
        kh_store_claims_allow(prev);
        if (!prev)
            kh_store_claims_run();
        return;
    }
    if (!pool || kh_workpool_submit(pool, pool_job, r, 0) != 0) {
        /* the pool's queue is full: shed load with uvicorn's 503 */
        pthread_mutex_lock(&r->mu);
        kh_req_drop_body(r);
        r->resp_body = strdup("Service Unavailable");
        r->resp_len = r->resp_body ? 19 : 0;
        r->status = 503;
        snprintf(r->content_type, sizeof r->content_type, "text/plain; charset=utf-8");
        r->close_connection = 1;
        kh_resp_header_force(r, "Retry-After", "1");
        r->state = KH_REQ_COMPLETED;
        atomic_fetch_add(&h->rejected_503, 1);
        complete_unlock(r);
        kh_req_unref(r);
    }
}

void kh_dispatch_run(kytos_req *r)
{
    dispatch_run(r, 0, 1);
}

/* ---- in-process requests ---- */

struct kytos_response {
    unsigned status;
    char *body;
    size_t len;
    char content_type[96];
    struct kh_resp_header headers[KH_MAX_RESP_HEADERS];
    size_t nheaders;
    struct json_object *json;
    int json_parsed;
};

struct call_ctx {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    const char *const *headers;
};

static const char *call_header(const kytos_req *r, const char *name)
{
    struct call_ctx *c = r->tp_ctx;
    const char *const *hp;
    size_t nl = strlen(name);
    for (hp = c->headers; hp && *hp; hp++)
        if (strncasecmp(*hp, name, nl) == 0 && (*hp)[nl] == ':') {
            const char *v = *hp + nl + 1;
            while (*v == ' ')
                v++;
            return v;
        }
    return NULL;
}

static void call_complete(kytos_req *r)
{
    struct call_ctx *c = r->tp_ctx;
    pthread_mutex_lock(&c->mu);
    c->done = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static const struct kh_transport call_transport = {call_header, call_complete};

/* The body of call r: text, or a tree (taken) that a route reading its
 * body itself (raw, not checked against the spec) receives as is: no text
 * written and parsed again. */
static void call_body(kytos_req *r, const char *body, size_t len, struct json_object *tree)
{
    const struct kh_route *rt = r->match.status == 0 ? r->match.route : NULL;

    if (tree && rt && !rt->op && (rt->flags & KYTOS_ROUTE_RAW_BODY) && !r->status) {
        r->json = tree;
        r->body_given = 1;
        return;
    }
    if (tree) {
        body = json_object_to_json_string_length(
            tree, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
        if (body && len)
            kh_req_append_body(r, body, len);
        json_object_put(tree);
        return;
    }
    if (body && len)
        kh_req_append_body(r, body, len);
}

static int call_run(struct kh_http_ctx *h, const char *method, const char *target,
                    const char *body, size_t len, struct json_object *tree,
                    const char *const *headers, int use_pool, kytos_response **out)
{
    struct call_ctx ctx = {.headers = headers};
    kytos_req *r;
    kytos_response *resp;
    char err[128];
    unsigned st;
    size_t i;

    if (!out || !method || !target) {
        json_object_put(tree);
        return KYTOS_EINVAL;
    }
    *out = NULL;
    pthread_mutex_init(&ctx.mu, NULL);
    pthread_cond_init(&ctx.cv, NULL);
    r = kh_req_new(h, &call_transport, &ctx);
    if (!r) {
        json_object_put(tree);
        return KYTOS_ENOMEM;
    }
    snprintf(r->peer, sizeof r->peer, "in-process");
    st = (unsigned)kh_req_set_target(r, method, target, err, sizeof err);
    if (st)
        kh_req_set_error(r, st, err);
    else
        kh_dispatch_route(r);
    call_body(r, body, len, tree);
    /* a call from a worker runs inline: it must not wait for its own pool */
    dispatch_run(r, !use_pool || kh_workpool_in_any_worker(), use_pool);
    pthread_mutex_lock(&ctx.mu);
    while (!ctx.done)
        pthread_cond_wait(&ctx.cv, &ctx.mu);
    pthread_mutex_unlock(&ctx.mu);

    resp = calloc(1, sizeof *resp);
    if (resp) {
        pthread_mutex_lock(&r->mu);
        resp->status = r->status;
        if (r->resp_static) {
            resp->body = malloc(r->resp_len + 1);
            if (resp->body) {
                memcpy(resp->body, r->resp_body, r->resp_len);
                resp->body[r->resp_len] = '\0';
            }
            resp->len = resp->body ? r->resp_len : 0;
            kh_req_drop_body(r);
        } else {
            resp->body = r->resp_body;
            resp->len = r->resp_len;
            r->resp_body = NULL;
        }
        snprintf(resp->content_type, sizeof resp->content_type, "%s", r->content_type);
        for (i = 0; i < r->nresp_headers; i++) {
            resp->headers[i] = r->resp_headers[i];
            r->resp_headers[i].name = r->resp_headers[i].value = NULL;
        }
        resp->nheaders = r->nresp_headers;
        r->nresp_headers = 0;
        pthread_mutex_unlock(&r->mu);
    }
    kh_req_unref(r);
    pthread_mutex_destroy(&ctx.mu);
    pthread_cond_destroy(&ctx.cv);
    if (!resp)
        return KYTOS_ENOMEM;
    *out = resp;
    return KYTOS_OK;
}

int kh_call(struct kh_http_ctx *h, kytos_napp *caller, const char *method, const char *target,
            const char *body, size_t len, const char *const *headers, int use_pool,
            kytos_response **out)
{
    (void)caller;
    return call_run(h, method, target, body, len, NULL, headers, use_pool, out);
}

int kh_call_give(struct kh_http_ctx *h, kytos_napp *caller, const char *method,
                 const char *target, struct json_object *body, const char *const *headers,
                 kytos_response **out)
{
    (void)caller;
    return call_run(h, method, target, NULL, 0, body, headers, 0, out);
}

unsigned kh_response_status(const kytos_response *r) { return r ? r->status : 0; }

const char *kh_response_body(const kytos_response *r, size_t *len)
{
    if (len)
        *len = r ? r->len : 0;
    return r ? r->body : NULL;
}

struct json_object *kh_response_json(kytos_response *r)
{
    char err[64];
    if (!r)
        return NULL;
    if (!r->json_parsed) {
        r->json_parsed = 1;
        if (r->body && r->len && kh_json_parse_strict(r->body, r->len, &r->json, err, sizeof err) != 0)
            r->json = NULL;
    }
    return r->json;
}

const char *kh_response_header(const kytos_response *r, const char *name)
{
    size_t i;
    if (!r || !name)
        return NULL;
    if (!strcasecmp(name, "Content-Type"))
        return r->content_type;
    for (i = 0; i < r->nheaders; i++)
        if (!strcasecmp(r->headers[i].name, name))
            return r->headers[i].value;
    return NULL;
}

void kh_response_free(kytos_response *r)
{
    size_t i;
    if (!r)
        return;
    for (i = 0; i < r->nheaders; i++) {
        free(r->headers[i].name);
        free(r->headers[i].value);
    }
    json_object_put(r->json);
    free(r->body);
    free(r);
}
