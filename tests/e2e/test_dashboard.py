"""The built-in dashboard in a real headless Chromium (TAP), against a
running kytosd with the shipped NApps and simnet's ring: it loads without a
console error, lists the NApps, draws the switches and links, shows a new
EVC within about a second, shows a link going down, a button changes a
NApp's state, and the page keeps working with topology disabled.
Screenshots at desktop and phone sizes go to $SCREENSHOT_DIR (default
build/screenshots/).  SKIP without chromium (scripts/install-deps --test)."""
import json
import re
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kytosd_harness import Kytosd, Tap, BUILD  # noqa: E402
from cdp import Browser, find_chromium  # noqa: E402

t = Tap()
NAPPS = ["topology.so", "simnet.so", "flow_manager.so", "mef_eline.so", "hello.so"]
SHOTS = os.environ.get("SCREENSHOT_DIR", os.path.join(BUILD, "screenshots"))
S1, S3 = "00:00:00:00:00:00:00:01", "00:00:00:00:00:00:00:03"


def js_str(s):
    return json.dumps(s)


def dashboard():
    os.makedirs(SHOTS, exist_ok=True)
    k = Kytosd(napps=NAPPS)
    b = None
    try:
        up = k.wait_for(lambda: all(l.get("status") == "UP" for l in
                                    ((k.request("GET", "/api/kytos/topology/v3/links")[2] or {})
                                     .get("links") or {"x": {}}).values()), 20)
        t.ok(up, "simnet's ring is up in topology", k.request("GET", "/api/kytos/topology/v3/links")[:2])
        b = Browser()
        b.open("http://127.0.0.1:%d/" % k.port)
        ok = b.wait("[...document.querySelectorAll('.sw-label')].map(e => e.textContent).sort().join() == 's1,s2,s3'", 15)
        t.ok(ok, "the ring's three switches are drawn with their names",
             b.eval("document.getElementById('graph').outerHTML.slice(0, 400)"))
        ok = b.wait("document.querySelectorAll('.link.up').length == 3", 10)
        t.ok(ok, "its three links are drawn, up", b.eval("document.querySelectorAll('.link').length"))
        ok = b.wait("['kytos/topology','kytos/mef_eline','kytos/simnet','kytos/flow_manager','kytos/hello']"
                    ".every(id => document.querySelector('#napp-table tr[data-napp=\"' + id + '\"] .state-enabled'))", 10)
        t.ok(ok, "the NApps are listed, enabled", b.eval("document.querySelector('#napp-table').innerText"))
        # the load column: its header, and each enabled NApp's load time
        # from the status (load_ms), as "<number> ms"
        loads = b.eval("JSON.stringify({head: [...document.querySelectorAll('#napp-table thead th')]"
                       ".map(e => e.textContent), cells: Object.fromEntries([...document.querySelectorAll("
                       "'#napp-table tbody tr')].map(r => [r.dataset.napp, r.querySelector('.load-ms')?.textContent]))})")
        loads = json.loads(loads)
        status = k.request("GET", "/api/kytos/core/status/")[2] or {}
        t.ok("load" in loads["head"] and len(loads["cells"]) >= 5 and
             all(re.fullmatch(r"\d+(\.\d+)? ms", loads["cells"].get(id) or "") and
                 abs(float(loads["cells"][id].split()[0]) - status["napps"][id]["load_ms"]) <
                 max(0.6, status["napps"][id]["load_ms"] * 0.06)
                 for id in ("kytos/topology", "kytos/mef_eline", "kytos/simnet", "kytos/flow_manager",
                            "kytos/hello")),
             "the load column shows each NApp's load time from the status", (loads, status.get("napps")))
        ok = b.wait("document.getElementById('version').textContent.length > 0 && "
                    "document.getElementById('host-facts').innerText.includes('uptime')", 5)
        t.ok(ok, "host facts and version shown", b.eval("document.getElementById('host-facts').innerText"))

        evc = {"name": "ui-evc", "dynamic_backup_path": True,
               "uni_a": {"interface_id": S1 + ":1", "tag": {"tag_type": "vlan", "value": 101}},
               "uni_z": {"interface_id": S3 + ":1", "tag": {"tag_type": "vlan", "value": 101}},
               # no path finder ships: the path is given (s1-eth4 to s3-eth3)
               "primary_path": [{"endpoint_a": {"id": S1 + ":4"}, "endpoint_b": {"id": S3 + ":3"}}]}
        st, h, js, body = k.request("POST", "/api/kytos/mef_eline/v2/evc/", body=evc)
        t0 = time.time()
        ok = b.wait("document.querySelector('#evcs li[data-evc=\"ui-evc\"]') != null", 5)
        took = time.time() - t0
        t.ok(st in (200, 201) and ok and took < 2.0,
             "a new EVC is listed %.2f s after its creation" % took, (st, body[:200], took))
        ok = b.wait("document.querySelectorAll('.evc-path[data-evc=\"ui-evc\"]').length >= 1", 5)
        t.ok(ok, "its path is drawn on the graph",
             k.request("GET", "/api/kytos/mef_eline/v2/evc/")[3][:400])
        ok = b.wait("[...document.querySelectorAll('#event-list li')].some(e => e.textContent.includes('mef_eline'))", 10)
        t.ok(ok, "the EVC's events arrive from the event stream",
             b.eval("document.getElementById('event-list').innerText.slice(0, 300)"))
        b.wait("document.querySelectorAll('#charts canvas').length == 6", 2)
        time.sleep(1.5)   # a few points on the charts
        b.screenshot(os.path.join(SHOTS, "dashboard-desktop.png"))

        links = (k.request("GET", "/api/kytos/simnet/v1/")[2] or {}).get("links", {})
        lid = sorted(links)[0] if links else "none"
        st = k.request("POST", "/api/kytos/simnet/v1/links/%s/down" % lid)[0]
        ok = b.wait("document.querySelector('.link[data-link=%s]')?.dataset.status == 'down'" % js_str(lid), 10)
        t.ok(st == 200 and ok, "a link brought down in simnet is drawn down", (st, lid))

        t.ok(not b.console_errors, "no console error with every NApp loaded", b.console_errors)
        # a button press changes a NApp's state, and back
        b.eval("document.querySelector('button[data-napp=\"kytos/hello\"][data-action=\"disable\"]').click()")
        ok = b.wait("document.querySelector('button[data-napp=\"kytos/hello\"][data-action=\"enable\"]') != null", 10)
        st = k.request("GET", "/api/kytos/hello/v1/")[0]
        t.ok(ok and st == 404, "the disable button disables kytos/hello (its route gone)", st)
        b.eval("document.querySelector('button[data-napp=\"kytos/hello\"][data-action=\"enable\"]').click()")
        ok = b.wait("document.querySelector('#napp-table tr[data-napp=\"kytos/hello\"] .state-enabled') != null", 10)
        t.ok(ok and k.wait_for(lambda: k.request("GET", "/api/kytos/hello/v1/")[0] == 200, 5),
             "the enable button brings it back", k.request("GET", "/api/kytos/hello/v1/")[:2])

        # topology disabled: a clear message, the rest keeps working
        b.eval("document.querySelector('button[data-napp=\"kytos/topology\"][data-action=\"disable\"]').click()")
        ok = b.wait("!document.getElementById('net-msg').hidden && "
                    "document.getElementById('net-msg').textContent.includes('kytos/topology is not loaded')", 10)
        t.ok(ok, "topology disabled: the network card says so", b.eval("document.getElementById('net-msg').outerHTML"))
        before = b.eval("document.getElementById('host-facts').innerText")
        ok = b.wait("document.getElementById('host-facts').innerText != %s" % js_str(before), 5)
        t.ok(ok, "the page keeps updating", before)

        b.size(390, 844, mobile=True)
        time.sleep(0.5)
        width = b.eval("document.documentElement.scrollWidth")
        t.ok(width <= 400, "phone size: no sideways scrolling (%s px wide)" % width, width)
        b.screenshot(os.path.join(SHOTS, "dashboard-phone.png"))
        # a request in flight when a NApp goes may get its 404 (the browser
        # logs it); nothing else
        errors = [e for e in b.console_errors if "status of 404" not in e]
        t.ok(not errors, "no other console error once NApps were disabled", b.console_errors)
        t.ok(os.path.getsize(os.path.join(SHOTS, "dashboard-desktop.png")) > 20000,
             "screenshots written to " + SHOTS)
    finally:
        if b:
            b.close()
        k.stop()
        k.cleanup()


if not find_chromium():
    print("1..0 # SKIP chromium is not installed (scripts/install-deps --test)")
    sys.exit(0)
try:
    dashboard()
except Exception:  # a crash of the harness is a failure, not a silent pass
    import traceback
    t.ok(False, "dashboard raised", traceback.format_exc())
sys.exit(t.done())
