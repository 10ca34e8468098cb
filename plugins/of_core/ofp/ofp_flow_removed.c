/* plugins/of_core/ofp/ofp_flow_removed.c - FLOW_REMOVED (cookie, priority,
 * reason, table_id, durations, timeouts, counters, match) and the DESC
 * multipart reply body (five fixed, NUL-padded strings). */
#include "ofp_int.h"

#include <string.h>

int ofp_flow_removed_encode(struct ofp_buf *b, const struct ofp_flow_removed *fr, char *err,
                            size_t errlen)
{
    size_t start = ofp_msg_begin(b, OFPT_FLOW_REMOVED, fr->xid);
    int rc;

    ofp_put64(b, fr->cookie);
    ofp_put16(b, fr->priority);
    ofp_put8(b, fr->reason);
    ofp_put8(b, fr->table_id);
    ofp_put32(b, fr->duration_sec);
    ofp_put32(b, fr->duration_nsec);
    ofp_put16(b, fr->idle_timeout);
    ofp_put16(b, fr->hard_timeout);
    ofp_put64(b, fr->packet_count);
    ofp_put64(b, fr->byte_count);
    rc = ofp_match_encode(b, &fr->match, err, errlen);
    if (rc) {
        if (!b->oom)
            b->len = start;
        return rc;
    }
    return ofp_msg_finish(b, start, err, errlen);
}

int ofp_flow_removed_decode(const uint8_t *msg, size_t len, struct ofp_flow_removed *fr,
                            char *err, size_t errlen)
{
    struct ofp_header h;
    size_t used;
    int rc = ofp_msg_check(msg, len, OFPT_FLOW_REMOVED, 56, &h, err, errlen);

    if (rc)
        return rc;
    fr->xid = h.xid;
    fr->cookie = ofp_rd64(msg + 8);
    fr->priority = ofp_rd16(msg + 16);
    fr->reason = msg[18];
    fr->table_id = msg[19];
    fr->duration_sec = ofp_rd32(msg + 20);
    fr->duration_nsec = ofp_rd32(msg + 24);
    fr->idle_timeout = ofp_rd16(msg + 28);
    fr->hard_timeout = ofp_rd16(msg + 30);
    fr->packet_count = ofp_rd64(msg + 32);
    fr->byte_count = ofp_rd64(msg + 40);
    rc = ofp_match_decode(msg + 48, len - 48, &fr->match, &used, err, errlen);
    if (rc)
        return rc;
    if (48 + used != len)
        return ofp_fail(err, errlen, OFP_E_LENGTH, "flow_removed: %zu bytes after the match",
                        len - 48 - used);
    return 0;
}

static void copy_str(char *dst, const uint8_t *src, size_t n)
{
    size_t i;
    for (i = 0; i < n && src[i]; i++)
        dst[i] = (char)src[i];
    dst[i] = '\0';
}

int ofp_desc_decode(const uint8_t *body, size_t len, struct ofp_desc *d, char *err,
                    size_t errlen)
{
    if (len != OFP_DESC_LEN)
        return ofp_fail(err, errlen, OFP_E_LENGTH, "desc: body of %zu bytes, not 1056", len);
    copy_str(d->mfr_desc, body, 256);
    copy_str(d->hw_desc, body + 256, 256);
    copy_str(d->sw_desc, body + 512, 256);
    copy_str(d->serial_num, body + 768, 32);
    copy_str(d->dp_desc, body + 800, 256);
    return 0;
}

static void put_str(struct ofp_buf *b, const char *s, size_t n)
{
    size_t l = strnlen(s, n);
    ofp_put(b, s, l);
    ofp_put_zeros(b, n - l);
}

int ofp_desc_encode(struct ofp_buf *b, const struct ofp_desc *d, char *err, size_t errlen)
{
    put_str(b, d->mfr_desc, 256);
    put_str(b, d->hw_desc, 256);
    put_str(b, d->sw_desc, 256);
    put_str(b, d->serial_num, 32);
    put_str(b, d->dp_desc, 256);
    return b->oom ? ofp_fail(err, errlen, OFP_E_NOMEM, "out of memory") : 0;
}
