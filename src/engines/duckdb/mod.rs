//! DuckDB: its descriptor and knobs, and the engine itself over a `libduckdb.so` loaded at run
//! time (nothing of DuckDB is compiled into litebench: see `api.rs` for why).
//!
//! `--engine duckdb` opens the default pinned release, `duckdb@VERSION` another pinned one
//! (each fetched once from npm into litebench's cache, `release.rs`), `duckdb:<path>` any
//! `libduckdb.so`.

pub mod api;
pub mod conn;
pub mod engine;
pub mod release;
pub mod result;

pub use engine::DuckEngine;

use super::kind::{EngineKind, Runs, TargetSpec};
use super::{Dialect, Engine};
use crate::base::Failure;
use crate::model::knob::{KnobKind, KnobSpec, ReadBy, Stage};
use crate::sys::scratch::Scratch;
use crate::sys::trusted::Checked;
use std::path::PathBuf;

/// Pass-through prefix: `--knob set.NAME=VALUE` issues `SET NAME = 'VALUE'`.
pub const PREFIX: &str = "set.";

/// DuckDB's knobs. `threads` defaults to 1 in litebench (the paper's setting), not DuckDB's
/// one-per-core.
pub const DUCKDB_KNOBS: &[KnobSpec] = &[
    KnobSpec {
        name: "threads",
        kind: KnobKind::Int { min: 1, max: 1024 },
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "1 (litebench; DuckDB's own default is one per core)",
        help: "worker threads",
    },
    KnobSpec {
        name: "memory_limit",
        kind: KnobKind::Bytes { min: 1 << 20 },
        stage: Stage::Connect,
        read_by: ReadBy::Engine,
        default: "80% of RAM",
        help: "memory DuckDB may use (the VLDB'22 paper gave both engines 1 GB)",
    },
];

/// DuckDB's descriptor.
pub static KIND: EngineKind = EngineKind {
    name: "duckdb",
    aliases: &[],
    about: "embedded DuckDB, loaded at run time, one thread by default",
    target: Some(TargetSpec {
        separator: ':',
        what: "library path",
        example: "duckdb:/opt/duckdb/libduckdb.so (any DuckDB 1.2.0 or newer)",
        without: "DuckDB 1.5.6, fetched once from npm into the cache",
    }),
    dialect: Some(Dialect::Duckdb),
    knobs: DUCKDB_KNOBS,
    passthrough: PREFIX,
    io_counted: false,
    durability_knobs: &[],
    in_memory: false,
    files_in_scratch: true,
    file_knobs: &[],
    workloads: Runs::AllSql,
    open,
};

/// How an `--engine` target names a pinned release: `duckdb@VERSION` is parsed into the
/// target `@VERSION`.
pub const RELEASE_PREFIX: &str = "@";

/// The library a target names, opened and checked ([`crate::sys::trusted`]), the engine's
/// label and where it came from; a pinned release is fetched into the cache first if it is not
/// there (`note` is told before a download).
pub fn resolve(target: Option<&str>, note: &dyn Fn(&str)) -> Result<(Checked, String, engine::Origin), Failure> {
    let version = match target {
        None => release::DEFAULT,
        Some(t) => match t.strip_prefix(RELEASE_PREFIX) {
            Some(v) => v,
            None => {
                let label = format!("duckdb:{t}");
                let file = api::Api::open_path(std::path::Path::new(t), &label)?;
                return Ok((file, label, engine::Origin::Path));
            }
        },
    };
    let r = release::find(version)?;
    let cache = crate::sys::cachedir::root().map_err(|e| Failure(format!("--engine duckdb@{version}: {e}")))?;
    let library = r.ensure(&cache, note)?;
    let label = match target {
        None => "duckdb".to_string(),
        Some(_) => format!("duckdb@{}", r.version),
    };
    Ok((library, label, engine::Origin::Release(r)))
}

fn open(target: Option<&str>, _scratch: &Scratch, _memory: bool) -> Result<Box<dyn Engine>, Failure> {
    let (file, label, origin) = resolve(target, &|line| crate::errln!("{line}"))?;
    let library = file.path().to_path_buf();
    let spec = label.clone();
    // A release that needs a library first says so; so does a Python module by its file name.
    let needs = match &origin {
        engine::Origin::Release(r) => r.needs.map(|n| (n.library.to_string(), n.debian.to_string())),
        engine::Origin::Path => api::python_needs(&library),
    };
    let api = api::Api::load(file, &spec, needs.as_ref().map(|(l, d)| (l.as_str(), d.as_str())))?;
    if let engine::Origin::Release(r) = origin {
        let stated = api.version();
        if api::version_triple(&stated) != api::version_triple(r.version) {
            return Err(Failure(format!(
                "--engine {spec}: {} states DuckDB {stated}, not {}; delete it and run again to fetch it anew",
                library.display(),
                r.version
            )));
        }
    }
    Ok(Box::new(DuckEngine::open(label, api, library, origin)?))
}

/// The cached library of the default release, if it has been fetched: the library file whose
/// size stands for DuckDB's footprint (VLDB'22 Table 3).
pub fn default_library() -> Option<(PathBuf, u64)> {
    let r = release::find(release::DEFAULT).ok()?;
    let lib = r.library(&crate::sys::cachedir::root().ok()?);
    let bytes = std::fs::metadata(&lib).ok()?.len();
    Some((lib, bytes))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_descriptor_names_the_default_release() {
        let t = super::KIND.target.unwrap();
        assert!(
            t.without.contains(&format!("DuckDB {},", super::release::DEFAULT)),
            "{}",
            t.without
        );
        assert!(t.example.contains(&format!(
            "DuckDB {}.{}.{} or newer",
            super::api::MIN_VERSION.0,
            super::api::MIN_VERSION.1,
            super::api::MIN_VERSION.2
        )));
    }
}
