// Bare loop for node-better-sqlite3's overhead figure: crud's read and update through
// better-sqlite3 directly, each in BEGIN IMMEDIATE ... COMMIT (or with "read": autocommit point
// reads alone), timed with the loop's own clock. Usage: node bare.js DB N [read] (from the
// driver's set-up folder); prints ns per transaction.
"use strict";
const Database = require("better-sqlite3");
const [db, n, reads] = [new Database(process.argv[2]), Number(process.argv[3]), process.argv[4] === "read"];
db.pragma("journal_mode=wal");
db.pragma("synchronous=normal");
const rows = db.prepare("SELECT count(*) FROM crud").pluck().get();
// BigInt ids, as the driver binds integers: better-sqlite3 binds a JS number as REAL.
const ids = Array.from({ length: n }, (_, i) => BigInt(1 + ((i * 7919) % Number(rows))));
const values = Array.from({ length: n }, (_, i) => "bare" + String(i).padStart(96, "0"));
const [begin, commit] = [db.prepare("BEGIN IMMEDIATE"), db.prepare("COMMIT")];
const read = db.prepare("SELECT value FROM crud WHERE id = ?").raw(true);
const update = db.prepare("UPDATE crud SET value = ? WHERE id = ?");
const start = process.hrtime.bigint();
for (let i = 0; i < n; i++) {
  if (reads) {
    read.all(ids[i]);
    continue;
  }
  begin.run();
  if (i % 2 === 0) read.all(ids[i]);
  else update.run(values[i], ids[i]);
  commit.run();
}
console.log(String((process.hrtime.bigint() - start) / BigInt(n)));
