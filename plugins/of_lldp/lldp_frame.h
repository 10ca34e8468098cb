/* plugins/of_lldp/lldp_frame.h - the LLDP frame Kytos' of_lldp sends and
 * reads (southbound.md 3.1, 3.3), and the text forms around it.
 *
 * Self-contained (libc only): the fuzz target links it alone.  Every
 * decoder treats its input as hostile: each length is checked against what
 * is left, nothing is read past len, and a failure says what was wrong. */
#ifndef LLDP_FRAME_H
#define LLDP_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LLDP_FRAME_LEN 42        /* with one 802.1Q tag, not padded */
#define LLDP_ETHERTYPE 0x88cc
#define LLDP_DPID_STR_LEN 23     /* "00:00:00:00:00:00:00:01" */
#define LLDP_MAX_VLAN_TAGS 8     /* stacked tags skipped before giving up */

/* What a frame of ours carries: the sender's DPID and port. */
struct lldp_peer {
    uint64_t dpid;
    uint32_t port;
    unsigned vlan_tags;          /* how many 802.1Q/802.1ad tags were skipped */
    int vid;                     /* VID of the outer tag, -1 when untagged */
};

/* The 42-byte frame of southbound.md 3.1 for dpid/port, sent from src_mac
 * (already chosen with lldp_source_mac), tagged with vid (0..4095).
 * Returns the length written (LLDP_FRAME_LEN), or -1 when cap is short or
 * vid out of range. */
int lldp_frame_encode(uint8_t *out, size_t cap, uint64_t dpid, uint32_t port,
                      const uint8_t src_mac[6], unsigned vid);

/* Decode a received Ethernet frame: VLAN tags skipped, EtherType LLDP,
 * then the TLVs up to End or the end of the frame, each length checked.
 * The Chassis ID must be subtype 7 with an 8-byte DPID and the Port ID
 * subtype 7 with a 4-byte port (what Kytos sends); anything else is a
 * foreign LLDP frame.  0 and *peer set, or -1 with err naming the fault
 * (err may be NULL). */
int lldp_frame_decode(const uint8_t *frame, size_t len, struct lldp_peer *peer, char *err,
                      size_t errlen);

/* Kytos' try_to_gen_intf_mac: the interface MAC unless it is all-zero or
 * multicast; then the DPID's last 5 bytes and port mod 256, with the first
 * byte's low nibble set to 0xe (unicast, locally administered). */
void lldp_source_mac(const uint8_t intf_mac[6], uint64_t dpid, uint32_t port, uint8_t out[6]);

/* "aa:bb:cc:dd:ee:ff" -> 6 bytes (hex digits of either case).  0 or -1. */
int lldp_mac_parse(const char *s, uint8_t out[6]);
/* "00:00:00:00:00:00:00:01" (exactly 8 colon-separated bytes) -> 1.  0 or -1. */
int lldp_dpid_parse(const char *s, uint64_t *out);
/* 1 -> "00:00:00:00:00:00:00:01"; out holds LLDP_DPID_STR_LEN + 1. */
void lldp_dpid_format(uint64_t dpid, char out[LLDP_DPID_STR_LEN + 1]);

/* Lower-case hex of len bytes into out (2*len + 1). */
void lldp_hex_encode(const uint8_t *in, size_t len, char *out);
/* Hex text (even length, no separators) -> bytes.  Returns the byte count,
 * or -1 when the text is not hex or longer than 2*cap. */
long lldp_hex_decode(const char *hex, size_t hexlen, uint8_t *out, size_t cap);

#endif
