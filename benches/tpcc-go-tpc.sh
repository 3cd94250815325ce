#!/usr/bin/env bash
# go-tpc (pingcap, v1.0.9) against litebench's tpcc on one server, PostgreSQL or MariaDB: the
# same server, WAREHOUSES warehouses, CLIENTS clients (go-tpc's threads), SECONDS seconds a run,
# no warm-up for either, in ROUNDS interleaved rounds (go-tpc, litebench, go-tpc, litebench, ...).
# Prints each round's tpmC side by side and the ratio litebench/go-tpc, then the medians.
#
# ENGINE=mariadb (the default) or ENGINE=postgres picks the server. go-tpc v1.0.9 is the first
# with a PostgreSQL driver (`--driver postgres`, lib/pq); its five transactions' SQL for MySQL is
# v1.0.7's (v1.0.8 and v1.0.9 added the driver, partition types and weights to its plumbing), so
# the one version runs both. It is built once from the Go module proxy into litebench's cache
# directory ($LITEBENCH_CACHE, else $XDG_CACHE_HOME/litebench, else ~/.cache/litebench), never
# into the system.
#
# The server is started as litebench starts its throwaway one, in a temporary directory:
# MariaDB as engines/mysql does (INSTALL_ARGS, SERVER_ARGS), as the system user `mysql` when run
# as root; PostgreSQL as engines/postgres does (initdb's INITDB_ARGS, the server's
# SERVER_SETTINGS: trust authentication for the user `litebench`, 127.0.0.1 only, no Unix
# socket), as the system user `postgres` when run as root (PostgreSQL refuses root). Both tools
# connect over TCP to 127.0.0.1 at the server's default isolation level (MariaDB's
# REPEATABLE-READ, PostgreSQL's READ COMMITTED). go-tpc loads its data once (`prepare`) and every
# go-tpc round runs on it, so later rounds find the orders earlier ones added (a few percent);
# litebench loads its own template each round and runs its trial on a fresh copy. On
# PostgreSQL go-tpc's tables are vacuumed and analyzed after `prepare` (see below).
#
# How each counts tpmC: go-tpc, New-Orders that returned no error (the 1% rolled back by the
# specification's rule included: its newOrder returns nil after the rollback), times 60, over
# the seconds since the first New-Order was timed up to the summary; litebench, New-Orders
# completed (rolled back ones included) per minute of its measured interval.
# Usage: [ENGINE=postgres|mariadb] benches/tpcc-go-tpc.sh [LITEBENCH] [SECONDS] [ROUNDS] [WAREHOUSES] [CLIENTS]
#        (defaults: mariadb, the release build, 30 s, 3 rounds, 2 warehouses, 2 clients);
#        PG_SETTINGS="autovacuum=off shared_buffers=1GB" adds settings to PostgreSQL's command
#        line (each as -c NAME=VALUE), for finding what a difference between the tools comes from.
#        KEEP=1 keeps the temporary directory (the server's files, both tools' logs and
#        litebench's JSON) and prints its path.
set -euo pipefail
cd "$(dirname "$0")/.."
lb=$(realpath "${1:-${CARGO_TARGET_DIR:-target}/release/litebench}")
seconds="${2:-30}"
rounds="${3:-3}"
warehouses="${4:-2}"
clients="${5:-2}"
engine="${ENGINE:-mariadb}"
case "$engine" in
  mariadb | postgres) ;;
  *) echo "ENGINE=$engine: give ENGINE=mariadb or ENGINE=postgres" >&2; exit 2 ;;
esac
version=v1.0.9
cache=${LITEBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/litebench}
gotpc="$cache/go-tpc-$version/go-tpc"
if [ ! -x "$gotpc" ]; then
  mkdir -p "$cache/go-tpc-$version"
  GOBIN="$cache/go-tpc-$version" GOFLAGS=-mod=mod GOPATH="$cache/go-tpc-$version/gopath" \
    go install "github.com/pingcap/go-tpc/cmd/go-tpc@$version"
fi
port=${GOTPC_PORT:-33079}
work=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "work: $work"
chmod 755 "$work"
as_user=()
owner=mysql
[ "$engine" = postgres ] && owner=postgres
if [ "$(id -u)" = 0 ]; then
  mkdir "$work/srv"
  chown "$owner": "$work/srv"
  as_user=(runuser -u "$owner" --)
fi
mkdir -p "$work/srv"
pidfile="$work/srv/data/mariadbd.pid"
[ "$engine" = postgres ] && pidfile="$work/srv/data/postmaster.pid"
cleanup() {
  if [ -f "$pidfile" ]; then kill "$(head -1 "$pidfile")" 2>/dev/null || true; fi
  for _ in $(seq 100); do [ -f "$pidfile" ] || break; sleep 0.2; done
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
if [ "$engine" = mariadb ]; then
  "${as_user[@]}" mariadb-install-db --datadir="$work/srv/data" --auth-root-authentication-method=normal \
    --skip-test-db >"$work/install.log" 2>&1
  (cd "$work/srv/data" && "${as_user[@]}" /usr/sbin/mariadbd --no-defaults --datadir="$work/srv/data" \
    --port="$port" --tmpdir="$work/srv/data" --bind-address=127.0.0.1 --socket=mysqld.sock \
    --pid-file=mariadbd.pid --skip-name-resolve --character-set-server=utf8mb4 \
    --collation-server=utf8mb4_bin --innodb-buffer-pool-dump-at-shutdown=OFF \
    --innodb-buffer-pool-load-at-startup=OFF >"$work/server.log" 2>&1 &)
  for _ in $(seq 100); do
    mariadb -h 127.0.0.1 -P "$port" -u root -e "SELECT 1" >/dev/null 2>&1 && break
    sleep 0.3
  done
  mariadb -h 127.0.0.1 -P "$port" -u root -e "SELECT VERSION(), @@tx_isolation"
  go=(--driver mysql --warehouses "$warehouses" -H 127.0.0.1 -P "$port" -U root -D gotpc)
  url="mysql://root@127.0.0.1:$port/"
  flag=mysql
else
  pgbin=${LITEBENCH_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
  "${as_user[@]}" "$pgbin/initdb" -D "$work/srv/data" --auth=trust --username=litebench \
    --encoding=UTF8 --locale=C --no-instructions >"$work/install.log" 2>&1
  (cd "$work/srv" && "${as_user[@]}" "$pgbin/postgres" -D "$work/srv/data" -p "$port" \
    -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c dynamic_shared_memory_type=sysv \
    ${PG_SETTINGS:+$(printf -- ' -c %s' $PG_SETTINGS)} >"$work/server.log" 2>&1 &)
  for _ in $(seq 100); do
    psql -h 127.0.0.1 -p "$port" -U litebench -d postgres -c "SELECT 1" >/dev/null 2>&1 && break
    sleep 0.3
  done
  psql -h 127.0.0.1 -p "$port" -U litebench -d postgres -Atc \
    "SELECT version(), current_setting('default_transaction_isolation')"
  # go-tpc creates a missing database through the user's own database, which initdb did not make
  psql -h 127.0.0.1 -p "$port" -U litebench -d postgres -qc "CREATE DATABASE gotpc"
  go=(--driver postgres --conn-params sslmode=disable --warehouses "$warehouses" -H 127.0.0.1
    -P "$port" -U litebench -D gotpc)
  url="postgres://litebench@127.0.0.1:$port/postgres"
  flag=postgres
fi
t0=$(date +%s)
"$gotpc" tpcc "${go[@]}" -T "$clients" prepare --no-check >"$work/prepare.log" 2>&1
echo "go-tpc $version prepare: $(($(date +%s) - t0)) s"
if [ "$engine" = postgres ]; then
  # Autovacuum's first pass over the freshly loaded tables (all of them qualify by inserts)
  # came in go-tpc's first round, whose statements ran on default estimates until then; done
  # here, every go-tpc round runs on vacuumed, analyzed tables (litebench analyzes its
  # template after loading it, and its trial copy keeps the statistics).
  psql -h 127.0.0.1 -p "$port" -U litebench -d gotpc -qc "VACUUM ANALYZE"
fi
printf 'round  go-tpc_tpmC  litebench_tpmC  ratio\n'
for r in $(seq "$rounds"); do
  "$gotpc" tpcc "${go[@]}" -T "$clients" --time "${seconds}s" --ignore-error --silence run >"$work/go.$r.log" 2>&1
  gt=$(sed -n 's/^tpmC: \([0-9.]*\),.*/\1/p' "$work/go.$r.log" | tail -1)
  "$lb" run tpcc --engine "$flag=$url" --param warehouses="$warehouses" --clients "$clients" \
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
