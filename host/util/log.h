/* host/util/log.h - the host's logger: named loggers, levels, sinks, and a
 * background writer so a log call costs a queue push.
 *
 * Logger names follow Kytos: "kytos.core.<module>", "kytos.napps.<u>/<n>".
 * Levels are Python's numbers (10 DEBUG .. 50 CRITICAL). */
#ifndef KH_LOG_H
#define KH_LOG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

enum { KH_DEBUG = 10, KH_INFO = 20, KH_WARNING = 30, KH_ERROR = 40, KH_CRITICAL = 50 };

struct kh_log_opts {
    int level;               /* default minimum level (INFO) */
    int console;             /* write to stderr */
    const char *file;        /* append to this file, or NULL */
    int syslog;              /* send to syslog (messages cut to 16000 chars) */
    size_t queue_max;        /* bounded queue: when full, lines are dropped and counted */
    const char *levels_json; /* {"kytos.core.http": "DEBUG", ...} per-logger levels, or NULL */
};

/* Start the writer.  Before kh_log_start (and after kh_log_stop) lines are
 * written synchronously to stderr, so nothing is lost at start-up. */
int kh_log_start(const struct kh_log_opts *opts);
/* Flush everything queued, stop the writer. */
void kh_log_stop(void);

void kh_log(const char *logger, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void kh_logv(const char *logger, int level, const char *fmt, va_list ap);
int kh_log_enabled(const char *logger, int level);
/* Change one logger's level at run time (Kytos' toggle_debug). */
void kh_log_set_level(const char *logger, int level);
uint64_t kh_log_dropped(void);
/* Every line written, after the sinks, on the log thread (not for lines
 * written before kh_log_start): the live log stream.  fn must not log.
 * NULL removes it. */
typedef void (*kh_log_tap_fn)(void *ud, int level, const char *line);
void kh_log_set_tap(kh_log_tap_fn fn, void *ud);
int kh_log_level_parse(const char *name); /* "DEBUG" -> 10, -1 if unknown */

#endif
