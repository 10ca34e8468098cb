/* plugins/of_l2ls/mac_table.c - open addressing (linear probing) per switch,
 * the table at most half full; switches in a small array (a learning
 * switch serves few switches, each lookup is a short scan). */
#include "mac_table.h"

#include <stdlib.h>
#include <string.h>

struct l2_slot {
    uint64_t key;                   /* mac + 1, 0 = empty */
    uint32_t port;
};

struct l2_switch_macs {
    char dpid[24];
    struct l2_slot *slots;
    size_t cap, n;                  /* cap a power of two */
};

void l2_tables_init(struct l2_mac_tables *t, size_t max_switches, size_t max_macs)
{
    memset(t, 0, sizeof *t);
    t->max_switches = max_switches;
    t->max_macs = max_macs;
}

void l2_tables_free(struct l2_mac_tables *t)
{
    for (size_t i = 0; i < t->n_sw; i++) {
        free(t->sw[i]->slots);
        free(t->sw[i]);
    }
    free(t->sw);
    memset(t, 0, sizeof *t);
}

static struct l2_switch_macs *find(const struct l2_mac_tables *t, const char *dpid)
{
    for (size_t i = 0; i < t->n_sw; i++)
        if (strcmp(t->sw[i]->dpid, dpid) == 0)
            return t->sw[i];
    return NULL;
}

static size_t hash(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

static struct l2_slot *probe(struct l2_slot *slots, size_t cap, uint64_t key)
{
    size_t i = hash(key) & (cap - 1);

    while (slots[i].key && slots[i].key != key)
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

static int grow(struct l2_switch_macs *s)
{
    size_t cap = s->cap ? s->cap * 2 : 64;
    struct l2_slot *slots = calloc(cap, sizeof *slots);

    if (!slots)
        return -1;
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i].key)
            *probe(slots, cap, s->slots[i].key) = s->slots[i];
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return 0;
}

static struct l2_switch_macs *get(struct l2_mac_tables *t, const char *dpid)
{
    struct l2_switch_macs *s = find(t, dpid), **v;

    if (s)
        return s;
    if (t->n_sw >= t->max_switches || strlen(dpid) >= sizeof s->dpid)
        return NULL;
    v = realloc(t->sw, (t->n_sw + 1) * sizeof *v);
    if (!v)
        return NULL;
    t->sw = v;
    if (!(s = calloc(1, sizeof *s)))
        return NULL;
    strcpy(s->dpid, dpid);
    t->sw[t->n_sw++] = s;
    return s;
}

int l2_learn(struct l2_mac_tables *t, const char *dpid, uint64_t mac, uint32_t port)
{
    struct l2_switch_macs *s = get(t, dpid);
    uint64_t key = (mac & 0xffffffffffffULL) + 1;
    struct l2_slot *slot;

    if (!s)
        return -1;
    if (s->cap) {
        slot = probe(s->slots, s->cap, key);
        if (slot->key) {
            slot->port = port;
            return 0;
        }
    }
    if (s->n >= t->max_macs) {
        memset(s->slots, 0, s->cap * sizeof *s->slots);
        s->n = 0;
        t->forgotten++;
    }
    if ((s->n + 1) * 2 > s->cap && grow(s) < 0)
        return -1;
    slot = probe(s->slots, s->cap, key);
    slot->key = key;
    slot->port = port;
    s->n++;
    return 0;
}

bool l2_lookup(const struct l2_mac_tables *t, const char *dpid, uint64_t mac, uint32_t *port)
{
    const struct l2_switch_macs *s = find(t, dpid);
    const struct l2_slot *slot;

    if (!s || !s->cap)
        return false;
    slot = probe(s->slots, s->cap, (mac & 0xffffffffffffULL) + 1);
    if (!slot->key)
        return false;
    *port = slot->port;
    return true;
}

void l2_forget_switch(struct l2_mac_tables *t, const char *dpid)
{
    struct l2_switch_macs *s = find(t, dpid);

    if (s && s->cap) {
        memset(s->slots, 0, s->cap * sizeof *s->slots);
        s->n = 0;
    }
}
