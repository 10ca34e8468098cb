/* tests/southbound/check_southbound.c - the host's OpenFlow server over real
 * sockets: the test host runs it on 127.0.0.1, a free port, with the tiny
 * protocol NApp tests/southbound/sbproto.c as the "openflow" handler; the
 * test plays the switches.
 *
 * What it shows: messages arrive whole and in order however the bytes are
 * cut; bad headers close only their connection, with one log line naming
 * the peer; a switch that never reads is cut off at the send-queue bound
 * while others are served; a flooding switch does not starve another;
 * Kytos' connection events carry the right names and contents; a NApp's
 * close flushes what it sent first; unloading the handler closes its
 * connections; status/ and /metrics show it all. */
#include "check_tap.h"
#include "await.h"
#include <kytos/kytos.h>
#include <kytos/test.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SO SBPROTO_DIR "/sbproto.so"
#define WAIT_MS 10000

static kytos_test_host *th;
static unsigned sb_port;

static void start_host(const char *extra)
{
    char conf[1024];
    struct kytos_test_opts o = {.struct_size = sizeof o, .conf_text = conf};

    snprintf(conf, sizeof conf,
             "[daemon]\nsb_enabled = true\nlisten = \"127.0.0.1\"\nport = 0\n"
             "protocol_name = \"openflow\"\n%s",
             extra ? extra : "");
    th = kytos_test_host_new(&o);
    ck_assert_ptr_nonnull(th);
    ck_assert_int_eq(kytos_test_load(th, SO), 0);
    ck_assert_int_eq(kytos_test_start(th), 0);
    sb_port = kytos_test_southbound_port(th);
    ck_assert_uint_gt(sb_port, 0);
}

static void teardown(void)
{
    kytos_test_host_free(th);
    th = NULL;
}

/* ---- the switch side ---- */

static int client_rcvbuf(int rcvbuf)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)sb_port)};
    struct timeval tv = {30, 0};   /* generous: ASan builds on a loaded machine */
    int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

    ck_assert_int_ge(fd, 0);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (rcvbuf)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

static int client(void) { return client_rcvbuf(0); }

static unsigned local_port(int fd)
{
    struct sockaddr_in a;
    socklen_t l = sizeof a;
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &l), 0);
    return ntohs(a.sin_port);
}

static void send_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        ck_assert_int_gt(w, 0);
        b += w;
        n -= (size_t)w;
    }
}

/* 0 when n bytes came, -1 at EOF, timeout or error. */
static int recv_exact(int fd, void *p, size_t n)
{
    uint8_t *b = p;
    while (n) {
        ssize_t r = recv(fd, b, n, 0);
        if (r <= 0)
            return -1;
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

/* 1 when the peer closed (EOF or reset) within the receive timeout. */
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

static size_t put_msg(uint8_t *p, uint8_t version, uint8_t type, uint16_t len, uint32_t xid)
{
    size_t i;
    p[0] = version;
    p[1] = type;
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

static uint32_t msg_sum(const uint8_t *m, size_t len)
{
    uint32_t sum = 0;
    size_t i;
    for (i = 0; i < len; i++)
        sum = sum * 31 + m[i];
    return sum;
}

static void echo_round_trip(int fd, uint32_t xid)
{
    uint8_t req[64], rep[64];

    put_msg(req, 4, 2, sizeof req, xid);
    send_all(fd, req, sizeof req);
    ck_assert_int_eq(recv_exact(fd, rep, sizeof rep), 0);
    ck_assert_uint_eq(rep[1], 3);
    ck_assert_int_eq(memcmp(req + 2, rep + 2, sizeof req - 2), 0);
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

static bool await_count(const char *name, size_t n)
{
    struct count_arg a = {name, n};
    return await_until(count_reached, &a, WAIT_MS);
}

static int64_t geti(struct json_object *o, const char *path)
{
    char key[64];
    const char *dot;
    struct json_object *v = o;

    while (v && (dot = strchr(path, '.'))) {
        snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
        if (!json_object_object_get_ex(v, key, &v))
            return -1;
        path = dot + 1;
    }
    return v && json_object_object_get_ex(v, path, &v) ? json_object_get_int64(v) : -1;
}

static const char *gets(struct json_object *o, const char *path)
{
    char key[64];
    const char *dot;
    struct json_object *v = o;

    while (v && (dot = strchr(path, '.'))) {
        snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
        if (!json_object_object_get_ex(v, key, &v))
            return NULL;
        path = dot + 1;
    }
    return v && json_object_object_get_ex(v, path, &v) ? json_object_get_string(v) : NULL;
}

/* The event `name` whose integer at `path` is val (borrowed), or NULL. */
static struct json_object *event_where(const char *name, const char *path, int64_t val)
{
    struct json_object *e;
    size_t i;
    for (i = 0; (e = kytos_test_published(th, name, i)); i++)
        if (geti(e, path) == val)
            return e;
    return NULL;
}

struct where_arg {
    const char *name, *path;
    int64_t val;
};

static bool where_found(const void *ud)
{
    const struct where_arg *a = ud;
    return event_where(a->name, a->path, a->val) != NULL;
}

static struct json_object *await_event(const char *name, const char *path, int64_t val)
{
    struct where_arg a = {name, path, val};
    return await_until(where_found, &a, WAIT_MS) ? event_where(name, path, val) : NULL;
}

#define NEW_EV "kytos/core.openflow.connection.new"
#define LOST_EV "kytos/core.openflow.connection.lost"
#define RAW_EV "kytos/core.openflow.raw.in"

/* The connection id the server gave this client (from its new event). */
static int64_t conn_id(int fd)
{
    struct json_object *e = await_event(NEW_EV, "source.port", local_port(fd));
    ck_assert_ptr_nonnull(e);
    return geti(e, "source.id");
}

static struct json_object *lost_of(int64_t id)
{
    return await_event(LOST_EV, "source.id", id);
}

/* GET status/: the "southbound" object (new ref). */
static struct json_object *sb_status(void)
{
    kytos_test_resp *r = kytos_test_request(th, "GET", "/api/kytos/core/status/", NULL);
    struct json_object *j, *sb = NULL;

    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    j = kytos_test_resp_json(r);
    ck_assert(json_object_object_get_ex(j, "southbound", &sb));
    sb = json_object_get(sb);
    kytos_test_resp_free(r);
    return sb;
}

/* The status entry of one connection (borrowed from st), or NULL. */
static struct json_object *status_conn(struct json_object *st, int64_t id)
{
    struct json_object *list;
    size_t i;
    if (!json_object_object_get_ex(st, "conns", &list))
        return NULL;
    for (i = 0; i < json_object_array_length(list); i++)
        if (geti(json_object_array_get_idx(list, i), "id") == id)
            return json_object_array_get_idx(list, i);
    return NULL;
}

/* ---- tests ---- */

START_TEST(events_status_and_info)
{
    uint8_t m[64];
    struct json_object *e, *st;
    char listen[64];
    int fd;
    int64_t id;
    kytos_test_resp *r;
    const char *metrics;

    start_host(NULL);
    st = sb_status();
    snprintf(listen, sizeof listen, "127.0.0.1:%u", sb_port);
    ck_assert_str_eq(gets(st, "listen"), listen);
    ck_assert_int_eq(geti(st, "port"), sb_port);
    ck_assert_str_eq(gets(st, "protocol"), "openflow");
    ck_assert_str_eq(gets(st, "handlers.openflow"), "kytos/sbproto");
    json_object_put(st);

    fd = client();
    id = conn_id(fd);
    ck_assert_int_gt(id, 0);
    e = event_where(NEW_EV, "source.id", id);
    ck_assert_str_eq(gets(e, "source.address"), "127.0.0.1");
    ck_assert_str_eq(gets(e, "source.protocol"), "openflow");
    ck_assert_str_eq(gets(e, "source.state"), "NEW");
    snprintf(listen, sizeof listen, "127.0.0.1:%u", local_port(fd));
    ck_assert_str_eq(gets(e, "source.connection"), listen);
    ck_assert_ptr_nonnull(await_event("test/sbproto.open", "id", id));

    /* data in: raw.in with the bytes of the read, in base64 */
    send_all(fd, m, put_msg(m, 4, 0xf6, 8, 7));
    e = await_event("test/sbproto.info", "id", id);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(gets(e, "address"), "127.0.0.1");
    ck_assert_int_eq(geti(e, "port"), local_port(fd));
    ck_assert_int_eq(geti(e, "local_port"), sb_port);
    ck_assert_str_eq(gets(e, "protocol"), "openflow");
    ck_assert_int_eq(geti(e, "state"), KYTOS_CONN_SETUP);
    ck_assert_int_eq(geti(e, "msgs_in"), 1);
    ck_assert_int_eq(geti(e, "bytes_in"), 8);
    ck_assert_int_gt(geti(e, "connected_at_ms"), 1700000000000LL);
    ck_assert_int_eq(geti(e, "json.id"), id);
    ck_assert_str_eq(gets(e, "json.state"), "SETUP");
    ck_assert_str_eq(gets(e, "same"), "true");
    e = await_event(RAW_EV, "source.id", id);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(gets(e, "new_data"), "BPYACAAAAAc=");   /* 04 f6 0008 00000007 */

    /* the NApp names the switch: status, SOURCE and the lost event show it */
    memcpy(m + 8, "00:00:00:00:00:00:00:01", 23);
    put_msg(m, 4, 0xf4, 31, 8);
    memcpy(m + 8, "00:00:00:00:00:00:00:01", 23);
    send_all(fd, m, 31);
    send_all(fd, m, put_msg(m, 4, 0xf6, 8, 9));
    ck_assert(await_count("test/sbproto.info", 2));
    e = kytos_test_published(th, "test/sbproto.info", 1);
    ck_assert_str_eq(gets(e, "dpid"), "00:00:00:00:00:00:00:01");
    ck_assert_int_eq(geti(e, "state"), KYTOS_CONN_ESTABLISHED);
    st = sb_status();
    ck_assert_int_eq(geti(st, "connections"), 1);
    ck_assert_str_eq(gets(status_conn(st, id), "dpid"), "00:00:00:00:00:00:00:01");
    ck_assert_int_eq(geti(status_conn(st, id), "messages_in"), 3);
    ck_assert_int_eq(geti(status_conn(st, id), "bytes_in"), 8 + 31 + 8);
    json_object_put(st);

    /* the switch goes: on_close, then the lost event */
    close(fd);
    e = lost_of(id);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(gets(e, "reason"), "connection closed by the peer");
    ck_assert_str_eq(gets(e, "source.state"), "FINISHED");
    ck_assert_str_eq(gets(e, "dpid"), "00:00:00:00:00:00:00:01");
    ck_assert_ptr_null(gets(e, "exception"));
    e = await_event("test/sbproto.close", "id", id);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(gets(e, "reason"), "connection closed by the peer");
    ck_assert_int_eq(geti(e, "send_after_close"), KYTOS_ESTATE);
    st = sb_status();
    ck_assert_int_eq(geti(st, "connections"), 0);
    ck_assert_int_eq(geti(st, "connections_total"), 1);
    ck_assert_int_eq(geti(st, "disconnects.peer_closed"), 1);
    ck_assert_int_eq(geti(st, "messages_in"), 3);
    json_object_put(st);

    r = kytos_test_request(th, "GET", "/metrics", NULL);
    metrics = kytos_test_resp_body(r, NULL);
    ck_assert_ptr_nonnull(strstr(metrics, "kytos_sb_connections 0\n"));
    ck_assert_ptr_nonnull(strstr(metrics, "kytos_sb_connections_total 1\n"));
    ck_assert_ptr_nonnull(strstr(metrics, "kytos_sb_messages_total{direction=\"in\"} 3\n"));
    ck_assert_ptr_nonnull(strstr(metrics, "kytos_sb_bytes_total{direction=\"in\"} 47\n"));
    ck_assert_ptr_nonnull(strstr(metrics, "kytos_sb_disconnects_total{reason=\"peer_closed\"} 1\n"));
    kytos_test_resp_free(r);
}
END_TEST

/* RECORD messages of these lengths (one of the maximum) arrive whole, in
 * order, byte for byte. */
static const uint16_t rec_lens[] = {8, 9, 15, 16, 100, 8, 1500, 65535, 8, 3000, 64, 8, 4097, 9};
#define NREC (sizeof rec_lens / sizeof rec_lens[0])

static uint8_t *records(size_t *total, uint32_t base)
{
    size_t i, off = 0, sum = 0;
    uint8_t *s;
    for (i = 0; i < NREC; i++)
        sum += rec_lens[i];
    s = malloc(sum);
    for (i = 0; i < NREC; i++)
        off += put_msg(s + off, 4, 0xf5, rec_lens[i], base + (uint32_t)i);
    *total = sum;
    return s;
}

static void check_records(int64_t id, const uint8_t *s, uint32_t base, size_t first_event)
{
    size_t i, off = 0;

    ck_assert(await_count("test/sbproto.msg", first_event + NREC));
    for (i = 0; i < NREC; i++) {
        struct json_object *e = kytos_test_published(th, "test/sbproto.msg", first_event + i);
        ck_assert_int_eq(geti(e, "id"), id);
        ck_assert_int_eq(geti(e, "xid"), base + i);
        ck_assert_int_eq(geti(e, "len"), rec_lens[i]);
        ck_assert_str_eq(gets(e, "whole"), "true");
        ck_assert_int_eq(geti(e, "sum"), msg_sum(s + off, rec_lens[i]));
        off += rec_lens[i];
    }
}

START_TEST(messages_whole_and_in_order_byte_by_byte)
{
    size_t n, i;
    uint8_t *s;
    int fd;
    int64_t id;

    start_host("sb_raw_in_events = false\n");
    s = records(&n, 100);
    fd = client();
    id = conn_id(fd);
    /* one byte per segment (TCP_NODELAY), the 64 KiB one in 1000-byte pieces */
    for (i = 0; i < n;) {
        size_t k = i >= 1500 + 8 + 8 + 100 + 16 + 15 + 9 + 8 && i < 1500 + 164 + 65535 ? 1000 : 1;
        if (k > n - i)
            k = n - i;
        send_all(fd, s + i, k);
        i += k;
    }
    check_records(id, s, 100, 0);
    close(fd);
    free(s);
}
END_TEST

START_TEST(messages_whole_and_in_order_many_per_write)
{
    size_t n, i;
    uint8_t *s, *all;
    int fd;
    int64_t id;

    start_host("sb_raw_in_events = false\n");
    s = records(&n, 0);
    /* three copies back to back, one write */
    all = malloc(3 * n);
    for (i = 0; i < 3; i++)
        memcpy(all + i * n, s, n);
    fd = client();
    id = conn_id(fd);
    send_all(fd, all, 3 * n);
    check_records(id, s, 0, 0);
    check_records(id, s, 0, NREC);
    check_records(id, s, 0, 2 * NREC);
    close(fd);
    free(all);
    free(s);
}
END_TEST

/* Count lines of the captured stderr that contain needle. */
static int log_lines(const char *path, const char *needle)
{
    char line[2048];
    int n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strstr(line, needle))
            n++;
    fclose(f);
    return n;
}

START_TEST(bad_headers_close_only_their_connection)
{
    static const uint8_t bad[][8] = {
        {4, 0, 0, 0, 0, 0, 0, 1},    /* length 0 */
        {4, 0, 0, 7, 0, 0, 0, 1},    /* length 7 */
        {0, 0, 0, 8, 0, 0, 0, 1},    /* version 0 */
        {7, 0, 0, 8, 0, 0, 0, 1},    /* version 7 */
    };
    char logpath[] = "/tmp/kytos-sb-log-XXXXXX", needle[64];
    int logfd = mkstemp(logpath), saved = dup(2), good, i;
    struct json_object *st;

    ck_assert_int_ge(logfd, 0);
    start_host("sb_raw_in_events = false\n");
    good = client();
    conn_id(good);
    fflush(stderr);
    dup2(logfd, 2);
    for (i = 0; i < 4; i++) {
        uint8_t m[24];
        int fd = client();
        int64_t id = conn_id(fd);
        struct json_object *e;

        /* a good message, then the bad header and some bytes after it */
        put_msg(m, 4, 0xf5, 8, (uint32_t)i);
        memcpy(m + 8, bad[i], 8);
        memset(m + 16, 0xee, 8);
        send_all(fd, m, sizeof m);
        e = lost_of(id);
        ck_assert_ptr_nonnull(e);
        ck_assert_ptr_nonnull(strstr(gets(e, "reason"), "bad OpenFlow header"));
        ck_assert_ptr_nonnull(strstr(gets(e, "exception"), i < 2 ? "length below 8" : "version not 1..6"));
        ck_assert(sees_close(fd));
        /* the good message before it went through */
        ck_assert_ptr_nonnull(event_where("test/sbproto.msg", "id", id));
        /* one log line names that peer */
        snprintf(needle, sizeof needle, "127.0.0.1:%u", local_port(fd));
        ck_assert_int_eq(log_lines(logpath, needle), 1);
        ck_assert_int_eq(log_lines(logpath, "bad OpenFlow header"), i + 1);
        close(fd);
        /* the other switch is served as before */
        echo_round_trip(good, (uint32_t)i);
    }
    fflush(stderr);
    dup2(saved, 2);
    snprintf(needle, sizeof needle, "127.0.0.1:%u", local_port(good));
    ck_assert_int_eq(log_lines(logpath, needle), 0);
    unlink(logpath);
    st = sb_status();
    ck_assert_int_eq(geti(st, "disconnects.bad_framing"), 4);
    ck_assert_int_eq(geti(st, "connections"), 1);
    json_object_put(st);
    close(good);
}
END_TEST

START_TEST(message_cut_then_close_is_a_lost_connection)
{
    uint8_t m[100];
    int fd;
    int64_t id;
    struct json_object *e;

    start_host(NULL);
    fd = client();
    id = conn_id(fd);
    put_msg(m, 4, 0xf5, sizeof m, 1);
    send_all(fd, m, 50);                 /* half of it */
    ck_assert_ptr_nonnull(await_event(RAW_EV, "source.id", id));
    close(fd);
    e = lost_of(id);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(gets(e, "reason"), "connection closed by the peer");
    ck_assert_ptr_nonnull(await_event("test/sbproto.close", "id", id));
    ck_assert_uint_eq(kytos_test_published_count(th, "test/sbproto.msg"), 0);
}
END_TEST

/* A switch that never reads asks for a blast (mode: 0 copy, 1 give, 2
 * send_notify); returns its connection id once it was cut off. */
static int64_t slow_reader_cut_off(int mode, int *fd_out)
{
    uint8_t m[15];
    int fd = client_rcvbuf(4096);
    int64_t id = conn_id(fd);
    struct json_object *e;

    put_msg(m, 4, 0xf0, sizeof m, 1);
    m[8] = 0, m[9] = 0, m[10] = 0x27, m[11] = 0x10;   /* 10000 messages */
    m[12] = 0xea, m[13] = 0x60;                      /* of 60000 bytes */
    m[14] = (uint8_t)mode;
    send_all(fd, m, sizeof m);
    e = lost_of(id);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_nonnull(strstr(gets(e, "reason"), "send queue full"));
    ck_assert_ptr_nonnull(strstr(gets(e, "exception"), "send queue full"));
    e = await_event("test/sbproto.send_failed", "id", id);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(geti(e, "rc"), KYTOS_EFULL);
    ck_assert_int_lt(geti(e, "sent"), 10000);
    *fd_out = fd;
    return id;
}

START_TEST(a_switch_that_never_reads_is_cut_off)
{
    struct json_object *st, *e;
    int other, slow[3], mode;
    int64_t id[3];
    size_t notified;

    start_host("sb_send_queue_max = 262144\nsb_raw_in_events = false\n");
    other = client();
    conn_id(other);
    for (mode = 0; mode < 3; mode++) {
        id[mode] = slow_reader_cut_off(mode, &slow[mode]);
        echo_round_trip(other, (uint32_t)mode);   /* the other one is served */
    }
    st = sb_status();
    ck_assert_int_eq(geti(st, "disconnects.send_queue_full"), 3);
    ck_assert_int_eq(geti(st, "send_queue_limit"), 262144);
    /* memory stayed bounded: no queue ever held more than the bound */
    ck_assert_int_gt(geti(st, "send_queue_high_water"), 0);
    ck_assert_int_le(geti(st, "send_queue_high_water"), 262144);
    ck_assert_int_eq(geti(st, "connections"), 1);
    json_object_put(st);
    /* send_notify: the sends that went out were notified after the write,
     * the failed one became Kytos' connection error event */
    e = await_event("kytos/core.openflow.connection.error", "destination.id", id[2]);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(gets(e, "exception"), "Connection state: ConnectionState.FINISHED");
    ck_assert_int_ge(geti(e, "xid"), 0);
    notified = kytos_test_published_count(th, "kytos/sbproto.messages.out.blast");
    e = event_where("test/sbproto.send_failed", "id", id[2]);
    ck_assert_int_eq((int64_t)notified, geti(e, "sent"));
    ck_assert_int_eq(geti(e, "xid"), -1);
    for (mode = 0; mode < 3; mode++)
        close(slow[mode]);
    close(other);
}
END_TEST

struct flood {
    int fd;
    atomic_int stop;
    atomic_size_t sent;
};

static void *flooder(void *arg)
{
    struct flood *f = arg;
    static uint8_t buf[64 * 1000];
    size_t i;

    for (i = 0; i < sizeof buf; i += 1000)
        put_msg(buf + i, 4, 0x0a, 1000, (uint32_t)i);
    while (!atomic_load(&f->stop)) {
        ssize_t w = send(f->fd, buf, sizeof buf, MSG_NOSIGNAL);
        if (w <= 0)
            break;
        atomic_fetch_add(&f->sent, (size_t)w);
    }
    return NULL;
}

static bool flooded(const void *ud)
{
    const struct flood *f = ud;
    return atomic_load(&((struct flood *)f)->sent) >= 8u << 20;
}

struct read_since {
    int64_t fid, before;
};

/* The flooder's messages_in passed before. */
static bool read_more(const void *ud)
{
    const struct read_since *r = ud;
    struct json_object *st = sb_status();
    int64_t now = geti(status_conn(st, r->fid), "messages_in");

    json_object_put(st);
    return now > r->before;
}

START_TEST(a_flooding_switch_does_not_starve_another)
{
    struct flood f;
    pthread_t t;
    struct json_object *st;
    int other, i;
    int64_t fid, before;
    struct timeval tv = {5, 0};

    start_host("sb_raw_in_events = false\n");
    other = client();
    conn_id(other);
    setsockopt(other, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    f.fd = client();
    fid = conn_id(f.fd);
    atomic_init(&f.stop, 0);
    atomic_init(&f.sent, 0);
    ck_assert_int_eq(pthread_create(&t, NULL, flooder, &f), 0);
    ck_assert(await_until(flooded, &f, 30000));
    st = sb_status();
    before = geti(status_conn(st, fid), "messages_in");
    json_object_put(st);
    /* while it floods, the other switch's echoes come back (5 s each at most) */
    for (i = 0; i < 20; i++)
        echo_round_trip(other, (uint32_t)i);
    /* and the flood is still read, not stalled to serve the other: its count
     * grows (awaited: 20 echoes can take a millisecond, when a loaded
     * machine may not have run the flooder at all) */
    ck_assert_int_gt(before, 1000);
    ck_assert_msg(await_until(read_more, &(struct read_since){fid, before}, 10000),
                  "the flooder's messages_in stayed at %lld", (long long)before);
    atomic_store(&f.stop, 1);
    shutdown(f.fd, SHUT_WR);
    pthread_join(t, NULL);
    close(f.fd);
    close(other);
}
END_TEST

START_TEST(napp_close_flushes_what_it_sent_first)
{
    uint8_t m[64 + 8 + 64], rep[64];
    int fd;
    int64_t id;
    struct json_object *e, *st;

    start_host(NULL);
    fd = client();
    id = conn_id(fd);
    put_msg(m, 4, 2, 64, 5);            /* ECHO_REQUEST */
    put_msg(m + 64, 4, 0xf2, 8, 6);     /* CLOSE, in the same write */
    put_msg(m + 72, 4, 2, 64, 7);       /* never delivered: the NApp closed */
    send_all(fd, m, sizeof m);
    ck_assert_int_eq(recv_exact(fd, rep, sizeof rep), 0);
    ck_assert_uint_eq(rep[1], 3);
    ck_assert_uint_eq(rep[7], 5);
    ck_assert_int_eq(recv(fd, rep, sizeof rep, 0), 0);   /* then the end, nothing more */
    e = lost_of(id);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(gets(e, "reason"), "the test asked");
    e = await_event("test/sbproto.close", "id", id);
    ck_assert_str_eq(gets(e, "reason"), "the test asked");
    st = sb_status();
    ck_assert_int_eq(geti(st, "disconnects.closed_by_napp"), 1);
    ck_assert_int_eq(geti(st, "messages_out"), 1);
    ck_assert_int_eq(geti(st, "bytes_out"), 64);
    json_object_put(st);
    close(fd);
}
END_TEST

START_TEST(send_notify_publishes_after_the_write)
{
    uint8_t m[16], rep[16];
    int fd;
    int64_t id;

    start_host(NULL);
    fd = client();
    id = conn_id(fd);
    put_msg(m, 4, 0xf3, sizeof m, 77);
    m[8] = 1;                           /* urgent: nothing queued, goes at once */
    send_all(fd, m, sizeof m);
    ck_assert_int_eq(recv_exact(fd, rep, sizeof rep), 0);
    ck_assert_int_eq(memcmp(m, rep, sizeof m), 0);
    ck_assert_ptr_nonnull(await_event("kytos/sbproto.messages.out.test", "xid", 77));
    ck_assert_uint_eq(kytos_test_published_count(th, "kytos/core.openflow.connection.error"), 0);
    (void)id;
    close(fd);
}
END_TEST

START_TEST(unloading_the_handler_closes_its_connections)
{
    kytos_test_resp *r;
    struct json_object *e, *st;
    int fd, later;
    int64_t id, lid;

    start_host(NULL);
    fd = client();
    id = conn_id(fd);
    ck_assert_ptr_nonnull(await_event("test/sbproto.open", "id", id));
    r = kytos_test_request(th, "GET", "/api/kytos/core/napps/kytos/sbproto/disable", NULL);
    ck_assert_uint_eq(kytos_test_resp_status(r), 200);
    kytos_test_resp_free(r);
    ck_assert(sees_close(fd));
    e = lost_of(id);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_nonnull(strstr(gets(e, "reason"), "kytos/sbproto was unloaded"));
    st = sb_status();
    ck_assert_int_eq(geti(st, "disconnects.napp_unloaded"), 1);
    ck_assert_ptr_null(gets(st, "handlers.openflow"));
    json_object_put(st);
    /* nobody handles openflow now: a switch connects, only the core sees it */
    later = client();
    lid = conn_id(later);
    ck_assert_ptr_null(event_where("test/sbproto.open", "id", lid));
    close(later);
    ck_assert_ptr_nonnull(lost_of(lid));
    close(fd);
}
END_TEST

/* 0 when the peer closed fd, 1 when the connection id was adopted by the
 * test NApp instead (test/sbproto.open); fails the test after 30 s. */
static int closed_or_adopted(int fd, int64_t id)
{
    struct timeval tv = {0, 200000};
    uint8_t b[4096];
    int i;

    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    for (i = 0; i < 150; i++) {
        ssize_t r = recv(fd, b, sizeof b, 0);
        if (r == 0 || (r < 0 && errno == ECONNRESET))
            return 0;
        if (r > 0)
            continue;
        if (event_where("test/sbproto.open", "id", id))
            return 1;
    }
    ck_abort_msg("connection %lld neither closed nor adopted in 30 s", (long long)id);
    return -1;
}

START_TEST(a_handler_registering_closes_unhandled_connections)
{
    char conf[256];
    struct kytos_test_opts o = {.struct_size = sizeof o, .conf_text = conf};
    struct json_object *e;
    int fd, again;
    int64_t id, aid;

    snprintf(conf, sizeof conf,
             "[daemon]\nsb_enabled = true\nlisten = \"127.0.0.1\"\nport = 0\n"
             "protocol_name = \"openflow\"\n");
    th = kytos_test_host_new(&o);
    ck_assert_ptr_nonnull(th);
    ck_assert_int_eq(kytos_test_start(th), 0);
    sb_port = kytos_test_southbound_port(th);
    fd = client();
    id = conn_id(fd);
    ck_assert_int_eq(kytos_test_load(th, SO), 0);
    /* The I/O thread binds a connection to the protocol's handler just
     * after publishing connection.new; when the NApp registers in that
     * window, the connection is simply the NApp's (its open event), and
     * there is nothing to close.  Otherwise it is closed, naming why. */
    if (!closed_or_adopted(fd, id)) {
        e = lost_of(id);
        ck_assert_ptr_nonnull(e);
        ck_assert_ptr_nonnull(strstr(gets(e, "reason"), "handler registered"));
    } else {
        /* adopted: the NApp serves it like any of its connections */
        struct timeval tv = {10, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        echo_round_trip(fd, 2);
    }
    /* the switch reconnects and is the NApp's */
    again = client();
    aid = conn_id(again);
    ck_assert_ptr_nonnull(await_event("test/sbproto.open", "id", aid));
    echo_round_trip(again, 1);
    close(again);
    close(fd);
}
END_TEST

START_TEST(protocol_name_follows_the_port)
{
    struct kytos_test_opts o = {.struct_size = sizeof o,
                                .conf_text = "[daemon]\nsb_enabled = true\nlisten = \"127.0.0.1\"\n"
                                             "port = 0\n"};
    struct json_object *st;
    char want[32];
    int fd;

    th = kytos_test_host_new(&o);
    ck_assert_ptr_nonnull(th);
    ck_assert_int_eq(kytos_test_load(th, SO), 0);
    ck_assert_int_eq(kytos_test_start(th), 0);
    sb_port = kytos_test_southbound_port(th);
    /* Kytos: a port other than 6633/6653 without protocol_name is its number */
    snprintf(want, sizeof want, "%04u", sb_port);
    st = sb_status();
    ck_assert_str_eq(gets(st, "protocol"), want);
    json_object_put(st);
    fd = client();
    snprintf(want, sizeof want, "kytos/core.%04u.connection.new", sb_port);
    ck_assert(await_count(want, 1));
    /* and the openflow handler does not get it */
    ck_assert_uint_eq(kytos_test_published_count(th, "test/sbproto.open"), 0);
    close(fd);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("southbound");
    TCase *tc = tcase_create("server");

    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, events_status_and_info);
    tcase_add_test(tc, messages_whole_and_in_order_byte_by_byte);
    tcase_add_test(tc, messages_whole_and_in_order_many_per_write);
    tcase_add_test(tc, bad_headers_close_only_their_connection);
    tcase_add_test(tc, message_cut_then_close_is_a_lost_connection);
    tcase_add_test(tc, a_switch_that_never_reads_is_cut_off);
    tcase_add_test(tc, a_flooding_switch_does_not_starve_another);
    tcase_add_test(tc, napp_close_flushes_what_it_sent_first);
    tcase_add_test(tc, send_notify_publishes_after_the_write);
    tcase_add_test(tc, unloading_the_handler_closes_its_connections);
    tcase_add_test(tc, a_handler_registering_closes_unhandled_connections);
    tcase_add_test(tc, protocol_name_follows_the_port);
    suite_add_tcase(s, tc);
    return kytos_check_run(s);
}
