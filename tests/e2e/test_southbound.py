"""kytosd's OpenFlow server end to end (TAP): status/ shows the address it
bound, a switch's connection and messages show in status/ and /metrics,
and `port` / protocol_name behave as Kytos' (6653, 0 = a free port)."""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kytosd_harness import Kytosd, Tap  # noqa: E402

t = Tap()


def southbound(k):
    status, _, js, _ = k.request("GET", "/api/kytos/core/status/")
    return js.get("southbound") if status == 200 and js else None


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


# 1. port 0 (the harness' --port 0): a free port, shown in status/
k = Kytosd()
try:
    sb = southbound(k)
    t.ok(sb is not None and sb["running"] and sb["port"] > 0
         and sb["listen"] == "127.0.0.1:%d" % sb["port"],
         "status/ shows the bound OpenFlow address", sb)
    t.ok(sb is not None and sb["protocol"] == "%04d" % sb["port"],
         "off 6633/6653 the protocol is the port number, as Kytos", sb)
    port = sb["port"] if sb else 0
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    # OVS' HELLO: 04 00 0010 xid, a version bitmap element
    s.sendall(bytes.fromhex("0400001000000001" "0001000800000010"))
    ok = k.wait_for(lambda: (southbound(k) or {}).get("messages_in") == 1)
    sb = southbound(k)
    t.ok(ok and sb["connections"] == 1 and sb["conns"][0]["address"] == "127.0.0.1"
         and sb["conns"][0]["port"] == s.getsockname()[1] and sb["bytes_in"] == 16,
         "a switch's connection and its message show in status/", sb)
    status, _, _, body = k.request("GET", "/metrics")
    text = body.decode()
    t.ok(status == 200 and "kytos_sb_connections 1\n" in text
         and 'kytos_sb_messages_total{direction="in"} 1\n' in text
         and "kytos_sb_conn_send_queue_bytes{" in text,
         "/metrics counts connections and messages", text[-2000:])
    # a bad header: that connection goes, with one log line naming the peer
    b = socket.create_connection(("127.0.0.1", port), timeout=5)
    b.sendall(bytes.fromhex("0000000800000001"))
    b.settimeout(5)
    try:
        gone = b.recv(10) == b""
    except ConnectionResetError:
        gone = True
    ok = k.wait_for(lambda: (southbound(k) or {}).get("disconnects", {}).get("bad_framing") == 1)
    peer = "127.0.0.1:%d" % b.getsockname()[1]
    # (the log is written by a background thread)
    k.wait_for(lambda: "bad OpenFlow header" in k.logtext())
    t.ok(gone and ok and k.logtext().count(peer) == 1 and "bad OpenFlow header" in k.logtext(),
         "a bad header closes that connection, one log line", k.logtext())
    b.close()
    t.ok(southbound(k)["connections"] == 1, "the other connection stays", southbound(k))
    s.close()
    ok = k.wait_for(lambda: (southbound(k) or {}).get("connections") == 0)
    t.ok(ok and southbound(k)["disconnects"]["peer_closed"] == 1, "a closed switch is counted",
         southbound(k))
    rc = k.stop()
    t.ok(rc == 0, "kytosd stops cleanly with the OpenFlow server", k.logtext())
finally:
    k.stop()
    k.cleanup()

# 2. a fixed port, protocol_name = openflow (what tests on a random port need)
p = free_port()
k = Kytosd(settings={"port": p, "protocol_name": "openflow"})
try:
    sb = southbound(k)
    t.ok(sb is not None and sb["listen"] == "127.0.0.1:%d" % p and sb["protocol"] == "openflow",
         "--set port=N listens on N; protocol_name names it", sb)
    # the port is taken: a second kytosd refuses to start, naming it
    try:
        k2 = Kytosd(settings={"port": p})
        started = True
        k2.stop()
        k2.cleanup()
        why = ""
    except RuntimeError as e:
        started = False
        why = str(e)
    t.ok(not started and ("cannot listen on 127.0.0.1:%d" % p) in why,
         "a taken OpenFlow port stops kytosd with a clear reason", why)
finally:
    k.stop()
    k.cleanup()

sys.exit(t.done())
