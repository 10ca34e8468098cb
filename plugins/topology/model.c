/* plugins/topology/model.c - switches, interfaces and links in memory.
 * Callers hold the model lock (topo.h); nothing here locks. */
#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void topo_set_str(char **dst, const char *src)
{
    char *copy = src ? strdup(src) : NULL;

    if (src && !copy)
        return;  /* keep the old value on allocation failure */
    free(*dst);
    *dst = copy;
}

char *topo_now_iso(void)
{
    struct timespec ts;
    struct tm tm;
    char buf[96];

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06ld", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (long)(ts.tv_nsec / 1000) % 1000000);
    return strdup(buf);
}

int64_t topo_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool grow(void **v, size_t *cap, size_t need, size_t elem)
{
    size_t ncap;
    void *nv;

    if (need <= *cap)
        return true;
    ncap = *cap ? *cap * 2 : 8;
    while (ncap < need)
        ncap *= 2;
    nv = realloc(*v, ncap * elem);
    if (!nv)
        return false;
    *v = nv;
    *cap = ncap;
    return true;
}

struct topo_switch *topo_switch_find(struct topo *t, const char *dpid)
{
    if (!dpid)
        return NULL;
    for (size_t i = 0; i < t->n_switches; i++)
        if (strcmp(t->switches[i]->dpid, dpid) == 0)
            return t->switches[i];
    return NULL;
}

struct topo_switch *topo_switch_add(struct topo *t, const char *dpid)
{
    struct topo_switch *s;

    if (!grow((void **)&t->switches, &t->cap_switches, t->n_switches + 1, sizeof(*t->switches)))
        return NULL;
    s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->dpid = strdup(dpid);
    s->connection = strdup("");
    s->manufacturer = strdup("");
    s->serial = strdup("");
    s->hardware = strdup("");
    s->data_path = strdup("");
    s->metadata = json_object_new_object();
    s->inserted_at = topo_now_iso();
    s->enabled = t->enable_by_default;
    if (!s->dpid || !s->connection || !s->manufacturer || !s->serial || !s->hardware ||
        !s->data_path || !s->metadata || !s->inserted_at) {
        free(s->dpid);
        free(s->connection);
        free(s->manufacturer);
        free(s->serial);
        free(s->hardware);
        free(s->data_path);
        json_object_put(s->metadata);
        free(s->inserted_at);
        free(s);
        return NULL;
    }
    t->switches[t->n_switches++] = s;
    return s;
}

void topo_intf_free(struct topo_intf *i)
{
    free(i->id);
    free(i->name);
    free(i->mac);
    free(i->updated_at);
    free(i->tag_ranges);
    free(i->tags_inserted_at);
    json_object_put(i->metadata);
    free(i);
}

void topo_switch_free(struct topo_switch *s)
{
    for (size_t i = 0; i < s->n_intfs; i++)
        topo_intf_free(s->intfs[i]);
    free(s->intfs);
    free(s->dpid);
    free(s->connection);
    free(s->ofp_version);
    free(s->manufacturer);
    free(s->serial);
    free(s->hardware);
    free(s->data_path);
    free(s->software);
    free(s->inserted_at);
    free(s->updated_at);
    json_object_put(s->metadata);
    free(s);
}

/* ---- pointer lists: close the gap of a detached entry, open it again ---- */

static void list_close(void *v, size_t *n, size_t idx, size_t elem)
{
    char *b = v;

    memmove(b + idx * elem, b + (idx + 1) * elem, (*n - idx - 1) * elem);
    (*n)--;
}

/* The list still has the room of the entry detached from it. */
static size_t list_open(void *v, size_t *n, size_t idx, size_t elem)
{
    char *b = v;

    if (idx > *n)
        idx = *n;
    memmove(b + (idx + 1) * elem, b + idx * elem, (*n - idx) * elem);
    (*n)++;
    return idx;
}

size_t topo_switch_detach(struct topo *t, struct topo_switch *sw)
{
    for (size_t i = 0; i < t->n_switches; i++) {
        if (t->switches[i] == sw) {
            list_close(t->switches, &t->n_switches, i, sizeof(*t->switches));
            return i;
        }
    }
    return t->n_switches;
}

void topo_switch_attach(struct topo *t, struct topo_switch *sw, size_t idx)
{
    idx = list_open(t->switches, &t->n_switches, idx, sizeof(*t->switches));
    t->switches[idx] = sw;
}

struct topo_intf *topo_intf_find(struct topo_switch *sw, uint32_t port)
{
    if (!sw)
        return NULL;
    for (size_t i = 0; i < sw->n_intfs; i++)
        if (sw->intfs[i]->port == port)
            return sw->intfs[i];
    return NULL;
}

struct topo_intf *topo_intf_find_id(struct topo *t, const char *intf_id)
{
    char dpid[TOPO_DPID_MAX + 1];
    uint32_t port;

    if (!topo_intf_id_parse(intf_id, dpid, &port))
        return NULL;
    return topo_intf_find(topo_switch_find(t, dpid), port);
}

struct topo_intf *topo_intf_add(struct topo_switch *sw, uint32_t port)
{
    struct topo_intf *i;
    char id[TOPO_INTF_ID_MAX + 1];

    if (!grow((void **)&sw->intfs, &sw->cap_intfs, sw->n_intfs + 1, sizeof(*sw->intfs)))
        return NULL;
    i = calloc(1, sizeof(*i));
    if (!i)
        return NULL;
    snprintf(id, sizeof(id), "%s:%u", sw->dpid, port);
    i->id = strdup(id);
    i->name = strdup("");
    i->metadata = json_object_new_object();
    if (!i->id || !i->name || !i->metadata) {
        topo_intf_free(i);
        return NULL;
    }
    i->port = port;
    i->sw = sw;
    i->lldp = true;
    i->active = true;       /* GenericEntity starts active */
    i->enabled = true;       /* callers apply enable_entities_by_default */
    i->speed_kind = TOPO_SPEED_NULL;
    sw->intfs[sw->n_intfs++] = i;
    return i;
}

struct topo_link *topo_intf_any_link(struct topo *t, const struct topo_intf *intf)
{
    if (intf->link)
        return intf->link;
    /* after re-cabling, an older link still has it as an endpoint */
    for (size_t i = 0; i < t->n_links; i++)
        if (t->links[i]->a == intf || t->links[i]->b == intf)
            return t->links[i];
    return NULL;
}

size_t topo_intf_detach(struct topo_intf *intf)
{
    struct topo_switch *sw = intf->sw;

    for (size_t i = 0; i < sw->n_intfs; i++) {
        if (sw->intfs[i] == intf) {
            list_close(sw->intfs, &sw->n_intfs, i, sizeof(*sw->intfs));
            return i;
        }
    }
    return sw->n_intfs;
}

void topo_intf_attach(struct topo_intf *intf, size_t idx)
{
    struct topo_switch *sw = intf->sw;

    idx = list_open(sw->intfs, &sw->n_intfs, idx, sizeof(*sw->intfs));
    sw->intfs[idx] = intf;
}

bool topo_intf_remove(struct topo *t, struct topo_intf *intf)
{
    size_t n = intf->sw->n_intfs;

    if (topo_intf_any_link(t, intf))
        return false;  /* freeing it would leave the link dangling */
    if (topo_intf_detach(intf) == n)
        return false;
    topo_intf_free(intf);
    return true;
}

struct topo_link *topo_link_find(struct topo *t, const char *id)
{
    if (!id)
        return NULL;
    for (size_t i = 0; i < t->n_links; i++)
        if (strcmp(t->links[i]->id, id) == 0)
            return t->links[i];
    return NULL;
}

struct topo_link *topo_link_get_or_create(struct topo *t, struct topo_intf *x,
                                          struct topo_intf *y, bool *created)
{
    char id[TOPO_LINK_ID_LEN + 1];
    struct topo_link *l;
    bool x_first;

    *created = false;
    if (x == y || !topo_link_id(x->id, y->id, id, &x_first))
        return NULL;
    l = topo_link_find(t, id);
    if (l)
        return l;
    if (!grow((void **)&t->links, &t->cap_links, t->n_links + 1, sizeof(*t->links)))
        return NULL;
    l = calloc(1, sizeof(*l));
    if (!l)
        return NULL;
    l->metadata = json_object_new_object();
    l->inserted_at = topo_now_iso();
    if (!l->metadata || !l->inserted_at) {
        json_object_put(l->metadata);
        free(l->inserted_at);
        free(l);
        return NULL;
    }
    memcpy(l->id, id, sizeof(id));
    l->a = x_first ? x : y;
    l->b = x_first ? y : x;
    l->enabled = t->enable_by_default;
    l->active = true;
    t->links[t->n_links++] = l;
    *created = true;
    return l;
}

size_t topo_link_detach(struct topo *t, struct topo_link *l)
{
    for (size_t i = 0; i < t->n_links; i++) {
        if (t->links[i] == l) {
            list_close(t->links, &t->n_links, i, sizeof(*t->links));
            return i;
        }
    }
    return t->n_links;
}

void topo_link_attach(struct topo *t, struct topo_link *l, size_t idx)
{
    idx = list_open(t->links, &t->n_links, idx, sizeof(*t->links));
    t->links[idx] = l;
}

void topo_link_free(struct topo *t, struct topo_link *l)
{
    if (l->hold_until_ms || l->notify_due_ms)
        atomic_fetch_sub(&t->pending_timers, 1);
    json_object_put(l->metadata);
    free(l->notify_reason);
    free(l->inserted_at);
    free(l->updated_at);
    free(l);
}

void topo_link_remove(struct topo *t, struct topo_link *l)
{
    size_t n = t->n_links;

    if (topo_link_detach(t, l) == n)
        return;
    if (l->a->link == l)
        l->a->link = NULL;
    if (l->b->link == l)
        l->b->link = NULL;
    topo_link_free(t, l);
}

void topo_model_free(struct topo *t)
{
    while (t->n_links)
        topo_link_remove(t, t->links[t->n_links - 1]);
    for (size_t i = 0; i < t->n_switches; i++)
        topo_switch_free(t->switches[i]);
    free(t->switches);
    free(t->links);
    t->switches = NULL;
    t->links = NULL;
    t->n_switches = t->cap_switches = t->n_links = t->cap_links = 0;
}

/* ---- status, as kytos.core.common.GenericEntity and Link compute it ---- */

static enum topo_status generic_status(bool enabled, bool active)
{
    if (enabled && active)
        return TOPO_UP;
    if (!enabled)
        return TOPO_DISABLED;
    return TOPO_DOWN;
}

bool topo_link_is_enabled(const struct topo_link *l)
{
    return l->enabled && l->a->enabled && l->b->enabled;
}

bool topo_link_is_active(const struct topo_link *l)
{
    return l->active && l->a->active && l->b->active;
}

bool topo_link_mismatched(const struct topo_link *l)
{
    return l->a->link != l || l->b->link != l;
}

/* of_lldp's liveness status hook (Kytos registers it from of_lldp; here
 * topology applies it): an enabled, active link whose metadata has
 * liveness_status other than "up" is DOWN, reason "liveness". */
bool topo_link_liveness_down(const struct topo_link *l)
{
    struct json_object *v;

    if (!topo_link_is_enabled(l) || !topo_link_is_active(l) || !l->metadata ||
        !json_object_object_get_ex(l->metadata, "liveness_status", &v))
        return false;
    return !json_object_is_type(v, json_type_string) || strcmp(json_object_get_string(v), "up") != 0;
}

enum topo_status topo_link_status(const struct topo_link *l, int64_t now_ms)
{
    enum topo_status s = generic_status(topo_link_is_enabled(l), topo_link_is_active(l));

    /* topology's link_up_timer status hook keeps a fresh link DOWN */
    if (s == TOPO_UP && l->hold_until_ms && now_ms < l->hold_until_ms)
        return TOPO_DOWN;
    /* and its mismatched-link hook one its interfaces left (re-cabled) */
    if (s == TOPO_UP && topo_link_mismatched(l))
        return TOPO_DOWN;
    if (s == TOPO_UP && topo_link_liveness_down(l))
        return TOPO_DOWN;
    return s;
}

enum topo_status topo_switch_status(const struct topo_switch *s)
{
    return generic_status(s->enabled, s->active);
}

enum topo_status topo_intf_status(const struct topo_intf *i)
{
    return generic_status(i->enabled, i->active);
}

const char *topo_status_str(enum topo_status s)
{
    switch (s) {
    case TOPO_UP:
        return "UP";
    case TOPO_DISABLED:
        return "DISABLED";
    default:
        return "DOWN";
    }
}
