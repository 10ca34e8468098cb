/* tests/fuzz/lldp_frame_fuzz.c - libFuzzer target: the LLDP frame decoder
 * of kytos/of_lldp (plugins/of_lldp/lldp_frame.c), the hex and DPID/MAC
 * text parsers in front of it.  Whatever decodes must re-encode to a frame
 * that decodes to the same DPID and port; a failure must explain itself;
 * nothing may crash, leak, hang or read out of bounds. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lldp_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lldp_peer peer, again;
    char err[160] = "";
    uint8_t frame[LLDP_FRAME_LEN], mac[6], src[6];
    uint64_t dpid;

    if (lldp_frame_decode(data, size, &peer, err, sizeof err) == 0) {
        memset(mac, 0, sizeof mac);
        if (size >= 12)
            memcpy(mac, data + 6, 6);
        lldp_source_mac(mac, peer.dpid, peer.port, src);
        if (src[0] & 1)
            __builtin_trap();   /* a source MAC must be unicast */
        if (lldp_frame_encode(frame, sizeof frame, peer.dpid, peer.port, src,
                              peer.vid >= 0 ? (unsigned)peer.vid : 0) != LLDP_FRAME_LEN ||
            lldp_frame_decode(frame, sizeof frame, &again, NULL, 0) != 0 ||
            again.dpid != peer.dpid || again.port != peer.port)
            __builtin_trap();
    } else if (err[0] == '\0') {
        __builtin_trap();
    }
    /* the same bytes as text: a NUL-terminated copy for the parsers */
    {
        char *s = malloc(size + 1);
        uint8_t *bytes = malloc(size / 2 + 1);
        long n;
        if (!s || !bytes) {
            free(s);
            free(bytes);
            return 0;
        }
        memcpy(s, data, size);
        s[size] = '\0';
        n = lldp_hex_decode(s, size, bytes, size / 2 + 1);
        if (n >= 0)
            lldp_frame_decode(bytes, (size_t)n, &peer, NULL, 0);
        if (lldp_dpid_parse(s, &dpid) == 0) {
            char back[LLDP_DPID_STR_LEN + 1];
            uint64_t d2;
            lldp_dpid_format(dpid, back);
            if (lldp_dpid_parse(back, &d2) != 0 || d2 != dpid)
                __builtin_trap();
        }
        lldp_mac_parse(s, mac);
        free(s);
        free(bytes);
    }
    return 0;
}
