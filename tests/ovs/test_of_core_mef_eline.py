"""mef_eline on real Open vSwitch through of_core (TAP): an EVC between two
ports of one switch (no link needed: LLDP is the next issue) is deployed
as flows in the switch, with the EVC's cookie (0xaa << 56 | evc id) and
Kytos' priority, matching each UNI's port and VLAN and rewriting to the
other's; deleting the EVC removes them.  SKIP without OVS or root."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ofcore_env as env  # noqa: E402
from ofcore_env import ovs_harness, Tap  # noqa: E402

NAPPS = ["of_core.so", "topology.so", "flow_manager.so", "mef_eline.so"]
EVC = "/api/kytos/mef_eline/v2/evc/"
t = Tap()


def main():
    why = env.skip_reason() or ovs_harness.missing_netns()
    if why:
        print("1..0 # SKIP test_of_core_mef_eline: " + why)
        return 0
    k = env.start_kytosd(NAPPS)
    net = None
    try:
        net = ovs_harness.OvsNet()
        net.add_switches(3, env.of_port(k))
        d1 = net.dpid("s1")
        pa, _ = net.link_veth("s1", "s2")
        pc, _ = net.link_veth("s1", "s3")
        na, nc = net.ofport(pa), net.ofport(pc)
        ids = ["%s:%d" % (d1, na), "%s:%d" % (d1, nc)]
        ok = k.wait_for(lambda: all(env.interfaces(k, d1).get(i, {}).get("active") is True
                                    for i in ids), 20)
        t.ok(ok, "two ports of s1 active in topology", env.interfaces(k, d1))
        new = {"name": "ovs-evc", "enabled": True, "dynamic_backup_path": True,
               "uni_a": {"interface_id": ids[0], "tag": {"tag_type": "vlan", "value": 100}},
               "uni_z": {"interface_id": ids[1], "tag": {"tag_type": "vlan", "value": 200}}}
        st, _, body, _ = k.request("POST", EVC, body=new)
        cid = body.get("circuit_id") if isinstance(body, dict) else None
        t.ok(st == 201 and cid, "EVC created", body)
        cookie = (0xaa << 56) | int(cid or "0", 16)
        ok = k.wait_for(lambda: len([f for f in net.dump_flows("s1") if f["cookie"] == cookie]) == 2,
                        15)
        flows = sorted((f for f in net.dump_flows("s1") if f["cookie"] == cookie),
                       key=lambda f: f["match"])
        want = sorted([("in_port=%d,dl_vlan=100" % na, "mod_vlan_vid:200,output:%d" % nc),
                       ("in_port=%d,dl_vlan=200" % nc, "mod_vlan_vid:100,output:%d" % na)])
        got = sorted((f["match"], f["actions"].replace("set_field:4296->vlan_vid", "mod_vlan_vid:200")
                      .replace("set_field:4196->vlan_vid", "mod_vlan_vid:100")) for f in flows)
        t.ok(ok and got == want and all(f["priority"] == 20000 for f in flows),
             "the EVC's two flows are in the switch: cookie, priority 20000, UNI match, VLAN rewrite",
             (flows, want))
        st, _, body, _ = k.request("DELETE", EVC + (cid or "x"))
        ok = k.wait_for(lambda: not [f for f in net.dump_flows("s1") if f["cookie"] == cookie], 15)
        t.ok(st == 200 and ok, "deleting the EVC removes its flows from the switch",
             (st, body, net.dump_flows("s1")))
    finally:
        k.stop()
        k.cleanup()
        if net:
            net.stop()
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
