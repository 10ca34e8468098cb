/* plugins/flow_manager/switches.c - the switch map (see switches.h). */
#include "switches.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NBUCKETS 256

struct sw {
    struct sw *next;
    unsigned state;
    char dpid[];
};

struct fm_switches {
    pthread_rwlock_t lock;
    struct sw *b[NBUCKETS];
    size_t count;
    pthread_mutex_t refresh_lock;
    int64_t last_refresh_ns; /* when the newest GET began */
    struct json_object *last_sws; /* its "switches" (under refresh_lock) */
};

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h % NBUCKETS;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct fm_switches *fm_switches_new(void)
{
    struct fm_switches *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pthread_rwlock_init(&s->lock, NULL);
    pthread_mutex_init(&s->refresh_lock, NULL);
    s->last_refresh_ns = INT64_MIN;
    return s;
}

void fm_switches_free(struct fm_switches *s)
{
    size_t i;
    if (!s)
        return;
    for (i = 0; i < NBUCKETS; i++) {
        struct sw *e = s->b[i], *n;
        for (; e; e = n) {
            n = e->next;
            free(e);
        }
    }
    json_object_put(s->last_sws);
    pthread_rwlock_destroy(&s->lock);
    pthread_mutex_destroy(&s->refresh_lock);
    free(s);
}

static struct sw *find(struct fm_switches *s, const char *dpid)
{
    struct sw *e;
    for (e = s->b[hash(dpid)]; e; e = e->next)
        if (strcmp(e->dpid, dpid) == 0)
            return e;
    return NULL;
}

unsigned fm_switches_get(struct fm_switches *s, const char *dpid)
{
    struct sw *e;
    unsigned st;

    pthread_rwlock_rdlock(&s->lock);
    e = find(s, dpid);
    st = e ? e->state : FM_SW_UNKNOWN;
    pthread_rwlock_unlock(&s->lock);
    return st;
}

static void set_locked(struct fm_switches *s, const char *dpid, unsigned set, unsigned clear)
{
    struct sw *e = find(s, dpid);
    if (!e) {
        size_t n = strlen(dpid);
        unsigned h = hash(dpid);
        if (n == 0 || n > 256)
            return;
        e = calloc(1, sizeof *e + n + 1);
        if (!e)
            return;
        memcpy(e->dpid, dpid, n + 1);
        e->state = FM_SW_ENABLED; /* topology says otherwise when it knows */
        e->next = s->b[h];
        s->b[h] = e;
        s->count++;
    }
    e->state = ((e->state & ~clear) | set) | FM_SW_KNOWN;
}

void fm_switches_set(struct fm_switches *s, const char *dpid, unsigned set, unsigned clear)
{
    pthread_rwlock_wrlock(&s->lock);
    set_locked(s, dpid, set, clear);
    pthread_rwlock_unlock(&s->lock);
}

void fm_switches_remove(struct fm_switches *s, const char *dpid)
{
    struct sw **pp;

    pthread_rwlock_wrlock(&s->lock);
    for (pp = &s->b[hash(dpid)]; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->dpid, dpid) == 0) {
            struct sw *e = *pp;
            *pp = e->next;
            free(e);
            s->count--;
            break;
        }
    }
    pthread_rwlock_unlock(&s->lock);
}

char **fm_switches_list(struct fm_switches *s, unsigned need)
{
    size_t i, n = 0, bytes = 0;
    struct sw *e;
    char **out, *p;

    pthread_rwlock_rdlock(&s->lock);
    for (i = 0; i < NBUCKETS; i++)
        for (e = s->b[i]; e; e = e->next)
            if ((e->state & need) == need) {
                n++;
                bytes += strlen(e->dpid) + 1;
            }
    out = malloc((n + 1) * sizeof *out + bytes);
    if (out) {
        p = (char *)(out + n + 1);
        n = 0;
        for (i = 0; i < NBUCKETS; i++)
            for (e = s->b[i]; e; e = e->next)
                if ((e->state & need) == need) {
                    size_t l = strlen(e->dpid) + 1;
                    memcpy(p, e->dpid, l);
                    out[n++] = p;
                    p += l;
                }
        out[n] = NULL;
    }
    pthread_rwlock_unlock(&s->lock);
    return out;
}

/* A switch's booleans; absent keys keep a default. */
static int bool_of(struct json_object *o, const char *k, int def)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_boolean))
        return def;
    return json_object_get_boolean(v);
}

static void bits_of(struct json_object *sw, unsigned *set, unsigned *clear)
{
    *set = 0;
    *clear = 0;
    if (json_object_is_type(sw, json_type_object)) {
        if (bool_of(sw, "enabled", 1))
            *set |= FM_SW_ENABLED;
        else
            *clear |= FM_SW_ENABLED;
        if (bool_of(sw, "active", 0))
            *set |= FM_SW_CONNECTED;
        else
            *clear |= FM_SW_CONNECTED;
    }
}

static void merge_one(struct fm_switches *s, const char *dpid, struct json_object *sw)
{
    unsigned set, clear;
    bits_of(sw, &set, &clear);
    set_locked(s, dpid, set, clear);
}

void fm_switches_merge(struct fm_switches *s, struct json_object *switches)
{
    if (!json_object_is_type(switches, json_type_object))
        return;
    pthread_rwlock_wrlock(&s->lock);
    json_object_object_foreach(switches, dpid, sw) merge_one(s, dpid, sw);
    pthread_rwlock_unlock(&s->lock);
}

int64_t fm_switches_clock(void)
{
    return now_ns();
}

unsigned fm_switches_refresh(struct fm_switches *s, kytos_napp *napp, int64_t since,
                             const char *dpid)
{
    kytos_response *r = NULL;
    struct json_object *body, *sws, *sw;
    int force = since == FM_REFRESH_FORCE;
    unsigned st = FM_SW_UNKNOWN, set, clear;
    int seen = 0;

    /* Callers are serialised on refresh_lock.  A GET that began after a
     * caller's `since` has seen everything topology knew then: it serves
     * that caller too, so callers at once share one GET.  There is no other
     * limit: refreshes used to be at least 50 ms apart, a caller inside
     * that window refused one, and a switch that topology enabled just
     * after another caller's GET was answered 404 "dpid not found"
     * (of_lldp's punt flows went missing when three switches came up at
     * once).  Waiting out the window instead would hold up the store's
     * writer, which runs send.c's callbacks.  A GET is one in-process
     * call, about what the request that needs it costs.
     *
     * The caller's answer comes from that GET, not from the map after it:
     * an event published before the GET but handled after it carries an
     * older topology (kytos/topology.updated holds every switch as it was
     * then), and merging it can undo what the GET merged before the caller
     * reads the map (a switch just enabled was refused as disabled, the
     * tsan flake in switches_enabled_at_once_are_found_by_each_post).  The
     * map catches up with the later events. */
    pthread_mutex_lock(&s->refresh_lock);
    if (force || s->last_refresh_ns < since) {
        s->last_refresh_ns = now_ns();
        json_object_put(s->last_sws);
        s->last_sws = NULL;
        if (kytos_call(napp, "GET", "/api/kytos/topology/v3/switches", NULL, 0, &r) == KYTOS_OK &&
            r) {
            if (kytos_response_status(r) == 200) {
                body = kytos_response_json(r);
                if (json_object_object_get_ex(body, "switches", &sws) &&
                    json_object_is_type(sws, json_type_object)) {
                    fm_switches_merge(s, sws);
                    s->last_sws = json_object_get(sws);
                }
            }
            kytos_response_free(r);
        }
    }
    if (dpid && s->last_sws && json_object_object_get_ex(s->last_sws, dpid, &sw)) {
        bits_of(sw, &set, &clear);
        st = FM_SW_KNOWN | set;
        seen = 1;
    }
    pthread_mutex_unlock(&s->refresh_lock);
    /* A switch the GET did not name may still be known from an event. */
    return seen ? st : dpid ? fm_switches_get(s, dpid) : FM_SW_UNKNOWN;
}

/* The dpid an event is about: "dpid", or "switch" as a string or as an
 * object with "dpid"/"id", or "source"/"destination" likewise. */
static const char *event_dpid(struct json_object *c)
{
    static const char *const keys[] = {"dpid", "switch", "source", "destination", "datapath"};
    struct json_object *v, *w;
    size_t i;

    for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (!json_object_object_get_ex(c, keys[i], &v))
            continue;
        if (json_object_is_type(v, json_type_string))
            return json_object_get_string(v);
        if (json_object_is_type(v, json_type_object)) {
            if (json_object_object_get_ex(v, "dpid", &w) && json_object_is_type(w, json_type_string))
                return json_object_get_string(w);
            if (json_object_object_get_ex(v, "id", &w) && json_object_is_type(w, json_type_string))
                return json_object_get_string(w);
        }
    }
    return NULL;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

void fm_switches_on_event(struct fm_switches *s, const char *name, struct json_object *c)
{
    struct json_object *topo, *sws;
    const char *dpid;

    if (!name || !json_object_is_type(c, json_type_object))
        return;
    /* Whole topology (kytos/topology.updated, .topology_loaded). */
    if (json_object_object_get_ex(c, "topology", &topo) &&
        json_object_object_get_ex(topo, "switches", &sws)) {
        fm_switches_merge(s, sws);
        return;
    }
    dpid = event_dpid(c);
    if (!dpid || !*dpid)
        return;
    if (ends_with(name, ".switch.new") || ends_with(name, ".switch.reconnected") ||
        ends_with(name, ".handshake.completed"))
        fm_switches_set(s, dpid, FM_SW_CONNECTED, 0);
    else if (ends_with(name, ".connection.lost") || ends_with(name, ".switch.disconnected"))
        fm_switches_set(s, dpid, 0, FM_SW_CONNECTED);
    else if (ends_with(name, "topology.switch.enabled"))
        fm_switches_set(s, dpid, FM_SW_ENABLED, 0);
    else if (ends_with(name, "topology.switch.disabled"))
        fm_switches_set(s, dpid, 0, FM_SW_ENABLED);
    else if (ends_with(name, "topology.switch.deleted"))
        fm_switches_remove(s, dpid);
}
