"""Bare loop for python-sqlite3's overhead figure: crud's read and update through the stdlib
sqlite3 module directly (isolation_level=None, explicit BEGIN IMMEDIATE ... COMMIT), timed with
the loop's own clock. Usage: DB N; prints ns per transaction (drivers/bare/measure.py)."""
import sqlite3
import sys
import time

db, n = sys.argv[1], int(sys.argv[2])
con = sqlite3.connect(db, isolation_level=None)
con.execute("PRAGMA journal_mode=wal").fetchall()
con.execute("PRAGMA synchronous=normal")
rows = con.execute("SELECT count(*) FROM crud").fetchone()[0]
ids = [1 + (i * 7919) % rows for i in range(n)]
values = [f"bare{i:096d}" for i in range(n)]
read, update = "SELECT value FROM crud WHERE id = ?", "UPDATE crud SET value = ? WHERE id = ?"
start = time.perf_counter_ns()
for i in range(n):
    con.execute("BEGIN IMMEDIATE")
    if i % 2 == 0:
        for _ in con.execute(read, (ids[i],)):
            pass
    else:
        con.execute(update, (values[i], ids[i]))
    con.execute("COMMIT")
print((time.perf_counter_ns() - start) // n)
