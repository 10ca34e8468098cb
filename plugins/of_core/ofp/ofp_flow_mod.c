/* plugins/of_core/ofp/ofp_flow_mod.c - FLOW_MOD: 48-byte fixed part (with
 * the header), ofp_match, instructions. */
#include "ofp_int.h"

#include <string.h>

void ofp_flow_mod_init(struct ofp_flow_mod *fm)
{
    memset(fm, 0, sizeof *fm);
    fm->command = OFPFC_ADD;
    fm->priority = 0x8000;
    fm->buffer_id = OFP_NO_BUFFER;
    fm->out_port = OFPP_ANY;
    fm->out_group = OFPG_ANY;
    fm->flags = OFPFF_SEND_FLOW_REM;
}

int ofp_flow_mod_encode(struct ofp_buf *b, const struct ofp_flow_mod *fm, char *err,
                        size_t errlen)
{
    size_t start = ofp_msg_begin(b, OFPT_FLOW_MOD, fm->xid);
    int rc;

    ofp_put64(b, fm->cookie);
    ofp_put64(b, fm->cookie_mask);
    ofp_put8(b, fm->table_id);
    ofp_put8(b, fm->command);
    ofp_put16(b, fm->idle_timeout);
    ofp_put16(b, fm->hard_timeout);
    ofp_put16(b, fm->priority);
    ofp_put32(b, fm->buffer_id);
    ofp_put32(b, fm->out_port);
    ofp_put32(b, fm->out_group);
    ofp_put16(b, fm->flags);
    ofp_put_zeros(b, 2);
    rc = ofp_match_encode(b, &fm->match, err, errlen);
    if (rc == 0)
        rc = ofp_instructions_encode(b, &fm->instructions, err, errlen);
    if (rc == 0)
        return ofp_msg_finish(b, start, err, errlen);
    if (!b->oom)
        b->len = start;
    return rc;
}

int ofp_flow_mod_decode(const uint8_t *msg, size_t len, struct ofp_flow_mod *fm, char *err,
                        size_t errlen)
{
    struct ofp_header h;
    size_t used;
    int rc = ofp_msg_check(msg, len, OFPT_FLOW_MOD, 56, &h, err, errlen);

    if (rc)
        return rc;
    fm->xid = h.xid;
    fm->cookie = ofp_rd64(msg + 8);
    fm->cookie_mask = ofp_rd64(msg + 16);
    fm->table_id = msg[24];
    fm->command = msg[25];
    fm->idle_timeout = ofp_rd16(msg + 26);
    fm->hard_timeout = ofp_rd16(msg + 28);
    fm->priority = ofp_rd16(msg + 30);
    fm->buffer_id = ofp_rd32(msg + 32);
    fm->out_port = ofp_rd32(msg + 36);
    fm->out_group = ofp_rd32(msg + 40);
    fm->flags = ofp_rd16(msg + 44);
    rc = ofp_match_decode(msg + 48, len - 48, &fm->match, &used, err, errlen);
    if (rc)
        return rc;
    return ofp_instructions_decode(msg + 48 + used, len - 48 - used, &fm->instructions, err,
                                   errlen);
}
