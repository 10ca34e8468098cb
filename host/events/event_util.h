/* host/events/event_util.h - small helpers shared by the event bus files: clocks,
 * deadlines, uuid4 ids, Kytos' timestamp format, name checks. */
#ifndef KH_EVENT_UTIL_H
#define KH_EVENT_UTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define KH_EVENT_NAME_MAX 255    /* bytes, without the NUL */
#define KH_UUID_LEN 36

int64_t kh_mono_us(void);
int64_t kh_real_us(void);
/* Absolute CLOCK_MONOTONIC time ms from now, for pthread_cond_timedwait on a
 * condition variable made by kh_cond_init_mono. */
void kh_deadline_ms(struct timespec *ts, int64_t ms);
void kh_deadline_at_us(struct timespec *ts, int64_t mono_us);
void kh_cond_init_mono(pthread_cond_t *c);

/* A random (version 4) uuid in 8-4-4-4-12 form; out has KH_UUID_LEN + 1 bytes. */
void kh_uuid4(char *out);
/* Kytos' KytosEvent.as_json timestamp: "%Y-%m-%dT%H:%M:%S" in UTC. */
void kh_fmt_timestamp(int64_t real_us, char *out, size_t len);
/* Python's str(datetime) with a UTC offset: "2024-05-01 12:00:00.123456+00:00". */
void kh_fmt_pytime(int64_t real_us, char *out, size_t len);

/* An event name: 1..KH_EVENT_NAME_MAX printable, non-space ASCII bytes.
 * Returns NULL when valid, else what is wrong. */
const char *kh_event_name_invalid(const char *name);

#endif
