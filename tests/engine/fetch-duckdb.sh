#!/usr/bin/env bash
# Fetches the pinned DuckDB releases (libduckdb.so) into litebench's cache, where
# `--engine duckdb` and `--engine duckdb@VERSION` find them, so that the tests fetch nothing.
#
# Usage: tests/engine/fetch-duckdb.sh CACHE_DIR
#   leaves CACHE_DIR/duckdb/<version>/libduckdb.so for each release below (.ci/run passes
#   $LITEBENCH_CACHE, kept per machine). CACHE_DIR must be writable only by the user who runs
#   litebench (or root), as must every directory above it unless it has the sticky bit.
#
# The same pins as src/engines/duckdb/release.rs (a unit test there checks they agree): the npm
# package @duckdb/node-bindings-linux-x64 ships each 1.x release's standalone libduckdb.so;
# DuckDB 2.0.0, not on npm, comes from its PyPI wheel (its Python extension module, which
# litebench loads after libpython3.11). Fetched with the registries' own clients (npm, pip),
# each archive checked against its pinned SHA-256 before anything is unpacked, and the library
# unpacked from it against the library's pinned SHA-256 (litebench checks that one again on every
# load, in a cache only root or the loading user can write: src/sys/trusted.rs); nothing fetched
# is committed. Idempotent: releases already in the cache are checked, not fetched again.
set -euo pipefail
# Nothing it makes may be writable by group or others: litebench would refuse the cache.
umask 022

cache=${1:?usage: $0 CACHE_DIR}
mkdir -p "$cache/duckdb"
cache=$(cd "$cache" && pwd)

# version | client | npm package, or the wheel's file name | SHA-256 of the archive | the
# library's path in the archive | SHA-256 of the library
releases=(
  "1.4.0|npm|@duckdb/node-bindings-linux-x64@1.4.0-r.2|ab9c2b2eede8ed4e1d07c185070cb12b142be2ac052d8d1deba43f108a232999|package/libduckdb.so.1.4|ea2d09040332bf39a9cbb9d07d5ef8786d350a4c127edd717f5263b764aa7a00"
  "1.5.6|npm|@duckdb/node-bindings-linux-x64@1.5.6-r.1|1b9f82478539bb9a1d1df44bd103121a12ae52142c07158dc52b97d2ec1d69ff|package/libduckdb.so|3f4962cdd266eab2b479a5b5a4a6d063d279b2954ae814ed00385d553b747633"
  "2.0.0|pip|duckdb-2.0.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl|5a3601121c7cc50d0b70412995634682fafcb58a0156d5d663dfd0b3bbe30a33|_duckdb.cpython-311-x86_64-linux-gnu.so|9405ef57d86d7c41fc98b02613160a915bc8ed3deae06a68117c22036f8389be"
)

for entry in "${releases[@]}"; do
  IFS='|' read -r version client package sha member lib_sha <<<"$entry"
  lib="$cache/duckdb/$version/libduckdb.so"
  if [ -e "$lib" ] || [ -L "$lib" ]; then
    if ! echo "$lib_sha  $lib" | sha256sum -c --status; then
      echo "error: $lib is not DuckDB $version's pinned library (SHA-256 $lib_sha); remove $cache/duckdb/$version and run again" >&2
      exit 1
    fi
    continue
  fi
  echo "fetching DuckDB $version: $client $package" >&2
  part="$cache/duckdb/.$version.$$.part"
  rm -rf "$part"
  mkdir -p "$part"
  case "$client" in
    npm) name=$(npm pack --loglevel=error --pack-destination "$part" "$package" | tail -n 1) ;;
    pip)
      # duckdb-2.0.0-cp311-cp311-<platforms>.whl: exactly that wheel, whatever Python runs pip.
      IFS=- read -r dist dist_version python abi platforms <<<"${package%.whl}"
      python3 -m pip download --quiet --no-deps --only-binary=:all: --platform "${platforms##*.}" \
        --abi "$abi" --implementation cp --python-version "${python#cp}" -d "$part" "$dist==$dist_version"
      name=$package
      ;;
  esac
  if ! echo "$sha  $part/$name" | sha256sum -c --status; then
    echo "error: $part/$name does not have the pinned SHA-256 $sha" >&2
    rm -rf "$part"
    exit 1
  fi
  case "$client" in
    npm) tar -xzf "$part/$name" -C "$part" "$member" ;;
    pip) unzip -q -o "$part/$name" "$member" -d "$part" ;;
  esac
  mv "$part/$member" "$part/libduckdb.so"
  chmod 0644 "$part/libduckdb.so"
  rm -rf "$part/package" "$part/$name"
  if ! echo "$lib_sha  $part/libduckdb.so" | sha256sum -c --status; then
    echo "error: $member in $package does not have the pinned SHA-256 $lib_sha" >&2
    rm -rf "$part"
    exit 1
  fi
  mv "$part" "$cache/duckdb/$version"
done
