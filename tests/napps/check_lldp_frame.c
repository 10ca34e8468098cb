/* tests/napps/check_lldp_frame.c - kytos/of_lldp's frame codec
 * (plugins/of_lldp/lldp_frame.c): the bytes Kytos sends (southbound.md
 * 3.1), Kytos' source MAC rule, and the decoder on hostile input: every
 * truncation, TLV lengths past the end, foreign subtypes, stacked VLANs. */
#include "check_tap.h"
#include "lldp_frame.h"

#include <string.h>

/* southbound.md 3.1's example as pyof packs it (dpid 1, port 2) */
static const char kytos_hex[] =
    "0180c200000eee000000010281000ed788cc020907000000000000000104050700000002060200780000";

static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
    long n = lldp_hex_decode(hex, strlen(hex), out, cap);
    ck_assert_int_ge(n, 0);
    return (size_t)n;
}

START_TEST(encode_is_kytos_bytes)
{
    uint8_t frame[LLDP_FRAME_LEN], mac[6];
    char hex[2 * LLDP_FRAME_LEN + 1];

    ck_assert_int_eq(lldp_mac_parse("ee:00:00:00:01:02", mac), 0);
    ck_assert_int_eq(lldp_frame_encode(frame, sizeof frame, 1, 2, mac, 3799), LLDP_FRAME_LEN);
    lldp_hex_encode(frame, sizeof frame, hex);
    ck_assert_str_eq(hex, kytos_hex);
    ck_assert_int_eq(lldp_frame_encode(frame, sizeof frame - 1, 1, 2, mac, 3799), -1);
    ck_assert_int_eq(lldp_frame_encode(frame, sizeof frame, 1, 2, mac, 4096), -1);
}
END_TEST

START_TEST(decode_round_trip)
{
    uint8_t frame[64], mac[6] = {2, 0, 0, 0, 0, 9};
    struct lldp_peer p;
    char err[128];

    ck_assert_int_eq(lldp_frame_encode(frame, sizeof frame, 0xfedcba9876543210ull, 0xfffffff0u,
                                       mac, 3799),
                     LLDP_FRAME_LEN);
    ck_assert_int_eq(lldp_frame_decode(frame, LLDP_FRAME_LEN, &p, err, sizeof err), 0);
    ck_assert(p.dpid == 0xfedcba9876543210ull);
    ck_assert_uint_eq(p.port, 0xfffffff0u);
    ck_assert_uint_eq(p.vlan_tags, 1);
    ck_assert_int_eq(p.vid, 3799);
    /* padded to the Ethernet minimum: the zeros after End are ignored */
    memset(frame + LLDP_FRAME_LEN, 0, sizeof frame - LLDP_FRAME_LEN);
    ck_assert_int_eq(lldp_frame_decode(frame, 60, &p, err, sizeof err), 0);
}
END_TEST

START_TEST(decode_untagged_and_stacked)
{
    uint8_t in[128], frame[128];
    size_t n = unhex(kytos_hex, in, sizeof in);
    struct lldp_peer p;
    char err[128];

    /* untagged: drop the 4 tag bytes */
    memcpy(frame, in, 12);
    memcpy(frame + 12, in + 16, n - 16);
    ck_assert_int_eq(lldp_frame_decode(frame, n - 4, &p, err, sizeof err), 0);
    ck_assert_uint_eq(p.vlan_tags, 0);
    ck_assert_int_eq(p.vid, -1);
    ck_assert(p.dpid == 1 && p.port == 2);
    /* 802.1ad outer tag (vid 100) then the 802.1Q one */
    memcpy(frame, in, 12);
    memcpy(frame + 12, "\x88\xa8\x00\x64", 4);
    memcpy(frame + 16, in + 12, n - 12);
    ck_assert_int_eq(lldp_frame_decode(frame, n + 4, &p, err, sizeof err), 0);
    ck_assert_uint_eq(p.vlan_tags, 2);
    ck_assert_int_eq(p.vid, 100);
    /* nine tags: refused, not walked forever */
    memcpy(frame, in, 12);
    for (int k = 0; k < 9; k++)
        memcpy(frame + 12 + 4 * k, "\x81\x00\x00\x01", 4);
    memcpy(frame + 48, in + 16, n - 16);
    ck_assert_int_eq(lldp_frame_decode(frame, 48 + n - 16, &p, err, sizeof err), -1);
    ck_assert_str_eq(err, "more than 8 VLAN tags");
}
END_TEST

/* Every prefix of the frame but the whole: an error with a reason, no read
 * past the end (ASan checks it with an exact-size copy). */
START_TEST(decode_every_truncation)
{
    uint8_t in[128];
    size_t n = unhex(kytos_hex, in, sizeof in);
    struct lldp_peer p;

    for (size_t len = 0; len < n; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        char err[128] = "";
        int rc;
        memcpy(copy, in, len);
        rc = lldp_frame_decode(copy, len, &p, err, sizeof err);
        /* the End TLV is optional: the frame without it (40 bytes, or 41
         * with half of it) is whole */
        if (len >= n - 2) {
            ck_assert_int_eq(rc, 0);
        } else {
            ck_assert_msg(rc == -1, "prefix of %zu bytes decoded", len);
            ck_assert_msg(err[0] != '\0', "prefix of %zu bytes: no reason", len);
        }
        free(copy);
    }
}
END_TEST

static void expect_error(const char *hex, const char *text)
{
    uint8_t frame[128];
    size_t n = unhex(hex, frame, sizeof frame);
    struct lldp_peer p;
    char err[160];

    ck_assert_int_eq(lldp_frame_decode(frame, n, &p, err, sizeof err), -1);
    ck_assert_str_eq(err, text);
}

START_TEST(decode_hostile)
{
    /* not LLDP */
    expect_error("0180c200000eee000000010281000ed70800450000", "EtherType 0x0800 is not LLDP");
    /* Chassis ID claiming 511 bytes */
    expect_error("0180c200000eee000000010281000ed788cc03ff0700000000",
                 "TLV 1 (type 1) claims 511 bytes, 5 left");
    /* a foreign LLDP frame: chassis subtype 4 (MAC) */
    expect_error("0180c200000e00112233445588cc0207040011223344550403056531060200780000",
                 "Chassis ID is not a locally assigned 8-byte DPID (length 7, subtype 4)");
    /* port subtype 5 (interface name) */
    expect_error("0180c200000eee000000010288cc02090700000000000000010403056531060200780000",
                 "Port ID is not a locally assigned 4-byte port (length 3, subtype 5)");
    /* TLVs out of order: Port ID first */
    expect_error("0180c200000eee000000010288cc04050700000002", "first TLV has type 2, not Chassis ID");
    /* no TTL */
    expect_error("0180c200000eee000000010288cc020907000000000000000104050700000002",
                 "no TTL TLV");
    /* End right away */
    expect_error("0180c200000eee000000010288cc0000", "no Chassis ID TLV");
    /* zero-length Chassis ID (its subtype is not there to read) */
    expect_error("0180c200000eee000000010288cc0200",
                 "Chassis ID is not a locally assigned 8-byte DPID (length 0, subtype 0)");
}
END_TEST

START_TEST(source_mac_rule)
{
    uint8_t zero[6] = {0}, mcast[6] = {0x01, 0, 0x5e, 0, 0, 1}, ok[6] = {0x62, 0x4e, 0x0a, 0, 0, 3},
            out[6], want[6];

    lldp_source_mac(ok, 1, 2, out);
    ck_assert_mem_eq(out, ok, 6);
    /* dpid 00:00:00:00:00:00:00:01 port 258: "00:00:00:00:01" + "02", 2nd digit e */
    ck_assert_int_eq(lldp_mac_parse("0e:00:00:00:01:02", want), 0);
    lldp_source_mac(zero, 1, 258, out);
    ck_assert_mem_eq(out, want, 6);
    /* a multicast interface MAC: dpid bytes cd:ef:01:23:45, port 7 */
    ck_assert_int_eq(lldp_mac_parse("ce:ef:01:23:45:07", want), 0);
    lldp_source_mac(mcast, 0x0000abcdef012345ull, 7, out);
    ck_assert_mem_eq(out, want, 6);
}
END_TEST

START_TEST(text_forms)
{
    uint64_t d;
    char s[LLDP_DPID_STR_LEN + 1];
    uint8_t b[4], mac[6];

    ck_assert_int_eq(lldp_dpid_parse("00:00:00:00:00:00:00:0A", &d), 0);
    ck_assert(d == 10);
    lldp_dpid_format(0xab00000000000001ull, s);
    ck_assert_str_eq(s, "ab:00:00:00:00:00:00:01");
    ck_assert_int_eq(lldp_dpid_parse("00:00:00:00:00:00:00:01:", &d), -1);
    ck_assert_int_eq(lldp_dpid_parse("00:00:00:00:00:00:01", &d), -1);
    ck_assert_int_eq(lldp_dpid_parse("00:00:00:00:00:00:00:0g", &d), -1);
    ck_assert_int_eq(lldp_dpid_parse("", &d), -1);
    ck_assert_int_eq(lldp_dpid_parse(NULL, &d), -1);
    ck_assert_int_eq(lldp_mac_parse("aa:bb:cc:dd:ee", mac), -1);
    ck_assert_int_eq(lldp_mac_parse("aa:bb:cc:dd:ee:f", mac), -1);
    ck_assert_int_eq(lldp_hex_decode("abc", 3, b, sizeof b), -1);
    ck_assert_int_eq(lldp_hex_decode("zz", 2, b, sizeof b), -1);
    ck_assert_int_eq(lldp_hex_decode("0102030405", 10, b, sizeof b), -1);
    ck_assert_int_eq(lldp_hex_decode("DEADbeef", 8, b, sizeof b), 4);
    ck_assert_uint_eq(b[0], 0xde);
    ck_assert_uint_eq(b[3], 0xef);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("lldp_frame");

    kytos_check_add(s, "encode_is_kytos_bytes", encode_is_kytos_bytes);
    kytos_check_add(s, "decode_round_trip", decode_round_trip);
    kytos_check_add(s, "decode_untagged_and_stacked", decode_untagged_and_stacked);
    kytos_check_add(s, "decode_every_truncation", decode_every_truncation);
    kytos_check_add(s, "decode_hostile", decode_hostile);
    kytos_check_add(s, "source_mac_rule", source_mac_rule);
    kytos_check_add(s, "text_forms", text_forms);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
