/* plugins/of_core/ofp/ofp_match.c - OXM fields and the ofp_match
 * structure (type 1, length = 4 + TLVs, zero-padded to 8). */
#include "ofp_int.h"

#include <string.h>

/* Value sizes of the OPENFLOW_BASIC fields 0..39 (OpenFlow 1.3.5 7.2.3.7). */
static const uint8_t field_size[40] = {
    4, 4, 8, 6, 6, 2, 2, 1, 1, 1,     /* in_port .. ip_ecn */
    1, 4, 4, 2, 2, 2, 2, 2, 2, 1,     /* ip_proto .. icmpv4_type */
    1, 2, 4, 4, 6, 6, 16, 16, 4, 1,   /* icmpv4_code .. icmpv6_type */
    1, 16, 6, 6, 4, 1, 1, 3, 8, 2,    /* icmpv6_code .. ipv6_exthdr */
};

unsigned ofp_oxm_field_size(uint8_t field)
{
    return field < sizeof field_size ? field_size[field] : 0;
}

static uint64_t be_uint(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    unsigned i;

    if (n > 8)
        n = 8;
    for (i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

uint64_t ofp_oxm_value_uint(const struct ofp_oxm *o)
{
    return be_uint(o->data, ofp_oxm_value_len(o));
}

uint64_t ofp_oxm_mask_uint(const struct ofp_oxm *o)
{
    unsigned n = ofp_oxm_value_len(o);
    return o->hasmask ? be_uint(o->data + n, n) : 0;
}

int ofp_oxm_set(struct ofp_oxm *o, uint8_t field, const void *value, const void *mask,
                size_t vlen, char *err, size_t errlen)
{
    unsigned want = ofp_oxm_field_size(field);

    if (want == 0)
        return ofp_fail(err, errlen, OFP_E_INVAL, "OXM field %u is not an OpenFlow 1.3 field",
                        field);
    if (vlen != want)
        return ofp_fail(err, errlen, OFP_E_INVAL, "OXM field %u takes %u bytes, not %zu", field,
                        want, vlen);
    memset(o, 0, sizeof *o);
    o->oxm_class = OFPXMC_OPENFLOW_BASIC;
    o->field = field;
    o->hasmask = mask != NULL;
    o->len = (uint8_t)(mask ? 2 * vlen : vlen);
    memcpy(o->data, value, vlen);
    if (mask)
        memcpy(o->data + vlen, mask, vlen);
    return 0;
}

int ofp_oxm_set_uint(struct ofp_oxm *o, uint8_t field, uint64_t value, const uint64_t *mask,
                     char *err, size_t errlen)
{
    uint8_t v[8], m[8];
    unsigned n = ofp_oxm_field_size(field), i;

    if (n == 0 || n > 8)
        return ofp_fail(err, errlen, OFP_E_INVAL, "OXM field %u is not an integer field", field);
    if (n < 8 && (value >> (8 * n) || (mask && *mask >> (8 * n))))
        return ofp_fail(err, errlen, OFP_E_INVAL, "OXM field %u: value over %u bytes", field, n);
    for (i = 0; i < n; i++) {
        v[i] = (uint8_t)(value >> (8 * (n - 1 - i)));
        m[i] = mask ? (uint8_t)(*mask >> (8 * (n - 1 - i))) : 0;
    }
    return ofp_oxm_set(o, field, v, mask ? m : NULL, n, err, errlen);
}

int ofp_match_add(struct ofp_match *m, uint8_t field, const void *value, const void *mask,
                  size_t vlen, char *err, size_t errlen)
{
    int rc;

    if (m->n >= OFP_MAX_OXM)
        return ofp_fail(err, errlen, OFP_E_LIMIT, "match: more than %d fields", OFP_MAX_OXM);
    rc = ofp_oxm_set(&m->oxm[m->n], field, value, mask, vlen, err, errlen);
    if (rc == 0)
        m->n++;
    return rc;
}

int ofp_match_add_uint(struct ofp_match *m, uint8_t field, uint64_t value, const uint64_t *mask,
                       char *err, size_t errlen)
{
    int rc;

    if (m->n >= OFP_MAX_OXM)
        return ofp_fail(err, errlen, OFP_E_LIMIT, "match: more than %d fields", OFP_MAX_OXM);
    rc = ofp_oxm_set_uint(&m->oxm[m->n], field, value, mask, err, errlen);
    if (rc == 0)
        m->n++;
    return rc;
}

const struct ofp_oxm *ofp_match_find(const struct ofp_match *m, uint8_t field)
{
    unsigned i;

    for (i = 0; i < m->n; i++)
        if (m->oxm[i].oxm_class == OFPXMC_OPENFLOW_BASIC && m->oxm[i].field == field)
            return &m->oxm[i];
    return NULL;
}

int ofp_match_encode(struct ofp_buf *b, const struct ofp_match *m, char *err, size_t errlen)
{
    size_t start = b->len, tlvs = 0;
    unsigned i;

    if (m->n > OFP_MAX_OXM)
        return ofp_fail(err, errlen, OFP_E_LIMIT, "match: %u fields", m->n);
    for (i = 0; i < m->n; i++) {
        if (m->oxm[i].len > OFP_OXM_MAX_PAYLOAD)
            return ofp_fail(err, errlen, OFP_E_INVAL, "match field %u: payload %u bytes", i,
                            m->oxm[i].len);
        tlvs += 4u + m->oxm[i].len;
    }
    ofp_put16(b, 1);   /* OFPMT_OXM */
    ofp_put16(b, (uint16_t)(4 + tlvs));   /* at most 40 * 36 + 4 */
    for (i = 0; i < m->n; i++) {
        const struct ofp_oxm *o = &m->oxm[i];
        ofp_put16(b, o->oxm_class);
        ofp_put8(b, (uint8_t)((o->field & 0x7f) << 1 | (o->hasmask ? 1 : 0)));
        ofp_put8(b, o->len);
        ofp_put(b, o->data, o->len);
    }
    ofp_put_zeros(b, (8 - (b->len - start) % 8) % 8);
    return b->oom ? ofp_fail(err, errlen, OFP_E_NOMEM, "out of memory") : 0;
}

int ofp_oxm_decode(const uint8_t *p, size_t avail, struct ofp_oxm *o, size_t *used, char *err,
                   size_t errlen)
{
    uint16_t cls;
    uint8_t fb, len;

    if (avail < 4)
        return ofp_fail(err, errlen, OFP_E_SHORT, "OXM header needs 4 bytes, %zu left", avail);
    cls = ofp_rd16(p);
    fb = p[2];
    len = p[3];
    if (len > avail - 4)
        return ofp_fail(err, errlen, OFP_E_LENGTH, "OXM class 0x%04x field %u: length %u overruns"
                        " the %zu bytes left", cls, fb >> 1, len, avail - 4);
    *used = 4u + len;
    if (cls == OFPXMC_OPENFLOW_BASIC) {
        unsigned want = ofp_oxm_field_size(fb >> 1);
        if (want && len != (fb & 1 ? 2 * want : want))
            return ofp_fail(err, errlen, OFP_E_LENGTH, "OXM field %u%s: length %u, not %u",
                            fb >> 1, fb & 1 ? " (masked)" : "", len, fb & 1 ? 2 * want : want);
    }
    if (len > OFP_OXM_MAX_PAYLOAD || (fb & 1 && len % 2))
        return 0;   /* a foreign field we cannot represent: skipped */
    memset(o, 0, sizeof *o);
    o->oxm_class = cls;
    o->field = fb >> 1;
    o->hasmask = fb & 1;
    o->len = len;
    memcpy(o->data, p + 4, len);
    return 1;
}

int ofp_match_decode(const uint8_t *p, size_t avail, struct ofp_match *m, size_t *used,
                     char *err, size_t errlen)
{
    size_t mlen, padded, off = 4;
    uint16_t type;

    m->n = 0;
    m->n_skipped = 0;
    if (avail < 4)
        return ofp_fail(err, errlen, OFP_E_SHORT, "match header needs 4 bytes, %zu left", avail);
    type = ofp_rd16(p);
    mlen = ofp_rd16(p + 2);
    if (type != 1)
        return ofp_fail(err, errlen, OFP_E_TYPE, "match type %u, not 1 (OXM)", type);
    if (mlen < 4)
        return ofp_fail(err, errlen, OFP_E_LENGTH, "match length %zu, under 4", mlen);
    padded = (mlen + 7) / 8 * 8;
    if (padded > avail)
        return ofp_fail(err, errlen, OFP_E_LENGTH,
                        "match length %zu (%zu padded) overruns the %zu bytes left", mlen, padded,
                        avail);
    while (off < mlen) {
        size_t n;
        int rc;
        if (m->n >= OFP_MAX_OXM)
            return ofp_fail(err, errlen, OFP_E_LIMIT, "match: more than %d fields", OFP_MAX_OXM);
        rc = ofp_oxm_decode(p + off, mlen - off, &m->oxm[m->n], &n, err, errlen);
        if (rc < 0)
            return rc;
        if (rc == 1)
            m->n++;
        else
            m->n_skipped++;
        off += n;   /* n >= 4: always progresses */
    }
    *used = padded;
    return 0;
}
