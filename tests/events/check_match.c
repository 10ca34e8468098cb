/* tests/events/check_match.c - the listen_to rule (the pattern matches the
 * whole name, POSIX ERE) and the per-name subscriber cache. */
#include "check_tap.h"
#include "host/events/event_match.h"
#include "host/events/event_strmap.h"
#include "host/events/event_util.h"
#include <stdio.h>
#include <string.h>

static int dummy(kytos_napp *n, const kytos_event *e, void *ud) { return 0; }

static int full(const char *pattern, const char *name)
{
    char err[256];
    regex_t re;
    int m;

    ck_assert_msg(kh_pattern_compile(&re, pattern, err, sizeof err) == 0, "%s", err);
    m = kh_pattern_full_match(&re, name);
    regfree(&re);
    return m;
}

START_TEST(whole_name_only)
{
    ck_assert(full("kytos/of_core.switch.new", "kytos/of_core.switch.new"));
    ck_assert(!full("kytos/of_core", "kytos/of_core.switch.new"));        /* prefix */
    ck_assert(!full("switch.new", "kytos/of_core.switch.new"));           /* suffix */
    ck_assert(!full("kytos/of_core.switch.new", "kytos/of_core.switch.new.x"));
    ck_assert(full("kytos/of_core.switch.new$", "kytos/of_core.switch.new"));
    ck_assert(full("^kytos/.*", "kytos/anything.at.all"));
}
END_TEST

START_TEST(kytos_patterns)
{
    ck_assert(full("kytos/of_core.v0x[0-9a-f]{2}.messages.in.hello_failed",
                   "kytos/of_core.v0x04.messages.in.hello_failed"));
    ck_assert(!full("kytos/of_core.v0x[0-9a-f]{2}.messages.in.hello_failed",
                    "kytos/of_core.v0x4.messages.in.hello_failed"));
    ck_assert(full("kytos/(mef_eline|telemetry_int|coloring|of_lldp).enable_table",
                   "kytos/of_lldp.enable_table"));
    ck_assert(!full("kytos/(mef_eline|telemetry_int|coloring|of_lldp).enable_table",
                    "kytos/topology.enable_table"));
    ck_assert(full("kytos/.*.liveness.(up|down|disabled)", "kytos/of_lldp.liveness.up"));
    ck_assert(!full("kytos/.*.liveness.(up|down|disabled)", "kytos/of_lldp.liveness.upx"));
    ck_assert(full(".*.switch.(new|reconnected)", "kytos/core.switch.reconnected"));
    ck_assert(full("kytos/core.shutdown", "kytos/core.shutdown"));
    ck_assert(!full("kytos/core.shutdown", "kytos/core.shutdown.kytos/topology"));
    /* unescaped dots match any byte, as in Kytos */
    ck_assert(full("kytos/core.shutdown", "kytos/coreXshutdown"));
}
END_TEST

START_TEST(alternation_longest)
{
    /* leftmost-longest: the longer branch makes the whole-name match */
    ck_assert(full("a|ab", "ab"));
    ck_assert(full("(x|xy)z?", "xyz"));
    ck_assert(!full("a|ab", "abc"));
}
END_TEST

START_TEST(bad_patterns)
{
    char err[256], big[KH_PATTERN_MAX + 2];
    regex_t re;

    ck_assert_int_ne(kh_pattern_compile(&re, "(", err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "bad pattern"));
    ck_assert_int_ne(kh_pattern_compile(&re, "a{2,1}", err, sizeof err), 0);
    ck_assert_int_ne(kh_pattern_compile(&re, "", err, sizeof err), 0);
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ck_assert_int_ne(kh_pattern_compile(&re, big, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "longer"));
    ck_assert_ptr_null(kh_sub_new(NULL, "x", NULL, NULL, err, sizeof err));
    ck_assert_ptr_null(kh_sub_new(NULL, NULL, dummy, NULL, err, sizeof err));
    ck_assert_ptr_null(kh_sub_new(NULL, "[", dummy, NULL, err, sizeof err));
}
END_TEST

static struct kh_sub *sub(kytos_napp *n, const char *pattern)
{
    char err[256];
    struct kh_sub *s = kh_sub_new(n, pattern, dummy, NULL, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    return s;
}

START_TEST(cache_hits_and_invalidation)
{
    kh_subtab *t = kh_subtab_new(100);
    kytos_napp *a = (kytos_napp *)0x1000, *b = (kytos_napp *)0x2000;
    struct kh_subtab_stats st;
    struct kh_sub *s1 = sub(a, "kytos/topology\\..*"), *s2 = sub(b, ".*link_up"), **removed;
    struct kh_match *m;
    int i;

    ck_assert_int_eq(kh_subtab_add(t, s1), 0);
    ck_assert_int_eq(kh_subtab_add(t, s2), 0);
    for (i = 0; i < 100; i++) {
        m = kh_subtab_match(t, "kytos/topology.link_up");
        ck_assert_uint_eq(m->n, 2);
        ck_assert_ptr_eq(m->subs[0], s1); /* subscription order */
        ck_assert_ptr_eq(m->subs[1], s2);
        kh_match_unref(m);
    }
    m = kh_subtab_match(t, "nobody.listens");
    ck_assert_uint_eq(m->n, 0);
    kh_match_unref(m);
    kh_subtab_stats(t, &st);
    ck_assert_uint_eq(st.misses, 2);      /* computed once per name */
    ck_assert_uint_eq(st.hits, 99);
    ck_assert_uint_eq(st.cached_names, 2);

    /* a match held across a removal stays valid */
    m = kh_subtab_match(t, "kytos/topology.link_up");
    ck_assert_uint_eq(kh_subtab_remove_napp(t, a, &removed), 1);
    ck_assert_ptr_eq(removed[0], s1);
    ck_assert_int_eq(atomic_load(&s1->removed), 1);
    kh_sub_unref(removed[0]);
    free(removed);
    kh_subtab_stats(t, &st);
    ck_assert_uint_eq(st.cached_names, 0); /* invalidated */
    ck_assert_uint_eq(m->n, 2);
    kh_match_unref(m);
    m = kh_subtab_match(t, "kytos/topology.link_up");
    ck_assert_uint_eq(m->n, 1);
    ck_assert_ptr_eq(m->subs[0], s2);
    kh_match_unref(m);
    kh_sub_unref(s1);
    kh_sub_unref(s2);
    kh_subtab_free(t);
}
END_TEST

START_TEST(cache_is_bounded)
{
    kh_subtab *t = kh_subtab_new(8);
    struct kh_subtab_stats st;
    struct kh_sub *s = sub(NULL, "n\\..*");
    char name[32];
    int i;

    kh_subtab_add(t, s);
    for (i = 0; i < 1000; i++) {
        struct kh_match *m;
        snprintf(name, sizeof name, "n.%d", i);
        m = kh_subtab_match(t, name);
        ck_assert_uint_eq(m->n, 1);
        kh_match_unref(m);
    }
    kh_subtab_stats(t, &st);
    ck_assert_uint_le(st.cached_names, 8);
    ck_assert_uint_ge(st.flushes, 100);
    kh_sub_unref(s);
    kh_subtab_free(t);
}
END_TEST

/* What a publish checks of a name, at every length and byte. */
START_TEST(event_names)
{
    char name[300];

    ck_assert_ptr_null(kh_event_name_invalid("kytos/flow_manager.flow.added"));
    ck_assert_ptr_null(kh_event_name_invalid("!~"));
    ck_assert_ptr_nonnull(kh_event_name_invalid(NULL));
    ck_assert_ptr_nonnull(kh_event_name_invalid(""));
    memset(name, 'a', sizeof name);
    name[255] = '\0';
    ck_assert_ptr_null(kh_event_name_invalid(name));
    name[255] = 'a';
    name[256] = '\0';
    ck_assert_msg(kh_event_name_invalid(name) && strstr(kh_event_name_invalid(name), "255"), "256 bytes");
    for (unsigned c = 1; c < 256; c++) {
        int ok = c > 0x20 && c < 0x7f;
        snprintf(name, sizeof name, "kytos/x%cy", (char)c);
        ck_assert_msg((kh_event_name_invalid(name) == NULL) == ok, "byte 0x%02x", c);
    }
    /* every byte at every offset of names of 1 to 3 words and a tail (the
     * check reads whole words, then the rest one byte at a time) */
    for (size_t len = 1; len <= 27; len++) {
        for (size_t at = 0; at < len; at++) {
            for (unsigned c = 1; c < 256; c++) {
                int ok = c > 0x20 && c < 0x7f;
                memset(name, 'k', len);
                name[len] = '\0';
                name[at] = (char)c;
                ck_assert_msg((kh_event_name_invalid(name) == NULL) == ok, "byte 0x%02x at %zu of %zu",
                              c, at, len);
            }
        }
    }
}
END_TEST

/* The maps find every key they hold, whatever its length (the hash reads
 * 8 bytes at a time), and tell apart keys that differ in one byte. */
START_TEST(strmap_keys)
{
    kh_strmap *m = kh_strmap_new();
    char key[64];
    static int vals[64];

    ck_assert_ptr_nonnull(m);
    for (int n = 1; n < 40; n++) {
        memset(key, 'k', (size_t)n);
        key[n] = '\0';
        ck_assert_int_eq(kh_strmap_put(m, key, &vals[n], NULL), 0);
    }
    for (int n = 1; n < 40; n++) {
        memset(key, 'k', (size_t)n);
        key[n] = '\0';
        ck_assert_ptr_eq(kh_strmap_get(m, key), &vals[n]);
        key[n - 1] = 'j';
        ck_assert_ptr_null(kh_strmap_get(m, key));
    }
    ck_assert_uint_ne(kh_strhash("abcdefgh1"), kh_strhash("abcdefgh2"));
    ck_assert_uint_ne(kh_strhash("abcdefgh"), kh_strhash("abcdefgh\x01"));
    /* every byte of a full 8-byte block counts, and where the key sits in
     * memory does not */
    for (int i = 0; i < 16; i++) {
        char a[32], bb[40];
        memset(a, 'q', 24);
        a[24] = '\0';
        memcpy(bb + 3, a, 25);
        ck_assert_uint_eq(kh_strhash(a), kh_strhash(bb + 3));
        a[i] = 'r';
        ck_assert_msg(kh_strhash(a) != kh_strhash(bb + 3), "byte %d", i);
    }
    kh_strmap_free(m, NULL);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("event_match");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, whole_name_only);
    tcase_add_test(tc, kytos_patterns);
    tcase_add_test(tc, alternation_longest);
    tcase_add_test(tc, bad_patterns);
    tcase_add_test(tc, cache_hits_and_invalidation);
    tcase_add_test(tc, cache_is_bounded);
    tcase_add_test(tc, event_names);
    tcase_add_test(tc, strmap_keys);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return kytos_check_run(suite()); }
