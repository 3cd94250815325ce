// litebench driver: Node's better-sqlite3 (protocol version 2, docs/drivers.md).
//
// What better-sqlite3 sets by itself, reported as "implicit" so no difference goes unseen:
// - a busy timeout of 5000 ms unless the constructor's `timeout` says otherwise (litebench's
//   busy_timeout knob is passed there, so the knob wins);
// - it never opens a transaction on its own: every transaction here is the prepared
//   "BEGIN <mode>" ... "COMMIT" litebench asks for;
// - it compiles the SQLite it bundles with its own options (PRAGMA compile_options says which),
//   not the system's libsqlite3.
// This driver's own choices: statements are prepared once (better-sqlite3 has no statement
// cache; a Statement object is the prepared statement); integers are read and bound as BigInt
// (defaultSafeIntegers), since a JS number would bind 2^62 or -1 as REAL; readers fetch all
// rows in raw mode (arrays, not objects) and count them; writers use run().
// Integers must stay apart from floats (litebench writes every float with a fraction or
// exponent) and exact beyond 2^53, which JSON.parse does not do: each integer token outside a
// string is wrapped as {"$i":"<digits>"} by one regular-expression pass, then JSON.parse runs
// and the wrapped tokens become BigInt. On a 5000-transaction batch of crud updates (this
// machine, Node 20.20.2) that took 3.3 us per transaction where lossless-json's parse took 24.9
// (and plain JSON.parse 0.8); it runs outside the timed loop either way, but between batches. The clock is
// process.hrtime.bigint(); sleeps (backoff, open-loop waits) block with Atomics.wait, as a
// driver process runs one client and nothing else.
"use strict";

const Database = require("better-sqlite3");
const fs = require("fs");
const readline = require("readline");

const NAME = "node-better-sqlite3";
const BEGIN_MODES = ["deferred", "immediate", "exclusive"];
const sleeper = new Int32Array(new SharedArrayBuffer(4));

// Synchronous writes: a message is out before the next line is read or the process exits.
function send(msg) {
  fs.writeSync(1, JSON.stringify(msg) + "\n");
}

function fail(stage, message, knob) {
  const msg = { type: "error", stage, message };
  if (knob !== undefined) msg.knob = knob;
  send(msg);
  process.exit(1);
}

// Waits for an open loop's intended start as litebench's own loop does: sleeps while it is more
// than 2 ms away, then in 50 us steps, then spins for the last 100 us, so that a start is late by
// microseconds, not by a timer's slack (which every latency, measured from it, would carry).
function waitUntil(at, clock) {
  for (;;) {
    const left = at - clock();
    if (left <= 0n) return;
    if (left > 2000000n) sleepNs(left - 1000000n > 50000000n ? 50000000n : left - 1000000n);
    else if (left > 100000n) sleepNs(50000n);
  }
}

function sleepNs(ns) {
  if (ns > 0) Atomics.wait(sleeper, 0, 0, Number(ns) / 1e6);
}

const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const wrapInteger = (t) => (t.charCodeAt(0) === 34 || /[.eE]/.test(t) ? t : `{"$i":"${t}"}`);
const parseExact = (line) => JSON.parse(line.replace(TOKEN, wrapInteger));
const isWrapped = (v) => v !== null && typeof v === "object" && "$i" in v;
const int = (v) => (isWrapped(v) ? BigInt(v.$i) : v);

function decode(v) {
  if (isWrapped(v)) return BigInt(v.$i);
  if (isRef(v)) return new Ref(Number(int(v.ref[0])), Number(int(v.ref[1])));
  if (isNow(v)) return new Now(BigInt(int(v.now_us)));
  if (v !== null && typeof v === "object") return Buffer.from(v.blob, "base64");
  return v;
}

// Protocol 3: {"ref": [step, column]}, a value an earlier step of the transaction returned,
// bound when its step runs (a queue worker's claim inserts the job ids its select returned).
class Ref {
  constructor(step, column) {
    this.step = step;
    this.column = column;
  }
}

function isRef(v) {
  return v !== null && typeof v === "object" && Array.isArray(v.ref);
}

// Protocol 3: {"now_us": offset}, the wall clock in microseconds when the try started, plus
// offset (a queue job's enqueue time).
class Now {
  constructor(offset) {
    this.offset = offset;
  }
}

function isNow(v) {
  return v !== null && typeof v === "object" && "now_us" in v;
}

// Whether a transaction's steps need runProgram: any step's options or Ref.
function isFancy(steps) {
  return steps.some((s) => (s[2] && Object.keys(s[2]).length > 0) || s[1].some((p) => isRef(p) || isNow(p)));
}

// Each step's options, with collect set on every step whose rows a later one reads.
function stepOptions(steps) {
  const opts = steps.map((s) => (s[2] && Object.keys(s[2]).length > 0 ? { ...s[2] } : null));
  const read = new Set();
  steps.forEach((s, k) => {
    if (opts[k] && opts[k].each !== undefined && opts[k].each !== null) read.add(Number(int(opts[k].each)));
    for (const p of s[1]) if (isRef(p)) read.add(Number(int(p.ref[0])));
  });
  for (const k of read) if (k >= 0 && k < opts.length) opts[k] = { ...(opts[k] || {}), collect: true };
  return opts.map((o) => (o && o.each !== undefined && o.each !== null ? { ...o, each: Number(int(o.each)) } : o));
}

// A kept value as the protocol writes it (BigInt as a number where exact, else its digits).
function jsonable(v) {
  if (typeof v === "bigint") return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (Buffer.isBuffer(v)) return { blob: v.toString("base64") };
  return v;
}

// Runs a transaction's steps with each/need/keep/Refs (protocol 3); kept gets [step, row]s;
// flag.stepped turns true once a step ran. Returns [rows, last].
function runProgram(steps, kept, flag) {
  const got = new Map();
  let total = 0;
  let last = 0;
  const now = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));
  // row: the row of step each that step k runs over (undefined outside an each).
  const one = (k, each, row) => {
    const [st, params, reader, opts] = steps[k];
    const bound = params.map((p) => {
      if (p instanceof Now) return now + p.offset;
      if (!(p instanceof Ref)) return p;
      const r = p.step === each && row !== undefined ? row : (got.get(p.step) || [])[0];
      return r !== undefined && p.column < r.length ? r[p.column] : null;
    });
    flag.stepped = true;
    if (!reader) return [0, st.run.apply(st, bound).changes];
    const rows = st.all.apply(st, bound);
    if (opts && opts.collect) got.set(k, (got.get(k) || []).concat(rows));
    if (opts && opts.keep) for (const r of rows) kept.push([k, r.map(jsonable)]);
    return [rows.length, rows.length];
  };
  let i = 0;
  while (i < steps.length) {
    const opts = steps[i][3];
    if (opts && typeof opts.each === "number") {
      let j = i;
      while (j < steps.length && steps[j][3] && steps[j][3].each === opts.each) j++;
      for (const row of got.get(opts.each) || []) {
        for (let k = i; k < j; k++) {
          const r = one(k, opts.each, row);
          total += r[0];
          last = r[1];
        }
      }
      i = j;
      continue;
    }
    const r = one(i, -1, undefined);
    total += r[0];
    last = r[1];
    if (opts && opts.need && r[0] === 0) return [total, 0];
    i++;
  }
  return [total, last];
}

function openDb(msg) {
  const knobs = msg.knobs || [];
  const busy = knobs.find((k) => k.name === "busy_timeout");
  let db;
  try {
    db = new Database(msg.path, busy ? { timeout: Number(busy.value) } : {});
  } catch (e) {
    return fail("open", `${msg.path}: ${e.message}`);
  }
  db.defaultSafeIntegers(true);
  let begin = "BEGIN";
  const readback = [];
  for (const { name, value } of knobs) {
    const v = String(value);
    try {
      if (name === "begin") {
        if (!BEGIN_MODES.includes(v.toLowerCase())) {
          return fail("knob", `begin=${v}: expected one of ${BEGIN_MODES.join(", ")}`, name);
        }
        begin = `BEGIN ${v.toUpperCase()}`;
        readback.push({ name, value: v.toLowerCase() });
        continue;
      }
      if (name !== "busy_timeout") db.pragma(`${name}=${v}`);
      const got = db.pragma(name, { simple: true });
      readback.push({ name, value: got === undefined ? "" : String(got) });
    } catch (e) {
      return fail("knob", `${name}=${v}: ${e.message}`, name);
    }
  }
  const stmts = [];
  const texts = [];
  for (const s of msg.statements) {
    texts[Number(int(s.id))] = s.sql;
    try {
      const st = db.prepare(s.sql);
      if (st.reader) st.raw(true);
      stmts[Number(int(s.id))] = st;
    } catch (e) {
      return fail("prepare", `statement ${s.id} (${s.sql}): ${e.message}`);
    }
  }
  const tx = { begin: db.prepare(begin), commit: db.prepare("COMMIT"), rollback: db.prepare("ROLLBACK") };
  // Protocol 3: a transaction may name the mode it opens in; each mode's BEGIN prepared once.
  tx.modes = {};
  for (const mode of ["deferred", "immediate", "exclusive"]) tx.modes[mode] = db.prepare(`BEGIN ${mode.toUpperCase()}`);
  send({
    type: "opened",
    driver: NAME,
    runtime: `Node ${process.versions.node}`,
    library: `better-sqlite3 ${require("better-sqlite3/package.json").version}`,
    sqlite_version: db.prepare("SELECT sqlite_version()").pluck().get(),
    compile_options: db.pragma("compile_options").map((r) => r.compile_options),
    knobs: readback,
    implicit: [
      { name: "timeout", value: busy ? `${busy.value} ms (the busy_timeout knob)` : "5000 ms (better-sqlite3's default)" },
      { name: "transactions", value: "none (better-sqlite3 autocommits; litebench sends BEGIN)" },
      { name: "statement_cache", value: "none (statements prepared once, held by the driver)" },
      { name: "safe_integers", value: "on (set by this driver: integers as BigInt, bound as INTEGER)" },
    ],
  });
  return { db, stmts, texts, tx };
}

function classify(e, stepped) {
  const code = e && typeof e.code === "string" ? e.code : "";
  if (code === "SQLITE_BUSY_SNAPSHOT") return "busy_snapshot";
  if (code.startsWith("SQLITE_BUSY")) return stepped ? "busy_upgrade" : "busy_timeout";
  if (code.startsWith("SQLITE_LOCKED")) return "locked";
  return "error";
}

// Protocol 2: a transaction of statements run as written (a replayed log), each one's text
// prepared now, inside the timed region, its own BEGIN and COMMIT included; never retried,
// nothing rolled back. [outcome, rows, message].
function literalTxn(conn, t) {
  let rows = 0;
  try {
    const steps = t.steps;
    for (let k = 0; k < steps.length; k++) {
      const st = conn.db.prepare(steps[k][0]);
      if (st.reader) rows += st.raw(true).all.apply(st, steps[k][1]).length;
      else st.run.apply(st, steps[k][1]);
    }
    return ["ok", rows, "", 0];
  } catch (e) {
    return ["error", rows, e.message, 0];
  }
}

// One try: [outcome, rows, message, last, kept]; last (protocol 3): the last step's rows, or
// the rows it changed.
function tryTxn(conn, t) {
  const inTxn = !t.autocommit;
  let rows = 0;
  let last = 0;
  let stepped = false;
  const kept = [];
  try {
    if (inTxn) t.begin.run();
    if (t.fancy) {
      const flag = { stepped: false };
      try {
        [rows, last] = runProgram(t.steps, kept, flag);
      } finally {
        stepped = flag.stepped;
      }
      if (inTxn) conn.tx.commit.run();
      return ["ok", rows, "", last, kept];
    }
    // An indexed loop and apply: with for-of, destructuring and spread, autocommit reads took
    // 1.26 to 1.51 times the bare loop; this way 1.11 to 1.33 (drivers/bare/measure.py, a
    // loaded 2-core VM, a few runs each: the ranges overlap, the loop costs no more).
    const steps = t.steps;
    for (let k = 0; k < steps.length; k++) {
      const step = steps[k];
      const st = step[0];
      if (step[2]) {
        last = st.all.apply(st, step[1]).length;
        rows += last;
      } else last = st.run.apply(st, step[1]).changes;
      stepped = true;
    }
    if (inTxn) conn.tx.commit.run();
    return ["ok", rows, "", last, kept];
  } catch (e) {
    if (inTxn && conn.db.inTransaction) {
      try {
        conn.tx.rollback.run();
      } catch (_) {
        // nothing to roll back
      }
    }
    let outcome = classify(e, stepped);
    // SQLITE_CONSTRAINT where the transaction expects it: rolled back, not retried.
    if (outcome === "error" && t.rejectable && typeof e.code === "string" && e.code.startsWith("SQLITE_CONSTRAINT")) outcome = "rejected";
    return [outcome, 0, outcome === "error" ? e.message : "", 0];
  }
}

function runBatch(conn, txns, maxTries, backoff, t0) {
  const results = new Array(txns.length);
  let errors = null;
  let kept = null;
  const clock = process.hrtime.bigint;
  for (let i = 0; i < txns.length; i++) {
    const t = txns[i];
    let start;
    if (t.due !== null) {
      start = t0 + t.due;
      waitUntil(start, clock);
    } else {
      start = clock();
    }
    let r;
    let tries = 0;
    for (;;) {
      r = t.literal ? literalTxn(conn, t) : tryTxn(conn, t);
      if (t.literal) {
        tries = 1;
        break;
      }
      tries++;
      if (r[0] === "ok" || r[0] === "error" || r[0] === "rejected" || tries >= maxTries) break;
      sleepNs(backoff[Math.min(tries - 1, backoff.length - 1)]);
    }
    const end = clock();
    results[i] = [r[0], Number(start - t0), Number(end - start), tries, r[1], r[3]];
    if (r[0] === "error") (errors ||= {})[i] = r[2];
    if (r[0] === "ok" && r[4] && r[4].length) (kept ||= {})[i] = r[4];
  }
  return { results, errors, kept };
}

function main() {
  let conn = null;
  let maxTries = 1;
  let backoff = [0n];
  let t0 = null;
  const pending = [];
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on("line", (line) => {
    const msg = parseExact(line);
    if (conn === null) {
      if (msg.type !== "open") return fail("open", `expected open first, got ${msg.type}`);
      conn = openDb(msg);
      maxTries = Math.max(1, Number(int(msg.max_tries ?? 1)));
      if (msg.backoff_ns && msg.backoff_ns.length) backoff = msg.backoff_ns.map((b) => BigInt(int(b)));
      return;
    }
    if (msg.type === "go") {
      t0 = process.hrtime.bigint();
    } else if (msg.type === "batch") {
      // Parameters decoded and statements looked up here, outside the timed loop.
      // Protocol 2: statements first used in this batch; a literal transaction's are kept as
      // text and prepared when they run.
      for (const st of msg.statements || []) conn.texts[Number(int(st.id))] = st.sql;
      const txns = msg.txns.map((t) => ({
        autocommit: t.autocommit === true,
        literal: t.literal === true,
        // Protocol 3: the mode this transaction opens in (else the knob's), and whether a
        // constraint violation is one of its expected ends.
        begin: conn.tx.modes[t.begin] || conn.tx.begin,
        rejectable: t.rejectable === true,
        due: t.due_ns === null || t.due_ns === undefined ? null : int(t.due_ns),
        fancy: t.literal !== true && isFancy(t.steps),
        steps: ((opts) =>
          t.steps.map(([id, params], k) => {
            const i = Number(int(id));
            if (t.literal === true) return [conn.texts[i], params.map(decode)];
            let st = conn.stmts[i];
            if (st === undefined) {
              st = conn.db.prepare(conn.texts[i]);
              if (st.reader) st.raw(true);
              conn.stmts[i] = st;
            }
            // reader: read once here, not per step; opts (protocol 3) only where any step has some.
            return opts ? [st, params.map(decode), st.reader, opts[k]] : [st, params.map(decode), st.reader];
          }))(t.literal !== true && isFancy(t.steps) ? stepOptions(t.steps) : null),
      }));
      pending.push([msg.seq, txns]);
    } else if (msg.type === "close") {
      conn.db.close();
      rl.close();
      send({ type: "closed" });
      process.exit(0);
    }
    if (t0 !== null) {
      for (const [seq, txns] of pending) {
        const { results, errors, kept } = runBatch(conn, txns, maxTries, backoff, t0);
        const done = { type: "done", seq: Number(int(seq)), results };
        if (errors) done.errors = errors;
        if (kept) done.kept = kept;
        send(done);
      }
      pending.length = 0;
    }
  });
  rl.on("close", () => {
    if (conn !== null && conn.db.open) conn.db.close();
  });
}

main();
