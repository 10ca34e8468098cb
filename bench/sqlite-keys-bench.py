#!/usr/bin/python3
"""bench/sqlite-keys-bench.py - what one new flow costs SQLite itself, by
the shape of its keys, for the embedded store's writer (not in make bench).

    bench/sqlite-keys-bench.py [PRELOAD] [INSERTS] [RUNS]

A table laid out as the embedded store lays out flow_manager's collection
(host/store/store_sqlite_keycol.c: "id TEXT PRIMARY KEY", the document's
text, one key column per index key filled by json_extract() from the text
being written, flow_manager's three indexes) is filled with PRELOAD (80,000:
the 10,000-EVC scale run's stored flows) flow documents, then INSERTS
(88,000: about the flows a 10,000-EVC link failure adds) more are inserted
in commits of 450 (that failover's mean group commit), in WAL mode with
synchronous=NORMAL, an 8 MB page cache and no checkpoint (the store's
checkpointer has a thread of its own), as the writer does.  The ids are
Kytos' match ids: MD5 hex, so each insert lands at a random place of the
id index.  Printed: the process's CPU microseconds per insert (median of
RUNS, 3), each variant against "as stored", measured in the same run.

The variants change one thing each: sequential ids; the database in memory
(no WAL); no secondary index, or one fewer; the id indexed as a 64-bit hash
integer (a non-unique index on it, no text primary key); 10 times larger
commits; each commit's rows sorted by id; a 64 MB page cache; 8 KiB pages.
It runs Python's sqlite3 module, which uses the same libsqlite3 as kytosd:
the figures are SQLite's work for these rows, with the interpreter's small
and constant share per row in all of them.
"""
import hashlib
import json
import os
import statistics
import sqlite3
import sys
import tempfile
import time

KEYS = ("json_extract(?2,'$.switch'), json_extract(?2,'$.flow.cookie'), "
        "json_extract(?2,'$.state')")

VARIANTS = (
    ("as stored", {}),
    ("sequential ids", {"seq": True}),
    ("in memory", {"memory": True}),
    ("in memory, sequential ids", {"memory": True, "seq": True}),
    ("no secondary index", {"indexes": 0}),
    ("two secondary indexes", {"indexes": 2}),
    ("id as a 64-bit hash", {"hash_id": True}),
    ("commits of 4,500", {"commit": 4500}),
    ("each commit sorted by id", {"sorted": True}),
    ("64 MB page cache", {"cache_kb": 64000}),
    ("8 KiB pages", {"page_size": 8192}),
)


def flow(k, seq):
    """Flow k's id and document text (the shape flow_manager stores)."""
    fid = "%032x" % k if seq else hashlib.md5(b"m%d" % k).hexdigest()
    doc = {"_id": fid, "id": fid, "switch": "00:00:00:00:00:00:00:%02x" % (k % 20 + 1),
           "flow_id": hashlib.md5(b"f%d" % k).hexdigest(), "state": "pending",
           "flow": {"table_id": 0, "owner": "mef_eline", "table_group": "evpl",
                    "priority": 20000, "cookie": 0xaa00000000000000 + (k // 40) * 7919,
                    "idle_timeout": 0, "hard_timeout": 0,
                    "match": {"in_port": 1, "dl_vlan": k % 4000 + 1},
                    "actions": [{"action_type": "push_vlan", "tag_type": "s"},
                                {"action_type": "set_vlan", "vlan_id": 1},
                                {"action_type": "output", "port": 3}]},
           "updated_at": "2026-12-03T09:56:46.624209",
           "inserted_at": "2026-12-03T09:56:46.622658"}
    return fid, json.dumps(doc, separators=(",", ":"))


def run(v, preload, inserts, tmp):
    path = ":memory:" if v.get("memory") else os.path.join(tmp, "keys.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.unlink(path + suffix)
    db = sqlite3.connect(path, isolation_level=None)
    if v.get("page_size"):
        db.execute("PRAGMA page_size=%d" % v["page_size"])
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    # the store checkpoints on a thread of its own: not the writer's CPU
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("PRAGMA cache_size=-%d" % v.get("cache_kb", 8000))
    if v.get("hash_id"):
        db.execute('CREATE TABLE f(id TEXT NOT NULL, doc TEXT NOT NULL, "x:switch", '
                   '"x:flow.cookie", "x:state", h INTEGER NOT NULL)')
        db.execute("CREATE INDEX ih ON f(h)")
        sql = ('INSERT INTO f(id, doc, "x:switch", "x:flow.cookie", "x:state", h) '
               "VALUES(?1, ?2, %s, ?3)" % KEYS)
    else:
        db.execute('CREATE TABLE f(id TEXT PRIMARY KEY NOT NULL, doc TEXT NOT NULL, '
                   '"x:switch", "x:flow.cookie", "x:state")')
        sql = ('INSERT INTO f(id, doc, "x:switch", "x:flow.cookie", "x:state") '
               "VALUES(?1, ?2, %s)" % KEYS)
    indexes = ('CREATE INDEX i1 ON f("x:state", "x:switch")',
               'CREATE INDEX i2 ON f("x:flow.cookie", "x:switch")',
               'CREATE INDEX i3 ON f("x:switch")')
    for ddl in indexes[:v.get("indexes", 3)]:
        db.execute(ddl)

    def rows(lo, hi):
        out = []
        for k in range(lo, hi):
            fid, text = flow(k, v.get("seq"))
            out.append((fid, text, int(fid[:16], 16) - (1 << 63)) if v.get("hash_id")
                       else (fid, text))
        return out

    db.execute("BEGIN")
    db.executemany(sql, rows(0, preload))
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    new = rows(preload, preload + inserts)
    step = v.get("commit", 450)
    t0 = time.process_time()
    for i in range(0, inserts, step):
        chunk = sorted(new[i:i + step]) if v.get("sorted") else new[i:i + step]
        db.execute("BEGIN")
        db.executemany(sql, chunk)
        db.execute("COMMIT")
    us = (time.process_time() - t0) / inserts * 1e6
    db.close()
    return us


def main():
    args = [int(a) for a in sys.argv[1:]]
    if len(args) > 3 or any(a <= 0 for a in args):
        sys.exit(__doc__)
    preload, inserts, runs = (args + [80000, 88000, 3][len(args):])[:3]
    print("sqlite %s; %d flows stored, %d inserted in commits of 450 unless said; "
          "CPU us per insert, median of %d" % (sqlite3.sqlite_version, preload, inserts, runs))
    res = {name: [] for name, _ in VARIANTS}
    with tempfile.TemporaryDirectory(prefix="sqlite-keys-bench-") as tmp:
        for _ in range(runs):        # interleaved: the machine's mood hits all alike
            for name, v in VARIANTS:
                res[name].append(run(v, preload, inserts, tmp))
    base = statistics.median(res["as stored"])
    print("%-28s %8s %7s" % ("variant", "us/row", "ratio"))
    for name, _ in VARIANTS:
        m = statistics.median(res[name])
        print("%-28s %8.1f %7.2f" % (name, m, m / base))


if __name__ == "__main__":
    main()
