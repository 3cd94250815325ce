// litebench driver noop-node: the protocol with no database behind it. It parses each batch
// as the real Node driver does (lossless-json is not needed: no value is bound, so plain
// JSON.parse), answers every transaction "ok" with 0 rows, and times only its own empty loop
// with process.hrtime.bigint(), so a run through it measures what the protocol costs a Node
// driver outside its timed region. It sets nothing by itself; knobs read back as sent.
"use strict";

const fs = require("fs");
const readline = require("readline");

const send = (msg) => fs.writeSync(1, JSON.stringify(msg) + "\n");

function runBatch(txns, t0) {
  const clock = process.hrtime.bigint;
  return txns.map((t) => {
    const start = t.due_ns === null || t.due_ns === undefined ? clock() : t0 + BigInt(t.due_ns);
    const end = clock();
    return ["ok", Number(start - t0), Number(end > start ? end - start : 0n), 1, 0, 0];
  });
}

let opened = false;
let t0 = null;
const pending = [];
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  const msg = JSON.parse(line);
  if (!opened) {
    if (msg.type !== "open") {
      send({ type: "error", stage: "open", message: `expected open first, got ${msg.type}` });
      process.exit(1);
    }
    opened = true;
    send({
      type: "opened",
      driver: "noop-node",
      runtime: `Node ${process.versions.node}`,
      library: "none (no-op driver)",
      sqlite_version: "none",
      compile_options: [],
      knobs: msg.knobs || [],
      implicit: [],
    });
    return;
  }
  if (msg.type === "go") t0 = process.hrtime.bigint();
  else if (msg.type === "batch") pending.push(msg);
  else if (msg.type === "close") {
    send({ type: "closed" });
    process.exit(0);
  }
  if (t0 !== null) {
    for (const b of pending) send({ type: "done", seq: b.seq, results: runBatch(b.txns, t0) });
    pending.length = 0;
  }
});
