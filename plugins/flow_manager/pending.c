/* plugins/flow_manager/pending.c - barrier xids waiting for their reply.
 *
 * xids come from one increasing counter, so a direct-mapped table indexed by
 * the low bits is a bounded map that forgets the oldest entries first. */
#include "fm.h"
#include "pyjson.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 16384u
#define LATEST 65536u
#define SENT 16384u

struct slot {
    uint32_t xid;
    char dpid[64];
    struct json_object *flows;   /* NULL = free */
};

/* The latest-write table is set-associative: an id may sit in any of its
 * set's WAYS slots, and a new id takes an empty one or else the one written
 * longest ago.  Direct-mapped, a link failure's tens of thousands of new
 * flows evicted the ones still waiting for their barrier (at 64 EVCs a
 * batch nearly every barrier reply found one gone and read the store);
 * now what goes is a flow confirmed long ago. */
#define WAYS FM_LATEST_WAYS
#define SETS (LATEST / WAYS)

struct latest {
    char mid[33];
    uint32_t gen;
};

struct latest_set {
    struct latest way[WAYS];
    uint32_t evictions;          /* times an id lost a slot of this set to another */
};

struct fm_pending {
    pthread_mutex_t lock;
    struct slot s[SLOTS];
    pthread_mutex_t latest_lock;
    struct latest_set lt[SETS];
    pthread_mutex_t sent_lock;
    struct fm_sent sent[SENT];   /* by FlowMod xid; xid 0 = free */
};

struct fm_pending *fm_pending_new(void)
{
    struct fm_pending *p = calloc(1, sizeof *p);
    if (p) {
        pthread_mutex_init(&p->lock, NULL);
        pthread_mutex_init(&p->latest_lock, NULL);
        pthread_mutex_init(&p->sent_lock, NULL);
    }
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
    pthread_mutex_destroy(&p->latest_lock);
    pthread_mutex_destroy(&p->sent_lock);
    free(p);
}

void fm_pending_add(struct fm_pending *p, uint32_t xid, const char *dpid, struct json_object *flows)
{
    struct slot *s = &p->s[xid % SLOTS];
    struct json_object *old;

    pthread_mutex_lock(&p->lock);
    old = s->flows;
    s->xid = xid;
    fm_join(s->dpid, sizeof s->dpid, dpid, "", "");
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

/* match_id's slot, with latest_lock held (md5 hex is uniform: its first 8
 * digits pick the set); NULL, nothing held, for a malformed id.  *same: the
 * slot holds match_id; else it is the one a new id would take.  *set (set
 * not NULL): the slot's set. */
static struct latest *latest_locked(struct fm_pending *p, const char *match_id, int *same,
                                    struct latest_set **set)
{
    struct latest_set *ls;
    struct latest *victim;
    uint32_t h = 0;

    if (!match_id || strlen(match_id) != 32)
        return NULL;
    /* the digits' value for hex ("0-9a-fA-F"), by hand: strtoul cost
     * more than the rest of the lookup; another byte just lands
     * somewhere, the same place every time */
    for (int i = 0; i < 8; i++) {
        unsigned c = (unsigned char)match_id[i];
        h = (h << 4) | (((c & 0x0f) + (c >> 6) * 9) & 0x0f);
    }
    ls = &p->lt[h % SETS];
    if (set)
        *set = ls;
    pthread_mutex_lock(&p->latest_lock);
    victim = &ls->way[0];
    for (unsigned w = 0; w < WAYS; w++) {
        struct latest *l = &ls->way[w];
        if (l->mid[0] && memcmp(l->mid, match_id, 33) == 0) {
            *same = 1;
            return l;
        }
        /* an empty slot, else the oldest generation (they come from one
         * wrapping counter: compared by their distance) */
        if (victim->mid[0] && (!l->mid[0] || (int32_t)(l->gen - victim->gen) < 0))
            victim = l;
    }
    *same = 0;
    return victim;
}

void fm_latest_set(struct fm_pending *p, const char *match_id, uint32_t gen)
{
    int same;
    struct latest_set *set;
    struct latest *l = latest_locked(p, match_id, &same, &set);

    if (!l)
        return;
    if (!same && l->mid[0])
        set->evictions++;
    memcpy(l->mid, match_id, 33);
    l->gen = gen;
    pthread_mutex_unlock(&p->latest_lock);
}

uint32_t fm_latest_get(struct fm_pending *p, const char *match_id)
{
    int same;
    struct latest *l = latest_locked(p, match_id, &same, NULL);
    uint32_t gen;

    if (!l)
        return 0;
    gen = same ? l->gen : 0;
    pthread_mutex_unlock(&p->latest_lock);
    return gen;
}

void fm_latest_snapshot(struct fm_pending *p, const char *match_id, uint32_t *gen, uint32_t *ev)
{
    int same;
    struct latest_set *set;
    struct latest *l = latest_locked(p, match_id, &same, &set);

    *gen = *ev = 0;
    if (!l)
        return;
    *gen = same ? l->gen : 0;
    *ev = set->evictions;
    pthread_mutex_unlock(&p->latest_lock);
}

int fm_latest_unchanged(struct fm_pending *p, const char *match_id, uint32_t gen, uint32_t ev)
{
    int same, rc;
    struct latest_set *set;
    struct latest *l = latest_locked(p, match_id, &same, &set);

    if (!l)
        return 0;
    rc = gen ? same && l->gen == gen : !same && set->evictions == ev;
    pthread_mutex_unlock(&p->latest_lock);
    return rc;
}

int fm_latest_replace_if(struct fm_pending *p, const char *match_id, uint32_t expect, uint32_t gen)
{
    int same, rc;
    struct latest *l = latest_locked(p, match_id, &same, NULL);

    if (!l)
        return -1;
    rc = same ? l->gen == expect : -1;
    if (rc == 1)
        l->gen = gen;
    pthread_mutex_unlock(&p->latest_lock);
    return rc;
}

void fm_latest_advance(struct fm_pending *p, const char *match_id, uint32_t from, uint32_t xid)
{
    int same;
    struct latest *l = latest_locked(p, match_id, &same, NULL);

    if (!l)
        return;
    /* a forgotten id stays unknown: a newer write may have been forgotten
     * with it, so this FlowMod's confirmation goes to the store's check */
    if (same && l->gen == from)
        l->gen = xid;
    pthread_mutex_unlock(&p->latest_lock);
}

void fm_latest_forget(struct fm_pending *p, const char *match_id, uint32_t gen)
{
    int same;
    struct latest *l = latest_locked(p, match_id, &same, NULL);

    if (!l)
        return;
    if (same && l->gen == gen)
        l->mid[0] = '\0';
    pthread_mutex_unlock(&p->latest_lock);
}

int fm_latest_check(struct fm_pending *p, const char *match_id, uint32_t gen)
{
    int same, rc;
    struct latest *l = latest_locked(p, match_id, &same, NULL);

    if (!l)
        return -1;
    rc = same ? l->gen == gen : -1;
    pthread_mutex_unlock(&p->latest_lock);
    return rc;
}

void fm_sent_add(struct fm_pending *p, uint32_t xid, const char *dpid, const char *match_id,
                 const char *flow_id, int cmd)
{
    struct fm_sent *e = &p->sent[xid % SENT];

    if (xid == 0 || strlen(dpid) >= sizeof e->dpid)
        return;
    pthread_mutex_lock(&p->sent_lock);
    e->xid = xid;
    e->cmd = cmd;
    memcpy(e->dpid, dpid, strlen(dpid) + 1);
    memcpy(e->match_id, match_id, 33);
    memcpy(e->flow_id, flow_id, 33);
    pthread_mutex_unlock(&p->sent_lock);
}

int fm_sent_take(struct fm_pending *p, uint32_t xid, const char *dpid, struct fm_sent *out)
{
    struct fm_sent *e = &p->sent[xid % SENT];
    int found = 0;

    pthread_mutex_lock(&p->sent_lock);
    if (xid != 0 && e->xid == xid && (!dpid || strcmp(e->dpid, dpid) == 0)) {
        *out = *e;
        e->xid = 0;
        found = 1;
    }
    pthread_mutex_unlock(&p->sent_lock);
    return found;
}
