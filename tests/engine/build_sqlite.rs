//! `litebench build-sqlite` compiles an amalgamation into the cache, measures the compile, is
//! not repeated for the same source and flags, and `--engine sqlite@NAME` runs the result.
//!
//! Sources: SQLite 3.37.2 from the npm package better-sqlite3 7.5.0, found by `old_builds`
//! (fetched by `fetch-old-sqlite.sh`), at -Os and -O3 as `reproduce apsys17` builds it, so the
//! two suites share two compiles. The cache is `$LITEBENCH_CACHE` when set (`.ci/run` points it at a
//! persistent directory, so CI compiles each library once per machine), else
//! `<target dir>/litebench-cache`. Each compile of sqlite3.c takes 25-70 s of CPU here.

use crate::engine::common::*;
use crate::engine::old_builds::{amalgamation, target_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn cache() -> PathBuf {
    std::env::var_os("LITEBENCH_CACHE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("litebench-cache"))
}

fn litebench_in(cache: &Path, args: &[&str]) -> Output {
    litebench()
        .env("LITEBENCH_CACHE", cache)
        .args(args)
        .output()
        .expect("litebench runs")
}

fn build(src: &Path, extra: &[&str]) -> Value {
    let src = src.to_str().unwrap();
    let mut args = vec!["build-sqlite", src, "--format", "json"];
    args.extend_from_slice(extra);
    let out = litebench_in(&cache(), &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON build record")
}

/// `.text`'s size as `readelf -S` (binutils) prints it.
fn readelf_text(lib: &str) -> Option<u64> {
    let out = std::process::Command::new("readelf")
        .args(["-S", "-W", lib])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let after = text
        .lines()
        .find_map(|l| l.split(" .text ").nth(1).map(str::to_string))?;
    // `PROGBITS <address> <offset> <size> ...`
    u64::from_str_radix(after.split_whitespace().nth(3)?, 16).ok()
}

fn modified(p: &str) -> std::time::SystemTime {
    std::fs::metadata(p).unwrap().modified().unwrap()
}

/// Fails with the error's one line, exit code 2, and no panic.
fn refused(cache: &Path, args: &[&str]) -> String {
    let out = litebench_in(cache, args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// SQLite 3.37.2 at -Os and -O3, the two builds `reproduce apsys17` compiles under the same
/// names: on a machine that ran one, the other finds them in the cache (CI compiles each once).
#[test]
fn a_release_at_os_and_o3_is_measured_once() {
    let src = amalgamation("3.37.2");
    let small = build(&src, &["-O", "s"]);
    let fast = build(&src, &["-O3"]);
    for (b, opt) in [(&small, "-Os"), (&fast, "-O3")] {
        assert!(b["version"].as_str().unwrap().starts_with("3."), "{b}");
        assert!(b["flags"].as_array().unwrap().iter().any(|f| f == opt), "{b}");
        let lib = b["library"].as_str().unwrap();
        assert_eq!(
            std::fs::metadata(lib).unwrap().len(),
            b["library_bytes"].as_u64().unwrap()
        );
        // `.text` as binutils reads it.
        assert_eq!(b["text_bytes"].as_u64(), readelf_text(lib), "{b}");
        // A real compile of sqlite3.c: seconds of work, and cc1 holds well over 50 MiB.
        assert!(b["compile_ms"].as_u64().unwrap() > 1000, "{b}");
        assert!(b["peak_compile_kib"].as_u64().unwrap() > 50 * 1024, "{b}");
    }
    assert_eq!(small["version"], fast["version"]);
    assert_eq!(small["source_sha256"], fast["source_sha256"]);
    assert_ne!(small["key"], fast["key"]);
    // -Os is for size: the library is smaller than at -O3 (VLDB'22 Table 3's point).
    assert!(
        small["library_bytes"].as_u64() < fast["library_bytes"].as_u64(),
        "-Os {} bytes, -O3 {} bytes",
        small["library_bytes"],
        fast["library_bytes"]
    );
    assert!(small["text_bytes"].as_u64() < fast["text_bytes"].as_u64());

    // The same source and flags again: the cached build, nothing compiled.
    let lib = small["library"].as_str().unwrap();
    let before = modified(lib);
    let again = build(&src, &["-Os"]);
    assert_eq!(again["cached"], true, "{again}");
    assert_eq!(again["key"], small["key"]);
    assert_eq!(again["compile_ms"], small["compile_ms"]);
    assert_eq!(modified(lib), before, "the library was rebuilt");

    // Both appear, side by side, in `build-sqlite --list` and `litebench list`.
    let out = litebench_in(&cache(), &["build-sqlite", "--list"]);
    let table = String::from_utf8_lossy(&out.stdout);
    for b in [&small, &fast] {
        let row = format!("sqlite@{}", b["name"].as_str().unwrap());
        assert!(table.contains(&row), "{row} missing:\n{table}");
    }
    assert!(table.contains(".text KiB"), "{table}");
    // DuckDB's row: nothing of it is compiled, so no compile figures.
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("duckdb@") && l.contains("not measured (nothing compiled)")),
        "{table}"
    );
    let out = litebench_in(&cache(), &["list", "--format", "json"]);
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = list["sqlite_builds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&small["name"].as_str().unwrap()), "{names:?}");
    assert!(names.contains(&fast["name"].as_str().unwrap()), "{names:?}");
}

#[test]
fn sqlite_3_37_2_runs_crud_beside_the_bundled_release() {
    // At -Os: the build the test above and `reproduce apsys17` make too, compiled once.
    let b = build(&amalgamation("3.37.2"), &["-Os"]);
    assert_eq!(b["version"], "3.37.2");
    assert_eq!(b["name"], "3.37.2-Os");
    // The same source named by its directory, or zipped as sqlite.org ships it: the same
    // build, from the cache.
    let source = amalgamation("3.37.2");
    let same = build(source.parent().unwrap(), &["-Os"]);
    assert_eq!((&same["key"], &same["cached"]), (&b["key"], &Value::Bool(true)));
    if require("/usr/bin/python3", "python3") && require("/usr/bin/unzip", "unzip") {
        let z = tempfile::tempdir().unwrap();
        let zip = z.path().join("sqlite-amalgamation-3370200.zip");
        let made = std::process::Command::new("python3")
            .args(["-c", "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z: z.write(sys.argv[2], 'sqlite-amalgamation-3370200/sqlite3.c')"])
            .arg(&zip)
            .arg(&source)
            .status()
            .unwrap();
        assert!(made.success());
        let zipped = build(&zip, &["-Os"]);
        assert_eq!((&zipped["key"], &zipped["cached"]), (&b["key"], &Value::Bool(true)));
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().to_str().unwrap();
    let results = t.path().join("r.db");
    let mut args = vec![
        "run",
        "crud",
        "--quiet",
        "--format",
        "json",
        "--dir",
        dir,
        "--results",
        results.to_str().unwrap(),
        "--engine",
        "sqlite@3.37.2-Os",
        "--engine",
        "sqlite",
        "--trials",
        "1",
        "--warmup",
        "0",
    ];
    args.extend_from_slice(SMALL);
    let out = litebench_in(&cache(), &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let engines = r["manifest"]["engines"].as_array().unwrap();
    assert_eq!(engines[0]["label"], "sqlite@3.37.2-Os");
    assert_eq!(engines[0]["sqlite"]["version"], "3.37.2");
    // The manifest carries the build's flags and footprint, as its record has them.
    let compiled = &engines[0]["sqlite"]["compiled"];
    assert_eq!(compiled["key"], b["key"], "{compiled}");
    assert_eq!(compiled["flags"], b["flags"]);
    assert_eq!(compiled["library_bytes"], b["library_bytes"]);
    assert!(
        compiled["text_bytes"].as_u64().is_some_and(|t| t > 100_000),
        "{compiled}"
    );
    assert_eq!(compiled["text_bytes"], b["text_bytes"]);
    assert_ne!(engines[1]["sqlite"]["version"], "3.37.2");
    assert!(engines[1]["sqlite"].get("compiled").is_none());
    for config in [0, 1] {
        assert_eq!(row(&r, config, "all")["ops_per_trial"], 300.0);
    }

    // 3.37.2 predates Bloom filters (3.38.0): bloom_filter=on is refused, naming both.
    let mut args = vec![
        "run",
        "crud",
        "--quiet",
        "--dir",
        dir,
        "--results",
        results.to_str().unwrap(),
    ];
    args.extend(["--engine", "sqlite@3.37.2-Os", "--trials", "1", "--warmup", "0"]);
    args.extend(["--knob", "bloom_filter=on"]);
    args.extend_from_slice(SMALL);
    let out = litebench_in(&cache(), &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("knob bloom_filter=on: SQLite 3.37.2 has no Bloom filters (added in 3.38.0)"),
        "{stderr}"
    );

    // 3.37.2 predates ->> and the built-in JSON functions (3.38.0) and JSONB (3.45.0), and this
    // build has no R*Tree: json and rtree are refused in one line before anything is measured.
    let refusals: [(&[&str], &str); 3] = [
        (
            &["json", "--knob", "json_storage=jsonb"],
            "json_storage=jsonb needs SQLite 3.45.0 or later (JSONB), and this build is 3.37.2",
        ),
        (&["json"], "json needs SQLite 3.38.0 or later"),
        (
            &["rtree"],
            "rtree needs an R*Tree: this build was compiled without SQLITE_ENABLE_RTREE",
        ),
    ];
    for (words, expect) in refusals {
        let mut args = vec!["run", "--quiet", "--dir", dir, "--results", results.to_str().unwrap()];
        args.extend_from_slice(words);
        args.extend(["--engine", "sqlite@3.37.2-Os", "--trials", "1", "--warmup", "0"]);
        let out = litebench_in(&cache(), &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.contains("RAM filesystem")).collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(lines[0].starts_with("error: ") && lines[0].contains(expect), "{stderr}");
        assert!(
            lines[0].contains("0 finished trials"),
            "refused before any trial: {stderr}"
        );
    }
}

#[test]
fn bad_inputs_are_refused_in_one_line() {
    // An empty cache of its own: nothing here compiles.
    let t = tempfile::tempdir().unwrap();
    let empty = t.path().join("cache");
    let e = refused(&empty, &["build-sqlite"]);
    assert!(e.contains("missing SRC"), "{e}");
    let e = refused(&empty, &["build-sqlite", "/nonexistent/sqlite3.c"]);
    assert!(e.contains("SRC /nonexistent/sqlite3.c: no such file"), "{e}");
    let not_sqlite = t.path().join("main.c");
    std::fs::write(&not_sqlite, "int main(void) { return 0; }\n").unwrap();
    let e = refused(&empty, &["build-sqlite", not_sqlite.to_str().unwrap()]);
    assert!(e.contains("not a SQLite amalgamation"), "{e}");
    let e = refused(&empty, &["build-sqlite", not_sqlite.to_str().unwrap(), "-O", "fast"]);
    assert!(e.contains("-O fast: not an optimisation level; use s, 2 or 3"), "{e}");
    let e = refused(&empty, &["build-sqlite", not_sqlite.to_str().unwrap(), "--name", "a/b"]);
    assert!(e.contains("--name \"a/b\""), "{e}");
    // No network to sqlite.org here (or no such release there): a clear refusal either way.
    let e = refused(&empty, &["build-sqlite", "3.99.0"]);
    assert!(e.contains("SRC 3.99.0") && e.contains("sqlite.org"), "{e}");
    assert!(!empty.join("sqlite").exists(), "a refused build left a build directory");
    // An unknown build: refused before anything runs, listing what is cached.
    let scratch = t.path().join("scratch");
    let results = t.path().join("r.db");
    let run = |engine: &str| {
        let (dir, results) = (scratch.to_str().unwrap(), results.to_str().unwrap());
        refused(
            &empty,
            &[
                "run",
                "crud",
                "--quiet",
                "--dir",
                dir,
                "--results",
                results,
                "--engine",
                engine,
            ],
        )
    };
    let e = run("sqlite@nope");
    assert!(
        e.contains("--engine sqlite@nope: no cached SQLite build named nope") && e.contains("cached builds: none"),
        "{e}"
    );
    let e = run("sqlite:@nope");
    assert!(e.contains("write sqlite@NAME"), "{e}");
}

/// libSQL (Turso's fork of SQLite) from the crate libsql-ffi 0.10.0, named as `build-sqlite`
/// takes it: the archive cargo fetched (`fetch-old-sqlite.sh`), checked against its pin,
/// compiled like any amalgamation, and run on crud beside the bundled SQLite with knobs read
/// back and syncs counted by the VFS shim.
#[test]
fn libsql_builds_from_its_crate_and_runs_crud_beside_the_bundled_release() {
    // Fetched once per machine (in CI by .ci/run): the crate's archive is in cargo's cache.
    let source = amalgamation("libsql-0.10.0");
    let b = build(Path::new("libsql@0.10.0"), &[]);
    assert_eq!(b["name"], "libsql-0.10.0", "{b}");
    assert_eq!(b["version"], "3.47.0");
    assert_eq!(b["libsql_version"], "0.2.3");
    assert_eq!(b["source"], "libsql@0.10.0");
    let bytes = std::fs::read(&source).unwrap();
    let sha = {
        use sha2::Digest;
        sha2::Sha256::digest(&bytes)
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<String>()
    };
    assert_eq!(b["source_sha256"], sha.as_str(), "not the crate's sqlite3.c");

    let t = tempfile::tempdir().unwrap();
    let dir = t.path().to_str().unwrap();
    let results = t.path().join("r.db");
    let mut args = vec![
        "run",
        "crud",
        "--quiet",
        "--format",
        "json",
        "--dir",
        dir,
        "--results",
        results.to_str().unwrap(),
        "--engine",
        "sqlite@libsql-0.10.0",
        "--engine",
        "sqlite",
        "--knob",
        "journal_mode=wal",
        "--knob",
        "synchronous=full",
        "--trials",
        "1",
        "--warmup",
        "0",
    ];
    args.extend_from_slice(SMALL);
    let out = litebench_in(&cache(), &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let engines = r["manifest"]["engines"].as_array().unwrap();
    assert_eq!(engines[0]["label"], "sqlite@libsql-0.10.0");
    // The loaded library says what it is: sqlite_version() and libsql_libversion().
    assert_eq!(engines[0]["sqlite"]["version"], "3.47.0");
    assert_eq!(engines[0]["sqlite"]["libsql_version"], "0.2.3");
    assert_eq!(engines[0]["sqlite"]["compiled"]["key"], b["key"]);
    assert!(engines[1]["sqlite"].get("libsql_version").is_none(), "{}", engines[1]);
    for config in [0u64, 1] {
        let trial = r["trials"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["config"] == config)
            .unwrap();
        let effective = |name: &str| {
            trial["knobs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|k| k["name"] == name)
                .map(|k| k["effective"].clone())
                .unwrap_or_else(|| panic!("no knob {name}"))
        };
        assert_eq!(effective("journal_mode"), "wal", "config {config}");
        assert_eq!(effective("synchronous"), "full", "config {config}");
        let all = row(&r, config, "all");
        assert_eq!(all["ops_per_trial"], 300.0);
        assert_eq!(all["io_counted"], true, "config {config}");
        // WAL with synchronous=full: every commit syncs the WAL.
        let syncs = all["syncs_per_tx"].as_f64().unwrap();
        assert!((1.0..2.0).contains(&syncs), "config {config}: {syncs} syncs per tx");
    }
}

/// `verify-durability` on libSQL: its crash states give the verdicts SQLite's documentation
/// gives (and the bundled SQLite's): WAL with `synchronous=FULL` durable, `synchronous=OFF` may
/// corrupt on a power loss, DELETE with FULL may lose the last acknowledged commit, a process
/// crash loses nothing. Small (2 transactions, 500 states per configuration: about 10 s here).
#[test]
fn libsql_verifies_durability_as_sqlites_documentation_says() {
    let _source = amalgamation("libsql-0.10.0");
    build(Path::new("libsql@0.10.0"), &[]);
    let t = tempfile::tempdir().unwrap();
    let results = t.path().join("r.db");
    let out = litebench_in(
        &cache(),
        &[
            "verify-durability",
            "--engine",
            "sqlite@libsql-0.10.0",
            "--journal-mode",
            "wal,delete",
            "--synchronous",
            "full,off",
            "--transactions",
            "2",
            "--states",
            "500",
            "--format",
            "json",
            "--dir",
            t.path().to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["engine"], "sqlite@libsql-0.10.0");
    assert_eq!(v["sqlite_version"], "3.47.0");
    let verdicts: Vec<String> = v["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert!(c["states"].as_u64().unwrap() > 0, "{c}");
            assert_eq!(c["agrees"], true, "{c}");
            format!(
                "{}/{} {}: {}",
                c["config"]["journal_mode"].as_str().unwrap(),
                c["config"]["synchronous"].as_str().unwrap(),
                c["crash"].as_str().unwrap(),
                c["verdict"]["verdict"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            "wal/full power: durable",
            "wal/full process: durable",
            "wal/off power: may-corrupt",
            "wal/off process: durable",
            "delete/full power: may-lose",
            "delete/full process: durable",
            "delete/off power: may-corrupt",
            "delete/off process: durable",
        ]
    );
}

/// A release only the Go module proxy gives whole (3.15.1, go-sqlite3 v1.2.0): fetched from the
/// proxy, checked (archive SHA-256, file SHA3-256), stripped of go-sqlite3's wrapper, compiled
/// with `HAVE_USLEEP`, and its record says where it came from. Once per machine: the source and
/// the build stay in the persistent cache.
#[test]
fn a_release_from_the_go_proxy_is_fetched_checked_and_built_with_its_origin() {
    let out = litebench_in(&cache(), &["build-sqlite", "3.15.1", "-O", "s", "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let b: Value = serde_json::from_slice(&out.stdout).expect("JSON build record");
    assert_eq!(b["version"], "3.15.1", "{b}");
    assert_eq!(b["origin"], "Go proxy github.com/mattn/go-sqlite3@v1.2.0", "{b}");
    assert_eq!(b["pristine"], true, "{b}");
    assert!(
        b["flags"].as_array().unwrap().iter().any(|f| f == "-DHAVE_USLEEP=1"),
        "{b}"
    );
    let src = cache().join("sqlite-sources/3.15.1/sqlite3.c");
    let text = std::fs::read(&src).unwrap();
    assert!(!text.starts_with(b"#ifndef USE_LIBSQLITE3"), "the wrapper was stripped");
    let listed = litebench_in(&cache(), &["list", "sqlite-releases"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    let row = listed.lines().find(|l| l.starts_with("3.15.1 ")).expect("a 3.15.1 row");
    assert!(
        row.contains("go-sqlite3@v1.2.0") && row.contains("pristine") && row.ends_with("yes"),
        "{row}"
    );
}
