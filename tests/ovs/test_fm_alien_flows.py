"""flow_manager's consistency check, its alien half, on real Open vSwitch
(TAP): a flow put in a switch behind kytosd's back (`ovs-ofctl add-flow`)
is removed by kytosd within the verdict interval (set to 1 s here), a flow
whose cookie is in consistency_cookie_ignored_range stays, and the flow
stored through REST stays in the switch, untouched (its age keeps growing:
nothing deleted or installed again).  SKIP without OVS or root."""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ofcore_env as env  # noqa: E402
from ofcore_env import ovs_harness, Kytosd, Tap  # noqa: E402

NAPPS = ["of_core.so", "topology.so", "flow_manager.so"]
VERDICT_S = 1
IGNORED = 0xcc00000000000000        # ignored cookie range: 0xcc00...00 .. 0xcc00...ff
STORED_COOKIE = 0xab00000000000001
CONF = ("[daemon]\n\n[kytos/topology]\nenable_entities_by_default = true\nlink_up_timer = 0\n"
        "\n[kytos/of_core]\nstats_interval = 0.5\n"
        "\n[kytos/flow_manager]\nconsistency_min_verdict_interval = %d\n"
        "consistency_cookie_ignored_range = [[%d, %d]]\n"
        % (VERDICT_S, IGNORED, IGNORED + 0xff))
t = Tap()


def durations(net, sw):
    """{(priority, cookie): duration in seconds} from dump-flows with stats."""
    d = {}
    for line in net.ofctl(sw, "dump-flows").splitlines():
        m = re.search(r"cookie=(0x[0-9a-f]+), duration=([0-9.]+)s.*priority=(\d+)", line)
        if m:
            d[(int(m.group(3)), int(m.group(1), 16))] = float(m.group(2))
    return d


def prios(net, sw):
    return sorted(f["priority"] for f in net.dump_flows(sw))


def main():
    why = env.skip_reason()
    if why:
        print("1..0 # SKIP test_fm_alien_flows: " + why)
        return 0
    k = Kytosd(napps=NAPPS, settings={"protocol_name": "openflow"}, conf=CONF)
    net = None
    try:
        net = ovs_harness.OvsNet()
        net.add_switches(1, env.of_port(k))
        d1 = net.dpid("s1")
        t.ok(k.wait_for(lambda: env.all_active(k, [d1]), 20), "the switch is connected",
             env.switches(k))

        stored = {"priority": 1000, "cookie": STORED_COOKIE, "match": {"in_port": 1},
                  "actions": [{"action_type": "output", "port": 2}]}
        st, _, body, _ = k.request("POST", env.FLOWS + "flows/" + d1, body={"flows": [stored]})
        ok = st == 202 and k.wait_for(lambda: prios(net, "s1") == [1000], 10) and \
            k.wait_for(lambda: [f.get("state") for f in env.stored_flows(k, d1)] ==
                       ["installed"], 10)
        t.ok(ok, "the stored flow is in the switch, installed", (st, body, net.dump_flows("s1")))

        # behind kytosd's back: an alien, and one with an ignored cookie
        net.ofctl("s1", "add-flow", "cookie=0x77,priority=500,in_port=2,actions=output:1")
        net.ofctl("s1", "add-flow", "cookie=%#x,priority=600,in_port=3,actions=drop"
                  % (IGNORED + 5))
        t0 = time.time()
        before = durations(net, "s1")
        gone = k.wait_for(lambda: 500 not in prios(net, "s1"), VERDICT_S * 3 + 2)
        elapsed = time.time() - t0
        t.ok(gone and elapsed <= VERDICT_S + 2,
             "the alien flow is removed by kytosd within the verdict interval (%.2f s)" % elapsed,
             (net.dump_flows("s1"), k.logtext()[-2000:]))

        # two more verdict intervals: the others stay, the stored one untouched
        k.wait_for(lambda: False, VERDICT_S * 2 + 0.5)
        after = durations(net, "s1")
        waited = time.time() - t0
        t.ok(prios(net, "s1") == [600, 1000], "the ignored-cookie flow and the stored flow stay",
             net.dump_flows("s1"))
        key = (1000, STORED_COOKIE)
        t.ok(key in before and key in after and after[key] >= before[key] + waited - 0.5,
             "the stored flow was neither deleted nor installed again (its age kept growing)",
             (before, after, waited))
        live = [f for f in env.stored_flows(k, d1) if f.get("state") != "deleted"]
        t.ok(len(env.stored_flows(k, d1)) == 1 and len(live) == 1,
             "nothing stored for the alien flows", env.stored_flows(k, d1))
    finally:
        k.stop()
        k.cleanup()
        if net:
            net.stop()
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
