/* host/events/event_obj.c - KytosEvent objects and their ABI accessors. */
#include "events/event_obj.h"
#include <stdlib.h>
#include <string.h>

struct kh_ev *kh_ev_new(const char *name, struct json_object *content, int priority)
{
    size_t len = strlen(name);
    struct kh_ev *e = malloc(sizeof *e + len + 1);

    if (!e) {
        json_object_put(content);
        return NULL;
    }
    if (!content && !(content = json_object_new_object())) {
        free(e);
        return NULL;
    }
    atomic_init(&e->refs, 1);
    e->seq = 0;
    e->time_us = kh_real_us();
    e->priority = priority;
    e->reinjections = 0;
    e->flags = 0;
    e->content = content;
    kh_uuid4(e->id);
    memcpy(e->name, name, len + 1);
    return e;
}

struct kh_ev *kh_ev_ref(struct kh_ev *e)
{
    atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
    return e;
}

void kh_ev_unref(struct kh_ev *e)
{
    if (!e || atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) != 1)
        return;
    json_object_put(e->content);
    free(e);
}

struct json_object *kh_ev_as_json(const struct kh_ev *e, struct json_object *content)
{
    struct json_object *o = json_object_new_object(), *c = NULL;
    char ts[32];

    if (!o)
        return NULL;
    if (content && json_object_deep_copy(content, &c, NULL) != 0)
        c = NULL;
    kh_fmt_timestamp(e->time_us, ts, sizeof ts);
    json_object_object_add(o, "id", json_object_new_string(e->id));
    json_object_object_add(o, "name", json_object_new_string(e->name));
    json_object_object_add(o, "content", c ? c : json_object_new_object());
    json_object_object_add(o, "timestamp", json_object_new_string(ts));
    json_object_object_add(o, "reinjections", json_object_new_int(e->reinjections));
    return o;
}

const char *kh_event_name(const kytos_event *ev) { return ev ? ev->ev->name : NULL; }
struct json_object *kh_event_content(const kytos_event *ev) { return ev ? *ev->content : NULL; }

struct json_object *kh_event_take_content(const kytos_event *ev)
{
    struct json_object *c;

    if (!ev)
        return NULL;
    c = *ev->content;   /* the handler's own slot (see struct kytos_event) */
    *ev->content = NULL;
    return c;
}
const char *kh_event_id(const kytos_event *ev) { return ev ? ev->ev->id : NULL; }
int64_t kh_event_time_us(const kytos_event *ev) { return ev ? ev->ev->time_us : 0; }
int kh_event_priority(const kytos_event *ev) { return ev ? ev->ev->priority : 0; }
int kh_event_reinjections(const kytos_event *ev) { return ev ? ev->ev->reinjections : 0; }
