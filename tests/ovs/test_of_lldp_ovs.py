"""of_lldp on real Open vSwitch through of_core (TAP): three switches in a
ring of veth pairs, kytosd with of_core, topology, flow_manager and of_lldp.
The punt flow (cookie 0xab<<56|dpid, priority 50000, dl_vlan 3799 + LLDP ->
CONTROLLER) reaches every switch through flow_manager, the three links are
discovered in topology from the LLDP frames, liveness comes up on one
link, and when that link's frames stop (a higher-priority drop of LLDP on
one end, the ports staying up) liveness takes it down.  SKIP without OVS or
root; stops only what it started."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ofcore_env as env  # noqa: E402
from ofcore_env import ovs_harness, Kytosd, Tap  # noqa: E402

NAPPS = ["of_core.so", "topology.so", "flow_manager.so", "of_lldp.so"]
LLDP = "/api/kytos/of_lldp/v1/"
CONF = ("[daemon]\n\n[kytos/topology]\nenable_entities_by_default = true\nlink_up_timer = 0\n"
        "\n[kytos/of_lldp]\npolling_time = 1\nliveness_dead_multiplier = 2\n"
        # the test's own drop flow (cookie 0xdd) is no alien to flow_manager's consistency check
        "\n[kytos/flow_manager]\nconsistency_cookie_ignored_range = [221]\n")
t = Tap()


def links(k):
    st, _, js, _ = k.request("GET", env.TOPO + "links")
    return js.get("links", {}) if st == 200 and isinstance(js, dict) else {}


def link_between(k, a, b):
    for link in links(k).values():
        ends = {link.get("endpoint_a", {}).get("id"), link.get("endpoint_b", {}).get("id")}
        if ends == {a, b}:
            return link
    return None


def main():
    why = env.skip_reason() or ovs_harness.missing_netns()
    if why:
        print("1..0 # SKIP test_of_lldp_ovs: " + why)
        return 0
    k = Kytosd(napps=NAPPS, settings={"protocol_name": "openflow"}, conf=CONF)
    net = None
    try:
        net = ovs_harness.OvsNet()
        net.add_switches(3, env.of_port(k))
        names = ["s1", "s2", "s3"]
        dpid = {s: net.dpid(s) for s in names}
        pairs = [("s1", "s2"), ("s2", "s3"), ("s3", "s1")]
        ends = []   # interface ids of each veth link
        for a, b in pairs:
            pa, pb = net.link_veth(a, b)
            ends.append(("%s:%d" % (dpid[a], net.ofport(pa)), "%s:%d" % (dpid[b], net.ofport(pb))))
        ok = k.wait_for(lambda: env.all_active(k, dpid.values()), 30)
        t.ok(ok, "three switches connected and active", env.switches(k))

        def punted(s):
            cookie = (0xab << 56) | int(dpid[s].replace(":", ""), 16)
            return [f for f in net.dump_flows(s) if f["cookie"] == cookie]
        ok = k.wait_for(lambda: all(len(punted(s)) == 1 for s in names), 30)
        flows = {s: punted(s) for s in names}
        good = ok and all(f[0]["priority"] == 50000 and "dl_vlan=3799" in f[0]["match"]
                          and "dl_type=0x88cc" in f[0]["match"] and f[0]["actions"] == "CONTROLLER:65535"
                          for f in flows.values())
        t.ok(good, "the LLDP punt flow is in every switch (through flow_manager)", flows)

        ok = k.wait_for(lambda: all(link_between(k, a, b) for a, b in ends), 30)
        t.ok(ok, "the three links are discovered in topology", links(k))
        ok = k.wait_for(lambda: all((link_between(k, a, b) or {}).get("status") == "UP"
                                    for a, b in ends), 15)
        t.ok(ok, "the three links are UP", links(k))

        a, b = ends[0]
        st, _, body, _ = k.request("POST", LLDP + "liveness/enable", body={"interfaces": [a, b]})
        t.ok(st == 200 and body == {}, "liveness enabled on s1-s2", (st, body))
        ok = k.wait_for(lambda: (link_between(k, a, b) or {}).get("metadata", {})
                        .get("liveness_status") == "up", 20)
        t.ok(ok, "liveness is up on s1-s2", link_between(k, a, b))

        # s2 stops receiving s1's frames; the ports stay up
        port_b = int(b.rsplit(":", 1)[1])
        net.ofctl("s2", "add-flow",
                  "cookie=0xdd,priority=60000,in_port=%d,dl_type=0x88cc,actions=drop" % port_b)
        ok = k.wait_for(lambda: (link_between(k, a, b) or {}).get("metadata", {})
                        .get("liveness_status") == "down", 30)
        link = link_between(k, a, b) or {}
        t.ok(ok and link.get("status") == "DOWN" and "liveness" in link.get("status_reason", []),
             "frames stopped: liveness takes s1-s2 down (ports still up)", link)
        others = [link_between(k, x, y) or {} for x, y in ends[1:]]
        t.ok(all(o.get("status") == "UP" for o in others), "the other links stay UP", others)
        st, _, body, _ = k.request("GET", LLDP + "liveness/pair")
        pair = (body.get("pairs") or [{}])[0] if isinstance(body, dict) else {}
        t.ok(st == 200 and pair.get("status") == "down", "GET liveness/pair says down", body)
    finally:
        k.stop()
        k.cleanup()
        if net:
            net.stop()
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
