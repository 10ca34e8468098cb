/* plugins/flow_manager/rest_list.c - GET v2/flows[/{dpid}] and
 * GET v2/stored_flows (napps.md 2.5). */
#include "fm.h"
#include "pyjson.h"
#include "req_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_QUERY_VALUES 1024

/* One cookie_range value after Python's int(): below 0, in uint64 range,
 * or above it.  Kytos hands any int to the database; as a bound of a range
 * of uint64 cookies a value outside is only "below all" or "above all". */
struct cookie_val {
    int where;   /* -1 below 0, 0 in range (v), 1 above 2**64-1 */
    uint64_t v;
};

static int py_space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* int(s) for a str: surrounding whitespace, a sign, decimal digits with
 * single '_' between them.  0 when Python would raise ValueError.  (Only
 * ASCII digits and whitespace: Python also takes other Unicode digits.) */
static int py_int_str(const char *s, size_t n, struct cookie_val *out)
{
    size_t i = 0, ndig = 0;
    int neg = 0, big = 0;
    uint64_t v = 0;

    while (n && py_space(s[n - 1]))
        n--;
    while (i < n && py_space(s[i]))
        i++;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    for (; i < n; i++) {
        unsigned d;
        if (s[i] == '_' && ndig && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
            continue;
        if (s[i] < '0' || s[i] > '9')
            return 0;
        d = (unsigned)(s[i] - '0');
        ndig++;
        if (v > (UINT64_MAX - d) / 10)
            big = 1;
        else
            v = v * 10 + d;
    }
    if (!ndig)
        return 0;
    if (neg && (big || v))
        *out = (struct cookie_val){-1, 0};
    else
        *out = big ? (struct cookie_val){1, 0} : (struct cookie_val){0, v};
    return 1;
}

/* int(v) for a JSON value: ints, floats (truncated), bools, strings. */
static int py_int_json(struct json_object *v, struct cookie_val *out)
{
    double d;

    switch (json_object_get_type(v)) {
    case json_type_int:
        if (json_object_get_int64(v) < 0)
            *out = (struct cookie_val){-1, 0};
        else
            *out = (struct cookie_val){0, json_object_get_uint64(v)};
        return 1;
    case json_type_boolean:
        *out = (struct cookie_val){0, (uint64_t)json_object_get_boolean(v)};
        return 1;
    case json_type_double:
        d = json_object_get_double(v);
        if (d != d)
            return 0;
        if (d <= -1.0)
            *out = (struct cookie_val){-1, 0};
        else if (d >= 18446744073709551616.0)
            *out = (struct cookie_val){1, 0};
        else
            *out = (struct cookie_val){0, d > 0 ? (uint64_t)d : 0};
        return 1;
    case json_type_string:
        return py_int_str(json_object_get_string(v), (size_t)json_object_get_string_len(v), out);
    default:
        return 0;   /* None, list, dict: TypeError */
    }
}

/* How many values [int(x) for x in v] makes at most: a list's items, a
 * str's characters (bytes bound them), a dict's keys; 0 otherwise. */
static size_t py_iter_len(struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_array:
        return json_object_array_length(v);
    case json_type_string:
        return (size_t)json_object_get_string_len(v);
    case json_type_object:
        return (size_t)json_object_object_length(v);
    default:
        return 0;
    }
}

/* [int(x) for x in v] over the body's cookie_range into out (room for
 * py_iter_len(v)), the count in *n.  0 when Python raises (a value int()
 * refuses, or v is not iterable: None, a number, a bool). */
static int py_int_iter(struct json_object *v, struct cookie_val *out, size_t *n)
{
    size_t i, len;
    const char *s;

    *n = 0;
    switch (json_object_get_type(v)) {
    case json_type_array:
        len = json_object_array_length(v);
        for (i = 0; i < len; i++)
            if (!py_int_json(json_object_array_get_idx(v, i), &out[(*n)++]))
                return 0;
        return 1;
    case json_type_string:
        s = json_object_get_string(v);
        len = (size_t)json_object_get_string_len(v);
        for (i = 0; i < len;) {
            size_t cl = 1;   /* one character: a UTF-8 lead byte and its tail */
            while (i + cl < len && ((unsigned char)s[i + cl] & 0xc0) == 0x80)
                cl++;
            if (!py_int_str(s + i, cl, &out[(*n)++]))
                return 0;
            i += cl;
        }
        return 1;
    case json_type_object: {
        json_object_object_foreach(v, key, val) {
            (void)val;
            if (!py_int_str(key, strlen(key), &out[(*n)++]))
                return 0;
        }
        return 1;
    }
    default:
        return 0;
    }
}

/* Kytos' 400 for a cookie_range int() refused: the values as Python's
 * f-string shows them (str(): a list's repr, a str as it is). */
static int cast_error(kytos_req *req, struct json_object *v)
{
    struct fm_buf b;
    char sb[256];

    fm_buf_init(&b, sb, sizeof sb);
    if (json_object_is_type(v, json_type_string))
        fm_buf_add(&b, json_object_get_string(v), (size_t)json_object_get_string_len(v));
    else
        fm_py_repr(&b, v);
    kytos_resp_error(req, 400, "cookie_range %.1500s couldn't be cast as an int",
                     b.oom ? "?" : b.p);
    fm_buf_free(&b);
    return KYTOS_OK;
}

/* Append the int() of s (valid for py_int_str) as Python prints it. */
static void int_text_str(struct fm_buf *b, const char *s, size_t n)
{
    size_t i = 0, start;
    int neg = 0, any = 0;

    while (n && py_space(s[n - 1]))
        n--;
    while (i < n && py_space(s[i]))
        i++;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    while (i < n && (s[i] == '0' || s[i] == '_'))
        i++;
    for (start = i; i < n; i++)
        any |= s[i] != '_';
    if (!any) {
        fm_buf_adds(b, "0");
        return;
    }
    if (neg)
        fm_buf_adds(b, "-");
    for (i = start; i < n; i++)
        if (s[i] != '_')
            fm_buf_add(b, s + i, 1);
}

/* Append the int() of v (valid for py_int_json) as Python prints it. */
static void int_text_json(struct fm_buf *b, struct json_object *v)
{
    char t[400];
    double d;

    switch (json_object_get_type(v)) {
    case json_type_boolean:
        fm_buf_adds(b, json_object_get_boolean(v) ? "1" : "0");
        break;
    case json_type_double:
        if (fm_py_is_bignum(v)) {   /* an int already: its text */
            fm_py_dump(b, v);
            break;
        }
        /* int() truncates (doubles from 2**52 up are integral already);
         * glibc prints a double's exact value */
        d = json_object_get_double(v);
        if (d > -4503599627370496.0 && d < 4503599627370496.0)
            d = (double)(int64_t)d + 0.0;
        snprintf(t, sizeof t, "%.0f", d);
        fm_buf_adds(b, t);
        break;
    case json_type_string:
        int_text_str(b, json_object_get_string(v), (size_t)json_object_get_string_len(v));
        break;
    default:
        fm_py_int(b, v);
        break;
    }
}

/* Kytos' 400 for an odd count: "got length" then the list of ints. */
static int odd_error(kytos_req *req, const char *const *q, size_t nq, struct json_object *body_cr)
{
    struct fm_buf b;
    char sb[256];
    size_t i, n = 0;

    fm_buf_init(&b, sb, sizeof sb);
    fm_buf_adds(&b, "[");
    if (body_cr == NULL && nq) {
        for (i = 0; i < nq; i++) {
            fm_buf_adds(&b, i ? ", " : "");
            int_text_str(&b, q[i], strlen(q[i]));
        }
    } else if (json_object_is_type(body_cr, json_type_array)) {
        for (i = 0; i < json_object_array_length(body_cr); i++) {
            fm_buf_adds(&b, i ? ", " : "");
            int_text_json(&b, json_object_array_get_idx(body_cr, i));
        }
    } else if (json_object_is_type(body_cr, json_type_string)) {
        const char *s = json_object_get_string(body_cr);
        for (i = 0; s[i]; i++)
            if (((unsigned char)s[i] & 0xc0) != 0x80) {   /* one digit per character */
                fm_buf_adds(&b, n++ ? ", " : "");
                fm_buf_add(&b, s + i, 1);
            }
    } else if (json_object_is_type(body_cr, json_type_object)) {
        json_object_object_foreach(body_cr, key, val) {
            (void)val;
            fm_buf_adds(&b, n++ ? ", " : "");
            int_text_str(&b, key, strlen(key));
        }
    }
    fm_buf_adds(&b, "]");
    kytos_resp_error(req, 400, "Expected cookies length to be even, got length %.1900s",
                     b.oom ? "?" : b.p);
    fm_buf_free(&b);
    return KYTOS_OK;
}

/* The range [lo, hi] of uint64 cookies (lo > hi: none). */
static struct fm_range to_range(struct cookie_val lo, struct cookie_val hi)
{
    struct fm_range r = {lo.where < 0 ? 0 : lo.v, hi.where > 0 ? UINT64_MAX : hi.v};
    if (lo.where > 0 || hi.where < 0)
        r = (struct fm_range){1, 0};
    return r;
}

static uint64_t cookie_of(struct json_object *doc)
{
    struct json_object *f, *c;
    if (json_object_object_get_ex(doc, "flow", &f) && json_object_object_get_ex(f, "cookie", &c) &&
        json_object_is_type(c, json_type_int) && json_object_get_int64(c) >= 0)
        return json_object_get_uint64(c);
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

/* list_stored's cookie ranges: the query's cookie_range values cast, then
 * a JSON body read (only when the Content-Type names JSON anywhere in it,
 * as Kytos' `"application/json" in ...`, even an empty body) whose
 * cookie_range replaces them.  0 with *out (n ranges, or NULL), 1 when
 * answered (400), or KYTOS_ENOMEM. */
static int cookie_ranges(kytos_req *req, const char *const *cr, size_t nc, struct fm_range **out,
                         size_t *nr)
{
    const char *ct = kytos_req_header(req, "Content-Type");
    struct json_object *body = NULL, *bcr = NULL;
    struct cookie_val *vals;
    size_t nb, total = nc, i, blen = 0;
    int in_body = 0, rc = 1;

    *out = NULL;
    *nr = 0;
    vals = calloc(nc ? nc : 1, sizeof *vals);
    if (!vals)
        return KYTOS_ENOMEM;
    for (i = 0; i < nc; i++) {
        if (!py_int_str(cr[i], strlen(cr[i]), &vals[i])) {
            struct json_object *l = json_object_new_array();
            for (i = 0; i < nc; i++)
                json_object_array_add(l, json_object_new_string(cr[i]));
            cast_error(req, l);
            json_object_put(l);
            goto done;
        }
    }
    if (ct && strstr(ct, "application/json")) {
        const char *text = kytos_req_body(req, &blen);
        char jerr[300];
        if (fm_json_parse_body(text ? text : "", text ? blen : 0, &body, jerr, sizeof jerr) != 0) {
            kytos_resp_error(req, 400, "failed to decode json body");
            goto done;
        }
        /* json-c keeps a JSON null as NULL: in_body tells it from absent */
        in_body = json_object_is_type(body, json_type_object) &&
                  json_object_object_get_ex(body, "cookie_range", &bcr);
    }
    if (in_body) {
        nb = py_iter_len(bcr);
        free(vals);
        if (!(vals = calloc(nb ? nb : 1, sizeof *vals))) {
            rc = KYTOS_ENOMEM;
            goto done;
        }
        if (!py_int_iter(bcr, vals, &total)) {
            cast_error(req, bcr);
            goto done;
        }
    }
    if (total % 2) {
        odd_error(req, cr, nc, in_body ? bcr : NULL);
        goto done;
    }
    rc = 0;
    *nr = total / 2;
    if (*nr && !(*out = calloc(*nr, sizeof **out))) {
        rc = KYTOS_ENOMEM;
        *nr = 0;
        goto done;
    }
    for (i = 0; i < *nr; i++)
        (*out)[i] = to_range(vals[2 * i], vals[2 * i + 1]);
done:
    free(vals);
    json_object_put(body);
    return rc;
}

static int h_stored_flows(kytos_req *req, void *ud)
{
    struct fm_ctx *ctx = ud;
    const char *dpids[MAX_QUERY_VALUES], *states[MAX_QUERY_VALUES], *cr[MAX_QUERY_VALUES];
    size_t nd, ns, nc, nr = 0;
    struct fm_range *ranges = NULL;
    struct json_object *filter, *out, *doc;
    struct kytos_error err = {0};
    kytos_cursor *cur = NULL;
    int rc;

    nd = kytos_req_query_all(req, "dpid", dpids, MAX_QUERY_VALUES);
    ns = kytos_req_query_all(req, "state", states, MAX_QUERY_VALUES);
    nc = kytos_req_query_all(req, "cookie_range", cr, MAX_QUERY_VALUES);
    if (nd > MAX_QUERY_VALUES || ns > MAX_QUERY_VALUES || nc > MAX_QUERY_VALUES)
        return kytos_resp_error(req, 400, "Too many query values");

    rc = cookie_ranges(req, cr, nc, &ranges, &nr);
    if (rc != 0)
        return rc > 0 ? KYTOS_OK : rc;

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
            (nr && !fm_in_ranges(ranges, nr, cookie_of(doc)))) {
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
                                            /* a body, read by stored_flows only
                                             * when JSON (others ignore it) */
                                            .flags = KYTOS_ROUTE_NO_VALIDATE |
                                                     KYTOS_ROUTE_RAW_BODY,
                                        });
        if (rc != KYTOS_OK)
            return rc;
    }
    return KYTOS_OK;
}
