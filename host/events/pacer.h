/* host/events/pacer.h - Kytos' Pacer (EP038), fixed_window strategy.
 *
 * A rate is "N/second", "N/minute", "N/hour", "N/day" (limits' syntax:
 * also "N per K seconds", "N/K minutes").  Each (namespace, action, key)
 * has its own window, which starts at its first hit and admits N hits;
 * the next hit waits for the window to end (or fails with KYTOS_EFULL with
 * KYTOS_PACE_NOWAIT).  The namespace is the NApp id, as PacerWrapper does.
 * At most max_keys windows exist; expired ones are swept when it fills. */
#ifndef KH_PACER_H
#define KH_PACER_H

#include <stddef.h>
#include <stdint.h>

typedef struct kh_pacer kh_pacer;

/* 0, or KYTOS_EINVAL with err set. */
int kh_pace_parse(const char *rate, long *limit, int64_t *window_us, char *err, size_t errlen);

kh_pacer *kh_pacer_new(size_t max_keys);
void kh_pacer_free(kh_pacer *p);
/* One hit at time now_us (CLOCK_MONOTONIC): 0 when admitted, else
 * KYTOS_EFULL and *wait_us until the window ends.  KYTOS_EINVAL for a bad
 * rate/action/key, KYTOS_ETOOBIG when max_keys live windows exist. */
int kh_pacer_try(kh_pacer *p, const char *ns, const char *action, const char *key,
                 const char *rate, int64_t now_us, int64_t *wait_us, char *err, size_t errlen);
/* The blocking form (flags KYTOS_PACE_NOWAIT: do not wait).  KYTOS_EUNAVAIL
 * once kh_pacer_shutdown ran (sleepers wake at once). */
int kh_pacer_hit(kh_pacer *p, const char *ns, const char *action, const char *key,
                 const char *rate, unsigned flags, char *err, size_t errlen);
void kh_pacer_shutdown(kh_pacer *p);
/* {"keys", "admitted", "limited", "waits"}.  New reference. */
struct json_object *kh_pacer_status(kh_pacer *p);

#endif
