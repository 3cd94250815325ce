#!/usr/bin/env python3
"""Checks one litebench driver against the driver protocol (docs/drivers.md, version 3).

Usage: conformance.py DEST COMMAND...

Starts COMMAND with DEST as working directory (as litebench does after `setup DEST`), speaks
the protocol to it on a throwaway database, and checks what a driver must do: knobs set and read
back, the opened fields, row counts, values round-tripping exactly, lock errors classified and
retried max_tries times, open-loop timing measured from the intended start, SQL errors reported,
a log's statements run as written, each transaction's own BEGIN mode, the last step's count,
an expected constraint violation rolled back, and a clean close. Prints one line per check; exits 0 when all pass, 1 naming the first failed
check, 2 on bad usage.

Standard library only, so that it runs wherever a driver runs, before any venv exists.
The database is checked afterwards through Python's own sqlite3 module: a value the driver
bound with the wrong type or altered shows up there, whatever the driver said.
"""

import base64
import json
import os
import queue
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

# How long a driver may take to answer one message before the check fails (setup is not timed
# here: DEST is already set up).
ANSWER_TIMEOUT_S = 30.0

SCHEMA = """
CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE vals(k INTEGER PRIMARY KEY, v);
CREATE TABLE ready(id INTEGER PRIMARY KEY, job INTEGER NOT NULL);
CREATE TABLE claimed(id INTEGER PRIMARY KEY, job INTEGER NOT NULL, who INTEGER NOT NULL);
INSERT INTO ready VALUES (1, 11), (2, 12), (3, 13);
"""

STATEMENTS = [
    "INSERT INTO t(id, v) VALUES (?, ?)",
    "SELECT v FROM t WHERE id = ?",
    "UPDATE t SET v = ? WHERE id = ?",
    "SELECT id FROM t WHERE id <= ? ORDER BY id",
    "INSERT INTO vals(k, v) VALUES (?, ?)",
    "SELECT typeof(?), ?",
    # Protocol 3's program (a queue worker's claim and finish): each load also counts the claimed
    # executions, so that the order the driver ran the per-row steps in shows.
    "SELECT id, job FROM ready ORDER BY id LIMIT ?",
    "INSERT INTO claimed(job, who) VALUES (?, ?)",
    "SELECT id, job, (SELECT count(*) FROM claimed) FROM claimed WHERE job = ? AND who = ?",
    "DELETE FROM ready WHERE id = ?",
    "SELECT id FROM claimed WHERE id = ?",
]
# Statement ids as litebench numbers them: not 0..n-1, since the transaction control it records
# (a script's BEGIN and COMMIT) has ids of its own and is never sent. A driver that indexes its
# prepared statements by position fails here.
IDS = [3 + 2 * i for i in range(len(STATEMENTS))]
INSERT, SELECT_ONE, UPDATE, SELECT_UPTO, INSERT_VAL, TYPEOF, PICK, CLAIM, LOAD, UNREADY, LOCK = IDS

KNOBS = [
    ("journal_mode", "wal"),
    ("synchronous", "normal"),
    ("busy_timeout", "0"),
    ("begin", "immediate"),
]
# What each knob may read back as (PRAGMA synchronous answers with a number).
KNOB_READBACK = {
    "journal_mode": {"wal"},
    "synchronous": {"normal", "1"},
    "busy_timeout": {"0"},
    "begin": {"immediate"},
}

MAX_TRIES = 3
BACKOFF_NS = [1_000_000]

# Values that must come back exactly as bound: (protocol JSON value, Python value, SQLite type).
NUL_BLOB = b"\x00ab\x00\xff\x00"
VALUES = [
    (2**62, 2**62, "integer"),
    (-1, -1, "integer"),
    (0.1, 0.1, "real"),
    ("h\u00e9llo \u2603 \U0001f600 it's \"q\"", "h\u00e9llo \u2603 \U0001f600 it's \"q\"", "text"),
    ({"blob": base64.b64encode(NUL_BLOB).decode()}, NUL_BLOB, "blob"),
    (None, None, "null"),
]
OUTCOMES = {"ok", "busy_timeout", "busy_upgrade", "busy_snapshot", "locked", "error", "rejected"}


class Failed(Exception):
    """A check failed; the message names it."""


class Driver:
    """The driver process under test, with a reader thread so no read can hang the script."""

    def __init__(self, dest, argv):
        self.proc = subprocess.Popen(
            argv,
            cwd=dest,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, msg):
        try:
            self.proc.stdin.write(json.dumps(msg, ensure_ascii=False) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise Failed(f"send {msg['type']}: the driver closed its stdin (exited?)")

    def receive(self, what):
        try:
            line = self.lines.get(timeout=ANSWER_TIMEOUT_S)
        except queue.Empty:
            raise Failed(f"{what}: no answer within {ANSWER_TIMEOUT_S:.0f} s")
        if line is None:
            raise Failed(f"{what}: the driver exited (status {self.proc.wait()}) without answering")
        try:
            msg = json.loads(line)
        except json.JSONDecodeError as e:
            raise Failed(f"{what}: not one JSON object per line ({e}): {line[:200]!r}")
        if not isinstance(msg, dict) or "type" not in msg:
            raise Failed(f"{what}: a message without a type: {line[:200]!r}")
        if msg["type"] == "error":
            raise Failed(f"{what}: the driver reported an error: {msg}")
        return msg

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def ok(name, detail):
    print(f"ok    {name}: {detail}", flush=True)


def check(cond, name, detail):
    if not cond:
        raise Failed(f"{name}: {detail}")


def txn(steps, due_ns=None, op=0):
    return {"op": op, "due_ns": due_ns, "steps": steps}


def run_batch(drv, seq, txns, name):
    drv.send({"type": "batch", "seq": seq, "txns": txns})
    done = drv.receive(name)
    drv.last_done = done
    check(done.get("type") == "done", name, f"expected done, got {done.get('type')!r}")
    check(done.get("seq") == seq, name, f"done for seq {done.get('seq')!r}, expected {seq}")
    results = done.get("results")
    check(
        isinstance(results, list) and len(results) == len(txns),
        name,
        f"expected {len(txns)} results, got {results!r:.200}",
    )
    for i, r in enumerate(results):
        check(isinstance(r, list) and len(r) == 6, name, f"result {i} is not 6 fields: {r!r}")
        outcome, start, latency, tries, rows, last = r
        check(outcome in OUTCOMES, name, f"result {i}: unknown outcome {outcome!r}")
        for field, v in (("start_ns", start), ("latency_ns", latency), ("tries", tries), ("rows", rows), ("last", last)):
            check(
                isinstance(v, int) and not isinstance(v, bool) and v >= 0,
                name,
                f"result {i}: {field} {v!r} is not a non-negative integer",
            )
        check(1 <= tries <= MAX_TRIES, name, f"result {i}: tries {tries} outside 1..{MAX_TRIES}")
    return results, done.get("errors") or {}


def check_open(drv, db):
    drv.send(
        {
            "type": "open",
            "protocol": 3,
            "path": db,
            "knobs": [{"name": n, "value": v} for n, v in KNOBS],
            "statements": [{"id": i, "sql": s} for i, s in zip(IDS, STATEMENTS)],
            "max_tries": MAX_TRIES,
            "backoff_ns": BACKOFF_NS,
            "client": 0,
        }
    )
    opened = drv.receive("open")
    check(opened.get("type") == "opened", "open", f"expected opened, got {opened.get('type')!r}")
    for field in ("driver", "runtime", "library", "sqlite_version"):
        v = opened.get(field)
        check(isinstance(v, str) and v.strip(), "opened fields", f"{field} missing or empty: {v!r}")
    opts = opened.get("compile_options")
    check(
        isinstance(opts, list) and opts and all(isinstance(o, str) for o in opts),
        "opened fields",
        f"compile_options is not a non-empty list of strings: {opts!r:.200}",
    )
    implicit = opened.get("implicit")
    check(
        isinstance(implicit, list)
        and all(isinstance(x, dict) and {"name", "value"} <= x.keys() for x in implicit),
        "opened fields",
        f"implicit is not a list of {{name, value}}: {implicit!r:.200}",
    )
    ok(
        "opened fields",
        f"{opened['driver']}: {opened['runtime']}, {opened['library']}, SQLite "
        f"{opened['sqlite_version']}, {len(opts)} compile options, {len(implicit)} implicit settings",
    )
    knobs = opened.get("knobs")
    check(isinstance(knobs, list) and len(knobs) == len(KNOBS), "knob read-back", f"got {knobs!r}")
    for (name, _), got in zip(KNOBS, knobs):
        check(
            isinstance(got, dict) and got.get("name") == name,
            "knob read-back",
            f"expected {name} in order, got {got!r}",
        )
        value = str(got.get("value")).lower()
        check(
            value in KNOB_READBACK[name],
            "knob read-back",
            f"{name} read back as {got.get('value')!r}, expected one of {sorted(KNOB_READBACK[name])}",
        )
    ok("knob read-back", ", ".join(f"{k['name']}={k['value']}" for k in knobs))
    return opened


def check_crud(drv):
    rows = 10
    txns = [txn([[INSERT, [i, f"v{i}"]] for i in range(1, rows + 1)])]
    txns.append(txn([[SELECT_ONE, [3]]]))
    txns.append(txn([[SELECT_UPTO, [rows]], [SELECT_ONE, [rows + 100]]]))
    txns.append(txn([[UPDATE, ["u2", 2]], [UPDATE, ["u3", 3]], [SELECT_ONE, [2]]]))
    txns.append({"op": 1, "due_ns": None, "autocommit": True, "steps": [[SELECT_UPTO, [4]]]})
    results, errors = run_batch(drv, 0, txns, "crud batch")
    for i, r in enumerate(results):
        check(r[0] == "ok", "crud batch", f"txn {i}: outcome {r[0]!r} ({errors.get(str(i))})")
        check(r[3] == 1, "crud batch", f"txn {i}: {r[3]} tries for an uncontended transaction")
    expected_rows = [0, 1, rows, 1, 4]
    got_rows = [r[4] for r in results]
    check(got_rows == expected_rows, "row counts", f"rows {got_rows}, expected {expected_rows}")
    ok("crud batch", f"{len(txns)} transactions ok in 1 try each")
    ok("row counts", f"{got_rows} (inserts and updates 0, each row stepped through counted)")


def check_values(drv):
    txns = [txn([[INSERT_VAL, [k, v]] for k, (v, _, _) in enumerate(VALUES)])]
    txns += [txn([[TYPEOF, [v, v]]]) for v, _, _ in VALUES]
    results, errors = run_batch(drv, 1, txns, "values batch")
    for i, r in enumerate(results):
        check(r[0] == "ok", "values batch", f"txn {i}: outcome {r[0]!r} ({errors.get(str(i))})")
    check(
        [r[4] for r in results] == [0] + [1] * len(VALUES),
        "values batch",
        f"rows {[r[4] for r in results]}",
    )
    ok("values batch", f"{len(VALUES)} values bound, ok")


def check_busy(drv, db):
    holder = sqlite3.connect(db, isolation_level=None, timeout=0)
    holder.execute("BEGIN IMMEDIATE")
    try:
        results, errors = run_batch(drv, 2, [txn([[UPDATE, ["busy", 1]]])], "busy")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    outcome, _, latency, tries, _, _ = results[0]
    check(
        outcome == "busy_timeout",
        "busy",
        f"outcome {outcome!r} ({errors.get('0')}) while another connection held the write lock, "
        "expected busy_timeout",
    )
    check(tries == MAX_TRIES, "busy", f"tries {tries}, expected max_tries {MAX_TRIES}")
    min_ns = (MAX_TRIES - 1) * BACKOFF_NS[0]
    check(latency >= min_ns, "busy", f"latency {latency} ns < the {min_ns} ns of backoff slept")
    ok("busy", f"busy_timeout after {tries} tries, {latency / 1e6:.2f} ms with backoff")


def check_open_loop(drv, go_at):
    # Intended starts from 40 ms ahead, 2 ms apart, plus one already 0 ns after go (in the past):
    # its latency must run from that instant, not from when the driver got to it.
    now_ns = time.monotonic_ns() - go_at
    ahead = now_ns + 40_000_000
    dues = [ahead + k * 2_000_000 for k in range(5)]
    txns = [txn([[SELECT_ONE, [k + 1]]], due_ns=d) for k, d in enumerate(dues)]
    txns.append(txn([[SELECT_ONE, [1]]], due_ns=0))
    sent = time.monotonic_ns() - go_at
    results, errors = run_batch(drv, 3, txns, "open loop")
    for i, (r, due) in enumerate(zip(results, dues + [0])):
        check(r[0] == "ok", "open loop", f"txn {i}: outcome {r[0]!r} ({errors.get(str(i))})")
        check(
            abs(r[1] - due) <= 1_000_000,
            "open loop",
            f"txn {i}: start_ns {r[1]} is not its due_ns {due} (within 1 ms)",
        )
    late = results[-1]
    check(
        late[2] >= sent - 5_000_000,
        "open loop",
        f"a transaction due at 0 ns, sent at {sent} ns, reports latency {late[2]} ns: "
        "not measured from its intended start",
    )
    ok(
        "open loop",
        f"start_ns = due_ns for {len(txns)} transactions; the one due at 0 ns reports "
        f"{late[2] / 1e6:.1f} ms from its intended start",
    )


def check_error(drv):
    txns = [txn([[SELECT_ONE, [1]]]), txn([[INSERT, [1, "duplicate"]]]), txn([[SELECT_ONE, [2]]])]
    results, errors = run_batch(drv, 4, txns, "sql error")
    check(results[1][0] == "error", "sql error", f"duplicate key: outcome {results[1][0]!r}, expected error")
    check(results[1][3] == 1, "sql error", f"an error was tried {results[1][3]} times, expected 1")
    msg = errors.get("1")
    check(isinstance(msg, str) and "UNIQUE" in msg.upper(), "sql error", f"errors[\"1\"] is {msg!r}")
    check(
        results[0][0] == "ok" and results[2][0] == "ok",
        "sql error",
        f"transactions around the failed one: {results[0][0]!r}, {results[2][0]!r}",
    )
    ok("sql error", f"error with its message ({msg!r}); the next transaction ran ok")


# Protocol 2: statements sent with the batch that first uses them, run as written ("literal"):
# a replayed log's own BEGIN and COMMIT span several timed statements, a failing statement is
# that statement's error (nothing rolled back, never retried), and the log goes on.
LITERAL = [
    (100, "CREATE TABLE lit(x)"),
    (101, "BEGIN"),
    (102, "INSERT INTO lit VALUES (1)"),
    (103, "SELEC 1"),
    (104, "INSERT INTO lit VALUES (2)"),
    (105, "COMMIT"),
    (106, "SELECT x FROM lit ORDER BY x"),
]


def check_literal(drv):
    statements = [{"id": i, "sql": sql} for i, sql in LITERAL]
    txns = [dict(txn([[i, []]]), literal=True) for i, _ in LITERAL]
    drv.send({"type": "batch", "seq": 5, "statements": statements, "txns": txns})
    drv_results = drv.receive("literal")
    check(drv_results.get("seq") == 5, "literal", f"done for seq {drv_results.get('seq')!r}, expected 5")
    results, errors = drv_results.get("results") or [], drv_results.get("errors") or {}
    check(len(results) == len(LITERAL), "literal", f"expected {len(LITERAL)} results, got {results!r:.200}")
    outcomes = [r[0] for r in results]
    want = ["ok", "ok", "ok", "error", "ok", "ok", "ok"]
    check(outcomes == want, "literal", f"outcomes {outcomes}, expected {want} ({errors})")
    check(all(r[3] == 1 for r in results), "literal", f"tries {[r[3] for r in results]}, expected 1 each")
    check("3" in errors, "literal", f"no message for the statement that failed: {errors}")
    check(results[6][4] == 2, "literal", f"the last SELECT stepped {results[6][4]} rows, expected 2")
    ok("literal", f"statements sent with their batch ran as written; the error ({errors.get('3')!r}) left the log's transaction open")


# Protocol 3: what a transaction's last step counted, each transaction's own BEGIN mode, and a
# constraint violation the transaction expects.
def check_last(drv):
    txns = [
        txn([[UPDATE, ["l4", 4]]]),
        txn([[UPDATE, ["none", 999]]]),
        txn([[UPDATE, ["l4", 4]], [SELECT_UPTO, [4]]]),
        # A query that finds nothing after a write: 0, not the write's count.
        txn([[UPDATE, ["l4", 4]], [SELECT_ONE, [999]]]),
        {"op": 0, "due_ns": None, "autocommit": True, "steps": [[SELECT_ONE, [4]]]},
    ]
    results, errors = run_batch(drv, 6, txns, "last count")
    got = [r[5] for r in results]
    check(all(r[0] == "ok" for r in results), "last count", f"outcomes {[r[0] for r in results]} ({errors})")
    check(got == [1, 0, 4, 0, 1], "last count", f"last {got}, expected [1, 0, 4, 0, 1] (rows changed, or rows returned)")
    ok("last count", f"{got}: an update's changed rows, a query's returned rows")


def check_begin_mode(drv, db):
    # Another connection holds the write lock: the knob's BEGIN IMMEDIATE cannot start, a
    # transaction that names deferred reads (WAL) and commits.
    holder = sqlite3.connect(db, isolation_level=None, timeout=0)
    holder.execute("BEGIN IMMEDIATE")
    try:
        txns = [dict(txn([[SELECT_ONE, [1]]]), begin="deferred"), txn([[SELECT_ONE, [1]]])]
        results, errors = run_batch(drv, 7, txns, "begin mode")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    check(results[0][0] == "ok", "begin mode", f"begin=deferred beside a writer: {results[0][0]!r} ({errors.get('0')}), expected ok")
    check(results[1][0] == "busy_timeout", "begin mode", f"the knob's immediate beside a writer: {results[1][0]!r}, expected busy_timeout")
    ok("begin mode", "a transaction's own \"begin\" opened it deferred; without one, the knob's immediate waited")


def check_rejected(drv):
    # An update, then a duplicate key: rolled back as a whole, reported rejected, tried once.
    txns = [
        dict(txn([[UPDATE, ["rejected", 5]], [INSERT, [1, "duplicate"]]]), rejectable=True),
        dict(txn([[SELECT_ONE, [5]]]), rejectable=True),
    ]
    results, errors = run_batch(drv, 8, txns, "rejected")
    check(results[0][0] == "rejected", "rejected", f"duplicate key in a rejectable transaction: {results[0][0]!r} ({errors.get('0')}), expected rejected")
    check(results[0][3] == 1, "rejected", f"a rejected transaction was tried {results[0][3]} times, expected 1")
    check("0" not in errors, "rejected", f"a rejected transaction carries an error: {errors}")
    check(results[1][0] == "ok", "rejected", f"the next transaction: {results[1][0]!r}")
    ok("rejected", "the constraint violation it expects rolled it back, tried once, no error")


def claim(limit, who):
    """A claim as litebench sends a queue worker's: per row the select returned, insert, load and
    delete, bound to that row's ids."""
    return txn([
        [PICK, [limit], {"keep": True}],
        [CLAIM, [{"ref": [0, 1]}, who], {"each": 0}],
        [LOAD, [{"ref": [0, 1]}, who], {"each": 0, "keep": True}],
        [UNREADY, [{"ref": [0, 0]}], {"each": 0}],
    ])


def check_program(drv):
    txns = [
        claim(2, 7),
        # A finish whose claimed execution is there, and one whose is gone (need: it ends there).
        txn([[LOCK, [1], {"need": True}], [UPDATE, ["finished", 6]]]),
        txn([[LOCK, [99], {"need": True}], [UPDATE, ["never", 7]]]),
        claim(5, 8),
        claim(5, 9),
        # The driver's clock when the try starts, twice in one transaction: one instant.
        txn([[INSERT_VAL, [100, {"now_us": 0}]], [INSERT_VAL, [101, {"now_us": -1_000_000}]]]),
    ]
    results, errors = run_batch(drv, 9, txns, "program")
    check(all(r[0] == "ok" for r in results), "program", f"outcomes {[r[0] for r in results]} ({errors})")
    kept = results and drv.last_done.get("kept") or {}
    want = {
        "0": [[0, [1, 11]], [0, [2, 12]], [2, [1, 11, 1]], [2, [2, 12, 2]]],
        "3": [[0, [3, 13]], [2, [3, 13, 3]]],
    }
    check(kept == want, "program", f"kept {kept}, expected {want} (each row's insert, load and delete in turn)")
    lasts = [r[5] for r in results]
    check(lasts == [1, 1, 0, 1, 0, 1], "program", f"last {lasts}, expected [1, 1, 0, 1, 0, 1]")
    check(results[0][4] == 4, "program", f"the claim stepped {results[0][4]} rows, expected 4")
    ok("program", "a claim ran its per-row steps bound to each row, in turn, and sent its rows back; a finish whose row was gone stopped there")


def check_close(drv):
    drv.send({"type": "close"})
    closed = drv.receive("close")
    check(closed.get("type") == "closed", "close", f"expected closed, got {closed.get('type')!r}")
    try:
        status = drv.proc.wait(timeout=ANSWER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise Failed("close: the driver did not exit after closed")
    check(status == 0, "close", f"exit status {status}, expected 0")
    ok("close", "closed, exit 0")


def check_database(db):
    con = sqlite3.connect(db)
    try:
        got = con.execute("SELECT k, typeof(v), v FROM vals WHERE k < 100 ORDER BY k").fetchall()
        stamps = dict(con.execute("SELECT k, v FROM vals WHERE k IN (100, 101)"))
        t = dict(con.execute("SELECT id, v FROM t"))
    finally:
        con.close()
    check(len(got) == len(VALUES), "round trip", f"{len(got)} values stored, expected {len(VALUES)}")
    for (k, typ, v), (_, want, want_type) in zip(got, VALUES):
        check(
            typ == want_type and v == want and type(v) is type(want),
            "round trip",
            f"value {k}: stored {typ} {v!r}, expected {want_type} {want!r}",
        )
    ok("round trip", ", ".join(t for _, t, _ in got) + " stored exactly")
    now_us = time.time_ns() // 1000
    check(
        isinstance(stamps.get(100), int)
        and abs(now_us - stamps[100]) < 120_000_000
        and stamps[100] - stamps.get(101, 0) == 1_000_000,
        "now_us",
        f"now_us bound {stamps} (expected this clock's microseconds, {now_us}, and 1 s less)",
    )
    ok("now_us", "the driver's wall clock in microseconds, one instant for the whole try, offset as asked")
    check(
        len(t) == 10 and t[2] == "u2" and t[3] == "u3" and t[1] == "v1" and t[5] == "v5" and t[6] == "finished",
        "database",
        f"table t after the batches: {t}",
    )
    ok("database", "updates committed; the busy and the rejected transactions' updates rolled back")
    con = sqlite3.connect(db)
    try:
        ready = con.execute("SELECT count(*) FROM ready").fetchone()[0]
        claimed = con.execute("SELECT job, who FROM claimed ORDER BY id").fetchall()
        fin = dict(con.execute("SELECT id, v FROM t WHERE id IN (6, 7)"))
    finally:
        con.close()
    check(
        ready == 0 and claimed == [(11, 7), (12, 7), (13, 8)] and fin == {6: "finished", 7: "v7"},
        "program database",
        f"ready {ready}, claimed {claimed}, t {fin}",
    )
    ok("program database", "every job claimed once; the finish that found nothing changed nothing")
    con = sqlite3.connect(db)
    try:
        lit = [r[0] for r in con.execute("SELECT x FROM lit ORDER BY x")]
    finally:
        con.close()
    check(lit == [1, 2], "literal database", f"table lit holds {lit}, expected [1, 2] committed by the log's COMMIT")
    ok("literal database", "the log's own transaction committed both rows")


def main(argv):
    if len(argv) < 3:
        print("usage: conformance.py DEST COMMAND... (DEST: the set-up driver folder)", file=sys.stderr)
        return 2
    dest, command = argv[1], argv[2:]
    if not os.path.isdir(dest):
        print(f"conformance.py: DEST {dest} is not a directory: run the driver's setup first", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="litebench-conformance-") as tmp:
        db = os.path.join(tmp, "conformance.db")
        con = sqlite3.connect(db)
        con.executescript(SCHEMA)
        con.close()
        try:
            drv = Driver(dest, command)
        except OSError as e:
            print(f"FAIL  start: {' '.join(command)} in {dest}: {e}", file=sys.stderr)
            return 1
        try:
            check_open(drv, db)
            drv.send({"type": "go"})
            go_at = time.monotonic_ns()
            check_crud(drv)
            check_values(drv)
            check_busy(drv, db)
            check_open_loop(drv, go_at)
            check_error(drv)
            check_literal(drv)
            check_last(drv)
            check_begin_mode(drv, db)
            check_rejected(drv)
            check_program(drv)
            check_close(drv)
            check_database(db)
        except Failed as e:
            print(f"FAIL  {e}", file=sys.stderr)
            return 1
        finally:
            drv.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
