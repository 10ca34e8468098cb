/* host/events/event_conf.h - the bus' configuration, read from kytos.conf keys:
 *   thread_pool_max_workers     {"sb": 256, "db": 256, "app": 512, "api": 512}
 *   event_buffer_conf           {"<buffer>": {"queue": {"type": "queue"|"priority",
 *                                 "maxsize": int | "threadpool_<pool>",
 *                                 "maxsize_multiplier": int}}}
 *   thread_pool_queue_monitors  [{"min_hits", "delta_secs", "min_queue_full_percent",
 *                                 "log_at_most_n", "queues": [pool...]}]
 *   event_buffer_monitors       [{... "buffers": [buffer...]}]
 *   dead_letter_max_per_name    50000
 * Kytos' defaults fill what is absent: buffers conn (FIFO, unbounded), raw
 * (FIFO, sb x 10), msg_in and msg_out (priority, sb x 10), app (FIFO,
 * app x 20), meta (FIFO, unbounded).  The "api" pool belongs to the HTTP
 * server and is not created here.  Extra buffers get a consumer too. */
#ifndef KH_EVENT_CONF_H
#define KH_EVENT_CONF_H

#include <json-c/json.h>
#include <stddef.h>

#define KH_BUS_MAX_POOLS 32
#define KH_BUS_MAX_BUFFERS 16
#define KH_BUS_MAX_MONITORS 64
#define KH_BUS_NAME_MAX 32           /* pool and buffer names, with the NUL */
#define KH_BUS_MAX_THREADS 4096
#define KH_BUS_MAX_BUFFER_SIZE 10000000u

struct kh_pool_conf {
    char name[KH_BUS_NAME_MAX];
    unsigned threads;
    size_t queue_max;                /* 0 = threads * 64 */
};

struct kh_buf_conf {
    char name[KH_BUS_NAME_MAX];
    int type;                        /* enum kh_buf_type */
    size_t maxsize;                  /* 0 = Kytos' unbounded (capped at unbounded_cap) */
};

struct kh_mon_conf {
    char name[KH_BUS_NAME_MAX + 16]; /* "app" or "threadpool_app", as Kytos logs it */
    char target[KH_BUS_NAME_MAX];
    int is_pool;
    long min_hits, delta_secs, log_at_most_n;
    long min_size_threshold;         /* max(int(maxsize * pct / 100), 1) */
};

struct kh_bus_conf {
    size_t npools;
    struct kh_pool_conf pools[KH_BUS_MAX_POOLS];
    size_t nbufs;
    struct kh_buf_conf bufs[KH_BUS_MAX_BUFFERS];
    size_t nmons;
    struct kh_mon_conf mons[KH_BUS_MAX_MONITORS];
    size_t dead_letter_max_per_name; /* 50000 */
    size_t dead_letter_max_total;    /* bound across names: 1000000 */
    size_t unbounded_cap;            /* limit of "unbounded" buffers: 1000000 */
    size_t single_queue_max;         /* queue of each dynamic_single pool: 4096 */
    size_t match_cache_max;          /* cached event names: 4096 */
    size_t pacer_max_keys;           /* 100000 */
    unsigned monitor_sample_ms;      /* 1000, as Kytos */
    unsigned submit_retry_ms;        /* how often a consumer blocked on a full pool re-checks shutdown: 100 */
};

/* Kytos' defaults (pools sb 256, db 256, app 512; the six buffers; no monitors). */
void kh_bus_conf_defaults(struct kh_bus_conf *c);
/* Apply the JSON values (any may be NULL = keep the default).  0, or -1 with
 * a message naming the key and what is wrong. */
int kh_bus_conf_apply(struct kh_bus_conf *c, struct json_object *pools, struct json_object *buffers,
                      struct json_object *pool_monitors, struct json_object *buffer_monitors,
                      struct json_object *dead_letter_max, char *err, size_t errlen);
const struct kh_pool_conf *kh_bus_conf_pool(const struct kh_bus_conf *c, const char *name);
const struct kh_buf_conf *kh_bus_conf_buffer(const struct kh_bus_conf *c, const char *name);

#endif
