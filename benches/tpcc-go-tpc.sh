#!/usr/bin/env bash
# go-tpc (pingcap, v1.0.7) against litebench's tpcc on one MariaDB server: the same server,
# WAREHOUSES warehouses, CLIENTS clients (go-tpc's threads), SECONDS seconds a run, no warm-up
# for either, in ROUNDS interleaved rounds (go-tpc, litebench, go-tpc, litebench, ...). Prints
# each round's tpmC side by side and the ratio litebench/go-tpc, then the medians.
#
# go-tpc v1.0.7 speaks MySQL only (its --driver takes mysql; PostgreSQL came in v1.0.9), so
# PostgreSQL is not compared here. go-tpc is built once from the Go module proxy into
# litebench's cache directory ($LITEBENCH_CACHE, else $XDG_CACHE_HOME/litebench, else
# ~/.cache/litebench), never into the system.
#
# The server is started as litebench starts its throwaway one (engines/mysql: INSTALL_ARGS,
# SERVER_ARGS), in a temporary directory, as the system user `mysql` when run as root; both
# tools connect over TCP to 127.0.0.1 as root, at the server's default isolation level
# (REPEATABLE-READ). go-tpc loads its data once (`prepare`) and every go-tpc round runs on it,
# so later rounds find the orders earlier ones added (a few percent); litebench loads its own
# template each round and runs its trial on a fresh copy.
#
# How each counts tpmC: go-tpc, New-Orders that returned no error (the 1% rolled back by the
# specification's rule included: its newOrder returns nil after the rollback), times 60, over
# the seconds since the first New-Order was timed up to the summary; litebench, New-Orders
# completed (rolled back ones included) per minute of its measured interval.
# Usage: benches/tpcc-go-tpc.sh [LITEBENCH] [SECONDS] [ROUNDS] [WAREHOUSES] [CLIENTS]
#        (defaults: the release build, 30 s, 3 rounds, 2 warehouses, 2 clients)
set -euo pipefail
cd "$(dirname "$0")/.."
lb=$(realpath "${1:-${CARGO_TARGET_DIR:-target}/release/litebench}")
seconds="${2:-30}"
rounds="${3:-3}"
warehouses="${4:-2}"
clients="${5:-2}"
version=v1.0.7
cache=${LITEBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/litebench}
gotpc="$cache/go-tpc-$version/go-tpc"
if [ ! -x "$gotpc" ]; then
  mkdir -p "$cache/go-tpc-$version"
  GOBIN="$cache/go-tpc-$version" GOFLAGS=-mod=mod GOPATH="$cache/go-tpc-$version/gopath" \
    go install "github.com/pingcap/go-tpc/cmd/go-tpc@$version"
fi
port=${GOTPC_PORT:-33079}
work=$(mktemp -d)
as_my=()
if [ "$(id -u)" = 0 ]; then
  chown mysql: "$work"
  as_my=(runuser -u mysql --)
fi
cleanup() {
  if [ -f "$work/data/mariadbd.pid" ]; then kill "$(cat "$work/data/mariadbd.pid")" 2>/dev/null || true; fi
  for _ in $(seq 50); do [ -f "$work/data/mariadbd.pid" ] || break; sleep 0.2; done
  rm -rf "$work"
}
trap cleanup EXIT
"${as_my[@]}" mariadb-install-db --datadir="$work/data" --auth-root-authentication-method=normal \
  --skip-test-db >"$work/install.log" 2>&1
(cd "$work/data" && "${as_my[@]}" /usr/sbin/mariadbd --no-defaults --datadir="$work/data" --port="$port" \
  --tmpdir="$work/data" --bind-address=127.0.0.1 --socket=mysqld.sock --pid-file=mariadbd.pid \
  --skip-name-resolve --character-set-server=utf8mb4 --collation-server=utf8mb4_bin \
  --innodb-buffer-pool-dump-at-shutdown=OFF --innodb-buffer-pool-load-at-startup=OFF \
  >"$work/server.log" 2>&1 &)
for _ in $(seq 100); do
  mariadb -h 127.0.0.1 -P "$port" -u root -e "SELECT 1" >/dev/null 2>&1 && break
  sleep 0.3
done
mariadb -h 127.0.0.1 -P "$port" -u root -e "SELECT VERSION(), @@tx_isolation"
go=(--warehouses "$warehouses" -H 127.0.0.1 -P "$port" -U root -D gotpc)
t0=$(date +%s)
"$gotpc" tpcc "${go[@]}" -T "$clients" prepare --no-check >"$work/prepare.log" 2>&1
echo "go-tpc prepare: $(($(date +%s) - t0)) s"
url="mysql://root@127.0.0.1:$port/"
printf 'round  go-tpc_tpmC  litebench_tpmC  ratio\n'
for r in $(seq "$rounds"); do
  "$gotpc" tpcc "${go[@]}" -T "$clients" --time "${seconds}s" --ignore-error --silence run >"$work/go.$r.log" 2>&1
  gt=$(sed -n 's/^tpmC: \([0-9.]*\),.*/\1/p' "$work/go.$r.log" | tail -1)
  "$lb" run tpcc --engine "mysql=$url" --param warehouses="$warehouses" --clients "$clients" \
    --param warmup_time=0s --param measure_time="${seconds}s" --trials 1 --warmup 0 --quiet \
    --format json --dir "$work" --results "$work/results.db" >"$work/lb.$r.json"
  lt=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["trials"][0]
n = next(o["ops"] for o in t["ops"] if o["name"] == "NEW_ORDER")
print(n * 60e9 / t["measured_ns"])' "$work/lb.$r.json")
  printf '%5s  %11.1f  %14.1f  %5.3f\n' "$r" "$gt" "$lt" "$(python3 -c "print($lt/$gt)")"
  echo "$gt $lt" >>"$work/pairs"
  grep -h "^\[Summary\]" "$work/go.$r.log" | sed 's/^/    go-tpc /' || true
done
python3 - "$work/pairs" <<'PY'
import statistics, sys
pairs = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
g = statistics.median(p for p, _ in pairs)
l = statistics.median(q for _, q in pairs)
ratios = sorted(q / p for p, q in pairs)
print(f"median {g:11.1f}  {l:14.1f}  {l / g:5.3f}   (rounds {ratios[0]:.3f}-{ratios[-1]:.3f})")
PY
