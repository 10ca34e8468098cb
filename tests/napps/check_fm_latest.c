/* tests/napps/check_fm_latest.c - kytos/flow_manager's latest-write table
 * (plugins/flow_manager/pending.c): bounded, set-associative, and what it
 * forgets is the flow written longest ago, not one still waiting for its
 * barrier.  A forgotten id answers "unknown" (-1), which sends its
 * confirmation to the store: never a wrong "current" or "stale". */
#include "check_tap.h"
#include "fm.h"

#include <stdio.h>

#define W FM_LATEST_WAYS

/* A match id (32 hex digits) whose first 8 digits, which pick the set,
 * are head: ids with one head share a set. */
static void mid(char out[33], uint32_t head, unsigned tail)
{
    snprintf(out, 33, "%08x%024x", head, tail);
}

/* n ids of the set head; the first W of them written with generations
 * gen0, gen0 + 1, ... (gen0 0: none written) */
static void fill_set(struct fm_pending *p, char (*id)[33], unsigned n, uint32_t head, uint32_t gen0)
{
    for (unsigned i = 0; i < n; i++)
        mid(id[i], head, i);
    for (unsigned i = 0; gen0 && i < W; i++)
        fm_latest_set(p, id[i], gen0 + i);
}

START_TEST(a_set_keeps_its_ways)
{
    struct fm_pending *p = fm_pending_new();
    char id[W + 1][33];

    /* a set's worth of ids: a direct-mapped table kept only the last */
    fill_set(p, id, W + 1, 0x1234abcd, 10);
    for (unsigned i = 0; i < W; i++) {
        ck_assert_int_eq(fm_latest_check(p, id[i], 10 + i), 1);
        ck_assert_int_eq(fm_latest_check(p, id[i], 9), 0);
        ck_assert_uint_eq(fm_latest_get(p, id[i]), 10 + i);
    }
    /* one more takes the oldest one's slot */
    fm_latest_set(p, id[W], 10 + W);
    ck_assert_int_eq(fm_latest_check(p, id[0], 10), -1);
    ck_assert_uint_eq(fm_latest_get(p, id[0]), 0);
    for (unsigned i = 1; i <= W; i++)
        ck_assert_int_eq(fm_latest_check(p, id[i], 10 + i), 1);
    fm_pending_free(p);
}
END_TEST

START_TEST(the_oldest_write_goes_first)
{
    struct fm_pending *p = fm_pending_new();
    char id[W + 1][33];

    fill_set(p, id, W + 1, 0xfeed0001, 1);
    fm_latest_set(p, id[0], 100);   /* written again: now the newest */
    fm_latest_set(p, id[W], 101);
    ck_assert_int_eq(fm_latest_check(p, id[1], 2), -1);
    ck_assert_int_eq(fm_latest_check(p, id[0], 100), 1);
    ck_assert_int_eq(fm_latest_check(p, id[2], 3), 1);
    ck_assert_int_eq(fm_latest_check(p, id[W], 101), 1);
    fm_pending_free(p);
}
END_TEST

START_TEST(generations_compare_across_the_wrap)
{
    struct fm_pending *p = fm_pending_new();
    char id[W + 1][33];

    fill_set(p, id, W + 1, 0x00c0ffee, 0);
    /* the last two after the counter wrapped: the newest */
    for (unsigned i = 0; i < W; i++)
        fm_latest_set(p, id[i], 0xfffffff0u + i + (i >= W - 2 ? 0x20u : 0));
    fm_latest_set(p, id[W], 0x40u);
    ck_assert_int_eq(fm_latest_check(p, id[0], 0xfffffff0u), -1);
    ck_assert_int_eq(fm_latest_check(p, id[W - 1], 0xfffffff0u + (W - 1) + 0x20u), 1);
    ck_assert_int_eq(fm_latest_check(p, id[1], 0xfffffff1u), 1);
    fm_pending_free(p);
}
END_TEST

/* An unknown id's snapshot (gen 0) stays "unchanged" only while no id of
 * its set loses a slot: a newer write of it may have been lost with one. */
START_TEST(evictions_count_per_set)
{
    struct fm_pending *p = fm_pending_new();
    char id[W + 2][33], other[33];
    uint32_t gen, ev;

    fill_set(p, id, W + 2, 0x5eed5eed, 0);
    mid(other, 0x0badf00d, 0);
    fm_latest_snapshot(p, id[W + 1], &gen, &ev);
    ck_assert_uint_eq(gen, 0);
    fill_set(p, id, W + 2, 0x5eed5eed, 20);   /* empty ways: nobody evicted */
    fm_latest_set(p, other, 30);           /* another set */
    ck_assert_int_eq(fm_latest_unchanged(p, id[W + 1], 0, ev), 1);
    fm_latest_set(p, id[W], 40);           /* evicts id[0] */
    ck_assert_int_eq(fm_latest_unchanged(p, id[W + 1], 0, ev), 0);
    /* a known id's snapshot follows its own generation */
    fm_latest_snapshot(p, id[W], &gen, &ev);
    ck_assert_uint_eq(gen, 40);
    ck_assert_int_eq(fm_latest_unchanged(p, id[W], 40, ev), 1);
    fm_latest_set(p, id[W], 41);
    ck_assert_int_eq(fm_latest_unchanged(p, id[W], 40, ev), 0);
    fm_pending_free(p);
}
END_TEST

START_TEST(a_forgotten_id_frees_its_way)
{
    struct fm_pending *p = fm_pending_new();
    char id[W + 1][33];
    uint32_t gen, ev, ev2;

    fill_set(p, id, W + 1, 0xabcdef01, 50);
    fm_latest_forget(p, id[2], 99);   /* not its generation: kept */
    ck_assert_int_eq(fm_latest_check(p, id[2], 52), 1);
    fm_latest_forget(p, id[2], 52);
    ck_assert_int_eq(fm_latest_check(p, id[2], 52), -1);
    fm_latest_snapshot(p, id[W], &gen, &ev);
    fm_latest_set(p, id[W], 90);      /* into the freed way */
    fm_latest_snapshot(p, id[0], &gen, &ev2);
    ck_assert_uint_eq(ev2, ev);       /* nobody evicted */
    for (unsigned i = 0; i < W; i++)
        ck_assert_int_eq(fm_latest_check(p, id[i], 50 + i), i == 2 ? -1 : 1);
    ck_assert_int_eq(fm_latest_check(p, id[W], 90), 1);
    /* advance and replace_if act on the id's own way */
    fm_latest_advance(p, id[W], 90, 91);
    ck_assert_int_eq(fm_latest_check(p, id[W], 91), 1);
    ck_assert_int_eq(fm_latest_replace_if(p, id[W], 90, 95), 0);
    ck_assert_int_eq(fm_latest_replace_if(p, id[W], 91, 95), 1);
    ck_assert_int_eq(fm_latest_check(p, id[W], 95), 1);
    ck_assert_int_eq(fm_latest_replace_if(p, id[2], 52, 80), -1);
    fm_pending_free(p);
}
END_TEST

/* New flows written after a batch still waiting for its barrier (5,000:
 * several failover batches' worth) over 40,000 written long ago: the
 * batch stays known, the old ones give way.  Direct-mapped, 49 of its
 * 600 came back unknown, each a store read. */
/* a uniform head for flow i, as md5's first digits are */
static uint32_t spread(unsigned i)
{
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    return (uint32_t)(x >> 32);
}

START_TEST(a_flood_of_new_flows_spares_the_recent_ones)
{
    struct fm_pending *p = fm_pending_new();
    char id[33];
    unsigned lost = 0;

    /* 40,000 flows written long ago, then 600 in flight, then 5,000 more */
    for (unsigned i = 0; i < 40000; i++) {
        mid(id, spread(i), i);
        fm_latest_set(p, id, 1 + i);
    }
    for (unsigned i = 0; i < 600; i++) {
        mid(id, spread((i + 90000)), i + 90000);
        fm_latest_set(p, id, 100000 + i);
    }
    for (unsigned i = 0; i < 5000; i++) {
        mid(id, spread((i + 200000)), i + 200000);
        fm_latest_set(p, id, 200000 + i);
    }
    for (unsigned i = 0; i < 600; i++) {
        mid(id, spread((i + 90000)), i + 90000);
        lost += fm_latest_check(p, id, 100000 + i) != 1;
    }
    ck_assert_uint_eq(lost, 0);
    fm_pending_free(p);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("fm_latest");

    kytos_check_add(s, "a_set_keeps_its_ways", a_set_keeps_its_ways);
    kytos_check_add(s, "the_oldest_write_goes_first", the_oldest_write_goes_first);
    kytos_check_add(s, "generations_compare_across_the_wrap", generations_compare_across_the_wrap);
    kytos_check_add(s, "evictions_count_per_set", evictions_count_per_set);
    kytos_check_add(s, "a_forgotten_id_frees_its_way", a_forgotten_id_frees_its_way);
    kytos_check_add(s, "a_flood_of_new_flows_spares_the_recent_ones",
                    a_flood_of_new_flows_spares_the_recent_ones);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
