//! `--knob extension=...`: a loadable SQLite extension loaded into every trial connection,
//! recorded in the manifest with its SHA-256 and what it says of itself, and refused in one line
//! (exit 2, nothing measured) where it cannot load. The pinned wheels come from the cache
//! (`tests/engine/fetch-sqlite-extensions.sh`, run by `.ci/run`): the tests fetch nothing.

use crate::cli::common::*;
use crate::support::in_ci;
use litebench::engines::sqlite::extension::{Pinned, PINNED};

/// Skips (locally) or fails (in CI) when the pinned extension is not in litebench's cache.
pub fn require_extension(p: &Pinned) -> bool {
    let cached = litebench::sys::cachedir::root().is_ok_and(|root| p.library(&root).is_file());
    if cached {
        return true;
    }
    assert!(
        !in_ci(),
        "{}@{} is not in litebench's cache: .ci/run must run tests/engine/fetch-sqlite-extensions.sh \"$LITEBENCH_CACHE\" before the tests",
        p.name,
        p.version
    );
    eprintln!(
        "skipping: {}@{} not in litebench's cache (bash tests/engine/fetch-sqlite-extensions.sh \"${{LITEBENCH_CACHE:-$HOME/.cache/litebench}}\")",
        p.name, p.version
    );
    false
}

pub const SQLITE_VEC: &Pinned = &PINNED[0];

#[test]
fn an_engine_that_is_not_sqlite_is_refused_naming_the_engines_that_load_extensions() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run_tiny(&["crud", "--engine", "duckdb", "--knob", "extension=sqlite-vec@0.1.9"]));
    assert_run_error_line(
        &out,
        &[
            "error: --knob extension=sqlite-vec@0.1.9: only SQLite loads extensions",
            "--engine sqlite, sqlite@RELEASE or sqlite:PATH",
            "not duckdb",
        ],
    );
}

#[test]
fn an_unknown_pinned_extension_is_refused_naming_the_pinned_ones() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run_tiny(&["crud", "--knob", "extension=sqlite-vec@0.0.1"]));
    assert_run_error_line(
        &out,
        &[
            "error: --knob extension=sqlite-vec@0.0.1: no such pinned extension",
            "pinned: sqlite-vec@0.1.9, vectorlite@0.2.0",
        ],
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
}

/// A shared library that is no SQLite extension: SQLite's own error, naming the file and the
/// entry point it looked for.
#[test]
fn a_library_without_an_entry_point_is_refused_with_sqlites_error() {
    let lib = "/usr/lib/x86_64-linux-gnu/libm.so.6";
    if !crate::support::require(lib, "libc6") {
        return;
    }
    let sb = Sandbox::new();
    let knob = format!("extension={lib}");
    let out = output(&mut sb.run_tiny(&["crud", "--knob", &knob]));
    assert_run_error_line(
        &out,
        &[
            &format!("error: --knob {knob}: SQLite could not load {lib}"),
            "undefined symbol: sqlite3_m_init",
        ],
    );
}

/// A library another user could have written is never loaded.
#[test]
fn a_library_others_can_write_is_refused_before_it_is_loaded() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let lib = sb.cwd().join("libevil.so");
    std::fs::write(&lib, b"\x7fELF not really").unwrap();
    std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o666)).unwrap();
    let knob = format!("extension={}", lib.display());
    let out = output(&mut sb.run_tiny(&["crud", "--knob", &knob]));
    assert_run_error_line(&out, &[&format!("error: --knob {knob}: "), "writable"]);
}

#[test]
fn sqlite_vec_is_loaded_and_its_version_sha_and_self_report_are_in_the_stored_manifest() {
    if !require_extension(SQLITE_VEC) {
        return;
    }
    let sb = Sandbox::new();
    let out = output(&mut sb.run_tiny(&["crud", "--knob", "extension=sqlite-vec@0.1.9"]));
    assert_success(&out);
    let v = sb.show_json();
    let ext = &v["manifest"]["configs"][0]["extension"];
    assert_eq!(ext["name"], "sqlite-vec", "{ext:#}");
    assert_eq!(ext["version"], "0.1.9");
    assert_eq!(ext["sha256"], SQLITE_VEC.library_sha256);
    assert_eq!(ext["entry"], "sqlite3_vec_init");
    assert_eq!(ext["reports"], "v0.1.9", "vec_version() as the library answered it");
    let reading = v["trials"][0]["knobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"] == "extension")
        .cloned()
        .unwrap();
    assert_eq!(reading["requested"], "sqlite-vec@0.1.9");
    assert_eq!(reading["effective"], "sqlite-vec@0.1.9");
}
