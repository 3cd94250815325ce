//! Where cleanup may act: only inside a run directory, and only in a `--dir` no one else controls.
//!
//! Records left in run directories are read back by a litebench that may run as root. Whoever
//! can write a record decides what that litebench removes or unmounts, so two checks come
//! before any record is believed:
//!
//! - the base directory (`--dir`) must not be writable by another user, and every run directory
//!   in it must be a real directory (not a symbolic link) of the user running litebench and
//!   writable by no one else, as ssh checks the directory of its key files;
//! - every path a record names must lie inside the run directory the record sits in, reached
//!   without `..` and without following a symbolic link anywhere below the run directory.

use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

/// Why a directory or a recorded path is not trusted.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfineError {
    #[error("--dir {path}: other users can write to it (mode {mode:04o}), so records in it could be forged; run `chmod go-w {path}`")]
    WritableByOthers { path: PathBuf, mode: u32 },
    #[error(
        "--dir {path}: owned by uid {uid}, another user, who could forge records in it; use a directory of your own"
    )]
    OwnedByOther { path: PathBuf, uid: u32 },
    #[error("{path}: {why}")]
    Path { path: PathBuf, why: String },
}

fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

/// Checks that no other user can write to `base` (it is followed if a link: it is what `--dir`
/// names). A sticky directory writable by all (like /tmp) passes: others cannot rename or
/// remove what is ours there, and each run directory is checked on its own.
pub fn check_base(base: &Path) -> Result<(), ConfineError> {
    let m = std::fs::metadata(base).map_err(|e| ConfineError::Path {
        path: base.to_path_buf(),
        why: e.to_string(),
    })?;
    let mode = m.mode() & 0o7777;
    if mode & 0o022 != 0 && mode & 0o1000 == 0 {
        return Err(ConfineError::WritableByOthers {
            path: base.to_path_buf(),
            mode,
        });
    }
    if m.uid() != 0 && m.uid() != euid() {
        return Err(ConfineError::OwnedByOther {
            path: base.to_path_buf(),
            uid: m.uid(),
        });
    }
    Ok(())
}

/// Checks a run directory: a real directory (not a link), owned by this user, that no one else
/// can write to.
pub fn check_run_dir(run: &Path) -> Result<(), ConfineError> {
    let refuse = |why: String| ConfineError::Path {
        path: run.to_path_buf(),
        why,
    };
    let m = std::fs::symlink_metadata(run).map_err(|e| refuse(e.to_string()))?;
    if m.file_type().is_symlink() {
        return Err(refuse("a symbolic link, not a run directory litebench made".into()));
    }
    if !m.is_dir() {
        return Err(refuse("not a directory".into()));
    }
    if m.uid() != euid() {
        return Err(refuse(format!(
            "owned by uid {}, not by this user; that user's `litebench cleanup` removes it",
            m.uid()
        )));
    }
    if m.mode() & 0o022 != 0 {
        return Err(refuse(format!(
            "other users can write to it (mode {:04o}), so its records could be forged",
            m.mode() & 0o7777
        )));
    }
    Ok(())
}

/// Checks that `path` lies inside `run` (already checked with [`check_run_dir`]): below it
/// only plain names (no `..`, no `.`, not the run directory itself), and no component below
/// `run` a symbolic link. The last component need not exist; if it does, it is not a link.
pub fn inside(run: &Path, path: &Path) -> Result<(), ConfineError> {
    let refuse = |why: &str| ConfineError::Path {
        path: path.to_path_buf(),
        why: why.to_string(),
    };
    let rest = path
        .strip_prefix(run)
        .map_err(|_| refuse(&format!("outside the run directory {}", run.display())))?;
    let mut names = Vec::new();
    for c in rest.components() {
        match c {
            Component::Normal(n) => names.push(n),
            _ => return Err(refuse("names `..` or `.`, which a record never does")),
        }
    }
    if names.is_empty() {
        return Err(refuse("is the run directory itself, not something in it"));
    }
    let mut at = run.to_path_buf();
    for n in names {
        at.push(n);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(ConfineError::Path {
                    path: at.clone(),
                    why: "a symbolic link, which litebench never makes".into(),
                })
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
            Err(e) => return Err(refuse(&e.to_string())),
        }
    }
    Ok(())
}

/// Whether `path` names something inside `dir` (itself already resolved, as
/// `std::fs::canonicalize` gives it) once resolved as the operating system would open it: a
/// relative path against the working directory, every symbolic link and `..` of its existing
/// part followed. Its part that does not exist yet may hold only plain names. For the user's SQL
/// that names files at run time (a replayed log's `ATTACH`): the file it would open or create.
pub fn resolves_inside(dir: &Path, path: &Path) -> bool {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        match std::env::current_dir() {
            Ok(cwd) => cwd.join(path),
            Err(_) => return false,
        }
    };
    // The longest part that exists, resolved; the names after it appended as they are.
    let mut existing = absolute.as_path();
    let mut missing = Vec::new();
    let resolved = loop {
        match existing.canonicalize() {
            Ok(r) => break r,
            // Something there that does not resolve (a link to nothing yet): where it would
            // lead is not known here.
            Err(_) if std::fs::symlink_metadata(existing).is_ok() => return false,
            Err(_) => {
                let (Some(name), Some(parent)) = (existing.file_name(), existing.parent()) else {
                    return false;
                };
                if !matches!(Path::new(name).components().next(), Some(Component::Normal(_))) {
                    return false;
                }
                missing.push(name);
                existing = parent;
            }
        }
    };
    let full: PathBuf = missing.iter().rev().fold(resolved, |p, n| p.join(n));
    full != dir && full.starts_with(dir)
}

/// A plain file name for a file of the run directory (as [`crate::sys::scratch`] records them).
pub fn plain_name(name: &str) -> bool {
    let mut c = Path::new(name).components();
    matches!((c.next(), c.next()), (Some(Component::Normal(_)), None)) && !name.contains('/')
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn paths_outside_through_dotdot_or_links_are_refused() {
        let t = tempfile::tempdir().unwrap();
        let run = t.path().join("run-1-1");
        std::fs::create_dir(&run).unwrap();
        assert_eq!(inside(&run, &run.join("fs0.img")), Ok(()));
        assert!(inside(&run, Path::new("/etc/passwd")).is_err());
        assert!(inside(&run, &run.join("../victim")).is_err());
        assert!(inside(&run, &run.join("a/../../victim")).is_err());
        assert!(inside(&run, &run).is_err());
        std::os::unix::fs::symlink(t.path(), run.join("link")).unwrap();
        assert!(inside(&run, &run.join("link")).is_err());
        assert!(inside(&run, &run.join("link/victim")).is_err());
        assert!(plain_name("a.db") && !plain_name("../a") && !plain_name("a/b") && !plain_name(".."));
        assert!(!plain_name("") && !plain_name("/a"));
    }

    #[test]
    fn a_path_resolves_inside_only_through_plain_names_and_links_that_stay_inside() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().canonicalize().unwrap();
        let run = dir.join("run");
        std::fs::create_dir(&run).unwrap();
        std::fs::write(run.join("a.db"), b"").unwrap();
        assert!(resolves_inside(&run, &run.join("a.db")));
        assert!(resolves_inside(&run, &run.join("new.db")), "a file not made yet");
        assert!(resolves_inside(&run, &run.join("sub/new.db")));
        assert!(resolves_inside(&run, &dir.join("run/../run/a.db")));
        assert!(!resolves_inside(&run, &run), "the directory itself");
        assert!(!resolves_inside(&run, &run.join("../victim.db")));
        assert!(!resolves_inside(&run, &run.join("nosuch/../../victim.db")));
        assert!(!resolves_inside(&run, Path::new("/etc/passwd")));
        assert!(
            !resolves_inside(&run, Path::new("victim.db")),
            "relative: the working directory"
        );
        std::os::unix::fs::symlink(&dir, run.join("out")).unwrap();
        assert!(!resolves_inside(&run, &run.join("out/victim.db")));
        std::os::unix::fs::symlink(dir.join("victim.db"), run.join("dangling")).unwrap();
        assert!(
            !resolves_inside(&run, &run.join("dangling")),
            "a link to a file not made yet"
        );
    }

    #[test]
    fn directories_others_can_write_to_are_refused_unless_sticky() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(check_base(d), Ok(()));
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = check_base(d).unwrap_err().to_string();
        assert!(e.contains("chmod go-w") && e.contains("0777"), "{e}");
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o1777)).unwrap();
        assert_eq!(check_base(d), Ok(()));
        let run = d.join("run-1-1");
        std::fs::create_dir(&run).unwrap();
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(check_run_dir(&run), Ok(()));
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o775)).unwrap();
        assert!(check_run_dir(&run).is_err());
        std::os::unix::fs::symlink(&run, d.join("run-2-2")).unwrap();
        assert!(check_run_dir(&d.join("run-2-2")).is_err());
    }
}
