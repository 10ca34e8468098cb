/* plugins/mef_eline/evc.c - the in-memory EVCs: map, load from a stored
 * document, sync back, ids and dates. */
#include "me.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

static void me_evc_free(struct me_evc *e);

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

struct me_evc *me_evc_find(struct me *me, const char *id)
{
    struct me_evc *e;
    if (!id)
        return NULL;
    for (e = me->buckets[hash(id) % me->nbuckets]; e; e = e->next)
        if (strcmp(e->id, id) == 0)
            return e;
    return NULL;
}

void me_evc_insert(struct me *me, struct me_evc *e)
{
    size_t b = hash(e->id) % me->nbuckets;
    e->next = me->buckets[b];
    me->buckets[b] = e;
    me->count++;
}

void me_evc_remove(struct me *me, struct me_evc *e)
{
    struct me_evc **pp = &me->buckets[hash(e->id) % me->nbuckets];
    for (; *pp; pp = &(*pp)->next) {
        if (*pp == e) {
            *pp = e->next;
            e->next = NULL;
            me->count--;
            me_evc_unref(e);
            return;
        }
    }
}

struct me_evc *me_evc_get(struct me *me, const char *id)
{
    struct me_evc *e;
    pthread_mutex_lock(&me->lock);
    e = me_evc_find(me, id);
    if (e)
        me_evc_ref(e);
    pthread_mutex_unlock(&me->lock);
    return e;
}

void me_evc_ref(struct me_evc *e)
{
    atomic_fetch_add(&e->refs, 1);
}

void me_evc_unref(struct me_evc *e)
{
    if (e && atomic_fetch_sub(&e->refs, 1) == 1)
        me_evc_free(e);
}

struct me_evc **me_evc_select(struct me *me, bool (*keep)(const struct me_evc *, void *), void *ud)
{
    struct me_evc **out, *e;
    size_t i, n = 0;

    pthread_mutex_lock(&me->lock);
    out = calloc(me->count + 1, sizeof *out);
    for (i = 0; out && i < me->nbuckets; i++)
        for (e = me->buckets[i]; e; e = e->next)
            if (n < me->count && (!keep || keep(e, ud))) {
                me_evc_ref(e);
                out[n++] = e;
            }
    pthread_mutex_unlock(&me->lock);
    return out;
}

struct me_evc **me_evc_select_locked(struct me *me, bool (*keep)(const struct me_evc *, void *),
                                     void *ud)
{
    struct me_evc **all = me_evc_select(me, NULL, NULL);
    size_t i, n = 0;

    for (i = 0; all && all[i]; i++) {
        struct me_evc *e = all[i];
        bool take;
        pthread_mutex_lock(&e->lock);
        take = keep(e, ud);
        pthread_mutex_unlock(&e->lock);
        if (take)
            all[n++] = e;
        else
            me_evc_unref(e);
    }
    if (all)
        all[n] = NULL;
    return all;
}

bool me_evc_scheduled(const struct me_evc *e)
{
    struct json_object *v = json_object_object_get(e->doc, "circuit_scheduler");
    return json_object_is_type(v, json_type_array) && json_object_array_length(v) > 0;
}

void me_evc_release_all(struct me_evc **list)
{
    size_t i;
    for (i = 0; list && list[i]; i++)
        me_evc_unref(list[i]);
    free(list);
}

struct me_evc *me_evc_new(const char *id)
{
    struct me_evc *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    atomic_init(&e->refs, 1);
    snprintf(e->id, sizeof e->id, "%s", id);
    pthread_mutex_init(&e->lock, NULL);
    e->sb_priority = -1;
    e->queue_id = -2;
    return e;
}

static void me_evc_free(struct me_evc *e)
{
    if (!e)
        return;
    json_object_put(e->doc);
    me_listing_clear(e);
    me_tag_clear(&e->a.tag);
    me_tag_clear(&e->z.tag);
    me_path_clear(&e->primary);
    me_path_clear(&e->backup);
    me_path_clear(&e->current);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

int64_t me_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void me_now(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
}

void me_new_id(char out[ME_ID_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char r[ME_ID_LEN / 2];
    size_t i;

    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        /* no entropy syscall: time and address bits are enough for an id */
        uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)me_now_ms() << 20) ^ (uint64_t)(uintptr_t)out;
        for (i = 0; i < sizeof r; i++, x >>= 8)
            r[i] = (unsigned char)x;
    }
    for (i = 0; i < sizeof r; i++) {
        out[2 * i] = hex[r[i] >> 4];
        out[2 * i + 1] = hex[r[i] & 15];
    }
    out[ME_ID_LEN] = '\0';
}

/* "<dpid>:<port>" -> dpid and port. */
static int split_intf(const char *id, struct me_uni *u)
{
    const char *c = strrchr(id, ':');
    char *end;
    unsigned long p;
    size_t n;

    if (!c || c == id || strlen(id) >= sizeof u->intf)
        return -1;
    n = (size_t)(c - id);
    if (n >= sizeof u->dpid)
        return -1;
    errno = 0;
    p = strtoul(c + 1, &end, 10);
    if (errno || *end || end == c + 1 || p > UINT32_MAX)
        return -1;
    snprintf(u->intf, sizeof u->intf, "%s", id);
    memcpy(u->dpid, id, n);
    u->dpid[n] = '\0';
    u->port = (uint32_t)p;
    return 0;
}

static int load_uni(struct json_object *uni, struct me_uni *u, char *err, size_t errlen)
{
    struct json_object *iid, *tag = NULL;

    me_tag_clear(&u->tag);
    if (!json_object_object_get_ex(uni, "interface_id", &iid) ||
        !json_object_is_type(iid, json_type_string) ||
        split_intf(json_object_get_string(iid), u) != 0) {
        snprintf(err, errlen, "Error creating UNI: Invalid value");
        return -1;
    }
    json_object_object_get_ex(uni, "tag", &tag);
    return me_tag_parse(tag, &u->tag, err, errlen);
}

static bool bool_field(struct json_object *d, const char *k, bool def)
{
    struct json_object *v;
    if (!json_object_object_get_ex(d, k, &v) || !json_object_is_type(v, json_type_boolean))
        return def;
    return json_object_get_boolean(v);
}

/* Static path link ids the request left out: the link between the endpoints. */
static void fill_link_ids(struct me_path *p, const struct me_snap *snap)
{
    size_t i;
    for (i = 0; i < p->n; i++) {
        if (!p->h[i].link[0] && snap) {
            const struct me_link *l = me_snap_link_between(snap, p->h[i].a, p->h[i].b);
            if (l)
                snprintf(p->h[i].link, sizeof p->h[i].link, "%s", l->id);
        }
    }
}

int me_evc_load(struct me_evc *e, const struct me_snap *snap, char *err, size_t errlen)
{
    struct json_object *d = e->doc, *v;

    if (load_uni(json_object_object_get(d, "uni_a"), &e->a, err, errlen) != 0 ||
        load_uni(json_object_object_get(d, "uni_z"), &e->z, err, errlen) != 0)
        return -1;
    if (me_path_from_json(&e->primary, json_object_object_get(d, "primary_path"), err, errlen) ||
        me_path_from_json(&e->backup, json_object_object_get(d, "backup_path"), err, errlen))
        return -1;
    /* null: the path is e->current's (me_evc_drop_path), a PATCH keeps it */
    if (!json_object_object_get_ex(d, "current_path", &v) || v) {
        if (me_path_from_json(&e->current, v, err, errlen))
            return -1;
    }
    fill_link_ids(&e->primary, snap);
    fill_link_ids(&e->backup, snap);
    e->enabled = bool_field(d, "enabled", true);
    e->active = bool_field(d, "active", false);
    e->archived = bool_field(d, "archived", false);
    e->dynamic = bool_field(d, "dynamic_backup_path", false);
    e->intra_deployed = e->active && strcmp(e->a.dpid, e->z.dpid) == 0;
    e->sb_priority = -1;
    if (json_object_object_get_ex(d, "sb_priority", &v) && json_object_is_type(v, json_type_int))
        e->sb_priority = json_object_get_int64(v);
    e->queue_id = -2;
    if (json_object_object_get_ex(d, "queue_id", &v) && json_object_is_type(v, json_type_int))
        e->queue_id = json_object_get_int64(v);
    e->cookie = ((uint64_t)0xAA << 56) | (strtoull(e->id, NULL, 16) & 0x00ffffffffffffffULL);
    return 0;
}

/* Once written and listed, e->doc's current_path is null: e->current
 * holds the path, and the tree (five json-c objects per hop, about 3 KB)
 * is made again for each write.  At 10,000 EVCs the trees were a quarter
 * of kytosd's RSS, and a link failure that moved 2,188 EVCs the long way
 * round a ring of 20 added 130 MB of them.  The member stays, so the
 * document keeps its order. */
void me_evc_drop_path(struct me_evc *e)
{
    struct json_object *v;

    if (e->doc && json_object_object_get_ex(e->doc, "current_path", &v) && v)
        json_object_object_add(e->doc, "current_path", NULL);
}

struct json_object *me_evc_doc_copy(const struct me_evc *e)
{
    struct json_object *d = NULL, *v;

    if (json_object_deep_copy(e->doc, &d, NULL) != 0)
        return NULL;
    if (json_object_object_get_ex(d, "current_path", &v) && !v)
        json_object_object_add(d, "current_path", me_path_json(&e->current, true));
    return d;
}

/* The runtime fields into e->doc, as stored. */
static void fill_doc(struct me_evc *e, const char *now)
{
    json_object_object_add(e->doc, "active", json_object_new_boolean(e->active));
    json_object_object_add(e->doc, "enabled", json_object_new_boolean(e->enabled));
    json_object_object_add(e->doc, "archived", json_object_new_boolean(e->archived));
    json_object_object_add(e->doc, "current_path", me_path_json(&e->current, true));
    json_object_object_add(e->doc, "updated_at", json_object_new_string(now));
}

/* after a successful write: the listing's text follows the stored one */
static void stored(struct me *me, struct me_evc *e)
{
    me_listing_set(me, e);
    if (atomic_load(&e->store_pending)) {
        atomic_store(&e->store_pending, false);
        kytos_log(me->napp, KYTOS_LOG_INFO, "EVC %s stored again", e->id);
    }
}

int me_evc_put(struct me *me, struct me_evc *e, struct kytos_error *err)
{
    char now[32];
    int rc;

    me_now(now);
    fill_doc(e, now);
    rc = kytos_store_put(me->napp, ME_COLL, e->id, e->doc, err);
    if (rc == KYTOS_OK)
        stored(me, e);
    me_evc_drop_path(e);
    return rc;
}

int me_evc_put_many(struct me *me, struct me_evc *const *evcs, size_t n, struct kytos_error *err)
{
    struct kytos_write *ops;
    char now[32];
    size_t i;
    int rc;

    if (n == 0)
        return KYTOS_OK;
    if (!(ops = calloc(n, sizeof *ops)))
        return KYTOS_ENOMEM;
    me_now(now);
    for (i = 0; i < n; i++) {
        fill_doc(evcs[i], now);
        ops[i] = (struct kytos_write){.op = KYTOS_WRITE_PUT, .id = evcs[i]->id, .doc = evcs[i]->doc};
    }
    rc = kytos_store_bulk(me->napp, ME_COLL, ops, n, err);
    free(ops);
    for (i = 0; rc == KYTOS_OK && i < n; i++)
        stored(me, evcs[i]);
    for (i = 0; i < n; i++)
        me_evc_drop_path(evcs[i]);
    return rc;
}

int me_evc_sync(struct me *me, struct me_evc *e)
{
    struct kytos_error err = {0};
    int rc = me_evc_put(me, e, &err);

    if (rc != KYTOS_OK)
        kytos_log(me->napp, KYTOS_LOG_ERROR, "storing EVC %s failed: %s", e->id, err.message);
    return rc;
}
