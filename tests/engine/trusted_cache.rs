//! Code or data from another user (issue 31, items 1 and 2): litebench, as root, loads nothing
//! from its cache that another user could have placed or changed, and says in one line what to
//! do; its own cache keeps working (`build-sqlite`, then a run on the build).
//!
//! The planted library is a real shared object whose constructor writes a marker file: the
//! proof that its code never ran is that the marker never appears. Root gives files away to
//! `nobody` (uid 65534); "a user's earlier build-sqlite" is a cache made here and then given to
//! uid 1000. A stand-in compiler (`CC`) copies the system's libsqlite3 where `-o` points, so a
//! real `build-sqlite` runs in milliseconds instead of a minute of gcc.

use crate::engine::common::*;
use crate::support::{stderr, stdout, Sandbox};
use std::os::unix::fs::{chown, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Output;

const NOBODY: u32 = 65534;

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Root, gcc and the system SQLite, or a skip (a failure in CI, which runs as root with both).
fn ready() -> bool {
    if !is_root() {
        assert!(!in_ci(), "CI runs the tests as root");
        eprintln!("skipping: needs root to give files to another user");
        return false;
    }
    require("/usr/bin/gcc", "gcc") && require(DEBIAN_SQLITE, "libsqlite3-0")
}

/// A shared library whose constructor writes "code ran as uid N" into `$LITEBENCH_TEST_MARKER`.
fn planted_library(dir: &Path) -> PathBuf {
    let c = dir.join("planted.c");
    std::fs::write(
        &c,
        r#"#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void) {
    const char *marker = getenv("LITEBENCH_TEST_MARKER");
    FILE *f = marker ? fopen(marker, "w") : NULL;
    if (f) { fprintf(f, "code ran as uid %d\n", (int)geteuid()); fclose(f); }
}
const char *duckdb_library_version(void) { return "v1.5.6"; }
int sqlite3_libversion_number(void) { return 3037002; }
"#,
    )
    .unwrap();
    let so = dir.join("planted.so");
    let out = std::process::Command::new("gcc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&so)
        .arg(&c)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    so
}

/// A directory (and its parents up to `top`) made 0755.
fn mkdirs(top: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let mut d = dir.to_path_buf();
    while d.starts_with(top) {
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
        if !d.pop() {
            break;
        }
    }
}

fn chown_r(path: &Path, uid: u32) {
    let out = std::process::Command::new("chown")
        .args(["-R", &format!("{uid}:{uid}")])
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `litebench ARGS` with `cache` as its cache and the marker's path in the environment.
fn litebench_with(s: &Sandbox, cache: &Path, marker: &Path, args: &[&str]) -> Output {
    s.command()
        .env("LITEBENCH_CACHE", cache)
        .env("LITEBENCH_TEST_MARKER", marker)
        .env("CC", s.root().join("fakecc"))
        .args(args)
        .output()
        .unwrap()
}

/// `litebench run crud` (small) on `engine`.
fn run_on(s: &Sandbox, cache: &Path, marker: &Path, engine: &str) -> Output {
    let dir = s.scratch().display().to_string();
    let results = s.results().display().to_string();
    let mut args = vec!["run", "--engine", engine, "--dir", &dir, "--results", &results];
    args.extend_from_slice(crate::support::SMALLEST_CRUD);
    litebench_with(s, cache, marker, &args)
}

/// Refused: exit 2, exactly one line on stderr, no panic; the line.
fn refused(out: &Output) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err.trim_end().to_string()
}

fn assert_never_ran(marker: &Path) {
    assert!(
        !marker.exists(),
        "the planted library's code ran: {}",
        std::fs::read_to_string(marker).unwrap_or_default()
    );
}

/// The stand-in compiler: `--version` answers, and `-o OUT` gets a copy of the system SQLite.
fn fake_compiler(s: &Sandbox) {
    let cc = s.root().join("fakecc");
    std::fs::write(
        &cc,
        format!(
            "#!/bin/sh\n[ \"$1\" = --version ] && {{ echo 'fakecc 1 (copies {DEBIAN_SQLITE})'; exit 0; }}\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then shift; cp {DEBIAN_SQLITE} \"$1\"; fi; shift; done\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&cc, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `build-sqlite` of a one-line amalgamation of `version` under `name`, with the stand-in
/// compiler; the build record.
fn build(s: &Sandbox, cache: &Path, marker: &Path, version: &str, name: &str) -> serde_json::Value {
    fake_compiler(s);
    let src = s.root().join(format!("sqlite3-{version}.c"));
    std::fs::write(&src, format!("#define SQLITE_VERSION \"{version}\"\n")).unwrap();
    let src = src.display().to_string();
    let out = litebench_with(
        s,
        cache,
        marker,
        &["build-sqlite", &src, "--name", name, "--format", "json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

#[test]
fn a_planted_duckdb_library_is_refused_before_its_code_runs() {
    if !ready() {
        return;
    }
    let s = Sandbox::new();
    let cache = s.root().join("cache");
    let marker = s.root().join("marker");
    let release = cache.join("duckdb").join("1.5.6");
    mkdirs(s.root(), &release);
    let lib = release.join("libduckdb.so");
    std::fs::copy(planted_library(s.root()), &lib).unwrap();
    // Another user's library in root's cache.
    chown(&lib, Some(NOBODY), Some(NOBODY)).unwrap();
    let line = refused(&run_on(&s, &cache, &marker, "duckdb@1.5.6"));
    eprintln!("{line}");
    assert_eq!(
        line,
        format!(
            "error: --engine duckdb@1.5.6: {} is owned by uid 65534, not root: litebench loads nothing from a cache another user can change; run `chown -R root {}` or set LITEBENCH_CACHE to a directory only root can write",
            lib.display(),
            cache.display()
        )
    );
    assert_never_ran(&marker);
    // The right owner, but not the pinned library (a swapped or changed file).
    chown(&lib, Some(0), Some(0)).unwrap();
    let line = refused(&run_on(&s, &cache, &marker, "duckdb@1.5.6"));
    eprintln!("{line}");
    assert!(
        line.contains(&format!("{} has SHA-256 ", lib.display()))
            && line.contains(", not the pinned 3f4962cdd266eab2b479a5b5a4a6d063d279b2954ae814ed00385d553b747633 of DuckDB 1.5.6's library, so it is not loaded; remove ")
            && line.ends_with("and run again to fetch it anew"),
        "{line}"
    );
    assert_never_ran(&marker);
    // A symbolic link in its place, to a library outside the cache.
    std::fs::remove_file(&lib).unwrap();
    std::os::unix::fs::symlink(s.root().join("planted.so"), &lib).unwrap();
    let line = refused(&run_on(&s, &cache, &marker, "duckdb@1.5.6"));
    assert!(line.contains("is a symbolic link in the cache"), "{line}");
    assert_never_ran(&marker);
}

#[test]
fn a_cache_others_can_write_is_refused_with_the_way_out() {
    if !ready() {
        return;
    }
    let s = Sandbox::new();
    let cache = s.root().join("cache");
    let marker = s.root().join("marker");
    let release = cache.join("duckdb").join("1.5.6");
    mkdirs(s.root(), &release);
    std::fs::copy(planted_library(s.root()), release.join("libduckdb.so")).unwrap();
    std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
    let line = refused(&run_on(&s, &cache, &marker, "duckdb@1.5.6"));
    eprintln!("{line}");
    assert_eq!(
        line,
        format!(
            "error: --engine duckdb@1.5.6: {0} is writable by its group and everyone (mode 0777): litebench loads nothing from a cache another user can change; run `chmod -R go-w {0}` or set LITEBENCH_CACHE to a directory only root can write",
            cache.display()
        )
    );
    assert_never_ran(&marker);
    // A directory above the cache that anyone can write, without the sticky bit.
    std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(s.root(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let line = refused(&run_on(&s, &cache, &marker, "duckdb@1.5.6"));
    eprintln!("{line}");
    assert_eq!(
        line,
        format!(
            "error: --engine duckdb@1.5.6: {}, above the cache {}, is writable by its group and everyone without the sticky bit (mode 0777), so another user can replace the cache: set LITEBENCH_CACHE to a directory only root can write",
            s.root().display(),
            cache.display()
        )
    );
    assert_never_ran(&marker);
    std::fs::set_permissions(s.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_planted_build_record_is_neither_listed_nor_loaded() {
    if !ready() {
        return;
    }
    let s = Sandbox::new();
    let cache = s.root().join("cache");
    let marker = s.root().join("marker");
    // A build.json in root's cache naming another user's library outside it.
    let outside = planted_library(s.root());
    chown(&outside, Some(NOBODY), Some(NOBODY)).unwrap();
    let dir = cache.join("sqlite").join("aaaaaaaaaaaaaaaa");
    mkdirs(s.root(), &dir);
    let record = serde_json::json!({
        "name": "planted", "key": "a".repeat(64), "version": "3.37.2", "source": "3.37.2",
        "source_sha256": "0".repeat(64), "flags": ["-shared", "-fPIC", "-O2"], "compiler": "cc",
        "compiler_version": "gcc 12", "compile_ms": 1, "peak_compile_kib": 1, "library_bytes": 1,
        "library": outside, "built_at": "2026-01-01T00:00:00Z"
    });
    std::fs::write(dir.join("build.json"), record.to_string()).unwrap();
    let list = litebench_with(&s, &cache, &marker, &["build-sqlite", "--list"]);
    assert!(list.status.success(), "{}", stderr(&list));
    assert!(!stdout(&list).contains("planted"), "{}", stdout(&list));
    let skipped = format!(
        "skipped {}: build.json names the library {}, not the one in its own directory; not listed, not loaded",
        dir.display(),
        outside.display()
    );
    assert_eq!(stderr(&list).trim_end(), skipped);
    // (A name, not a release: `sqlite@3.37.2` would be the catalogue's release, fetched.)
    let line = refused(&run_on(&s, &cache, &marker, "sqlite@planted"));
    eprintln!("{line}");
    assert!(line.contains("no cached SQLite build named planted"), "{line}");
    assert!(line.ends_with(&skipped["skipped ".len()..]), "{line}");
    assert_never_ran(&marker);
    // The same record owned by another user is not believed either.
    chown(dir.join("build.json"), Some(NOBODY), Some(NOBODY)).unwrap();
    let list = litebench_with(&s, &cache, &marker, &["build-sqlite", "--list"]);
    assert!(
        stderr(&list).contains("build.json is owned by uid 65534, not root"),
        "{}",
        stderr(&list)
    );
    assert_never_ran(&marker);
}

#[test]
fn a_build_is_loaded_only_with_the_sha256_it_was_compiled_with() {
    if !ready() {
        return;
    }
    let s = Sandbox::new();
    let cache = s.root().join("cache");
    let marker = s.root().join("marker");
    let b = build(&s, &cache, &marker, "3.40.1", "mine");
    let library = PathBuf::from(b["library"].as_str().unwrap());
    let recorded = b["library_sha256"].as_str().unwrap().to_string();
    assert_eq!(recorded.len(), 64, "{b}");
    // The normal case: built, then run.
    let out = run_on(&s, &cache, &marker, "sqlite@mine");
    assert!(out.status.success(), "{}", stderr(&out));
    // The library changed after it was compiled (its owner and modes still right).
    let mut bytes = std::fs::read(&library).unwrap();
    bytes.extend_from_slice(b"changed");
    std::fs::write(&library, &bytes).unwrap();
    let line = refused(&run_on(&s, &cache, &marker, "sqlite@mine"));
    eprintln!("{line}");
    assert!(
        line.starts_with(&format!(
            "error: --engine sqlite@mine: {} has SHA-256 ",
            library.display()
        )) && line.contains(&format!(
            ", not the {recorded} recorded when it was compiled, so it is not loaded; remove "
        )) && line.contains("and build it again with `litebench build-sqlite "),
        "{line}"
    );
    // A record of an older litebench, with no SHA-256: not loaded unverified.
    let record = library.with_file_name("build.json");
    let mut old: serde_json::Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    old.as_object_mut().unwrap().remove("library_sha256");
    std::fs::write(&record, old.to_string()).unwrap();
    let line = refused(&run_on(&s, &cache, &marker, "sqlite@mine"));
    eprintln!("{line}");
    assert!(
        line.contains("records no SHA-256 of the library (an older litebench built it), so it is not loaded"),
        "{line}"
    );
    // `build-sqlite` of the same source compiles it anew in place of the older build (the way
    // out that line gives; before, it answered with the same refusal), and that build runs.
    let again = build(&s, &cache, &marker, "3.40.1", "mine");
    assert_eq!(again["cached"], serde_json::json!(false), "{again}");
    assert_eq!(again["library_sha256"].as_str().map(str::len), Some(64), "{again}");
    let out = run_on(&s, &cache, &marker, "sqlite@mine");
    assert!(out.status.success(), "{}", stderr(&out));
}

/// The common case: `sudo litebench` over a cache that a user's earlier `build-sqlite` filled.
#[test]
fn root_refuses_a_cache_a_user_filled_and_says_what_to_do() {
    if !ready() {
        return;
    }
    let s = Sandbox::new();
    let cache = s.root().join("cache");
    let marker = s.root().join("marker");
    build(&s, &cache, &marker, "3.40.1", "mine");
    chown_r(&cache, 1000);
    let expected = format!(
        "{0} is owned by uid 1000, not root: litebench loads nothing from a cache another user can change; run `chown -R root {0}` or set LITEBENCH_CACHE to a directory only root can write",
        cache.display()
    );
    let line = refused(&run_on(&s, &cache, &marker, "sqlite@mine"));
    eprintln!("{line}");
    assert_eq!(line, format!("error: --engine sqlite@mine: {expected}"));
    let line = refused(&litebench_with(&s, &cache, &marker, &["build-sqlite", "--list"]));
    assert_eq!(line, format!("error: build-sqlite --list: {expected}"));
    let src = s.root().join("sqlite3-3.40.1.c").display().to_string();
    let line = refused(&litebench_with(&s, &cache, &marker, &["build-sqlite", &src, "-O3"]));
    assert_eq!(line, format!("error: build-sqlite: {expected}"));
    // DuckDB is not fetched into it either.
    let line = refused(&run_on(&s, &cache, &marker, "duckdb@1.5.6"));
    assert_eq!(line, format!("error: --engine duckdb@1.5.6: {expected}"));
    assert!(!cache.join("duckdb").exists());
}
