/* plugins/flow_manager/main.c - kytos/flow_manager: installs, lists and
 * deletes switch flows (Kytos-ng flow_manager, napps.md section 2).
 *
 * Routes (under /api/kytos/flow_manager/, checked in code as Kytos does):
 *   GET    v2/flows, v2/flows/{dpid}        installed flows per switch
 *   GET    v2/stored_flows?dpid=&state=&cookie_range=   stored documents
 *   POST   v2/flows, v2/flows/{dpid}        add   -> 202 {"response":"FlowMod Messages Sent"}
 *   DELETE v2/flows, v2/flows/{dpid}        delete (also POST v2/delete[/{dpid}])
 *   POST/DELETE v2/flows_by_switch?force=   {"<dpid>": {"flows": [...]}, ...}
 *
 * Storage: collection "flows", one document per (switch, table_id, match,
 * priority) keyed by Kytos' match_id: {"_id","id","switch","flow_id",
 * "state": "pending"|"installed"|"deleted","flow":{...},"inserted_at",
 * "updated_at"} (dates as "YYYY-MM-DDTHH:MM:SS.ffffff", UTC).
 *
 * Events published:
 *   kytos/flow_manager.messages.out.ofpt_flow_mod  (buffer msg_out), one per flow:
 *       {"destination": "<dpid>", "xid": N, "command": "add"|"delete"|"delete_strict",
 *        "match_id": "<md5>", "flow": FLOW}
 *   kytos/flow_manager.messages.out.ofpt_barrier_request  (msg_out), one per switch
 *       after its FlowMods: {"destination": "<dpid>", "xid": N, "flow_xids": [N, ...]}
 *   kytos/flow_manager.flow.pending  {"datapath": "<dpid>", "flow": FLOW}, one per flow
 *   kytos/flow_manager.flow.added    {"datapath": "<dpid>", "flow": FLOW}, once confirmed
 *   kytos/flow_manager.flow.error    {"datapath", "flow": FLOW, "error_command": "add"|...,
 *       "error_type", "error_code"} when the switch refused a FlowMod (the stored flow is
 *       deleted first, as Kytos), or {..., "error_exception"} when it was not connected
 *   FLOW = of_core Flow.as_dict(): {"switch","table_id","match","priority","idle_timeout",
 *          "hard_timeout","cookie","cookie_mask","instructions":[...],"id": flow_id}
 *
 * Events consumed:
 *   kytos/of_core.v0x04.messages.in.ofpt_barrier_reply  {"dpid"|"switch"|"source": "<dpid>",
 *       "xid": <barrier xid>}: the added flows of that barrier become "installed".
 *       A switch simulator acknowledges a barrier request with exactly this.
 *   kytos/of_core.flow_stats.received  {"switch": "<dpid>", "replies_flows": [{"id": flow_id}]}:
 *       pending flows listed become "installed".
 *   .*.of_core.*.ofpt_error  {"source"|"dpid": "<dpid>", "xid": <FlowMod xid>, "error_type",
 *       "error_code", "flow"?}; kytos/core.openflow.connection.error {"destination", "xid",
 *       "exception", "flow"?}: about a FlowMod we sent (the last 16,384 are remembered),
 *       flow.error.  Kytos retries a connection error three times first; we do not.
 *   kytos/flow_manager.internal.(confirm|error): published to itself, the store work a
 *       "direct" handler (barrier reply, ofpt_error) hands to a pool.
 *   kytos.flow_manager.flows.(install|delete), ...flows.single.(install|delete):
 *       {"dpid", "flow_dict": {"flows": [...]}, "force"} (Kytos' event API).
 *   Switch knowledge (404 unknown / disabled, 424 not connected):
 *     kytos/topology.(updated|topology_loaded) {"topology": {"switches": {dpid: {"enabled",
 *       "active"}}}}; kytos/topology.switch.(enabled|disabled|deleted),
 *     .*.switch.(new|reconnected), kytos/of_core.handshake.completed (connected),
 *     .*.connection.lost (disconnected): {"dpid"|"switch": "<dpid>" or {"dpid"|"id"}}.
 *   kytos/of_core.flow_stats.received also drives the consistency check
 *     (consistency.c): flows a switch holds and the store does not are deleted
 *     (DELETE_STRICT, "alien"), stored flows a switch lacks are sent again.
 *     Settings: enable_consistency_check (default true),
 *     consistency_min_verdict_interval (seconds, default 120),
 *     consistency_cookie_ignored_range, consistency_table_id_ignored_range
 *     (default []: lists of integers and [first, last] pairs, left alone).
 *   Deleted flows (soft-deleted, kept) are removed from the store once older
 *     than purge_deleted_flows_after seconds (purge.c; default 604800, a week;
 *     0 keeps them, as Kytos, which ships a script to remove them by hand).
 *   Besides, GET /api/kytos/topology/v3/switches is read at start and when a
 *   request names a switch the map does not know or believes disabled or
 *   disconnected (one GET serves the requests waiting for it).
 */
#include "fm.h"

#include <stdlib.h>
#include <string.h>

extern const char flow_manager_openapi[];
extern const size_t flow_manager_openapi_len;

/* The dpid of handshake.completed {"switch": dpid or {"dpid"|"id": dpid}}. */
static const char *handshake_dpid(struct json_object *c)
{
    struct json_object *s, *d;
    if (!json_object_object_get_ex(c, "switch", &s))
        return NULL;
    if (json_object_is_type(s, json_type_string))
        return json_object_get_string(s);
    if ((json_object_object_get_ex(s, "dpid", &d) || json_object_object_get_ex(s, "id", &d)) &&
        json_object_is_type(d, json_type_string))
        return json_object_get_string(d);
    return NULL;
}

static int on_switch_event(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct fm_ctx *ctx = ud;
    const char *name = kytos_event_name(ev);
    (void)napp;
    fm_switches_on_event(ctx->switches, name, kytos_event_content(ev));
    if (name && strcmp(name, "kytos/of_core.handshake.completed") == 0)
        fm_cons_reset(ctx->cons, handshake_dpid(kytos_event_content(ev)));
    return KYTOS_OK;
}

static int subscribe_switches(struct fm_ctx *ctx)
{
    static const char *const patterns[] = {
        "kytos/topology\\.(updated|topology_loaded)",
        "kytos/topology\\.switch\\.(enabled|disabled|deleted)",
        ".*\\.switch\\.(new|reconnected)",
        "kytos/of_core\\.handshake\\.completed",
        ".*\\.connection\\.lost",
    };
    size_t i;
    int rc;

    for (i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        rc = kytos_event_subscribe(ctx->napp, &(struct kytos_sub){
                                                  .struct_size = sizeof(struct kytos_sub),
                                                  .pattern = patterns[i],
                                                  .handler = on_switch_event,
                                                  .ud = ctx,
                                                  /* in order, so a lost/new pair is not swapped */
                                                  .pool = "dynamic_single",
                                              });
        if (rc != KYTOS_OK)
            return rc;
    }
    return KYTOS_OK;
}

static void make_index(struct fm_ctx *ctx, const char *name, const char *const *fields, size_t n)
{
    struct json_object *keys = json_object_new_object();
    struct kytos_error err = {0};
    size_t i;

    for (i = 0; i < n; i++)
        json_object_object_add(keys, fields[i], json_object_new_int(1));
    if (kytos_store_index(ctx->napp, FM_COLL, name, keys, 0, &err) != KYTOS_OK)
        kytos_log(ctx->napp, KYTOS_LOG_WARNING, "index %s: %s", name, err.message);
    json_object_put(keys);
}

static void make_indexes(struct fm_ctx *ctx)
{
    /* by switch: the per-switch reads (stats, consistency, listings);
     * by cookie and switch: the deletes of one EVC's flows (send.c);
     * by state and switch: the listings by state alone (GET v2/flows,
     * v2/stored_flows?state=), which MongoDB would otherwise answer with a
     * collection scan (tests/e2e/test_mongo_indexes.py), and a switch's
     * pending flows on its stats.  Each index is re-evaluated on every
     * state change: no more of them than the queries need. */
    static const char *const by_switch[] = {"switch"};
    static const char *const by_cookie[] = {"flow.cookie", "switch"};
    static const char *const by_state[] = {"state", "switch"};

    make_index(ctx, "switch", by_switch, 1);
    make_index(ctx, "cookie_switch", by_cookie, 2);
    make_index(ctx, "state_switch", by_state, 2);
}

static char *dup_msg(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = kytos_malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static int fm_init(kytos_napp *napp, char **errmsg)
{
    struct fm_ctx *ctx = calloc(1, sizeof *ctx);
    int rc;

    if (!ctx) {
        *errmsg = dup_msg("out of memory");
        return KYTOS_ENOMEM;
    }
    ctx->napp = napp;
    ctx->switches = fm_switches_new();
    ctx->pending = fm_pending_new();
    ctx->cons = fm_cons_new(napp);
    ctx->marks = fm_marks_new();
    atomic_init(&ctx->xid, 0);
    pthread_mutex_init(&ctx->order, NULL);
    if (!ctx->switches || !ctx->pending || !ctx->cons || !ctx->marks) {
        fm_marks_free(ctx->marks);
        fm_cons_free(ctx->cons);
        fm_switches_free(ctx->switches);
        fm_pending_free(ctx->pending);
        pthread_mutex_destroy(&ctx->order);
        free(ctx);
        *errmsg = dup_msg("out of memory");
        return KYTOS_ENOMEM;
    }
    kytos_napp_set_data(napp, ctx);
    if ((rc = fm_rest_list_register(ctx)) != KYTOS_OK ||
        (rc = fm_rest_flows_register(ctx)) != KYTOS_OK ||
        (rc = fm_acks_subscribe(ctx)) != KYTOS_OK || (rc = subscribe_switches(ctx)) != KYTOS_OK) {
        *errmsg = dup_msg("registering routes or subscriptions failed");
        return rc;
    }
    make_indexes(ctx);
    return KYTOS_OK;
}

static int fm_start(kytos_napp *napp)
{
    struct fm_ctx *ctx = kytos_napp_data(napp);
    if (!ctx)
        return KYTOS_OK;
    fm_switches_refresh(ctx->switches, napp, FM_REFRESH_FORCE, NULL);
    if (fm_purge_start(ctx) != KYTOS_OK)
        kytos_log(napp, KYTOS_LOG_WARNING, "deleted flows will not be purged: no timer");
    /* here, not in init: a NApp the host refuses after its init is not
     * stopped, and the thread would outlive its code */
    return fm_marks_start(ctx);
}

static void fm_stop(kytos_napp *napp)
{
    struct fm_ctx *ctx = kytos_napp_data(napp);
    if (!ctx)
        return;
    kytos_napp_set_data(napp, NULL);
    fm_marks_stop(ctx);
    fm_marks_flush_sync(ctx);
    fm_marks_free(ctx->marks);
    fm_switches_free(ctx->switches);
    fm_pending_free(ctx->pending);
    fm_cons_free(ctx->cons);
    fm_purge_free(ctx);
    pthread_mutex_destroy(&ctx->order);
    free(ctx);
}

KYTOS_NAPP_DEFINE("kytos", "flow_manager", "2025.2.0", KYTOS_DEPS("kytos/topology"),
                  flow_manager_openapi, flow_manager_openapi_len, 0, fm_init, fm_start, fm_stop);
