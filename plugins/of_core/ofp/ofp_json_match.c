/* plugins/of_core/ofp/ofp_json_match.c - Kytos match dicts <-> OXM fields
 * (of_core match_fields.py; southbound.md 2.5 and 7.4). */
#include "ofp_json_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind {
    K_INT,        /* integer up to max */
    K_INT_M,      /* integer or "value/mask" */
    K_VLAN,       /* dl_vlan rules */
    K_MAC,        /* "aa:..:ff" or "mac/mask" */
    K_IPV4,       /* "a.b.c.d", "/prefix" or "/a.b.c.d" */
    K_IPV6,       /* "addr", "/prefix" */
    K_MAC_OR_INT, /* nd_sll, nd_tll */
    K_IPV6_OR_INT /* nd_tar */
};

/* of_core's emission order: prerequisites precede dependants (OVS needs it). */
static const struct {
    const char *name;
    uint8_t field, kind;
    uint64_t max;   /* K_INT / K_INT_M; 0 = the field's byte size */
} fields[] = {
    {"in_port", OFPXMT_IN_PORT, K_INT, 0},
    {"dl_src", OFPXMT_ETH_SRC, K_MAC, 0},
    {"dl_dst", OFPXMT_ETH_DST, K_MAC, 0},
    {"dl_vlan", OFPXMT_VLAN_VID, K_VLAN, 0},
    {"dl_vlan_pcp", OFPXMT_VLAN_PCP, K_INT, 7},
    {"dl_type", OFPXMT_ETH_TYPE, K_INT, 0},
    {"nw_proto", OFPXMT_IP_PROTO, K_INT, 0},
    {"nw_src", OFPXMT_IPV4_SRC, K_IPV4, 0},
    {"nw_dst", OFPXMT_IPV4_DST, K_IPV4, 0},
    {"tp_src", OFPXMT_TCP_SRC, K_INT, 0},
    {"tp_dst", OFPXMT_TCP_DST, K_INT, 0},
    {"in_phy_port", OFPXMT_IN_PHY_PORT, K_INT, 0},
    {"ip_dscp", OFPXMT_IP_DSCP, K_INT, 63},
    {"ip_ecn", OFPXMT_IP_ECN, K_INT, 3},
    {"udp_src", OFPXMT_UDP_SRC, K_INT, 0},
    {"udp_dst", OFPXMT_UDP_DST, K_INT, 0},
    {"sctp_src", OFPXMT_SCTP_SRC, K_INT, 0},
    {"sctp_dst", OFPXMT_SCTP_DST, K_INT, 0},
    {"icmpv4_type", OFPXMT_ICMPV4_TYPE, K_INT, 0},
    {"icmpv4_code", OFPXMT_ICMPV4_CODE, K_INT, 0},
    {"arp_op", OFPXMT_ARP_OP, K_INT, 0},
    {"arp_spa", OFPXMT_ARP_SPA, K_IPV4, 0},
    {"arp_tpa", OFPXMT_ARP_TPA, K_IPV4, 0},
    {"arp_sha", OFPXMT_ARP_SHA, K_MAC, 0},
    {"arp_tha", OFPXMT_ARP_THA, K_MAC, 0},
    {"ipv6_src", OFPXMT_IPV6_SRC, K_IPV6, 0},
    {"ipv6_dst", OFPXMT_IPV6_DST, K_IPV6, 0},
    {"ipv6_flabel", OFPXMT_IPV6_FLABEL, K_INT_M, 0xfffff},
    {"icmpv6_type", OFPXMT_ICMPV6_TYPE, K_INT, 0},
    {"icmpv6_code", OFPXMT_ICMPV6_CODE, K_INT, 0},
    {"nd_tar", OFPXMT_IPV6_ND_TARGET, K_IPV6_OR_INT, 0},
    {"nd_sll", OFPXMT_IPV6_ND_SLL, K_MAC_OR_INT, 0},
    {"nd_tll", OFPXMT_IPV6_ND_TLL, K_MAC_OR_INT, 0},
    {"mpls_lab", OFPXMT_MPLS_LABEL, K_INT, 0xfffff},
    {"mpls_tc", OFPXMT_MPLS_TC, K_INT, 7},
    {"mpls_bos", OFPXMT_MPLS_BOS, K_INT, 1},
    {"pbb_isid", OFPXMT_PBB_ISID, K_INT_M, 0xffffff},
    {"v6_hdr", OFPXMT_IPV6_EXTHDR, K_INT_M, 0x1ff},
    {"metadata", OFPXMT_METADATA, K_INT_M, UINT64_MAX},
    {"tun_id", OFPXMT_TUNNEL_ID, K_INT_M, UINT64_MAX},
};
#define N_FIELDS (sizeof fields / sizeof fields[0])

static uint64_t size_max(uint8_t field)
{
    unsigned n = ofp_oxm_field_size(field);
    return n >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * n)) - 1;
}

/* A decimal u64 of the whole [s, s+n). */
static int parse_dec(const char *s, size_t n, uint64_t *out)
{
    char tmp[24], *end;
    unsigned long long v;

    if (n == 0 || n >= sizeof tmp || s[0] < '0' || s[0] > '9' || memchr(s, '\0', n))
        return -1;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    errno = 0;
    v = strtoull(tmp, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* Split a JSON string at '/': *a, *alen the value, *m, *mlen the mask (NULL if none). */
static const char *split(struct json_object *v, size_t *alen, const char **m, size_t *mlen)
{
    const char *s = json_object_get_string(v);
    size_t n = (size_t)json_object_get_string_len(v);
    const char *slash = memchr(s, '/', n);

    *m = NULL;
    *mlen = 0;
    *alen = n;
    if (slash) {
        *alen = (size_t)(slash - s);
        *m = slash + 1;
        *mlen = n - *alen - 1;
    }
    return s;
}

static void prefix_mask(unsigned bits, uint8_t *mask, unsigned nbytes)
{
    unsigned i;
    for (i = 0; i < nbytes; i++) {
        unsigned take = bits >= 8 ? 8 : bits;
        mask[i] = (uint8_t)(take ? 0xff << (8 - take) : 0);
        bits -= take;
    }
}

static int add_int_m(struct ofp_match *m, uint8_t field, uint64_t max, struct json_object *v,
                     const char *where, char *err, size_t errlen)
{
    const char *s, *ms;
    size_t alen, mlen;
    uint64_t a, b;

    if (!json_object_is_type(v, json_type_string)) {
        if (ofp_json_uint(v, max, where, &a, err, errlen))
            return OFP_E_INVAL;
        return ofp_match_add_uint(m, field, a, NULL, err, errlen);
    }
    s = split(v, &alen, &ms, &mlen);
    if (parse_dec(s, alen, &a) || (ms && parse_dec(ms, mlen, &b)))
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s: \"%s\" is not an integer or"
                        " \"value/mask\"", where, s);
    if (a > max || (ms && b > max))
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s: \"%s\" is over %" PRIu64, where, s, max);
    return ofp_match_add_uint(m, field, a, ms ? &b : NULL, err, errlen);
}

static int add_vlan(struct ofp_match *m, struct json_object *v, const char *where, char *err,
                    size_t errlen)
{
    const char *s, *ms;
    size_t alen, mlen;
    uint64_t a, b;

    if (!json_object_is_type(v, json_type_string)) {
        if (ofp_json_uint(v, 4095, where, &a, err, errlen))
            return OFP_E_INVAL;
        /* 0 = untagged; N = tagged with VID N */
        return ofp_match_add_uint(m, OFPXMT_VLAN_VID, a ? a | OFPVID_PRESENT : 0, NULL, err,
                                  errlen);
    }
    s = split(v, &alen, &ms, &mlen);
    if (!ms || parse_dec(s, alen, &a) || parse_dec(ms, mlen, &b) || a > 8191 || b > 8191)
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s: \"%s\" is not an integer or \"vlan/mask\""
                        " (0..8191 each)", where, s);
    if (a)
        a |= OFPVID_PRESENT;
    if (b)
        b |= OFPVID_PRESENT;
    return ofp_match_add_uint(m, OFPXMT_VLAN_VID, a, &b, err, errlen);
}

static int add_mac(struct ofp_match *m, uint8_t field, struct json_object *v, int allow_int,
                   const char *where, char *err, size_t errlen)
{
    static const uint8_t ones[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    const char *s, *ms;
    size_t alen, mlen;
    uint8_t a[6], b[6];
    uint64_t u;

    if (allow_int && !json_object_is_type(v, json_type_string)) {
        if (ofp_json_uint(v, size_max(field), where, &u, err, errlen))
            return OFP_E_INVAL;
        return ofp_match_add_uint(m, field, u, NULL, err, errlen);
    }
    if (!json_object_is_type(v, json_type_string))
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s: not a MAC address string", where);
    s = split(v, &alen, &ms, &mlen);
    if (ofp_parse_mac(s, alen, a) || (ms && ofp_parse_mac(ms, mlen, b)))
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s: \"%s\" is not \"aa:bb:cc:dd:ee:ff\""
                        " or \"mac/mask\"", where, s);
    /* an all-ones mask is no mask (of_core) */
    return ofp_match_add(m, field, a, ms && memcmp(b, ones, 6) ? b : NULL, 6, err, errlen);
}

/* IPv4 (af AF_INET, 4 bytes) or IPv6 (16): "addr" or "addr/prefix"; IPv4
 * also "addr/a.b.c.d".  A full-length prefix is no mask. */
static int add_ip(struct ofp_match *m, uint8_t field, int af, struct json_object *v,
                  int allow_int, const char *where, char *err, size_t errlen)
{
    unsigned nbytes = af == AF_INET ? 4 : 16;
    const char *s, *ms;
    char tmp[64];
    size_t alen, mlen;
    uint8_t a[16], b[16];
    uint64_t u;
    int masked = 0;

    if (allow_int && !json_object_is_type(v, json_type_string)) {
        if (ofp_json_uint(v, UINT64_MAX, where, &u, err, errlen))
            return OFP_E_INVAL;
        memset(a, 0, sizeof a);
        for (unsigned i = 0; i < 8; i++)
            a[15 - i] = (uint8_t)(u >> (8 * i));
        return ofp_match_add(m, field, a, NULL, 16, err, errlen);
    }
    if (!json_object_is_type(v, json_type_string))
        return ofp_fail(err, errlen, OFP_E_INVAL, "%s: not an IP address string", where);
    s = split(v, &alen, &ms, &mlen);
    if (alen >= sizeof tmp || memchr(s, '\0', alen))
        goto bad;
    memcpy(tmp, s, alen);
    tmp[alen] = '\0';
    if (inet_pton(af, tmp, a) != 1)
        goto bad;
    if (ms) {
        if (parse_dec(ms, mlen, &u) == 0) {
            if (u > nbytes * 8)
                goto bad;
            prefix_mask((unsigned)u, b, nbytes);
            masked = u < nbytes * 8;
        } else {
            if (af != AF_INET || mlen >= sizeof tmp || memchr(ms, '\0', mlen))
                goto bad;
            memcpy(tmp, ms, mlen);
            tmp[mlen] = '\0';
            if (inet_pton(AF_INET, tmp, b) != 1)
                goto bad;
            masked = memcmp(b, "\xff\xff\xff\xff", 4) != 0;
        }
    }
    return ofp_match_add(m, field, a, masked ? b : NULL, nbytes, err, errlen);
bad:
    return ofp_fail(err, errlen, OFP_E_INVAL, "%s: \"%s\" is not an IPv%d address or"
                    " \"address/prefix\"", where, s, af == AF_INET ? 4 : 6);
}

int ofp_match_from_json(struct json_object *match, struct ofp_match *m, char *err,
                        size_t errlen)
{
    size_t i;
    char where[48];

    m->n = 0;
    m->n_skipped = 0;
    if (match == NULL || json_object_is_type(match, json_type_null))
        return 0;
    if (!json_object_is_type(match, json_type_object))
        return ofp_fail(err, errlen, OFP_E_INVAL, "match: not an object");
    for (i = 0; i < N_FIELDS; i++) {
        struct json_object *v;
        uint64_t u, max = fields[i].max ? fields[i].max : size_max(fields[i].field);
        int rc = 0;

        if (!json_object_object_get_ex(match, fields[i].name, &v) ||
            json_object_is_type(v, json_type_null))
            continue;
        snprintf(where, sizeof where, "match.%s", fields[i].name);
        switch (fields[i].kind) {
        case K_INT:
            rc = ofp_json_uint(v, max, where, &u, err, errlen);
            if (rc == 0)
                rc = ofp_match_add_uint(m, fields[i].field, u, NULL, err, errlen);
            break;
        case K_INT_M:
            rc = add_int_m(m, fields[i].field, max, v, where, err, errlen);
            break;
        case K_VLAN:
            rc = add_vlan(m, v, where, err, errlen);
            break;
        case K_MAC:
        case K_MAC_OR_INT:
            rc = add_mac(m, fields[i].field, v, fields[i].kind == K_MAC_OR_INT, where, err,
                         errlen);
            break;
        case K_IPV4:
            rc = add_ip(m, fields[i].field, AF_INET, v, 0, where, err, errlen);
            break;
        case K_IPV6:
        case K_IPV6_OR_INT:
            rc = add_ip(m, fields[i].field, AF_INET6, v, fields[i].kind == K_IPV6_OR_INT, where,
                        err, errlen);
            break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- OXM -> JSON ---- */
static int popcount(const uint8_t *p, unsigned n)
{
    int c = 0;
    unsigned i;
    for (i = 0; i < n; i++)
        c += __builtin_popcount(p[i]);
    return c;
}

static uint64_t vlan_out(uint64_t v)
{
    return v == OFPVID_PRESENT ? v : v & 0xfff;
}

static struct json_object *field_to_json(const struct ofp_oxm *o, unsigned kind)
{
    unsigned n = ofp_oxm_value_len(o);
    const uint8_t *val = o->data, *mask = o->data + n;
    char buf[128], a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

    switch (kind) {
    case K_VLAN:
        if (!o->hasmask)
            return json_object_new_int64((int64_t)vlan_out(ofp_oxm_value_uint(o)));
        snprintf(buf, sizeof buf, "%" PRIu64 "/%" PRIu64, vlan_out(ofp_oxm_value_uint(o)),
                 vlan_out(ofp_oxm_mask_uint(o)));
        return json_object_new_string(buf);
    case K_MAC:
    case K_MAC_OR_INT:
        ofp_format_mac(val, a);
        if (o->hasmask) {
            ofp_format_mac(mask, b);
            snprintf(buf, sizeof buf, "%s/%s", a, b);
            return json_object_new_string(buf);
        }
        return json_object_new_string(a);
    case K_IPV4:
    case K_IPV6:
    case K_IPV6_OR_INT:
        inet_ntop(n == 4 ? AF_INET : AF_INET6, val, a, sizeof a);
        if (o->hasmask) {
            snprintf(buf, sizeof buf, "%s/%d", a, popcount(mask, n));
            return json_object_new_string(buf);
        }
        return json_object_new_string(a);
    default:
        if (o->hasmask) {
            snprintf(buf, sizeof buf, "%" PRIu64 "/%" PRIu64, ofp_oxm_value_uint(o),
                     ofp_oxm_mask_uint(o));
            return json_object_new_string(buf);
        }
        return json_object_new_uint64(ofp_oxm_value_uint(o));
    }
}

struct json_object *ofp_match_to_json(const struct ofp_match *m)
{
    struct json_object *out = json_object_new_object();
    unsigned i;
    size_t k;
    int oom = 0;

    if (!out)
        return NULL;
    for (i = 0; i < m->n; i++) {
        const struct ofp_oxm *o = &m->oxm[i];
        unsigned want = ofp_oxm_field_size(o->field);
        if (o->oxm_class != OFPXMC_OPENFLOW_BASIC || want == 0 ||
            ofp_oxm_value_len(o) != want)
            continue;
        for (k = 0; k < N_FIELDS; k++)
            if (fields[k].field == o->field)
                break;
        if (k < N_FIELDS)
            ofp_json_add(out, fields[k].name, field_to_json(o, fields[k].kind), &oom);
    }
    if (oom) {
        json_object_put(out);
        return NULL;
    }
    return out;
}
