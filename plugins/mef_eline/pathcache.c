/* plugins/mef_eline/pathcache.c - the dynamic paths of one batch (a link
 * going down moves thousands of EVCs, most between few endpoint pairs):
 * pathfinder is asked once per distinct request, that is per pair of UNI
 * interfaces with the same primary and secondary constraints, and the
 * EVCs that share it get copies.  The batch's snapshot and avoid list are
 * the same for every look-up, so they are not part of the key. */
#include "me.h"

#include <stdlib.h>
#include <string.h>

#define NBUCKETS 256

struct entry {
    struct entry *next;
    int rc;                  /* me_deploy_dynamic's answer */
    struct me_path path;     /* without tags */
    char key[];
};

struct me_pathcache {
    struct entry *b[NBUCKETS];
    size_t misses;
};

struct me_pathcache *me_pathcache_new(void)
{
    return calloc(1, sizeof(struct me_pathcache));
}

void me_pathcache_free(struct me_pathcache *pc)
{
    if (!pc)
        return;
    for (size_t i = 0; i < NBUCKETS; i++) {
        struct entry *e = pc->b[i], *n;
        for (; e; e = n) {
            n = e->next;
            me_path_clear(&e->path);
            free(e);
        }
    }
    free(pc);
}

size_t me_pathcache_misses(const struct me_pathcache *pc)
{
    return pc ? pc->misses : 0;
}

static const char *cons_text(const struct me_evc *e, const char *k)
{
    struct json_object *v;
    if (!json_object_object_get_ex(e->doc, k, &v) || !v)
        return "";
    return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* "<uni_a>\n<uni_z>\n<primary>\n<secondary>", malloc'd.  (Each text
 * lives in its own object's print buffer: all four stay valid here.) */
static char *key_of(const struct me_evc *e)
{
    const char *parts[4] = {e->a.intf, e->z.intf, cons_text(e, "primary_constraints"),
                            cons_text(e, "secondary_constraints")};
    size_t len[4], total = 0, at = 0;
    char *k;

    for (size_t i = 0; i < 4; i++)
        total += (len[i] = strlen(parts[i])) + 1;
    if (!(k = malloc(total)))
        return NULL;
    for (size_t i = 0; i < 4; i++) {
        memcpy(k + at, parts[i], len[i]);
        at += len[i];
        k[at++] = i < 3 ? '\n' : '\0';
    }
    return k;
}

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static int copy_into(struct me_path *dst, const struct me_path *src)
{
    me_path_clear(dst);
    if (src->n == 0)
        return 0;
    if (!(dst->h = malloc(src->n * sizeof *dst->h)))
        return -1;
    memcpy(dst->h, src->h, src->n * sizeof *dst->h);
    dst->n = src->n;
    return 0;
}

int me_pathcache_dynamic(struct me_pathcache *pc, struct me *me, const struct me_evc *e,
                         const struct me_snap *snap, const char *const *avoid, size_t n_avoid,
                         struct me_path *out)
{
    char *key = key_of(e);
    struct entry *en;
    size_t slot, klen;

    if (!key)   /* out of memory: ask without the cache */
        return me_deploy_dynamic(me, e, snap, avoid, n_avoid, out);
    slot = hash(key) % NBUCKETS;
    for (en = pc->b[slot]; en; en = en->next)
        if (strcmp(en->key, key) == 0)
            break;
    if (!en) {
        klen = strlen(key) + 1;
        if (!(en = calloc(1, sizeof *en + klen))) {
            free(key);
            return me_deploy_dynamic(me, e, snap, avoid, n_avoid, out);
        }
        memcpy(en->key, key, klen);
        pc->misses++;
        en->rc = me_deploy_dynamic(me, e, snap, avoid, n_avoid, &en->path);
        en->next = pc->b[slot];
        pc->b[slot] = en;
    }
    free(key);
    if (en->rc != 0)
        return en->rc;
    return copy_into(out, &en->path);
}
