"""of_core on real Open vSwitch (TAP): handshake of 1, 10 and 50 switches
seen in topology with their ports; a veth port set down and up; a
switch disconnected (del-controller) and reconnected; an echo timeout
(ovs-vswitchd stopped with SIGSTOP) and its recovery.  SKIP without OVS
or root."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ofcore_env as env  # noqa: E402
from ofcore_env import ovs_harness, Tap  # noqa: E402

NAPPS = ["of_core.so", "topology.so"]
t = Tap()


def ovs_version():
    out = os.popen("ovs-vswitchd --version").read()   # "ovs-vswitchd (Open vSwitch) 3.1.0"
    return out.split()[-1] if out.split() else "?"


def handshake(k, net, n, first):
    """n switches s<first>.. appear in topology with every port: name, MAC,
    speed, state."""
    names = net.add_switches(n, env.of_port(k), first=first)
    dpids = [net.dpid(s) for s in names]
    ok = k.wait_for(lambda: env.all_active(k, dpids) and
                    all(len(env.interfaces(k, d)) >= 1 for d in dpids), 20 + n * 0.2)
    sws = env.switches(k)
    t.ok(ok, "%d switch(es) handshake and are active in topology" % n,
         {d: sws.get(d, {}).get("active") for d in dpids})
    # the LOCAL port: the bridge itself, named after it, with its MAC
    bad = []
    for s, d in zip(names, dpids):
        intf = env.interfaces(k, d).get(d + ":4294967294")
        mac = net._run(["ovs-vsctl", "--db=" + net.db, "get", "interface", net.br(s),
                        "mac_in_use"]).strip().strip('"')
        if not intf or intf.get("name") != net.br(s) or intf.get("mac") != mac or \
                intf.get("port_number") != 4294967294 or intf.get("active") is not True:
            bad.append((d, intf, mac))
    t.ok(not bad, "each switch's LOCAL port: number, name, MAC, active", bad[:3])
    sw = sws.get(dpids[0], {})
    t.ok(sw.get("manufacturer") == "Nicira, Inc." and sw.get("hardware") == "Open vSwitch"
         and sw.get("ofp_version") == "0x04" and sw.get("software", "").startswith(ovs_version())
         and sw.get("serial") == "None" and sw.get("data_path") == "None",
         "the switch description comes from DESC (OVS' mfr, hw, sw; serial and dp_desc None)", sw)
    return names, dpids


def main():
    why = env.skip_reason()
    if why:
        print("1..0 # SKIP test_of_core_switches: " + why)
        return 0
    k = env.start_kytosd(NAPPS, of_core={"echo_interval": 0.5, "dead_interval": 3})
    net = None
    try:
        net = ovs_harness.OvsNet()
        names, dpids = handshake(k, net, 1, 1)
        handshake(k, net, 10, 2)
        handshake(k, net, 50, 12)
        t.ok(len(env.switches(k)) == 61 and all(s.get("active") for s in env.switches(k).values()),
             "61 switches listed, all active", len(env.switches(k)))

        # ports: a veth link between s1 and s2, then down and up
        pa, pb = net.link_veth("s1", "s2")
        na = net.ofport(pa)
        ida = dpids[0] + ":%d" % na
        ok = k.wait_for(lambda: env.interfaces(k, dpids[0]).get(ida, {}).get("active") is True, 10)
        intf = env.interfaces(k, dpids[0]).get(ida, {})
        t.ok(ok and intf.get("name") == pa and intf.get("port_number") == na
             and intf.get("speed") == 1250000000.0 and len(intf.get("mac", "")) == 17,
             "a new veth port appears: name, number, 10G speed, MAC, active", intf)
        net.link_set(pa, False)
        ok = k.wait_for(lambda: env.interfaces(k, dpids[0]).get(ida, {}).get("active") is False, 10)
        t.ok(ok, "ip link set down: the interface goes inactive (DOWN)",
             env.interfaces(k, dpids[0]).get(ida))
        net.link_set(pa, True)
        ok = k.wait_for(lambda: env.interfaces(k, dpids[0]).get(ida, {}).get("active") is True, 10)
        t.ok(ok, "ip link set up: active (UP) again", env.interfaces(k, dpids[0]).get(ida))

        # disconnect / reconnect
        d1 = dpids[0]
        n_intf = len(env.interfaces(k, d1))
        net.del_controller("s1")
        ok = k.wait_for(lambda: env.switches(k).get(d1, {}).get("active") is False, 10)
        t.ok(ok, "del-controller: the switch goes inactive", env.switches(k).get(d1))
        net.set_controller("s1", "tcp:127.0.0.1:%d" % env.of_port(k))
        ok = k.wait_for(lambda: env.switches(k).get(d1, {}).get("active") is True, 20)
        t.ok(ok and len(env.switches(k)) == 61 and len(env.interfaces(k, d1)) == n_intf,
             "set-controller: active again, nothing duplicated",
             (len(env.switches(k)), len(env.interfaces(k, d1)), n_intf))

        # echo timeout: the switch process stops answering
        pid = net.vswitchd_pid()
        os.kill(pid, signal.SIGSTOP)
        try:
            ok = k.wait_for(lambda: env.switches(k).get(d1, {}).get("active") is False, 8)
            # the log is written by a background thread: await the line too
            t.ok(ok and k.wait_for(lambda: "dead_interval" in k.logtext(), 10),
                 "SIGSTOP ovs-vswitchd: inactive within the dead interval (3 s)",
                 env.switches(k).get(d1))
        finally:
            os.kill(pid, signal.SIGCONT)
        ok = k.wait_for(lambda: env.all_active(k, dpids), 30)
        t.ok(ok, "SIGCONT: the switches reconnect and are active again",
             [d for d in dpids if not env.switches(k).get(d, {}).get("active")])
        rc = k.stop()
        t.ok(rc == 0, "kytosd stops cleanly with switches connected", k.logtext())
    finally:
        k.stop()
        k.cleanup()
        if net:
            net.stop()
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
