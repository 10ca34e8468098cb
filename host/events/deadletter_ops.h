/* host/events/deadletter_ops.h - what GET/PATCH/DELETE /api/kytos/core/dead_letter/
 * do, apart from HTTP so it can be tested without a server.
 *
 * Bodies and codes as Kytos (kytos-core.md §1):
 *   GET    ?event_name=X  200 {name: {id: {id,name,content,timestamp,reinjections}}}
 *   PATCH  {"event_name": str(>=1), "ids": [str] (empty = all),
 *           "kytos_queue_buffer": "app"|"msg_in"}           200 {}
 *   DELETE {"event_name": str(>=1) or "all", "ids": [str]}  200 {}
 * 400 is pydantic's error array; 404 "event_name X not found" or
 * "KytosEvent ids not found: {'a', ...}".  Unlike Kytos, invalid JSON is a
 * 400, "all" works on a non-empty store, and a failed reinjection (buffer
 * full) answers 503 with the events back in the dead letter. */
#ifndef KH_DEADLETTER_OPS_H
#define KH_DEADLETTER_OPS_H

#include "events/eventbus.h"

struct kh_dl_reply {
    unsigned status;
    struct json_object *body;  /* send as JSON when set */
    char *description;         /* else Kytos' {"description", "code"} error */
};

void kh_dl_reply_clear(struct kh_dl_reply *r);
void kh_dl_do_get(kh_bus *b, const char *event_name, struct kh_dl_reply *r);
/* body: the parsed request body, NULL when absent or not JSON. */
void kh_dl_do_patch(kh_bus *b, struct json_object *body, struct kh_dl_reply *r);
void kh_dl_do_delete(kh_bus *b, struct json_object *body, struct kh_dl_reply *r);

#endif
