/* host/events/event_obj.h - one published KytosEvent and the per-handler view.
 *
 * A kh_ev is shared (refcounted) by the buffer, every job it fans out to
 * and the dead letter.  Its fields never change after publish, except
 * content, which only the dispatching consumer touches (see eventbus.c).
 * Each handler gets a struct kytos_event: the shared kh_ev plus its own
 * copy of the content. */
#ifndef KH_EVENT_OBJ_H
#define KH_EVENT_OBJ_H

#include "util/base.h"
#include "events/event_util.h"
#include <stdatomic.h>

enum kh_ev_flags {
    KH_EV_CORE_SHUTDOWN = 1u << 0  /* kytos/core.shutdown put by kh_bus_shutdown */
};

struct kh_ev {
    atomic_uint refs;
    uint64_t seq;               /* set by the buffer: FIFO order among equal priorities */
    int64_t time_us;            /* CLOCK_REALTIME at publish */
    int priority;               /* lower runs first */
    int reinjections;
    unsigned flags;
    struct json_object *content;/* owned */
    char id[KH_UUID_LEN + 1];
    char name[];
};

/* The handle a handler gets is read-only (const kytos_event *); its own
 * copy of the content lives in a slot of the dispatcher's, which
 * kytos_event_take_content empties: nothing casts the const away. */
struct kytos_event {
    struct kh_ev *ev;
    struct json_object **content; /* -> this handler's own copy (NULL once taken) */
};

/* Takes content (NULL = a new empty object).  NULL when out of memory. */
struct kh_ev *kh_ev_new(const char *name, struct json_object *content, int priority);
struct kh_ev *kh_ev_ref(struct kh_ev *e);
void kh_ev_unref(struct kh_ev *e);
/* {id, name, content (deep copy), timestamp, reinjections}: Kytos' as_json. */
struct json_object *kh_ev_as_json(const struct kh_ev *e, struct json_object *content);

/* ABI accessors (kytos_api.event_*). */
const char *kh_event_name(const kytos_event *ev);
struct json_object *kh_event_content(const kytos_event *ev);
/* The handler's copy, for keeps; the view has none afterwards. */
struct json_object *kh_event_take_content(const kytos_event *ev);
const char *kh_event_id(const kytos_event *ev);
int64_t kh_event_time_us(const kytos_event *ev);
int kh_event_priority(const kytos_event *ev);
int kh_event_reinjections(const kytos_event *ev);

#endif
