/* tests/southbound/check_sb_units.c - the OpenFlow server's building blocks
 * on their own: the framer (host/southbound/framing.c) and the send queue
 * (host/southbound/sendq.c). */
#include "check_tap.h"
#include "southbound/framing.h"
#include "southbound/sendq.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- framer ---- */

#define MAXMSGS 64

struct got {
    size_t n;
    size_t len[MAXMSGS];
    uint32_t xid[MAXMSGS];
    int intact[MAXMSGS];    /* the body is the pattern the test wrote */
    int stop_after;         /* ask the framer to stop after this many (0 = never) */
};

static size_t put_msg(uint8_t *p, uint8_t version, uint16_t len, uint32_t xid)
{
    size_t i;
    p[0] = version;
    p[1] = 0xf5;
    p[2] = (uint8_t)(len >> 8);
    p[3] = (uint8_t)len;
    p[4] = (uint8_t)(xid >> 24);
    p[5] = (uint8_t)(xid >> 16);
    p[6] = (uint8_t)(xid >> 8);
    p[7] = (uint8_t)xid;
    for (i = 8; i < len; i++)
        p[i] = (uint8_t)(xid * 7 + i);
    return len;
}

static int collect(void *ud, const uint8_t *m, size_t len)
{
    struct got *g = ud;
    uint32_t xid = (uint32_t)m[4] << 24 | (uint32_t)m[5] << 16 | (uint32_t)m[6] << 8 | m[7];
    size_t i;
    int ok = ((size_t)m[2] << 8 | m[3]) == len;

    for (i = 8; i < len && ok; i++)
        ok = m[i] == (uint8_t)(xid * 7 + i);
    if (g->n < MAXMSGS) {
        g->len[g->n] = len;
        g->xid[g->n] = xid;
        g->intact[g->n] = ok;
    }
    g->n++;
    return g->stop_after && g->n >= (size_t)g->stop_after;
}

static const uint16_t lens[] = {8, 9, 16, 100, 1500, 8, 65535, 12, 8, 4096, 65535, 300};
#define NLENS (sizeof lens / sizeof lens[0])

static uint8_t *stream(size_t *total)
{
    size_t i, off = 0, sum = 0;
    uint8_t *s;

    for (i = 0; i < NLENS; i++)
        sum += lens[i];
    s = malloc(sum);
    for (i = 0; i < NLENS; i++)
        off += put_msg(s + off, 4, lens[i], (uint32_t)i);
    *total = sum;
    return s;
}

static void check_all(const struct got *g)
{
    size_t i;
    ck_assert_uint_eq(g->n, NLENS);
    for (i = 0; i < NLENS; i++) {
        ck_assert_uint_eq(g->len[i], lens[i]);
        ck_assert_uint_eq(g->xid[i], i);
        ck_assert_int_eq(g->intact[i], 1);
    }
}

START_TEST(framer_whole_stream_at_once)
{
    struct kh_framer f = {0};
    struct got g = {0};
    size_t n;
    uint8_t *s = stream(&n);

    ck_assert_int_eq(kh_framer_feed(&f, s, n, collect, &g, NULL), KH_FRAME_OK);
    check_all(&g);
    ck_assert_uint_eq(kh_framer_pending(&f), 0);
    kh_framer_reset(&f);
    free(s);
}
END_TEST

START_TEST(framer_byte_by_byte)
{
    enum kh_frame_status st = KH_FRAME_OK;
    struct kh_framer f = {0};
    struct got g = {0};
    size_t n, i;
    uint8_t *s = stream(&n);

    /* (one check at the end: each Check assertion costs a write) */
    for (i = 0; i < n && st == KH_FRAME_OK; i++)
        st = kh_framer_feed(&f, s + i, 1, collect, &g, NULL);
    ck_assert_int_eq(st, KH_FRAME_OK);
    check_all(&g);
    ck_assert_uint_eq(kh_framer_pending(&f), 0);
    kh_framer_reset(&f);
    free(s);
}
END_TEST

START_TEST(framer_random_cuts)
{
    size_t n, seed;
    uint8_t *s = stream(&n);

    for (seed = 1; seed <= 100; seed++) {
        struct kh_framer f = {0};
        struct got g = {0};
        enum kh_frame_status st = KH_FRAME_OK;
        size_t off = 0;
        srand((unsigned)seed);
        while (off < n && st == KH_FRAME_OK) {
            size_t take = (size_t)rand() % (seed % 4 == 0 ? 9 : seed % 2 ? 70000 : 300) + 1;
            if (take > n - off)
                take = n - off;
            st = kh_framer_feed(&f, s + off, take, collect, &g, NULL);
            off += take;
        }
        ck_assert_int_eq(st, KH_FRAME_OK);
        check_all(&g);
        ck_assert_uint_eq(kh_framer_pending(&f), 0);
        kh_framer_reset(&f);
    }
    free(s);
}
END_TEST

START_TEST(framer_holds_an_incomplete_message)
{
    struct kh_framer f = {0};
    struct got g = {0};
    uint8_t m[200];

    put_msg(m, 4, 200, 9);
    ck_assert_int_eq(kh_framer_feed(&f, m, 5, collect, &g, NULL), KH_FRAME_OK);
    ck_assert_uint_eq(kh_framer_pending(&f), 5);
    ck_assert_int_eq(kh_framer_feed(&f, m + 5, 100, collect, &g, NULL), KH_FRAME_OK);
    ck_assert_uint_eq(kh_framer_pending(&f), 105);
    ck_assert_uint_eq(g.n, 0);
    ck_assert_int_eq(kh_framer_feed(&f, m + 105, 95, collect, &g, NULL), KH_FRAME_OK);
    ck_assert_uint_eq(g.n, 1);
    ck_assert_int_eq(g.intact[0], 1);
    ck_assert_uint_eq(kh_framer_pending(&f), 0);
    kh_framer_reset(&f);
}
END_TEST

static void expect_bad(const uint8_t hdr[8], enum kh_frame_status want, unsigned version,
                       unsigned length)
{
    uint8_t buf[24];
    size_t split;

    /* a good message first; the bad header whole, or split anywhere */
    put_msg(buf, 4, 16, 1);
    memcpy(buf + 16, hdr, 8);
    for (split = 0; split <= 24; split++) {
        struct kh_framer f = {0};
        struct got g = {0};
        struct kh_frame_error e = {0, 0};
        enum kh_frame_status st = kh_framer_feed(&f, buf, split, collect, &g, &e);
        if (st == KH_FRAME_OK)
            st = kh_framer_feed(&f, buf + split, 24 - split, collect, &g, &e);
        ck_assert_int_eq(st, want);
        ck_assert_uint_eq(g.n, 1);          /* the good one came out first */
        ck_assert_uint_eq(e.version, version);
        ck_assert_uint_eq(e.length, length);
        kh_framer_reset(&f);
    }
}

START_TEST(framer_rejects_bad_headers)
{
    const uint8_t len0[8] = {4, 0, 0, 0, 0, 0, 0, 1}, len7[8] = {4, 0, 0, 7, 0, 0, 0, 1};
    const uint8_t v0[8] = {0, 0, 0, 8, 0, 0, 0, 1}, v7[8] = {7, 0, 0, 8, 0, 0, 0, 1};
    const uint8_t v255[8] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1};
    const uint8_t v1[8] = {1, 0, 0, 8, 0, 0, 0, 1}, v6[8] = {6, 0, 0, 8, 0, 0, 0, 1};
    struct kh_framer f = {0};
    struct got g = {0};

    expect_bad(len0, KH_FRAME_BAD_LENGTH, 4, 0);
    expect_bad(len7, KH_FRAME_BAD_LENGTH, 4, 7);
    expect_bad(v0, KH_FRAME_BAD_VERSION, 0, 8);
    expect_bad(v7, KH_FRAME_BAD_VERSION, 7, 8);
    expect_bad(v255, KH_FRAME_BAD_VERSION, 255, 65535);
    /* versions 1 and 6 pass the framing (of_core negotiates) */
    ck_assert_int_eq(kh_framer_feed(&f, v1, 8, collect, &g, NULL), KH_FRAME_OK);
    ck_assert_int_eq(kh_framer_feed(&f, v6, 8, collect, &g, NULL), KH_FRAME_OK);
    ck_assert_uint_eq(g.n, 2);
    kh_framer_reset(&f);
}
END_TEST

START_TEST(framer_stops_when_asked)
{
    struct kh_framer f = {0};
    struct got g = {.stop_after = 2};
    size_t n;
    uint8_t *s = stream(&n);

    ck_assert_int_eq(kh_framer_feed(&f, s, n, collect, &g, NULL), KH_FRAME_STOPPED);
    ck_assert_uint_eq(g.n, 2);
    kh_framer_reset(&f);
    free(s);
}
END_TEST

/* ---- send queue ---- */

static int pair[2];

static void sock_setup(void)
{
    int sz = 4096;
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    fcntl(pair[0], F_SETFL, O_NONBLOCK);
    setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
    setsockopt(pair[1], SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
}

static void sock_teardown(void)
{
    close(pair[0]);
    close(pair[1]);
}

/* Everything readable on the other end, after the queue is written out. */
static size_t drain(struct kh_sendq *q, uint8_t *out, size_t cap)
{
    size_t got = 0;
    int spins = 0;

    while ((q->head || got < cap) && spins < 100000) {
        ssize_t r;
        if (kh_sendq_write(q, pair[0]) < 0)
            ck_abort_msg("kh_sendq_write: %s", strerror(errno));
        r = recv(pair[1], out + got, cap - got, MSG_DONTWAIT);
        if (r > 0)
            got += (size_t)r;
        else if (!q->head)
            break;
        spins++;
    }
    return got;
}

START_TEST(sendq_keeps_order_and_counts)
{
    struct kh_sendq q = {0};
    static uint8_t in[300000], out[300000];
    size_t i, off = 0;

    for (i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)(i * 13);
    /* small copies (they share chunks), big copies, given buffers */
    while (off < sizeof in) {
        size_t n = off % 3 == 0 ? 17 : off % 3 == 1 ? 5000 : 70000;
        if (n > sizeof in - off)
            n = sizeof in - off;
        if (off % 2) {
            uint8_t *b = malloc(n);
            memcpy(b, in + off, n);
            ck_assert_int_eq(kh_sendq_push_give(&q, b, n, 0, 0), 0);
        } else {
            ck_assert_int_eq(kh_sendq_push(&q, in + off, n, 0, 0), 0);
        }
        off += n;
    }
    ck_assert_uint_eq(q.bytes, sizeof in);
    ck_assert_uint_ge(q.mem, sizeof in);
    ck_assert_uint_eq(drain(&q, out, sizeof out), sizeof in);
    ck_assert_int_eq(memcmp(in, out, sizeof in), 0);
    ck_assert_uint_eq(q.bytes, 0);
    ck_assert_uint_eq(q.mem, 0);
    ck_assert_ptr_null(q.head);
}
END_TEST

START_TEST(sendq_memory_counts_small_sends_fairly)
{
    struct kh_sendq q = {0};
    uint8_t b[8] = {4, 3, 0, 8, 0, 0, 0, 0};
    size_t i;

    for (i = 0; i < 10000; i++)
        if (kh_sendq_push(&q, b, sizeof b, 0, 0) != 0)
            ck_abort_msg("push %zu failed", i);
    /* 80000 bytes in shared chunks: overhead stays small */
    ck_assert_uint_eq(q.bytes, 80000);
    ck_assert_uint_lt(q.mem, 80000 + 80000 / 10);
    /* each push costs at most kh_sendq_cost: a bound checked with it holds */
    ck_assert_uint_ge(kh_sendq_cost(8), 8);
    kh_sendq_clear(&q);
    ck_assert_uint_eq(q.mem, 0);
}
END_TEST

START_TEST(sendq_urgent_goes_ahead_of_what_has_not_started)
{
    struct kh_sendq q = {0};
    uint8_t big[20000], out[20000 + 3 * 8 + 8];
    const uint8_t u1[8] = "URGENT1", u2[8] = "URGENT2", n1[8] = "NORMAL1";
    size_t got;

    memset(big, 'b', sizeof big);
    ck_assert_int_eq(kh_sendq_push(&q, big, sizeof big, 0, 0), 0);
    /* the big chunk starts going out: urgent data must not cut into it */
    ck_assert_int_gt(kh_sendq_write(&q, pair[0]), 0);
    ck_assert_ptr_nonnull(q.head);
    ck_assert_int_eq(kh_sendq_push(&q, n1, 8, 0, 0), 0);
    ck_assert_int_eq(kh_sendq_push(&q, u1, 8, 0, 1), 0);
    ck_assert_int_eq(kh_sendq_push(&q, u2, 8, 0, 1), 0);
    /* drain whatever the first write put out, then the rest */
    got = drain(&q, out, sizeof out);
    ck_assert_uint_eq(got, sizeof big + 24);
    ck_assert_int_eq(memcmp(out, big, sizeof big), 0);
    ck_assert_int_eq(memcmp(out + sizeof big, "URGENT1", 8), 0);
    ck_assert_int_eq(memcmp(out + sizeof big + 8, "URGENT2", 8), 0);
    ck_assert_int_eq(memcmp(out + sizeof big + 16, "NORMAL1", 8), 0);
}
END_TEST

START_TEST(sendq_urgent_first_when_nothing_started)
{
    struct kh_sendq q = {0};
    uint8_t out[32];

    ck_assert_int_eq(kh_sendq_push(&q, "normal1", 8, 0, 0), 0);
    ck_assert_int_eq(kh_sendq_push(&q, "urgent1", 8, 0, 1), 0);
    ck_assert_int_eq(kh_sendq_push(&q, "normal2", 8, 0, 0), 0);
    ck_assert_int_eq(kh_sendq_push(&q, "urgent2", 8, 0, 1), 0);
    ck_assert_uint_eq(drain(&q, out, sizeof out), 32);
    ck_assert_int_eq(memcmp(out, "urgent1\0urgent2\0normal1\0normal2", 32), 0);
}
END_TEST

START_TEST(sendq_given_buffer_partly_written)
{
    struct kh_sendq q = {0};
    uint8_t *b = malloc(100), out[100];
    size_t i;

    for (i = 0; i < 100; i++)
        b[i] = (uint8_t)i;
    /* the caller wrote 30 bytes itself: the queue sends the other 70 */
    ck_assert_int_eq(kh_sendq_push_give(&q, b, 100, 30, 0), 0);
    ck_assert_uint_eq(q.bytes, 70);
    ck_assert_uint_eq(drain(&q, out, sizeof out), 70);
    for (i = 0; i < 70; i++)
        ck_assert_uint_eq(out[i], 30 + i);
}
END_TEST

START_TEST(sendq_urgent_never_cuts_into_a_message_the_sender_began)
{
    struct kh_sendq q = {0};
    uint8_t out[24];

    /* the sender wrote "MESS" of "MESSAGE1" itself, then queued the rest */
    ck_assert_int_eq(kh_sendq_push(&q, "MESSAGE1", 8, 4, 0), 0);
    ck_assert_uint_eq(q.bytes, 4);
    ck_assert_int_eq(kh_sendq_push(&q, "URGENT1", 8, 0, 1), 0);
    ck_assert_int_eq(kh_sendq_push(&q, "NORMAL1", 8, 0, 0), 0);
    ck_assert_uint_eq(drain(&q, out, sizeof out), 20);
    ck_assert_int_eq(memcmp(out, "AGE1URGENT1\0NORMAL1", 20), 0);
}
END_TEST

START_TEST(sendq_write_error_is_reported)
{
    struct kh_sendq q = {0};

    ck_assert_int_eq(kh_sendq_push(&q, "12345678", 8, 0, 0), 0);
    close(pair[1]);
    pair[1] = socket(AF_UNIX, SOCK_STREAM, 0);   /* for teardown */
    ck_assert_int_eq(kh_sendq_write(&q, pair[0]), -1);
    ck_assert_int_eq(errno, EPIPE);
    kh_sendq_clear(&q);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("southbound units");
    TCase *f = tcase_create("framing"), *q = tcase_create("sendq");

    tcase_add_test(f, framer_whole_stream_at_once);
    tcase_add_test(f, framer_byte_by_byte);
    tcase_add_test(f, framer_random_cuts);
    tcase_add_test(f, framer_holds_an_incomplete_message);
    tcase_add_test(f, framer_rejects_bad_headers);
    tcase_add_test(f, framer_stops_when_asked);
    suite_add_tcase(s, f);
    tcase_add_checked_fixture(q, sock_setup, sock_teardown);
    tcase_add_test(q, sendq_keeps_order_and_counts);
    tcase_add_test(q, sendq_memory_counts_small_sends_fairly);
    tcase_add_test(q, sendq_urgent_goes_ahead_of_what_has_not_started);
    tcase_add_test(q, sendq_urgent_first_when_nothing_started);
    tcase_add_test(q, sendq_given_buffer_partly_written);
    tcase_add_test(q, sendq_urgent_never_cuts_into_a_message_the_sender_began);
    tcase_add_test(q, sendq_write_error_is_reported);
    suite_add_tcase(s, q);
    return kytos_check_run(s);
}
