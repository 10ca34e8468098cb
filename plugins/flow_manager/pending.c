/* plugins/flow_manager/pending.c - barrier xids waiting for their reply.
 *
 * xids come from one increasing counter, so a direct-mapped table indexed by
 * the low bits is a bounded map that forgets the oldest entries first. */
#include "fm.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 16384u

struct slot {
    uint32_t xid;
    char dpid[64];
    struct json_object *flows;   /* NULL = free */
};

struct fm_pending {
    pthread_mutex_t lock;
    struct slot s[SLOTS];
};

struct fm_pending *fm_pending_new(void)
{
    struct fm_pending *p = calloc(1, sizeof *p);
    if (p)
        pthread_mutex_init(&p->lock, NULL);
    return p;
}

void fm_pending_free(struct fm_pending *p)
{
    size_t i;
    if (!p)
        return;
    for (i = 0; i < SLOTS; i++)
        json_object_put(p->s[i].flows);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

void fm_pending_add(struct fm_pending *p, uint32_t xid, const char *dpid, struct json_object *flows)
{
    struct slot *s = &p->s[xid % SLOTS];
    struct json_object *old;

    pthread_mutex_lock(&p->lock);
    old = s->flows;
    s->xid = xid;
    snprintf(s->dpid, sizeof s->dpid, "%s", dpid);
    s->flows = flows;
    pthread_mutex_unlock(&p->lock);
    json_object_put(old);
}

struct json_object *fm_pending_take(struct fm_pending *p, uint32_t xid, const char *dpid)
{
    struct slot *s = &p->s[xid % SLOTS];
    struct json_object *flows = NULL;

    pthread_mutex_lock(&p->lock);
    if (s->flows && s->xid == xid && (!dpid || strcmp(s->dpid, dpid) == 0)) {
        flows = s->flows;
        s->flows = NULL;
    }
    pthread_mutex_unlock(&p->lock);
    return flows;
}
