/* host/events/deadletter.h - events whose handler failed, by name then id, oldest
 * first (Kytos' DeadLetter).  At most max_per_name per name (the oldest is
 * evicted) and max_total overall (further events are refused and counted).
 * Thread safe. */
#ifndef KH_DEADLETTER_H
#define KH_DEADLETTER_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

struct kh_ev;
typedef struct kh_deadletter kh_deadletter;

/* One event taken out (for reinjection): the caller owns both references. */
struct kh_dl_item {
    struct kh_ev *ev;
    struct json_object *content;
};

struct kh_deadletter_stats {
    size_t count, names;
    uint64_t added, evicted, refused;
};

enum kh_dl_result {
    KH_DL_OK = 0,
    KH_DL_NO_NAME = 1,     /* "event_name X not found" */
    KH_DL_NO_IDS = 2       /* "KytosEvent ids not found: {...}" */
};

kh_deadletter *kh_deadletter_new(size_t max_per_name, size_t max_total);
void kh_deadletter_free(kh_deadletter *dl);
/* Takes a reference on ev and takes content.  An id already present under
 * the name keeps its entry (a second failing handler of the same event).
 * 0, or KYTOS_EFULL when max_total is reached. */
int kh_deadletter_add(kh_deadletter *dl, struct kh_ev *ev, struct json_object *content);
/* {name: {id: {id, name, content, timestamp, reinjections}}}; name NULL or
 * "" lists every name.  An unknown name gives {}.  New reference. */
struct json_object *kh_deadletter_list(kh_deadletter *dl, const char *name);
/* Remove the events ids[0..nids) of name (nids 0 = all of them), all or
 * nothing: an unknown name or any unknown id changes nothing and returns
 * KH_DL_NO_NAME / KH_DL_NO_IDS (*missing: new string "{'a', 'b'}" naming the
 * unknown ids as Kytos prints a Python set, caller frees).  With out != NULL
 * the removed events are handed over (*out malloc'd, *nout items); else
 * they are freed. */
int kh_deadletter_remove(kh_deadletter *dl, const char *name, const char *const *ids, size_t nids,
                         struct kh_dl_item **out, size_t *nout, char **missing);
void kh_deadletter_clear(kh_deadletter *dl);
size_t kh_deadletter_count(kh_deadletter *dl);
void kh_deadletter_stats(kh_deadletter *dl, struct kh_deadletter_stats *st);
void kh_dl_items_free(struct kh_dl_item *items, size_t n);

#endif
