/* tests/ofp/check_ofp_codec.c - the OpenFlow 1.3 codec: exact bytes of the
 * messages Kytos sends (southbound.md 7), round trips, and hostile input
 * (lengths 0, 7, 65535, truncation, zero-length TLVs, overruns, caps). */
#include "check_tap.h"
#include "ofp_test_util.h"

static uint8_t in[70000];
static char err[256];

/* ---- framing ---- */
START_TEST(frame_lengths)
{
    uint8_t m[16] = {4, 0, 0, 8, 0, 0, 0, 1, 4, 2, 0, 8, 0, 0, 0, 2};

    ck_assert_int_eq(ofp_frame_next(m, 0), 0);
    ck_assert_int_eq(ofp_frame_next(m, 1), 0);
    ck_assert_int_eq(ofp_frame_next(m, 3), 0);
    ck_assert_int_eq(ofp_frame_next(m, 7), 0);
    ck_assert_int_eq(ofp_frame_next(m, 8), 8);
    ck_assert_int_eq(ofp_frame_next(m, 16), 8);
    ck_assert_int_eq(ofp_frame_next(m + 8, 8), 8);
    set_len(m, 0);
    ck_assert_int_eq(ofp_frame_next(m, 16), OFP_E_LENGTH);
    set_len(m, 7);
    ck_assert_int_eq(ofp_frame_next(m, 16), OFP_E_LENGTH);
    set_len(m, 65535);
    ck_assert_int_eq(ofp_frame_next(m, 16), 0);   /* wait for the rest */
    m[0] = 0;
    ck_assert_int_eq(ofp_frame_next(m, 1), OFP_E_VERSION);
    m[0] = 7;
    ck_assert_int_eq(ofp_frame_next(m, 16), OFP_E_VERSION);
    m[0] = 1;   /* an OpenFlow 1.0 HELLO still frames */
    set_len(m, 8);
    ck_assert_int_eq(ofp_frame_next(m, 8), 8);
}
END_TEST

START_TEST(frame_full_65535)
{
    struct ofp_buf b;
    struct ofp_multipart mp;
    struct ofp_flow_stats fs;
    size_t off = 0;

    ofp_buf_init(&b);
    memset(in, 0, sizeof in);
    ck_assert_int_eq(ofp_echo_encode(&b, OFPT_ECHO_REQUEST, 1, in, 65527, err, sizeof err), 0);
    ck_assert_uint_eq(b.len, 65535);
    ck_assert_int_eq(ofp_frame_next(b.data, b.len), 65535);
    ck_assert_int_eq(ofp_echo_encode(&b, OFPT_ECHO_REQUEST, 1, in, 65528, err, sizeof err),
                     OFP_E_TOOBIG);
    ck_assert_uint_eq(b.len, 65535);   /* nothing appended */
    ofp_buf_free(&b);
    /* a 65535-byte multipart reply full of zeros: entry length 0 */
    in[0] = 4, in[1] = OFPT_MULTIPART_REPLY, in[9] = OFPMP_FLOW;
    set_len(in, 65535);
    ck_assert_int_eq(ofp_multipart_decode(in, 65535, OFPT_MULTIPART_REPLY, &mp, err, sizeof err),
                     0);
    ck_assert_uint_eq(mp.body_len, 65535 - 16);
    ck_assert_int_eq(ofp_flow_stats_next(mp.body, mp.body_len, &off, &fs, err, sizeof err),
                     OFP_E_LENGTH);
    ck_assert_ptr_nonnull(strstr(err, "length 0"));
}
END_TEST

START_TEST(header_mismatch)
{
    uint8_t m[16] = {4, 20, 0, 8, 0, 0, 0, 9};
    uint32_t xid = 0;

    ck_assert_int_eq(ofp_empty_decode(m, 8, OFPT_BARRIER_REQUEST, &xid, err, sizeof err), 0);
    ck_assert_uint_eq(xid, 9);
    ck_assert_int_eq(ofp_empty_decode(m, 7, OFPT_BARRIER_REQUEST, &xid, err, sizeof err),
                     OFP_E_SHORT);
    ck_assert_int_eq(ofp_empty_decode(m, 0, OFPT_BARRIER_REQUEST, &xid, err, sizeof err),
                     OFP_E_SHORT);
    ck_assert_int_eq(ofp_empty_decode(m, 16, OFPT_BARRIER_REQUEST, &xid, err, sizeof err),
                     OFP_E_LENGTH);   /* header says 8 */
    set_len(m, 16);
    ck_assert_int_eq(ofp_empty_decode(m, 16, OFPT_BARRIER_REQUEST, &xid, err, sizeof err),
                     OFP_E_LENGTH);   /* a barrier has no body */
    ck_assert_int_eq(ofp_empty_decode(m, 16, OFPT_BARRIER_REPLY, &xid, err, sizeof err),
                     OFP_E_TYPE);
    m[0] = 1;
    ck_assert_int_eq(ofp_empty_decode(m, 16, OFPT_BARRIER_REQUEST, &xid, err, sizeof err),
                     OFP_E_VERSION);
}
END_TEST

/* ---- HELLO, ECHO, FEATURES, CONFIG, ERROR ---- */
START_TEST(hello_encode_decode)
{
    struct ofp_buf b;
    struct ofp_hello h;
    size_t n;

    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_hello_encode(&b, 1, 0, err, sizeof err), 0);
    ck_assert_buf_hex(&b, "04000008 00000001");
    b.len = 0;
    ck_assert_int_eq(ofp_hello_encode(&b, 0x2a, 1u << 4, err, sizeof err), 0);
    ck_assert_buf_hex(&b, "04000010 0000002a 00010008 00000010");   /* OVS's hello */
    ck_assert_int_eq(ofp_hello_decode(b.data, b.len, &h, err, sizeof err), 0);
    ck_assert(h.has_bitmap);
    ck_assert_uint_eq(h.bitmap, 0x10);
    ck_assert_uint_eq(h.xid, 0x2a);
    ck_assert_int_eq(ofp_hello_negotiate(&h), 4);
    ofp_buf_free(&b);

    /* OpenFlow 1.0-only peer: bitmap without bit 4 */
    n = hex2bin("01000010 00000001 00010008 00000002", in, sizeof in);
    ck_assert_int_eq(ofp_hello_decode(in, n, &h, err, sizeof err), 0);
    ck_assert_int_eq(ofp_hello_negotiate(&h), 0);
    /* 1.4 without elements: min(5, 4) = 4 */
    n = hex2bin("05000008 00000001", in, sizeof in);
    ck_assert_int_eq(ofp_hello_decode(in, n, &h, err, sizeof err), 0);
    ck_assert_int_eq(ofp_hello_negotiate(&h), 4);
    /* an unknown element is skipped, the bitmap after it still found */
    n = hex2bin("06000018 00000001 00070006 01020000 00010008 00000050", in, sizeof in);
    ck_assert_int_eq(ofp_hello_decode(in, n, &h, err, sizeof err), 0);
    ck_assert_uint_eq(h.n_elements, 2);
    ck_assert_int_eq(ofp_hello_negotiate(&h), 4);
}
END_TEST

START_TEST(hello_hostile)
{
    struct ofp_hello h;
    size_t n;

    /* element length 0: must not loop */
    n = hex2bin("04000010 00000001 00010000 00000010", in, sizeof in);
    ck_assert_int_eq(ofp_hello_decode(in, n, &h, err, sizeof err), OFP_E_LENGTH);
    ck_assert_ptr_nonnull(strstr(err, "length 0"));
    /* element overruns the message */
    n = hex2bin("04000010 00000001 00010010 00000010", in, sizeof in);
    ck_assert_int_eq(ofp_hello_decode(in, n, &h, err, sizeof err), OFP_E_LENGTH);
    /* 2 stray bytes */
    n = hex2bin("0400000a 00000001 0001", in, sizeof in);
    ck_assert_int_eq(ofp_hello_decode(in, n, &h, err, sizeof err), OFP_E_SHORT);
    /* not a hello */
    n = hex2bin("04020008 00000001", in, sizeof in);
    ck_assert_int_eq(ofp_hello_decode(in, n, &h, err, sizeof err), OFP_E_TYPE);
}
END_TEST

START_TEST(echo_round_trip)
{
    struct ofp_buf b;
    const uint8_t *data;
    size_t dlen;
    uint32_t xid;

    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_echo_encode(&b, OFPT_ECHO_REQUEST, 7, "kytosd_13", 9, err, sizeof err),
                     0);
    ck_assert_buf_hex(&b, "04020011 00000007 6b79746f73645f3133");
    ck_assert_int_eq(ofp_echo_decode(b.data, b.len, OFPT_ECHO_REQUEST, &xid, &data, &dlen, err,
                                     sizeof err), 0);
    ck_assert_uint_eq(xid, 7);
    ck_assert_uint_eq(dlen, 9);
    ck_assert_int_eq(memcmp(data, "kytosd_13", 9), 0);
    ck_assert_int_eq(ofp_echo_decode(b.data, b.len, OFPT_ECHO_REPLY, &xid, &data, &dlen, err,
                                     sizeof err), OFP_E_TYPE);
    /* the reply copies xid and data */
    b.len = 0;
    ck_assert_int_eq(ofp_echo_encode(&b, OFPT_ECHO_REPLY, 0, NULL, 0, err, sizeof err), 0);
    ck_assert_buf_hex(&b, "04030008 00000000");
    ck_assert_int_eq(ofp_echo_encode(&b, OFPT_HELLO, 0, NULL, 0, err, sizeof err), OFP_E_TYPE);
    ofp_buf_free(&b);
}
END_TEST

START_TEST(features_config_barrier)
{
    struct ofp_buf b;
    struct ofp_features f, g;
    struct ofp_switch_config c = {.xid = 5, .flags = 0, .miss_send_len = 0xffff}, d;
    char dpid[24];
    size_t n;

    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_empty_encode(&b, OFPT_FEATURES_REQUEST, 3, err, sizeof err), 0);
    ck_assert_int_eq(ofp_switch_config_encode(&b, OFPT_SET_CONFIG, &c, err, sizeof err), 0);
    ck_assert_int_eq(ofp_empty_encode(&b, OFPT_BARRIER_REQUEST, 4, err, sizeof err), 0);
    ck_assert_buf_hex(&b, "04050008 00000003 0409000c 00000005 0000ffff 04140008 00000004");
    ck_assert_int_eq(ofp_switch_config_decode(b.data + 8, 12, OFPT_SET_CONFIG, &d, err,
                                              sizeof err), 0);
    ck_assert_uint_eq(d.miss_send_len, 0xffff);
    ofp_buf_free(&b);

    /* OVS's FEATURES_REPLY: 32 B, n_buffers 0, 254 tables, capabilities 0x4f */
    n = hex2bin("04060020 00000003 0000000000000001 00000000 fe000000 0000004f 00000000", in,
                sizeof in);
    ck_assert_int_eq(ofp_features_reply_decode(in, n, &f, err, sizeof err), 0);
    ck_assert_uint_eq(f.datapath_id, 1);
    ck_assert_uint_eq(f.n_tables, 254);
    ck_assert_uint_eq(f.capabilities, 0x4f);
    ofp_dpid_format(0x00000000000000a1ull | 0xff00000000000000ull, dpid);
    ck_assert_str_eq(dpid, "ff:00:00:00:00:00:00:a1");
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_features_reply_encode(&b, &f, err, sizeof err), 0);
    ck_assert_int_eq(ofp_features_reply_decode(b.data, b.len, &g, err, sizeof err), 0);
    ck_assert_int_eq(memcmp(b.data, in, n), 0);
    ofp_buf_free(&b);
    /* a 1.0-style reply with ports is not ours */
    in[3] = 0x60;
    ck_assert_int_eq(ofp_features_reply_decode(in, 0x60, &f, err, sizeof err), OFP_E_LENGTH);
    ck_assert_int_eq(ofp_features_reply_decode(in, 20, &f, err, sizeof err), OFP_E_LENGTH);
    set_len(in, 20);
    ck_assert_int_eq(ofp_features_reply_decode(in, 20, &f, err, sizeof err), OFP_E_SHORT);
}
END_TEST

START_TEST(error_round_trip)
{
    struct ofp_buf b;
    struct ofp_error_msg e = {.xid = 77, .type = 4, .code = 9, .data = (const uint8_t *)"abc",
                              .data_len = 3}, f;

    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_error_encode(&b, &e, err, sizeof err), 0);
    ck_assert_buf_hex(&b, "0401000f 0000004d 0004 0009 616263");
    ck_assert_int_eq(ofp_error_decode(b.data, b.len, &f, err, sizeof err), 0);
    ck_assert_uint_eq(f.xid, 77);
    ck_assert_uint_eq(f.type, 4);
    ck_assert_uint_eq(f.code, 9);
    ck_assert_uint_eq(f.data_len, 3);
    set_len(b.data, 10);
    ck_assert_int_eq(ofp_error_decode(b.data, 10, &f, err, sizeof err), OFP_E_SHORT);
    ofp_buf_free(&b);
}
END_TEST

/* ---- FLOW_MOD ---- */
static void lldp_flow_mod(struct ofp_flow_mod *fm)
{
    struct ofp_instruction apply = {.type = OFPIT_APPLY_ACTIONS};
    struct ofp_action out = {.type = OFPAT_OUTPUT, .port = OFPP_CONTROLLER,
                             .max_len = OFPCML_NO_BUFFER};

    ofp_flow_mod_init(fm);
    fm->xid = 0x11;
    fm->cookie = 0xab00000000000001ull;
    fm->priority = 50000;
    fm->flags = 0;
    ck_assert_int_eq(ofp_match_add_uint(&fm->match, OFPXMT_VLAN_VID, 3799 | OFPVID_PRESENT,
                                        NULL, err, sizeof err), 0);
    ck_assert_int_eq(ofp_match_add_uint(&fm->match, OFPXMT_ETH_TYPE, 0x88cc, NULL, err,
                                        sizeof err), 0);
    ck_assert_int_eq(ofp_instructions_add(&fm->instructions, &apply, err, sizeof err), 0);
    ck_assert_int_eq(ofp_instructions_add_action(&fm->instructions, &out, err, sizeof err), 0);
}

#define LLDP_FLOW_MOD_HEX                                                                  \
    "040e0058 00000011 ab00000000000001 0000000000000000 00 00 0000 0000 c350"             \
    " ffffffff ffffffff ffffffff 0000 0000 | 0001 0010 80000c02 1ed7 80000a02 88cc"         \
    " | 0004 0018 00000000 0000 0010 fffffffd ffff 000000000000"

static size_t hex_nobar(const char *hex, uint8_t *out, size_t cap)
{
    char tmp[1024];
    size_t i = 0;
    for (; *hex && i < sizeof tmp - 1; hex++)
        if (*hex != '|')
            tmp[i++] = *hex;
    tmp[i] = '\0';
    return hex2bin(tmp, out, cap);
}

START_TEST(flow_mod_lldp_bytes)
{
    struct ofp_flow_mod *fm = malloc(sizeof *fm), *back = malloc(sizeof *back);
    struct ofp_buf b;
    uint8_t want[128];
    size_t n;

    lldp_flow_mod(fm);
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_flow_mod_encode(&b, fm, err, sizeof err), 0);
    /* southbound.md 7.4 (flags 0 here; Kytos sets SEND_FLOW_REM) */
    n = hex_nobar(LLDP_FLOW_MOD_HEX, want, sizeof want);
    ck_assert_uint_eq(b.len, n);
    ck_assert_int_eq(memcmp(b.data, want, n), 0);
    ck_assert_int_eq(ofp_flow_mod_decode(b.data, b.len, back, err, sizeof err), 0);
    ck_assert_uint_eq(back->cookie, fm->cookie);
    ck_assert_uint_eq(back->priority, 50000);
    ck_assert_uint_eq(back->match.n, 2);
    ck_assert_uint_eq(ofp_oxm_value_uint(ofp_match_find(&back->match, OFPXMT_VLAN_VID)), 0x1ed7);
    ck_assert_uint_eq(back->instructions.n, 1);
    ck_assert_uint_eq(back->instructions.n_actions, 1);
    ck_assert_uint_eq(back->instructions.actions[0].port, OFPP_CONTROLLER);
    ck_assert_uint_eq(back->instructions.actions[0].max_len, 0xffff);
    ofp_buf_free(&b);
    free(fm);
    free(back);
}
END_TEST

START_TEST(flow_mod_cookie_delete)
{
    struct ofp_flow_mod fm;
    struct ofp_buf b;

    ofp_flow_mod_init(&fm);
    fm.command = OFPFC_DELETE;
    fm.cookie = 0xaa00000000000001ull;
    fm.cookie_mask = UINT64_MAX;
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_flow_mod_encode(&b, &fm, err, sizeof err), 0);
    ck_assert_buf_hex(&b, "040e0038 00000000 aa00000000000001 ffffffffffffffff 00 03 0000 0000"
                          " 8000 ffffffff ffffffff ffffffff 0001 0000 0001 0004 00000000");
    ofp_buf_free(&b);
}
END_TEST

/* Every truncation of the LLDP FLOW_MOD (header length = what is left) fails,
 * except 64 bytes: the message without its instruction is still valid. */
START_TEST(flow_mod_truncations)
{
    struct ofp_flow_mod *fm = malloc(sizeof *fm);
    uint8_t m[128];
    size_t n = hex_nobar(LLDP_FLOW_MOD_HEX, m, sizeof m), cut;

    for (cut = 0; cut < n; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);   /* exact size: ASan sees any overread */
        int rc;
        memcpy(copy, m, cut);
        if (cut >= 4)
            set_len(copy, cut);
        rc = ofp_flow_mod_decode(copy, cut, fm, err, sizeof err);
        if (cut == 64)
            ck_assert_int_eq(rc, 0);
        else
            ck_assert_msg(rc < 0, "cut at %zu decoded", cut);
        free(copy);
    }
    free(fm);
}
END_TEST

/* ---- match ---- */
START_TEST(match_hostile)
{
    struct ofp_match m;
    size_t used, n;

    /* empty match */
    n = hex2bin("0001 0004 00000000", in, sizeof in);
    ck_assert_int_eq(ofp_match_decode(in, n, &m, &used, err, sizeof err), 0);
    ck_assert_uint_eq(m.n, 0);
    ck_assert_uint_eq(used, 8);
    /* padding missing */
    ck_assert_int_eq(ofp_match_decode(in, 4, &m, &used, err, sizeof err), OFP_E_LENGTH);
    ck_assert_int_eq(ofp_match_decode(in, 3, &m, &used, err, sizeof err), OFP_E_SHORT);
    /* length below 4 */
    n = hex2bin("0001 0000 00000000", in, sizeof in);
    ck_assert_int_eq(ofp_match_decode(in, n, &m, &used, err, sizeof err), OFP_E_LENGTH);
    /* not OXM */
    n = hex2bin("0000 0004 00000000", in, sizeof in);
    ck_assert_int_eq(ofp_match_decode(in, n, &m, &used, err, sizeof err), OFP_E_TYPE);
    /* OXM length overruns the match */
    n = hex2bin("0001 000c 80000008 00000001 00000000", in, sizeof in);
    ck_assert_int_eq(ofp_match_decode(in, n, &m, &used, err, sizeof err), OFP_E_LENGTH);
    ck_assert_ptr_nonnull(strstr(err, "overruns"));
    /* a zero-length IN_PORT: wrong size for the field */
    n = hex2bin("0001 0008 80000000 00000000", in, sizeof in);
    ck_assert_int_eq(ofp_match_decode(in, n, &m, &used, err, sizeof err), OFP_E_LENGTH);
    /* zero-length TLVs of a foreign class: skipped, each advances 4 bytes */
    n = hex2bin("0001 000c 00010000 00010000 00000000", in, sizeof in);
    ck_assert_int_eq(ofp_match_decode(in, n, &m, &used, err, sizeof err), 0);
    ck_assert_uint_eq(m.n, 2);
    /* a masked field of the wrong size */
    n = hex2bin("0001 000a 80000d02 1000 000000000000", in, sizeof in);
    ck_assert_int_eq(ofp_match_decode(in, n, &m, &used, err, sizeof err), OFP_E_LENGTH);
    /* 3 stray bytes after a TLV */
    n = hex2bin("0001 0007 000100 00", in, sizeof in);
    ck_assert_int_eq(ofp_match_decode(in, n, &m, &used, err, sizeof err), OFP_E_SHORT);
}
END_TEST

START_TEST(match_caps)
{
    struct ofp_match m;
    size_t used, off = 4, i;

    /* 41 IN_PORT TLVs: over the cap */
    in[0] = 0, in[1] = 1;
    for (i = 0; i < OFP_MAX_OXM + 1; i++, off += 8) {
        hex2bin("80000004 00000001", in + off, 8);
    }
    set_len(in, off);   /* bytes 2-3 are the match length */
    memset(in + off, 0, 8);
    ck_assert_int_eq(ofp_match_decode(in, off + 8, &m, &used, err, sizeof err), OFP_E_LIMIT);
    m.n = 0;
    for (i = 0; i < OFP_MAX_OXM; i++)
        ck_assert_int_eq(ofp_match_add_uint(&m, OFPXMT_IN_PORT, 1, NULL, err, sizeof err), 0);
    ck_assert_int_eq(ofp_match_add_uint(&m, OFPXMT_IN_PORT, 1, NULL, err, sizeof err),
                     OFP_E_LIMIT);
    /* builders check sizes and ranges */
    m.n = 0;
    ck_assert_int_eq(ofp_match_add_uint(&m, OFPXMT_VLAN_PCP, 256, NULL, err, sizeof err),
                     OFP_E_INVAL);
    ck_assert_int_eq(ofp_match_add(&m, 45, "ab", NULL, 2, err, sizeof err), OFP_E_INVAL);
}
END_TEST

START_TEST(match_masked_round_trip)
{
    struct ofp_match m = {0}, back;
    struct ofp_buf b;
    uint64_t vmask = 0x1000, ipmask = 0xffffff00;
    size_t used;

    ck_assert_int_eq(ofp_match_add_uint(&m, OFPXMT_VLAN_VID, 0x1000, &vmask, err, sizeof err), 0);
    ck_assert_int_eq(ofp_match_add_uint(&m, OFPXMT_ETH_TYPE, 0x800, NULL, err, sizeof err), 0);
    ck_assert_int_eq(ofp_match_add_uint(&m, OFPXMT_IPV4_SRC, 0x0a000000, &ipmask, err,
                                        sizeof err), 0);
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_match_encode(&b, &m, err, sizeof err), 0);
    ck_assert_buf_hex(&b, "0001 001e 80000d04 10001000 80000a02 0800 80001708 0a000000 ffffff00"
                          " 0000");
    ck_assert_int_eq(ofp_match_decode(b.data, b.len, &back, &used, err, sizeof err), 0);
    ck_assert_uint_eq(used, b.len);
    ck_assert_uint_eq(back.n, 3);
    ck_assert(back.oxm[0].hasmask);
    ck_assert_uint_eq(ofp_oxm_mask_uint(&back.oxm[0]), 0x1000);
    ck_assert_uint_eq(ofp_oxm_mask_uint(&back.oxm[2]), 0xffffff00);
    ofp_buf_free(&b);
}
END_TEST

/* ---- actions and instructions ---- */
START_TEST(actions_round_trip)
{
    struct ofp_action a[5] = {
        {.type = OFPAT_PUSH_VLAN, .ethertype = 0x88a8},
        {.type = OFPAT_SET_FIELD},
        {.type = OFPAT_OUTPUT, .port = 2, .max_len = 0xffff},
        {.type = OFPAT_POP_VLAN},
        {.type = OFPAT_SET_QUEUE, .queue_id = 3},
    }, back[8];
    struct ofp_buf b;
    unsigned n;

    ck_assert_int_eq(ofp_oxm_set_uint(&a[1].field, OFPXMT_VLAN_VID, 42 | OFPVID_PRESENT, NULL,
                                      err, sizeof err), 0);
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_actions_encode(&b, a, 5, err, sizeof err), 0);
    ck_assert_buf_hex(&b, "0011 0008 88a8 0000  0019 0010 80000c02 102a 000000000000"
                          "  0000 0010 00000002 ffff 000000000000  0012 0008 00000000"
                          "  0015 0008 00000003");
    ck_assert_int_eq(ofp_actions_decode(b.data, b.len, back, 8, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 5);
    ck_assert_uint_eq(back[0].ethertype, 0x88a8);
    ck_assert_uint_eq(back[1].field.field, OFPXMT_VLAN_VID);
    ck_assert_uint_eq(ofp_oxm_value_uint(&back[1].field), 0x102a);
    ck_assert_uint_eq(back[2].port, 2);
    ck_assert_uint_eq(back[3].type, OFPAT_POP_VLAN);
    ck_assert_uint_eq(back[4].queue_id, 3);
    /* cap */
    ck_assert_int_eq(ofp_actions_decode(b.data, b.len, back, 4, &n, err, sizeof err),
                     OFP_E_LIMIT);
    ofp_buf_free(&b);
    /* a type we cannot encode */
    a[0].type = 11;
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_actions_encode(&b, a, 1, err, sizeof err), OFP_E_INVAL);
    ck_assert_uint_eq(b.len, 0);
    ofp_buf_free(&b);
}
END_TEST

START_TEST(actions_hostile)
{
    struct ofp_action back[8];
    unsigned n;
    size_t len;

    len = hex2bin("0000 0000 00000000", in, sizeof in);   /* zero length */
    ck_assert_int_eq(ofp_actions_decode(in, len, back, 8, &n, err, sizeof err), OFP_E_LENGTH);
    len = hex2bin("0012 000c 00000000 00000000", in, sizeof in);   /* 12: not a multiple of 8 */
    ck_assert_int_eq(ofp_actions_decode(in, len, back, 8, &n, err, sizeof err), OFP_E_LENGTH);
    len = hex2bin("0012 0010 00000000", in, sizeof in);   /* overrun */
    ck_assert_int_eq(ofp_actions_decode(in, len, back, 8, &n, err, sizeof err), OFP_E_LENGTH);
    len = hex2bin("0000 0008 00000002", in, sizeof in);   /* output needs 16 */
    ck_assert_int_eq(ofp_actions_decode(in, len, back, 8, &n, err, sizeof err), OFP_E_LENGTH);
    len = hex2bin("0019 0008 80000c08", in, sizeof in);   /* set_field OXM overrun */
    ck_assert_int_eq(ofp_actions_decode(in, len, back, 8, &n, err, sizeof err), OFP_E_LENGTH);
    len = hex2bin("0012 00", in, sizeof in);   /* 3 bytes */
    ck_assert_int_eq(ofp_actions_decode(in, len, back, 8, &n, err, sizeof err), OFP_E_SHORT);
    len = hex2bin("ffff 0010 00002320 00000000 00000000", in, sizeof in);   /* experimenter: kept */
    ck_assert_int_eq(ofp_actions_decode(in, len, back, 8, &n, err, sizeof err), 0);
    ck_assert_uint_eq(back[0].type, 0xffff);
    ck_assert_uint_eq(back[0].len, 16);
}
END_TEST

START_TEST(instructions_round_trip_and_hostile)
{
    struct ofp_instructions *s = calloc(1, sizeof *s), *back = calloc(1, sizeof *back);
    struct ofp_instruction gt = {.type = OFPIT_GOTO_TABLE, .table_id = 2},
                           wm = {.type = OFPIT_WRITE_METADATA, .metadata = 5,
                                 .metadata_mask = 0xff},
                           me = {.type = OFPIT_METER, .meter_id = 9},
                           ap = {.type = OFPIT_APPLY_ACTIONS},
                           cl = {.type = OFPIT_CLEAR_ACTIONS};
    struct ofp_action pop = {.type = OFPAT_POP_VLAN};
    struct ofp_buf b;
    size_t len;

    ck_assert_int_eq(ofp_instructions_add_action(s, &pop, err, sizeof err), OFP_E_INVAL);
    ck_assert_int_eq(ofp_instructions_add(s, &me, err, sizeof err), 0);
    ck_assert_int_eq(ofp_instructions_add(s, &ap, err, sizeof err), 0);
    ck_assert_int_eq(ofp_instructions_add_action(s, &pop, err, sizeof err), 0);
    ck_assert_int_eq(ofp_instructions_add(s, &cl, err, sizeof err), 0);
    ck_assert_int_eq(ofp_instructions_add_action(s, &pop, err, sizeof err), OFP_E_INVAL);
    ck_assert_int_eq(ofp_instructions_add(s, &wm, err, sizeof err), 0);
    ck_assert_int_eq(ofp_instructions_add(s, &gt, err, sizeof err), 0);
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_instructions_encode(&b, s, err, sizeof err), 0);
    ck_assert_buf_hex(&b, "0006 0008 00000009  0004 0010 00000000 0012 0008 00000000"
                          "  0005 0008 00000000  0002 0018 00000000 0000000000000005"
                          " 00000000000000ff  0001 0008 02000000");
    ck_assert_int_eq(ofp_instructions_decode(b.data, b.len, back, err, sizeof err), 0);
    ck_assert_uint_eq(back->n, 5);
    ck_assert_uint_eq(back->ins[0].meter_id, 9);
    ck_assert_uint_eq(back->ins[1].n_actions, 1);
    ck_assert_uint_eq(back->ins[3].metadata_mask, 0xff);
    ck_assert_uint_eq(back->ins[4].table_id, 2);
    ofp_buf_free(&b);

    len = hex2bin("0001 0000 02000000", in, sizeof in);
    ck_assert_int_eq(ofp_instructions_decode(in, len, back, err, sizeof err), OFP_E_LENGTH);
    len = hex2bin("0002 0008 00000000", in, sizeof in);   /* write_metadata needs 24 */
    ck_assert_int_eq(ofp_instructions_decode(in, len, back, err, sizeof err), OFP_E_LENGTH);
    len = hex2bin("0009 0008 00000000", in, sizeof in);
    ck_assert_int_eq(ofp_instructions_decode(in, len, back, err, sizeof err), OFP_E_TYPE);
    /* apply_actions whose action list has a zero-length action */
    len = hex2bin("0004 0010 00000000 0000 0000 00000000", in, sizeof in);
    ck_assert_int_eq(ofp_instructions_decode(in, len, back, err, sizeof err), OFP_E_LENGTH);
    /* 9 goto_table: over the cap */
    for (len = 0; len < 72; len += 8)
        hex2bin("0001 0008 01000000", in + len, 8);
    ck_assert_int_eq(ofp_instructions_decode(in, len, back, err, sizeof err), OFP_E_LIMIT);
    free(s);
    free(back);
}
END_TEST

/* ---- ports ---- */
static void sample_port(struct ofp_port *p)
{
    memset(p, 0, sizeof *p);
    p->port_no = 2;
    memcpy(p->hw_addr, "\x62\x4e\x0a\x01\x02\x03", 6);
    strcpy(p->name, "s1-eth2");
    p->state = OFPPS_LIVE;
    p->curr = 0x840;
    p->curr_speed = 10000000;
    p->max_speed = 0;
}

START_TEST(port_status_round_trip)
{
    struct ofp_port_status ps = {.xid = 0, .reason = OFPPR_MODIFY}, back;
    struct ofp_buf b;

    sample_port(&ps.desc);
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_port_status_encode(&b, &ps, err, sizeof err), 0);
    ck_assert_uint_eq(b.len, 80);
    ck_assert_buf_hex(&b, "040c0050 00000000 02 00000000000000 00000002 00000000 624e0a010203"
                          " 0000 73312d65746832000000000000000000 00000000 00000004 00000840"
                          " 00000000 00000000 00000000 00989680 00000000");
    ck_assert_int_eq(ofp_port_status_decode(b.data, b.len, &back, err, sizeof err), 0);
    ck_assert_uint_eq(back.reason, OFPPR_MODIFY);
    ck_assert_str_eq(back.desc.name, "s1-eth2");
    ck_assert_uint_eq(back.desc.state, OFPPS_LIVE);
    ck_assert_uint_eq(back.desc.curr_speed, 10000000);
    /* a 16-character name has no NUL on the wire */
    memset(b.data + 32, 'x', 16);
    ck_assert_int_eq(ofp_port_status_decode(b.data, b.len, &back, err, sizeof err), 0);
    ck_assert_uint_eq(strlen(back.desc.name), 16);
    set_len(b.data, 79);
    ck_assert_int_eq(ofp_port_status_decode(b.data, 79, &back, err, sizeof err), OFP_E_SHORT);
    ofp_buf_free(&b);
}
END_TEST

START_TEST(port_desc_iterate)
{
    struct ofp_buf b;
    struct ofp_multipart mp;
    struct ofp_port p, got;
    size_t start, off = 0;
    int count = 0, rc;

    sample_port(&p);
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_multipart_reply_begin(&b, 9, OFPMP_PORT_DESC, 0, &start), 0);
    ofp_port_encode(&b, &p, err, sizeof err);
    p.port_no = OFPP_LOCAL;
    strcpy(p.name, "s1");
    ofp_port_encode(&b, &p, err, sizeof err);
    ck_assert_int_eq(ofp_msg_finish(&b, start, err, sizeof err), 0);
    ck_assert_int_eq(ofp_multipart_decode(b.data, b.len, OFPT_MULTIPART_REPLY, &mp, err,
                                          sizeof err), 0);
    ck_assert_uint_eq(mp.type, OFPMP_PORT_DESC);
    while ((rc = ofp_port_desc_next(mp.body, mp.body_len, &off, &got, err, sizeof err)) == 1)
        count++;
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(count, 2);
    ck_assert_str_eq(got.name, "s1");
    /* a partial trailing port */
    off = 0;
    count = 0;
    while ((rc = ofp_port_desc_next(mp.body, mp.body_len - 1, &off, &got, err, sizeof err)) == 1)
        count++;
    ck_assert_int_eq(count, 1);
    ck_assert_int_eq(rc, OFP_E_SHORT);
    ck_assert_int_eq(ofp_multipart_decode(b.data, b.len, OFPT_MULTIPART_REQUEST, &mp, err,
                                          sizeof err), OFP_E_TYPE);
    ofp_buf_free(&b);
}
END_TEST

/* ---- multipart FLOW ---- */
START_TEST(flow_stats_request_bytes)
{
    struct ofp_flow_stats_request r;
    struct ofp_buf b;

    ofp_flow_stats_request_init(&r);
    r.xid = 0x1234;
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_flow_stats_request_encode(&b, &r, err, sizeof err), 0);
    ck_assert_buf_hex(&b, "04120038 00001234 0001 0000 00000000 ff000000 ffffffff ffffffff"
                          " 00000000 00000000000000000000000000000000 0001 0004 00000000");
    b.len = 0;
    ck_assert_int_eq(ofp_multipart_request_encode(&b, 5, OFPMP_PORT_DESC, 0, NULL, 0, err,
                                                  sizeof err), 0);
    ck_assert_buf_hex(&b, "04120010 00000005 000d 0000 00000000");
    ofp_buf_free(&b);
}
END_TEST

START_TEST(flow_stats_reply_round_trip)
{
    struct ofp_flow_stats *fs = calloc(1, sizeof *fs), *got = calloc(1, sizeof *got);
    struct ofp_instruction ap = {.type = OFPIT_APPLY_ACTIONS};
    struct ofp_action out = {.type = OFPAT_OUTPUT, .port = 1, .max_len = 0xffff};
    struct ofp_multipart mp;
    struct ofp_buf b;
    size_t start, off = 0;
    int rc, count = 0;

    fs->table_id = 0;
    fs->priority = 20000;
    fs->cookie = 0xaa00000000000001ull;
    fs->packet_count = 10;
    fs->byte_count = 1000;
    fs->duration_sec = 3;
    ofp_match_add_uint(&fs->match, OFPXMT_IN_PORT, 1, NULL, err, sizeof err);
    ofp_instructions_add(&fs->instructions, &ap, err, sizeof err);
    ofp_instructions_add_action(&fs->instructions, &out, err, sizeof err);
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_multipart_reply_begin(&b, 77, OFPMP_FLOW, OFPMPF_REPLY_MORE, &start), 0);
    ck_assert_int_eq(ofp_flow_stats_encode(&b, fs, err, sizeof err), 0);
    fs->priority = 1;
    fs->match.n = 0;
    ck_assert_int_eq(ofp_flow_stats_encode(&b, fs, err, sizeof err), 0);
    ck_assert_int_eq(ofp_msg_finish(&b, start, err, sizeof err), 0);
    ck_assert_int_eq(ofp_frame_next(b.data, b.len), (int)b.len);
    ck_assert_int_eq(ofp_multipart_decode(b.data, b.len, OFPT_MULTIPART_REPLY, &mp, err,
                                          sizeof err), 0);
    ck_assert_uint_eq(mp.xid, 77);
    ck_assert_uint_eq(mp.flags & OFPMPF_REPLY_MORE, 1);
    while ((rc = ofp_flow_stats_next(mp.body, mp.body_len, &off, got, err, sizeof err)) == 1) {
        count++;
        if (count == 1) {
            ck_assert_uint_eq(got->priority, 20000);
            ck_assert_uint_eq(got->cookie, 0xaa00000000000001ull);
            ck_assert_uint_eq(got->packet_count, 10);
            ck_assert_uint_eq(got->byte_count, 1000);
            ck_assert_uint_eq(got->match.n, 1);
            ck_assert_uint_eq(got->instructions.actions[0].port, 1);
        }
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(count, 2);
    ck_assert_uint_eq(got->priority, 1);
    /* an entry whose length runs past the body */
    off = 0;
    ck_assert_int_eq(ofp_flow_stats_next(mp.body, mp.body_len - 8, &off, got, err, sizeof err),
                     1);
    ck_assert_int_eq(ofp_flow_stats_next(mp.body, mp.body_len - 8, &off, got, err, sizeof err),
                     OFP_E_LENGTH);
    /* an entry length that is not a multiple of 8 */
    off = 0;
    memcpy(in, b.data + 16, b.len - 16);
    in[1] = (uint8_t)(in[1] + 1);
    ck_assert_int_eq(ofp_flow_stats_next(in, b.len - 16, &off, got, err, sizeof err),
                     OFP_E_LENGTH);
    ofp_buf_free(&b);
    free(fs);
    free(got);
}
END_TEST

/* ---- PACKET_IN / PACKET_OUT ---- */
#define LLDP_FRAME                                                                            \
    "0180c200000e ee0000000102 81000ed7 88cc 0209 07 0000000000000001 0405 07 00000002"       \
    " 0602 0078 0000"

START_TEST(packet_in_ovs)
{
    struct ofp_packet_in pi;
    struct ofp_buf b;
    size_t n;

    /* OVS: NO_BUFFER, reason ACTION, table 0, the flow's cookie, IN_PORT match, 2 pad, frame */
    n = hex2bin("040a0054 00000000 ffffffff 002a 01 00 ab00000000000001"
                " 0001 000c 80000004 00000003 00000000 0000 " LLDP_FRAME, in, sizeof in);
    ck_assert_uint_eq(n, 0x54);
    ck_assert_int_eq(ofp_packet_in_decode(in, n, &pi, err, sizeof err), 0);
    ck_assert_uint_eq(pi.buffer_id, OFP_NO_BUFFER);
    ck_assert_uint_eq(pi.total_len, 42);
    ck_assert_uint_eq(pi.reason, 1);
    ck_assert_uint_eq(pi.cookie, 0xab00000000000001ull);
    ck_assert_uint_eq(ofp_packet_in_port(&pi), 3);
    ck_assert_uint_eq(pi.data_len, 42);
    ck_assert_uint_eq(pi.data[16], 0x88);
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_packet_in_encode(&b, &pi, err, sizeof err), 0);
    ck_assert_uint_eq(b.len, n);
    ck_assert_int_eq(memcmp(b.data, in, n), 0);
    ofp_buf_free(&b);
    /* no room for the 2 pad bytes */
    set_len(in, 40);
    ck_assert_int_eq(ofp_packet_in_decode(in, 40, &pi, err, sizeof err), OFP_E_SHORT);
    /* match length overruns the message */
    set_len(in, 0x54);
    in[27] = 0xff;
    ck_assert_int_eq(ofp_packet_in_decode(in, n, &pi, err, sizeof err), OFP_E_LENGTH);
}
END_TEST

START_TEST(packet_out_lldp)
{
    struct ofp_packet_out *po = calloc(1, sizeof *po), *back = calloc(1, sizeof *back);
    uint8_t frame[64];
    struct ofp_buf b;

    po->xid = 1;
    po->buffer_id = OFP_NO_BUFFER;
    po->in_port = OFPP_CONTROLLER;
    po->n_actions = 1;
    po->actions[0] = (struct ofp_action){.type = OFPAT_OUTPUT, .port = 2, .max_len = 0xffff};
    po->data_len = hex2bin(LLDP_FRAME, frame, sizeof frame);
    po->data = frame;
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_packet_out_encode(&b, po, err, sizeof err), 0);
    ck_assert_uint_eq(b.len, 82);   /* southbound.md 3.1 */
    ck_assert_buf_hex(&b, "040d0052 00000001 ffffffff fffffffd 0010 000000000000"
                          " 0000 0010 00000002 ffff 000000000000 " LLDP_FRAME);
    ck_assert_int_eq(ofp_packet_out_decode(b.data, b.len, back, err, sizeof err), 0);
    ck_assert_uint_eq(back->in_port, OFPP_CONTROLLER);
    ck_assert_uint_eq(back->n_actions, 1);
    ck_assert_uint_eq(back->data_len, 42);
    /* actions_len overruns */
    b.data[17] = 0x50;
    ck_assert_int_eq(ofp_packet_out_decode(b.data, b.len, back, err, sizeof err), OFP_E_LENGTH);
    ofp_buf_free(&b);
    free(po);
    free(back);
}
END_TEST

START_TEST(flow_removed_and_desc)
{
    struct ofp_flow_removed fr, back;
    struct ofp_desc d = {.mfr_desc = "Nicira, Inc.", .hw_desc = "Open vSwitch",
                         .sw_desc = "3.1.0", .serial_num = "None", .dp_desc = "s1"}, got;
    struct ofp_buf b;
    size_t n;

    /* OVS: a removed SEND_FLOW_REM flow with an in_port match is 64 bytes */
    n = hex2bin("040b0040 00000000 aa00000000000001 4e20 02 00 00000005 00000006 0000 0000"
                " 0000000000000007 0000000000000008 0001 000c 80000004 00000001 00000000",
                in, sizeof in);
    ck_assert_uint_eq(n, 64);
    ck_assert_int_eq(ofp_flow_removed_decode(in, n, &fr, err, sizeof err), 0);
    ck_assert_uint_eq(fr.cookie, 0xaa00000000000001ull);
    ck_assert_uint_eq(fr.priority, 20000);
    ck_assert_uint_eq(fr.reason, 2);
    ck_assert_uint_eq(fr.duration_nsec, 6);
    ck_assert_uint_eq(fr.byte_count, 8);
    ck_assert_uint_eq(ofp_oxm_value_uint(ofp_match_find(&fr.match, OFPXMT_IN_PORT)), 1);
    ofp_buf_init(&b);
    ck_assert_int_eq(ofp_flow_removed_encode(&b, &fr, err, sizeof err), 0);
    ck_assert_uint_eq(b.len, n);
    ck_assert_int_eq(memcmp(b.data, in, n), 0);
    /* bytes after the match */
    memset(in + 64, 0, 8);
    set_len(in, 72);
    ck_assert_int_eq(ofp_flow_removed_decode(in, 72, &back, err, sizeof err), OFP_E_LENGTH);
    set_len(in, 55);
    ck_assert_int_eq(ofp_flow_removed_decode(in, 55, &back, err, sizeof err), OFP_E_SHORT);

    b.len = 0;
    ck_assert_int_eq(ofp_desc_encode(&b, &d, err, sizeof err), 0);
    ck_assert_uint_eq(b.len, OFP_DESC_LEN);
    ck_assert_int_eq(ofp_desc_decode(b.data, b.len, &got, err, sizeof err), 0);
    ck_assert_str_eq(got.hw_desc, "Open vSwitch");
    ck_assert_str_eq(got.serial_num, "None");
    ck_assert_str_eq(got.dp_desc, "s1");
    ck_assert_int_eq(ofp_desc_decode(b.data, b.len - 1, &got, err, sizeof err), OFP_E_LENGTH);
    /* unterminated fields stay within their width */
    memset(b.data + 768, 'x', 32);
    ck_assert_int_eq(ofp_desc_decode(b.data, b.len, &got, err, sizeof err), 0);
    ck_assert_uint_eq(strlen(got.serial_num), 32);
    ofp_buf_free(&b);
}
END_TEST

START_TEST(names_and_errors)
{
    ck_assert_str_eq(ofp_type_name(OFPT_FLOW_MOD), "ofpt_flow_mod");
    ck_assert_str_eq(ofp_type_name(OFPT_PORT_STATUS), "ofpt_port_status");
    ck_assert_str_eq(ofp_type_name(200), "ofpt_unknown");
    ck_assert_str_eq(ofp_strerror(OFP_E_LENGTH), "bad length");
    /* err may be NULL */
    ck_assert_int_eq(ofp_frame_next((const uint8_t *)"\x04\x00\x00\x01", 4), OFP_E_LENGTH);
    ck_assert_int_eq(ofp_header_decode((const uint8_t *)"\x04", 1, &(struct ofp_header){0}, NULL,
                                       0), OFP_E_SHORT);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("ofp_codec");
    TCase *t = tcase_create("codec");

    tcase_add_test(t, frame_lengths);
    tcase_add_test(t, frame_full_65535);
    tcase_add_test(t, header_mismatch);
    tcase_add_test(t, hello_encode_decode);
    tcase_add_test(t, hello_hostile);
    tcase_add_test(t, echo_round_trip);
    tcase_add_test(t, features_config_barrier);
    tcase_add_test(t, error_round_trip);
    tcase_add_test(t, flow_mod_lldp_bytes);
    tcase_add_test(t, flow_mod_cookie_delete);
    tcase_add_test(t, flow_mod_truncations);
    tcase_add_test(t, match_hostile);
    tcase_add_test(t, match_caps);
    tcase_add_test(t, match_masked_round_trip);
    tcase_add_test(t, actions_round_trip);
    tcase_add_test(t, actions_hostile);
    tcase_add_test(t, instructions_round_trip_and_hostile);
    tcase_add_test(t, port_status_round_trip);
    tcase_add_test(t, port_desc_iterate);
    tcase_add_test(t, flow_stats_request_bytes);
    tcase_add_test(t, flow_stats_reply_round_trip);
    tcase_add_test(t, packet_in_ovs);
    tcase_add_test(t, packet_out_lldp);
    tcase_add_test(t, flow_removed_and_desc);
    tcase_add_test(t, names_and_errors);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
