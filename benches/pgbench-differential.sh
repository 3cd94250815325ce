#!/usr/bin/env bash
# pgbench's expression language against the real pgbench (issue 47): thousands of generated
# expressions and -D values, each through `pgbench -n -t 1` on a throwaway PostgreSQL and
# through `litebench run script` on SQLite, classified as same / same error / print-only /
# differ / documented; prints the differences found and the counts. Not in CI (no pgbench there).
#
# PostgreSQL refuses root: as root the server runs as the system user `postgres` (runuser) in a
# directory it owns. Needs pgbench and PostgreSQL's server binaries (Debian: postgresql).
# Usage: benches/pgbench-differential.sh [LITEBENCH] [COUNT] [SEED]
#        (defaults: the release build, 3000 cases, seed 47)
set -euo pipefail
cd "$(dirname "$0")/.."
lb=$(realpath "${1:-${CARGO_TARGET_DIR:-target}/release/litebench}")
count="${2:-3000}"
seed="${3:-47}"
bin=${LITEBENCH_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
port=${DIFF_PORT:-54331}
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
(cd "$work" && "${as_pg[@]}" "$bin/initdb" -D "$work/data" --auth=trust --username=litebench \
  --encoding=UTF8 --locale=C --no-instructions >"$work/initdb.log")
(cd "$work" && "${as_pg[@]}" "$bin/pg_ctl" -D "$work/data" -l "$work/server.log" -w -o \
  "-p $port -c listen_addresses= -k $work" start >/dev/null)
"$bin/pgbench" --version
python3 benches/pgbench_differential.py --litebench "$lb" --count "$count" --seed "$seed" \
  --pg-args="-h $work -p $port -U litebench postgres"
