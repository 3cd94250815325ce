#!/usr/bin/env bash
# Fetches the SQLite amalgamations (sqlite3.c) of old releases that tests/engine/old_builds.rs
# compiles and loads with `--engine sqlite:PATH`, and tests/engine/build_sqlite.rs builds with
# `litebench build-sqlite`; and libSQL's, from the crate libsql-ffi, which
# `litebench build-sqlite libsql@0.10.0` takes from cargo's download cache, where this leaves it.
#
# Usage: tests/engine/fetch-old-sqlite.sh CACHE_DIR
#   leaves CACHE_DIR/<version>/sqlite3.c for each release below (the test passes
#   <cargo target dir>/old-sqlite, so a machine keeps them with its build cache).
#
# SQLite's own site is out of reach of CI and of the developers' machines; the package
# registries are not, and some packages ship an amalgamation. They are fetched with the
# registries' ordinary clients (npm, cargo), which check the registry's own checksums, and each
# archive is also pinned here by SHA-256, checked before anything is extracted. Nothing fetched
# is committed to the repository. Idempotent: releases already extracted are skipped.
set -euo pipefail

cache=${1:?usage: $0 CACHE_DIR}
mkdir -p "$cache/downloads"
cache=$(cd "$cache" && pwd)

# Each prints the path of the archive it fetched.
fetch_npm() {
  local spec=$1
  npm pack --loglevel=error --pack-destination "$cache/downloads" "$spec" >/dev/null
  echo "$cache/downloads/${spec%@*}-${spec#*@}.tgz"
}
fetch_crate() {
  local name=$1 version=$2 dir="$cache/downloads/cargo-fetch-$1-$2"
  # A throwaway package depending on exactly that version, its own workspace (the cache may
  # lie inside litebench's), so that `cargo fetch` puts the .crate in cargo's cache.
  mkdir -p "$dir/src"
  : >"$dir/src/lib.rs"
  printf '[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2018"\n\n[dependencies]\n%s = "=%s"\n\n[workspace]\n' \
    "$name" "$version" >"$dir/Cargo.toml"
  cargo fetch --quiet --manifest-path "$dir/Cargo.toml"
  cached_crate "$name" "$version"
}
cached_crate() {
  ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"$1-$2.crate" 2>/dev/null | head -n 1
}

# version | client | package | version of the package | SHA-256 of its archive | path of
# sqlite3.c in the archive ("outer>inner" for an archive inside the archive) | the SQLite
# release it declares, when the first field is not one
sources=(
  # The node package sqlite3 2.1.0 bundles the sqlite-autoconf-3070800 tarball: SQLite 3.7.8
  # (2011): VFS version 3, io_methods version 2 (no xFetch), no sqlite3_errstr, no
  # sqlite3_changes64, no PRAGMA mmap_size.
  "3.7.8|npm|sqlite3|2.1.0|f1e89be682839c85972f44e36dc333766ff3009918895cc1dc9715442ddd2253|package/deps/sqlite-autoconf-3070800.tar.gz>sqlite-autoconf-3070800/sqlite3.c"
  # The node package sqlite3 2.1.7 bundles SQLite 3.7.13 (2012), and 2.2.3 bundles 3.8.4.3 (2014):
  # the nearest releases to Linaro's 3.7.11 and 3.8.3.1 (`litebench reproduce linaro2014`; the
  # same pins as src/engines/sqlite/compiled/npm.rs).
  "3.7.13|npm|sqlite3|2.1.7|20edf21c598f90f75d167d1e9e516adc6020974ba4ef2a9178a5a17146a609f4|package/deps/sqlite3/sqlite3.c"
  "3.8.4.3|npm|sqlite3|2.2.3|b8a0dc4c4840ac4bd9c4ac1479a7dc9b673bd480aa40182be10dc398da6c8cc3|package/deps/sqlite-autoconf-3080403.tar.gz>sqlite-autoconf-3080403/sqlite3.c"
  # The crate libsqlite3-sys 0.12.0 bundles SQLite 3.26.0 (2018): no sqlite3_changes64.
  "3.26.0|cargo|libsqlite3-sys|0.12.0|fd6457c70bbff456d9fe49deaba35ec47c3e598bf8d7950ff0575ceb7a8a6ad1|libsqlite3-sys-0.12.0/sqlite3/sqlite3.c"
  # The node package better-sqlite3 7.5.0 bundles SQLite 3.37.2 (2022), the last release
  # before Bloom filters (3.38.0): `litebench build-sqlite` compiles it (tests/engine/build_sqlite.rs).
  "3.37.2|npm|better-sqlite3|7.5.0|c6feb7b1dfa1a985725e6e25fa3a72c55042fb44ded28aa2f7ee7a08ce642d4c|package/deps/sqlite3/sqlite3.c"
  # The crate libsql-ffi 0.10.0 bundles libSQL 0.2.3 (Turso's fork) on SQLite 3.47.0 (the same
  # pin as src/engines/sqlite/compiled/crates.rs; tests/engine/build_sqlite.rs builds it).
  "libsql-0.10.0|cargo|libsql-ffi|0.10.0|f232292810b6298d17466b59bf8077d075fb016d89c281ca9dc968ea4a3b9d03|libsql-ffi-0.10.0/bundled/src/sqlite3.c|3.47.0"
)

for entry in "${sources[@]}"; do
  IFS='|' read -r version client package package_version sha member declares <<<"$entry"
  out="$cache/$version/sqlite3.c"
  # A crate's archive also stays in cargo's cache, where `build-sqlite FORK@VERSION` looks.
  if [ -s "$out" ] && { [ "$client" != cargo ] || [ -n "$(cached_crate "$package" "$package_version")" ]; }; then
    continue
  fi
  echo "fetching SQLite $version: $client package $package $package_version" >&2
  case "$client" in
    npm) archive=$(fetch_npm "$package@$package_version") ;;
    cargo) archive=$(fetch_crate "$package" "$package_version") ;;
  esac
  if ! echo "$sha  $archive" | sha256sum -c --status; then
    echo "error: $archive does not have the pinned SHA-256 $sha" >&2
    exit 1
  fi
  mkdir -p "$cache/$version"
  case "$member" in
    *'>'*) tar -xzOf "$archive" "${member%%>*}" | tar -xzO "${member#*>}" >"$out.part" ;;
    *) tar -xzOf "$archive" "$member" >"$out.part" ;;
  esac
  grep -q "^#define SQLITE_VERSION *\"${declares:-$version}\"" "$out.part" || {
    echo "error: $member in $archive is not SQLite ${declares:-$version}" >&2
    exit 1
  }
  mv "$out.part" "$out"
done
