"""End-to-end tests of kytosd's live streams (TAP): server-sent events for
events and log lines, with real HTTP clients: order, filtering, content
left out, tail, Last-Event-ID resume, heartbeats, the stream limit, a
client that does not read dropped without harming the others, and the
bus's figures unchanged by a stream.  docs/ui.md."""
import http.client
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kytosd_harness import Kytosd, Tap  # noqa: E402

t = Tap()


class Sse:
    """One stream, read on its own thread into a list of frames."""

    def __init__(self, port, path, headers=None):
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.c.request("GET", path, headers=headers or {})
        self.r = self.c.getresponse()
        self.status = self.r.status
        self.headers = dict(self.r.getheaders())
        self.frames, self.pings, self.ended = [], 0, False
        self.lock = threading.Lock()
        if self.status == 200:
            self.th = threading.Thread(target=self.run, daemon=True)
            self.th.start()
        else:
            self.body = self.r.read()

    def run(self):
        cur = {}
        try:
            while True:
                line = self.r.readline()
                if not line:
                    break
                line = line.decode().rstrip("\n")
                if line == "":
                    if "data" in cur:
                        with self.lock:
                            self.frames.append({"id": int(cur["id"]), "data": json.loads(cur["data"])})
                    cur = {}
                elif line.startswith(":"):
                    if "ping" in line:
                        self.pings += 1
                else:
                    k, _, v = line.partition(": ")
                    cur[k] = v
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            pass
        self.ended = True

    def data(self):
        with self.lock:
            return [f["data"] for f in self.frames]

    def close(self):
        try:
            if self.c.sock:
                self.c.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.c.close()


def hello(k, name, pad=""):
    body = {"name": name}
    if pad:
        body["pad"] = pad
    st = k.request("POST", "/api/kytos/hello/v1/", body=body)[0]
    return st


def streams_status(k):
    return k.request("GET", "/api/kytos/core/streams/")[2] or {}


def events():
    k = Kytosd(napps=["hello.so"], settings={"stream_history": 100, "stream_heartbeat_ms": 300,
                                            "api_max_streams": 5, "stream_buffer_bytes": 262144})
    streams = []
    try:
        k.wait_for(lambda: k.request("GET", "/api/kytos/hello/v1/")[0] == 200, 10)
        a = Sse(k.port, "/api/kytos/core/events/stream?name=kytos/hello%5C..*")
        b = Sse(k.port, "/api/kytos/core/events/stream?name=nothing.*")
        bare = Sse(k.port, "/api/kytos/core/events/stream?name=kytos/hello.stored&content=false")
        streams += [a, b, bare]
        t.ok(a.status == 200 and a.headers.get("Content-Type", "").startswith("text/event-stream")
             and a.headers.get("Cache-Control") == "no-cache",
             "an event stream: 200, text/event-stream, no-cache", (a.status, a.headers))
        sts = [hello(k, "n%d" % i) for i in range(20)]
        got = k.wait_for(lambda: len(a.data()) >= 20, 10)
        d = a.data()
        t.ok(got and sts == [201] * 20 and [x["content"]["name"] for x in d] == ["n%d" % i for i in range(20)]
             and all(x["name"] == "kytos/hello.stored" for x in d),
             "20 events, in order, with their content", (sts, d[:3], len(d)))
        ids = [f["id"] for f in a.frames]
        t.ok(ids == sorted(ids) and len(set(ids)) == 20 and all(x["id"] == i for x, i in zip(d, ids)),
             "ids increase, as the frames' id lines", ids)
        k.wait_for(lambda: len(bare.data()) >= 20, 5)
        t.ok(len(bare.data()) == 20 and all("content" not in x for x in bare.data()),
             "content=false: names without content", bare.data()[:2])
        time.sleep(0.8)   # several heartbeats: a filter that matches nothing
        t.ok(b.data() == [] and b.pings >= 1, "a filter that matches nothing: no events, heartbeats",
             (b.data()[:2], b.pings))

        tenth = ids[9]
        c = Sse(k.port, "/api/kytos/core/events/stream?name=kytos/hello.stored",
                headers={"Last-Event-ID": str(tenth)})
        streams.append(c)
        k.wait_for(lambda: len(c.data()) >= 10, 5)
        t.ok([x["content"]["name"] for x in c.data()] == ["n%d" % i for i in range(10, 20)],
             "Last-Event-ID: resumes after that event", [x["content"]["name"] for x in c.data()])
        tail = Sse(k.port, "/api/kytos/core/events/stream?name=kytos/hello.stored&tail=3")
        streams.append(tail)
        k.wait_for(lambda: len(tail.data()) >= 3, 5)
        t.ok([x["content"]["name"] for x in tail.data()] == ["n17", "n18", "n19"], "tail=3: the last three",
             tail.data())
        over = Sse(k.port, "/api/kytos/core/events/stream")
        t.ok(over.status == 503 and over.headers.get("Retry-After") == "1",
             "past api_max_streams: 503 + Retry-After", (over.status, getattr(over, "body", b"")[:200]))
        bad = Sse(k.port, "/api/kytos/core/events/stream?name=(unclosed")
        t.ok(bad.status == 400 and b"regex" in bad.body, "a bad regex: 400 naming it", (bad.status, bad.body))
        bad = Sse(k.port, "/api/kytos/core/events/stream", headers={"Last-Event-ID": "x1"})
        t.ok(bad.status == 400, "a bad Last-Event-ID: 400", bad.status)
        tail.close()
        c.close()
        b.close()
        # a client gone is noticed at its next write (a heartbeat at most)
        ok = k.wait_for(lambda: streams_status(k).get("event_clients") == 2, 5)
        t.ok(ok, "closed clients are forgotten", streams_status(k))

    finally:
        for s in streams:
            s.close()
        rc = k.stop()
        t.ok(rc == 0, "kytosd stops cleanly with streams open", (rc, k.logtext()))
        k.cleanup()


def slow_client():
    """A client that does not read is dropped and counted, at its buffer's
    cap; the reading one gets every event; publishing never waits."""
    k = Kytosd(napps=["hello.so"], settings={"stream_buffer_bytes": 65536})
    a = None
    slow = socket.socket()
    try:
        k.wait_for(lambda: k.request("GET", "/api/kytos/hello/v1/")[0] == 200, 10)
        a = Sse(k.port, "/api/kytos/core/events/stream?name=kytos/hello.stored&content=false")
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.connect(("127.0.0.1", k.port))
        slow.sendall(b"GET /api/kytos/core/events/stream?name=kytos/hello.stored HTTP/1.1\r\nHost: x\r\n\r\n")
        k.wait_for(lambda: streams_status(k).get("event_clients") == 2, 5)
        n = 4000
        conn = http.client.HTTPConnection("127.0.0.1", k.port, timeout=10)
        t0 = time.time()
        sts = set()
        for i in range(n):   # 64-character names: ~800 KB for the slow one
            conn.request("POST", "/api/kytos/hello/v1/", body=json.dumps({"name": ("s%d-" % i).ljust(64, "x")}),
                         headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            sts.add(r.status)
        took = time.time() - t0
        got = k.wait_for(lambda: len(a.data()) >= n, 20)
        st = streams_status(k)
        t.ok(sts == {201} and got and st.get("dropped_slow") == 1 and st.get("event_clients") == 1,
             "a client that does not read is dropped (counted); the reading one gets all %d" % n,
             (sts, len(a.data()), st))
        t.ok(took < 30, "publishing did not wait for the slow client (%.1f s)" % took, took)
    finally:
        slow.close()
        if a:
            a.close()
        k.stop()
        k.cleanup()


def load():
    """Hundreds of events a second to several clients; the bus's figures
    (published, dropped, dead letter) are what they are without streams."""
    k = Kytosd(napps=["hello.so"])
    streams = []
    try:
        k.wait_for(lambda: k.request("GET", "/api/kytos/hello/v1/")[0] == 200, 10)
        streams = [Sse(k.port, "/api/kytos/core/events/stream?name=kytos/hello.stored&content=false")
                   for _ in range(4)]
        bus0 = k.request("GET", "/api/kytos/core/status/")[2]["events"]
        n = 600
        conn = http.client.HTTPConnection("127.0.0.1", k.port, timeout=10)
        t0 = time.time()
        for i in range(n):
            conn.request("POST", "/api/kytos/hello/v1/", body=json.dumps({"name": "l%d" % i}),
                         headers={"Content-Type": "application/json"})
            conn.getresponse().read()
        rate = n / (time.time() - t0)
        ok = k.wait_for(lambda: all(len(s.data()) >= n for s in streams), 20)
        bus1 = k.request("GET", "/api/kytos/core/status/")[2]["events"]
        names = [[x["name"] for x in s.data()] for s in streams]
        t.ok(ok and all(len(x) == n for x in names),
             "%d events at %.0f/s reach each of 4 clients" % (n, rate), [len(x) for x in names])
        e0, e1 = bus0["events"], bus1["events"]
        t.ok(e1["published"] - e0["published"] >= n and e1["dropped"] == e0["dropped"]
             and e1["handler_errors"] == e0["handler_errors"]
             and bus1["dead_letter"]["count"] == bus0["dead_letter"]["count"],
             "the bus published them all and dropped nothing", (e0, e1))
    finally:
        for s in streams:
            s.close()
        k.stop()
        k.cleanup()


def logs():
    k = Kytosd()
    s = None
    try:
        info = Sse(k.port, "/api/kytos/core/logs/stream?level=WARNING&logger=kytos.core.atcp")
        other = Sse(k.port, "/api/kytos/core/logs/stream?level=ERROR")
        s = info
        sb = k.request("GET", "/api/kytos/core/status/")[2]["southbound"]["listen"]
        port = sb["port"] if isinstance(sb, dict) else int(str(sb).rsplit(":", 1)[1])
        c = socket.create_connection(("127.0.0.1", port), timeout=5)
        c.sendall(b"\x09\x00\x00\x08\x00\x00\x00\x01")   # OpenFlow version 9: refused, logged
        got = k.wait_for(lambda: len(info.data()) >= 1, 5)
        d = info.data()
        t.ok(got and d[0]["level"] == "WARNING" and d[0]["logger"].startswith("kytos.core.atcp")
             and "127.0.0.1" in d[0]["line"], "a WARNING line of the logger asked for", (d, k.logtext()))
        time.sleep(0.3)
        t.ok(other.data() == [], "level=ERROR: not that line", other.data())
        bad = Sse(k.port, "/api/kytos/core/logs/stream?level=LOUD")
        t.ok(bad.status == 400, "a bad level: 400", bad.status)
        c.close()
        other.close()
    finally:
        if s:
            s.close()
        k.stop()
        k.cleanup()


for fn in (events, slow_client, load, logs):
    try:
        fn()
    except Exception:  # a crash of the harness is a failure, not a silent pass
        import traceback
        t.ok(False, fn.__name__ + " raised", traceback.format_exc())
sys.exit(t.done())
