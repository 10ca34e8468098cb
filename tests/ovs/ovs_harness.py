"""A private Open vSwitch for tests: its own ovsdb-server and ovs-vswitchd in
a temporary directory, userspace (netdev) bridges speaking OpenFlow 1.3 to a
controller on 127.0.0.1, links as patch ports or veth pairs, and hosts in
network namespaces.  Everything it creates is named with a per-instance
prefix and removed by stop(), on success, failure or interrupt (atexit and
SIGTERM/SIGINT), and only what it created.

See ../shared/reference/ovs.md for why each step is the way it is."""
import atexit
import fcntl
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

SCHEMA = "/usr/share/openvswitch/vswitch.ovsschema"
TOOLS = ("ovsdb-tool", "ovsdb-server", "ovs-vswitchd", "ovs-vsctl", "ovs-ofctl", "ovs-appctl")
_live = []


def missing():
    """None when a private OVS can run here, else the reason it cannot."""
    for t in TOOLS:
        if shutil.which(t) is None:
            return "%s not installed (Debian: openvswitch-switch)" % t
    if not os.path.exists(SCHEMA):
        return SCHEMA + " missing"
    if os.geteuid() != 0:
        return "needs root (ovs-vswitchd opens tap/netdev ports)"
    return None


def missing_netns():
    """None when network namespaces and veth pairs can be made here."""
    for t in ("ip", "ethtool"):
        if shutil.which(t) is None:
            return "%s not installed (Debian: iproute2, ethtool)" % t
    name = "kcprobe%d" % os.getpid()
    r = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if r.returncode != 0:
        return "ip netns add failed: " + r.stderr.strip()
    subprocess.run(["ip", "netns", "del", name], capture_output=True)
    return None


def _cleanup_all(*_):
    for net in list(_live):
        net.stop()


def _on_signal(sig, frame):
    _cleanup_all()
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)


atexit.register(_cleanup_all)
for _s in (signal.SIGTERM, signal.SIGINT):
    if signal.getsignal(_s) in (signal.SIG_DFL, signal.default_int_handler):
        signal.signal(_s, _on_signal)


def alive(pid):
    """True while pid runs: a zombie (a detached daemon that init has not
    reaped yet) counts as gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _wait_gone(pid, seconds):
    deadline = time.time() + seconds
    while alive(pid):
        if time.time() >= deadline:
            return False
        time.sleep(0.02)
    return True


# The userspace datapath of every ovs-vswitchd is backed by one kernel tap
# device named "ovs-netdev": a second private OVS on the machine (a test run
# in parallel, or another checkout's) fails to create its bridges ("creating
# tap device failed: Device or resource busy").  One OvsNet at a time on the
# machine, then: held from start to stop(), waited for (bounded).
MACHINE_LOCK = "/tmp/kytos-ovs-netdev.lock"
LOCK_WAIT = 900.0


def _machine_lock():
    fd = os.open(MACHINE_LOCK, os.O_RDWR | os.O_CREAT, 0o666)
    deadline = time.time() + LOCK_WAIT
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.time() > deadline:
                os.close(fd)
                raise OvsError("another private OVS held %s for %d s" % (MACHINE_LOCK, LOCK_WAIT))
            time.sleep(0.1)   # polling a lock another process holds


class OvsError(RuntimeError):
    pass


class OvsNet:
    """One private OVS instance.  Switches are named s1..sN (bridge names
    carry the instance prefix: see br()); dpids are 00:00:00:00:00:00:00:0N
    style by default."""

    def __init__(self, prefix=None):
        self.lock_fd = _machine_lock()
        self.dir = tempfile.mkdtemp(prefix="kytos-ovs-")
        # short, unique and valid as an interface name prefix (IFNAMSIZ 16)
        self.prefix = prefix or "k%x" % (os.getpid() % 0xfff)
        self.env = dict(os.environ, OVS_RUNDIR=self.dir, OVS_DBDIR=self.dir,
                        OVS_LOGDIR=self.dir, OVS_SYSCONFDIR=self.dir)
        self.db = "unix:%s/db.sock" % self.dir
        self.switches = {}      # name -> dpid (16 hex digits)
        self.netns = []
        self.veths = []
        self.stopped = False
        _live.append(self)
        try:
            self._run(["ovsdb-tool", "create", self.dir + "/conf.db", SCHEMA])
            self._run(["ovsdb-server", self.dir + "/conf.db", "--remote=punix:%s/db.sock" % self.dir,
                       "--pidfile=%s/ovsdb-server.pid" % self.dir,
                       "--unixctl=%s/ovsdb-server.ctl" % self.dir,
                       "--log-file=%s/ovsdb-server.log" % self.dir, "--detach"])
            self.vsctl("--no-wait", "init")
            self._run(["ovs-vswitchd", self.db, "--pidfile=%s/ovs-vswitchd.pid" % self.dir,
                       "--unixctl=%s/ovs-vswitchd.ctl" % self.dir,
                       "--log-file=%s/ovs-vswitchd.log" % self.dir, "--detach"])
        except Exception:
            self.stop()
            raise

    # ---- plumbing ----
    def _run(self, args, check=True, timeout=30):
        r = subprocess.run(args, env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise OvsError("%s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
        return r.stdout

    def vsctl(self, *args, **kw):
        return self._run(["ovs-vsctl", "--db=" + self.db, "--timeout=20"] + list(args), **kw)

    def ofctl(self, sw, *args, **kw):
        return self._run(["ovs-ofctl", "-O", "OpenFlow13"] + list(args[:1]) +
                         ["%s/%s.mgmt" % (self.dir, self.br(sw))] + list(args[1:]), **kw)

    def br(self, sw):
        """The bridge name of switch sw ("s1" -> "k1a2s1")."""
        return self.prefix + sw

    # ---- switches ----
    def add_switches(self, n, controller_port, first=1, controller_host="127.0.0.1",
                     extra=()):
        """Create switches s<first>..s<first+n-1> in one transaction (one
        ovs-vsctl per switch costs ~0.2 s), each OpenFlow 1.3 only,
        fail_mode=secure, datapath-id = its number, controller set at
        creation (setting it later clears the flow table)."""
        args = []
        for i in range(first, first + n):
            sw = "s%d" % i
            dpid = "%016x" % i
            args += ["--", "add-br", self.br(sw), "--", "set", "bridge", self.br(sw),
                     "datapath_type=netdev", "protocols=OpenFlow13", "fail_mode=secure",
                     "other-config:datapath-id=" + dpid]
            args += list(extra)
            if controller_port:
                args += ["--", "set-controller", self.br(sw),
                         "tcp:%s:%d" % (controller_host, controller_port)]
            self.switches[sw] = dpid
        self.vsctl(*args)
        return ["s%d" % i for i in range(first, first + n)]

    def dpid(self, sw):
        """Kytos' form: 00:00:00:00:00:00:00:01."""
        d = self.switches[sw]
        return ":".join(d[i:i + 2] for i in range(0, 16, 2))

    def set_controller(self, sw, target):
        self.vsctl("set-controller", self.br(sw), target)

    def del_controller(self, sw):
        self.vsctl("del-controller", self.br(sw))

    def vswitchd_pid(self):
        return int(open(self.dir + "/ovs-vswitchd.pid").read())

    # ---- links ----
    def link_patch(self, a, b, name_a=None, name_b=None):
        """A patch-port link a<->b (cannot go down: see link_veth)."""
        pa = name_a or "%s-%s" % (a, b)
        pb = name_b or "%s-%s" % (b, a)
        pa, pb = self.prefix + pa, self.prefix + pb
        self.vsctl("--", "add-port", self.br(a), pa, "--", "set", "interface", pa, "type=patch",
                   "options:peer=" + pb,
                   "--", "add-port", self.br(b), pb, "--", "set", "interface", pb, "type=patch",
                   "options:peer=" + pa)
        return pa, pb

    def link_veth(self, a, b):
        """A veth link a<->b that can be set down and up (link_set)."""
        pa, pb = "%s%s%s" % (self.prefix, a, b), "%s%s%s" % (self.prefix, b, a)
        self._ip("link", "add", pa, "type", "veth", "peer", "name", pb)
        self.veths.append(pa)
        for p in (pa, pb):
            self._quiet(p)
            self._ip("link", "set", p, "up")
        self.vsctl("--", "add-port", self.br(a), pa, "--", "add-port", self.br(b), pb)
        return pa, pb

    def add_stub_port(self, sw, name="u"):
        """A port of sw that leads nowhere (a veth whose peer is up and in
        no bridge): an interface EVCs can use as a UNI without hosts."""
        pa, pb = "%s%s%s" % (self.prefix, sw, name), "%s%s%sx" % (self.prefix, sw, name)
        self._ip("link", "add", pa, "type", "veth", "peer", "name", pb)
        self.veths.append(pa)
        for p in (pa, pb):
            self._quiet(p)
            self._ip("link", "set", p, "up")
        self.vsctl("add-port", self.br(sw), pa)
        return pa

    def link_set(self, dev, up):
        self._ip("link", "set", dev, "up" if up else "down")

    def ofport(self, dev):
        return int(self.vsctl("get", "interface", dev, "ofport").strip())

    # ---- hosts ----
    def add_host(self, name, sw, addr, mac=None):
        """A host in its own namespace, attached to switch sw by a veth pair;
        addr like "198.51.100.1/24" (a documentation range; see _quiet).  Checksum offload off (userspace bridges
        pass TCP otherwise with bad checksums)."""
        ns = self.prefix + name
        hdev, sdev = name + "-eth0", "%s%s%s" % (self.prefix, sw, name)
        self._ip("netns", "add", ns)
        self.netns.append(ns)
        self._ip("link", "add", sdev, "type", "veth", "peer", "name", hdev)
        self.veths.append(sdev)
        self._ip("link", "set", hdev, "netns", ns)
        if mac:
            self.host_exec(name, "ip", "link", "set", hdev, "address", mac)
        self.host_exec(name, "ip", "addr", "add", addr, "dev", hdev)
        self.host_exec(name, "ip", "link", "set", hdev, "up")
        self.host_exec(name, "ip", "link", "set", "lo", "up")
        self.host_exec(name, "ethtool", "-K", hdev, "tx", "off", check=False)
        self._quiet(sdev)
        self._ip("link", "set", sdev, "up")
        self.vsctl("add-port", self.br(sw), sdev)
        return sdev

    def host_exec(self, name, *args, check=True, timeout=30):
        return self._run(["ip", "netns", "exec", self.prefix + name] + list(args),
                         check=check, timeout=timeout)

    def host_popen(self, name, *args, **kw):
        return subprocess.Popen(["ip", "netns", "exec", self.prefix + name] + list(args),
                                env=self.env, **kw)

    def ping(self, src, dst_ip, count=1, wait=1):
        r = subprocess.run(["ip", "netns", "exec", self.prefix + src, "ping", "-c", str(count),
                            "-W", str(wait), "-i", "0.2", "-q", dst_ip], capture_output=True, text=True)
        return r.returncode == 0

    def _quiet(self, dev):
        """This machine's own stack must not answer for, or chatter on, a
        switch-side device (the VM's eth0 may hold an address in the very
        documentation range a test uses: it would answer the hosts' ARP)."""
        for key, val in (("ipv4/conf/%s/arp_ignore", "8"), ("ipv6/conf/%s/disable_ipv6", "1")):
            try:
                with open("/proc/sys/net/" + key % dev, "w") as f:
                    f.write(val)
            except OSError:
                pass

    def _ip(self, *args):
        return self._run(["ip"] + list(args))

    # ---- flows ----
    def dump_flows(self, sw):
        """The switch's flow table as dicts: cookie, table, priority, match
        (text), actions (text), n_packets."""
        out = self.ofctl(sw, "dump-flows", "--no-stats")
        flows = []
        for line in out.splitlines():
            line = line.strip()
            if not line or line.startswith("OFPST_") or line.startswith("NXST_"):
                continue
            m = re.match(r"(.*?)\s*actions=(.*)$", line)
            if not m:
                continue
            fields, actions = m.group(1), m.group(2)
            f = {"actions": actions, "cookie": 0, "table": 0, "priority": 32768, "match": ""}
            rest = []
            for part in re.split(r",\s*|\s+", fields):
                if not part:
                    continue
                k, _, v = part.partition("=")
                if k == "cookie":
                    f["cookie"] = int(v, 16)
                elif k == "table":
                    f["table"] = int(v)
                elif k == "priority":
                    f["priority"] = int(v)
                elif k in ("duration", "n_packets", "n_bytes", "idle_age", "hard_age",
                           "reset_counts", "send_flow_rem", "idle_timeout", "hard_timeout"):
                    f[k] = v
                else:
                    rest.append(part)
            f["match"] = ",".join(rest)
            flows.append(f)
        return flows

    def add_flows_file(self, sw, path):
        self.ofctl(sw, "add-flows", path, timeout=300)

    # ---- the end ----
    def stop(self):
        """Remove everything this instance made; safe to call twice."""
        if self.stopped:
            return
        self.stopped = True
        pids = []       # read first: a daemon removes its pid file as it exits
        for ctl in ("ovs-vswitchd", "ovsdb-server"):
            try:
                pids.append(int(open("%s/%s.pid" % (self.dir, ctl)).read()))
            except (OSError, ValueError):
                pass
        for ctl in ("ovs-vswitchd", "ovsdb-server"):
            sock = "%s/%s.ctl" % (self.dir, ctl)
            if os.path.exists(sock):
                args = ["ovs-appctl", "-t", sock, "exit"]
                if ctl == "ovs-vswitchd":
                    args.append("--cleanup")
                subprocess.run(args, env=self.env, capture_output=True, timeout=20)
        for pid in pids:            # exit refused or slow: end it
            if not _wait_gone(pid, 10.0):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
                _wait_gone(pid, 5.0)
        for v in self.veths:
            subprocess.run(["ip", "link", "del", v], capture_output=True)
        for ns in self.netns:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)
        if self in _live:
            _live.remove(self)
        if self.lock_fd is not None:
            os.close(self.lock_fd)   # releases the machine lock
            self.lock_fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
