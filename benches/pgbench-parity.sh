#!/usr/bin/env bash
# pgbench against litebench on one PostgreSQL server: pgbench's tpcb-like (-M prepared, as
# litebench prepares every statement) at scale SCALE, CLIENTS clients, SECONDS seconds a round,
# ROUNDS rounds with the two tools interleaved, each pgbench round on a fresh FILE_COPY of a
# template made by `pgbench -i` (then a CHECKPOINT), as litebench's trials are (litebench copies
# its own template, populated by its `script` workload, the same way). Both connect over TCP to
# 127.0.0.1. Prints each round's tps and the ratio litebench/pgbench, then the medians.
#
# PostgreSQL refuses root: as root the server runs as the system user `postgres` (runuser) in a
# directory it owns; otherwise as the invoking user.
# Then, since a shared machine's throughput wanders, the client side's CPU time per transaction
# (user + system, from /usr/bin/time) over CPU_TX transactions per client: pgbench's, and
# litebench's less a run of one transaction per client (its population and start).
# Usage: benches/pgbench-parity.sh [LITEBENCH] [SECONDS] [ROUNDS] [SCALE] [CLIENTS]
#        (defaults: the release build, 20 s, 5 rounds, scale 5, 2 clients; CPU_TX=5000)
set -euo pipefail
cd "$(dirname "$0")/.."
lb=$(realpath "${1:-${CARGO_TARGET_DIR:-target}/release/litebench}")
seconds="${2:-20}"
rounds="${3:-5}"
scale="${4:-5}"
clients="${5:-2}"
bin=${LITEBENCH_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
port=${PARITY_PORT:-54329}
work=$(mktemp -d)
as_pg=()
if [ "$(id -u)" = 0 ]; then
  chown postgres: "$work"
  as_pg=(runuser -u postgres --)
fi
cleanup() {
  "${as_pg[@]}" "$bin/pg_ctl" -D "$work/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
# The settings litebench gives its own throwaway server (engines/postgres: INITDB_ARGS,
# SERVER_SETTINGS).
(cd "$work" && "${as_pg[@]}" "$bin/initdb" -D "$work/data" --auth=trust --username=litebench \
  --encoding=UTF8 --locale=C --no-instructions >"$work/initdb.log")
(cd "$work" && "${as_pg[@]}" "$bin/pg_ctl" -D "$work/data" -l "$work/server.log" -w -o \
  "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c dynamic_shared_memory_type=sysv" \
  start >/dev/null)
conn=(-h 127.0.0.1 -p "$port" -U litebench)
sql() { "$bin/psql" "${conn[@]}" -d postgres -qAt -c "$1"; }
sql "CREATE DATABASE parity_template"
"$bin/pgbench" "${conn[@]}" -i -q -s "$scale" parity_template 2>/dev/null
url="postgres://litebench@127.0.0.1:$port/postgres"
printf 'round  pgbench_tps  litebench_tps  ratio\n'
for r in $(seq "$rounds"); do
  sql "CREATE DATABASE parity_round TEMPLATE parity_template STRATEGY FILE_COPY"
  sql "CHECKPOINT"
  pg=$("$bin/pgbench" "${conn[@]}" -n -M prepared -c "$clients" -j "$clients" -T "$seconds" parity_round 2>/dev/null |
    sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p')
  sql "DROP DATABASE parity_round WITH (FORCE)"
  "$lb" run script --param builtin=tpcb-like --param scale="$scale" --param duration="${seconds}s" \
    --engine "postgres=$url" --clients "$clients" --trials 1 --warmup 0 --quiet --format json \
    --dir "$work" --results "$work/results.db" >"$work/lb.json"
  lbt=$(python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(next(r["tps_median"] for r in v["summary"] if r["operation"]=="all"))' "$work/lb.json")
  printf '%5s  %11.1f  %13.1f  %5.3f\n' "$r" "$pg" "$lbt" "$(python3 -c "print($lbt/$pg)")"
  echo "$pg $lbt" >>"$work/pairs"
done
python3 - "$work/pairs" <<'PY'
import statistics, sys
pairs = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
pg = statistics.median(p for p, _ in pairs)
lb = statistics.median(l for _, l in pairs)
ratios = sorted(l / p for p, l in pairs)
print(f"median  {pg:11.1f}  {lb:13.1f}  {lb / pg:5.3f}   (rounds {ratios[0]:.3f}-{ratios[-1]:.3f})")
PY
cpu_tx=${CPU_TX:-5000}
cpu() { /usr/bin/time -f '%U %S' -o "$work/time" "$@" >/dev/null 2>&1; awk '{print $1 + $2}' "$work/time"; }
sql "CREATE DATABASE parity_round TEMPLATE parity_template STRATEGY FILE_COPY"
pg_cpu=$(cpu "$bin/pgbench" "${conn[@]}" -n -M prepared -c "$clients" -j "$clients" -t "$cpu_tx" parity_round)
sql "DROP DATABASE parity_round WITH (FORCE)"
lb_run() {
  cpu "$lb" run script --param builtin=tpcb-like --param scale="$scale" --param transactions="$1" \
    --engine "postgres=$url" --clients "$clients" --trials 1 --warmup 0 --quiet --dir "$work" --results "$work/results.db"
}
lb_base=$(lb_run "$clients")
lb_cpu=$(lb_run $((cpu_tx * clients)))
python3 - "$pg_cpu" "$lb_base" "$lb_cpu" "$((cpu_tx * clients))" <<'PY'
import sys
pg, base, lb, n = (float(x) for x in sys.argv[1:])
pg_us, lb_us = pg / n * 1e6, (lb - base) / n * 1e6
print(f"client CPU per transaction: pgbench {pg_us:.1f} us, litebench {lb_us:.1f} us ({lb_us / pg_us:.2f}x; {int(n)} transactions)")
PY
