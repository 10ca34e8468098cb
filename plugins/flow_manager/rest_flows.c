/* plugins/flow_manager/rest_flows.c - POST/DELETE v2/flows[/{dpid}],
 * POST v2/delete[/{dpid}], POST/DELETE v2/flows_by_switch (napps.md 2.1-2.3). */
#include "fm.h"
#include "pyjson.h"
#include "req_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char sent_body[] = "{\"response\":\"FlowMod Messages Sent\"}";

static int reply(kytos_req *req, const struct fm_result *res)
{
    if (res->status == 202) {
        /* the benchmark's answer: no copy when the host can send it as is */
        if (KYTOS_API_HAS(resp_static))
            return kytos_resp_static(req, 202, "application/json", sent_body,
                                     sizeof sent_body - 1, NULL, NULL);
        return kytos_resp_raw(req, 202, "application/json", sent_body, sizeof sent_body - 1);
    }
    if (res->detail_is_dpid_404)
        return fm_resp_dpid_not_found(req);
    return kytos_resp_error(req, res->status, "%s", res->text);
}

/* Python's any(flows): some element is truthy. */
static int any_flow(struct json_object *flows)
{
    size_t i, n;
    if (!json_object_is_type(flows, json_type_array))
        return fm_json_truthy(flows);
    n = json_object_array_length(flows);
    for (i = 0; i < n; i++)
        if (fm_json_truthy(json_object_array_get_idx(flows, i)))
            return 1;
    return 0;
}

/* "Invalid payload: <repr>" for a body that is not an object. */
static int invalid_payload(kytos_req *req, struct json_object *body)
{
    struct fm_buf b;
    char sb[256];

    fm_buf_init(&b, sb, sizeof sb);
    fm_py_repr(&b, body);
    kytos_resp_error(req, 400, "Invalid payload: %.200s", b.oom ? "?" : b.p);
    fm_buf_free(&b);
    return KYTOS_OK;
}

/* The body checks shared by every flows route; 0 or -1 answered. */
static int body_flows(kytos_req *req, struct json_object *body, struct json_object **flows)
{
    if (!json_object_is_type(body, json_type_object)) {
        invalid_payload(req, body);
        return -1;
    }
    *flows = json_object_object_get(body, "flows");
    if (json_object_object_length(body) == 0 || !any_flow(*flows)) {
        kytos_resp_error(req, 400, "The request body doesn't have any flows");
        return -1;
    }
    if (!json_object_is_type(*flows, json_type_array)) {
        kytos_resp_error(req, 400, "It couldn't serialize flow_dict: flows should be a list");
        return -1;
    }
    return 0;
}

/* validate_cookies_and_masks runs over all flows before anything else. */
static int cookie_prepass(kytos_req *req, struct json_object *flows, int cmd)
{
    size_t i, n = json_object_array_length(flows);
    char err[2048];

    for (i = 0; i < n; i++) {
        struct json_object *f = json_object_array_get_idx(flows, i);
        int has_c, has_m;
        if (!json_object_is_type(f, json_type_object))
            continue;
        has_c = json_object_object_get_ex(f, "cookie", NULL);
        has_m = json_object_object_get_ex(f, "cookie_mask", NULL);
        if ((cmd == FM_ADD && has_m) || (cmd == FM_DELETE && has_c != has_m)) {
            struct fm_flow tmp;
            fm_flow_parse(f, cmd, &tmp, err, sizeof err);
            fm_flow_clear(&tmp);
            kytos_resp_error(req, 400, "%s", err);
            return -1;
        }
    }
    return 0;
}

/* How an unknown dpid is answered: v2/flows' {"response": "dpid not found."}
 * or flows_by_switch's plain "dpid not found." (Kytos has both). */
enum { DPID_404_OBJECT, DPID_404_PLAIN };

/* A switch named by the request: 0, or -1 answered (404).  since: when the
 * request began (fm_switches_clock), so its switches share one refresh. */
static int check_switch(struct fm_ctx *ctx, kytos_req *req, const char *dpid, int cmd,
                        int dpid_404, int64_t since)
{
    unsigned st = fm_switches_get(ctx->switches, dpid);

    if (!(st & FM_SW_KNOWN) || (cmd == FM_ADD && !(st & FM_SW_ENABLED))) {
        st = fm_switches_refresh(ctx->switches, ctx->napp, since, dpid);
    }
    if (!(st & FM_SW_KNOWN)) {
        if (dpid_404 == DPID_404_PLAIN)
            kytos_resp_error(req, 404, "dpid not found.");
        else
            fm_resp_dpid_not_found(req);
        return -1;
    }
    if (cmd == FM_ADD && !(st & FM_SW_ENABLED)) {
        kytos_resp_error(req, 404, "Switch %s is disabled.", dpid);
        return -1;
    }
    return 0;
}

/* What an add queued for the store keeps until its answer (see
 * fm_install_add_async). */
struct add_owner {
    struct fm_async_add a;
    struct fm_flow *fs;
    size_t nf;
    struct fm_batch *bs;
    const char **dpids;       /* allocated, or NULL */
    char **all;
    struct json_object *body; /* the request's, which the flows point into */
};

static void add_release(struct fm_async_add *a)
{
    struct add_owner *o = a->owner;
    fm_flows_free(o->fs, o->nf);
    free(o->bs);
    free(o->dpids);
    free(o->all);
    json_object_put(o->body);
    free(o);
}

/* 1: queued (the request is answered later); 0: answer res now. */
static int add_async(struct fm_ctx *ctx, kytos_req *req, struct fm_flow *fs, size_t nf,
                     struct fm_batch *bs, size_t nd, int force, const char **dpids, char **all,
                     struct json_object *body, struct fm_result *res)
{
    struct add_owner *o;

    if (!KYTOS_API_HAS(store_bulk_async))
        return 0;   /* (a host before ABI 1.1 could not load us: kept for clarity) */
    if (!(o = calloc(1, sizeof *o))) {
        res->status = 500;   /* not a blocking write on the I/O thread instead */
        snprintf(res->text, sizeof res->text, "out of memory");
        return 0;
    }
    o->a = (struct fm_async_add){.batches = bs, .nb = nd, .force = force, .reply = reply,
                                 .release = add_release, .owner = o};
    o->fs = fs;
    o->nf = nf;
    o->bs = bs;
    o->dpids = dpids;
    o->all = all;
    o->body = body;
    if (fm_install_add_async(ctx, req, &o->a, res) == 0)
        return 1;
    free(o);
    return 0;
}

/* _send_flow_mods_from_request on the parsed body; KYTOS_DEFERRED when the
 * body went to the queued add (its release puts it). */
static int send_parsed(struct fm_ctx *ctx, kytos_req *req, int cmd, struct json_object *body)
{
    const char *dpid = kytos_req_param(req, "dpid");
    struct json_object *flows = NULL, *sw = NULL;
    struct fm_flow *fs = NULL;
    struct fm_batch *bs = NULL;
    struct fm_result res = {0};
    int64_t since = fm_switches_clock();
    char **all = NULL;
    const char *one[1];
    const char **dpids = NULL;
    size_t nf = 0, nd = 0, i;
    int force;

    if (body_flows(req, body, &flows) != 0 || cookie_prepass(req, flows, cmd) != 0)
        return KYTOS_OK;
    force = fm_json_truthy(json_object_object_get(body, "force"));

    if (dpid) {
        if (check_switch(ctx, req, dpid, cmd, DPID_404_OBJECT, since) != 0)
            return KYTOS_OK;
        one[0] = dpid;
        dpids = one;
        nd = 1;
    } else if (json_object_object_get_ex(body, "switches", &sw) && fm_json_truthy(sw)) {
        if (!json_object_is_type(sw, json_type_array)) {
            return kytos_resp_error(req, 400, "Switches should be in a list.");
        }
        nd = json_object_array_length(sw);
        dpids = calloc(nd, sizeof *dpids);
        if (!dpids)
            return KYTOS_ENOMEM;
        for (i = 0; i < nd; i++) {
            struct json_object *d = json_object_array_get_idx(sw, i);
            if (!json_object_is_type(d, json_type_string)) {
                free(dpids);
                return fm_resp_dpid_not_found(req);
            }
            dpids[i] = json_object_get_string(d);
            if (check_switch(ctx, req, dpids[i], cmd, DPID_404_OBJECT, since) != 0) {
                free(dpids);
                return KYTOS_OK;
            }
        }
    } else {
        all = fm_switches_list(ctx->switches, FM_SW_KNOWN | FM_SW_ENABLED);
        if (!all)
            return KYTOS_ENOMEM;
        for (nd = 0; all[nd]; nd++)
            ;
        dpids = (const char **)all;
    }

    if (fm_flows_parse(flows, cmd, &fs, &nf, &res) == 0) {
        bs = calloc(nd ? nd : 1, sizeof *bs);
        if (!bs) {
            res.status = 500;
            snprintf(res.text, sizeof res.text, "out of memory");
        } else {
            for (i = 0; i < nd; i++) {
                bs[i].dpid = dpids[i];
                bs[i].flows = fs;
                bs[i].n = nf;
            }
            if (cmd == FM_ADD &&
                add_async(ctx, req, fs, nf, bs, nd, force,
                          dpids != one && dpids != (const char **)all ? dpids : NULL, all,
                          body, &res))
                return KYTOS_DEFERRED;   /* req, fs, bs, dpids, all: the store's callback's */
            if (res.status == 0)
                fm_install(ctx, cmd, bs, nd, force, &res);
        }
    }
    reply(req, &res);
    fm_flows_free(fs, nf);
    free(bs);
    if (dpids != one && dpids != (const char **)all)
        free(dpids);
    free(all);
    return KYTOS_OK;
}

static int send_from_request(struct fm_ctx *ctx, kytos_req *req, int cmd)
{
    struct json_object *body;
    int rc;

    if (fm_req_body_json(req, &body) != 0)
        return KYTOS_OK;
    rc = send_parsed(ctx, req, cmd, body);
    if (rc != KYTOS_DEFERRED)
        json_object_put(body);
    return rc;
}

static int h_add(kytos_req *req, void *ud)
{
    return send_from_request(ud, req, FM_ADD);
}

static int h_delete(kytos_req *req, void *ud)
{
    return send_from_request(ud, req, FM_DELETE);
}

/* Python's any(d) on a dict: some key is a non-empty string. */
static int any_key(struct json_object *o)
{
    json_object_object_foreach(o, key, val) {
        (void)val;
        if (key[0])
            return 1;
    }
    return 0;
}

/* v2/flows_by_switch?force=: {"<dpid>": {"flows": [...]}, ...}, checked in
 * Kytos' order (_send_flow_mods_from_request, then
 * _get_switches_from_request_by_switch per dpid, then every flow). */
static int by_switch_parsed(struct fm_ctx *ctx, kytos_req *req, int cmd,
                            struct json_object *body)
{
    const char *fq = kytos_req_query(req, "force");
    struct fm_batch *bs = NULL;
    struct fm_result res = {0};
    size_t n, k = 0, i;
    int force = 0;

    if (!json_object_is_type(body, json_type_object))
        return invalid_payload(req, body);
    if (!any_key(body))
        return kytos_resp_error(req, 400, "The request body doesn't have any flows");
    if (fq) {
        if (strcasecmp(fq, "true") == 0)
            force = 1;
        else if (strcasecmp(fq, "false") != 0)
            return kytos_resp_error(req, 400, "Parameter force does not have a valid value.");
    }
    json_object_object_foreach(body, dpid, val) {
        struct json_object *flows;
        if (!json_object_is_type(val, json_type_object))
            return kytos_resp_error(req, 400, "The content of the switch should be an object.");
        flows = json_object_object_get(val, "flows");
        if (!any_flow(flows))
            return kytos_resp_error(req, 400,
                                    "The switch %s in the request body doesn't have any flows",
                                    dpid);
        if (!json_object_is_type(flows, json_type_array))
            return kytos_resp_error(req, 400,
                                    "It couldn't serialize flow_dict: flows should be a list");
        if (cookie_prepass(req, flows, cmd) != 0 ||
            check_switch(ctx, req, dpid, cmd, DPID_404_PLAIN, fm_switches_clock()) != 0)
            return KYTOS_OK;
    }

    n = (size_t)json_object_object_length(body);
    bs = calloc(n, sizeof *bs);
    if (!bs)
        return KYTOS_ENOMEM;
    res.status = 202;
    json_object_object_foreach(body, dpid2, val2) {
        bs[k].dpid = dpid2;
        if (fm_flows_parse(json_object_object_get(val2, "flows"), cmd, &bs[k].flows, &bs[k].n,
                           &res) != 0)
            break;
        k++;
    }
    if (res.status == 202)
        fm_install(ctx, cmd, bs, k, force, &res);
    reply(req, &res);
    for (i = 0; i < k; i++)
        fm_flows_free(bs[i].flows, bs[i].n);
    free(bs);
    return KYTOS_OK;
}

static int by_switch(struct fm_ctx *ctx, kytos_req *req, int cmd)
{
    struct json_object *body;
    int rc;

    if (fm_req_body_json(req, &body) != 0)
        return KYTOS_OK;
    rc = by_switch_parsed(ctx, req, cmd, body);
    json_object_put(body);
    return rc;
}

static int h_add_by_switch(kytos_req *req, void *ud)
{
    return by_switch(ud, req, FM_ADD);
}

static int h_delete_by_switch(kytos_req *req, void *ud)
{
    return by_switch(ud, req, FM_DELETE);
}

int fm_rest_flows_register(struct fm_ctx *ctx)
{
    static const struct {
        const char *method, *path;
        kytos_handler h;
        unsigned flags;
    } routes[] = {
        /* an add only checks and queues its store write (the answer comes
         * from the store's writer thread): no worker thread needed.  The
         * one other call it may make, for a switch it does not know yet,
         * is an in-process GET of topology's in-memory switch list */
        {"POST", "v2/flows", h_add, KYTOS_ROUTE_INLINE},
        {"POST", "v2/flows/{dpid}", h_add, KYTOS_ROUTE_INLINE},
        {"POST", "v2/delete", h_delete, 0},
        {"POST", "v2/delete/{dpid}", h_delete, 0},
        {"DELETE", "v2/flows", h_delete, 0},
        {"DELETE", "v2/flows/{dpid}", h_delete, 0},
        {"POST", "v2/flows_by_switch", h_add_by_switch, 0},
        {"DELETE", "v2/flows_by_switch", h_delete_by_switch, 0},
    };
    size_t i;
    int rc;

    for (i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        rc = kytos_route_add(ctx->napp, &(struct kytos_route){
                                            .struct_size = sizeof(struct kytos_route),
                                            .method = routes[i].method,
                                            .path = routes[i].path,
                                            .handler = routes[i].h,
                                            .ud = ctx,
                                            /* checked in code, as Kytos does; the
                                             * body read here too, where integers
                                             * beyond uint64 are no JSON error */
                                            .flags = KYTOS_ROUTE_NO_VALIDATE |
                                                     KYTOS_ROUTE_RAW_BODY | routes[i].flags,
                                        });
        if (rc != KYTOS_OK)
            return rc;
    }
    return KYTOS_OK;
}
