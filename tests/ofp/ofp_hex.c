/* tests/ofp/ofp_hex.c - driver of the differential test against pyof
 * (pyof_diff.py).
 *   ofp_hex encode   prints "<name> <hex>" for a fixed set of messages we
 *                    encode (mostly from Kytos flow JSON)
 *   ofp_hex decode   reads one hex message per line on stdin and prints one
 *                    JSON line each: the fields our decoder found, or
 *                    {"error": "..."} */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofp.h"

static char err[256];

static void die(const char *what)
{
    fprintf(stderr, "ofp_hex: %s: %s\n", what, err);
    exit(2);
}

static void print_hex(const char *name, const struct ofp_buf *b)
{
    size_t i;
    printf("%s ", name);
    for (i = 0; i < b->len; i++)
        printf("%02x", b->data[i]);
    printf("\n");
}

static void emit_json_flow(const char *name, const char *json, uint8_t cmd, uint32_t xid)
{
    struct json_object *flow = json_tokener_parse(json);
    struct ofp_buf b;

    if (!flow) {
        snprintf(err, sizeof err, "bad JSON");
        die(name);
    }
    ofp_buf_init(&b);
    if (ofp_flow_mod_from_json(flow, cmd, xid, &b, err, sizeof err))
        die(name);
    print_hex(name, &b);
    ofp_buf_free(&b);
    json_object_put(flow);
}

static void sample_port(struct ofp_port *p, uint32_t no, const char *name)
{
    memset(p, 0, sizeof *p);
    p->port_no = no;
    memcpy(p->hw_addr, "\x62\x4e\x0a\x00\x00\x01", 6);
    p->hw_addr[5] = (uint8_t)no;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->state = OFPPS_LIVE;
    p->curr = 0x840;
    p->advertised = 0x20;
    p->supported = 0x840;
    p->peer = 0;
    p->curr_speed = 10000000;
    p->max_speed = 10000000;
}

static void do_encode(void)
{
    struct ofp_buf b;
    struct ofp_switch_config cfg = {.xid = 3, .flags = 0, .miss_send_len = 0xffff};
    struct ofp_flow_stats_request *fsr = malloc(sizeof *fsr);
    struct ofp_packet_out *po = calloc(1, sizeof *po);
    struct ofp_flow_stats *fs = calloc(1, sizeof *fs);
    struct ofp_packet_in *pi = calloc(1, sizeof *pi);
    struct ofp_port_status ps = {.xid = 0, .reason = OFPPR_MODIFY};
    struct ofp_features f = {.xid = 2, .datapath_id = 0x00000000000000a1ull, .n_buffers = 0,
                             .n_tables = 254, .capabilities = 0x4f};
    struct ofp_error_msg e = {.xid = 99, .type = 4, .code = 9,
                              .data = (const uint8_t *)"\x04\x0e\x00\x58\x00\x00\x00\x63",
                              .data_len = 8};
    static const uint8_t frame[42] = {0x01, 0x80, 0xc2, 0, 0, 0x0e, 0xee, 0, 0, 0, 1, 2,
                                      0x81, 0, 0x0e, 0xd7, 0x88, 0xcc};
    struct ofp_instruction ap = {.type = OFPIT_APPLY_ACTIONS};
    struct ofp_action out = {.type = OFPAT_OUTPUT, .port = 2, .max_len = 0xffff};
    struct ofp_port p;
    size_t start;

    if (!fsr || !po || !fs || !pi)
        die("out of memory");
    ofp_buf_init(&b);
#define EMIT(name, call)                                                                      \
    do {                                                                                      \
        b.len = 0;                                                                            \
        if (call)                                                                             \
            die(name);                                                                        \
        print_hex(name, &b);                                                                  \
    } while (0)
    EMIT("hello", ofp_hello_encode(&b, 1, 1u << 4, err, sizeof err));
    EMIT("hello_bare", ofp_hello_encode(&b, 2, 0, err, sizeof err));
    EMIT("features_request", ofp_empty_encode(&b, OFPT_FEATURES_REQUEST, 2, err, sizeof err));
    EMIT("set_config", ofp_switch_config_encode(&b, OFPT_SET_CONFIG, &cfg, err, sizeof err));
    EMIT("barrier_request", ofp_empty_encode(&b, OFPT_BARRIER_REQUEST, 4, err, sizeof err));
    EMIT("echo_request", ofp_echo_encode(&b, OFPT_ECHO_REQUEST, 5, "kytosd_13", 9, err,
                                         sizeof err));
    EMIT("port_desc_request", ofp_multipart_request_encode(&b, 6, OFPMP_PORT_DESC, 0, NULL, 0,
                                                           err, sizeof err));
    ofp_flow_stats_request_init(fsr);
    fsr->xid = 7;
    EMIT("flow_stats_request", ofp_flow_stats_request_encode(&b, fsr, err, sizeof err));
    po->xid = 8;
    po->buffer_id = OFP_NO_BUFFER;
    po->in_port = OFPP_CONTROLLER;
    po->n_actions = 1;
    po->actions[0] = out;
    po->data = frame;
    po->data_len = sizeof frame;
    EMIT("packet_out", ofp_packet_out_encode(&b, po, err, sizeof err));
    EMIT("features_reply", ofp_features_reply_encode(&b, &f, err, sizeof err));
    EMIT("error", ofp_error_encode(&b, &e, err, sizeof err));
    sample_port(&ps.desc, 3, "s1-eth3");
    EMIT("port_status", ofp_port_status_encode(&b, &ps, err, sizeof err));
    pi->xid = 0;
    pi->buffer_id = OFP_NO_BUFFER;
    pi->total_len = sizeof frame;
    pi->reason = 1;
    pi->cookie = 0xab00000000000001ull;
    ofp_match_add_uint(&pi->match, OFPXMT_IN_PORT, 3, NULL, err, sizeof err);
    pi->data = frame;
    pi->data_len = sizeof frame;
    EMIT("packet_in", ofp_packet_in_encode(&b, pi, err, sizeof err));
    {
        struct ofp_flow_removed fr = {.xid = 0, .cookie = 0xaa00000000000001ull,
                                      .priority = 20000, .reason = 2, .table_id = 0,
                                      .duration_sec = 5, .duration_nsec = 6,
                                      .idle_timeout = 0, .hard_timeout = 0,
                                      .packet_count = 7, .byte_count = 8};
        ofp_match_add_uint(&fr.match, OFPXMT_IN_PORT, 1, NULL, err, sizeof err);
        EMIT("flow_removed", ofp_flow_removed_encode(&b, &fr, err, sizeof err));
    }
    /* a FLOW reply of two entries with REPLY_MORE */
    b.len = 0;
    ofp_multipart_reply_begin(&b, 9, OFPMP_FLOW, OFPMPF_REPLY_MORE, &start);
    fs->priority = 20000;
    fs->cookie = 0xaa00000000000001ull;
    fs->packet_count = 10;
    fs->byte_count = 640;
    fs->duration_sec = 3;
    fs->duration_nsec = 500;
    ofp_match_add_uint(&fs->match, OFPXMT_IN_PORT, 1, NULL, err, sizeof err);
    ofp_match_add_uint(&fs->match, OFPXMT_VLAN_VID, 0x1064, NULL, err, sizeof err);
    ofp_instructions_add(&fs->instructions, &ap, err, sizeof err);
    ofp_instructions_add_action(&fs->instructions, &out, err, sizeof err);
    if (ofp_flow_stats_encode(&b, fs, err, sizeof err))
        die("flow_stats");
    fs->priority = 1;
    fs->match.n = 0;
    fs->instructions.n = 0;
    fs->instructions.n_actions = 0;
    if (ofp_flow_stats_encode(&b, fs, err, sizeof err) || ofp_msg_finish(&b, start, err,
                                                                         sizeof err))
        die("flow_stats");
    print_hex("flow_stats_reply", &b);
    b.len = 0;
    ofp_multipart_reply_begin(&b, 10, OFPMP_PORT_DESC, 0, &start);
    sample_port(&p, 1, "s1-eth1");
    ofp_port_encode(&b, &p, err, sizeof err);
    sample_port(&p, OFPP_LOCAL, "s1");
    ofp_port_encode(&b, &p, err, sizeof err);
    if (ofp_msg_finish(&b, start, err, sizeof err))
        die("port_desc_reply");
    print_hex("port_desc_reply", &b);
    ofp_buf_free(&b);

    /* FLOW_MODs from Kytos flow JSON */
    emit_json_flow("flow_mod_lldp",
                   "{\"priority\": 50000, \"cookie\": 12321848580485677057, \"match\":"
                   " {\"dl_type\": 35020, \"dl_vlan\": 3799}, \"actions\": [{\"action_type\":"
                   " \"output\", \"port\": 4294967293}]}", OFPFC_ADD, 0x11);
    emit_json_flow("flow_mod_evc_push",
                   "{\"table_id\": 0, \"priority\": 20000, \"cookie\": 12249790986447749121,"
                   " \"idle_timeout\": 30, \"hard_timeout\": 60, \"match\": {\"in_port\": 1,"
                   " \"dl_vlan\": \"4096/4096\"}, \"instructions\": [{\"instruction_type\":"
                   " \"apply_actions\", \"actions\": [{\"action_type\": \"pop_vlan\"},"
                   " {\"action_type\": \"push_vlan\", \"tag_type\": \"s\"}, {\"action_type\":"
                   " \"set_vlan\", \"vlan_id\": 42}, {\"action_type\": \"set_queue\","
                   " \"queue_id\": 2}, {\"action_type\": \"output\", \"port\": 2}]},"
                   " {\"instruction_type\": \"goto_table\", \"table_id\": 3}]}",
                   OFPFC_ADD, 0x12);
    emit_json_flow("flow_mod_ip",
                   "{\"priority\": 100, \"match\": {\"dl_src\": \"aa:bb:cc:dd:ee:ff\","
                   " \"dl_dst\": \"01:00:00:00:00:00/01:00:00:00:00:00\", \"dl_vlan\": 0,"
                   " \"dl_type\": 2048, \"nw_proto\": 6, \"nw_src\": \"10.0.0.0/8\", \"nw_dst\":"
                   " \"10.0.0.2\", \"tp_src\": 1024, \"tp_dst\": 80, \"ip_dscp\": 10,"
                   " \"metadata\": \"1/1\"}, \"instructions\": [{\"instruction_type\":"
                   " \"write_metadata\", \"metadata\": 7, \"metadata_mask\": 255},"
                   " {\"instruction_type\": \"meter\", \"meter_id\": 1}, {\"instruction_type\":"
                   " \"write_actions\", \"actions\": [{\"action_type\": \"output\", \"port\":"
                   " 1}]}]}", OFPFC_ADD, 0x13);
    emit_json_flow("flow_mod_ipv6",
                   "{\"match\": {\"dl_type\": 34525, \"ipv6_src\": \"2001:db8::1\","
                   " \"ipv6_dst\": \"2001:db8::/32\", \"nw_proto\": 17, \"udp_dst\": 53},"
                   " \"instructions\": [{\"instruction_type\": \"clear_actions\"}]}",
                   OFPFC_ADD, 0x14);
    emit_json_flow("flow_mod_delete",
                   "{\"cookie\": 12249790986447749121, \"cookie_mask\": 18446744073709551615}",
                   OFPFC_DELETE, 0x15);
    emit_json_flow("flow_mod_delete_strict",
                   "{\"table_id\": 2, \"priority\": 10, \"match\": {\"in_port\": 5}}",
                   OFPFC_DELETE_STRICT, 0x16);
    free(fsr);
    free(po);
    free(fs);
    free(pi);
}

/* ---- decode: fields as JSON ---- */
static struct json_object *hexstr(const uint8_t *p, size_t n)
{
    char *s = malloc(2 * n + 1);
    struct json_object *j;
    size_t i;

    if (!s)
        return NULL;
    for (i = 0; i < n; i++)
        sprintf(s + 2 * i, "%02x", p[i]);
    s[2 * n] = '\0';
    j = json_object_new_string(s);
    free(s);
    return j;
}

#define ADD(obj, key, val) json_object_object_add(obj, key, val)
#define U(v) json_object_new_uint64((uint64_t)(v))

static struct json_object *oxm_json(const struct ofp_oxm *o)
{
    struct json_object *a = json_object_new_array();
    json_object_array_add(a, U(o->field));
    json_object_array_add(a, json_object_new_boolean(o->hasmask));
    json_object_array_add(a, hexstr(o->data, o->len));
    return a;
}

static struct json_object *match_json(const struct ofp_match *m)
{
    struct json_object *a = json_object_new_array();
    unsigned i;
    for (i = 0; i < m->n; i++)
        json_object_array_add(a, oxm_json(&m->oxm[i]));
    return a;
}

static struct json_object *actions_json(const struct ofp_action *acts, unsigned n)
{
    struct json_object *list = json_object_new_array();
    unsigned i;

    for (i = 0; i < n; i++) {
        const struct ofp_action *a = &acts[i];
        struct json_object *d = json_object_new_object();
        ADD(d, "type", U(a->type));
        switch (a->type) {
        case OFPAT_OUTPUT:
            ADD(d, "port", U(a->port));
            ADD(d, "max_len", U(a->max_len));
            break;
        case OFPAT_PUSH_VLAN:
            ADD(d, "ethertype", U(a->ethertype));
            break;
        case OFPAT_SET_QUEUE:
            ADD(d, "queue_id", U(a->queue_id));
            break;
        case OFPAT_GROUP:
            ADD(d, "group_id", U(a->group_id));
            break;
        case OFPAT_SET_FIELD:
            ADD(d, "field", oxm_json(&a->field));
            break;
        }
        json_object_array_add(list, d);
    }
    return list;
}

static struct json_object *instructions_json(const struct ofp_instructions *s)
{
    struct json_object *list = json_object_new_array();
    unsigned i;

    for (i = 0; i < s->n; i++) {
        const struct ofp_instruction *in = &s->ins[i];
        struct json_object *d = json_object_new_object();
        ADD(d, "type", U(in->type));
        switch (in->type) {
        case OFPIT_GOTO_TABLE:
            ADD(d, "table_id", U(in->table_id));
            break;
        case OFPIT_METER:
            ADD(d, "meter_id", U(in->meter_id));
            break;
        case OFPIT_WRITE_METADATA:
            ADD(d, "metadata", U(in->metadata));
            ADD(d, "metadata_mask", U(in->metadata_mask));
            break;
        default:
            ADD(d, "actions", actions_json(s->actions + in->first, in->n_actions));
        }
        json_object_array_add(list, d);
    }
    return list;
}

static struct json_object *port_json(const struct ofp_port *p)
{
    struct json_object *d = json_object_new_object();
    ADD(d, "port_no", U(p->port_no));
    ADD(d, "hw_addr", hexstr(p->hw_addr, 6));
    ADD(d, "name", json_object_new_string(p->name));
    ADD(d, "config", U(p->config));
    ADD(d, "state", U(p->state));
    ADD(d, "curr", U(p->curr));
    ADD(d, "advertised", U(p->advertised));
    ADD(d, "supported", U(p->supported));
    ADD(d, "peer", U(p->peer));
    ADD(d, "curr_speed", U(p->curr_speed));
    ADD(d, "max_speed", U(p->max_speed));
    ADD(d, "kytos", ofp_port_to_json(p));
    return d;
}

static struct json_object *flow_stats_json(const struct ofp_flow_stats *fs)
{
    struct json_object *d = json_object_new_object();
    ADD(d, "table_id", U(fs->table_id));
    ADD(d, "duration_sec", U(fs->duration_sec));
    ADD(d, "duration_nsec", U(fs->duration_nsec));
    ADD(d, "priority", U(fs->priority));
    ADD(d, "idle_timeout", U(fs->idle_timeout));
    ADD(d, "hard_timeout", U(fs->hard_timeout));
    ADD(d, "flags", U(fs->flags));
    ADD(d, "cookie", U(fs->cookie));
    ADD(d, "packet_count", U(fs->packet_count));
    ADD(d, "byte_count", U(fs->byte_count));
    ADD(d, "match", match_json(&fs->match));
    ADD(d, "instructions", instructions_json(&fs->instructions));
    ADD(d, "kytos", ofp_flow_stats_to_json(fs, NULL));
    return d;
}

static int decode_multipart(const uint8_t *msg, size_t len, struct json_object *d)
{
    struct ofp_multipart mp;
    struct json_object *list = json_object_new_array();
    size_t off = 0;
    int rc;

    ADD(d, "entries", list);
    if ((rc = ofp_multipart_decode(msg, len, OFPT_MULTIPART_REPLY, &mp, err, sizeof err)))
        return rc;
    ADD(d, "mp_type", U(mp.type));
    ADD(d, "flags", U(mp.flags));
    if (mp.type == OFPMP_FLOW) {
        struct ofp_flow_stats *fs = malloc(sizeof *fs);
        while ((rc = ofp_flow_stats_next(mp.body, mp.body_len, &off, fs, err, sizeof err)) == 1)
            json_object_array_add(list, flow_stats_json(fs));
        free(fs);
    } else if (mp.type == OFPMP_DESC) {
        struct ofp_desc desc;
        struct json_object *e;
        if ((rc = ofp_desc_decode(mp.body, mp.body_len, &desc, err, sizeof err)))
            return rc;
        e = json_object_new_object();
        ADD(e, "mfr_desc", json_object_new_string(desc.mfr_desc));
        ADD(e, "hw_desc", json_object_new_string(desc.hw_desc));
        ADD(e, "sw_desc", json_object_new_string(desc.sw_desc));
        ADD(e, "serial_num", json_object_new_string(desc.serial_num));
        ADD(e, "dp_desc", json_object_new_string(desc.dp_desc));
        json_object_array_add(list, e);
    } else if (mp.type == OFPMP_PORT_DESC) {
        struct ofp_port p;
        while ((rc = ofp_port_desc_next(mp.body, mp.body_len, &off, &p, err, sizeof err)) == 1)
            json_object_array_add(list, port_json(&p));
    }
    return rc < 0 ? rc : 0;
}

static struct json_object *decode_one(const uint8_t *msg, size_t len)
{
    struct json_object *d = json_object_new_object();
    struct ofp_header h;
    int rc = ofp_frame_next(msg, len);

    if (rc != (int)len) {
        snprintf(err, sizeof err, "framing gave %d for %zu bytes", rc, len);
        rc = -1;
        goto out;
    }
    if ((rc = ofp_header_decode(msg, len, &h, err, sizeof err)))
        goto out;
    ADD(d, "type", json_object_new_string(ofp_type_name(h.type)));
    ADD(d, "xid", U(h.xid));
    switch (h.type) {
    case OFPT_HELLO: {
        struct ofp_hello he;
        if ((rc = ofp_hello_decode(msg, len, &he, err, sizeof err)))
            break;
        ADD(d, "version", U(he.version));
        ADD(d, "bitmap", U(he.has_bitmap ? he.bitmap : 0));
        ADD(d, "negotiated", U(ofp_hello_negotiate(&he)));
        break;
    }
    case OFPT_ECHO_REQUEST:
    case OFPT_ECHO_REPLY: {
        const uint8_t *data;
        size_t dlen;
        uint32_t xid;
        if ((rc = ofp_echo_decode(msg, len, h.type, &xid, &data, &dlen, err, sizeof err)))
            break;
        ADD(d, "data", hexstr(data, dlen));
        break;
    }
    case OFPT_ERROR: {
        struct ofp_error_msg e;
        if ((rc = ofp_error_decode(msg, len, &e, err, sizeof err)))
            break;
        ADD(d, "error_type", U(e.type));
        ADD(d, "code", U(e.code));
        ADD(d, "data", hexstr(e.data, e.data_len));
        break;
    }
    case OFPT_FEATURES_REPLY: {
        struct ofp_features f;
        char dpid[24];
        if ((rc = ofp_features_reply_decode(msg, len, &f, err, sizeof err)))
            break;
        ofp_dpid_format(f.datapath_id, dpid);
        ADD(d, "datapath_id", json_object_new_string(dpid));
        ADD(d, "n_buffers", U(f.n_buffers));
        ADD(d, "n_tables", U(f.n_tables));
        ADD(d, "auxiliary_id", U(f.auxiliary_id));
        ADD(d, "capabilities", U(f.capabilities));
        ADD(d, "reserved", U(f.reserved));
        break;
    }
    case OFPT_PORT_STATUS: {
        struct ofp_port_status ps;
        if ((rc = ofp_port_status_decode(msg, len, &ps, err, sizeof err)))
            break;
        ADD(d, "reason", U(ps.reason));
        ADD(d, "desc", port_json(&ps.desc));
        break;
    }
    case OFPT_PACKET_IN: {
        struct ofp_packet_in *pi = malloc(sizeof *pi);
        if (!(rc = ofp_packet_in_decode(msg, len, pi, err, sizeof err))) {
            ADD(d, "buffer_id", U(pi->buffer_id));
            ADD(d, "total_len", U(pi->total_len));
            ADD(d, "reason", U(pi->reason));
            ADD(d, "table_id", U(pi->table_id));
            ADD(d, "cookie", U(pi->cookie));
            ADD(d, "match", match_json(&pi->match));
            ADD(d, "in_port", U(ofp_packet_in_port(pi)));
            ADD(d, "data", hexstr(pi->data, pi->data_len));
        }
        free(pi);
        break;
    }
    case OFPT_PACKET_OUT: {
        struct ofp_packet_out *po = malloc(sizeof *po);
        if (!(rc = ofp_packet_out_decode(msg, len, po, err, sizeof err))) {
            ADD(d, "buffer_id", U(po->buffer_id));
            ADD(d, "in_port", U(po->in_port));
            ADD(d, "actions", actions_json(po->actions, po->n_actions));
            ADD(d, "data", hexstr(po->data, po->data_len));
        }
        free(po);
        break;
    }
    case OFPT_FLOW_MOD: {
        struct ofp_flow_mod *fm = malloc(sizeof *fm);
        if (!(rc = ofp_flow_mod_decode(msg, len, fm, err, sizeof err))) {
            ADD(d, "cookie", U(fm->cookie));
            ADD(d, "cookie_mask", U(fm->cookie_mask));
            ADD(d, "table_id", U(fm->table_id));
            ADD(d, "command", U(fm->command));
            ADD(d, "idle_timeout", U(fm->idle_timeout));
            ADD(d, "hard_timeout", U(fm->hard_timeout));
            ADD(d, "priority", U(fm->priority));
            ADD(d, "buffer_id", U(fm->buffer_id));
            ADD(d, "out_port", U(fm->out_port));
            ADD(d, "out_group", U(fm->out_group));
            ADD(d, "flags", U(fm->flags));
            ADD(d, "match", match_json(&fm->match));
            ADD(d, "instructions", instructions_json(&fm->instructions));
            ADD(d, "kytos_match", ofp_match_to_json(&fm->match));
        }
        free(fm);
        break;
    }
    case OFPT_MULTIPART_REPLY:
        rc = decode_multipart(msg, len, d);
        break;
    case OFPT_FLOW_REMOVED: {
        struct ofp_flow_removed *fr = malloc(sizeof *fr);
        if (!(rc = ofp_flow_removed_decode(msg, len, fr, err, sizeof err))) {
            ADD(d, "cookie", U(fr->cookie));
            ADD(d, "priority", U(fr->priority));
            ADD(d, "reason", U(fr->reason));
            ADD(d, "table_id", U(fr->table_id));
            ADD(d, "duration_sec", U(fr->duration_sec));
            ADD(d, "duration_nsec", U(fr->duration_nsec));
            ADD(d, "idle_timeout", U(fr->idle_timeout));
            ADD(d, "hard_timeout", U(fr->hard_timeout));
            ADD(d, "packet_count", U(fr->packet_count));
            ADD(d, "byte_count", U(fr->byte_count));
            ADD(d, "match", match_json(&fr->match));
        }
        free(fr);
        break;
    }
    default:
        snprintf(err, sizeof err, "no decoder for %s", ofp_type_name(h.type));
        rc = -1;
    }
out:
    if (rc) {
        json_object_put(d);
        d = json_object_new_object();
        ADD(d, "error", json_object_new_string(err));
    }
    return d;
}

static void do_decode(void)
{
    static char line[2 * 70000 + 4];
    static uint8_t msg[70000];

    while (fgets(line, sizeof line, stdin)) {
        size_t n = 0, i;
        struct json_object *d;
        for (i = 0; line[i] && line[i] != '\n' && n < sizeof msg; i += 2) {
            unsigned v;
            if (sscanf(line + i, "%2x", &v) != 1)
                break;
            msg[n++] = (uint8_t)v;
        }
        d = decode_one(msg, n);
        printf("%s\n", json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN));
        json_object_put(d);
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "encode") == 0)
        do_encode();
    else if (argc == 2 && strcmp(argv[1], "decode") == 0)
        do_decode();
    else {
        fprintf(stderr, "usage: ofp_hex encode|decode\n");
        return 2;
    }
    return 0;
}
