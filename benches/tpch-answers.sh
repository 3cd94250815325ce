#!/usr/bin/env bash
# TPC-H at scale factor 1 with the validation values (substitution=validation) on one engine, one trial,
# then its answers against the specification's answer set, query by query, within TPC-H's
# tolerances (§2.1.3.5; `litebench tpch-answers`). The answer set is TPC's, not litebench's:
# give the directory holding q1.out to q22.out (dbgen's `answers/`, e.g. from a clone of
# gregrahn/tpch-kit: dbgen/answers). Answers of more than 1000 rows (Q11 and Q16 at SF 1) are
# stored only as a hash and are reported as not compared. Not run by CI (minutes per engine).
# Usage: benches/tpch-answers.sh ANSWERS_DIR [ENGINE] [LITEBENCH]   (default: sqlite, the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
answers="${1:?give the directory holding the answer set, q1.out to q22.out}"
engine="${2:-sqlite}"
lb="${3:-${CARGO_TARGET_DIR:-target}/release/litebench}"
[ -f "$answers/q1.out" ] || { echo "$answers: no q1.out there; give dbgen's answers/ directory" >&2; exit 2; }
work=$(mktemp -d)
chmod o+x "$work"   # a server engine runs as its own system user, which must reach --dir
trap 'rm -rf "$work"' EXIT
"$lb" run tpch --param scale=1 --param substitution=validation --engine "$engine" --trials 1 --warmup 0 \
  --quiet --dir "$work" --results "$work/results.db" --format json >"$work/run.json"
"$lb" tpch-answers --json "$work/run.json" --answers "$answers"
