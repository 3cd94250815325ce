"""litebench driver: Python's apsw (protocol version 2, docs/drivers.md).

What apsw sets by itself, reported as "implicit" so no difference goes unseen:
- apsw never opens a transaction on its own (unlike the stdlib sqlite3 module's implicit
  BEGIN): every transaction here is the "BEGIN <mode>" ... "COMMIT" that litebench asks for.
- statements are prepared through apsw's statement cache (100 statements by default), which
  `cursor.execute` consults by SQL text; this driver keeps that default.
- apsw bundles its own SQLite (the wheel's amalgamation), whose version and compile options
  are read back through the binding, not the system's libsqlite3.
busy_timeout is set with apsw's own API (Connection.set_busy_timeout); other knobs with PRAGMA.
"""

import base64
import json
import platform
import sys
import time

import pace  # python-common/, installed beside this file (includes)
import program

import apsw
import apsw.ext

NAME = "python-apsw"
BUSY, LOCKED, BUSY_SNAPSHOT = 5, 6, 517
BEGIN_MODES = ("deferred", "immediate", "exclusive")


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def fail(stage, message, knob=None):
    msg = {"type": "error", "stage": stage, "message": message}
    if knob is not None:
        msg["knob"] = knob
    send(msg)
    sys.exit(1)


def pragma(cur, name):
    row = cur.execute(f"PRAGMA {name}").fetchone()
    return "" if row is None else str(row[0])


def open_db(msg):
    """Opens the database, applies and reads back the knobs, prepares the statements."""
    try:
        conn = apsw.Connection(msg["path"])
    except apsw.Error as e:
        fail("open", f"{msg['path']}: {e}")
    cur = conn.cursor()
    begin = "BEGIN"
    readback = []
    for knob in msg["knobs"]:
        name, value = knob["name"], str(knob["value"])
        try:
            if name == "begin":
                if value.lower() not in BEGIN_MODES:
                    fail("knob", f"begin={value}: expected one of {', '.join(BEGIN_MODES)}", name)
                begin = f"BEGIN {value.upper()}"
                readback.append({"name": name, "value": value.lower()})
                continue
            if name == "busy_timeout":
                conn.set_busy_timeout(int(value))
            else:
                cur.execute(f"PRAGMA {name}={value}").fetchall()
            readback.append({"name": name, "value": pragma(cur, name)})
        except (apsw.Error, ValueError) as e:
            fail("knob", f"{name}={value}: {e}", name)
    busy = [k["value"] for k in msg["knobs"] if k["name"] == "busy_timeout"]
    busy_implicit = f"{busy[0]} ms (the busy_timeout knob)" if busy else "0 ms (apsw sets none)"
    stmts = {}
    for s in msg["statements"]:
        try:
            apsw.ext.query_info(conn, s["sql"])  # prepares it: a statement that fails fails here
        except apsw.Error as e:
            fail("prepare", f"statement {s['id']} ({s['sql']}): {e}")
        stmts[s["id"]] = s["sql"]
    send(
        {
            "type": "opened",
            "driver": NAME,
            "runtime": f"{platform.python_implementation()} {platform.python_version()}",
            "library": f"apsw {apsw.apsw_version()}",
            "sqlite_version": cur.execute("SELECT sqlite_version()").fetchone()[0],
            "compile_options": [r[0] for r in cur.execute("PRAGMA compile_options")],
            "knobs": readback,
            "implicit": [
                {"name": "busy_timeout", "value": busy_implicit},
                {"name": "transactions", "value": "none (apsw autocommits; litebench sends BEGIN)"},
                {"name": "statement_cache", "value": "100 (apsw's default statementcachesize)"},
                {"name": "sqlite", "value": "bundled in the apsw wheel"},
            ],
        }
    )
    return conn, cur, begin, stmts


def decode(v):
    if isinstance(v, dict):
        return base64.b64decode(v["blob"])
    return v


def classify(e, stepped):
    code = getattr(e, "extendedresult", None) or getattr(e, "result", None) or 0
    if code == BUSY_SNAPSHOT:
        return "busy_snapshot"
    if code & 0xFF == BUSY:
        return "busy_upgrade" if stepped else "busy_timeout"
    if code & 0xFF == LOCKED:
        return "locked"
    return "error"


def run_batch(conn, cur, begin, txns, max_tries, backoff, t0):
    """Runs one batch's transactions: [outcome, start_ns, latency_ns, tries, rows, last] each."""
    results, errors, kept_all = [], {}, {}
    clock, sleep = time.perf_counter_ns, time.sleep
    total_changes = conn.total_changes
    nb = len(backoff)

    def execute(sql, params):
        before = total_changes()
        got = list(cur.execute(sql, params))
        # apsw tells no statement's kind: one that returned rows, or changed some, or neither.
        if got:
            return got, 0
        changed = total_changes() - before
        return (None, changed) if changed else ([], 0)

    for i, (autocommit, due, steps, literal, own_begin, rejectable, fancy) in enumerate(txns):
        if due is not None:
            pace.wait_until(t0 + due)
            start = t0 + due
        else:
            start = clock()
        if literal:
            # Protocol 2: each statement as written (a replayed log), its own BEGIN and COMMIT
            # included; never retried, nothing rolled back.
            rows, outcome = 0, "ok"
            try:
                for sql, params in steps:
                    for _ in cur.execute(sql, params):
                        rows += 1
            except apsw.Error as e:
                outcome = "error"
                errors[str(i)] = str(e)
            end = clock()
            results.append([outcome, start - t0, end - start, 1, rows, 0])
            continue
        tries = 0
        while True:
            rows, last, stepped, outcome = 0, 0, False, "ok"
            kept = []
            try:
                if not autocommit:
                    cur.execute(own_begin or begin)
                if fancy:
                    ran = [False]
                    try:
                        rows, last = program.run(steps, execute, kept, ran)
                    finally:
                        stepped = ran[0]
                for sql, params in () if fancy else steps:
                    # The last step's count (protocol 3): its rows, or the rows it changed.
                    before, last = total_changes(), 0
                    for _ in cur.execute(sql, params):
                        last += 1
                    rows += last
                    if last == 0:
                        last = total_changes() - before
                    stepped = True
                if not autocommit:
                    cur.execute("COMMIT")
            except apsw.Error as e:
                outcome = classify(e, stepped)
                if outcome == "error" and rejectable and (getattr(e, "result", 0) or 0) & 0xFF == 19:
                    outcome = "rejected"  # SQLITE_CONSTRAINT, expected: rolled back, not retried
                if outcome == "error":
                    errors[str(i)] = str(e)
                try:
                    cur.execute("ROLLBACK")
                except apsw.Error:
                    pass
            tries += 1
            if outcome in ("ok", "error", "rejected") or tries >= max_tries:
                break
            sleep(backoff[min(tries - 1, nb - 1)] / 1e9)
        end = clock()
        results.append([outcome, start - t0, end - start, tries, rows, last])
        if kept and outcome == "ok":
            kept_all[str(i)] = [[k, program.jsonable(r)] for k, r in kept]
    return results, errors, kept_all


def main():
    stdin = sys.stdin.buffer
    line = stdin.readline()
    if not line:
        return 0
    msg = json.loads(line)
    if msg.get("type") != "open":
        fail("open", f"expected open first, got {msg.get('type')!r}")
    conn, cur, begin, stmts = open_db(msg)
    max_tries = max(1, int(msg.get("max_tries", 1)))
    backoff = msg.get("backoff_ns") or [0]
    t0 = None
    pending = []
    for line in stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "go":
            t0 = time.perf_counter_ns()
        elif kind == "batch":
            # Parameters decoded and statements looked up here, outside the timed loop.
            # Protocol 2: statements first used in this batch (prepared on first use).
            for st in msg.get("statements", []):
                stmts[st["id"]] = st["sql"]
            txns = [
                (
                    bool(t.get("autocommit")),
                    t.get("due_ns"),
                    # Protocol 3: steps that read what earlier ones returned (a queue's claim).
                    [(stmts[s[0]], [program.param(v, decode) for v in s[1]], o)
                     for s, o in zip(t["steps"], program.prepare(t["steps"]))]
                    if program.fancy(t["steps"])
                    else [(stmts[sid], [decode(v) for v in params]) for sid, params, *_ in t["steps"]],
                    bool(t.get("literal")),
                    # Protocol 3: the mode this transaction opens in (else the knob's), and
                    # whether a constraint violation is one of its expected ends.
                    "BEGIN " + t["begin"].upper() if t.get("begin") in BEGIN_MODES else None,
                    bool(t.get("rejectable")),
                    program.fancy(t["steps"]),
                )
                for t in msg["txns"]
            ]
            pending.append((msg["seq"], txns))
        elif kind == "close":
            conn.close()
            send({"type": "closed"})
            return 0
        if t0 is not None:
            for seq, txns in pending:
                results, errors, kept = run_batch(conn, cur, begin, txns, max_tries, backoff, t0)
                done = {"type": "done", "seq": seq, "results": results}
                if errors:
                    done["errors"] = errors
                if kept:
                    done["kept"] = kept
                send(done)
            pending.clear()
    return 0


if __name__ == "__main__":
    sys.exit(main())
