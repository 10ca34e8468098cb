/* tests/host/check_router.c - the path trie (host/http/router.c): literal segments
 * before parameters, typed parameters, 404/405 with Allow, conflicts and bad
 * templates refused. */
#include "check_tap.h"
#include "host/http/router.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
    Suite *s = suite_create("router");

    kytos_check_add(s, "router_literal_beats_param_and_types", router_literal_beats_param_and_types);
    kytos_check_add(s, "router_refuses_conflicts_and_bad_templates", router_refuses_conflicts_and_bad_templates);
    kytos_check_add(s, "router_resolves_pools_when_routes_are_added", router_resolves_pools_when_routes_are_added);
    return kytos_check_run(s);
}
