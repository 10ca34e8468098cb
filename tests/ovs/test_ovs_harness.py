"""The OVS harness itself, against real Open vSwitch: switches made in one
transaction each complete an OpenFlow 1.3 handshake with a minimal
controller here (HELLO, FEATURES_REQUEST -> FEATURES_REPLY with the
datapath id we set), links and hosts are made, and stop() leaves no process,
namespace or veth behind.  TAP."""
import os
import select
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import ovs_harness  # noqa: E402
from kytosd_harness import Tap  # noqa: E402

N = 10
OFPT_HELLO, OFPT_FEATURES_REQUEST, OFPT_FEATURES_REPLY = 0, 5, 6


def handshake(listener, n, timeout=15.0):
    """Accept n switches, answering each at once (OVS gives up on a
    controller whose HELLO does not come within about a second); return
    {dpid: hello_version}."""
    seen, hello_ver, bufs = {}, {}, {}
    listener.setblocking(False)
    deadline = time.time() + timeout
    while len(seen) < n and time.time() < deadline:
        r, _, _ = select.select([listener] + list(bufs), [], [], 0.2)
        for s in r:
            if s is listener:
                c, _ = listener.accept()
                c.setblocking(True)
                c.settimeout(5)
                bufs[c] = b""
                c.sendall(struct.pack("!BBHI", 4, OFPT_HELLO, 8, 1))
                c.sendall(struct.pack("!BBHI", 4, OFPT_FEATURES_REQUEST, 8, 2))
                continue
            data = s.recv(65536)
            if not data:
                del bufs[s]
                s.close()
                continue
            bufs[s] += data
            while len(bufs[s]) >= 8:
                ln = struct.unpack("!H", bufs[s][2:4])[0]
                if ln < 8 or len(bufs[s]) < ln:
                    break
                m, bufs[s] = bufs[s][:ln], bufs[s][ln:]
                if m[1] == OFPT_HELLO:
                    hello_ver[s] = m[0]
                elif m[1] == OFPT_FEATURES_REPLY:
                    seen[struct.unpack("!Q", m[8:16])[0]] = hello_ver.get(s)
    for c in bufs:
        c.close()
    return seen


def main():
    t = Tap()
    why = ovs_harness.missing()
    if why:
        print("1..0 # SKIP " + why)
        return 0
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(64)
    port = lst.getsockname()[1]
    net = ovs_harness.OvsNet()
    prefix, rundir = net.prefix, net.dir
    try:
        t0 = time.time()
        sws = net.add_switches(N, port)
        seen = handshake(lst, N)
        t.ok(sorted(seen) == list(range(1, N + 1)),
             "%d switches made in one transaction complete the handshake (%.2f s)"
             % (N, time.time() - t0), "seen dpids %s" % sorted(seen))
        t.ok(all(v == 4 for v in seen.values()), "every switch says HELLO in OpenFlow 1.3",
             str(seen))
        t.ok(net.dpid("s3") == "00:00:00:00:00:00:00:03", "dpid in Kytos' form")
        pa, pb = net.link_patch("s1", "s2")
        t.ok(net.ofport(pa) > 0 and net.ofport(pb) > 0, "a patch link gets OpenFlow ports")
        t.ok(net.dump_flows("s1") == [], "fail_mode=secure: a new switch has no flow",
             str(net.dump_flows("s1")))
        net.ofctl("s1", "add-flow", "cookie=0x2a,priority=1000,in_port=1,actions=output:2")
        fl = net.dump_flows("s1")
        t.ok(len(fl) == 1 and fl[0]["cookie"] == 0x2a and fl[0]["priority"] == 1000
             and fl[0]["match"] == "in_port=1" and fl[0]["actions"] == "output:2",
             "dump_flows reads back cookie, priority, match and actions", str(fl))
        why_ns = ovs_harness.missing_netns()
        if why_ns:
            t.ok(True, "# SKIP hosts: " + why_ns)
        else:
            net.add_host("h1", "s1", "198.51.100.1/24")
            net.add_host("h2", "s1", "198.51.100.2/24")
            va, vb = net.link_veth("s2", "s3")
            t.ok(net.ofport(va) > 0, "a veth link gets OpenFlow ports")
            # no controller flows: secure mode drops everything
            t.ok(not net.ping("h1", "198.51.100.2"), "no flow, no forwarding (fail_mode=secure)")
            net.ofctl("s1", "add-flow", "priority=1,actions=NORMAL")
            t.ok(net.ping("h1", "198.51.100.2", count=5, wait=2),
                 "with a NORMAL flow the two hosts reach each other")
    finally:
        pid = None
        try:
            pid = net.vswitchd_pid()
        except (OSError, ValueError):
            pass
        net.stop()
        lst.close()
    gone = not (pid and ovs_harness.alive(pid))
    t.ok(gone and not os.path.exists(rundir), "stop() ends ovs-vswitchd and removes its directory")
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    nss = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    t.ok(prefix not in links and prefix not in nss, "stop() leaves no veth or namespace",
         links + nss)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
