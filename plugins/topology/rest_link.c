/* plugins/topology/rest_link.c - v3/links/{link_id}/...: enable, disable,
 * delete and metadata, with Kytos' codes and texts. */
#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void queue_link_state_event(struct topo_op *op, const char *name, struct topo_link *l)
{
    struct json_object *c = json_object_new_object();

    if (!c)
        return;
    json_object_object_add(c, "link", topo_link_dict(l, topo_now_ms()));
    topo_op_event(op, name, c);
}

static int enable_link(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    struct topo_link *l;
    struct topo_op op;
    char needs[TOPO_INTF_ID_MAX + 1] = "";
    int rc;

    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    l = topo_link_find(t, kytos_req_param(req, "link_id"));
    if (l && !l->a->enabled)
        snprintf(needs, sizeof(needs), "%s", l->a->id);
    else if (l && !l->b->enabled)
        snprintf(needs, sizeof(needs), "%s", l->b->id);
    if (l && !needs[0] && topo_op_save_flags(&op)) {
        if (!topo_link_is_enabled(l)) {
            l->enabled = true;
            topo_op_persist_link(&op, l);
            queue_link_state_event(&op, "kytos/topology.link.enabled", l);
        }
        topo_link_eval(&op, l, "link enabled");
        op.changed = true;
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    if (!l)
        return kytos_resp_error(req, 404, "Link not found");
    if (needs[0])
        return kytos_resp_error(req, 409, "%s needs enabling.", needs);
    if (rc < 0)
        return topo_reply_store_error(req, rc);
    return topo_reply_str(req, 201, "Operation successful");
}

static int disable_link(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    struct topo_link *l;
    struct topo_op op;
    int rc;

    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    l = topo_link_find(t, kytos_req_param(req, "link_id"));
    if (l && topo_op_save_flags(&op)) {
        if (topo_link_is_enabled(l)) {
            l->enabled = false;
            topo_op_persist_link(&op, l);
            queue_link_state_event(&op, "kytos/topology.link.disabled", l);
        }
        topo_link_eval(&op, l, "link disabled");
        op.changed = true;
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    if (!l)
        return kytos_resp_error(req, 404, "Link not found");
    if (rc < 0)
        return topo_reply_store_error(req, rc);
    return topo_reply_str(req, 201, "Operation successful");
}

static int get_link_metadata(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    struct json_object *md = NULL, *body;
    struct topo_link *l;

    pthread_rwlock_rdlock(&t->rw);
    l = topo_link_find(t, kytos_req_param(req, "link_id"));
    if (l)
        json_object_deep_copy(l->metadata, &md, NULL);
    pthread_rwlock_unlock(&t->rw);
    if (!l)
        return kytos_resp_error(req, 404, "Link not found");
    body = json_object_new_object();
    json_object_object_add(body, "metadata", md ? md : json_object_new_object());
    return kytos_resp_json_take(req, 200, body);
}

static int add_link_metadata(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    struct json_object *md = topo_metadata_body(req);
    struct topo_link *l;
    struct topo_op op;
    int rc;

    if (!md)
        return KYTOS_OK;
    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    l = topo_link_find(t, kytos_req_param(req, "link_id"));
    if (l && topo_op_save_metadata(&op, &l->metadata)) {
        json_object_object_foreach(md, key, val)
            json_object_object_add(l->metadata, key, json_object_get(val));
        op.changed = true;
        topo_op_persist_link(&op, l);
        topo_op_event(&op, "kytos/topology.links.metadata.added",
                      topo_metadata_event("link", topo_link_dict(l, topo_now_ms()), l->metadata));
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    json_object_put(md);
    if (!l)
        return kytos_resp_error(req, 404, "Link not found");
    if (rc < 0)
        return topo_reply_store_error(req, rc);
    return topo_reply_str(req, 201, "Operation successful");
}

static int delete_link_metadata(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    const char *key = kytos_req_param(req, "key");
    struct topo_link *l;
    struct topo_op op;
    bool had = false;
    int rc;

    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    l = topo_link_find(t, kytos_req_param(req, "link_id"));
    if (l && key && json_object_object_get_ex(l->metadata, key, NULL) &&
        topo_op_save_metadata(&op, &l->metadata)) {
        had = true;
        json_object_object_del(l->metadata, key);
        op.changed = true;
        topo_op_persist_link(&op, l);
        topo_op_event(&op, "kytos/topology.links.metadata.removed",
                      topo_metadata_event("link", topo_link_dict(l, topo_now_ms()), l->metadata));
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    if (!l)
        return kytos_resp_error(req, 404, "Link not found");
    if (rc < 0)
        return topo_reply_store_error(req, rc);
    if (!had)
        return kytos_resp_error(req, 404, "Metadata not found");
    return topo_reply_str(req, 200, "Operation successful");
}

static int delete_link(kytos_req *req, void *ud)
{
    struct topo *t = ud;
    struct topo_link *l;
    struct topo_op op;
    bool busy = false;
    int rc;

    topo_op_begin(&op, t);
    topo_op_lock_model(&op);
    l = topo_link_find(t, kytos_req_param(req, "link_id"));
    if (l && topo_link_status(l, topo_now_ms()) != TOPO_DISABLED) {
        busy = true;
    } else if (l && topo_op_remove_link(&op, l)) {
        /* l lives on until the op ends (freed, or put back on a failure);
         * its endpoints left it before the docs, which name the link */
        struct json_object *c = json_object_new_object();
        struct topo_switch *sa = l->a->sw, *sb = l->b->sw;
        topo_op_persist_switch(&op, sa);
        if (sb != sa)
            topo_op_persist_switch(&op, sb);
        topo_op_delete_doc(&op, "links", l->id);
        json_object_object_add(c, "link", topo_link_dict(l, topo_now_ms()));
        topo_op_event(&op, "kytos/topology.link.deleted", c);
        op.changed = true;
    }
    topo_op_unlock_model(&op);
    rc = topo_op_end(&op);
    if (!l)
        return kytos_resp_error(req, 404, "Link not found.");
    if (busy)
        return kytos_resp_error(req, 409, "Link is not disabled.");
    if (rc < 0)  /* the link is back in memory */
        return topo_reply_store_error(req, rc);
    return topo_reply_str(req, 200, "Operation successful");
}

int topo_routes_link(struct topo *t)
{
    static const struct topo_route routes[] = {
        {"POST", "v3/links/{link_id}/enable", enable_link, 0},
        {"POST", "v3/links/{link_id}/disable", disable_link, 0},
        {"GET", "v3/links/{link_id}/metadata", get_link_metadata, 0},
        {"POST", "v3/links/{link_id}/metadata", add_link_metadata, 0},
        {"DELETE", "v3/links/{link_id}/metadata/{key}", delete_link_metadata, 0},
        {"DELETE", "v3/links/{link_id}", delete_link, 0},
    };

    return topo_routes_add(t, routes, sizeof routes / sizeof routes[0]);
}
