/* host/util/log.c - named loggers with levels, written by one background thread.
 *
 * A log call formats the line on the caller's thread and pushes it on a
 * bounded ring; the writer thread sends it to the sinks (stderr, a file,
 * syslog).  When the ring is full the line is dropped and counted, and the
 * writer reports the count the next time it runs: a flood of log lines can
 * never block a request or grow memory.  Before kh_log_start and after
 * kh_log_stop lines are written synchronously. */
#include "util/log.h"
#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <syslog.h>
#include <time.h>

#define LINE_MAX_BYTES 65536   /* one message is cut here */
#define SYSLOG_MAX 16000       /* Kytos' syslog handler cuts here too */

struct level_rule {
    char *prefix;
    size_t len;
    int level;
};

struct entry {
    int level;
    char *text;
};

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv, empty;
    pthread_rwlock_t rules_mu;
    struct level_rule *rules;
    size_t nrules;
    int level;
    int console, use_syslog;
    FILE *file;
    struct entry *ring;
    size_t cap, head, count;
    int running, stop;
    pthread_t thread;
    atomic_uint_fast64_t dropped;
    uint64_t dropped_reported;
    pthread_mutex_t tap_mu;
    _Atomic(kh_log_tap_fn) tap;
    void *tap_ud;
} L = {
    .tap_mu = PTHREAD_MUTEX_INITIALIZER,
    .mu = PTHREAD_MUTEX_INITIALIZER,
    .cv = PTHREAD_COND_INITIALIZER,
    .empty = PTHREAD_COND_INITIALIZER,
    .rules_mu = PTHREAD_RWLOCK_INITIALIZER,
    .level = KH_INFO,
    .console = 1,
};

static const char *level_name(int level)
{
    if (level >= KH_CRITICAL) return "CRITICAL";
    if (level >= KH_ERROR) return "ERROR";
    if (level >= KH_WARNING) return "WARNING";
    if (level >= KH_INFO) return "INFO";
    return "DEBUG";
}

int kh_log_level_parse(const char *name)
{
    static const struct { const char *n; int v; } t[] = {
        {"DEBUG", KH_DEBUG}, {"INFO", KH_INFO}, {"WARNING", KH_WARNING}, {"WARN", KH_WARNING},
        {"ERROR", KH_ERROR}, {"CRITICAL", KH_CRITICAL}, {"FATAL", KH_CRITICAL}};
    size_t i;
    if (!name)
        return -1;
    for (i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcasecmp(name, t[i].n) == 0)
            return t[i].v;
    return -1;
}

/* The longest rule whose prefix is the logger name or a dotted parent of it
 * wins (Python's logger hierarchy); else the default level. */
static int effective_level(const char *logger)
{
    int level = L.level;
    size_t best = 0, i;

    if (L.nrules == 0 || !logger)
        return level;
    pthread_rwlock_rdlock(&L.rules_mu);
    for (i = 0; i < L.nrules; i++) {
        const struct level_rule *r = &L.rules[i];
        if (r->len >= best && strncmp(logger, r->prefix, r->len) == 0 &&
            (logger[r->len] == '\0' || logger[r->len] == '.' || logger[r->len] == '/')) {
            best = r->len;
            level = r->level;
        }
    }
    pthread_rwlock_unlock(&L.rules_mu);
    return level;
}

int kh_log_enabled(const char *logger, int level)
{
    return level >= effective_level(logger);
}

void kh_log_set_level(const char *logger, int level)
{
    size_t i;
    struct level_rule *n;

    if (!logger || !*logger) {
        L.level = level;
        return;
    }
    pthread_rwlock_wrlock(&L.rules_mu);
    for (i = 0; i < L.nrules; i++)
        if (strcmp(L.rules[i].prefix, logger) == 0) {
            L.rules[i].level = level;
            pthread_rwlock_unlock(&L.rules_mu);
            return;
        }
    n = realloc(L.rules, (L.nrules + 1) * sizeof *n);
    if (n) {
        L.rules = n;
        L.rules[L.nrules].prefix = strdup(logger);
        L.rules[L.nrules].len = strlen(logger);
        L.rules[L.nrules].level = level;
        if (L.rules[L.nrules].prefix)
            L.nrules++;
    }
    pthread_rwlock_unlock(&L.rules_mu);
}

static void write_sinks(int level, const char *text)
{
    if (L.console) {
        fputs(text, stderr);
        fputc('\n', stderr);
    }
    if (L.file) {
        fputs(text, L.file);
        fputc('\n', L.file);
    }
    if (L.use_syslog) {
        int pri = level >= KH_CRITICAL ? LOG_CRIT : level >= KH_ERROR ? LOG_ERR
                : level >= KH_WARNING ? LOG_WARNING : level >= KH_INFO ? LOG_INFO : LOG_DEBUG;
        syslog(pri, "%.*s", SYSLOG_MAX, text);
    }
}

static void *writer_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&L.mu);
    for (;;) {
        while (L.count == 0 && !L.stop)
            pthread_cond_wait(&L.cv, &L.mu);
        if (L.count == 0 && L.stop)
            break;
        struct entry e = L.ring[L.head];
        L.head = (L.head + 1) % L.cap;
        L.count--;
        uint64_t dropped = atomic_load(&L.dropped);
        pthread_mutex_unlock(&L.mu);

        write_sinks(e.level, e.text);
        if (atomic_load_explicit(&L.tap, memory_order_relaxed)) {
            /* the live log stream (host/ui/streams.c); under tap_mu, so
             * that once kh_log_set_tap returns the old tap is not running */
            pthread_mutex_lock(&L.tap_mu);
            if (L.tap)
                L.tap(L.tap_ud, e.level, e.text);
            pthread_mutex_unlock(&L.tap_mu);
        }
        free(e.text);
        if (dropped != L.dropped_reported) {
            char msg[128];
            snprintf(msg, sizeof msg, "kytos.core.log: %llu log lines dropped (queue full)",
                     (unsigned long long)(dropped - L.dropped_reported));
            L.dropped_reported = dropped;
            write_sinks(KH_WARNING, msg);
        }
        pthread_mutex_lock(&L.mu);
        if (L.count == 0) {
            if (L.console)
                fflush(stderr);
            if (L.file)
                fflush(L.file);
            pthread_cond_broadcast(&L.empty);
        }
    }
    pthread_mutex_unlock(&L.mu);
    return NULL;
}

static char *format_line(const char *logger, int level, const char *fmt, va_list ap)
{
    char stamp[64], thread[32] = "MainThread", small[1024];
    struct timeval tv;
    struct tm tm;
    va_list ap2;
    int n;
    char *msg = small, *line;
    size_t len;

    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
    pthread_getname_np(pthread_self(), thread, sizeof thread);

    va_copy(ap2, ap);
    n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof small) {
        size_t want = (size_t)n + 1 > LINE_MAX_BYTES ? LINE_MAX_BYTES : (size_t)n + 1;
        msg = malloc(want);
        if (!msg)
            return NULL;
        vsnprintf(msg, want, fmt, ap);
    }
    len = strlen(stamp) + strlen(thread) + strlen(logger ? logger : "kytos") + strlen(msg) + 64;
    line = malloc(len);
    if (line)
        snprintf(line, len, "%s,%03ld - %s [%s] (%s) %s", stamp, (long)(tv.tv_usec / 1000),
                 level_name(level), logger ? logger : "kytos", thread, msg);
    if (msg != small)
        free(msg);
    return line;
}

void kh_logv(const char *logger, int level, const char *fmt, va_list ap)
{
    char *line;

    if (level < effective_level(logger))
        return;
    line = format_line(logger, level, fmt, ap);
    if (!line) {
        atomic_fetch_add(&L.dropped, 1);
        return;
    }
    pthread_mutex_lock(&L.mu);
    if (!L.running) {
        pthread_mutex_unlock(&L.mu);
        fputs(line, stderr);
        fputc('\n', stderr);
        free(line);
        return;
    }
    if (L.count == L.cap) {
        pthread_mutex_unlock(&L.mu);
        atomic_fetch_add(&L.dropped, 1);
        free(line);
        return;
    }
    L.ring[(L.head + L.count) % L.cap] = (struct entry){level, line};
    L.count++;
    pthread_cond_signal(&L.cv);
    pthread_mutex_unlock(&L.mu);
}

void kh_log(const char *logger, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kh_logv(logger, level, fmt, ap);
    va_end(ap);
}

uint64_t kh_log_dropped(void) { return atomic_load(&L.dropped); }

void kh_log_set_tap(kh_log_tap_fn fn, void *ud)
{
    pthread_mutex_lock(&L.tap_mu);
    L.tap_ud = ud;
    atomic_store(&L.tap, fn);
    pthread_mutex_unlock(&L.tap_mu);
}

static void load_level_rules(const char *json)
{
    struct json_object *o = json ? json_tokener_parse(json) : NULL;

    if (o && json_object_is_type(o, json_type_object)) {
        json_object_object_foreach(o, k, v) {
            int lv = json_object_is_type(v, json_type_int) ? json_object_get_int(v)
                                                            : kh_log_level_parse(json_object_get_string(v));
            if (lv > 0)
                kh_log_set_level(k, lv);
            else
                kh_log("kytos.core.log", KH_WARNING, "unknown log level for logger %s", k);
        }
    }
    json_object_put(o);
}

int kh_log_start(const struct kh_log_opts *opts)
{
    pthread_mutex_lock(&L.mu);
    if (L.running) {
        pthread_mutex_unlock(&L.mu);
        return 0;
    }
    pthread_mutex_unlock(&L.mu);
    if (opts) {
        if (opts->level > 0)
            L.level = opts->level;
        L.console = opts->console;
        if (opts->file && *opts->file) {
            L.file = fopen(opts->file, "a");
            if (!L.file)
                kh_log("kytos.core.log", KH_ERROR, "cannot open log file %s", opts->file);
        }
        if (opts->syslog) {
            openlog("kytosd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
            L.use_syslog = 1;
        }
        load_level_rules(opts->levels_json);
    }
    L.cap = opts && opts->queue_max ? opts->queue_max : 65536;
    L.ring = calloc(L.cap, sizeof *L.ring);
    if (!L.ring)
        return -1;
    L.head = L.count = 0;
    L.stop = 0;
    if (pthread_create(&L.thread, NULL, writer_main, NULL) != 0) {
        free(L.ring);
        L.ring = NULL;
        return -1;
    }
    pthread_mutex_lock(&L.mu);
    L.running = 1;
    pthread_mutex_unlock(&L.mu);
    return 0;
}

void kh_log_stop(void)
{
    size_t i;

    pthread_mutex_lock(&L.mu);
    if (!L.running) {
        pthread_mutex_unlock(&L.mu);
        return;
    }
    L.stop = 1;
    pthread_cond_signal(&L.cv);
    pthread_mutex_unlock(&L.mu);
    pthread_join(L.thread, NULL);
    pthread_mutex_lock(&L.mu);
    L.running = 0;
    free(L.ring);
    L.ring = NULL;
    L.cap = 0;
    pthread_mutex_unlock(&L.mu);
    if (L.file) {
        fclose(L.file);
        L.file = NULL;
    }
    if (L.use_syslog) {
        closelog();
        L.use_syslog = 0;
    }
    pthread_rwlock_wrlock(&L.rules_mu);
    for (i = 0; i < L.nrules; i++)
        free(L.rules[i].prefix);
    free(L.rules);
    L.rules = NULL;
    L.nrules = 0;
    pthread_rwlock_unlock(&L.rules_mu);
    fflush(stderr);
}
