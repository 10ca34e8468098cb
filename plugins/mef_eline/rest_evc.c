/* plugins/mef_eline/rest_evc.c - v2/evc/: create, list, get, update,
 * delete, redeploy (napps.md 3.1-3.3). */
#include "me.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- checks shared by create and update ---- */

/* The UNI's interface must exist in the topology (asked again once). */
static int check_uni_intf(struct me *me, struct me_snap **snap, struct json_object *uni)
{
    const char *id = json_object_get_string(json_object_object_get(uni, "interface_id"));
    if (id && me_snap_intf(*snap, id))
        return 0;
    me_snap_put(*snap);
    *snap = me_snapshot(me, 1);
    return id && me_snap_intf(*snap, id) ? 0 : -1;
}

static bool nonempty_array(struct json_object *v)
{
    return json_object_is_type(v, json_type_array) && json_object_array_length(v) > 0;
}

/* Python's repr of a set of switch ids, as Kytos prints them. */
static void set_repr(char *out, size_t len, const char *x, const char *y)
{
    if (!x && !y)
        snprintf(out, len, "set()");
    else if (x && y)
        snprintf(out, len, "{'%s', '%s'}", x, y);
    else
        snprintf(out, len, "{'%s'}", x ? x : y);
}

/* A static path (Kytos' Path.is_valid): known endpoints; each link leads
 * from the previous switch to exactly one new switch, never back to one
 * visited; each is a link of the topology between those two interfaces
 * (not checked for a scheduled EVC, deployed later); the last one reaches
 * switch z. */
static int check_path(const char *what, struct json_object *arr, const struct me_snap *snap,
                      const char *a, const char *z, bool scheduled, bool update,
                      struct json_object **out, char *err, size_t errlen)
{
    /* Kytos' words: "primary_path is not valid: ..." from create, "... is
     * not a valid path: ..." from EVC.update */
    const char *is_not = update ? "is not a valid path" : "is not valid";
    struct me_path p = {0};
    const char **visited = NULL;
    const char *prev = a;
    char s1[2 * ME_DPID_MAX + 16], s2[2 * ME_DPID_MAX + 16];
    size_t i, nv = 0;

    *out = NULL;
    if (me_path_from_json(&p, arr, err, errlen) != 0)
        return -1;
    for (i = 0; i < p.n; i++) {
        if (!me_snap_intf(snap, p.h[i].a)) {
            snprintf(err, errlen, "Could not get interface endpoint_a id %s", p.h[i].a);
            goto bad;
        }
        if (!me_snap_intf(snap, p.h[i].b)) {
            snprintf(err, errlen, "Could not get interface endpoint_b id %s", p.h[i].b);
            goto bad;
        }
    }
    if (p.n && !(visited = calloc(p.n + 1, sizeof *visited))) {
        snprintf(err, errlen, "out of memory");
        goto bad;
    }
    if (p.n)
        visited[nv++] = a;
    for (i = 0; i < p.n; i++) {
        const char *da = me_snap_intf(snap, p.h[i].a)->dpid;
        const char *db = me_snap_intf(snap, p.h[i].b)->dpid;
        const struct me_link *l = me_snap_link_between(snap, p.h[i].a, p.h[i].b);
        /* {da, db} - {prev}: one switch, or the link is not a next hop */
        const char *x = strcmp(da, prev) ? da : NULL, *y = strcmp(db, prev) ? db : NULL;
        size_t k;
        if (x && y && strcmp(x, y) == 0)
            y = NULL;
        if (!x == !y) {
            set_repr(s1, sizeof s1, prev, NULL);
            set_repr(s2, sizeof s2, x, y);
            snprintf(err, errlen,
                     "%s %s: Previous switch %s is not connected to current link with switches %s.",
                     what, is_not, s1, s2);
            goto bad;
        }
        if (!x)
            x = y;
        for (k = 0; k < nv; k++) {
            if (strcmp(visited[k], x) == 0) {
                set_repr(s1, sizeof s1, x, NULL);
                snprintf(err, errlen,
                         "%s %s: Loop detected in path, switch %s was visited more than once.",
                         what, is_not, s1);
                goto bad;
            }
        }
        if (!scheduled && (!l || (p.h[i].link[0] && strcmp(p.h[i].link, l->id) != 0))) {
            snprintf(err, errlen, "%s %s: Link %s-%s is not available.", what, is_not, p.h[i].a,
                     p.h[i].b);
            goto bad;
        }
        if (l && !p.h[i].link[0])
            snprintf(p.h[i].link, sizeof p.h[i].link, "%s", l->id);
        visited[nv++] = prev = x;
    }
    if (p.n && strcmp(prev, z) != 0) {
        snprintf(err, errlen, "%s %s: Last link does not contain uni_z switch", what, is_not);
        goto bad;
    }
    free(visited);
    *out = me_path_json(&p, false);
    me_path_clear(&p);
    return 0;
bad:
    free(visited);
    me_path_clear(&p);
    return -1;
}

static const char *uni_dpid(struct json_object *uni, char *buf, size_t len)
{
    const char *id = json_object_get_string(json_object_object_get(uni, "interface_id"));
    const char *c = id ? strrchr(id, ':') : NULL;
    size_t n = c ? (size_t)(c - id) : 0;
    if (n >= len)
        n = len - 1;
    if (id)
        memcpy(buf, id, n);
    buf[n] = '\0';
    return buf;
}

/* A copy of a part of a request body, for an EVC document: a reference
 * would share the object between the document (read and published under
 * the EVC's lock, on any thread) and the body (freed with the request, on
 * whichever thread drops it last), and json-c's reference counts are not
 * atomic (ThreadSanitizer: a publish's copy of uni_a raced with its free).
 * NULL (JSON null) when out of memory. */
struct json_object *me_own(struct json_object *v)
{
    struct json_object *c = NULL;
    if (v && json_object_deep_copy(v, &c, NULL) != 0) {
        json_object_put(c);
        c = NULL;
    }
    return c;
}

static struct json_object *copy_or(struct json_object *body, const char *k,
                                   struct json_object *def)
{
    struct json_object *v;
    if (json_object_object_get_ex(body, k, &v) && v) {
        json_object_put(def);
        return me_own(v);
    }
    return def;
}

/* The stored document of a new EVC (EVCBaseDoc), from a checked body. */
static struct json_object *new_doc(const char *id, struct json_object *body,
                                   struct json_object *primary, struct json_object *backup,
                                   struct json_object *sched)
{
    struct json_object *d = json_object_new_object(), *v;
    char now[32];

    me_now(now);
    json_object_object_add(d, "id", json_object_new_string(id));
    json_object_object_add(d, "name", copy_or(body, "name", json_object_new_string("")));
    json_object_object_add(d, "uni_a", copy_or(body, "uni_a", NULL));
    json_object_object_add(d, "uni_z", copy_or(body, "uni_z", NULL));
    json_object_object_add(d, "request_time", json_object_new_string(now));
    json_object_object_add(d, "start_date", copy_or(body, "start_date", json_object_new_string(now)));
    if (json_object_object_get_ex(body, "end_date", &v) && v)
        json_object_object_add(d, "end_date", me_own(v));
    if (json_object_object_get_ex(body, "frequency", &v) && v)
        json_object_object_add(d, "frequency", me_own(v));
    json_object_object_add(d, "creation_time", json_object_new_string(now));
    json_object_object_add(d, "updated_at", json_object_new_string(now));
    json_object_object_add(d, "queue_id", copy_or(body, "queue_id", NULL));
    json_object_object_add(d, "bandwidth", copy_or(body, "bandwidth", json_object_new_int(0)));
    json_object_object_add(d, "primary_path", primary ? primary : json_object_new_array());
    json_object_object_add(d, "backup_path", backup ? backup : json_object_new_array());
    json_object_object_add(d, "current_path", json_object_new_array());
    json_object_object_add(d, "failover_path", json_object_new_array());
    json_object_object_add(d, "primary_links", copy_or(body, "primary_links", json_object_new_array()));
    json_object_object_add(d, "backup_links", copy_or(body, "backup_links", json_object_new_array()));
    json_object_object_add(d, "dynamic_backup_path",
                           copy_or(body, "dynamic_backup_path", json_object_new_boolean(0)));
    json_object_object_add(d, "primary_constraints",
                           copy_or(body, "primary_constraints", json_object_new_object()));
    json_object_object_add(d, "secondary_constraints",
                           copy_or(body, "secondary_constraints", json_object_new_object()));
    if (json_object_object_get_ex(body, "sb_priority", &v) && v)
        json_object_object_add(d, "sb_priority", me_own(v));
    json_object_object_add(d, "service_level", copy_or(body, "service_level", json_object_new_int(0)));
    /* checked, each with an id, as CircuitSchedule does (me_sched_list) */
    json_object_object_add(d, "circuit_scheduler", sched ? sched : json_object_new_array());
    json_object_object_add(d, "archived", json_object_new_boolean(0));
    json_object_object_add(d, "metadata", copy_or(body, "metadata", json_object_new_object()));
    json_object_object_add(d, "active", json_object_new_boolean(0));
    json_object_object_add(d, "enabled", copy_or(body, "enabled", json_object_new_boolean(1)));
    json_object_object_add(d, "max_paths", copy_or(body, "max_paths", json_object_new_int(2)));
    json_object_object_add(d, "execution_rounds", json_object_new_int(0));
    return d;
}

static int is_list_tag(struct json_object *uni)
{
    struct json_object *tag, *v;
    return json_object_object_get_ex(uni, "tag", &tag) && json_object_object_get_ex(tag, "value", &v) &&
           json_object_is_type(v, json_type_array);
}

static int has_tag(struct json_object *uni)
{
    struct json_object *tag;
    return json_object_object_get_ex(uni, "tag", &tag) && tag != NULL;
}

/* Reserve the UNI tags of e (and the EPL ownership).  0, 409 or 400. */
static unsigned reserve_unis(struct me *me, struct me_evc *e, bool a_none, bool z_none, char *err,
                             size_t errlen)
{
    const char *owner;
    struct me_evc *other;

    pthread_mutex_lock(&me->lock);
    /* an EPL UNI already used with no tag by another live EVC: 409 */
    if ((a_none && (owner = me_tagtab_epl_owner(me->tags, e->a.intf))) ||
        (z_none && (owner = me_tagtab_epl_owner(me->tags, e->z.intf)))) {
        other = me_evc_find(me, owner);
        snprintf(err, errlen, "UNI with interface %s is duplicated with EVC(%s, %s).",
                 a_none && me_tagtab_epl_owner(me->tags, e->a.intf) ? e->a.intf : e->z.intf, owner,
                 other ? json_object_get_string(json_object_object_get(other->doc, "name")) : "");
        pthread_mutex_unlock(&me->lock);
        return 409;
    }
    if (me_tagtab_use_uni(me->tags, e->a.intf, &e->a.tag, err, errlen) != 0) {
        pthread_mutex_unlock(&me->lock);
        return 400;
    }
    if (me_tagtab_use_uni(me->tags, e->z.intf, &e->z.tag, err, errlen) != 0) {
        me_tagtab_free_uni(me->tags, e->a.intf, &e->a.tag);
        pthread_mutex_unlock(&me->lock);
        return 400;
    }
    if (a_none)
        me_tagtab_set_epl_owner(me->tags, e->a.intf, e->id);
    if (z_none)
        me_tagtab_set_epl_owner(me->tags, e->z.intf, e->id);
    pthread_mutex_unlock(&me->lock);
    return 0;
}

/* Free the UNI reservations a and z of EVC id (and its EPL ownership). */
static void release_uni_pair(struct me *me, const char *id, const struct me_uni *a,
                             const struct me_uni *z)
{
    const struct me_uni *u[2] = {a, z};
    size_t i;

    pthread_mutex_lock(&me->lock);
    for (i = 0; i < 2; i++) {
        me_tagtab_free_uni(me->tags, u[i]->intf, &u[i]->tag);
        if (u[i]->tag.kind == ME_TAG_NONE) {
            const char *o = me_tagtab_epl_owner(me->tags, u[i]->intf);
            if (o && strcmp(o, id) == 0)
                me_tagtab_set_epl_owner(me->tags, u[i]->intf, NULL);
        }
    }
    pthread_mutex_unlock(&me->lock);
}

static void release_unis(struct me *me, struct me_evc *e)
{
    release_uni_pair(me, e->id, &e->a, &e->z);
}

/* ---- POST v2/evc/ ---- */

static int h_create(kytos_req *req, void *ud)
{
    struct me *me = ud;
    struct json_object *body = kytos_req_json(req), *ua, *uz, *pp = NULL, *bp = NULL, *v, *out;
    struct json_object *sched = NULL;
    struct me_snap *snap;
    struct me_tag ta, tz;
    struct me_evc *e = NULL;
    char err[512], id[ME_ID_LEN + 1], da[ME_DPID_MAX], dz[ME_DPID_MAX];
    bool deployed = false, dynamic, scheduled;
    unsigned st;

    if (!json_object_is_type(body, json_type_object))
        return kytos_resp_error(req, 400, "The request body contains invalid API data.");
    ua = json_object_object_get(body, "uni_a");
    uz = json_object_object_get(body, "uni_z");

    /* 1. UNIs: known interfaces, valid tags */
    snap = me_snapshot(me, 0);
    if (check_uni_intf(me, &snap, ua) != 0 || check_uni_intf(me, &snap, uz) != 0) {
        me_snap_put(snap);
        return kytos_resp_error(req, 400, "Error creating UNI: Invalid value");
    }
    if (me_tag_parse(json_object_object_get(ua, "tag"), &ta, err, sizeof err) != 0) {
        me_snap_put(snap);
        return kytos_resp_error(req, 400, "%s", err);
    }
    me_tag_clear(&ta);
    if (me_tag_parse(json_object_object_get(uz, "tag"), &tz, err, sizeof err) != 0) {
        me_snap_put(snap);
        return kytos_resp_error(req, 400, "%s", err);
    }
    me_tag_clear(&tz);
    uni_dpid(ua, da, sizeof da);
    uni_dpid(uz, dz, sizeof dz);

    /* 2. static paths chain from uni_a's switch to uni_z's */
    scheduled = nonempty_array(json_object_object_get(body, "circuit_scheduler"));
    if (check_path("primary_path", json_object_object_get(body, "primary_path"), snap, da, dz,
                   scheduled, false, &pp, err, sizeof err) != 0 ||
        check_path("backup_path", json_object_object_get(body, "backup_path"), snap, da, dz,
                   scheduled, false, &bp, err, sizeof err) != 0) {
        me_snap_put(snap);
        json_object_put(pp);
        return kytos_resp_error(req, 400, "%s", err);
    }

    /* 3. tag lists on both UNIs or on neither */
    if (is_list_tag(ua) != is_list_tag(uz)) {
        me_snap_put(snap);
        json_object_put(pp);
        json_object_put(bp);
        return kytos_resp_error(req, 400, "UNI_A and UNI_Z tag lists should be the same.");
    }

    /* 4. different switches need a primary path or dynamic paths */
    dynamic = json_object_object_get_ex(body, "dynamic_backup_path", &v) && json_object_get_boolean(v);
    if (strcmp(da, dz) != 0 && json_object_array_length(pp) == 0 && !dynamic) {
        me_snap_put(snap);
        json_object_put(pp);
        json_object_put(bp);
        return kytos_resp_error(req, 400, "The EVC must have a primary path or allow dynamic paths.");
    }

    /* schedules: the code checks of sched_check.c (one trigger, known action) */
    if (me_sched_list(json_object_object_get(body, "circuit_scheduler"), &sched, err,
                      sizeof err) != 0) {
        me_snap_put(snap);
        json_object_put(pp);
        json_object_put(bp);
        return kytos_resp_error(req, 400, "%s", err);
    }

    me_new_id(id);
    e = me_evc_new(id);
    if (!e) {
        me_snap_put(snap);
        json_object_put(pp);
        json_object_put(bp);
        json_object_put(sched);
        return KYTOS_ENOMEM;
    }
    e->doc = new_doc(id, body, pp, bp, sched);
    if (me_evc_load(e, snap, err, sizeof err) != 0) {
        me_snap_put(snap);
        me_evc_unref(e);
        return kytos_resp_error(req, 400, "%s", err);
    }
    me_snap_put(snap);
    if (e->a.tag.kind == ME_TAG_RANGES && !me_tag_equal(&e->a.tag, &e->z.tag)) {
        me_evc_unref(e);
        return kytos_resp_error(req, 400, "UNI_A and UNI_Z tag lists should be the same.");
    }

    /* 5-6. no duplicated EPL UNI (409); the UNI tags are free (400) */
    st = reserve_unis(me, e, !has_tag(ua), !has_tag(uz), err, sizeof err);
    if (st) {
        me_evc_unref(e);
        return kytos_resp_error(req, st, "%s", err);
    }

    pthread_mutex_lock(&e->lock);
    pthread_mutex_lock(&me->lock);
    me_evc_insert(me, e);   /* the map's reference */
    me_evc_ref(e);          /* ours */
    pthread_mutex_unlock(&me->lock);

    /* 7. deploy now unless scheduled, store, notify */
    scheduled = me_evc_scheduled(e);
    if (!scheduled && e->enabled)
        deployed = me_deploy(me, e, NULL, 0);
    if (me_evc_sync(me, e) != KYTOS_OK) {
        /* not stored: undo everything */
        me_undeploy(me, e);
        release_unis(me, e);
        e->archived = true;
        pthread_mutex_unlock(&e->lock);
        pthread_mutex_lock(&me->lock);
        if (me_evc_find(me, e->id) == e)
            me_evc_remove(me, e);
        pthread_mutex_unlock(&me->lock);
        me_evc_unref(e);
        return kytos_resp_error(req, 500, "Failed to store the EVC");
    }
    me_sched_track_all(me, e->id, json_object_object_get(e->doc, "circuit_scheduler"), false);
    me_publish(me, "created", e);
    pthread_mutex_unlock(&e->lock);
    me_evc_unref(e);

    out = json_object_new_object();
    json_object_object_add(out, "circuit_id", json_object_new_string(id));
    json_object_object_add(out, "deployed", json_object_new_boolean(deployed));
    return kytos_resp_json_take(req, 201, out);
}

/* ---- GET v2/evc/ ---- */

#define MAX_QUERY 64

/* A metadata filter value: int, true/false/null (any case), else the string. */
static struct json_object *query_value(const char *s)
{
    char *end;
    long long v;

    if (!s)
        return NULL;
    if (*s) {
        errno = 0;
        v = strtoll(s, &end, 10);
        if (!errno && *end == '\0')
            return json_object_new_int64(v);
    }
    if (strcasecmp(s, "true") == 0)
        return json_object_new_boolean(1);
    if (strcasecmp(s, "false") == 0)
        return json_object_new_boolean(0);
    if (strcasecmp(s, "null") == 0)
        return NULL;
    return json_object_new_string(s);
}

static int h_list(kytos_req *req, void *ud)
{
    struct me *me = ud;
    const char *archived = kytos_req_query(req, "archived");
    struct json_object *filter = json_object_new_object(), *out, *doc, *proj;
    struct kytos_error err = {0};
    kytos_cursor *cur = NULL;
    int rc;

    {
        /* the plain listing (live EVCs, no metadata filter): from memory */
        const char *names[MAX_QUERY];
        size_t i, n = kytos_req_query_all(req, NULL, names, MAX_QUERY);
        bool plain = !archived || (strcasecmp(archived, "null") != 0 &&
                                   strcasecmp(archived, "true") != 0);
        for (i = 0; plain && i < n && i < MAX_QUERY; i++)
            if (names[i] && strncmp(names[i], "metadata.", 9) == 0 && names[i][9])
                plain = false;
        if (plain && n <= MAX_QUERY && !atomic_load(&me->listing_partial)) {
            json_object_put(filter);
            return me_listing_answer(me, req);
        }
    }
    if (!archived || strcasecmp(archived, "null") != 0)
        json_object_object_add(filter, "archived",
                               json_object_new_boolean(archived && strcasecmp(archived, "true") == 0));
    /* metadata.<key>=<value>: an int when it parses, true/false/null, else
     * the string (ELineController.get_circuits) */
    {
        const char *names[MAX_QUERY];
        size_t i, n = kytos_req_query_all(req, NULL, names, MAX_QUERY);
        for (i = 0; i < n && i < MAX_QUERY; i++) {
            if (names[i] && strncmp(names[i], "metadata.", 9) == 0 && names[i][9])
                json_object_object_add(filter, names[i],
                                       query_value(kytos_req_query(req, names[i])));
        }
    }
    proj = json_object_new_object();
    json_object_object_add(proj, "_id", json_object_new_int(0));
    rc = kytos_store_find(me->napp, ME_COLL,
                          &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                               .filter = filter,
                                               .projection = proj},
                          &cur, &err);
    json_object_put(filter);
    json_object_put(proj);
    if (rc != KYTOS_OK)
        return kytos_resp_error(req, 500, "Failed to read EVCs: %s", err.message);
    out = json_object_new_object();
    while ((rc = kytos_cursor_next(cur, &doc, &err)) == 1) {
        const char *id = json_object_get_string(json_object_object_get(doc, "id"));
        if (id)
            json_object_object_add(out, id, doc);
        else
            json_object_put(doc);
    }
    kytos_cursor_free(cur);
    if (rc < 0) {
        json_object_put(out);
        return kytos_resp_error(req, 500, "Failed to read EVCs: %s", err.message);
    }
    return kytos_resp_json_take(req, 200, out);
}

/* ---- GET v2/evc/{circuit_id} ---- */

static int h_get(kytos_req *req, void *ud)
{
    struct me *me = ud;
    const char *id = kytos_req_param(req, "circuit_id");
    struct json_object *doc = NULL;
    struct kytos_error err = {0};
    int rc = kytos_store_get(me->napp, ME_COLL, id, &doc, &err);

    if (rc == KYTOS_ENOTFOUND || (rc == KYTOS_OK && !doc))
        return kytos_resp_error(req, 404, "circuit_id %s not found", id);
    if (rc != KYTOS_OK)
        return kytos_resp_error(req, 500, "Failed to read the EVC: %s", err.message);
    json_object_object_del(doc, "_id");
    return kytos_resp_json_take(req, 200, doc);
}

/* ---- PATCH v2/evc/{circuit_id} ---- */

static const char *const redeploy_keys[] = {
    "uni_a", "uni_z", "primary_path", "backup_path", "dynamic_backup_path", "queue_id",
    "sb_priority", "primary_constraints", "secondary_constraints", "primary_links",
    "backup_links", "service_level",
};

static bool needs_redeploy(const char *k)
{
    size_t i;
    for (i = 0; i < sizeof redeploy_keys / sizeof redeploy_keys[0]; i++)
        if (strcmp(k, redeploy_keys[i]) == 0)
            return true;
    return false;
}

static struct json_object *doc_view(const struct me_evc *e)
{
    struct json_object *d = me_evc_doc_copy(e);
    if (d)
        json_object_object_del(d, "_id");
    return d;
}

/* body's member key, else doc's. */
static struct json_object *new_or_old(struct json_object *body, struct json_object *doc,
                                      const char *key)
{
    struct json_object *v;
    return json_object_object_get_ex(body, key, &v) ? v : json_object_object_get(doc, key);
}

/* The tag lists of both UNIs, or of neither, and the same; a primary path
 * or dynamic paths between two switches.  0, or -1 with err. */
static int update_rules(struct json_object *body, struct json_object *doc, const char *da,
                        const char *dz, char *err, size_t errlen)
{
    struct json_object *ua = new_or_old(body, doc, "uni_a"), *uz = new_or_old(body, doc, "uni_z");
    bool same = is_list_tag(ua) == is_list_tag(uz);

    if (same && is_list_tag(ua)) {
        struct me_tag ta = {0}, tz = {0};
        char ignore[256];
        /* (a bad tag is reported when the document is loaded) */
        same = me_tag_parse(json_object_object_get(ua, "tag"), &ta, ignore, sizeof ignore) != 0 ||
               me_tag_parse(json_object_object_get(uz, "tag"), &tz, ignore, sizeof ignore) != 0 ||
               me_tag_equal(&ta, &tz);
        me_tag_clear(&ta);
        me_tag_clear(&tz);
    }
    if (!same) {
        snprintf(err, errlen, "UNI_A and UNI_Z tag lists should be the same.");
        return -1;
    }
    if (strcmp(da, dz) != 0 && !nonempty_array(new_or_old(body, doc, "primary_path")) &&
        !json_object_get_boolean(new_or_old(body, doc, "dynamic_backup_path"))) {
        snprintf(err, errlen, "The EVC must have a primary path or allow dynamic paths.");
        return -1;
    }
    return 0;
}

/* PATCH refused: e back to the document old (taken over), its runtime
 * reloaded and, after a UNI change, the old UNI tags reserved again. */
static void restore_update(struct me *me, struct me_evc *e, struct json_object *old,
                           const struct me_snap *snap, bool uni_change)
{
    char ignore[64];

    json_object_put(e->doc);
    e->doc = old;
    me_evc_load(e, snap, ignore, sizeof ignore);
    if (uni_change)
        reserve_unis(me, e, e->a.tag.kind == ME_TAG_NONE, e->z.tag.kind == ME_TAG_NONE, ignore,
                     sizeof ignore);
}

static int h_update(kytos_req *req, void *ud)
{
    struct me *me = ud;
    const char *id = kytos_req_param(req, "circuit_id");
    struct json_object *body = kytos_req_json(req), *old = NULL, *out, *v, *sched = NULL;
    struct me_evc *e = me_evc_get(me, id);
    struct me_snap *snap = NULL;
    struct me_tag old_a = {0}, old_z = {0};
    char err[512], da[ME_DPID_MAX], dz[ME_DPID_MAX];
    bool redeploy = false, uni_change, enable_set = false, enable = false, redeployed = false;
    bool moved = false;
    unsigned st = 0;

    if (!e)
        return kytos_resp_error(req, 404, "circuit_id %s not found", id);
    if (!json_object_is_type(body, json_type_object)) {
        me_evc_unref(e);
        return kytos_resp_error(req, 400, "The request body contains invalid API data.");
    }
    pthread_mutex_lock(&e->lock);
    if (e->archived) {
        st = 404;
        snprintf(err, sizeof err, "circuit_id %s not found", id);
        goto done;
    }
    snap = me_snapshot(me, 0);
    uni_change = json_object_object_get_ex(body, "uni_a", NULL) ||
                 json_object_object_get_ex(body, "uni_z", NULL);
    if (uni_change) {
        if ((json_object_object_get_ex(body, "uni_a", &v) && check_uni_intf(me, &snap, v) != 0) ||
            (json_object_object_get_ex(body, "uni_z", &v) && check_uni_intf(me, &snap, v) != 0)) {
            st = 400;
            snprintf(err, sizeof err, "Error creating UNI: Invalid value");
            goto done;
        }
    }
    if (json_object_object_get_ex(body, "circuit_scheduler", &v) &&
        me_sched_list(v, &sched, err, sizeof err) != 0) {
        st = 400;
        goto done;
    }
    /* apply on a copy of the document, then reload the runtime from it;
     * the copy with its current path, which a refused write restores */
    if (!(old = me_evc_doc_copy(e))) {
        st = 500;
        snprintf(err, sizeof err, "out of memory");
        goto done;
    }
    json_object_object_foreach(body, key, val) {
        if (strcmp(key, "enabled") == 0) {
            enable_set = true;
            enable = json_object_get_boolean(val);
        }
        if (needs_redeploy(key))
            redeploy = true;
    }
    uni_dpid(json_object_object_get(json_object_object_get_ex(body, "uni_a", &v) ? body : e->doc,
                                    "uni_a"), da, sizeof da);
    uni_dpid(json_object_object_get(json_object_object_get_ex(body, "uni_z", &v) ? body : e->doc,
                                    "uni_z"), dz, sizeof dz);
    /* Kytos' EVC.update checks what create checks, on the values the EVC
     * would have, before the paths and before any reservation moves */
    if (update_rules(body, e->doc, da, dz, err, sizeof err) != 0) {
        st = 400;
        goto done;
    }
    {
        static const char *const paths[] = {"primary_path", "backup_path"};
        struct json_object *checked[2] = {NULL, NULL}, *arr;
        size_t i;
        for (i = 0; i < 2; i++) {
            if (json_object_object_get_ex(body, paths[i], &arr) &&
                /* (Kytos' update checks the links even for a scheduled EVC) */
                check_path(paths[i], arr, snap, da, dz, false, true, &checked[i], err, sizeof err) != 0) {
                json_object_put(checked[0]);
                st = 400;
                goto done;
            }
        }
        /* every check passed: apply the body */
        json_object_object_foreach(body, k2, v2) {
            if (strcmp(k2, "primary_path") && strcmp(k2, "backup_path") &&
                strcmp(k2, "circuit_scheduler"))
                json_object_object_add(e->doc, k2, me_own(v2));
        }
        if (sched)
            json_object_object_add(e->doc, "circuit_scheduler", json_object_get(sched));
        for (i = 0; i < 2; i++)
            if (checked[i])
                json_object_object_add(e->doc, paths[i], checked[i]);
    }
    if (uni_change) {
        /* swap the UNI reservations: free the old, take the new */
        old_a = e->a.tag;
        old_z = e->z.tag;
        e->a.tag = (struct me_tag){0};
        e->z.tag = (struct me_tag){0};
        {
            struct me_uni oa = e->a, oz = e->z;
            oa.tag = old_a;
            oz.tag = old_z;
            release_uni_pair(me, e->id, &oa, &oz);
        }
    }
    if (me_evc_load(e, snap, err, sizeof err) != 0) {
        st = 400;
    } else if (uni_change) {
        st = reserve_unis(me, e, !has_tag(json_object_object_get(e->doc, "uni_a")),
                          !has_tag(json_object_object_get(e->doc, "uni_z")), err, sizeof err);
    }
    if (st) {
        restore_update(me, e, old, snap, uni_change);
        old = NULL;
        goto done;
    }
    if (e->active) {
        if (enable_set && !enable) {
            me_undeploy(me, e);
            moved = true;
        } else if (redeploy) {
            me_undeploy(me, e);
            redeployed = me_deploy(me, e, NULL, 0);
            moved = true;
        }
    } else if (e->enabled && (enable_set || redeploy)) {
        redeployed = me_deploy(me, e, NULL, 0);
        moved = true;
    }
    if (me_evc_sync(me, e) != KYTOS_OK) {
        /* not stored: back to the previous document, runtime, reservations
         * and deployment (the path it had, with its S-VLANs) */
        struct me_path prev;
        if (moved)
            me_undeploy(me, e);
        if (uni_change)
            release_unis(me, e);
        restore_update(me, e, old, snap, uni_change);
        old = NULL;
        if (moved && e->active) {
            /* loaded from the document: neither its S-VLANs nor its flows are there */
            prev = e->current;
            e->current = (struct me_path){0};
            e->active = e->intra_deployed = false;
            if (!me_deploy_on(me, e, &prev)) {
                kytos_log(me->napp, KYTOS_LOG_WARNING, "EVC(%s) is down: its path was not restored",
                          e->id);
                me_evc_save(me, e);   /* the store still says active: retried until it takes it */
            }
            me_path_clear(&prev);
        }
        st = 500;
        snprintf(err, sizeof err, "Failed to store the EVC");
        goto done;
    }
    if (sched) {   /* the new list replaces the old one in the index */
        me_sched_untrack_evc(me, e->id);
        me_sched_track_all(me, e->id, sched, false);
    }
    me_publish(me, "updated", e);
done:
    json_object_put(sched);
    if (st) {
        pthread_mutex_unlock(&e->lock);
        me_snap_put(snap);
        json_object_put(old);
        me_tag_clear(&old_a);
        me_tag_clear(&old_z);
        me_evc_unref(e);
        return kytos_resp_error(req, st, "%s", err);
    }
    out = json_object_new_object();
    json_object_object_add(out, e->id, doc_view(e));
    json_object_object_add(out, "redeployed", json_object_new_boolean(redeployed));
    pthread_mutex_unlock(&e->lock);
    me_snap_put(snap);
    json_object_put(old);
    me_tag_clear(&old_a);
    me_tag_clear(&old_z);
    me_evc_unref(e);
    return kytos_resp_json_take(req, 200, out);
}

/* ---- DELETE v2/evc/{circuit_id} ---- */

static int h_delete(kytos_req *req, void *ud)
{
    struct me *me = ud;
    const char *id = kytos_req_param(req, "circuit_id");
    struct me_evc *e = me_evc_get(me, id);
    struct json_object *out, *old = NULL;
    struct me_path cur;
    bool was_enabled, was_active;
    char text[128];
    int rc;

    if (!e)
        return kytos_resp_error(req, 404, "circuit_id %s not found", id);
    pthread_mutex_lock(&e->lock);
    if (e->archived) {
        pthread_mutex_unlock(&e->lock);
        me_evc_unref(e);
        return kytos_resp_error(req, 404, "Circuit %s already removed", id);
    }
    /* store the removal first: when the store refuses it, the EVC stays
     * live and deployed as it was */
    if (json_object_deep_copy(e->doc, &old, NULL) != 0) {
        pthread_mutex_unlock(&e->lock);
        me_evc_unref(e);
        return KYTOS_ENOMEM;
    }
    cur = e->current;
    was_enabled = e->enabled;
    was_active = e->active;
    if (cur.n || e->intra_deployed || e->active) {   /* as me_undeploy marks it */
        char now[32];
        me_now(now);
        json_object_object_add(e->doc, "last_removed_at", json_object_new_string(now));
    }
    e->current = (struct me_path){0};
    e->enabled = false;
    e->active = false;
    e->archived = true;
    rc = me_evc_sync(me, e);
    e->current = cur;
    e->enabled = was_enabled;
    e->active = was_active;
    e->archived = false;
    if (rc != KYTOS_OK) {
        json_object_put(e->doc);
        e->doc = old;
        pthread_mutex_unlock(&e->lock);
        me_evc_unref(e);
        return kytos_resp_error(req, 500, "Failed to store the EVC");
    }
    json_object_put(old);
    me_undeploy(me, e);
    release_unis(me, e);
    e->enabled = false;
    e->active = false;
    e->archived = true;
    me_publish(me, "deleted", e);
    pthread_mutex_unlock(&e->lock);
    pthread_mutex_lock(&me->lock);
    if (me_evc_find(me, id) == e)
        me_evc_remove(me, e);
    pthread_mutex_unlock(&me->lock);
    me_sched_untrack_evc(me, e->id);
    me_evc_unref(e);
    out = json_object_new_object();
    snprintf(text, sizeof text, "Circuit %s removed", id);
    json_object_object_add(out, "response", json_object_new_string(text));
    return kytos_resp_json_take(req, 200, out);
}

/* ---- PATCH v2/evc/{circuit_id}/redeploy ---- */

static int h_redeploy(kytos_req *req, void *ud)
{
    struct me *me = ud;
    const char *id = kytos_req_param(req, "circuit_id");
    const char *q = kytos_req_query(req, "try_avoid_same_s_vlan");
    struct me_evc *e;
    struct me_path old = {0};
    struct json_object *out, *doc = NULL;
    bool avoid, deployed = false, was_active, stored = true;
    char text[128];

    /* checked first, as Kytos does; "true" unless asked otherwise */
    if (q && strcasecmp(q, "true") != 0 && strcasecmp(q, "false") != 0)
        return kytos_resp_error(req, 400, "Parameter try_avoid_same_s_vlan has an invalid value.");
    avoid = !q || strcasecmp(q, "true") == 0;
    if (!(e = me_evc_get(me, id)))
        return kytos_resp_error(req, 404, "circuit_id %s not found", id);
    pthread_mutex_lock(&e->lock);
    if (e->enabled && !e->archived) {
        /* the old path with its S-VLANs: for the new path to pick others,
         * and to go back to when the store refuses the new one */
        if (json_object_deep_copy(e->doc, &doc, NULL) != 0 ||
            (e->current.n && !(old.h = malloc(e->current.n * sizeof *old.h)))) {
            pthread_mutex_unlock(&e->lock);
            json_object_put(doc);
            me_evc_unref(e);
            return KYTOS_ENOMEM;
        }
        if (e->current.n) {
            memcpy(old.h, e->current.h, e->current.n * sizeof *old.h);
            old.n = e->current.n;
        }
        was_active = e->active;
        me_undeploy(me, e);
        deployed = me_deploy_avoiding_tags(me, e, avoid ? &old : NULL);
        if (me_evc_sync(me, e) != KYTOS_OK) {
            stored = false;
            me_undeploy(me, e);
            bool lost = was_active && !me_deploy_on(me, e, &old);
            json_object_put(e->doc);
            e->doc = doc;
            doc = NULL;
            if (lost) {
                kytos_log(me->napp, KYTOS_LOG_WARNING, "EVC(%s) is down: its path was not restored",
                          e->id);
                me_evc_save(me, e);   /* the store still says active: retried until it takes it */
            }
        }
    }
    pthread_mutex_unlock(&e->lock);
    json_object_put(doc);
    me_path_clear(&old);
    me_evc_unref(e);
    if (!stored)
        return kytos_resp_error(req, 500, "Failed to store the EVC");
    /* Kytos: 409 when the EVC is disabled or could not be deployed */
    if (deployed)
        snprintf(text, sizeof text, "Circuit %s redeploy received.", id);
    else
        snprintf(text, sizeof text, "Circuit %s is disabled.", id);
    out = json_object_new_object();
    json_object_object_add(out, "response", json_object_new_string(text));
    return kytos_resp_json_take(req, deployed ? 202 : 409, out);
}

int me_rest_evc_register(struct me *me)
{
    static const struct me_route routes[] = {
        {"GET", "v2/evc/", h_list, KYTOS_ROUTE_NO_VALIDATE},
        {"POST", "v2/evc/", h_create, KYTOS_ROUTE_VALIDATE},
        {"GET", "v2/evc/{circuit_id}", h_get, KYTOS_ROUTE_NO_VALIDATE},
        {"PATCH", "v2/evc/{circuit_id}", h_update, KYTOS_ROUTE_VALIDATE},
        {"DELETE", "v2/evc/{circuit_id}", h_delete, KYTOS_ROUTE_NO_VALIDATE},
        {"PATCH", "v2/evc/{circuit_id}/redeploy", h_redeploy, KYTOS_ROUTE_NO_VALIDATE},
    };

    return me_routes_add(me, routes, sizeof routes / sizeof routes[0]);
}
