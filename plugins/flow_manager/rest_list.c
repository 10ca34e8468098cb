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

/* ---- the stored flows listing, from the documents' text ----
 *
 * The answer is {"<switch>": [<doc>, ...], ...}: switches in the order
 * their first flow comes, flows in the store's order (priority down, then
 * updated_at), each document without "_id".  The store hands out each
 * document's text (KYTOS_FIND_TEXT: exactly what json-c writes for it, the
 * form of this answer) and the answer is those texts joined: no document
 * is parsed into json-c objects and written again (at 80,000 flows that
 * was most of the time and memory of the request, issue 22).  Only the
 * "switch" member and, with cookie ranges, flow.cookie are read. */

#define LIST_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Canonical JSON text (no whitespace, keys as json-c escapes them). */
static const char *txt_skip_string(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        if (*p == '\\')
            p++;
        else if (*p == '"')
            return p + 1;
    }
    return end;
}

static const char *txt_skip_value(const char *p, const char *end)
{
    int depth = 0;

    while (p < end) {
        switch (*p) {
        case '"':
            p = txt_skip_string(p, end);
            if (!depth)
                return p;
            continue;
        case '{': case '[':
            depth++;
            break;
        case '}': case ']':
            if (!depth)
                return p;
            if (!--depth)
                return p + 1;
            break;
        case ',':
            if (!depth)
                return p;
            break;
        default:
            break;
        }
        p++;
    }
    return end;
}

/* The value of member key (plain: no '"', '\\' or control characters) of
 * the object text obj, in *v and *vlen; 0 when absent or obj is no object. */
static int txt_member(const char *obj, size_t olen, const char *key, const char **v, size_t *vlen)
{
    const char *p = obj + 1, *end = obj + olen;
    size_t kn = strlen(key);

    if (!olen || *obj != '{')
        return 0;
    while (p < end && *p == '"') {
        const char *k = p, *ke = txt_skip_string(p, end), *ve;
        if (ke >= end || *ke != ':')
            return 0;
        ve = txt_skip_value(ke + 1, end);
        if ((size_t)(ke - k) == kn + 2 && !memcmp(k + 1, key, kn)) {
            *v = ke + 1;
            *vlen = (size_t)(ve - ke - 1);
            return 1;
        }
        if (ve >= end || *ve != ',')
            return 0;
        p = ve + 1;
    }
    return 0;
}

/* A document's flow.cookie as the filter reads it: a non-negative integer,
 * else 0 (missing, negative, not an integer). */
static uint64_t txt_cookie(const char *doc, size_t len)
{
    const char *f, *c;
    size_t flen, clen;
    struct json_object *v;
    uint64_t cookie = 0;

    if (!txt_member(doc, len, "flow", &f, &flen) || !txt_member(f, flen, "cookie", &c, &clen) ||
        clen > 64)
        return 0;
    {
        char num[65];
        memcpy(num, c, clen);
        num[clen] = '\0';
        v = json_tokener_parse(num);
    }
    if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0)
        cookie = json_object_get_uint64(v);
    json_object_put(v);
    return cookie;
}

/* One flow in the answer: its text, and the next flow of its switch. */
struct sf_row {
    struct json_object *text;   /* a JSON string: the document's text */
    size_t next;                /* index + 1, 0 = last */
};

/* One switch: its key (the "switch" value's text, quotes included) and
 * its flows as a list through rows. */
struct sf_group {
    const char *key;
    size_t klen, first, last;
};

struct sf_list {
    struct sf_row *rows;
    size_t nrows, caprows;
    struct sf_group *groups;
    size_t ngroups, capgroups;
    size_t *slots;              /* open addressing: group index + 1 */
    size_t nslots;
    size_t bytes;               /* of the answer */
};

static size_t sf_hash(const char *s, size_t n)
{
    size_t h = 1469598103934665603u;
    while (n--)
        h = (h ^ (unsigned char)*s++) * 1099511628211u;
    return h;
}

static int sf_rehash(struct sf_list *l)
{
    size_t n = l->nslots ? l->nslots * 2 : 64, *slots = calloc(n, sizeof *slots);

    if (!slots)
        return -1;
    for (size_t g = 0; g < l->ngroups; g++) {
        size_t i = sf_hash(l->groups[g].key, l->groups[g].klen) & (n - 1);
        while (slots[i])
            i = (i + 1) & (n - 1);
        slots[i] = g + 1;
    }
    free(l->slots);
    l->slots = slots;
    l->nslots = n;
    return 0;
}

/* Add one document's text (taken); 0, or -1 out of memory. */
static int sf_add(struct sf_list *l, struct json_object *text, const char *key, size_t klen)
{
    size_t i, g, r = l->nrows;

    if ((l->ngroups + 1) * 2 > l->nslots && sf_rehash(l) < 0)
        goto nomem;
    if (l->nrows == l->caprows) {
        size_t n = l->caprows ? l->caprows * 2 : 1024;
        struct sf_row *rows = realloc(l->rows, n * sizeof *rows);
        if (!rows)
            goto nomem;
        l->rows = rows;
        l->caprows = n;
    }
    for (i = sf_hash(key, klen) & (l->nslots - 1); l->slots[i]; i = (i + 1) & (l->nslots - 1)) {
        struct sf_group *gr = &l->groups[l->slots[i] - 1];
        if (gr->klen == klen && !memcmp(gr->key, key, klen))
            break;
    }
    if (l->slots[i]) {
        g = l->slots[i] - 1;
        l->rows[l->groups[g].last].next = r + 1;
        l->bytes += 1;                                  /* , */
    } else {
        if (l->ngroups == l->capgroups) {
            size_t n = l->capgroups ? l->capgroups * 2 : 32;
            struct sf_group *gs = realloc(l->groups, n * sizeof *gs);
            if (!gs)
                goto nomem;
            l->groups = gs;
            l->capgroups = n;
        }
        g = l->ngroups++;
        l->groups[g] = (struct sf_group){key, klen, r, r};
        l->slots[i] = g + 1;
        l->bytes += (g ? 1 : 0) + klen + 3;             /* ,"key":[] */
    }
    l->groups[g].last = r;
    l->rows[r] = (struct sf_row){text, 0};
    l->nrows++;
    l->bytes += (size_t)json_object_get_string_len(text);
    return 0;
nomem:
    json_object_put(text);
    return -1;
}

static void sf_free(struct sf_list *l)
{
    for (size_t r = 0; r < l->nrows; r++)
        json_object_put(l->rows[r].text);
    free(l->rows);
    free(l->groups);
    free(l->slots);
}

/* The answer's text, freeing the rows' texts as they are copied. */
static char *sf_join(struct sf_list *l, size_t *len)
{
    char *buf = malloc(l->bytes + 3), *p = buf;

    if (!buf)
        return NULL;
    *p++ = '{';
    for (size_t g = 0; g < l->ngroups; g++) {
        const struct sf_group *gr = &l->groups[g];
        if (g)
            *p++ = ',';
        memcpy(p, gr->key, gr->klen);
        p += gr->klen;
        *p++ = ':';
        *p++ = '[';
        for (size_t r = gr->first + 1; r; r = l->rows[r - 1].next) {
            struct sf_row *row = &l->rows[r - 1];
            size_t n = (size_t)json_object_get_string_len(row->text);
            if (r != gr->first + 1)
                *p++ = ',';
            memcpy(p, json_object_get_string(row->text), n);
            p += n;
        }
        *p++ = ']';
    }
    *p++ = '}';
    *p = '\0';
    *len = (size_t)(p - buf);
    /* the keys point into the texts: free them only now */
    sf_free(l);
    memset(l, 0, sizeof *l);
    return buf;
}

/* The cookie ranges' hull as a store filter, so that the (flow.cookie,
 * switch) index reads only the flows that may be in them instead of every
 * stored flow.  Not when a range holds 0: each flow below reads a missing,
 * negative or non-integer cookie as 0, which no store filter on
 * flow.cookie would match.  The exact ranges are still applied to each
 * flow read (a flow's cookie may be a double the store compares as a
 * number). */
static void add_cookie_hull(struct json_object *filter, const struct fm_range *r, size_t n)
{
    struct json_object *hull;
    uint64_t lo = UINT64_MAX, hi = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        if (r[i].lo == 0)
            return;
        if (r[i].lo > r[i].hi)
            continue;   /* empty */
        lo = r[i].lo < lo ? r[i].lo : lo;
        hi = r[i].hi > hi ? r[i].hi : hi;
    }
    if (lo > hi)
        return;   /* all empty (or none): the flows are filtered out below */
    hull = json_object_new_object();
    json_object_object_add(hull, "$gte", json_object_new_uint64(lo));
    json_object_object_add(hull, "$lte", json_object_new_uint64(hi));
    json_object_object_add(filter, "flow.cookie", hull);
}

static int h_stored_flows(kytos_req *req, void *ud)
{
    struct fm_ctx *ctx = ud;
    const char *dpids[MAX_QUERY_VALUES], *states[MAX_QUERY_VALUES], *cr[MAX_QUERY_VALUES];
    size_t nd, ns, nc, nr = 0, len = 0;
    struct fm_range *ranges = NULL;
    struct json_object *filter, *doc;
    struct kytos_error err = {0};
    struct sf_list list = {0};
    kytos_cursor *cur = NULL;
    char *body;
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
    add_cookie_hull(filter, ranges, nr);
    {
        struct json_object *sort = json_object_new_object(), *proj = json_object_new_object();
        json_object_object_add(sort, "flow.priority", json_object_new_int(-1));
        json_object_object_add(sort, "updated_at", json_object_new_int(1));
        json_object_object_add(proj, "_id", json_object_new_int(0));
        rc = kytos_store_find(ctx->napp, FM_COLL,
                              &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                                   .filter = filter,
                                                   .sort = sort,
                                                   .projection = proj,
                                                   .flags = KYTOS_FIND_TEXT},
                              &cur, &err);
        json_object_put(sort);
        json_object_put(proj);
    }
    json_object_put(filter);
    if (rc != KYTOS_OK) {
        free(ranges);
        return kytos_resp_error(req, 500, "Failed to read stored flows: %s", err.message);
    }
    while ((rc = kytos_cursor_next(cur, &doc, &err)) == 1) {
        const char *t, *sw;
        size_t tlen, swlen;
        if (!json_object_is_type(doc, json_type_string)) {
            /* a host without KYTOS_FIND_TEXT: the same text, written here */
            struct json_object *d = doc;
            t = json_object_to_json_string_length(d, LIST_FLAGS, &tlen);
            doc = t ? json_object_new_string_len(t, (int)tlen) : NULL;
            json_object_put(d);
            if (!doc) {
                rc = KYTOS_ENOMEM;
                break;
            }
        }
        t = json_object_get_string(doc);
        tlen = (size_t)json_object_get_string_len(doc);
        /* only flows whose switch is a string (the key of their list) */
        if (!txt_member(t, tlen, "switch", &sw, &swlen) || !swlen || *sw != '"' ||
            (nr && !fm_in_ranges(ranges, nr, txt_cookie(t, tlen)))) {
            json_object_put(doc);
            continue;
        }
        if (sf_add(&list, doc, sw, swlen) < 0) {
            rc = KYTOS_ENOMEM;
            break;
        }
    }
    kytos_cursor_free(cur);
    free(ranges);
    if (rc < 0) {
        sf_free(&list);
        return kytos_resp_error(req, 500, "Failed to read stored flows: %s",
                                rc == KYTOS_ENOMEM && !err.message[0] ? "out of memory" : err.message);
    }
    if (!(body = sf_join(&list, &len))) {
        sf_free(&list);
        return kytos_resp_error(req, 500, "Failed to read stored flows: out of memory");
    }
    /* on failure kytos_resp_static has already freed body */
    return kytos_resp_static(req, 200, "application/json", body, len, free, body);
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
            if (!(fm_switches_refresh(ctx->switches, ctx->napp, fm_switches_clock(), dpid) &
                  FM_SW_KNOWN))
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
