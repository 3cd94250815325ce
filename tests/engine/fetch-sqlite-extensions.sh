#!/usr/bin/env bash
# Fetches the pinned loadable SQLite extensions (sqlite-vec's vec0.so, vectorlite's
# vectorlite.so) into litebench's cache, where `--knob extension=NAME@VERSION` finds them, so
# that the tests fetch nothing.
#
# Usage: tests/engine/fetch-sqlite-extensions.sh CACHE_DIR
#   leaves CACHE_DIR/sqlite-extensions/<name>/<version>/<library> for each extension below
#   (.ci/run passes $LITEBENCH_CACHE, kept per machine). CACHE_DIR must be writable only by the
#   user who runs litebench (or root), as must every directory above it unless it has the
#   sticky bit.
#
# The same pins as src/engines/sqlite/extension.rs (a unit test there checks they agree): each
# PyPI wheel fetched with pip, checked against its pinned SHA-256 before anything is unpacked,
# and the library unpacked from it checked against the library's pinned SHA-256 (litebench
# checks that one again on every load). Nothing fetched is committed. Idempotent: extensions
# already in the cache are checked, not fetched again.
set -euo pipefail
umask 022

cache=${1:?usage: $0 CACHE_DIR}
mkdir -p "$cache/sqlite-extensions"
cache=$(cd "$cache" && pwd)

# name | version | PyPI distribution | wheel | SHA-256 of the wheel | the library's path in the
# wheel | SHA-256 of the library
extensions=(
  "sqlite-vec|0.1.9|sqlite-vec|sqlite_vec-0.1.9-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.manylinux1_x86_64.whl|1515727990b49e79bcaf75fdee2ffc7d461f8b66905013231251f1c8938e7786|sqlite_vec/vec0.so|5923730861b86c707cca5602b5f91092f9e52a46706dbc6e269fd4bb9c4498e8"
  "vectorlite|0.2.0|vectorlite-py|vectorlite_py-0.2.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl|1b97cd8e7bc80bc5b0f99c05c073ae094e27a865c410578aa61996e277ae6846|vectorlite_py/vectorlite.so|b92a88767ca8f0d50475c6c63f347e870365bab74807393c7219a660f60855f8"
)

for entry in "${extensions[@]}"; do
  IFS='|' read -r name version dist wheel sha member lib_sha <<<"$entry"
  file=${member##*/}
  lib="$cache/sqlite-extensions/$name/$version/$file"
  if [ -e "$lib" ] || [ -L "$lib" ]; then
    if ! echo "$lib_sha  $lib" | sha256sum -c --status; then
      echo "error: $lib is not $name $version's pinned library (SHA-256 $lib_sha); remove $cache/sqlite-extensions/$name/$version and run again" >&2
      exit 1
    fi
    continue
  fi
  echo "fetching $name $version: pip $wheel" >&2
  mkdir -p "$cache/sqlite-extensions/$name"
  part="$cache/sqlite-extensions/$name/.$version.$$.part"
  rm -rf "$part"
  mkdir -p "$part"
  python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
    --python-version 3.11 -d "$part" "$dist==$version"
  if ! echo "$sha  $part/$wheel" | sha256sum -c --status; then
    echo "error: $part/$wheel does not have the pinned SHA-256 $sha" >&2
    rm -rf "$part"
    exit 1
  fi
  unzip -q -o "$part/$wheel" "$member" -d "$part"
  mv "$part/$member" "$part/$file"
  chmod 0644 "$part/$file"
  rm -rf "$part/${member%%/*}" "$part/$wheel"
  if ! echo "$lib_sha  $part/$file" | sha256sum -c --status; then
    echo "error: $member in $wheel does not have the pinned SHA-256 $lib_sha" >&2
    rm -rf "$part"
    exit 1
  fi
  mv "$part" "$cache/sqlite-extensions/$name/$version"
done
