"""End-to-end: kytosd with simnet, topology, flow_manager and mef_eline on
the embedded store, driven over HTTP on 127.0.0.1 (TAP output)."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kytosd_harness import Kytosd, Tap  # noqa: E402

t = Tap()
NAPPS = ["simnet.so", "topology.so", "flow_manager.so", "mef_eline.so"]
TOPO = "/api/kytos/topology/v3/"
FLOWS = "/api/kytos/flow_manager/v2/"
EVC = "/api/kytos/mef_eline/v2/evc/"
S1, S2, S3 = ("00:00:00:00:00:00:00:0%d" % i for i in (1, 2, 3))
# links come UP at once instead of after Kytos' 10 s link_up_timer
CONF = "[daemon]\n\n[kytos/topology]\nlink_up_timer = 0\n"


def keys_tree(o):
    """The field names of a JSON value, recursively (dict keys that are ids
    are replaced by a placeholder so two topologies compare by shape)."""
    if isinstance(o, dict):
        out = {}
        for k, v in o.items():
            kk = "<id>" if (":" in k or len(k) == 64) else k
            sub = keys_tree(v)
            if kk in out and isinstance(out[kk], dict) and isinstance(sub, dict):
                out[kk].update(sub)
            else:
                out[kk] = sub
        return out
    if isinstance(o, list):
        merged = {}
        for v in o:
            sub = keys_tree(v)
            if isinstance(sub, dict):
                merged.update(sub)
        return [merged] if merged else []
    return None


def topology(k):
    st, _, js, _ = k.request("GET", TOPO)
    return js if st == 200 else None


def ring_ready(k):
    js = topology(k)
    return (bool(js) and len(js["topology"]["switches"]) == 3 and len(js["topology"]["links"]) == 3
            and all(l.get("status") == "UP" for l in js["topology"]["links"].values()))


def stored_flows(k, dpid):
    st, _, js, _ = k.request("GET", FLOWS + "stored_flows?dpid=" + dpid)
    return js.get(dpid, []) if st == 200 and isinstance(js, dict) else []


def evc(k, cid):
    st, _, js, _ = k.request("GET", EVC + cid)
    return js if st == 200 else None


def path_links(e):
    return [l.get("id") for l in (e or {}).get("current_path", []) if isinstance(l, dict)]


def main():
    k = Kytosd(napps=NAPPS, conf=CONF)
    cid = None
    try:
        t.ok(k.wait_for(lambda: ring_ready(k), 10), "simnet's 3-switch ring appears in topology", topology(k))
        js = topology(k)
        data = os.environ.get("TEST_DATA_DIR") or os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "..", "data")
        gen = os.path.join(data, "fixtures", "gen_topology.py")
        want = json.loads(subprocess.run([sys.executable, gen], capture_output=True, text=True,
                                         check=True).stdout)
        t.ok(keys_tree(js) == keys_tree(want), "GET v3/ has exactly gen_topology.py's field names",
             json.dumps({"ours": keys_tree(js), "want": keys_tree(want)})[:3000])
        st, _, body, _ = k.request("POST", TOPO + "switches/%s/disable" % S2)
        sw = topology(k)["topology"]["switches"][S2]
        t.ok(st == 201 and sw["enabled"] is False, "switch disable", (st, body, sw.get("enabled")))
        st, _, _, _ = k.request("POST", TOPO + "switches/%s/enable" % S2)
        t.ok(st == 201 and topology(k)["topology"]["switches"][S2]["enabled"] is True, "switch enable")
        # as in Kytos, disabling a switch disabled its interfaces and links: enable them again
        st, _, _, _ = k.request("POST", TOPO + "interfaces/switch/%s/enable" % S2)
        for lid, l in topology(k)["topology"]["links"].items():
            if not l["enabled"]:
                k.request("POST", TOPO + "links/%s/enable" % lid)
        t.ok(st == 200 and k.wait_for(lambda: ring_ready(k), 5), "interfaces and links enabled again",
             topology(k)["topology"]["links"])
        st, _, _, _ = k.request("POST", TOPO + "switches/%s/metadata" % S1, body={"site": "lab"})
        st2, _, md, _ = k.request("GET", TOPO + "switches/%s/metadata" % S1)
        t.ok(st == 201 and st2 == 200 and md.get("metadata", {}).get("site") == "lab", "switch metadata", md)
        st, _, body, _ = k.request("POST", TOPO + "switches/00:00:00:00:00:00:00:99/disable")
        t.ok(st == 404, "unknown switch is 404", body)

        flow = {"priority": 10, "match": {"in_port": 1, "dl_vlan": 100},
                "actions": [{"action_type": "output", "port": 1}]}
        st, _, body, _ = k.request("POST", FLOWS + "flows/" + S1, body={"force": True, "flows": [flow]})
        t.ok(st == 202 and body == {"response": "FlowMod Messages Sent"}, "POST flows 202", body)
        t.ok(k.wait_for(lambda: any(f.get("state") == "installed" and f.get("flow", {}).get("priority") == 10
                                    for f in stored_flows(k, S1)), 5),
             "the flow is stored and becomes installed after simnet's ack", stored_flows(k, S1))
        st, _, body, _ = k.request("POST", FLOWS + "flows/00:00:00:00:00:00:00:99", body={"flows": [flow]})
        t.ok(st == 404, "flows for an unknown switch: 404", body)

        # at light load (nothing in flight, the I/O thread's last request 5 ms
        # ago or more), the I/O thread commits the flow itself and answers at
        # once (a claim, host/store/store_async.c); a background write in the way
        # makes it the writer's, so up to three tries
        def claimed():
            return k.request("GET", "/api/kytos/core/status/")[2]["store"]["async"]["claimed_batches"]
        flow2 = dict(flow, match={"in_port": 1, "dl_vlan": 101})
        answers = []
        for _ in range(3):
            n0 = claimed()
            time.sleep(0.02)
            st, _, body, _ = k.request("POST", FLOWS + "flows/" + S1, body={"force": True, "flows": [flow2]})
            answers.append((st, body))
            if claimed() > n0:
                break
        t.ok(claimed() > n0 and all(a == (202, {"response": "FlowMod Messages Sent"}) for a in answers),
             "a flow POST at light load is committed and answered by the I/O thread", answers)
        t.ok(k.wait_for(lambda: any(f.get("state") == "installed" and f.get("flow", {}).get("match") == flow2["match"]
                                    for f in stored_flows(k, S1)), 5),
             "and its flow is stored and installed", stored_flows(k, S1))

        new = {"name": "e2e-evc", "enabled": True, "dynamic_backup_path": True,
               "uni_a": {"interface_id": S1 + ":1", "tag": {"tag_type": "vlan", "value": 1000}},
               "uni_z": {"interface_id": S3 + ":1", "tag": {"tag_type": "vlan", "value": 1000}}}
        st, _, body, _ = k.request("POST", EVC, body=new)
        cid = body.get("circuit_id") if isinstance(body, dict) else None
        t.ok(st == 201 and cid, "EVC created", body)
        if not cid:
            return
        t.ok(k.wait_for(lambda: (evc(k, cid) or {}).get("active") is True and path_links(evc(k, cid)), 10),
             "the EVC is deployed on a path", evc(k, cid))
        cookie_flows = [f for f in stored_flows(k, S1) if f.get("flow", {}).get("priority") != 10]
        t.ok(len(cookie_flows) >= 1, "its flows are in flow_manager", stored_flows(k, S1))
        st, _, lst, _ = k.request("GET", EVC)
        t.ok(st == 200 and cid in lst, "EVC list has it", lst)
        st, _, body, _ = k.request("POST", EVC, body=new)
        t.ok(st in (400, 409), "a duplicate EVC is refused", (st, body))

        before = path_links(evc(k, cid))
        st, _, body, _ = k.request("POST", "/api/kytos/simnet/v1/links/%s/down" % before[0])
        t.ok(st in (200, 201, 202), "simnet takes a link of the path down", (st, body))
        t.ok(k.wait_for(lambda: (evc(k, cid) or {}).get("active") is True and path_links(evc(k, cid))
                        and before[0] not in path_links(evc(k, cid)), 10),
             "the EVC moves to a path without the failed link", (before, evc(k, cid)))
        rc = k.stop()
        t.ok(rc == 0, "clean exit", k.logtext())

        k = Kytosd(napps=(), reuse=k, conf=CONF)
        t.ok(k.wait_for(lambda: ring_ready(k), 10), "after a restart the topology is back",
             (topology(k), k.logtext()))
        md = k.request("GET", TOPO + "switches/%s/metadata" % S1)[2]
        t.ok(md and md.get("metadata", {}).get("site") == "lab", "metadata survived the restart", md)
        t.ok(k.wait_for(lambda: evc(k, cid) is not None, 5), "the EVC survived the restart", evc(k, cid))
        t.ok(any(f.get("flow", {}).get("priority") == 10 for f in stored_flows(k, S1)),
             "stored flows survived the restart", stored_flows(k, S1))
    finally:
        k.stop()
        k.cleanup()


try:
    main()
except Exception:
    import traceback
    t.ok(False, "test_napps raised", traceback.format_exc())
sys.exit(t.done())
