/* host/events/event_util.c - clocks, deadlines, uuid4, timestamps, name checks. */
#include "events/event_util.h"
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

int64_t kh_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t kh_real_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void kh_deadline_at_us(struct timespec *ts, int64_t mono_us)
{
    if (mono_us < 0)
        mono_us = 0;
    ts->tv_sec = (time_t)(mono_us / 1000000);
    ts->tv_nsec = (long)(mono_us % 1000000) * 1000;
}

void kh_deadline_ms(struct timespec *ts, int64_t ms)
{
    kh_deadline_at_us(ts, kh_mono_us() + ms * 1000);
}

void kh_cond_init_mono(pthread_cond_t *c)
{
    pthread_condattr_t a;

    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(c, &a);
    pthread_condattr_destroy(&a);
}

/* Event ids need uniqueness, not secrecy: a per-thread xoshiro256** seeded
 * once from getrandom() costs nanoseconds instead of a syscall per event. */
static __thread uint64_t rng_s[4];
static __thread int rng_seeded;

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(void)
{
    uint64_t r, t;

    if (!rng_seeded) {
        if (getrandom(rng_s, sizeof rng_s, 0) != (ssize_t)sizeof rng_s) {
            /* no entropy source: still unique enough per thread and time */
            rng_s[0] = (uint64_t)kh_real_us();
            rng_s[1] = (uint64_t)(uintptr_t)&rng_s;
            rng_s[2] = (uint64_t)kh_mono_us() * 0x9E3779B97F4A7C15ull;
            rng_s[3] = 0x2545F4914F6CDD1Dull;
        }
        if (!(rng_s[0] | rng_s[1] | rng_s[2] | rng_s[3]))
            rng_s[0] = 1;
        rng_seeded = 1;
    }
    r = rotl(rng_s[1] * 5, 7) * 9;
    t = rng_s[1] << 17;
    rng_s[2] ^= rng_s[0];
    rng_s[3] ^= rng_s[1];
    rng_s[1] ^= rng_s[2];
    rng_s[0] ^= rng_s[3];
    rng_s[2] ^= t;
    rng_s[3] = rotl(rng_s[3], 45);
    return r;
}

void kh_uuid4(char *out)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char b[16];
    uint64_t a = rng_next(), c = rng_next();
    size_t i, o = 0;

    memcpy(b, &a, 8);
    memcpy(b + 8, &c, 8);
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    for (i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[b[i] >> 4];
        out[o++] = hex[b[i] & 15];
    }
    out[o] = '\0';
}

void kh_fmt_timestamp(int64_t real_us, char *out, size_t len)
{
    time_t t = (time_t)(real_us / 1000000);
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

void kh_fmt_pytime(int64_t real_us, char *out, size_t len)
{
    time_t t = (time_t)(real_us / 1000000);
    struct tm tm;
    char base[32];

    gmtime_r(&t, &tm);
    strftime(base, sizeof base, "%Y-%m-%d %H:%M:%S", &tm);
    if (real_us % 1000000) /* Python omits a zero fraction */
        snprintf(out, len, "%s.%06ld+00:00", base, (long)(real_us % 1000000));
    else
        snprintf(out, len, "%s+00:00", base);
}

const char *kh_event_name_invalid(const char *name)
{
    size_t i, n;
    unsigned bad = 0;

    if (!name)
        return "the event name is NULL";
    n = strnlen(name, KH_EVENT_NAME_MAX + 1);
    if (n > KH_EVENT_NAME_MAX)
        return "the event name is longer than 255 bytes";
    if (n == 0)
        return "the event name is empty";
    /* Checked on every publish (about 6 per flow POST): 8 bytes at a time.
     * A word has a byte under 0x21 iff (x - 0x21..) & ~x & 0x80.. is not
     * zero, and one over 0x7e iff ((x + 0x01..) | x) & 0x80.. is not: both
     * exact for these bounds (under 0x80) as yes/no tests. */
    for (i = 0; n - i >= 8; i += 8) {
        uint64_t x;
        memcpy(&x, name + i, 8);
        bad |= (((x - 0x2121212121212121ull) & ~x) | ((x + 0x0101010101010101ull) | x)) &
               0x8080808080808080ull ? 1u : 0u;
    }
    for (; i < n; i++)
        bad |= (unsigned char)((unsigned char)name[i] - 0x21) > 0x7e - 0x21;
    return bad ? "the event name has a space, control or non-ASCII byte" : NULL;
}
