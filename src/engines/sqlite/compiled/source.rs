//! From the `SRC` a user names to one SQLite amalgamation (`sqlite3.c`) on disk.
//!
//! SQLite is distributed for compiling as the amalgamation: the whole library in one C file,
//! which is what makes "compile SQLite" one compiler call and its footprint one measurement.
//! `SRC` may be that file, a directory or a `.zip` holding it (sqlite.org's
//! `sqlite-amalgamation-NNNNNNN.zip` unpacked or not), or a release number, downloaded from
//! sqlite.org into the cache when the machine is online (a release the package registries hold
//! comes from the best archive the catalogue names instead, pinned by checksum:
//! [`super::releases`], [`super::fetch`]). A release number is always the release, never a
//! file or directory of that name in the current directory ([`given`]): a directory named
//! like a release is written as a path (`./3.45.1`). Whatever it is, the file must declare
//! its release (`#define SQLITE_VERSION "3.37.2"`), which is how litebench tells an
//! amalgamation from any other C file and names the build.

use super::BuildError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One amalgamation, read.
#[derive(Debug)]
pub struct Amalgamation {
    /// The `sqlite3.c` the compiler reads.
    pub path: PathBuf,
    /// `SRC` as the user gave it.
    pub given: String,
    /// Its `SQLITE_VERSION`.
    pub version: String,
    /// What a build of it is called unless `--name` says: its version, or a fork's
    /// `libsql-0.10.0` ([`super::crates`]).
    pub name: String,
    pub bytes: Vec<u8>,
    /// The registry archive it came from, for a catalogued release ([`super::releases`]).
    pub origin: Option<&'static super::releases::Source>,
}

/// What `SRC` names, before anything on disk is looked at.
#[derive(Debug, PartialEq, Eq)]
pub enum Given<'a> {
    /// A release number (`3.45.1`): always the release, fetched and checked, never a file or
    /// directory of that name. Whoever can write the current directory could have put one
    /// there, and root would compile and load it as that release.
    Release(&'a str),
    /// Anything else: a path (`./3.45.1` for a directory named like a release), or a fork
    /// (`libsql@0.10.0`) when no such path exists.
    Other(&'a Path),
}

/// Reads `src` as a release when it is shaped like one, else as a path or a fork.
pub fn given(src: &str) -> Given<'_> {
    if is_version(src) {
        Given::Release(src)
    } else {
        Given::Other(Path::new(src))
    }
}

/// Resolves `src`; `sources` is the cache's directory for extracted and downloaded sources.
pub fn resolve(src: &str, sources: &Path) -> Result<Amalgamation, BuildError> {
    let path = match given(src) {
        Given::Release(version) => {
            let (file, origin) = release(version, sources)?;
            return read(src, file, origin, None);
        }
        Given::Other(path) => path,
    };
    if !path.exists() {
        if let Some(p) = super::crates::pinned(src)? {
            let file = super::crates::fetch(p, sources)?;
            return read(src, file, None, Some(p.name));
        }
        return Err(BuildError::Input(format!(
            "SRC {}: no such file or directory, and not a SQLite release number such as 3.37.2",
            crate::base::clip::value(src)
        )));
    }
    let file = if path.is_dir() {
        in_directory(path)?
    } else if path.is_file() {
        if src.ends_with(".zip") {
            from_zip(path, sources)?
        } else {
            path.to_path_buf()
        }
    } else {
        return Err(BuildError::Input(format!(
            "SRC {src}: not a regular file (a device, FIFO or socket), so not a SQLite amalgamation; pass a sqlite3.c, a directory or .zip holding one, or a release such as 3.37.2"
        )));
    };
    read(src, file, None, None)
}

/// A release's `sqlite3.c`: from the catalogue's registry archive, checked by its pinned
/// checksums, when a registry holds it; else the one cached under `sources/<version>/`, or
/// sqlite.org's amalgamation downloaded there. Never a path of the user's.
fn release(version: &str, sources: &Path) -> Result<(PathBuf, Option<&'static super::releases::Source>), BuildError> {
    if let Some(r) = super::releases::find(version).filter(|r| r.best().is_some()) {
        let got = super::fetch::fetch(r, sources)?;
        return Ok((got.path, Some(got.source)));
    }
    let cached = sources.join(version).join("sqlite3.c");
    if cached.is_file() {
        return Ok((cached, None));
    }
    Ok((download(version, sources)?, None))
}

/// The amalgamation in `file`, checked to declare its release.
fn read(
    src: &str,
    file: PathBuf,
    origin: Option<&'static super::releases::Source>,
    fork: Option<&str>,
) -> Result<Amalgamation, BuildError> {
    // Its content becomes code this process compiles and loads: this user's or root's file,
    // writable by nobody else, read from the descriptor that was checked (and compiled from
    // that copy of its bytes, never from the path again).
    let checked =
        crate::sys::trusted::open_given(&file, crate::sys::trusted::Becomes::Source).map_err(|e| match e {
            crate::sys::trusted::TrustError::Io { source, .. } => {
                BuildError::io(format!("SRC {}", file.display()))(source)
            }
            refused => BuildError::Input(format!("SRC {refused}")),
        })?;
    let bytes = checked
        .read_all()
        .map_err(BuildError::io(format!("SRC {}", file.display())))?;
    let Some(version) = declared_version(&bytes) else {
        return Err(BuildError::Input(format!(
            "SRC {}: not a SQLite amalgamation (no `#define SQLITE_VERSION \"3.x.y\"`); pass the sqlite3.c of a sqlite-amalgamation zip",
            file.display()
        )));
    };
    Ok(Amalgamation {
        path: file,
        given: src.to_string(),
        name: fork.map_or_else(|| version.clone(), str::to_string),
        version,
        bytes,
        origin,
    })
}

/// `3.37.2`, `3.7.8`, `3.54`, `3.8.4.3` (two to four dot-separated numbers starting with 3).
fn is_version(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    (2..=4).contains(&parts.len())
        && parts[0] == "3"
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The release an amalgamation declares, from its `#define SQLITE_VERSION "..."` line (the
/// header part comes first, so the search stops early).
pub fn declared_version(bytes: &[u8]) -> Option<String> {
    declared(bytes, "SQLITE_VERSION")
}

/// The dotted version a `#define NAME "x.y.z"` line of the header part declares
/// (`LIBSQL_VERSION` in libSQL's amalgamation).
pub fn declared(bytes: &[u8], define: &str) -> Option<String> {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4 << 20)]);
    text.lines().find_map(|l| {
        let rest = l.strip_prefix("#define ")?.strip_prefix(define)?;
        let rest = rest.strip_prefix(|c: char| c.is_whitespace())?.trim();
        let v = rest.strip_prefix('"')?.split('"').next()?;
        (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.')).then(|| v.to_string())
    })
}

/// `sqlite3.c` in `dir`, or in its only subdirectory that has one (an unpacked zip).
fn in_directory(dir: &Path) -> Result<PathBuf, BuildError> {
    let direct = dir.join("sqlite3.c");
    if direct.is_file() {
        return Ok(direct);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(BuildError::io(format!("SRC {}", dir.display())))?
        .flatten()
        .map(|e| e.path().join("sqlite3.c"))
        .filter(|p| p.is_file())
        .collect();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(BuildError::Input(format!(
            "SRC {}: no sqlite3.c in this directory or its subdirectories; pass the amalgamation itself",
            dir.display()
        ))),
        _ => Err(BuildError::Input(format!(
            "SRC {}: several subdirectories hold a sqlite3.c; pass the one to build",
            dir.display()
        ))),
    }
}

/// Extracts the zip's `sqlite3.c` into `sources/zip-<sha256 prefix>/` (once) with `unzip`.
fn from_zip(zip: &Path, sources: &Path) -> Result<PathBuf, BuildError> {
    let what = format!("SRC {}", zip.display());
    let bytes = std::fs::read(zip).map_err(BuildError::io(what.clone()))?;
    let dir = sources.join(format!("zip-{}", &super::sha256_hex(&bytes)[..16]));
    let out = dir.join("sqlite3.c");
    if out.is_file() {
        return Ok(out);
    }
    let unzip = |args: &[&std::ffi::OsStr]| {
        Command::new("unzip").args(args).output().map_err(|e| {
            BuildError::Input(format!(
                "{what}: cannot run unzip ({e}); install it (apt-get install unzip) or unpack the zip and pass sqlite3.c"
            ))
        })
    };
    let listing = unzip(&["-Z1".as_ref(), zip.as_os_str()])?;
    if !listing.status.success() {
        return Err(BuildError::Input(format!("{what}: not a readable zip archive")));
    }
    let names = String::from_utf8_lossy(&listing.stdout).into_owned();
    let Some(member) = names.lines().find(|n| *n == "sqlite3.c" || n.ends_with("/sqlite3.c")) else {
        return Err(BuildError::Input(format!("{what}: the zip holds no sqlite3.c")));
    };
    let content = unzip(&["-p".as_ref(), zip.as_os_str(), member.as_ref()])?;
    if !content.status.success() {
        return Err(BuildError::Input(format!("{what}: cannot extract {member}")));
    }
    write_new(&dir, &out, &content.stdout)?;
    Ok(out)
}

/// Writes `bytes` to `out` as a new file that appears only complete ([`crate::base::outfile`]), so a
/// partial file is never taken for a source. One already there (another litebench extracted
/// the same source meanwhile) is kept.
pub(super) fn write_new(dir: &Path, out: &Path, bytes: &[u8]) -> Result<(), BuildError> {
    std::fs::create_dir_all(dir).map_err(BuildError::io(dir.display().to_string()))?;
    match crate::base::outfile::write_new(out, bytes) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && out.is_file() => Ok(()),
        r => r.map_err(BuildError::io(out.display().to_string())),
    }
}

/// sqlite.org's number for a release: 3.37.2 → 3370200, 3.8.4.3 → 3080403.
fn release_number(version: &str) -> u32 {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let mut next = || parts.next().unwrap_or(0);
    let (x, y, z, w) = (next(), next(), next(), next());
    x * 1_000_000 + y * 10_000 + z * 100 + w
}

/// Downloads `sqlite-amalgamation-NNNNNNN.zip` from sqlite.org with curl and extracts it into
/// `sources/<version>/`. sqlite.org files each release under the year it came out, which the
/// number does not tell: the years are tried newest first, stopping at the first failure that
/// is not "no such file" (no network, no DNS), so an offline machine fails at once.
fn download(version: &str, sources: &Path) -> Result<PathBuf, BuildError> {
    let number = release_number(version);
    let file = format!("sqlite-amalgamation-{number}.zip");
    let by_hand = format!(
        "download {file} from https://www.sqlite.org/ yourself (or take sqlite3.c from a package that bundles it) and pass its path as SRC"
    );
    // A failed download leaves none of the directories it made (only those, only while empty).
    let made = crate::base::outfile::NewDirs::create(sources).map_err(BuildError::io(sources.display().to_string()))?;
    let got = download_into(version, sources, &file, &by_hand);
    if got.is_err() {
        made.remove_empty();
    }
    got
}

/// [`download`] into `sources`, which exists.
fn download_into(version: &str, sources: &Path, file: &str, by_hand: &str) -> Result<PathBuf, BuildError> {
    let zip = sources.join(file);
    let part = sources.join(format!(".{file}.{}.part", std::process::id()));
    let this_year: u32 = crate::base::time::now_rfc3339()[..4].parse().unwrap_or(2026);
    for year in (2004..=this_year).rev() {
        let url = format!("https://www.sqlite.org/{year}/{file}");
        let out = Command::new("curl")
            .args(["-fsSL", "--connect-timeout", "15", "--max-time", "300", "-o"])
            .arg(&part)
            .arg(&url)
            .output()
            .map_err(|e| {
                BuildError::Download(format!(
                    "SRC {version}: cannot run curl to download it ({e}); install curl, or {by_hand}"
                ))
            })?;
        if out.status.success() {
            // Never in place of anything: a zip another litebench downloaded meanwhile is kept.
            match crate::base::outfile::place(&part, &zip) {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && zip.is_file() => {
                    let _ = std::fs::remove_file(&part);
                }
                r => r.map_err(BuildError::io(zip.display().to_string()))?,
            }
            let sqlite3_c = from_zip(&zip, sources)?;
            let dir = sources.join(version);
            let wanted = dir.join("sqlite3.c");
            let bytes = std::fs::read(&sqlite3_c).map_err(BuildError::io(sqlite3_c.display().to_string()))?;
            write_new(&dir, &wanted, &bytes)?;
            return Ok(wanted);
        }
        let _ = std::fs::remove_file(&part);
        // curl exit 22: the server answered with an HTTP error (404: not that year).
        if out.status.code() != Some(22) {
            let why = String::from_utf8_lossy(&out.stderr).trim().replace('\n', " ");
            return Err(BuildError::Download(format!(
                "SRC {version}: cannot download SQLite {version} from sqlite.org ({why}); {by_hand}"
            )));
        }
    }
    Err(BuildError::Download(format!(
        "SRC {version}: sqlite.org has no {file} (is {version} a SQLite release?); {by_hand}"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_release_numbers() {
        assert!(is_version("3.37.2") && is_version("3.7.8") && is_version("3.54") && is_version("3.8.4.3"));
        assert!(!is_version("3") && !is_version("4.0.0") && !is_version("3.x.1") && !is_version("sqlite3.c"));
        assert_eq!(release_number("3.37.2"), 3_370_200);
        assert_eq!(release_number("3.7.8"), 3_070_800);
        assert_eq!(release_number("3.54"), 3_540_000);
        assert_eq!(release_number("3.8.4.3"), 3_080_403);
    }

    #[test]
    fn the_declared_version_comes_from_the_define() {
        let src =
            b"/* amalgamation */\n#define SQLITE_VERSION        \"3.37.2\"\n#define SQLITE_VERSION_NUMBER 3037002\n";
        assert_eq!(declared_version(src).as_deref(), Some("3.37.2"));
        assert_eq!(
            declared_version(b"#define SQLITE_VERSION_NUMBER 3037002\nint main(){}"),
            None
        );
        assert_eq!(declared_version(b"int main() { return 0; }"), None);
        let libsql = b"#define SQLITE_VERSION \"3.47.0\"\n#define LIBSQL_VERSION        \"0.2.3\"\n";
        assert_eq!(declared(libsql, "LIBSQL_VERSION").as_deref(), Some("0.2.3"));
        assert_eq!(declared_version(libsql).as_deref(), Some("3.47.0"));
    }

    /// A release number is the release even where the current directory holds a directory of
    /// that name with a `sqlite3.c` (another user's, compiled and loaded by root otherwise);
    /// a path to such a directory is written as one.
    #[test]
    fn a_release_number_is_never_a_path() {
        let t = tempfile::tempdir().unwrap();
        let planted = t.path().join("3.45.1");
        std::fs::create_dir(&planted).unwrap();
        std::fs::write(planted.join("sqlite3.c"), "#define SQLITE_VERSION \"3.45.1\"\n").unwrap();
        assert_eq!(given("3.45.1"), Given::Release("3.45.1"));
        assert_eq!(given("3.45.1-Os"), Given::Other(Path::new("3.45.1-Os")));
        assert_eq!(given("./3.45.1"), Given::Other(Path::new("./3.45.1")));
        let abs = planted.display().to_string();
        assert_eq!(given(&abs), Given::Other(planted.as_path()));
        // Written as a path, it is that file.
        let sources = t.path().join("sources");
        let a = resolve(&abs, &sources).unwrap();
        assert_eq!((a.path, a.origin.is_none()), (planted.join("sqlite3.c"), true));
    }

    #[test]
    fn a_device_is_not_an_amalgamation() {
        let t = tempfile::tempdir().unwrap();
        let e = resolve("/dev/zero", t.path()).unwrap_err().to_string();
        assert!(e.starts_with("SRC /dev/zero: not a regular file"), "{e}");
    }

    #[test]
    fn a_missing_source_that_is_no_version_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let e = resolve("/nonexistent/sqlite3.c", t.path()).unwrap_err().to_string();
        assert!(e.contains("no such file or directory"), "{e}");
    }
}
