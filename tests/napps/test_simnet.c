/* tests/napps/test_simnet.c - kytos/simnet through the in-process test host:
 * the networks its settings build, the events it publishes (the contract in
 * plugins/simnet/simnet.h), its REST API and its flow tables. */
#include "check_tap.h"
#include "await.h"
#include "tmpdir.h"
#include <kytos/kytos.h>
#include <kytos/test.h>

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIMNET_SO NAPP_DIR "/simnet.so"
#define SIM "/api/kytos/simnet/v1/"
#define S1 "00:00:00:00:00:00:00:01"
#define S2 "00:00:00:00:00:00:00:02"
#define S3 "00:00:00:00:00:00:00:03"
#define L13 "c8b55359990f89a5849813dc348d30e9e1f991bad1dcb7f82112bd35429d9b07"
#define FLOW_MOD "kytos/flow_manager.messages.out.ofpt_flow_mod"

static kytos_test_host *th;

static kytos_test_host *host_with(const char *conf)
{
    struct kytos_test_opts o = {.struct_size = sizeof(o), .conf_text = conf};
    kytos_test_host *h = kytos_test_host_new(&o);

    ck_assert_ptr_nonnull(h);
    ck_assert_msg(kytos_test_load(h, SIMNET_SO) == 0, "simnet: %s", kytos_test_last_error(h));
    ck_assert_int_eq(kytos_test_start(h), 0);
    ck_assert_int_eq(kytos_test_drain(h, 10000), 0);
    return h;
}

static void setup(void)
{
    th = host_with(NULL);
}

static void teardown(void)
{
    kytos_test_host_free(th);
    th = NULL;
}

static struct json_object *get(struct json_object *o, const char *a, const char *b)
{
    struct json_object *v = o;

    if (a)
        ck_assert_msg(json_object_object_get_ex(v, a, &v), "missing %s", a);
    if (b)
        ck_assert_msg(json_object_object_get_ex(v, b, &v), "missing %s", b);
    return v;
}

static kytos_test_resp *call(const char *method, const char *path, const char *body, unsigned status)
{
    kytos_test_resp *r = kytos_test_request(th, method, path, body);
    size_t len = 0;

    ck_assert_ptr_nonnull(r);
    ck_assert_msg(kytos_test_resp_status(r) == status, "%s %s: %u, want %u: %.300s", method, path,
                  kytos_test_resp_status(r), status, kytos_test_resp_body(r, &len));
    return r;
}

static void expect(const char *method, const char *path, const char *body, unsigned status)
{
    kytos_test_resp_free(call(method, path, body, status));
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
}

static void expect_error(const char *method, const char *path, const char *body, unsigned status,
                         const char *description)
{
    kytos_test_resp *r = call(method, path, body, status);

    ck_assert_str_eq(json_object_get_string(get(kytos_test_resp_json(r), "description", NULL)), description);
    kytos_test_resp_free(r);
}

static size_t count(const char *name)
{
    return kytos_test_published_count(th, name);
}

static struct json_object *network(void)
{
    kytos_test_resp *r = call("GET", SIM, NULL, 200);
    struct json_object *copy = NULL;

    ck_assert_int_eq(json_object_deep_copy(kytos_test_resp_json(r), &copy, NULL), 0);
    kytos_test_resp_free(r);
    return copy;
}

static int n_flows(const char *dpid)
{
    char path[128];
    kytos_test_resp *r;
    int n;

    snprintf(path, sizeof(path), SIM "flows/%s", dpid);
    r = call("GET", path, NULL, 200);
    n = (int)json_object_array_length(get(get(kytos_test_resp_json(r), dpid, NULL), "flows", NULL));
    kytos_test_resp_free(r);
    return n;
}

/* FlowMods dpid applied since start (GET v1/) */
static int flow_mods(const char *dpid)
{
    struct json_object *net = network();
    int n = json_object_get_int(get(get(get(net, "switches", dpid), "flow_mods", NULL), NULL, NULL));

    json_object_put(net);
    return n;
}

START_TEST(default_ring_events)
{
    struct json_object *net = network(), *c, *i;

    ck_assert_str_eq(json_object_get_string(get(net, "shape", NULL)), "ring");
    ck_assert_int_eq(json_object_object_length(get(net, "switches", NULL)), 3);
    ck_assert_int_eq(json_object_object_length(get(net, "links", NULL)), 3);
    ck_assert_str_eq(json_object_get_string(get(get(get(net, "links", L13), "endpoint_a", NULL), NULL, NULL)),
                     S1 ":4");
    json_object_put(net);
    ck_assert_uint_eq(count("kytos/core.switch.new"), 3);
    ck_assert_uint_eq(count("kytos/of_core.switch.interfaces.created"), 3);
    ck_assert_uint_eq(count("kytos/of_lldp.interface.is.nni"), 3);

    c = kytos_test_published(th, "kytos/core.switch.new", 0);
    ck_assert_str_eq(json_object_get_string(get(c, "switch", "dpid")), S1);
    ck_assert_str_eq(json_object_get_string(get(c, "switch", "connection")), "127.0.0.1:56246");
    ck_assert_str_eq(json_object_get_string(get(c, "switch", "software")), "3.1.0");
    ck_assert_str_eq(json_object_get_string(get(c, "switch", "data_path")), "s1");

    c = kytos_test_published(th, "kytos/of_core.switch.interfaces.created", 0);
    ck_assert_int_eq(json_object_array_length(get(c, "interfaces", NULL)), 5);
    i = json_object_array_get_idx(get(c, "interfaces", NULL), 0);
    ck_assert_str_eq(json_object_get_string(get(i, "id", NULL)), S1 ":1");
    ck_assert_str_eq(json_object_get_string(get(i, "name", NULL)), "s1-eth1");
    ck_assert_str_eq(json_object_get_string(get(i, "mac", NULL)), "46:20:82:3c:fd:e6");
    ck_assert_str_eq(json_object_to_json_string(get(i, "speed", NULL)), "1250000000.0");
    ck_assert(json_object_get_boolean(get(i, "active", NULL)));
    i = json_object_array_get_idx(get(c, "interfaces", NULL), 4);
    ck_assert_str_eq(json_object_get_string(get(i, "id", NULL)), S1 ":4294967294");
    ck_assert_str_eq(json_object_get_string(get(i, "name", NULL)), "s1");
    ck_assert(!json_object_get_boolean(get(i, "active", NULL)));
    ck_assert_int_eq(json_object_get_int(get(i, "speed", NULL)), 0);

    c = kytos_test_published(th, "kytos/of_lldp.interface.is.nni", 2);
    ck_assert_str_eq(json_object_get_string(get(get(c, "interface_a", NULL), "id", NULL)), S1 ":4");
    ck_assert_str_eq(json_object_get_string(get(get(c, "interface_b", NULL), "id", NULL)), S3 ":3");
}
END_TEST

START_TEST(shapes_from_settings)
{
    static const struct {
        const char *conf;
        int switches, links, ports_s1;
    } cases[] = {
        {"[kytos/simnet]\nshape = \"linear\"\nswitches = 4\n", 4, 3, 4},
        {"[kytos/simnet]\nshape = \"mesh\"\nswitches = 4\n", 4, 6, 6},
        {"[kytos/simnet]\nshape = \"ring\"\nswitches = 2\n", 2, 1, 4},
        {"[kytos/simnet]\nswitches = 1\n", 1, 0, 3},
        {"[kytos/simnet]\nshape = \"mesh\"\nswitches = 3\nhost_ports = 0\n", 3, 3, 3},
    };

    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        struct json_object *net;
        kytos_test_host_free(th);
        th = host_with(cases[k].conf);
        net = network();
        ck_assert_int_eq(json_object_object_length(get(net, "switches", NULL)), cases[k].switches);
        ck_assert_int_eq(json_object_object_length(get(net, "links", NULL)), cases[k].links);
        ck_assert_int_eq(json_object_object_length(get(get(net, "switches", S1), "ports", NULL)),
                         cases[k].ports_s1);
        ck_assert_uint_eq(count("kytos/of_lldp.interface.is.nni"), (size_t)cases[k].links);
        json_object_put(net);
    }
}
END_TEST

START_TEST(bad_settings_refuse_the_napp)
{
    static const char *const bad[] = {
        "[kytos/simnet]\nshape = \"star\"\n",
        "[kytos/simnet]\nswitches = 0\n",
        "[kytos/simnet]\nswitches = 100000\n",
        "[kytos/simnet]\nshape = \"mesh\"\nswitches = 65\n",
        "[kytos/simnet]\nswitches = \"3\"\n",
        "[kytos/simnet]\nhost_ports = -1\n",
        "[kytos/simnet]\novs_version = 3\n",
        "[kytos/simnet]\nflow_stats_interval = 1.5\n",
    };

    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        struct kytos_test_opts o = {.struct_size = sizeof(o), .conf_text = bad[k]};
        kytos_test_host *h = kytos_test_host_new(&o);
        ck_assert_ptr_nonnull(h);
        ck_assert_msg(kytos_test_load(h, SIMNET_SO) < 0, "accepted: %s", bad[k]);
        ck_assert_ptr_nonnull(strstr(kytos_test_last_error(h), "simnet:"));
        ck_assert_int_eq(kytos_test_start(h), 0);
        kytos_test_host_free(h);
    }
}
END_TEST

START_TEST(link_and_port_down_up)
{
    struct json_object *c, *net;

    expect("POST", SIM "links/" L13 "/down", NULL, 200);
    ck_assert_uint_eq(count("kytos/of_core.switch.interface.link_down"), 2);
    c = kytos_test_published(th, "kytos/of_core.switch.interface.link_down", 0);
    ck_assert(!json_object_get_boolean(get(get(c, "interface", NULL), "active", NULL)));
    net = network();
    ck_assert(!json_object_get_boolean(get(get(net, "links", L13), "up", NULL)));
    json_object_put(net);
    expect("POST", SIM "links/" L13 "/down", NULL, 200);  /* idempotent: no new events */
    ck_assert_uint_eq(count("kytos/of_core.switch.interface.link_down"), 2);
    expect("POST", SIM "links/" L13 "/up", NULL, 200);
    ck_assert_uint_eq(count("kytos/of_core.switch.interface.link_up"), 2);
    ck_assert_uint_eq(count("kytos/of_lldp.interface.is.nni"), 4);

    expect("POST", SIM "interfaces/" S2 ":1/down", NULL, 200);
    ck_assert_uint_eq(count("kytos/of_core.switch.interface.link_down"), 3);
    expect("POST", SIM "interfaces/" S2 ":1/up", NULL, 200);
    ck_assert_uint_eq(count("kytos/of_core.switch.interface.link_up"), 3);
    ck_assert_uint_eq(count("kytos/of_lldp.interface.is.nni"), 4);  /* a host port: no LLDP */

    expect_error("POST", SIM "links/nope/down", NULL, 404, "Link not found");
    expect_error("POST", SIM "interfaces/" S2 ":99/down", NULL, 404, "Interface not found");
    expect_error("POST", SIM "interfaces/garbage/up", NULL, 404, "Interface not found");
}
END_TEST

START_TEST(switch_add_remove_reconnect)
{
    kytos_test_resp *r;
    struct json_object *net;
    const char *dpid;

    r = call("POST", SIM "switches", "{\"peers\":[\"" S1 "\",\"" S3 "\"]}", 201);
    dpid = json_object_get_string(get(kytos_test_resp_json(r), "dpid", NULL));
    ck_assert_str_eq(dpid, "00:00:00:00:00:00:00:04");
    ck_assert_int_eq(json_object_array_length(get(kytos_test_resp_json(r), "links", NULL)), 2);
    kytos_test_resp_free(r);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(count("kytos/core.switch.new"), 4);
    ck_assert_uint_eq(count("kytos/of_core.switch.interface.created"), 2);
    ck_assert_uint_eq(count("kytos/of_lldp.interface.is.nni"), 5);
    net = network();
    ck_assert_int_eq(json_object_object_length(get(get(net, "switches", "00:00:00:00:00:00:00:04"), "ports", NULL)), 4);
    ck_assert_int_eq(json_object_object_length(get(get(net, "switches", S1), "ports", NULL)), 6);
    json_object_put(net);

    expect_error("POST", SIM "switches", "{\"dpid\":\"" S1 "\"}", 409, "Switch already exists");
    expect_error("POST", SIM "switches", "{\"peers\":[\"nope\"]}", 404, "Peer switch not found");
    expect_error("POST", SIM "switches", "{\"peers\":[\"" S1 "\",\"" S1 "\"]}", 400, "peers must not repeat a switch.");
    expect_error("POST", SIM "switches", "{\"host_ports\":999}", 400, "host_ports must be an integer from 0 to 64.");
    expect_error("POST", SIM "switches", "{\"dpid\":\"a b\"}", 400, "dpid must be a string of 1 to 128 printable characters.");
    expect_error("POST", SIM "switches", "{\"colour\":1}", 400, "Unknown field 'colour'.");
    expect_error("POST", SIM "switches", "[1]", 400, "The request body must be a JSON object.");

    expect("POST", SIM "switches/" S2 "/disconnect", NULL, 200);
    ck_assert_uint_eq(count("kytos/core.connection.lost"), 1);
    expect("POST", SIM "switches/" S2 "/connect", NULL, 200);
    ck_assert_uint_eq(count("kytos/core.switch.reconnected"), 1);
    ck_assert_uint_eq(count("kytos/of_core.switch.interfaces.created"), 5);

    expect("DELETE", SIM "switches/00:00:00:00:00:00:00:04", NULL, 200);
    ck_assert_uint_eq(count("kytos/core.connection.lost"), 2);
    ck_assert_uint_eq(count("kytos/of_core.switch.interface.deleted"), 2);
    net = network();
    ck_assert_int_eq(json_object_object_length(get(net, "switches", NULL)), 3);
    ck_assert_int_eq(json_object_object_length(get(net, "links", NULL)), 3);
    ck_assert_int_eq(json_object_object_length(get(get(net, "switches", S1), "ports", NULL)), 5);
    json_object_put(net);
    expect_error("DELETE", SIM "switches/00:00:00:00:00:00:00:04", NULL, 404, "Switch not found");
    expect_error("POST", SIM "switches/nope/connect", NULL, 404, "Switch not found");
}
END_TEST

START_TEST(flow_mods_and_barriers)
{
    struct json_object *c;
    kytos_test_resp *r;

    ck_assert_int_eq(kytos_test_publish(th, FLOW_MOD,
        "{\"destination\":\"" S1 "\",\"xid\":1,\"command\":\"add\",\"flow\":{\"priority\":10,"
        "\"cookie\":12249790986447749120,\"match\":{\"in_port\":1,\"dl_vlan\":100},"
        "\"actions\":[{\"action_type\":\"output\",\"port\":3}]}}"), 0);
    ck_assert_int_eq(kytos_test_publish(th, FLOW_MOD,
        "{\"destination\":\"" S1 "\",\"xid\":2,\"flow\":{\"priority\":10,\"cookie\":1,"
        "\"match\":{\"in_port\":2},\"actions\":[]}}"), 0);
    /* same match and priority: replaced */
    ck_assert_int_eq(kytos_test_publish(th, FLOW_MOD,
        "{\"destination\":\"" S1 "\",\"xid\":3,\"command\":0,\"flow\":{\"priority\":10,\"cookie\":1,"
        "\"match\":{\"in_port\":2},\"actions\":[{\"action_type\":\"output\",\"port\":4}]}}"), 0);
    ck_assert_int_eq(kytos_test_publish(th, "kytos/flow_manager.messages.out.ofpt_barrier_request",
                                        "{\"destination\":\"" S1 "\",\"xid\":77}"), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 2);
    ck_assert_int_eq(n_flows(S2), 0);
    ck_assert_int_eq(flow_mods(S1), 3);
    ck_assert_uint_eq(count("kytos/of_core.v0x04.messages.in.ofpt_barrier_reply"), 1);
    c = kytos_test_published(th, "kytos/of_core.v0x04.messages.in.ofpt_barrier_reply", 0);
    ck_assert_int_eq(json_object_get_int(get(c, "xid", NULL)), 77);
    ck_assert_str_eq(json_object_get_string(get(c, "source", NULL)), S1);
    r = call("GET", SIM "flows/" S1, NULL, 200);
    c = json_object_array_get_idx(get(get(kytos_test_resp_json(r), S1, NULL), "flows", NULL), 0);
    ck_assert_uint_eq(json_object_get_uint64(get(c, "cookie", NULL)), 12249790986447749120ull);
    kytos_test_resp_free(r);

    /* flow stats, on demand */
    r = call("POST", SIM "flow_stats", NULL, 200);
    ck_assert_int_eq(json_object_get_int(get(kytos_test_resp_json(r), "switches", NULL)), 3);
    kytos_test_resp_free(r);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(count("kytos/of_core.flow_stats.received"), 3);
    c = kytos_test_published(th, "kytos/of_core.flow_stats.received", 0);
    ck_assert_str_eq(json_object_get_string(get(c, "switch", NULL)), S1);
    ck_assert_int_eq(json_object_array_length(get(c, "replies_flows", NULL)), 2);
    c = json_object_array_get_idx(get(c, "replies_flows", NULL), 0);
    ck_assert_str_eq(json_object_get_string(get(c, "switch", NULL)), S1);
    ck_assert(json_object_object_get_ex(get(c, "stats", NULL), "packet_count", NULL));

    /* delete by cookie under a mask */
    ck_assert_int_eq(kytos_test_publish(th, FLOW_MOD,
        "{\"destination\":\"" S1 "\",\"command\":\"delete\",\"flow\":{\"cookie\":12249790986447749120,"
        "\"cookie_mask\":18374686479671623680}}"), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 1);
    /* delete_strict needs the same match and priority */
    ck_assert_int_eq(kytos_test_publish(th, FLOW_MOD,
        "{\"destination\":\"" S1 "\",\"command\":\"delete_strict\",\"flow\":{\"priority\":11,\"match\":{\"in_port\":2}}}"), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 1);
    ck_assert_int_eq(kytos_test_publish(th, FLOW_MOD,
        "{\"destination\":\"" S1 "\",\"command\":\"OFPFC_DELETE_STRICT\",\"flow\":{\"priority\":10,\"match\":{\"in_port\":2}}}"), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 0);
}
END_TEST

static void flow_mod(const char *command, const char *flow)
{
    char buf[1024];

    snprintf(buf, sizeof(buf), "{\"destination\":\"" S1 "\",\"command\":\"%s\",\"flow\":%s}", command, flow);
    ck_assert_int_eq(kytos_test_publish(th, FLOW_MOD, buf), 0);
}

/* port of the k-th flow of S1's table (its first output action) */
static int flow_port(int k)
{
    kytos_test_resp *r = call("GET", SIM "flows/" S1, NULL, 200);
    struct json_object *f = json_object_array_get_idx(get(get(kytos_test_resp_json(r), S1, NULL), "flows", NULL), k);
    int port = json_object_get_int(get(json_object_array_get_idx(get(f, "actions", NULL), 0), "port", NULL));

    kytos_test_resp_free(r);
    return port;
}

/* The table is keyed on (table_id, priority, match): the match's key order
 * and a default written out do not count, the position of a replaced flow is
 * kept, and the non-strict commands still take every covering match. */
START_TEST(flow_table_keys)
{
    char flow[256];

    flow_mod("add", "{\"priority\":10,\"match\":{\"in_port\":1,\"dl_vlan\":100},\"actions\":[{\"port\":1}]}");
    flow_mod("add", "{\"priority\":10,\"match\":{\"in_port\":2,\"dl_vlan\":100},\"actions\":[{\"port\":2}]}");
    flow_mod("add", "{\"table_id\":0,\"priority\":10,\"match\":{\"dl_vlan\":100,\"in_port\":1},\"actions\":[{\"port\":3}]}");
    flow_mod("add", "{\"table_id\":1,\"priority\":10,\"match\":{\"in_port\":1,\"dl_vlan\":100},\"actions\":[{\"port\":4}]}");
    flow_mod("add", "{\"match\":{},\"actions\":[{\"port\":5}]}");
    flow_mod("add", "{\"priority\":32768,\"actions\":[{\"port\":6}]}");   /* the default priority, no match = {} */
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 4);
    ck_assert_int_eq(flow_port(0), 3);   /* replaced where it was */
    ck_assert_int_eq(flow_port(1), 2);
    ck_assert_int_eq(flow_port(2), 4);
    ck_assert_int_eq(flow_port(3), 6);

    /* modify_strict: only the same key, in the request's table */
    flow_mod("modify_strict", "{\"priority\":10,\"match\":{\"dl_vlan\":100,\"in_port\":2},\"actions\":[{\"port\":7}]}");
    flow_mod("modify_strict", "{\"priority\":11,\"match\":{\"in_port\":1,\"dl_vlan\":100},\"actions\":[{\"port\":8}]}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(flow_port(1), 7);
    ck_assert_int_eq(flow_port(0), 3);
    /* non-strict modify: every flow whose match covers {dl_vlan: 100}, any table */
    flow_mod("modify", "{\"match\":{\"dl_vlan\":100},\"actions\":[{\"port\":9}]}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(flow_port(0), 9);
    ck_assert_int_eq(flow_port(1), 9);
    ck_assert_int_eq(flow_port(2), 9);
    ck_assert_int_eq(flow_port(3), 6);
    /* delete_strict in table 1 only; then non-strict delete of in_port 1 */
    flow_mod("delete_strict", "{\"table_id\":1,\"priority\":10,\"match\":{\"dl_vlan\":100,\"in_port\":1}}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 3);
    flow_mod("delete", "{\"match\":{\"in_port\":1}}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 2);
    ck_assert_int_eq(flow_port(0), 9);
    ck_assert_int_eq(flow_port(1), 6);

    /* many flows: each add and each strict delete finds its own */
    for (int k = 0; k < 600; k++) {
        snprintf(flow, sizeof(flow), "{\"priority\":20,\"match\":{\"in_port\":%d,\"dl_vlan\":%d},\"actions\":[]}",
                 k % 3 + 1, k + 1);
        flow_mod("add", flow);
    }
    for (int k = 0; k < 600; k += 2) {
        snprintf(flow, sizeof(flow), "{\"priority\":20,\"match\":{\"dl_vlan\":%d,\"in_port\":%d}}", k + 1, k % 3 + 1);
        flow_mod("delete_strict", flow);
    }
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 302);
    /* the priority does not count: 100 of the 600 and the first flow on port 2 go */
    flow_mod("delete", "{\"priority\":20,\"match\":{\"in_port\":2}}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 201);
    flow_mod("delete", "{}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 0);
}
END_TEST

/* A non-strict command whose mask names one cookie reads that cookie's
 * flows (simnet.h): it still takes each of them and only them, across
 * table growth and an add that replaced a flow under another cookie. */
START_TEST(cookie_commands_take_their_cookie_only)
{
    char flow[256];

    /* 900 flows: cookies 1, 2 and 3 in turn (the table grows several times) */
    for (int k = 0; k < 900; k++) {
        snprintf(flow, sizeof(flow),
                 "{\"priority\":20,\"cookie\":%d,\"match\":{\"in_port\":%d,\"dl_vlan\":%d},"
                 "\"actions\":[{\"port\":1}]}", k % 3 + 1, k % 2 + 1, k + 1);
        flow_mod("add", flow);
    }
    /* the first flow (cookie 1) is replaced by the same key under cookie 4 */
    flow_mod("add", "{\"priority\":20,\"cookie\":4,\"match\":{\"dl_vlan\":1,\"in_port\":1},"
                    "\"actions\":[{\"port\":5}]}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 900);
    /* modify of cookie 4 (full mask): the replaced flow only */
    flow_mod("modify", "{\"cookie\":4,\"cookie_mask\":18446744073709551615,\"actions\":[{\"port\":6}]}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(flow_port(0), 6);
    ck_assert_int_eq(flow_port(1), 1);
    /* delete of cookie 1, and of cookie 2 on in_port 1 only */
    flow_mod("delete", "{\"cookie\":1,\"cookie_mask\":18446744073709551615}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 900 - 299);
    ck_assert_int_eq(flow_port(0), 6);   /* cookie 4 now: kept */
    flow_mod("delete", "{\"cookie\":2,\"cookie_mask\":18446744073709551615,\"match\":{\"in_port\":1}}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 900 - 299 - 150);
    /* a cookie no flow has, then the replaced flow under its new cookie */
    flow_mod("delete", "{\"cookie\":5,\"cookie_mask\":18446744073709551615}");
    flow_mod("delete", "{\"cookie\":4,\"cookie_mask\":18446744073709551615}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 900 - 299 - 150 - 1);
    /* a partial mask still scans: cookies 2 and 3 share bit 1 */
    flow_mod("delete", "{\"cookie\":2,\"cookie_mask\":2}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 0);
}
END_TEST

START_TEST(flow_mod_errors)
{
    struct json_object *c;

    ck_assert_int_eq(kytos_test_publish(th, FLOW_MOD,
        "{\"destination\":\"00:00:00:00:00:00:00:99\",\"xid\":5,\"flow\":{\"priority\":1}}"), 0);
    ck_assert_int_eq(kytos_test_publish(th, FLOW_MOD, "{\"destination\":\"" S1 "\",\"xid\":6,\"flow\":[]}"), 0);
    ck_assert_int_eq(kytos_test_publish(th, FLOW_MOD,
        "{\"destination\":\"" S1 "\",\"xid\":7,\"command\":\"explode\",\"flow\":{}}"), 0);
    ck_assert_int_eq(kytos_test_publish(th, FLOW_MOD, "{\"flow\":{}}"), 0);
    ck_assert_int_eq(kytos_test_publish(th, FLOW_MOD, "{\"destination\":7}"), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(count("kytos/core.openflow.connection.error"), 1);
    c = kytos_test_published(th, "kytos/core.openflow.connection.error", 0);
    ck_assert_str_eq(json_object_get_string(get(c, "exception", NULL)),
                     "switch 00:00:00:00:00:00:00:99 is not connected");
    ck_assert_uint_eq(count("kytos/of_core.v0x04.messages.in.ofpt_error"), 2);
    ck_assert_int_eq(n_flows(S1), 0);

    /* a disconnected switch does not take flows */
    expect("POST", SIM "switches/" S2 "/disconnect", NULL, 200);
    ck_assert_int_eq(kytos_test_publish(th, FLOW_MOD, "{\"destination\":\"" S2 "\",\"flow\":{\"priority\":1}}"), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_uint_eq(count("kytos/core.openflow.connection.error"), 2);
    ck_assert_int_eq(n_flows(S2), 0);
    expect_error("GET", SIM "flows/nope", NULL, 404, "Switch not found");
}
END_TEST

/* S1's and S2's flow tables as GET v1/flows shows them (a new string). */
static char *tables(void)
{
    kytos_test_resp *r = call("GET", SIM "flows", NULL, 200);
    struct json_object *j = kytos_test_resp_json(r), *a = get(get(j, S1, NULL), "flows", NULL),
                       *b = get(get(j, S2, NULL), "flows", NULL);
    char *out = NULL;

    ck_assert_int_ne(asprintf(&out, "%s|%s", json_object_to_json_string(a), json_object_to_json_string(b)), -1);
    kytos_test_resp_free(r);
    return out;
}

static bool ring_announced(const void *h)
{
    return kytos_test_published_count((kytos_test_host *)h, "kytos/of_lldp.interface.is.nni") >= 3;
}

/* A host on dir; kept tables load on simnet's own thread, and the
 * switches connect after: wait for the ring's last link. */
static kytos_test_host *host_in(const char *dir, const char *conf)
{
    struct kytos_test_opts o = {.struct_size = sizeof(o), .conf_text = conf, .data_dir = dir};
    kytos_test_host *h = kytos_test_host_new(&o);

    ck_assert_ptr_nonnull(h);
    ck_assert_msg(kytos_test_load(h, SIMNET_SO) == 0, "simnet: %s", kytos_test_last_error(h));
    ck_assert_int_eq(kytos_test_start(h), 0);
    ck_assert_msg(await_until(ring_announced, h, 20000), "the ring was never announced");
    ck_assert_int_eq(kytos_test_drain(h, 10000), 0);
    return h;
}

static void restart_in(const char *dir, const char *conf)
{
    kytos_test_host_free(th);
    th = host_in(dir, conf);
}

/* Run sql on the store of dir (what anyone with the file could do). */
static void store_sql(const char *dir, const char *sql)
{
    char path[512];
    sqlite3 *db;

    snprintf(path, sizeof(path), "%s/store.db", dir);
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
    ck_assert_int_ge(sqlite3_changes(db), 1);
    sqlite3_close(db);
}

/* keep_flows: a restart meets the tables as they were (install order,
 * modified actions, several documents for a big table, and none left over
 * when it shrinks); a saved document that is not valid is skipped; with
 * keep_flows = false every start is empty. */
START_TEST(flow_tables_survive_a_restart)
{
    const char *dir = tmp_dir;
    char flow[256], cmd[600];
    char *before, *after;

    ck_assert(dir[0]);
    restart_in(dir, NULL);
    for (int k = 0; k < 2500; k++) {
        snprintf(flow, sizeof(flow), "{\"priority\":20,\"cookie\":%d,\"match\":{\"in_port\":%d,\"dl_vlan\":%d},"
                 "\"actions\":[{\"action_type\":\"output\",\"port\":%d}]}", k, k % 3 + 1, k + 1, k % 5);
        flow_mod("add", flow);
    }
    flow_mod("modify", "{\"match\":{\"dl_vlan\":7},\"actions\":[{\"action_type\":\"output\",\"port\":99}]}");
    snprintf(cmd, sizeof(cmd), "{\"destination\":\"" S2 "\",\"command\":\"add\",\"flow\":{\"priority\":5,"
             "\"cookie\":12249790986447749120,\"match\":{},\"instructions\":[{\"instruction_type\":"
             "\"apply_actions\",\"actions\":[{\"action_type\":\"output\",\"port\":1}]}]}}");
    ck_assert_int_eq(kytos_test_publish(th, FLOW_MOD, cmd), 0);
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(flow_mods(S1), 2501);
    ck_assert_int_eq(flow_mods(S2), 1);
    before = tables();

    restart_in(dir, NULL);
    ck_assert_int_eq(n_flows(S1), 2500);
    ck_assert_int_eq(flow_mods(S1), 0);   /* loading is not a FlowMod */
    after = tables();
    ck_assert_str_eq(after, before);
    free(after);
    free(before);

    /* it shrinks to one document: the second is removed, not loaded again */
    flow_mod("delete", "{\"match\":{\"in_port\":1}}");
    flow_mod("delete", "{\"match\":{\"in_port\":2}}");
    ck_assert_int_eq(kytos_test_drain(th, 10000), 0);
    ck_assert_int_eq(n_flows(S1), 833);
    restart_in(dir, NULL);
    ck_assert_int_eq(n_flows(S1), 833);
    ck_assert_int_eq(n_flows(S2), 1);

    /* hostile store: a flow that is not an object, a document of another switch */
    kytos_test_host_free(th);
    th = NULL;
    store_sql(dir, "UPDATE \"c:simnet_flow_tables\" SET doc = json_set(doc, '$.flows[0]', 'nope') "
                   "WHERE id = '" S1 "#0'");
    store_sql(dir, "UPDATE \"c:simnet_flow_tables\" SET doc = json_set(doc, '$.dpid', '" S1 "') "
                   "WHERE id = '" S2 "#0'");
    th = host_in(dir, NULL);
    ck_assert_int_eq(n_flows(S1), 832);
    ck_assert_int_eq(n_flows(S2), 0);

    restart_in(dir, "[kytos/simnet]\nkeep_flows = false\n");
    ck_assert_int_eq(n_flows(S1), 0);
    restart_in(dir, NULL);   /* keep_flows = false saved nothing: the last saved tables */
    ck_assert_int_eq(n_flows(S1), 832);
    /* a list of saved parts that is not valid: that switch starts empty */
    kytos_test_host_free(th);
    th = NULL;
    store_sql(dir, "UPDATE \"c:simnet_flow_tables\" SET doc = json_set(doc, '$.parts.\"" S1 "\"', 'x') "
                   "WHERE id = 'tables'");
    th = host_in(dir, NULL);
    ck_assert_int_eq(n_flows(S1), 0);
    kytos_test_host_free(th);
    th = host_with(NULL);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("simnet");
    TCase *tc = tcase_create("simnet");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, default_ring_events);
    tcase_add_test(tc, shapes_from_settings);
    tcase_add_test(tc, bad_settings_refuse_the_napp);
    tcase_add_test(tc, link_and_port_down_up);
    tcase_add_test(tc, switch_add_remove_reconnect);
    tcase_add_test(tc, flow_mods_and_barriers);
    tcase_add_test(tc, flow_mod_errors);
    tcase_add_test(tc, flow_table_keys);
    tcase_add_test(tc, cookie_commands_take_their_cookie_only);
    tcase_add_test(tc, flow_tables_survive_a_restart);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int rc;

    tmp_dir_make("test_simnet");
    rc = kytos_check_run(suite());
    tmp_dir_remove();
    return rc;
}
