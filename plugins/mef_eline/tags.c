/* plugins/mef_eline/tags.c - UNI tags and per-interface VLAN usage. */
#include "me.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VLAN_MIN 1
#define VLAN_MAX 4094
#define NBUCKETS 1024

static int fail(char *err, size_t errlen, const char *msg)
{
    snprintf(err, errlen, "%s", msg);
    return -1;
}

/* The largest tag of a UNI's range list (Kytos' get_tag_ranges). */
#define TAG_RANGE_MAX 4095

/* A bound as Kytos prints it (a JSON int beyond int64 is clamped by json-c;
 * the spec's schema already refuses non-integers). */
struct wide_range {
    int64_t lo, hi;
};

/* One element of a tag list: an int, or [lo] / [lo, hi] (map_singular_values). */
static int parse_range(struct json_object *v, struct wide_range *r, char *err, size_t errlen)
{
    if (json_object_is_type(v, json_type_int)) {
        r->lo = r->hi = json_object_get_int64(v);
    } else if (json_object_is_type(v, json_type_array) && json_object_array_length(v) >= 1 &&
               json_object_array_length(v) <= 2) {
        struct json_object *a = json_object_array_get_idx(v, 0);
        struct json_object *b = json_object_array_get_idx(v, json_object_array_length(v) - 1);
        if (!json_object_is_type(a, json_type_int) || !json_object_is_type(b, json_type_int))
            return fail(err, errlen, "Tag ranges must be integers or [start, end] pairs");
        r->lo = json_object_get_int64(a);
        r->hi = json_object_get_int64(b);
    } else {
        return fail(err, errlen, "Tag ranges must be integers or [start, end] pairs");
    }
    return 0;
}

/* Kytos' get_tag_ranges checks, in its order and with its texts (the
 * exception's name first, as KytosInvalidTagRanges' str() has it). */
static int check_ranges(const struct wide_range *r, size_t n, char *err, size_t errlen)
{
    static const char pre[] = "KytosInvalidTagRanges, ";
    int64_t last = 0;
    size_t i;

    if (n == 0)
        return fail(err, errlen, "KytosInvalidTagRanges, Tag range is empty");
    for (i = 0; i < n; i++) {
        long long lo = r[i].lo, hi = r[i].hi;
        if (lo > hi) {
            snprintf(err, errlen, "%sThe range [%lld, %lld] is not ordered", pre, lo, hi);
            return -1;
        }
        if (last && last > lo) {
            snprintf(err, errlen, "%sTag ranges are not ordered. %lld is higher than %lld", pre,
                     (long long)last, lo);
            return -1;
        }
        if (last && lo != INT64_MIN && last == lo - 1) {
            snprintf(err, errlen, "%sTag ranges have an unnecessary partition. %lld is before to "
                     "%lld", pre, (long long)last, lo);
            return -1;
        }
        if (last && last == lo) {
            snprintf(err, errlen, "%sTag ranges have repetition. [%lld, %lld] have same values as "
                     "[%lld, %lld]", pre, (long long)r[i - 1].lo, (long long)r[i - 1].hi, lo, hi);
            return -1;
        }
        last = hi;
    }
    if (r[n - 1].hi > TAG_RANGE_MAX) {
        snprintf(err, errlen, "%sMaximum value for a tag is %d", pre, TAG_RANGE_MAX);
        return -1;
    }
    if (r[0].lo < VLAN_MIN) {
        snprintf(err, errlen, "%sMinimum value for a tag is %d", pre, VLAN_MIN);
        return -1;
    }
    return 0;
}

int me_tag_parse(struct json_object *tag, struct me_tag *t, char *err, size_t errlen)
{
    struct json_object *type, *value;
    size_t i, n;

    memset(t, 0, sizeof *t);
    if (tag == NULL || json_object_is_type(tag, json_type_null))
        return 0;
    if (!json_object_is_type(tag, json_type_object))
        return fail(err, errlen, "Tag must be an object");
    if (json_object_object_get_ex(tag, "tag_type", &type)) {
        int ok = (json_object_is_type(type, json_type_string) &&
                  strcmp(json_object_get_string(type), "vlan") == 0) ||
                 (json_object_is_type(type, json_type_int) && json_object_get_int64(type) == 1);
        if (!ok)
            return fail(err, errlen, "Tag type is not supported, use 'vlan' or 1");
    }
    if (!json_object_object_get_ex(tag, "value", &value) || value == NULL)
        return fail(err, errlen, "Tag value is required");
    if (json_object_is_type(value, json_type_int)) {
        int64_t v = json_object_get_int64(value);
        if (v < VLAN_MIN || v > VLAN_MAX) {
            snprintf(err, errlen, "Tag value %lld is not in range [%d, %d]", (long long)v,
                     VLAN_MIN, VLAN_MAX);
            return -1;
        }
        t->kind = ME_TAG_VLAN;
        t->vlan = (uint16_t)v;
        return 0;
    }
    if (json_object_is_type(value, json_type_string)) {
        const char *s = json_object_get_string(value);
        if (strcmp(s, "any") == 0) {
            t->kind = ME_TAG_ANY;
            return 0;
        }
        if (strcmp(s, "untagged") == 0) {
            t->kind = ME_TAG_UNTAGGED;
            return 0;
        }
        snprintf(err, errlen, "Tag value '%.60s' is not supported, use 'any', 'untagged', an "
                 "integer or a list of ranges", s);
        return -1;
    }
    if (!json_object_is_type(value, json_type_array))
        return fail(err, errlen, "Tag value must be an integer, a string or a list of ranges");
    n = json_object_array_length(value);
    {
        struct wide_range *w = calloc(n ? n : 1, sizeof *w);
        if (!w)
            return fail(err, errlen, "out of memory");
        for (i = 0; i < n; i++) {
            if (parse_range(json_object_array_get_idx(value, i), &w[i], err, errlen) != 0) {
                free(w);
                return -1;
            }
        }
        if (check_ranges(w, n, err, errlen) != 0) {
            free(w);
            return -1;
        }
        /* ordered, apart and within [1, 4095] now: as they are */
        t->r = calloc(n, sizeof *t->r);
        if (!t->r) {
            free(w);
            return fail(err, errlen, "out of memory");
        }
        for (i = 0; i < n; i++)
            t->r[i] = (struct me_range){(uint16_t)w[i].lo, (uint16_t)w[i].hi};
        free(w);
    }
    t->nr = n;
    t->kind = ME_TAG_RANGES;
    return 0;
}

void me_tag_clear(struct me_tag *t)
{
    free(t->r);
    memset(t, 0, sizeof *t);
}

int me_tag_equal(const struct me_tag *a, const struct me_tag *b)
{
    if (a->kind != b->kind)
        return 0;
    if (a->kind == ME_TAG_VLAN)
        return a->vlan == b->vlan;
    if (a->kind == ME_TAG_RANGES)
        return a->nr == b->nr && memcmp(a->r, b->r, a->nr * sizeof *a->r) == 0;
    return 1;
}

/* Kytos' range_to_mask: aligned power-of-two blocks "value/mask" (12 bits). */
static void range_masks(uint16_t lo, uint16_t hi, struct json_object *out)
{
    unsigned v = lo;
    char buf[24];

    while (v <= hi) {
        unsigned size = 1;
        while ((v % (size * 2)) == 0 && v + size * 2 - 1 <= hi && size * 2 <= 4096)
            size *= 2;
        snprintf(buf, sizeof buf, "%u/%u", v, (4095u & ~(size - 1)));
        json_object_array_add(out, json_object_new_string(buf));
        v += size;
    }
}

void me_tag_match_values(const struct me_tag *t, struct json_object *out)
{
    size_t i;

    switch (t->kind) {
    case ME_TAG_VLAN:
        json_object_array_add(out, json_object_new_int(t->vlan));
        break;
    case ME_TAG_ANY:
        json_object_array_add(out, json_object_new_string("4096/4096"));
        break;
    case ME_TAG_UNTAGGED:
        json_object_array_add(out, json_object_new_int(0));
        break;
    case ME_TAG_RANGES:
        for (i = 0; i < t->nr; i++)
            range_masks(t->r[i].lo, t->r[i].hi, out);
        break;
    default:
        break;
    }
}

struct json_object *me_tag_json(const struct me_tag *t)
{
    struct json_object *o, *v, *masks;
    size_t i;

    if (t->kind == ME_TAG_NONE)
        return NULL;
    o = json_object_new_object();
    json_object_object_add(o, "tag_type", json_object_new_string("vlan"));
    switch (t->kind) {
    case ME_TAG_VLAN:
        json_object_object_add(o, "value", json_object_new_int(t->vlan));
        break;
    case ME_TAG_ANY:
        json_object_object_add(o, "value", json_object_new_string("any"));
        break;
    case ME_TAG_UNTAGGED:
        json_object_object_add(o, "value", json_object_new_string("untagged"));
        break;
    case ME_TAG_RANGES:
        v = json_object_new_array();
        for (i = 0; i < t->nr; i++) {
            struct json_object *p = json_object_new_array();
            json_object_array_add(p, json_object_new_int(t->r[i].lo));
            json_object_array_add(p, json_object_new_int(t->r[i].hi));
            json_object_array_add(v, p);
        }
        json_object_object_add(o, "value", v);
        masks = json_object_new_array();
        for (i = 0; i < t->nr; i++)
            range_masks(t->r[i].lo, t->r[i].hi, masks);
        json_object_object_add(o, "mask_list", masks);
        break;
    }
    return o;
}

/* ---- usage table ---- */

struct ent {
    struct ent *next;
    char intf[ME_INTF_MAX];
    uint64_t bits[64];          /* VLAN v in use: bit v */
    bool any, untagged;
    char epl[ME_ID_LEN + 1];    /* EVC using the interface with no tag */
};

/* VLANs another NApp holds on every interface of a switch (of_lldp's 3799
 * once its punt flow is in): never given to an EVC, kept apart from the
 * EVCs' own bits so freeing an EVC never frees them. */
struct sw_reserved {
    struct sw_reserved *next;
    char dpid[ME_INTF_MAX];
    uint64_t bits[64];
};

struct me_tagtab {
    struct ent *b[NBUCKETS];
    struct sw_reserved *reserved;
};

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h % NBUCKETS;
}

struct me_tagtab *me_tagtab_new(void)
{
    return calloc(1, sizeof(struct me_tagtab));
}

void me_tagtab_free(struct me_tagtab *t)
{
    size_t i;
    if (!t)
        return;
    for (i = 0; i < NBUCKETS; i++) {
        struct ent *e = t->b[i], *n;
        for (; e; e = n) {
            n = e->next;
            free(e);
        }
    }
    while (t->reserved) {
        struct sw_reserved *r = t->reserved;
        t->reserved = r->next;
        free(r);
    }
    free(t);
}

static struct ent *get(struct me_tagtab *t, const char *intf, bool create)
{
    unsigned h = hash(intf);
    struct ent *e;

    for (e = t->b[h]; e; e = e->next)
        if (strcmp(e->intf, intf) == 0)
            return e;
    if (!create || strlen(intf) >= ME_INTF_MAX)
        return NULL;
    e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    snprintf(e->intf, sizeof e->intf, "%s", intf);
    e->next = t->b[h];
    t->b[h] = e;
    return e;
}

/* The VLANs reserved on intf's switch ("<dpid>:<port>"), or NULL. */
static const struct sw_reserved *reserved_on(const struct me_tagtab *t, const char *intf)
{
    const char *colon = strrchr(intf, ':');
    size_t len = colon ? (size_t)(colon - intf) : 0;
    const struct sw_reserved *r;

    for (r = t->reserved; r && len; r = r->next)
        if (strlen(r->dpid) == len && memcmp(r->dpid, intf, len) == 0)
            return r;
    return NULL;
}

/* VLAN v is taken on the interface: by an EVC, or reserved (res). */
static bool taken(const struct ent *e, const struct sw_reserved *res, unsigned v)
{
    return ((e->bits[v / 64] >> (v % 64)) & 1u) || (res && ((res->bits[v / 64] >> (v % 64)) & 1u));
}

static void setbit(struct ent *e, unsigned v, bool on)
{
    if (on)
        e->bits[v / 64] |= (uint64_t)1 << (v % 64);
    else
        e->bits[v / 64] &= ~((uint64_t)1 << (v % 64));
}

/* KytosTagsAreNotAvailable's str(): "The tags <conflict> are not available
 * in <interface>", conflict as Python prints it (a list of ranges, or the
 * special tag's bare name). */
static int not_available(char *err, size_t errlen, const char *conflict, const char *intf)
{
    snprintf(err, errlen, "KytosTagsAreNotAvailable, The tags %s are not available in %s",
             conflict, intf);
    return -1;
}

/* The tags of r (ordered, apart) already in use, as ranges: Kytos'
 * range_difference(tags, available) ("[[15, 15], [18, 20]]"). */
static int ranges_in_use(const struct ent *e, const struct sw_reserved *res,
                         const struct me_range *r, size_t nr, char *err, size_t errlen,
                         const char *intf)
{
    char buf[512];
    size_t len = 0, i;
    unsigned v, start;
    int any = 0;

    buf[len++] = '[';
    for (i = 0; i < nr; i++) {
        for (v = r[i].lo; v <= r[i].hi; v++) {
            if (!taken(e, res, v))
                continue;
            for (start = v; v < r[i].hi && taken(e, res, v + 1); v++)
                ;
            if (len < sizeof buf - 32)   /* long lists are cut: err is bounded anyway */
                len += (size_t)snprintf(buf + len, sizeof buf - len, "%s[%u, %u]",
                                        any ? ", " : "", start, v);
            any = 1;
        }
    }
    if (!any)
        return 0;
    snprintf(buf + len, sizeof buf - len, "]");
    return not_available(err, errlen, buf, intf);
}

int me_tagtab_use_uni(struct me_tagtab *t, const char *intf, const struct me_tag *tag, char *err,
                      size_t errlen)
{
    const struct sw_reserved *res = reserved_on(t, intf);
    struct ent *e;
    size_t i;
    unsigned v;

    if (tag->kind == ME_TAG_NONE)
        return 0;
    e = get(t, intf, true);
    if (!e)
        return fail(err, errlen, "out of memory");
    switch (tag->kind) {
    case ME_TAG_VLAN:
        if (taken(e, res, tag->vlan)) {
            char c[32];
            snprintf(c, sizeof c, "[[%u, %u]]", tag->vlan, tag->vlan);
            return not_available(err, errlen, c, intf);
        }
        setbit(e, tag->vlan, true);
        break;
    case ME_TAG_ANY:
        if (e->any)
            return not_available(err, errlen, "any", intf);
        e->any = true;
        break;
    case ME_TAG_UNTAGGED:
        if (e->untagged)
            return not_available(err, errlen, "untagged", intf);
        e->untagged = true;
        break;
    case ME_TAG_RANGES:
        if (ranges_in_use(e, res, tag->r, tag->nr, err, errlen, intf) != 0)
            return -1;
        for (i = 0; i < tag->nr; i++)
            for (v = tag->r[i].lo; v <= tag->r[i].hi; v++)
                setbit(e, v, true);
        break;
    }
    return 0;
}

void me_tagtab_free_uni(struct me_tagtab *t, const char *intf, const struct me_tag *tag)
{
    struct ent *e = get(t, intf, false);
    size_t i;
    unsigned v;

    if (!e)
        return;
    switch (tag->kind) {
    case ME_TAG_VLAN:
        setbit(e, tag->vlan, false);
        break;
    case ME_TAG_ANY:
        e->any = false;
        break;
    case ME_TAG_UNTAGGED:
        e->untagged = false;
        break;
    case ME_TAG_RANGES:
        for (i = 0; i < tag->nr; i++)
            for (v = tag->r[i].lo; v <= tag->r[i].hi; v++)
                setbit(e, v, false);
        break;
    }
}

const char *me_tagtab_epl_owner(struct me_tagtab *t, const char *intf)
{
    struct ent *e = get(t, intf, false);
    return e && e->epl[0] ? e->epl : NULL;
}

void me_tagtab_set_epl_owner(struct me_tagtab *t, const char *intf, const char *evc_id)
{
    struct ent *e = get(t, intf, evc_id != NULL);
    if (e)
        snprintf(e->epl, sizeof e->epl, "%s", evc_id ? evc_id : "");
}

uint16_t me_tagtab_alloc_pair(struct me_tagtab *t, const char *a, const char *b)
{
    return me_tagtab_alloc_pair_avoid(t, a, b, 0);
}

uint16_t me_tagtab_alloc_pair_avoid(struct me_tagtab *t, const char *a, const char *b,
                                    uint16_t avoid)
{
    struct ent *x = get(t, a, true), *y = get(t, b, true);
    const struct sw_reserved *rx = reserved_on(t, a), *ry = reserved_on(t, b);
    unsigned w, pick = 0;

    if (!x || !y)
        return 0;
    /* the lowest VLAN free on both sides, 64 at a time: on a busy link
     * (thousands of S-VLANs) one at a time was a failover's hottest loop */
    for (w = VLAN_MIN / 64; w <= VLAN_MAX / 64 && !pick; w++) {
        uint64_t used = x->bits[w] | y->bits[w] | (rx ? rx->bits[w] : 0) | (ry ? ry->bits[w] : 0);
        if (w == VLAN_MIN / 64)
            used |= ((uint64_t)1 << (VLAN_MIN % 64)) - 1;
        if (w == VLAN_MAX / 64 && VLAN_MAX % 64 != 63)
            used |= ~(((uint64_t)1 << (VLAN_MAX % 64 + 1)) - 1);
        if (avoid / 64 == w)
            used |= (uint64_t)1 << (avoid % 64);
        if (~used)
            pick = w * 64 + (unsigned)__builtin_ctzll(~used);
    }
    if (!pick && avoid >= VLAN_MIN && avoid <= VLAN_MAX && !taken(x, rx, avoid) &&
        !taken(y, ry, avoid))
        pick = avoid;   /* the only one free */
    if (pick) {
        setbit(x, pick, true);
        setbit(y, pick, true);
    }
    return (uint16_t)pick;
}

int me_tagtab_use_pair(struct me_tagtab *t, const char *a, const char *b, uint16_t vlan)
{
    struct ent *x = get(t, a, true), *y = get(t, b, true);

    if (!x || !y || vlan < VLAN_MIN || vlan > VLAN_MAX || taken(x, reserved_on(t, a), vlan) ||
        taken(y, reserved_on(t, b), vlan))
        return -1;
    setbit(x, vlan, true);
    setbit(y, vlan, true);
    return 0;
}

void me_tagtab_free_pair(struct me_tagtab *t, const char *a, const char *b, uint16_t vlan)
{
    struct ent *x = get(t, a, false), *y = get(t, b, false);

    if (vlan < VLAN_MIN || vlan > VLAN_MAX)
        return;
    if (x)
        setbit(x, vlan, false);
    if (y)
        setbit(y, vlan, false);
}

int me_tagtab_reserve_switch(struct me_tagtab *t, const char *dpid, uint16_t vlan, bool on)
{
    struct sw_reserved **pp, *r;

    if (vlan < VLAN_MIN || vlan > VLAN_MAX || strlen(dpid) == 0 || strlen(dpid) >= ME_INTF_MAX)
        return -1;
    for (pp = &t->reserved; *pp && strcmp((*pp)->dpid, dpid) != 0; pp = &(*pp)->next)
        ;
    r = *pp;
    if (!r && !on)
        return 0;
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r)
            return -1;
        snprintf(r->dpid, sizeof r->dpid, "%s", dpid);
        *pp = r;
    }
    if (on)
        r->bits[vlan / 64] |= (uint64_t)1 << (vlan % 64);
    else
        r->bits[vlan / 64] &= ~((uint64_t)1 << (vlan % 64));
    return 0;
}
