#!/usr/bin/env python3
"""A driver's overhead over a bare loop in its own language, on crud's read and update.

Usage: measure.py CACHE N [NAME...]

For each driver set up under CACHE/drivers/NAME/<hash>/ (by its setup, as `litebench drivers
setup` does), runs the bare loop drivers/bare/NAME.{py,js,go} (the
library called directly, timed by the loop's own clock) and the driver under the protocol, fed
the same N transactions (alternating a read and an update, each in BEGIN IMMEDIATE ... COMMIT,
on a 1000-row crud table, WAL, synchronous=NORMAL) in batches of 5000, five times each,
alternating. Then the same with autocommit point reads alone (no BEGIN/COMMIT),
where a transaction costs a few microseconds and a driver's own cost shows. Prints per driver
the median ns per transaction of both, their ratio, and the
driver's wall time per transaction (protocol, JSON and pipes included). No-op drivers have no
bare loop: their timed ns per transaction is the protocol's footprint inside the timed region.

Standard library only. A figure printed here is measured on the machine it runs on; nothing is
assumed.
"""

import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = 1000
BATCH = 5000
ROUNDS = 5
READ = "SELECT value FROM crud WHERE id = ?"
UPDATE = "UPDATE crud SET value = ? WHERE id = ?"


def dest_of(cache, name):
    base = os.path.join(cache, "drivers", name)
    dirs = [os.path.join(base, d) for d in os.listdir(base)] if os.path.isdir(base) else []
    dirs = [d for d in dirs if os.path.isfile(os.path.join(d, "command"))]
    if not dirs:
        sys.exit(f"measure.py: no set-up {name} under {base}: run its setup first")
    return max(dirs, key=os.path.getmtime)


def make_db(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE crud(id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    con.executemany("INSERT INTO crud VALUES (?, ?)", ((i, f"v{i:099d}") for i in range(1, ROWS + 1)))
    con.commit()
    con.execute("PRAGMA journal_mode=wal")
    con.close()


def bare_command(name, dest, command):
    """The argv running NAME's bare loop, prepared inside DEST; None for a no-op driver."""
    for ext in ("py", "js", "go"):
        src = os.path.join(HERE, f"{name}.{ext}")
        if os.path.isfile(src):
            break
    else:
        return None
    if ext == "py":
        interp = command[0] if "/" not in command[0] else os.path.join(dest, command[0])
        return [interp, src]
    if ext == "js":
        shutil.copy(src, os.path.join(dest, "bare-loop.js"))
        return ["node", os.path.join(dest, "bare-loop.js")]
    os.makedirs(os.path.join(dest, "bare"), exist_ok=True)
    shutil.copy(src, os.path.join(dest, "bare", "main.go"))
    cache = os.path.join(os.path.dirname(os.path.dirname(dest)), "go-cache")
    env = dict(os.environ, GOMODCACHE=f"{cache}/mod", GOCACHE=f"{cache}/build", GOTOOLCHAIN="local",
               GOFLAGS="-mod=readonly -modcacherw", CGO_ENABLED="1" if name == "go-mattn" else "0")
    go = shutil.which("go") or "/usr/local/go/bin/go"
    subprocess.run([go, "build", "-trimpath", "-o", "bare-loop", "./bare"], cwd=dest, env=env, check=True)
    return [os.path.join(dest, "bare-loop")]


def run_bare(argv, dest, db, n, mix):
    """ns per transaction, or None where the bare loop does not answer as this script expects
    (`NAME.ext DB N` printing one integer)."""
    out = subprocess.run(argv + [db, str(n)] + (["read"] if mix == "read" else []), cwd=dest,
                         capture_output=True, text=True)
    try:
        return int(out.stdout.strip())
    except ValueError:
        print(f"measure.py: {argv[-1]} DB N did not print ns per transaction: {out.stderr.strip()[-200:]}",
              file=sys.stderr)
        return None


def run_driver(argv, dest, db, n, mix):
    """(timed ns per txn, wall ns per txn) for N transactions through the driver."""
    proc = subprocess.Popen(argv, cwd=dest, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(m):
        proc.stdin.write(json.dumps(m) + "\n")
        proc.stdin.flush()

    def receive():
        m = json.loads(proc.stdout.readline())
        if m.get("type") == "error":
            sys.exit(f"measure.py: {argv}: {m}")
        return m

    knobs = [("journal_mode", "wal"), ("synchronous", "normal"), ("busy_timeout", "5000"), ("begin", "immediate")]
    send({"type": "open", "protocol": 1, "path": db, "knobs": [{"name": k, "value": v} for k, v in knobs],
          "statements": [{"id": 0, "sql": READ}, {"id": 1, "sql": UPDATE}],
          "max_tries": 1, "backoff_ns": [0], "client": 0})
    receive()
    batches = []
    for b in range(0, n, BATCH):
        txns = []
        for i in range(b, min(n, b + BATCH)):
            rid = 1 + (i * 7919) % ROWS
            if mix == "read":
                txns.append({"op": 0, "due_ns": None, "autocommit": True, "steps": [[0, [rid]]]})
                continue
            step = [0, [rid]] if i % 2 == 0 else [1, [f"drv{i:097d}", rid]]
            txns.append({"op": i % 2, "due_ns": None, "steps": [step]})
        batches.append(json.dumps({"type": "batch", "seq": len(batches), "txns": txns}) + "\n")
    send({"type": "go"})
    start = time.perf_counter_ns()
    timed = 0

    # Batches go out from a thread of their own, as litebench sends the next batch while the
    # driver runs the current one: a driver blocked writing its results never waits on us.
    def feed():
        for b in batches:
            proc.stdin.write(b)
            proc.stdin.flush()

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    for _ in batches:
        done = receive()
        bad = [r for r in done["results"] if r[0] != "ok"]
        if bad:
            sys.exit(f"measure.py: {argv}: {len(bad)} transactions failed: {bad[0]} {done.get('errors')}")
        timed += sum(r[2] for r in done["results"])
    wall = time.perf_counter_ns() - start
    feeder.join()
    send({"type": "close"})
    receive()
    proc.wait()
    return timed // n, wall // n


def main(argv):
    if len(argv) < 3:
        print("usage: measure.py CACHE N [NAME...]", file=sys.stderr)
        return 2
    cache, n = argv[1], int(argv[2])
    repo = os.path.dirname(HERE)
    names = argv[3:] or sorted(d for d in os.listdir(os.path.join(cache, "drivers"))
                               if os.path.isfile(os.path.join(repo, d, "command")))
    for mix in ("txn", "read"):
        print("alternating read and update, each in BEGIN IMMEDIATE ... COMMIT" if mix == "txn"
              else "autocommit point reads alone")
        measure(cache, n, names, mix)
    return 0


def measure(cache, n, names, mix):
    print(f"{'driver':22} {'bare ns/txn':>11} {'driver ns/txn':>13} {'ratio':>6} {'wall ns/txn':>11}")
    for name in names:
        dest = dest_of(cache, name)
        command = open(os.path.join(dest, "command")).read().split()
        bare = bare_command(name, dest, command)
        with tempfile.TemporaryDirectory(prefix="litebench-measure-") as tmp:
            db = os.path.join(tmp, "crud.db")
            make_db(db)
            bares, timed, walls = [], [], []
            for _ in range(ROUNDS):
                if bare:
                    b = run_bare(bare, dest, db, n, mix)
                    bare = bare if b is not None else None
                    bares += [b] if b is not None else []
                t, w = run_driver(command, dest, db, n, mix)
                timed.append(t)
                walls.append(w)
        b, t, w = (statistics.median(x) if x else None for x in (bares, timed, walls))
        ratio = f"{t / b:6.2f}" if b else "     -"
        print(f"{name:22} {b if b else '-':>11} {t:>13} {ratio} {w:>11}", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
