"""Bare loop for python-sqlite3's overhead figure: crud's read and update through the
interpreter's sqlite3 module directly, each in BEGIN IMMEDIATE ... COMMIT (or with "read":
autocommit point reads alone), timed with the loop's own clock. Usage: DB N [read]; prints ns per
transaction. drivers/bare/measure.py runs it beside the driver on the same statements."""
import sqlite3
import sys
import time

db, n, reads = sys.argv[1], int(sys.argv[2]), sys.argv[3:] == ["read"]
conn = sqlite3.connect(db, isolation_level=None)
conn.execute("PRAGMA journal_mode=wal").fetchall()
conn.execute("PRAGMA synchronous=normal")
cur = conn.cursor()
rows = cur.execute("SELECT count(*) FROM crud").fetchone()[0]
ids = [1 + (i * 7919) % rows for i in range(n)]
values = [f"bare{i:096d}" for i in range(n)]
read, update = "SELECT value FROM crud WHERE id = ?", "UPDATE crud SET value = ? WHERE id = ?"
start = time.perf_counter_ns()
for i in range(n):
    if reads:
        for _ in cur.execute(read, (ids[i],)):
            pass
        continue
    cur.execute("BEGIN IMMEDIATE")
    if i % 2 == 0:
        for _ in cur.execute(read, (ids[i],)):
            pass
    else:
        cur.execute(update, (values[i], ids[i]))
    cur.execute("COMMIT")
print((time.perf_counter_ns() - start) // n)
