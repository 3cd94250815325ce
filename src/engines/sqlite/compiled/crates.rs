//! Forks of SQLite whose amalgamation a crate on the Rust crate registry bundles, for
//! `build-sqlite FORK@VERSION` (`libsql@0.10.0`).
//!
//! libSQL (Turso's fork of SQLite) keeps SQLite's C API, so its amalgamation compiles and loads
//! like any other, and every SQLite workload, knob and I/O count applies to it. Its
//! amalgamation is not published apart from the `libsql-ffi` crate, which bundles it as
//! `bundled/src/sqlite3.c`; the crate registry is reachable where sqlite.org often is not. Each
//! entry below names the crate version, where the amalgamation sits in the `.crate` archive,
//! the archive's SHA-256 (the `cksum` crates.io's index gives, and cargo checks), checked here
//! before anything is unpacked, and the SQLite and fork releases the file must declare.
//!
//! The archive is taken from cargo's own download cache when `cargo fetch` already put it
//! there (how CI fetches it, once per machine: `tests/engine/fetch-old-sqlite.sh`), else
//! downloaded from crates.io with curl.

use super::BuildError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fork release some crate bundles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pinned {
    /// What `build-sqlite` takes: `fork@crate version`.
    pub spec: &'static str,
    /// The build's default name (`--engine sqlite@NAME`).
    pub name: &'static str,
    /// The crate and its version on crates.io.
    pub krate: &'static str,
    pub version: &'static str,
    /// SHA-256 of the `.crate` archive (a gzipped tarball).
    pub sha256: &'static str,
    /// `sqlite3.c` in the archive.
    pub member: &'static str,
    /// The SQLite release it declares (`#define SQLITE_VERSION`).
    pub sqlite: &'static str,
    /// The fork's own version define and value (`#define LIBSQL_VERSION "0.2.3"`).
    pub fork_define: &'static str,
    pub fork_version: &'static str,
}

/// The fork releases litebench can fetch from crates.io.
pub const PINNED: &[Pinned] = &[
    // libsql-ffi 0.10.0 bundles libSQL 0.2.3 on SQLite 3.47.0.
    Pinned {
        spec: "libsql@0.10.0",
        name: "libsql-0.10.0",
        krate: "libsql-ffi",
        version: "0.10.0",
        sha256: "f232292810b6298d17466b59bf8077d075fb016d89c281ca9dc968ea4a3b9d03",
        member: "libsql-ffi-0.10.0/bundled/src/sqlite3.c",
        sqlite: "3.47.0",
        fork_define: "LIBSQL_VERSION",
        fork_version: "0.2.3",
    },
];

/// The pinned entry `src` names, `None` when `src` is no `fork@version` of a known fork, or
/// the one-line refusal when the fork is known but that version is not pinned.
pub fn pinned(src: &str) -> Result<Option<&'static Pinned>, BuildError> {
    let Some((fork, _)) = src.split_once('@') else {
        return Ok(None);
    };
    if let Some(p) = PINNED.iter().find(|p| p.spec == src) {
        return Ok(Some(p));
    }
    let known: Vec<&str> = PINNED
        .iter()
        .filter(|p| p.spec.split_once('@').is_some_and(|(f, _)| f == fork))
        .map(|p| p.spec)
        .collect();
    if known.is_empty() {
        return Ok(None);
    }
    Err(BuildError::Input(format!(
        "SRC {src}: not a pinned {fork} release; litebench fetches {} (or pass the sqlite3.c of that release)",
        known.join(", ")
    )))
}

/// `sqlite3.c` of `p` in `sources/<name>/`: extracted before, else from the `.crate` archive
/// (cargo's cache, else crates.io), checked against the pin first.
pub fn fetch(p: &Pinned, sources: &Path) -> Result<PathBuf, BuildError> {
    let dir = sources.join(p.name);
    let out = dir.join("sqlite3.c");
    if out.is_file() {
        return Ok(out);
    }
    if let Some(archive) = in_cargo_cache(p) {
        return extract(p, &archive, &dir);
    }
    let made = crate::base::outfile::NewDirs::create(&dir).map_err(BuildError::io(dir.display().to_string()))?;
    let url = format!("https://static.crates.io/crates/{0}/{0}-{1}.crate", p.krate, p.version);
    let part = dir.join(format!(".{}-{}.{}.crate", p.krate, p.version, std::process::id()));
    let got = Command::new("curl")
        .args(["-fsSL", "--connect-timeout", "15", "--max-time", "300", "-o"])
        .arg(&part)
        .arg(&url)
        .output()
        .map_err(|e| {
            BuildError::Download(format!(
                "SRC {}: cannot run curl to fetch {url} ({e}); install curl",
                p.spec
            ))
        });
    let result = got.and_then(|got| {
        if got.status.success() {
            extract(p, &part, &dir)
        } else {
            Err(BuildError::Download(format!(
                "SRC {}: cannot download {url} ({}); or run `cargo fetch` on a manifest depending on {} = \"={}\"",
                p.spec,
                String::from_utf8_lossy(&got.stderr).trim().replace('\n', " "),
                p.krate,
                p.version
            )))
        }
    });
    let _ = std::fs::remove_file(&part);
    if result.is_err() {
        made.remove_empty();
    }
    result
}

/// The `.crate` cargo downloaded into `$CARGO_HOME/registry/cache/<registry>/`, if any.
fn in_cargo_cache(p: &Pinned) -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    let file = format!("{}-{}.crate", p.krate, p.version);
    let mut found: Vec<PathBuf> = std::fs::read_dir(home.join("registry").join("cache"))
        .ok()?
        .flatten()
        .map(|e| e.path().join(&file))
        .filter(|f| f.is_file())
        .collect();
    found.sort();
    found.into_iter().next()
}

/// Checks the archive against the pin, then unpacks its `sqlite3.c` into `dir`, which must
/// declare the pinned SQLite and fork releases.
fn extract(p: &Pinned, archive: &Path, dir: &Path) -> Result<PathBuf, BuildError> {
    let bytes = std::fs::read(archive).map_err(BuildError::io(archive.display().to_string()))?;
    let sum = super::sha256_hex(&bytes);
    if sum != p.sha256 {
        return Err(BuildError::Download(format!(
            "SRC {}: crate {} {} ({}) has SHA-256 {sum}, not the pinned {}; not using it",
            p.spec,
            p.krate,
            p.version,
            archive.display(),
            p.sha256
        )));
    }
    let content = super::fetch::tar_member(&bytes, p.member)?;
    let sqlite = super::source::declared_version(&content);
    let fork = super::source::declared(&content, p.fork_define);
    if sqlite.as_deref() != Some(p.sqlite) || fork.as_deref() != Some(p.fork_version) {
        return Err(BuildError::Download(format!(
            "SRC {}: {} in crate {} {} declares SQLite {} and {} {}, not {} and {}",
            p.spec,
            p.member,
            p.krate,
            p.version,
            sqlite.as_deref().unwrap_or("none"),
            p.fork_define,
            fork.as_deref().unwrap_or("none"),
            p.sqlite,
            p.fork_version
        )));
    }
    let out = dir.join("sqlite3.c");
    super::source::write_new(dir, &out, &content)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_are_unique_with_sha256s() {
        for (i, p) in PINNED.iter().enumerate() {
            assert!(PINNED[..i].iter().all(|q| q.spec != p.spec && q.name != p.name));
            assert_eq!(p.sha256.len(), 64, "{}", p.spec);
            assert!(p.sha256.bytes().all(|b| b.is_ascii_hexdigit()));
            assert!(p.member.starts_with(&format!("{}-{}/", p.krate, p.version)));
            assert!(p.member.ends_with("/sqlite3.c"), "{}", p.member);
        }
        assert_eq!(pinned("libsql@0.10.0").unwrap().map(|p| p.name), Some("libsql-0.10.0"));
        assert!(pinned("3.37.2").unwrap().is_none());
        assert!(pinned("other@1.0").unwrap().is_none());
        let e = pinned("libsql@0.9.0").unwrap_err().to_string();
        assert!(
            e.contains("not a pinned libsql release") && e.contains("libsql@0.10.0"),
            "{e}"
        );
    }

    /// An archive that is not the pinned one is refused before anything is unpacked.
    #[test]
    fn an_archive_with_another_checksum_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let archive = t.path().join("libsql-ffi-0.10.0.crate");
        std::fs::write(&archive, b"not the crate").unwrap();
        let e = extract(&PINNED[0], &archive, t.path()).unwrap_err().to_string();
        assert!(
            e.contains("not the pinned") && e.contains("crate libsql-ffi 0.10.0"),
            "{e}"
        );
        assert!(!t.path().join("sqlite3.c").exists());
        // A wrong pin refuses the real archive the same way, when cargo has it.
        if let Some(real) = in_cargo_cache(&PINNED[0]) {
            let wrong = Pinned {
                sha256: "0000000000000000000000000000000000000000000000000000000000000000",
                ..PINNED[0]
            };
            let e = extract(&wrong, &real, t.path()).unwrap_err().to_string();
            assert!(e.contains(&format!("SHA-256 {}", PINNED[0].sha256)), "{e}");
            assert!(!t.path().join("sqlite3.c").exists());
        }
    }
}
