"""litebench's no-op driver for Python (protocol 2, docs/drivers.md).

It speaks the protocol exactly as python-sqlite3's driver does (reads every batch, decodes
every transaction's steps and values, answers one result per transaction) but touches no
database: each transaction is two clock reads around nothing. Its latencies are what the
protocol leaves inside the timed region (nothing but the clock itself), and its throughput
bounds what any Python driver can reach, so that the protocol's cost is seen to sit outside
the region a driver times.
"""

import base64
import json
import os
import sys
import time

NAME = "noop-python"


def say(msg):
    """One message, one line on stdout, written whole: os.write until every byte is out (a
    large batch's results exceed a pipe's buffer, and an unbuffered sys.stdout, as
    PYTHONUNBUFFERED makes it, may write part of a line)."""
    data = memoryview((json.dumps(msg, separators=(",", ":")) + "\n").encode())
    while data:
        data = data[os.write(1, data):]


def value(v):
    # Protocol 3's {"ref": ...} and {"now_us": ...} are decoded as what they are, bound nowhere.
    if isinstance(v, dict) and "blob" in v:
        return base64.b64decode(v["blob"])
    return v


def main():
    line = sys.stdin.readline()
    if not line:
        return 0
    msg = json.loads(line)
    v = sys.version_info
    say({
        "type": "opened",
        "driver": NAME,
        "runtime": f"CPython {v.major}.{v.minor}.{v.micro}",
        "library": "none (no database)",
        "sqlite_version": "none",
        "compile_options": [],
        "knobs": [{"name": k["name"], "value": None} for k in msg.get("knobs", [])],
        "implicit": [{"name": "database", "value": "none: every transaction answers ok"}],
    })
    sql = {s["id"]: s["sql"] for s in msg.get("statements", [])}
    clock = time.perf_counter_ns
    t0 = None
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "go":
            t0 = clock()
        elif kind == "batch":
            # Protocol 2: statements first used in this batch.
            sql.update({s["id"]: s["sql"] for s in msg.get("statements", [])})
            txns = [[(sql[s[0]], [value(x) for x in s[1]]) for s in t["steps"]] for t in msg["txns"]]
            results = []
            for steps in txns:
                start = clock()
                end = clock()
                results.append(["ok", start - t0, end - start, 1, 0, 0])
            say({"type": "done", "seq": msg["seq"], "results": results})
        elif kind == "close":
            say({"type": "closed"})
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
