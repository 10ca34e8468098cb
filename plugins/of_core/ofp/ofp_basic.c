/* plugins/of_core/ofp/ofp_basic.c - the small fixed messages: HELLO (with
 * its elements), ECHO, ERROR, FEATURES_REPLY, SET_CONFIG/GET_CONFIG_REPLY. */
#include "ofp_int.h"

#include <string.h>

/* ---- HELLO ---- */
int ofp_hello_encode(struct ofp_buf *b, uint32_t xid, uint32_t bitmap, char *err, size_t errlen)
{
    size_t start = ofp_msg_begin(b, OFPT_HELLO, xid);

    if (bitmap) {
        ofp_put16(b, 1);   /* OFPHET_VERSIONBITMAP */
        ofp_put16(b, 8);
        ofp_put32(b, bitmap);
    }
    return ofp_msg_finish(b, start, err, errlen);
}

int ofp_hello_decode(const uint8_t *msg, size_t len, struct ofp_hello *hello, char *err,
                     size_t errlen)
{
    struct ofp_header h;
    size_t off = OFP_HEADER_LEN;
    int rc = ofp_header_decode(msg, len, &h, err, errlen);

    if (rc)
        return rc;
    if (h.type != OFPT_HELLO)
        return ofp_fail(err, errlen, OFP_E_TYPE, "expected ofpt_hello, got %s",
                        ofp_type_name(h.type));
    memset(hello, 0, sizeof *hello);
    hello->version = h.version;
    hello->xid = h.xid;
    while (off < len) {
        uint16_t type, elen;
        if (len - off < 4)
            return ofp_fail(err, errlen, OFP_E_SHORT,
                            "hello: %zu stray bytes after element %u", len - off,
                            hello->n_elements);
        type = ofp_rd16(msg + off);
        elen = ofp_rd16(msg + off + 2);
        if (elen < 4 || elen > len - off)
            return ofp_fail(err, errlen, OFP_E_LENGTH,
                            "hello: element %u length %u (needs 4..%zu)", hello->n_elements,
                            elen, len - off);
        if (type == 1 && elen >= 8 && !hello->has_bitmap) {
            hello->has_bitmap = 1;
            hello->bitmap = ofp_rd32(msg + off + 4);
        }
        hello->n_elements++;
        /* elements are padded to 8; a short tail of padding is tolerated */
        off += ((size_t)elen + 7) / 8 * 8;
    }
    return 0;
}

int ofp_hello_negotiate(const struct ofp_hello *h)
{
    if (h->has_bitmap)
        return (h->bitmap >> OFP_VERSION) & 1 ? OFP_VERSION : 0;
    return h->version >= OFP_VERSION ? OFP_VERSION : 0;
}

/* ---- ECHO ---- */
int ofp_echo_encode(struct ofp_buf *b, uint8_t type, uint32_t xid, const void *data, size_t dlen,
                    char *err, size_t errlen)
{
    size_t start;

    if (type != OFPT_ECHO_REQUEST && type != OFPT_ECHO_REPLY)
        return ofp_fail(err, errlen, OFP_E_TYPE, "echo: type %u is not an echo", type);
    if (dlen > OFP_MAX_MSG_LEN - OFP_HEADER_LEN)
        return ofp_fail(err, errlen, OFP_E_TOOBIG, "echo: %zu bytes of data, over 65527", dlen);
    start = ofp_msg_begin(b, type, xid);
    ofp_put(b, data, dlen);
    return ofp_msg_finish(b, start, err, errlen);
}

int ofp_echo_decode(const uint8_t *msg, size_t len, uint8_t type, uint32_t *xid,
                    const uint8_t **data, size_t *dlen, char *err, size_t errlen)
{
    struct ofp_header h;
    int rc = ofp_msg_check(msg, len, type, OFP_HEADER_LEN, &h, err, errlen);

    if (rc)
        return rc;
    *xid = h.xid;
    *data = msg + OFP_HEADER_LEN;
    *dlen = len - OFP_HEADER_LEN;
    return 0;
}

/* ---- ERROR ---- */
int ofp_error_encode(struct ofp_buf *b, const struct ofp_error_msg *e, char *err, size_t errlen)
{
    size_t start;

    if (e->data_len > OFP_MAX_MSG_LEN - 12)
        return ofp_fail(err, errlen, OFP_E_TOOBIG, "error: %zu bytes of data", e->data_len);
    start = ofp_msg_begin(b, OFPT_ERROR, e->xid);
    ofp_put16(b, e->type);
    ofp_put16(b, e->code);
    ofp_put(b, e->data, e->data_len);
    return ofp_msg_finish(b, start, err, errlen);
}

int ofp_error_decode(const uint8_t *msg, size_t len, struct ofp_error_msg *e, char *err,
                     size_t errlen)
{
    struct ofp_header h;
    int rc = ofp_msg_check(msg, len, OFPT_ERROR, 12, &h, err, errlen);

    if (rc)
        return rc;
    e->xid = h.xid;
    e->type = ofp_rd16(msg + 8);
    e->code = ofp_rd16(msg + 10);
    e->data = msg + 12;
    e->data_len = len - 12;
    return 0;
}

/* ---- FEATURES_REPLY ---- */
int ofp_features_reply_encode(struct ofp_buf *b, const struct ofp_features *f, char *err,
                              size_t errlen)
{
    size_t start = ofp_msg_begin(b, OFPT_FEATURES_REPLY, f->xid);

    ofp_put64(b, f->datapath_id);
    ofp_put32(b, f->n_buffers);
    ofp_put8(b, f->n_tables);
    ofp_put8(b, f->auxiliary_id);
    ofp_put_zeros(b, 2);
    ofp_put32(b, f->capabilities);
    ofp_put32(b, f->reserved);
    return ofp_msg_finish(b, start, err, errlen);
}

int ofp_features_reply_decode(const uint8_t *msg, size_t len, struct ofp_features *f, char *err,
                              size_t errlen)
{
    struct ofp_header h;
    int rc = ofp_msg_check(msg, len, OFPT_FEATURES_REPLY, 32, &h, err, errlen);

    if (rc)
        return rc;
    /* 1.3 has no port list here; extra bytes would be another version's layout */
    if (len != 32)
        return ofp_fail(err, errlen, OFP_E_LENGTH, "features_reply: %zu bytes, not 32", len);
    f->xid = h.xid;
    f->datapath_id = ofp_rd64(msg + 8);
    f->n_buffers = ofp_rd32(msg + 16);
    f->n_tables = msg[20];
    f->auxiliary_id = msg[21];
    f->capabilities = ofp_rd32(msg + 24);
    f->reserved = ofp_rd32(msg + 28);
    return 0;
}

/* ---- SET_CONFIG / GET_CONFIG_REPLY ---- */
static int config_type_ok(uint8_t type)
{
    return type == OFPT_SET_CONFIG || type == OFPT_GET_CONFIG_REPLY;
}

int ofp_switch_config_encode(struct ofp_buf *b, uint8_t type, const struct ofp_switch_config *c,
                             char *err, size_t errlen)
{
    size_t start;

    if (!config_type_ok(type))
        return ofp_fail(err, errlen, OFP_E_TYPE, "switch config: type %u", type);
    start = ofp_msg_begin(b, type, c->xid);
    ofp_put16(b, c->flags);
    ofp_put16(b, c->miss_send_len);
    return ofp_msg_finish(b, start, err, errlen);
}

int ofp_switch_config_decode(const uint8_t *msg, size_t len, uint8_t type,
                             struct ofp_switch_config *c, char *err, size_t errlen)
{
    struct ofp_header h;
    int rc;

    if (!config_type_ok(type))
        return ofp_fail(err, errlen, OFP_E_TYPE, "switch config: type %u", type);
    rc = ofp_msg_check(msg, len, type, 12, &h, err, errlen);
    if (rc)
        return rc;
    if (len != 12)
        return ofp_fail(err, errlen, OFP_E_LENGTH, "%s: %zu bytes, not 12", ofp_type_name(type),
                        len);
    c->xid = h.xid;
    c->flags = ofp_rd16(msg + 8);
    c->miss_send_len = ofp_rd16(msg + 10);
    return 0;
}
