/* plugins/topology/rest_intf.c - v3/interfaces/...: enable, disable,
 * delete and metadata, with Kytos' codes and texts.  Where Kytos crashes on
 * a non-numeric port (int() raising, a 500), we answer 400. */
#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void queue_intf_event(struct topo_op *op, const char *name, struct topo_intf *i)
{
    struct json_object *c = json_object_new_object();

    if (!c)
        return;
    json_object_object_add(c, "interface", topo_intf_dict(i));
    topo_op_event(op, name, c);
}

static void queue_link_state_event(struct topo_op *op, const char *name, struct topo_link *l)
{
    struct json_object *c = json_object_new_object();

    if (!c)
        return;
    json_object_object_add(c, "link", topo_link_dict(l, topo_now_ms()));
    topo_op_event(op, name, c);
}

static void intf_enable(struct topo_op *op, struct topo_intf *i)
{
    if (!i->enabled) {
        i->enabled = true;
        queue_intf_event(op, "kytos/topology.interface.enabled", i);
    }
    if (i->link)
        topo_link_notify_later(op, i->link, "link enabled");
}

static void intf_disable(struct topo_op *op, struct topo_intf *i)
{
    if (i->link && topo_link_is_enabled(i->link)) {
        i->link->enabled = false;
        topo_op_persist_link(op, i->link);
        queue_link_state_event(op, "kytos/topology.link.disabled", i->link);
    }
    if (i->enabled) {
        i->enabled = false;
        queue_intf_event(op, "kytos/topology.interface.disabled", i);
    }
    if (i->link)
        topo_link_eval(op, i->link, "link disabled");
}

/* POST v3/interfaces/switch/{dpid}/(enable|disable) and
 * POST v3/interfaces/{id}/(enable|disable). */
static int set_enabled(kytos_req *req, struct topo *t, bool enable, bool whole_switch)
{
    const char *id = kytos_req_param(req, whole_switch ? "dpid" : "interface_id");
    char dpid[TOPO_DPID_MAX + 1];
    struct topo_switch *sw;
    struct topo_intf *i = NULL;
    struct topo_op op;
    uint32_t port = 0;
    bool port_ok = true;
    int status = 200, rc;

    if (whole_switch) {
        snprintf(dpid, sizeof(dpid), "%s", id ? id : "");
        if (id && strlen(id) > TOPO_DPID_MAX)
            dpid[0] = '\0';  /* cannot exist */
    } else {
        topo_split_intf_id(id, dpid, sizeof(dpid), &port, &port_ok);
    }
    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    sw = topo_switch_find(t, dpid);
    if (!sw)
        status = 404;
    else if (enable && !sw->enabled)
        status = 409;
    else if (!whole_switch && !port_ok)
        status = 400;
    else if (!whole_switch && !(i = topo_intf_find(sw, port)))
        status = 4040;
    if (status == 200 && topo_op_save_flags(&op)) {
        op.changed = true;
        for (size_t k = 0; k < sw->n_intfs; k++) {
            struct topo_intf *x = sw->intfs[k];
            if (i && x != i)
                continue;
            if (enable)
                intf_enable(&op, x);
            else
                intf_disable(&op, x);
        }
        topo_op_persist_switch(&op, sw);
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    switch (status) {
    case 404:
        return kytos_resp_error(req, 404, "Switch not found");
    case 409:
        return kytos_resp_error(req, 409, "Enable Switch first");
    case 400:
        return kytos_resp_error(req, 400, "Invalid interface_id %s", id ? id : "");
    case 4040:
        return kytos_resp_error(req, 404, "Switch %s interface %u not found", dpid, port);
    default:
        if (rc < 0)
            return topo_reply_store_error(req, rc);
        return topo_reply_str(req, 200, "Operation successful");
    }
}

static int enable_switch_intfs(kytos_req *req, void *ud)
{
    return set_enabled(req, ud, true, true);
}

static int disable_switch_intfs(kytos_req *req, void *ud)
{
    return set_enabled(req, ud, false, true);
}

static int enable_intf(kytos_req *req, void *ud)
{
    return set_enabled(req, ud, true, false);
}

static int disable_intf(kytos_req *req, void *ud)
{
    return set_enabled(req, ud, false, false);
}

/* Lookup for the metadata routes: 400 bad id, 404 switch, 404 interface.
 * Caller holds the model lock.  NULL after answering. */
static struct topo_intf *find_or_answer(kytos_req *req, struct topo *t, int *status)
{
    const char *id = kytos_req_param(req, "interface_id");
    char dpid[TOPO_DPID_MAX + 1];
    struct topo_switch *sw;
    struct topo_intf *i;
    uint32_t port;
    bool port_ok;

    topo_split_intf_id(id, dpid, sizeof(dpid), &port, &port_ok);
    if (!port_ok) {
        *status = 400;
        return NULL;
    }
    sw = topo_switch_find(t, dpid);
    if (!sw) {
        *status = 404;
        return NULL;
    }
    i = topo_intf_find(sw, port);
    *status = i ? 200 : 4040;
    return i;
}

static int answer_lookup(kytos_req *req, int status)
{
    if (status == 400)
        return kytos_resp_error(req, 400, "Invalid interface_id %s",
                                kytos_req_param(req, "interface_id"));
    if (status == 404)
        return kytos_resp_error(req, 404, "Switch not found");
    return kytos_resp_error(req, 404, "Interface not found");
}

static int get_intf_metadata(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    struct json_object *md = NULL, *body;
    struct topo_intf *i;
    int status;

    pthread_rwlock_rdlock(&t->rw);
    i = find_or_answer(req, t, &status);
    if (i)
        json_object_deep_copy(i->metadata, &md, NULL);
    pthread_rwlock_unlock(&t->rw);
    if (!i)
        return answer_lookup(req, status);
    body = json_object_new_object();
    json_object_object_add(body, "metadata", md ? md : json_object_new_object());
    return kytos_resp_json_take(req, 200, body);
}

static int add_intf_metadata(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    struct json_object *md = topo_metadata_body(req);
    struct topo_intf *i;
    struct topo_op op;
    int status, rc;

    if (!md)
        return KYTOS_OK;
    topo_op_begin(&op, t);
    op.quiet = true;
    topo_op_lock_model(&op);
    i = find_or_answer(req, t, &status);
    if (i && topo_op_save_metadata(&op, &i->metadata)) {
        json_object_object_foreach(md, key, val)
            json_object_object_add(i->metadata, key, json_object_get(val));
        op.changed = true;
        topo_op_persist_switch(&op, i->sw);
        topo_op_event(&op, "kytos/topology.interfaces.metadata.added",
                      topo_metadata_event("interface", topo_intf_dict(i), i->metadata));
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    json_object_put(md);
    if (!i)
        return answer_lookup(req, status);
    if (rc < 0)
        return topo_reply_store_error(req, rc);
    return topo_reply_str(req, 201, "Operation successful");
}

static int delete_intf_metadata(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    const char *key = kytos_req_param(req, "key");
    struct topo_intf *i;
    struct topo_op op;
    bool had = false;
    int status, rc;

    topo_op_begin(&op, t);
    op.quiet = true;
    topo_op_lock_model(&op);
    i = find_or_answer(req, t, &status);
    if (i && key && json_object_object_get_ex(i->metadata, key, NULL) &&
        topo_op_save_metadata(&op, &i->metadata)) {
        had = true;
        json_object_object_del(i->metadata, key);
        op.changed = true;
        topo_op_persist_switch(&op, i->sw);
        topo_op_event(&op, "kytos/topology.interfaces.metadata.removed",
                      topo_metadata_event("interface", topo_intf_dict(i), i->metadata));
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    if (!i)
        return answer_lookup(req, status);
    if (rc < 0)
        return topo_reply_store_error(req, rc);
    if (!had)
        return kytos_resp_error(req, 404, "Metadata not found");
    return topo_reply_str(req, 200, "Operation successful");
}

/* get_intf_usage without the flows: NULL when unused.  Any link with the
 * interface as an endpoint counts, not only i->link: removing it under a
 * link left by re-cabling would leave that link pointing at freed memory. */
static char *intf_usage(struct topo *t, const struct topo_intf *i)
{
    char buf[TOPO_LINK_ID_LEN + 64];
    const struct topo_link *l;

    if (i->enabled || i->active)
        return strdup("It is enabled or active.");
    l = topo_intf_any_link(t, i);
    if (l) {
        snprintf(buf, sizeof(buf), "It has a link, %s.", l->id);
        return strdup(buf);
    }
    return NULL;
}

static bool action_outputs(struct json_object *actions, uint32_t port)
{
    size_t n = json_object_is_type(actions, json_type_array) ? json_object_array_length(actions) : 0;

    for (size_t k = 0; k < n; k++) {
        struct json_object *a = json_object_array_get_idx(actions, k), *v;
        if (json_object_object_get_ex(a, "action_type", &v) &&
            json_object_is_type(v, json_type_string) &&
            strcmp(json_object_get_string(v), "output") == 0 &&
            json_object_object_get_ex(a, "port", &v) && json_object_is_type(v, json_type_int) &&
            json_object_get_int64(v) == (int64_t)port)
            return true;
    }
    return false;
}

/* get_flow_id_by_intf: the first stored flow using the port. */
static const char *flow_using(struct json_object *flows, uint32_t port)
{
    size_t n = json_object_array_length(flows);

    for (size_t k = 0; k < n; k++) {
        struct json_object *doc = json_object_array_get_idx(flows, k), *flow, *v, *ins;
        const char *flow_id = NULL;
        if (json_object_object_get_ex(doc, "flow_id", &v) && json_object_is_type(v, json_type_string))
            flow_id = json_object_get_string(v);
        if (!flow_id || !json_object_object_get_ex(doc, "flow", &flow))
            continue;
        if (json_object_object_get_ex(flow, "match", &v) && json_object_object_get_ex(v, "in_port", &v) &&
            json_object_is_type(v, json_type_int) && json_object_get_int64(v) == (int64_t)port)
            return flow_id;
        if (json_object_object_get_ex(flow, "instructions", &ins) &&
            json_object_is_type(ins, json_type_array)) {
            for (size_t m = 0; m < json_object_array_length(ins); m++) {
                struct json_object *in = json_object_array_get_idx(ins, m), *acts;
                if (json_object_object_get_ex(in, "instruction_type", &v) &&
                    json_object_is_type(v, json_type_string) &&
                    strcmp(json_object_get_string(v), "apply_actions") == 0 &&
                    json_object_object_get_ex(in, "actions", &acts) && action_outputs(acts, port))
                    return flow_id;
            }
        }
        if (json_object_object_get_ex(flow, "actions", &v) && action_outputs(v, port))
            return flow_id;
    }
    return NULL;
}

static int delete_intf(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    const char *id = kytos_req_param(req, "interface_id");
    char dpid[TOPO_DPID_MAX + 1], *usage = NULL, *err = NULL;
    struct json_object *flows;
    struct topo_switch *sw;
    struct topo_intf *i;
    struct topo_op op;
    const char *flow_id;
    uint32_t port;
    bool port_ok;
    int status = 200, rc;

    topo_split_intf_id(id, dpid, sizeof(dpid), &port, &port_ok);
    if (!port_ok)
        return kytos_resp_error(req, 400, "Invalid interface id.");
    pthread_rwlock_rdlock(&t->rw);
    sw = topo_switch_find(t, dpid);
    i = topo_intf_find(sw, port);
    if (i)
        usage = intf_usage(t, i);
    pthread_rwlock_unlock(&t->rw);
    if (!sw)
        return kytos_resp_error(req, 404, "Switch not found.");
    if (!i)
        return kytos_resp_error(req, 404, "Interface not found.");
    if (!usage) {
        flows = topo_switch_flows(t, dpid, &err);
        if (!flows) {
            kytos_resp_error(req, 409, "Interface could not be deleted. Reason: Error while getting flows: %s.",
                             err ? err : "unknown error");
            free(err);
            return KYTOS_OK;
        }
        flow_id = flow_using(flows, port);
        if (flow_id) {
            size_t len = strlen(flow_id) + 48;
            usage = malloc(len);
            if (usage)
                snprintf(usage, len, "There is a flow installed, %s.", flow_id);
        }
        json_object_put(flows);
    }
    if (usage) {
        kytos_resp_error(req, 409, "Interface could not be deleted. Reason: %s", usage);
        free(usage);
        return KYTOS_OK;
    }

    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    sw = topo_switch_find(t, dpid);
    i = topo_intf_find(sw, port);
    if (!i) {
        status = 404;
    } else if ((usage = intf_usage(t, i)) == NULL) {
        /* i lives on until the op ends (freed, or put back on a failure) */
        if (topo_op_remove_intf(&op, i)) {
            topo_op_delete_doc(&op, TOPO_TAGS_COLL, i->id);
            topo_op_persist_switch(&op, sw);
            op.changed = true;
        } else {
            status = 500;  /* out of memory, or linked after all (intf_usage ran out) */
        }
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    if (status == 404)
        return kytos_resp_error(req, 404, "Interface not found.");
    if (status == 500)
        return kytos_resp_error(req, 500, "Interface %s could not be deleted: out of memory", id);
    if (usage) {
        kytos_resp_error(req, 409, "Interface could not be deleted. Reason: %s", usage);
        free(usage);
        return KYTOS_OK;
    }
    if (rc < 0)  /* the interface is back in memory */
        return topo_reply_store_error(req, rc);
    return topo_reply_str(req, 200, "Operation Successful");
}

int topo_routes_intf(struct topo *t)
{
    static const struct topo_route routes[] = {
        {"POST", "v3/interfaces/switch/{dpid}/enable", enable_switch_intfs, 0},
        {"POST", "v3/interfaces/{interface_id}/enable", enable_intf, 0},
        {"POST", "v3/interfaces/switch/{dpid}/disable", disable_switch_intfs, 0},
        {"POST", "v3/interfaces/{interface_id}/disable", disable_intf, 0},
        {"GET", "v3/interfaces/{interface_id}/metadata", get_intf_metadata, 0},
        {"POST", "v3/interfaces/{interface_id}/metadata", add_intf_metadata, 0},
        {"DELETE", "v3/interfaces/{interface_id}/metadata/{key}", delete_intf_metadata, 0},
        {"DELETE", "v3/interfaces/{interface_id}", delete_intf, 0},
    };

    return topo_routes_add(t, routes, sizeof routes / sizeof routes[0]);
}
