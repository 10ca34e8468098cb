/* plugins/simnet/flows.c - each simulated switch's flow table, driven by
 * flow_manager's FlowMod and barrier events (contract in simnet.h). */
#include "simnet.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

enum cmd { CMD_ADD, CMD_MODIFY, CMD_MODIFY_STRICT, CMD_DELETE, CMD_DELETE_STRICT, CMD_BAD };

static enum cmd parse_command(struct json_object *v)
{
    static const char *const names[] = {"add", "modify", "modify_strict", "delete", "delete_strict"};

    if (!v)
        return CMD_ADD;
    if (json_object_is_type(v, json_type_int)) {
        int64_t n = json_object_get_int64(v);
        return n >= 0 && n <= 4 ? (enum cmd)n : CMD_BAD;
    }
    if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        if (strncmp(s, "OFPFC_", 6) == 0)
            s += 6;
        for (int i = 0; i < 5; i++)
            if (strcasecmp(s, names[i]) == 0)
                return (enum cmd)i;
    }
    return CMD_BAD;
}

static struct json_object *field(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;

    json_object_object_get_ex(o, key, &v);
    return v;
}

/* Numbers default to Kytos' FlowMod defaults when absent. */
static uint64_t num(struct json_object *o, const char *key, uint64_t dflt)
{
    struct json_object *v = field(o, key);

    if (!json_object_is_type(v, json_type_int))
        return dflt;
    return json_object_get_uint64(v);
}

static struct json_object *match_of(struct json_object *flow)
{
    struct json_object *m = field(flow, "match");

    return json_object_is_type(m, json_type_object) ? m : NULL;
}

static bool match_equal(struct json_object *a, struct json_object *b)
{
    if (!a || !b)
        return (!a || json_object_object_length(a) == 0) && (!b || json_object_object_length(b) == 0);
    return json_object_equal(a, b);
}

/* Non-strict delete: the flow's match has every field of want, equal. */
static bool match_covers(struct json_object *flow_match, struct json_object *want)
{
    if (!want)
        return true;
    json_object_object_foreach(want, key, val) {
        struct json_object *fv = field(flow_match, key);
        if (!fv || !json_object_equal(fv, val))
            return false;
    }
    return true;
}

static bool same_entry(struct json_object *x, struct json_object *y)
{
    return num(x, "table_id", 0) == num(y, "table_id", 0) &&
           num(x, "priority", 0x8000) == num(y, "priority", 0x8000) &&
           match_equal(match_of(x), match_of(y));
}

static bool cookie_ok(struct json_object *flow, struct json_object *req)
{
    uint64_t mask = num(req, "cookie_mask", 0);

    return mask == 0 || (num(flow, "cookie", 0) & mask) == (num(req, "cookie", 0) & mask);
}

static bool table_ok(struct json_object *flow, struct json_object *req)
{
    uint64_t t = num(req, "table_id", 255);

    return t == 255 || num(flow, "table_id", 0) == t;
}

static void copy_actions(struct json_object *dst, struct json_object *src)
{
    static const char *const keys[] = {"instructions", "actions"};

    for (int i = 0; i < 2; i++) {
        struct json_object *v = field(src, keys[i]), *c = NULL;
        json_object_object_del(dst, keys[i]);
        if (v && json_object_deep_copy(v, &c, NULL) == 0)
            json_object_object_add(dst, keys[i], c);
    }
}

static void apply(struct sim_switch *sw, enum cmd cmd, struct json_object *flow)
{
    struct json_object *kept = json_object_new_array(), *copy = NULL;
    size_t n = json_object_array_length(sw->flows);
    bool replaced = false;

    if (!kept)
        return;
    for (size_t k = 0; k < n; k++) {
        struct json_object *f = json_object_array_get_idx(sw->flows, k);
        bool drop = false;
        switch (cmd) {
        case CMD_ADD:
            if (same_entry(f, flow) && !replaced) {
                /* replace in place, keeping the position */
                if (json_object_deep_copy(flow, &copy, NULL) == 0) {
                    json_object_array_add(kept, copy);
                    replaced = true;
                    continue;
                }
            }
            break;
        case CMD_MODIFY:
        case CMD_MODIFY_STRICT:
            if (cookie_ok(f, flow) && table_ok(f, flow) &&
                (cmd == CMD_MODIFY ? match_covers(match_of(f), match_of(flow)) : same_entry(f, flow)))
                copy_actions(f, flow);
            break;
        case CMD_DELETE:
            drop = cookie_ok(f, flow) && table_ok(f, flow) && match_covers(match_of(f), match_of(flow));
            break;
        case CMD_DELETE_STRICT:
            drop = cookie_ok(f, flow) && same_entry(f, flow);
            break;
        default:
            break;
        }
        if (!drop)
            json_object_array_add(kept, json_object_get(f));
    }
    if (cmd == CMD_ADD && !replaced && json_object_deep_copy(flow, &copy, NULL) == 0) {
        json_object_object_del(copy, "cookie_mask");
        json_object_array_add(kept, copy);
    }
    json_object_put(sw->flows);
    sw->flows = kept;
}

static struct json_object *reply(const char *dpid, struct json_object *xid)
{
    struct json_object *c = json_object_new_object();

    if (!c)
        return NULL;
    json_object_object_add(c, "source", json_object_new_string(dpid));
    json_object_object_add(c, "dpid", json_object_new_string(dpid));
    json_object_object_add(c, "xid", xid ? json_object_get(xid) : NULL);
    return c;
}

static void copy_into(struct json_object *dst, const char *key, struct json_object *v)
{
    struct json_object *c = NULL;

    if (v && json_object_deep_copy(v, &c, NULL) == 0)
        json_object_object_add(dst, key, c);
    else
        json_object_object_add(dst, key, NULL);
}

static void on_message(struct simnet *s, const char *name, struct json_object *c, struct sim_evq *q)
{
    struct json_object *dest = field(c, "destination"), *xid = field(c, "xid");
    struct sim_switch *sw = NULL;
    const char *dpid;
    char msg[TOPO_DPID_MAX + 64];

    if (!dest)
        dest = field(c, "dpid");
    dpid = json_object_is_type(dest, json_type_string) ? json_object_get_string(dest) : NULL;
    if (!dpid || !topo_dpid_valid(dpid)) {
        kytos_log(s->napp, KYTOS_LOG_WARNING, "%s without a valid destination ignored", name);
        return;
    }
    sw = sim_switch_find(s, dpid);
    if (!sw || !sw->connected) {
        struct json_object *e = json_object_new_object();
        snprintf(msg, sizeof(msg), "switch %s is not connected", dpid);
        json_object_object_add(e, "destination", json_object_new_string(dpid));
        copy_into(e, "xid", xid);
        copy_into(e, "command", field(c, "command"));
        copy_into(e, "flow", field(c, "flow"));
        json_object_object_add(e, "exception", json_object_new_string(msg));
        sim_evq_add(q, "kytos/core.openflow.connection.error", e);
        return;
    }
    if (strstr(name, "ofpt_barrier_request")) {
        sim_evq_add(q, "kytos/of_core.v0x04.messages.in.ofpt_barrier_reply", reply(dpid, xid));
        return;
    }
    if (strstr(name, "ofpt_flow_mod")) {
        struct json_object *flow = field(c, "flow");
        enum cmd cmd = parse_command(field(c, "command"));
        struct json_object *m = field(flow, "match");
        if (!json_object_is_type(flow, json_type_object) || cmd == CMD_BAD ||
            (m && !json_object_is_type(m, json_type_object))) {
            struct json_object *e = reply(dpid, xid);
            json_object_object_del(e, "dpid");
            json_object_object_add(e, "error_type", json_object_new_string("OFPET_BAD_REQUEST"));
            json_object_object_add(e, "error_code", json_object_new_string("OFPBRC_BAD_TYPE"));
            json_object_object_add(e, "reason",
                                   json_object_new_string(cmd == CMD_BAD ? "unknown command"
                                                                         : "flow must be an object"));
            copy_into(e, "flow", flow);
            sim_evq_add(q, "kytos/of_core.v0x04.messages.in.ofpt_error", e);
            return;
        }
        apply(sw, cmd, flow);
    }
}

static int on_flow_manager(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct simnet *s = ud;
    struct json_object *c = kytos_event_content(ev);
    const char *name = kytos_event_name(ev);
    struct sim_evq q = {0};

    (void)napp;
    if (!name || !json_object_is_type(c, json_type_object))
        return KYTOS_OK;
    pthread_mutex_lock(&s->lock);
    on_message(s, name, c, &q);
    sim_evq_flush_locked(s, &q);
    return KYTOS_OK;
}

int sim_flows_subscribe(struct simnet *s)
{
    return kytos_event_subscribe(s->napp, &(struct kytos_sub){
        .struct_size = sizeof(struct kytos_sub),
        .pattern = "kytos/flow_manager\\.messages\\.out\\.(ofpt_flow_mod|ofpt_barrier_request)",
        .handler = on_flow_manager,
        .ud = s,
        .pool = "dynamic_single",
    });
}

static int64_t now_secs(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec;
}

size_t sim_flow_stats_all(struct simnet *s, struct sim_evq *q)
{
    size_t count = 0;
    int64_t now = now_secs();

    for (size_t i = 0; i < s->n_switches; i++) {
        struct sim_switch *sw = s->switches[i];
        struct json_object *c, *list;
        size_t n;
        if (!sw->connected)
            continue;
        c = json_object_new_object();
        list = json_object_new_array();
        if (!c || !list) {
            json_object_put(c);
            json_object_put(list);
            continue;
        }
        n = json_object_array_length(sw->flows);
        for (size_t k = 0; k < n; k++) {
            struct json_object *f = NULL, *stats = json_object_new_object();
            if (json_object_deep_copy(json_object_array_get_idx(sw->flows, k), &f, NULL) != 0) {
                json_object_put(stats);
                continue;
            }
            json_object_object_add(f, "switch", json_object_new_string(sw->dpid));
            json_object_object_add(stats, "byte_count", json_object_new_int(0));
            json_object_object_add(stats, "duration_sec", json_object_new_int64(now - sw->connected_at));
            json_object_object_add(stats, "duration_nsec", json_object_new_int(0));
            json_object_object_add(stats, "packet_count", json_object_new_int(0));
            json_object_object_add(f, "stats", stats);
            json_object_array_add(list, f);
        }
        json_object_object_add(c, "switch", json_object_new_string(sw->dpid));
        json_object_object_add(c, "replies_flows", list);
        sim_evq_add(q, "kytos/of_core.flow_stats.received", c);
        count++;
    }
    return count;
}

void sim_flow_stats_tick(kytos_napp *napp, void *ud)
{
    struct simnet *s = ud;
    struct sim_evq q = {0};

    (void)napp;
    pthread_mutex_lock(&s->lock);
    if (!s->stats_ticked) {
        /* the host runs a timer once at start: first report after one interval */
        s->stats_ticked = true;
        pthread_mutex_unlock(&s->lock);
        return;
    }
    sim_flow_stats_all(s, &q);
    sim_evq_flush_locked(s, &q);
}
