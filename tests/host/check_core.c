/* tests/host/check_core.c - unit tests of the host's building blocks:
 * router, request targets and queries, kytos.conf, work pools, strict JSON. */
#include "check_tap.h"
#include "host/util/conf.h"
#include "host/http/acceptor.h"
#include "host/http/client_group.h"
#include "host/http/connlimit.h"
#include "host/http/idle_conns.h"
#include "host/http/request.h"
#include "host/http/router.h"
#include "host/util/workpool.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- router ---- */

static int dummy(kytos_req *r, void *ud)
{
    (void)r;
    (void)ud;
    return 0;
}

static struct kh_route *mk(const char *method, const char *path)
{
    struct kh_route *r = calloc(1, sizeof *r);
    r->method = strdup(method);
    r->path = strdup(path);
    r->handler = dummy;
    return r;
}

static void rfree(struct kh_route *r)
{
    free(r->method);
    free(r->path);
    free(r);
}

static size_t split(char *path, char **segs)
{
    size_t n = 0;
    char *save = NULL, *t;
    for (t = strtok_r(path, "/", &save); t; t = strtok_r(NULL, "/", &save))
        segs[n++] = t;
    return n;
}

static struct kh_match m;

static const char *match(kh_router *r, const char *method, const char *path)
{
    static char buf[512];
    char *segs[64];
    size_t n;
    snprintf(buf, sizeof buf, "%s", path);
    n = split(buf, segs);
    kh_router_match(r, method, segs, n, &m);
    return m.route ? m.route->path : NULL;
}

START_TEST(router_literal_beats_param_and_types)
{
    kh_router *r = kh_router_new(NULL, NULL, NULL);
    struct kh_route *a = mk("GET", "/api/k/m/v2/evc/{circuit_id}"), *b = mk("GET", "/api/k/m/v2/evc/schedule"),
                    *c = mk("GET", "/api/k/t/n/{n:int}"), *d = mk("GET", "/api/k/t/f/{x:path}"),
                    *e = mk("POST", "/api/k/m/v2/evc/");
    char err[200];
    a->next = b; b->next = c; c->next = d; d->next = e;
    ck_assert_int_eq(kh_router_swap(r, a, NULL, err, sizeof err), 0);
    ck_assert_str_eq(match(r, "GET", "/api/k/m/v2/evc/schedule"), "/api/k/m/v2/evc/schedule");
    ck_assert_str_eq(match(r, "GET", "/api/k/m/v2/evc/abc"), "/api/k/m/v2/evc/{circuit_id}");
    ck_assert_str_eq(m.params[0].name, "circuit_id");
    ck_assert_str_eq(m.params[0].value, "abc");
    ck_assert_ptr_null(match(r, "GET", "/api/k/t/n/12a"));
    ck_assert_uint_eq(m.status, 404);
    ck_assert_str_eq(match(r, "GET", "/api/k/t/n/12"), "/api/k/t/n/{n:int}");
    ck_assert_str_eq(match(r, "GET", "/api/k/t/f/a/b/c"), "/api/k/t/f/{x:path}");
    ck_assert_str_eq(m.params[0].value, "a/b/c");
    ck_assert_str_eq(match(r, "HEAD", "/api/k/t/n/1"), "/api/k/t/n/{n:int}");
    ck_assert_ptr_null(match(r, "DELETE", "/api/k/m/v2/evc"));
    ck_assert_uint_eq(m.status, 405);
    ck_assert_str_eq(m.allow, "POST");
    kh_router_free(r);
    rfree(a); rfree(b); rfree(c); rfree(d); rfree(e);
}
END_TEST

/* A route's pool is resolved once, when the route is added, not per request. */
static int resolved;
static struct kh_workpool *fake_pool(void *ud, const char *name)
{
    resolved++;
    ck_assert_str_eq(name, "slow");
    return ud;
}

START_TEST(router_resolves_pools_when_routes_are_added)
{
    static char pool_token;
    kh_router *r = kh_router_new(fake_pool, &pool_token, NULL);
    struct kh_route *a = mk("GET", "/api/k/p/v1/a"), *b = mk("GET", "/api/k/p/v1/b"),
                    *c = mk("GET", "/api/k/p/v1/c");
    char err[200];

    a->pool = strdup("slow");
    c->pool = strdup("slow");
    c->flags = KYTOS_ROUTE_INLINE;       /* inline: runs on no pool */
    a->next = b; b->next = c;
    ck_assert_int_eq(kh_router_swap(r, a, NULL, err, sizeof err), 0);
    ck_assert_int_eq(resolved, 1);
    ck_assert_ptr_eq(a->wpool, (struct kh_workpool *)&pool_token);
    ck_assert_ptr_null(b->wpool);        /* no pool named: the api pool */
    ck_assert_ptr_null(c->wpool);
    ck_assert_str_eq(match(r, "GET", "/api/k/p/v1/a"), "/api/k/p/v1/a");
    ck_assert_int_eq(resolved, 1);       /* matching looks nothing up */
    kh_router_free(r);
    free(a->pool);
    free(c->pool);
    rfree(a); rfree(b); rfree(c);
}
END_TEST

START_TEST(router_refuses_conflicts_and_bad_templates)
{
    kh_router *r = kh_router_new(NULL, NULL, NULL);
    struct kh_route *a = mk("GET", "/api/k/a/v1/"), *b = mk("GET", "/api/k/a/v1");
    char err[200];
    ck_assert_int_eq(kh_router_swap(r, a, NULL, err, sizeof err), 0);
    /* the other slash form is the same route; a core route (owner NULL) holds it */
    ck_assert_int_eq(kh_router_swap(r, b, (kytos_napp *)1, err, sizeof err), KYTOS_EEXIST);
    ck_assert_ptr_nonnull(strstr(err, "already registered"));
    ck_assert_int_ne(kh_route_template_check("/api/{x:nope}", err, sizeof err), 0);
    ck_assert_int_ne(kh_route_template_check("/api/{x:path}/more", err, sizeof err), 0);
    ck_assert_int_ne(kh_route_template_check("/api/a{b}", err, sizeof err), 0);
    ck_assert_int_ne(kh_route_template_check("relative", err, sizeof err), 0);
    ck_assert_int_eq(kh_route_template_check("/api/{ok_name:uuid}/x/", err, sizeof err), 0);
    kh_router_free(r);
    rfree(a); rfree(b);
}
END_TEST

/* ---- request targets ---- */

static const char *hdr(const kytos_req *r, const char *n)
{
    (void)r;
    (void)n;
    return NULL;
}
static void done(kytos_req *r) { (void)r; }
static const struct kh_transport tp = {hdr, done};

/* A transport whose header memory is reused once the answer is final,
 * as libmicrohttpd's connection pool is. */
static char reused_pool[64];
static const char *pool_hdr(const kytos_req *r, const char *n)
{
    (void)r;
    return strcasecmp(n, "X-A") == 0 || strcasecmp(n, "X-B") == 0 ? reused_pool : NULL;
}
static const struct kh_transport pool_tp = {pool_hdr, done};

/* Header values are the request's copies: a handler still running after
 * its request was answered (504) reads what it looked up before, and
 * nothing of the transport's reused memory. */
START_TEST(headers_are_copies_that_outlive_the_answer)
{
    kytos_req *r = kh_req_new(NULL, &pool_tp, NULL);
    const char *a, *missing;

    snprintf(reused_pool, sizeof reused_pool, "first");
    a = kh_req_header(r, "x-a");
    missing = kh_req_header(r, "X-None");
    ck_assert_str_eq(a, "first");
    ck_assert_ptr_null(missing);
    ck_assert_ptr_ne(a, reused_pool);
    ck_assert_ptr_eq(kh_req_header(r, "X-A"), a);        /* looked up once */
    pthread_mutex_lock(&r->mu);
    r->state = KH_REQ_TIMED_OUT;                          /* the watchdog answered */
    pthread_mutex_unlock(&r->mu);
    snprintf(reused_pool, sizeof reused_pool, "next request");
    ck_assert_str_eq(kh_req_header(r, "X-A"), "first");
    ck_assert_str_eq(a, "first");
    ck_assert_ptr_null(kh_req_header(r, "X-B"));          /* not read after the answer */
    ck_assert_ptr_null(kh_req_header(r, "X-None"));
    kh_req_unref(r);
}
END_TEST

START_TEST(target_decodes_per_segment)
{
    kytos_req *r = kh_req_new(NULL, &tp, NULL);
    char err[100];
    ck_assert_int_eq(kh_req_set_target(r, "GET", "/a/b%2Fc/d%20e/?x=1+2&y=%41&x=3", err, sizeof err), 0);
    ck_assert_uint_eq(r->nsegs, 3);
    ck_assert_str_eq(r->segs[1], "b/c");    /* %2F never splits a segment */
    ck_assert_str_eq(r->segs[2], "d e");
    ck_assert_str_eq(kh_req_query(r, "x"), "1 2");
    ck_assert_str_eq(kh_req_query(r, "y"), "A");
    {
        const char *v[4];
        ck_assert_uint_eq(kh_req_query_all(r, "x", v, 4), 2);
        ck_assert_str_eq(v[1], "3");
    }
    ck_assert_ptr_null(kh_req_query(r, "z"));
    kh_req_unref(r);
    r = kh_req_new(NULL, &tp, NULL);
    ck_assert_int_eq(kh_req_set_target(r, "GET", "/a/%zz", err, sizeof err), 400);
    kh_req_unref(r);
    r = kh_req_new(NULL, &tp, NULL);
    ck_assert_int_eq(kh_req_set_target(r, "GET", "/a/%00", err, sizeof err), 400);
    kh_req_unref(r);
    r = kh_req_new(NULL, &tp, NULL);
    ck_assert_int_eq(kh_req_set_target(r, "GET", "noslash", err, sizeof err), 400);
    kh_req_unref(r);
    /* the method: up to 15 bytes, copied whole */
    r = kh_req_new(NULL, &tp, NULL);
    ck_assert_int_eq(kh_req_set_target(r, "ABCDEFGHIJKLMNO", "/a", err, sizeof err), 0);
    ck_assert_str_eq(r->method, "ABCDEFGHIJKLMNO");
    kh_req_unref(r);
    r = kh_req_new(NULL, &tp, NULL);
    ck_assert_int_eq(kh_req_set_target(r, "ABCDEFGHIJKLMNOP", "/a", err, sizeof err), 400);
    ck_assert_str_eq(err, "Bad method");
    err[0] = '\0';
    ck_assert_int_eq(kh_req_set_target(r, NULL, "/a", err, sizeof err), 400);
    ck_assert_str_eq(err, "Bad method");
    kh_req_unref(r);
}
END_TEST

/* 256 query pairs are all seen; 257 are a 400 that says so, not a
 * request whose last pairs its handler never sees. */
START_TEST(query_pairs_are_bounded)
{
    char target[4096], err[128];
    size_t off, i;
    kytos_req *r;

    off = (size_t)snprintf(target, sizeof target, "/a?");
    for (i = 0; i < 256; i++)
        off += (size_t)snprintf(target + off, sizeof target - off, "%sk%zu=%zu", i ? "&" : "", i, i);
    r = kh_req_new(NULL, &tp, NULL);
    ck_assert_int_eq(kh_req_set_target(r, "GET", target, err, sizeof err), 0);
    ck_assert_str_eq(kh_req_query(r, "k0"), "0");
    ck_assert_str_eq(kh_req_query(r, "k255"), "255");
    kh_req_unref(r);
    /* empty segments are no pairs */
    snprintf(target + off, sizeof target - off, "&&");
    r = kh_req_new(NULL, &tp, NULL);
    ck_assert_int_eq(kh_req_set_target(r, "GET", target, err, sizeof err), 0);
    ck_assert_str_eq(kh_req_query(r, "k255"), "255");
    kh_req_unref(r);
    snprintf(target + off, sizeof target - off, "&k256=256");
    r = kh_req_new(NULL, &tp, NULL);
    ck_assert_int_eq(kh_req_set_target(r, "GET", target, err, sizeof err), 400);
    ck_assert_str_eq(err, "Too many query parameters: 257 (the limit is 256)");
    kh_req_unref(r);
}
END_TEST

static struct sockaddr_in v4(const char *ip, int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
}

/* Per address (the port does not count), then in total; a put makes room. */
START_TEST(connection_limits_count_per_address_and_in_total)
{
    struct kh_connlimit *cl = kh_connlimit_new(5, 2, 64);
    struct sockaddr_in a1 = v4("10.0.0.1", 1000), a2 = v4("10.0.0.1", 2000), b = v4("10.0.0.2", 1);
    struct sockaddr_in6 c = {.sin6_family = AF_INET6};

    inet_pton(AF_INET6, "::1", &c.sin6_addr);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a1), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a2), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a1), KH_CONN_PER_IP);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&b), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&c), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&c), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&b), KH_CONN_TOTAL);   /* 5 open */
    kh_connlimit_put(cl, (struct sockaddr *)&a2);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a1), KH_CONN_OK);     /* room again */
    kh_connlimit_put(cl, (struct sockaddr *)&c);
    kh_connlimit_put(cl, (struct sockaddr *)&c);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&c), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&c), KH_CONN_OK);       /* 5 open */
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a2), KH_CONN_TOTAL);
    kh_connlimit_free(cl);   /* with entries left: freed too (LeakSanitizer) */
    cl = kh_connlimit_new(0, 0, 64);   /* no limits */
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&b), KH_CONN_OK);
    kh_connlimit_free(cl);
}
END_TEST

static struct sockaddr_in6 v6(const char *ip)
{
    struct sockaddr_in6 a = {.sin6_family = AF_INET6};
    inet_pton(AF_INET6, ip, &a.sin6_addr);
    return a;
}

/* IPv6 clients count by their prefix (a host picks any address of its
 * /64), an IPv4-mapped one as its IPv4 address; 128 counts each address. */
START_TEST(per_client_limits_group_ipv6_by_prefix)
{
    struct kh_connlimit *cl = kh_connlimit_new(100, 2, 64);
    struct sockaddr_in6 a = v6("2001:db8:1:2::1"), b = v6("2001:db8:1:2:ffff::9"),
                        c = v6("2001:db8:1:3::1"), mapped = v6("::ffff:10.0.0.1");
    struct sockaddr_in four = v4("10.0.0.1", 80);
    char out[KH_CLIENT_TEXT_LEN];

    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&b), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a), KH_CONN_PER_IP);   /* same /64 */
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&c), KH_CONN_OK);      /* another */
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&four), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&mapped), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&four), KH_CONN_PER_IP); /* mapped = v4 */
    kh_connlimit_put(cl, (struct sockaddr *)&b);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a), KH_CONN_OK);
    kh_connlimit_free(cl);
    cl = kh_connlimit_new(100, 1, 128);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a), KH_CONN_OK);
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&b), KH_CONN_OK);      /* exact */
    ck_assert_int_eq(kh_connlimit_take(cl, (struct sockaddr *)&a), KH_CONN_PER_IP);
    kh_connlimit_free(cl);

    kh_client_group_text("2001:db8:1:2:3:4:5:6", 64, out, sizeof out);
    ck_assert_str_eq(out, "2001:db8:1:2::/64");
    kh_client_group_text("2001:db8:1:2:3:4:5:6", 52, out, sizeof out);
    ck_assert_str_eq(out, "2001:db8:1::/52");
    kh_client_group_text("2001:db8:1:2:3:4:5:6", 128, out, sizeof out);
    ck_assert_str_eq(out, "2001:db8:1:2:3:4:5:6");
    kh_client_group_text("::ffff:10.0.0.1", 64, out, sizeof out);
    ck_assert_str_eq(out, "10.0.0.1");
    kh_client_group_text("10.0.0.1", 64, out, sizeof out);
    ck_assert_str_eq(out, "10.0.0.1");
    ck_assert_uint_eq(kh_client_prefix(0), 64);
    ck_assert_uint_eq(kh_client_prefix(129), 64);
    ck_assert_uint_eq(kh_client_prefix(128), 128);
    ck_assert_uint_eq(kh_client_prefix(48), 48);
}
END_TEST

/* The oldest idle connection goes first, and only once it has been idle
 * long enough and nothing waits unread on it; a busy one is never taken; a
 * taken one's peer reads the end of the stream, and its close reports its
 * slot as given away. */
START_TEST(idle_connections_are_reclaimed_oldest_first)
{
    struct kh_idle_conns *set = kh_idle_conns_new();
    struct kh_idle_link l[3] = {{0}};
    int sv[3][2];
    struct sockaddr_storage got;
    struct sockaddr_in want = v4("10.0.0.2", 7);
    char c;

    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), 0);
        l[i].fd = sv[i][0];
        memcpy(&l[i].addr, &want, sizeof want);
        ((struct sockaddr_in *)&l[i].addr)->sin_port = htons((uint16_t)i);
    }
    kh_idle_enter(set, &l[0], 100);
    kh_idle_enter(set, &l[1], 200);
    kh_idle_enter(set, &l[2], 300);
    ck_assert_uint_eq(kh_idle_count(set), 3);
    kh_idle_leave(set, &l[0]);   /* a request began on the oldest */
    ck_assert_int_eq(kh_idle_reclaim(set, 1150, 1000, &got), -1);   /* l[1] idle 950 ms */
    ck_assert_int_eq(send(sv[1][1], "G", 1, 0), 1);   /* its next request arriving */
    ck_assert_int_eq(kh_idle_reclaim(set, 1200, 1000, &got), -1);
    ck_assert_int_eq(recv(sv[1][0], &c, 1, 0), 1);   /* read: idle again */
    ck_assert_int_eq(kh_idle_reclaim(set, 1200, 1000, &got), 0);
    ck_assert_int_eq(ntohs(((struct sockaddr_in *)&got)->sin_port), 1);
    ck_assert_int_eq(recv(sv[1][1], &c, 1, MSG_DONTWAIT), 0);   /* shut down: end of stream */
    ck_assert_int_eq(recv(sv[2][1], &c, 1, MSG_DONTWAIT), -1);  /* the others untouched */
    ck_assert_int_eq(errno, EAGAIN);
    kh_idle_enter(set, &l[1], 1300);   /* its answer, after: it stays off */
    ck_assert_uint_eq(kh_idle_count(set), 1);
    ck_assert_int_eq(kh_idle_reclaim(set, 1300, 1000, &got), 0);   /* l[2], idle since 300 */
    ck_assert_int_eq(ntohs(((struct sockaddr_in *)&got)->sin_port), 2);
    ck_assert_int_eq(kh_idle_reclaim(set, 9999, 0, &got), -1);   /* l[0] is busy */
    kh_idle_enter(set, &l[0], 2000);
    ck_assert(!kh_idle_closed(set, &l[0]));   /* closed by its client: its own slot */
    ck_assert(kh_idle_closed(set, &l[1]));
    ck_assert(kh_idle_closed(set, &l[2]));
    ck_assert_uint_eq(kh_idle_count(set), 0);
    ck_assert_int_eq(kh_idle_reclaim(set, 9999, 0, &got), -1);
    for (int i = 0; i < 3; i++) {
        close(sv[i][0]);
        close(sv[i][1]);
    }
    kh_idle_conns_free(set);
}
END_TEST

/* ---- the accept loop outlives a failing poll ---- */

static atomic_int poll_failures;
static pthread_mutex_t real_poll_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t real_poll_cv = PTHREAD_COND_INITIALIZER;
static unsigned real_polls;   /* calls that went on to poll(2) */

static int failing_poll(struct pollfd *fds, unsigned long nfds, int timeout)
{
    if (atomic_fetch_sub(&poll_failures, 1) > 0) {
        errno = ENOMEM;
        return -1;
    }
    pthread_mutex_lock(&real_poll_mu);
    real_polls++;
    pthread_cond_broadcast(&real_poll_cv);
    pthread_mutex_unlock(&real_poll_mu);
    return poll(fds, nfds, timeout);
}

/* Wait (bounded) until the loop has gone on to poll(2) more than seen times. */
static int await_real_poll(unsigned seen, const struct timespec *deadline)
{
    int more;

    pthread_mutex_lock(&real_poll_mu);
    while (real_polls <= seen && pthread_cond_timedwait(&real_poll_cv, &real_poll_mu, deadline) == 0)
        ;
    more = real_polls > seen;
    pthread_mutex_unlock(&real_poll_mu);
    return more;
}

struct accepted {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int fd;
    unsigned polls;   /* real_polls when it was accepted */
};

static int on_accept(void *ud, int fd, const struct sockaddr *addr, socklen_t len)
{
    struct accepted *a = ud;
    (void)addr;
    (void)len;
    pthread_mutex_lock(&real_poll_mu);
    unsigned polls = real_polls;
    pthread_mutex_unlock(&real_poll_mu);
    pthread_mutex_lock(&a->mu);
    a->fd = fd;
    a->polls = polls;
    pthread_cond_signal(&a->cv);
    pthread_mutex_unlock(&a->mu);
    return 0;
}

START_TEST(accept_loop_survives_poll_failures)
{
    struct accepted a = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, -1, 0};
    struct sockaddr_in sa = v4("127.0.0.1", 0);
    socklen_t sl = sizeof sa;
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), cfd, cfd2;
    struct kh_acceptor *acc;
    struct timespec deadline;
    char err[128];

    ck_assert_int_ge(lfd, 0);
    ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
    ck_assert_int_eq(listen(lfd, 8), 0);
    ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
    atomic_store(&poll_failures, 3);
    acc = kh_acceptor_start_with(lfd, on_accept, &a, failing_poll, err, sizeof err);
    ck_assert_ptr_nonnull(acc);
    cfd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_eq(connect(cfd, (struct sockaddr *)&sa, sizeof sa), 0);
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&a.mu);
    while (a.fd < 0 && pthread_cond_timedwait(&a.cv, &a.mu, &deadline) == 0)
        ;
    pthread_mutex_unlock(&a.mu);
    ck_assert_int_ge(a.fd, 0);   /* accepted after the failures */
    ck_assert_int_le(atomic_load(&poll_failures), 0);
    /* poll failing for good from the next call, once the loop is back in a
     * real one (which a second client ends): stop must still return */
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    ck_assert(await_real_poll(a.polls, &deadline));
    close(a.fd);
    a.fd = -1;
    atomic_store(&poll_failures, 1 << 30);
    cfd2 = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_eq(connect(cfd2, (struct sockaddr *)&sa, sizeof sa), 0);
    pthread_mutex_lock(&a.mu);
    while (a.fd < 0 && pthread_cond_timedwait(&a.cv, &a.mu, &deadline) == 0)
        ;
    pthread_mutex_unlock(&a.mu);
    ck_assert_int_ge(a.fd, 0);
    kh_acceptor_stop(acc);
    close(a.fd);
    close(cfd);
    close(cfd2);
    close(lfd);
}
END_TEST

START_TEST(body_cap_is_enforced)
{
    kytos_req *r = kh_req_new(NULL, &tp, NULL);
    r->body_limit = 10;
    kh_req_append_body(r, "12345", 5);
    kh_req_append_body(r, "67890", 5);
    ck_assert(!r->body_too_big);
    ck_assert_str_eq(r->body, "1234567890");
    kh_req_append_body(r, "x", 1);
    ck_assert(r->body_too_big);
    ck_assert_ptr_null(r->body);
    kh_req_unref(r);
}
END_TEST

/* ---- strict JSON ---- */

START_TEST(strict_json_messages)
{
    char err[200];
    struct json_object *o = NULL;
    ck_assert_int_eq(kh_json_parse_strict("18446744073709551615", 20, &o, err, sizeof err), 0);
    ck_assert_uint_eq(json_object_get_uint64(o), UINT64_MAX);
    json_object_put(o);
    ck_assert_int_eq(kh_json_parse_strict("null", 4, &o, err, sizeof err), 0);
    ck_assert_ptr_null(o);
    ck_assert_int_ne(kh_json_parse_strict("", 0, &o, err, sizeof err), 0);
    ck_assert_str_eq(err, "Expecting value: line 1 column 1 (char 0)");
    ck_assert_int_ne(kh_json_parse_strict("{} x", 4, &o, err, sizeof err), 0);
    ck_assert_str_eq(err, "Extra data: line 1 column 4 (char 3)");
    ck_assert_int_ne(kh_json_parse_strict("{'a': 1}", 8, &o, err, sizeof err), 0);
    ck_assert_int_ne(kh_json_parse_strict("[NaN]", 5, &o, err, sizeof err), 0);
}
END_TEST

/* ---- kytos.conf ---- */

START_TEST(conf_reads_kytos_ini)
{
    kh_config *c = kh_config_new();
    char err[200];
    const char *text =
        "# comment\n[daemon]\nlisten = 127.0.0.1\napi_port = 8282\ndebug = False\n"
        "thread_pool_max_workers = {\"sb\": 4,\n"
        "    \"app\": 8}\n"
        "jwt_secret = s3cret\nmy_own_key = [1, 2]\n\n[kytos/simnet]\nswitches = 5\nshape = ring\n";
    struct json_object *pub, *v;
    ck_assert_int_eq(kh_config_load_text(c, text, "test.conf", err, sizeof err), 0);
    ck_assert_str_eq(kh_config_str(c, "listen"), "127.0.0.1");
    ck_assert_int_eq(kh_config_int(c, "api_port"), 8282);
    ck_assert_int_eq(kh_config_bool(c, "debug"), 0);
    ck_assert_int_eq(kh_config_check(c, err, sizeof err), 0);
    v = json_object_object_get(kh_config_get(c, "thread_pool_max_workers"), "app");
    ck_assert_int_eq(json_object_get_int(v), 8);
    ck_assert_int_eq(json_object_array_length(kh_config_get(c, "my_own_key")), 2);
    pub = kh_config_public(c);
    ck_assert(!json_object_object_get_ex(pub, "jwt_secret", NULL));
    ck_assert(json_object_object_get_ex(pub, "my_own_key", NULL));
    json_object_put(pub);
    v = kh_config_napp_settings(c, "kytos/simnet");
    ck_assert_int_eq(json_object_get_int(json_object_object_get(v, "switches")), 5);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(v, "shape")), "ring");
    ck_assert_int_eq(json_object_object_length(kh_config_napp_settings(c, "kytos/none")), 0);
    ck_assert_int_ne(kh_config_load_text(c, "[daemon]\nno equals sign\n", "bad.conf", err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "bad.conf:2"));
    ck_assert_int_ne(kh_config_load_text(c, "key = 1\n", "bad2.conf", err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "outside of a [section]"));
    kh_config_free(c);
}
END_TEST

/* Values are checked against host/util/conf_keys.c: type and bounds, with
 * a message naming the key; null and absent values read as the table's
 * default. */
START_TEST(conf_checks_types_and_bounds)
{
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"api_port = 70000", "api_port: 70000 is out of range 0..65535"},
        {"api_ipv6_client_prefix = 0", "api_ipv6_client_prefix: 0 is out of range 1..128"},
        {"api_reclaim_idle_ms = -2", "api_reclaim_idle_ms: -2 is out of range -1..86400000"},
        {"api_max_body = \"big\"", "api_max_body: expected an integer in 1..1073741824, got \"big\""},
        {"api_json_500 = maybe", "api_json_500: expected true or false, got \"maybe\""},
        {"api_poller = select", "api_poller: expected one of poll|epoll, got \"select\""},
        {"store_sync = 1", "store_sync: expected one of normal|full, got 1"},
        {"api_concurrency_limit = \"pool\"", "api_concurrency_limit: expected an integer in 0..1048576 or threadpool"},
        {"log_levels = [1]", "log_levels: expected a JSON object, got [1]"},
        {"dead_letter_max_per_name = 0", "dead_letter_max_per_name: 0 is out of range 1..10000000"},
    };
    char err[200], text[200];
    size_t i;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kh_config *c = kh_config_new();
        snprintf(text, sizeof text, "[daemon]\n%s\n", bad[i].text);
        ck_assert_int_eq(kh_config_load_text(c, text, "t.conf", err, sizeof err), 0);
        err[0] = '\0';
        ck_assert_int_eq(kh_config_check(c, err, sizeof err), -1);
        ck_assert_msg(strncmp(err, bad[i].msg, strlen(bad[i].msg)) == 0, "%s: got '%s'", bad[i].text, err);
        kh_config_free(c);
    }
    {
        kh_config *c = kh_config_new();
        const char *ok = "[daemon]\napi_port = 0\napi_json_500 = on\napi_poller = EPOLL\n"
                         "api_concurrency_limit = 8\nlog_level = debug\nnapps = None\n"
                         "api_max_body = 4096.0\nmy_key = 1\n";
        ck_assert_int_eq(kh_config_load_text(c, ok, "ok.conf", err, sizeof err), 0);
        ck_assert_int_eq(kh_config_check(c, err, sizeof err), 0);
        ck_assert_int_eq(kh_config_int(c, "api_port"), 0);
        ck_assert_int_eq(kh_config_bool(c, "api_json_500"), 1);
        ck_assert_int_eq(kh_config_int(c, "api_max_body"), 4096);
        ck_assert_int_eq(kh_config_int(c, "api_handler_timeout_ms"), 30000);   /* the default */
        ck_assert_str_eq(kh_config_str(c, "napps"), KYTOS_PKGLIBDIR "/napps"); /* null: the default */
        kh_config_free(c);
    }
}
END_TEST

/* ---- work pools ---- */

struct order {
    pthread_mutex_t mu;
    int seen[64];
    int n;
};

static void record(void *arg)
{
    struct order *o = *(struct order **)arg;
    int v = ((int *)arg)[sizeof(void *) / sizeof(int)];
    pthread_mutex_lock(&o->mu);
    o->seen[o->n++] = v;
    pthread_mutex_unlock(&o->mu);
}

static void policy_of(void *arg)
{
    *(int *)arg = sched_getscheduler(0);
}

/* Pool workers run as SCHED_BATCH (workpool.c: a woken worker must not
 * preempt the I/O thread that queued its job). */
START_TEST(workpool_workers_are_batch)
{
#ifdef SCHED_BATCH
    int before = sched_getscheduler(0), policy = -1;
    kh_workpool *p;

    if (before != SCHED_OTHER)
        return;   /* run under chrt: a SCHED_IDLE caller's workers may not leave it */
    p = kh_workpool_new("t", 2, 4);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(kh_workpool_submit(p, policy_of, &policy, 0), 0);
    ck_assert_int_eq(kh_workpool_drain(p, 5000), 0);
    ck_assert_int_eq(policy, SCHED_BATCH);
    ck_assert_int_eq(sched_getscheduler(0), before);   /* the caller's is its own */
    kh_workpool_free(p);
#endif
}
END_TEST

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static void blocker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&gate);
    pthread_mutex_unlock(&gate);
}

START_TEST(workpool_fifo_full_and_drain)
{
    kh_workpool *p = kh_workpool_new("t", 1, 4);
    static struct order o = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};
    struct { struct order *o; int v; } args[8];
    int i;
    ck_assert_ptr_nonnull(p);
    pthread_mutex_lock(&gate);
    ck_assert_int_eq(kh_workpool_submit(p, blocker, NULL, 0), 0);
    ck_assert_int_eq(kh_workpool_drain(p, 50), KYTOS_ETIMEDOUT);   /* blocked */
    for (i = 0; i < 4; i++) {
        args[i].o = &o;
        args[i].v = i;
        ck_assert_int_eq(kh_workpool_submit(p, record, &args[i], 0), 0);
    }
    /* the blocker may or may not have been taken off the queue yet */
    if (kh_workpool_queued(p) == 4) {
        ck_assert_int_eq(kh_workpool_submit(p, record, &args[0], 0), KYTOS_EFULL);
        ck_assert_int_eq(kh_workpool_submit(p, record, &args[0], 30), KYTOS_ETIMEDOUT);
    }
    pthread_mutex_unlock(&gate);
    ck_assert_int_eq(kh_workpool_drain(p, 5000), 0);
    ck_assert_int_eq(o.n, 4);
    for (i = 0; i < 4; i++)
        ck_assert_int_eq(o.seen[i], i);   /* one thread: FIFO */
    kh_workpool_free(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("host_core");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, router_literal_beats_param_and_types);
    tcase_add_test(tc, router_refuses_conflicts_and_bad_templates);
    tcase_add_test(tc, router_resolves_pools_when_routes_are_added);
    tcase_add_test(tc, target_decodes_per_segment);
    tcase_add_test(tc, headers_are_copies_that_outlive_the_answer);
    tcase_add_test(tc, query_pairs_are_bounded);
    tcase_add_test(tc, connection_limits_count_per_address_and_in_total);
    tcase_add_test(tc, per_client_limits_group_ipv6_by_prefix);
    tcase_add_test(tc, idle_connections_are_reclaimed_oldest_first);
    tcase_add_test(tc, accept_loop_survives_poll_failures);
    tcase_add_test(tc, body_cap_is_enforced);
    tcase_add_test(tc, strict_json_messages);
    tcase_add_test(tc, conf_reads_kytos_ini);
    tcase_add_test(tc, conf_checks_types_and_bounds);
    tcase_add_test(tc, workpool_fifo_full_and_drain);
    tcase_add_test(tc, workpool_workers_are_batch);
    suite_add_tcase(s, tc);
    return kytos_check_run(s);
}
