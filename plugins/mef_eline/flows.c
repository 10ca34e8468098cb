/* plugins/mef_eline/flows.c - the flows of an EVC (Kytos' models/evc.py:
 * push flows at the UNIs, S-VLAN swaps on the NNIs, pop flows at the far
 * UNI; direct flows for an intra-switch EVC) and their trip to flow_manager
 * through an in-process call (no HTTP to ourselves). */
#include "me.h"

#include <stdio.h>
#include <string.h>

#define EPL_SB_PRIORITY 10000
#define ANY_SB_PRIORITY 15000
#define UNTAGGED_SB_PRIORITY 20000
#define EVPL_SB_PRIORITY 20000

/* The dpid part of an interface id. */
static void dpid_of(const char *intf, char *out, size_t len)
{
    const char *c = strrchr(intf, ':');
    size_t n = c ? (size_t)(c - intf) : strlen(intf);
    if (n >= len)
        n = len - 1;
    memcpy(out, intf, n);
    out[n] = '\0';
}

static uint32_t port_of(const char *intf)
{
    const char *c = strrchr(intf, ':');
    return c ? (uint32_t)strtoul(c + 1, NULL, 10) : 0;
}

static int64_t priority(const struct me_evc *e, struct json_object *match_vlan)
{
    if (e->sb_priority >= 0)
        return e->sb_priority;
    if (match_vlan == NULL)
        return EPL_SB_PRIORITY;
    if (json_object_is_type(match_vlan, json_type_string) &&
        strcmp(json_object_get_string(match_vlan), "4096/4096") == 0)
        return ANY_SB_PRIORITY;
    if (json_object_is_type(match_vlan, json_type_int) && json_object_get_int(match_vlan) == 0)
        return UNTAGGED_SB_PRIORITY;
    return EVPL_SB_PRIORITY;
}

static struct json_object *action(const char *type, const char *field, struct json_object *value)
{
    struct json_object *a = json_object_new_object();
    json_object_object_add(a, "action_type", json_object_new_string(type));
    if (field)
        json_object_object_add(a, field, value);
    return a;
}

static struct json_object *base_flow(const struct me_evc *e, uint32_t in_port,
                                     struct json_object *match_vlan, const char *table_group)
{
    struct json_object *f = json_object_new_object(), *m = json_object_new_object();

    json_object_object_add(m, "in_port", json_object_new_int64(in_port));
    if (match_vlan)
        json_object_object_add(m, "dl_vlan", json_object_get(match_vlan));
    json_object_object_add(f, "match", m);
    json_object_object_add(f, "cookie", json_object_new_uint64(e->cookie));
    json_object_object_add(f, "owner", json_object_new_string("mef_eline"));
    json_object_object_add(f, "table_id", json_object_new_int(0));
    json_object_object_add(f, "table_group", json_object_new_string(table_group));
    json_object_object_add(f, "priority", json_object_new_int64(priority(e, match_vlan)));
    json_object_object_add(f, "actions", json_object_new_array());
    return f;
}

static void add_output(const struct me_evc *e, struct json_object *acts, uint32_t port)
{
    if (e->queue_id >= 0)
        json_object_array_add(acts, action("set_queue", "queue_id",
                                           json_object_new_int64(e->queue_id)));
    json_object_array_add(acts, action("output", "port", json_object_new_int64(port)));
}

/* The C-VLAN actions from a UNI tag (match value in_v) to the far UNI's
 * (out_v), as _prepare_push_flow / _install_direct_uni_flows do: special
 * values are none, "4096/4096" (any) and 0 (untagged). */
static bool special(struct json_object *v)
{
    return v == NULL || (json_object_is_type(v, json_type_int) && json_object_get_int(v) == 0) ||
           json_object_is_type(v, json_type_string);
}

static bool same_vlan(struct json_object *a, struct json_object *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return json_object_equal(a, b);
}

static void cvlan_actions(struct json_object *acts, struct json_object *in_v,
                          struct json_object *out_v)
{
    bool in_untagged_or_any =
        in_v && ((json_object_is_type(in_v, json_type_int) && json_object_get_int(in_v) == 0) ||
                 (json_object_is_type(in_v, json_type_string) &&
                  strcmp(json_object_get_string(in_v), "4096/4096") == 0));
    bool out_zero = out_v && json_object_is_type(out_v, json_type_int) && json_object_get_int(out_v) == 0;

    if (!special(in_v) && out_zero) {
        json_object_array_add(acts, action("pop_vlan", NULL, NULL));
        return;
    }
    if (!special(out_v) && !same_vlan(in_v, out_v)) {
        if (in_untagged_or_any || in_v == NULL)
            json_object_array_add(acts, action("push_vlan", "tag_type", json_object_new_string("c")));
        json_object_array_add(acts, action("set_vlan", "vlan_id", json_object_get(out_v)));
    }
}

/* Append flow to body[dpid]["flows"]. */
static void add_flow(struct json_object *body, const char *dpid, struct json_object *flow)
{
    struct json_object *sw, *flows;
    if (!json_object_object_get_ex(body, dpid, &sw)) {
        sw = json_object_new_object();
        json_object_object_add(sw, "flows", json_object_new_array());
        json_object_object_add(body, dpid, sw);
    }
    json_object_object_get_ex(sw, "flows", &flows);
    json_object_array_add(flows, flow);
}

/* One direction over path p: from UNI x to UNI y (rev: walk p backwards). */
static void direction(struct json_object *body, const struct me_evc *e, const struct me_uni *x,
                      const struct me_uni *y, const struct me_path *p, bool rev,
                      const char *group)
{
    struct json_object *xv = json_object_new_array(), *yv = json_object_new_array();
    struct json_object *yval;
    char cur[ME_DPID_MAX], out_if[ME_INTF_MAX], in_if[ME_INTF_MAX] = "";
    size_t i, k, n = p->n;
    uint16_t prev_s = 0;

    me_tag_match_values(&x->tag, xv);
    me_tag_match_values(&y->tag, yv);
    /* the far UNI's single C-VLAN (ranges keep the same masks) */
    yval = json_object_array_length(yv) == 1 ? json_object_array_get_idx(yv, 0) : NULL;

    snprintf(cur, sizeof cur, "%s", x->dpid);
    for (k = 0; k < n; k++) {
        const struct me_hop *h = &p->h[rev ? n - 1 - k : k];
        char da[ME_DPID_MAX];
        dpid_of(h->a, da, sizeof da);
        snprintf(out_if, sizeof out_if, "%s", strcmp(da, cur) == 0 ? h->a : h->b);
        if (k == 0) {
            /* push at the UNI: one flow per match value (or one untagged) */
            size_t nv = json_object_array_length(xv);
            for (i = 0; i < (nv ? nv : 1); i++) {
                struct json_object *mv = nv ? json_object_array_get_idx(xv, i) : NULL;
                struct json_object *f = base_flow(e, x->port, mv, group), *acts;
                json_object_object_get_ex(f, "actions", &acts);
                if (!x->tag.nr && !y->tag.nr)
                    cvlan_actions(acts, mv, yval);
                json_object_array_add(acts, action("push_vlan", "tag_type", json_object_new_string("s")));
                json_object_array_add(acts, action("set_vlan", "vlan_id", json_object_new_int(h->s_vlan)));
                add_output(e, acts, port_of(out_if));
                add_flow(body, cur, f);
            }
        } else {
            /* S-VLAN swap on a transit switch */
            struct json_object *sv = json_object_new_int(prev_s);
            struct json_object *f = base_flow(e, port_of(in_if), sv, group), *acts;
            json_object_object_get_ex(f, "actions", &acts);
            json_object_array_add(acts, action("set_vlan", "vlan_id", json_object_new_int(h->s_vlan)));
            add_output(e, acts, port_of(out_if));
            add_flow(body, cur, f);
            json_object_put(sv);
        }
        snprintf(in_if, sizeof in_if, "%s", strcmp(out_if, h->a) == 0 ? h->b : h->a);
        dpid_of(in_if, cur, sizeof cur);
        prev_s = h->s_vlan;
    }
    if (n) {
        /* pop at the far UNI */
        struct json_object *sv = json_object_new_int(prev_s);
        struct json_object *f = base_flow(e, port_of(in_if), sv, group), *acts;
        json_object_object_get_ex(f, "actions", &acts);
        json_object_array_add(acts, action("pop_vlan", NULL, NULL));
        add_output(e, acts, y->port);
        add_flow(body, cur, f);
        json_object_put(sv);
    } else {
        /* intra-switch: straight from one UNI to the other */
        size_t nv = json_object_array_length(xv);
        for (i = 0; i < (nv ? nv : 1); i++) {
            struct json_object *mv = nv ? json_object_array_get_idx(xv, i) : NULL;
            struct json_object *f = base_flow(e, x->port, mv, group), *acts;
            json_object_object_get_ex(f, "actions", &acts);
            if (!x->tag.nr && !y->tag.nr)
                cvlan_actions(acts, mv, yval);
            add_output(e, acts, y->port);
            add_flow(body, x->dpid, f);
        }
    }
    json_object_put(xv);
    json_object_put(yv);
}

struct json_object *me_flows_build(const struct me_evc *e, const struct me_path *p)
{
    struct json_object *body = json_object_new_object();
    const char *group = (e->a.tag.kind == ME_TAG_NONE && e->z.tag.kind == ME_TAG_NONE) ? "epl"
                                                                                      : "evpl";
    direction(body, e, &e->a, &e->z, p, false, group);
    direction(body, e, &e->z, &e->a, p, true, group);
    return body;
}

struct json_object *me_flows_delete_body(const struct me_evc *e, const struct me_path *p)
{
    struct json_object *body = json_object_new_object();
    char d[ME_DPID_MAX];
    size_t i;

    /* every switch of the EVC gets {"cookie": C, "cookie_mask": all ones} */
    const char *sws[2] = {e->a.dpid, e->z.dpid};
    for (i = 0; i < 2 + 2 * p->n; i++) {
        const char *dpid;
        struct json_object *f;
        if (i < 2) {
            dpid = sws[i];
        } else {
            const struct me_hop *h = &p->h[(i - 2) / 2];
            dpid_of((i % 2) ? h->b : h->a, d, sizeof d);
            dpid = d;
        }
        if (json_object_object_get_ex(body, dpid, NULL))
            continue;
        f = json_object_new_object();
        json_object_object_add(f, "cookie", json_object_new_uint64(e->cookie));
        json_object_object_add(f, "cookie_mask", json_object_new_uint64(UINT64_MAX));
        add_flow(body, dpid, f);
    }
    return body;
}

unsigned me_flows_send(struct me *me, struct json_object *by_switch, bool install, bool force)
{
    kytos_response *r = NULL;
    unsigned status = 0;
    const char *path = force ? "/api/kytos/flow_manager/v2/flows_by_switch?force=true"
                             : "/api/kytos/flow_manager/v2/flows_by_switch?force=false";

    if (json_object_object_length(by_switch) == 0) {
        json_object_put(by_switch);
        return 202;
    }
    /* the tree itself (ABI 1.6): flow_manager reads it without its text */
    if (kytos_call_give(me->napp, install ? "POST" : "DELETE", path, by_switch, &r) == KYTOS_OK &&
        r) {
        status = kytos_response_status(r);
        if (status != 202) {
            size_t len = 0;
            const char *b = kytos_response_body(r, &len);
            kytos_log(me->napp, KYTOS_LOG_WARNING, "flow_manager answered %u: %.*s", status,
                      (int)(len > 300 ? 300 : len), b ? b : "");
        }
        kytos_response_free(r);
    }
    return status;
}
