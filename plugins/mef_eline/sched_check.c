/* plugins/mef_eline/sched_check.c - a CircuitSchedule's code checks (after
 * the spec: types, date-time format, interval keys), its stored form and
 * date parsing. */
#include "me.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define MAX_INTERVAL_S ((int64_t)100 * 366 * 86400)   /* a century */

static int digits(const char **p, int n, int *out)
{
    int v = 0, i;
    for (i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*p)[i]))
            return -1;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *out = v;
    return 0;
}

int me_sched_parse_date(const char *s, int64_t *out)
{
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const char *p = s;
    int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
    struct tm tm = {0};
    time_t t;

    if (!s || digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' ||
        digits(&p, 2, &d) || (*p != 'T' && *p != 't' && *p != ' '))
        return -1;
    p++;
    if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi) || *p++ != ':' ||
        digits(&p, 2, &sec))
        return -1;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return -1;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        sign = *p++ == '-' ? -1 : 1;
        if (digits(&p, 2, &oh) || *p++ != ':' || digits(&p, 2, &om) || oh > 23 || om > 59)
            return -1;
    }
    if (*p || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 ||
        sec > 60)
        return -1;
    if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
        return -1;   /* timegm would make it March 1st */
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec > 59 ? 59 : sec;
    t = timegm(&tm);
    if (t == (time_t)-1)
        return -1;
    *out = (int64_t)t - sign * (oh * 3600 + om * 60);
    return 0;
}

/* Seconds of an interval object {weeks, days, hours, minutes, seconds}. */
static int interval_seconds(struct json_object *iv, int64_t *out, char *err, size_t errlen)
{
    static const struct {
        const char *k;
        int64_t mul;
    } units[] = {{"weeks", 604800}, {"days", 86400}, {"hours", 3600}, {"minutes", 60}, {"seconds", 1}};
    int64_t total = 0;
    size_t i;

    if (!json_object_is_type(iv, json_type_object)) {
        snprintf(err, errlen, "interval must be an object of weeks, days, hours, minutes, seconds");
        return -1;
    }
    for (i = 0; i < sizeof units / sizeof units[0]; i++) {
        struct json_object *v;
        int64_t n;
        if (!json_object_object_get_ex(iv, units[i].k, &v))
            continue;
        if (!json_object_is_type(v, json_type_int) || (n = json_object_get_int64(v)) < 0) {
            snprintf(err, errlen, "interval %s must be a non-negative integer", units[i].k);
            return -1;
        }
        if (n > MAX_INTERVAL_S / units[i].mul || (total += n * units[i].mul) > MAX_INTERVAL_S) {
            snprintf(err, errlen, "interval is longer than a century");
            return -1;
        }
    }
    if (total <= 0) {
        snprintf(err, errlen, "interval must be at least one second");
        return -1;
    }
    *out = total;
    return 0;
}

/* A cron line of 5 fields of [0-9*,/-] or names (stored only, not run). */
static int cron_ok(const char *s)
{
    int fields = 0, in = 0;
    for (; *s; s++) {
        if (*s == ' ' || *s == '\t') {
            in = 0;
        } else if (isalnum((unsigned char)*s) || strchr("*,/-?", *s)) {
            fields += !in;
            in = 1;
        } else {
            return 0;
        }
    }
    return fields == 5;
}

int me_sched_check(struct json_object *s, char *err, size_t errlen)
{
    struct json_object *date = NULL, *iv = NULL, *freq = NULL, *act = NULL;
    const char *a;
    int64_t n;
    int kinds;

    if (!json_object_is_type(s, json_type_object)) {
        snprintf(err, errlen, "The schedule must be an object");
        return -1;
    }
    json_object_object_get_ex(s, "date", &date);
    json_object_object_get_ex(s, "interval", &iv);
    json_object_object_get_ex(s, "frequency", &freq);
    kinds = (date != NULL) + (iv != NULL) + (freq != NULL);
    if (kinds != 1) {
        snprintf(err, errlen, "The schedule needs exactly one of date, interval or frequency");
        return -1;
    }
    if (!json_object_object_get_ex(s, "action", &act) || !json_object_is_type(act, json_type_string) ||
        (strcmp(a = json_object_get_string(act), "create") != 0 && strcmp(a, "remove") != 0)) {
        snprintf(err, errlen, "The schedule action must be 'create' or 'remove'");
        return -1;
    }
    if (date && (!json_object_is_type(date, json_type_string) ||
                 me_sched_parse_date(json_object_get_string(date), &n) != 0)) {
        snprintf(err, errlen, "date must be an RFC 3339 date-time from 1970 on");
        return -1;
    }
    if (iv && interval_seconds(iv, &n, err, errlen) != 0)
        return -1;
    if (freq && (!json_object_is_type(freq, json_type_string) ||
                 !cron_ok(json_object_get_string(freq)))) {
        snprintf(err, errlen, "frequency must be a cron expression of 5 fields");
        return -1;
    }
    return 0;
}

struct json_object *me_sched_stored(struct json_object *s, const char *id)
{
    static const char *const keys[] = {"date", "interval", "frequency", "action"};
    struct json_object *out = json_object_new_object(), *v;
    size_t i;

    json_object_object_add(out, "id", json_object_new_string(id));
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        struct json_object *copy = NULL;
        if (json_object_object_get_ex(s, keys[i], &v) && v &&
            json_object_deep_copy(v, &copy, NULL) == 0)
            json_object_object_add(out, keys[i], copy);
    }
    return out;
}

int me_sched_list(struct json_object *in, struct json_object **out, char *err, size_t errlen)
{
    size_t i, n;

    *out = json_object_new_array();
    if (!in)
        return 0;
    if (!json_object_is_type(in, json_type_array)) {
        snprintf(err, errlen, "circuit_scheduler must be an array");
        goto bad;
    }
    n = json_object_array_length(in);
    for (i = 0; i < n; i++) {
        struct json_object *s = json_object_array_get_idx(in, i);
        char sid[ME_ID_LEN + 1], why[256];
        if (me_sched_check(s, why, sizeof why) != 0) {
            snprintf(err, errlen, "circuit_scheduler %zu: %s", i, why);
            goto bad;
        }
        me_new_id(sid);
        json_object_array_add(*out, me_sched_stored(s, sid));
    }
    return 0;
bad:
    json_object_put(*out);
    *out = NULL;
    return -1;
}

/* Interval seconds of a stored schedule (0 when it has none or a bad one). */
int64_t me_sched_interval(struct json_object *s)
{
    struct json_object *iv;
    char err[128];
    int64_t n = 0;
    if (json_object_object_get_ex(s, "interval", &iv) && iv &&
        interval_seconds(iv, &n, err, sizeof err) == 0)
        return n;
    return 0;
}
