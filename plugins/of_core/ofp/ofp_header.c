/* plugins/of_core/ofp/ofp_header.c - framing, the header, message type
 * names, DPID text and the header-only messages. */
#include "ofp_int.h"

int ofp_frame_next(const uint8_t *buf, size_t len)
{
    unsigned n;

    if (len < 1)
        return 0;
    if (buf[0] < 1 || buf[0] > 6)
        return OFP_E_VERSION;
    if (len < 4)
        return 0;
    n = ofp_rd16(buf + 2);
    if (n < OFP_HEADER_LEN)
        return OFP_E_LENGTH;
    return n <= len ? (int)n : 0;
}

int ofp_header_decode(const uint8_t *msg, size_t len, struct ofp_header *h, char *err,
                      size_t errlen)
{
    if (len < OFP_HEADER_LEN)
        return ofp_fail(err, errlen, OFP_E_SHORT, "message of %zu bytes, under the 8-byte header",
                        len);
    h->version = msg[0];
    h->type = msg[1];
    h->length = ofp_rd16(msg + 2);
    h->xid = ofp_rd32(msg + 4);
    if (h->length != len)
        return ofp_fail(err, errlen, OFP_E_LENGTH, "header length %u but %zu bytes given",
                        h->length, len);
    return 0;
}

int ofp_msg_check(const uint8_t *msg, size_t len, uint8_t type, size_t min,
                  struct ofp_header *h, char *err, size_t errlen)
{
    int rc = ofp_header_decode(msg, len, h, err, errlen);

    if (rc)
        return rc;
    if (h->version != OFP_VERSION)
        return ofp_fail(err, errlen, OFP_E_VERSION, "%s: version %u, not 4 (OpenFlow 1.3)",
                        ofp_type_name(type), h->version);
    if (h->type != type)
        return ofp_fail(err, errlen, OFP_E_TYPE, "expected %s, got %s (%u)", ofp_type_name(type),
                        ofp_type_name(h->type), h->type);
    if (len < min)
        return ofp_fail(err, errlen, OFP_E_SHORT, "%s: %zu bytes, needs at least %zu",
                        ofp_type_name(type), len, min);
    return 0;
}

const char *ofp_type_name(uint8_t type)
{
    static const char *const names[] = {
        "ofpt_hello", "ofpt_error", "ofpt_echo_request", "ofpt_echo_reply",
        "ofpt_experimenter", "ofpt_features_request", "ofpt_features_reply",
        "ofpt_get_config_request", "ofpt_get_config_reply", "ofpt_set_config",
        "ofpt_packet_in", "ofpt_flow_removed", "ofpt_port_status", "ofpt_packet_out",
        "ofpt_flow_mod", "ofpt_group_mod", "ofpt_port_mod", "ofpt_table_mod",
        "ofpt_multipart_request", "ofpt_multipart_reply", "ofpt_barrier_request",
        "ofpt_barrier_reply", "ofpt_queue_get_config_request", "ofpt_queue_get_config_reply",
        "ofpt_role_request", "ofpt_role_reply", "ofpt_get_async_request",
        "ofpt_get_async_reply", "ofpt_set_async", "ofpt_meter_mod",
    };
    return type < sizeof names / sizeof names[0] ? names[type] : "ofpt_unknown";
}

void ofp_dpid_format(uint64_t dpid, char out[24])
{
    static const char hex[] = "0123456789abcdef";
    int i;

    for (i = 0; i < 8; i++) {
        uint8_t byte = (uint8_t)(dpid >> (56 - 8 * i));
        out[i * 3] = hex[byte >> 4];
        out[i * 3 + 1] = hex[byte & 15];
        out[i * 3 + 2] = i < 7 ? ':' : '\0';
    }
}

int ofp_empty_encode(struct ofp_buf *b, uint8_t type, uint32_t xid, char *err, size_t errlen)
{
    return ofp_msg_finish(b, ofp_msg_begin(b, type, xid), err, errlen);
}

int ofp_empty_decode(const uint8_t *msg, size_t len, uint8_t type, uint32_t *xid, char *err,
                     size_t errlen)
{
    struct ofp_header h;
    int rc = ofp_msg_check(msg, len, type, OFP_HEADER_LEN, &h, err, errlen);

    if (rc)
        return rc;
    if (len != OFP_HEADER_LEN)
        return ofp_fail(err, errlen, OFP_E_LENGTH, "%s: %zu bytes, has no body",
                        ofp_type_name(type), len);
    *xid = h.xid;
    return 0;
}
