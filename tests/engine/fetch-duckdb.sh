#!/usr/bin/env bash
# Fetches the pinned DuckDB releases (libduckdb.so) into litebench's cache, where
# `--engine duckdb` and `--engine duckdb@VERSION` find them, so that the tests fetch nothing.
#
# Usage: tests/engine/fetch-duckdb.sh CACHE_DIR
#   leaves CACHE_DIR/duckdb/<version>/libduckdb.so for each release below (.ci/run passes
#   $LITEBENCH_CACHE, kept per machine).
#
# The same pins as src/engines/duckdb/release.rs (a unit test there checks they agree): the npm
# package @duckdb/node-bindings-linux-x64 ships each release's standalone libduckdb.so. Fetched
# with npm's own client, each tarball checked against its pinned SHA-256 before anything is
# unpacked; nothing fetched is committed. Idempotent: releases already in the cache are skipped.
set -euo pipefail

cache=${1:?usage: $0 CACHE_DIR}
mkdir -p "$cache/duckdb"
cache=$(cd "$cache" && pwd)

# version | npm package | SHA-256 of its tarball | the library's path in the tarball
releases=(
  "1.4.0|@duckdb/node-bindings-linux-x64@1.4.0-r.2|ab9c2b2eede8ed4e1d07c185070cb12b142be2ac052d8d1deba43f108a232999|package/libduckdb.so.1.4"
  "1.5.6|@duckdb/node-bindings-linux-x64@1.5.6-r.1|1b9f82478539bb9a1d1df44bd103121a12ae52142c07158dc52b97d2ec1d69ff|package/libduckdb.so"
)

for entry in "${releases[@]}"; do
  IFS='|' read -r version package sha member <<<"$entry"
  [ -s "$cache/duckdb/$version/libduckdb.so" ] && continue
  echo "fetching DuckDB $version: npm package $package" >&2
  part="$cache/duckdb/.$version.$$.part"
  rm -rf "$part"
  mkdir -p "$part"
  name=$(npm pack --loglevel=error --pack-destination "$part" "$package" | tail -n 1)
  if ! echo "$sha  $part/$name" | sha256sum -c --status; then
    echo "error: $part/$name ($package) does not have the pinned SHA-256 $sha" >&2
    rm -rf "$part"
    exit 1
  fi
  tar -xzf "$part/$name" -C "$part" "$member"
  mv "$part/$member" "$part/libduckdb.so"
  rm -rf "$part/package" "$part/$name"
  mv "$part" "$cache/duckdb/$version"
done
