#!/usr/bin/env bash
# Client threads against client processes on SQLite, beside a bare C loop doing the same
# (benches/client_baseline.c): pgbench's select-only transaction on pgbench's tables at SCALE
# (100,000 accounts per unit), WAL, CLIENTS clients, SECONDS a round, ROUNDS rounds. Each round
# runs, in turn: the bare loop with pthreads and with fork()ed processes, the same two with a
# copy of the database per client (no file shared: what sharing one file costs each), and
# litebench's `script --param builtin=select-only` with `--client-mode threads,processes` (one
# trial each, interleaved by litebench). Prints each round, then medians and the per-round
# ratios (median, and the range over rounds).
# Then, since throughput wanders on a shared machine, the cost per transaction that does not:
# instructions (valgrind's cachegrind, user space, every process: TX transactions per client
# less a run of one) and system calls per transaction (strace -f -c), for the four.
# Usage: benches/process-gap.sh [LITEBENCH] [SECONDS] [ROUNDS] [CLIENTS] [SCALE]
#        (defaults: the release build, 4 s, 5 rounds, 2 clients, scale 1; TX=20000)
# Needs a C compiler, valgrind and strace. The bare loop links the static SQLite that
# libsqlite3-sys built for litebench (target/release/build/libsqlite3-sys-*/out), so both run
# the same SQLite with the same options.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
lb=$(realpath "${1:-$target/release/litebench}")
seconds="${2:-4}"
rounds="${3:-5}"
clients="${4:-2}"
scale="${5:-1}"
tx=${TX:-20000}
lib=$(ls -t "$target"/release/build/libsqlite3-sys-*/out/libsqlite3.a | head -1)
inc=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/libsqlite3-sys-"$(cargo pkgid -q libsqlite3-sys | sed 's/.*[@#]//')"/sqlite3 | head -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -pthread -I"$inc" benches/client_baseline.c "$lib" -ldl -lm -o "$work/bare"
"$work/bare" init "$work/bare.db" "$scale"
for i in $(seq 0 $((clients - 1))); do cp "$work/bare.db" "$work/bare.db.$i"; done
bare() { "$work/bare" run "$work/bare.db" "$1" "$clients" "$2" "$scale" | awk '{print $5}'; }
lb_args=(run script --param builtin=select-only --param scale="$scale" --clients "$clients"
  --knob journal_mode=wal --trials 1 --warmup 0 --quiet --dir "$work" --results "$work/results.db")
printf 'round  bare-threads  bare-processes  own-file-threads  own-file-processes  lb-threads  lb-processes\n'
for r in $(seq "$rounds"); do
  bt=$(bare threads "$seconds")
  bp=$(bare processes "$seconds")
  ot=$(BASELINE_OWN_FILE=1 bare threads "$seconds")
  op=$(BASELINE_OWN_FILE=1 bare processes "$seconds")
  "$lb" "${lb_args[@]}" --param duration="${seconds}s" --client-mode threads,processes --format json >"$work/lb.json"
  read -r lt lp < <(python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
tps = {r["label"].split("client_mode=")[1]: r["tps_median"] for r in v["summary"] if r["operation"] == "all"}
print(tps["threads"], tps["processes"])' "$work/lb.json")
  printf '%5s  %12.0f  %14.0f  %16.0f  %18.0f  %10.0f  %12.0f\n' "$r" "$bt" "$bp" "$ot" "$op" "$lt" "$lp"
  echo "$bt $bp $ot $op $lt $lp" >>"$work/rounds"
done
python3 - "$work/rounds" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
names = ["bare-threads", "bare-processes", "own-file-threads", "own-file-processes", "lb-threads", "lb-processes"]
col = {n: [r[i] for r in rows] for i, n in enumerate(names)}
print("median tx/s: " + ", ".join(f"{n} {statistics.median(col[n]):.0f}" for n in names))
def ratio(a, b, what):
    rs = sorted(x / y for x, y in zip(col[a], col[b]))
    print(f"  {what:44} {statistics.median(rs):.3f}x  (rounds {rs[0]:.3f}-{rs[-1]:.3f})")
print("per-round ratios:")
ratio("bare-processes", "bare-threads", "bare: processes / threads")
ratio("lb-processes", "lb-threads", "litebench: processes / threads")
ratio("lb-threads", "bare-threads", "threads: litebench / bare")
ratio("lb-processes", "bare-processes", "processes: litebench / bare")
ratio("own-file-threads", "bare-threads", "threads: a file each / one file")
ratio("own-file-processes", "bare-processes", "processes: a file each / one file")
PY
# Instructions per transaction: every process's user-space instructions (cachegrind, one output
# per process), a run of TX transactions per client less a run of one per client.
instr() { # label command... -> total instructions of every process it ran
  rm -f "$work"/cg.*
  valgrind --tool=cachegrind --cache-sim=no --trace-children=yes --cachegrind-out-file="$work/cg.%p" "$@" \
    >/dev/null 2>&1
  cat "$work"/cg.* | awk '/^summary:/ { s += $2 } END { print s }'
}
syscalls() { # command... -> "fcntl futex total" system calls of every thread and process
  strace -f -c -o "$work/strace" "$@" >/dev/null 2>&1
  awk '$NF == "fcntl" { f = $4 } $NF == "futex" { x = $4 } $NF == "total" { t = $4 } END { print f + 0, x + 0, t + 0 }' "$work/strace"
}
per_tx() { # big one n [decimals]
  python3 -c "import sys; print(f'{(float(sys.argv[1]) - float(sys.argv[2])) / float(sys.argv[3]):.{sys.argv[4]}f}')" "$1" "$2" "$3" "${4:-0}"
}
n=$((tx * clients))
printf '\nper transaction (%s transactions per client, less a run of one):\n' "$tx"
printf '%-20s %14s %8s %8s %10s\n' side instructions fcntl futex syscalls
for mode in threads processes; do
  big=$(instr "$work/bare" run "$work/bare.db" "$mode" "$clients" "-t$tx" "$scale")
  one=$(instr "$work/bare" run "$work/bare.db" "$mode" "$clients" -t1 "$scale")
  read -r f1 x1 s1 < <(syscalls "$work/bare" run "$work/bare.db" "$mode" "$clients" "-t$tx" "$scale")
  read -r f0 x0 s0 < <(syscalls "$work/bare" run "$work/bare.db" "$mode" "$clients" -t1 "$scale")
  printf '%-20s %14s %8s %8s %10s\n' "bare-$mode" "$(per_tx "$big" "$one" "$n")" "$(per_tx "$f1" "$f0" "$n" 2)" \
    "$(per_tx "$x1" "$x0" "$n" 2)" "$(per_tx "$s1" "$s0" "$n" 2)"
  lbc=("$lb" "${lb_args[@]}" --client-mode "$mode")
  big=$(instr "${lbc[@]}" --param transactions="$n")
  one=$(instr "${lbc[@]}" --param transactions="$clients")
  read -r f1 x1 s1 < <(syscalls "${lbc[@]}" --param transactions="$n")
  read -r f0 x0 s0 < <(syscalls "${lbc[@]}" --param transactions="$clients")
  printf '%-20s %14s %8s %8s %10s\n' "litebench-$mode" "$(per_tx "$big" "$one" "$n")" "$(per_tx "$f1" "$f0" "$n" 2)" \
    "$(per_tx "$x1" "$x0" "$n" 2)" "$(per_tx "$s1" "$s0" "$n" 2)"
done
