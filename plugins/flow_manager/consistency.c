/* plugins/flow_manager/consistency.c - Kytos' check_consistency, on a
 * switch's flow stats (of_core publishes them once the reply is complete,
 * REPLY_MORE parts gathered), in Kytos' order:
 *
 * "alien": a flow the switch holds whose flow_id (match, priority, table,
 * cookie, timeouts, instructions: Kytos' Flow.id) no stored flow (pending or
 * installed) has is deleted with a DELETE_STRICT of that flow (as Kytos, its
 * cookie_mask 0), owner "alien", and not stored: Kytos keeps no record of
 * it.  Spared: a flow whose cookie is in consistency_cookie_ignored_range or
 * whose table is in consistency_table_id_ignored_range; one whose match_id
 * (switch, table, match, priority) a stored flow written at or after the
 * verdict time has (being replaced); one a stored flow deleted at or after
 * the verdict time was (its delete may still be on its way).
 *
 * "missing": a stored flow (pending or installed, last written before the
 * verdict time) that the switch does not hold is sent again (an ADD, not
 * stored again).  A flow deleted from a switch while kytosd was away comes
 * back at the first stats after the switch connects; nothing the switch
 * holds is sent twice.
 *
 * When: at the first stats after a switch's handshake (verdict time: now),
 * then at most every consistency_min_verdict_interval seconds (setting,
 * default 120, as Kytos' CONSISTENCY_MIN_VERDICT_INTERVAL; verdict time:
 * now minus that interval), only while the switch is enabled and connected.
 * enable_consistency_check = false turns it off.
 *
 * The ignored ranges are JSON arrays of integers and [first, last] pairs
 * (Kytos' ints and tuples): consistency_cookie_ignored_range = [42, [256,
 * 511]].  A malformed list is ignored whole, with a warning, as Kytos does. */
#include "fm.h"
#include "req_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK_DEFAULT_S 120
#define MAX_RANGES 1024        /* entries of an ignored-range setting */

/* Values (fm_range, req_util.h) the alien half leaves alone. */
struct fm_ranges {
    struct fm_range *v;
    size_t n;
};

struct fm_cons {
    pthread_mutex_t lock;
    struct json_object *last;   /* dpid -> unix seconds of the last check */
    int enabled;
    int64_t interval_s;
    struct fm_ranges cookies, tables;   /* read-only after fm_cons_new */
};

static int64_t now_s(void)
{
    return (int64_t)time(NULL);
}

/* Setting key of st (absent or null: none) into *out: Kytos'
 * _valid_consistency_ignored, each entry an integer or a [first, last]
 * pair with first <= last, values 0..max.  A malformed list is ignored
 * whole, with a warning naming what was wrong. */
static void ranges_setting(kytos_napp *napp, struct json_object *st, const char *key, uint64_t max,
                           struct fm_ranges *out)
{
    struct json_object *v = NULL;
    size_t i, n;
    char why[160] = "";

    out->v = NULL;
    out->n = 0;
    if (!json_object_object_get_ex(st, key, &v) || !v)
        return;
    if (!json_object_is_type(v, json_type_array)) {
        snprintf(why, sizeof why, "a list is expected");
        goto bad;
    }
    n = json_object_array_length(v);
    if (n > MAX_RANGES) {
        snprintf(why, sizeof why, "%zu entries, at most %d", n, MAX_RANGES);
        goto bad;
    }
    if (n == 0 || !(out->v = calloc(n, sizeof *out->v)))
        return;
    for (i = 0; i < n; i++) {
        struct json_object *e = json_object_array_get_idx(v, i);
        uint64_t a, b;
        if (fm_json_uint(e, max, &a)) {
            b = a;
        } else if (json_object_is_type(e, json_type_array) && json_object_array_length(e) == 2 &&
                   fm_json_uint(json_object_array_get_idx(e, 0), max, &a) &&
                   fm_json_uint(json_object_array_get_idx(e, 1), max, &b)) {
            if (b < a) {
                snprintf(why, sizeof why, "entry %zu: the first value is bigger than the second",
                         i);
                goto bad;
            }
        } else {
            snprintf(why, sizeof why,
                     "entry %zu: an integer 0..%" PRIu64 " or a [first, last] pair is expected", i,
                     max);
            goto bad;
        }
        out->v[out->n].lo = a;
        out->v[out->n].hi = b;
        out->n++;
    }
    return;
bad:
    kytos_log(napp, KYTOS_LOG_WARNING, "%s is not well formatted, it will be ignored: %s", key,
              why);
    free(out->v);
    out->v = NULL;
    out->n = 0;
}

static int in_ranges(const struct fm_ranges *r, uint64_t x)
{
    return fm_in_ranges(r->v, r->n, x);
}

struct fm_cons *fm_cons_new(kytos_napp *napp)
{
    struct json_object *st = kytos_napp_settings(napp), *v;
    struct fm_cons *c = calloc(1, sizeof *c);

    if (!c || !(c->last = json_object_new_object())) {
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    c->enabled = 1;
    c->interval_s = CHECK_DEFAULT_S;
    if (json_object_object_get_ex(st, "enable_consistency_check", &v) &&
        json_object_is_type(v, json_type_boolean))
        c->enabled = json_object_get_boolean(v);
    if (json_object_object_get_ex(st, "consistency_min_verdict_interval", &v) &&
        (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))) {
        double s = json_object_get_double(v);
        if (s >= 1 && s <= 86400)
            c->interval_s = (int64_t)s;
        else
            kytos_log(napp, KYTOS_LOG_WARNING,
                      "consistency_min_verdict_interval %g out of 1..86400: using %d", s,
                      CHECK_DEFAULT_S);
    }
    ranges_setting(napp, st, "consistency_cookie_ignored_range", UINT64_MAX, &c->cookies);
    ranges_setting(napp, st, "consistency_table_id_ignored_range", 255, &c->tables);
    return c;
}

void fm_cons_free(struct fm_cons *c)
{
    if (!c)
        return;
    json_object_put(c->last);
    free(c->cookies.v);
    free(c->tables.v);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

void fm_cons_reset(struct fm_cons *c, const char *dpid)
{
    if (!c || !dpid)
        return;
    pthread_mutex_lock(&c->lock);
    json_object_object_del(c->last, dpid);
    pthread_mutex_unlock(&c->lock);
}

/* Whether dpid's check is due; if so it is recorded as done now and
 * *verdict is its verdict time (0: now). */
static int due(struct fm_cons *c, const char *dpid, int64_t *verdict)
{
    struct json_object *v;
    int64_t now = now_s();
    int yes = 0;

    pthread_mutex_lock(&c->lock);
    if (!json_object_object_get_ex(c->last, dpid, &v)) {
        *verdict = 0;
        yes = 1;
    } else if (now - json_object_get_int64(v) >= c->interval_s) {
        *verdict = now - c->interval_s;
        yes = 1;
    }
    if (yes)
        json_object_object_add(c->last, dpid, json_object_new_int64(now));
    pthread_mutex_unlock(&c->lock);
    return yes;
}

/* What the store holds for one switch, as check_alien_flows and
 * check_missing_flows read it: flow_id -> stored doc (pending or
 * installed), match_id -> its updated_at, and flow_id -> updated_at of the
 * deleted ones.  Docs are referenced. */
struct stored {
    struct json_object *by_flow_id, *match_updated, *deleted_updated;
};

static void stored_clear(struct stored *s)
{
    json_object_put(s->by_flow_id);
    json_object_put(s->match_updated);
    json_object_put(s->deleted_updated);
}

/* Newest of the two ISO times for key in o. */
static void keep_newest(struct json_object *o, const char *key, const char *iso)
{
    struct json_object *old;
    if (json_object_object_get_ex(o, key, &old) && strcmp(json_object_get_string(old), iso) >= 0)
        return;
    json_object_object_add(o, key, json_object_new_string(iso));
}

/* The documents filter finds, into s; -1 when the read failed (a read
 * that failed partway leaves stored flows out: judged on it, the alien
 * half would delete them from the switch). */
static int read_into(struct fm_ctx *ctx, const char *dpid, struct json_object *filter,
                     struct stored *s)
{
    struct json_object *doc;
    struct kytos_error err = {0};
    kytos_cursor *cur = NULL;
    int rc;

    rc = kytos_store_find(ctx->napp, FM_COLL,
                          &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                               .filter = filter},
                          &cur, &err);
    json_object_put(filter);
    if (rc != KYTOS_OK) {
        kytos_log(ctx->napp, KYTOS_LOG_WARNING, "consistency check of %s: %s", dpid, err.message);
        return -1;
    }
    while ((rc = kytos_cursor_next(cur, &doc, &err)) == 1) {
        const char *fid = json_object_get_string(json_object_object_get(doc, "flow_id"));
        const char *mid = json_object_get_string(json_object_object_get(doc, "_id"));
        const char *state = json_object_get_string(json_object_object_get(doc, "state"));
        const char *upd = json_object_get_string(json_object_object_get(doc, "updated_at"));
        if (fid && state && upd) {
            if (strcmp(state, "deleted") == 0) {
                keep_newest(s->deleted_updated, fid, upd);
            } else {
                json_object_object_add(s->by_flow_id, fid, json_object_get(doc));
                if (mid)
                    keep_newest(s->match_updated, mid, upd);
            }
        }
        json_object_put(doc);
    }
    kytos_cursor_free(cur);
    if (rc < 0) {
        kytos_log(ctx->napp, KYTOS_LOG_WARNING, "consistency check of %s: %s", dpid,
                  err.message);
        return -1;
    }
    return 0;
}

/* What the check needs of dpid's stored flows: those not deleted, and the
 * deleted ones written at or after the verdict time (the only ones
 * written_since() can count).  Soft-deleted flows pile up with every
 * change of path, and Kytos reads them all at every check; here the older
 * ones are not even parsed (the store drops them by their state and their
 * updated_at). */
static int stored_read(struct fm_ctx *ctx, const char *dpid, const char *verdict_iso,
                       struct stored *s)
{
    struct json_object *live = json_object_new_object(), *recent = json_object_new_object(),
                       *ne = json_object_new_object(), *gte = json_object_new_object();

    s->by_flow_id = json_object_new_object();
    s->match_updated = json_object_new_object();
    s->deleted_updated = json_object_new_object();
    json_object_object_add(ne, "$ne", json_object_new_string("deleted"));
    json_object_object_add(live, "switch", json_object_new_string(dpid));
    json_object_object_add(live, "state", ne);
    json_object_object_add(gte, "$gte", json_object_new_string(verdict_iso));
    json_object_object_add(recent, "switch", json_object_new_string(dpid));
    json_object_object_add(recent, "state", json_object_new_string("deleted"));
    json_object_object_add(recent, "updated_at", gte);
    if (read_into(ctx, dpid, live, s) < 0) {
        json_object_put(recent);
        return -1;
    }
    return read_into(ctx, dpid, recent, s);
}

/* o[key] exists and is >= iso (ISO strings of one format
 * compare as the times they name). */
static int written_since(struct json_object *o, const char *key, const char *iso)
{
    struct json_object *v;
    return json_object_object_get_ex(o, key, &v) && strcmp(json_object_get_string(v), iso) >= 0;
}

/* Kytos' check_alien_flows: the switch's flows (flow stats dicts, with
 * "id") no stored flow accounts for, deleted with DELETE_STRICT. */
static void check_alien(struct fm_ctx *ctx, const char *dpid, struct json_object *switch_flows,
                        const struct stored *s, const char *verdict_iso)
{
    size_t i, n = json_object_is_type(switch_flows, json_type_array)
                      ? json_object_array_length(switch_flows)
                      : 0;
    struct fm_flow *aliens = calloc(n ? n : 1, sizeof *aliens);
    struct json_object *copies = json_object_new_array();
    size_t na = 0, bad = 0;
    char err[256] = "";

    if (!aliens || !copies) {
        free(aliens);
        json_object_put(copies);
        return;
    }
    for (i = 0; i < n; i++) {
        struct json_object *f = json_object_array_get_idx(switch_flows, i), *id = NULL, *src = NULL;
        struct fm_flow *a = &aliens[na];
        char mid[33], fid[33];
        const char *flow_id;
        if (json_object_object_get_ex(f, "id", &id) && json_object_is_type(id, json_type_string) &&
            json_object_object_get_ex(s->by_flow_id, json_object_get_string(id), NULL))
            continue;                       /* stored: not alien (the common case) */
        if (!json_object_object_get_ex(f, "match", NULL))
            continue;                       /* an id alone (a simulator's): not a flow to judge */
        /* the dict as the delete's flow, owner alien (Kytos: {**as_dict(), "owner": "alien"}) */
        if (json_object_deep_copy(f, &src, NULL) != 0 || !src)
            continue;
        json_object_object_del(src, "stats");
        json_object_object_add(src, "owner", json_object_new_string("alien"));
        json_object_array_add(copies, src);  /* a->src borrows it until the end */
        if (fm_flow_parse(src, FM_DELETE_STRICT, a, err, sizeof err) != 0) {
            fm_flow_clear(a);
            bad++;
            continue;
        }
        fm_flow_ids(a, dpid, mid, fid);
        flow_id = json_object_is_type(id, json_type_string) ? json_object_get_string(id) : fid;
        if ((flow_id == fid && json_object_object_get_ex(s->by_flow_id, fid, NULL)) ||
            in_ranges(&ctx->cons->cookies, a->cookie) ||
            in_ranges(&ctx->cons->tables, (uint64_t)a->table_id) ||
            written_since(s->match_updated, mid, verdict_iso) ||
            written_since(s->deleted_updated, flow_id, verdict_iso)) {
            fm_flow_clear(a);
            continue;
        }
        na++;
    }
    if (bad)
        kytos_log(ctx->napp, KYTOS_LOG_WARNING,
                  "consistency check of %s: %zu flow(s) of its stats not understood, left: %s",
                  dpid, bad, err);
    if (na) {
        kytos_log(ctx->napp, KYTOS_LOG_INFO,
                  "Consistency check: %zu alien flows on switch %s, deleted (delete_strict)", na,
                  dpid);
        fm_send_unstored(ctx, FM_DELETE_STRICT,
                         &(struct fm_batch){.dpid = dpid, .flows = aliens, .n = na});
    }
    fm_flows_free(aliens, na);
    json_object_put(copies);
}

/* Kytos' check_missing_flows: stored flows written before the verdict
 * time that the switch does not hold (seen: {flow_id: null}) are sent
 * again, unstored. */
static void check_missing(struct fm_ctx *ctx, const char *dpid, struct json_object *seen,
                          const struct stored *s, const char *verdict_iso)
{
    struct json_object *missing = json_object_new_array();

    json_object_object_foreach(s->by_flow_id, fid, doc)
    {
        const char *upd = json_object_get_string(json_object_object_get(doc, "updated_at"));
        struct json_object *flow;
        if (!json_object_object_get_ex(seen, fid, NULL) && upd &&
            strcmp(upd, verdict_iso) <= 0 && json_object_object_get_ex(doc, "flow", &flow))
            json_object_array_add(missing, json_object_get(flow));
    }
    if (json_object_array_length(missing)) {
        struct fm_result res;
        struct fm_flow *flows = NULL;
        size_t n = 0;
        if (fm_flows_parse(missing, FM_ADD, &flows, &n, &res) == 0) {
            kytos_log(ctx->napp, KYTOS_LOG_INFO,
                      "consistency check of %s: %zu stored flow(s) missing, sent again", dpid, n);
            fm_send_unstored(ctx, FM_ADD, &(struct fm_batch){.dpid = dpid, .flows = flows, .n = n});
            fm_flows_free(flows, n);
        } else {
            kytos_log(ctx->napp, KYTOS_LOG_WARNING, "consistency check of %s: %s", dpid, res.text);
        }
    }
    json_object_put(missing);
}

void fm_cons_check(struct fm_ctx *ctx, const char *dpid, struct json_object *seen,
                   struct json_object *switch_flows)
{
    const unsigned need = FM_SW_ENABLED | FM_SW_CONNECTED;
    struct stored s;
    char verdict_iso[32];
    int64_t verdict;

    if (!ctx->cons || !ctx->cons->enabled || !dpid)
        return;
    if ((fm_switches_get(ctx->switches, dpid) & need) != need || !due(ctx->cons, dpid, &verdict))
        return;
    if (verdict == 0)
        fm_now_iso(verdict_iso);   /* after a handshake: now, to the microsecond */
    else
        fm_iso_of(verdict, verdict_iso);
    if (stored_read(ctx, dpid, verdict_iso, &s) == 0) {
        check_alien(ctx, dpid, switch_flows, &s, verdict_iso);
        check_missing(ctx, dpid, seen, &s, verdict_iso);
    }
    stored_clear(&s);
}
