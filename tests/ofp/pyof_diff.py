#!/usr/bin/env python3
"""tests/ofp/pyof_diff.py - differential test of libofp against pyof
(kytos-ng python-openflow, Debian's python3-openflow).

Encode direction: tests/ofp/ofp_hex encode prints the messages we build
(most FLOW_MODs from Kytos flow JSON); each must parse with pyof to the
field values written here, and pyof must pack it back to the same bytes.
Decode direction: messages built and packed by pyof (FLOW_MOD, PACKET_IN,
PORT_STATUS, FEATURES_REPLY, multipart FLOW and PORT_DESC replies, HELLO,
ECHO, ERROR, PACKET_OUT) go through ofp_hex decode; every field our decoder
reports must equal pyof's.  Prints TAP.
"""
import json
import os
import subprocess
import sys

try:
    import pyof  # noqa: F401
except ImportError:
    # Debian installs pyof for /usr/bin/python3; a pyenv python3 on PATH does not see it.
    if os.path.exists("/usr/bin/python3") and not os.environ.get("OFP_DIFF_REEXEC"):
        os.environ["OFP_DIFF_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("1..0 # SKIP pyof is not importable (apt-get install python3-openflow)")
    sys.exit(0)

from pyof.v0x04.common.utils import unpack_message
from pyof.v0x04.common.flow_match import Match, OxmTLV, OxmOfbMatchField as F
from pyof.v0x04.common.flow_instructions import (
    InstructionApplyAction, InstructionClearAction, InstructionGotoTable, InstructionMeter,
    InstructionWriteAction, InstructionWriteMetadata)
from pyof.v0x04.common.action import (
    ActionOutput, ActionPopVLAN, ActionPush, ActionSetField, ActionSetQueue, ActionType)
from pyof.v0x04.common.port import Port, PortConfig, PortState
from pyof.v0x04.controller2switch.flow_mod import FlowMod, FlowModCommand
from pyof.v0x04.controller2switch.features_reply import FeaturesReply
from pyof.v0x04.controller2switch.multipart_reply import FlowStats, MultipartReply
from pyof.v0x04.controller2switch.packet_out import PacketOut
from pyof.v0x04.asynchronous.packet_in import PacketIn
from pyof.v0x04.asynchronous.port_status import PortStatus
from pyof.v0x04.asynchronous.error_msg import ErrorMsg
from pyof.v0x04.asynchronous.flow_removed import FlowRemoved
from pyof.v0x04.controller2switch.multipart_reply import Desc
from pyof.v0x04.symmetric.echo_request import EchoRequest
from pyof.v0x04.symmetric.hello import Hello, HelloElemHeader

BUILD = os.environ.get("top_builddir", ".")
DRIVER = os.path.join(BUILD, "tests", "ofp", "ofp_hex")
results = []


def check(cond, desc, diag=None):
    results.append((bool(cond), desc, diag))
    return cond


def finish():
    print("1..%d" % len(results))
    failed = 0
    for n, (ok, desc, diag) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", n, desc))
        if not ok:
            failed += 1
            for line in str(diag or "").splitlines():
                print("# " + line)
    sys.exit(1 if failed else 0)


def v(x):
    """A pyof attribute as a plain int / bytes / str."""
    while hasattr(x, "value") and not isinstance(x, (int, bytes, str)):
        x = x.value
    if isinstance(x, bool):
        return x
    if hasattr(x, "value") and isinstance(x, int):   # IntEnum
        return int(x)
    return x


def oxm(t):
    return [int(v(t.oxm_field)), bool(t.oxm_hasmask), bytes(v(t.oxm_value)).hex()]


def tlv(field, value, hasmask=False):
    return OxmTLV(oxm_field=field, oxm_hasmask=hasmask, oxm_value=value)


def actions(acts):
    out = []
    for a in acts:
        t = int(v(a.action_type))
        d = {"type": t}
        if t == 0:
            d.update(port=int(v(a.port)), max_len=int(v(a.max_length)))
        elif t == 17:
            d["ethertype"] = int(v(a.ethertype))
        elif t == 21:
            d["queue_id"] = int(v(a.queue_id))
        elif t == 25:
            d["field"] = oxm(a.field)
        out.append(d)
    return out


def instructions(ins):
    out = []
    for i in ins:
        t = int(v(i.instruction_type))
        d = {"type": t}
        if t == 1:
            d["table_id"] = int(v(i.table_id))
        elif t == 6:
            d["meter_id"] = int(v(i.meter_id))
        elif t == 2:
            d.update(metadata=int(v(i.metadata)), metadata_mask=int(v(i.metadata_mask)))
        else:
            d["actions"] = actions(i.actions)
        out.append(d)
    return out


def port(p):
    return {"port_no": int(v(p.port_no)), "hw_addr": v(p.hw_addr).replace(":", ""),
            "name": v(p.name).rstrip("\0"), "config": int(v(p.config)),
            "state": int(v(p.state)), "curr": int(v(p.curr)),
            "advertised": int(v(p.advertised)), "supported": int(v(p.supported)),
            "peer": int(v(p.peer)), "curr_speed": int(v(p.curr_speed)),
            "max_speed": int(v(p.max_speed))}


def flow_stats(fs):
    return {k: int(v(getattr(fs, k))) for k in (
        "table_id", "duration_sec", "duration_nsec", "priority", "idle_timeout",
        "hard_timeout", "flags", "cookie", "packet_count", "byte_count")} | {
        "match": [oxm(t) for t in fs.match.oxm_match_fields],
        "instructions": instructions(fs.instructions)}


def describe(msg):
    """pyof message -> the dict ofp_hex decode prints (without the kytos keys)."""
    h = msg.header
    t = int(v(h.message_type))
    d = {"xid": int(v(h.xid))}
    if t == 14:
        d.update({k: int(v(getattr(msg, k))) for k in (
            "cookie", "cookie_mask", "table_id", "command", "idle_timeout", "hard_timeout",
            "priority", "buffer_id", "out_port", "out_group", "flags")})
        d["match"] = [oxm(x) for x in msg.match.oxm_match_fields]
        d["instructions"] = instructions(msg.instructions)
    elif t == 10:
        d.update({k: int(v(getattr(msg, k))) for k in (
            "buffer_id", "total_len", "reason", "table_id", "cookie")})
        d["match"] = [oxm(x) for x in msg.match.oxm_match_fields]
        d["data"] = bytes(v(msg.data)).hex()
    elif t == 12:
        d["reason"] = int(v(msg.reason))
        d["desc"] = port(msg.desc)
    elif t == 6:
        d["datapath_id"] = v(msg.datapath_id)
        d.update({k: int(v(getattr(msg, k))) for k in (
            "n_buffers", "n_tables", "auxiliary_id", "capabilities", "reserved")})
    elif t == 19:
        d["mp_type"] = int(v(msg.multipart_type))
        d["flags"] = int(v(msg.flags))
        body = msg.body
        if d["mp_type"] == 1:
            d["entries"] = [flow_stats(fs) for fs in body]
        elif d["mp_type"] == 0:
            d["entries"] = [{k: v(getattr(body, k)).rstrip("\0") for k in (
                "mfr_desc", "hw_desc", "sw_desc", "serial_num", "dp_desc")}]
        else:
            d["entries"] = [port(p) for p in body]
    elif t == 11:
        d.update({k: int(v(getattr(msg, k))) for k in (
            "cookie", "priority", "reason", "table_id", "duration_sec", "duration_nsec",
            "idle_timeout", "hard_timeout", "packet_count", "byte_count")})
        d["match"] = [oxm(x) for x in msg.match.oxm_match_fields]
    elif t == 13:
        d.update(buffer_id=int(v(msg.buffer_id)), in_port=int(v(msg.in_port)),
                 actions=actions(msg.actions), data=bytes(v(msg.data)).hex())
    elif t == 1:
        d.update(error_type=int(v(msg.error_type)), code=int(v(msg.code)),
                 data=bytes(v(msg.data)).hex())
    elif t in (2, 3):
        d["data"] = bytes(v(msg.data)).hex()
    return d


def strip_ours(d):
    """Our decode output without what pyof has no counterpart for."""
    d = dict(d)
    for k in ("kytos", "kytos_match", "in_port" if d.get("type") == "ofpt_packet_in" else "",
              "type", "version", "bitmap", "negotiated"):
        d.pop(k, None)
    if "desc" in d:
        d["desc"] = {k: x for k, x in d["desc"].items() if k != "kytos"}
    if "entries" in d:
        d["entries"] = [{k: x for k, x in e.items() if k != "kytos"} for e in d["entries"]]
    return d


def run(args, stdin=None):
    return subprocess.run([DRIVER] + args, input=stdin, capture_output=True, text=True,
                          timeout=30)


FRAME = bytes.fromhex("0180c200000eee00000001028100 0ed788cc".replace(" ", "")) + bytes(24)
VLAN = F.OFPXMT_OFB_VLAN_VID


# ---------------------------------------------------------------- encode side
def encode_side():
    p = run(["encode"])
    if not check(p.returncode == 0, "ofp_hex encode runs", p.stderr):
        return
    msgs = dict(line.split(" ", 1) for line in p.stdout.splitlines())
    expect = {
        "hello": lambda m: (len(m.elements) == 1 and int(v(m.elements[0].element_type)) == 1
                            and bytes(v(m.elements[0].content)) == b"\0\0\0\x10"),
        "hello_bare": lambda m: len(m.elements) == 0,
        "features_request": lambda m: int(v(m.header.xid)) == 2,
        "set_config": lambda m: int(v(m.miss_send_len)) == 0xffff and int(v(m.flags)) == 0,
        "barrier_request": lambda m: int(v(m.header.xid)) == 4,
        "echo_request": lambda m: bytes(v(m.data)) == b"kytosd_13",
        "port_desc_request": lambda m: int(v(m.multipart_type)) == 13,
        "flow_stats_request": lambda m: (
            int(v(m.multipart_type)) == 1 and int(v(m.body.table_id)) == 0xff
            and int(v(m.body.out_port)) == 0xffffffff and int(v(m.body.out_group)) == 0xffffffff
            and len(m.body.match.oxm_match_fields) == 0),
        "packet_out": lambda m: (
            int(v(m.buffer_id)) == 0xffffffff and int(v(m.in_port)) == 0xfffffffd
            and actions(m.actions) == [{"type": 0, "port": 2, "max_len": 0xffff}]
            and len(bytes(v(m.data))) == 42),
        "features_reply": lambda m: (
            v(m.datapath_id) == "00:00:00:00:00:00:00:a1" and int(v(m.n_tables)) == 254
            and int(v(m.capabilities)) == 0x4f),
        "error": lambda m: (int(v(m.error_type)) == 4 and int(v(m.code)) == 9
                            and bytes(v(m.data)).hex() == "040e005800000063"),
        "port_status": lambda m: (int(v(m.reason)) == 2 and port(m.desc) == {
            "port_no": 3, "hw_addr": "624e0a000003", "name": "s1-eth3", "config": 0,
            "state": 4, "curr": 0x840, "advertised": 0x20, "supported": 0x840, "peer": 0,
            "curr_speed": 10000000, "max_speed": 10000000}),
        "packet_in": lambda m: (
            int(v(m.buffer_id)) == 0xffffffff and int(v(m.total_len)) == 42
            and int(v(m.reason)) == 1 and int(v(m.cookie)) == 0xab00000000000001
            and [oxm(t) for t in m.match.oxm_match_fields] == [[0, False, "00000003"]]
            and len(bytes(v(m.data))) == 42),
        "flow_stats_reply": lambda m: (
            int(v(m.flags)) == 1 and [flow_stats(fs) for fs in m.body] == [
                {"table_id": 0, "duration_sec": 3, "duration_nsec": 500, "priority": 20000,
                 "idle_timeout": 0, "hard_timeout": 0, "flags": 0,
                 "cookie": 0xaa00000000000001, "packet_count": 10, "byte_count": 640,
                 "match": [[0, False, "00000001"], [6, False, "1064"]],
                 "instructions": [{"type": 4, "actions": [
                     {"type": 0, "port": 2, "max_len": 0xffff}]}]},
                {"table_id": 0, "duration_sec": 3, "duration_nsec": 500, "priority": 1,
                 "idle_timeout": 0, "hard_timeout": 0, "flags": 0,
                 "cookie": 0xaa00000000000001, "packet_count": 10, "byte_count": 640,
                 "match": [], "instructions": []}]),
        "port_desc_reply": lambda m: [port(p)["port_no"] for p in m.body] == [1, 0xfffffffe]
        and [port(p)["name"] for p in m.body] == ["s1-eth1", "s1"],
        "flow_removed": lambda m: describe(m) == {
            "xid": 0, "cookie": 0xaa00000000000001, "priority": 20000, "reason": 2,
            "table_id": 0, "duration_sec": 5, "duration_nsec": 6, "idle_timeout": 0,
            "hard_timeout": 0, "packet_count": 7, "byte_count": 8,
            "match": [[0, False, "00000001"]]},
        "flow_mod_lldp": lambda m: describe(m) == {
            "xid": 0x11, "cookie": 0xab00000000000001, "cookie_mask": 0,
            "table_id": 0, "command": 0, "idle_timeout": 0, "hard_timeout": 0,
            "priority": 50000, "buffer_id": 0xffffffff, "out_port": 0xffffffff,
            "out_group": 0xffffffff, "flags": 1,
            "match": [[6, False, "1ed7"], [5, False, "88cc"]],
            "instructions": [{"type": 4, "actions": [
                {"type": 0, "port": 0xfffffffd, "max_len": 0xffff}]}]},
        "flow_mod_evc_push": lambda m: (
            describe(m)["match"] == [[0, False, "00000001"], [6, True, "10001000"]]
            and int(v(m.idle_timeout)) == 30 and int(v(m.hard_timeout)) == 60
            and int(v(m.cookie)) == 0xaa00000000000001
            and describe(m)["instructions"] == [
                {"type": 4, "actions": [
                    {"type": 18}, {"type": 17, "ethertype": 0x88a8},
                    {"type": 25, "field": [6, False, "102a"]}, {"type": 21, "queue_id": 2},
                    {"type": 0, "port": 2, "max_len": 0xffff}]},
                {"type": 1, "table_id": 3}]),
        "flow_mod_ip": lambda m: (
            describe(m)["match"] == [
                [4, False, "aabbccddeeff"], [3, True, "010000000000010000000000"],
                [6, False, "0000"], [5, False, "0800"], [10, False, "06"],
                [11, True, "0a000000ff000000"], [12, False, "0a000002"], [13, False, "0400"],
                [14, False, "0050"], [8, False, "0a"],
                [2, True, "00000000000000010000000000000001"]]
            and describe(m)["instructions"] == [
                {"type": 2, "metadata": 7, "metadata_mask": 255}, {"type": 6, "meter_id": 1},
                {"type": 3, "actions": [{"type": 0, "port": 1, "max_len": 0xffff}]}]),
        "flow_mod_ipv6": lambda m: (
            describe(m)["match"] == [
                [5, False, "86dd"], [10, False, "11"], [16, False, "0035"],
                [26, False, "20010db8000000000000000000000001"],
                [27, True, "20010db8000000000000000000000000ffffffff000000000000000000000000"]]
            and describe(m)["instructions"] == [{"type": 5, "actions": []}]),
        "flow_mod_delete": lambda m: (
            int(v(m.command)) == 3 and int(v(m.cookie_mask)) == 2**64 - 1
            and int(v(m.priority)) == 0x8000 and int(v(m.flags)) == 1
            and len(m.match.oxm_match_fields) == 0 and len(m.instructions) == 0),
        "flow_mod_delete_strict": lambda m: (
            int(v(m.command)) == 4 and int(v(m.table_id)) == 2 and int(v(m.priority)) == 10
            and describe(m)["match"] == [[0, False, "00000005"]]),
    }
    for name, check_fn in expect.items():
        if not check(name in msgs, "ofp_hex encodes %s" % name, "missing"):
            continue
        raw = bytes.fromhex(msgs[name])
        try:
            msg = unpack_message(raw)
        except Exception as exc:  # pyof raises several kinds
            check(False, "pyof parses our %s" % name, "%r\n%s" % (exc, raw.hex()))
            continue
        ok = False
        try:
            ok = check_fn(msg)
        except Exception as exc:
            ok, err = False, repr(exc)
        if not ok:
            try:
                err = describe(msg)
            except Exception as exc:
                err = repr(exc)
        check(ok, "pyof reads our %s with the expected fields" % name,
              None if ok else "%s\n%s" % (raw.hex(), err))
        try:
            again = msg.pack()
        except Exception as exc:
            again = repr(exc).encode()
        check(again == raw, "pyof packs our %s back to the same bytes" % name,
              "ours %s\npyof %s" % (raw.hex(), again.hex() if isinstance(again, bytes) else again))


# ---------------------------------------------------------------- decode side
def pyof_messages():
    apply = InstructionApplyAction(actions=[
        ActionPopVLAN(), ActionPush(ActionType.OFPAT_PUSH_VLAN, 0x88a8),
        ActionSetField(field=tlv(VLAN, b"\x10\x2a")), ActionSetQueue(queue_id=1),
        ActionOutput(port=2, max_length=0xffff)])
    match = Match(oxm_match_fields=[
        tlv(F.OFPXMT_OFB_IN_PORT, b"\x00\x00\x00\x01"),
        tlv(VLAN, b"\x10\x00\x10\x00", True),
        tlv(F.OFPXMT_OFB_ETH_TYPE, b"\x08\x00"),
        tlv(F.OFPXMT_OFB_IPV4_SRC, b"\x0a\x00\x00\x00\xff\xff\xff\x00", True),
        tlv(F.OFPXMT_OFB_IP_PROTO, b"\x06"),
        tlv(F.OFPXMT_OFB_TCP_DST, b"\x00\x50")])
    fm = FlowMod(xid=21, cookie=0xaa00000000000002, cookie_mask=0, table_id=1,
                 command=FlowModCommand.OFPFC_ADD, idle_timeout=10, hard_timeout=20,
                 priority=20000, buffer_id=0xffffffff, out_port=0xffffffff,
                 out_group=0xffffffff, flags=1, match=match, instructions=[
                     apply, InstructionGotoTable(3), InstructionWriteMetadata(5, 0xff),
                     InstructionMeter(1), InstructionWriteAction(actions=[
                         ActionOutput(port=0xfffffffd, max_length=0xffff)]),
                     InstructionClearAction()])
    pi = PacketIn(xid=0, buffer_id=0xffffffff, total_len=42, reason=1, table_id=0,
                  cookie=0xab00000000000001,
                  match=Match(oxm_match_fields=[tlv(F.OFPXMT_OFB_IN_PORT, b"\0\0\0\3")]),
                  data=FRAME)
    p1 = Port(port_no=1, hw_addr="62:4e:0a:00:00:01", name="s1-eth1", config=0,
              state=PortState.OFPPS_LIVE, curr=0x840, advertised=0, supported=0x840, peer=0,
              curr_speed=10000000, max_speed=0)
    p2 = Port(port_no=0xfffffffe, hw_addr="62:4e:0a:00:00:ff", name="s1",
              config=PortConfig.OFPPC_PORT_DOWN, state=PortState.OFPPS_LINK_DOWN, curr=0,
              advertised=0, supported=0, peer=0, curr_speed=0, max_speed=0)
    ps = PortStatus(xid=0, reason=2, desc=p1)
    fr = FeaturesReply(xid=2, datapath_id="00:00:00:00:00:00:00:02", n_buffers=0,
                       n_tables=254, auxiliary_id=0, capabilities=0x4f, reserved=0)
    fs1 = FlowStats(table_id=0, duration_sec=7, duration_nsec=9, priority=50000,
                    idle_timeout=0, hard_timeout=0, flags=1, cookie=0xab00000000000002,
                    packet_count=3, byte_count=126,
                    match=Match(oxm_match_fields=[
                        tlv(F.OFPXMT_OFB_ETH_TYPE, b"\x88\xcc"), tlv(VLAN, b"\x1e\xd7")]),
                    instructions=[InstructionApplyAction(actions=[
                        ActionOutput(port=0xfffffffd, max_length=0xffff)])])
    fs2 = FlowStats(table_id=2, duration_sec=1, duration_nsec=2, priority=100,
                    idle_timeout=5, hard_timeout=6, flags=0, cookie=0, packet_count=0,
                    byte_count=0, match=Match(), instructions=[])
    for fs in (fs1, fs2):   # pyof leaves a FlowStats length to the caller
        fs.length = 0
        fs.length = fs.get_size()
    mp_flow = MultipartReply(xid=30, multipart_type=1, flags=1, body=[fs1, fs2])
    mp_port = MultipartReply(xid=31, multipart_type=13, flags=0, body=[p1, p2])
    hello = Hello(xid=1, elements=[HelloElemHeader(element_type=1, content=b"\0\0\0\x10")])
    err = ErrorMsg(xid=21, error_type=4, code=9, data=bytes(fm.pack())[:64])
    echo = EchoRequest(xid=5, data=b"kytosd_13")
    po = PacketOut(xid=8, buffer_id=0xffffffff, in_port=0xfffffffd,
                   actions=[ActionOutput(port=2, max_length=0xffff)], data=FRAME)
    frm = FlowRemoved(xid=0, cookie=0xab00000000000002, priority=50000, reason=2,
                      table_id=0, duration_sec=61, duration_nsec=5, idle_timeout=0,
                      hard_timeout=0, packet_count=20, byte_count=840,
                      match=Match(oxm_match_fields=[tlv(F.OFPXMT_OFB_IN_PORT, b"\0\0\0\2")]))
    mp_desc = MultipartReply(xid=32, multipart_type=0, flags=0, body=Desc(
        mfr_desc="Nicira, Inc.", hw_desc="Open vSwitch", sw_desc="3.1.0", serial_num="None",
        dp_desc="s1"))
    return [("flow_removed", frm), ("multipart desc reply", mp_desc), ("flow_mod", fm), ("packet_in", pi), ("port_status", ps), ("features_reply", fr),
            ("multipart flow reply", mp_flow), ("multipart port_desc reply", mp_port),
            ("hello", hello), ("error", err), ("echo_request", echo), ("packet_out", po)]


def decode_side():
    cases = pyof_messages()
    packed = [bytes(m.pack()) for _, m in cases]
    hostile = [packed[2][:-4], packed[3][:30], packed[6][:-12], packed[0][:-4], packed[1][:-1]]
    hostile = [h[:2] + len(h).to_bytes(2, "big") + h[4:] for h in hostile]
    p = run(["decode"], "".join(x.hex() + "\n" for x in packed + hostile))
    if not check(p.returncode == 0, "ofp_hex decode runs", p.stderr):
        return
    out = [json.loads(line) for line in p.stdout.splitlines()]
    if not check(len(out) == len(packed) + len(hostile), "one answer per message", p.stdout):
        return
    for (name, msg), raw, ours in zip(cases, packed, out):
        theirs = describe(unpack_message(raw))
        mine = strip_ours(ours)
        if name == "hello":
            check("error" not in ours and ours.get("negotiated") == 4,
                  "we decode pyof's hello and negotiate 1.3", ours)
            continue
        check(mine == theirs, "we decode pyof's %s to pyof's values" % name,
              "ours  %s\npyof  %s" % (json.dumps(mine, sort_keys=True),
                                      json.dumps(theirs, sort_keys=True)))
    by = dict(zip([n for n, _ in cases], out))
    check(by["packet_in"].get("in_port") == 3, "packet_in in_port read from the OXM",
          by["packet_in"])
    check(by["flow_mod"].get("kytos_match") == {
        "in_port": 1, "dl_vlan": "4096/4096", "dl_type": 2048, "nw_src": "10.0.0.0/24",
        "nw_proto": 6, "tp_dst": 80}, "pyof's FLOW_MOD match in Kytos' JSON",
        by["flow_mod"].get("kytos_match"))
    flows = by["multipart flow reply"].get("entries", [])
    check(len(flows) == 2 and flows[0]["kytos"] == {
        "table_id": 0, "match": {"dl_type": 35020, "dl_vlan": 3799}, "priority": 50000,
        "idle_timeout": 0, "hard_timeout": 0, "cookie": 0xab00000000000002, "cookie_mask": 0,
        "instructions": [{"instruction_type": "apply_actions", "actions": [
            {"action_type": "output", "port": 4294967293}]}],
        "stats": {"byte_count": 126, "duration_sec": 7, "duration_nsec": 9,
                  "packet_count": 3}}, "pyof's flow stats in Kytos' flow JSON", flows)
    ports = by["multipart port_desc reply"].get("entries", [])
    check(len(ports) == 2 and ports[1]["kytos"] == {
        "port_number": 4294967294, "name": "s1", "mac": "62:4e:0a:00:00:ff", "config": 1,
        "state": 1, "curr": 0, "advertised": 0, "supported": 0, "peer": 0, "curr_speed": 0,
        "max_speed": 0}, "pyof's port in our port JSON", ports)
    for h, ours in zip(hostile, out[len(packed):]):
        check("error" in ours, "a truncated pyof message (%d bytes) is refused" % len(h), ours)


encode_side()
decode_side()
finish()
