"""Bare loop for python-apsw's overhead figure: crud's read and update through apsw directly,
each in BEGIN IMMEDIATE ... COMMIT (or with "read": autocommit point reads alone), timed with
the loop's own clock. Usage: DB N [read]; prints ns per transaction. drivers/bare/measure.py runs it beside the driver on the same statements."""
import sys
import time

import apsw

db, n, reads = sys.argv[1], int(sys.argv[2]), sys.argv[3:] == ["read"]
cur = apsw.Connection(db).cursor()
cur.execute("PRAGMA journal_mode=wal").fetchall()
cur.execute("PRAGMA synchronous=normal")
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
