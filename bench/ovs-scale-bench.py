#!/usr/bin/env python3
"""bench/ovs-scale-bench.py - the `ovsscale` part of `make bench` (issue 19
section 5, "at scale, on real switches"; run-bench.sh runs it and it prints
its table to stdout).

A ring of OVS_SCALE_SWITCHES (20) Open vSwitch bridges linked by veth pairs
(tests/ovs/ovs_harness.py; links found by of_lldp), each with one port
leading nowhere for the UNIs, and kytosd with of_core, of_lldp, topology,
pathfinder, flow_manager and mef_eline (bench/southbound_bench.py's setup:
kytosd on core SRV_CPU, OVS and this client on LOAD_CPU).  Then:

- create: OVS_SCALE_EVCS (1,000) EVPL EVCs through POST v2/evc/
  (OVS_SCALE_CLIENTS concurrent clients), each on a VLAN of its own.  Half
  (OVS_SCALE_MOVED) cross the link s1-s2 on a path of (N-1)/2 hops, the rest
  join two neighbours elsewhere on the ring.  Timed until every mef_eline
  flow is in the switches (`ovs-ofctl dump-aggregate` of cookie 0xaa.. on
  every bridge equals 2 flows per EVC per switch of its path); kytosd's RSS
  growth per EVC; GET v2/evc/ (median of 5).
- failover: s1's end of the link s1-s2 set down (ip link); timed until the
  flows of every moved EVC are those of its new path (the long way round)
  in every switch, and mef_eline shows none on the link.
- restart: the link up again, kytosd stopped (SIGTERM); meanwhile one EVC
  flow deleted from each switch; kytosd started on the same data and
  OpenFlow port: time until GET v2/evc/ lists every EVC (serving), until
  every switch holds its deleted flow again (flow_manager's consistency
  check, run on each switch's first flow stats: OVS_SCALE_STATS_INTERVAL,
  5 s), and whether anything else was installed again (OVS resets the
  duration of a flow an ADD replaces: every other flow must be older than
  the restart, also after one more mef_eline consistency round).

Every wait is bounded and the whole run by OVS_SCALE_TIMEOUT (2400 s);
the bridges, veths and kytosd's directory are removed on success, failure
or interrupt (ovs_harness).  Needs root, Open vSwitch and the NApps built;
else it prints why it skipped."""
import concurrent.futures
import os
import re
import statistics
import sys
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(SRC, "bench"))
import southbound_bench as sb  # noqa: E402  (sets top_builddir, paths to tests/ovs, tests/e2e)

ovs_harness = sb.ovs_harness
Kytosd = sb.Kytosd
N_SW = int(os.environ.get("OVS_SCALE_SWITCHES", "20"))
N_EVC = int(os.environ.get("OVS_SCALE_EVCS", "1000"))
N_MOVED = int(os.environ.get("OVS_SCALE_MOVED", str(N_EVC // 2)))
CLIENTS = int(os.environ.get("OVS_SCALE_CLIENTS", "4"))
STATS_S = int(os.environ.get("OVS_SCALE_STATS_INTERVAL", "5"))
DEPLOY_S = 10
BUDGET = float(os.environ.get("OVS_SCALE_TIMEOUT", "2400"))
NAPPS = ["of_core.so", "topology.so", "flow_manager.so", "of_lldp.so", "pathfinder.so",
         "mef_eline.so"]
CONF = ("[daemon]\n\n[kytos/topology]\nenable_entities_by_default = true\nlink_up_timer = 0\n"
        "\n[kytos/of_lldp]\npolling_time = 1\n"
        "\n[kytos/of_core]\nstats_interval = %d\n"
        "\n[kytos/mef_eline]\ndeploy_evcs_interval = %d\n" % (STATS_S, DEPLOY_S))
EVC = "/api/kytos/mef_eline/v2/evc/"
EVC_COOKIES = "cookie=0xaa00000000000000/0xff00000000000000"
STAT_FIELDS = ("duration", "n_packets", "n_bytes", "idle_age", "hard_age")
T_END = time.time() + BUDGET


class Timeout(Exception):
    pass


def left():
    return T_END - time.time()


def wait(what, cond, timeout, step=0.25):
    """cond() true within timeout (and the run's budget), else Timeout."""
    deadline = min(time.time() + timeout, T_END)
    while time.time() < deadline:
        if cond():
            return time.time()
        time.sleep(step)
    if cond():
        return time.time()
    raise Timeout("%s: not within %.0f s" % (what, timeout))


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


# ---- the ring and where the EVCs go ----

def placement(n_sw, n_evc, n_moved):
    """Per EVC: (a, z, path_before, path_after) as switch indexes (0 = s1).
    A moved EVC crosses the link 0-1 on k = (n-1)/2 hops, clockwise; after
    the failure it goes the other way (n-k hops).  The others join two
    neighbours on another link."""
    k = max(1, (n_sw - 1) // 2)
    out = []
    for i in range(n_evc):
        if i < n_moved:
            m = i % k
            a, z = (-m) % n_sw, (k - m) % n_sw
            before = [(a + h) % n_sw for h in range(k + 1)]
            after = [(a - h) % n_sw for h in range(n_sw - k + 1)]
        else:
            link = 1 + (i - n_moved) % (n_sw - 1)
            a, z = link, (link + 1) % n_sw
            before = after = [a, z]
        out.append((a, z, before, after))
    return out


def expected(plan, after):
    """mef_eline flows per switch index: 2 per EVC per switch of its path
    (push/pop at the UNIs, S-VLAN swaps between)."""
    count = [0] * N_SW
    for a, z, before, aft in plan:
        for s in (aft if after else before):
            count[s] += 2
    return count


def vlan_of(i):
    v = i + 1
    return v + 1 if v >= 3799 else v    # of_lldp's VLAN on every switch


class Ring:
    def __init__(self, net, of_port):
        self.net = net
        self.sws = net.add_switches(N_SW, of_port)
        self.dpid = [net.dpid(s) for s in self.sws]
        self.links, self.dev = [], {}
        for i in range(N_SW):
            a, b = self.sws[i], self.sws[(i + 1) % N_SW]
            pa, pb = net.link_veth(a, b)
            # two tags (C and S-VLAN) on an NNI: see test_evc_traffic.py
            net.vsctl("--", "set", "interface", pa, "mtu_request=1600",
                      "--", "set", "interface", pb, "mtu_request=1600")
            ends = ("%s:%d" % (self.dpid[i], net.ofport(pa)),
                    "%s:%d" % (self.dpid[(i + 1) % N_SW], net.ofport(pb)))
            self.links.append(ends)
            self.dev[i] = pa
        self.uni = ["%s:%d" % (self.dpid[i], net.ofport(net.add_stub_port(s)))
                    for i, s in enumerate(self.sws)]
        self.pool = concurrent.futures.ThreadPoolExecutor(8)

    def counts(self):
        def one(sw):
            out = self.net.ofctl(sw, "dump-aggregate", EVC_COOKIES, check=False)
            m = re.search(r"flow_count=(\d+)", out)
            return int(m.group(1)) if m else -1
        return list(self.pool.map(one, self.sws))

    def flows(self, sw):
        """The switch's mef_eline flows: {(priority+match text): duration s}."""
        out = {}
        for line in self.net.ofctl(sw, "dump-flows", EVC_COOKIES, check=False).splitlines():
            line = line.strip()
            if "actions=" not in line or "cookie=" not in line:
                continue
            head, actions = line.split(" actions=", 1)
            fields = [p for p in re.split(r",\s*|\s+", head) if p]
            dur = 0.0
            keep = []
            for p in fields:
                k, _, v = p.partition("=")
                if k == "duration":
                    dur = float(v.rstrip("s"))
                elif k not in STAT_FIELDS and k != "cookie":
                    keep.append(p)
            out[",".join(keep) + " actions=" + actions] = dur
        return out


def links_up(k, ends):
    st, _, js, _ = k.request("GET", "/api/kytos/topology/v3/links", timeout=30)
    if st != 200:
        return False
    up = {frozenset((ln.get("endpoint_a", {}).get("id"), ln.get("endpoint_b", {}).get("id")))
          for ln in js.get("links", {}).values() if ln.get("status") == "UP"}
    return all(frozenset(e) in up for e in ends)


def list_evcs(k):
    st, _, js, data = k.request("GET", EVC, timeout=60)
    return (js if st == 200 and isinstance(js, dict) else {}), len(data or b"")


def on_link(evc, ends):
    return any(frozenset((ln.get("endpoint_a", {}).get("id"), ln.get("endpoint_b", {}).get("id")))
               == frozenset(ends) for ln in evc.get("current_path", []))


def start(reuse=None, port=None):
    settings = {"protocol_name": "openflow"}
    if port:
        settings["port"] = port
    return sb.on_cpu(sb.SRV_CPU, Kytosd, napps=NAPPS if not reuse else (), conf=CONF,
                     settings=settings, reuse=reuse)


def create_all(k, ring, plan):
    def post(i):
        a, z = plan[i][0], plan[i][1]
        tag = {"tag_type": "vlan", "value": vlan_of(i)}
        body = {"name": "scale-%d" % i, "enabled": True, "dynamic_backup_path": True,
                "uni_a": {"interface_id": ring.uni[a], "tag": tag},
                "uni_z": {"interface_id": ring.uni[z], "tag": tag}}
        st, _, js, _ = k.request("POST", EVC, body=body, timeout=60)
        return st, js
    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as ex:
        return list(ex.map(post, range(len(plan))))


def run(res):
    k = start()
    net = None
    try:
        net = sb.new_net()
        of_port = sb.of_port(k)
        t0 = time.time()
        ring = Ring(net, of_port)
        wait("switches active", lambda: sb.active_count(k) == N_SW, 120)
        wait("ring links UP (of_lldp)", lambda: links_up(k, ring.links), 180, 0.5)
        res["setup_s"] = time.time() - t0
        plan = placement(N_SW, N_EVC, N_MOVED)
        want = expected(plan, False)
        rss0 = rss_kb(k.proc.pid)
        cpu0 = sb.cpu_s(k.proc.pid)

        # ---- create ----
        t0 = time.time()
        answers = create_all(k, ring, plan)
        res["post_s"] = time.time() - t0
        bad = [a for a in answers if a[0] != 201]
        res["post_refused"] = len(bad)
        if bad:
            print("# %d POSTs refused, the first: %s" % (len(bad), bad[0]))
        t1 = wait("every EVC flow in the switches", lambda: ring.counts() == want,
                  max(120, N_EVC * 0.5), 0.5)
        res["deploy_s"] = t1 - t0
        res["deploy_cpu_s"] = sb.cpu_s(k.proc.pid) - cpu0
        res["flows"] = sum(want)
        evcs, size = list_evcs(k)
        res["active"] = sum(1 for e in evcs.values() if e.get("active") is True)
        time.sleep(2)    # the allocator returns what the requests used
        res["rss_per_evc_kb"] = (rss_kb(k.proc.pid) - rss0) / N_EVC
        res["rss_mb"] = rss_kb(k.proc.pid) / 1024
        times = []
        for _ in range(5):
            t = time.time()
            list_evcs(k)
            times.append(time.time() - t)
        res["list_s"], res["list_bytes"] = statistics.median(times), size

        # ---- failover ----
        if N_MOVED:
            want_after = expected(plan, True)
            failed = ring.links[0]
            cpu0 = sb.cpu_s(k.proc.pid)
            t0 = time.time()
            net.link_set(ring.dev[0], False)
            t1 = wait("the moved EVCs' flows on their new paths",
                      lambda: ring.counts() == want_after, max(120, N_MOVED * 0.5), 0.25)
            res["failover_s"] = t1 - t0
            res["failover_cpu_s"] = sb.cpu_s(k.proc.pid) - cpu0
            evcs, _ = list_evcs(k)
            res["still_on_link"] = sum(1 for e in evcs.values() if on_link(e, failed))
            res["active_after"] = sum(1 for e in evcs.values() if e.get("active") is True)
            net.link_set(ring.dev[0], True)
            wait("the failed link UP again", lambda: links_up(k, ring.links), 120, 0.5)
            want = want_after
        time.sleep(2)
        if ring.counts() != want:
            raise Timeout("the flows changed once the link came back: %s" % ring.counts())

        # ---- restart ----
        k.stop()
        t_stop = time.time()
        lost = {}
        for sw in ring.sws:
            flows = ring.flows(sw)
            key = sorted(flows)[0]
            head = ",".join(p for p in key.split(" actions=")[0].split(",") if "=" in p)
            net.ofctl(sw, "del-flows", "--strict", head)
            lost[sw] = key
        t0 = time.time()
        k = start(reuse=k, port=of_port)
        t1 = wait("GET v2/evc/ lists every EVC", lambda: len(list_evcs(k)[0]) == N_EVC, 120)
        res["serving_s"] = t1 - t0
        t2 = wait("the switches connected", lambda: sb.active_count(k) == N_SW, 120)
        res["connected_s"] = t2 - t0
        t3 = wait("every switch's lost flow back (consistency check)",
                  lambda: ring.counts() == want, 120 + STATS_S * 3, 0.25)
        res["consistent_s"] = t3 - t0
        time.sleep(DEPLOY_S + 2)    # one more mef_eline consistency round
        since = time.time() - t_stop
        young, total = [], 0
        for sw in ring.sws:
            for key, dur in ring.flows(sw).items():
                total += 1
                if dur < since - 1 and key != lost[sw]:
                    young.append((sw, key, dur))
        res["reinstalled"] = len(young)
        res["flows_checked"] = total
        if young:
            print("# installed again after the restart: %s" % young[:5])
        evcs, _ = list_evcs(k)
        res["active_restart"] = sum(1 for e in evcs.values() if e.get("active") is True)
    finally:
        k.stop()
        k.cleanup()
        if net:
            net.stop()


def main():
    why = ovs_harness.missing() or ovs_harness.missing_netns()
    for so in NAPPS:
        if not why and not os.path.exists(os.path.join(sb.BUILD, "plugins", ".libs", so)):
            why = "plugins/.libs/%s not built" % so
    if not why and not (3 <= N_SW <= 200 and 1 <= N_EVC <= 4092 and 0 <= N_MOVED <= N_EVC):
        why = "sizes: 3 <= OVS_SCALE_SWITCHES <= 200, 1 <= OVS_SCALE_EVCS <= 4092, " \
              "OVS_SCALE_MOVED <= OVS_SCALE_EVCS"
    print("## at scale on Open vSwitch: ring of %d, %d EVCs through REST, %d of them moved by "
          "a link failure (bench/ovs-scale-bench.py)" % (N_SW, N_EVC, N_MOVED))
    if why:
        print("SKIP: " + why)
        return 0
    os.sched_setaffinity(0, {sb.LOAD_CPU})
    print("kytosd (of_core, of_lldp, topology, pathfinder, flow_manager, mef_eline) on core %d; "
          "ovs-vswitchd and this client on core %d; %d concurrent POST clients; "
          "of_core stats_interval %d s" % (sb.SRV_CPU, sb.LOAD_CPU, CLIENTS, STATS_S))
    res = {}
    failed = None
    try:
        run(res)
    except Exception as e:  # noqa: BLE001 - reported with what was measured
        failed = "%s: %s" % (type(e).__name__, e)

    def row(a, b):
        print("| %-66s | %12s |" % (a, b))

    def val(key, fmt="%.2f"):
        return fmt % res[key] if key in res else "-"
    row("case", "value")
    row("---", "---")
    row("setup: ring up, links found by of_lldp, s", val("setup_s"))
    row("create: %d POST v2/evc/ answered, s (refused: %s)" % (N_EVC, val("post_refused", "%d")),
        val("post_s"))
    row("create: until all %s EVC flows are in the switches, s" % val("flows", "%d"), val("deploy_s"))
    row("  EVCs/s (created and deployed)",
        "%.1f" % (N_EVC / res["deploy_s"]) if "deploy_s" in res else "-")
    row("  active in GET v2/evc/", val("active", "%d"))
    row("  kytosd CPU over the create, s", val("deploy_cpu_s"))
    row("memory: kytosd RSS growth per EVC, KB (RSS after: %s MB)" % val("rss_mb", "%.1f"),
        val("rss_per_evc_kb"))
    row("GET v2/evc/ (%s bytes), s (median of 5)" % val("list_bytes", "%d"), val("list_s", "%.3f"))
    row("failover: link s1-s2 down until %d EVCs' flows on new paths, s" % N_MOVED,
        val("failover_s"))
    row("  kytosd CPU over the failover, s", val("failover_cpu_s"))
    row("  EVCs still on the failed link / active", "%s / %s" % (val("still_on_link", "%d"),
                                                                 val("active_after", "%d")))
    row("restart: start until GET v2/evc/ lists every EVC, s", val("serving_s"))
    row("  start until all switches connected, s", val("connected_s"))
    row("  start until consistency done (a lost flow back in each switch), s",
        val("consistent_s"))
    row("  flows installed again besides the %d lost (of %s checked)" % (N_SW, val("flows_checked", "%d")),
        val("reinstalled", "%d"))
    row("  active in GET v2/evc/ after the restart", val("active_restart", "%d"))
    if failed:
        print("FAILED: " + failed)
    print()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
