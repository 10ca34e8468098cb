"""Drive Debian's headless Chromium over the Chrome DevTools protocol, with
nothing but the Python standard library (a minimal websocket client).

    with Browser() as b:
        b.open("http://127.0.0.1:8181/")
        b.wait("document.querySelectorAll('.sw').length == 3")
        b.screenshot("desk.png")
"""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class WebSocket:
    def __init__(self, url, timeout=30):
        assert url.startswith("ws://")
        hostport, _, path = url[5:].partition("/")
        host, _, port = hostport.partition(":")
        self.s = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall(("GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
                        % (path, hostport, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.s.recv(1)
            if not chunk:
                raise OSError("websocket handshake: connection closed")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise OSError("websocket handshake refused: %r" % head[:200])

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        hdr = bytes([0x81])
        if n < 126:
            hdr += bytes([0x80 | n])
        elif n < 65536:
            hdr += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            hdr += bytes([0x80 | 127]) + struct.pack(">Q", n)
        self.s.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                raise OSError("websocket closed")
            buf += chunk
        return buf

    def recv(self):
        msg = b""
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._exact(8))[0]
            payload = self._exact(n)
            op = b0 & 0x0F
            if op == 0x9:   # ping: pong
                continue
            msg += payload
            if b0 & 0x80:
                return msg.decode()

    def close(self):
        self.s.close()


class Browser:
    def __init__(self, width=1280, height=900):
        self.exe = find_chromium()
        if not self.exe:
            raise FileNotFoundError("chromium")
        self.dir = tempfile.mkdtemp(prefix="kytos-chromium-")
        self.proc = subprocess.Popen(
            [self.exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--disable-extensions", "--remote-debugging-port=0",
             "--user-data-dir=" + self.dir, "--window-size=%d,%d" % (width, height), "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, HOME=self.dir))
        portfile = os.path.join(self.dir, "DevToolsActivePort")
        deadline = time.time() + 30
        while time.time() < deadline and not (os.path.exists(portfile) and open(portfile).read().strip()):
            if self.proc.poll() is not None:
                raise OSError("chromium exited: %s" % self.proc.returncode)
            time.sleep(0.05)
        port = int(open(portfile).read().split()[0])
        pages = []
        while time.time() < deadline and not pages:
            pages = [p for p in json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port))
                     if p.get("type") == "page"]
        self.ws = WebSocket(pages[0]["webSocketDebuggerUrl"])
        self.next_id = 0
        self.console_errors = []
        self.call("Runtime.enable")
        self.call("Log.enable")
        self.call("Page.enable")

    def _note(self, m):
        meth = m.get("method")
        if meth == "Runtime.consoleAPICalled" and m["params"].get("type") == "error":
            self.console_errors.append(" ".join(str(a.get("value", a.get("description")))
                                                for a in m["params"].get("args", [])))
        elif meth == "Runtime.exceptionThrown":
            self.console_errors.append(m["params"]["exceptionDetails"].get("text", "exception"))
        elif meth == "Log.entryAdded" and m["params"]["entry"].get("level") == "error":
            self.console_errors.append(m["params"]["entry"].get("text", ""))

    def call(self, method, **params):
        self.next_id += 1
        my = self.next_id
        self.ws.send(json.dumps({"id": my, "method": method, "params": params}))
        while True:
            m = json.loads(self.ws.recv())
            if m.get("id") == my:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self._note(m)

    def open(self, url):
        self.call("Page.navigate", url=url)

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"].get("text")))
        return r.get("result", {}).get("value")

    def wait(self, expr, timeout=10.0):
        deadline = time.time() + timeout
        while True:
            try:
                if self.eval(expr):
                    return True
            except RuntimeError:
                pass
            if time.time() > deadline:
                return False
            time.sleep(0.05)

    def size(self, width, height, mobile=False):
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=mobile)

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.ws.close()
        except OSError:
            pass
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()
