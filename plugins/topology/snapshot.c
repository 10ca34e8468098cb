/* plugins/topology/snapshot.c - the cached GET bodies.
 *
 * GET v3/ must be cheap: the bodies are serialised once per change and
 * kept in an immutable, refcounted snapshot.  A reader takes a reference
 * under snap_lock (a pointer copy and an atomic increment), answers, and
 * drops it; the writer that rebuilt swaps the pointer and drops the old
 * snapshot's reference, so the last reader frees it. */
#include "topo.h"

#include <stdlib.h>
#include <string.h>

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

static char *wrap(const char *pre, const char *mid, size_t mid_len, const char *sep,
                  const char *mid2, size_t mid2_len, const char *post, size_t *len)
{
    size_t lp = strlen(pre), ls = sep ? strlen(sep) : 0, lq = strlen(post);
    size_t n = lp + mid_len + ls + mid2_len + lq;
    char *out = malloc(n + 1), *p = out;

    if (!out)
        return NULL;
    memcpy(p, pre, lp);
    p += lp;
    memcpy(p, mid, mid_len);
    p += mid_len;
    if (sep) {
        memcpy(p, sep, ls);
        p += ls;
        memcpy(p, mid2, mid2_len);
        p += mid2_len;
    }
    memcpy(p, post, lq);
    p += lq;
    *p = '\0';
    *len = n;
    return out;
}

static void snapshot_free(struct topo_snapshot *s)
{
    if (!s)
        return;
    free(s->topology);
    free(s->switches);
    free(s->links);
    free(s->interfaces);
    free(s);
}

struct json_object *topo_snapshot_rebuild(struct topo *t)
{
    struct json_object *all = NULL, *tree, *sws = NULL, *lks = NULL;
    struct topo_snapshot *s, *old;
    const char *sw_txt, *lk_txt, *if_txt;
    size_t sw_len = 0, lk_len = 0, if_len = 0;

    tree = topo_tree(t, &all);
    if (!tree)
        return NULL;
    s = calloc(1, sizeof(*s));
    if (!s)
        goto fail;
    json_object_object_get_ex(tree, "switches", &sws);
    json_object_object_get_ex(tree, "links", &lks);
    sw_txt = json_object_to_json_string_length(sws, JSON_FLAGS, &sw_len);
    lk_txt = json_object_to_json_string_length(lks, JSON_FLAGS, &lk_len);
    if_txt = json_object_to_json_string_length(all, JSON_FLAGS, &if_len);
    if (!sw_txt || !lk_txt || !if_txt)
        goto fail;
    s->topology = wrap("{\"topology\":{\"switches\":", sw_txt, sw_len, ",\"links\":", lk_txt,
                       lk_len, "}}", &s->topology_len);
    s->switches = wrap("{\"switches\":", sw_txt, sw_len, NULL, NULL, 0, "}", &s->switches_len);
    s->links = wrap("{\"links\":", lk_txt, lk_len, NULL, NULL, 0, "}", &s->links_len);
    s->interfaces = wrap("{\"interfaces\":", if_txt, if_len, NULL, NULL, 0, "}",
                         &s->interfaces_len);
    if (!s->topology || !s->switches || !s->links || !s->interfaces)
        goto fail;
    json_object_put(all);
    atomic_init(&s->refs, 1);
    pthread_mutex_lock(&t->snap_lock);
    old = t->snap;
    t->snap = s;
    pthread_mutex_unlock(&t->snap_lock);
    topo_snapshot_put(old);
    return tree;
fail:
    snapshot_free(s);
    json_object_put(all);
    json_object_put(tree);
    return NULL;
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
    if (s && atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
        snapshot_free(s);
}

void topo_snapshot_free_all(struct topo *t)
{
    pthread_mutex_lock(&t->snap_lock);
    topo_snapshot_put(t->snap);
    t->snap = NULL;
    pthread_mutex_unlock(&t->snap_lock);
}
