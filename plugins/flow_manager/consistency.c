/* plugins/flow_manager/consistency.c - Kytos' check_consistency, its
 * "missing" half: on a switch's flow stats, a stored flow (pending or
 * installed, last written before the verdict time) that the switch does
 * not hold is sent again (an ADD, not stored again).  A flow deleted from
 * a switch while kytosd was away comes back at the first stats after the
 * switch connects; nothing the switch holds is sent twice.
 *
 * When: at the first stats after a switch's handshake (verdict time: now),
 * then at most every consistency_min_verdict_interval seconds (setting,
 * default 120, as Kytos' CONSISTENCY_MIN_VERDICT_INTERVAL; verdict time:
 * now minus that interval).  enable_consistency_check = false turns it
 * off.  Not done (yet): Kytos' "alien" half, deleting what the switch holds
 * and the store does not. */
#include "fm.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK_DEFAULT_S 120

struct fm_cons {
    pthread_mutex_t lock;
    struct json_object *last;   /* dpid -> unix seconds of the last check */
    int enabled;
    int64_t interval_s;
};

static int64_t now_s(void)
{
    return (int64_t)time(NULL);
}

/* "YYYY-MM-DDTHH:MM:SS.ffffff" of t (UTC), as the store's updated_at. */
static void iso_of(int64_t t, char out[32])
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%S.000000", &tm);
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
    return c;
}

void fm_cons_free(struct fm_cons *c)
{
    if (!c)
        return;
    json_object_put(c->last);
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

void fm_cons_check(struct fm_ctx *ctx, const char *dpid, struct json_object *seen)
{
    struct json_object *filter, *states, *doc, *missing;
    struct kytos_error err = {0};
    kytos_cursor *cur = NULL;
    char verdict_iso[32];
    int64_t verdict;

    if (!ctx->cons || !ctx->cons->enabled || !dpid)
        return;
    if (!(fm_switches_get(ctx->switches, dpid) & FM_SW_ENABLED) || !due(ctx->cons, dpid, &verdict))
        return;
    if (verdict == 0)
        fm_now_iso(verdict_iso);   /* after a handshake: now, to the microsecond */
    else
        iso_of(verdict, verdict_iso);
    filter = json_object_new_object();
    states = json_object_new_object();
    json_object_object_add(states, "$ne", json_object_new_string("deleted"));
    json_object_object_add(filter, "switch", json_object_new_string(dpid));
    json_object_object_add(filter, "state", states);
    if (kytos_store_find(ctx->napp, FM_COLL,
                         &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                              .filter = filter},
                         &cur, &err) != KYTOS_OK) {
        kytos_log(ctx->napp, KYTOS_LOG_WARNING, "consistency check of %s: %s", dpid, err.message);
        json_object_put(filter);
        return;
    }
    json_object_put(filter);
    missing = json_object_new_array();
    while (kytos_cursor_next(cur, &doc, &err) == 1) {
        const char *fid = json_object_get_string(json_object_object_get(doc, "flow_id"));
        const char *upd = json_object_get_string(json_object_object_get(doc, "updated_at"));
        struct json_object *flow;
        /* ISO strings of one format compare as the times they name */
        if (fid && !json_object_object_get_ex(seen, fid, NULL) && upd &&
            strcmp(upd, verdict_iso) <= 0 && json_object_object_get_ex(doc, "flow", &flow))
            json_object_array_add(missing, json_object_get(flow));
        json_object_put(doc);
    }
    kytos_cursor_free(cur);
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
