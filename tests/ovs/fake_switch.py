"""A fake OpenFlow 1.3 switch on a raw socket, for the hostile-switch tests
and the southbound benchmark.

FakeSwitch speaks enough OpenFlow 1.3 to be handshaken by of_core (HELLO
with a version bitmap, FEATURES_REPLY, empty or one-port multipart replies,
ECHO and BARRIER replies) and to be served by tests/southbound/sbproto (which
answers ECHO_REQUEST and counts PACKET_IN).  It can run in a background
thread as a well-behaved switch that sends an ECHO_REQUEST every `interval`
and records how long each answer took.  The module-level helpers build the
raw messages the hostile cases send.  Every wait is bounded."""
import select
import socket
import struct
import threading
import time

HELLO, ERROR, ECHO_REQUEST, ECHO_REPLY = 0, 1, 2, 3
FEATURES_REQUEST, FEATURES_REPLY, SET_CONFIG = 5, 6, 9
PACKET_IN, PORT_STATUS, FLOW_MOD = 10, 12, 14
MULTIPART_REQUEST, MULTIPART_REPLY = 18, 19
BARRIER_REQUEST, BARRIER_REPLY = 20, 21
MP_DESC, MP_FLOW, MP_TABLE, MP_PORT_STATS, MP_PORT_DESC = 0, 1, 3, 4, 13


def header(mtype, length, xid=0, version=4):
    return struct.pack("!BBHI", version, mtype, length, xid)


def message(mtype, body=b"", xid=0, version=4):
    return header(mtype, 8 + len(body), xid, version) + body


def hello(xid=1, version=4, bitmap=True):
    """OVS' HELLO (a VERSIONBITMAP element with bit 4), or a bare header."""
    body = struct.pack("!HHI", 1, 8, 1 << version) if bitmap else b""
    return message(HELLO, body, xid, version)


def echo_request(xid, data=b""):
    return message(ECHO_REQUEST, data, xid)


def packet_in(in_port=1, frame=None, xid=0, cookie=0):
    """PACKET_IN as OVS sends it for output:CONTROLLER (reason ACTION, no
    buffer, a match with IN_PORT only, 2 pad bytes, the whole frame)."""
    if frame is None:   # a 60-byte frame: broadcast, ethertype 0x88b5 (local experimental)
        frame = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb5" + b"\x00" * 46
    match = struct.pack("!HHIII", 1, 12, 0x80000004, in_port, 0)
    body = struct.pack("!IHBBQ", 0xFFFFFFFF, len(frame), 1, 0, cookie) + match + b"\0\0" + frame
    return message(PACKET_IN, body, xid)


def ofp_port(port_no, name, mac=None, state=4, curr=0x840, speed_kbps=10000000):
    mac = mac or struct.pack("!HI", 0x0200, port_no)
    return (struct.pack("!I4x6s2x16s", port_no, mac, name.encode()[:15]) +
            struct.pack("!8I", 0, state, curr, curr, curr, 0, speed_kbps, speed_kbps))


class FakeSwitch:
    """One switch connection to host:port.  With handshake=True it answers
    of_core's handshake whenever serve() or the background thread runs."""

    def __init__(self, port, dpid=None, host="127.0.0.1", rcvbuf=None, ports=1, timeout=10):
        self.dpid = dpid
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:      # before connect, so the window stays small
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.s.settimeout(timeout)
        self.s.connect((host, port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.peer = "127.0.0.1:%d" % self.s.getsockname()[1]
        self.ports = ports
        self.buf = b""
        self.closed = False
        self.lock = threading.Lock()       # writes from the thread and the caller
        self.features_requested = threading.Event()
        self.port_desc_requested = threading.Event()
        self.set_config_seen = threading.Event()
        self.received = {}                 # type -> count
        self.errors = []                   # (type, code) of OFPT_ERRORs received
        self.echo_sent = {}                # xid -> time sent
        self.echo_rtt = []                 # seconds, per answered echo
        self.echo_replies = {}             # xid -> body, for the caller's own echoes
        self.thread = None
        self.stop_ev = threading.Event()

    # ---- sending ----
    def send(self, data):
        with self.lock:
            self.s.sendall(data)

    def send_hello(self, **kw):
        self.send(hello(**kw))

    # ---- receiving ----
    def _answer(self, m):
        t, xid = m[1], struct.unpack("!I", m[4:8])[0]
        self.received[t] = self.received.get(t, 0) + 1
        if t == ECHO_REQUEST:
            self.send(message(ECHO_REPLY, m[8:], xid))
        elif t == ECHO_REPLY:
            sent = self.echo_sent.pop(xid, None)
            if sent is not None:
                self.echo_rtt.append(time.time() - sent)
            self.echo_replies[xid] = m[8:]
        elif t == FEATURES_REQUEST:
            if self.dpid is not None:
                self.send(message(FEATURES_REPLY,
                                  struct.pack("!QIBB2xII", self.dpid, 0, 254, 0, 0x4F, 0), xid))
            self.features_requested.set()
        elif t == MULTIPART_REQUEST and len(m) >= 16:
            mp = struct.unpack("!H", m[8:10])[0]
            body = b""
            if mp == MP_DESC:
                body = (b"fake".ljust(256, b"\0") + b"hostile".ljust(256, b"\0") +
                        b"0".ljust(256, b"\0") + b"1".ljust(32, b"\0") + b"fake".ljust(256, b"\0"))
            elif mp == MP_PORT_DESC:
                body = b"".join(ofp_port(i, "fk%d-eth%d" % ((self.dpid or 0) & 0xffff, i))
                                for i in range(1, self.ports + 1))
                self.port_desc_requested.set()
            self.send(message(MULTIPART_REPLY, struct.pack("!HH4x", mp, 0) + body, xid))
        elif t == BARRIER_REQUEST:
            self.send(message(BARRIER_REPLY, b"", xid))
        elif t == SET_CONFIG:
            self.set_config_seen.set()
        elif t == ERROR and len(m) >= 12:
            self.errors.append(struct.unpack("!HH", m[8:12]))

    def pump(self, timeout=0.05):
        """Read what is there (waiting up to timeout) and answer it.  False
        once the connection is gone."""
        if self.closed:
            return False
        try:
            r, _, _ = select.select([self.s], [], [], timeout)
            if not r:
                return True
            data = self.s.recv(1 << 20)
        except (OSError, ValueError):
            data = b""
        if not data:
            self.closed = True
            return False
        self.buf += data
        while len(self.buf) >= 8:
            ln = struct.unpack("!H", self.buf[2:4])[0]
            if ln < 8 or len(self.buf) < ln:
                break
            m, self.buf = self.buf[:ln], self.buf[ln:]
            try:
                self._answer(m)
            except OSError:
                self.closed = True
                return False
        return True

    def serve(self, until, timeout=10.0):
        """Pump until until() is true (or the connection goes); returns until()."""
        deadline = time.time() + timeout
        while not until() and time.time() < deadline and self.pump():
            pass
        return until()

    def handshake(self, timeout=10.0):
        """HELLO, then answer until the controller sent SET_CONFIG (of_core's
        last handshake step)."""
        self.send_hello()
        return self.serve(self.set_config_seen.is_set, timeout)

    # ---- a well-behaved switch in the background ----
    def start(self, interval=0.2):
        """Answer everything, and send an ECHO_REQUEST every interval."""
        def run():
            xid, nxt = 0x10000, time.time()
            while not self.stop_ev.is_set() and not self.closed:
                if time.time() >= nxt:
                    xid += 1
                    self.echo_sent[xid] = time.time()
                    try:
                        self.send(echo_request(xid, b"well-behaved"))
                    except OSError:
                        self.closed = True
                        break
                    nxt = time.time() + interval
                self.pump(0.02)
        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def stop(self):
        self.stop_ev.set()
        if self.thread:
            self.thread.join(10)

    def echo_stats(self, late_after=1.0):
        """(answered, unanswered, worst round trip in s); an echo sent less
        than late_after seconds ago does not count as unanswered yet."""
        now = time.time()
        late = [x for x, t in list(self.echo_sent.items()) if now - t > late_after]
        return len(self.echo_rtt), len(late), max(self.echo_rtt or [0.0])

    def close(self, timeout=5.0):
        """An orderly close: FIN, then read until the controller closes too
        (closing with unread bytes would reset the connection instead)."""
        self.stop()
        if not self.closed:
            try:
                self.s.shutdown(socket.SHUT_WR)
                self.s.settimeout(timeout)
                deadline = time.time() + timeout
                while time.time() < deadline and self.s.recv(1 << 20):
                    pass
            except OSError:
                pass
        self.closed = True
        try:
            self.s.close()
        except OSError:
            pass
