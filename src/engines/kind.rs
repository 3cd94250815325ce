//! The descriptor of an engine kind: everything litebench knows about `sqlite`, `postgres`,
//! `mysql` or `duckdb` without opening one.
//!
//! Each engine module declares one [`EngineKind`]; the registry is the list of them. Every
//! other module asks the descriptor (which knobs, which prefix passes settings through, whether
//! the VFS counts its I/O, which settings decide its durability, whether it runs in memory and
//! which workloads it can run) instead of matching on engine names, so adding an engine is one
//! module and one registry line.

use super::{Dialect, Engine};
use crate::base::Failure;
use crate::model::knob::KnobSpec;
use crate::sys::scratch::Scratch;

/// What follows an engine's name on the command line: `sqlite:/path/lib.so`, `postgres=URL`.
#[derive(Debug, Clone, Copy)]
pub struct TargetSpec {
    /// `:` or `=`.
    pub separator: char,
    /// `library path`, `server URL`.
    pub what: &'static str,
    pub example: &'static str,
    /// What the name alone opens (`the bundled SQLite`, `a throwaway server`).
    pub without: &'static str,
}

/// Which workloads an engine can run.
#[derive(Debug, Clone, Copy)]
pub enum Runs {
    /// Every SQL workload.
    AllSql,
    /// Only these (an engine without SQL runs only the workloads written for it).
    Only(&'static [&'static str]),
}

/// How an engine is opened: the text after the separator (if any), the run's scratch
/// directory, and whether databases live in memory.
pub type Opener = fn(Option<&str>, &Scratch, bool) -> Result<Box<dyn Engine>, Failure>;

/// One engine kind.
pub struct EngineKind {
    /// `--engine` name, and the `kind` stored in a run's manifest.
    pub name: &'static str,
    /// Other spellings (`mariadb` for `mysql`).
    pub aliases: &'static [&'static str],
    /// One line for `litebench list`.
    pub about: &'static str,
    pub target: Option<TargetSpec>,
    /// The SQL it speaks; `None` for an engine without SQL (`files`).
    pub dialect: Option<Dialect>,
    pub knobs: &'static [KnobSpec],
    /// Prefix that passes any other setting through (`pragma.`, `set.`).
    pub passthrough: &'static str,
    /// Whether litebench's VFS shim counts this engine's syncs, reads and writes.
    pub io_counted: bool,
    /// Knobs that decide what a commit survives, shown in the reporting checklist.
    pub durability_knobs: &'static [&'static str],
    /// Whether `--memory` works.
    pub in_memory: bool,
    /// Whether its databases are files it creates where litebench says (the scratch directory,
    /// or a `--fs` filesystem); a server keeps its data in its own data directory.
    pub files_in_scratch: bool,
    /// Knobs whose setting is written into the database file and outlives the connection
    /// (SQLite's `journal_mode=wal`): a configuration that sets one never runs on a shared
    /// template, even for a workload that only reads.
    pub file_knobs: &'static [&'static str],
    pub workloads: Runs,
    pub open: Opener,
}

impl std::fmt::Debug for EngineKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineKind")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl EngineKind {
    /// Whether it can run workload `name`.
    pub fn runs(&self, workload: &str) -> bool {
        match self.workloads {
            Runs::AllSql => true,
            Runs::Only(list) => list.contains(&workload),
        }
    }

    /// Whether `s` names this kind: its name or an alias, alone or followed by its separator.
    /// Returns the text after the separator (`Some("")` when it is empty).
    pub fn matches<'s>(&self, s: &'s str) -> Option<Option<&'s str>> {
        for n in std::iter::once(&self.name).chain(self.aliases) {
            if s == *n {
                return Some(None);
            }
            if let Some(t) = self.target {
                if let Some(rest) = s.strip_prefix(n).and_then(|r| r.strip_prefix(t.separator)) {
                    return Some(Some(rest));
                }
            }
        }
        None
    }
}
