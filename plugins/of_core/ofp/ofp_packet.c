/* plugins/of_core/ofp/ofp_packet.c - PACKET_IN (buffer_id, total_len,
 * reason, table_id, cookie, match, 2 pad bytes, frame) and PACKET_OUT
 * (buffer_id, in_port, actions_len, 6 pad bytes, actions, frame). */
#include "ofp_int.h"

#include <string.h>

int ofp_packet_in_encode(struct ofp_buf *b, const struct ofp_packet_in *pi, char *err,
                         size_t errlen)
{
    size_t start = ofp_msg_begin(b, OFPT_PACKET_IN, pi->xid);
    int rc;

    ofp_put32(b, pi->buffer_id);
    ofp_put16(b, pi->total_len);
    ofp_put8(b, pi->reason);
    ofp_put8(b, pi->table_id);
    ofp_put64(b, pi->cookie);
    rc = ofp_match_encode(b, &pi->match, err, errlen);
    if (rc) {
        if (!b->oom)
            b->len = start;
        return rc;
    }
    ofp_put_zeros(b, 2);
    ofp_put(b, pi->data, pi->data_len);
    return ofp_msg_finish(b, start, err, errlen);
}

int ofp_packet_in_decode(const uint8_t *msg, size_t len, struct ofp_packet_in *pi, char *err,
                         size_t errlen)
{
    struct ofp_header h;
    size_t used, at;
    int rc = ofp_msg_check(msg, len, OFPT_PACKET_IN, 32, &h, err, errlen);

    if (rc)
        return rc;
    pi->xid = h.xid;
    pi->buffer_id = ofp_rd32(msg + 8);
    pi->total_len = ofp_rd16(msg + 12);
    pi->reason = msg[14];
    pi->table_id = msg[15];
    pi->cookie = ofp_rd64(msg + 16);
    rc = ofp_match_decode(msg + 24, len - 24, &pi->match, &used, err, errlen);
    if (rc)
        return rc;
    at = 24 + used;
    if (len - at < 2)
        return ofp_fail(err, errlen, OFP_E_SHORT, "packet_in: no room for the 2 pad bytes"
                        " after the match");
    pi->data = msg + at + 2;
    pi->data_len = len - at - 2;
    return 0;
}

uint32_t ofp_packet_in_port(const struct ofp_packet_in *pi)
{
    const struct ofp_oxm *o = ofp_match_find(&pi->match, OFPXMT_IN_PORT);
    return o && !o->hasmask ? (uint32_t)ofp_oxm_value_uint(o) : OFPP_ANY;
}

int ofp_packet_out_encode(struct ofp_buf *b, const struct ofp_packet_out *po, char *err,
                          size_t errlen)
{
    size_t start, at;
    int rc;

    if (po->n_actions > OFP_MAX_ACTIONS)
        return ofp_fail(err, errlen, OFP_E_LIMIT, "packet_out: %u actions", po->n_actions);
    start = ofp_msg_begin(b, OFPT_PACKET_OUT, po->xid);
    ofp_put32(b, po->buffer_id);
    ofp_put32(b, po->in_port);
    at = b->len;
    ofp_put16(b, 0);
    ofp_put_zeros(b, 6);
    rc = ofp_actions_encode(b, po->actions, po->n_actions, err, errlen);
    if (rc) {
        if (!b->oom)
            b->len = start;
        return rc;
    }
    /* at most 64 actions of at most 40 bytes: fits in u16 */
    ofp_patch16(b, at, (uint16_t)(b->len - at - 8));
    if (po->data_len > OFP_MAX_MSG_LEN) {
        if (!b->oom)
            b->len = start;
        return ofp_fail(err, errlen, OFP_E_TOOBIG, "packet_out: %zu bytes of data",
                        po->data_len);
    }
    ofp_put(b, po->data, po->data_len);
    return ofp_msg_finish(b, start, err, errlen);
}

int ofp_packet_out_decode(const uint8_t *msg, size_t len, struct ofp_packet_out *po, char *err,
                          size_t errlen)
{
    struct ofp_header h;
    size_t alen;
    int rc = ofp_msg_check(msg, len, OFPT_PACKET_OUT, 24, &h, err, errlen);

    if (rc)
        return rc;
    po->xid = h.xid;
    po->buffer_id = ofp_rd32(msg + 8);
    po->in_port = ofp_rd32(msg + 12);
    alen = ofp_rd16(msg + 16);
    if (alen > len - 24)
        return ofp_fail(err, errlen, OFP_E_LENGTH,
                        "packet_out: actions_len %zu overruns the %zu bytes left", alen,
                        len - 24);
    rc = ofp_actions_decode(msg + 24, alen, po->actions, OFP_MAX_ACTIONS, &po->n_actions, err,
                            errlen);
    if (rc)
        return rc;
    po->data = msg + 24 + alen;
    po->data_len = len - 24 - alen;
    return 0;
}
