/* tests/host/check_request.c - the request object (host/http/request.c): target
 * decoding per segment, bounded query pairs, header copies that outlive the
 * answer, the body cap. */
#include "check_tap.h"
#include "host/http/request.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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
    ck_assert_str_eq(err, "Bad percent-encoding '%zz' in path");
    kh_req_unref(r);
    r = kh_req_new(NULL, &tp, NULL);
    ck_assert_int_eq(kh_req_set_target(r, "GET", "/a/%00", err, sizeof err), 400);
    ck_assert_str_eq(err, "Bad percent-encoding '%00' in path");
    kh_req_unref(r);
    r = kh_req_new(NULL, &tp, NULL);
    ck_assert_int_eq(kh_req_set_target(r, "GET", "/a/b%4", err, sizeof err), 400);
    ck_assert_str_eq(err, "Bad percent-encoding '%4' in path");
    kh_req_unref(r);
    /* a bad escape in the query is the request's error too, not a pair dropped */
    r = kh_req_new(NULL, &tp, NULL);
    ck_assert_int_eq(kh_req_set_target(r, "GET", "/a?x=1&y=%g1", err, sizeof err), 400);
    ck_assert_str_eq(err, "Bad percent-encoding '%g1' in query");
    kh_req_unref(r);
    r = kh_req_new(NULL, &tp, NULL);
    ck_assert_int_eq(kh_req_set_target(r, "GET", "/a?x=%", err, sizeof err), 400);
    ck_assert_str_eq(err, "Bad percent-encoding '%' in query");
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

int main(void)
{
    Suite *s = suite_create("request");

    kytos_check_add(s, "headers_are_copies_that_outlive_the_answer", headers_are_copies_that_outlive_the_answer);
    kytos_check_add(s, "target_decodes_per_segment", target_decodes_per_segment);
    kytos_check_add(s, "query_pairs_are_bounded", query_pairs_are_bounded);
    kytos_check_add(s, "body_cap_is_enforced", body_cap_is_enforced);
    return kytos_check_run(s);
}
