//! SQLite: the bundled build, builds loaded at run time, and the I/O-counting VFS.

pub mod api;
pub mod authorizer;
mod backup;
pub mod blob;
pub mod build;
pub mod busy;
pub mod compiled;
pub mod conn;
pub mod engine;
pub mod extension;
pub mod fts5;
pub mod guard;
pub mod knobs;
pub mod optimizer;
pub mod plan;
pub mod scanstatus;
pub mod speed_check;
pub mod vfs;

use super::kind::{EngineKind, Runs, TargetSpec};
use super::{Dialect, Engine};
use crate::base::Failure;
use crate::sys::scratch::Scratch;
use engine::{SqliteChoice, SqliteEngine};

/// SQLite's descriptor.
pub static KIND: EngineKind = EngineKind {
    name: "sqlite",
    aliases: &[],
    about: "pinned version; flags in docs/sqlite-build.md",
    target: Some(TargetSpec {
        separator: ':',
        what: "library path",
        example: "sqlite:/usr/lib/x86_64-linux-gnu/libsqlite3.so.0 (another SQLite build, loaded at run time)",
        without: "the bundled SQLite",
    }),
    dialect: Some(Dialect::Sqlite),
    knobs: knobs::SQLITE_KNOBS,
    passthrough: knobs::PASSTHROUGH_PREFIX,
    io_counted: true,
    durability_knobs: &["journal_mode", "synchronous"],
    in_memory: true,
    files_in_scratch: true,
    file_knobs: &["journal_mode"],
    workloads: Runs::AllSql,
    open,
};

/// How an `--engine` target names a build from `litebench build-sqlite`: `sqlite@NAME` is
/// parsed into the target `@NAME`.
pub const COMPILED_PREFIX: &str = "@";

fn open(target: Option<&str>, _scratch: &Scratch, memory: bool) -> Result<Box<dyn Engine>, Failure> {
    open_target(target, memory)
}

/// The SQLite an `--engine` target names (none: the bundled one), opened as the registry opens
/// it: for a client process (`--client-mode processes`), which has no scratch directory.
pub fn open_target(target: Option<&str>, memory: bool) -> Result<Box<dyn Engine>, Failure> {
    let choice = match target {
        None => SqliteChoice::Bundled,
        Some(t) => match t.strip_prefix(COMPILED_PREFIX) {
            Some(name) => match compiled_build(name)? {
                (build, true) => SqliteChoice::SpeedCheck(Box::new(build)),
                (build, false) => SqliteChoice::Compiled(Box::new(build)),
            },
            None => SqliteChoice::Library(t.into()),
        },
    };
    Ok(Box::new(SqliteEngine::open(&choice, memory)?))
}

/// The build `sqlite@NAME` means: a release selection's build (made when missing, saying so),
/// else the cached build of that name; and whether it is a speed-check build (`-speed-check`).
fn compiled_build(name: &str) -> Result<(compiled::CompiledBuild, bool), Failure> {
    let cache = compiled::BuildCache::from_env()?;
    match compiled::selection::parse(name, Some(&cache)) {
        Some(selection) => match selection?.specs.as_slice() {
            [one] => Ok((one.ensure(&cache, &|line| crate::errln!("{line}"))?, one.speed_check)),
            _ => Err(Failure(format!(
                "--engine sqlite@{name}: several releases; a range is expanded by `run` and `history`, so name one release here"
            ))),
        },
        None => Ok((cache.find(name)?, false)),
    }
}
