/* tests/host/check_http_servers.c - two HTTP servers on one front door
 * (HTTPS on api_port, plain HTTP on api_http_port share a kh_http_ctx):
 * stopping one neither answers the other's requests nor keeps the other's
 * answers from going out. */
#include "check_tap.h"
#include "host/http/http_server.h"
#include "host/http/req_api.h"
#include "host/util/conf.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int slow_started, slow_release;

static int hello(kytos_req *r, void *ud)
{
    (void)ud;
    return kh_resp_raw(r, 200, "text/plain", "hi", 2);
}

/* Answers once the test releases it. */
static int slow(kytos_req *r, void *ud)
{
    (void)ud;
    pthread_mutex_lock(&mu);
    slow_started = 1;
    pthread_cond_broadcast(&cv);
    while (!slow_release)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    return kh_resp_raw(r, 200, "text/plain", "slow", 4);
}

static struct kh_route *route(const char *path, kytos_handler fn)
{
    struct kh_route *rt = calloc(1, sizeof *rt);
    rt->method = strdup("GET");
    rt->path = strdup(path);
    rt->handler = fn;
    return rt;
}

/* A request sent on a fresh connection: its socket. */
static int send_get(unsigned port, const char *path)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    struct timeval tv = {5, 0};
    char req[256];
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", path);

    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ck_assert_int_eq(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
    return fd;
}

/* The answer's status line and body ("" when none came within 5 s). */
static void read_answer(int fd, char *out, size_t len)
{
    size_t got = 0;
    ssize_t n;

    while (got + 1 < len && (n = recv(fd, out + got, len - 1 - got, 0)) > 0)
        got += (size_t)n;
    out[got] = '\0';
    close(fd);
}

static void get(unsigned port, const char *path, char *out, size_t len)
{
    read_answer(send_get(port, path), out, len);
}

START_TEST(stopping_one_server_leaves_the_other_serving)
{
    struct kh_http_ctx ctx;
    kh_config *cfg = kh_config_new();
    struct kh_route *routes = route("/api/t/hello", hello);
    struct kh_http *a, *b;
    char err[256], buf[2048];
    int fd;

    memset(&ctx, 0, sizeof ctx);
    pthread_mutex_init(&ctx.watch_mu, NULL);
    ck_assert_int_eq(kh_config_load_text(cfg, "[daemon]\nlisten = 127.0.0.1\n", "t.conf", err, sizeof err), 0);
    routes->next = route("/api/t/slow", slow);
    ctx.router = kh_router_new(NULL, NULL, NULL);
    ctx.api_pool = kh_workpool_new("api", 2, 64);
    ctx.max_body = 1 << 20;
    ck_assert_int_eq(kh_router_swap(ctx.router, routes, NULL, err, sizeof err), 0);
    ck_assert_int_eq(kh_watchdog_start(&ctx), 0);
    a = kh_http_start_on(&ctx, cfg, 0, 0, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    b = kh_http_start_on(&ctx, cfg, 0, 0, err, sizeof err);
    ck_assert_msg(b != NULL, "%s", err);

    get(kh_http_port(b), "/api/t/hello", buf, sizeof buf);
    ck_assert_msg(strncmp(buf, "HTTP/1.1 200", 12) == 0 && strstr(buf, "\r\n\r\nhi"), "%s", buf);

    /* a request of b's in its handler while a stops: a does not answer it */
    fd = send_get(kh_http_port(b), "/api/t/slow");
    pthread_mutex_lock(&mu);
    while (!slow_started)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    kh_http_stop(a, 100);
    pthread_mutex_lock(&mu);
    slow_release = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    read_answer(fd, buf, sizeof buf);
    ck_assert_msg(strncmp(buf, "HTTP/1.1 200", 12) == 0 && strstr(buf, "\r\n\r\nslow"),
                  "b's request answered by its handler, not by a's stop: '%s'", buf);

    /* and b still resumes the connections of pooled answers */
    get(kh_http_port(b), "/api/t/hello", buf, sizeof buf);
    ck_assert_msg(strncmp(buf, "HTTP/1.1 200", 12) == 0 && strstr(buf, "\r\n\r\nhi"),
                  "b answers after a stopped: '%s'", buf);

    kh_http_stop(b, 1000);
    kh_watchdog_stop(&ctx);
    kh_workpool_free(ctx.api_pool);
    kh_router_free(ctx.router);
    while (routes) {   /* the router does not own them */
        struct kh_route *next = routes->next;
        free(routes->method);
        free(routes->path);
        free(routes);
        routes = next;
    }
    pthread_mutex_destroy(&ctx.watch_mu);
    kh_config_free(cfg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("http_servers");

    kytos_check_add(s, "stopping_one_server_leaves_the_other_serving",
                    stopping_one_server_leaves_the_other_serving);
    return kytos_check_run(s);
}
