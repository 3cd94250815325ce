//! Where compiled SQLite libraries live, what is recorded about each, and finding one by name.
//!
//! The cache is a persistent directory (`$LITEBENCH_CACHE`, else `$XDG_CACHE_HOME/litebench`,
//! else `~/.cache/litebench`) so a library is compiled once per machine, like cargo's target
//! directory. Each build is a directory `sqlite/<key prefix>/` holding `libsqlite3.so` and
//! `build.json`; the key is the SHA-256 of the source, the flags and the compiler's version,
//! everything that decides the library's bytes. A build appears under its final name only when
//! complete (it is made in a temporary directory and renamed without replacing anything, see
//! [`crate::base::outfile`]), so an interrupted compile leaves no half library that a later run could
//! load.
//!
//! Root loads these libraries too, so nothing in the cache is believed that another user could
//! have written ([`crate::sys::trusted`]): the cache and its directories must be this user's or
//! root's and writable by nobody else, each `build.json` is read from a checked descriptor, a
//! record is listed only for the directory its key names and only with its library in that
//! directory (the `library` it names is never followed elsewhere), and the library loaded is
//! the file at that place whose SHA-256, recorded when it was compiled, matches.

use super::compiler::{self, Compiler, OptLevel};
use super::source::Amalgamation;
use super::{sha256_hex, BuildError};
use crate::model::engine_info::CompiledBuild;
use crate::sys::trusted::{self, Checked};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// A build's library and record, in its directory.
const LIBRARY: &str = "libsqlite3.so";
const RECORD: &str = "build.json";

/// Environment variable naming the cache directory.
pub const ENV_VAR: &str = crate::sys::cachedir::ENV_VAR;

/// A cache directory.
#[derive(Debug, Clone)]
pub struct BuildCache {
    pub root: PathBuf,
}

/// The builds of a cache, and the entries that are not believed.
#[derive(Debug, Default)]
pub struct Listing {
    pub builds: Vec<CompiledBuild>,
    /// One line per directory that is not listed, nor loaded, and why.
    pub skipped: Vec<String>,
}

/// What `build` did.
#[derive(Debug)]
pub struct Built {
    pub build: CompiledBuild,
    /// Found in the cache: nothing was compiled.
    pub cached: bool,
}

impl BuildCache {
    /// The cache named by the environment.
    pub fn from_env() -> Result<BuildCache, BuildError> {
        let root = crate::sys::cachedir::root().map_err(BuildError::Input)?;
        Ok(BuildCache { root })
    }

    fn builds_dir(&self) -> PathBuf {
        self.root.join("sqlite")
    }

    /// Where downloaded and extracted sources go.
    pub fn sources_dir(&self) -> PathBuf {
        self.root.join("sqlite-sources")
    }

    /// Checks the cache directory, and its `sqlite` and `sqlite-sources` directories where
    /// they exist, before anything in them is read, compiled or loaded.
    pub fn check(&self) -> Result<(), BuildError> {
        if !self.root.exists() {
            return Ok(());
        }
        trusted::check_dir(&self.root, &self.root)?;
        for dir in [self.builds_dir(), self.sources_dir()] {
            if dir.symlink_metadata().is_ok() {
                trusted::check_dir(&self.root, &dir)?;
            }
        }
        Ok(())
    }

    /// Every complete build that can be believed, by name (nothing when the cache cannot be:
    /// [`BuildCache::listing`] says why).
    pub fn list(&self) -> Vec<CompiledBuild> {
        self.listing().map(|l| l.builds).unwrap_or_default()
    }

    /// Every complete build, by name, and the entries skipped; `Err` when the cache itself is
    /// not trusted.
    pub fn listing(&self) -> Result<Listing, BuildError> {
        let builds = self.builds_dir();
        if builds.symlink_metadata().is_err() {
            return Ok(Listing::default());
        }
        self.check()?;
        let dir = std::fs::read_dir(&builds).map_err(BuildError::io(format!("cache {}", builds.display())))?;
        let mut listing = Listing::default();
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            match self.entry(&name) {
                Ok(Some(b)) => listing.builds.push(b),
                Ok(None) => {}
                Err(why) => listing.skipped.push(why),
            }
        }
        listing.builds.sort_by(|a, b| a.name.cmp(&b.name));
        listing.skipped.sort();
        Ok(listing)
    }

    /// The build in `sqlite/<dir_name>`, read from a checked descriptor: `None` when it is
    /// incomplete (no record or no library), `Err` (one line) when it is not believed.
    fn entry(&self, dir_name: &str) -> Result<Option<CompiledBuild>, String> {
        let dir = self.builds_dir().join(dir_name);
        let record_path = dir.join(RECORD);
        let skipped = |why: String| format!("{}: {why}; not listed, not loaded", dir.display());
        let record = match trusted::open_in_cache(&self.root, &record_path) {
            Ok(f) => f,
            Err(e) if e.is_missing() => return Ok(None),
            Err(e) => return Err(skipped(e.to_string())),
        };
        let bytes = record
            .read_all()
            .map_err(|e| skipped(format!("cannot read {RECORD}: {e}")))?;
        let mut build: CompiledBuild =
            serde_json::from_slice(&bytes).map_err(|e| skipped(format!("{RECORD} is not a build record ({e})")))?;
        let key_ok = build.key.len() == 64 && build.key.bytes().all(|b| b.is_ascii_hexdigit());
        if !key_ok || build.key[..16] != *dir_name {
            return Err(skipped(format!(
                "{RECORD} is for key {:?}, not this directory's",
                build.key
            )));
        }
        let library = dir.join(LIBRARY);
        let named_here = build.library.file_name() == Some(std::ffi::OsStr::new(LIBRARY))
            && build.library.parent().and_then(|p| std::fs::canonicalize(p).ok()) == std::fs::canonicalize(&dir).ok();
        if !named_here {
            return Err(skipped(format!(
                "{RECORD} names the library {}, not the one in its own directory",
                build.library.display()
            )));
        }
        if library.symlink_metadata().is_err() {
            return Ok(None);
        }
        // A record of an older litebench lacks the size of `.text`: read from its library.
        if build.text_bytes.is_none() {
            build.text_bytes = crate::sys::elf::text_size(&library).ok();
        }
        build.library = library;
        Ok(Some(build))
    }

    /// Opens the library of `build` at its place in the cache and checks it: the directories
    /// and the file on its descriptor, and its SHA-256 against the one recorded when it was
    /// compiled. What [`crate::engines::sqlite::api::Api::load`] loads.
    pub fn open_library(&self, build: &CompiledBuild) -> Result<Checked, BuildError> {
        let spec = format!("--engine sqlite@{}", build.name);
        let refuse = |why: String| BuildError::Input(format!("{spec}: {why}"));
        let key = build
            .key
            .get(..16)
            .ok_or_else(|| refuse(format!("its key {:?} is not a build's", build.key)))?;
        let dir = self.builds_dir().join(key);
        let file = trusted::open_in_cache(&self.root, &dir.join(LIBRARY)).map_err(|e| refuse(e.to_string()))?;
        let Some(recorded) = &build.library_sha256 else {
            return Err(refuse(format!(
                "its {RECORD} in {} records no SHA-256 of the library (an older litebench built it), so it is not loaded; build it again with `litebench build-sqlite {}`, which replaces it",
                dir.display(),
                build.source
            )));
        };
        let actual = file
            .sha256_hex()
            .map_err(|e| refuse(format!("cannot read {}: {e}", file.path().display())))?;
        if actual != *recorded {
            return Err(refuse(format!(
                "{} has SHA-256 {actual}, not the {recorded} recorded when it was compiled, so it is not loaded; remove {} and build it again with `litebench build-sqlite {}`",
                file.path().display(),
                dir.display(),
                build.source
            )));
        }
        Ok(file)
    }

    /// The build `sqlite@NAME` means: the one named NAME, else the only build of SQLite release
    /// NAME (a fork such as libSQL is never taken for the SQLite release it is based on).
    pub fn find(&self, name: &str) -> Result<CompiledBuild, BuildError> {
        let listing = self
            .listing()
            .map_err(|e| BuildError::Input(format!("--engine sqlite@{name}: {e}")))?;
        let all = listing.builds;
        if let Some(b) = all.iter().find(|b| b.name == name) {
            return Ok(b.clone());
        }
        let of_version: Vec<&CompiledBuild> = all
            .iter()
            .filter(|b| b.version == name && b.libsql_version.is_none())
            .collect();
        if let [only] = of_version.as_slice() {
            return Ok((*only).clone());
        }
        let names = |bs: &[&CompiledBuild]| bs.iter().map(|b| b.name.as_str()).collect::<Vec<_>>().join(", ");
        if of_version.len() > 1 {
            return Err(BuildError::Input(format!(
                "--engine sqlite@{name}: several cached builds of SQLite {name} ({}); name one of them",
                names(&of_version)
            )));
        }
        let cached = if all.is_empty() {
            "none".to_string()
        } else {
            names(&all.iter().collect::<Vec<_>>())
        };
        let skipped = match listing.skipped.as_slice() {
            [] => String::new(),
            [one] => format!("; skipped {one}"),
            [first, rest @ ..] => format!("; skipped {first}, and {} more", rest.len()),
        };
        Err(BuildError::Input(format!(
            "--engine sqlite@{name}: no cached SQLite build named {name} in {}; cached builds: {cached} (make one with `litebench build-sqlite SRC --name {name}`){skipped}",
            self.builds_dir().display()
        )))
    }

    /// Compiles `source` at `level` with `cflags` under `name` (default: derived from the
    /// version and flags), or returns the cached build of exactly that. `compiling` is told
    /// the compiler command's flags just before a compile starts (not for a cached build).
    pub fn build(
        &self,
        source: &Amalgamation,
        level: OptLevel,
        cflags: &[String],
        name: Option<&str>,
        compiling: &dyn Fn(&[String]),
    ) -> Result<Built, BuildError> {
        self.build_with(&Compiler::detect()?, source, level, cflags, name, compiling)
    }

    /// [`BuildCache::build`] with a given compiler.
    pub fn build_with(
        &self,
        compiler: &Compiler,
        source: &Amalgamation,
        level: OptLevel,
        cflags: &[String],
        name: Option<&str>,
        compiling: &dyn Fn(&[String]),
    ) -> Result<Built, BuildError> {
        let mut flags: Vec<String> = compiler::PLATFORM_DEFINES.iter().map(|s| s.to_string()).collect();
        flags.push(level.flag().to_string());
        flags.extend(cflags.iter().cloned());
        let key = cache_key(&source.bytes, &flags, compiler);
        let dir = self.builds_dir().join(&key[..16]);
        self.check()?;
        if let Some(build) = self.entry(&key[..16]).map_err(BuildError::Input)? {
            if build.key == key && build.library_sha256.is_some() {
                // The same build, if its library is still the one compiled.
                self.open_library(&build)?;
                // An older record learns its source's SHA3-256 (the key holds the source).
                let mut build = build;
                if build.source_sha3_256.is_none() {
                    build.source_sha3_256 = Some(super::fetch::sha3_hex(&source.bytes));
                    self.rewrite_record(&build)?;
                }
                return Ok(Built { build, cached: true });
            }
            if build.key == key {
                // The same build by a litebench that recorded no SHA-256 of its library: its
                // directory (litebench's own, in a cache checked above) is retired and the
                // library compiled again, so that what is loaded is what was compiled.
                let retired = self
                    .builds_dir()
                    .join(format!(".{}.{}.part", &key[..16], std::process::id()));
                std::fs::rename(&dir, &retired).map_err(BuildError::io(dir.display().to_string()))?;
                let _ = std::fs::remove_dir_all(&retired);
            }
        }
        let default = default_name(&source.name, level, cflags, &key);
        // A `--name` that is the build's default name (`3.37.2-Os` for 3.37.2 at -Os, as
        // `reproduce` names its builds) chooses nothing: it is treated as the default.
        let chosen = name.is_some_and(|n| n != default);
        let name = match name {
            Some(n) => valid_name(n)?.to_string(),
            None => default,
        };
        // A default name held by a build from another compiler, source or litebench (whose
        // flags differ) passes to this newer build, the older one keeping its key's prefix as a
        // suffix; a chosen name is never taken.
        let holder = self.list().into_iter().find(|b| b.name == name);
        if let Some(other) = holder.as_ref().filter(|_| chosen) {
            return Err(BuildError::Input(format!(
                "--name {name}: already the name of another cached build ({} {}, {}); choose another --name",
                other.version,
                other.flags.join(" "),
                other.compiler_version
            )));
        }
        let builds = self.builds_dir();
        // 0755 at most, whatever the umask: the cache must not be writable by others.
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(&builds)
            .map_err(BuildError::io(format!("cache {}", builds.display())))?;
        self.check()?;
        remove_abandoned(&builds);
        compiling(&flags);
        let part = builds.join(format!(".{}.{}.part", &key[..16], std::process::id()));
        std::fs::DirBuilder::new()
            .mode(0o755)
            .create(&part)
            .map_err(BuildError::io(part.display().to_string()))?;
        let result = self.compile_into(&part, &dir, source, &flags, compiler, &key, &name);
        if result.is_err() || dir.exists() {
            // Ours, incomplete or made redundant by a concurrent build of the same key.
            let _ = std::fs::remove_dir_all(&part);
        }
        let build = result?;
        if let Some(mut older) = holder {
            older.name = format!("{}-{}", older.name, &older.key[..8]);
            self.rewrite_record(&older)?;
        }
        Ok(Built { build, cached: false })
    }

    /// Replaces a build's `build.json`, a file litebench made, through a new temporary file
    /// ([`crate::base::outfile`]): never half-written, never through a symbolic link.
    fn rewrite_record(&self, build: &CompiledBuild) -> Result<(), BuildError> {
        use std::io::Write;
        let dir = self.builds_dir().join(&build.key[..16]);
        let record = dir.join("build.json");
        let json = serde_json::to_vec_pretty(build).expect("json");
        let io = BuildError::io(record.display().to_string());
        // Created beside a name that does not exist yet, then renamed over the record.
        let mut f = crate::base::outfile::OutFile::create(&dir.join(".build.json.new"))
            .map_err(BuildError::io(dir.display().to_string()))?;
        f.write_all(&json)
            .map_err(BuildError::io(record.display().to_string()))?;
        f.commit_replacing(&record).map_err(io)
    }

    #[allow(clippy::too_many_arguments)]
    fn compile_into(
        &self,
        part: &Path,
        dir: &Path,
        source: &Amalgamation,
        flags: &[String],
        compiler: &Compiler,
        key: &str,
        name: &str,
    ) -> Result<CompiledBuild, BuildError> {
        let compiled = part.join(LIBRARY);
        // Compiled from the bytes that were checked and hashed (the key), written into the
        // build's own new directory: a file swapped in at the source's path since is not read.
        let copy = part.join("sqlite3.c");
        crate::base::outfile::write_new(&copy, &source.bytes).map_err(BuildError::io(copy.display().to_string()))?;
        let footprint = compiler::compile(compiler, &copy, flags, &compiled);
        let _ = std::fs::remove_file(&copy);
        let footprint = footprint?;
        let library = dir.join(LIBRARY);
        // Writable by nobody else, whatever the umask gave it.
        std::fs::set_permissions(&compiled, std::fs::Permissions::from_mode(0o755))
            .map_err(BuildError::io("the compiled library"))?;
        let bytes = std::fs::read(&compiled).map_err(BuildError::io("the compiled library"))?;
        let library_bytes = bytes.len() as u64;
        let mut all_flags: Vec<String> = compiler::BASE_FLAGS.iter().map(|s| s.to_string()).collect();
        all_flags.extend(flags.iter().cloned());
        all_flags.extend(compiler::LINK_LIBS.iter().map(|s| s.to_string()));
        let build = CompiledBuild {
            name: name.to_string(),
            key: key.to_string(),
            version: source.version.clone(),
            libsql_version: super::source::declared(&source.bytes, "LIBSQL_VERSION"),
            source: source.given.clone(),
            source_sha256: sha256_hex(&source.bytes),
            source_sha3_256: Some(super::fetch::sha3_hex(&source.bytes)),
            origin: source
                .origin
                .map(|o| format!("{} {}@{}", o.registry.name(), o.package, o.version)),
            pristine: source.origin.map(|o| o.pristine != super::releases::Pristine::Modified),
            flags: all_flags,
            compiler: compiler.program.clone(),
            compiler_version: compiler.version.clone(),
            compile_ms: u64::try_from(footprint.wall.as_millis()).unwrap_or(u64::MAX),
            peak_compile_kib: footprint.peak_rss_kib,
            library_bytes,
            text_bytes: crate::sys::elf::text_size_of(&bytes).ok(),
            library,
            library_sha256: Some(sha256_hex(&bytes)),
            built_at: crate::base::time::now_rfc3339(),
        };
        let json = serde_json::to_vec_pretty(&build).expect("json");
        crate::base::outfile::write_new(&part.join("build.json"), &json).map_err(BuildError::io("the build record"))?;
        // Never in place of anything (not even an empty directory).
        match crate::base::outfile::place(part, dir) {
            Ok(()) => Ok(build),
            // A concurrent build of the same key finished first: use it.
            Err(_) if dir.join(RECORD).is_file() => match self.entry(&key[..16]) {
                Ok(Some(b)) => Ok(b),
                Ok(None) => Err(BuildError::Compile(format!("{}: incomplete build", dir.display()))),
                Err(why) => Err(BuildError::Input(why)),
            },
            Err(e) => Err(BuildError::Io {
                what: format!("cache {}", dir.display()),
                source: e,
            }),
        }
    }
}

/// Removes the temporary directories of builds whose litebench process is gone (killed during
/// a compile): `.<key>.<pid>.part`, a name only [`BuildCache::build`] makes.
fn remove_abandoned(builds: &Path) {
    let Ok(dir) = std::fs::read_dir(builds) else { return };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix('.')
            .and_then(|n| n.strip_suffix(".part"))
            .and_then(|n| n.rsplit_once('.'))
            .and_then(|(key, pid)| (key.len() == 16).then_some(pid))
            .and_then(|pid| pid.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        // SAFETY: signal 0 only asks whether the process exists.
        let gone =
            unsafe { libc::kill(pid, 0) } != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone && e.path().is_dir() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// SHA-256 over the source, each flag and the compiler's version, separated so that no two
/// different inputs concatenate alike.
fn cache_key(source: &[u8], flags: &[String], compiler: &Compiler) -> String {
    let mut input = source.to_vec();
    for part in flags.iter().chain([&compiler.program, &compiler.version]) {
        input.push(0);
        input.extend_from_slice(part.as_bytes());
    }
    sha256_hex(&input)
}

/// `3.37.2` for -O2 without extra flags, `3.37.2-Os`, `3.37.2-O3`; with extra flags the key's
/// prefix is added, so the default never collides.
fn default_name(version: &str, level: OptLevel, cflags: &[String], key: &str) -> String {
    let base = match level {
        OptLevel::O2 => version.to_string(),
        other => format!("{version}{}", other.flag().trim_start_matches('-').replace("O", "-O")),
    };
    if cflags.is_empty() {
        base
    } else {
        format!("{base}-{}", &key[..8])
    }
}

pub fn valid_name(name: &str) -> Result<&str, BuildError> {
    let ok =
        !name.is_empty() && name.len() <= 64 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._+-".contains(&b));
    if ok {
        Ok(name)
    } else {
        Err(BuildError::Input(format!(
            "--name {name:?}: use 1 to 64 letters, digits, '.', '_', '+' or '-'"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names() {
        let key = "0123456789abcdef";
        assert_eq!(default_name("3.37.2", OptLevel::O2, &[], key), "3.37.2");
        assert_eq!(default_name("3.37.2", OptLevel::Size, &[], key), "3.37.2-Os");
        assert_eq!(default_name("3.54.1", OptLevel::O3, &[], key), "3.54.1-O3");
        assert_eq!(
            default_name("3.54.1", OptLevel::O3, &["-DX".into()], key),
            "3.54.1-O3-01234567"
        );
    }

    #[test]
    fn names_are_checked() {
        assert!(valid_name("fast-3.37.2+lto").is_ok());
        assert!(valid_name("a/b").is_err() && valid_name("").is_err() && valid_name("a b").is_err());
    }

    #[test]
    fn keys_depend_on_every_input() {
        let cc = Compiler {
            program: "cc".into(),
            version: "gcc 12".into(),
        };
        let k = cache_key(b"src", &["-Os".into()], &cc);
        assert_ne!(k, cache_key(b"src2", &["-Os".into()], &cc));
        assert_ne!(k, cache_key(b"src", &["-O3".into()], &cc));
        let other = Compiler {
            version: "gcc 13".into(),
            ..cc.clone()
        };
        assert_ne!(k, cache_key(b"src", &["-Os".into()], &other));
        assert_ne!(
            cache_key(b"src", &["-DA".into(), "B".into()], &cc),
            cache_key(b"src", &["-DAB".into()], &cc)
        );
    }

    /// A stand-in compiler that writes a small file where `-o` points, so the cache's logic is
    /// tested without a minute of gcc.
    fn fake_compiler(dir: &Path, version: &str) -> Compiler {
        use std::os::unix::fs::PermissionsExt;
        let script = dir.join("fakecc");
        std::fs::write(
            &script,
            "#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then shift; printf lib > \"$1\"; fi; shift; done\n",
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        Compiler {
            program: script.display().to_string(),
            version: version.into(),
        }
    }

    /// SQLite's busy handler sleeps whole seconds unless `HAVE_USLEEP` is defined: every build
    /// is compiled with it, and its record and cache key say so.
    #[test]
    fn every_build_is_compiled_with_usleep_and_records_it() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let cache = BuildCache {
            root: t.path().join("cache"),
        };
        let args = t.path().join("args");
        let script = t.path().join("argscc");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\necho \"$@\" > {}\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then shift; printf lib > \"$1\"; fi; shift; done\n",
                args.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let cc = Compiler {
            program: script.display().to_string(),
            version: "argscc 1".into(),
        };
        let source = Amalgamation {
            path: t.path().join("sqlite3.c"),
            given: "sqlite3.c".into(),
            version: "3.37.2".into(),
            name: "3.37.2".into(),
            bytes: b"#define SQLITE_VERSION \"3.37.2\"\n".to_vec(),
            origin: None,
        };
        std::fs::write(&source.path, &source.bytes).unwrap();
        let built = cache
            .build_with(&cc, &source, OptLevel::Size, &[], None, &|_: &[String]| {})
            .unwrap();
        let given = std::fs::read_to_string(&args).unwrap();
        assert!(given.split_whitespace().any(|a| a == "-DHAVE_USLEEP=1"), "{given}");
        assert_eq!(
            built.build.flags[..4],
            ["-shared", "-fPIC", "-DHAVE_USLEEP=1", "-Os"].map(String::from),
            "{:?}",
            built.build.flags
        );
        assert_eq!(built.build.name, "3.37.2-Os");
        let without = cache_key(&source.bytes, &["-Os".into()], &cc);
        assert_ne!(built.build.key, without, "the define is part of the key");
    }

    #[test]
    fn builds_are_cached_and_a_default_name_passes_to_the_newest_build() {
        let t = tempfile::tempdir().unwrap();
        let cache = BuildCache {
            root: t.path().join("cache"),
        };
        let source = Amalgamation {
            path: t.path().join("sqlite3.c"),
            given: "sqlite3.c".into(),
            version: "3.99.9".into(),
            name: "3.99.9".into(),
            bytes: b"#define SQLITE_VERSION \"3.99.9\"\n".to_vec(),
            origin: None,
        };
        std::fs::write(&source.path, &source.bytes).unwrap();
        let compiles = std::cell::Cell::new(0);
        let count = |_: &[String]| compiles.set(compiles.get() + 1);
        let old_cc = fake_compiler(t.path(), "fakecc 1");
        let first = cache
            .build_with(&old_cc, &source, OptLevel::O2, &[], None, &count)
            .unwrap();
        assert!(!first.cached && first.build.name == "3.99.9" && first.build.library_bytes == 3);
        let again = cache
            .build_with(&old_cc, &source, OptLevel::O2, &[], None, &count)
            .unwrap();
        assert!(again.cached && again.build == first.build);
        assert_eq!(compiles.get(), 1, "the second request compiled");
        // Another compiler: another build, which takes the default name.
        let new_cc = Compiler {
            version: "fakecc 2".into(),
            ..old_cc.clone()
        };
        let newer = cache
            .build_with(&new_cc, &source, OptLevel::O2, &[], None, &count)
            .unwrap();
        assert_ne!(newer.build.key, first.build.key);
        assert_eq!(cache.find("3.99.9").unwrap().key, newer.build.key);
        let renamed = format!("3.99.9-{}", &first.build.key[..8]);
        assert_eq!(cache.find(&renamed).unwrap().key, first.build.key);
        // A chosen name is never taken from another build.
        let e = cache
            .build_with(&new_cc, &source, OptLevel::O3, &[], Some("3.99.9"), &count)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--name 3.99.9: already the name of another cached build"),
            "{e}"
        );
        assert_eq!(compiles.get(), 2);
        // A `--name` that is the default name (as `reproduce` names its builds) is no choice:
        // a newer build takes it from an older one, as without `--name`.
        let old_os = cache
            .build_with(&old_cc, &source, OptLevel::Size, &[], Some("3.99.9-Os"), &count)
            .unwrap();
        let new_os = cache
            .build_with(&new_cc, &source, OptLevel::Size, &[], Some("3.99.9-Os"), &count)
            .unwrap();
        assert_eq!(cache.find("3.99.9-Os").unwrap().key, new_os.build.key);
        let renamed = format!("3.99.9-Os-{}", &old_os.build.key[..8]);
        assert_eq!(cache.find(&renamed).unwrap().key, old_os.build.key);
    }

    #[test]
    fn only_abandoned_temporary_builds_are_removed() {
        let t = tempfile::tempdir().unwrap();
        let dead = t.path().join(".0123456789abcdef.999999999.part");
        let alive = t.path().join(format!(".0123456789abcdef.{}.part", std::process::id()));
        let other = t.path().join(".notakey.999999999.part");
        for d in [&dead, &alive, &other] {
            std::fs::create_dir(d).unwrap();
        }
        remove_abandoned(t.path());
        assert!(!dead.exists() && alive.exists() && other.exists());
    }

    #[test]
    fn an_unknown_name_lists_the_cached_builds() {
        let t = tempfile::tempdir().unwrap();
        let cache = BuildCache {
            root: t.path().to_path_buf(),
        };
        let e = cache.find("nope").unwrap_err().to_string();
        assert!(
            e.contains("no cached SQLite build named nope") && e.contains("cached builds: none"),
            "{e}"
        );
    }
}
