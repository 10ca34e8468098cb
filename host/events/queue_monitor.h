/* host/events/queue_monitor.h - Kytos' QueueMonitorWindow: sample a queue's size
 * every second, keep the samples at or above a threshold, and log a WARNING
 * when min_hits of them fall within delta_secs (at most once per
 * delta_secs), with Kytos' text:
 *   "<name>, counted: N, min/avg/max size: a/b/c, first at: T, last at: T,
 *    delta secs: D, min_hits: H, min_size_threshold: S"
 * plus up to log_at_most_n "<name>, record[i]/[N]: size: s, at: T" lines.
 * Logger "kytos.core.queue_monitor". */
#ifndef KH_QUEUE_MONITOR_H
#define KH_QUEUE_MONITOR_H

#include "events/event_conf.h"
#include <stdint.h>

typedef size_t (*kh_qsize_fn)(void *ctx);
/* Where lines go (tests capture them); NULL = kh_log. */
typedef void (*kh_qmon_log_fn)(void *ud, const char *line);

#define KH_QMON_MAX_RECORDS 4096

struct kh_qmon_record {
    int64_t at_us;       /* CLOCK_REALTIME */
    long size;
};

struct kh_qmon_window {
    struct kh_mon_conf conf;
    kh_qsize_fn qsize;
    void *ctx;
    struct kh_qmon_record rec[KH_QMON_MAX_RECORDS]; /* ring */
    size_t head, count;
    int64_t last_counted_us;
    uint64_t reports, last_size;
};

void kh_qmon_window_init(struct kh_qmon_window *w, const struct kh_mon_conf *mc, kh_qsize_fn fn,
                         void *ctx);
/* One sample of size at now_us.  Returns how many samples the report
 * counted (0 = no report), logging through log (NULL = kh_log). */
size_t kh_qmon_window_step(struct kh_qmon_window *w, int64_t now_us, long size,
                           kh_qmon_log_fn log, void *log_ud);

typedef struct kh_qmon kh_qmon;

kh_qmon *kh_qmon_new(unsigned sample_ms);
int kh_qmon_add(kh_qmon *q, const struct kh_mon_conf *mc, kh_qsize_fn fn, void *ctx);
/* Send report lines to fn instead of kh_log (tests).  Before kh_qmon_start. */
void kh_qmon_set_log(kh_qmon *q, kh_qmon_log_fn fn, void *ud);
int kh_qmon_start(kh_qmon *q);
void kh_qmon_stop(kh_qmon *q);
void kh_qmon_free(kh_qmon *q);
/* {name: {"threshold", "min_hits", "delta_secs", "reports", "last_size"}}. New reference. */
struct json_object *kh_qmon_status(kh_qmon *q);

#endif
