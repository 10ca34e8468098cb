#!/usr/bin/python3
"""bench/failover-bench.py - only the link failure of bench/scale-bench.py,
on a copy of a store prepared once, for comparing builds in minutes.

    bench/failover-bench.py BUILD_DIR prepare DATASET_DIR N
        create N EVCs as scale-bench.py does (same EVCs, same ring), wait
        until the server is idle, stop it: DATASET_DIR keeps its store.
    bench/failover-bench.py BUILD_DIR run DATASET_DIR [RUNS]
        RUNS times (1): copy DATASET_DIR, start BUILD_DIR's kytosd with
        BUILD_DIR's NApps on it, wait for the ring's links and for quiet, set
        link 1-2 down, wait for mef_eline's "link L down: N EVCs moved" line.

    bench/failover-bench.py - history DATASET_DIR OUT_DIR K
        copy DATASET_DIR to OUT_DIR with K soft-deleted copies of every stored
        flow, a month old: the history a network's changes of path leave
        behind (written into the embedded store's table directly; new ids).
    bench/failover-bench.py BUILD_DIR consistency DATASET_DIR [RUNS]
        start BUILD_DIR's kytosd on a copy of DATASET_DIR with
        consistency_min_verdict_interval = 1, then RUNS (2) rounds of flow
        stats of every switch (simnet), each one flow_manager's consistency
        check of all of them: the server's CPU until quiet, and the store's
        finds and match_parses (documents parsed to match) in the round.

Each run prints one "key=value ..." line: the failover's wall time as mef_eline
logged it (secs, handler_ms; last_moved_ms: when the last EVC that moved was
on its new path, the issue's "time until the last is redeployed"), the
process's CPU seconds until then (cpu, user, sys), MB written (write_mb), and
the store's counters that changed until the server was quiet again
(group_commits, group_writes, ...); then the CPU
of each live thread, by name.  A thread that exited before the line (the
failover's helper mover does) is not in /proc any more: its CPU is only in
the process's total, shown as "exited".

Interleave the builds to compare (A B A B ...): the machines are shared.
Environment:
    PERF=FILE        perf record the process during the failover into FILE
    PERF_CG=MODE     its call graphs (fp; dwarf,16384 where frame pointers fail)
    PERF_SCHED=1     record sched:sched_switch instead (where threads wait)
    SWITCHES         as scale-bench.py (20)
"""
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

_spec = importlib.util.spec_from_file_location(
    "scale_bench", os.path.join(os.path.dirname(os.path.abspath(__file__)), "scale-bench.py"))
sb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sb)

NAPPS = ("simnet", "topology", "flow_manager", "pathfinder", "mef_eline")


def prepare(build, ds, n):
    shutil.rmtree(ds, ignore_errors=True)
    s = sb.Server(build, ds)
    try:
        s.start()
        if not sb.wait_links_up(s, sb.SWITCHES):
            raise RuntimeError("the ring's links did not come up")
        bad = sb.create_all(s, n, int(os.environ.get("SCALE_THREADS", "4")))
        t0 = time.time()
        while sb.active_count(s) < n - len(bad):
            if time.time() - t0 > 300:
                raise RuntimeError("EVCs still inactive after 300 s")
            time.sleep(0.2)
        sb.wait_quiet(s)
        s.stop()
    finally:
        if s.proc and s.proc.poll() is None:
            s.proc.kill()
    print("prepared %s: %d EVCs, %d refused" % (ds, n, len(bad)))


def thread_cpu(pid):
    """CPU seconds of each live thread, summed by name (digits dropped)."""
    r = {}
    for t in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, t)) as f:
                st = f.read()
        except OSError:
            continue
        name = re.sub(r"-?\d+$", "", st[st.index("(") + 1:st.rindex(")")])
        v = st.rsplit(")", 1)[1].split()
        r[name] = r.get(name, 0) + (int(v[11]) + int(v[12])) / sb.HZ
    return r


def proc_cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        v = f.read().rsplit(")", 1)[1].split()
    return int(v[11]) / sb.HZ, int(v[12]) / sb.HZ


def flat(d, p=""):
    r = {}
    for k, v in d.items():
        if isinstance(v, dict):
            r.update(flat(v, p + k + "."))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            r[p + k] = v
    return r


def run_once(build, ds):
    work = tempfile.mkdtemp(prefix="failover-bench-")
    shutil.rmtree(work)
    shutil.copytree(ds, work)
    s = sb.Server(build, work)
    # the dataset's NApps are the preparing build's: run this build's
    for n in NAPPS:
        shutil.copy(os.path.join(build, "plugins/.libs/%s.so" % n), s.napps)
    perf = None
    try:
        s.start()
        if not sb.wait_links_up(s, sb.SWITCHES):
            raise RuntimeError("the ring's links did not come up")
        sb.wait_quiet(s)
        _, net = s.req("GET", "/api/kytos/simnet/v1/")
        link = next(k for k, v in net["links"].items()
                    if {v["endpoint_a"].rsplit(":", 1)[0], v["endpoint_b"].rsplit(":", 1)[0]}
                    == {sb.dpid(1), sb.dpid(2)})
        if os.environ.get("PERF"):
            ev = ["-e", "sched:sched_switch"] if os.environ.get("PERF_SCHED") else ["-F", "999"]
            perf = subprocess.Popen(["perf", "record", "--call-graph",
                                     os.environ.get("PERF_CG", "fp")] + ev +
                                    ["-o", os.environ["PERF"], "-p", str(s.proc.pid)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1)
        logf = os.path.join(work, "kytosd.log")
        log0 = os.path.getsize(logf)
        st0 = flat(s.store_status())
        th0, (u0, k0), w0 = thread_cpu(s.proc.pid), proc_cpu(s.proc.pid), s.wchar()
        t0 = time.time()
        s.req("POST", "/api/kytos/simnet/v1/links/%s/down" % link)
        m = None
        while m is None and time.time() - t0 < 120:
            with open(logf, errors="replace") as f:
                f.seek(log0)
                m = re.search(r"link \S+ down: (\d+) EVCs moved, (\d+) down, in (\d+) ms"
                              r"(?:.*?the last moved at (\d+) ms)?", f.read())
            if m is None:
                time.sleep(0.01)
        if m is None:
            raise RuntimeError("mef_eline logged no failover within 120 s")
        secs = time.time() - t0
        th1, (u1, k1), w1 = thread_cpu(s.proc.pid), proc_cpu(s.proc.pid), s.wchar()
        sb.wait_quiet(s)
        st1 = flat(s.store_status())
        if perf:
            perf.send_signal(signal.SIGINT)
            perf.wait()
            perf = None
        cpu = (u1 - u0) + (k1 - k0)
        per = {k: th1[k] - th0.get(k, 0) for k in th1 if th1[k] - th0.get(k, 0) >= 0.005}
        print("failover moved=%s down=%s secs=%.3f handler_ms=%s last_moved_ms=%s cpu=%.2f "
              "user=%.2f sys=%.2f write_mb=%.0f %s" % (m.group(1), m.group(2), secs, m.group(3),
                                    m.group(4) or "-", cpu, u1 - u0,
                                    k1 - k0, (w1 - w0) / 1e6,
                                    " ".join("%s=%s" % (k, st1[k] - st0.get(k, 0))
                                             for k in sorted(st1) if st1[k] != st0.get(k, 0))))
        print("  threads " + " ".join("%s=%.2f" % kv for kv in sorted(per.items())) +
              " exited=%.2f" % max(0.0, cpu - sum(per.values())))
        s.stop()
    finally:
        if perf:
            perf.send_signal(signal.SIGINT)
            perf.wait()
        if s.proc and s.proc.poll() is None:
            s.proc.kill()
        shutil.rmtree(work, ignore_errors=True)


def history(src, dst, k):
    import hashlib
    import sqlite3
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    db = sqlite3.connect(os.path.join(dst, "data", "store.db"))
    db.create_function("md5", 1, lambda t: hashlib.md5(t.encode()).hexdigest())
    for i in range(k):
        db.execute("""INSERT INTO "c:flows"(id, doc, "x:switch", "x:flow.cookie", "x:state")
                      SELECT md5(id || ':' || ?1), json_set(doc, '$._id', md5(id || ':' || ?1),
                             '$.id', md5(id || ':' || ?1), '$.state', 'deleted',
                             '$.updated_at', printf('2026-01-%02dT00:00:00.000000', ?1 + 1)),
                             "x:switch", "x:flow.cookie", 'deleted'
                      FROM "c:flows" WHERE "x:state" != 'deleted'""", (i,))
        db.commit()
    print("history %s: %s" % (dst, db.execute('SELECT "x:state", count(*) FROM "c:flows" '
                                              "GROUP BY 1").fetchall()))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def consistency(build, ds, runs):
    work = tempfile.mkdtemp(prefix="failover-bench-")
    shutil.rmtree(work)
    shutil.copytree(ds, work)
    with open(os.path.join(work, "kytos.conf"), "a") as f:
        f.write("[kytos/flow_manager]\nconsistency_min_verdict_interval = 1\n")
    s = sb.Server(build, work)
    for n in NAPPS:
        shutil.copy(os.path.join(build, "plugins/.libs/%s.so" % n), s.napps)
    try:
        s.start()
        if not sb.wait_links_up(s, sb.SWITCHES):
            raise RuntimeError("the ring's links did not come up")
        sb.wait_quiet(s)
        for r in range(runs):
            st0, c0 = flat(s.store_status()), s.cpu()
            code, _ = s.req("POST", "/api/kytos/simnet/v1/flow_stats")
            sb.wait_quiet(s)
            st1 = flat(s.store_status())
            print("consistency round=%d status=%s cpu=%.2f finds=%d match_parses=%d" % (
                r, code, s.cpu() - c0, st1.get("ops.find", 0) - st0.get("ops.find", 0),
                st1.get("match_parses.flows", 0) - st0.get("match_parses.flows", 0)), flush=True)
        s.stop()
    finally:
        if s.proc and s.proc.poll() is None:
            s.proc.kill()
        shutil.rmtree(work, ignore_errors=True)


def main():
    if len(sys.argv) >= 5 and sys.argv[2] == "prepare":
        prepare(sys.argv[1], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) in (4, 5) and sys.argv[2] == "run":
        for _ in range(int(sys.argv[4]) if len(sys.argv) == 5 else 1):
            run_once(sys.argv[1], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[2] == "history":
        history(sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif len(sys.argv) in (4, 5) and sys.argv[2] == "consistency":
        consistency(sys.argv[1], sys.argv[3], int(sys.argv[4]) if len(sys.argv) == 5 else 2)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
