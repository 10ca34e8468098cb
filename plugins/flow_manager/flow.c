/* plugins/flow_manager/flow.c - checks and ids of one flow (see flow.h). */
#include "flow.h"
#include "pyjson.h"
#include "req_util.h"
#include <kytos/types.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U8 0xffu
#define U16 0xffffu
#define U32 0xffffffffu
#define U64 UINT64_MAX

enum { MT_INT, MT_STR, MT_VLAN, MT_INT_OR_STR };

/* of_core MatchBase fields (flow.py) with the type flow_manager's FlowDoc
 * and pyof's packing accept. */
static const struct {
    const char *name;
    int type;
    uint64_t max;
} match_fields[] = {
    {"in_port", MT_INT, U32},      {"dl_src", MT_STR, 0},          {"dl_dst", MT_STR, 0},
    {"dl_vlan", MT_VLAN, 4095},    {"dl_vlan_pcp", MT_INT, 7},     {"dl_type", MT_INT, U16},
    {"nw_proto", MT_INT, U8},      {"nw_src", MT_STR, 0},          {"nw_dst", MT_STR, 0},
    {"tp_src", MT_INT, U16},       {"tp_dst", MT_INT, U16},        {"in_phy_port", MT_INT, U32},
    {"ip_dscp", MT_INT, 63},       {"ip_ecn", MT_INT, 3},          {"udp_src", MT_INT, U16},
    {"udp_dst", MT_INT, U16},      {"sctp_src", MT_INT, U16},      {"sctp_dst", MT_INT, U16},
    {"icmpv4_type", MT_INT, U8},   {"icmpv4_code", MT_INT, U8},    {"arp_op", MT_INT, U16},
    {"arp_spa", MT_STR, 0},        {"arp_tpa", MT_STR, 0},         {"arp_sha", MT_STR, 0},
    {"arp_tha", MT_STR, 0},        {"ipv6_src", MT_STR, 0},        {"ipv6_dst", MT_STR, 0},
    {"ipv6_flabel", MT_INT, 0xfffff}, {"icmpv6_type", MT_INT, U8}, {"icmpv6_code", MT_INT, U8},
    {"nd_tar", MT_INT_OR_STR, 0},  {"nd_sll", MT_INT_OR_STR, 0},   {"nd_tll", MT_INT_OR_STR, 0},
    {"mpls_lab", MT_INT, 0xfffff}, {"mpls_tc", MT_INT, 7},         {"mpls_bos", MT_INT, 1},
    {"pbb_isid", MT_INT, 0xffffff}, {"v6_hdr", MT_INT, 0x1ff},     {"metadata", MT_INT, U64},
    {"tun_id", MT_INT, U64},
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Python's type name of a JSON value ("'int' object is not iterable"). */
static const char *py_type(struct json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null: return "NoneType";
    case json_type_boolean: return "bool";
    case json_type_int: return "int";
    case json_type_double: return "float";
    case json_type_string: return "str";
    case json_type_array: return "list";
    case json_type_object: return "dict";
    }
    return "object";
}

int fm_json_uint(struct json_object *v, uint64_t max, uint64_t *out)
{
    uint64_t u;

    if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
        return 0;
    u = json_object_get_uint64(v);
    if (u > max)
        return 0;
    *out = u;
    return 1;
}

/* An integer field: pydantic's wording for a wrong type, pyof's range. */
static int check_uint(struct json_object *v, uint64_t max, const char *where, uint64_t *out,
                      char *err, size_t errlen)
{
    if (!json_object_is_type(v, json_type_int))
        return fail(err, errlen, "%s: Input should be a valid integer", where);
    if (json_object_get_int64(v) < 0)
        return fail(err, errlen, "%s: Input should be greater than or equal to 0", where);
    if (!fm_json_uint(v, max, out))
        return fail(err, errlen, "%s: Input should be less than or equal to %" PRIu64, where,
                    max);
    return 0;
}

/* "vid/mask": both decimal integers (flow_manager's dl_vlan validator). */
static int vlan_mask_ok(const char *s)
{
    const char *slash = strchr(s, '/');
    char *end;
    unsigned long a, b;

    if (!slash || slash == s || slash[1] == '\0')
        return 0;
    if (*s < '0' || *s > '9' || slash[1] < '0' || slash[1] > '9')
        return 0;
    a = strtoul(s, &end, 10);
    if (end != slash || a > 8191)
        return 0;
    b = strtoul(slash + 1, &end, 10);
    return *end == '\0' && b <= 8191;
}

static int match_field(const char *key)
{
    for (size_t i = 0; i < sizeof match_fields / sizeof match_fields[0]; i++)
        if (strcmp(key, match_fields[i].name) == 0)
            return (int)i;
    return -1;
}

/* The request's match, checked; f->match is the request's own object when
 * it has nothing of_core would drop (the usual case: one json-c object
 * less per flow), else a copy without what of_core drops. */
static int parse_match(struct json_object *m, struct fm_flow *f, char *err, size_t errlen)
{
    char where[96];
    size_t dropped = 0;
    uint64_t u;

    if (m == NULL || json_object_is_type(m, json_type_null)) {
        f->match = json_object_new_object();
        return f->match ? 0 : fail(err, errlen, "out of memory");
    }
    if (!json_object_is_type(m, json_type_object))
        return fail(err, errlen, "flow, match: Input should be a valid dictionary");
    /* Keep the request's order; unknown names are dropped like of_core. */
    json_object_object_foreach(m, key, val) {
        int i = match_field(key);
        if (i < 0 || val == NULL) {
            dropped++;
            continue;
        }
        fm_join(where, sizeof where, "flow, match", ", ", key);
        switch (match_fields[i].type) {
        case MT_INT:
            if (check_uint(val, match_fields[i].max, where, &u, err, errlen) != 0)
                return -1;
            break;
        case MT_STR:
            if (!json_object_is_type(val, json_type_string))
                return fail(err, errlen, "%s: Input should be a valid string", where);
            break;
        case MT_INT_OR_STR:
            if (!json_object_is_type(val, json_type_string) &&
                check_uint(val, U64, where, &u, err, errlen) != 0)
                return -1;
            break;
        case MT_VLAN:
            if (json_object_is_type(val, json_type_string)) {
                if (!vlan_mask_ok(json_object_get_string(val)))
                    return fail(err, errlen,
                                "%s: Value error, must be an integer or an integer with a mask "
                                "in format vlan/mask",
                                where);
            } else if (!json_object_is_type(val, json_type_int)) {
                return fail(err, errlen,
                            "%s: Value error, must be an integer or an integer with a mask in "
                            "format vlan/mask",
                            where);
            } else if (check_uint(val, match_fields[i].max, where, &u, err, errlen) != 0) {
                return -1;
            }
            break;
        }
    }
    if (dropped == 0) {
        f->match = json_object_get(m);
        return 0;
    }
    if (!(f->match = json_object_new_object()))
        return fail(err, errlen, "out of memory");
    json_object_object_foreach(m, key2, val2) {
        int i = match_field(key2);
        if (i < 0 || val2 == NULL)
            continue;
        /* the table's name, not the body's: a key json-c need not copy */
        json_object_object_add_ex(f->match, match_fields[i].name, json_object_get(val2),
                                  JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT);
    }
    return 0;
}

/* a's keys are exactly "action_type" then field (when not NULL). */
static int action_is_canonical(struct json_object *a, const char *field)
{
    struct lh_entry *e = json_object_get_object(a)->head;

    if (json_object_object_length(a) != (field ? 2 : 1) || strcmp(lh_entry_k(e), "action_type"))
        return 0;
    return !field || strcmp(lh_entry_k(e->next), field) == 0;
}

/* One action dict -> its of_core as_dict(), or -1. */
static int parse_action(struct json_object *a, const char *where, struct json_object **out,
                        char *err, size_t errlen)
{
    struct json_object *type, *v = NULL, *d;
    const char *t, *field = NULL;
    uint64_t max = 0, u;
    char w[128];

    if (!json_object_is_type(a, json_type_object))
        return fail(err, errlen, "It couldn't serialize flow_dict: %s: an action must be an object",
                    where);
    type = json_object_object_get(a, "action_type");
    if (!json_object_is_type(type, json_type_string)) {
        struct fm_buf b;
        char sb[128];
        fm_buf_init(&b, sb, sizeof sb);
        fm_py_repr(&b, type);
        fail(err, errlen, "It couldn't serialize flow_dict: %s", b.oom ? "?" : b.p);
        fm_buf_free(&b);
        return -1;
    }
    t = json_object_get_string(type);
    if (strcmp(t, "output") == 0)
        field = "port", max = U32;
    else if (strcmp(t, "set_vlan") == 0)
        field = "vlan_id", max = 4095;
    else if (strcmp(t, "set_queue") == 0)
        field = "queue_id", max = U32;
    else if (strcmp(t, "push_vlan") != 0 && strcmp(t, "pop_vlan") != 0)
        return fail(err, errlen, "It couldn't serialize flow_dict: '%s'", t);

    if (field) {
        fm_join(w, sizeof w, where, ", ", field);
        v = json_object_object_get(a, field);
        if (v == NULL)
            return fail(err, errlen, "%s: Field required", w);
        if (check_uint(v, max, w, &u, err, errlen) != 0)
            return -1;
    }
    /* already as of_core writes it (mef_eline's are): the request's own */
    if (action_is_canonical(a, field ? field : strcmp(t, "push_vlan") == 0 ? "tag_type" : NULL)) {
        *out = json_object_get(a);
        return 0;
    }
    d = json_object_new_object();
    if (!d)
        return fail(err, errlen, "out of memory");
    kytos_json_add_lit(d, "action_type", json_object_new_string(t));
    if (field) {
        /* field is one of the literals above */
        json_object_object_add_ex(d, field, json_object_get(v),
                                  JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT);
    } else if (strcmp(t, "push_vlan") == 0) {
        /* of_core packs any tag_type: 's' is 802.1ad, anything else 802.1Q */
        v = json_object_object_get(a, "tag_type");
        kytos_json_add_lit(d, "tag_type", v ? json_object_get(v) : NULL);
    }
    *out = d;
    return 0;
}

static int parse_actions(struct json_object *list, const char *where, struct json_object *out,
                         char *err, size_t errlen)
{
    size_t i, n;
    char w[96];

    if (list == NULL || json_object_is_type(list, json_type_null))
        return 0;
    if (!json_object_is_type(list, json_type_array))
        return fail(err, errlen, "%s: Input should be a valid list", where);
    n = json_object_array_length(list);
    for (i = 0; i < n; i++) {
        struct json_object *d = NULL;
        fm_join_index(w, sizeof w, where, i);
        if (parse_action(json_object_array_get_idx(list, i), w, &d, err, errlen) != 0)
            return -1;
        json_object_array_add(out, d);
    }
    return 0;
}

static int parse_instruction(struct json_object *in, size_t idx, struct json_object *out,
                             char *err, size_t errlen)
{
    struct json_object *type, *d, *v;
    const char *t;
    char w[96];
    uint64_t u;

    fm_join_index(w, sizeof w, "flow, instructions", idx);
    if (!json_object_is_type(in, json_type_object))
        return fail(err, errlen, "%s: Input should be a valid dictionary", w);
    type = json_object_object_get(in, "instruction_type");
    if (!json_object_is_type(type, json_type_string)) {
        struct fm_buf b;
        char sb[128];
        fm_buf_init(&b, sb, sizeof sb);
        fm_py_repr(&b, type);
        fail(err, errlen, "It couldn't serialize flow_dict: %s", b.oom ? "?" : b.p);
        fm_buf_free(&b);
        return -1;
    }
    t = json_object_get_string(type);
    d = json_object_new_object();
    if (!d)
        return fail(err, errlen, "out of memory");
    json_object_object_add(d, "instruction_type", json_object_new_string(t));
    if (!strcmp(t, "apply_actions") || !strcmp(t, "write_actions") || !strcmp(t, "clear_actions")) {
        struct json_object *acts = json_object_new_array();
        json_object_object_add(d, "actions", acts);
        strncat(w, ", actions", sizeof w - strlen(w) - 1);
        if (parse_actions(json_object_object_get(in, "actions"), w, acts, err, errlen) != 0)
            goto bad;
    } else if (!strcmp(t, "goto_table") || !strcmp(t, "meter")) {
        const char *field = t[0] == 'g' ? "table_id" : "meter_id";
        char w2[128];
        fm_join(w2, sizeof w2, w, ", ", field);
        v = json_object_object_get(in, field);
        if (v == NULL) {
            fail(err, errlen, "%s: Field required", w2);
            goto bad;
        }
        if (check_uint(v, t[0] == 'g' ? U8 : U32, w2, &u, err, errlen) != 0)
            goto bad;
        json_object_object_add(d, field, json_object_get(v));
    } else if (!strcmp(t, "write_metadata")) {
        char w2[128];
        fm_join(w2, sizeof w2, w, ", ", "metadata");
        v = json_object_object_get(in, "metadata");
        if (v == NULL) {
            fail(err, errlen, "%s: Field required", w2);
            goto bad;
        }
        if (check_uint(v, U64, w2, &u, err, errlen) != 0)
            goto bad;
        json_object_object_add(d, "metadata", json_object_get(v));
        v = json_object_object_get(in, "metadata_mask");
        fm_join(w2, sizeof w2, w, ", ", "metadata_mask");
        if (v != NULL && check_uint(v, U64, w2, &u, err, errlen) != 0)
            goto bad;
        json_object_object_add(d, "metadata_mask", v ? json_object_get(v) : json_object_new_int(0));
    } else {
        fail(err, errlen, "It couldn't serialize flow_dict: '%s'", t);
        goto bad;
    }
    json_object_array_add(out, d);
    return 0;
bad:
    json_object_put(d);
    return -1;
}

/* The top-level integer fields: name, OpenFlow width, default. */
static int top_uint(struct json_object *src, const char *name, uint64_t max, int64_t def,
                    int64_t *out, char *err, size_t errlen)
{
    struct json_object *v;
    char where[64];
    uint64_t u;

    *out = def;
    if (!json_object_object_get_ex(src, name, &v))
        return 0;
    fm_join(where, sizeof where, "flow", ", ", name);
    if (check_uint(v, max, where, &u, err, errlen) != 0)
        return -1;
    *out = (int64_t)u;
    return 0;
}

/* A UBInt64 field of the FlowMod: pyof's PackException text when it is
 * not an integer in [0, 2**64) ("FlowMod.cookie - Expected UBInt64, found
 * value "x" of type str": str() of the value, its Python type).  A bool is
 * still refused as FlowDoc's validation words it (pyof would pack it). */
static int pack_u64(struct json_object *v, const char *field, uint64_t *out, char *err,
                    size_t errlen)
{
    struct fm_buf b;
    char sb[256];

    if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0) {
        *out = json_object_get_uint64(v);
        return 0;
    }
    if (json_object_is_type(v, json_type_boolean))
        return fail(err, errlen, "flow, %s: Input should be a valid integer",
                    strchr(field, '.') + 1);
    fm_buf_init(&b, sb, sizeof sb);
    if (json_object_is_type(v, json_type_string))
        fm_buf_add(&b, json_object_get_string(v), (size_t)json_object_get_string_len(v));
    else
        fm_py_repr(&b, v);
    fail(err, errlen, "%s - Expected UBInt64, found value \"%.1500s\" of type %s", field,
         b.oom ? "?" : b.p, fm_py_is_bignum(v) ? "int" : py_type(v));
    fm_buf_free(&b);
    return -1;
}

static char *py_text(struct json_object *v)
{
    struct fm_buf b;
    char sb[512], *s;

    fm_buf_init(&b, sb, sizeof sb);
    fm_py_dump(&b, v);
    if (b.oom) {
        fm_buf_free(&b);
        return NULL;
    }
    s = b.heap ? b.p : strdup(b.p);
    return s;
}

static int flow_repr_fail(struct json_object *src, const char *msg, char *err, size_t errlen)
{
    struct fm_buf b;
    char sb[512];

    fm_buf_init(&b, sb, sizeof sb);
    fm_py_repr(&b, src);
    fail(err, errlen, "%s flow: %s", msg, b.oom ? "{...}" : b.p);
    fm_buf_free(&b);
    return -1;
}

/* ---- of_core's Flow.from_dict, as far as it raises what flow_manager
 * answers 400 for (TypeError, KeyError) ---- */

/* An error from_dict would raise: its class and str(). */
struct py_exc {
    const char *type;   /* "KeyError", "TypeError"; NULL = none */
    char text[160];
};

static int py_raise(struct py_exc *e, const char *type, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int py_raise(struct py_exc *e, const char *type, const char *fmt, ...)
{
    va_list ap;
    e->type = type;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
    return -1;
}

/* factory[key] with a JSON key: str() of the KeyError is repr(key); a list
 * or dict is unhashable.  1 when key is one of names. */
static int lookup(struct json_object *key, const char *const *names, struct py_exc *e)
{
    struct fm_buf b;
    char sb[128];

    if (json_object_is_type(key, json_type_array) || json_object_is_type(key, json_type_object)) {
        py_raise(e, "TypeError", "unhashable type: '%s'", py_type(key));
        return 0;
    }
    if (json_object_is_type(key, json_type_string))
        for (; *names; names++)
            if (strcmp(json_object_get_string(key), *names) == 0)
                return 1;
    fm_buf_init(&b, sb, sizeof sb);
    fm_py_repr(&b, key);
    py_raise(e, "KeyError", "%.140s", b.oom ? "?" : b.p);
    fm_buf_free(&b);
    return 0;
}

/* Iterating v as a for loop does: lists; anything not iterable raises (a
 * str or dict iterates, then fails as no TypeError/KeyError: not here). */
static int iterable(struct json_object *v, struct py_exc *e)
{
    if (json_object_is_type(v, json_type_null) || json_object_is_type(v, json_type_boolean) ||
        json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))
        return py_raise(e, "TypeError", "'%s' object is not iterable", py_type(v)) + 1;
    return json_object_is_type(v, json_type_array);
}

/* Action.from_dict: the action_type's class, then cls(**rest). */
static int action_from_dict(struct json_object *a, struct py_exc *e)
{
    static const char *const types[] = {"output", "set_vlan", "push_vlan", "pop_vlan",
                                        "set_queue", NULL};
    static const struct {
        const char *type, *cls, *arg;   /* arg: the one __init__ parameter */
    } inits[] = {
        {"output", "ActionOutput", "port"},       {"set_vlan", "ActionSetVlan", "vlan_id"},
        {"push_vlan", "ActionPushVlan", "tag_type"}, {"pop_vlan", "ActionPopVlan", NULL},
        {"set_queue", "ActionSetQueue", "queue_id"},
    };
    const char *t;
    size_t i;

    if (!json_object_is_type(a, json_type_object))
        return 0;   /* no .get(): an AttributeError, left to the checks after */
    if (!lookup(json_object_object_get(a, "action_type"), types, e))
        return -1;
    t = json_object_get_string(json_object_object_get(a, "action_type"));
    for (i = 0; strcmp(inits[i].type, t) != 0; i++)
        ;
    /* Python binds keywords first: an unexpected one, then a missing one */
    json_object_object_foreach(a, key, val) {
        (void)val;
        if (strcmp(key, "action_type") != 0 && (!inits[i].arg || strcmp(key, inits[i].arg) != 0))
            return py_raise(e, "TypeError", "%s.__init__() got an unexpected keyword argument "
                            "'%.60s'", inits[i].cls, key);
    }
    if (inits[i].arg && !json_object_object_get_ex(a, inits[i].arg, NULL))
        return py_raise(e, "TypeError", "%s.__init__() missing 1 required positional argument: "
                        "'%s'", inits[i].cls, inits[i].arg);
    return 0;
}

static int actions_from_dict(struct json_object *list, struct py_exc *e)
{
    size_t i, n;

    if (!iterable(list, e))
        return e->type ? -1 : 0;
    n = json_object_array_length(list);
    for (i = 0; i < n; i++)
        if (action_from_dict(json_object_array_get_idx(list, i), e) != 0)
            return -1;
    return 0;
}

/* Instruction.from_dict: the instruction_type's class, then its known
 * attributes in the dict's order ("actions" built action by action). */
static int instruction_from_dict(struct json_object *in, struct py_exc *e)
{
    static const char *const types[] = {"apply_actions", "clear_actions", "goto_table", "meter",
                                        "write_actions", "write_metadata", NULL};
    const char *t;

    if (!json_object_is_type(in, json_type_object))
        return 0;   /* AttributeError: left to the checks after */
    if (!lookup(json_object_object_get(in, "instruction_type"), types, e))
        return -1;
    t = json_object_get_string(json_object_object_get(in, "instruction_type"));
    if (strstr(t, "_actions")) {
        struct json_object *acts;
        if (json_object_object_get_ex(in, "actions", &acts) && actions_from_dict(acts, e) != 0)
            return -1;
    }
    return 0;
}

int fm_flow_from_dict_check(struct json_object *src, char *err, size_t errlen)
{
    struct json_object *v;
    struct py_exc e = {0};
    struct fm_buf b;
    char sb[512];
    size_t i, n;

    if (!json_object_is_type(src, json_type_object))
        return 0;
    /* `if 'actions' in flow_dict and flow_dict['actions']` */
    if (json_object_object_get_ex(src, "actions", &v) && fm_json_truthy(v) &&
        actions_from_dict(v, &e) != 0)
        goto raised;
    /* `if 'instructions' in flow_dict`: even a null one is iterated */
    if (json_object_object_get_ex(src, "instructions", &v)) {
        if (!iterable(v, &e)) {
            if (e.type)
                goto raised;
            return 0;
        }
        n = json_object_array_length(v);
        for (i = 0; i < n; i++)
            if (instruction_from_dict(json_object_array_get_idx(v, i), &e) != 0)
                goto raised;
    }
    return 0;
raised:
    fm_buf_init(&b, sb, sizeof sb);
    fm_py_repr(&b, src);
    fail(err, errlen, "It couldn't serialize flow_dict: %s. Exception type: <class '%s'> Error: %s ",
         b.oom ? "{...}" : b.p, e.type, e.text);
    fm_buf_free(&b);
    return -1;
}

int fm_flow_parse(struct json_object *src, int cmd, struct fm_flow *f, char *err, size_t errlen)
{
    struct json_object *v, *actions, *instr;
    size_t i, n;

    memset(f, 0, sizeof *f);
    f->src = src;
    if (!json_object_is_type(src, json_type_object))
        return fail(err, errlen, "It couldn't serialize flow_dict: a flow must be an object");

    f->has_cookie = json_object_object_get_ex(src, "cookie", NULL);
    f->has_cookie_mask = json_object_object_get_ex(src, "cookie_mask", NULL);
    if (cmd == FM_ADD && f->has_cookie_mask)
        return flow_repr_fail(src, "cookie_mask shouldn't be set when adding flows.", err, errlen);
    if (cmd == FM_DELETE && f->has_cookie && !f->has_cookie_mask)
        return flow_repr_fail(src, "cookie is set, cookie_mask should be set too when deleting "
                              "flows.", err, errlen);
    if (cmd == FM_DELETE && !f->has_cookie && f->has_cookie_mask)
        return flow_repr_fail(src, "cookie_mask is set, cookie should be set toowhen deleting "
                              "flows.", err, errlen);

    /* the FlowMod packs cookie and cookie_mask first */
    if (json_object_object_get_ex(src, "cookie", &v) &&
        pack_u64(v, "FlowMod.cookie", &f->cookie, err, errlen) != 0)
        return -1;
    if (json_object_object_get_ex(src, "cookie_mask", &v) &&
        pack_u64(v, "FlowMod.cookie_mask", &f->cookie_mask, err, errlen) != 0)
        return -1;
    if (top_uint(src, "table_id", U8, 0, &f->table_id, err, errlen) ||
        top_uint(src, "priority", U16, 0x8000, &f->priority, err, errlen) ||
        top_uint(src, "idle_timeout", U16, 0, &f->idle_timeout, err, errlen) ||
        top_uint(src, "hard_timeout", U16, 0, &f->hard_timeout, err, errlen))
        return -1;
    if (json_object_object_get_ex(src, "owner", &v) && v &&
        !json_object_is_type(v, json_type_string))
        return fail(err, errlen, "flow, owner: Input should be a valid string");
    if (json_object_object_get_ex(src, "table_group", &v) &&
        !json_object_is_type(v, json_type_string))
        return fail(err, errlen, "flow, table_group: Input should be a valid string");

    if (parse_match(json_object_object_get(src, "match"), f, err, errlen) != 0)
        return -1;

    f->instructions = json_object_new_array();
    if (!f->instructions)
        return fail(err, errlen, "out of memory");
    actions = json_object_object_get(src, "actions");
    instr = json_object_object_get(src, "instructions");
    if (cmd == FM_ADD && actions && instr)
        return fail(err, errlen, "flow: Value error, actions and instructions are mutually "
                    "exclusive");
    /* of_core folds actions into one apply_actions instruction (if any). */
    if (actions && !json_object_is_type(actions, json_type_null) &&
        !(json_object_is_type(actions, json_type_array) && json_object_array_length(actions) == 0)) {
        struct json_object *ins = json_object_new_object(), *acts = json_object_new_array();
        kytos_json_add_lit(ins, "instruction_type", json_object_new_string("apply_actions"));
        kytos_json_add_lit(ins, "actions", acts);
        json_object_array_add(f->instructions, ins);
        if (parse_actions(actions, "flow, actions", acts, err, errlen) != 0)
            return -1;
    }
    if (instr && !json_object_is_type(instr, json_type_null)) {
        if (!json_object_is_type(instr, json_type_array))
            return fail(err, errlen, "flow, instructions: Input should be a valid list");
        n = json_object_array_length(instr);
        for (i = 0; i < n; i++)
            if (parse_instruction(json_object_array_get_idx(instr, i), i, f->instructions, err,
                                  errlen) != 0)
                return -1;
    }

    f->match_py = py_text(f->match);
    f->instr_py = py_text(f->instructions);
    if (!f->match_py || !f->instr_py)
        return fail(err, errlen, "out of memory");
    return 0;
}

void fm_flow_clear(struct fm_flow *f)
{
    json_object_put(f->match);
    json_object_put(f->instructions);
    free(f->match_py);
    free(f->instr_py);
    memset(f, 0, sizeof *f);
}

void fm_flow_ids(const struct fm_flow *f, const char *dpid, char match_id[33], char flow_id[33])
{
    struct fm_flow *memo = (struct fm_flow *)f;   /* the memo fields only */
    struct fm_buf b;
    char sb[1024];

    if (f->ids_dpid[0] && strcmp(f->ids_dpid, dpid) == 0) {
        memcpy(match_id, f->ids_match, 33);
        memcpy(flow_id, f->ids_flow, 33);
        return;
    }

    /* json.dumps({"switch","table_id","match","priority"}, sort_keys=True) */
    fm_buf_init(&b, sb, sizeof sb);
    fm_buf_adds(&b, "{\"match\": ");
    fm_buf_adds(&b, f->match_py);
    fm_buf_adds(&b, ", \"priority\": ");
    fm_buf_addi64(&b, f->priority);
    fm_buf_adds(&b, ", \"switch\": ");
    fm_py_str(&b, dpid, strlen(dpid));
    fm_buf_adds(&b, ", \"table_id\": ");
    fm_buf_addi64(&b, f->table_id);
    fm_buf_adds(&b, "}");
    fm_md5_hex(b.p, b.len, match_id);

    /* json.dumps(flow.as_dict(include_id=False), sort_keys=True) */
    b.len = 0;
    fm_buf_adds(&b, "{\"cookie\": ");
    fm_buf_addu64(&b, f->cookie);
    fm_buf_adds(&b, ", \"cookie_mask\": ");
    fm_buf_addu64(&b, f->cookie_mask);
    fm_buf_adds(&b, ", \"hard_timeout\": ");
    fm_buf_addi64(&b, f->hard_timeout);
    fm_buf_adds(&b, ", \"idle_timeout\": ");
    fm_buf_addi64(&b, f->idle_timeout);
    fm_buf_adds(&b, ", \"instructions\": ");
    fm_buf_adds(&b, f->instr_py);
    fm_buf_adds(&b, ", \"match\": ");
    fm_buf_adds(&b, f->match_py);
    fm_buf_adds(&b, ", \"priority\": ");
    fm_buf_addi64(&b, f->priority);
    fm_buf_adds(&b, ", \"switch\": ");
    fm_py_str(&b, dpid, strlen(dpid));
    fm_buf_adds(&b, ", \"table_id\": ");
    fm_buf_addi64(&b, f->table_id);
    fm_buf_adds(&b, "}");
    fm_md5_hex(b.p, b.len, flow_id);
    fm_buf_free(&b);
    if (!b.oom && strlen(dpid) < sizeof memo->ids_dpid) {
        memcpy(memo->ids_match, match_id, 33);
        memcpy(memo->ids_flow, flow_id, 33);
        strcpy(memo->ids_dpid, dpid);
    }
}

struct json_object *fm_flow_doc(const struct fm_flow *f)
{
    struct json_object *d = json_object_new_object(), *v;

    if (!d)
        return NULL;
    kytos_json_add_lit(d, "table_id", json_object_new_int64(f->table_id));
    if (json_object_object_get_ex(f->src, "owner", &v) && v)
        kytos_json_add_lit(d, "owner", json_object_get(v));
    if (json_object_object_get_ex(f->src, "table_group", &v))
        kytos_json_add_lit(d, "table_group", json_object_get(v));
    else
        kytos_json_add_lit(d, "table_group", json_object_new_string("base"));
    kytos_json_add_lit(d, "priority", json_object_new_int64(f->priority));
    kytos_json_add_lit(d, "cookie", json_object_new_uint64(f->cookie));
    kytos_json_add_lit(d, "idle_timeout", json_object_new_int64(f->idle_timeout));
    kytos_json_add_lit(d, "hard_timeout", json_object_new_int64(f->hard_timeout));
    if (json_object_object_get_ex(f->src, "match", &v) && v)
        kytos_json_add_lit(d, "match", json_object_get(f->match));
    if (json_object_object_get_ex(f->src, "actions", &v) && v)
        kytos_json_add_lit(d, "actions", json_object_get(v));
    if (json_object_object_get_ex(f->src, "instructions", &v) && v)
        kytos_json_add_lit(d, "instructions", json_object_get(v));
    return d;
}

/* as_dict() with the match and instructions given (references taken). */
static struct json_object *as_dict(const struct fm_flow *f, const char *dpid, const char *flow_id,
                                   struct json_object *match, struct json_object *instructions)
{
    struct json_object *d = json_object_new_object();

    if (!d) {
        json_object_put(match);
        json_object_put(instructions);
        return NULL;
    }
    kytos_json_add_lit(d, "switch", json_object_new_string(dpid));
    kytos_json_add_lit(d, "table_id", json_object_new_int64(f->table_id));
    kytos_json_add_lit(d, "match", match);
    kytos_json_add_lit(d, "priority", json_object_new_int64(f->priority));
    kytos_json_add_lit(d, "idle_timeout", json_object_new_int64(f->idle_timeout));
    kytos_json_add_lit(d, "hard_timeout", json_object_new_int64(f->hard_timeout));
    kytos_json_add_lit(d, "cookie", json_object_new_uint64(f->cookie));
    kytos_json_add_lit(d, "cookie_mask", json_object_new_uint64(f->cookie_mask));
    kytos_json_add_lit(d, "instructions", instructions);
    if (flow_id)
        kytos_json_add_lit(d, "id", json_object_new_string(flow_id));
    return d;
}

struct json_object *fm_flow_as_dict(const struct fm_flow *f, const char *dpid,
                                    const char *flow_id)
{
    return as_dict(f, dpid, flow_id, json_object_get(f->match), json_object_get(f->instructions));
}

/* json_object_deep_copy for the trees fm_flow_parse builds (one per flow
 * sent: the FlowMod's copy was a tenth of a link failure's CPU): keys the
 * source holds as constants (this file's literals) stay shared instead of
 * strdup'd, no key is looked up before it is added, arrays are sized
 * once.  A double keeps json-c's own copy (its original text). */
static int fast_copy(struct json_object *src, struct json_object **dst)
{
    struct json_object *d = NULL, *v;
    size_t i, n;

    switch (json_object_get_type(src)) {
    case json_type_null:
        *dst = NULL;
        return 0;
    case json_type_boolean:
        d = json_object_new_boolean(json_object_get_boolean(src));
        break;
    case json_type_int:
        /* json-c keeps an int as int64 or uint64: a value above INT64_MAX
         * reads back clamped as int64 */
        if (json_object_get_int64(src) == INT64_MAX)
            d = json_object_new_uint64(json_object_get_uint64(src));
        else
            d = json_object_new_int64(json_object_get_int64(src));
        break;
    case json_type_string:
        d = json_object_new_string_len(json_object_get_string(src),
                                       json_object_get_string_len(src));
        break;
    case json_type_array:
        n = json_object_array_length(src);
        if (!(d = json_object_new_array_ext(n ? (int)n : 1)))
            return -1;
        for (i = 0; i < n; i++) {
            if (fast_copy(json_object_array_get_idx(src, i), &v) != 0 ||
                json_object_array_add(d, v) != 0) {
                json_object_put(d);
                return -1;
            }
        }
        break;
    case json_type_object: {
        struct lh_entry *e;
        if (!(d = json_object_new_object()))
            return -1;
        for (e = json_object_get_object(src)->head; e; e = e->next) {
            const char *k = lh_entry_k(e);
            int flags = JSON_C_OBJECT_ADD_KEY_IS_NEW;
            if (lh_entry_k_is_constant(e))
                flags |= JSON_C_OBJECT_KEY_IS_CONSTANT;
            if (fast_copy((struct json_object *)lh_entry_v(e), &v) != 0 ||
                json_object_object_add_ex(d, k, v, (unsigned)flags) != 0) {
                json_object_put(d);
                return -1;
            }
        }
        break;
    }
    default:
        return json_object_deep_copy(src, dst, NULL) == 0 ? 0 : -1;
    }
    if (!d)
        return -1;
    *dst = d;
    return 0;
}

struct json_object *fm_flow_as_dict_own(const struct fm_flow *f, const char *dpid,
                                        const char *flow_id)
{
    struct json_object *m = NULL, *ins = NULL;

    if ((f->match && fast_copy(f->match, &m) != 0) ||
        (f->instructions && fast_copy(f->instructions, &ins) != 0)) {
        json_object_put(m);
        json_object_put(ins);
        return NULL;
    }
    return as_dict(f, dpid, flow_id, m, ins);
}

/* Python == on JSON values: numbers by value, containers deeply. */
static int json_eq(struct json_object *a, struct json_object *b)
{
    enum json_type ta = json_object_get_type(a), tb = json_object_get_type(b);

    if (ta == json_type_int && tb == json_type_int) {
        int64_t sa = json_object_get_int64(a), sb = json_object_get_int64(b);
        if (sa < 0 || sb < 0)
            return sa == sb;
        return json_object_get_uint64(a) == json_object_get_uint64(b);
    }
    if ((ta == json_type_int || ta == json_type_double) &&
        (tb == json_type_int || tb == json_type_double))
        return json_object_get_double(a) == json_object_get_double(b);
    if (ta != tb)
        return 0;
    return json_object_equal(a, b);
}

int fm_flow_cookie_in_range(const struct fm_flow *req, struct json_object *stored)
{
    struct json_object *v;
    uint64_t c;

    /* a stored cookie is a JSON integer (0..2**64-1); anything else, or
     * none, is not in a range (as a range query in the database) */
    if (!json_object_object_get_ex(stored, "cookie", &v) || !json_object_is_type(v, json_type_int) ||
        json_object_get_int64(v) < 0)
        return 0;
    c = json_object_get_uint64(v);
    return c >= (req->cookie & req->cookie_mask) && c <= (req->cookie | ~req->cookie_mask);
}

int fm_flow_matches(const struct fm_flow *req, struct json_object *stored)
{
    struct json_object *v, *smatch, *rmatch;
    uint64_t scookie = 0;

    if (req->cookie_mask) {
        uint64_t c = req->cookie & req->cookie_mask;
        if (json_object_object_get_ex(stored, "cookie", &v) && json_object_is_type(v, json_type_int))
            scookie = json_object_get_int64(v) < 0 ? 0 : json_object_get_uint64(v);
        if (c && c != (scookie & req->cookie_mask))
            return 0;
    }
    if (json_object_object_get_ex(req->src, "table_id", &v) && v) {
        struct json_object *st = json_object_object_get(stored, "table_id");
        if (!st || !json_eq(v, st))
            return 0;
    }
    if (!json_object_object_get_ex(req->src, "match", &rmatch) ||
        !json_object_object_get_ex(stored, "match", &smatch))
        return 1;
    if (!json_object_is_type(rmatch, json_type_object) || json_object_object_length(rmatch) == 0)
        return 1;
    if (!json_object_is_type(smatch, json_object_get_type(rmatch)) ||
        json_object_object_length(rmatch) > json_object_object_length(smatch))
        return 0;
    json_object_object_foreach(rmatch, key, val) {
        struct json_object *sv;
        if (!json_object_object_get_ex(smatch, key, &sv))
            return 0;
        if (!json_eq(val, sv))
            return 0;
    }
    return 1;
}
