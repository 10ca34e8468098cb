"""OpenFlow over TLS (TAP): kytosd with sb_tls_cert/key/ca_cert and of_core,
certificates from OVS' own PKI (ovs-pki).  A real Open vSwitch over `ssl:`
with a certificate from a CA kytosd does not trust is refused with a log
line and never reaches topology; with the right one it does.  A TLS client
without a certificate, a plain-TCP client sending an OpenFlow HELLO and a
client that never finishes its handshake are refused too.  Bad TLS
settings stop kytosd at start.  SKIP without OVS, ovs-pki or root."""
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ofcore_env as env  # noqa: E402
from ofcore_env import ovs_harness, Tap, Kytosd  # noqa: E402

NAPPS = ["of_core.so", "topology.so"]
HELLO = b"\x04\x00\x00\x08\x00\x00\x00\x01"
t = Tap()


def make_pki(d):
    """OVS' PKI in d/pki, a controller certificate (ctl-*) and a switch
    one (sc-*) signed by its CAs."""
    def run(*args):
        subprocess.run(["ovs-pki", "--dir=%s/pki" % d] + list(args), cwd=d, check=True,
                       capture_output=True, timeout=120)
    os.makedirs(d)
    run("init")
    run("req+sign", "ctl", "controller")
    run("req+sign", "sc", "switch")
    return {"ctl_cert": d + "/ctl-cert.pem", "ctl_key": d + "/ctl-privkey.pem",
            "sc_cert": d + "/sc-cert.pem", "sc_key": d + "/sc-privkey.pem",
            "switchca": d + "/pki/switchca/cacert.pem",
            "controllerca": d + "/pki/controllerca/cacert.pem"}


def southbound(k):
    st, _, js, _ = k.request("GET", "/api/kytos/core/status/")
    return js.get("southbound", {}) if st == 200 and isinstance(js, dict) else {}


def tls_refused(k):
    return southbound(k).get("disconnects", {}).get("tls_refused", 0)


def closed_without_openflow(port, payload, timeout=10):
    """Connect, send payload, read until the server closes: (closed, bytes)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    got = b""
    try:
        if payload:
            s.sendall(payload)
        while True:
            b = s.recv(4096)
            if not b:
                return True, got
            got += b
    except (ConnectionResetError, BrokenPipeError):
        return True, got
    except socket.timeout:
        return False, got
    finally:
        s.close()


def start_refused(settings):
    """kytosd that must not start: its log."""
    try:
        k = Kytosd(napps=[], settings=settings)
    except RuntimeError as e:
        return str(e)
    k.stop()
    k.cleanup()
    return None


def main():
    why = env.skip_reason() or (None if shutil.which("ovs-pki") else "ovs-pki not installed "
                                                                      "(openvswitch-pki)")
    if why:
        print("1..0 # SKIP test_of_tls: " + why)
        return 0
    k = net = None
    tmp = tempfile.mkdtemp(prefix="kytos-oftls-")
    try:   # from here on tmp is removed whatever fails (ovs-pki too)
        good = make_pki(tmp + "/good")
        rogue = make_pki(tmp + "/rogue")
        # ---- bad settings stop kytosd at start
        log = start_refused({"sb_tls_cert": good["ctl_cert"], "sb_tls_key": good["ctl_key"]})
        t.ok(log and "sb_tls_ca_cert is not set" in log,
             "a certificate without sb_tls_ca_cert stops kytosd with the reason", log)
        log = start_refused({"sb_tls_cert": good["ctl_cert"], "sb_tls_key": rogue["ctl_key"],
                             "sb_tls_ca_cert": good["switchca"]})
        t.ok(log and "does not match sb_tls_cert" in log,
             "a key that is not the certificate's stops kytosd with the reason", log)
        log = start_refused({"sb_tls_cert": tmp + "/nope.pem", "sb_tls_key": good["ctl_key"],
                             "sb_tls_ca_cert": good["switchca"]})
        t.ok(log and "sb_tls_cert: cannot read" in log, "a missing certificate file stops kytosd",
             log)

        # ---- a handler registering leaves a handshake under way alone: the
        # connection binds to it when its handshake is done
        k = Kytosd(napps=[], settings={"protocol_name": "openflow", "sb_tls_cert": good["ctl_cert"],
                                       "sb_tls_key": good["ctl_key"], "sb_tls_ca_cert": good["switchca"]})
        raw = socket.create_connection(("127.0.0.1", env.of_port(k)), timeout=10)
        k.drop("of_core.so")
        loaded = k.wait_for(lambda: k.request("GET", "/api/kytos/core/status/")[2].get("napps", {})
                            .get("kytos/of_core", {}).get("state") == "enabled", 20)
        ctx = ssl.create_default_context(cafile=good["controllerca"])
        ctx.check_hostname = False
        ctx.load_cert_chain(good["sc_cert"], good["sc_key"])
        got = b""
        try:
            with ctx.wrap_socket(raw) as s:
                s.sendall(HELLO)
                got = s.recv(8)
        except (OSError, ssl.SSLError) as e:
            got = repr(e).encode()
        t.ok(loaded and got[:2] == b"\x04\x00",
             "a TLS handshake under way when of_core registers is kept: of_core answers once it is done",
             (loaded, got[:80]))
        k.stop()
        k.cleanup()
        k = None

        settings = {"protocol_name": "openflow", "sb_tls_cert": good["ctl_cert"],
                    "sb_tls_key": good["ctl_key"], "sb_tls_ca_cert": good["switchca"],
                    "sb_tls_handshake_timeout_ms": 1500}
        # echoes every 0.2 s from of_core's timer thread: sends from another
        # thread than the reading one, on the same TLS connection
        k = Kytosd(napps=NAPPS, settings=settings,
                   conf=env.conf(of_core={"echo_interval": 0.2, "dead_interval": 5}))
        port = env.of_port(k)
        sb = southbound(k)
        t.ok(sb.get("tls") is True and port > 0, "status/ says the OpenFlow port speaks TLS", sb)

        # ---- a plain-TCP client (an OpenFlow HELLO) on the TLS port
        closed, got = closed_without_openflow(port, HELLO)
        t.ok(closed and not got.startswith(b"\x04"),
             "a plain-TCP client sending HELLO is closed without an OpenFlow answer", got[:16])
        t.ok(k.wait_for(lambda: "refused: TLS handshake failed" in k.logtext(), 20),
             "... and refused with a log line", k.logtext())
        t.ok(k.wait_for(lambda: tls_refused(k) >= 1, 20), "... counted as tls_refused",
             southbound(k).get("disconnects"))

        # ---- a client that never finishes its handshake
        start = time.time()
        closed, got = closed_without_openflow(port, b"", timeout=10)
        t.ok(closed and got == b"" and time.time() - start < 8,
             "a silent client is closed after sb_tls_handshake_timeout_ms",
             (closed, got, time.time() - start))
        t.ok(k.wait_for(lambda: "TLS handshake not finished in 1500 ms" in k.logtext(), 20) and
             k.wait_for(lambda: tls_refused(k) == 2, 20),
             "... with a log line, counted as tls_refused", k.logtext())

        # ---- a TLS client without a certificate
        ctx = ssl.create_default_context(cafile=good["controllerca"])
        ctx.check_hostname = False
        n0 = tls_refused(k)
        refused = False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
                with ctx.wrap_socket(raw) as s:
                    s.sendall(HELLO)
                    refused = s.recv(8) == b""
        except (ssl.SSLError, ConnectionResetError, BrokenPipeError):
            refused = True
        t.ok(refused, "a TLS client without a certificate is refused")
        # the counter moves before the log thread writes the line: await both
        t.ok(k.wait_for(lambda: tls_refused(k) == n0 + 1 and
                        "peer did not return a certificate" in k.logtext(), 20),
             "... with a log line naming the missing certificate", k.logtext())

        # ---- Open vSwitch over ssl: with a certificate from another CA
        net = ovs_harness.OvsNet()
        net.vsctl("set-ssl", rogue["sc_key"], rogue["sc_cert"], good["controllerca"])
        net.add_switches(1, 0)
        dpid = net.dpid("s1")
        n0 = tls_refused(k)
        net.set_controller("s1", "ssl:127.0.0.1:%d" % port)
        t.ok(k.wait_for(lambda: tls_refused(k) > n0, 15),
             "OVS with a switch certificate from an unknown CA is refused",
             southbound(k).get("disconnects"))
        t.ok(k.wait_for(lambda: "certificate verify failed" in k.logtext() or
                        "unable to get local issuer" in k.logtext(), 20),
             "... with a log line saying why", k.logtext())
        t.ok(dpid not in env.switches(k) and southbound(k).get("connections") == 0,
             "... and it never reaches of_core or topology", env.switches(k))

        # ---- the right certificate: the switch appears in topology
        net.vsctl("set-ssl", good["sc_key"], good["sc_cert"], good["controllerca"])
        net.del_controller("s1")
        net.set_controller("s1", "ssl:127.0.0.1:%d" % port)
        ok = k.wait_for(lambda: env.all_active(k, [dpid]) and len(env.interfaces(k, dpid)) >= 1, 30)
        t.ok(ok, "OVS over ssl: with a certificate the CA signed: active in topology",
             env.switches(k))
        sb = southbound(k)
        t.ok(sb.get("connections") == 1 and sb.get("bytes_in", 0) > 0 and
             sb.get("messages_in", 0) > 3, "status/ shows the TLS connection and its messages", sb)
        m0 = sb.get("messages_out", 0)
        t.ok(k.wait_for(lambda: southbound(k).get("messages_out", 0) >= m0 + 10, 10) and
             env.all_active(k, [dpid]) and southbound(k).get("connections") == 1,
             "echoes from of_core's timer thread keep flowing over TLS; the switch stays active",
             southbound(k))
        rc = k.stop()
        t.ok(rc == 0, "kytosd stops cleanly (exit 0) with a TLS switch connected", rc)
    finally:
        if net:
            net.stop()
        if k:
            k.stop()
            k.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    t.done()
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
