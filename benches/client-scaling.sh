#!/usr/bin/env bash
# Throughput and p99 of crud and YCSB-A on SQLite WAL and DELETE at 1, 2, 4 and 8 clients, as
# threads and as processes (--client-mode), with lock retries counted: what "how many writers
# before SQLITE_BUSY hurts" looks like on this machine. Each (clients, mode) is one litebench run
# whose two journal modes are interleaved trial by trial; the runs themselves go round-robin,
# ROUNDS times, so drift hits every configuration alike. Results go to a throwaway store; the
# table is read back from it with `show --format json`.
# Usage: benches/client-scaling.sh [LITEBENCH] [ROUNDS]   (default: the release build, 2 rounds)
set -euo pipefail
cd "$(dirname "$0")/.."
lb="${1:-${CARGO_TARGET_DIR:-target}/release/litebench}"
rounds="${2:-2}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common=(--trials 3 --warmup 1 --quiet --knob journal_mode=wal,delete --knob busy_timeout=1000 --max-tries 10
  --dir "$work" --results "$work/results.db")
declare -A workload=(
  [crud]="crud --param rows=10000 --param inserts=2000 --param updates=2000 --param deletes=2000"
  [ycsb-a]="ycsb --param workload=a --param records=10000 --param operations=10000"
)
for round in $(seq "$rounds"); do
  for w in crud ycsb-a; do
    for clients in 1 2 4 8; do
      for mode in threads processes; do
        [ "$clients" = 1 ] && [ "$mode" = processes ] && continue
        # shellcheck disable=SC2086
        "$lb" run ${workload[$w]} --clients "$clients" --client-mode "$mode" "${common[@]}" >/dev/null
      done
    done
  done
done
"$lb" show --list --results "$work/results.db" --format json >"$work/list.json"
python3 - "$lb" "$work" <<'PY'
import json, subprocess, sys, statistics
lb, work = sys.argv[1], sys.argv[2]
runs = json.load(open(f"{work}/list.json"))
rows = {}
for r in runs:
    if r["status"] != "complete":
        continue
    rid = str(r["id"])
    v = json.loads(subprocess.run([lb, "show", rid, "--results", f"{work}/results.db", "--format", "json"],
                                  capture_output=True, text=True, check=True).stdout)
    m = v["manifest"]
    load = m.get("load", {})
    clients, mode = load.get("clients", 1), load.get("client_mode", "threads")
    w = m["workload"] + ("-a" if m["workload"] == "ycsb" else "")
    for s in v["summary"]:
        if s["operation"] != "all":
            continue
        jm = "wal" if "journal_mode=wal" in s["label"] else "delete"
        retries = s.get("retries") or 0
        rows.setdefault((w, jm, clients, mode), []).append((s["tps_median"], s.get("latency_p99_us"), retries))
print(f"{'workload':8} {'journal':7} {'clients':>7} {'mode':10} {'tx/s (median of runs)':>22} {'p99 us':>9} {'retries/trial':>14}")
for key in sorted(rows):
    vals = rows[key]
    tps = statistics.median(v[0] for v in vals)
    p99 = statistics.median(v[1] for v in vals if v[1] is not None) if any(v[1] is not None for v in vals) else float("nan")
    rt = statistics.median(v[2] for v in vals)
    print(f"{key[0]:8} {key[1]:7} {key[2]:>7} {key[3]:10} {tps:>22.0f} {p99:>9.0f} {rt:>14.1f}")
PY
