/* host/ui/streams.c - the live event and log streams (streams.h). */
#include "ui/streams.h"
#include "http/stream.h"
#include "util/log.h"
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define PATTERN_MAX 1024
#define PREFIX_MAX 128
#define HISTORY_BYTES_MAX (8u << 20)   /* each history, whatever stream_history says */

enum kind { K_EVENT, K_LOG };

struct entry {
    uint64_t id;
    char *name;        /* the event's name, or the line's logger */
    int level;         /* lines */
    char *full;        /* the SSE frame */
    char *bare;        /* events: the frame without content */
    size_t size;
};

struct ring {
    struct entry *e;
    size_t cap, head, count, bytes;
    uint64_t seq;      /* the last id given */
};

struct client {
    struct client *next;
    enum kind kind;
    struct kh_stream *st;
    regex_t re;
    int has_re, content, level;
    char prefix[PREFIX_MAX];
    int64_t last_ms;   /* last write */
};

struct kh_streams {
    struct kh_streams_conf c;
    kh_bus *bus;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop, thread_started;
    pthread_t thread;
    struct client *clients;
    size_t nclients;
    struct ring ev, log;
    int64_t last_client_ms;
    atomic_int taps_on;
    atomic_uint_fast64_t dropped, refused, events, lines, opened;
};

/* ---- history ---- */

static void entry_free(struct entry *e)
{
    free(e->name);
    free(e->full);
    free(e->bare);
    memset(e, 0, sizeof *e);
}

static void ring_drop_oldest(struct ring *r)
{
    struct entry *e = &r->e[r->head];
    r->bytes -= e->size;
    entry_free(e);
    r->head = (r->head + 1) % r->cap;
    r->count--;
}

/* Keep e (taken over); the oldest go past cap or HISTORY_BYTES_MAX. */
static void ring_push(struct ring *r, struct entry *e)
{
    if (!r->cap) {
        entry_free(e);
        return;
    }
    if (r->count == r->cap)
        ring_drop_oldest(r);
    while (r->count && r->bytes + e->size > HISTORY_BYTES_MAX)
        ring_drop_oldest(r);
    r->e[(r->head + r->count) % r->cap] = *e;
    r->count++;
    r->bytes += e->size;
}

static struct entry *ring_at(struct ring *r, size_t i) { return &r->e[(r->head + i) % r->cap]; }

/* ---- clients ---- */

static void client_free(struct client *c)
{
    kh_stream_close(c->st);
    kh_stream_unref(c->st);
    if (c->has_re)
        regfree(&c->re);
    free(c);
}

static int client_wants(const struct client *c, const struct entry *e)
{
    if (c->kind == K_EVENT)
        return !c->has_re || regexec(&c->re, e->name, 0, NULL, 0) == 0;
    return e->level >= c->level && strncmp(e->name, c->prefix, strlen(c->prefix)) == 0;
}

/* Write to one client: 0, or -1 when it has to go (gone, or too slow:
 * counted). */
static int client_write(struct kh_streams *s, struct client *c, const char *text, size_t len,
                        int64_t now)
{
    int rc = kh_stream_write(c->st, text, len);
    if (rc == -2) {
        atomic_fetch_add(&s->dropped, 1);
        return -1;
    }
    c->last_ms = now;
    return rc;
}

/* Send e to every client of its kind that wants it; drop those that fail
 * (mu held). */
static void fan_out(struct kh_streams *s, enum kind kind, const struct entry *e)
{
    struct client **pp = &s->clients;
    int64_t now = kh_mono_ns() / 1000000;

    while (*pp) {
        struct client *c = *pp;
        if (c->kind == kind && client_wants(c, e)) {
            const char *f = kind == K_EVENT && !c->content ? e->bare : e->full;
            if (client_write(s, c, f, strlen(f), now) != 0) {
                *pp = c->next;
                s->nclients--;
                client_free(c);
                continue;
            }
        }
        pp = &c->next;
    }
}

/* A JSON string literal of text (malloc'd). */
static char *json_quote(const char *text)
{
    struct json_object *o = json_object_new_string(text);
    char *q = o ? strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE))
                : NULL;
    json_object_put(o);
    return q;
}

static char *frame(uint64_t id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *frame(uint64_t id, const char *fmt, ...)
{
    char *data = NULL, *out = NULL;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&data, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    if (asprintf(&out, "id: %" PRIu64 "\ndata: %s\n\n", id, data) < 0)
        out = NULL;
    free(data);
    return out;
}

/* ---- taps ---- */

static int tap_wants(void *ud, const char *name)
{
    struct kh_streams *s = ud;
    (void)name;   /* the history keeps every event, for any later filter */
    return atomic_load(&s->taps_on);
}

static void tap_event(void *ud, const char *name, const char *json, size_t len)
{
    struct kh_streams *s = ud;
    struct entry e = {0};
    char *qname = json_quote(name);
    double ts = (double)kh_now_ms() / 1000.0;

    (void)len;
    if (!qname)
        return;
    pthread_mutex_lock(&s->mu);
    e.id = ++s->ev.seq;
    e.name = strdup(name);
    e.full = frame(e.id, "{\"id\":%" PRIu64 ",\"name\":%s,\"timestamp\":%.3f,\"content\":%s}", e.id,
                   qname, ts, json);
    e.bare = frame(e.id, "{\"id\":%" PRIu64 ",\"name\":%s,\"timestamp\":%.3f}", e.id, qname, ts);
    if (e.name && e.full && e.bare) {
        e.size = strlen(e.full) + strlen(e.bare) + strlen(e.name) + sizeof e;
        atomic_fetch_add(&s->events, 1);
        fan_out(s, K_EVENT, &e);
        ring_push(&s->ev, &e);
    } else {
        entry_free(&e);
    }
    pthread_mutex_unlock(&s->mu);
    free(qname);
}

static const struct kh_bus_tap bus_tap = {tap_wants, tap_event};

static const char *level_text(int level)
{
    return level >= KH_CRITICAL ? "CRITICAL" : level >= KH_ERROR ? "ERROR"
         : level >= KH_WARNING ? "WARNING" : level >= KH_INFO ? "INFO" : "DEBUG";
}

/* "date time,ms - LEVEL [logger] (thread) message": the logger. */
static char *logger_of(const char *line)
{
    const char *a = strstr(line, " ["), *b;
    if (!a || !(b = strstr(a + 2, "] (")) || b - a > 256)
        return strdup("");
    return strndup(a + 2, (size_t)(b - a - 2));
}

static void tap_line(void *ud, int level, const char *line)
{
    struct kh_streams *s = ud;
    struct entry e = {0};
    char *qline, *qlogger;

    if (!atomic_load(&s->taps_on))
        return;
    e.name = logger_of(line);
    qline = json_quote(line);
    qlogger = e.name ? json_quote(e.name) : NULL;
    e.level = level;
    pthread_mutex_lock(&s->mu);
    e.id = ++s->log.seq;
    if (qline && qlogger)
        e.full = frame(e.id, "{\"id\":%" PRIu64 ",\"level\":\"%s\",\"logger\":%s,\"line\":%s}", e.id,
                       level_text(level), qlogger, qline);
    if (e.full) {
        e.size = strlen(e.full) + strlen(e.name) + sizeof e;
        atomic_fetch_add(&s->lines, 1);
        fan_out(s, K_LOG, &e);
        ring_push(&s->log, &e);
    } else {
        entry_free(&e);
    }
    pthread_mutex_unlock(&s->mu);
    free(qline);
    free(qlogger);
}

static void taps_set(struct kh_streams *s, int on)
{
    atomic_store(&s->taps_on, on);
    if (s->bus)
        kh_bus_tap_enable(s->bus, on);
}

/* ---- heartbeat: keep idle streams open, forget gone ones, taps off ---- */

static void *heartbeat_main(void *arg)
{
    struct kh_streams *s = arg;
    unsigned tick = s->c.heartbeat_ms / 4 ? s->c.heartbeat_ms / 4 : 25;
    static const char ping[] = ": ping\n\n";

    pthread_mutex_lock(&s->mu);
    while (!s->stop) {
        struct timespec ts;
        int64_t now = kh_mono_ns() / 1000000;
        struct client **pp = &s->clients;

        while (*pp) {
            struct client *c = *pp;
            if (kh_stream_done(c->st) ||
                (now - c->last_ms >= s->c.heartbeat_ms &&
                 client_write(s, c, ping, sizeof ping - 1, now) != 0)) {
                *pp = c->next;
                s->nclients--;
                client_free(c);
                continue;
            }
            pp = &c->next;
        }
        if (s->nclients)
            s->last_client_ms = now;
        else if (atomic_load(&s->taps_on) && now - s->last_client_ms >= s->c.grace_ms)
            taps_set(s, 0);
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += tick / 1000;
        ts.tv_nsec += (long)(tick % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&s->cv, &s->mu, &ts);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* ---- life ---- */

struct kh_streams *kh_streams_new(const struct kh_streams_conf *conf, kh_bus *bus)
{
    struct kh_streams *s = calloc(1, sizeof *s);
    pthread_condattr_t a;

    if (!s)
        return NULL;
    s->c = *conf;
    s->bus = bus;
    s->ev.cap = s->log.cap = conf->history;
    if (conf->history && (!(s->ev.e = calloc(conf->history, sizeof *s->ev.e)) ||
                          !(s->log.e = calloc(conf->history, sizeof *s->log.e)))) {
        free(s->ev.e);
        free(s);
        return NULL;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &a);
    pthread_condattr_destroy(&a);
    if (bus)
        kh_bus_set_tap(bus, &bus_tap, s);
    kh_log_set_tap(tap_line, s);
    if (pthread_create(&s->thread, NULL, heartbeat_main, s) == 0) {
        pthread_setname_np(s->thread, "streams");
        s->thread_started = 1;
    }
    return s;
}

void kh_streams_stop(struct kh_streams *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    taps_set(s, 0);
    s->bus = NULL;   /* it may go now */
    while (s->clients) {
        struct client *c = s->clients;
        s->clients = c->next;
        client_free(c);   /* closed: its client reads the end */
    }
    s->nclients = 0;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (s->thread_started)
        pthread_join(s->thread, NULL);
    s->thread_started = 0;
    kh_log_set_tap(NULL, NULL);
}

void kh_streams_free(struct kh_streams *s)
{
    if (!s)
        return;
    kh_streams_stop(s);
    while (s->ev.count)
        ring_drop_oldest(&s->ev);
    while (s->log.count)
        ring_drop_oldest(&s->log);
    free(s->ev.e);
    free(s->log.e);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* ---- the routes ---- */

static int bool_param(const char *v, int dflt)
{
    if (!v)
        return dflt;
    return !(strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0 || strcasecmp(v, "no") == 0);
}

/* Last-Event-ID (header, or last_event_id in the query for clients that
 * cannot set headers): 1 and *id, 0 when absent; -1 malformed. */
static int last_event_id(kytos_req *r, uint64_t *id)
{
    const char *v = kh_req_header(r, "Last-Event-ID");
    char *end;

    if (!v)
        v = kh_req_query(r, "last_event_id");
    if (!v || !*v)
        return 0;
    errno = 0;
    *id = strtoull(v, &end, 10);
    return *end || errno || *v == '-' ? -1 : 1;
}

/* Open a stream for c (taken over): replay, register, answer. */
static int open_stream(struct kh_streams *s, kytos_req *r, struct client *c, struct ring *ring,
                       int resume, uint64_t after, size_t tail)
{
    static const char hello[] = "retry: 2000\n: kytos-c stream\n\n";
    size_t i, from = 0;
    int64_t now = kh_mono_ns() / 1000000;

    if (!(c->st = kh_stream_new(s->c.buffer_bytes))) {
        if (c->has_re)
            regfree(&c->re);
        free(c);
        return kh_resp_error(r, 500, "out of memory");
    }
    kh_stream_write(c->st, hello, sizeof hello - 1);
    pthread_mutex_lock(&s->mu);
    if (s->stop || s->nclients >= s->c.max_streams) {
        pthread_mutex_unlock(&s->mu);
        atomic_fetch_add(&s->refused, 1);
        client_free(c);
        kh_resp_error(r, 503, "Too many streams open: api_max_streams is %zu", s->c.max_streams);
        return kh_resp_header(r, "Retry-After", "1");
    }
    if (!atomic_load(&s->taps_on))
        taps_set(s, 1);
    if (resume) {
        while (from < ring->count && ring_at(ring, from)->id <= after)
            from++;
    } else {
        from = ring->count > tail ? ring->count - tail : 0;
    }
    for (i = from; i < ring->count; i++) {
        struct entry *e = ring_at(ring, i);
        const char *f = c->kind == K_EVENT && !c->content ? e->bare : e->full;
        if (client_wants(c, e) && kh_stream_write(c->st, f, strlen(f)) != 0)
            break;   /* more history than its buffer: it starts with what fit */
    }
    c->last_ms = now;
    c->next = s->clients;
    s->clients = c;
    s->nclients++;
    s->last_client_ms = now;
    kh_stream_ref(c->st);   /* the request's */
    pthread_mutex_unlock(&s->mu);
    atomic_fetch_add(&s->opened, 1);
    kh_resp_stream(r, 200, "text/event-stream; charset=utf-8", c->st);
    kh_stream_unref(c->st);
    kh_resp_header(r, "Cache-Control", "no-cache");
    kh_resp_header(r, "X-Accel-Buffering", "no");   /* nginx: do not buffer it */
    return KYTOS_OK;
}

static int size_param(kytos_req *r, const char *name, size_t max, size_t *out)
{
    const char *v = kh_req_query(r, name);
    char *end;
    unsigned long long n;

    *out = 0;
    if (!v)
        return 0;
    errno = 0;
    n = strtoull(v, &end, 10);
    if (*end || errno || *v == '-' || !*v) {
        kh_resp_error(r, 400, "%s must be a number from 0 to %zu, got '%.64s'", name, max, v);
        return -1;
    }
    *out = n > max ? max : (size_t)n;
    return 0;
}

int kh_streams_events_get(kytos_req *r, void *ud)
{
    struct kh_streams *s = ud;
    const char *name = kh_req_query(r, "name");
    struct client *c;
    uint64_t after = 0;
    size_t tail;
    int resume;

    if (!s->bus)
        return kh_resp_error(r, 503, "no event bus");
    if (size_param(r, "tail", s->c.history, &tail) != 0)
        return KYTOS_OK;
    if ((resume = last_event_id(r, &after)) < 0)
        return kh_resp_error(r, 400, "Last-Event-ID must be an event id (a number)");
    if (!(c = calloc(1, sizeof *c)))
        return kh_resp_error(r, 500, "out of memory");
    c->kind = K_EVENT;
    c->content = bool_param(kh_req_query(r, "content"), 1);
    if (name && *name) {
        char pat[PATTERN_MAX + 8], msg[200];
        int rc;
        if (strlen(name) > PATTERN_MAX) {
            free(c);
            return kh_resp_error(r, 400, "name: a regex of at most %d characters", PATTERN_MAX);
        }
        snprintf(pat, sizeof pat, "^(%s)$", name);   /* the whole name, as Kytos' listen_to */
        if ((rc = regcomp(&c->re, pat, REG_EXTENDED | REG_NOSUB)) != 0) {
            regerror(rc, &c->re, msg, sizeof msg);
            free(c);
            return kh_resp_error(r, 400, "name: invalid regex '%.200s': %s", name, msg);
        }
        c->has_re = 1;
    }
    return open_stream(s, r, c, &s->ev, resume > 0, after, tail);
}

int kh_streams_logs_get(kytos_req *r, void *ud)
{
    struct kh_streams *s = ud;
    const char *lv = kh_req_query(r, "level"), *prefix = kh_req_query(r, "logger");
    struct client *c;
    uint64_t after = 0;
    size_t tail;
    int resume, level = KH_DEBUG;

    if (size_param(r, "tail", s->c.history, &tail) != 0)
        return KYTOS_OK;
    if ((resume = last_event_id(r, &after)) < 0)
        return kh_resp_error(r, 400, "Last-Event-ID must be a line id (a number)");
    if (lv && (level = kh_log_level_parse(lv)) < 0) {
        char *end;
        long n = strtol(lv, &end, 10);
        if (*end || !*lv || n < 0 || n > 100)
            return kh_resp_error(r, 400, "level: DEBUG, INFO, WARNING, ERROR, CRITICAL or 0..100, got '%.32s'", lv);
        level = (int)n;
    }
    if (prefix && strlen(prefix) >= PREFIX_MAX)
        return kh_resp_error(r, 400, "logger: a prefix of at most %d characters", PREFIX_MAX - 1);
    if (!(c = calloc(1, sizeof *c)))
        return kh_resp_error(r, 500, "out of memory");
    c->kind = K_LOG;
    c->level = level;
    snprintf(c->prefix, sizeof c->prefix, "%s", prefix ? prefix : "");
    return open_stream(s, r, c, &s->log, resume > 0, after, tail);
}

struct json_object *kh_streams_status(struct kh_streams *s)
{
    struct json_object *o = json_object_new_object();
    size_t ev = 0, lg = 0;
    struct client *c;

    pthread_mutex_lock(&s->mu);
    for (c = s->clients; c; c = c->next)
        if (c->kind == K_EVENT)
            ev++;
        else
            lg++;
    json_object_object_add(o, "event_clients", json_object_new_int64((int64_t)ev));
    json_object_object_add(o, "log_clients", json_object_new_int64((int64_t)lg));
    json_object_object_add(o, "event_history", json_object_new_int64((int64_t)s->ev.count));
    json_object_object_add(o, "log_history", json_object_new_int64((int64_t)s->log.count));
    json_object_object_add(o, "last_event_id", json_object_new_int64((int64_t)s->ev.seq));
    json_object_object_add(o, "last_line_id", json_object_new_int64((int64_t)s->log.seq));
    pthread_mutex_unlock(&s->mu);
    json_object_object_add(o, "max_streams", json_object_new_int64((int64_t)s->c.max_streams));
    json_object_object_add(o, "taps_on", json_object_new_boolean(atomic_load(&s->taps_on)));
    json_object_object_add(o, "opened", json_object_new_int64((int64_t)atomic_load(&s->opened)));
    json_object_object_add(o, "dropped_slow", json_object_new_int64((int64_t)atomic_load(&s->dropped)));
    json_object_object_add(o, "refused_503", json_object_new_int64((int64_t)atomic_load(&s->refused)));
    json_object_object_add(o, "events_seen", json_object_new_int64((int64_t)atomic_load(&s->events)));
    json_object_object_add(o, "lines_seen", json_object_new_int64((int64_t)atomic_load(&s->lines)));
    return o;
}

int kh_streams_status_get(kytos_req *r, void *ud)
{
    struct json_object *o = kh_streams_status(ud);
    int rc = kh_resp_json(r, 200, o);
    json_object_put(o);
    return rc;
}
