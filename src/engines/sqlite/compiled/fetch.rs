//! A catalogued release's `sqlite3.c`, fetched from the registry archive that carries it best
//! ([`super::releases`]) and checked three times: the archive's SHA-256 before anything is
//! extracted, the file's `SQLITE_VERSION`, and the file's SHA3-256 (the value measured when the
//! catalogue was made, which for a pristine source is also the one SQLite's release notes
//! publish). A file extracted before is reused only after its SHA3-256 is checked again.

use super::releases::{Registry, Release, Source};
use super::BuildError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What was fetched (or found, checked, in the sources directory).
#[derive(Debug, Clone)]
pub struct Fetched {
    pub path: PathBuf,
    pub source: &'static Source,
}

/// SHA3-256 of `bytes` as lowercase hex.
pub fn sha3_hex(bytes: &[u8]) -> String {
    use sha3::Digest;
    sha3::Sha3_256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The archive's URL on its registry.
pub fn url(s: &Source) -> String {
    match s.registry {
        Registry::Npm => {
            let base = s.package.rsplit('/').next().unwrap_or(s.package);
            format!("https://registry.npmjs.org/{}/-/{base}-{}.tgz", s.package, s.version)
        }
        Registry::Crate => format!(
            "https://static.crates.io/crates/{0}/{0}-{1}.crate",
            s.package, s.version
        ),
        Registry::Go => format!("https://proxy.golang.org/{}/@v/{}.zip", s.package, s.version),
        // PyPI's file addresses hold a hash; the project's JSON names each release's sdist.
        Registry::PyPi => format!("https://pypi.org/pypi/{}/json", s.package),
    }
}

/// The sdist of `version` in a PyPI project's JSON (`releases.VERSION[]` with `packagetype`
/// `sdist`).
fn pypi_sdist(json: &[u8], version: &str) -> Option<String> {
    let j: serde_json::Value = serde_json::from_slice(json).ok()?;
    j["releases"][version]
        .as_array()?
        .iter()
        .find(|f| f["packagetype"] == "sdist")?["url"]
        .as_str()
        .map(str::to_string)
}

/// Downloads `url` into `to` with curl.
fn download(v: &str, url: &str, to: &Path) -> Result<(), BuildError> {
    let got = Command::new("curl")
        .args(["-fsSL", "--connect-timeout", "15", "--max-time", "300", "-o"])
        .arg(to)
        .arg(url)
        .output()
        .map_err(|e| BuildError::Download(format!("SRC {v}: cannot run curl to fetch {url} ({e}); install curl")))?;
    if got.status.success() {
        return Ok(());
    }
    Err(BuildError::Download(format!(
        "SRC {v}: cannot download {url} ({})",
        String::from_utf8_lossy(&got.stderr).trim().replace('\n', " ")
    )))
}

/// `sources/<release>/sqlite3.c` of `release`, from its best source.
pub fn fetch(release: &Release, sources: &Path) -> Result<Fetched, BuildError> {
    let v = release.version;
    if release.sources.is_empty() {
        return Err(BuildError::Input(format!(
            "SRC {v}: no package registry litebench knows holds SQLite {v} (`litebench list sqlite-releases` shows which do); pass its sqlite3.c yourself"
        )));
    }
    let dir = sources.join(v);
    let out = dir.join("sqlite3.c");
    if out.is_file() {
        let bytes = std::fs::read(&out).map_err(BuildError::io(out.display().to_string()))?;
        let sum = sha3_hex(&bytes);
        if let Some(source) = release.sources.iter().find(|s| s.sqlite3_c_sha3 == sum) {
            return Ok(Fetched { path: out, source });
        }
        return Err(BuildError::Input(format!(
            "SRC {v}: {} has SHA3-256 {sum}, which no catalogued source of SQLite {v} has; remove that file (litebench fetches it again)",
            out.display()
        )));
    }
    // A failed fetch leaves none of the directories it made (only those, only while empty).
    let made = crate::base::outfile::NewDirs::create(&dir).map_err(BuildError::io(dir.display().to_string()))?;
    let fetched = fetch_into(release, &dir, &out);
    if fetched.is_err() {
        made.remove_empty();
    }
    fetched
}

/// [`fetch`]'s download into `dir`, which exists.
fn fetch_into(release: &Release, dir: &Path, out: &Path) -> Result<Fetched, BuildError> {
    let v = release.version;
    // The best source first; one that cannot be downloaded gives way to the next.
    let mut first_error = None;
    for s in release.sources {
        let part = dir.join(format!(".archive.{}.part", std::process::id()));
        let result = archive(v, s, &part)
            .and_then(|()| extract(release, s, &part))
            .and_then(|content| super::source::write_new(dir, out, &content))
            .map(|()| Fetched {
                path: out.to_path_buf(),
                source: s,
            });
        let _ = std::fs::remove_file(&part);
        match result {
            Ok(f) => return Ok(f),
            Err(e @ BuildError::Download(_)) => {
                first_error.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
    }
    Err(first_error.expect("a release with sources"))
}

/// Downloads source `s`'s archive into `part` (for PyPI, through the project's JSON).
fn archive(v: &str, s: &Source, part: &Path) -> Result<(), BuildError> {
    let url = url(s);
    if s.registry != Registry::PyPi {
        return download(v, &url, part);
    }
    download(v, &url, part)?;
    let json = std::fs::read(part).map_err(BuildError::io(part.display().to_string()))?;
    let sdist = pypi_sdist(&json, s.version).ok_or_else(|| {
        BuildError::Download(format!(
            "SRC {v}: PyPI lists no sdist of {} {} ({url})",
            s.package, s.version
        ))
    })?;
    download(v, &sdist, part)
}

/// Checks `archive` against the pin, then takes `sqlite3.c` out of it and checks that.
pub(crate) fn extract(release: &Release, s: &Source, path: &Path) -> Result<Vec<u8>, BuildError> {
    let v = release.version;
    let archive = &std::fs::read(path).map_err(BuildError::io(path.display().to_string()))?[..];
    let from = format!("{} {}@{}", s.registry.name(), s.package, s.version);
    let sum = super::sha256_hex(archive);
    if sum != s.sha256 {
        return Err(BuildError::Download(format!(
            "SRC {v}: {from} has SHA-256 {sum}, not the pinned {}; not using it",
            s.sha256
        )));
    }
    let content = match (s.registry, s.member.split_once('>')) {
        (Registry::Go, _) => strip_go_wrapper(&unzip_member(path, s.member)?).ok_or_else(|| {
            BuildError::Download(format!(
                "SRC {v}: {} in {from} is not wrapped as go-sqlite3 wraps it",
                s.member
            ))
        })?,
        (_, None) => tar_member(archive, s.member)?,
        (_, Some((outer, inner))) => tar_member(&tar_member(archive, outer)?, inner)?,
    };
    match super::source::declared_version(&content) {
        Some(d) if d == v => {}
        other => {
            return Err(BuildError::Download(format!(
                "SRC {v}: {} in {from} declares SQLite {}, not {v}",
                s.member,
                other.as_deref().unwrap_or("no version")
            )))
        }
    }
    let sha3 = sha3_hex(&content);
    if sha3 != s.sqlite3_c_sha3 {
        return Err(BuildError::Download(format!(
            "SRC {v}: {} in {from} has SHA3-256 {sha3}, not the catalogued {}; not using it",
            s.member, s.sqlite3_c_sha3
        )));
    }
    Ok(content)
}

/// go-sqlite3's `sqlite3-binding.c` without its wrapper: the first line `#ifndef
/// USE_LIBSQLITE3` and everything from `#else // USE_LIBSQLITE3` on (the `#else` branch is
/// empty; what follows the `#endif` is go-sqlite3's own code). `None` when it is not so wrapped.
pub fn strip_go_wrapper(bytes: &[u8]) -> Option<Vec<u8>> {
    const FIRST: &[u8] = b"#ifndef USE_LIBSQLITE3\n";
    const ELSE: &[u8] = b"\n#else // USE_LIBSQLITE3";
    let body = bytes.strip_prefix(FIRST)?;
    let end = body.windows(ELSE.len()).rposition(|w| w == ELSE)?;
    Some(body[..=end].to_vec())
}

/// One member of a zip archive, with `unzip` (as `build-sqlite` reads a zipped amalgamation).
fn unzip_member(zip: &Path, member: &str) -> Result<Vec<u8>, BuildError> {
    let out = Command::new("unzip")
        .arg("-p")
        .arg(zip)
        .arg(member)
        .output()
        .map_err(|e| {
            BuildError::Download(format!(
                "cannot run unzip to unpack {member} ({e}); install it (apt-get install unzip)"
            ))
        })?;
    if !out.status.success() || out.stdout.is_empty() {
        return Err(BuildError::Download(format!("cannot unpack {member} from the zip")));
    }
    Ok(out.stdout)
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
    #[test]
    fn a_pypi_release_is_fetched_by_the_sdist_its_json_names() {
        let json = br#"{"releases": {"3.47.0": [
            {"packagetype": "bdist_wheel", "url": "https://x/w.whl"},
            {"packagetype": "sdist", "url": "https://x/sqlean_py-3.47.0.tar.gz"}]}}"#;
        assert_eq!(
            pypi_sdist(json, "3.47.0").as_deref(),
            Some("https://x/sqlean_py-3.47.0.tar.gz")
        );
        assert_eq!(pypi_sdist(json, "3.45.0"), None);
        assert_eq!(pypi_sdist(b"not json", "3.47.0"), None);
    }

    use super::super::releases::{find, Pristine};
    use super::*;

    #[test]
    fn go_wrapper_is_stripped_to_the_amalgamation() {
        let wrapped = b"#ifndef USE_LIBSQLITE3\n/* amalgamation */\nint x;\n#else // USE_LIBSQLITE3\n // noop\n #endif\n/* userauth */\n";
        assert_eq!(strip_go_wrapper(wrapped).unwrap(), b"/* amalgamation */\nint x;\n");
        assert!(strip_go_wrapper(b"/* amalgamation */\nint x;\n").is_none());
        assert!(strip_go_wrapper(b"#ifndef USE_LIBSQLITE3\nint x;\n").is_none());
    }

    /// An archive that is not the pinned one is refused before anything is extracted.
    #[test]
    fn a_wrong_archive_checksum_is_refused_before_extraction() {
        let r = find("3.45.1").unwrap();
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("a"), b"not the archive").unwrap();
        let e = extract(r, r.best().unwrap(), &t.path().join("a"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not the pinned") && e.starts_with("SRC 3.45.1: "), "{e}");
    }

    /// A file whose SHA3-256 is not the catalogued one is refused, though its archive matched.
    #[test]
    fn a_sha3_mismatch_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("pkg");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("sqlite3.c"), b"#define SQLITE_VERSION \"3.45.1\"\n").unwrap();
        let tgz = t.path().join("a.tgz");
        assert!(Command::new("tar")
            .arg("-czf")
            .arg(&tgz)
            .arg("-C")
            .arg(t.path())
            .arg("pkg")
            .status()
            .unwrap()
            .success());
        let archive = std::fs::read(&tgz).unwrap();
        let archive_path = tgz.clone();
        let sha256: &'static str = Box::leak(super::super::sha256_hex(&archive).into_boxed_str());
        let real = find("3.45.1").unwrap();
        let s: &'static Source = Box::leak(Box::new(Source {
            sha256,
            member: "pkg/sqlite3.c",
            registry: Registry::Npm,
            pristine: Pristine::Upstream,
            ..*real.best().unwrap()
        }));
        let e = extract(real, s, &archive_path).unwrap_err().to_string();
        assert!(e.contains("has SHA3-256") && e.contains("not the catalogued"), "{e}");
        // A cached file another hand changed is not reused.
        let sources = t.path().join("sources");
        std::fs::create_dir_all(sources.join("3.45.1")).unwrap();
        std::fs::write(sources.join("3.45.1/sqlite3.c"), b"changed").unwrap();
        let e = fetch(real, &sources).unwrap_err().to_string();
        assert!(e.contains("which no catalogued source of SQLite 3.45.1 has"), "{e}");
    }
}
