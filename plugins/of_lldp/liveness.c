/* plugins/of_lldp/liveness.c - Kytos' link liveness (managers/liveness.py,
 * southbound.md 3.4).
 *
 * Opt-in per interface (REST, persisted in collection "liveness":
 * {_id: id, id, enabled, inserted_at, updated_at}).  A pair is keyed by the
 * smaller interface id.  Per interface: init -> up|down, up -> down|init,
 * down -> up|init; a hello counts while not up and min_hellos_up of them
 * make it up.  The pair is init if either end is, down if either is, up if
 * both are; kytos/of_lldp.liveness.up|down only when the pair changes.  The
 * reaper (after each round) takes an interface silent for more than the
 * dead interval down, and publishes only when both interfaces are UP. */
#include "lldp.h"

#include <stdlib.h>
#include <string.h>

#define COLL "liveness"

const char *lldp_lv_state_str(enum lldp_lv_state s)
{
    return s == LV_UP ? "up" : s == LV_DOWN ? "down" : "init";
}

static bool allowed(enum lldp_lv_state from, enum lldp_lv_state to)
{
    return from != to;  /* every other transition is in Kytos' table */
}

static bool grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    void *p;
    size_t nc;

    if (n < *cap)
        return true;
    nc = *cap ? *cap * 2 : 16;
    p = realloc(*arr, nc * elem);
    if (!p)
        return false;
    *arr = p;
    *cap = nc;
    return true;
}

bool lldp_lv_is_enabled(struct lldp *l, const char *id)
{
    for (size_t k = 0; k < l->n_lv_enabled; k++)
        if (strcmp(l->lv_enabled[k], id) == 0)
            return true;
    return false;
}

void lldp_lv_enable(struct lldp *l, const char *id)
{
    if (strlen(id) >= LLDP_ID_MAX || lldp_lv_is_enabled(l, id) ||
        !grow((void **)&l->lv_enabled, &l->cap_lv_enabled, l->n_lv_enabled, LLDP_ID_MAX))
        return;
    strcpy(l->lv_enabled[l->n_lv_enabled++], id);
}

void lldp_lv_disable(struct lldp *l, const char *id)
{
    for (size_t k = 0; k < l->n_lv_enabled; k++)
        if (strcmp(l->lv_enabled[k], id) == 0) {
            memmove(l->lv_enabled[k], l->lv_enabled[k + 1],
                    (l->n_lv_enabled - k - 1) * sizeof *l->lv_enabled);
            l->n_lv_enabled--;
            break;
        }
    /* Kytos drops the pair this interface belongs to */
    for (size_t k = 0; k < l->n_pairs; k++)
        if (strcmp(l->pairs[k].a, id) == 0 || strcmp(l->pairs[k].b, id) == 0) {
            l->pairs[k] = l->pairs[--l->n_pairs];
            break;
        }
}

static struct lldp_pair *pair_by_min(struct lldp *l, const char *min_id)
{
    for (size_t k = 0; k < l->n_pairs; k++)
        if (strcmp(l->pairs[k].a, min_id) == 0)
            return &l->pairs[k];
    return NULL;
}

static enum lldp_lv_state agg_state(const struct lldp_pair *p)
{
    if (p->ia.state == LV_INIT || p->ib.state == LV_INIT)
        return LV_INIT;
    if (p->ia.state == LV_DOWN || p->ib.state == LV_DOWN)
        return LV_DOWN;
    return LV_UP;
}

/* LSM.next_state: the new pair state, or -1 when it did not change */
static int next_state(struct lldp_pair *p)
{
    enum lldp_lv_state s = agg_state(p);

    if (!allowed(p->state, s))
        return -1;
    p->state = s;
    return (int)s;
}

static void consume_hello(struct lldp *l, struct lldp_ilsm *i)
{
    i->last_hello_ms = lldp_now_ms();
    lldp_now_iso(i->last_hello_at, sizeof i->last_hello_at);
    if (i->state != LV_UP)
        i->hellos++;
    if (i->hellos >= l->min_hellos_up && i->state != LV_UP) {
        i->state = LV_UP;
        i->hellos = 0;
    }
}

static void publish_state(struct lldp *l, int st, struct json_object *a, struct json_object *b)
{
    struct json_object *c, *ca = NULL, *cb = NULL;

    if (st != LV_UP && st != LV_DOWN)
        return;   /* Kytos publishes liveness.init too, nobody listens: kept quiet */
    if (json_object_deep_copy(a, &ca, NULL) != 0 || json_object_deep_copy(b, &cb, NULL) != 0) {
        json_object_put(ca);
        json_object_put(cb);
        return;
    }
    c = json_object_new_object();
    json_object_object_add(c, "interface_a", ca);
    json_object_object_add(c, "interface_b", cb);
    lldp_publish(l, st == LV_UP ? "kytos/of_lldp.liveness.up" : "kytos/of_lldp.liveness.down", c);
}

void lldp_lv_hello(struct lldp *l, struct json_object *intf_a, struct json_object *intf_b)
{
    const char *ida = lldp_jstr(intf_a, "id"), *idb = lldp_jstr(intf_b, "id");
    const char *min_id;
    struct lldp_pair *p;
    bool a_is_min;
    int st;

    if (!ida || !idb || strlen(ida) >= LLDP_ID_MAX || strlen(idb) >= LLDP_ID_MAX ||
        !lldp_lv_is_enabled(l, ida) || !lldp_lv_is_enabled(l, idb))
        return;
    a_is_min = strcmp(ida, idb) <= 0;
    min_id = a_is_min ? ida : idb;
    p = pair_by_min(l, min_id);
    if (!p) {
        if (!grow((void **)&l->pairs, &l->cap_pairs, l->n_pairs, sizeof *l->pairs))
            return;
        p = &l->pairs[l->n_pairs++];
        memset(p, 0, sizeof *p);
        strcpy(p->a, min_id);
        strcpy(p->b, a_is_min ? idb : ida);
    }
    if (a_is_min) {
        consume_hello(l, &p->ia);
        if (strcmp(p->b, idb) != 0) {
            /* the other end changed (re-cabled): a fresh state for it */
            strcpy(p->b, idb);
            memset(&p->ib, 0, sizeof p->ib);
        }
    } else {
        consume_hello(l, &p->ib);
    }
    st = next_state(p);
    if (st >= 0)
        publish_state(l, st, intf_a, intf_b);
}

/* should_call_reaper: switch connected, lldp and liveness on */
static bool reapable(struct lldp *l, const struct lldp_topo *t, const char *id,
                     struct json_object **intf)
{
    char dpid[LLDP_DPID_STR_LEN + 1];
    const char *colon = strrchr(id, ':');

    *intf = lldp_topo_intf_by_id(t, id);
    if (!*intf || !colon || (size_t)(colon - id) > LLDP_DPID_STR_LEN)
        return false;
    memcpy(dpid, id, (size_t)(colon - id));
    dpid[colon - id] = '\0';
    return lldp_jbool(lldp_topo_switch(t, dpid), "active") && lldp_intf_lldp(l, *intf) &&
           lldp_lv_is_enabled(l, id);
}

static void reaper_check(struct lldp *l, struct lldp_ilsm *i, int64_t now)
{
    if (i->last_hello_ms && (now - i->last_hello_ms) / 1000 > l->dead_interval_s) {
        i->hellos = 0;
        if (i->state != LV_DOWN)
            i->state = LV_DOWN;
    }
}

void lldp_lv_reaper(struct lldp *l, const struct lldp_topo *t)
{
    int64_t now = lldp_now_ms();

    for (size_t k = 0; k < l->n_pairs; k++) {
        struct lldp_pair *p = &l->pairs[k];
        struct json_object *ia, *ib;
        const char *sa, *sb;
        int st;

        if (p->state == LV_DOWN || !reapable(l, t, p->a, &ia) || !reapable(l, t, p->b, &ib))
            continue;
        reaper_check(l, &p->ia, now);
        reaper_check(l, &p->ib, now);
        st = next_state(p);
        sa = lldp_jstr(ia, "status");
        sb = lldp_jstr(ib, "status");
        if (st >= 0 && sa && sb && strcmp(sa, "UP") == 0 && strcmp(sb, "UP") == 0)
            publish_state(l, st, ia, ib);
    }
}

int lldp_lv_store(struct lldp *l, const char *id, bool enabled, struct kytos_error *err)
{
    char now[40];
    struct json_object *up = json_object_new_object(), *set = json_object_new_object(),
                       *ins = json_object_new_object();
    int rc;

    lldp_now_iso(now, sizeof now);
    json_object_object_add(set, "id", json_object_new_string(id));
    json_object_object_add(set, "enabled", json_object_new_boolean(enabled));
    json_object_object_add(set, "updated_at", json_object_new_string(now));
    json_object_object_add(ins, "inserted_at", json_object_new_string(now));
    json_object_object_add(up, "$set", set);
    json_object_object_add(up, "$setOnInsert", ins);
    rc = kytos_store_patch(l->napp, COLL, id, up, KYTOS_STORE_UPSERT, NULL, err);
    json_object_put(up);
    return rc;
}

int lldp_lv_load(struct lldp *l)
{
    struct json_object *filter = json_object_new_object(), *doc;
    struct kytos_error err;
    kytos_cursor *cur = NULL;
    int rc;

    json_object_object_add(filter, "enabled", json_object_new_boolean(1));
    rc = kytos_store_find(l->napp, COLL,
                          &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                               .filter = filter},
                          &cur, &err);
    json_object_put(filter);
    if (rc != KYTOS_OK) {
        kytos_log(l->napp, KYTOS_LOG_ERROR, "loading liveness failed: %s", err.message);
        return KYTOS_OK;   /* no liveness is not fatal */
    }
    while (kytos_cursor_next(cur, &doc, &err) == 1) {
        const char *id = lldp_jstr(doc, "id");
        if (id)
            lldp_lv_enable(l, id);
        json_object_put(doc);
    }
    kytos_cursor_free(cur);
    return KYTOS_OK;
}
