/* plugins/of_core/ofp/ofp_port.c - the 64-byte ofp_port, PORT_STATUS and
 * the PORT_DESC reply body. */
#include "ofp_int.h"

#include <string.h>

void ofp_port_decode(const uint8_t *p, struct ofp_port *port)
{
    size_t i;

    memset(port, 0, sizeof *port);
    port->port_no = ofp_rd32(p);
    memcpy(port->hw_addr, p + 8, 6);
    for (i = 0; i < 16 && p[16 + i]; i++)
        port->name[i] = (char)p[16 + i];
    port->config = ofp_rd32(p + 32);
    port->state = ofp_rd32(p + 36);
    port->curr = ofp_rd32(p + 40);
    port->advertised = ofp_rd32(p + 44);
    port->supported = ofp_rd32(p + 48);
    port->peer = ofp_rd32(p + 52);
    port->curr_speed = ofp_rd32(p + 56);
    port->max_speed = ofp_rd32(p + 60);
}

int ofp_port_encode(struct ofp_buf *b, const struct ofp_port *port, char *err, size_t errlen)
{
    size_t n = strnlen(port->name, 16);

    ofp_put32(b, port->port_no);
    ofp_put_zeros(b, 4);
    ofp_put(b, port->hw_addr, 6);
    ofp_put_zeros(b, 2);
    ofp_put(b, port->name, n);
    ofp_put_zeros(b, 16 - n);
    ofp_put32(b, port->config);
    ofp_put32(b, port->state);
    ofp_put32(b, port->curr);
    ofp_put32(b, port->advertised);
    ofp_put32(b, port->supported);
    ofp_put32(b, port->peer);
    ofp_put32(b, port->curr_speed);
    ofp_put32(b, port->max_speed);
    return b->oom ? ofp_fail(err, errlen, OFP_E_NOMEM, "out of memory") : 0;
}

int ofp_port_status_encode(struct ofp_buf *b, const struct ofp_port_status *ps, char *err,
                           size_t errlen)
{
    size_t start = ofp_msg_begin(b, OFPT_PORT_STATUS, ps->xid);

    ofp_put8(b, ps->reason);
    ofp_put_zeros(b, 7);
    ofp_port_encode(b, &ps->desc, NULL, 0);
    return ofp_msg_finish(b, start, err, errlen);
}

int ofp_port_status_decode(const uint8_t *msg, size_t len, struct ofp_port_status *ps, char *err,
                           size_t errlen)
{
    struct ofp_header h;
    int rc = ofp_msg_check(msg, len, OFPT_PORT_STATUS, 80, &h, err, errlen);

    if (rc)
        return rc;
    if (len != 80)
        return ofp_fail(err, errlen, OFP_E_LENGTH, "port_status: %zu bytes, not 80", len);
    ps->xid = h.xid;
    ps->reason = msg[8];
    ofp_port_decode(msg + 16, &ps->desc);
    return 0;
}

int ofp_port_desc_next(const uint8_t *body, size_t len, size_t *off, struct ofp_port *port,
                       char *err, size_t errlen)
{
    if (*off >= len)
        return 0;
    if (len - *off < OFP_PORT_LEN)
        return ofp_fail(err, errlen, OFP_E_SHORT,
                        "port_desc: %zu bytes left at offset %zu, a port is 64", len - *off,
                        *off);
    ofp_port_decode(body + *off, port);
    *off += OFP_PORT_LEN;
    return 1;
}
