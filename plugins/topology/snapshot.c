/* plugins/topology/snapshot.c - the cached GET bodies.
 *
 * GET v3/ must be cheap: the bodies are written once per change, straight
 * from the model with the text writer (jsonw.c), and kept in an immutable,
 * refcounted snapshot.  A reader takes a reference under snap_lock (a
 * pointer copy and an atomic increment), answers, and drops it; the writer
 * that rebuilt swaps the pointer and drops the old snapshot's reference, so
 * the last reader frees it.  Each interface is written once per rebuild and
 * copied into the switches, links and interfaces bodies.
 *
 * The key order and value formats are those of Kytos' as_dict() (see
 * view.c, which builds the same shapes as json-c values for events). */
#include "topo.h"
#include "pyfloat.h"

#include <stdlib.h>
#include <string.h>

static void write_status_reason(struct jw *w, bool enabled)
{
    jw_lit(w, enabled ? "[]" : "[\"disabled\"]");
}

static void write_intf(struct jw *w, const struct topo_intf *i)
{
    char f[TOPO_PYFLOAT_MAX];

    jw_lit(w, "{\"id\":");
    jw_str(w, i->id);
    jw_lit(w, ",\"name\":");
    jw_str(w, i->name);
    jw_lit(w, ",\"port_number\":");
    jw_i64(w, i->port);
    jw_lit(w, ",\"mac\":");
    jw_str(w, i->mac);
    jw_lit(w, ",\"switch\":");
    jw_str(w, i->sw->dpid);
    jw_lit(w, ",\"type\":\"interface\",\"nni\":");
    jw_bool(w, i->nni);
    jw_lit(w, ",\"uni\":");
    jw_bool(w, !i->nni);
    jw_lit(w, ",\"speed\":");
    if (i->speed_kind == TOPO_SPEED_INT) {
        jw_i64(w, i->speed_int);
    } else if (i->speed_kind == TOPO_SPEED_FLOAT) {
        topo_pyfloat(i->speed_float, f);
        jw_lit(w, f);
    } else {
        jw_lit(w, "null");
    }
    jw_lit(w, ",\"metadata\":");
    jw_json(w, i->metadata);
    jw_lit(w, ",\"lldp\":");
    jw_bool(w, i->lldp);
    jw_lit(w, ",\"active\":");
    jw_bool(w, i->active);
    jw_lit(w, ",\"enabled\":");
    jw_bool(w, i->enabled);
    jw_lit(w, ",\"status\":\"");
    jw_lit(w, topo_status_str(topo_intf_status(i)));
    jw_lit(w, "\",\"status_reason\":");
    write_status_reason(w, i->enabled);
    jw_lit(w, ",\"link\":");
    jw_str(w, i->link ? i->link->id : "");
    jw_lit(w, "}");
}

/* Kytos puts switches "somewhere in the ocean" when lat/lng are missing. */
static void write_switch_metadata(struct jw *w, struct json_object *md, size_t idx)
{
    struct json_object *copy = NULL;
    char lng[TOPO_PYFLOAT_MAX];

    if (json_object_object_get_ex(md, "lat", NULL) && json_object_object_get_ex(md, "lng", NULL)) {
        jw_json(w, md);
        return;
    }
    if (json_object_deep_copy(md, &copy, NULL) != 0) {
        w->oom = true;
        return;
    }
    topo_pyfloat(-30.0 + (double)idx * 10.0, lng);
    json_object_object_add(copy, "lat", json_object_new_string("0.0"));
    json_object_object_add(copy, "lng", json_object_new_string(lng));
    jw_json(w, copy);
    json_object_put(copy);
}

static void write_switch(struct jw *w, const struct topo_switch *s, size_t idx, const struct jw *ib)
{
    jw_lit(w, "{\"id\":");
    jw_str(w, s->dpid);
    jw_lit(w, ",\"name\":");
    jw_str(w, s->dpid);
    jw_lit(w, ",\"dpid\":");
    jw_str(w, s->dpid);
    jw_lit(w, ",\"connection\":");
    jw_str(w, s->connection);
    jw_lit(w, ",\"ofp_version\":");
    jw_str(w, s->ofp_version);
    jw_lit(w, ",\"type\":\"switch\",\"manufacturer\":");
    jw_str(w, s->manufacturer);
    jw_lit(w, ",\"serial\":");
    jw_str(w, s->serial);
    jw_lit(w, ",\"hardware\":");
    jw_str(w, s->hardware);
    jw_lit(w, ",\"software\":");
    jw_str(w, s->software);
    jw_lit(w, ",\"data_path\":");
    jw_str(w, s->data_path);
    jw_lit(w, ",\"interfaces\":{");
    for (size_t k = 0; k < s->n_intfs; k++) {
        if (k)
            jw_lit(w, ",");
        jw_key(w, s->intfs[k]->id);
        jw_raw(w, ib->buf + s->intfs[k]->w_off, s->intfs[k]->w_len);
    }
    jw_lit(w, "},\"metadata\":");
    write_switch_metadata(w, s->metadata, idx);
    jw_lit(w, ",\"active\":");
    jw_bool(w, s->active);
    jw_lit(w, ",\"enabled\":");
    jw_bool(w, s->enabled);
    jw_lit(w, ",\"status\":\"");
    jw_lit(w, topo_status_str(topo_switch_status(s)));
    jw_lit(w, "\",\"status_reason\":");
    write_status_reason(w, s->enabled);
    jw_lit(w, "}");
}

static void write_link(struct jw *w, const struct topo_link *l, int64_t now, const struct jw *ib)
{
    bool enabled = topo_link_is_enabled(l);

    jw_lit(w, "{\"id\":");
    jw_str(w, l->id);
    jw_lit(w, ",\"endpoint_a\":");
    jw_raw(w, ib->buf + l->a->w_off, l->a->w_len);
    jw_lit(w, ",\"endpoint_b\":");
    jw_raw(w, ib->buf + l->b->w_off, l->b->w_len);
    jw_lit(w, ",\"metadata\":");
    jw_json(w, l->metadata);
    jw_lit(w, ",\"active\":");
    jw_bool(w, topo_link_is_active(l));
    jw_lit(w, ",\"enabled\":");
    jw_bool(w, enabled);
    jw_lit(w, ",\"status\":\"");
    jw_lit(w, topo_status_str(topo_link_status(l, now)));
    jw_lit(w, "\",\"status_reason\":");
    if (topo_link_liveness_down(l))   /* sorted, as view.c's; only when enabled */
        jw_lit(w, topo_link_mismatched(l) ? "[\"liveness\",\"mismatched_link\"]"
                                          : "[\"liveness\"]");
    else if (topo_link_mismatched(l))
        jw_lit(w, enabled ? "[\"mismatched_link\"]" : "[\"disabled\",\"mismatched_link\"]");
    else
        write_status_reason(w, enabled);
    jw_lit(w, "}");
}

static void snapshot_free(struct topo_snapshot *s)
{
    if (!s)
        return;
    jw_free(&s->topology);
    jw_free(&s->switches);
    jw_free(&s->links);
    jw_free(&s->interfaces);
    free(s);
}

/* A snapshot to write into: the spare one, or a new one. */
static struct topo_snapshot *snapshot_new(struct topo *t)
{
    struct topo_snapshot *s;

    pthread_mutex_lock(&t->spare_lock);
    s = t->spare;
    t->spare = NULL;
    pthread_mutex_unlock(&t->spare_lock);
    if (!s) {
        s = calloc(1, sizeof(*s));
        if (!s)
            return NULL;
        s->owner = t;
    }
    s->topology.len = s->switches.len = s->links.len = s->interfaces.len = 0;
    s->topology.oom = s->switches.oom = s->links.oom = s->interfaces.oom = false;
    atomic_init(&s->refs, 1);
    return s;
}

bool topo_snapshot_rebuild(struct topo *t)
{
    struct jw *ib = &t->scratch, *top, *ifs;
    struct topo_snapshot *s, *old;
    int64_t now = topo_now_ms();
    size_t sw_off, sw_end, lk_off, lk_end;
    bool first = true;

    /* every interface once, in a buffer kept between rebuilds */
    ib->len = 0;
    ib->oom = false;
    for (size_t n = 0; n < t->n_switches; n++) {
        for (size_t k = 0; k < t->switches[n]->n_intfs; k++) {
            struct topo_intf *i = t->switches[n]->intfs[k];
            i->w_off = ib->len;
            write_intf(ib, i);
            i->w_len = ib->len - i->w_off;
        }
    }
    if (ib->oom)
        return false;
    s = snapshot_new(t);
    if (!s)
        return false;
    top = &s->topology;
    ifs = &s->interfaces;

    jw_lit(top, "{\"topology\":{\"switches\":");
    sw_off = top->len;
    jw_lit(top, "{");
    jw_lit(ifs, "{\"interfaces\":{");
    for (size_t n = 0; n < t->n_switches; n++) {
        const struct topo_switch *x = t->switches[n];
        if (n)
            jw_lit(top, ",");
        jw_key(top, x->dpid);
        write_switch(top, x, n, ib);
        for (size_t k = 0; k < x->n_intfs; k++) {
            if (!first)
                jw_lit(ifs, ",");
            first = false;
            jw_key(ifs, x->intfs[k]->id);
            jw_raw(ifs, ib->buf + x->intfs[k]->w_off, x->intfs[k]->w_len);
        }
    }
    jw_lit(top, "}");
    sw_end = top->len;
    jw_lit(ifs, "}}");
    jw_lit(top, ",\"links\":");
    lk_off = top->len;
    jw_lit(top, "{");
    for (size_t n = 0; n < t->n_links; n++) {
        if (n)
            jw_lit(top, ",");
        jw_key(top, t->links[n]->id);
        write_link(top, t->links[n], now, ib);
    }
    jw_lit(top, "}");
    lk_end = top->len;
    jw_lit(top, "}}");
    jw_lit(&s->switches, "{\"switches\":");
    jw_raw(&s->switches, top->buf + sw_off, sw_end - sw_off);
    jw_lit(&s->switches, "}");
    jw_lit(&s->links, "{\"links\":");
    jw_raw(&s->links, top->buf + lk_off, lk_end - lk_off);
    jw_lit(&s->links, "}");
    if (top->oom || ifs->oom || s->switches.oom || s->links.oom) {
        snapshot_free(s);
        return false;
    }
    s->gen = ++t->snap_gen;
    pthread_mutex_lock(&t->snap_lock);
    old = t->snap;
    t->snap = s;
    pthread_mutex_unlock(&t->snap_lock);
    topo_snapshot_put(old);
    return true;
}

struct json_object *topo_snapshot_event(struct topo *t)
{
    struct topo_snapshot *s = topo_snapshot_get(t);
    struct json_tokener *tok;
    struct json_object *o = NULL;

    if (!s)
        return NULL;
    tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH * 4);
    if (tok && s->topology.len < INT32_MAX)
        o = json_tokener_parse_ex(tok, s->topology.buf, (int)s->topology.len);
    if (tok)
        json_tokener_free(tok);
    if (o && json_object_is_type(o, json_type_object))
        json_object_object_add(o, "generation", json_object_new_int64((int64_t)s->gen));
    topo_snapshot_put(s);
    return o;
}

struct topo_snapshot *topo_snapshot_get(struct topo *t)
{
    struct topo_snapshot *s;

    pthread_mutex_lock(&t->snap_lock);
    s = t->snap;
    if (s)
        atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
    pthread_mutex_unlock(&t->snap_lock);
    return s;
}

void topo_snapshot_put(struct topo_snapshot *s)
{
    struct topo *t;

    if (!s || atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
        return;
    t = s->owner;
    pthread_mutex_lock(&t->spare_lock);
    if (!t->spare) {
        t->spare = s;
        s = NULL;
    }
    pthread_mutex_unlock(&t->spare_lock);
    snapshot_free(s);
}

void topo_snapshot_free_all(struct topo *t)
{
    struct topo_snapshot *s;

    pthread_mutex_lock(&t->snap_lock);
    s = t->snap;
    t->snap = NULL;
    pthread_mutex_unlock(&t->snap_lock);
    topo_snapshot_put(s);
    pthread_mutex_lock(&t->spare_lock);
    snapshot_free(t->spare);
    t->spare = NULL;
    pthread_mutex_unlock(&t->spare_lock);
}
