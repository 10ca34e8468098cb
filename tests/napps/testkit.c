/* tests/napps/testkit.c - a NApp for the host's own tests: slow, deferred,
 * failing and silent handlers, to exercise deadlines, the concurrency limit,
 * 500s and shutdown.  Not installed. */
#include <kytos/kytos.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);   /* the handler is meant to be slow */
}

static long query_ms(kytos_req *req)
{
    const char *v = kytos_req_query(req, "ms");
    long ms = v ? strtol(v, NULL, 10) : 100;
    return ms < 0 ? 0 : ms > 60000 ? 60000 : ms;
}

static int slow(kytos_req *req, void *ud)
{
    (void)ud;
    sleep_ms(query_ms(req));
    return kytos_resp_json_take(req, 200, json_object_new_string("slept"));
}

struct later {
    kytos_req *req;
    long ms;
};

static void *finish_later(void *arg)
{
    struct later *l = arg;
    sleep_ms(l->ms);
    kytos_resp_json_take(l->req, 200, json_object_new_string("deferred"));
    kytos_req_finish(l->req);
    free(l);
    return NULL;
}

static int deferred(kytos_req *req, void *ud)
{
    pthread_t t;
    struct later *l = malloc(sizeof *l);
    (void)ud;
    if (!l)
        return KYTOS_ENOMEM;
    l->req = req;
    l->ms = query_ms(req);
    if (pthread_create(&t, NULL, finish_later, l) != 0) {
        free(l);
        return KYTOS_ERROR;
    }
    pthread_detach(t);
    return KYTOS_DEFERRED;
}

static int fail(kytos_req *req, void *ud)
{
    (void)req;
    (void)ud;
    return KYTOS_EINVAL;
}

static int silent(kytos_req *req, void *ud)
{
    (void)req;
    (void)ud;
    return KYTOS_OK;
}

static int echo(kytos_req *req, void *ud)
{
    struct json_object *b = kytos_req_json(req);
    (void)ud;
    return kytos_resp_json(req, 200, b);
}

static int call_hello(kytos_req *req, void *ud)
{
    kytos_response *r = NULL;
    struct json_object *o;
    (void)ud;
    if (kytos_call(kytos_req_napp(req), "GET", "/api/kytos/hello/v1/", NULL, 0, &r) != KYTOS_OK)
        return KYTOS_ERROR;
    o = json_object_new_object();
    json_object_object_add(o, "status", json_object_new_int((int)kytos_response_status(r)));
    json_object_object_add(o, "body", json_object_get(kytos_response_json(r)));
    kytos_response_free(r);
    return kytos_resp_json_take(req, 200, o);
}

/* A NApp bug: a write through a null pointer. */
static int crash(kytos_req *req, void *ud)
{
    volatile int *volatile p = NULL;
    (void)req;
    (void)ud;
    *p = 1;
    return KYTOS_OK;
}

static int add(kytos_napp *n, const char *method, const char *path, kytos_handler h, unsigned t)
{
    return kytos_route_add(n, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                    .method = method, .path = path, .handler = h,
                                                    .timeout_ms = t});
}

static int quick(kytos_req *req, void *ud)
{
    (void)ud;
    return kytos_resp_json_take(req, 200, json_object_new_string("quick"));
}

/* The caller, as the host tells a NApp (ABI 1.5). */
static int whoami(kytos_req *req, void *ud)
{
    const char *user, *tid, *role;
    struct json_object *o = json_object_new_object();
    int on = kytos_req_identity(req, &user, &tid, &role);
    (void)ud;
    json_object_object_add(o, "authenticated", json_object_new_boolean(on));
    json_object_object_add(o, "user", json_object_new_string(user));
    json_object_object_add(o, "token_id", json_object_new_string(tid));
    json_object_object_add(o, "role", json_object_new_string(role));
    return kytos_resp_json_take(req, 200, o);
}

static int testkit_init(kytos_napp *n, char **errmsg)
{
    (void)errmsg;
    if (add(n, "GET", "whoami", whoami, 0))
        return KYTOS_ERROR;
    /* an inline route (runs on the I/O thread), for the route-kind tests */
    if (kytos_route_add(n, &(struct kytos_route){.struct_size = sizeof(struct kytos_route), .method = "GET",
                                                 .path = "inline", .handler = quick,
                                                 .flags = KYTOS_ROUTE_INLINE}))
        return KYTOS_ERROR;
    if (add(n, "GET", "slow", slow, 0) || add(n, "GET", "deferred", deferred, 0) ||
        add(n, "GET", "fail", fail, 0) || add(n, "GET", "silent", silent, 0) ||
        add(n, "GET", "timeout", slow, 200) || add(n, "POST", "echo", echo, 0) ||
        add(n, "GET", "call_hello", call_hello, 0) || add(n, "GET", "typed/{n:int}", slow, 0) ||
        add(n, "GET", "crash", crash, 0))
        return KYTOS_ERROR;
    return KYTOS_OK;
}

KYTOS_NAPP_DEFINE("kytos", "testkit", "0.0.1", KYTOS_NO_DEPS, NULL, 0, 0, testkit_init, NULL, NULL);
