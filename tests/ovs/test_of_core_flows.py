"""of_core + flow_manager on real Open vSwitch (TAP): flows POSTed through
REST appear in the switch (ovs-ofctl dump-flows: match, priority, cookie,
table, actions) and become "installed" after the barrier; DELETE removes
them; a flow OVS refuses (nw_src without dl_type: OFPBMC_BAD_PREREQ) is
removed from the store as Kytos does; flow stats polling keeps them
installed; a restart of kytosd with the flows stored installs nothing
again (the flows' ages in OVS keep growing).  SKIP without OVS or root."""
import os
import re
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ofcore_env as env  # noqa: E402
from ofcore_env import ovs_harness, Tap  # noqa: E402

NAPPS = ["of_core.so", "topology.so", "flow_manager.so"]
OF_CORE = {"stats_interval": 0.5}
COOKIE = 0xab00000000000001
t = Tap()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def durations(net, sw):
    """{(priority, cookie): duration in seconds} from dump-flows with stats."""
    out = net.ofctl(sw, "dump-flows")
    d = {}
    for line in out.splitlines():
        m = re.search(r"cookie=(0x[0-9a-f]+), duration=([0-9.]+)s.*priority=(\d+)", line)
        if m:
            d[(int(m.group(3)), int(m.group(1), 16))] = float(m.group(2))
    return d


def live_flows(k, dpid):
    """Stored flows not marked deleted."""
    return [f for f in env.stored_flows(k, dpid) if f.get("state") != "deleted"]


def by_priority(flows, prio):
    return [f for f in flows if f["priority"] == prio]


def main():
    why = env.skip_reason()
    if why:
        print("1..0 # SKIP test_of_core_flows: " + why)
        return 0
    port = free_port()
    k = env.start_kytosd(NAPPS, of_core=OF_CORE, port=port)
    net = None
    try:
        net = ovs_harness.OvsNet()
        net.add_switches(2, port)
        d1 = net.dpid("s1")
        ok = k.wait_for(lambda: env.all_active(k, [d1, net.dpid("s2")]), 20)
        t.ok(ok, "two switches connected", env.switches(k).keys())

        f1 = {"priority": 1000, "cookie": COOKIE, "table_id": 0,
              "match": {"in_port": 1, "dl_vlan": 100},
              "actions": [{"action_type": "output", "port": 2}]}
        f2 = {"priority": 2000, "match": {"dl_type": 2048, "nw_src": "198.51.100.1"},
              "actions": [{"action_type": "push_vlan", "tag_type": "c"},
                          {"action_type": "set_vlan", "vlan_id": 200},
                          {"action_type": "output", "port": 1}]}
        st, _, body, _ = k.request("POST", env.FLOWS + "flows/" + d1, body={"flows": [f1, f2]})
        t.ok(st == 202, "POST two flows: 202", body)
        ok = k.wait_for(lambda: len(net.dump_flows("s1")) == 2, 10)
        flows = net.dump_flows("s1")
        a, b = by_priority(flows, 1000), by_priority(flows, 2000)
        t.ok(ok and len(a) == 1 and a[0]["cookie"] == COOKIE and a[0]["table"] == 0
             and a[0]["match"] == "in_port=1,dl_vlan=100" and a[0]["actions"] == "output:2",
             "flow 1 in the switch: match, priority, cookie, table, actions", flows)
        t.ok(len(b) == 1 and b[0]["cookie"] == 0 and b[0]["match"] == "ip,nw_src=198.51.100.1"
             and b[0]["actions"] == "push_vlan:0x8100,set_field:4296->vlan_vid,output:1",
             "flow 2 in the switch: match, priority, actions", flows)
        ok = k.wait_for(lambda: len(live_flows(k, d1)) == 2 and
                        all(f.get("state") == "installed" for f in live_flows(k, d1)), 10)
        t.ok(ok, "both stored flows become installed", live_flows(k, d1))

        # a flow OVS refuses: OXM prerequisite (nw_src without dl_type)
        bad = {"priority": 3000, "match": {"nw_src": "198.51.100.9"},
               "actions": [{"action_type": "output", "port": 1}]}
        st, _, body, _ = k.request("POST", env.FLOWS + "flows/" + d1, body={"flows": [bad]})
        t.ok(st == 202, "POST a flow the switch will refuse: 202", body)
        ok = k.wait_for(lambda: "OFPBMC_BAD_PREREQ" in k.logtext() and
                        not any(f.get("flow", {}).get("priority") == 3000
                                for f in live_flows(k, d1)), 10)
        t.ok(ok and not by_priority(net.dump_flows("s1"), 3000) and len(live_flows(k, d1)) == 2,
             "the refused flow is removed from the store (OFPT_ERROR BAD_MATCH/BAD_PREREQ)",
             (live_flows(k, d1), k.logtext()))

        # DELETE by cookie
        st, _, body, _ = k.request("DELETE", env.FLOWS + "flows/" + d1,
                                   body={"flows": [{"cookie": COOKIE, "cookie_mask": 2**64 - 1}]})
        t.ok(st == 202, "DELETE by cookie: 202", body)
        ok = k.wait_for(lambda: len(net.dump_flows("s1")) == 1, 10)
        t.ok(ok and by_priority(net.dump_flows("s1"), 2000) and
             k.wait_for(lambda: len(live_flows(k, d1)) == 1, 5),
             "the deleted flow is gone from the switch and the store",
             (net.dump_flows("s1"), live_flows(k, d1)))

        # flow stats polling (every 0.5 s): nothing changes in the switch
        st, _, js, _ = k.request("GET", "/api/kytos/core/status/")
        before = durations(net, "s1")
        t0 = time.time()
        k.wait_for(lambda: False, 1.5)
        after = durations(net, "s1")
        t.ok(len(after) == 1 and list(after.values())[0] >= list(before.values())[0] + 1.0,
             "flow stats polling leaves the installed flow alone", (before, after))

        # restart kytosd with the flow stored
        rc = k.stop()
        t.ok(rc == 0, "kytosd stops", k.logtext())
        before = durations(net, "s1")
        t0 = time.time()
        k2 = env.start_kytosd(NAPPS, of_core=OF_CORE, reuse=k, port=port)
        k = k2
        ok = k.wait_for(lambda: env.all_active(k, [d1]), 30)
        t.ok(ok, "after the restart the switch reconnects", env.switches(k).get(d1))
        k.wait_for(lambda: False, 1.5)   # three stats rounds
        after = durations(net, "s1")
        elapsed = time.time() - t0
        key = (2000, 0)
        t.ok(list(after) == [key] and after[key] >= before[key] + elapsed - 0.5,
             "no flow installed again after the restart (same flow, its age kept growing)",
             (before, after, elapsed))
        t.ok(len(live_flows(k, d1)) == 1 and
             live_flows(k, d1)[0].get("state") == "installed",
             "the stored flow is still installed", live_flows(k, d1))
    finally:
        k.stop()
        k.cleanup()
        if net:
            net.stop()
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
