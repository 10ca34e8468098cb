/* tests/napps/test_of_core.c - kytos/of_core in the in-process test host
 * with its real OpenFlow server on a loopback port; the test plays the
 * switch with the codec (libofp).  It checks the bytes of_core sends
 * (HELLO, FEATURES_REQUEST, DESC / PORT_DESC requests, SET_CONFIG, echo,
 * FLOW_MOD, BARRIER, PACKET_OUT, HELLO_FAILED) and the events it publishes
 * (switch.new with the description, interfaces.created, link_down/up,
 * packet_in, flow_removed, barrier_reply, ofpt_error with pyof's names,
 * connection.error, hello_failed), the dead-switch close, and a duplicate
 * datapath id refused while the holder is enabled and alive. */
#include "check_tap.h"
#include "await.h"
#include <kytos/kytos.h>
#include <kytos/test.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ofp.h"

#define SO NAPP_DIR "/of_core.so"
#define WAIT_MS 10000
#define DPID 0x2aull
#define DPID_S "00:00:00:00:00:00:00:2a"

static kytos_test_host *th;

static void start_host_stats(const char *stats_interval)
{
    char conf[512];
    struct kytos_test_opts o = {.struct_size = sizeof o, .conf_text = conf};

    snprintf(conf, sizeof conf,
             "[daemon]\nsb_enabled = true\nlisten = \"127.0.0.1\"\nport = 0\n"
             "protocol_name = \"openflow\"\n\n[kytos/of_core]\necho_interval = 0.3\n"
             "dead_interval = 1.5\nstats_interval = %s\n", stats_interval);
    th = kytos_test_host_new(&o);
    ck_assert_ptr_nonnull(th);
    ck_assert_int_eq(kytos_test_load(th, SO), 0);
    ck_assert_int_eq(kytos_test_start(th), 0);
    ck_assert_uint_gt(kytos_test_southbound_port(th), 0);
}

static void start_host(void) { start_host_stats("0"); }

static void teardown(void)
{
    kytos_test_host_free(th);
    th = NULL;
}

/* ---- the switch side ---- */

static int sw_connect(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)kytos_test_southbound_port(th))};
    struct timeval tv = {10, 0};
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    ck_assert_int_ge(fd, 0);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

static void send_buf(int fd, struct ofp_buf *b)
{
    size_t off = 0;

    ck_assert(!b->oom && b->len > 0);
    while (off < b->len) {
        ssize_t w = send(fd, b->data + off, b->len - off, MSG_NOSIGNAL);
        ck_assert_int_gt(w, 0);
        off += (size_t)w;
    }
    ofp_buf_free(b);
}

static int recv_exact(int fd, uint8_t *p, size_t n)
{
    while (n) {
        ssize_t r = recv(fd, p, n, 0);
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* The next message of type `type` (others, such as of_core's echo
 * requests, are skipped); its length, or 0 at EOF / timeout. */
static size_t expect(int fd, uint8_t type, uint8_t *msg)
{
    for (int i = 0; i < 100; i++) {
        size_t len;
        if (recv_exact(fd, msg, 8) < 0)
            return 0;
        len = (size_t)msg[2] << 8 | msg[3];
        ck_assert_uint_ge(len, 8);
        if (recv_exact(fd, msg + 8, len - 8) < 0)
            return 0;
        if (msg[1] == type)
            return len;
    }
    return 0;
}

static uint32_t xid_of(const uint8_t *m)
{
    return (uint32_t)m[4] << 24 | (uint32_t)m[5] << 16 | (uint32_t)m[6] << 8 | m[7];
}

static int sees_close(int fd)
{
    uint8_t b[4096];
    for (;;) {
        ssize_t r = recv(fd, b, sizeof b, 0);
        if (r == 0 || (r < 0 && errno == ECONNRESET))
            return 1;
        if (r < 0)
            return 0;
    }
}

static void port(struct ofp_port *p, uint32_t no, const char *name, uint32_t state, uint32_t curr)
{
    memset(p, 0, sizeof *p);
    p->port_no = no;
    snprintf(p->name, sizeof p->name, "%s", name);
    for (int i = 0; i < 6; i++)
        p->hw_addr[i] = (uint8_t)(0xa0 + i + (no & 0xf));
    p->state = state;
    p->curr = curr;
}

/* HELLO .. PORT_DESC reply: the switch is announced. */
static int handshake(uint64_t dpid, const char *mfr)
{
    int fd = sw_connect();
    uint8_t m[65536];
    struct ofp_buf b;
    struct ofp_features f = {.datapath_id = dpid, .n_tables = 254, .capabilities = 0x4f};
    struct ofp_desc d;
    struct ofp_port p;
    struct ofp_switch_config cfg;
    uint32_t desc_xid, pd_xid;
    size_t len, start;

    ofp_buf_init(&b);
    ofp_hello_encode(&b, 1, 0x10, NULL, 0);
    send_buf(fd, &b);
    ck_assert_uint_eq(expect(fd, OFPT_HELLO, m), 8);
    ck_assert_uint_eq(m[0], 4);
    ck_assert_uint_eq(expect(fd, OFPT_FEATURES_REQUEST, m), 8);
    f.xid = xid_of(m);
    ofp_features_reply_encode(&b, &f, NULL, 0);
    send_buf(fd, &b);
    ck_assert_uint_eq(expect(fd, OFPT_MULTIPART_REQUEST, m), 16);
    ck_assert_uint_eq(m[9], OFPMP_DESC);
    desc_xid = xid_of(m);
    ck_assert_uint_eq(expect(fd, OFPT_MULTIPART_REQUEST, m), 16);
    ck_assert_uint_eq(m[9], OFPMP_PORT_DESC);
    pd_xid = xid_of(m);
    len = expect(fd, OFPT_SET_CONFIG, m);
    ck_assert_uint_eq(len, 12);
    ck_assert_int_eq(ofp_switch_config_decode(m, len, OFPT_SET_CONFIG, &cfg, NULL, 0), 0);
    ck_assert_uint_eq(cfg.flags, 0);
    ck_assert_uint_eq(cfg.miss_send_len, 0xffff);

    memset(&d, 0, sizeof d);
    snprintf(d.mfr_desc, sizeof d.mfr_desc, "%s", mfr);
    snprintf(d.hw_desc, sizeof d.hw_desc, "Open vSwitch");
    snprintf(d.sw_desc, sizeof d.sw_desc, "3.1.0");
    snprintf(d.serial_num, sizeof d.serial_num, "None");
    snprintf(d.dp_desc, sizeof d.dp_desc, "br0");
    ck_assert_int_eq(ofp_multipart_reply_begin(&b, desc_xid, OFPMP_DESC, 0, &start), 0);
    ofp_desc_encode(&b, &d, NULL, 0);
    ck_assert_int_eq(ofp_msg_finish(&b, start, NULL, 0), 0);
    /* PORT_DESC in two parts (REPLY_MORE): port 1, then LOCAL */
    ck_assert_int_eq(ofp_multipart_reply_begin(&b, pd_xid, OFPMP_PORT_DESC, OFPMPF_REPLY_MORE,
                                               &start), 0);
    port(&p, 1, "eth1", OFPPS_LIVE, 0x840);
    ofp_port_encode(&b, &p, NULL, 0);
    ck_assert_int_eq(ofp_msg_finish(&b, start, NULL, 0), 0);
    ck_assert_int_eq(ofp_multipart_reply_begin(&b, pd_xid, OFPMP_PORT_DESC, 0, &start), 0);
    port(&p, OFPP_LOCAL, "br0", OFPPS_LINK_DOWN, 0);
    p.config = OFPPC_PORT_DOWN;
    ofp_port_encode(&b, &p, NULL, 0);
    ck_assert_int_eq(ofp_msg_finish(&b, start, NULL, 0), 0);
    send_buf(fd, &b);
    return fd;
}

/* ---- events ---- */

struct count_arg {
    const char *name;
    size_t n;
};

static bool count_reached(const void *ud)
{
    const struct count_arg *a = ud;
    return kytos_test_published_count(th, a->name) >= a->n;
}

/* The n-th event of that name once it is there (borrowed), or NULL. */
static struct json_object *await_nth(const char *name, size_t n)
{
    struct count_arg a = {name, n + 1};
    return await_until(count_reached, &a, WAIT_MS) ? kytos_test_published(th, name, n) : NULL;
}

static struct json_object *at(struct json_object *o, const char *path)
{
    char key[64];
    const char *dot;

    while (o && (dot = strchr(path, '.'))) {
        snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
        if (!json_object_object_get_ex(o, key, &o))
            return NULL;
        path = dot + 1;
    }
    return o && json_object_object_get_ex(o, path, &o) ? o : NULL;
}

static const char *str_at(struct json_object *o, const char *path)
{
    struct json_object *v = at(o, path);
    return v ? json_object_get_string(v) : "(absent)";
}

static int64_t int_at(struct json_object *o, const char *path)
{
    struct json_object *v = at(o, path);
    return v ? json_object_get_int64(v) : -1;
}

/* ---- tests ---- */

START_TEST(handshake_announces_the_switch_and_its_ports)
{
    struct json_object *e, *list, *i1, *local;
    int fd;

    start_host();
    fd = handshake(DPID, "ACME");
    ck_assert_ptr_nonnull(e = await_nth("kytos/core.switch.new", 0));
    ck_assert_str_eq(str_at(e, "switch.dpid"), DPID_S);
    ck_assert_str_eq(str_at(e, "switch.manufacturer"), "ACME");
    ck_assert_str_eq(str_at(e, "switch.data_path"), "br0");
    ck_assert_str_eq(str_at(e, "switch.ofp_version"), "0x04");
    ck_assert_ptr_nonnull(await_nth("kytos/of_core.handshake.completed", 0));
    ck_assert_ptr_nonnull(e = await_nth("kytos/of_core.switch.interfaces.created", 0));
    ck_assert_str_eq(str_at(e, "switch"), DPID_S);
    list = at(e, "interfaces");
    ck_assert_uint_eq(json_object_array_length(list), 2);
    i1 = json_object_array_get_idx(list, 0);
    local = json_object_array_get_idx(list, 1);
    ck_assert_str_eq(str_at(i1, "id"), DPID_S ":1");
    ck_assert_str_eq(str_at(i1, "name"), "eth1");
    ck_assert_str_eq(str_at(i1, "mac"), "a1:a2:a3:a4:a5:a6");
    ck_assert(json_object_get_double(at(i1, "speed")) == 1250000000.0);   /* 10GB_FD */
    ck_assert(json_object_get_boolean(at(i1, "active")));
    /* LOCAL: last, active although its state is LINK_DOWN */
    ck_assert_int_eq(int_at(local, "port_number"), OFPP_LOCAL);
    ck_assert(json_object_get_boolean(at(local, "active")));
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/core.switch.new"), 1);
    close(fd);
}
END_TEST

START_TEST(port_status_packets_flows_and_errors)
{
    static const char frame_hex[] = "0180c200000eee000000010281000ed788cc";
    struct json_object *e;
    struct ofp_buf b;
    struct ofp_port_status ps = {.reason = OFPPR_MODIFY};
    struct ofp_packet_in pi = {.buffer_id = OFP_NO_BUFFER, .reason = 1, .table_id = 0,
                               .cookie = 0xab00000000000001ull};
    struct ofp_packet_out po;
    struct ofp_flow_mod fm;
    struct ofp_error_msg er = {.xid = 77, .type = 4, .code = 9};
    uint8_t m[65536], frame[18];
    size_t len;
    int fd;

    start_host();
    fd = handshake(DPID, "ACME");
    ck_assert_ptr_nonnull(await_nth("kytos/of_core.switch.interfaces.created", 0));
    ofp_buf_init(&b);

    /* ip link set down: MODIFY state 0 (no link event), then 1 (link_down) */
    port(&ps.desc, 1, "eth1", 0, 0x840);
    ofp_port_status_encode(&b, &ps, NULL, 0);
    port(&ps.desc, 1, "eth1", OFPPS_LINK_DOWN, 0x840);
    ofp_port_status_encode(&b, &ps, NULL, 0);
    port(&ps.desc, 1, "eth1", OFPPS_LIVE, 0x840);
    ofp_port_status_encode(&b, &ps, NULL, 0);
    send_buf(fd, &b);
    ck_assert_ptr_nonnull(e = await_nth("kytos/of_core.switch.interface.link_up", 0));
    ck_assert(json_object_get_boolean(at(e, "interface.active")));
    ck_assert_ptr_nonnull(e = await_nth("kytos/of_core.switch.interface.link_down", 0));
    ck_assert_str_eq(str_at(e, "interface.id"), DPID_S ":1");
    ck_assert(!json_object_get_boolean(at(e, "interface.active")));
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/of_core.switch.interface.link_down"), 1);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/of_core.switch.interface.link_up"), 1);
    ck_assert_ptr_nonnull(await_nth("kytos/of_core.switch.interface.modified", 2));

    /* PACKET_IN -> event */
    for (size_t i = 0; i < sizeof frame; i++)
        frame[i] = (uint8_t)strtoul((char[]){frame_hex[2 * i], frame_hex[2 * i + 1], 0}, NULL, 16);
    ck_assert_int_eq(ofp_match_add_uint(&pi.match, OFPXMT_IN_PORT, 1, NULL, NULL, 0), 0);
    pi.data = frame;
    pi.data_len = sizeof frame;
    pi.total_len = sizeof frame;
    pi.xid = 5;
    ofp_packet_in_encode(&b, &pi, NULL, 0);
    send_buf(fd, &b);
    ck_assert_ptr_nonnull(e = await_nth("kytos/of_core.v0x04.messages.in.ofpt_packet_in", 0));
    ck_assert_str_eq(str_at(e, "source"), DPID_S);
    ck_assert_int_eq(int_at(e, "in_port"), 1);
    ck_assert_int_eq(int_at(e, "reason"), 1);
    ck_assert_int_eq(int_at(e, "buffer_id"), OFP_NO_BUFFER);
    ck_assert_str_eq(str_at(e, "data"), frame_hex);
    ck_assert_uint_eq((uint64_t)json_object_get_uint64(at(e, "cookie")), 0xab00000000000001ull);

    /* packet_out event -> PACKET_OUT (in_port CONTROLLER, NO_BUFFER) */
    ck_assert_int_eq(kytos_test_publish(th, "kytos/of_lldp.messages.out.ofpt_packet_out",
                                        "{\"destination\": \"" DPID_S "\", \"xid\": 9, "
                                        "\"actions\": [{\"action_type\": \"output\", \"port\": 1}], "
                                        "\"data\": \"0180c200000eee000000010281000ed788cc\"}"),
                     0);
    ck_assert_uint_gt(len = expect(fd, OFPT_PACKET_OUT, m), 0);
    ck_assert_int_eq(ofp_packet_out_decode(m, len, &po, NULL, 0), 0);
    ck_assert_uint_eq(po.xid, 9);
    ck_assert_uint_eq(po.in_port, OFPP_CONTROLLER);
    ck_assert_uint_eq(po.buffer_id, OFP_NO_BUFFER);
    ck_assert_uint_eq(po.n_actions, 1);
    ck_assert_uint_eq(po.actions[0].port, 1);
    ck_assert_uint_eq(po.data_len, sizeof frame);
    ck_assert_int_eq(memcmp(po.data, frame, sizeof frame), 0);

    /* flow_mod + barrier from flow_manager's events */
    ck_assert_int_eq(kytos_test_publish(th, "kytos/flow_manager.messages.out.ofpt_flow_mod",
                                        "{\"destination\": \"" DPID_S "\", \"xid\": 77, "
                                        "\"command\": \"add\", \"flow\": {\"priority\": 10, "
                                        "\"cookie\": 7, \"match\": {\"in_port\": 1}, \"actions\": "
                                        "[{\"action_type\": \"output\", \"port\": 2}]}}"),
                     0);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/flow_manager.messages.out.ofpt_barrier_request",
                                        "{\"destination\": \"" DPID_S "\", \"xid\": 78}"),
                     0);
    ck_assert_uint_gt(len = expect(fd, OFPT_FLOW_MOD, m), 0);
    ck_assert_int_eq(ofp_flow_mod_decode(m, len, &fm, NULL, 0), 0);
    ck_assert_uint_eq(fm.xid, 77);
    ck_assert_uint_eq(fm.priority, 10);
    ck_assert_uint_eq(fm.cookie, 7);
    ck_assert_uint_eq(fm.command, OFPFC_ADD);
    ck_assert_uint_eq(fm.flags, OFPFF_SEND_FLOW_REM);
    ck_assert_uint_eq(expect(fd, OFPT_BARRIER_REQUEST, m), 8);
    ck_assert_uint_eq(xid_of(m), 78);

    /* the switch refuses it, then answers the barrier */
    ofp_error_encode(&b, &er, NULL, 0);
    ofp_empty_encode(&b, OFPT_BARRIER_REPLY, 78, NULL, 0);
    send_buf(fd, &b);
    ck_assert_ptr_nonnull(e = await_nth("kytos/of_core.v0x04.messages.in.ofpt_error", 0));
    ck_assert_int_eq(int_at(e, "xid"), 77);
    ck_assert_str_eq(str_at(e, "error_type"), "OFPET_BAD_MATCH");
    ck_assert_str_eq(str_at(e, "error_code"), "OFPBMC_BAD_PREREQ");
    ck_assert_str_eq(str_at(e, "dpid"), DPID_S);
    ck_assert_ptr_nonnull(e = await_nth("kytos/of_core.v0x04.messages.in.ofpt_barrier_reply", 0));
    ck_assert_int_eq(int_at(e, "xid"), 78);
    ck_assert_str_eq(str_at(e, "dpid"), DPID_S);

    /* FLOW_REMOVED -> event */
    {
        struct ofp_flow_removed fr = {.xid = 0, .cookie = 7, .priority = 10, .reason = 2,
                                      .packet_count = 3};
        ck_assert_int_eq(ofp_match_add_uint(&fr.match, OFPXMT_IN_PORT, 1, NULL, NULL, 0), 0);
        ofp_flow_removed_encode(&b, &fr, NULL, 0);
        send_buf(fd, &b);
        ck_assert_ptr_nonnull(e = await_nth("kytos/of_core.v0x04.messages.in.ofpt_flow_removed", 0));
        ck_assert_int_eq(int_at(e, "cookie"), 7);
        ck_assert_int_eq(int_at(e, "reason"), 2);
        ck_assert_int_eq(int_at(e, "match.in_port"), 1);
        ck_assert_int_eq(int_at(e, "packet_count"), 3);
    }

    /* a switch that is not connected: connection.error, nothing sent */
    ck_assert_int_eq(kytos_test_publish(th, "kytos/flow_manager.messages.out.ofpt_flow_mod",
                                        "{\"destination\": \"00:00:00:00:00:00:00:99\", \"xid\": 80, "
                                        "\"command\": \"add\", \"flow\": {\"priority\": 10}}"),
                     0);
    ck_assert_ptr_nonnull(e = await_nth("kytos/core.openflow.connection.error", 0));
    ck_assert_int_eq(int_at(e, "xid"), 80);
    ck_assert_str_eq(str_at(e, "exception"), "switch 00:00:00:00:00:00:00:99 is not connected");
    close(fd);
}
END_TEST

START_TEST(echo_both_ways_then_a_silent_switch_is_closed)
{
    struct json_object *e;
    struct ofp_buf b;
    uint8_t m[65536];
    size_t len;
    int fd;

    start_host();
    fd = handshake(DPID, "ACME");
    ck_assert_ptr_nonnull(await_nth("kytos/core.switch.new", 0));
    ofp_buf_init(&b);
    ofp_echo_encode(&b, OFPT_ECHO_REQUEST, 31, "abc", 3, NULL, 0);
    send_buf(fd, &b);
    ck_assert_uint_eq(len = expect(fd, OFPT_ECHO_REPLY, m), 11);
    ck_assert_uint_eq(xid_of(m), 31);
    ck_assert_int_eq(memcmp(m + 8, "abc", 3), 0);
    /* of_core's own keepalive (echo_interval 0.3 s), Kytos' data */
    ck_assert_uint_eq(len = expect(fd, OFPT_ECHO_REQUEST, m), 17);
    ck_assert_int_eq(memcmp(m + 8, "kytosd_13", 9), 0);
    /* silent from now on: closed after dead_interval (1.5 s) */
    ck_assert(sees_close(fd));
    ck_assert_ptr_nonnull(e = await_nth("kytos/core.openflow.connection.lost", 0));
    ck_assert_str_eq(str_at(e, "dpid"), DPID_S);
    close(fd);
}
END_TEST

START_TEST(hello_without_openflow13_fails)
{
    struct json_object *e;
    struct ofp_buf b;
    struct ofp_error_msg er;
    uint8_t m[65536];
    size_t len;
    int fd;

    start_host();
    fd = sw_connect();
    ofp_buf_init(&b);
    ofp_hello_encode(&b, 41, 0x02, NULL, 0);   /* OpenFlow 1.0 only */
    send_buf(fd, &b);
    ck_assert_uint_gt(len = expect(fd, OFPT_ERROR, m), 0);
    ck_assert_int_eq(ofp_error_decode(m, len, &er, NULL, 0), 0);
    ck_assert_uint_eq(er.xid, 41);
    ck_assert_uint_eq(er.type, 0);   /* HELLO_FAILED */
    ck_assert_uint_eq(er.code, 0);   /* INCOMPATIBLE */
    ck_assert(sees_close(fd));
    ck_assert_ptr_nonnull(e = await_nth("kytos/of_core.hello_failed", 0));
    ck_assert_str_eq(str_at(e, "source.protocol"), "openflow");
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/core.switch.new"), 0);
    close(fd);
}
END_TEST

START_TEST(duplicate_dpid_refused_while_the_holder_is_enabled)
{
    struct ofp_buf b;
    uint8_t m[65536];
    int a, c;

    start_host();
    a = handshake(DPID, "ACME");
    ck_assert_ptr_nonnull(await_nth("kytos/core.switch.new", 0));
    ck_assert_int_eq(kytos_test_publish(th, "kytos/topology.switch.enabled",
                                        "{\"dpid\": \"" DPID_S "\"}"), 0);
    ck_assert_int_eq(kytos_test_drain(th, WAIT_MS), 0);
    /* a second switch with the same datapath id: closed after FEATURES_REPLY */
    c = sw_connect();
    ofp_buf_init(&b);
    ofp_hello_encode(&b, 1, 0x10, NULL, 0);
    send_buf(c, &b);
    ck_assert_uint_gt(expect(c, OFPT_FEATURES_REQUEST, m), 0);
    {
        struct ofp_features f = {.xid = xid_of(m), .datapath_id = DPID, .n_tables = 254};
        ofp_features_reply_encode(&b, &f, NULL, 0);
        send_buf(c, &b);
    }
    ck_assert(sees_close(c));
    /* the first one is still served */
    ofp_echo_encode(&b, OFPT_ECHO_REQUEST, 51, "x", 1, NULL, 0);
    send_buf(a, &b);
    ck_assert_uint_eq(expect(a, OFPT_ECHO_REPLY, m), 9);
    ck_assert_uint_eq(xid_of(m), 51);
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/core.switch.reconnected"), 0);
    close(a);
    close(c);
}
END_TEST

/* One FLOW stats entry: table 0, the match and apply_actions given. */
static void stats_entry(struct ofp_buf *b, uint64_t cookie, uint16_t prio, uint8_t field,
                        uint64_t value, const struct ofp_action *acts, unsigned n)
{
    struct ofp_flow_stats *fs = calloc(1, sizeof *fs);
    struct ofp_instruction in = {.type = OFPIT_APPLY_ACTIONS};

    ck_assert_ptr_nonnull(fs);
    fs->cookie = cookie;
    fs->priority = prio;
    fs->duration_sec = 3;
    ck_assert_int_eq(ofp_match_add_uint(&fs->match, field, value, NULL, NULL, 0), 0);
    ck_assert_int_eq(ofp_instructions_add(&fs->instructions, &in, NULL, 0), 0);
    for (unsigned i = 0; i < n; i++)
        ck_assert_int_eq(ofp_instructions_add_action(&fs->instructions, &acts[i], NULL, 0), 0);
    ck_assert_int_eq(ofp_flow_stats_encode(b, fs, NULL, 0), 0);
    free(fs);
}

START_TEST(flow_stats_carry_flow_managers_ids)
{
    struct ofp_action out2 = {.type = OFPAT_OUTPUT, .port = 2, .max_len = 0xffff};
    struct ofp_action acts[3] = {
        {.type = OFPAT_PUSH_VLAN, .ethertype = 0x88a8},
        {.type = OFPAT_SET_FIELD},
        {.type = OFPAT_OUTPUT, .port = 1, .max_len = 0xffff},
    };
    struct json_object *e, *flows;
    struct ofp_buf b;
    uint8_t m[65536];
    size_t start;
    int fd;

    ck_assert_int_eq(ofp_oxm_set_uint(&acts[1].field, OFPXMT_VLAN_VID, 0x1000 | 200, NULL, NULL, 0),
                     0);
    start_host_stats("0.3");
    fd = handshake(DPID, "ACME");
    ck_assert_uint_gt(expect(fd, OFPT_MULTIPART_REQUEST, m), 0);
    while (m[9] != OFPMP_FLOW)   /* the DESC/PORT_DESC requests went before */
        ck_assert_uint_gt(expect(fd, OFPT_MULTIPART_REQUEST, m), 0);
    ck_assert_uint_eq((size_t)m[2] << 8 | m[3], 56);   /* Kytos' whole request */
    /* two replies: REPLY_MORE, then the last */
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_multipart_reply_begin(&b, xid_of(m), OFPMP_FLOW, OFPMPF_REPLY_MORE, &start), 0);
    stats_entry(&b, 7, 10, OFPXMT_IN_PORT, 1, &out2, 1);
    ck_assert_int_eq(ofp_msg_finish(&b, start, NULL, 0), 0);
    ck_assert_int_eq(ofp_multipart_reply_begin(&b, xid_of(m), OFPMP_FLOW, 0, &start), 0);
    stats_entry(&b, 0, 20, OFPXMT_VLAN_VID, 0x1000 | 100, acts, 3);
    ck_assert_int_eq(ofp_msg_finish(&b, start, NULL, 0), 0);
    send_buf(fd, &b);
    ck_assert_ptr_nonnull(e = await_nth("kytos/of_core.flow_stats.received", 0));
    ck_assert_str_eq(str_at(e, "switch"), DPID_S);
    flows = at(e, "replies_flows");
    ck_assert_uint_eq(json_object_array_length(flows), 2);
    /* md5(json.dumps(Flow.as_dict(), sort_keys=True)) computed by Python */
    ck_assert_str_eq(str_at(json_object_array_get_idx(flows, 0), "id"),
                     "e3a4e3ff71d7e9f5fc3ebc5c0751b9cc");
    ck_assert_str_eq(str_at(json_object_array_get_idx(flows, 1), "id"),
                     "f5ea0f68b3272ccce275ae7052f6529f");
    ck_assert_int_eq(int_at(json_object_array_get_idx(flows, 0), "stats.duration_sec"), 3);
    close(fd);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("of_core");
    TCase *tc = tcase_create("of_core");

    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, handshake_announces_the_switch_and_its_ports);
    tcase_add_test(tc, port_status_packets_flows_and_errors);
    tcase_add_test(tc, echo_both_ways_then_a_silent_switch_is_closed);
    tcase_add_test(tc, hello_without_openflow13_fails);
    tcase_add_test(tc, duplicate_dpid_refused_while_the_holder_is_enabled);
    tcase_add_test(tc, flow_stats_carry_flow_managers_ids);
    suite_add_tcase(s, tc);
    return kytos_check_run(s);
}
