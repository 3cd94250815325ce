//! litebench's persistent cache directory: `$LITEBENCH_CACHE`, else `$XDG_CACHE_HOME/litebench`,
//! else `~/.cache/litebench`.
//!
//! What is expensive to make and the same every time lives there, once per machine, like
//! cargo's target directory: SQLite libraries `build-sqlite` compiled, and DuckDB libraries
//! fetched from a package registry. One function decides where, so every user of the cache
//! agrees (and `.ci/run` can point all of them at a persistent directory with one variable).

use std::path::PathBuf;

/// Environment variable naming the cache directory.
pub const ENV_VAR: &str = "LITEBENCH_CACHE";

/// The cache directory the environment names; `Err` (one line) when it names none.
pub fn root() -> Result<PathBuf, String> {
    let var = |n: &str| std::env::var_os(n).filter(|v| !v.is_empty()).map(PathBuf::from);
    var(ENV_VAR)
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("litebench")))
        .or_else(|| var("HOME").map(|h| h.join(".cache").join("litebench")))
        .ok_or_else(|| format!("no cache directory: set {ENV_VAR} (or HOME)"))
}
