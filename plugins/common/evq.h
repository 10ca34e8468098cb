/* plugins/common/evq.h - events queued while a NApp holds its locks and
 * published after it let them go (simnet and topology): a handler that
 * publishes under a lock could wait on a full buffer whose consumer needs
 * that lock. */
#ifndef KYTOS_PLUGINS_EVQ_H
#define KYTOS_PLUGINS_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include <kytos/kytos.h>

struct napp_event {
    char *name;
    struct json_object *content;
};

/* Zero-initialised is empty. */
struct napp_evq {
    struct napp_event *v;
    size_t n, cap;
};

/* Queue name with content (the queue takes the reference; out of memory,
 * the event is dropped and content released). */
void napp_evq_add(struct napp_evq *q, const char *name, struct json_object *content);
/* Publish the queued events in order (timeout_ms as kytos_pub_opts), log
 * the ones refused, and empty q.  give: every content was built for its
 * event alone, so it is given to the host (kytos_event_publish_give, where
 * the host has it) rather than copied. */
void napp_evq_publish(kytos_napp *napp, struct napp_evq *q, int timeout_ms, bool give);
/* Drop the queued events unpublished; q stays usable. */
void napp_evq_drop(struct napp_evq *q);

#endif
