/* plugins/topology/rest_switch.c - v3/switches/{dpid}/...: enable, disable,
 * delete and metadata, with Kytos' codes and texts. */
#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void queue_dpid_event(struct topo_op *op, const char *name, const char *dpid)
{
    struct json_object *c = json_object_new_object();

    if (!c)
        return;
    json_object_object_add(c, "dpid", json_object_new_string(dpid));
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

static bool link_touches(const struct topo_link *l, const struct topo_switch *sw)
{
    return l->a->sw == sw || l->b->sw == sw;
}

static int enable_switch(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    const char *dpid = kytos_req_param(req, "dpid");
    struct topo_switch *sw;
    struct topo_op op;
    int rc;

    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    sw = topo_switch_find(t, dpid);
    if (sw && topo_op_save_flags(&op)) {
        sw->enabled = true;
        op.changed = true;
        topo_op_persist_switch(&op, sw);
        queue_dpid_event(&op, "kytos/topology.switch.enabled", sw->dpid);
        for (size_t n = 0; n < t->n_links; n++)
            if (link_touches(t->links[n], sw))
                topo_link_notify_later(&op, t->links[n], "link enabled");
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    if (!sw)
        return kytos_resp_error(req, 404, "Switch not found");
    if (rc < 0)
        return topo_reply_store_error(req, rc);
    return topo_reply_str(req, 201, "Operation successful");
}

static int disable_switch(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    const char *dpid = kytos_req_param(req, "dpid");
    struct topo_switch *sw;
    struct topo_op op;
    int rc;

    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    sw = topo_switch_find(t, dpid);
    if (sw && topo_op_save_flags(&op)) {
        for (size_t k = 0; k < sw->n_intfs; k++) {
            struct topo_link *l = sw->intfs[k]->link;
            if (l && topo_link_is_enabled(l)) {
                l->enabled = false;
                topo_op_persist_link(&op, l);
                queue_link_state_event(&op, "kytos/topology.link.disabled", l);
            }
        }
        /* Switch.disable() disables its interfaces as well */
        sw->enabled = false;
        for (size_t k = 0; k < sw->n_intfs; k++)
            sw->intfs[k]->enabled = false;
        op.changed = true;
        topo_op_persist_switch(&op, sw);
        queue_dpid_event(&op, "kytos/topology.switch.disabled", sw->dpid);
        for (size_t n = 0; n < t->n_links; n++)
            if (link_touches(t->links[n], sw))
                topo_link_eval(&op, t->links[n], "link disabled");
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    if (!sw)
        return kytos_resp_error(req, 404, "Switch not found");
    if (rc < 0)
        return topo_reply_store_error(req, rc);
    return topo_reply_str(req, 201, "Operation successful");
}

/* The 409 conditions of DELETE v3/switches/{dpid}, without the flows.
 * Returns NULL when deletable, else a static or malloc'd (*owned) text. */
static const char *switch_in_use(struct topo *t, struct topo_switch *sw, char **owned)
{
    *owned = NULL;
    if (topo_switch_status(sw) != TOPO_DISABLED)
        return "Switch should be disabled.";
    for (size_t n = 0; n < t->n_links; n++) {
        if (link_touches(t->links[n], sw)) {
            size_t len = strlen(t->links[n]->id) + 64;
            *owned = malloc(len);
            if (*owned)
                snprintf(*owned, len, "Switch should not have links. Link found %s.",
                         t->links[n]->id);
            return *owned ? *owned : "Switch should not have links.";
        }
    }
    return NULL;
}

static int delete_switch(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    const char *dpid = kytos_req_param(req, "dpid");
    struct json_object *flows, *dict = NULL;
    struct topo_switch *sw;
    struct topo_op op;
    const char *why;
    char *owned = NULL, *err = NULL;
    bool found;
    int rc;

    /* cheap checks first, without blocking writers */
    pthread_rwlock_rdlock(&t->rw);
    sw = topo_switch_find(t, dpid);
    found = sw != NULL;
    why = sw ? switch_in_use(t, sw, &owned) : NULL;
    pthread_rwlock_unlock(&t->rw);
    if (!found)
        return kytos_resp_error(req, 404, "Switch not found.");
    if (why) {
        kytos_resp_error(req, 409, "%s", why);
        free(owned);
        return KYTOS_OK;
    }
    flows = topo_switch_flows(t, dpid, &err);
    if (!flows) {
        kytos_resp_error(req, 409, "Error while getting flows: %s.", err ? err : "unknown error");
        free(err);
        return KYTOS_OK;
    }
    if (json_object_array_length(flows) > 0) {
        json_object_put(flows);
        return kytos_resp_error(req, 409, "Switch has flows. Verify if a switch is used.");
    }
    json_object_put(flows);

    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    sw = topo_switch_find(t, dpid);
    why = sw ? switch_in_use(t, sw, &owned) : NULL;
    if (sw && !why && topo_op_remove_switch(&op, sw)) {
        struct json_object *c = json_object_new_object();
        dict = topo_switch_dict(sw, false, 0);
        json_object_object_add(c, "switch", dict);
        topo_op_event(&op, "kytos/topology.switch.deleted", c);
        /* sw lives on until the op ends (freed, or put back on a failure) */
        topo_op_delete_doc(&op, "switches", sw->dpid);
        for (size_t k = 0; k < sw->n_intfs; k++)
            topo_op_delete_doc(&op, TOPO_TAGS_COLL, sw->intfs[k]->id);
        op.changed = true;
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    if (!sw)
        return kytos_resp_error(req, 404, "Switch not found.");
    if (why) {
        kytos_resp_error(req, 409, "%s", why);
        free(owned);
        return KYTOS_OK;
    }
    if (rc < 0)  /* the switch is back in memory */
        return topo_reply_store_error(req, rc);
    return topo_reply_str(req, 200, "Operation successful");
}

static int get_switch_metadata(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    struct json_object *body = NULL, *md = NULL;
    struct topo_switch *sw;

    pthread_rwlock_rdlock(&t->rw);
    sw = topo_switch_find(t, kytos_req_param(req, "dpid"));
    if (sw)
        json_object_deep_copy(sw->metadata, &md, NULL);
    pthread_rwlock_unlock(&t->rw);
    if (!sw)
        return kytos_resp_error(req, 404, "Switch not found");
    body = json_object_new_object();
    json_object_object_add(body, "metadata", md ? md : json_object_new_object());
    return kytos_resp_json_take(req, 200, body);
}

static int add_switch_metadata(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    struct json_object *md = topo_metadata_body(req);
    struct topo_switch *sw;
    struct topo_op op;
    int rc;

    if (!md)
        return KYTOS_OK;
    topo_op_begin(&op, t);
    op.quiet = true;
    topo_op_lock_model(&op);
    sw = topo_switch_find(t, kytos_req_param(req, "dpid"));
    if (sw && topo_op_save_metadata(&op, &sw->metadata)) {
        json_object_object_foreach(md, key, val)
            json_object_object_add(sw->metadata, key, json_object_get(val));
        op.changed = true;
        topo_op_persist_switch(&op, sw);
        topo_op_event(&op, "kytos/topology.switches.metadata.added",
                      topo_metadata_event("switch", topo_switch_dict(sw, false, 0), sw->metadata));
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    json_object_put(md);
    if (!sw)
        return kytos_resp_error(req, 404, "Switch not found");
    if (rc < 0)
        return topo_reply_store_error(req, rc);
    return topo_reply_str(req, 201, "Operation successful");
}

static int delete_switch_metadata(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    const char *key = kytos_req_param(req, "key");
    struct topo_switch *sw;
    struct topo_op op;
    bool had = false;
    int rc;

    topo_op_begin(&op, t);
    op.quiet = true;
    topo_op_lock_model(&op);
    sw = topo_switch_find(t, kytos_req_param(req, "dpid"));
    if (sw && key && json_object_object_get_ex(sw->metadata, key, NULL) &&
        topo_op_save_metadata(&op, &sw->metadata)) {
        had = true;
        json_object_object_del(sw->metadata, key);
        op.changed = true;
        topo_op_persist_switch(&op, sw);
        topo_op_event(&op, "kytos/topology.switches.metadata.removed",
                      topo_metadata_event("switch", topo_switch_dict(sw, false, 0), sw->metadata));
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    if (!sw)
        return kytos_resp_error(req, 404, "Switch not found");
    if (rc < 0)
        return topo_reply_store_error(req, rc);
    if (!had)
        return kytos_resp_error(req, 404, "Metadata not found");
    return topo_reply_str(req, 200, "Operation successful");
}

int topo_routes_switch(struct topo *t)
{
    static const struct topo_route routes[] = {
        {"POST", "v3/switches/{dpid}/enable", enable_switch, 0},
        {"POST", "v3/switches/{dpid}/disable", disable_switch, 0},
        {"DELETE", "v3/switches/{dpid}", delete_switch, 0},
        {"GET", "v3/switches/{dpid}/metadata", get_switch_metadata, 0},
        {"POST", "v3/switches/{dpid}/metadata", add_switch_metadata, 0},
        {"DELETE", "v3/switches/{dpid}/metadata/{key}", delete_switch_metadata, 0},
    };

    return topo_routes_add(t, routes, sizeof routes / sizeof routes[0]);
}
