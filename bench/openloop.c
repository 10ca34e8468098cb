/* bench/openloop.c - an open-loop HTTP/1.1 load generator (what vegeta
 * does): request i is due at start + i/rate whether or not earlier ones
 * returned, and its latency counts from that due time, so a stalled server
 * shows up as latency instead of as a slower client.
 *
 * usage: openloop [-h HOST] -p PORT -P PATH -r RATE -d SECONDS [-c MAXCONN]
 *                 [-m METHOD] [-b BODYFILE] [-t TIMEOUT_S] [-L BEHIND_S] [-u] [-s]
 *   -h: the server's IPv4 address or name (default 127.0.0.1), resolved once;
 *       it is also the Host header.
 *   -u: a unique "name" per request: BODYFILE's text with every %d replaced
 *       by the request's index.
 *   -L: a request that is still unsent BEHIND_S seconds after its due time
 *       (default 1; 0 = no bound) is not sent late: it counts in
 *       client_behind.  It waited either for the client's one core or for a
 *       free connection (all -c of them had a request outstanding).
 *   -s: spin: poll without sleeping, so the client's own wake-up lateness
 *       (a millisecond or more at the tail on a virtual machine) is not part
 *       of the latency; the client then uses its whole core (client_cpu 1).
 *
 * Prints one line of key=value pairs:
 *   offered        requests due during the run (rate x duration)
 *   sent           requests written to a connection
 *   client_behind  due but dropped unsent, more than -L seconds late
 *   unsent         still queued in the client when it stopped
 *   ok rejected other   answers: 2xx, 503 or 429, anything else
 *   errors         resets, refused connections, bad answers
 *   resets         of those: the server reset or closed the connection while
 *                  a request was outstanding (ECONNRESET, EPIPE, EOF)
 *   connect_failed connections that failed before a request went out (a
 *                  request then waits for the next try, or ends up behind)
 *   timeouts       sent and not answered within -t seconds of the due time
 *   rate           sent per second of the run
 *   p50_ms p95_ms p99_ms max_ms   answer time minus due time
 *   lag_p50_ms lag_p99_ms lag_max_ms   send time minus due time (the part of
 *                  the latency spent in the client before the request left)
 *   client_cpu     the client's CPU time over the wall time (1.00 = it used
 *                  its whole core: its own figures are then the limit)
 *   conns          connections opened at most at once
 *
 * Cost per request: one send() of a request prebuilt once (or, with -u,
 * built into the connection's own buffer), one recv() of the answer into a
 * shared buffer (level-triggered epoll: no second recv to see EAGAIN), no
 * allocation; idle keep-alive connections come off a stack; every request
 * due by now goes out before the next epoll wait, which sleeps to the next
 * due time with nanosecond precision (epoll_pwait2). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXC 4096
#define LINE_CAP 8192         /* a header block or chunk line split over reads */
#define RBUF_CAP (256 * 1024)
#define MAX_EVENTS 1024
#define TIMEOUT_SCAN_NS 10000000LL

enum rstate { R_IDLE, R_HEAD, R_BODY, R_UNTIL_CLOSE, R_CHUNK_SIZE, R_CHUNK_DATA, R_CHUNK_CRLF, R_TRAILER };

struct conn {
    int fd;
    bool busy;            /* a request is outstanding */
    bool connecting;
    bool want_out;        /* EPOLLOUT registered: part of the request is unsent */
    bool close_after;     /* the answer said Connection: close */
    bool on_idle;         /* in the idle stack (perhaps stale: checked on pop) */
    int status;
    int64_t due_ns;
    const char *out;
    size_t out_len, out_off;
    char *obuf;           /* this connection's request buffer (-u) */
    enum rstate rs;
    uint64_t remain;      /* body or chunk bytes still to come */
    char *line;           /* partial header block or chunk line */
    size_t line_len;
};

static struct conn conns[MAXC];
static int idle[MAXC], nidle;         /* connections ready for a request */
static int freeslot[MAXC], nfree;     /* slots without a connection */
static int nopen, maxopen, nbusy, maxconn = 256, port = 8181, ep;
static const char *path = "/", *method = "GET";
static char *body_tmpl;
static size_t body_tmpl_len, n_subst;
static bool unique;
static bool spin;     /* -s */
static char *req_fixed;               /* the request, when every one is the same */
static size_t req_fixed_len, obuf_cap;
static char *body_scratch;
static char rbuf[RBUF_CAP];
static double *lat;
static float *lag;
static size_t nlat, caplat, nlag, caplag;
static uint64_t n2xx, nrej, nother, nerr, ntimeout, nsent, nbehind, nreset, nconnfail;
static const char *host = "127.0.0.1";
static struct in_addr host_addr;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *grow(void *v, size_t *cap, size_t elem)
{
    size_t ncap = *cap ? *cap * 2 : 65536;
    void *nv = realloc(v, ncap * elem);
    if (!nv) {
        fprintf(stderr, "openloop: out of memory\n");
        exit(1);
    }
    *cap = ncap;
    return nv;
}

static void record(double ms)
{
    if (nlat == caplat)
        lat = grow(lat, &caplat, sizeof *lat);
    lat[nlat++] = ms;
}

static void record_lag(double ms)
{
    if (nlag == caplag)
        lag = grow(lag, &caplag, sizeof *lag);
    lag[nlag++] = (float)ms;
}

static void set_events(struct conn *c, bool out)
{
    struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0u), .data.ptr = c};
    if (c->want_out != out) {
        epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
        c->want_out = out;
    }
}

static void close_conn(struct conn *c)
{
    if (c->fd < 0)
        return;
    close(c->fd);   /* leaves the epoll set with it */
    c->fd = -1;
    c->connecting = c->want_out = false;
    c->line_len = 0;
    c->rs = R_IDLE;
    if (c->busy) {
        c->busy = false;
        nbusy--;
    }
    nopen--;
    freeslot[nfree++] = (int)(c - conns);
}

enum failure { F_ERROR, F_TIMEOUT, F_RESET };

static void fail_request(struct conn *c, enum failure why)
{
    if (c->busy) {
        if (why == F_TIMEOUT) {
            ntimeout++;
        } else {
            nerr++;
            nreset += why == F_RESET;
        }
    } else if (c->connecting) {
        nconnfail++;
    }
    close_conn(c);
}

/* A failed send or recv: a reset when the server dropped the connection. */
static enum failure io_failure(int e)
{
    return e == ECONNRESET || e == EPIPE ? F_RESET : F_ERROR;
}

static struct conn *open_conn(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT};
    struct conn *c;
    int one = 1;

    if (!nfree)
        return NULL;
    c = &conns[freeslot[nfree - 1]];
    a.sin_addr = host_addr;
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        nconnfail++;
        return NULL;
    }
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0 && errno != EINPROGRESS) {
        nconnfail++;
        close(c->fd);
        c->fd = -1;
        return NULL;
    }
    nfree--;
    c->connecting = true;       /* sends wait for EPOLLOUT */
    c->want_out = true;
    c->rs = R_IDLE;
    c->line_len = 0;
    ev.data.ptr = c;
    epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
    if (++nopen > maxopen)
        maxopen = nopen;
    return c;
}

/* An idle connection, else a new one while fewer than maxconn are open. */
static struct conn *get_conn(void)
{
    while (nidle) {
        struct conn *c = &conns[idle[--nidle]];
        c->on_idle = false;
        if (c->fd >= 0 && !c->busy && !c->connecting)
            return c;
    }
    return nopen < maxconn ? open_conn() : NULL;
}

static void put_idle(struct conn *c)
{
    if (!c->on_idle) {
        c->on_idle = true;
        idle[nidle++] = (int)(c - conns);
    }
}

static void flush_out(struct conn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        if (n > 0) {
            c->out_off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            set_events(c, true);
            return;
        }
        fail_request(c, n < 0 ? io_failure(errno) : F_ERROR);
        return;
    }
    if (c->want_out)
        set_events(c, false);
}

static size_t u64_text(char *out, uint64_t v)
{
    char tmp[24];
    size_t n = 0, k = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        out[k++] = tmp[--n];
    return k;
}

static int header(char *out, size_t cap, size_t blen)
{
    return snprintf(out, cap, "%s %s HTTP/1.1\r\nHost: %s:%d\r\n%sContent-Length: %zu\r\n\r\n",
                    method, path, host, port, blen ? "Content-Type: application/json\r\n" : "", blen);
}

static void build_unique(struct conn *c, uint64_t index)
{
    const char *p = body_tmpl, *e = body_tmpl + body_tmpl_len;
    size_t blen = 0;
    int h;

    if (!c->obuf && !(c->obuf = malloc(obuf_cap))) {
        fprintf(stderr, "openloop: out of memory\n");
        exit(1);
    }
    while (p < e) {
        const char *pct = memmem(p, (size_t)(e - p), "%d", 2);
        size_t n = pct ? (size_t)(pct - p) : (size_t)(e - p);
        memcpy(body_scratch + blen, p, n);
        blen += n;
        p += n;
        if (pct) {
            blen += u64_text(body_scratch + blen, index);
            p += 2;
        }
    }
    h = header(c->obuf, obuf_cap, blen);
    memcpy(c->obuf + h, body_scratch, blen);
    c->out = c->obuf;
    c->out_len = (size_t)h + blen;
}

static void start_request(struct conn *c, uint64_t index, int64_t due, int64_t now)
{
    if (unique) {
        build_unique(c, index);
    } else {
        c->out = req_fixed;
        c->out_len = req_fixed_len;
    }
    c->out_off = 0;
    c->busy = true;
    nbusy++;
    c->due_ns = due;
    c->rs = R_HEAD;
    c->line_len = 0;
    nsent++;
    record_lag((double)(now - due) / 1e6);
    if (!c->connecting)
        flush_out(c);
}

static void complete(struct conn *c)
{
    int s = c->status;

    if (s >= 200 && s < 300)
        n2xx++;
    else if (s == 503 || s == 429)
        nrej++;
    else
        nother++;
    record((double)(now_ns() - c->due_ns) / 1e6);
    c->busy = false;
    nbusy--;
    c->rs = R_IDLE;
    if (c->close_after)
        close_conn(c);
    else
        put_idle(c);
}

static bool header_is(const char *line, size_t len, const char *name, const char **val, size_t *vlen)
{
    size_t n = strlen(name);
    if (len <= n || strncasecmp(line, name, n) != 0 || line[n] != ':')
        return false;
    *val = line + n + 1;
    *vlen = len - n - 1;
    while (*vlen && (**val == ' ' || **val == '\t')) {
        (*val)++;
        (*vlen)--;
    }
    return true;
}

static bool has_token(const char *v, size_t n, const char *tok)
{
    size_t t = strlen(tok);
    for (size_t i = 0; i + t <= n; i++)
        if (strncasecmp(v + i, tok, t) == 0)
            return true;
    return false;
}

/* The header block h[0..n) (ending in CRLF CRLF): the status and how the
 * body is framed.  false if it is not an HTTP/1.x answer. */
static bool parse_head(struct conn *c, const char *h, size_t n)
{
    const char *p = h, *end = h + n, *val;
    size_t vlen;
    bool chunked = false, have_len = false, http10;
    uint64_t clen = 0;

    if (n < 12 || memcmp(h, "HTTP/1.", 7) != 0 || h[8] != ' ' || h[9] < '1' || h[9] > '5')
        return false;
    http10 = h[7] == '0';
    c->status = (h[9] - '0') * 100 + (h[10] - '0') * 10 + (h[11] - '0');
    c->close_after = http10;
    p = memchr(h, '\n', n);
    while (p && ++p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (len && p[len - 1] == '\r')
            len--;
        if (header_is(p, len, "content-length", &val, &vlen)) {
            clen = strtoull(val, NULL, 10);
            have_len = true;
        } else if (header_is(p, len, "transfer-encoding", &val, &vlen)) {
            chunked = has_token(val, vlen, "chunked");
        } else if (header_is(p, len, "connection", &val, &vlen)) {
            if (has_token(val, vlen, "close"))
                c->close_after = true;
            else if (has_token(val, vlen, "keep-alive"))
                c->close_after = false;
        }
        p = nl;
    }
    if (c->status < 200 || c->status == 204 || c->status == 304 || (have_len && clen == 0 && !chunked)) {
        c->remain = 0;
        c->rs = R_BODY;
    } else if (chunked) {
        c->rs = R_CHUNK_SIZE;
    } else if (have_len) {
        c->remain = clen;
        c->rs = R_BODY;
    } else {
        c->rs = R_UNTIL_CLOSE;
        c->close_after = true;
    }
    return true;
}

/* Append up to the first '\n' of d[0..n) to c->line; returns the bytes taken
 * (0 on overflow) and sets *done when the line is whole. */
static size_t take_line(struct conn *c, const char *d, size_t n, bool *done)
{
    const char *nl = memchr(d, '\n', n);
    size_t take = nl ? (size_t)(nl - d) + 1 : n;

    if (!c->line && !(c->line = malloc(LINE_CAP)))
        return 0;
    if (take > LINE_CAP - c->line_len)
        return 0;
    memcpy(c->line + c->line_len, d, take);
    c->line_len += take;
    *done = nl != NULL;
    return take;
}

/* Consume n bytes of answer; false on a malformed one. */
static bool feed(struct conn *c, const char *d, size_t n)
{
    while (n) {
        switch (c->rs) {
        case R_IDLE:
            return true;    /* nothing asked: ignored */
        case R_HEAD: {
            const char *e;
            size_t used;
            if (c->line_len == 0 && (e = memmem(d, n, "\r\n\r\n", 4)) != NULL) {
                used = (size_t)(e - d) + 4;         /* the usual case: whole in one read */
                if (!parse_head(c, d, used))
                    return false;
            } else {
                size_t from = c->line_len > 3 ? c->line_len - 3 : 0, take = n;
                if (!c->line && !(c->line = malloc(LINE_CAP)))
                    return false;
                if (take > LINE_CAP - c->line_len)
                    take = LINE_CAP - c->line_len;
                if (!take)
                    return false;
                memcpy(c->line + c->line_len, d, take);
                e = memmem(c->line + from, c->line_len + take - from, "\r\n\r\n", 4);
                if (!e) {
                    c->line_len += take;
                    d += take;
                    n -= take;
                    continue;
                }
                used = (size_t)(e - c->line) + 4 - c->line_len;
                if (!parse_head(c, c->line, c->line_len + used))
                    return false;
                c->line_len = 0;
            }
            d += used;
            n -= used;
            if (c->rs == R_BODY && c->remain == 0)
                complete(c);
            break;
        }
        case R_BODY: {
            size_t take = n < c->remain ? n : (size_t)c->remain;
            c->remain -= take;
            d += take;
            n -= take;
            if (c->remain == 0)
                complete(c);
            break;
        }
        case R_UNTIL_CLOSE:
            return true;
        case R_CHUNK_SIZE:
        case R_TRAILER: {
            bool done = false;
            size_t take = take_line(c, d, n, &done);
            if (!take)
                return false;
            d += take;
            n -= take;
            if (!done)
                break;
            if (c->rs == R_CHUNK_SIZE) {
                char *end;
                c->line[c->line_len - 1] = '\0';
                c->remain = strtoull(c->line, &end, 16);
                if (end == c->line)
                    return false;
                c->rs = c->remain ? R_CHUNK_DATA : R_TRAILER;
            } else if (c->line_len <= 2) {  /* the empty line after the last chunk */
                c->line_len = 0;
                complete(c);
                break;
            }
            c->line_len = 0;
            break;
        }
        case R_CHUNK_DATA:
        case R_CHUNK_CRLF: {
            size_t take = n < c->remain ? n : (size_t)c->remain;
            c->remain -= take;
            d += take;
            n -= take;
            if (c->remain == 0) {
                if (c->rs == R_CHUNK_DATA) {
                    c->rs = R_CHUNK_CRLF;
                    c->remain = 2;
                } else {
                    c->rs = R_CHUNK_SIZE;
                }
            }
            break;
        }
        }
    }
    return true;
}

static void on_event(struct conn *c, uint32_t evs)
{
    if (c->fd < 0)
        return;
    if (c->connecting) {
        int err = 0;
        socklen_t l = sizeof err;
        if (!(evs & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
            return;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
        if (err || (evs & (EPOLLERR | EPOLLHUP))) {
            fail_request(c, err == ECONNRESET ? F_RESET : F_ERROR);
            return;
        }
        c->connecting = false;
        if (c->busy)
            flush_out(c);
        else
            set_events(c, false);
        if (c->fd < 0)
            return;
    } else if ((evs & EPOLLOUT) && c->busy) {
        flush_out(c);
        if (c->fd < 0)
            return;
    }
    if (evs & EPOLLIN) {
        ssize_t n = recv(c->fd, rbuf, sizeof rbuf, 0);
        if (n > 0) {
            if (!feed(c, rbuf, (size_t)n))
                fail_request(c, F_ERROR);     /* not an HTTP answer */
        } else if (n == 0) {
            if (c->busy && c->rs == R_UNTIL_CLOSE) {
                c->close_after = true;
                complete(c);
            } else if (c->busy) {
                fail_request(c, F_RESET);     /* closed mid-request */
            } else {
                close_conn(c);
            }
        } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            fail_request(c, io_failure(errno));
        }
    } else if (evs & (EPOLLERR | EPOLLHUP)) {
        fail_request(c, F_RESET);
    }
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#define HAVE_EPOLL_PWAIT2 1
#endif

/* Wait for events, at most wait_ns (0: just poll). */
static int wait_events(struct epoll_event *evs, int64_t wait_ns)
{
#ifdef HAVE_EPOLL_PWAIT2
    static bool no_pwait2;
    if (!no_pwait2) {
        struct timespec ts = {.tv_sec = wait_ns / 1000000000, .tv_nsec = wait_ns % 1000000000};
        int n = epoll_pwait2(ep, evs, MAX_EVENTS, &ts, NULL);
        if (n >= 0 || errno != ENOSYS)
            return n;
        no_pwait2 = true;
    }
#endif
    return epoll_wait(ep, evs, MAX_EVENTS, (int)((wait_ns + 999999) / 1000000));
}

/* HOST as an IPv4 address, else its first IPv4 address by name. */
static int resolve_host(const char *name, struct in_addr *out)
{
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
    int rc;

    if (inet_pton(AF_INET, name, out) == 1)
        return 0;
    if ((rc = getaddrinfo(name, NULL, &hints, &res)) != 0 || !res) {
        fprintf(stderr, "openloop: cannot resolve %s: %s\n", name, rc ? gai_strerror(rc) : "no address");
        return -1;
    }
    *out = ((struct sockaddr_in *)(void *)res->ai_addr)->sin_addr;
    freeaddrinfo(res);
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_f(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static size_t pct_index(size_t n, double p)
{
    return (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
}

static double pct(double p)
{
    return nlat ? lat[pct_index(nlat, p)] : 0;
}

static double lag_pct(double p)
{
    return nlag ? (double)lag[pct_index(nlag, p)] : 0;
}

static double cpu_secs(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int load_body(const char *file)
{
    FILE *f = fopen(file, "rb");
    long n;
    if (!f) {
        perror(file);
        return -1;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    body_tmpl = malloc(n > 0 ? (size_t)n + 1 : 1);
    if (!body_tmpl) {
        fclose(f);
        return -1;
    }
    body_tmpl_len = n > 0 ? fread(body_tmpl, 1, (size_t)n, f) : 0;
    body_tmpl[body_tmpl_len] = '\0';
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    double rate = 100, secs = 10, timeout_s = 10, behind_s = 1, ns_per_req, cpu0;
    int opt, i;
    int64_t start, end, timeout_ns, behind_ns, last_scan;
    uint64_t index = 0, next = 0, total;
    static struct epoll_event evs[MAX_EVENTS];

    while ((opt = getopt(argc, argv, "h:p:P:r:d:c:m:b:t:L:us")) != -1) {
        switch (opt) {
        case 'h': host = optarg; break;
        case 'p': port = atoi(optarg); break;
        case 'P': path = optarg; break;
        case 'r': rate = atof(optarg); break;
        case 'd': secs = atof(optarg); break;
        case 'c': maxconn = atoi(optarg); break;
        case 'm': method = optarg; break;
        case 't': timeout_s = atof(optarg); break;
        case 'L': behind_s = atof(optarg); break;
        case 'u': unique = true; break;
        case 's': spin = true; break;
        case 'b':
            if (load_body(optarg) != 0)
                return 2;
            break;
        default:
            fprintf(stderr, "usage: openloop [-h HOST] -p PORT -P PATH -r RATE -d SECONDS [-c MAXCONN] "
                            "[-m METHOD] [-b BODY] [-t TIMEOUT_S] [-L BEHIND_S] [-u] [-s]\n");
            return 2;
        }
    }
    if (rate <= 0 || secs <= 0 || secs > 600 || maxconn < 1 || maxconn > MAXC || timeout_s <= 0 ||
        behind_s < 0 || rate * secs > 4e9) {
        fprintf(stderr, "openloop: bad rate, duration (<= 600 s), connection count, -t or -L\n");
        return 2;
    }
    if (resolve_host(host, &host_addr) != 0)
        return 2;
    if (unique && !body_tmpl)
        unique = false;
    if (unique) {
        /* counted as the substitution finds them: memmem over the whole
         * body (a NUL byte in the file must not hide a later "%d") */
        const char *p = body_tmpl, *e = body_tmpl + body_tmpl_len;
        while ((p = memmem(p, (size_t)(e - p), "%d", 2)) != NULL) {
            n_subst++;
            p += 2;
        }
        body_scratch = malloc(body_tmpl_len + n_subst * 20 + 1);
        obuf_cap = strlen(method) + strlen(path) + 160 + body_tmpl_len + n_subst * 20;
        if (!body_scratch)
            return 1;
    } else {
        size_t cap = strlen(method) + strlen(path) + 160 + body_tmpl_len;
        int h;
        req_fixed = malloc(cap);
        if (!req_fixed)
            return 1;
        h = header(req_fixed, cap, body_tmpl_len);
        if (body_tmpl_len)
            memcpy(req_fixed + h, body_tmpl, body_tmpl_len);
        req_fixed_len = (size_t)h + body_tmpl_len;
    }
    ep = epoll_create1(EPOLL_CLOEXEC);
    for (i = 0; i < MAXC; i++)
        conns[i].fd = -1;
    for (i = maxconn - 1; i >= 0; i--)
        freeslot[nfree++] = i;

    ns_per_req = 1e9 / rate;
    /* requests 0 .. total-1 fall due before the end: i/rate < secs */
    total = (uint64_t)(rate * secs);
    while ((int64_t)((double)total * ns_per_req) < (int64_t)(secs * 1e9))
        total++;
    while (total && (int64_t)((double)(total - 1) * ns_per_req) >= (int64_t)(secs * 1e9))
        total--;
    timeout_ns = (int64_t)(timeout_s * 1e9);
    behind_ns = (int64_t)(behind_s * 1e9);
    cpu0 = cpu_secs();
    start = now_ns();
    end = start + (int64_t)(secs * 1e9);
    last_scan = start;
#define DUE(k) (start + (int64_t)((double)(k) * ns_per_req))
    for (;;) {
        int64_t now = now_ns(), wait;
        int n, k;

        while (index < total && DUE(index) <= now)
            index++;
        /* too late to send honestly: the client did not keep up */
        while (behind_ns && next < index && now - DUE(next) > behind_ns) {
            nbehind++;
            next++;
        }
        /* every due request goes out on an idle or new connection */
        while (next < index) {
            struct conn *c = get_conn();
            if (!c)
                break;
            start_request(c, next, DUE(next), now);
            next++;
        }
        if (now - last_scan >= TIMEOUT_SCAN_NS || now >= end) {
            last_scan = now;
            for (k = 0; k < maxconn && nbusy; k++) {
                struct conn *c = &conns[k];
                if (c->busy && now - c->due_ns > timeout_ns)
                    fail_request(c, F_TIMEOUT);
            }
        }
        if (index >= total && next >= index && !nbusy)
            break;
        if (now >= end + timeout_ns + 1000000000LL)
            break;
        /* sleep to the next due time (or 10 ms to look at timeouts) */
        wait = TIMEOUT_SCAN_NS;
        if (index < total && DUE(index) - now < wait)
            wait = DUE(index) - now;
        if (next < index && nopen < maxconn && wait > 1000000)
            wait = 1000000;     /* a connection could not be opened: retry soon */
        if (wait < 0 || spin)
            wait = 0;
        n = wait_events(evs, wait);
        for (k = 0; k < n; k++)
            on_event(evs[k].data.ptr, evs[k].events);
    }
#undef DUE
    {
        double wall = (double)(now_ns() - start) / 1e9, cpu = cpu_secs() - cpu0;
        qsort(lat, nlat, sizeof *lat, cmp_d);
        qsort(lag, nlag, sizeof *lag, cmp_f);
        printf("offered=%llu sent=%llu client_behind=%llu unsent=%llu ok=%llu rejected=%llu other=%llu "
               "errors=%llu resets=%llu connect_failed=%llu timeouts=%llu rate=%.1f p50_ms=%.3f "
               "p95_ms=%.3f p99_ms=%.3f max_ms=%.3f "
               "lag_p50_ms=%.3f lag_p99_ms=%.3f lag_max_ms=%.3f client_cpu=%.2f conns=%d\n",
               (unsigned long long)index, (unsigned long long)nsent, (unsigned long long)nbehind,
               (unsigned long long)(index - next), (unsigned long long)n2xx, (unsigned long long)nrej,
               (unsigned long long)nother, (unsigned long long)nerr, (unsigned long long)nreset,
               (unsigned long long)nconnfail, (unsigned long long)ntimeout,
               (double)nsent / secs, pct(50), pct(95), pct(99), nlat ? lat[nlat - 1] : 0.0, lag_pct(50),
               lag_pct(99), nlag ? (double)lag[nlag - 1] : 0.0, wall > 0 ? cpu / wall : 0.0, maxopen);
    }
    for (i = 0; i < maxconn; i++) {
        close_conn(&conns[i]);
        free(conns[i].obuf);
        free(conns[i].line);
    }
    free(lat);
    free(lag);
    free(body_tmpl);
    free(body_scratch);
    free(req_fixed);
    return 0;
}
