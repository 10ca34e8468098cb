#!/usr/bin/env python3
"""tests/store/mongo_wire.py - wire-level test of the MongoDB store backend.

A mockupdb server (MongoDB wire protocol, Debian's python3-mockupdb) plays a
one-member replica set on 127.0.0.1; tests/store/mongo_driver runs a fixed
script of store calls against it.  We check the commands, documents and
options our backend sends (upserts, write concern majority, read concern,
readPreference primaryPreferred, retryable writes, Decimal128 cookies) and
that replies (ok, duplicate key 11000, time limit 50, a dropped connection)
map to our status codes.  Prints TAP.
"""
import os
import socket
import subprocess
import sys

try:
    import mockupdb
    from bson import Decimal128, ObjectId
except ImportError:
    # Debian installs mockupdb for /usr/bin/python3; a pyenv python3 on PATH
    # does not see it.
    if os.path.exists("/usr/bin/python3") and not os.environ.get("KH_WIRE_REEXEC"):
        os.environ["KH_WIRE_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("1..0 # SKIP python3-mockupdb is not installed (apt-get install python3-mockupdb)")
    sys.exit(0)

import datetime
import json

BUILD = os.environ.get("top_builddir", ".")
DRIVER = os.path.join(BUILD, "tests", "store", "mongo_driver")
TIMEOUT = 10

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
            if diag:
                for line in str(diag).splitlines():
                    print("# " + line)
    sys.exit(1 if failed else 0)


def env_for(seeds, **extra):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("MONGO_"):
            del env[k]
    env.update({"MONGO_HOST_SEEDS": seeds, "MONGO_DBNAME": "napps", "MONGO_TIMEOUTMS": "3000",
                "MONGO_OP_TIMEOUTMS": "5000", "MONGO_MAX_POOLSIZE": "4", "MONGO_MIN_POOLSIZE": "0"})
    env.update(extra)
    return env


def parse(out):
    steps = {}
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1].lstrip("-").isdigit():
            steps[parts[0]] = (int(parts[1]), parts[2])
    return steps


def recv(server, name):
    req = server.receives(timeout=TIMEOUT)
    check(req.command_name.lower() == name.lower(), "%s: the backend sent %s" % (name, name),
          "got %r" % (req.doc,))
    return req


def main():
    if not os.path.exists(DRIVER):
        print("1..0 # SKIP %s is not built" % DRIVER)
        sys.exit(0)

    server = mockupdb.MockupDB(request_timeout=TIMEOUT)
    # MockupDB binds the name "localhost", which does not resolve on a system
    # without /etc/hosts: bind the address itself (it has no parameter for it)
    server._address = ("127.0.0.1", 0)
    port = server.run()
    host = "127.0.0.1:%d" % port
    hello = {"ismaster": True, "isWritablePrimary": True, "setName": "rs0", "hosts": [host], "me": host,
             "primary": host, "setVersion": 1, "minWireVersion": 0, "maxWireVersion": 13,
             "logicalSessionTimeoutMinutes": 30, "maxBsonObjectSize": 16777216,
             "maxMessageSizeBytes": 48000000, "maxWriteBatchSize": 100000, "ok": 1}
    server.autoresponds(mockupdb.CommandBase("ismaster"), hello)
    server.autoresponds(mockupdb.CommandBase("hello"), hello)
    server.autoresponds(mockupdb.CommandBase("ping"), {"ok": 1})
    # (a CommandBase matcher would also compare the command's value)
    server.autoresponds(lambda r: r.command_name in ("endSessions", "killCursors") and r.ok())

    proc = subprocess.Popen([DRIVER, "script"], env=env_for(host), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        talk(server)
    except Exception as exc:  # a missing request: report, do not hang
        check(False, "the conversation went as scripted", repr(exc))
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    server.stop()
    check(proc.returncode == 0 and "done" in out, "the driver ran to the end", err[-2000:])
    verify(parse(out), out)
    wait_tests()
    finish()


def talk(server):
    # put: replace_one with upsert, majority write concern, retryable
    req = recv(server, "update")
    d = req.doc
    u = d["updates"][0]
    check(d["update"] == "flows" and d["$db"] == "napps", "put: collection flows in database napps", d)
    check(u["q"] == {"_id": "f1"} and u.get("upsert") is True, "put: upsert by _id", u)
    check(list(u["u"].keys())[0] == "_id" and u["u"]["_id"] == "f1", "put: the document leads with _id", u)
    check(u["u"]["flow"]["cookie"] == Decimal128("18446744073709551615"),
          "put: a uint64 cookie goes as Decimal128", u["u"]["flow"])
    check(u["u"]["n"] == 5000000000 and u["u"]["flow"]["priority"] == 10, "put: integers", u)
    check(d.get("writeConcern", {}).get("w") == "majority", "put: write concern majority",
          d.get("writeConcern"))
    check(d.get("writeConcern", {}).get("wtimeout") == 5000, "put: wtimeout = MONGO_OP_TIMEOUTMS",
          d.get("writeConcern"))
    check("txnNumber" in d and "lsid" in d, "put: retryable write (session and txnNumber)", d)
    req.replies({"ok": 1, "n": 1, "nModified": 0, "upserted": [{"index": 0, "_id": "f1"}]})

    # insert of an existing _id: E11000
    req = recv(server, "insert")
    check(req.doc["documents"][0]["_id"] == "f1", "insert: the document", req.doc)
    req.replies({"ok": 1, "n": 0, "writeErrors": [{"index": 0, "code": 11000, "errmsg":
                 'E11000 duplicate key error collection: napps.flows index: _id_ dup key: { _id: "f1" }'}]})

    # get: find by _id, read concern majority, primaryPreferred
    req = recv(server, "find")
    d = req.doc
    check(d["filter"] == {"_id": "f1"} and d.get("limit") == 1, "get: find by _id, limit 1", d)
    check(d.get("readConcern") == {"level": "majority"}, "get: read concern majority", d)
    check(d.get("$readPreference", {}).get("mode") == "primaryPreferred", "get: readPreference primaryPreferred", d)
    check(d.get("maxTimeMS") == 5000, "get: maxTimeMS = MONGO_OP_TIMEOUTMS", d)
    req.replies({"ok": 1, "cursor": {"id": 0, "ns": "napps.flows", "firstBatch": [
        {"_id": "f1", "switch": "s1", "flow": {"cookie": Decimal128("18446744073709551615"), "priority": 10},
         "n": 5000000000, "inserted_at": datetime.datetime(2024, 1, 2, 3, 4, 5),
         "oid": ObjectId("5f0000000000000000000001"), "ratio": Decimal128("0.5")}]}})

    req = recv(server, "find")
    req.replies({"ok": 1, "cursor": {"id": 0, "ns": "napps.flows", "firstBatch": []}})

    # patch with upsert: findAndModify, returning the new document
    req = recv(server, "findAndModify")
    d = req.doc
    check(d["query"] == {"_id": "f9"} and d.get("new") is True and d.get("upsert") is True,
          "patch: findAndModify by _id, new, upsert", d)
    check(d["update"] == {"$set": {"state": "installed"}, "$setOnInsert": {"inserted_at": "t0"}},
          "patch: the $set/$setOnInsert update as given", d)
    check(d.get("writeConcern", {}).get("w") == "majority", "patch: write concern majority", d)
    req.replies({"ok": 1, "value": {"_id": "f9", "state": "installed", "inserted_at": "t0"},
                 "lastErrorObject": {"n": 1, "updatedExisting": False, "upserted": "f9"}})

    req = recv(server, "findAndModify")
    check(not req.doc.get("upsert"), "patch without upsert: no upsert flag", req.doc)
    req.replies({"ok": 1, "value": None, "lastErrorObject": {"n": 0, "updatedExisting": False}})

    req = recv(server, "delete")
    check(req.doc["deletes"][0] == {"q": {"_id": "nope"}, "limit": 1}, "delete: one document by _id", req.doc)
    req.replies({"ok": 1, "n": 0})

    # find with everything
    req = recv(server, "find")
    d = req.doc
    check(d["filter"] == {"switch": "s1", "flow.cookie": {"$gte": Decimal128("12249790986447749121")}},
          "find: the filter, uint64 as Decimal128", d)
    check(list(d["sort"].items()) == [("flow.priority", -1), ("_id", 1)], "find: sort, ties by _id", d)
    check(d.get("skip") == 1 and d.get("limit") == 2 and d.get("projection") == {"flow": 1},
          "find: skip, limit, projection", d)
    req.replies({"ok": 1, "cursor": {"id": 0, "ns": "napps.flows", "firstBatch": [
        {"_id": "a", "flow": {"priority": 3}}, {"_id": "b", "flow": {"priority": 2}}]}})
    req = recv(server, "find")
    check(req.doc["filter"] == {"switch": "none"}, "find: a filter nothing matches", req.doc)
    req.replies({"ok": 1, "cursor": {"id": 0, "ns": "napps.flows", "firstBatch": []}})

    # count: count_documents is an aggregation
    req = recv(server, "aggregate")
    p = req.doc["pipeline"]
    check(p[0] == {"$match": {"state": {"$in": ["pending", "installed"]}}}, "count: $match of the filter", p)
    req.replies({"ok": 1, "cursor": {"id": 0, "ns": "napps.flows", "firstBatch": [{"_id": 1, "n": 7}]}})

    req = recv(server, "createIndexes")
    ix = req.doc["indexes"][0]
    check(ix == {"key": {"flow_id": 1}, "name": "flow_id", "unique": True}, "index: key, name, unique", ix)
    check(req.doc.get("maxTimeMS") == 30000, "index: maxTimeMS = MONGO_IDX_TIMEOUTMS", req.doc)
    req.replies({"ok": 1, "numIndexesBefore": 1, "numIndexesAfter": 2})
    req = recv(server, "createIndexes")
    req.command_err(86, "An existing index has the same name as the requested index")

    # bulk: ordered; put and patch travel as one update command
    req = recv(server, "update")
    d = req.doc
    ups = d["updates"]
    check(d.get("ordered") is True and len(ups) == 2, "bulk: ordered, put and patch in one update", d)
    check(ups[0]["q"] == {"_id": "b1"} and ups[0]["u"] == {"_id": "b1", "v": 1} and ups[0].get("upsert") is True,
          "bulk: put is a replace with upsert", ups[0])
    check(ups[1]["u"] == {"$set": {"v": 2}} and ups[1].get("upsert") is True, "bulk: patch with upsert", ups[1])
    req.replies({"ok": 1, "n": 2, "nModified": 0, "upserted": [{"index": 0, "_id": "b1"}, {"index": 1, "_id": "b2"}]})
    req = recv(server, "delete")
    check(req.doc["deletes"][0] == {"q": {"_id": "b3"}, "limit": 1}, "bulk: delete", req.doc)
    req.replies({"ok": 1, "n": 0})
    req = recv(server, "update")
    req.replies({"ok": 1, "n": 0, "writeErrors": [{"index": 0, "code": 11000, "errmsg": "E11000 duplicate key"}]})

    # a time limit, then a dropped connection (retried once, as a retryable read)
    req = recv(server, "find")
    req.command_err(50, "operation exceeded time limit")
    hangups = 0
    while True:
        req = server.receives(timeout=TIMEOUT)
        if req.doc.get("filter") == {"_id": "hangup"}:
            hangups += 1
            req.hangup()
            continue
        break
    check(hangups in (1, 2), "a dropped connection is retried at most once (%d finds)" % hangups)
    # get_again: the server is back
    check(req.doc.get("filter") == {"_id": "f1"}, "after the drop the backend talks again", req.doc)
    req.replies({"ok": 1, "cursor": {"id": 0, "ns": "napps.flows", "firstBatch": [{"_id": "f1"}]}})


def verify(steps, out):
    def step(name):
        return steps.get(name, (None, "missing: " + out[-1500:]))

    rc, msg = step("open")
    check(rc == 0, "open: waited for the server (ping)", msg)
    check(step("put")[0] == 0, "put acknowledged -> 0", step("put"))
    rc, msg = step("insert_dup")
    check(rc == -5 and "duplicate _id" in msg, "E11000 -> KYTOS_EEXIST", (rc, msg))
    rc, text = step("get")
    try:
        doc = json.loads(text)
    except ValueError:
        doc = {}
    check(rc == 0 and '"cookie":18446744073709551615' in text, "get: Decimal128 cookie -> exact uint64", text)
    check(doc.get("n") == 5000000000 and doc.get("inserted_at") == "2024-01-02T03:04:05",
          "get: int64, and a BSON date as Kytos formats it", text)
    check(doc.get("oid") == "5f0000000000000000000001" and doc.get("ratio") == 0.5,
          "get: ObjectId as hex, fractional Decimal128 as a double", text)
    check(step("get_missing")[0] == -4, "get of a missing document -> KYTOS_ENOTFOUND", step("get_missing"))
    rc, text = step("patch_upsert")
    check(rc == 0 and json.loads(text).get("state") == "installed", "patch: the document after", (rc, text))
    check(step("patch_missing")[0] == -4, "patch without upsert of a missing document -> ENOTFOUND",
          step("patch_missing"))
    check(step("delete_missing")[0] == -4, "delete n=0 -> KYTOS_ENOTFOUND", step("delete_missing"))
    rc, text = step("find")
    check(rc == 0 and [d["_id"] for d in json.loads(text)] == ["a", "b"], "find: the cursor's documents", text)
    check(step("find_empty")[0] == 0, "find of nothing: the cursor ends without an error",
          step("find_empty"))
    check(step("count") == (0, "7"), "count: the aggregation's n", step("count"))
    check(step("index")[0] == 0, "index created", step("index"))
    check(step("index_conflict")[0] == -5, "IndexKeySpecsConflict (86) -> KYTOS_EEXIST", step("index_conflict"))
    check(step("bulk")[0] == 0, "bulk acknowledged", step("bulk"))
    rc, msg = step("bulk_dup")
    check(rc == -5 and "op 0" in msg, "bulk write error 11000 -> EEXIST naming the op", (rc, msg))
    check(step("get_timeout")[0] == -7, "MaxTimeMSExpired (50) -> KYTOS_ETIMEDOUT", step("get_timeout"))
    rc, msg = step("get_hangup")
    check(rc == -8 and "MongoDB unavailable" in msg, "a dropped connection -> KYTOS_EUNAVAIL", (rc, msg))
    check(step("count_badfilter")[0] == -11, "a bad filter is refused before it is sent", step("count_badfilter"))
    check(step("get_again")[0] == 0, "the next call works again", step("get_again"))
    rc, text = step("status")
    try:
        st = json.loads(text)
    except ValueError:
        st = {}
    check(st.get("backend") == "mongodb" and st.get("ops", {}).get("get") == 5 and
          st.get("unavailable", 0) >= 1 and st.get("healthy") is True and st.get("database") == "napps",
          "status: backend, counts, health", text)


def wait_tests():
    # a server that never answers: the open gives up after the tries
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    p = subprocess.run([DRIVER, "wait"], env=env_for("127.0.0.1:%d" % port, MONGO_TIMEOUTMS="300"),
                       capture_output=True, text=True, timeout=30)
    steps = parse(p.stdout)
    rc, msg = steps.get("wait", (None, p.stdout + p.stderr))
    check(rc == -8 and "did not answer after 2 tries" in msg, "no server: open fails with a clear message",
          (rc, msg))
    check("waiting for MongoDB" in p.stderr, "no server: each wait is logged", p.stderr[-500:])
    p = subprocess.run([DRIVER, "wait"], env=env_for("127.0.0.1:1", MONGO_MAX_POOLSIZE="lots"),
                       capture_output=True, text=True, timeout=30)
    rc, msg = parse(p.stdout).get("wait", (None, p.stdout))
    check(rc == -3 and "MONGO_MAX_POOLSIZE" in msg, "a malformed MONGO_* variable is named", (rc, msg))


if __name__ == "__main__":
    main()
