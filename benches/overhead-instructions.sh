#!/usr/bin/env bash
# Instructions per operation of litebench's timed trial loop against a bare loop over the C API,
# counted by valgrind (Debian package valgrind): repeatable where wall-clock ratios are not, as
# SQLite's own speed checks do with cachegrind. Callgrind counts only inside each side's timed
# loop (--toggle-collect): for litebench, crud's trial (`Crud::run`: the load driver's client
# loop, one client in a closed loop timed per phase, as a run executes it) minus the data
# generation its client calls between phases (`Live::round_of`, never inlined) and the three
# prepares; for the bare side, `bare_timed`. Both sides include the per-round bookkeeping around
# their loops, so the ratio is a bound on the harness's cost. The `driver` side is the same loop
# timed per interval, as with several clients, a rate or lock retries (`max_tries=2`): it also
# checks the series' interval per transaction. The series' per-interval work (`Buckets::close`: the recorder's totals and
# histograms differenced once per interval and operation type) is a cost per interval, not per
# transaction, and the series made of the intervals at the trial's end
# (`record_series_and_interval`) one per trial: both are counted apart and printed on their own
# lines, as the data generation is. The bench's series interval is longer than its trial, so
# the trial is one interval whatever the machine's speed, closed once at its end: the count is
# the same run to run.
# Exits 1 when a ratio is over its bound (1.02x for both).
# Usage: benches/overhead-instructions.sh [OPS]   (OPS of each kind, default 5000)
set -euo pipefail
cd "$(dirname "$0")/.."
ops="${1:-5000}"
bin=$(cargo bench --bench overhead --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m["target"]["name"]=="overhead" and m.get("executable"): print(m["executable"])' | tail -1)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() { # side toggle -> callgrind output file
  LITEBENCH_OVERHEAD_SIDE="$1" LITEBENCH_OVERHEAD_OPS="$ops" valgrind --tool=callgrind --collect-atstart=no \
    --toggle-collect="$2" --callgrind-out-file="$out/$1.out" "$bin" >/dev/null 2>&1
  echo "$out/$1.out"
}
inclusive() { # file pattern -> inclusive instructions of the functions matching pattern
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
    awk -v pat="$2" 'index($0, pat) { gsub(",", "", $1); s += $1 } END { print s + 0 }'
}
lb=$(count litebench '*Crud as litebench::workload::Workload>::run')
drv=$(count driver '*Crud as litebench::workload::Workload>::run')
bare=$(count bare '*bare_timed*')
lb_total=$(inclusive "$lb" "Crud as litebench::workload::Workload>::run ")
lb_gen=$(inclusive "$lb" "crud::Live::round_of")
lb_prep=$(inclusive "$lb" ":sqlite3_prepare_v2 ")
drv_total=$(inclusive "$drv" "Crud as litebench::workload::Workload>::run ")
drv_gen=$(inclusive "$drv" "crud::Live::round_of")
drv_prep=$(inclusive "$drv" ":sqlite3_prepare_v2 ")
drv_close=$(inclusive "$drv" "load::series::Buckets::close ")
drv_series=$(inclusive "$drv" "load::series::record_series_and_interval ")
bare_total=$(inclusive "$bare" "bare_timed")
python3 - "$ops" "$lb_total" "$lb_gen" "$lb_prep" "$drv_total" "$drv_gen" "$drv_prep" "$drv_close" "$drv_series" "$bare_total" <<'PY'
import sys
ops, lb_total, lb_gen, lb_prep, drv_total, drv_gen, drv_prep, drv_close, drv_series, bare_total = map(int, sys.argv[1:])
n = 3 * ops
lb = (lb_total - lb_gen - lb_prep) / n
drv = (drv_total - drv_gen - drv_prep - drv_close - drv_series) / n
bare = bare_total / n
print(f"{ops} inserts + {ops} updates + {ops} deletes, in-memory, bundled SQLite")
print(f"phase-timed client:   {lb_total} instructions in the trial - {lb_gen} generating data - {lb_prep} preparing = {lb:.0f} per operation")
print(f"interval-timed client: {drv_total} instructions in the trial - {drv_gen} generating data - {drv_prep} preparing - {drv_close} closing intervals - {drv_series} making the series = {drv:.0f} per operation")
print(f"series, per interval: {drv_close} instructions to close the trial's one interval of 3 operation types")
print(f"series, per trial: {drv_series} instructions to make the series of its one interval")
print(f"bare C API loop:      {bare_total} instructions = {bare:.0f} per operation")
print(f"instructions per operation, phase-timed client / bare: {lb / bare:.4f}")
print(f"instructions per operation, interval-timed client / bare: {drv / bare:.4f}")
# The project's bound (docs/load.md): both loops within 1.02x.
over = [f"{name} {r:.4f} > {limit}" for name, r, limit in
        (("phase-timed", lb / bare, 1.02), ("interval-timed", drv / bare, 1.02)) if r > limit]
if over:
    sys.exit("over the bound: " + "; ".join(over))
PY
