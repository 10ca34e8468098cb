"""kytosd with of_core (and topology, flow_manager, ... as asked) facing a
private Open vSwitch: what the of_core tests on real switches share."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import ovs_harness  # noqa: E402
from kytosd_harness import Kytosd, Tap  # noqa: E402,F401

TOPO = "/api/kytos/topology/v3/"
FLOWS = "/api/kytos/flow_manager/v2/"


def skip_reason():
    why = ovs_harness.missing()
    if why:
        return why
    if not os.path.exists(os.path.join(os.environ.get("top_builddir", os.getcwd()),
                                       "plugins", ".libs", "of_core.so")):
        return "plugins/.libs/of_core.so not built"
    return None


def conf(of_core=None, topology=None):
    """kytos.conf text: entities enabled (so a duplicate dpid is refused as
    Kytos does), of_core's settings as given."""
    text = "[daemon]\n\n[kytos/topology]\nenable_entities_by_default = true\nlink_up_timer = 0\n"
    for k, v in (topology or {}).items():
        text += "%s = %s\n" % (k, v)
    if of_core:
        text += "\n[kytos/of_core]\n"
        for k, v in of_core.items():
            text += "%s = %s\n" % (k, v)
    return text


def start_kytosd(napps, of_core=None, reuse=None, port=None):
    settings = {"protocol_name": "openflow"}
    if port:
        settings["port"] = port
    return Kytosd(napps=napps, settings=settings, conf=conf(of_core), reuse=reuse)


def of_port(k):
    st, _, js, _ = k.request("GET", "/api/kytos/core/status/")
    return js["southbound"]["port"]


def switches(k):
    st, _, js, _ = k.request("GET", TOPO + "switches")
    return js.get("switches", {}) if st == 200 and isinstance(js, dict) else {}


def interfaces(k, dpid):
    return switches(k).get(dpid, {}).get("interfaces", {})


def all_active(k, dpids):
    sws = switches(k)
    return all(sws.get(d, {}).get("active") is True for d in dpids)


def stored_flows(k, dpid):
    st, _, js, _ = k.request("GET", FLOWS + "stored_flows?dpid=" + dpid)
    return js.get(dpid, []) if st == 200 and isinstance(js, dict) else []
