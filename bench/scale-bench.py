#!/usr/bin/python3
"""bench/scale-bench.py - kytosd at scale (issue 22): the shipped NApps on
simnet's ring of SWITCHES (20) switches with 2 host ports each,
enable_entities_by_default, N EVPL EVCs created through REST, then a restart
and one link failure.  Prints one "key=value ..." line per phase; run-bench.sh
(BENCH_ONLY=scale) turns them into a table.

EVC k: a third (k % 3 == 0) join switch 1 port 1 to switch 2 port 2, over
link 1-2 (so that link's failure moves a third of them, the long way round
the ring); the others join switch a port 1 to switch a+4 port 2, a in
3..SWITCHES-4, four hops away from link 1-2.  VLANs are distinct per UNI.

    bench/scale-bench.py BUILD_DIR N [--keep DIR]
Environment: SWITCHES (20), SCALE_THREADS (4: concurrent creates), SRV_CPU.
"""
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HZ = os.sysconf("SC_CLK_TCK")
SWITCHES = int(os.environ.get("SWITCHES", "20"))


def dpid(n):
    return "00:00:00:00:00:00:%02x:%02x" % (n // 256, n % 256)


def evc_body(k):
    if k % 3 == 0:
        a, z, vlan = 1, 2, 1 + k // 3
    else:
        m = k - k // 3 - 1            # 0, 1, 2 ... over the others
        span = SWITCHES - 6           # a in 3 .. SWITCHES - 4
        a, z, vlan = 3 + m % span, 3 + m % span + 4, 1 + m // span
    return {"name": "scale-%d" % k, "dynamic_backup_path": True, "enabled": True,
            "uni_a": {"interface_id": "%s:1" % dpid(a), "tag": {"tag_type": "vlan", "value": vlan}},
            "uni_z": {"interface_id": "%s:2" % dpid(z), "tag": {"tag_type": "vlan", "value": vlan}}}


class Server:
    def __init__(self, build, work):
        self.build, self.work = build, work
        self.napps = os.path.join(work, "napps")
        self.data = os.path.join(work, "data")
        self.conf = os.path.join(work, "kytos.conf")
        if not os.path.isdir(self.napps):
            os.makedirs(self.napps)
            # pathfinder too: without it mef_eline falls back to its own
            # shortest path, after a failed call per EVC
            for n in ("simnet", "topology", "flow_manager", "pathfinder", "mef_eline"):
                shutil.copy(os.path.join(build, "plugins/.libs/%s.so" % n), self.napps)
            with open(self.conf, "w") as f:
                f.write('[kytos/simnet]\nshape = "ring"\nswitches = %d\nhost_ports = 2\n'
                        '[kytos/topology]\nenable_entities_by_default = true\n'
                        % SWITCHES)
        self.proc = None

    def start(self):
        pf = os.path.join(self.work, "port")
        if os.path.exists(pf):
            os.unlink(pf)
        args = [os.path.join(self.build, "host/kytosd"), "-f", "--listen", "127.0.0.1",
                "--api-port", "0", "--port", "0", "--napps", self.napps, "--data-dir", self.data,
                "--port-file", pf, "-c", self.conf, "--set", 'log_level="WARNING"',
                "--set", "api_queue_target_ms=0",
                # mef_eline's failover summary (INFO) times the link_down phase
                "--set", 'log_levels={"kytos.napps.kytos/mef_eline": "INFO"}']
        if os.environ.get("SRV_CPU"):
            args = ["taskset", "-c", os.environ["SRV_CPU"]] + args
        log = open(os.path.join(self.work, "kytosd.log"), "a")
        t0 = time.time()
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        while time.time() - t0 < 30:
            if os.path.exists(pf) and open(pf).read().strip():
                self.port = int(open(pf).read())
                if self.try_get("/api/kytos/core/status/")[0] == 200:
                    return time.time() - t0
            if self.proc.poll() is not None:
                break
            time.sleep(0.005)
        raise RuntimeError("kytosd did not start")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)

    def try_get(self, path, timeout=60):
        try:
            return self.req("GET", path, timeout=timeout)
        except OSError:
            return 0, None

    def req(self, method, path, body=None, timeout=60, conn=None):
        c = conn or http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        hdrs = {}
        if body is not None:
            body = json.dumps(body)
            hdrs["Content-Type"] = "application/json"
        c.request(method, path, body=body, headers=hdrs)
        r = c.getresponse()
        data = r.read()
        if not conn:
            c.close()
        return r.status, (json.loads(data) if data else None)

    def cpu(self):
        with open("/proc/%d/stat" % self.proc.pid) as f:
            v = f.read().rsplit(")", 1)[1].split()
        return (int(v[11]) + int(v[12])) / HZ

    def minflt(self):
        """Minor page faults so far (a fresh page each, zeroed by the kernel)."""
        with open("/proc/%d/stat" % self.proc.pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[7])

    def wchar(self):
        """Bytes handed to write calls so far (the store's WAL and checkpoints)."""
        with open("/proc/%d/io" % self.proc.pid) as f:
            for line in f:
                if line.startswith("wchar:"):
                    return int(line.split()[1])
        return 0

    def rss_mb(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS"):
                    return int(line.split()[1]) / 1024
        return 0

    def store_mb(self):
        total = 0
        for root, _, files in os.walk(self.data):
            for f in files:
                try:
                    total += os.path.getsize(os.path.join(root, f))
                except OSError:
                    pass
        return total / 1048576

    def store_status(self):
        st, js = self.req("GET", "/api/kytos/core/status/")
        return js.get("store", {}) if st == 200 and js else {}


def writes(st):
    ops = st.get("ops", {})
    return sum(v for k, v in ops.items() if k not in ("get", "find", "count"))


def full_scans(st):
    return sum((st.get("full_scans") or {}).values())


def wait_links(s, n, timeout=60):
    t0 = time.time()
    while time.time() - t0 < timeout:
        st, js = s.try_get("/api/kytos/topology/v3/links")
        if st == 200 and sum(1 for l in js["links"].values() if l.get("active")) >= n:
            return True
        time.sleep(0.1)
    return False


def wait_links_up(s, n, timeout=60):
    """Until topology reports n links UP: after a start it holds each link
    DOWN for link_up_timer and reports no link_down for a link it never
    reported up (mef_eline's consistency round, 60 s later, would move the
    EVCs instead of the failover being measured)."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        st, js = s.try_get("/api/kytos/topology/v3/links")
        if st == 200 and sum(1 for l in js["links"].values() if l.get("status") == "UP") >= n:
            return True
        time.sleep(0.1)
    return False


def active_count(s):
    st, js = s.req("GET", "/api/kytos/mef_eline/v2/evc/")
    return sum(1 for e in js.values() if e.get("active")) if st == 200 else -1


def sim_flows(s):
    """Flows in the simulated switches."""
    _, net = s.req("GET", "/api/kytos/simnet/v1/")
    return sum(sw.get("flows", 0) for sw in net["switches"].values())


def wait_quiet(s, window=1.0, timeout=120):
    """Until the server spent under 2% of a core over window seconds."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        c0 = s.cpu()
        time.sleep(window)
        if s.cpu() - c0 < 0.02 * window:
            return time.time() - t0 - window
    return -1


def settled_store(s, timeout=6.0):
    """The store's size once idle, and how long that took.  A burst of
    writes leaves the WAL at its largest; the checkpointer copies it back at
    its next idle tick (SQ_CKPT_IDLE_MS, 2 s) and the next commit cuts it
    to 8 MiB: a store measured at once counts the burst, not the store."""
    wal = os.path.join(s.data, "store.db-wal")
    t0 = time.time()
    while time.time() - t0 < timeout:
        try:
            if os.path.getsize(wal) <= 8 << 20:
                break
        except OSError:
            break
        time.sleep(0.1)
    return s.store_mb(), time.time() - t0


def create_all(s, n, threads):
    bad = []
    lock = threading.Lock()

    def work(t):
        c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=60)
        for k in range(t, n, threads):
            st, js = s.req("POST", "/api/kytos/mef_eline/v2/evc/", evc_body(k), conn=c)
            if st != 201:
                with lock:
                    bad.append((k, st, js))
        c.close()
    ts = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return bad


def timed_get(s, path):
    t0 = time.time()
    st, js = s.req("GET", path, timeout=120)
    return time.time() - t0, st, js


def line(phase, **kv):
    print(phase + " " + " ".join("%s=%s" % (k, ("%.3f" % v if isinstance(v, float) else v))
                                 for k, v in kv.items()), flush=True)


def main():
    build, n = sys.argv[1], int(sys.argv[2])
    keep = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--keep" else None
    work = keep or tempfile.mkdtemp(prefix="kytos-scale-")
    threads = int(os.environ.get("SCALE_THREADS", "4"))
    s = Server(build, work)
    try:
        s.start()
        # links UP, not only active: topology holds a new link DOWN for
        # link_up_timer, and an EVC created meanwhile finds no path; it would
        # be deployed by the link_up sweep, not by its create
        if not wait_links_up(s, SWITCHES):
            raise RuntimeError("the ring never came up")
        c0, t0 = s.cpu(), time.time()
        bad = create_all(s, n, threads)
        t_create = time.time() - t0
        while active_count(s) < n - len(bad) and time.time() - t0 < 300:
            time.sleep(0.2)
        t_active = time.time() - t0
        wait_quiet(s)
        line("create", evcs=n, refused=len(bad), secs=t_create, rate=n / t_create,
             active=active_count(s), active_s=t_active, cpu=s.cpu() - c0)
        if bad:
            line("refused", first=json.dumps(bad[0])[:200].replace(" ", ""))
        rss0, store_burst = s.rss_mb(), s.store_mb()
        store0, settle = settled_store(s)
        g1, _, js = timed_get(s, "/api/kytos/mef_eline/v2/evc/")
        g2, _, fl = timed_get(s, "/api/kytos/flow_manager/v2/stored_flows")
        nflows = sum(len(v) for v in fl.values()) if isinstance(fl, dict) else -1
        line("steady", rss_mb=rss0, kb_per_evc=rss0 * 1024 / n, store_mb=store0,
             store_burst_mb=store_burst, store_settle_s=settle, flows=nflows,
             get_evc_s=g1, get_stored_flows_s=g2)
        flows_stop = sim_flows(s)
        s.stop()
        store_stop = s.store_mb()
        t_serve = s.start()
        c0, t0 = s.cpu(), time.time()
        w0 = writes(s.store_status())
        wait_links(s, SWITCHES)
        # consistent: every EVC active again and the server idle
        quiet = wait_quiet(s)
        while active_count(s) < n - len(bad) and time.time() - t0 < 120:
            time.sleep(0.2)
            quiet = wait_quiet(s)
        st = s.store_status()
        line("restart", serving_s=t_serve, consistent_s=time.time() - t0 - 1.0 if quiet >= 0 else -1,
             cpu=s.cpu() - c0, writes=writes(st) - w0, active=active_count(s), rss_mb=s.rss_mb(),
             rss_ratio=s.rss_mb() / rss0, store_mb=s.store_mb(), store_at_stop_mb=store_stop,
             full_scans=full_scans(st))
        # The switches kept their flows across the restart (simnet's keep_flows,
        # as real switches do): one flow stats round has flow_manager check
        # every one of them against the store; nothing should be sent again.
        w1, c1, t1 = writes(s.store_status()), s.cpu(), time.time()
        s.req("POST", "/api/kytos/simnet/v1/flow_stats")
        quiet = wait_quiet(s)
        line("check", secs=quiet if quiet >= 0 else -1, cpu=s.cpu() - c1,
             flows_before=flows_stop, flows=sim_flows(s), writes=writes(s.store_status()) - w1,
             rss_mb=s.rss_mb(), rss_ratio=s.rss_mb() / rss0)
        # one link failure: link 1-2 carries a third of the EVCs
        if not wait_links_up(s, SWITCHES):
            raise RuntimeError("the ring's links were never reported UP after the restart")
        _, net = s.req("GET", "/api/kytos/simnet/v1/")
        link = next(k for k, v in net["links"].items()
                    if {v["endpoint_a"].rsplit(":", 1)[0], v["endpoint_b"].rsplit(":", 1)[0]}
                    == {dpid(1), dpid(2)})
        _, evcs = s.req("GET", "/api/kytos/mef_eline/v2/evc/")
        on_link = [i for i, e in evcs.items() if e.get("active") and
                   any({l["endpoint_a"]["id"].rsplit(":", 1)[0], l["endpoint_b"]["id"].rsplit(":", 1)[0]}
                       == {dpid(1), dpid(2)} for l in e.get("current_path", []))]
        scans0 = full_scans(s.store_status())
        perf = None
        if os.environ.get("PERF_LINK_DOWN"):   # a profile of the failover: perf.data path
            perf = subprocess.Popen(["perf", "record", "--call-graph", os.environ.get("PERF_CG", "fp"), "-F", "499", "-o",
                                     os.environ["PERF_LINK_DOWN"], "-p", str(s.proc.pid)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1)
        logf = os.path.join(s.work, "kytosd.log")
        log0 = os.path.getsize(logf)
        c0, t0, f0, w0 = s.cpu(), time.time(), s.minflt(), s.wchar()
        s.req("POST", "/api/kytos/simnet/v1/links/%s/down" % link)
        # mef_eline logs one line when every EVC of the link has moved or gone
        # down ("link L down: N EVCs moved, M down, in T ms"): read often, it
        # costs the server nothing; the listing below checks what it says
        handler_ms = t_logged = last_moved_ms = None
        while time.time() - t0 < 120 and handler_ms is None:
            with open(logf, errors="replace") as f:
                f.seek(log0)
                m = re.search(r"link \S+ down: \d+ EVCs moved, \d+ down, in (\d+) ms"
                              r"(?:.*?the last moved at (\d+) ms)?", f.read())
            if m:
                handler_ms, t_logged, c_logged = int(m.group(1)), time.time() - t0, s.cpu()
                last_moved_ms = int(m.group(2)) if m.group(2) else None
                f_logged = s.minflt() - f0
                w_logged = (s.wchar() - w0) / 1e6
            else:
                time.sleep(0.02)
        moved = down = 0
        while time.time() - t0 < 120:
            _, evcs = s.req("GET", "/api/kytos/mef_eline/v2/evc/")
            moved = sum(1 for i in on_link if evcs[i].get("active") and
                        not any({l["endpoint_a"]["id"].rsplit(":", 1)[0],
                                 l["endpoint_b"]["id"].rsplit(":", 1)[0]} == {dpid(1), dpid(2)}
                                for l in evcs[i].get("current_path", [])))
            # one that found no other path goes down: at 10,000 EVCs the long way
            # round the ring runs out of S-VLANs on its links (4,094 each)
            down = sum(1 for i in on_link if not evcs[i].get("active"))
            if moved + down == len(on_link):
                break
            time.sleep(0.5)   # each listing costs the server: not too often
        t_moved = time.time() - t0
        cpu_moved = (c_logged if t_logged is not None else s.cpu()) - c0
        wait_quiet(s)
        if perf:
            perf.send_signal(signal.SIGINT)
            perf.wait()
        line("link_down", evcs_on_link=len(on_link), moved=moved, down=down,
             secs=t_logged if t_logged is not None else t_moved, handler_ms=handler_ms,
             last_moved_ms=last_moved_ms,
             cpu=cpu_moved, cpu_until_quiet=s.cpu() - c0,
             page_faults=f_logged if t_logged is not None else None,
             write_mb=w_logged if t_logged is not None else None,
             full_scans=full_scans(s.store_status()) - scans0)
        s.stop()
    finally:
        if s.proc and s.proc.poll() is None:
            s.proc.kill()
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
