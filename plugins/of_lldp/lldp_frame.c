/* plugins/of_lldp/lldp_frame.c - LLDP frame encoder and hostile-input
 * decoder (lldp_frame.h). */
#include "lldp_frame.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TLV_END 0
#define TLV_CHASSIS_ID 1
#define TLV_PORT_ID 2
#define TLV_TTL 3
#define SUBTYPE_LOCAL 7           /* "locally assigned", what Kytos sends */
#define LLDP_TTL 120

static const uint8_t lldp_multicast[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static unsigned get16(const uint8_t *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

static void put_tlv_header(uint8_t *p, unsigned type, unsigned len)
{
    put16(p, type << 9 | len);
}

int lldp_frame_encode(uint8_t *out, size_t cap, uint64_t dpid, uint32_t port,
                      const uint8_t src_mac[6], unsigned vid)
{
    uint8_t *p = out;

    if (cap < LLDP_FRAME_LEN || vid > 4095)
        return -1;
    memcpy(p, lldp_multicast, 6);
    memcpy(p + 6, src_mac, 6);
    put16(p + 12, 0x8100);
    put16(p + 14, vid);            /* PCP 0, DEI 0 */
    put16(p + 16, LLDP_ETHERTYPE);
    p += 18;
    put_tlv_header(p, TLV_CHASSIS_ID, 9);
    p[2] = SUBTYPE_LOCAL;
    for (int k = 0; k < 8; k++)
        p[3 + k] = (uint8_t)(dpid >> (56 - 8 * k));
    p += 11;
    put_tlv_header(p, TLV_PORT_ID, 5);
    p[2] = SUBTYPE_LOCAL;
    for (int k = 0; k < 4; k++)
        p[3 + k] = (uint8_t)(port >> (24 - 8 * k));
    p += 7;
    put_tlv_header(p, TLV_TTL, 2);
    put16(p + 2, LLDP_TTL);
    p += 4;
    put_tlv_header(p, TLV_END, 0);
    return LLDP_FRAME_LEN;
}

static bool is_vlan_tpid(unsigned t)
{
    return t == 0x8100 || t == 0x88a8 || t == 0x9100;
}

int lldp_frame_decode(const uint8_t *frame, size_t len, struct lldp_peer *peer, char *err,
                      size_t errlen)
{
    size_t off = 12, n_tlv = 0;
    unsigned ethertype;
    bool have_chassis = false, have_port = false, have_ttl = false;

    memset(peer, 0, sizeof *peer);
    peer->vid = -1;
    if (!frame || len < 14)
        return fail(err, errlen, "frame of %zu bytes is shorter than an Ethernet header", len);
    ethertype = get16(frame + off);
    while (is_vlan_tpid(ethertype)) {
        if (peer->vlan_tags == LLDP_MAX_VLAN_TAGS)
            return fail(err, errlen, "more than %d VLAN tags", LLDP_MAX_VLAN_TAGS);
        if (len - off < 6)
            return fail(err, errlen, "VLAN tag %u truncated", peer->vlan_tags + 1);
        if (peer->vid < 0)
            peer->vid = (int)(get16(frame + off + 2) & 0x0fff);
        peer->vlan_tags++;
        off += 4;
        ethertype = get16(frame + off);
    }
    if (ethertype != LLDP_ETHERTYPE)
        return fail(err, errlen, "EtherType 0x%04x is not LLDP", ethertype);
    off += 2;
    /* TLVs: Chassis ID, Port ID and TTL first, in that order (802.1AB), then
     * optional ones up to End or the end of the frame */
    while (len - off >= 2) {
        unsigned h = get16(frame + off), type = h >> 9, tlen = h & 0x1ff;
        const uint8_t *v = frame + off + 2;

        if (tlen > len - off - 2)
            return fail(err, errlen, "TLV %zu (type %u) claims %u bytes, %zu left", n_tlv + 1,
                        type, tlen, len - off - 2);
        off += 2 + tlen;
        n_tlv++;
        if (type == TLV_END)
            break;
        if (n_tlv == 1) {
            if (type != TLV_CHASSIS_ID)
                return fail(err, errlen, "first TLV has type %u, not Chassis ID", type);
            if (tlen != 9 || v[0] != SUBTYPE_LOCAL)
                return fail(err, errlen,
                            "Chassis ID is not a locally assigned 8-byte DPID (length %u, "
                            "subtype %u)", tlen, tlen ? v[0] : 0);
            for (int k = 1; k <= 8; k++)
                peer->dpid = peer->dpid << 8 | v[k];
            have_chassis = true;
        } else if (n_tlv == 2) {
            if (type != TLV_PORT_ID)
                return fail(err, errlen, "second TLV has type %u, not Port ID", type);
            if (tlen != 5 || v[0] != SUBTYPE_LOCAL)
                return fail(err, errlen,
                            "Port ID is not a locally assigned 4-byte port (length %u, "
                            "subtype %u)", tlen, tlen ? v[0] : 0);
            peer->port = (uint32_t)v[1] << 24 | (uint32_t)v[2] << 16 | (uint32_t)v[3] << 8 | v[4];
            have_port = true;
        } else if (n_tlv == 3) {
            if (type != TLV_TTL || tlen < 2)
                return fail(err, errlen, "third TLV (type %u, length %u) is not a TTL", type,
                            tlen);
            have_ttl = true;
        }
    }
    if (!have_chassis)
        return fail(err, errlen, "no Chassis ID TLV");
    if (!have_port)
        return fail(err, errlen, "no Port ID TLV");
    if (!have_ttl)
        return fail(err, errlen, "no TTL TLV");
    return 0;
}

void lldp_source_mac(const uint8_t intf_mac[6], uint64_t dpid, uint32_t port, uint8_t out[6])
{
    static const uint8_t zero[6];

    if (memcmp(intf_mac, zero, 6) != 0 && !(intf_mac[0] & 1)) {
        memcpy(out, intf_mac, 6);
        return;
    }
    for (int k = 0; k < 5; k++)
        out[k] = (uint8_t)(dpid >> (32 - 8 * k));
    out[5] = (uint8_t)(port % 256);
    out[0] = (uint8_t)((out[0] & 0xf0) | 0x0e);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* n bytes of hex pairs separated by sep (0: none), nothing after. */
static int parse_bytes(const char *s, size_t n, uint8_t *out)
{
    for (size_t k = 0; k < n; k++) {
        int hi, lo;
        if (k > 0 && *s++ != ':')
            return -1;
        hi = hexval(s[0]);
        lo = hi < 0 ? -1 : hexval(s[1]);
        if (lo < 0)
            return -1;
        out[k] = (uint8_t)(hi << 4 | lo);
        s += 2;
    }
    return *s == '\0' ? 0 : -1;
}

int lldp_mac_parse(const char *s, uint8_t out[6])
{
    return s ? parse_bytes(s, 6, out) : -1;
}

int lldp_dpid_parse(const char *s, uint64_t *out)
{
    uint8_t b[8];

    if (!s || parse_bytes(s, 8, b) < 0)
        return -1;
    *out = 0;
    for (int k = 0; k < 8; k++)
        *out = *out << 8 | b[k];
    return 0;
}

void lldp_dpid_format(uint64_t dpid, char out[LLDP_DPID_STR_LEN + 1])
{
    static const char digits[] = "0123456789abcdef";
    char *p = out;

    for (int k = 0; k < 8; k++) {
        uint8_t b = (uint8_t)(dpid >> (56 - 8 * k));
        if (k)
            *p++ = ':';
        *p++ = digits[b >> 4];
        *p++ = digits[b & 15];
    }
    *p = '\0';
}

void lldp_hex_encode(const uint8_t *in, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t k = 0; k < len; k++) {
        out[2 * k] = digits[in[k] >> 4];
        out[2 * k + 1] = digits[in[k] & 15];
    }
    out[2 * len] = '\0';
}

long lldp_hex_decode(const char *hex, size_t hexlen, uint8_t *out, size_t cap)
{
    if (!hex || hexlen % 2 || hexlen / 2 > cap)
        return -1;
    for (size_t k = 0; k < hexlen / 2; k++) {
        int hi = hexval(hex[2 * k]), lo = hexval(hex[2 * k + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[k] = (uint8_t)(hi << 4 | lo);
    }
    return (long)(hexlen / 2);
}
