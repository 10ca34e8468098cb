"""End-to-end tests of kytosd's web UI routes (TAP): files from ui_dir and
from NApps' ui/ directories, the built-in dashboard, hostile paths (never a
byte from outside the UI directories), types, ETag, gzip, and routes that
the UI never shadows (Kytos' B1, B6, B7).  docs/ui.md."""
import gzip
import json
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kytosd_harness import Kytosd, Tap  # noqa: E402

t = Tap()
SECRET = b"TOP-SECRET-OUTSIDE-THE-UI"


def raw_get(port, target, method="GET"):
    """Send the target exactly as given (http.client would refuse some)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % (method.encode(), target))
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    head = data.split(b"\r\n", 1)[0]
    try:
        status = int(head.split()[1])
    except (IndexError, ValueError):
        status = 0
    return status, data


def make_tree(base):
    """ui/ and napps/ with files, plus secrets around them and links out."""
    ui = os.path.join(base, "webui")
    os.makedirs(os.path.join(ui, "sub", "dir"))
    with open(os.path.join(base, "secret.txt"), "wb") as f:
        f.write(SECRET)
    with open(os.path.join(ui, "index.html"), "w") as f:
        f.write("<html><body>OPERATOR-UI</body></html>")
    with open(os.path.join(ui, "app.js"), "w") as f:
        f.write("console.log('kytos');\n" * 200)
    with open(os.path.join(ui, "logo.svg"), "w") as f:
        f.write("<svg xmlns='http://www.w3.org/2000/svg'></svg>")
    with open(os.path.join(ui, "sub", "dir", "index.html"), "w") as f:
        f.write("SUB-INDEX")
    with open(os.path.join(ui, ".hidden"), "wb") as f:
        f.write(SECRET)
    os.symlink(os.path.join(base, "secret.txt"), os.path.join(ui, "leak"))
    os.symlink("../secret.txt", os.path.join(ui, "leak2.txt"))
    os.symlink("app.js", os.path.join(ui, "alias.js"))   # inside: fine
    os.symlink(base, os.path.join(ui, "updir"))
    return ui


def napp_tree(napps, base):
    d = os.path.join(napps, "kytos", "mynapp", "ui", "k-toolbar")
    os.makedirs(d)
    with open(os.path.join(d, "main.kytos"), "w") as f:
        f.write("<template>TOOLBAR</template>")
    with open(os.path.join(napps, "kytos", "mynapp", "settings.txt"), "wb") as f:
        f.write(SECRET)   # the NApp's, but not under ui/
    os.symlink(os.path.join(base, "secret.txt"), os.path.join(d, "link.kytos"))
    os.symlink("../../settings.txt", os.path.join(d, "up.txt"))


def ui_files():
    base_k = Kytosd(napps=["topology.so"])
    base_k.stop()
    base = base_k.dir
    ui = make_tree(base)
    napp_tree(base_k.napps, base)
    k = Kytosd(reuse=base_k, settings={"ui_dir": ui})
    try:
        st, h, js, body = k.request("GET", "/")
        t.ok(st == 200 and b"OPERATOR-UI" in body and h.get("Content-Type", "").startswith("text/html"),
             "/ serves ui_dir's index.html as HTML", (st, h, body[:80]))
        st, h, js, body = k.request("GET", "/index.html")
        t.ok(st == 200 and b"OPERATOR-UI" in body, "/index.html too", (st, body[:80]))
        st, h, js, body = k.request("HEAD", "/index.html")
        t.ok(st == 200 and body == b"", "HEAD: no body", (st, body[:40]))
        st, h, js, body = k.request("GET", "/app.js")
        etag = h.get("ETag")
        t.ok(st == 200 and h.get("Content-Type", "").startswith("text/javascript") and etag
             and body == b"console.log('kytos');\n" * 200,
             "a static file: its type and an ETag", (st, h))
        st, h, js, body = k.request("GET", "/app.js", headers={"If-None-Match": etag})
        t.ok(st == 304 and body == b"", "If-None-Match with its ETag: 304, no body", (st, h))
        st, h, js, body = k.request("GET", "/app.js", headers={"Accept-Encoding": "br, gzip"})
        t.ok(st == 200 and h.get("Content-Encoding") == "gzip" and len(body) < 4400
             and gzip.decompress(body) == b"console.log('kytos');\n" * 200
             and h.get("ETag") != etag and "Accept-Encoding" in h.get("Vary", ""),
             "gzip when accepted (its own ETag, Vary)", (st, h, len(body)))
        st, h, js, body = k.request("GET", "/app.js", headers={"Accept-Encoding": "gzip;q=0"})
        t.ok(st == 200 and "Content-Encoding" not in h, "gzip;q=0: not compressed", h)
        st, h, js, body = k.request("GET", "/logo.svg")
        t.ok(st == 200 and h.get("Content-Type") == "image/svg+xml", "svg type", h)
        st, h, js, body = k.request("GET", "/alias.js")
        t.ok(st == 200 and len(body) == 22 * 200, "a symlink inside the UI dir is followed", st)
        st, h, js, body = k.request("GET", "/sub/dir/")
        t.ok(st == 200 and body == b"SUB-INDEX", "a directory with a slash: its index.html", (st, body))
        st, h, js, body = k.request("GET", "/nope.css")
        t.ok(st == 404 and js and js.get("code") == 404, "a missing file: JSON 404", (st, body))
        st, h, js, body = k.request("POST", "/index.html", body={})
        t.ok(st == 405 and h.get("Allow") == "GET, HEAD", "POST on a UI file: 405 + Allow", (st, h))

        hostile = [b"/../secret.txt", b"/%2e%2e/secret.txt", b"/%2E%2E/secret.txt",
                   b"/..%2fsecret.txt", b"/sub/..%2f..%2f..%2fsecret.txt", b"/%2e%2e%2fsecret.txt",
                   b"/sub/%2e%2e/%2e%2e/secret.txt", b"/..\\secret.txt", b"/..%5csecret.txt",
                   b"/sub%5c..%5c..%5csecret.txt", b"/app.js%00.html", b"/%00", b"/leak", b"/leak2.txt",
                   b"/updir/secret.txt", b"/.hidden", b"/%2ehidden", b"/./app.js", b"//secret.txt",
                   b"/" + b"a" * 300, b"/" + b"a/" * 600 + b"x", b"/%c0%ae%c0%ae/secret.txt",
                   b"/ui/kytos/mynapp/../settings.txt", b"/ui/kytos/mynapp/..%2fsettings.txt",
                   b"/ui/kytos/mynapp/%2e%2e/settings.txt", b"/ui/kytos/mynapp/k-toolbar/link.kytos",
                   b"/ui/kytos/mynapp/k-toolbar/up.txt", b"/ui/kytos/..%2f..%2f/secret.txt",
                   b"/ui/..%2f..%2f/x/secret.txt", b"/ui/%2e%2e/%2e%2e/secret.txt",
                   b"/ui/kytos/mynapp/k-toolbar/..%2f..%2f..%2f..%2f..%2fsecret.txt",
                   b"/ui/kytos/mynapp/k-toolbar/..%5c..%5csettings.txt",
                   b"/ui/kytos/mynapp/k-toolbar/" + b"%2e%2e%2f" * 10 + b"secret.txt"]
        bad = []
        for target in hostile:
            st, data = raw_get(k.port, target)
            if st not in (400, 404, 414) or SECRET in data:
                bad.append((target[:60], st, data[:200]))
        t.ok(not bad, "%d hostile paths: each 400/404/414, never a byte from outside" % len(hostile), bad)

        st, h, js, body = k.request("GET", "/ui/kytos/mynapp/k-toolbar/main.kytos")
        t.ok(st == 200 and body == b"<template>TOOLBAR</template>"
             and "no-store" in h.get("Cache-Control", "") and h.get("Pragma") == "no-cache",
             "/ui/{u}/{n}/{path}: the NApp's file, no-cache headers", (st, h, body))
        st, h, js, body = k.request("GET", "/ui/k-toolbar/")
        t.ok(st == 200 and js == [{"name": "kytos-mynapp-k-toolbar-main",
                                   "url": "ui/kytos/mynapp/k-toolbar/main.kytos"}],
             "/ui/{section}/ lists the section's components", (st, js))
        st, h, js, body = k.request("GET", "/ui/all/")
        t.ok(st == 200 and js and {"name": "kytos-mynapp-k-toolbar-main",
                                   "url": "ui/kytos/mynapp/k-toolbar/main.kytos"} in js,
             "/ui/all/ lists every section", (st, js))
        st, h, js, body = k.request("GET", "/dashboard/")
        t.ok(st == 200 and b"<html" in body.lower() and h.get("Content-Type", "").startswith("text/html"),
             "/dashboard/ is the built-in dashboard, whatever ui_dir holds", (st, body[:80]))

        # routes first (B1), and a POST-only route still answers 405 (B7)
        st, h, js, body = k.request("GET", "/api/kytos/core/status/")
        t.ok(st == 200 and js and "napps" in json.dumps(js), "a core route is not shadowed", st)
        st, h, js, body = k.request("GET", "/api/kytos/topology/v3/interfaces/x/enable")
        t.ok(st == 405 and "POST" in h.get("Allow", ""), "GET on a POST-only route: 405 + Allow (B7)",
             (st, h, body[:200]))
        st, h, js, body = k.request("GET", "/api/kytos/nothing/here")
        t.ok(st == 404 and js and js.get("code") == 404, "no route under /api/: JSON 404, never a file", st)
        k.drop("hello.so")
        ok = k.wait_for(lambda: k.request("GET", "/api/kytos/hello/v1/")[0] == 200, 10)
        t.ok(ok, "a NApp installed at run time answers its routes with the UI mounted (B1)",
             k.request("GET", "/api/kytos/hello/v1/")[:2])
    finally:
        k.stop()
        k.cleanup()


HELLO_UI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "plugins", "hello",
                        "ui", "k-info-panel", "hello.kytos")
HELLO_URL = "/ui/kytos/hello/k-info-panel/hello.kytos"


def napp_embedded():
    """hello.so carries ui/k-info-panel/hello.kytos (kytos-embed --ui): served
    as a file on disk is, a file on disk of the same path wins."""
    src = open(HELLO_UI, "rb").read()
    k = Kytosd(napps=["hello.so", "topology.so"])
    try:
        st, h, js, body = k.request("GET", HELLO_URL)
        etag = h.get("ETag")
        t.ok(st == 200 and body == src and h.get("Content-Type") == "text/plain; charset=utf-8"
             and "no-store" in h.get("Cache-Control", "") and h.get("Pragma") == "no-cache"
             and h.get("Expires") == "0" and h.get("X-Content-Type-Options") == "nosniff" and etag,
             "an embedded NApp ui file: the source's bytes, its type, no-cache headers, an ETag",
             (st, h, body[:80]))
        st, h, js, body = k.request("GET", HELLO_URL, headers={"If-None-Match": etag})
        t.ok(st == 304 and body == b"" and h.get("ETag") == etag, "If-None-Match with its ETag: 304",
             (st, h))
        st, h, js, body = k.request("GET", HELLO_URL, headers={"Accept-Encoding": "gzip"})
        gz_tag = h.get("ETag")
        t.ok(st == 200 and h.get("Content-Encoding") == "gzip" and gzip.decompress(body) == src
             and gz_tag != etag and "Accept-Encoding" in h.get("Vary", ""),
             "gzip when accepted (%d bytes, its own ETag)" % len(src), (st, h))
        st, h, js, body = k.request("GET", HELLO_URL,
                                    headers={"Accept-Encoding": "gzip", "If-None-Match": gz_tag})
        t.ok(st == 304, "and the gzip ETag gives 304", (st, h))
        st, h, js, body = k.request("HEAD", HELLO_URL)
        t.ok(st == 200 and body == b"", "HEAD: 200, no body", (st, body[:40]))
        st, h, js, body = k.request("POST", HELLO_URL, body={})
        t.ok(st == 405 and h.get("Allow") == "GET, HEAD", "POST: 405 + Allow", (st, h))
        missing = ["/ui/kytos/hello/k-info-panel/nope.kytos", "/ui/kytos/hello/hello.kytos",
                   "/ui/kytos/hello/k-info-panel/", "/ui/kytos/hello/k-info-panel",
                   "/ui/kytos/topology/k-info-panel/hello.kytos", "/ui/kytos/nothere/k-info-panel/hello.kytos",
                   "/ui/other/hello/k-info-panel/hello.kytos"]
        got = [(p, k.request("GET", p)[0]) for p in missing]
        t.ok(all(st == 404 for _, st in got), "missing embedded files: 404", got)
        hostile = [b"/ui/kytos/hello/k-info-panel%2fhello.kytos", b"/ui/kytos/hello/k-info-panel%5chello.kytos",
                   b"/ui/kytos/hello/x/../k-info-panel/hello.kytos", b"/ui/kytos/hello/x/%2e%2e/k-info-panel/hello.kytos",
                   b"/ui/kytos/hello/./k-info-panel/hello.kytos", b"/ui/kytos/hello//k-info-panel/hello.kytos",
                   b"/ui/kytos/hello/k-info-panel/hello.kytos%00", b"/ui/kytos/hello/k-info-panel/hello.kytos%00.js",
                   b"/ui/kytos/hello/%2e%2e/%2e%2e/hello.so", b"/ui/kytos/hello/..%2f..%2fhello.so",
                   b"/ui/kytos/%2e%2e/hello/k-info-panel/hello.kytos", b"/ui/kytos/hello/" + b"a/" * 600 + b"x"]
        got = [(p[:60], raw_get(k.port, p)[0]) for p in hostile]
        t.ok(all(st in (400, 404, 414) for _, st in got),
             "%d traversal attempts on the embedded files: each 400/404/414" % len(hostile), got)
        st, h, js, body = k.request("GET", "/ui/k-info-panel/")
        t.ok(st == 200 and js == [{"name": "kytos-hello-k-info-panel-hello",
                                   "url": "ui/kytos/hello/k-info-panel/hello.kytos"}],
             "/ui/{section}/ lists the embedded component", (st, js))
        st, h, js, body = k.request("GET", "/ui/all/")
        t.ok(st == 200 and {"name": "kytos-hello-k-info-panel-hello",
                            "url": "ui/kytos/hello/k-info-panel/hello.kytos"} in (js or []),
             "and /ui/all/", (st, js))

        # a file on disk of the same path wins (an operator's override)
        d = os.path.join(k.napps, "kytos", "hello", "ui", "k-info-panel")
        os.makedirs(d)
        with open(os.path.join(d, "hello.kytos"), "wb") as f:
            f.write(b"<template>ON-DISK</template>")
        st, h, js, body = k.request("GET", HELLO_URL)
        t.ok(st == 200 and body == b"<template>ON-DISK</template>" and h.get("ETag") != etag,
             "a file on disk of the same path wins over the embedded one", (st, body[:80]))
        st, h, js, body = k.request("GET", "/ui/k-info-panel/")
        t.ok(st == 200 and js == [{"name": "kytos-hello-k-info-panel-hello",
                                   "url": "ui/kytos/hello/k-info-panel/hello.kytos"}],
             "listed once", (st, js))
        os.unlink(os.path.join(d, "hello.kytos"))
        st, h, js, body = k.request("GET", HELLO_URL)
        t.ok(st == 200 and body == src, "removed from disk: the embedded one again", (st, body[:80]))

        # the files go and come with the NApp
        st = k.request("POST", "/api/kytos/core/napps/kytos/hello/disable")[0]
        gone = k.wait_for(lambda: k.request("GET", HELLO_URL)[0] == 404, 10)
        lst = k.request("GET", "/ui/k-info-panel/")[2]
        t.ok(st == 200 and gone and lst == [], "hello disabled: its embedded files 404, not listed",
             (st, lst))
        st = k.request("POST", "/api/kytos/core/napps/kytos/hello/enable")[0]
        back = k.wait_for(lambda: k.request("GET", HELLO_URL)[3] == src, 10)
        t.ok(st == 200 and back, "enabled again: served again", st)

        # each loaded NApp's load time, measured by kytosd
        napps = k.request("GET", "/api/kytos/core/status/")[2]["napps"]
        t.ok(set(napps) == {"kytos/hello", "kytos/topology"} and
             all(v["state"] == "enabled" and isinstance(v.get("load_ms"), (int, float)) and
                 not isinstance(v.get("load_ms"), bool) and 0 <= v["load_ms"] < 60000
                 for v in napps.values()),
             "status: load_ms, a number >= 0, for each loaded NApp", napps)
    finally:
        k.stop()
        k.cleanup()


def dashboard_default():
    k = Kytosd()
    try:
        st, h, js, body = k.request("GET", "/")
        t.ok(st == 200 and b"/dashboard/app.js" in body, "no ui_dir: / is the built-in dashboard", (st, body[:200]))
        st, h, js, body = k.request("GET", "/dashboard/app.js", headers={"Accept-Encoding": "gzip"})
        t.ok(st == 200 and h.get("Content-Type", "").startswith("text/javascript")
             and h.get("Content-Encoding") == "gzip" and len(gzip.decompress(body)) > len(body),
             "the dashboard's script, gzip", (st, h))
        etag = h.get("ETag")
        st, h, js, body = k.request("GET", "/dashboard/app.js",
                                    headers={"Accept-Encoding": "gzip", "If-None-Match": etag})
        t.ok(st == 304, "and its ETag gives 304", (st, h))
        st, h, js, body = k.request("GET", "/dashboard/nope.js")
        t.ok(st == 404, "an unknown dashboard file: 404", st)
        st, h, js, body = k.request("GET", "/whatever.js")
        t.ok(st == 404, "no ui_dir: other paths 404", st)
    finally:
        k.stop()
        k.cleanup()


for fn in (ui_files, napp_embedded, dashboard_default):
    try:
        fn()
    except Exception:  # a crash of the harness is a failure, not a silent pass
        import traceback
        t.ok(False, fn.__name__ + " raised", traceback.format_exc())
sys.exit(t.done())
