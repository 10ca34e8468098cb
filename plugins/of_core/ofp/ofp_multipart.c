/* plugins/of_core/ofp/ofp_multipart.c - MULTIPART request/reply framing
 * (type u16, flags u16, pad 4, body), the FLOW stats request and the FLOW
 * stats reply entries (48 fixed bytes + match + instructions). */
#include "ofp_int.h"

#include <string.h>

int ofp_multipart_request_encode(struct ofp_buf *b, uint32_t xid, uint16_t type, uint16_t flags,
                                 const void *body, size_t body_len, char *err, size_t errlen)
{
    size_t start;

    if (body_len > OFP_MAX_MSG_LEN - 16)
        return ofp_fail(err, errlen, OFP_E_TOOBIG, "multipart request body of %zu bytes",
                        body_len);
    start = ofp_msg_begin(b, OFPT_MULTIPART_REQUEST, xid);
    ofp_put16(b, type);
    ofp_put16(b, flags);
    ofp_put_zeros(b, 4);
    ofp_put(b, body, body_len);
    return ofp_msg_finish(b, start, err, errlen);
}

void ofp_flow_stats_request_init(struct ofp_flow_stats_request *r)
{
    memset(r, 0, sizeof *r);
    r->table_id = OFPTT_ALL;
    r->out_port = OFPP_ANY;
    r->out_group = OFPG_ANY;
}

int ofp_flow_stats_request_encode(struct ofp_buf *b, const struct ofp_flow_stats_request *r,
                                  char *err, size_t errlen)
{
    size_t start = ofp_msg_begin(b, OFPT_MULTIPART_REQUEST, r->xid);
    int rc;

    ofp_put16(b, OFPMP_FLOW);
    ofp_put16(b, 0);
    ofp_put_zeros(b, 4);
    ofp_put8(b, r->table_id);
    ofp_put_zeros(b, 3);
    ofp_put32(b, r->out_port);
    ofp_put32(b, r->out_group);
    ofp_put_zeros(b, 4);
    ofp_put64(b, r->cookie);
    ofp_put64(b, r->cookie_mask);
    rc = ofp_match_encode(b, &r->match, err, errlen);
    if (rc) {
        if (!b->oom)
            b->len = start;
        return rc;
    }
    return ofp_msg_finish(b, start, err, errlen);
}

int ofp_multipart_decode(const uint8_t *msg, size_t len, uint8_t type, struct ofp_multipart *mp,
                         char *err, size_t errlen)
{
    struct ofp_header h;
    int rc;

    if (type != OFPT_MULTIPART_REQUEST && type != OFPT_MULTIPART_REPLY)
        return ofp_fail(err, errlen, OFP_E_TYPE, "multipart: type %u", type);
    rc = ofp_msg_check(msg, len, type, 16, &h, err, errlen);
    if (rc)
        return rc;
    mp->xid = h.xid;
    mp->type = ofp_rd16(msg + 8);
    mp->flags = ofp_rd16(msg + 10);
    mp->body = msg + 16;
    mp->body_len = len - 16;
    return 0;
}

int ofp_multipart_reply_begin(struct ofp_buf *b, uint32_t xid, uint16_t type, uint16_t flags,
                              size_t *start)
{
    *start = ofp_msg_begin(b, OFPT_MULTIPART_REPLY, xid);
    ofp_put16(b, type);
    ofp_put16(b, flags);
    ofp_put_zeros(b, 4);
    return b->oom ? OFP_E_NOMEM : 0;
}

int ofp_flow_stats_encode(struct ofp_buf *b, const struct ofp_flow_stats *fs, char *err,
                          size_t errlen)
{
    size_t start = b->len;
    int rc;

    ofp_put16(b, 0);
    ofp_put8(b, fs->table_id);
    ofp_put8(b, 0);
    ofp_put32(b, fs->duration_sec);
    ofp_put32(b, fs->duration_nsec);
    ofp_put16(b, fs->priority);
    ofp_put16(b, fs->idle_timeout);
    ofp_put16(b, fs->hard_timeout);
    ofp_put16(b, fs->flags);
    ofp_put_zeros(b, 4);
    ofp_put64(b, fs->cookie);
    ofp_put64(b, fs->packet_count);
    ofp_put64(b, fs->byte_count);
    rc = ofp_match_encode(b, &fs->match, err, errlen);
    if (rc == 0)
        rc = ofp_instructions_encode(b, &fs->instructions, err, errlen);
    if (rc == 0 && b->len - start > 0xfff8)
        rc = ofp_fail(err, errlen, OFP_E_TOOBIG, "flow stats entry over 65535 bytes");
    if (rc) {
        if (!b->oom)
            b->len = start;
        return rc;
    }
    ofp_patch16(b, start, (uint16_t)(b->len - start));
    return b->oom ? ofp_fail(err, errlen, OFP_E_NOMEM, "out of memory") : 0;
}

int ofp_flow_stats_next(const uint8_t *body, size_t len, size_t *off, struct ofp_flow_stats *fs,
                        char *err, size_t errlen)
{
    const uint8_t *p;
    size_t elen, used;
    int rc;

    if (*off >= len)
        return 0;
    if (len - *off < 2)
        return ofp_fail(err, errlen, OFP_E_SHORT, "flow stats: %zu stray bytes at offset %zu",
                        len - *off, *off);
    p = body + *off;
    elen = ofp_rd16(p);
    /* 48 fixed bytes + at least the empty 8-byte match */
    if (elen < 56 || elen % 8 || elen > len - *off)
        return ofp_fail(err, errlen, OFP_E_LENGTH,
                        "flow stats entry at offset %zu: length %zu (needs a multiple of 8 in"
                        " 56..%zu)", *off, elen, len - *off);
    fs->table_id = p[2];
    fs->duration_sec = ofp_rd32(p + 4);
    fs->duration_nsec = ofp_rd32(p + 8);
    fs->priority = ofp_rd16(p + 12);
    fs->idle_timeout = ofp_rd16(p + 14);
    fs->hard_timeout = ofp_rd16(p + 16);
    fs->flags = ofp_rd16(p + 18);
    fs->cookie = ofp_rd64(p + 24);
    fs->packet_count = ofp_rd64(p + 32);
    fs->byte_count = ofp_rd64(p + 40);
    rc = ofp_match_decode(p + 48, elen - 48, &fs->match, &used, err, errlen);
    if (rc)
        return rc;
    rc = ofp_instructions_decode(p + 48 + used, elen - 48 - used, &fs->instructions, err,
                                 errlen);
    if (rc)
        return rc;
    *off += elen;
    return 1;
}
