//! SQLite libraries litebench compiles itself (`litebench build-sqlite`), so that a release or a
//! set of compile flags is one more thing a run compares (`--engine sqlite@NAME`).
//!
//! Why litebench compiles instead of asking for a `.so`: the build's footprint (compile time,
//! peak compile memory, library size: VLDB'22 Table 3) is only known to whoever ran the
//! compiler, and a run's manifest should say exactly which flags and compiler made the library
//! it measured. Builds are cached by what determines them (source, flags, compiler), so a
//! machine compiles each one once.
//!
//! - [`source`]: from what the user named (an amalgamation, a directory or zip holding one, a
//!   version number) to one `sqlite3.c` on disk and its SQLite version;
//! - [`crates`]: forks of SQLite (libSQL) fetched from the Rust crate registry, pinned by
//!   SHA-256 (`build-sqlite libsql@0.10.0`);
//! - [`fetch`]: a catalogued release's `sqlite3.c` from its best registry archive, checked by
//!   SHA-256 (archive) and SHA3-256 (file);
//! - [`releases`]: SQLite's releases, their dates and published checksums, and the registry
//!   archives that carry each;
//! - [`selection`]: `sqlite@3.20..3.54`, `sqlite@all`, `sqlite@3.45.1-Os`: releases chosen from
//!   the catalogue, their builds found by release and flags or made;
//! - [`compiler`]: running `cc` and measuring it;
//! - [`cache`]: where builds live, their records, and finding one by name.

pub mod cache;
pub mod compiler;
pub mod crates;
pub mod fetch;
pub mod releases;
pub mod selection;
pub mod source;

pub use crate::model::engine_info::CompiledBuild;
pub use cache::BuildCache;

/// Why a build could not be made or found. Each message is one line naming the input and the fix.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("{0}")]
    Input(String),
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Compile(String),
    #[error("{0}")]
    Download(String),
    /// The cache (or something in it) another user could change.
    #[error(transparent)]
    Untrusted(#[from] crate::sys::trusted::TrustError),
}

impl BuildError {
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BuildError {
        let what = what.into();
        move |source| BuildError::Io { what, source }
    }
}

/// SHA-256 of `bytes` as lowercase hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}
