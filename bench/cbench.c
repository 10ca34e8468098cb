/* bench/cbench.c - a load generator in the manner of cbench (oflops), over
 * OpenFlow 1.3: N emulated switches connect to a controller over TCP,
 * complete the handshake (HELLO, FEATURES, DESC, PORT_DESC, barriers and
 * echoes answered; any other multipart request gets an empty reply), then
 * send PACKET_INs and count FLOW_MODs and PACKET_OUTs as responses.
 *
 *   cbench [-H 127.0.0.1] -p PORT [-s 16] [-l 10] [-m 1000] [-w 1] [-M 1000] [-t]
 *
 *   -s switches, -l loops of -m ms each, the first -w loops a warm-up left
 *   out of the result, -M source MAC addresses per switch, -t throughput
 *   mode (every switch keeps its send buffer full of PACKET_INs) instead
 *   of latency mode (one PACKET_IN outstanding per switch: the next one
 *   leaves when the PACKET_OUT answering it arrives; FLOW_MODs are counted
 *   but do not complete a round trip).
 *
 * The frames: switch s, packet k: source MAC 02:00:ss:ss:mm:mm with
 * m = k mod M, destination the source of packet k+1, an IPv4 frame of 64
 * bytes, in_port 1 + m mod 3, reason OFPR_NO_MATCH, buffer_id NO_BUFFER
 * (OVS keeps no buffers either).  After the first M packets of a switch a
 * learning controller knows every destination: it answers each PACKET_IN
 * with a FLOW_MOD and a PACKET_OUT.
 *
 * Output: one line per loop, then
 *   RESULT: <mode> <switches> switches <loops> loops (warm-up excluded):
 *     responses/s min/max/avg/stdev = ..., flow_mods/s avg, packet_outs/s avg,
 *     packet_ins/s avg [latency mode: round trip p50/p99/max us, probes lost],
 *     responses in all loops N (warm-up too: for a controller's CPU per response)
 * cbench speaks only OpenFlow 1.0, which Kytos dropped; the rest is its
 * semantics. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define OFP_VERSION 4
#define T_HELLO 0
#define T_ERROR 1
#define T_ECHO_REQUEST 2
#define T_ECHO_REPLY 3
#define T_FEATURES_REQUEST 5
#define T_FEATURES_REPLY 6
#define T_PACKET_IN 10
#define T_PACKET_OUT 13
#define T_FLOW_MOD 14
#define T_MULTIPART_REQUEST 18
#define T_MULTIPART_REPLY 19
#define T_BARRIER_REQUEST 20
#define T_BARRIER_REPLY 21
#define T_ROLE_REQUEST 24
#define T_ROLE_REPLY 25
#define T_GET_ASYNC_REQUEST 26
#define T_GET_ASYNC_REPLY 27
#define MP_DESC 0
#define MP_PORT_DESC 13
#define FRAME_LEN 64
#define PKTIN_LEN (8 + 16 + 16 + 2 + FRAME_LEN)   /* header, fixed, match, pad, frame */
#define INBUF (1 << 20)
#define OUTBUF (1 << 20)
#define FILL_TO (64 * 1024)
#define MAX_SAMPLES (1 << 22)

struct sw {
    int fd, id;
    bool ready;
    uint8_t *in, *out;
    size_t in_n, out_off, out_n;
    uint64_t k;                     /* packets sent */
    uint64_t flow_mods, packet_outs, packet_ins;   /* this loop */
    bool outstanding;
    struct timespec sent_at;
    bool want_out;                  /* EPOLLOUT registered */
    uint64_t lost;                  /* latency probes unanswered for a second */
};

static int epfd;
static bool throughput;
static unsigned macs = 1000;
static uint64_t *samples;           /* latency, ns */
static size_t n_samples;
static bool measuring;

static void die(const char *what)
{
    perror(what);
    exit(2);
}

static int64_t ns_between(const struct timespec *a, const struct timespec *b)
{
    return (int64_t)(b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)(v >> 16)); put16(p + 2, (uint16_t)v); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)(v >> 32)); put32(p + 4, (uint32_t)v); }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

/* room for n more bytes at the end of the output buffer, or NULL */
static uint8_t *out_room(struct sw *s, size_t n)
{
    if (s->out_off > 0 && s->out_off == s->out_n)
        s->out_off = s->out_n = 0;
    if (s->out_n + n > OUTBUF) {
        memmove(s->out, s->out + s->out_off, s->out_n - s->out_off);
        s->out_n -= s->out_off;
        s->out_off = 0;
        if (s->out_n + n > OUTBUF)
            return NULL;
    }
    uint8_t *p = s->out + s->out_n;
    s->out_n += n;
    return p;
}

static uint8_t *msg(struct sw *s, uint8_t type, uint32_t xid, size_t len)
{
    uint8_t *p = out_room(s, len);

    if (!p) {
        fprintf(stderr, "switch %d: output buffer full\n", s->id);
        exit(2);
    }
    memset(p, 0, len);
    p[0] = OFP_VERSION;
    p[1] = type;
    put16(p + 2, (uint16_t)len);
    put32(p + 4, xid);
    return p;
}

static void mac_of(int sw, unsigned m, uint8_t *p)
{
    p[0] = 0x02;
    p[1] = 0;
    p[2] = (uint8_t)(sw >> 8);
    p[3] = (uint8_t)sw;
    p[4] = (uint8_t)(m >> 8);
    p[5] = (uint8_t)m;
}

static void packet_in(struct sw *s)
{
    uint8_t *p = msg(s, T_PACKET_IN, (uint32_t)s->k, PKTIN_LEN), *f;
    unsigned m = (unsigned)(s->k % macs);

    put32(p + 8, 0xffffffffU);              /* buffer_id */
    put16(p + 12, FRAME_LEN);               /* total_len */
    p[14] = 0;                              /* OFPR_NO_MATCH */
    p[15] = 0;                              /* table */
    put64(p + 16, 0);                       /* cookie */
    put16(p + 24, 1);                       /* OFPMT_OXM */
    put16(p + 26, 12);                      /* match length */
    put16(p + 28, 0x8000);                  /* OXM in_port */
    p[30] = 0;
    p[31] = 4;
    put32(p + 32, 1 + m % 3);
    f = p + 8 + 16 + 16 + 2;
    mac_of(s->id, (m + 1) % macs, f);
    mac_of(s->id, m, f + 6);
    put16(f + 12, 0x0800);
    f[14] = 0x45;
    put16(f + 16, FRAME_LEN - 14);
    f[22] = 64;
    f[23] = 17;
    put32(f + 26, 0xc6336400U | (m & 0xff));
    put32(f + 30, 0xc6336400U | ((m + 1) & 0xff));
    s->k++;
    s->packet_ins++;
}

static void want_out(struct sw *s, bool on)
{
    struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = s};

    if (on == s->want_out)
        return;
    s->want_out = on;
    if (epoll_ctl(epfd, EPOLL_CTL_MOD, s->fd, &ev) < 0)
        die("epoll_ctl");
}

static void flush(struct sw *s)
{
    if (throughput && s->ready)
        while (s->out_n - s->out_off < FILL_TO)
            packet_in(s);
    while (s->out_off < s->out_n) {
        ssize_t n = send(s->fd, s->out + s->out_off, s->out_n - s->out_off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            if (errno == EINTR)
                continue;
            fprintf(stderr, "switch %d: send: %s\n", s->id, strerror(errno));
            exit(2);
        }
        s->out_off += (size_t)n;
    }
    want_out(s, s->out_off < s->out_n || (throughput && s->ready));
}

static void next_latency_probe(struct sw *s)
{
    packet_in(s);
    s->outstanding = true;
    clock_gettime(CLOCK_MONOTONIC, &s->sent_at);
}

static void multipart(struct sw *s, const uint8_t *m, size_t len)
{
    uint16_t type = len >= 12 ? get16(m + 8) : 0xffff;
    uint32_t xid;
    uint8_t *p;

    memcpy(&xid, m + 4, 4);
    xid = ntohl(xid);
    if (type == MP_DESC) {
        p = msg(s, T_MULTIPART_REPLY, xid, 16 + 1056);
        put16(p + 8, MP_DESC);
        snprintf((char *)p + 16, 256, "kytos-c bench");
        snprintf((char *)p + 16 + 256, 256, "cbench.c");
        snprintf((char *)p + 16 + 512, 256, "1.0");
        snprintf((char *)p + 16 + 768, 32, "%d", s->id);
        snprintf((char *)p + 16 + 800, 256, "emulated switch %d", s->id);
    } else if (type == MP_PORT_DESC) {
        p = msg(s, T_MULTIPART_REPLY, xid, 16 + 3 * 64);
        put16(p + 8, MP_PORT_DESC);
        for (int i = 0; i < 3; i++) {
            uint8_t *q = p + 16 + 64 * i;
            put32(q, (uint32_t)i + 1);
            mac_of(0xffff, (unsigned)(s->id * 4 + i), q + 8);
            snprintf((char *)q + 16, 16, "e%d-%d", s->id, i + 1);
            put32(q + 36, 4);               /* state LIVE */
            put32(q + 40, 0x820);           /* curr: 10GB_FD, copper */
            put32(q + 56, 10000000);        /* curr_speed kbps */
        }
    } else {
        p = msg(s, T_MULTIPART_REPLY, xid, 16);
        put16(p + 8, type);
    }
}

static void on_message(struct sw *s, const uint8_t *m, size_t len)
{
    uint32_t xid;
    uint8_t *p;

    memcpy(&xid, m + 4, 4);
    xid = ntohl(xid);
    switch (m[1]) {
    case T_ECHO_REQUEST:
        p = msg(s, T_ECHO_REPLY, xid, len);
        memcpy(p + 8, m + 8, len - 8);
        break;
    case T_FEATURES_REQUEST:
        p = msg(s, T_FEATURES_REPLY, xid, 32);
        put64(p + 8, (uint64_t)s->id);
        put32(p + 16, 0);                   /* n_buffers */
        p[20] = 254;                        /* n_tables */
        put32(p + 24, 0x4f);                /* capabilities */
        s->ready = true;
        break;
    case T_MULTIPART_REQUEST:
        multipart(s, m, len);
        break;
    case T_BARRIER_REQUEST:
        msg(s, T_BARRIER_REPLY, xid, 8);
        break;
    case T_ROLE_REQUEST:
        if (len >= 24) {
            p = msg(s, T_ROLE_REPLY, xid, 24);
            memcpy(p + 8, m + 8, 16);
        }
        break;
    case T_GET_ASYNC_REQUEST:
        msg(s, T_GET_ASYNC_REPLY, xid, 32);
        break;
    case T_FLOW_MOD:
        s->flow_mods++;
        break;
    case T_PACKET_OUT:
        s->packet_outs++;
        if (!throughput && s->outstanding) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (measuring && n_samples < MAX_SAMPLES)
                samples[n_samples++] = (uint64_t)ns_between(&s->sent_at, &now);
            next_latency_probe(s);
        }
        break;
    case T_ERROR:
        if (len >= 12)
            fprintf(stderr, "switch %d: OFPT_ERROR type %u code %u\n", s->id, get16(m + 8),
                    get16(m + 10));
        break;
    default:
        break;
    }
}

static void on_readable(struct sw *s)
{
    for (;;) {
        ssize_t n = recv(s->fd, s->in + s->in_n, INBUF - s->in_n, 0);
        size_t off = 0;
        if (n == 0) {
            fprintf(stderr, "switch %d: the controller closed the connection\n", s->id);
            exit(2);
        }
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            if (errno == EINTR)
                continue;
            fprintf(stderr, "switch %d: recv: %s\n", s->id, strerror(errno));
            exit(2);
        }
        s->in_n += (size_t)n;
        while (s->in_n - off >= 8) {
            uint16_t len = get16(s->in + off + 2);
            if (len < 8) {
                fprintf(stderr, "switch %d: a message of length %u\n", s->id, len);
                exit(2);
            }
            if (s->in_n - off < len)
                break;
            on_message(s, s->in + off, len);
            off += len;
        }
        memmove(s->in, s->in + off, s->in_n - off);
        s->in_n -= off;
        if ((size_t)n < 65536)
            break;
    }
    flush(s);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void usage(void)
{
    fprintf(stderr, "usage: cbench [-H host] -p port [-s switches] [-l loops] [-m ms] [-w warmup]"
                    " [-M macs] [-t]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *host = "127.0.0.1";
    int port = 0, nsw = 16, loops = 10, ms = 1000, warmup = 1, opt;
    struct sockaddr_in sa = {.sin_family = AF_INET};
    struct sw *sws;
    double *rates;
    double fm_sum = 0, po_sum = 0, pi_sum = 0;
    uint64_t total = 0;                 /* responses over every loop, warm-up too */
    struct epoll_event evs[64];

    while ((opt = getopt(argc, argv, "H:p:s:l:m:w:M:t")) != -1) {
        switch (opt) {
        case 'H': host = optarg; break;
        case 'p': port = atoi(optarg); break;
        case 's': nsw = atoi(optarg); break;
        case 'l': loops = atoi(optarg); break;
        case 'm': ms = atoi(optarg); break;
        case 'w': warmup = atoi(optarg); break;
        case 'M': macs = (unsigned)atoi(optarg); break;
        case 't': throughput = true; break;
        default: usage();
        }
    }
    if (port <= 0 || port > 65535 || nsw < 1 || nsw > 4096 || loops < 1 || loops > 10000 ||
        ms < 10 || warmup < 0 || warmup >= loops || macs < 2 || macs > 65536)
        usage();
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
        usage();
    sa.sin_port = htons((uint16_t)port);
    if ((epfd = epoll_create1(0)) < 0)
        die("epoll_create1");
    sws = calloc((size_t)nsw, sizeof *sws);
    rates = calloc((size_t)loops, sizeof *rates);
    samples = throughput ? NULL : malloc(MAX_SAMPLES * sizeof *samples);
    if (!sws || !rates || (!throughput && !samples))
        die("malloc");
    for (int i = 0; i < nsw; i++) {
        struct sw *s = &sws[i];
        int one = 1;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = s};
        s->id = i + 1;
        s->in = malloc(INBUF);
        s->out = malloc(OUTBUF);
        if (!s->in || !s->out)
            die("malloc");
        if ((s->fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
            die("socket");
        setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(s->fd, (struct sockaddr *)&sa, sizeof sa) < 0)
            die("connect");
        fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
        if (epoll_ctl(epfd, EPOLL_CTL_ADD, s->fd, &ev) < 0)
            die("epoll_ctl");
        msg(s, T_HELLO, 0, 8);
        flush(s);
    }
    printf("cbench: %d switches, %s mode, %d loops of %d ms (%d warm-up), %u MACs per switch\n", nsw,
           throughput ? "throughput" : "latency", loops, ms, warmup, macs);
    fflush(stdout);
    /* the handshake: every switch has sent its FEATURES_REPLY (10 s at most) */
    {
        struct timespec t0, now;
        int ready = 0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (ready < nsw) {
            int n = epoll_wait(epfd, evs, 64, 100);
            for (int i = 0; i < n; i++) {
                struct sw *s = evs[i].data.ptr;
                if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                    on_readable(s);
                if (evs[i].events & EPOLLOUT)
                    flush(s);
            }
            ready = 0;
            for (int i = 0; i < nsw; i++)
                ready += sws[i].ready;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (ns_between(&t0, &now) > 10000000000LL) {
                fprintf(stderr, "cbench: only %d of %d switches handshaken after 10 s\n", ready, nsw);
                return 2;
            }
        }
    }
    if (!throughput)
        for (int i = 0; i < nsw; i++) {
            next_latency_probe(&sws[i]);
            flush(&sws[i]);
        }
    for (int loop = 0; loop < loops; loop++) {
        struct timespec t0, now;
        uint64_t fm = 0, po = 0, pi = 0;
        double secs;
        measuring = loop >= warmup;
        for (int i = 0; i < nsw; i++)
            sws[i].flow_mods = sws[i].packet_outs = sws[i].packet_ins = 0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            int n = epoll_wait(epfd, evs, 64, 10);
            if (n < 0 && errno != EINTR)
                die("epoll_wait");
            for (int i = 0; i < n; i++) {
                struct sw *s = evs[i].data.ptr;
                if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                    on_readable(s);
                if (evs[i].events & EPOLLOUT)
                    flush(s);
            }
            clock_gettime(CLOCK_MONOTONIC, &now);
            /* a probe the controller dropped: count it lost, send another */
            for (int i = 0; !throughput && i < nsw; i++)
                if (ns_between(&sws[i].sent_at, &now) > 1000000000LL) {
                    sws[i].lost++;
                    next_latency_probe(&sws[i]);
                    flush(&sws[i]);
                }
        } while (ns_between(&t0, &now) < (int64_t)ms * 1000000LL);
        secs = (double)ns_between(&t0, &now) / 1e9;
        for (int i = 0; i < nsw; i++) {
            fm += sws[i].flow_mods;
            po += sws[i].packet_outs;
            pi += sws[i].packet_ins;
        }
        rates[loop] = (double)(fm + po) / secs;
        total += fm + po;
        printf("loop %d%s: %.0f responses/s (%.0f flow_mods/s, %.0f packet_outs/s), %.0f packet_ins/s\n",
               loop + 1, loop < warmup ? " (warm-up)" : "", rates[loop], fm / secs, po / secs,
               pi / secs);
        fflush(stdout);
        if (loop >= warmup) {
            fm_sum += fm / secs;
            po_sum += po / secs;
            pi_sum += pi / secs;
        }
    }
    {
        int n = loops - warmup;
        double mn = rates[warmup], mx = rates[warmup], sum = 0, sq = 0, avg;
        for (int i = warmup; i < loops; i++) {
            mn = rates[i] < mn ? rates[i] : mn;
            mx = rates[i] > mx ? rates[i] : mx;
            sum += rates[i];
        }
        avg = sum / n;
        for (int i = warmup; i < loops; i++)
            sq += (rates[i] - avg) * (rates[i] - avg);
        printf("RESULT: %s %d switches %d loops (warm-up excluded): responses/s "
               "min/max/avg/stdev = %.0f/%.0f/%.0f/%.0f, flow_mods/s %.0f, packet_outs/s %.0f, "
               "packet_ins/s %.0f", throughput ? "throughput" : "latency", nsw, n, mn, mx, avg,
               sqrt(sq / n), fm_sum / n, po_sum / n, pi_sum / n);
        if (!throughput) {
            qsort(samples, n_samples, sizeof *samples, cmp_u64);
            if (n_samples)
                printf(", round trip p50/p99/max us = %.1f/%.1f/%.1f (%zu)",
                       samples[n_samples / 2] / 1e3, samples[(size_t)(n_samples * 0.99)] / 1e3,
                       samples[n_samples - 1] / 1e3, n_samples);
            else
                printf(", no round trip completed");
            {
                uint64_t lost = 0;
                for (int i = 0; i < nsw; i++)
                    lost += sws[i].lost;
                printf(", %llu probes lost", (unsigned long long)lost);
            }
        }
        printf(", responses in all loops %llu\n", (unsigned long long)total);
    }
    for (int i = 0; i < nsw; i++) {
        close(sws[i].fd);
        free(sws[i].in);
        free(sws[i].out);
    }
    free(sws);
    free(rates);
    free(samples);
    close(epfd);
    return 0;
}
