/* plugins/of_core/ofp/ofp_json_flow.c - Kytos flow dicts (as flow_manager
 * stores and publishes them) -> FLOW_MOD. */
#include "ofp_json_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ofp_flow_mod_command_from_name(const char *name)
{
    static const char *const names[] = {"add", "modify", "modify_strict", "delete",
                                        "delete_strict"};
    int i;

    for (i = 0; name && i < 5; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

/* A required integer member of obj. */
static int member_uint(struct json_object *obj, const char *key, uint64_t max, const char *where,
                       uint64_t *out, char *err, size_t errlen)
{
    struct json_object *v;
    char w[160];

    snprintf(w, sizeof w, "%s.%s", where, key);
    if (!json_object_object_get_ex(obj, key, &v) || json_object_is_type(v, json_type_null))
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s: missing", w);
    return ofp_json_uint(v, max, w, out, err, errlen);
}

static int action_from_json(struct json_object *a, const char *where, struct ofp_action *out,
                            char *err, size_t errlen)
{
    struct json_object *t;
    const char *type;
    uint64_t u;
    int rc = 0;

    memset(out, 0, sizeof *out);
    if (!json_object_is_type(a, json_type_object))
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s: not an object", where);
    if (!json_object_object_get_ex(a, "action_type", &t) ||
        !json_object_is_type(t, json_type_string))
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s.action_type: missing or not a string",
                        where);
    type = json_object_get_string(t);
    if (strcmp(type, "output") == 0) {
        out->type = OFPAT_OUTPUT;
        out->max_len = OFPCML_NO_BUFFER;
        rc = member_uint(a, "port", UINT32_MAX, where, &u, err, errlen);
        out->port = (uint32_t)u;
    } else if (strcmp(type, "set_vlan") == 0) {
        out->type = OFPAT_SET_FIELD;
        rc = member_uint(a, "vlan_id", 4095, where, &u, err, errlen);
        if (rc == 0)
            rc = ofp_oxm_set_uint(&out->field, OFPXMT_VLAN_VID, u | OFPVID_PRESENT, NULL, err,
                                  errlen);
    } else if (strcmp(type, "push_vlan") == 0) {
        struct json_object *tag = NULL;
        out->type = OFPAT_PUSH_VLAN;
        json_object_object_get_ex(a, "tag_type", &tag);
        /* of_core: 's' is 802.1ad, anything else 802.1Q */
        out->ethertype = json_object_is_type(tag, json_type_string) &&
                                 strcmp(json_object_get_string(tag), "s") == 0
                             ? 0x88a8
                             : 0x8100;
    } else if (strcmp(type, "pop_vlan") == 0) {
        out->type = OFPAT_POP_VLAN;
    } else if (strcmp(type, "set_queue") == 0) {
        out->type = OFPAT_SET_QUEUE;
        rc = member_uint(a, "queue_id", UINT32_MAX, where, &u, err, errlen);
        out->queue_id = (uint32_t)u;
    } else {
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s.action_type: unknown action \"%s\"", where,
                        type);
    }
    return rc;
}

static int actions_from_json(struct json_object *list, const char *where,
                             struct ofp_instructions *s, char *err, size_t errlen)
{
    size_t i, n;
    char w[128];
    struct ofp_action a;

    if (list == NULL || json_object_is_type(list, json_type_null))
        return 0;
    if (!json_object_is_type(list, json_type_array))
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s: not a list", where);
    n = json_object_array_length(list);
    for (i = 0; i < n; i++) {
        int rc;
        snprintf(w, sizeof w, "%s[%zu]", where, i);
        rc = action_from_json(json_object_array_get_idx(list, i), w, &a, err, errlen);
        if (rc == 0)
            rc = ofp_instructions_add_action(s, &a, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

static int instruction_from_json(struct json_object *in, size_t idx, struct ofp_instructions *s,
                                 char *err, size_t errlen)
{
    static const struct { const char *name; uint16_t type; } types[] = {
        {"goto_table", OFPIT_GOTO_TABLE},       {"write_metadata", OFPIT_WRITE_METADATA},
        {"write_actions", OFPIT_WRITE_ACTIONS}, {"apply_actions", OFPIT_APPLY_ACTIONS},
        {"clear_actions", OFPIT_CLEAR_ACTIONS}, {"meter", OFPIT_METER},
    };
    struct ofp_instruction ins;
    struct json_object *t, *v;
    char w[96], wa[112];
    const char *name;
    uint64_t u = 0;
    size_t i;
    int rc = 0;

    snprintf(w, sizeof w, "instructions[%zu]", idx);
    if (!json_object_is_type(in, json_type_object))
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s: not an object", w);
    if (!json_object_object_get_ex(in, "instruction_type", &t) ||
        !json_object_is_type(t, json_type_string))
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s.instruction_type: missing or not a string",
                        w);
    name = json_object_get_string(t);
    memset(&ins, 0, sizeof ins);
    for (i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(name, types[i].name) == 0)
            ins.type = types[i].type;
    switch (ins.type) {
    case OFPIT_GOTO_TABLE:
        rc = member_uint(in, "table_id", 0xff, w, &u, err, errlen);
        ins.table_id = (uint8_t)u;
        break;
    case OFPIT_METER:
        rc = member_uint(in, "meter_id", UINT32_MAX, w, &u, err, errlen);
        ins.meter_id = (uint32_t)u;
        break;
    case OFPIT_WRITE_METADATA:
        rc = member_uint(in, "metadata", UINT64_MAX, w, &ins.metadata, err, errlen);
        if (rc == 0 && json_object_object_get_ex(in, "metadata_mask", &v) &&
            !json_object_is_type(v, json_type_null)) {
            snprintf(wa, sizeof wa, "%s.metadata_mask", w);
            rc = ofp_json_uint(v, UINT64_MAX, wa, &ins.metadata_mask, err, errlen);
        }
        break;
    case OFPIT_WRITE_ACTIONS:
    case OFPIT_APPLY_ACTIONS:
    case OFPIT_CLEAR_ACTIONS:
        break;
    default:
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s.instruction_type: unknown instruction"
                        " \"%s\"", w, name);
    }
    if (rc == 0)
        rc = ofp_instructions_add(s, &ins, err, errlen);
    if (rc == 0 && ins.type != OFPIT_CLEAR_ACTIONS && (ins.type == OFPIT_WRITE_ACTIONS ||
                                                       ins.type == OFPIT_APPLY_ACTIONS)) {
        snprintf(wa, sizeof wa, "%s.actions", w);
        rc = actions_from_json(json_object_object_get(in, "actions"), wa, s, err, errlen);
    }
    return rc;
}

static int top_uint(struct json_object *flow, const char *key, uint64_t max, uint64_t *out,
                    char *err, size_t errlen)
{
    struct json_object *v;

    if (!json_object_object_get_ex(flow, key, &v) || json_object_is_type(v, json_type_null))
        return 0;   /* keep the default */
    return ofp_json_uint(v, max, key, out, err, errlen);
}

int ofp_flow_mod_parse_json(struct json_object *flow, uint8_t command, struct ofp_flow_mod *fm,
                            char *err, size_t errlen)
{
    uint64_t table_id = 0, priority = 0x8000, idle = 0, hard = 0, cookie = 0, cookie_mask = 0;
    struct json_object *v;
    size_t i, n;
    int rc;

    ofp_flow_mod_init(fm);
    fm->command = command;
    if (command > OFPFC_DELETE_STRICT)
        return ofp_fail(err, errlen, OFP_E_INVAL, "command %u is not a flow_mod command",
                        command);
    if (!json_object_is_type(flow, json_type_object))
        return ofp_fail(err, errlen, OFP_E_INVAL, "flow: not an object");
    if ((rc = top_uint(flow, "table_id", 0xff, &table_id, err, errlen)) ||
        (rc = top_uint(flow, "priority", 0xffff, &priority, err, errlen)) ||
        (rc = top_uint(flow, "idle_timeout", 0xffff, &idle, err, errlen)) ||
        (rc = top_uint(flow, "hard_timeout", 0xffff, &hard, err, errlen)) ||
        (rc = top_uint(flow, "cookie", UINT64_MAX, &cookie, err, errlen)) ||
        (rc = top_uint(flow, "cookie_mask", UINT64_MAX, &cookie_mask, err, errlen)))
        return rc;
    fm->table_id = (uint8_t)table_id;
    fm->priority = (uint16_t)priority;
    fm->idle_timeout = (uint16_t)idle;
    fm->hard_timeout = (uint16_t)hard;
    fm->cookie = cookie;
    fm->cookie_mask = cookie_mask;
    rc = ofp_match_from_json(json_object_object_get(flow, "match"), &fm->match, err, errlen);
    if (rc)
        return rc;
    /* "actions" is one apply_actions placed before the explicit instructions */
    if (json_object_object_get_ex(flow, "actions", &v) && !json_object_is_type(v, json_type_null)) {
        struct ofp_instruction apply = {.type = OFPIT_APPLY_ACTIONS};
        if (!json_object_is_type(v, json_type_array))
            return ofp_fail(err, errlen, OFP_E_INVAL, "actions: not a list");
        rc = ofp_instructions_add(&fm->instructions, &apply, err, errlen);
        if (rc == 0)
            rc = actions_from_json(v, "actions", &fm->instructions, err, errlen);
        if (rc)
            return rc;
    }
    if (json_object_object_get_ex(flow, "instructions", &v) &&
        !json_object_is_type(v, json_type_null)) {
        if (!json_object_is_type(v, json_type_array))
            return ofp_fail(err, errlen, OFP_E_INVAL, "instructions: not a list");
        n = json_object_array_length(v);
        for (i = 0; i < n; i++) {
            rc = instruction_from_json(json_object_array_get_idx(v, i), i, &fm->instructions,
                                       err, errlen);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int ofp_flow_mod_from_json(struct json_object *flow, uint8_t command, uint32_t xid,
                           struct ofp_buf *b, char *err, size_t errlen)
{
    struct ofp_flow_mod *fm = malloc(sizeof *fm);
    int rc;

    if (!fm)
        return ofp_fail(err, errlen, OFP_E_NOMEM, "out of memory");
    rc = ofp_flow_mod_parse_json(flow, command, fm, err, errlen);
    if (rc == 0) {
        fm->xid = xid;
        rc = ofp_flow_mod_encode(b, fm, err, errlen);
    }
    free(fm);
    return rc;
}
