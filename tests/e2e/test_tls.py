"""End-to-end: the REST API over HTTPS (api_tls_cert, api_tls_key) with
real clients: curl and Python's ssl against a test CA made with openssl;
keep-alive over TLS, plain HTTP and an untrusted client refused, a login
over HTTPS (TAP output)."""
import base64
import http.client
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kytosd_harness import Kytosd, Tap  # noqa: E402

t = Tap()
if not shutil.which("openssl") or not shutil.which("curl"):
    print("1..0 # SKIP openssl and curl are needed")
    sys.exit(0)

pki = tempfile.mkdtemp(prefix="kytos-tls-")


def run(*args):
    subprocess.run(args, cwd=pki, check=True, capture_output=True, timeout=60)


run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
    "-days", "2", "-subj", "/CN=kytos-c test CA")
run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr",
    "-subj", "/CN=localhost")
with open(os.path.join(pki, "ext"), "w") as f:
    f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
run("openssl", "x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
    "-out", "srv.pem", "-days", "2", "-extfile", "ext")
CA = os.path.join(pki, "ca.pem")


def curl(*args):
    p = subprocess.run(["curl", "--noproxy", "*", "-s", "-m", "10"] + list(args), capture_output=True,
                       text=True, timeout=30)
    return p.returncode, p.stdout


k = Kytosd(settings={"api_tls_cert": os.path.join(pki, "srv.pem"), "api_tls_key": os.path.join(pki, "srv.key")})
try:
    base = "https://127.0.0.1:%d/api/kytos/core/" % k.port
    rc, out = curl("--cacert", CA, base + "status/")
    t.ok(rc == 0 and '"response":"running"' in out, "curl over HTTPS with the test CA: status/", (rc, out[:200]))
    rc, out = curl("--cacert", CA, "-o", "/dev/null", "-o", "/dev/null", "-w", "%{http_code} %{num_connects}\n",
                   base + "status/", base + "metadata/")
    t.ok(rc == 0 and out.split("\n")[:2] == ["200 1", "200 0"], "HTTP/1.1 keep-alive over TLS: two requests, one connection",
         out)
    rc, out = curl("http://127.0.0.1:%d/api/kytos/core/status/" % k.port)
    t.ok(rc != 0 and "running" not in out, "plain HTTP on the HTTPS port gets no answer", (rc, out))
    rc, out = curl(base + "status/")
    t.ok(rc == 60, "a client that does not trust the CA refuses the server (curl 60)", rc)
    ctx = ssl.create_default_context(cafile=CA)
    c = http.client.HTTPSConnection("127.0.0.1", k.port, context=ctx, timeout=10)
    c.request("GET", "/api/kytos/core/auth/login/",
              headers={"Authorization": "Basic " + base64.b64encode(b"nobody:x").decode()})
    r = c.getresponse()
    body = r.read()
    t.ok(r.status == 404 and b"User nobody not found" in body, "Python's ssl client: auth/login/ over HTTPS",
         (r.status, body))
    c.close()
finally:
    k.stop()
    k.cleanup()

# both configured: HTTPS on api_port and plain HTTP on api_http_port
def free_port():
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


def start_with_http_port():
    """kytosd with api_http_port on a port free a moment ago: another
    process may take it before kytosd binds it (kytosd cannot report a
    port 0 it picked for api_http_port), so a start that fails on that
    port is tried again on another."""
    for attempt in range(5):
        port = free_port()
        try:
            return port, Kytosd(settings={"api_tls_cert": os.path.join(pki, "srv.pem"),
                                          "api_tls_key": os.path.join(pki, "srv.key"),
                                          "api_http_port": port})
        except RuntimeError as e:
            if "api_http_port" not in str(e) or attempt == 4:
                raise


hport, k = start_with_http_port()
try:
    rc, out = curl("--cacert", CA, "https://127.0.0.1:%d/api/kytos/core/status/" % k.port)
    t.ok(rc == 0 and '"response":"running"' in out, "with api_http_port: HTTPS still on api_port", (rc, out[:200]))
    rc, out = curl("-o", "/dev/null", "-o", "/dev/null", "-w", "%{http_code} %{num_connects}\n",
                   "http://127.0.0.1:%d/api/kytos/core/status/" % hport,
                   "http://127.0.0.1:%d/api/kytos/core/metadata/" % hport)
    t.ok(rc == 0 and out.split("\n")[:2] == ["200 1", "200 0"],
         "... and plain HTTP (keep-alive) on api_http_port", (rc, out))
    rc, out = curl("http://127.0.0.1:%d/api/kytos/core/status/" % k.port)
    t.ok(rc != 0 and "running" not in out, "... while api_port stays HTTPS only", (rc, out))
finally:
    k.stop()
    k.cleanup()
rc, out = curl("http://127.0.0.1:%d/api/kytos/core/status/" % hport)
t.ok(rc == 7, "kytosd stopped: nothing listens on api_http_port any more (curl 7)", rc)

# a key that does not match or a missing file: kytosd refuses to start, saying why
for settings, what in (({"api_tls_cert": os.path.join(pki, "srv.pem")}, "both api_tls_cert and api_tls_key"),
                       ({"api_tls_cert": os.path.join(pki, "nope.pem"), "api_tls_key": os.path.join(pki, "srv.key")},
                        "nope.pem"),
                       ({"api_tls_cert": os.path.join(pki, "srv.pem"), "api_tls_key": os.path.join(pki, "ca.key")},
                        "certificate or key")):
    try:
        k = Kytosd(settings=settings)
        k.stop()
        k.cleanup()
        t.ok(False, "refused to start: " + what)
    except RuntimeError as e:
        t.ok(what in str(e), "refused to start: " + what, str(e)[-400:])
shutil.rmtree(pki, ignore_errors=True)
sys.exit(t.done())
