/* plugins/simnet/flows.c - each simulated switch's flow table, driven by
 * flow_manager's FlowMod and barrier events (contract in simnet.h). */
#include "simnet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

enum cmd { CMD_ADD, CMD_MODIFY, CMD_MODIFY_STRICT, CMD_DELETE, CMD_DELETE_STRICT, CMD_BAD };

static enum cmd parse_command(struct json_object *v)
{
    static const char *const names[] = {"add", "modify", "modify_strict", "delete", "delete_strict"};

    if (!v)
        return CMD_ADD;
    if (json_object_is_type(v, json_type_int)) {
        int64_t n = json_object_get_int64(v);
        return n >= 0 && n <= 4 ? (enum cmd)n : CMD_BAD;
    }
    if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        if (strncmp(s, "OFPFC_", 6) == 0)
            s += 6;
        for (int i = 0; i < 5; i++)
            if (strcasecmp(s, names[i]) == 0)
                return (enum cmd)i;
    }
    return CMD_BAD;
}

static struct json_object *field(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;

    json_object_object_get_ex(o, key, &v);
    return v;
}

/* Numbers default to Kytos' FlowMod defaults when absent. */
static uint64_t num(struct json_object *o, const char *key, uint64_t dflt)
{
    struct json_object *v = field(o, key);

    if (!json_object_is_type(v, json_type_int))
        return dflt;
    return json_object_get_uint64(v);
}

static struct json_object *match_of(struct json_object *flow)
{
    struct json_object *m = field(flow, "match");

    return json_object_is_type(m, json_type_object) ? m : NULL;
}

static bool match_equal(struct json_object *a, struct json_object *b)
{
    if (!a || !b)
        return (!a || json_object_object_length(a) == 0) && (!b || json_object_object_length(b) == 0);
    return json_object_equal(a, b);
}

/* Non-strict delete: the flow's match has every field of want, equal. */
static bool match_covers(struct json_object *flow_match, struct json_object *want)
{
    if (!want)
        return true;
    json_object_object_foreach(want, key, val) {
        struct json_object *fv = field(flow_match, key);
        if (!fv || !json_object_equal(fv, val))
            return false;
    }
    return true;
}

/* What same_entry() compares, looked up once per message. */
struct entry {
    uint64_t key, table_id, priority;
    struct json_object *match;
};

static bool empty_match(struct json_object *m)
{
    return !m || json_object_object_length(m) == 0;
}

/* The table keeps text; a comparison that needs the match parses it.
 * tok: a tokener to reuse over many flows (json_tokener_parse makes and
 * zeroes a new one each time), or NULL. */
static struct json_object *parse_flow_with(json_tokener *tok, const struct sim_flow *f)
{
    struct json_object *v;

    if (!tok)
        return json_tokener_parse(f->text);
    json_tokener_reset(tok);
    v = json_tokener_parse_ex(tok, f->text, -1);
    if (json_tokener_get_error(tok) != json_tokener_success) {
        json_object_put(v);
        return NULL;
    }
    return v;
}

static struct json_object *parse_flow(const struct sim_flow *f)
{
    return parse_flow_with(NULL, f);
}

static bool same_entry(const struct sim_flow *f, const struct entry *e)
{
    struct json_object *flow;
    bool same;

    if (f->key != e->key || f->table_id != e->table_id || f->priority != e->priority)
        return false;
    if (f->match_empty || empty_match(e->match))
        return f->match_empty && empty_match(e->match);
    flow = parse_flow(f);
    same = flow && match_equal(match_of(flow), e->match);
    json_object_put(flow);
    return same;
}

/* Non-strict commands: f's match has every field of want. */
static bool covers(const struct sim_flow *f, struct json_object *want)
{
    struct json_object *flow;
    bool yes;

    if (empty_match(want))
        return true;
    if (f->match_empty)
        return false;
    flow = parse_flow(f);
    yes = flow && match_covers(match_of(flow), want);
    json_object_put(flow);
    return yes;
}

/* What a modify or delete selects by, read from the message once: a
 * non-strict one tests every flow of the table. */
struct sel {
    uint64_t cookie, mask, table;
};

static struct sel sel_of(struct json_object *req)
{
    return (struct sel){.cookie = num(req, "cookie", 0), .mask = num(req, "cookie_mask", 0),
                        .table = num(req, "table_id", 255)};
}

static bool cookie_ok(const struct sim_flow *f, const struct sel *s)
{
    return s->mask == 0 || (f->cookie & s->mask) == (s->cookie & s->mask);
}

static bool table_ok(const struct sim_flow *f, const struct sel *s)
{
    return s->table == 255 || f->table_id == s->table;
}

/* f holds flow (a tree nobody else reads: serialising caches text in it)
 * from now on; false when out of memory (f unchanged). */
static bool flow_set(struct sim_flow *f, struct json_object *flow)
{
    const char *t = json_object_to_json_string_ext(flow, JSON_C_TO_STRING_PLAIN |
                                                             JSON_C_TO_STRING_NOSLASHESCAPE);
    char *copy = t ? strdup(t) : NULL;

    if (!copy)
        return false;
    free(f->text);
    f->text = copy;
    f->cookie = num(flow, "cookie", 0);
    f->match_empty = empty_match(match_of(flow));
    return true;
}

static void copy_actions(struct json_object *dst, struct json_object *src)
{
    static const char *const keys[] = {"instructions", "actions"};

    for (int i = 0; i < 2; i++) {
        struct json_object *v = field(src, keys[i]), *c = NULL;
        json_object_object_del(dst, keys[i]);
        if (v && json_object_deep_copy(v, &c, NULL) == 0)
            json_object_object_add(dst, keys[i], c);
    }
}

/* modify[_strict]: req's instructions/actions into f */
static void modify(struct sim_flow *f, struct json_object *req)
{
    struct json_object *flow = parse_flow(f);

    if (!flow)
        return;
    copy_actions(flow, req);
    flow_set(f, flow);
    json_object_put(flow);
}

/* ---- the flow table: install-order list + hash on (table_id, priority, match) ----
 * The hash only picks candidates: same_entry() still decides, so two flows
 * collide harmlessly.  Whatever json_object_equal() calls equal hashes
 * equal: objects hash their members in any order, integers by value
 * whether json-c holds them signed or unsigned, -0.0 as 0.0, and an absent
 * match as {} (match_equal). */

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t hash_json(struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_boolean:
        return mix(json_object_get_boolean(v) ? 0x74 : 0x66);
    case json_type_int: {
        int64_t i = json_object_get_int64(v);
        return mix((i < 0 ? (uint64_t)i : json_object_get_uint64(v)) ^ 0x69);
    }
    case json_type_double: {
        double d = json_object_get_double(v);
        uint64_t bits;
        if (d == 0)
            d = 0;
        memcpy(&bits, &d, sizeof bits);
        return mix(bits ^ 0x64);
    }
    case json_type_string:
        return mix(hash_bytes(json_object_get_string(v), (size_t)json_object_get_string_len(v)) ^ 0x73);
    case json_type_array: {
        size_t n = json_object_array_length(v);
        uint64_t h = mix(n ^ 0x61);
        for (size_t i = 0; i < n; i++)
            h = mix(h ^ hash_json(json_object_array_get_idx(v, i)));
        return h;
    }
    case json_type_object: {
        uint64_t h = 0;
        /* a sum: the members' order does not count */
        json_object_object_foreach(v, key, val) {
            h += mix(hash_bytes(key, strlen(key)) ^ (hash_json(val) * 0x9e3779b97f4a7c15ULL));
        }
        return mix(h ^ ((uint64_t)json_object_object_length(v) << 8) ^ 0x6f);
    }
    case json_type_null:
    default:
        return 0x6e;
    }
}

/* same_entry()'s fields of a flow: table_id, priority and match, with
 * their defaults, and their hash. */
static struct entry entry_of(struct json_object *flow)
{
    struct entry e = {0, num(flow, "table_id", 0), num(flow, "priority", 0x8000), match_of(flow)};
    uint64_t hm = e.match ? hash_json(e.match) : mix(0x6f);   /* absent = {} */

    e.key = mix(hm ^ mix(e.table_id * 0x9e3779b97f4a7c15ULL ^ e.priority));
    return e;
}

static size_t bucket_of(const struct sim_flowtab *t, uint64_t key)
{
    return (size_t)(key & (t->nbuckets - 1));
}

static size_t cbucket_of(const struct sim_flowtab *t, uint64_t cookie)
{
    return (size_t)(mix(cookie) & (t->nbuckets - 1));
}

static void cookie_link(struct sim_flowtab *t, struct sim_flow *f)
{
    size_t i = cbucket_of(t, f->cookie);

    f->cchain = t->cbuckets[i];
    t->cbuckets[i] = f;
}

static void cookie_unlink(struct sim_flowtab *t, struct sim_flow *f)
{
    struct sim_flow **pp = &t->cbuckets[cbucket_of(t, f->cookie)];

    while (*pp != f)
        pp = &(*pp)->cchain;
    *pp = f->cchain;
}

static bool tab_grow(struct sim_flowtab *t)
{
    size_t nb = t->nbuckets ? t->nbuckets * 2 : 64;
    struct sim_flow **b = calloc(nb, sizeof(*b)), **cb = calloc(nb, sizeof(*cb));

    if (!b || !cb) {
        free(b);
        free(cb);
        return t->nbuckets > 0;   /* keep the old table: longer chains */
    }
    free(t->buckets);
    free(t->cbuckets);
    t->buckets = b;
    t->cbuckets = cb;
    t->nbuckets = nb;
    for (struct sim_flow *f = t->head; f; f = f->next) {
        size_t i = bucket_of(t, f->key);
        f->chain = b[i];
        b[i] = f;
        cookie_link(t, f);
    }
    return true;
}

/* Append flow (kept as text; see flow_set); false when out of memory. */
static bool tab_append(struct sim_flowtab *t, struct json_object *flow, const struct entry *e)
{
    struct sim_flow *f;
    size_t i;

    if ((t->n >= t->nbuckets && !tab_grow(t)) || !(f = calloc(1, sizeof(*f))))
        return false;
    if (!flow_set(f, flow)) {
        free(f);
        return false;
    }
    f->key = e->key;
    f->table_id = e->table_id;
    f->priority = e->priority;
    f->prev = t->tail;
    if (t->tail)
        t->tail->next = f;
    else
        t->head = f;
    t->tail = f;
    i = bucket_of(t, f->key);
    f->chain = t->buckets[i];
    t->buckets[i] = f;
    cookie_link(t, f);
    t->n++;
    return true;
}

/* An add that replaces f: its cookie may be another. */
static void tab_replace(struct sim_flowtab *t, struct sim_flow *f, struct json_object *flow)
{
    cookie_unlink(t, f);
    flow_set(f, flow);
    cookie_link(t, f);
}

static void tab_remove(struct sim_flowtab *t, struct sim_flow *f)
{
    struct sim_flow **pp = &t->buckets[bucket_of(t, f->key)];

    while (*pp != f)
        pp = &(*pp)->chain;
    *pp = f->chain;
    cookie_unlink(t, f);
    if (f->prev)
        f->prev->next = f->next;
    else
        t->head = f->next;
    if (f->next)
        f->next->prev = f->prev;
    else
        t->tail = f->prev;
    t->n--;
    free(f->text);
    free(f);
}

/* The flows with flow's (table_id, priority, match), in install order, at
 * most max of them; how many. */
static size_t tab_find(const struct sim_flowtab *t, const struct entry *e, struct sim_flow **out,
                       size_t max)
{
    size_t n = 0;

    if (!t->nbuckets)
        return 0;
    for (struct sim_flow *f = t->buckets[bucket_of(t, e->key)]; f && n < max; f = f->chain)
        if (same_entry(f, e))
            out[n++] = f;
    return n;
}

void sim_flowtab_clear(struct sim_flowtab *t)
{
    struct sim_flow *f = t->head;

    while (f) {
        struct sim_flow *next = f->next;
        free(f->text);
        free(f);
        f = next;
    }
    free(t->buckets);
    free(t->cbuckets);
    memset(t, 0, sizeof(*t));
}

struct json_object *sim_flowtab_json(const struct sim_flowtab *t)
{
    struct json_object *arr = json_object_new_array();

    json_tokener *tok = json_tokener_new();

    if (!arr || !tok) {
        json_object_put(arr);
        if (tok)
            json_tokener_free(tok);
        return NULL;
    }
    for (struct sim_flow *f = t->head; f; f = f->next) {
        struct json_object *c = parse_flow_with(tok, f);
        if (!c || json_object_array_add(arr, c) != 0) {
            json_object_put(c);
            json_object_put(arr);
            json_tokener_free(tok);
            return NULL;
        }
    }
    json_tokener_free(tok);
    return arr;
}

/* The strict commands touch the flows with the same (table_id, priority,
 * match); an add keeps at most one such flow, so a handful is plenty. */
#define STRICT_MAX 16

struct json_object *sim_flow_json(const struct sim_flow *f)
{
    return parse_flow(f);
}

/* own: flow is the caller's alone (the event's content, taken), so an add
 * serialises it without a copy. */
static void apply(struct sim_switch *sw, enum cmd cmd, struct json_object *flow, bool own)
{
    struct sim_flowtab *t = &sw->flows;
    struct sim_flow *hit[STRICT_MAX], *f, *next;
    struct json_object *copy = NULL, *want = match_of(flow);
    struct entry e = {0};
    struct sel sel = sel_of(flow);
    size_t n = 0;

    if (cmd == CMD_ADD || cmd == CMD_MODIFY_STRICT || cmd == CMD_DELETE_STRICT) {
        e = entry_of(flow);
        n = tab_find(t, &e, hit, STRICT_MAX);
    }
    switch (cmd) {
    case CMD_ADD:
        if (own)
            copy = json_object_get(flow);
        else if (json_object_deep_copy(flow, &copy, NULL) != 0)
            return;
        if (n) {
            /* replace in place, keeping the position (and the flow as given) */
            tab_replace(t, hit[0], copy);
        } else {
            json_object_object_del(copy, "cookie_mask");
            tab_append(t, copy, &e);
        }
        json_object_put(copy);
        break;
    case CMD_MODIFY_STRICT:
        for (size_t k = 0; k < n; k++)
            if (cookie_ok(hit[k], &sel) && table_ok(hit[k], &sel))
                modify(hit[k], flow);
        break;
    case CMD_DELETE_STRICT:
        for (size_t k = 0; k < n; k++)
            if (cookie_ok(hit[k], &sel))
                tab_remove(t, hit[k]);
        break;
    case CMD_MODIFY:
    case CMD_DELETE:
        /* non-strict: any flow whose match covers the given one, so a scan;
         * of one cookie's flows when the mask names a single cookie (the
         * order does not count: none of them is added or moved) */
        if (sel.mask == UINT64_MAX && t->nbuckets)
            f = t->cbuckets[cbucket_of(t, sel.cookie)];
        else
            f = t->head;
        for (; f; f = next) {
            next = sel.mask == UINT64_MAX ? f->cchain : f->next;
            if (!cookie_ok(f, &sel) || !table_ok(f, &sel) || !covers(f, want))
                continue;
            if (cmd == CMD_MODIFY)
                modify(f, flow);
            else
                tab_remove(t, f);
        }
        break;
    default:
        break;
    }
}

/* dst[key] = a copy of v: answers share nothing with the message (they
 * are given to the bus, and the message may be another thread's) */
static void copy_into(struct json_object *dst, const char *key, struct json_object *v)
{
    struct json_object *c = NULL;

    if (v && json_object_deep_copy(v, &c, NULL) == 0)
        json_object_object_add(dst, key, c);
    else
        json_object_object_add(dst, key, NULL);
}

static struct json_object *reply(const char *dpid, struct json_object *xid)
{
    struct json_object *c = json_object_new_object();

    if (!c)
        return NULL;
    kytos_json_add_lit(c, "source", json_object_new_string(dpid));
    kytos_json_add_lit(c, "dpid", json_object_new_string(dpid));
    copy_into(c, "xid", xid);
    return c;
}

/* The messages subscribed to end with their OpenFlow type (see
 * sim_flows_subscribe). */
static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

static void on_message(struct simnet *s, const char *name, struct json_object *c, bool own,
                       struct napp_evq *q)
{
    struct json_object *dest = field(c, "destination"), *xid = field(c, "xid");
    struct sim_switch *sw = NULL;
    const char *dpid;
    char msg[TOPO_DPID_MAX + 64];

    if (!dest)
        dest = field(c, "dpid");
    dpid = json_object_is_type(dest, json_type_string) ? json_object_get_string(dest) : NULL;
    if (!dpid || !topo_dpid_valid(dpid)) {
        kytos_log(s->napp, KYTOS_LOG_WARNING, "%s without a valid destination ignored", name);
        return;
    }
    sw = sim_switch_find(s, dpid);
    if (!sw || !sw->connected) {
        struct json_object *e = json_object_new_object();
        snprintf(msg, sizeof(msg), "switch %s is not connected", dpid);
        json_object_object_add(e, "destination", json_object_new_string(dpid));
        copy_into(e, "xid", xid);
        copy_into(e, "command", field(c, "command"));
        copy_into(e, "flow", field(c, "flow"));
        json_object_object_add(e, "exception", json_object_new_string(msg));
        napp_evq_add(q, "kytos/core.openflow.connection.error", e);
        return;
    }
    if (ends_with(name, "ofpt_barrier_request")) {
        napp_evq_add(q, "kytos/of_core.v0x04.messages.in.ofpt_barrier_reply", reply(dpid, xid));
        return;
    }
    if (ends_with(name, "ofpt_flow_mod")) {
        struct json_object *flow = field(c, "flow");
        enum cmd cmd = parse_command(field(c, "command"));
        struct json_object *m = field(flow, "match");
        if (!json_object_is_type(flow, json_type_object) || cmd == CMD_BAD ||
            (m && !json_object_is_type(m, json_type_object))) {
            struct json_object *e = reply(dpid, xid);
            json_object_object_del(e, "dpid");
            json_object_object_add(e, "error_type", json_object_new_string("OFPET_BAD_REQUEST"));
            json_object_object_add(e, "error_code", json_object_new_string("OFPBRC_BAD_TYPE"));
            json_object_object_add(e, "reason",
                                   json_object_new_string(cmd == CMD_BAD ? "unknown command"
                                                                         : "flow must be an object"));
            copy_into(e, "flow", flow);
            napp_evq_add(q, "kytos/of_core.v0x04.messages.in.ofpt_error", e);
            return;
        }
        apply(sw, cmd, flow, own);
        sw->flow_mods++;
    }
}

bool sim_flow_restore(struct sim_switch *sw, struct json_object *flow)
{
    struct json_object *m = field(flow, "match");

    if (!json_object_is_type(flow, json_type_object) || (m && !json_object_is_type(m, json_type_object)))
        return false;
    apply(sw, CMD_ADD, flow, true);
    return true;
}

static int on_flow_manager(kytos_napp *napp, const kytos_event *ev, void *ud)
{
    struct simnet *s = ud;
    /* our own copy of the content: an added flow goes into the table as is */
    bool own = KYTOS_API_HAS(event_take_content);
    struct json_object *c = own ? kytos_event_take_content(ev) : kytos_event_content(ev);
    const char *name = kytos_event_name(ev);
    struct napp_evq q = {0};

    (void)napp;
    if (name && json_object_is_type(c, json_type_object)) {
        pthread_mutex_lock(&s->lock);
        on_message(s, name, c, own, &q);
        sim_evq_answer_unlock(s, &q);
    }
    if (own)
        json_object_put(c);
    return KYTOS_OK;
}

int sim_flows_subscribe(struct simnet *s)
{
    return kytos_event_subscribe(s->napp, &(struct kytos_sub){
        .struct_size = sizeof(struct kytos_sub),
        .pattern = "kytos/flow_manager\\.messages\\.out\\.(ofpt_flow_mod|ofpt_barrier_request)",
        .handler = on_flow_manager,
        .ud = s,
        /* a switch answers in order and at once: on the sender's thread,
         * as a write to its socket would be (no buffer, no thread to wake;
         * the handler never waits) */
        .pool = "direct",
    });
}

static int64_t now_secs(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec;
}

size_t sim_flow_stats_all(struct simnet *s, struct napp_evq *q)
{
    size_t count = 0;
    int64_t now = now_secs();
    json_tokener *tok = json_tokener_new();

    for (size_t i = 0; i < s->n_switches; i++) {
        struct sim_switch *sw = s->switches[i];
        struct json_object *c, *list;
        if (!sw->connected)
            continue;
        c = json_object_new_object();
        list = json_object_new_array();
        if (!c || !list) {
            json_object_put(c);
            json_object_put(list);
            continue;
        }
        for (struct sim_flow *fl = sw->flows.head; fl; fl = fl->next) {
            struct json_object *f = parse_flow_with(tok, fl), *stats = json_object_new_object();
            if (!f) {
                json_object_put(stats);
                continue;
            }
            json_object_object_add(f, "switch", json_object_new_string(sw->dpid));
            json_object_object_add(stats, "byte_count", json_object_new_int(0));
            json_object_object_add(stats, "duration_sec", json_object_new_int64(now - sw->connected_at));
            json_object_object_add(stats, "duration_nsec", json_object_new_int(0));
            json_object_object_add(stats, "packet_count", json_object_new_int(0));
            json_object_object_add(f, "stats", stats);
            json_object_array_add(list, f);
        }
        json_object_object_add(c, "switch", json_object_new_string(sw->dpid));
        json_object_object_add(c, "replies_flows", list);
        napp_evq_add(q, "kytos/of_core.flow_stats.received", c);
        count++;
    }
    if (tok)
        json_tokener_free(tok);
    return count;
}

void sim_flow_stats_tick(kytos_napp *napp, void *ud)
{
    struct simnet *s = ud;
    struct napp_evq q = {0};

    (void)napp;
    pthread_mutex_lock(&s->lock);
    if (!s->stats_ticked) {
        /* the host runs a timer once at start: first report after one interval */
        s->stats_ticked = true;
        pthread_mutex_unlock(&s->lock);
        return;
    }
    sim_flow_stats_all(s, &q);
    sim_evq_flush_locked(s, &q);
}
