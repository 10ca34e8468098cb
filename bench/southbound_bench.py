#!/usr/bin/env python3
"""bench/southbound_bench.py - the `southbound` part of `make bench`
(run-bench.sh runs it; it prints its tables to stdout).  kytosd with of_core
against a private Open vSwitch (tests/ovs/ovs_harness.py), each figure
beside its baseline measured in the same run:

- handshake: from the ovs-vsctl transaction that creates SB_SWITCHES (50)
  bridges to all of them active in GET topology/v3/switches, beside the
  same bridges handshaking with a bare raw-socket controller (HELLO,
  FEATURES_REQUEST -> FEATURES_REPLY; the switches' own floor);
- flow install: SB_FLOWS (10,000) flows for SB_FLOW_SWITCHES (10) switches,
  one POST per switch to flow_manager's v2/flows/{dpid}, until every
  switch holds its share (ovs-ofctl dump-aggregate polled every 50 ms,
  then counted with dump-flows), beside `ovs-ofctl add-flows` of the same
  flows from a file into as many bridges with no controller, all at once
  (the switches' ceiling), and the same with --bundle (one transaction per
  bridge).  On the loaded 2-core VM plain add-flows of 1,000 flows took
  2.4 s wall for 0.3 s of CPU in ovs-ofctl and ovs-vswitchd together (it
  waits more than it works), --bundle 0.26 s.  kytosd's CPU (utime+stime,
  /proc/PID/stat) over that time per flow-mod;
- packet-in: SB_PACKET_INS (1,000,000) PACKET_INs from a handshaken fake
  switch (tests/ovs/fake_switch.py), kytosd's CPU per PACKET_IN until all
  are read, with of_core (nothing subscribed to ofpt_packet_in: nothing is
  published) and with tests/southbound/sbproto (framing and dispatch only,
  the server's floor).

kytosd runs on core SRV_CPU (0); Open vSwitch (the switches are the load),
this script and the ovs-ofctl processes on LOAD_CPU (1).  CPU times are
counted in clock ticks (10 ms): the runs are sized to take many.  Medians
of REPEAT runs.  Needs root, Open vSwitch and a built of_core; else it
prints why it skipped."""
import os
import socket
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import time

BUILD = os.environ.get("BUILD_DIR") or os.getcwd()
os.environ["top_builddir"] = BUILD
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(SRC, "tests", "ovs"))
sys.path.insert(0, os.path.join(SRC, "tests", "e2e"))
import ovs_harness  # noqa: E402
import fake_switch as fs  # noqa: E402
from kytosd_harness import Kytosd  # noqa: E402

REPEAT = int(os.environ.get("REPEAT", "3"))
N_SW = int(os.environ.get("SB_SWITCHES", "50"))
N_FLOW_SW = int(os.environ.get("SB_FLOW_SWITCHES", "10"))
N_FLOWS = int(os.environ.get("SB_FLOWS", "10000"))
N_PIN = int(os.environ.get("SB_PACKET_INS", "1000000"))
SRV_CPU = int(os.environ.get("SRV_CPU", "0"))
LOAD_CPU = int(os.environ.get("LOAD_CPU", "1"))
HZ = os.sysconf("SC_CLK_TCK")
OF_CORE = os.path.join(BUILD, "plugins", ".libs", "of_core.so")
SBPROTO = os.path.join(BUILD, "tests", "southbound", ".libs", "sbproto.so")
CONF = ("[daemon]\n\n[kytos/topology]\nenable_entities_by_default = true\n\n"
        "[kytos/of_core]\nstats_interval = 0\n")
TOPO = "/api/kytos/topology/v3/switches"


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def on_cpu(cpu, fn, *a, **kw):
    """Run fn with this process (and so what it starts) on core cpu."""
    mine = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {cpu})
        return fn(*a, **kw)
    finally:
        os.sched_setaffinity(0, mine)


def start_kytosd(napps, conf=CONF):
    return on_cpu(SRV_CPU, Kytosd, napps=napps, conf=conf,
                  settings={"protocol_name": "openflow"})


def of_port(k):
    return k.request("GET", "/api/kytos/core/status/")[2]["southbound"]["port"]


def active_count(k):
    st, _, js, _ = k.request("GET", TOPO)
    if st != 200:
        return 0
    return sum(1 for s in js["switches"].values() if s.get("active") is True)


def wait(cond, timeout, step=0.02):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(step)
    return cond()


def new_net():
    return on_cpu(LOAD_CPU, ovs_harness.OvsNet)


# ---- handshake ----

def bare_controller(listener, n, timeout=30.0):
    """Accept n switches and handshake each (HELLO, FEATURES_REQUEST) until
    its FEATURES_REPLY: the number of datapath ids seen."""
    seen, bufs = set(), {}
    listener.setblocking(False)
    deadline = time.time() + timeout
    while len(seen) < n and time.time() < deadline:
        r, _, _ = select.select([listener] + list(bufs), [], [], 0.2)
        for s in r:
            if s is listener:
                try:
                    c, _ = listener.accept()
                except BlockingIOError:
                    continue
                c.setblocking(True)
                bufs[c] = b""
                c.sendall(fs.hello(bitmap=False) + fs.message(fs.FEATURES_REQUEST, xid=2))
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
                if m[1] == fs.ECHO_REQUEST:
                    s.sendall(fs.message(fs.ECHO_REPLY, m[8:], struct.unpack("!I", m[4:8])[0]))
                elif m[1] == fs.FEATURES_REPLY:
                    seen.add(struct.unpack("!Q", m[8:16])[0])
    for c in bufs:
        c.close()
    return len(seen)


def handshake_runs():
    base, kyt, kcpu = [], [], []
    for _ in range(REPEAT):
        lst = socket.socket()
        lst.bind(("127.0.0.1", 0))
        lst.listen(128)
        net = new_net()
        try:
            t0 = time.time()
            net.add_switches(N_SW, lst.getsockname()[1])
            if bare_controller(lst, N_SW) == N_SW:
                base.append(time.time() - t0)
        finally:
            net.stop()
            lst.close()
        k = start_kytosd(["of_core.so", "topology.so"])
        net = new_net()
        try:
            c0, t0 = cpu_s(k.proc.pid), time.time()
            net.add_switches(N_SW, of_port(k))
            if wait(lambda: active_count(k) == N_SW, 60):
                kyt.append(time.time() - t0)
                kcpu.append(cpu_s(k.proc.pid) - c0)
        finally:
            net.stop()
            k.stop()
            k.cleanup()
    return base, kyt, kcpu


# ---- flow install ----

def flows_for(i):
    """Switch i's share: in_port 1 and a VLAN each, out port 2."""
    n = N_FLOWS // N_FLOW_SW
    return [{"priority": 1000, "cookie": 0x5b000000 + i,
             "match": {"in_port": 1, "dl_vlan": v}, "actions": [{"action_type": "output", "port": 2}]}
            for v in range(1, n + 1)]


def ofctl_line(f):
    return "cookie=0x%x,priority=%d,in_port=%d,dl_vlan=%d,send_flow_rem,actions=output:%d" % (
        f["cookie"], f["priority"], f["match"]["in_port"], f["match"]["dl_vlan"], f["actions"][0]["port"])


def flow_count(net, sw):
    out = net.ofctl(sw, "dump-aggregate", check=False)
    for part in out.split():
        if part.startswith("flow_count="):
            return int(part.split("=")[1])
    return -1


def dump_count(net, sw):
    return len(net.dump_flows(sw))


def flow_runs():
    base, bundle, kyt, kcpu, post_s, counted = [], [], [], [], [], []
    tmp = tempfile.mkdtemp(prefix="kytos-sbbench-")
    share = N_FLOWS // N_FLOW_SW
    for r in range(REPEAT):
        k = start_kytosd(["of_core.so", "topology.so", "flow_manager.so"])
        net = new_net()
        try:
            ctl = net.add_switches(N_FLOW_SW, of_port(k))
            bare = net.add_switches(N_FLOW_SW, 0, first=N_FLOW_SW + 1)
            if not wait(lambda: active_count(k) == N_FLOW_SW, 60):
                print("# flow install run %d: the switches did not come up" % r)
                continue
            # ceiling: ovs-ofctl add-flows, one process per bridge, all at
            # once; then the same as one bundle (a transaction) per bridge
            files = []
            for i, sw in enumerate(bare):
                path = os.path.join(tmp, "%s.flows" % sw)
                with open(path, "w") as f:
                    f.write("\n".join(ofctl_line(x) for x in flows_for(i)) + "\n")
                files.append((sw, path))
            for opts, times in (([], base), (["--bundle"], bundle)):
                for sw in bare:
                    net.ofctl(sw, "del-flows")
                t0 = time.time()
                procs = [on_cpu(LOAD_CPU, subprocess.Popen,
                                ["ovs-ofctl", "-O", "OpenFlow13", "add-flows"] + opts +
                                ["%s/%s.mgmt" % (net.dir, net.br(sw)), path], env=net.env)
                         for sw, path in files]
                rcs = [p.wait(300) for p in procs]
                t1 = time.time()
                if rcs == [0] * len(rcs) and all(dump_count(net, sw) == share for sw in bare):
                    times.append(t1 - t0)
            # kytosd: one POST per switch, then the switches polled
            bodies = [(net.dpid(sw), {"flows": flows_for(i)}) for i, sw in enumerate(ctl)]
            c0, t0 = cpu_s(k.proc.pid), time.time()
            for dpid, body in bodies:
                st, _, js, _ = k.request("POST", "/api/kytos/flow_manager/v2/flows/" + dpid, body,
                                         timeout=120)
                if st != 202:
                    print("# POST flows %s: %d %s" % (dpid, st, js))
            t_post = time.time() - t0
            done = wait(lambda: all(flow_count(net, sw) == share for sw in ctl), 300, 0.05)
            t1, c1 = time.time(), cpu_s(k.proc.pid)
            if done:
                kyt.append(t1 - t0)
                kcpu.append(c1 - c0)
                post_s.append(t_post)
                counted.append(sum(dump_count(net, sw) for sw in ctl))
            else:
                print("# flow install run %d: after 300 s the switches hold %s" %
                      (r, [flow_count(net, sw) for sw in ctl]))
        finally:
            net.stop()
            k.stop()
            k.cleanup()
    return base, bundle, kyt, kcpu, post_s, counted


# ---- packet-in ----

def packet_in_cpu(napps, sbproto):
    k = start_kytosd(napps, conf=CONF if not sbproto else None)
    try:
        if sbproto:
            k.drop(SBPROTO, name="sbproto.so")
        wait(lambda: k.request("GET", "/api/kytos/core/status/")[2]["southbound"]
             .get("handlers", {}).get("openflow"), 20)
        sw = fs.FakeSwitch(of_port(k), dpid=0x7777)
        if sbproto:
            sw.send_hello()
        elif not sw.handshake(20):
            return None

        def msgs_in():
            for c in k.request("GET", "/api/kytos/core/status/")[2]["southbound"]["conns"]:
                if c.get("connection") == sw.peer:
                    return c["messages_in"]
            return -1
        before = msgs_in()
        chunk = fs.packet_in() * 1000
        c0 = cpu_s(k.proc.pid)
        for _ in range(N_PIN // 1000):
            sw.send(chunk)
        ok = wait(lambda: msgs_in() >= before + N_PIN, 120, 0.05)
        c1 = cpu_s(k.proc.pid)
        sw.close()
        return (c1 - c0) / N_PIN if ok else None
    finally:
        k.stop()
        k.cleanup()


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    why = ovs_harness.missing()
    if not why and not os.path.exists(OF_CORE):
        why = "of_core is not built (%s)" % OF_CORE
    print("## southbound: kytosd + of_core against Open vSwitch %s (userspace bridges)" %
          subprocess.run(["ovs-vswitchd", "--version"], capture_output=True, text=True)
          .stdout.split()[-1] if not why else "")
    if why:
        print("SKIP: " + why)
        return 0
    os.sched_setaffinity(0, {LOAD_CPU})
    print("kytosd on core %d; ovs-vswitchd, this client and ovs-ofctl on core %d; median of %d"
          % (SRV_CPU, LOAD_CPU, REPEAT))
    print()
    hb, hk, hc = handshake_runs()
    fb, fbb, fk, fc, fpost, fcount = flow_runs()
    pins = [packet_in_cpu(["of_core.so"], False) for _ in range(REPEAT)]
    pins_base = [packet_in_cpu([], True) for _ in range(REPEAT)]
    pins = [x for x in pins if x is not None]
    pins_base = [x for x in pins_base if x is not None]

    def row(a, b, c, d):
        print("| %-58s | %12s | %12s | %8s |" % (a, b, c, d))
    row("case", "kytosd", "baseline", "ratio")
    row("---", "---", "---", "---")
    row("handshake: %d OVS switches until all in topology, s (n=%d/%d)" % (N_SW, len(hk), len(hb)),
        "%.2f" % med(hk), "%.2f" % med(hb), "%.2f" % (med(hk) / med(hb)) if hb and hk else "-")
    row("  kytosd CPU per switch handshake, ms", "%.2f" % (med(hc) * 1000 / N_SW), "-", "-")
    fr_k = N_FLOWS / med(fk) if fk else float("nan")
    fr_b = N_FLOWS / med(fb) if fb else float("nan")
    row("flow install: %d flows on %d switches, flows/s (n=%d/%d)" % (N_FLOWS, N_FLOW_SW, len(fk), len(fb)),
        "%.0f" % fr_k, "%.0f" % fr_b, "%.2f" % (fr_k / fr_b) if fk and fb else "-")
    fr_bb = N_FLOWS / med(fbb) if fbb else float("nan")
    row("  beside ovs-ofctl add-flows --bundle, flows/s (n=%d)" % len(fbb), "%.0f" % fr_k, "%.0f" % fr_bb,
        "%.2f" % (fr_k / fr_bb) if fk and fbb else "-")
    row("  time to all flows in the switches, s", "%.2f" % med(fk), "%.2f" % med(fb), "-")
    row("  of which the %d POSTs (202 answered), s" % N_FLOW_SW, "%.2f" % med(fpost), "-", "-")
    row("  flows counted with dump-flows afterwards", "%d" % (fcount[-1] if fcount else 0),
        "%d" % N_FLOWS, "-")
    row("  kytosd CPU per flow-mod (REST to switch), us", "%.1f" % (med(fc) * 1e6 / N_FLOWS), "-", "-")
    row("packet-in: kytosd CPU per PACKET_IN, us (%d; base: sbproto)" % N_PIN,
        "%.2f" % (med(pins) * 1e6), "%.2f" % (med(pins_base) * 1e6),
        "%.2f" % (med(pins) / med(pins_base)) if pins and pins_base else "-")
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
