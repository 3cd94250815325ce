//! SQLite's releases as litebench knows them: each release's date, the checksum SQLite's release
//! notes publish for its `sqlite3.c`, and the package-registry archives that carry it.
//!
//! sqlite.org is out of reach of many build machines; the package registries are not, and many
//! packages bundle an amalgamation (npm `sqlite3`, crates `libsqlite3-sys` and others, the Go
//! module `github.com/mattn/go-sqlite3`, PyPI `sqlean.py`). The catalogue maps each release to
//! the archives that hold it, the best first (a pristine upstream file before one that was
//! regenerated with other options), each pinned by the archive's SHA-256. A release with no
//! archive is still listed, so that a history or a bisect can say which releases it could not
//! have.
//!
//! This file holds the types and the lookups; the table itself is data.

/// Where an archive comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registry {
    /// The npm registry (`registry.npmjs.org`).
    Npm,
    /// The Rust crate registry (`static.crates.io`).
    Crate,
    /// The Go module proxy (`proxy.golang.org`).
    Go,
    /// PyPI (`files.pythonhosted.org`).
    PyPi,
}

impl Registry {
    pub fn name(self) -> &'static str {
        match self {
            Registry::Npm => "npm",
            Registry::Crate => "crates.io",
            Registry::Go => "Go proxy",
            Registry::PyPi => "PyPI",
        }
    }
}

/// Whether the `sqlite3.c` an archive holds is SQLite's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pristine {
    /// Byte for byte the release's amalgamation.
    Upstream,
    /// The release's amalgamation inside a wrapper the fetcher strips (go-sqlite3's
    /// `#ifndef USE_LIBSQLITE3`), byte for byte after stripping.
    Wrapped,
    /// An amalgamation the package generated itself, with other options: never passed off as
    /// the release.
    Modified,
}

/// One archive that carries a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    pub registry: Registry,
    /// The package (npm, crate or PyPI name, or Go module path).
    pub package: &'static str,
    /// The package's version (a Go module's tag).
    pub version: &'static str,
    /// SHA-256 of the archive as the registry serves it.
    pub sha256: &'static str,
    /// `sqlite3.c` in the archive (`outer>inner` for a tarball inside the archive).
    pub member: &'static str,
    pub pristine: Pristine,
}

/// One SQLite release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    /// `3.37.2`, `3.7.7.1`.
    pub version: &'static str,
    /// Its release date, `YYYY-MM-DD`.
    pub date: &'static str,
    /// SHA3-256 of its `sqlite3.c` as SQLite's release notes publish it, where they do.
    pub sha3_256: Option<&'static str>,
    /// The archives that carry it, the best first; empty where no registry holds it.
    pub sources: &'static [Source],
}

impl Release {
    /// The archive to fetch it from.
    pub fn best(&self) -> Option<&'static Source> {
        self.sources.first()
    }

    /// The release as numbers, for ordering: `3.8.4.3` -> `[3, 8, 4, 3]`.
    pub fn key(&self) -> [u32; 4] {
        version_key(self.version).unwrap_or([0; 4])
    }
}

/// A dotted version as numbers (`3.8` -> `[3, 8, 0, 0]`), `None` when it is not one.
pub fn version_key(v: &str) -> Option<[u32; 4]> {
    let mut k = [0u32; 4];
    let parts: Vec<&str> = v.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    for (i, p) in parts.iter().enumerate() {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        k[i] = p.parse().ok()?;
    }
    Some(k)
}

/// Every release the catalogue knows, oldest first.
pub fn all() -> &'static [Release] {
    RELEASES
}

/// The release `version` names exactly.
pub fn find(version: &str) -> Option<&'static Release> {
    RELEASES.iter().find(|r| r.version == version)
}

const NPM_SQLITE3_2_1_0: Source = Source {
    registry: Registry::Npm,
    package: "sqlite3",
    version: "2.1.0",
    sha256: "f1e89be682839c85972f44e36dc333766ff3009918895cc1dc9715442ddd2253",
    member: "package/deps/sqlite-autoconf-3070800.tar.gz>sqlite-autoconf-3070800/sqlite3.c",
    pristine: Pristine::Upstream,
};
const NPM_SQLITE3_2_1_7: Source = Source {
    registry: Registry::Npm,
    package: "sqlite3",
    version: "2.1.7",
    sha256: "20edf21c598f90f75d167d1e9e516adc6020974ba4ef2a9178a5a17146a609f4",
    member: "package/deps/sqlite3/sqlite3.c",
    pristine: Pristine::Upstream,
};
const NPM_SQLITE3_2_2_0: Source = Source {
    registry: Registry::Npm,
    package: "sqlite3",
    version: "2.2.0",
    sha256: "a104401e083fc059bb2e2926dfa95072915e54c3dd2d258bfd872ce891a09974",
    member: "package/deps/sqlite-autoconf-3080200.tar.gz>sqlite-autoconf-3080200/sqlite3.c",
    pristine: Pristine::Upstream,
};
const NPM_SQLITE3_2_2_3: Source = Source {
    registry: Registry::Npm,
    package: "sqlite3",
    version: "2.2.3",
    sha256: "b8a0dc4c4840ac4bd9c4ac1479a7dc9b673bd480aa40182be10dc398da6c8cc3",
    member: "package/deps/sqlite-autoconf-3080403.tar.gz>sqlite-autoconf-3080403/sqlite3.c",
    pristine: Pristine::Upstream,
};
const NPM_BETTER_SQLITE3_7_5_0: Source = Source {
    registry: Registry::Npm,
    package: "better-sqlite3",
    version: "7.5.0",
    sha256: "c6feb7b1dfa1a985725e6e25fa3a72c55042fb44ded28aa2f7ee7a08ce642d4c",
    member: "package/deps/sqlite3/sqlite3.c",
    pristine: Pristine::Modified,
};

/// The table (oldest first). Stub: the releases litebench pinned before the catalogue.
static RELEASES: &[Release] = &[
    Release {
        version: "3.7.8",
        date: "2011-09-19",
        sha3_256: None,
        sources: &[NPM_SQLITE3_2_1_0],
    },
    Release {
        version: "3.7.13",
        date: "2012-06-11",
        sha3_256: None,
        sources: &[NPM_SQLITE3_2_1_7],
    },
    Release {
        version: "3.8.2",
        date: "2013-12-06",
        sha3_256: None,
        sources: &[NPM_SQLITE3_2_2_0],
    },
    Release {
        version: "3.8.4.3",
        date: "2014-04-03",
        sha3_256: None,
        sources: &[NPM_SQLITE3_2_2_3],
    },
    Release {
        version: "3.37.2",
        date: "2022-01-06",
        sha3_256: None,
        sources: &[NPM_BETTER_SQLITE3_7_5_0],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_are_ordered_unique_and_dated() {
        for w in all().windows(2) {
            assert!(w[0].key() < w[1].key(), "{} before {}", w[0].version, w[1].version);
        }
        for r in all() {
            assert!(version_key(r.version).is_some(), "{}", r.version);
            assert_eq!(r.date.len(), 10, "{}", r.version);
            for s in r.sources {
                assert_eq!(s.sha256.len(), 64, "{} {}", r.version, s.package);
            }
        }
        assert_eq!(version_key("3.8"), Some([3, 8, 0, 0]));
        assert_eq!(version_key("3.x"), None);
    }
}
