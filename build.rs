//! Records DuckDB's footprint for VLDB'22 Table 3 when the `duckdb` feature is built.
//!
//! Cargo compiles DuckDB in libduckdb-sys's build script, which no litebench code times. That
//! script's own files do: cargo writes `invoked.timestamp` when it starts the script, and the
//! script's last product is the static archive `out/libduckdb.a`. Their modification times
//! bound the compile's wall time, and the archive's size is the library's. This script (which
//! cargo runs after libduckdb-sys's, because that crate `links = "duckdb"`) finds that build
//! directory beside its own and hands the figures to the binary as `LITEBENCH_DUCKDB_BUILD`
//! (`seconds bytes`); without the feature, or when they cannot be found, the variable is empty
//! and the table says unknown.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

fn mtime(p: &Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// libduckdb-sys's build directories beside ours, newest archive first.
fn duckdb_build() -> Option<(f64, u64)> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR")?);
    // OUT_DIR is target/<profile>/build/litebench-HASH/out.
    let build = out.parent()?.parent()?;
    let mut found: Vec<(SystemTime, f64, u64)> = std::fs::read_dir(build)
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("libduckdb-sys-"))
        .filter_map(|e| {
            let archive = e.path().join("out/libduckdb.a");
            let start = mtime(&e.path().join("invoked.timestamp"))?;
            let end = mtime(&archive)?;
            let seconds = end.duration_since(start).ok()?.as_secs_f64();
            let bytes = std::fs::metadata(&archive).ok()?.len();
            Some((end, seconds, bytes))
        })
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    found.first().map(|&(_, s, b)| (s, b))
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=DEP_DUCKDB_INCLUDE");
    let value = if std::env::var_os("CARGO_FEATURE_DUCKDB").is_some() {
        duckdb_build().map_or(String::new(), |(s, b)| format!("{s:.0} {b}"))
    } else {
        String::new()
    };
    println!("cargo:rustc-env=LITEBENCH_DUCKDB_BUILD={value}");
}
