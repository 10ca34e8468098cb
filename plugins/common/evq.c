/* plugins/common/evq.c - events published after the locks (evq.h). */
#include "evq.h"

#include <stdlib.h>
#include <string.h>

void napp_evq_add(struct napp_evq *q, const char *name, struct json_object *content)
{
    if (q->n == q->cap) {
        size_t ncap = q->cap ? q->cap * 2 : 16;
        struct napp_event *nv = realloc(q->v, ncap * sizeof(*nv));
        if (!nv) {
            json_object_put(content);
            return;
        }
        q->v = nv;
        q->cap = ncap;
    }
    q->v[q->n].name = strdup(name);
    if (!q->v[q->n].name) {
        json_object_put(content);
        return;
    }
    q->v[q->n].content = content;
    q->n++;
}

void napp_evq_publish(kytos_napp *napp, struct napp_evq *q, int timeout_ms, bool give)
{
    struct kytos_pub_opts opts = {.struct_size = sizeof(opts), .timeout_ms = timeout_ms};

    give = give && KYTOS_API_HAS(event_publish_give);
    for (size_t i = 0; i < q->n; i++) {
        /* the give call takes our reference whatever it returns */
        int rc = give ? kytos_event_publish_give(napp, q->v[i].name, q->v[i].content, &opts)
                      : kytos_event_publish(napp, q->v[i].name, q->v[i].content, &opts);
        if (rc < 0)
            kytos_log(napp, KYTOS_LOG_WARNING, "publish %s failed: %s", q->v[i].name,
                      kytos_strerror(rc));
        if (!give)
            json_object_put(q->v[i].content);
        free(q->v[i].name);
    }
    free(q->v);
    *q = (struct napp_evq){0};
}

void napp_evq_drop(struct napp_evq *q)
{
    for (size_t i = 0; i < q->n; i++) {
        json_object_put(q->v[i].content);
        free(q->v[i].name);
    }
    q->n = 0;
}
