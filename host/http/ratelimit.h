/* host/http/ratelimit.h - per-client request rate limit (api_rate_limit, requests
 * per second per client address; 0 = off).  Fixed one-second windows in a
 * bounded table: memory never grows with the number of clients. */
#ifndef KH_RATELIMIT_H
#define KH_RATELIMIT_H

#include <stdint.h>

struct kh_ratelimit;

struct kh_ratelimit *kh_ratelimit_new(unsigned per_second);
void kh_ratelimit_free(struct kh_ratelimit *rl);
/* 0: admitted; else the seconds to wait (for Retry-After). */
int kh_ratelimit_hit(struct kh_ratelimit *rl, const char *client, int64_t now_ms);

#endif
