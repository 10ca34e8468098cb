/* plugins/topology/tags.c - an interface's VLAN tag ranges and special
 * tags (Kytos' TAGCapable for tag_type "vlan"), their JSON shapes and the
 * interface_details document:
 *
 *   {_id: intf_id, id, available_tags: {"vlan": [[lo, hi], ...]},
 *    tag_ranges: {"vlan": ...}, special_available_tags: {"vlan": [...]},
 *    special_tags: {"vlan": [...]}, inserted_at, updated_at}
 *
 * Tags in use: in Kytos, mef_eline reserves VLANs on the Interface objects
 * (use_tags), so available_tags = tag_ranges minus those.  Here mef_eline
 * keeps its own table (plugins/mef_eline/tags.c) and tells topology
 * nothing, so topology does not know which tags are used: available_tags
 * is always tag_ranges and special_available_tags always special_tags, and
 * a change is never refused for tags in use (Kytos' KytosSetTagRangeError
 * cannot happen).  Stored available_* values are ignored on restore. */
#include "topo.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VLAN_DEFAULT_LO 1
#define VLAN_DEFAULT_HI 4094
#define VLAN_MAX 4095  /* get_tag_ranges' bound */

static const char *const special_names[TOPO_N_SPECIAL] = {"untagged", "any"};

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* One element: n, [n] or [lo, hi] (map_singular_values). */
static int parse_one(struct json_object *v, struct topo_range *r, char *err, size_t errlen)
{
    struct json_object *a, *b;
    size_t n;

    if (json_object_is_type(v, json_type_int)) {
        r->lo = r->hi = json_object_get_int64(v);
        return 0;
    }
    n = json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;
    a = n ? json_object_array_get_idx(v, 0) : NULL;
    b = n ? json_object_array_get_idx(v, n - 1) : NULL;
    if (n < 1 || n > 2 || !json_object_is_type(a, json_type_int) ||
        !json_object_is_type(b, json_type_int))
        return fail(err, errlen,
                    "KytosInvalidTagRanges, The range %.100s is not an integer or a list of one or two integers",
                    json_object_to_json_string_ext(v, JSON_C_TO_STRING_SPACED));
    r->lo = json_object_get_int64(a);
    r->hi = json_object_get_int64(b);
    return 0;
}

int topo_tags_parse_ranges(struct json_object *arr, struct topo_range **out, size_t *nout,
                           char *err, size_t errlen)
{
    struct topo_range *r;
    size_t n;
    int64_t last = 0;  /* Python's falsy 0: "no previous range" */

    if (!json_object_is_type(arr, json_type_array))
        return fail(err, errlen, "KytosInvalidTagRanges, tag_ranges must be a list");
    n = json_object_array_length(arr);
    if (n < 1)
        return fail(err, errlen, "KytosInvalidTagRanges, Tag range is empty");
    /* ordered, disjoint, non-adjacent ranges in 1..VLAN_MAX: never more */
    if (n > VLAN_MAX)
        return fail(err, errlen, "KytosInvalidTagRanges, %zu ranges: there can be %d at most", n,
                    VLAN_MAX);
    r = calloc(n, sizeof(*r));
    if (!r)
        return fail(err, errlen, "out of memory");
    for (size_t k = 0; k < n; k++) {
        if (parse_one(json_object_array_get_idx(arr, k), &r[k], err, errlen) != 0)
            goto bad;
        if (r[k].lo > r[k].hi) {
            fail(err, errlen, "KytosInvalidTagRanges, The range [%" PRId64 ", %" PRId64 "] is not ordered",
                 r[k].lo, r[k].hi);
            goto bad;
        }
        if (last && last > r[k].lo) {
            fail(err, errlen, "KytosInvalidTagRanges, Tag ranges are not ordered. %" PRId64
                 " is higher than %" PRId64, last, r[k].lo);
            goto bad;
        }
        if (last && r[k].lo != INT64_MIN && last == r[k].lo - 1) {
            fail(err, errlen, "KytosInvalidTagRanges, Tag ranges have an unnecessary partition. %" PRId64
                 " is before to %" PRId64, last, r[k].lo);
            goto bad;
        }
        if (last && last == r[k].lo) {
            fail(err, errlen, "KytosInvalidTagRanges, Tag ranges have repetition. [%" PRId64 ", %" PRId64
                 "] have same values as [%" PRId64 ", %" PRId64 "]",
                 r[k - 1].lo, r[k - 1].hi, r[k].lo, r[k].hi);
            goto bad;
        }
        last = r[k].hi;
    }
    if (r[n - 1].hi > VLAN_MAX) {
        fail(err, errlen, "KytosInvalidTagRanges, Maximum value for a tag is %d", VLAN_MAX);
        goto bad;
    }
    if (r[0].lo < 1) {
        fail(err, errlen, "KytosInvalidTagRanges, Minimum value for a tag is 1");
        goto bad;
    }
    *out = r;
    *nout = n;
    return 0;
bad:
    free(r);
    return -1;
}

int topo_tags_parse_special(struct json_object *arr, uint8_t out[TOPO_N_SPECIAL], uint8_t *nout,
                            char *err, size_t errlen)
{
    bool seen[TOPO_N_SPECIAL] = {false};
    size_t n;
    uint8_t m = 0;

    if (!json_object_is_type(arr, json_type_array))
        return fail(err, errlen, "KytosInvalidTagRanges, special_tags must be a list");
    n = json_object_array_length(arr);
    /* a bound for the pairwise check below (the spec says 16 too); a list
     * that long holds a duplicate or an unknown name anyway */
    if (n > 16)
        return fail(err, errlen, "KytosInvalidTagRanges, There are duplicated values in the range.");
    /* get_special_tags: duplicates anywhere first, then unknown names */
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; j < k; j++)
            if (json_object_equal(json_object_array_get_idx(arr, k), json_object_array_get_idx(arr, j)))
                return fail(err, errlen, "KytosInvalidTagRanges, There are duplicated values in the range.");
    for (size_t k = 0; k < n; k++) {
        struct json_object *v = json_object_array_get_idx(arr, k);
        const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
        int code = -1;
        for (int c = 0; s && c < TOPO_N_SPECIAL; c++)
            if (strcmp(s, special_names[c]) == 0)
                code = c;
        if (code < 0 || seen[code] || m >= TOPO_N_SPECIAL)
            return fail(err, errlen, "KytosInvalidTagRanges, The tag %.200s is not supported",
                        s ? s : json_object_to_json_string_ext(v, JSON_C_TO_STRING_SPACED));
        seen[code] = true;
        out[m++] = (uint8_t)code;
    }
    *nout = m;
    return 0;
}

void topo_tags_set_ranges(struct topo_intf *i, struct topo_range *r, size_t n)
{
    free(i->tag_ranges);
    i->tag_ranges = r;
    i->n_tag_ranges = r ? n : 0;
}

/* {"vlan": [[lo, hi], ...]} */
static struct json_object *ranges_json(const struct topo_intf *i)
{
    static const struct topo_range def = {VLAN_DEFAULT_LO, VLAN_DEFAULT_HI};
    const struct topo_range *r = i->tag_ranges ? i->tag_ranges : &def;
    size_t n = i->tag_ranges ? i->n_tag_ranges : 1;
    struct json_object *o = json_object_new_object(), *a = json_object_new_array();

    for (size_t k = 0; o && a && k < n; k++) {
        struct json_object *p = json_object_new_array();
        json_object_array_add(p, json_object_new_int64(r[k].lo));
        json_object_array_add(p, json_object_new_int64(r[k].hi));
        json_object_array_add(a, p);
    }
    json_object_object_add(o, "vlan", a);
    return o;
}

/* {"vlan": ["untagged", "any"]} */
static struct json_object *special_json(const struct topo_intf *i)
{
    struct json_object *o = json_object_new_object(), *a = json_object_new_array();

    if (!i->special_set) {
        for (int c = 0; c < TOPO_N_SPECIAL; c++)
            json_object_array_add(a, json_object_new_string(special_names[c]));
    } else {
        for (uint8_t k = 0; k < i->n_special; k++)
            json_object_array_add(a, json_object_new_string(special_names[i->special[k]]));
    }
    json_object_object_add(o, "vlan", a);
    return o;
}

struct json_object *topo_tags_dict(const struct topo_intf *i)
{
    struct json_object *o = json_object_new_object();

    if (!o)
        return NULL;
    /* no tag use is tracked here: available = configured (see the top) */
    json_object_object_add(o, "available_tags", ranges_json(i));
    json_object_object_add(o, "tag_ranges", ranges_json(i));
    json_object_object_add(o, "special_tags", special_json(i));
    json_object_object_add(o, "special_available_tags", special_json(i));
    return o;
}

struct json_object *topo_tags_doc(struct topo_intf *i)
{
    struct json_object *o = json_object_new_object();
    char *now = topo_now_iso();

    if (!o || !now) {
        json_object_put(o);
        free(now);
        return NULL;
    }
    if (!i->tags_inserted_at)
        topo_set_str(&i->tags_inserted_at, now);
    json_object_object_add(o, "id", json_object_new_string(i->id));
    json_object_object_add(o, "available_tags", ranges_json(i));
    json_object_object_add(o, "tag_ranges", ranges_json(i));
    json_object_object_add(o, "special_available_tags", special_json(i));
    json_object_object_add(o, "special_tags", special_json(i));
    json_object_object_add(o, "inserted_at",
                           json_object_new_string(i->tags_inserted_at ? i->tags_inserted_at : now));
    json_object_object_add(o, "updated_at", json_object_new_string(now));
    free(now);
    return o;
}

void topo_tags_load(struct topo *t, struct json_object *doc, struct json_object *unused)
{
    struct json_object *v, *vlan;
    struct topo_intf *i;
    struct topo_range *r = NULL;
    uint8_t special[TOPO_N_SPECIAL], n_special = 0;
    const char *id = NULL;
    size_t n = 0;
    char err[256];

    (void)unused;
    if (json_object_object_get_ex(doc, "id", &v) && json_object_is_type(v, json_type_string))
        id = json_object_get_string(v);
    i = id ? topo_intf_find_id(t, id) : NULL;
    if (!i)
        return;  /* Kytos loads details only for known interfaces */
    if (json_object_object_get_ex(doc, "tag_ranges", &v) &&
        json_object_object_get_ex(v, "vlan", &vlan)) {
        if (topo_tags_parse_ranges(vlan, &r, &n, err, sizeof(err)) == 0)
            topo_tags_set_ranges(i, r, n);
        else
            kytos_log(t->napp, KYTOS_LOG_ERROR, "interface_details %s: tag_ranges ignored: %s", i->id, err);
    }
    if (json_object_object_get_ex(doc, "special_tags", &v) &&
        json_object_object_get_ex(v, "vlan", &vlan)) {
        if (topo_tags_parse_special(vlan, special, &n_special, err, sizeof(err)) == 0) {
            i->special_set = true;
            i->n_special = n_special;
            memcpy(i->special, special, sizeof(special));
        } else {
            kytos_log(t->napp, KYTOS_LOG_ERROR, "interface_details %s: special_tags ignored: %s", i->id, err);
        }
    }
    if (json_object_object_get_ex(doc, "inserted_at", &v) && json_object_is_type(v, json_type_string))
        topo_set_str(&i->tags_inserted_at, json_object_get_string(v));
}
