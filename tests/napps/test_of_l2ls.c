/* tests/napps/test_of_l2ls.c - kytos/of_l2ls through the in-process test
 * host with of_core: the table-miss flow at handshake, flooding an unknown
 * destination, learning per switch, the flow and packet-out to a known
 * one, what is ignored (LLDP, other reasons, hostile frames), VLAN tags,
 * NO_FWD ports, the bounded table, and the flow_manager path when
 * flow_manager is loaded. */
#include "check_tap.h"
#include "await.h"
#include <kytos/kytos.h>
#include <kytos/test.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define S1 "00:00:00:00:00:00:00:01"
#define S2 "00:00:00:00:00:00:00:02"
#define EV_IN "kytos/of_core.v0x04.messages.in.ofpt_packet_in"
#define EV_OUT "kytos/of_l2ls.messages.out.ofpt_packet_out"
#define EV_FM "kytos/flow_manager.messages.out.ofpt_flow_mod"
#define EV_FM_API "kytos.flow_manager.flows.install"
#define MAC_A "0a0000000001"
#define MAC_B "0a0000000002"
#define MAC_C "0a0000000003"
#define IPV4_TAIL "0800" "450000140000000040000000c6336401c6336402"

static kytos_test_host *th;

static void load_all(const char *conf, const char *const *napps, size_t n)
{
    struct kytos_test_opts o = {.struct_size = sizeof o, .conf_text = conf};
    char path[512];

    th = kytos_test_host_new(&o);
    ck_assert_ptr_nonnull(th);
    for (size_t k = 0; k < n; k++) {
        snprintf(path, sizeof path, NAPP_DIR "/%s.so", napps[k]);
        ck_assert_msg(kytos_test_load(th, path) == 0, "%s: %s", napps[k], kytos_test_last_error(th));
    }
    ck_assert_int_eq(kytos_test_start(th), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
}

static void setup(void)
{
    static const char *const napps[] = {"of_core", "of_l2ls"};
    load_all("[kytos/of_l2ls]\nmax_macs = 3\n", napps, 2);
}

static void setup_fm(void)
{
    static const char *const napps[] = {"topology", "flow_manager", "of_core", "of_l2ls"};
    load_all(NULL, napps, 4);
}

static void teardown(void)
{
    kytos_test_host_free(th);
}

static size_t count(const char *name)
{
    return kytos_test_published_count(th, name);
}

static const char *plain(struct json_object *o)
{
    return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
}

/* A packet-in on dpid at in_port (reason 0) with the frame hex. */
static void packet_in(const char *dpid, long long in_port, int reason, const char *frame)
{
    char buf[1024];

    snprintf(buf, sizeof buf,
             "{\"source\":\"%s\",\"dpid\":\"%s\",\"xid\":7,\"in_port\":%lld,"
             "\"buffer_id\":4294967295,\"total_len\":%zu,\"reason\":%d,\"table_id\":0,"
             "\"cookie\":0,\"match\":{},\"data\":\"%s\"}",
             dpid, dpid, in_port, strlen(frame) / 2, reason, frame);
    ck_assert_int_eq(kytos_test_publish(th, EV_IN, buf), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
}

/* the n-th packet-out's text */
static const char *out_text(size_t n)
{
    struct json_object *o = kytos_test_published(th, EV_OUT, n);
    ck_assert_ptr_nonnull(o);
    return plain(o);
}

START_TEST(table_miss_flow_at_handshake)
{
    struct json_object *fm;

    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.handshake.completed",
                                        "{\"switch\":{\"dpid\":\"" S1 "\"}}"),
                     0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(count(EV_FM), 1);
    fm = kytos_test_published(th, EV_FM, 0);
    ck_assert_str_eq(plain(fm), "{\"destination\":\"" S1 "\",\"command\":\"add\","
                                "\"flow\":{\"priority\":0,\"table_id\":0,\"actions\":[{\"action_type\":"
                                "\"output\",\"port\":4294967293}]}}");
    /* a handshake without a dpid installs nothing */
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.handshake.completed", "{\"switch\":{}}"), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(count(EV_FM), 1);
}
END_TEST

START_TEST(unknown_flooded_then_learned)
{
    struct json_object *fm;

    /* A -> B on port 1: B unknown, flooded; no flow */
    packet_in(S1, 1, 0, MAC_B MAC_A IPV4_TAIL);
    ck_assert_uint_eq(count(EV_OUT), 1);
    ck_assert_uint_eq(count(EV_FM), 0);
    ck_assert_str_eq(out_text(0), "{\"destination\":\"" S1 "\",\"buffer_id\":4294967295,"
                                  "\"in_port\":1,\"actions\":[{\"action_type\":\"output\","
                                  "\"port\":4294967291}],\"data\":\"" MAC_B MAC_A IPV4_TAIL "\"}");
    /* B -> A on port 2: A learned at 1: a flow B->A out 1 and the packet to 1 */
    packet_in(S1, 2, 0, MAC_A MAC_B IPV4_TAIL);
    ck_assert_uint_eq(count(EV_FM), 1);
    ck_assert_uint_eq(count(EV_FM_API), 0); /* no flow_manager here */
    fm = kytos_test_published(th, EV_FM, 0);
    ck_assert_str_eq(plain(fm), "{\"destination\":\"" S1 "\",\"command\":\"add\","
                                "\"flow\":{\"priority\":10,\"table_id\":0,\"match\":{\"dl_src\":"
                                "\"0a:00:00:00:00:02\",\"dl_dst\":\"0a:00:00:00:00:01\",\"dl_type\":2048},"
                                "\"actions\":[{\"action_type\":\"output\",\"port\":1}]}}");
    ck_assert_uint_eq(count(EV_OUT), 2);
    ck_assert_ptr_nonnull(strstr(out_text(1), "\"in_port\":2,\"actions\":[{\"action_type\":"
                                              "\"output\",\"port\":1}]"));
    /* learned per switch: on S2, A is unknown */
    packet_in(S2, 5, 0, MAC_A MAC_B IPV4_TAIL);
    ck_assert_uint_eq(count(EV_FM), 1);
    ck_assert_ptr_nonnull(strstr(out_text(2), "\"port\":4294967291"));
    /* A moves to port 3 on S1: the latest port wins */
    packet_in(S1, 3, 0, MAC_C MAC_A IPV4_TAIL);
    packet_in(S1, 2, 0, MAC_A MAC_B IPV4_TAIL);
    ck_assert_uint_eq(count(EV_FM), 2);
    ck_assert_ptr_nonnull(strstr(plain(kytos_test_published(th, EV_FM, 1)),
                                 "\"actions\":[{\"action_type\":\"output\",\"port\":3}]"));
    /* the LOCAL port is a port like the others */
    packet_in(S1, 4294967294LL, 0, MAC_A "0a0000000009" IPV4_TAIL);
    ck_assert_uint_eq(count(EV_FM), 3);
    ck_assert_ptr_nonnull(strstr(plain(kytos_test_published(th, EV_FM, 2)),
                                 "\"actions\":[{\"action_type\":\"output\",\"port\":3}]"));
    packet_in(S1, 3, 0, "0a0000000009" MAC_A IPV4_TAIL);
    ck_assert_uint_eq(count(EV_FM), 4);
    ck_assert_ptr_nonnull(strstr(plain(kytos_test_published(th, EV_FM, 3)),
                                 "\"port\":4294967294}]"));
    /* a new connection of S1 forgets what it taught */
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.handshake.completed",
                                        "{\"switch\":{\"dpid\":\"" S1 "\"}}"),
                     0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(count(EV_FM), 5);     /* the table-miss flow */
    packet_in(S1, 2, 0, MAC_A MAC_B IPV4_TAIL);
    ck_assert_uint_eq(count(EV_FM), 5);
    ck_assert_ptr_nonnull(strstr(out_text(count(EV_OUT) - 1), "\"port\":4294967291"));
}
END_TEST

START_TEST(ignored_packet_ins)
{
    /* learn A at 1 first, so every packet below would make a flow */
    packet_in(S1, 1, 0, MAC_B MAC_A IPV4_TAIL);
    ck_assert_uint_eq(count(EV_OUT), 1);
    /* LLDP destinations */
    packet_in(S1, 2, 0, "0180c200000e" MAC_B "88cc0000");
    packet_in(S1, 2, 0, "0180c2000003" MAC_B "888e0000");
    packet_in(S1, 2, 0, "0180c2000000" MAC_B "00260000");
    /* not from the table-miss flow: OFPR_ACTION */
    packet_in(S1, 2, 1, MAC_A MAC_B IPV4_TAIL);
    /* hostile: short, odd, not hex, no in_port (OFPP_ANY), truncated VLAN */
    packet_in(S1, 2, 0, MAC_A MAC_B "08");
    packet_in(S1, 2, 0, MAC_A MAC_B "080");
    packet_in(S1, 2, 0, "0a00000000zz" MAC_B IPV4_TAIL);
    packet_in(S1, -1, 0, MAC_A MAC_B IPV4_TAIL);
    packet_in(S1, 4294967295LL, 0, MAC_A MAC_B IPV4_TAIL);
    packet_in(S1, 0x7fffffff, 0, MAC_A MAC_B "81000064");
    ck_assert_int_eq(kytos_test_publish(th, EV_IN, "{\"dpid\":\"" S1 "\",\"reason\":0,\"in_port\":2,"
                                                   "\"data\":7}"),
                     0);
    ck_assert_int_eq(kytos_test_publish(th, EV_IN, "{\"dpid\":\"" S1 "\",\"in_port\":2,"
                                                   "\"data\":\"" MAC_A MAC_B IPV4_TAIL "\"}"),
                     0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(count(EV_OUT), 1);
    ck_assert_uint_eq(count(EV_FM), 0);
    /* nothing hostile was learned: B still unknown */
    packet_in(S1, 1, 0, MAC_B MAC_A IPV4_TAIL);
    ck_assert_ptr_nonnull(strstr(out_text(1), "\"port\":4294967291"));
}
END_TEST

START_TEST(vlan_tagged_dl_type)
{
    packet_in(S1, 1, 0, MAC_B MAC_A "81000064" IPV4_TAIL);
    packet_in(S1, 2, 0, MAC_A MAC_B "88a8000a81000064" "86dd");
    ck_assert_uint_eq(count(EV_FM), 1);
    ck_assert_ptr_nonnull(strstr(plain(kytos_test_published(th, EV_FM, 0)), "\"dl_type\":34525"));
}
END_TEST

START_TEST(no_fwd_port_gets_no_packet_out)
{
    packet_in(S1, 1, 0, MAC_B MAC_A IPV4_TAIL);
    ck_assert_uint_eq(count(EV_OUT), 1);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.switch.interface.modified",
                                        "{\"interface\":{\"id\":\"" S1 ":1\",\"switch\":\"" S1 "\","
                                        "\"port_number\":1,\"config\":32,\"state\":4}}"),
                     0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    packet_in(S1, 2, 0, MAC_A MAC_B IPV4_TAIL);
    ck_assert_uint_eq(count(EV_FM), 1);     /* the flow, as Kytos */
    ck_assert_uint_eq(count(EV_OUT), 1);    /* no packet-out towards NO_FWD */
    /* forwarding again */
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_core.switch.interfaces.created",
                                        "{\"switch\":\"" S1 "\",\"interfaces\":[{\"switch\":\"" S1 "\","
                                        "\"port_number\":1,\"config\":0}]}"),
                     0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    packet_in(S1, 2, 0, MAC_A MAC_B IPV4_TAIL);
    ck_assert_uint_eq(count(EV_OUT), 2);
}
END_TEST

START_TEST(full_table_is_flushed)
{
    /* max_macs = 3: A, B, C learned; D, a fourth, flushes the table first */
    packet_in(S1, 1, 0, "ffffffffffff" MAC_A IPV4_TAIL);
    packet_in(S1, 2, 0, "ffffffffffff" MAC_B IPV4_TAIL);
    packet_in(S1, 3, 0, "ffffffffffff" MAC_C IPV4_TAIL);
    packet_in(S1, 1, 0, MAC_C MAC_A IPV4_TAIL);
    ck_assert_uint_eq(count(EV_FM), 1);     /* C known, A relearned: no flush */
    packet_in(S1, 4, 0, MAC_B "0a0000000004" IPV4_TAIL);
    ck_assert_uint_eq(count(EV_FM), 1);     /* flushed: B forgotten */
    ck_assert_ptr_nonnull(strstr(out_text(count(EV_OUT) - 1), "\"port\":4294967291"));
    packet_in(S1, 5, 0, "0a0000000004" MAC_A IPV4_TAIL);
    ck_assert_uint_eq(count(EV_FM), 2);     /* D learned after the flush */
}
END_TEST

START_TEST(flows_through_flow_manager_when_loaded)
{
    struct json_object *c;

    packet_in(S1, 1, 0, MAC_B MAC_A IPV4_TAIL);
    packet_in(S1, 2, 0, MAC_A MAC_B IPV4_TAIL);
    ck_assert_uint_eq(count(EV_FM_API), 1);
    c = kytos_test_published(th, EV_FM_API, 0);
    ck_assert_str_eq(plain(c), "{\"dpid\":\"" S1 "\",\"flow_dict\":{\"flows\":[{\"priority\":10,"
                               "\"table_id\":0,\"match\":{\"dl_src\":\"0a:00:00:00:00:02\","
                               "\"dl_dst\":\"0a:00:00:00:00:01\",\"dl_type\":2048},\"actions\":"
                               "[{\"action_type\":\"output\",\"port\":1}]}]}}");
    ck_assert_uint_eq(count(EV_OUT), 2);
    ck_assert_uint_eq(count(EV_FM), 0);     /* not behind flow_manager's back */
}
END_TEST

START_TEST(bad_settings_refuse_the_napp)
{
    static const char *const bad[] = {"[kytos/of_l2ls]\nflow_priority = 70000\n",
                                      "[kytos/of_l2ls]\nmax_macs = 0\n",
                                      "[kytos/of_l2ls]\ntable_id = \"x\"\n"};

    for (size_t i = 0; i < 3; i++) {
        struct kytos_test_opts o = {.struct_size = sizeof o, .conf_text = bad[i]};
        kytos_test_host *h = kytos_test_host_new(&o);
        ck_assert_ptr_nonnull(h);
        ck_assert_int_eq(kytos_test_load(h, NAPP_DIR "/of_core.so"), 0);
        ck_assert_int_ne(kytos_test_load(h, NAPP_DIR "/of_l2ls.so"), 0);
        ck_assert_ptr_nonnull(strstr(kytos_test_last_error(h), "of_l2ls setting"));
        kytos_test_host_free(h);
    }
}
END_TEST

static void setup_one_switch(void)
{
    static const char *const napps[] = {"of_core", "of_l2ls"};
    load_all("[kytos/of_l2ls]\nmax_switches = 1\n", napps, 2);
}

static FILE *log_copy;   /* what the host writes on stderr, from the redirect on */

/* How many lines of the log say a source was not learned. */
static size_t refused_lines(void)
{
    char buf[65536];
    size_t n = 0;
    ssize_t len;
    const char *p;

    fflush(stderr);
    len = pread(fileno(log_copy), buf, sizeof buf - 1, 0);
    buf[len > 0 ? len : 0] = '\0';
    for (p = buf; (p = strstr(p, "source not learned")) != NULL; p++)
        n++;
    return n;
}

static bool one_refused_line(const void *ud) { (void)ud; return refused_lines() >= 1; }
static bool two_refused_lines(const void *ud) { (void)ud; return refused_lines() >= 2; }

/* A switch past max_switches is told about once, with a count, not once
 * per packet-in (a busy one filled the log). */
START_TEST(too_many_switches_logged_once)
{
    log_copy = tmpfile();
    ck_assert_ptr_nonnull(log_copy);
    ck_assert_int_eq(dup2(fileno(log_copy), STDERR_FILENO), STDERR_FILENO);
    packet_in(S1, 1, 0, "ffffffffffff" MAC_A IPV4_TAIL);
    ck_assert_uint_eq(refused_lines(), 0);
    for (int i = 0; i < 20; i++)
        packet_in(S2, 1, 0, "ffffffffffff" MAC_B IPV4_TAIL);
    ck_assert_msg(await_until(one_refused_line, NULL, 5000), "the refusal is logged");
    /* the 19 others would follow it at once: give them a moment to show */
    ck_assert_msg(!await_until(two_refused_lines, NULL, 500), "%zu lines for 20 packet-ins",
                  refused_lines());
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("of_l2ls");
    TCase *tc;
#define CASE(name, su)                                                  \
    tc = kytos_check_case(s, #name, su, teardown, 60);                  \
    tcase_add_test(tc, name)
    CASE(table_miss_flow_at_handshake, setup);
    CASE(unknown_flooded_then_learned, setup);
    CASE(ignored_packet_ins, setup);
    CASE(vlan_tagged_dl_type, setup);
    CASE(no_fwd_port_gets_no_packet_out, setup);
    CASE(full_table_is_flushed, setup);
    CASE(too_many_switches_logged_once, setup_one_switch);
    CASE(flows_through_flow_manager_when_loaded, setup_fm);
#undef CASE
    tc = tcase_create("bad_settings_refuse_the_napp");
    tcase_add_test(tc, bad_settings_refuse_the_napp);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
