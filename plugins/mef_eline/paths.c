/* plugins/mef_eline/paths.c - dynamic paths from kytos/pathfinder, in
 * process (Kytos' DynamicPathManager.get_best_paths): POST
 * /api/kytos/pathfinder/v3/ with the UNIs' interfaces, spf_max_paths 2,
 * spf_attribute (the constraints' or "hop") and the EVC's constraints
 * (undesired_links, spf_attribute, spf_max_path_cost, mandatory_metrics,
 * flexible_metrics, minimum_flexible_hits).  A candidate keeps its
 * interface hops (ids longer than a dpid), which must pair up per switch;
 * hops (1,2), (3,4)... are its links.  The first candidate whose links are
 * all up (and not avoided) wins.
 *
 * Which constraints: primary_constraints for a deploy; after a link went
 * down, secondary_constraints first when the EVC has any (Kytos finds the
 * failover path it moves to with them), then primary_constraints. */
#include "me.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PF_PATH "/api/kytos/pathfinder/v3/"
#define DPID_LEN 23

static const char *const constraint_keys[] = {
    "undesired_links", "spf_attribute", "spf_max_path_cost", "mandatory_metrics",
    "flexible_metrics", "minimum_flexible_hits",
};

static struct json_object *request(const struct me_evc *e, struct json_object *cons,
                                   const char *const *avoid, size_t n_avoid)
{
    struct json_object *b = json_object_new_object(), *v, *und = NULL;
    const char *attr = "hop";

    if (json_object_object_get_ex(cons, "spf_attribute", &v) && json_object_is_type(v, json_type_string) &&
        json_object_get_string_len(v) > 0)
        attr = json_object_get_string(v);
    json_object_object_add(b, "source", json_object_new_string(e->a.intf));
    json_object_object_add(b, "destination", json_object_new_string(e->z.intf));
    json_object_object_add(b, "spf_max_paths", json_object_new_int(2));
    json_object_object_add(b, "spf_attribute", json_object_new_string(attr));
    for (size_t i = 0; i < sizeof constraint_keys / sizeof *constraint_keys; i++) {
        struct json_object *copy = NULL;
        if (!json_object_object_get_ex(cons, constraint_keys[i], &v) ||
            json_object_deep_copy(v, &copy, NULL) != 0)
            continue;
        json_object_object_add(b, constraint_keys[i], copy);
    }
    if (n_avoid) {
        if (!json_object_object_get_ex(b, "undesired_links", &und) ||
            !json_object_is_type(und, json_type_array)) {
            und = json_object_new_array();
            json_object_object_add(b, "undesired_links", und);
        }
        for (size_t i = 0; i < n_avoid; i++)
            if (avoid[i])
                json_object_array_add(und, json_object_new_string(avoid[i]));
    }
    return b;
}

static bool avoided(const char *id, const char *const *avoid, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (avoid[i] && strcmp(avoid[i], id) == 0)
            return true;
    return false;
}

/* Kytos' create_path + the link look-ups: 0 and out filled, -1 unusable. */
static int candidate(struct json_object *hops, const struct me_snap *snap, const char *const *avoid,
                     size_t n_avoid, struct me_path *out)
{
    const char *ids[2 * 256];
    size_t n = 0;

    for (size_t i = 0; i < json_object_array_length(hops); i++) {
        struct json_object *h = json_object_array_get_idx(hops, i);
        const char *s = json_object_get_string(h);
        if (!json_object_is_type(h, json_type_string) || strlen(s) <= DPID_LEN)
            continue;
        if (n == sizeof ids / sizeof *ids)
            return -1;
        ids[n++] = s;
    }
    if (n % 2)
        return -1;
    for (size_t i = 0; i < n; i += 2)
        if (strncmp(ids[i], ids[i + 1], DPID_LEN) != 0)
            return -1;
    me_path_clear(out);
    if (n <= 2)
        return -1;           /* both UNIs on one switch: not a dynamic path */
    out->h = calloc(n / 2 - 1, sizeof *out->h);
    if (!out->h)
        return -1;
    for (size_t i = 1; i + 1 < n; i += 2) {
        const struct me_link *l = me_snap_link_between(snap, ids[i], ids[i + 1]);
        struct me_hop *hp = &out->h[out->n];
        if (!l || !l->up || avoided(l->id, avoid, n_avoid)) {
            me_path_clear(out);
            return -1;
        }
        snprintf(hp->link, sizeof hp->link, "%s", l->id);
        snprintf(hp->a, sizeof hp->a, "%s", snap->intfs[l->a].id);
        snprintf(hp->b, sizeof hp->b, "%s", snap->intfs[l->b].id);
        out->n++;
    }
    return 0;
}

/* One request: 0 a path, -1 none, 1 pathfinder unavailable. */
static int ask(struct me *me, const struct me_evc *e, struct json_object *cons,
               const struct me_snap *snap, const char *const *avoid, size_t n_avoid,
               struct me_path *out)
{
    struct json_object *body = request(e, cons, avoid, n_avoid), *ans, *paths;
    kytos_response *r = NULL;
    int rc = -1;
    unsigned st;

    if (kytos_call_json(me->napp, "POST", PF_PATH, body, &r) != KYTOS_OK || !r) {
        json_object_put(body);
        return 1;
    }
    json_object_put(body);
    st = kytos_response_status(r);
    ans = kytos_response_json(r);
    if (st == 404 || st >= 500) {
        kytos_log(me->napp, KYTOS_LOG_WARNING, "EVC(%s) failed to get paths from pathfinder: %u",
                  e->id, st);
        rc = st == 404 ? 1 : -1;
    } else if (st >= 400) {
        size_t len;
        kytos_log(me->napp, KYTOS_LOG_ERROR, "EVC(%s) failed to get paths from pathfinder. Error %.300s",
                  e->id, kytos_response_body(r, &len));
    } else if (json_object_object_get_ex(ans, "paths", &paths) &&
               json_object_is_type(paths, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(paths) && rc != 0; i++) {
            struct json_object *hops;
            if (json_object_object_get_ex(json_object_array_get_idx(paths, i), "hops", &hops) &&
                json_object_is_type(hops, json_type_array))
                rc = candidate(hops, snap, avoid, n_avoid, out);
        }
    }
    kytos_response_free(r);
    return rc;
}

int me_paths_dynamic(struct me *me, const struct me_evc *e, const struct me_snap *snap,
                     const char *const *avoid, size_t n_avoid, struct me_path *out)
{
    struct json_object *pri = NULL, *sec = NULL;
    int rc = -1;

    if (!snap)
        return -1;
    json_object_object_get_ex(e->doc, "primary_constraints", &pri);
    json_object_object_get_ex(e->doc, "secondary_constraints", &sec);
    if (n_avoid && json_object_is_type(sec, json_type_object) && json_object_object_length(sec) > 0)
        rc = ask(me, e, sec, snap, avoid, n_avoid, out);
    if (rc != 0)
        rc = ask(me, e, json_object_is_type(pri, json_type_object) ? pri : NULL, snap, avoid,
                 n_avoid, out);
    return rc;
}
