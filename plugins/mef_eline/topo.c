/* plugins/mef_eline/topo.c - mef_eline's view of the topology: a snapshot
 * built from topology's GET v3/ tree (or its kytos/topology.updated event),
 * interface and link look-ups, and shortest paths by hop count. */
#include "me.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REFRESH_MIN_MS 50

struct me_snap_x {
    struct me_snap s;
    char (*nodes)[ME_DPID_MAX];   /* sorted unique dpids */
    size_t nnodes;
    int *link_na, *link_nb;       /* node of each link end */
};

static int intf_cmp(const void *a, const void *b)
{
    return strcmp(((const struct me_intf *)a)->id, ((const struct me_intf *)b)->id);
}

static int link_cmp(const void *a, const void *b)
{
    return strcmp(((const struct me_link *)a)->id, ((const struct me_link *)b)->id);
}

static int node_cmp(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

void me_snap_put(struct me_snap *s)
{
    struct me_snap_x *x = (struct me_snap_x *)s;
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    free(s->intfs);
    free(s->links);
    free(x->nodes);
    free(x->link_na);
    free(x->link_nb);
    free(x);
}

static bool get_bool(struct json_object *o, const char *k)
{
    struct json_object *v;
    return json_object_object_get_ex(o, k, &v) && json_object_get_boolean(v);
}

static const char *get_str(struct json_object *o, const char *k)
{
    struct json_object *v;
    if (json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

static int node_of(const struct me_snap_x *x, const char *dpid)
{
    const char(*p)[ME_DPID_MAX] = bsearch(dpid, x->nodes, x->nnodes, sizeof *x->nodes, node_cmp);
    return p ? (int)(p - x->nodes) : -1;
}

/* The endpoint names another link: a link its interface has left
 * (re-cabled).  Topology shows it DOWN ("mismatched_link") and Kytos'
 * Path.is_valid refuses it, so no path may use it: it is left out. */
static bool left_by(struct json_object *endpoint, const char *link_id)
{
    const char *l = get_str(endpoint, "link");
    return l && strcmp(l, link_id) != 0;
}

struct me_snap *me_snap_build(struct json_object *tree)
{
    struct json_object *sws = NULL, *lks = NULL;
    struct me_snap_x *x = calloc(1, sizeof *x);
    struct me_snap *s;
    size_t ni = 0, nl = 0, i, k;

    if (!x)
        return NULL;
    s = &x->s;
    atomic_init(&s->refs, 1);
    json_object_object_get_ex(tree, "switches", &sws);
    json_object_object_get_ex(tree, "links", &lks);
    if (json_object_is_type(sws, json_type_object)) {
        json_object_object_foreach(sws, dpid, sw) {
            struct json_object *intfs;
            (void)dpid;
            if (json_object_object_get_ex(sw, "interfaces", &intfs) &&
                json_object_is_type(intfs, json_type_object))
                ni += (size_t)json_object_object_length(intfs);
        }
    }
    if (json_object_is_type(lks, json_type_object))
        nl = (size_t)json_object_object_length(lks);
    s->intfs = calloc(ni ? ni : 1, sizeof *s->intfs);
    s->links = calloc(nl ? nl : 1, sizeof *s->links);
    x->nodes = calloc(ni ? ni : 1, sizeof *x->nodes);
    x->link_na = calloc(nl ? nl : 1, sizeof(int));
    x->link_nb = calloc(nl ? nl : 1, sizeof(int));
    if (!s->intfs || !s->links || !x->nodes || !x->link_na || !x->link_nb) {
        me_snap_put(s);
        return NULL;
    }
    if (json_object_is_type(sws, json_type_object)) {
        json_object_object_foreach(sws, dpid, sw) {
            struct json_object *intfs;
            bool sw_up = get_bool(sw, "enabled") && get_bool(sw, "active");
            if (!json_object_object_get_ex(sw, "interfaces", &intfs) ||
                !json_object_is_type(intfs, json_type_object))
                continue;
            json_object_object_foreach(intfs, iid, intf) {
                struct me_intf *m;
                struct json_object *pn;
                if (s->nintfs >= ni || strlen(iid) >= ME_INTF_MAX || strlen(dpid) >= ME_DPID_MAX)
                    continue;
                m = &s->intfs[s->nintfs++];
                snprintf(m->id, sizeof m->id, "%s", iid);
                snprintf(m->dpid, sizeof m->dpid, "%s", dpid);
                if (json_object_object_get_ex(intf, "port_number", &pn))
                    m->port = (uint32_t)json_object_get_int64(pn);
                m->up = sw_up && get_bool(intf, "active") && get_bool(intf, "enabled");
            }
        }
    }
    qsort(s->intfs, s->nintfs, sizeof *s->intfs, intf_cmp);
    for (i = 0; i < s->nintfs; i++)
        memcpy(x->nodes[i], s->intfs[i].dpid, ME_DPID_MAX);
    qsort(x->nodes, s->nintfs, sizeof *x->nodes, node_cmp);
    for (i = 0, k = 0; i < s->nintfs; i++)
        if (k == 0 || strcmp(x->nodes[k - 1], x->nodes[i]) != 0)
            memmove(x->nodes[k++], x->nodes[i], ME_DPID_MAX);
    x->nnodes = k;

    if (json_object_is_type(lks, json_type_object)) {
        json_object_object_foreach(lks, lid, lk) {
            struct json_object *ea, *eb;
            const char *status = get_str(lk, "status");
            const struct me_intf *ia, *ib;
            struct me_link *m;
            if (s->nlinks >= nl || strlen(lid) >= ME_LINK_ID_MAX ||
                !json_object_object_get_ex(lk, "endpoint_a", &ea) ||
                !json_object_object_get_ex(lk, "endpoint_b", &eb))
                continue;
            ia = me_snap_intf(s, get_str(ea, "id") ? get_str(ea, "id") : "");
            ib = me_snap_intf(s, get_str(eb, "id") ? get_str(eb, "id") : "");
            if (!ia || !ib || left_by(ea, lid) || left_by(eb, lid))
                continue;
            m = &s->links[s->nlinks++];
            snprintf(m->id, sizeof m->id, "%s", lid);
            m->a = (int)(ia - s->intfs);
            m->b = (int)(ib - s->intfs);
            m->up = get_bool(lk, "active") && get_bool(lk, "enabled") &&
                    (!status || strcmp(status, "UP") == 0) && ia->up && ib->up;
        }
    }
    qsort(s->links, s->nlinks, sizeof *s->links, link_cmp);
    for (i = 0; i < s->nlinks; i++) {
        x->link_na[i] = node_of(x, s->intfs[s->links[i].a].dpid);
        x->link_nb[i] = node_of(x, s->intfs[s->links[i].b].dpid);
    }
    return s;
}

const struct me_intf *me_snap_intf(const struct me_snap *s, const char *id)
{
    struct me_intf key;
    if (!s || !id || strlen(id) >= sizeof key.id)
        return NULL;
    snprintf(key.id, sizeof key.id, "%s", id);
    return bsearch(&key, s->intfs, s->nintfs, sizeof key, intf_cmp);
}

const struct me_link *me_snap_link(const struct me_snap *s, const char *id)
{
    struct me_link key;
    if (!s || !id || strlen(id) >= sizeof key.id)
        return NULL;
    snprintf(key.id, sizeof key.id, "%s", id);
    return bsearch(&key, s->links, s->nlinks, sizeof key, link_cmp);
}

const struct me_link *me_snap_link_between(const struct me_snap *s, const char *a, const char *b)
{
    const struct me_intf *ia = me_snap_intf(s, a), *ib = me_snap_intf(s, b);
    size_t i;

    if (!ia || !ib)
        return NULL;
    for (i = 0; i < s->nlinks; i++) {
        const struct me_intf *la = &s->intfs[s->links[i].a], *lb = &s->intfs[s->links[i].b];
        if ((la == ia && lb == ib) || (la == ib && lb == ia))
            return &s->links[i];
    }
    return NULL;
}

static bool avoided(const char *id, const char *const *avoid, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (avoid[i] && strcmp(avoid[i], id) == 0)
            return true;
    return false;
}

int me_snap_shortest(const struct me_snap *s, const char *from, const char *to,
                     const char *const *avoid, size_t n_avoid, int *out, size_t cap)
{
    const struct me_snap_x *x = (const struct me_snap_x *)s;
    int src = node_of(x, from), dst = node_of(x, to), *prev_link, *queue, hops = -1;
    size_t head = 0, tail = 0, i, n;

    if (src < 0 || dst < 0)
        return -1;
    if (src == dst)
        return 0;
    prev_link = malloc(x->nnodes * sizeof *prev_link);
    queue = malloc(x->nnodes * sizeof *queue);
    if (!prev_link || !queue) {
        free(prev_link);
        free(queue);
        return -1;
    }
    for (i = 0; i < x->nnodes; i++)
        prev_link[i] = -2;           /* unvisited */
    prev_link[src] = -1;
    queue[tail++] = src;
    while (head < tail && prev_link[dst] == -2) {
        int u = queue[head++];
        for (i = 0; i < s->nlinks; i++) {
            int v;
            if (!s->links[i].up || avoided(s->links[i].id, avoid, n_avoid))
                continue;
            if (x->link_na[i] == u)
                v = x->link_nb[i];
            else if (x->link_nb[i] == u)
                v = x->link_na[i];
            else
                continue;
            if (v < 0 || prev_link[v] != -2)
                continue;
            prev_link[v] = (int)i;
            queue[tail++] = v;
        }
    }
    if (prev_link[dst] != -2) {
        /* walk back, then reverse into out[] */
        int node = dst;
        n = 0;
        while (node != src) {
            int l = prev_link[node];
            if (n < cap)
                out[n] = l;
            n++;
            node = x->link_na[l] == node ? x->link_nb[l] : x->link_na[l];
        }
        if (n <= cap) {
            for (i = 0; i < n / 2; i++) {
                int t = out[i];
                out[i] = out[n - 1 - i];
                out[n - 1 - i] = t;
            }
            hops = (int)n;
        }
    }
    free(prev_link);
    free(queue);
    return hops;
}

/* ---- paths ---- */

void me_path_clear(struct me_path *p)
{
    free(p->h);
    p->h = NULL;
    p->n = 0;
}

int me_path_from_snap(struct me_path *p, const struct me_snap *s, const int *links, size_t n)
{
    size_t i;

    me_path_clear(p);
    if (n == 0)
        return 0;
    p->h = calloc(n, sizeof *p->h);
    if (!p->h)
        return -1;
    for (i = 0; i < n; i++) {
        const struct me_link *l = &s->links[links[i]];
        snprintf(p->h[i].link, sizeof p->h[i].link, "%s", l->id);
        snprintf(p->h[i].a, sizeof p->h[i].a, "%s", s->intfs[l->a].id);
        snprintf(p->h[i].b, sizeof p->h[i].b, "%s", s->intfs[l->b].id);
    }
    p->n = n;
    return 0;
}

int me_path_from_json(struct me_path *p, struct json_object *arr, char *err, size_t errlen)
{
    size_t i, n;

    me_path_clear(p);
    if (arr == NULL || !json_object_is_type(arr, json_type_array))
        return 0;
    n = json_object_array_length(arr);
    if (n == 0)
        return 0;
    p->h = calloc(n, sizeof *p->h);
    if (!p->h) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (i = 0; i < n; i++) {
        struct json_object *l = json_object_array_get_idx(arr, i), *ea, *eb, *md, *sv, *val;
        const char *a, *b, *id;
        if (!json_object_object_get_ex(l, "endpoint_a", &ea) ||
            !json_object_object_get_ex(l, "endpoint_b", &eb)) {
            snprintf(err, errlen, "a path link needs endpoint_a and endpoint_b");
            me_path_clear(p);
            return -1;
        }
        a = get_str(ea, "id");
        b = get_str(eb, "id");
        if (!a || strlen(a) >= ME_INTF_MAX) {
            snprintf(err, errlen, "Could not get interface endpoint_a id %.60s", a ? a : "None");
            me_path_clear(p);
            return -1;
        }
        if (!b || strlen(b) >= ME_INTF_MAX) {
            snprintf(err, errlen, "Could not get interface endpoint_b id %.60s", b ? b : "None");
            me_path_clear(p);
            return -1;
        }
        snprintf(p->h[i].a, sizeof p->h[i].a, "%s", a);
        snprintf(p->h[i].b, sizeof p->h[i].b, "%s", b);
        id = get_str(l, "id");
        if (id)
            snprintf(p->h[i].link, sizeof p->h[i].link, "%s", id);
        if (json_object_object_get_ex(l, "metadata", &md) &&
            json_object_object_get_ex(md, "s_vlan", &sv) &&
            json_object_object_get_ex(sv, "value", &val) && json_object_is_type(val, json_type_int))
            p->h[i].s_vlan = (uint16_t)json_object_get_int(val);
    }
    p->n = n;
    return 0;
}

struct json_object *me_path_json(const struct me_path *p, bool tags)
{
    struct json_object *arr = json_object_new_array();
    size_t i;

    for (i = 0; i < p->n; i++) {
        struct json_object *l = json_object_new_object(), *ea = json_object_new_object(),
                           *eb = json_object_new_object();
        if (p->h[i].link[0])
            json_object_object_add(l, "id", json_object_new_string(p->h[i].link));
        json_object_object_add(ea, "id", json_object_new_string(p->h[i].a));
        json_object_object_add(eb, "id", json_object_new_string(p->h[i].b));
        json_object_object_add(l, "endpoint_a", ea);
        json_object_object_add(l, "endpoint_b", eb);
        if (tags && p->h[i].s_vlan) {
            struct json_object *md = json_object_new_object(), *sv = json_object_new_object();
            json_object_object_add(sv, "tag_type", json_object_new_string("vlan"));
            json_object_object_add(sv, "value", json_object_new_int(p->h[i].s_vlan));
            json_object_object_add(md, "s_vlan", sv);
            json_object_object_add(l, "metadata", md);
        }
        json_object_array_add(arr, l);
    }
    return arr;
}

int me_path_up(const struct me_path *p, const struct me_snap *s)
{
    size_t i;
    if (!s || p->n == 0)
        return 0;
    for (i = 0; i < p->n; i++) {
        const struct me_link *l = me_snap_link(s, p->h[i].link);
        if (!l || !l->up)
            return 0;
    }
    return 1;
}

int me_path_uses(const struct me_path *p, const char *link_id)
{
    size_t i;
    for (i = 0; i < p->n; i++)
        if (strcmp(p->h[i].link, link_id) == 0)
            return 1;
    return 0;
}

/* ---- the current snapshot ---- */

void me_snapshot_set(struct me *me, struct me_snap *s)
{
    struct me_snap *old;

    pthread_mutex_lock(&me->lock);
    old = me->snap;
    if (old && s->gen && old->gen > s->gen) {
        old = s;   /* older than what we have: drop it */
    } else {
        me->snap = s;
    }
    pthread_mutex_unlock(&me->lock);
    me_snap_put(old);
}

/* The header's decimal generation; 0 (unknown: the tree is taken whatever
 * its age) when absent, malformed or out of range, so a bad value cannot
 * hold the snapshot back. */
static uint64_t generation_of(const char *h)
{
    uint64_t v = 0;
    size_t n = 0;

    if (!h)
        return 0;
    for (; h[n] >= '0' && h[n] <= '9'; n++) {
        if (n >= 19)   /* past INT64_MAX's digits: what the event's int64 can hold */
            return 0;
        v = v * 10 + (uint64_t)(h[n] - '0');
    }
    return n > 0 && h[n] == '\0' && v <= INT64_MAX ? v : 0;
}

static void refresh(struct me *me, int force)
{
    kytos_response *r = NULL;
    struct json_object *body, *tree;
    int64_t t = me_now_ms();

    pthread_mutex_lock(&me->refresh_lock);
    if (!force && t - me->last_refresh_ms < REFRESH_MIN_MS) {
        pthread_mutex_unlock(&me->refresh_lock);
        return;
    }
    me->last_refresh_ms = t;
    if (kytos_call(me->napp, "GET", "/api/kytos/topology/v3/", NULL, 0, &r) == KYTOS_OK && r) {
        body = kytos_response_json(r);
        if (kytos_response_status(r) == 200 && json_object_object_get_ex(body, "topology", &tree)) {
            struct me_snap *s = me_snap_build(tree);
            if (s) {
                s->gen = generation_of(kytos_response_header(r, "X-Kytos-Topology-Generation"));
                me_snapshot_set(me, s);
            }
        }
        kytos_response_free(r);
    }
    pthread_mutex_unlock(&me->refresh_lock);
}

struct me_snap *me_snapshot(struct me *me, int mode)
{
    struct me_snap *s;

    if (mode)
        refresh(me, mode == 2);
    pthread_mutex_lock(&me->lock);
    s = me->snap;
    if (s)
        atomic_fetch_add(&s->refs, 1);
    pthread_mutex_unlock(&me->lock);
    if (!s && !mode) {
        refresh(me, 1);
        pthread_mutex_lock(&me->lock);
        s = me->snap;
        if (s)
            atomic_fetch_add(&s->refs, 1);
        pthread_mutex_unlock(&me->lock);
    }
    return s;
}
