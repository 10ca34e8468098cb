/* plugins/of_core/ofp/ofp_json_out.c - decoded instructions, flow stats
 * entries and ports -> Kytos JSON (of_core flow.py / v0x04 as_dict). */
#include "ofp_json_int.h"

static struct json_object *action_to_json(const struct ofp_action *a)
{
    struct json_object *d = json_object_new_object();
    int oom = 0;

    if (!d)
        return NULL;
    switch (a->type) {
    case OFPAT_OUTPUT:
        ofp_json_add(d, "action_type", json_object_new_string("output"), &oom);
        ofp_json_add(d, "port", json_object_new_int64(a->port), &oom);
        break;
    case OFPAT_SET_FIELD:
        /* of_core reads every set_field as set_vlan */
        ofp_json_add(d, "action_type", json_object_new_string("set_vlan"), &oom);
        ofp_json_add(d, "vlan_id",
                     json_object_new_int64((int64_t)(ofp_oxm_value_uint(&a->field) & 0xfff)),
                     &oom);
        break;
    case OFPAT_PUSH_VLAN:
        ofp_json_add(d, "action_type", json_object_new_string("push_vlan"), &oom);
        ofp_json_add(d, "tag_type", json_object_new_string(a->ethertype == 0x88a8 ? "s" : "c"),
                     &oom);
        break;
    case OFPAT_POP_VLAN:
        ofp_json_add(d, "action_type", json_object_new_string("pop_vlan"), &oom);
        break;
    case OFPAT_SET_QUEUE:
        ofp_json_add(d, "action_type", json_object_new_string("set_queue"), &oom);
        ofp_json_add(d, "queue_id", json_object_new_int64(a->queue_id), &oom);
        break;
    case OFPAT_GROUP:
        ofp_json_add(d, "action_type", json_object_new_string("group"), &oom);
        ofp_json_add(d, "group_id", json_object_new_int64(a->group_id), &oom);
        break;
    default:
        ofp_json_add(d, "action_type", json_object_new_string("unknown"), &oom);
        ofp_json_add(d, "type", json_object_new_int(a->type), &oom);
        break;
    }
    if (oom) {
        json_object_put(d);
        return NULL;
    }
    return d;
}

static struct json_object *instruction_to_json(const struct ofp_instructions *s, unsigned idx)
{
    const struct ofp_instruction *in = &s->ins[idx];
    struct json_object *d = json_object_new_object(), *acts;
    const char *name = "unknown";
    unsigned k;
    int oom = 0;

    if (!d)
        return NULL;
    switch (in->type) {
    case OFPIT_GOTO_TABLE:
        name = "goto_table";
        ofp_json_add(d, "table_id", json_object_new_int(in->table_id), &oom);
        break;
    case OFPIT_METER:
        name = "meter";
        ofp_json_add(d, "meter_id", json_object_new_int64(in->meter_id), &oom);
        break;
    case OFPIT_WRITE_METADATA:
        name = "write_metadata";
        ofp_json_add(d, "metadata", json_object_new_uint64(in->metadata), &oom);
        ofp_json_add(d, "metadata_mask", json_object_new_uint64(in->metadata_mask), &oom);
        break;
    case OFPIT_WRITE_ACTIONS:
    case OFPIT_APPLY_ACTIONS:
    case OFPIT_CLEAR_ACTIONS:
        name = in->type == OFPIT_WRITE_ACTIONS   ? "write_actions"
               : in->type == OFPIT_APPLY_ACTIONS ? "apply_actions"
                                                 : "clear_actions";
        acts = json_object_new_array();
        for (k = 0; acts && k < in->n_actions && in->first + k < s->n_actions; k++) {
            struct json_object *a = action_to_json(&s->actions[in->first + k]);
            if (!a || json_object_array_add(acts, a) != 0) {
                json_object_put(a);
                oom = 1;
            }
        }
        ofp_json_add(d, "actions", acts, &oom);
        break;
    default:
        break;
    }
    ofp_json_add(d, "instruction_type", json_object_new_string(name), &oom);
    if (oom) {
        json_object_put(d);
        return NULL;
    }
    return d;
}

struct json_object *ofp_instructions_to_json(const struct ofp_instructions *s)
{
    struct json_object *list = json_object_new_array();
    unsigned i;

    for (i = 0; list && i < s->n && i < OFP_MAX_INSTRUCTIONS; i++) {
        struct json_object *d = instruction_to_json(s, i);
        if (!d || json_object_array_add(list, d) != 0) {
            json_object_put(d);
            json_object_put(list);
            return NULL;
        }
    }
    return list;
}

struct json_object *ofp_flow_stats_to_json(const struct ofp_flow_stats *fs, const char *dpid)
{
    struct json_object *d = json_object_new_object(), *stats = json_object_new_object();
    int oom = !d || !stats;

    if (oom) {
        json_object_put(d);
        json_object_put(stats);
        return NULL;
    }
    if (dpid)
        ofp_json_add(d, "switch", json_object_new_string(dpid), &oom);
    ofp_json_add(d, "table_id", json_object_new_int(fs->table_id), &oom);
    ofp_json_add(d, "match", ofp_match_to_json(&fs->match), &oom);
    ofp_json_add(d, "priority", json_object_new_int(fs->priority), &oom);
    ofp_json_add(d, "idle_timeout", json_object_new_int(fs->idle_timeout), &oom);
    ofp_json_add(d, "hard_timeout", json_object_new_int(fs->hard_timeout), &oom);
    ofp_json_add(d, "cookie", json_object_new_uint64(fs->cookie), &oom);
    ofp_json_add(d, "cookie_mask", json_object_new_int(0), &oom);
    ofp_json_add(d, "instructions", ofp_instructions_to_json(&fs->instructions), &oom);
    ofp_json_add(stats, "byte_count", json_object_new_uint64(fs->byte_count), &oom);
    ofp_json_add(stats, "duration_sec", json_object_new_int64(fs->duration_sec), &oom);
    ofp_json_add(stats, "duration_nsec", json_object_new_int64(fs->duration_nsec), &oom);
    ofp_json_add(stats, "packet_count", json_object_new_uint64(fs->packet_count), &oom);
    ofp_json_add(d, "stats", stats, &oom);
    if (oom) {
        json_object_put(d);
        return NULL;
    }
    return d;
}

struct json_object *ofp_port_to_json(const struct ofp_port *port)
{
    struct json_object *d = json_object_new_object();
    char name[17], mac[18];
    size_t i;
    int oom = 0;

    if (!d)
        return NULL;
    for (i = 0; i < 16 && port->name[i]; i++) {
        unsigned char c = (unsigned char)port->name[i];
        name[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    name[i] = '\0';
    ofp_format_mac(port->hw_addr, mac);
    ofp_json_add(d, "port_number", json_object_new_int64(port->port_no), &oom);
    ofp_json_add(d, "name", json_object_new_string(name), &oom);
    ofp_json_add(d, "mac", json_object_new_string(mac), &oom);
    ofp_json_add(d, "config", json_object_new_int64(port->config), &oom);
    ofp_json_add(d, "state", json_object_new_int64(port->state), &oom);
    ofp_json_add(d, "curr", json_object_new_int64(port->curr), &oom);
    ofp_json_add(d, "advertised", json_object_new_int64(port->advertised), &oom);
    ofp_json_add(d, "supported", json_object_new_int64(port->supported), &oom);
    ofp_json_add(d, "peer", json_object_new_int64(port->peer), &oom);
    ofp_json_add(d, "curr_speed", json_object_new_int64(port->curr_speed), &oom);
    ofp_json_add(d, "max_speed", json_object_new_int64(port->max_speed), &oom);
    if (oom) {
        json_object_put(d);
        return NULL;
    }
    return d;
}
