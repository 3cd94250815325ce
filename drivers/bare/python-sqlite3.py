"""The bare loop python-sqlite3's overhead is measured against: crud's update statement
through the sqlite3 module, timed per statement as the driver times a transaction, with no
protocol around it. Usage: python3 python-sqlite3.py DB ROWS SECONDS (a crud database that
litebench populated, e.g. from `litebench run crud --keep`); prints statements per second."""
import sqlite3, sys, time, random

db, rows, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
conn = sqlite3.connect(db, isolation_level=None)
conn.execute("PRAGMA journal_mode=wal"); conn.execute("PRAGMA synchronous=normal")
rng = random.Random(1)
work = [("x" * 100, rng.randint(1, rows)) for _ in range(100_000)]
sql, clock, total, n = "UPDATE crud SET value = ? WHERE id = ?", time.perf_counter_ns, 0, 0
end = clock() + int(seconds * 1e9)
while clock() < end:
    v, i = work[n % len(work)]
    t = clock()
    conn.execute(sql, (v, i))
    total += clock() - t
    n += 1
print(f"{n} statements, {n / (total / 1e9):.0f}/s inside the timed region, {total / n / 1e3:.2f} us each")
