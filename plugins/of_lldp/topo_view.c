/* plugins/of_lldp/topo_view.c - of_lldp's view of the network: topology's
 * GET v3/ tree through kytos_call, cached (a round refreshes it, a
 * PACKET_IN reuses it while fresh) and shared by reference: readers only
 * look things up in it, nobody changes it. */
#include "lldp.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a PACKET_IN naming an interface the view lacks refetches at most this often */
#define REFETCH_MIN_MS 500

bool lldp_jbool(struct json_object *o, const char *key)
{
    struct json_object *v;

    return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) &&
           json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

const char *lldp_jstr(struct json_object *o, const char *key)
{
    struct json_object *v;

    if (json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) &&
        json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

bool lldp_jint(struct json_object *o, const char *key, int64_t *out)
{
    struct json_object *v;

    if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_int))
        return false;
    *out = json_object_get_int64(v);
    return true;
}

bool lldp_intf_lldp(struct lldp *l, struct json_object *intf)
{
    const char *id = lldp_jstr(intf, "id");
    bool v = lldp_jbool(intf, "lldp");

    pthread_mutex_lock(&l->ov_mu);
    for (size_t k = 0; id && k < l->n_ov; k++)
        if (strcmp(l->ov[k].id, id) == 0) {
            v = l->ov[k].lldp;
            break;
        }
    pthread_mutex_unlock(&l->ov_mu);
    return v;
}

void lldp_override_set(struct lldp *l, const char *id, bool lldp)
{
    size_t k;

    if (strlen(id) >= LLDP_ID_MAX)
        return;
    pthread_mutex_lock(&l->ov_mu);
    for (k = 0; k < l->n_ov && strcmp(l->ov[k].id, id) != 0; k++)
        ;
    if (k == l->n_ov && l->n_ov == l->cap_ov) {
        size_t nc = l->cap_ov ? 2 * l->cap_ov : 8;
        void *p = realloc(l->ov, nc * sizeof *l->ov);
        if (!p) {
            pthread_mutex_unlock(&l->ov_mu);
            return;
        }
        l->ov = p;
        l->cap_ov = nc;
    }
    if (k == l->n_ov)
        strcpy(l->ov[l->n_ov++].id, id);
    l->ov[k].lldp = lldp;
    pthread_mutex_unlock(&l->ov_mu);
}

/* A fetched view that shows an override's value makes it useless. */
static void overrides_settle(struct lldp *l, const struct lldp_topo *t)
{
    pthread_mutex_lock(&l->ov_mu);
    for (size_t k = 0; k < l->n_ov;) {
        struct json_object *i = lldp_topo_intf_by_id(t, l->ov[k].id);
        if (!i || lldp_jbool(i, "lldp") == l->ov[k].lldp)
            l->ov[k] = l->ov[--l->n_ov];
        else
            k++;
    }
    pthread_mutex_unlock(&l->ov_mu);
}

void lldp_topo_put(struct lldp_topo *t)
{
    if (!t || atomic_fetch_sub(&t->refs, 1) != 1)
        return;
    json_object_put(t->root);
    free(t);
}

static struct lldp_topo *fetch(struct lldp *l)
{
    kytos_response *r = NULL;
    struct lldp_topo *t = NULL;
    struct json_object *body, *topo, *sw;
    /* the view is as old as the GET's start: what changed during it may
     * be missing */
    int64_t asked = lldp_now_ms();

    if (kytos_call(l->napp, "GET", "/api/kytos/topology/v3/", NULL, 0, &r) != KYTOS_OK || !r)
        goto out;
    body = kytos_response_status(r) == 200 ? kytos_response_json(r) : NULL;
    if (!json_object_object_get_ex(body, "topology", &topo) ||
        !json_object_object_get_ex(topo, "switches", &sw) ||
        !json_object_is_type(sw, json_type_object))
        goto out;
    t = calloc(1, sizeof *t);
    if (!t)
        goto out;
    atomic_init(&t->refs, 1);
    t->root = json_object_get(body);  /* the response owns body; keep it past response_free */
    t->switches = sw;
    t->fetched_ms = asked;
out:
    if (!t)
        kytos_log(l->napp, KYTOS_LOG_WARNING, "topology's v3/ is not available (status %u)",
                  r ? kytos_response_status(r) : 0);
    kytos_response_free(r);
    return t;
}

struct lldp_topo *lldp_topo_get(struct lldp *l, int64_t max_age_ms)
{
    struct lldp_topo *t = NULL, *fresh;
    int64_t now = lldp_now_ms();

    /* 0 asks for a view newer than the call: one fetched in the same
     * millisecond may predate what the caller was told (a switch.enabled
     * handled just after another's fetch saw that switch inactive) */
    pthread_mutex_lock(&l->mu);
    if (l->topo && (max_age_ms < 0 || (max_age_ms > 0 && now - l->topo->fetched_ms <= max_age_ms))) {
        t = l->topo;
        atomic_fetch_add(&t->refs, 1);
    }
    pthread_mutex_unlock(&l->mu);
    if (t)
        return t;
    fresh = fetch(l);
    if (!fresh)
        return NULL;
    overrides_settle(l, fresh);
    atomic_fetch_add(&fresh->refs, 1);   /* one for the cache, one for the caller */
    pthread_mutex_lock(&l->mu);
    t = l->topo;
    if (t && t->fetched_ms > fresh->fetched_ms) {
        /* a fetch begun after ours finished first: keep the newer view */
        pthread_mutex_unlock(&l->mu);
        atomic_fetch_sub(&fresh->refs, 1);
        return fresh;
    }
    l->topo = fresh;
    pthread_mutex_unlock(&l->mu);
    lldp_topo_put(t);
    return fresh;
}

void lldp_topo_invalidate(struct lldp *l)
{
    struct lldp_topo *t;

    pthread_mutex_lock(&l->mu);
    t = l->topo;
    l->topo = NULL;
    pthread_mutex_unlock(&l->mu);
    lldp_topo_put(t);
}

struct json_object *lldp_topo_switch(const struct lldp_topo *t, const char *dpid)
{
    struct json_object *sw;

    if (t && dpid && json_object_object_get_ex(t->switches, dpid, &sw) &&
        json_object_is_type(sw, json_type_object))
        return sw;
    return NULL;
}

struct json_object *lldp_topo_intf(const struct lldp_topo *t, const char *dpid, uint32_t port)
{
    char id[LLDP_ID_MAX];
    struct json_object *sw = lldp_topo_switch(t, dpid), *ifs, *i;

    snprintf(id, sizeof id, "%s:%" PRIu32, dpid ? dpid : "", port);
    if (sw && json_object_object_get_ex(sw, "interfaces", &ifs) &&
        json_object_object_get_ex(ifs, id, &i) && json_object_is_type(i, json_type_object))
        return i;
    return NULL;
}

struct json_object *lldp_topo_intf_by_id(const struct lldp_topo *t, const char *id)
{
    char dpid[LLDP_DPID_STR_LEN + 1];
    struct json_object *sw, *ifs, *i;

    /* "<dpid>:<port>": the dpid is everything before the last colon */
    const char *colon = id ? strrchr(id, ':') : NULL;
    if (!colon || (size_t)(colon - id) > LLDP_DPID_STR_LEN)
        return NULL;
    memcpy(dpid, id, (size_t)(colon - id));
    dpid[colon - id] = '\0';
    sw = lldp_topo_switch(t, dpid);
    if (sw && json_object_object_get_ex(sw, "interfaces", &ifs) &&
        json_object_object_get_ex(ifs, id, &i) && json_object_is_type(i, json_type_object))
        return i;
    return NULL;
}

/* For receive.c: the view, refetched when it lacks an interface a frame
 * names, at most every REFETCH_MIN_MS (a flood of forged frames costs one
 * fetch per half second, not one per frame). */
struct lldp_topo *lldp_topo_for_intfs(struct lldp *l, const char *dpid_a, uint32_t port_a,
                                      const char *dpid_b, uint32_t port_b)
{
    struct lldp_topo *t = lldp_topo_get(l, -1);

    if (t && lldp_topo_intf(t, dpid_a, port_a) && lldp_topo_intf(t, dpid_b, port_b))
        return t;
    if (t && lldp_now_ms() - t->fetched_ms < REFETCH_MIN_MS)
        return t;
    lldp_topo_put(t);
    return lldp_topo_get(l, 0);
}
