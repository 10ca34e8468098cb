/* plugins/of_lldp/loops.c - LLDP loop detection (Kytos' loop_manager,
 * southbound.md 3.5): our frame came back to the switch that sent it.
 *
 * Same DPID at both ends with port_a <= port_b, not ignored (setting
 * lldp_ignored_loops or the switch's metadata "ignored_loops", [[a, b], ...]
 * either order) -> kytos/of_lldp.loop.detected {interface_id, dpid,
 * port_numbers} and kytos/of_lldp.loop.action.<log|disable> per frame; a
 * new loop sets metadata "looped" {port_numbers, detected_at} on interface_a
 * (and with "disable" disables it).  A loop not seen for polling_time x
 * lldp_loop_dead_multiplier seconds, or with an inactive port, has stopped:
 * kytos/of_lldp.loop.stopped, "looped" removed (and with "disable" the
 * interface enabled again).  Calls to topology run outside l->mu.
 *
 * Order matters to whoever watches: "stopped" is published after "looped"
 * is gone, and a loop whose "looped" is still being set is not reaped, so a
 * late POST of "looped" cannot outlive the DELETE that ends it.  The
 * polling round holds loop_act_mu from the reap through its DELETEs, and a
 * new loop's POST takes it too, so a loop seen again just after it was
 * reaped gets its "looped" back after the DELETE, not before. */
#include "lldp.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TOPO "/api/kytos/topology/v3/"

static bool pair_listed(struct json_object *list, uint32_t a, uint32_t b)
{
    if (!json_object_is_type(list, json_type_array))
        return false;
    for (size_t k = 0; k < json_object_array_length(list); k++) {
        struct json_object *p = json_object_array_get_idx(list, k);
        int64_t x, y;
        if (!json_object_is_type(p, json_type_array) || json_object_array_length(p) != 2)
            continue;
        x = json_object_get_int64(json_object_array_get_idx(p, 0));
        y = json_object_get_int64(json_object_array_get_idx(p, 1));
        if ((x == a && y == b) || (x == b && y == a))
            return true;
    }
    return false;
}

static bool ignored(struct lldp *l, const struct lldp_topo *t, const char *dpid, uint32_t a,
                    uint32_t b)
{
    struct json_object *list, *meta;

    if (l->ignored_loops && json_object_object_get_ex(l->ignored_loops, dpid, &list) &&
        pair_listed(list, a, b))
        return true;
    return json_object_object_get_ex(lldp_topo_switch(t, dpid), "metadata", &meta) &&
           json_object_object_get_ex(meta, "ignored_loops", &list) && pair_listed(list, a, b);
}

static void utc_seconds(char *out, size_t cap)
{
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm);
}

static struct json_object *ports(uint32_t a, uint32_t b)
{
    struct json_object *p = json_object_new_array();

    json_object_array_add(p, json_object_new_int64(a));
    json_object_array_add(p, json_object_new_int64(b));
    return p;
}

static void publish_state(struct lldp *l, const char *state, const char *intf_id, const char *dpid,
                          uint32_t a, uint32_t b)
{
    char name[64];
    struct json_object *c = json_object_new_object();

    json_object_object_add(c, "interface_id", json_object_new_string(intf_id));
    json_object_object_add(c, "dpid", json_object_new_string(dpid));
    json_object_object_add(c, "port_numbers", ports(a, b));
    snprintf(name, sizeof name, "kytos/of_lldp.loop.%s", state);
    lldp_publish(l, name, c);
}

static void call(struct lldp *l, const char *method, const char *path, struct json_object *body)
{
    kytos_response *r = NULL;
    int rc = kytos_call_json(l->napp, method, path, body, &r);
    unsigned st = r ? kytos_response_status(r) : 0;

    if (rc != KYTOS_OK || st < 200 || st > 299)
        kytos_log(l->napp, KYTOS_LOG_ERROR, "%s %s failed: status %u", method, path, st);
    kytos_response_free(r);
}

/* Called with l->mu held; the topology calls of a new loop are returned
 * through *new_loop (a copy) for the caller to make after unlocking. */
bool lldp_loop_check(struct lldp *l, const struct lldp_topo *t, struct json_object *ia,
                     struct json_object *ib, struct lldp_loop *new_loop)
{
    const char *da = lldp_jstr(ia, "switch"), *db = lldp_jstr(ib, "switch"),
               *id = lldp_jstr(ia, "id");
    int64_t pa, pb;
    struct lldp_loop *lp = NULL;
    struct json_object *ca = NULL, *cb = NULL, *c;

    if (!da || !db || !id || strcmp(da, db) != 0 || !lldp_jint(ia, "port_number", &pa) ||
        !lldp_jint(ib, "port_number", &pb) || pa > pb || strlen(da) > LLDP_DPID_STR_LEN ||
        strlen(id) >= LLDP_ID_MAX || ignored(l, t, da, (uint32_t)pa, (uint32_t)pb))
        return false;
    for (size_t k = 0; k < l->n_loops; k++)
        if (strcmp(l->loops[k].dpid, da) == 0 && l->loops[k].port_a == pa &&
            l->loops[k].port_b == pb)
            lp = &l->loops[k];
    if (!lp) {
        if (l->n_loops == l->cap_loops) {
            size_t nc = l->cap_loops ? 2 * l->cap_loops : 8;
            void *p = realloc(l->loops, nc * sizeof *l->loops);
            if (!p)
                return false;
            l->loops = p;
            l->cap_loops = nc;
        }
        lp = &l->loops[l->n_loops++];
        memset(lp, 0, sizeof *lp);
        strcpy(lp->dpid, da);
        strcpy(lp->intf_id, id);
        lp->port_a = (uint32_t)pa;
        lp->port_b = (uint32_t)pb;
    }
    lp->last_seen_ms = lldp_now_ms();
    if (!lp->detected) {
        lp->detected = true;
        lp->announcing = true;
        utc_seconds(lp->detected_at, sizeof lp->detected_at);
        *new_loop = *lp;
        if (l->loop_log)
            kytos_log(l->napp, KYTOS_LOG_WARNING,
                      "LLDP loop detected on switch: %s, interfaces: ['%s', '%s'], "
                      "port_numbers: [%" PRId64 ", %" PRId64 "]",
                      da, lldp_jstr(ia, "name") ? lldp_jstr(ia, "name") : "",
                      lldp_jstr(ib, "name") ? lldp_jstr(ib, "name") : "", pa, pb);
    }
    publish_state(l, "detected", id, da, (uint32_t)pa, (uint32_t)pb);
    for (int k = 0; k < 2; k++) {
        bool on = k == 0 ? l->loop_log : l->loop_disable;
        if (!on || json_object_deep_copy(ia, &ca, NULL) != 0 ||
            json_object_deep_copy(ib, &cb, NULL) != 0) {
            json_object_put(ca);
            json_object_put(cb);
            ca = cb = NULL;
            continue;
        }
        c = json_object_new_object();
        json_object_object_add(c, "interface_a", ca);
        json_object_object_add(c, "interface_b", cb);
        ca = cb = NULL;
        lldp_publish(l, k == 0 ? "kytos/of_lldp.loop.action.log" : "kytos/of_lldp.loop.action.disable",
                     c);
    }
    return true;
}

void lldp_loop_new_actions(struct lldp *l, const struct lldp_loop *lp, bool intf_enabled)
{
    char path[160];
    struct json_object *body = json_object_new_object(), *looped = json_object_new_object();

    json_object_object_add(looped, "port_numbers", ports(lp->port_a, lp->port_b));
    json_object_object_add(looped, "detected_at", json_object_new_string(lp->detected_at));
    json_object_object_add(body, "looped", looped);
    pthread_mutex_lock(&l->loop_act_mu);
    snprintf(path, sizeof path, TOPO "interfaces/%s/metadata", lp->intf_id);
    call(l, "POST", path, body);
    json_object_put(body);
    if (l->loop_disable && intf_enabled) {
        snprintf(path, sizeof path, TOPO "interfaces/%s/disable", lp->intf_id);
        call(l, "POST", path, NULL);
    }
    pthread_mutex_lock(&l->mu);
    for (size_t k = 0; k < l->n_loops; k++)
        if (strcmp(l->loops[k].dpid, lp->dpid) == 0 && l->loops[k].port_a == lp->port_a &&
            l->loops[k].port_b == lp->port_b)
            l->loops[k].announcing = false;
    pthread_mutex_unlock(&l->mu);
    pthread_mutex_unlock(&l->loop_act_mu);
}

/* Under l->mu: the loops that stopped, moved to *out (malloc'd, n in *n). */
void lldp_loop_reap(struct lldp *l, const struct lldp_topo *t, struct lldp_loop **out, size_t *n)
{
    int64_t now = lldp_now_ms();

    *out = NULL;
    *n = 0;
    for (size_t k = 0; k < l->n_loops;) {
        struct lldp_loop *lp = &l->loops[k];
        struct json_object *a = lldp_topo_intf(t, lp->dpid, lp->port_a),
                           *b = lldp_topo_intf(t, lp->dpid, lp->port_b);
        bool stopped = !lp->announcing &&
                       (!a || !b || !lldp_jbool(a, "active") || !lldp_jbool(b, "active") ||
                        (now - lp->last_seen_ms) / 1000 > l->loop_stopped_s);
        void *p;

        if (!stopped) {
            k++;
            continue;
        }
        p = realloc(*out, (*n + 1) * sizeof **out);
        if (p) {
            *out = p;
            (*out)[(*n)++] = *lp;
        }
        l->loops[k] = l->loops[--l->n_loops];
    }
}

void lldp_loop_stopped_actions(struct lldp *l, const struct lldp_loop *lp)
{
    char path[160];

    snprintf(path, sizeof path, TOPO "interfaces/%s/metadata/looped", lp->intf_id);
    call(l, "DELETE", path, NULL);
    if (l->loop_log)
        kytos_log(l->napp, KYTOS_LOG_INFO,
                  "LLDP loop stopped on switch: %s, port_numbers: [%" PRIu32 ", %" PRIu32 "]",
                  lp->dpid, lp->port_a, lp->port_b);
    if (l->loop_disable) {
        snprintf(path, sizeof path, TOPO "interfaces/%s/enable", lp->intf_id);
        call(l, "POST", path, NULL);
    }
    publish_state(l, "stopped", lp->intf_id, lp->dpid, lp->port_a, lp->port_b);
}
