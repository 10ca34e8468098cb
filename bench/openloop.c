/* bench/openloop.c - an open-loop HTTP/1.1 load generator (what vegeta
 * does): request i is due at start + i/rate whether or not earlier ones
 * returned, and its latency counts from that due time, so a stalled server
 * shows up as latency instead of as a slower client.  127.0.0.1 only.
 *
 * usage: openloop -p PORT -P PATH -r RATE -d SECONDS [-c MAXCONN] [-m METHOD]
 *                 [-b BODYFILE] [-t TIMEOUT_S] [-u] (-u: a unique "name" per
 *                 request: BODYFILE's text with every %d replaced by the index)
 * prints one line: key=value pairs (counts, latency percentiles in ms).
 * "unsent" are requests that fell due while every connection (-c) was busy
 * and the run ended first: the client's backlog, not the server's answer;
 * "timeouts" are requests sent and not answered within -t seconds. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXC 4096

struct conn {
    int fd;
    int busy, connecting;
    int64_t due_ns, sent_ns;
    char *out;
    size_t out_len, out_off;
    char in[16384];
    size_t in_len;
};

static struct conn conns[MAXC];
static int nconn, maxconn = 256, port = 8181, ep;
static const char *path = "/", *method = "GET";
static char *body_tmpl;
static size_t body_tmpl_len;
static int unique;
static double *lat;
static size_t nlat, caplat;
static uint64_t n2xx, nrej, nother, nerr, ntimeout, nsent, nunsent;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void record(double ms)
{
    if (nlat == caplat) {
        caplat = caplat ? caplat * 2 : 65536;
        lat = realloc(lat, caplat * sizeof *lat);
        if (!lat)
            exit(1);
    }
    lat[nlat++] = ms;
}

static int open_conn(struct conn *c)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = c};
    int one = 1;
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (c->fd < 0)
        return -1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0 && errno != EINPROGRESS) {
        close(c->fd);
        c->fd = -1;
        return -1;
    }
    c->connecting = 1;
    epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
    return 0;
}

static void close_conn(struct conn *c)
{
    if (c->fd >= 0) {
        epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
    }
    c->fd = -1;
    c->in_len = 0;
}

static void fail_request(struct conn *c, int timeout)
{
    if (c->busy) {
        if (timeout)
            ntimeout++;
        else
            nerr++;
        c->busy = 0;
    }
    free(c->out);
    c->out = NULL;
    close_conn(c);
}

static void flush_out(struct conn *c)
{
    while (c->out && c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN)
                return;
            fail_request(c, 0);
            return;
        }
        c->out_off += (size_t)n;
    }
}

static void start_request(struct conn *c, int64_t due, uint64_t index)
{
    char *body = NULL;
    size_t blen = 0;
    size_t cap;

    if (body_tmpl) {
        if (unique) {
            /* replace each %d with the index */
            const char *p = body_tmpl;
            body = malloc(body_tmpl_len + 256);
            while (*p) {
                if (p[0] == '%' && p[1] == 'd') {
                    blen += (size_t)sprintf(body + blen, "%llu", (unsigned long long)index);
                    p += 2;
                } else {
                    body[blen++] = *p++;
                }
            }
        } else {
            body = body_tmpl;
            blen = body_tmpl_len;
        }
    }
    cap = strlen(path) + blen + 256;
    c->out = malloc(cap);
    c->out_len = (size_t)snprintf(c->out, cap,
                                  "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sContent-Length: %zu\r\n\r\n",
                                  method, path, blen ? "Content-Type: application/json\r\n" : "", blen);
    if (blen)
        memcpy(c->out + c->out_len, body, blen);
    c->out_len += blen;
    c->out_off = 0;
    if (unique)
        free(body);
    c->busy = 1;
    c->due_ns = due;
    c->sent_ns = now_ns();
    nsent++;
    if (!c->connecting)
        flush_out(c);
}

/* Parse one complete response if there is one: 1 done, 0 need more, -1 bad. */
static int parse_response(struct conn *c)
{
    char *end, *cl;
    size_t hlen, blen = 0;
    int status, close_after;

    c->in[c->in_len < sizeof c->in ? c->in_len : sizeof c->in - 1] = '\0';
    end = strstr(c->in, "\r\n\r\n");
    if (!end)
        return c->in_len >= sizeof c->in - 1 ? -1 : 0;
    hlen = (size_t)(end - c->in) + 4;
    if (sscanf(c->in, "HTTP/1.%*d %d", &status) != 1)
        return -1;
    cl = strcasestr(c->in, "\r\nContent-Length:");
    if (cl && cl < end)
        blen = strtoul(cl + 17, NULL, 10);
    close_after = strcasestr(c->in, "\r\nConnection: close") && strcasestr(c->in, "\r\nConnection: close") < end;
    if (c->in_len < hlen + blen)
        return 0;
    if (status >= 200 && status < 300)
        n2xx++;
    else if (status == 503 || status == 429)
        nrej++;
    else
        nother++;
    record((double)(now_ns() - c->due_ns) / 1e6);
    c->busy = 0;
    free(c->out);
    c->out = NULL;
    memmove(c->in, c->in + hlen + blen, c->in_len - hlen - blen);
    c->in_len -= hlen + blen;
    if (close_after)
        close_conn(c);
    return 1;
}

static void on_event(struct conn *c, uint32_t evs)
{
    if (c->fd < 0)
        return;
    if (c->connecting && (evs & EPOLLOUT)) {
        int err = 0;
        socklen_t l = sizeof err;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
        if (err) {
            fail_request(c, 0);
            return;
        }
        c->connecting = 0;
    }
    if (evs & (EPOLLERR | EPOLLHUP) && !(evs & EPOLLIN)) {
        fail_request(c, 0);
        return;
    }
    if (c->busy)
        flush_out(c);
    if (c->fd >= 0 && (evs & EPOLLIN)) {
        for (;;) {
            ssize_t n = recv(c->fd, c->in + c->in_len, sizeof c->in - 1 - c->in_len, 0);
            if (n > 0) {
                c->in_len += (size_t)n;
                while (c->in_len && parse_response(c) == 1)
                    ;
                if (c->fd < 0)
                    return;
                continue;
            }
            if (n == 0 || errno != EAGAIN) {
                /* peer closed: a reset mid-request counts as an error */
                if (c->busy)
                    fail_request(c, 0);
                else
                    close_conn(c);
            }
            break;
        }
    }
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(double p)
{
    size_t i;
    if (!nlat)
        return 0;
    i = (size_t)(p / 100.0 * (double)(nlat - 1) + 0.5);
    return lat[i];
}

int main(int argc, char **argv)
{
    double rate = 100, secs = 10, timeout_s = 10;
    int opt, i;
    int64_t start, end, interval;
    uint64_t index = 0;
    struct epoll_event evs[256];
    int64_t backlog_due[65536];
    size_t qhead = 0, qlen = 0;

    while ((opt = getopt(argc, argv, "p:P:r:d:c:m:b:t:u")) != -1) {
        switch (opt) {
        case 'p': port = atoi(optarg); break;
        case 'P': path = optarg; break;
        case 'r': rate = atof(optarg); break;
        case 'd': secs = atof(optarg); break;
        case 'c': maxconn = atoi(optarg); break;
        case 'm': method = optarg; break;
        case 't': timeout_s = atof(optarg); break;
        case 'u': unique = 1; break;
        case 'b': {
            FILE *f = fopen(optarg, "rb");
            long n;
            if (!f) { perror(optarg); return 2; }
            fseek(f, 0, SEEK_END);
            n = ftell(f);
            fseek(f, 0, SEEK_SET);
            body_tmpl = malloc((size_t)n + 1);
            body_tmpl_len = fread(body_tmpl, 1, (size_t)n, f);
            body_tmpl[body_tmpl_len] = '\0';
            fclose(f);
            break;
        }
        default:
            fprintf(stderr, "usage: openloop -p PORT -P PATH -r RATE -d SECONDS [-c MAXCONN] [-m METHOD] [-b BODY] [-t TIMEOUT] [-u]\n");
            return 2;
        }
    }
    if (rate <= 0 || secs <= 0 || secs > 600 || maxconn < 1 || maxconn > MAXC) {
        fprintf(stderr, "openloop: bad rate, duration (<= 600 s) or connection count\n");
        return 2;
    }
    ep = epoll_create1(0);
    for (i = 0; i < MAXC; i++)
        conns[i].fd = -1;
    interval = (int64_t)(1e9 / rate);
    start = now_ns();
    end = start + (int64_t)(secs * 1e9);
    for (;;) {
        int64_t now = now_ns();
        int n, k, pending = 0;
        /* every request due by now joins the backlog */
        while (now < end && start + (int64_t)index * interval <= now && qlen < 65536) {
            backlog_due[(qhead + qlen++) % 65536] = start + (int64_t)index * interval;
            index++;
        }
        /* hand backlog to idle connections, opening new ones up to maxconn */
        for (k = 0; k < maxconn && qlen; k++) {
            struct conn *c = &conns[k];
            if (c->busy)
                continue;
            if (c->fd < 0) {
                if (open_conn(c) != 0)
                    continue;
                if (k >= nconn)
                    nconn = k + 1;
            }
            start_request(c, backlog_due[qhead], nsent);
            qhead = (qhead + 1) % 65536;
            qlen--;
        }
        for (k = 0; k < nconn; k++) {
            struct conn *c = &conns[k];
            if (c->busy) {
                pending++;
                if (now - c->due_ns > (int64_t)(timeout_s * 1e9))
                    fail_request(c, 1);
            }
        }
        if (now >= end && !pending && !qlen)
            break;
        if (now >= end + (int64_t)(timeout_s * 1e9) + 1000000000LL)
            break;
        n = epoll_wait(ep, evs, 256, 1);
        for (k = 0; k < n; k++)
            on_event(evs[k].data.ptr, evs[k].events);
    }
    nunsent = qlen;   /* due but never sent: the client's own backlog */
    qsort(lat, nlat, sizeof *lat, cmp_d);
    printf("offered=%llu sent=%llu unsent=%llu ok=%llu rejected=%llu other=%llu errors=%llu timeouts=%llu "
           "rate=%.1f p50_ms=%.3f p95_ms=%.3f p99_ms=%.3f max_ms=%.3f conns=%d\n",
           (unsigned long long)index, (unsigned long long)nsent, (unsigned long long)nunsent,
           (unsigned long long)n2xx, (unsigned long long)nrej,
           (unsigned long long)nother, (unsigned long long)nerr, (unsigned long long)ntimeout,
           (double)nsent / secs, pct(50), pct(95), pct(99), nlat ? lat[nlat - 1] : 0.0, nconn);
    for (i = 0; i < nconn; i++)
        fail_request(&conns[i], 0);
    free(lat);
    free(body_tmpl);
    return 0;
}
