#!/usr/bin/env bash
# Builds the pinned Litestream the sidecar tests run beside a trial (tests/cli/sidecar.rs), once
# per machine, and prints the binary's path (for LITEBENCH_LITESTREAM).
#
# Usage: tests/sidecar/fetch-litestream.sh CACHE_DIR
#
# Litestream ships no Debian package, so it is built from its Go module with the machine's `go`
# (`go install`, modules from the Go module proxy) into CACHE_DIR/litestream/VERSION/bin, with
# GOPATH and GOCACHE under CACHE_DIR/litestream so that CI's persistent cache keeps the modules
# and the build. Debian 12's golang-go (1.19) is too old for it: the Go that builds it must be
# at least MIN_GO (Litestream's go.mod). Idempotent: a binary already built is reused.
set -euo pipefail

cache=${1:?usage: $0 CACHE_DIR}
version=v0.5.17
min_go=1.24

if ! command -v go >/dev/null; then
  echo "fetch-litestream.sh: no \`go\` on PATH; install Go $min_go or newer (Debian 12's golang-go is 1.19, too old) and put it on PATH" >&2
  exit 1
fi
have=$(go env GOVERSION | sed 's/^go//')
if [ "$(printf '%s\n%s\n' "$min_go" "$have" | sort -V | head -1)" != "$min_go" ]; then
  echo "fetch-litestream.sh: go $have is older than $min_go, which Litestream $version needs; install a newer Go and put it on PATH" >&2
  exit 1
fi

mkdir -p "$cache/litestream"
root=$(cd "$cache/litestream" && pwd)
bin="$root/$version/bin/litestream"
if [ ! -x "$bin" ]; then
  GOPATH="$root/gopath" GOCACHE="$root/gocache" GOBIN="$root/$version/bin" GOFLAGS=-modcacherw \
    go install "github.com/benbjohnson/litestream/cmd/litestream@$version" >&2
fi
"$bin" version >/dev/null
echo "$bin"
