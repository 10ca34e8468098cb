/* plugins/flow_manager/rest_list.c - GET v2/flows[/{dpid}] and
 * GET v2/stored_flows (napps.md 2.5). */
#include "fm.h"
#include "pyjson.h"
#include "req_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_QUERY_VALUES 1024

struct range {
    uint64_t lo, hi;
};

/* A cookie value of the query: a base-10 integer in uint64 range. */
static int parse_cookie(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;

    while (*s == ' ')
        s++;
    if (*s == '+')
        s++;
    if (*s < '0' || *s > '9')
        return 0;
    errno = 0;
    v = strtoull(s, &end, 10);
    while (*end == ' ')
        end++;
    if (errno || *end)
        return 0;
    *out = v;
    return 1;
}

static uint64_t cookie_of(struct json_object *doc)
{
    struct json_object *f, *c;
    if (json_object_object_get_ex(doc, "flow", &f) && json_object_object_get_ex(f, "cookie", &c) &&
        json_object_is_type(c, json_type_int) && json_object_get_int64(c) >= 0)
        return json_object_get_uint64(c);
    return 0;
}

static int in_ranges(uint64_t c, const struct range *r, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (c >= r[i].lo && c <= r[i].hi)
            return 1;
    return 0;
}

static struct json_object *str_in(const char *const *v, size_t n)
{
    struct json_object *in = json_object_new_object(), *arr = json_object_new_array();
    size_t i;
    for (i = 0; i < n; i++)
        json_object_array_add(arr, json_object_new_string(v[i]));
    json_object_object_add(in, "$in", arr);
    return in;
}

static int h_stored_flows(kytos_req *req, void *ud)
{
    struct fm_ctx *ctx = ud;
    const char *dpids[MAX_QUERY_VALUES], *states[MAX_QUERY_VALUES], *cr[MAX_QUERY_VALUES];
    size_t nd, ns, nc, nr = 0, i, blen = 0;
    uint64_t *vals = NULL;
    struct range *ranges = NULL;
    struct json_object *filter, *out, *doc, *body = NULL, *bcr = NULL;
    struct kytos_error err = {0};
    kytos_cursor *cur = NULL;
    int rc;

    nd = kytos_req_query_all(req, "dpid", dpids, MAX_QUERY_VALUES);
    ns = kytos_req_query_all(req, "state", states, MAX_QUERY_VALUES);
    nc = kytos_req_query_all(req, "cookie_range", cr, MAX_QUERY_VALUES);
    if (nd > MAX_QUERY_VALUES || ns > MAX_QUERY_VALUES || nc > MAX_QUERY_VALUES)
        return kytos_resp_error(req, 400, "Too many query values");

    /* cookie_range may also come in a JSON body */
    kytos_req_body(req, &blen);
    if (blen) {
        body = kytos_req_json(req);
        if (!body)
            return kytos_resp_error(req, 400, "Invalid json: could not parse the body");
        if (json_object_is_type(body, json_type_object))
            bcr = json_object_object_get(body, "cookie_range");
        if (bcr && !json_object_is_type(bcr, json_type_array))
            return kytos_resp_error(req, 400, "cookie_range should be a list of integers");
    }
    {
        size_t nb = bcr ? json_object_array_length(bcr) : 0, total = nc + nb;
        if (total) {
            vals = calloc(total, sizeof *vals);
            if (!vals)
                return KYTOS_ENOMEM;
            for (i = 0; i < nc; i++) {
                if (!parse_cookie(cr[i], &vals[i])) {
                    free(vals);
                    return kytos_resp_error(req, 400,
                                            "cookie_range values must be integers, got '%.100s'",
                                            cr[i]);
                }
            }
            for (i = 0; i < nb; i++) {
                if (!fm_json_uint(json_object_array_get_idx(bcr, i), UINT64_MAX, &vals[nc + i])) {
                    free(vals);
                    return kytos_resp_error(req, 400,
                                            "cookie_range values must be integers in [0, 2**64)");
                }
            }
            if (total % 2) {
                free(vals);
                return kytos_resp_error(req, 400,
                                        "Expected cookies length to be even, got length %zu",
                                        total);
            }
            nr = total / 2;
            ranges = calloc(nr, sizeof *ranges);
            if (!ranges) {
                free(vals);
                return KYTOS_ENOMEM;
            }
            for (i = 0; i < nr; i++) {
                ranges[i].lo = vals[2 * i];
                ranges[i].hi = vals[2 * i + 1];
            }
            free(vals);
        }
    }

    filter = json_object_new_object();
    if (nd)
        json_object_object_add(filter, "switch", str_in(dpids, nd));
    if (ns)
        json_object_object_add(filter, "state", str_in(states, ns));
    {
        struct json_object *sort = json_object_new_object(), *proj = json_object_new_object();
        json_object_object_add(sort, "flow.priority", json_object_new_int(-1));
        json_object_object_add(sort, "updated_at", json_object_new_int(1));
        json_object_object_add(proj, "_id", json_object_new_int(0));
        rc = kytos_store_find(ctx->napp, FM_COLL,
                              &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                                   .filter = filter,
                                                   .sort = sort,
                                                   .projection = proj},
                              &cur, &err);
        json_object_put(sort);
        json_object_put(proj);
    }
    json_object_put(filter);
    if (rc != KYTOS_OK) {
        free(ranges);
        return kytos_resp_error(req, 500, "Failed to read stored flows: %s", err.message);
    }
    out = json_object_new_object();
    while ((rc = kytos_cursor_next(cur, &doc, &err)) == 1) {
        struct json_object *sw = json_object_object_get(doc, "switch"), *list;
        if (!json_object_is_type(sw, json_type_string) ||
            (nr && !in_ranges(cookie_of(doc), ranges, nr))) {
            json_object_put(doc);
            continue;
        }
        if (!json_object_object_get_ex(out, json_object_get_string(sw), &list)) {
            list = json_object_new_array();
            json_object_object_add(out, json_object_get_string(sw), list);
        }
        json_object_array_add(list, doc);
    }
    kytos_cursor_free(cur);
    free(ranges);
    if (rc < 0) {
        json_object_put(out);
        return kytos_resp_error(req, 500, "Failed to read stored flows: %s", err.message);
    }
    return kytos_resp_json_take(req, 200, out);
}

/* One installed flow as of_core's as_dict with zero stats. */
static struct json_object *flow_entry(struct json_object *doc, const char *dpid)
{
    struct json_object *sflow = json_object_object_get(doc, "flow"), *d, *stats;
    const char *fid = json_object_get_string(json_object_object_get(doc, "flow_id"));
    struct fm_flow f;
    char err[256];

    if (fm_flow_parse(sflow, FM_DELETE_STRICT, &f, err, sizeof err) != 0) {
        fm_flow_clear(&f);
        return NULL;
    }
    d = fm_flow_as_dict(&f, dpid, fid);
    fm_flow_clear(&f);
    if (!d)
        return NULL;
    stats = json_object_new_object();
    json_object_object_add(stats, "byte_count", json_object_new_int(0));
    json_object_object_add(stats, "duration_sec", json_object_new_int(0));
    json_object_object_add(stats, "duration_nsec", json_object_new_int(0));
    json_object_object_add(stats, "packet_count", json_object_new_int(0));
    json_object_object_add(d, "stats", stats);
    return d;
}

static int h_flows(kytos_req *req, void *ud)
{
    struct fm_ctx *ctx = ud;
    const char *dpid = kytos_req_param(req, "dpid");
    struct json_object *out, *filter, *doc, *entry;
    struct kytos_error err = {0};
    kytos_cursor *cur = NULL;
    char **all = NULL;
    size_t i;
    int rc;

    if (dpid) {
        if (!(fm_switches_get(ctx->switches, dpid) & FM_SW_KNOWN)) {
            fm_switches_refresh(ctx->switches, ctx->napp, 0);
            if (!(fm_switches_get(ctx->switches, dpid) & FM_SW_KNOWN))
                return kytos_resp_error(req, 404, "Switch not found");
        }
    }
    out = json_object_new_object();
    if (dpid) {
        entry = json_object_new_object();
        json_object_object_add(entry, "flows", json_object_new_array());
        json_object_object_add(out, dpid, entry);
    } else {
        all = fm_switches_list(ctx->switches, FM_SW_KNOWN);
        for (i = 0; all && all[i]; i++) {
            entry = json_object_new_object();
            json_object_object_add(entry, "flows", json_object_new_array());
            json_object_object_add(out, all[i], entry);
        }
        free(all);
    }
    filter = json_object_new_object();
    json_object_object_add(filter, "state", json_object_new_string("installed"));
    if (dpid)
        json_object_object_add(filter, "switch", json_object_new_string(dpid));
    rc = kytos_store_find(ctx->napp, FM_COLL,
                          &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                               .filter = filter},
                          &cur, &err);
    json_object_put(filter);
    if (rc != KYTOS_OK) {
        json_object_put(out);
        return kytos_resp_error(req, 500, "Failed to read flows: %s", err.message);
    }
    while ((rc = kytos_cursor_next(cur, &doc, &err)) == 1) {
        const char *sw = json_object_get_string(json_object_object_get(doc, "switch"));
        struct json_object *flows, *f;
        if (sw && json_object_object_get_ex(out, sw, &entry) &&
            json_object_object_get_ex(entry, "flows", &flows) && (f = flow_entry(doc, sw)))
            json_object_array_add(flows, f);
        json_object_put(doc);
    }
    kytos_cursor_free(cur);
    if (rc < 0) {
        json_object_put(out);
        return kytos_resp_error(req, 500, "Failed to read flows: %s", err.message);
    }
    return kytos_resp_json_take(req, 200, out);
}

int fm_rest_list_register(struct fm_ctx *ctx)
{
    static const struct {
        const char *path;
        kytos_handler h;
    } routes[] = {
        {"v2/flows", h_flows},
        {"v2/flows/{dpid}", h_flows},
        {"v2/stored_flows", h_stored_flows},
    };
    size_t i;
    int rc;

    for (i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        rc = kytos_route_add(ctx->napp, &(struct kytos_route){
                                            .struct_size = sizeof(struct kytos_route),
                                            .method = "GET",
                                            .path = routes[i].path,
                                            .handler = routes[i].h,
                                            .ud = ctx,
                                            .flags = KYTOS_ROUTE_NO_VALIDATE,
                                        });
        if (rc != KYTOS_OK)
            return rc;
    }
    return KYTOS_OK;
}
