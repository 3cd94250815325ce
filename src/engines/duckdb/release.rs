//! DuckDB releases litebench can fetch: a shared library with DuckDB's C API from a package
//! registry, pinned by SHA-256, kept once per machine in litebench's cache.
//!
//! DuckDB's node bindings ship, per platform, a package holding nothing but the binding and the
//! release's standalone shared library (`@duckdb/node-bindings-linux-x64`, 20-25 MB
//! compressed). The registry is reachable where github.com's release downloads may not be, and
//! `npm pack` is its ordinary client. DuckDB 2.0.0 is not on npm; its Python wheel's extension
//! module exports the whole C API too, but leaves libpython's symbols to the process that loads
//! it: litebench loads libpython first, globally, and starts no interpreter (see
//! docs/duckdb.md for what that costs). Each release below names the package that carries it,
//! where the library sits in the archive and the archive's SHA-256, checked before anything is
//! unpacked; the unpacked library must then state the release it is listed as when loaded.
//!
//! The cache holds `duckdb/<release>/libduckdb.so`. A release appears under its final name only
//! when complete (unpacked into a temporary directory, then renamed), so an interrupted fetch
//! leaves nothing a later run could load. `tests/engine/fetch-duckdb.sh` fills the same place
//! with the same pins for CI, where tests fetch nothing themselves.
//!
//! The library itself is pinned too: unpacking one member of a pinned archive gives the same
//! bytes everywhere, so its SHA-256 is as fixed as the archive's, and a record beside it (which
//! whoever could change the library could change as well) would add nothing. Every load opens
//! the cached library in a cache only this user or root can write ([`crate::sys::trusted`]),
//! hashes it from that descriptor and loads that very file: a library another user planted or
//! changed is refused before any of its code runs, and one an older litebench unpacked (there
//! was no record then) is verified like any other.

use crate::sys::trusted::{self, Checked, TrustError};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where a release's archive comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// `npm pack PACKAGE`: a gzipped tarball.
    Npm,
    /// `python3 -m pip download` of the wheel named PACKAGE (its file name says its version
    /// and platform): a zip archive.
    Pip,
}

/// A library the release's library needs loaded globally first (its undefined symbols).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Needs {
    /// The `dlopen` name.
    pub library: &'static str,
    /// The Debian package that has it.
    pub debian: &'static str,
}

/// One DuckDB release in a package registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    /// DuckDB's release number (`duckdb_library_version()` without its `v`).
    pub version: &'static str,
    pub client: Client,
    /// `name@version` on npm, or the wheel's file name on PyPI.
    pub package: &'static str,
    /// SHA-256 of the archive.
    pub sha256: &'static str,
    /// The library's path in the archive.
    pub member: &'static str,
    /// SHA-256 of the library (the member, unpacked), checked on every load.
    pub library_sha256: &'static str,
    pub needs: Option<Needs>,
}

/// The releases `duckdb@VERSION` can name.
pub const RELEASES: &[Release] = &[
    Release {
        version: "1.4.0",
        client: Client::Npm,
        package: "@duckdb/node-bindings-linux-x64@1.4.0-r.2",
        sha256: "ab9c2b2eede8ed4e1d07c185070cb12b142be2ac052d8d1deba43f108a232999",
        member: "package/libduckdb.so.1.4",
        library_sha256: "ea2d09040332bf39a9cbb9d07d5ef8786d350a4c127edd717f5263b764aa7a00",
        needs: None,
    },
    Release {
        version: "1.5.6",
        client: Client::Npm,
        package: "@duckdb/node-bindings-linux-x64@1.5.6-r.1",
        sha256: "1b9f82478539bb9a1d1df44bd103121a12ae52142c07158dc52b97d2ec1d69ff",
        member: "package/libduckdb.so",
        library_sha256: "3f4962cdd266eab2b479a5b5a4a6d063d279b2954ae814ed00385d553b747633",
        needs: None,
    },
    // The release the `duckdb` crate compiled before DuckDB was loaded at run time.
    Release {
        version: "2.0.0",
        client: Client::Pip,
        package: "duckdb-2.0.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        sha256: "5a3601121c7cc50d0b70412995634682fafcb58a0156d5d663dfd0b3bbe30a33",
        member: "_duckdb.cpython-311-x86_64-linux-gnu.so",
        library_sha256: "9405ef57d86d7c41fc98b02613160a915bc8ed3deae06a68117c22036f8389be",
        needs: Some(Needs {
            library: "libpython3.11.so.1.0",
            debian: "libpython3.11",
        }),
    },
];

/// What `--engine duckdb` alone opens: the newest standalone library (2.0.0 needs libpython in
/// the process; see docs/duckdb.md).
pub const DEFAULT: &str = "1.5.6";

/// Why a release could not be had.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("--engine duckdb@{version}: no such pinned DuckDB release; pinned: {}; or give a library with duckdb:<path to libduckdb.so>", pinned_list())]
    Unknown { version: String },
    #[error("--engine duckdb@{version}: {message}")]
    Fetch { version: String, message: String },
    #[error("--engine duckdb@{version}: {package} has SHA-256 {actual}, not the pinned {pinned}; not unpacking it (try again, or check what the registry serves)")]
    Checksum {
        version: String,
        package: String,
        actual: String,
        pinned: String,
    },
    #[error("--engine duckdb@{version}: {source}")]
    Untrusted {
        version: String,
        #[source]
        source: TrustError,
    },
    #[error("--engine duckdb@{version}: {path} has SHA-256 {actual}, not the pinned {pinned} of DuckDB {version}'s library, so it is not loaded; remove {dir} and run again to fetch it anew", path = path.display(), dir = dir.display())]
    Changed {
        version: String,
        path: PathBuf,
        dir: PathBuf,
        actual: String,
        pinned: String,
    },
}

fn pinned_list() -> String {
    RELEASES.iter().map(|r| r.version).collect::<Vec<_>>().join(", ")
}

/// The pinned release `version`.
pub fn find(version: &str) -> Result<&'static Release, FetchError> {
    RELEASES
        .iter()
        .find(|r| r.version == version.trim_start_matches('v'))
        .ok_or_else(|| FetchError::Unknown {
            version: version.to_string(),
        })
}

impl Release {
    /// Where the cache keeps this release's library.
    pub fn library(&self, cache: &Path) -> PathBuf {
        cache.join("duckdb").join(self.version).join("libduckdb.so")
    }

    fn fail(&self, message: String) -> FetchError {
        FetchError::Fetch {
            version: self.version.to_string(),
            message,
        }
    }

    /// Checks a downloaded archive against the pin, before anything in it is unpacked.
    pub fn verify(&self, archive: &Path) -> Result<(), FetchError> {
        let bytes = std::fs::read(archive).map_err(|e| self.fail(format!("cannot read {}: {e}", archive.display())))?;
        let actual = sha256_hex(&bytes);
        if actual != self.sha256 {
            return Err(FetchError::Checksum {
                version: self.version.to_string(),
                package: self.package.to_string(),
                actual,
                pinned: self.sha256.to_string(),
            });
        }
        Ok(())
    }

    fn untrusted(&self, source: TrustError) -> FetchError {
        FetchError::Untrusted {
            version: self.version.to_string(),
            source,
        }
    }

    /// The cached library, fetched first if the cache lacks it, opened and checked: in a cache
    /// only this user or root can write, a regular file of theirs, with the pinned SHA-256 (read
    /// from the descriptor the library is then loaded from). `note` is told, once, before a
    /// download starts.
    pub fn ensure(&self, cache: &Path, note: &dyn Fn(&str)) -> Result<Checked, FetchError> {
        let lib = self.library(cache);
        if lib.symlink_metadata().is_err() {
            self.fetch(cache, note)?;
        }
        self.open_cached(cache)
    }

    /// The cached library, opened and checked as [`Release::ensure`] says; fetches nothing.
    pub fn open_cached(&self, cache: &Path) -> Result<Checked, FetchError> {
        let lib = self.library(cache);
        let file = trusted::open_in_cache(cache, &lib).map_err(|e| self.untrusted(e))?;
        let actual = file
            .sha256_hex()
            .map_err(|e| self.fail(format!("cannot read {}: {e}", file.path().display())))?;
        if actual != self.library_sha256 {
            return Err(FetchError::Changed {
                version: self.version.to_string(),
                dir: file.path().parent().unwrap_or(file.path()).to_path_buf(),
                path: file.path().to_path_buf(),
                actual,
                pinned: self.library_sha256.to_string(),
            });
        }
        Ok(file)
    }

    /// Fetches the release into the cache, whose directories are checked first: nothing is
    /// written into a cache another user could change.
    fn fetch(&self, cache: &Path, note: &dyn Fn(&str)) -> Result<(), FetchError> {
        if cache.exists() {
            trusted::check_dir(cache, cache).map_err(|e| self.untrusted(e))?;
        }
        note(&format!(
            "fetching DuckDB {} ({} {}, about 25 MB) into {}",
            self.version,
            self.client.what(),
            self.package,
            cache.join("duckdb").display()
        ));
        let parent = cache.join("duckdb");
        // 0755 at most, whatever the umask: the cache must not be writable by others.
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(&parent)
            .map_err(|e| self.fail(format!("cannot create {}: {e}", parent.display())))?;
        trusted::check_dir(cache, &parent).map_err(|e| self.untrusted(e))?;
        let part = parent.join(format!(".{}.{}.part", self.version, std::process::id()));
        let _ = std::fs::remove_dir_all(&part);
        std::fs::DirBuilder::new()
            .mode(0o755)
            .create(&part)
            .map_err(|e| self.fail(format!("cannot create {}: {e}", part.display())))?;
        let result = self.fetch_into(&part);
        let final_dir = parent.join(self.version);
        let lib = self.library(cache);
        let result = result.and_then(|()| match std::fs::rename(&part, &final_dir) {
            Ok(()) => Ok(()),
            // Another process completed the same release first: theirs is checked as any is.
            Err(_) if lib.is_file() => Ok(()),
            Err(e) => Err(self.fail(format!("cannot move the library into {}: {e}", final_dir.display()))),
        });
        let _ = std::fs::remove_dir_all(&part);
        result
    }

    /// Downloads the archive into `dir`, verifies it, unpacks the library as
    /// `dir/libduckdb.so`; the archive is removed.
    fn fetch_into(&self, dir: &Path) -> Result<(), FetchError> {
        let archive = match self.client {
            Client::Npm => self.npm_pack(dir)?,
            Client::Pip => self.pip_download(dir)?,
        };
        self.verify(&archive)?;
        let mut unpack = match self.client {
            Client::Npm => {
                let mut c = Command::new("tar");
                c.arg("-xzf").arg(&archive).arg("-C").arg(dir).arg(self.member);
                c
            }
            Client::Pip => {
                let mut c = Command::new("unzip");
                c.args(["-q", "-o"]).arg(&archive).arg(self.member).arg("-d").arg(dir);
                c
            }
        };
        let tool = if self.client == Client::Npm {
            "tar and gzip"
        } else {
            "unzip"
        };
        let unpacked = unpack
            .output()
            .map_err(|e| self.fail(format!("cannot unpack {} ({e}); install {tool}", archive.display())))?;
        let _ = std::fs::remove_file(&archive);
        let from = dir.join(self.member);
        if !unpacked.status.success() || !from.is_file() {
            return Err(self.fail(format!(
                "{} has no {}: {}",
                self.package,
                self.member,
                String::from_utf8_lossy(&unpacked.stderr).trim()
            )));
        }
        let lib = dir.join("libduckdb.so");
        std::fs::rename(&from, &lib).map_err(|e| self.fail(format!("cannot rename {}: {e}", from.display())))?;
        let _ = std::fs::remove_dir_all(dir.join("package"));
        // Writable by nobody else, whatever modes the archive or the umask gave it.
        std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o644))
            .map_err(|e| self.fail(format!("cannot set the mode of {}: {e}", lib.display())))?;
        let bytes = std::fs::read(&lib).map_err(|e| self.fail(format!("cannot read {}: {e}", lib.display())))?;
        let actual = sha256_hex(&bytes);
        if actual != self.library_sha256 {
            return Err(self.fail(format!(
                "{} in {} has SHA-256 {actual}, not the pinned {}; not using it",
                self.member, self.package, self.library_sha256
            )));
        }
        Ok(())
    }

    /// `npm pack` into `dir`; the tarball's path.
    fn npm_pack(&self, dir: &Path) -> Result<PathBuf, FetchError> {
        let out = Command::new("npm")
            .args(["pack", "--loglevel=error", "--pack-destination"])
            .arg(dir)
            .arg(self.package)
            .output()
            .map_err(|e| self.fail(format!("cannot run npm to fetch {} ({e}); install npm", self.package)))?;
        if !out.status.success() {
            return Err(self.fail(format!(
                "npm pack {} failed: {}",
                self.package,
                String::from_utf8_lossy(&out.stderr).trim().replace('\n', " ")
            )));
        }
        let name = String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .unwrap_or("")
            .trim()
            .to_string();
        let tarball = dir.join(&name);
        if name.is_empty() || !tarball.is_file() {
            return Err(self.fail(format!("npm pack {} wrote no tarball", self.package)));
        }
        Ok(tarball)
    }

    /// `pip download` of exactly the pinned wheel into `dir`; the wheel's path.
    fn pip_download(&self, dir: &Path) -> Result<PathBuf, FetchError> {
        // duckdb-2.0.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl: name,
        // version, Python, ABI, platform tags.
        let parts: Vec<&str> = self.package.trim_end_matches(".whl").split('-').collect();
        let [name, version, python, abi, platforms] = parts[..] else {
            return Err(self.fail(format!("{} is not a wheel's file name", self.package)));
        };
        let platform = platforms.rsplit('.').next().unwrap_or(platforms);
        let out = Command::new("python3")
            .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet"])
            .args(["--platform", platform, "--abi", abi, "--implementation", "cp"])
            .args(["--python-version", python.trim_start_matches("cp")])
            .arg("-d")
            .arg(dir)
            .arg(format!("{name}=={version}"))
            .output()
            .map_err(|e| {
                self.fail(format!(
                    "cannot run python3 -m pip to fetch {} ({e}); install python3-pip",
                    self.package
                ))
            })?;
        let wheel = dir.join(self.package);
        if !out.status.success() || !wheel.is_file() {
            return Err(self.fail(format!(
                "pip download {name}=={version} did not give {}: {}",
                self.package,
                String::from_utf8_lossy(&out.stderr).trim().replace('\n', " ")
            )));
        }
        Ok(wheel)
    }
}

impl Client {
    fn what(self) -> &'static str {
        match self {
            Client::Npm => "npm package",
            Client::Pip => "PyPI wheel",
        }
    }
}

/// SHA-256 of `bytes` as lowercase hex.
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_are_unique_and_whole() {
        for (i, r) in RELEASES.iter().enumerate() {
            assert!(RELEASES[..i].iter().all(|q| q.version != r.version), "{}", r.version);
            for sum in [r.sha256, r.library_sha256] {
                assert_eq!(sum.len(), 64);
                assert!(sum.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
            }
            match r.client {
                Client::Npm => {
                    let package = format!("@duckdb/node-bindings-linux-x64@{}-", r.version);
                    assert!(r.package.starts_with(&package));
                    assert!(r.member.starts_with("package/libduckdb.so"));
                }
                Client::Pip => {
                    assert!(r.package.starts_with(&format!("duckdb-{}-cp", r.version)));
                    assert!(r.package.ends_with(".whl") && r.needs.is_some());
                }
            }
        }
        assert!(find(DEFAULT).is_ok());
        assert_eq!(find("v1.4.0").unwrap().version, "1.4.0");
        let e = find("0.9.2").unwrap_err().to_string();
        assert!(
            e.contains("pinned: 1.4.0, 1.5.6, 2.0.0") && e.contains("duckdb:<path"),
            "{e}"
        );
    }

    /// CI's fetch script pins exactly these releases, into the place [`Release::library`] names.
    #[test]
    fn the_ci_fetch_script_has_the_same_pins() {
        let script = include_str!("../../../tests/engine/fetch-duckdb.sh");
        let lines: Vec<&str> = script
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("\"") && l.contains('|'))
            .collect();
        let ours: Vec<String> = RELEASES
            .iter()
            .map(|r| {
                let client = if r.client == Client::Npm { "npm" } else { "pip" };
                format!(
                    "\"{}|{client}|{}|{}|{}|{}\"",
                    r.version, r.package, r.sha256, r.member, r.library_sha256
                )
            })
            .collect();
        assert_eq!(lines, ours);
        assert!(script.contains("$cache/duckdb/$version/libduckdb.so"));
        assert_eq!(
            RELEASES[0].library(Path::new("/c")),
            Path::new("/c/duckdb/1.4.0/libduckdb.so")
        );
    }

    /// A tarball that is not the pinned one is refused, and nothing is unpacked.
    #[test]
    fn a_tarball_with_another_checksum_is_refused_before_unpacking() {
        let t = tempfile::tempdir().unwrap();
        let tgz = t.path().join("x.tgz");
        std::fs::write(&tgz, b"not the package").unwrap();
        let wrong = Release {
            sha256: "0000000000000000000000000000000000000000000000000000000000000000",
            ..RELEASES[1]
        };
        let e = wrong.verify(&tgz).unwrap_err().to_string();
        assert!(
            e.starts_with("--engine duckdb@1.5.6: @duckdb/node-bindings-linux-x64@1.5.6-r.1 has SHA-256"),
            "{e}"
        );
        assert!(e.contains("not the pinned 0000") && !e.contains('\n'), "{e}");
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1);
        // The right bytes pass.
        let sum = sha256_hex(b"not the package");
        let right = Release {
            sha256: Box::leak(sum.into_boxed_str()),
            ..RELEASES[1]
        };
        assert!(right.verify(&tgz).is_ok());
    }
}
