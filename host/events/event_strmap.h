/* host/events/event_strmap.h - a string-keyed hash map (chained, keys copied) for
 * the bus' name caches, dead letter and pacer.  Not thread safe: callers
 * hold their own lock. */
#ifndef KH_EVENT_STRMAP_H
#define KH_EVENT_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct kh_strmap kh_strmap;
/* Return 1 to remove the entry (its value is not freed), 0 to keep it. */
typedef int (*kh_strmap_visit)(void *ctx, const char *key, void *val);

kh_strmap *kh_strmap_new(void);
void kh_strmap_free(kh_strmap *m, void (*free_val)(void *));
void *kh_strmap_get(const kh_strmap *m, const char *key);
/* Insert or replace (the old value is returned in *old when old != NULL).
 * 0 or -1 when out of memory. */
int kh_strmap_put(kh_strmap *m, const char *key, void *val, void **old);
void *kh_strmap_del(kh_strmap *m, const char *key);
size_t kh_strmap_count(const kh_strmap *m);
void kh_strmap_clear(kh_strmap *m, void (*free_val)(void *));
void kh_strmap_each(kh_strmap *m, kh_strmap_visit fn, void *ctx);
uint64_t kh_strhash(const char *s);

#endif
