/* tests/fuzz/ofp_decode_fuzz.c - libFuzzer target: the OpenFlow 1.3
 * decoders (plugins/of_core/ofp).  The input is a byte stream cut by
 * ofp_frame_next; each message goes to its decoder, decoded flows and ports
 * to the JSON bridge, and whatever decodes and re-encodes must decode again.
 * The raw input is also fed to the match / instruction / action decoders,
 * and, when it starts with '{', to ofp_flow_mod_from_json.  Any input must
 * give a result or an error with a message, never a crash, leak or hang. */
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char err[256];

/* A failed call must explain itself. */
static int checked(int rc)
{
    if (rc < 0 && err[0] == '\0')
        __builtin_trap();
    err[0] = '\0';
    return rc;
}

static void put_json(struct json_object *j)
{
    if (j)
        json_object_to_json_string(j);
    json_object_put(j);
}

static void flow_mod(const uint8_t *msg, size_t len)
{
    struct ofp_flow_mod *fm = malloc(sizeof *fm), *again = malloc(sizeof *again);
    struct ofp_buf b;

    if (!fm || !again)
        goto out;
    if (checked(ofp_flow_mod_decode(msg, len, fm, err, sizeof err)) != 0)
        goto out;
    put_json(ofp_match_to_json(&fm->match));
    put_json(ofp_instructions_to_json(&fm->instructions));
    ofp_buf_init(&b);
    if (checked(ofp_flow_mod_encode(&b, fm, err, sizeof err)) == 0 &&
        checked(ofp_flow_mod_decode(b.data, b.len, again, err, sizeof err)) != 0)
        __builtin_trap();   /* what we encode we must decode */
    ofp_buf_free(&b);
out:
    free(fm);
    free(again);
}

static void multipart(const uint8_t *msg, size_t len, uint8_t type)
{
    struct ofp_multipart mp;
    struct ofp_flow_stats *fs;
    struct ofp_port p;
    size_t off = 0;
    int rc, n = 0;

    if (checked(ofp_multipart_decode(msg, len, type, &mp, err, sizeof err)) != 0)
        return;
    if (mp.type == OFPMP_DESC) {
        struct ofp_desc *desc = malloc(sizeof *desc);
        if (desc)
            checked(ofp_desc_decode(mp.body, mp.body_len, desc, err, sizeof err));
        free(desc);
    }
    fs = malloc(sizeof *fs);
    while (fs && (rc = checked(ofp_flow_stats_next(mp.body, mp.body_len, &off, fs, err,
                                                   sizeof err))) == 1) {
        put_json(ofp_flow_stats_to_json(fs, "00:00:00:00:00:00:00:01"));
        if (++n > 65536)
            __builtin_trap();   /* no progress */
    }
    free(fs);
    off = 0;
    while ((rc = checked(ofp_port_desc_next(mp.body, mp.body_len, &off, &p, err,
                                            sizeof err))) == 1)
        put_json(ofp_port_to_json(&p));
}

static void one_message(const uint8_t *msg, size_t len)
{
    struct ofp_header h;
    union {
        struct ofp_hello hello;
        struct ofp_error_msg error;
        struct ofp_features features;
        struct ofp_switch_config config;
        struct ofp_port_status ps;
    } u;
    const uint8_t *d;
    size_t dlen;
    uint32_t xid;

    if (checked(ofp_header_decode(msg, len, &h, err, sizeof err)) != 0)
        __builtin_trap();   /* framing said this is one whole message */
    switch (h.type) {
    case OFPT_HELLO:
        if (checked(ofp_hello_decode(msg, len, &u.hello, err, sizeof err)) == 0)
            ofp_hello_negotiate(&u.hello);
        break;
    case OFPT_ERROR:
        checked(ofp_error_decode(msg, len, &u.error, err, sizeof err));
        break;
    case OFPT_ECHO_REQUEST:
    case OFPT_ECHO_REPLY:
        checked(ofp_echo_decode(msg, len, h.type, &xid, &d, &dlen, err, sizeof err));
        break;
    case OFPT_FEATURES_REPLY:
        checked(ofp_features_reply_decode(msg, len, &u.features, err, sizeof err));
        break;
    case OFPT_SET_CONFIG:
    case OFPT_GET_CONFIG_REPLY:
        checked(ofp_switch_config_decode(msg, len, h.type, &u.config, err, sizeof err));
        break;
    case OFPT_PORT_STATUS:
        if (checked(ofp_port_status_decode(msg, len, &u.ps, err, sizeof err)) == 0)
            put_json(ofp_port_to_json(&u.ps.desc));
        break;
    case OFPT_PACKET_IN: {
        struct ofp_packet_in *pi = malloc(sizeof *pi);
        if (pi && checked(ofp_packet_in_decode(msg, len, pi, err, sizeof err)) == 0) {
            ofp_packet_in_port(pi);
            put_json(ofp_match_to_json(&pi->match));
        }
        free(pi);
        break;
    }
    case OFPT_PACKET_OUT: {
        struct ofp_packet_out *po = malloc(sizeof *po);
        if (po)
            checked(ofp_packet_out_decode(msg, len, po, err, sizeof err));
        free(po);
        break;
    }
    case OFPT_FLOW_MOD:
        flow_mod(msg, len);
        break;
    case OFPT_FLOW_REMOVED: {
        struct ofp_flow_removed *fr = malloc(sizeof *fr);
        if (fr && checked(ofp_flow_removed_decode(msg, len, fr, err, sizeof err)) == 0)
            put_json(ofp_match_to_json(&fr->match));
        free(fr);
        break;
    }
    case OFPT_MULTIPART_REQUEST:
    case OFPT_MULTIPART_REPLY:
        multipart(msg, len, h.type);
        break;
    default:
        checked(ofp_empty_decode(msg, len, h.type, &xid, err, sizeof err));
        break;
    }
}

static void raw_parts(const uint8_t *data, size_t size)
{
    struct ofp_match m;
    struct ofp_instructions *s = malloc(sizeof *s);
    struct ofp_action acts[OFP_MAX_ACTIONS];
    unsigned n;
    size_t used;

    if (checked(ofp_match_decode(data, size, &m, &used, err, sizeof err)) == 0 && used > size)
        __builtin_trap();
    if (s && checked(ofp_instructions_decode(data, size, s, err, sizeof err)) == 0)
        put_json(ofp_instructions_to_json(s));
    free(s);
    checked(ofp_actions_decode(data, size, acts, OFP_MAX_ACTIONS, &n, err, sizeof err));
}

static void from_json(const uint8_t *data, size_t size)
{
    struct json_tokener *tok = json_tokener_new_ex(32);
    struct json_object *flow;
    struct ofp_buf b;

    if (!tok)
        return;
    flow = json_tokener_parse_ex(tok, (const char *)data, (int)size);
    json_tokener_free(tok);
    if (!flow)
        return;
    ofp_buf_init(&b);
    if (checked(ofp_flow_mod_from_json(flow, OFPFC_ADD, 1, &b, err, sizeof err)) == 0) {
        if (ofp_frame_next(b.data, b.len) != (int)b.len)
            __builtin_trap();
        flow_mod(b.data, b.len);
    }
    ofp_buf_free(&b);
    json_object_put(flow);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = 0;

    if (size > 0 && data[0] == '{' && size < 65536) {
        from_json(data, size);
        return 0;
    }
    while (off < size) {
        int n = ofp_frame_next(data + off, size - off);
        if (n <= 0)
            break;
        if ((size_t)n > size - off)
            __builtin_trap();
        one_message(data + off, (size_t)n);
        off += (size_t)n;
    }
    raw_parts(data, size);
    return 0;
}
