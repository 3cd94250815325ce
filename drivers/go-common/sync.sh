#!/usr/bin/env bash
# Writes drivers/go-common's shared Go files into each Go driver folder (identical copies: see
# protocol.go for why), or with --check exits 1 naming the first copy that differs.
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = --check ] && check=1
for d in go-mattn go-modernc go-ncruces noop-go; do
  files=(protocol.go)
  [ "$d" = noop-go ] || files+=(sqlconn.go)
  for f in "${files[@]}" setup; do
    if [ $check = 1 ]; then
      cmp -s "go-common/$f" "$d/$f" || { echo "drivers/$d/$f differs from drivers/go-common/$f: run drivers/go-common/sync.sh" >&2; exit 1; }
    else
      cp "go-common/$f" "$d/$f"
    fi
  done
done
