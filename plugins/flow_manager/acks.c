/* plugins/flow_manager/acks.c - what the switches tell flow_manager back,
 * and the event API (kytos.flow_manager.flows.install|delete).
 *
 * A barrier reply confirms every FlowMod sent before its barrier: the added
 * flows still pending (same flow_id) become "installed" and
 * kytos/flow_manager.flow.added is published for each, as Kytos'
 * _on_ofpt_barrier_reply does.  Flow stats confirm pending flows they list. */
#include "fm.h"
#include "req_util.h"

#include <stdlib.h>
#include <string.h>

/* The dpid an event names ("dpid", "switch", "source", "destination",
 * as a string or an object with "dpid"/"id"). */
static const char *ev_dpid(struct json_object *c)
{
    static const char *const keys[] = {"dpid", "switch", "source", "destination", "datapath"};
    struct json_object *v, *w;
    size_t i;

    for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (!json_object_object_get_ex(c, keys[i], &v))
            continue;
        if (json_object_is_type(v, json_type_string))
            return json_object_get_string(v);
        if (json_object_is_type(v, json_type_object) &&
            ((json_object_object_get_ex(v, "dpid", &w) && json_object_is_type(w, json_type_string)) ||
             (json_object_object_get_ex(v, "id", &w) && json_object_is_type(w, json_type_string))))
            return json_object_get_string(w);
    }
    return NULL;
}

/* Mark installed the stored flows of recs ({"match_id","flow_id","flow",
 * "xid"?}) that are still pending with the same flow: a confirmation whose
 * xid is the flow's latest write is applied blindly, a stale one is dropped,
 * and one we cannot tell is checked against the store.  Publishes
 * kytos/flow_manager.flow.added for each. */
static void confirm(struct fm_ctx *ctx, const char *dpid, struct json_object *recs)
{
    size_t i, n = json_object_array_length(recs), nops = 0;
    struct json_object *ids = NULL, *found = NULL, *upd, *set, *doc;
    struct kytos_write *ops;
    struct kytos_error err = {0};
    const char **mids;
    char now[32];
    signed char *verdict;

    if (n == 0)
        return;
    ops = calloc(n, sizeof *ops);
    mids = calloc(n, sizeof *mids);
    verdict = calloc(n, 1);
    if (!ops || !mids || !verdict)
        goto out;
    for (i = 0; i < n; i++) {
        struct json_object *rec = json_object_array_get_idx(recs, i), *x;
        uint64_t xid;
        mids[i] = json_object_get_string(json_object_object_get(rec, "match_id"));
        verdict[i] = -1;
        if (mids[i] && json_object_object_get_ex(rec, "xid", &x) &&
            fm_json_uint(x, UINT32_MAX, &xid))
            verdict[i] = (signed char)fm_latest_check(ctx->pending, mids[i], (uint32_t)xid);
        if (verdict[i] < 0 && mids[i]) {
            if (!ids)
                ids = json_object_new_array();
            json_object_array_add(ids, json_object_new_string(mids[i]));
        }
    }
    if (ids) {
        /* the ones we cannot tell: pending in the store with the same flow_id */
        struct json_object *filter = json_object_new_object(), *in = json_object_new_object();
        kytos_cursor *cur = NULL;
        json_object_object_add(in, "$in", ids);
        json_object_object_add(filter, "_id", in);
        json_object_object_add(filter, "state", json_object_new_string("pending"));
        found = json_object_new_object();
        if (kytos_store_find(ctx->napp, FM_COLL,
                             &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                                  .filter = filter},
                             &cur, &err) == KYTOS_OK) {
            while (kytos_cursor_next(cur, &doc, &err) == 1) {
                struct json_object *id = json_object_object_get(doc, "_id");
                if (json_object_is_type(id, json_type_string))
                    json_object_object_add(found, json_object_get_string(id),
                                           json_object_get(json_object_object_get(doc, "flow_id")));
                json_object_put(doc);
            }
            kytos_cursor_free(cur);
        } else {
            kytos_log(ctx->napp, KYTOS_LOG_ERROR, "reading pending flows failed: %s", err.message);
        }
        json_object_put(filter);
        for (i = 0; i < n; i++) {
            struct json_object *sfid;
            const char *fid = json_object_get_string(
                json_object_object_get(json_object_array_get_idx(recs, i), "flow_id"));
            if (verdict[i] >= 0 || !mids[i])
                continue;
            if (fid && json_object_object_get_ex(found, mids[i], &sfid) &&
                strcmp(json_object_get_string(sfid), fid) == 0) {
                verdict[i] = 1;
                json_object_object_del(found, mids[i]); /* once per _id */
            }
        }
    }
    fm_now_iso(now);
    upd = json_object_new_object();
    set = json_object_new_object();
    json_object_object_add(set, "state", json_object_new_string("installed"));
    json_object_object_add(set, "updated_at", json_object_new_string(now));
    json_object_object_add(upd, "$set", set);
    for (i = 0; i < n; i++) {
        if (verdict[i] != 1)
            continue;
        ops[nops].op = KYTOS_WRITE_PATCH;
        ops[nops].id = mids[i];
        ops[nops].doc = upd;
        nops++;
    }
    if (nops && kytos_store_bulk(ctx->napp, FM_COLL, ops, nops, &err) != KYTOS_OK) {
        /* a flow deleted meanwhile fails the whole bulk: apply one by one */
        size_t k;
        for (k = 0; k < nops; k++)
            if (kytos_store_patch(ctx->napp, FM_COLL, ops[k].id, upd, 0, NULL, &err) != KYTOS_OK)
                for (i = 0; i < n; i++)
                    if (verdict[i] == 1 && mids[i] == ops[k].id)
                        verdict[i] = 0;
    }
    json_object_put(upd);
    for (i = 0; i < n; i++) {
        struct json_object *ev;
        if (verdict[i] != 1)
            continue;
        ev = json_object_new_object();
        json_object_object_add(ev, "datapath", json_object_new_string(dpid));
        json_object_object_add(ev, "flow", json_object_get(json_object_object_get(
                                               json_object_array_get_idx(recs, i), "flow")));
        kytos_event_publish(ctx->napp, "kytos/flow_manager.flow.added", ev,
                            &(struct kytos_pub_opts){.struct_size = sizeof(struct kytos_pub_opts),
                                                     .timeout_ms = 2000});
        json_object_put(ev);
    }
out:
    json_object_put(found);
    free(ops);
    free(mids);
    free(verdict);
}

static int on_barrier_reply(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct fm_ctx *ctx = ud;
    struct json_object *c = kytos_event_content(ev), *x, *recs, *adds;
    const char *dpid = ev_dpid(c);
    uint64_t xid;
    size_t i, n;

    (void)napp;
    if (!json_object_object_get_ex(c, "xid", &x) || !fm_json_uint(x, UINT32_MAX, &xid))
        return KYTOS_OK;
    recs = fm_pending_take(ctx->pending, (uint32_t)xid, dpid);
    if (!recs)
        return KYTOS_OK;
    if (!dpid)
        dpid = "";
    /* only added flows get confirmed (cmd != "add" is skipped, as Kytos) */
    adds = json_object_new_array();
    n = json_object_array_length(recs);
    for (i = 0; i < n; i++) {
        struct json_object *r = json_object_array_get_idx(recs, i);
        const char *cmd = json_object_get_string(json_object_object_get(r, "command"));
        if (cmd && strcmp(cmd, "add") == 0)
            json_object_array_add(adds, json_object_get(r));
    }
    confirm(ctx, dpid, adds);
    json_object_put(adds);
    json_object_put(recs);
    return KYTOS_OK;
}

/* kytos/of_core.flow_stats.received {"switch": dpid, "replies_flows" (or
 * "flows"): [{"id": flow_id, ...}]}: the pending flows of that switch the
 * stats list are installed. */
static int on_flow_stats(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct fm_ctx *ctx = ud;
    struct json_object *c = kytos_event_content(ev), *flows = NULL, *filter, *doc, *seen, *recs;
    const char *dpid = ev_dpid(c);
    struct kytos_error err = {0};
    kytos_cursor *cur = NULL;
    size_t i, n;

    (void)napp;
    if (!json_object_object_get_ex(c, "replies_flows", &flows))
        json_object_object_get_ex(c, "flows", &flows);
    if (!dpid || !json_object_is_type(flows, json_type_array))
        return KYTOS_OK;
    seen = json_object_new_object();
    n = json_object_array_length(flows);
    for (i = 0; i < n; i++) {
        struct json_object *f = json_object_array_get_idx(flows, i), *id = NULL;
        if (json_object_is_type(f, json_type_string))
            id = f;
        else if (!json_object_object_get_ex(f, "id", &id))
            json_object_object_get_ex(f, "flow_id", &id);
        if (json_object_is_type(id, json_type_string))
            json_object_object_add(seen, json_object_get_string(id), NULL);
    }
    filter = json_object_new_object();
    json_object_object_add(filter, "switch", json_object_new_string(dpid));
    json_object_object_add(filter, "state", json_object_new_string("pending"));
    if (kytos_store_find(ctx->napp, FM_COLL,
                         &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                              .filter = filter},
                         &cur, &err) != KYTOS_OK) {
        json_object_put(filter);
        json_object_put(seen);
        return KYTOS_OK;
    }
    json_object_put(filter);
    recs = json_object_new_array();
    while (kytos_cursor_next(cur, &doc, &err) == 1) {
        const char *fid = json_object_get_string(json_object_object_get(doc, "flow_id"));
        if (fid && json_object_object_get_ex(seen, fid, NULL)) {
            struct json_object *r = json_object_new_object();
            json_object_object_add(r, "match_id",
                                   json_object_get(json_object_object_get(doc, "_id")));
            json_object_object_add(r, "flow_id", json_object_new_string(fid));
            json_object_object_add(r, "flow", json_object_get(json_object_object_get(doc, "flow")));
            json_object_array_add(recs, r);
        }
        json_object_put(doc);
    }
    kytos_cursor_free(cur);
    confirm(ctx, dpid, recs);
    json_object_put(recs);
    json_object_put(seen);
    return KYTOS_OK;
}

/* kytos.flow_manager.flows.(install|delete) {"dpid", "flow_dict": {"flows": [...]}, "force"} */
static int on_flows_event(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct fm_ctx *ctx = ud;
    const char *name = kytos_event_name(ev);
    struct json_object *c = kytos_event_content(ev), *fd, *flows;
    const char *dpid = ev_dpid(c);
    int cmd = (name && strstr(name, ".delete")) ? FM_DELETE : FM_ADD;
    struct fm_batch b = {0};
    struct fm_result res = {0};

    if (!dpid || !json_object_object_get_ex(c, "flow_dict", &fd) ||
        !json_object_object_get_ex(fd, "flows", &flows) ||
        !json_object_is_type(flows, json_type_array)) {
        kytos_log(napp, KYTOS_LOG_ERROR, "Error getting fields to install or remove Flows");
        return KYTOS_OK;
    }
    if (!(fm_switches_get(ctx->switches, dpid) & FM_SW_KNOWN))
        fm_switches_refresh(ctx->switches, napp, 0);
    if (fm_flows_parse(flows, cmd, &b.flows, &b.n, &res) != 0) {
        kytos_log(napp, KYTOS_LOG_ERROR, "Error installing or deleting Flow through Kytos Event: %s",
                  res.text);
        return KYTOS_OK;
    }
    b.dpid = dpid;
    fm_install(ctx, cmd, &b, 1, fm_json_truthy(json_object_object_get(c, "force")), &res);
    if (res.status != 202)
        kytos_log(napp, KYTOS_LOG_WARNING, "flows event on %s: %u %s", dpid, res.status, res.text);
    fm_flows_free(b.flows, b.n);
    return KYTOS_OK;
}

int fm_acks_subscribe(struct fm_ctx *ctx)
{
    static const struct {
        const char *pattern;
        kytos_event_handler h;
        const char *pool;
    } subs[] = {
        {"kytos/of_core\\.v0x04\\.messages\\.in\\.ofpt_barrier_reply", on_barrier_reply, NULL},
        {"kytos/of_core\\.flow_stats\\.received", on_flow_stats, NULL},
        {"kytos\\.flow_manager\\.flows\\.(install|delete)", on_flows_event, NULL},
        {"kytos\\.flow_manager\\.flows\\.single\\.(install|delete)", on_flows_event,
         "dynamic_single"},
    };
    size_t i;
    int rc;

    for (i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        rc = kytos_event_subscribe(ctx->napp, &(struct kytos_sub){
                                                  .struct_size = sizeof(struct kytos_sub),
                                                  .pattern = subs[i].pattern,
                                                  .handler = subs[i].h,
                                                  .ud = ctx,
                                                  .pool = subs[i].pool,
                                              });
        if (rc != KYTOS_OK)
            return rc;
    }
    return KYTOS_OK;
}
