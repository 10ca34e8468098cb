/* tests/ofp/check_ofp_json.c - the JSON bridge: Kytos flow dicts to
 * FLOW_MOD bytes (southbound.md 2.5 / 7.4), errors naming the bad field,
 * and flow stats / ports back to Kytos' JSON shapes. */
#include "check_tap.h"
#include "ofp_test_util.h"

#include <json-c/json.h>
#include <stdio.h>

static char err[256];

/* Encode flow (JSON text) with command and xid 0x11; returns rc, bytes in b. */
static int encode(const char *flow_json, uint8_t command, struct ofp_buf *b)
{
    struct json_object *flow = json_tokener_parse(flow_json);
    int rc;

    ck_assert_msg(flow != NULL, "bad test JSON: %s", flow_json);
    ofp_buf_init(b);
    err[0] = '\0';
    rc = ofp_flow_mod_from_json(flow, command, 0x11, b, err, sizeof err);
    json_object_put(flow);
    return rc;
}

/* The match part of a FLOW_MOD (after the 48 fixed bytes) as hex. */
static char *match_hex(const struct ofp_buf *b)
{
    size_t mlen = (size_t)b->data[50] << 8 | b->data[51];
    return bin2hex(b->data + 48, (mlen + 7) / 8 * 8);
}

static void assert_match(const char *match_json, const char *want_hex)
{
    char flow[512], *got, want[512];
    struct ofp_buf b;
    size_t i, w = 0;

    snprintf(flow, sizeof flow, "{\"match\": %s}", match_json);
    ck_assert_msg(encode(flow, OFPFC_ADD, &b) == 0, "%s: %s", match_json, err);
    got = match_hex(&b);
    for (i = 0; want_hex[i]; i++)
        if (want_hex[i] != ' ')
            want[w++] = want_hex[i];
    want[w] = '\0';
    ck_assert_msg(strcmp(got, want) == 0, "%s: got %s want %s", match_json, got, want);
    free(got);
    ofp_buf_free(&b);
}

static void assert_error(const char *flow_json, const char *needle)
{
    struct ofp_buf b;
    int rc = encode(flow_json, OFPFC_ADD, &b);

    ck_assert_msg(rc == OFP_E_INVAL, "%s: rc %d", flow_json, rc);
    ck_assert_msg(strstr(err, needle) != NULL, "%s: error \"%s\" lacks \"%s\"", flow_json, err,
                  needle);
    ck_assert_uint_eq(b.len, 0);
    ofp_buf_free(&b);
}

START_TEST(lldp_punt_flow)
{
    struct ofp_buf b;

    ck_assert_int_eq(encode("{\"table_id\": 0, \"priority\": 50000, \"cookie\":"
                            " 12321848580485677057, \"match\": {\"dl_type\": 35020, \"dl_vlan\":"
                            " 3799}, \"actions\": [{\"action_type\": \"output\", \"port\":"
                            " 4294967293}], \"owner\": \"of_lldp\"}", OFPFC_ADD, &b), 0);
    /* southbound.md 7.4 [pyof]: flags SEND_FLOW_REM */
    ck_assert_buf_hex(&b, "040e0058 00000011 ab00000000000001 0000000000000000 00 00 0000 0000"
                          " c350 ffffffff ffffffff ffffffff 0001 0000"
                          " 0001 0010 80000c02 1ed7 80000a02 88cc"
                          " 0004 0018 00000000 0000 0010 fffffffd ffff 000000000000");
    ofp_buf_free(&b);
}
END_TEST

START_TEST(cookie_delete)
{
    struct ofp_buf b;

    ck_assert_int_eq(ofp_flow_mod_command_from_name("delete"), OFPFC_DELETE);
    ck_assert_int_eq(ofp_flow_mod_command_from_name("delete_strict"), OFPFC_DELETE_STRICT);
    ck_assert_int_eq(ofp_flow_mod_command_from_name("add"), OFPFC_ADD);
    ck_assert_int_eq(ofp_flow_mod_command_from_name("remove"), -1);
    ck_assert_int_eq(encode("{\"cookie\": 12249790986447749121, \"cookie_mask\":"
                            " 18446744073709551615}", OFPFC_DELETE, &b), 0);
    ck_assert_buf_hex(&b, "040e0038 00000011 aa00000000000001 ffffffffffffffff 00 03 0000 0000"
                          " 8000 ffffffff ffffffff ffffffff 0001 0000 0001 0004 00000000");
    ofp_buf_free(&b);
}
END_TEST

START_TEST(match_order_and_forms)
{
    /* JSON order does not matter: of_core's prerequisite order */
    assert_match("{\"nw_src\": \"10.0.0.1\", \"dl_type\": 2048, \"in_port\": 1}",
                 "0001 001a 80000004 00000001 80000a02 0800 80001604 0a000001 000000000000");
    assert_match("{\"dl_vlan\": 0}", "0001 000a 80000c02 0000 000000000000");
    assert_match("{\"dl_vlan\": 100}", "0001 000a 80000c02 1064 000000000000");
    assert_match("{\"dl_vlan\": \"4096/4096\"}", "0001 000c 80000d04 10001000 00000000");
    assert_match("{\"dl_vlan\": \"100/4095\"}", "0001 000c 80000d04 10641fff 00000000");
    assert_match("{\"dl_vlan\": 3799, \"dl_vlan_pcp\": 3}",
                 "0001 000f 80000c02 1ed7 80000e01 03 00");
    assert_match("{\"dl_type\": 2048, \"nw_dst\": \"10.0.0.0/24\"}",
                 "0001 0016 80000a02 0800 80001908 0a000000 ffffff00 0000");
    assert_match("{\"dl_type\": 2048, \"nw_src\": \"10.1.0.0/255.255.0.0\"}",
                 "0001 0016 80000a02 0800 80001708 0a010000 ffff0000 0000");
    assert_match("{\"dl_type\": 2048, \"nw_src\": \"10.0.0.9/32\"}",
                 "0001 0012 80000a02 0800 80001604 0a000009 000000000000");
    assert_match("{\"dl_src\": \"AA:bb:cc:dd:ee:01\"}", "0001 000e 80000806 aabbccddee01 0000");
    assert_match("{\"dl_dst\": \"aa:bb:cc:00:00:00/ff:ff:ff:00:00:00\"}",
                 "0001 0014 8000070c aabbcc000000 ffffff000000 00000000");
    assert_match("{\"dl_dst\": \"aa:bb:cc:00:00:00/ff:ff:ff:ff:ff:ff\"}",
                 "0001 000e 80000606 aabbcc000000 0000");
    assert_match("{\"dl_type\": 34525, \"ipv6_src\": \"2001:db8::/32\"}",
                 "0001 002e 80000a02 86dd 80003520 20010db8000000000000000000000000"
                 " ffffffff000000000000000000000000 0000");
    assert_match("{\"dl_type\": 2048, \"nw_proto\": 6, \"tp_dst\": 80, \"ip_dscp\": 46}",
                 "0001 001a 80000a02 0800 80001401 06 80001c02 0050 80001001 2e 000000000000");
    assert_match("{\"metadata\": \"5/255\", \"tun_id\": 7}",
                 "0001 0024 80000510 0000000000000005 00000000000000ff"
                 " 80004c08 0000000000000007 00000000");
    /* unknown keys and nulls are ignored */
    assert_match("{\"foo\": 1, \"in_port\": null}", "0001 0004 00000000");
}
END_TEST

START_TEST(instructions_and_actions)
{
    struct ofp_buf b;
    struct ofp_flow_mod *fm = malloc(sizeof *fm);

    /* mef_eline's "any" UNI: pop, push s, set_vlan, output; actions before instructions */
    ck_assert_int_eq(encode("{\"match\": {\"in_port\": 1, \"dl_vlan\": \"4096/4096\"},"
                            " \"instructions\": [{\"instruction_type\": \"goto_table\","
                            " \"table_id\": 2}], \"actions\": [{\"action_type\": \"pop_vlan\"},"
                            " {\"action_type\": \"push_vlan\", \"tag_type\": \"s\"},"
                            " {\"action_type\": \"set_vlan\", \"vlan_id\": 42},"
                            " {\"action_type\": \"set_queue\", \"queue_id\": 1},"
                            " {\"action_type\": \"output\", \"port\": 2}]}", OFPFC_ADD, &b),
                     0);
    ck_assert_int_eq(ofp_flow_mod_decode(b.data, b.len, fm, err, sizeof err), 0);
    ck_assert_uint_eq(fm->instructions.n, 2);
    ck_assert_uint_eq(fm->instructions.ins[0].type, OFPIT_APPLY_ACTIONS);
    ck_assert_uint_eq(fm->instructions.ins[1].type, OFPIT_GOTO_TABLE);
    ck_assert_uint_eq(fm->instructions.ins[1].table_id, 2);
    ck_assert_uint_eq(fm->instructions.n_actions, 5);
    ck_assert_uint_eq(fm->instructions.actions[0].type, OFPAT_POP_VLAN);
    ck_assert_uint_eq(fm->instructions.actions[1].ethertype, 0x88a8);
    ck_assert_uint_eq(ofp_oxm_value_uint(&fm->instructions.actions[2].field), 0x102a);
    ck_assert_uint_eq(fm->instructions.actions[3].queue_id, 1);
    ck_assert_uint_eq(fm->instructions.actions[4].max_len, 0xffff);
    ck_assert_uint_eq(fm->flags, OFPFF_SEND_FLOW_REM);
    ofp_buf_free(&b);

    ck_assert_int_eq(encode("{\"instructions\": [{\"instruction_type\": \"write_metadata\","
                            " \"metadata\": 1}, {\"instruction_type\": \"meter\", \"meter_id\":"
                            " 3}, {\"instruction_type\": \"clear_actions\"},"
                            " {\"instruction_type\": \"write_actions\", \"actions\":"
                            " [{\"action_type\": \"push_vlan\", \"tag_type\": \"c\"}]}]}",
                            OFPFC_ADD, &b), 0);
    ck_assert_int_eq(ofp_flow_mod_decode(b.data, b.len, fm, err, sizeof err), 0);
    ck_assert_uint_eq(fm->instructions.n, 4);
    ck_assert_uint_eq(fm->instructions.ins[0].metadata, 1);
    ck_assert_uint_eq(fm->instructions.ins[0].metadata_mask, 0);
    ck_assert_uint_eq(fm->instructions.ins[1].meter_id, 3);
    ck_assert_uint_eq(fm->instructions.actions[0].ethertype, 0x8100);
    ofp_buf_free(&b);
    free(fm);
}
END_TEST

START_TEST(errors_name_the_field)
{
    assert_error("[1]", "flow: not an object");
    assert_error("{\"priority\": 70000}", "priority");
    assert_error("{\"cookie\": -1}", "cookie: negative");
    assert_error("{\"table_id\": \"0\"}", "table_id: not an integer");
    assert_error("{\"match\": []}", "match: not an object");
    assert_error("{\"match\": {\"dl_vlan\": \"abc\"}}", "match.dl_vlan");
    assert_error("{\"match\": {\"dl_vlan\": 4096}}", "match.dl_vlan");
    assert_error("{\"match\": {\"dl_vlan\": \"5\"}}", "match.dl_vlan");
    assert_error("{\"match\": {\"dl_vlan_pcp\": 8}}", "match.dl_vlan_pcp");
    assert_error("{\"match\": {\"dl_src\": \"aa:bb:cc:dd:ee\"}}", "match.dl_src");
    assert_error("{\"match\": {\"nw_src\": \"10.0.0.300\"}}", "match.nw_src");
    assert_error("{\"match\": {\"nw_src\": \"10.0.0.0/33\"}}", "match.nw_src");
    assert_error("{\"match\": {\"ipv6_dst\": \"10.0.0.1\"}}", "match.ipv6_dst");
    assert_error("{\"match\": {\"in_port\": true}}", "match.in_port: not an integer");
    assert_error("{\"match\": {\"metadata\": \"1/x\"}}", "match.metadata");
    assert_error("{\"actions\": {}}", "actions: not a list");
    assert_error("{\"actions\": [{\"action_type\": \"output\"}]}", "actions[0].port: missing");
    assert_error("{\"actions\": [{\"action_type\": \"teleport\"}]}",
                 "actions[0].action_type: unknown action \"teleport\"");
    assert_error("{\"instructions\": [{\"instruction_type\": \"apply_actions\", \"actions\":"
                 " [{\"action_type\": \"pop_vlan\"}, {\"action_type\": \"set_vlan\","
                 " \"vlan_id\": 5000}]}]}", "instructions[0].actions[1].vlan_id");
    assert_error("{\"instructions\": [{\"instruction_type\": \"goto\"}]}",
                 "instructions[0].instruction_type: unknown instruction");
    assert_error("{\"instructions\": [{\"instruction_type\": \"goto_table\"}]}",
                 "instructions[0].table_id: missing");
    assert_error("{\"instructions\": [{\"action_type\": \"output\"}]}",
                 "instructions[0].instruction_type: missing");
}
END_TEST

static void assert_json_eq(struct json_object *got, const char *want_json)
{
    struct json_object *want = json_tokener_parse(want_json);

    ck_assert_ptr_nonnull(want);
    ck_assert_ptr_nonnull(got);
    ck_assert_msg(json_object_equal(got, want), "got %s\nwant %s",
                  json_object_to_json_string_ext(got, JSON_C_TO_STRING_PLAIN),
                  json_object_to_json_string_ext(want, JSON_C_TO_STRING_PLAIN));
    json_object_put(want);
}

START_TEST(flow_stats_to_json)
{
    struct ofp_flow_stats *fs = calloc(1, sizeof *fs);
    struct ofp_instruction ap = {.type = OFPIT_APPLY_ACTIONS};
    struct ofp_action set = {.type = OFPAT_SET_FIELD},
                      out = {.type = OFPAT_OUTPUT, .port = 2, .max_len = 0xffff};
    uint64_t vmask = 0x1000;
    struct json_object *j;

    /* OVS lists ETH_TYPE before VLAN_VID and set_field VLAN_VID with 0x1000 */
    fs->priority = 50000;
    fs->cookie = 0xab00000000000001ull;
    fs->packet_count = 4;
    fs->byte_count = 168;
    fs->duration_sec = 12;
    fs->duration_nsec = 5;
    ofp_match_add_uint(&fs->match, OFPXMT_ETH_TYPE, 0x88cc, NULL, err, sizeof err);
    ofp_match_add_uint(&fs->match, OFPXMT_VLAN_VID, 0x1ed7, NULL, err, sizeof err);
    ofp_oxm_set_uint(&set.field, OFPXMT_VLAN_VID, 0x102a, NULL, err, sizeof err);
    ofp_instructions_add(&fs->instructions, &ap, err, sizeof err);
    ofp_instructions_add_action(&fs->instructions, &set, err, sizeof err);
    ofp_instructions_add_action(&fs->instructions, &out, err, sizeof err);
    j = ofp_flow_stats_to_json(fs, "00:00:00:00:00:00:00:01");
    assert_json_eq(j, "{\"switch\": \"00:00:00:00:00:00:00:01\", \"table_id\": 0, \"match\":"
                      " {\"dl_type\": 35020, \"dl_vlan\": 3799}, \"priority\": 50000,"
                      " \"idle_timeout\": 0, \"hard_timeout\": 0, \"cookie\":"
                      " 12321848580485677057, \"cookie_mask\": 0, \"instructions\":"
                      " [{\"instruction_type\": \"apply_actions\", \"actions\":"
                      " [{\"action_type\": \"set_vlan\", \"vlan_id\": 42}, {\"action_type\":"
                      " \"output\", \"port\": 2}]}], \"stats\": {\"byte_count\": 168,"
                      " \"duration_sec\": 12, \"duration_nsec\": 5, \"packet_count\": 4}}");
    json_object_put(j);

    /* masked forms back: 4096/4096 stays, CIDR, MAC mask, v/m */
    fs->match.n = 0;
    fs->instructions.n = 0;
    fs->instructions.n_actions = 0;
    ofp_match_add_uint(&fs->match, OFPXMT_VLAN_VID, 0x1000, &vmask, err, sizeof err);
    ofp_match_add(&fs->match, OFPXMT_ETH_DST, "\xaa\xbb\xcc\x00\x00\x00",
                  "\xff\xff\xff\x00\x00\x00", 6, err, sizeof err);
    ofp_match_add(&fs->match, OFPXMT_IPV4_SRC, "\x0a\x00\x00\x00", "\xff\xff\xff\x00", 4, err,
                  sizeof err);
    ofp_match_add(&fs->match, OFPXMT_IPV6_DST, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01",
                  NULL, 16, err, sizeof err);
    vmask = 0xff;
    ofp_match_add_uint(&fs->match, OFPXMT_METADATA, 5, &vmask, err, sizeof err);
    j = ofp_match_to_json(&fs->match);
    assert_json_eq(j, "{\"dl_vlan\": \"4096/4096\", \"dl_dst\":"
                      " \"aa:bb:cc:00:00:00/ff:ff:ff:00:00:00\", \"nw_src\": \"10.0.0.0/24\","
                      " \"ipv6_dst\": \"2001:db8::1\", \"metadata\": \"5/255\"}");
    json_object_put(j);
    j = ofp_flow_stats_to_json(fs, NULL);
    ck_assert(!json_object_object_get_ex(j, "switch", NULL));
    json_object_put(j);
    free(fs);
}
END_TEST

/* JSON -> FLOW_MOD bytes -> decode -> JSON gives the canonical match back. */
START_TEST(json_round_trip)
{
    static const char *const matches[] = {
        "{\"in_port\": 1, \"dl_vlan\": 100}",
        "{\"dl_vlan\": \"4096/4096\"}",
        "{\"dl_vlan\": 0}",
        "{\"dl_type\": 2048, \"nw_src\": \"192.168.0.0/16\", \"nw_proto\": 17, \"udp_dst\": 53}",
        "{\"dl_type\": 34525, \"ipv6_src\": \"fe80::1\", \"ipv6_dst\": \"2001:db8::/48\"}",
        "{\"dl_src\": \"00:00:00:00:00:01\", \"arp_op\": 1, \"dl_type\": 2054, \"arp_tpa\":"
        " \"10.0.0.2\"}",
        "{\"mpls_lab\": 1000, \"mpls_tc\": 2, \"mpls_bos\": 1, \"dl_type\": 34887}",
    };
    struct ofp_flow_mod *fm = malloc(sizeof *fm);
    size_t i;

    for (i = 0; i < sizeof matches / sizeof matches[0]; i++) {
        char flow[512];
        struct ofp_buf b;
        struct json_object *got;
        snprintf(flow, sizeof flow, "{\"match\": %s}", matches[i]);
        ck_assert_msg(encode(flow, OFPFC_ADD, &b) == 0, "%s: %s", matches[i], err);
        ck_assert_int_eq(ofp_flow_mod_decode(b.data, b.len, fm, err, sizeof err), 0);
        got = ofp_match_to_json(&fm->match);
        assert_json_eq(got, matches[i]);
        json_object_put(got);
        ofp_buf_free(&b);
    }
    free(fm);
}
END_TEST

START_TEST(port_to_json)
{
    struct ofp_port p = {.port_no = OFPP_LOCAL, .hw_addr = {0x62, 0x4e, 0, 0, 0, 0xff},
                         .config = 1, .state = 1, .curr = 0x840, .curr_speed = 10000000};
    struct json_object *j;

    memcpy(p.name, "br\x01x", 5);
    j = ofp_port_to_json(&p);
    assert_json_eq(j, "{\"port_number\": 4294967294, \"name\": \"br?x\", \"mac\":"
                      " \"62:4e:00:00:00:ff\", \"config\": 1, \"state\": 1, \"curr\": 2112,"
                      " \"advertised\": 0, \"supported\": 0, \"peer\": 0, \"curr_speed\":"
                      " 10000000, \"max_speed\": 0}");
    json_object_put(j);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("ofp_json");
    TCase *t = tcase_create("json");

    tcase_add_test(t, lldp_punt_flow);
    tcase_add_test(t, cookie_delete);
    tcase_add_test(t, match_order_and_forms);
    tcase_add_test(t, instructions_and_actions);
    tcase_add_test(t, errors_name_the_field);
    tcase_add_test(t, flow_stats_to_json);
    tcase_add_test(t, json_round_trip);
    tcase_add_test(t, port_to_json);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
