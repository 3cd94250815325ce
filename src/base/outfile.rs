//! An output file appears complete or not at all, and never in place of anything else.
//!
//! litebench runs as root and keeps a user's results for years, so a file it writes for the
//! user (`report -o`, `run --report`, `--plots`, `merge OUT`, `ssb-gen`, build-sqlite's cache)
//! must never destroy what is already there: not the results store named by mistake, not a
//! good report that a full disk would truncate, not whatever a symbolic link points at.
//!
//! So every such file is written to a temporary file created beside its target (`O_CREAT |
//! O_EXCL | O_NOFOLLOW`, mode 0644 before the umask), synced, and put in place with
//! `renameat2(RENAME_NOREPLACE)` (or `link` + `unlink` where the filesystem lacks it): an
//! existing file, directory or symbolic link (dangling or not) at the target is never replaced
//! nor followed, and on any error the temporary file is removed, so nothing appears.
//! [`check`] refuses such a target, and [`refuse_same`] an output that is one of the command's
//! inputs, before anything is measured.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why an output cannot be written; each names the flag and path, and how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("{flag} {path}: already exists; litebench never replaces a file, so remove it or choose another path")]
    Exists { flag: String, path: PathBuf },
    #[error(
        "{flag} {path}: is a symbolic link; litebench never writes through one, so remove it or choose another path"
    )]
    Symlink { flag: String, path: PathBuf },
    #[error("{flag} {path}: is a directory; give a file name inside it or another path")]
    Directory { flag: String, path: PathBuf },
    #[error("{flag} {path}: directory {dir} does not exist; create it or choose another path")]
    NoDirectory { flag: String, path: PathBuf, dir: PathBuf },
    #[error("{flag} {path}: is also {other}; writing it would destroy it, so choose another path")]
    Same { flag: String, path: PathBuf, other: String },
    #[error("{flag} {path}: cannot write: {source}; nothing was written")]
    Write {
        flag: String,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl OutputError {
    /// The error of writing `path` (named by `flag`) that failed with `e`.
    pub fn from_io(flag: &str, path: &Path, e: io::Error) -> OutputError {
        let (flag, path) = (flag.to_string(), path.to_path_buf());
        if e.kind() == io::ErrorKind::AlreadyExists {
            OutputError::Exists { flag, path }
        } else {
            OutputError::Write { flag, path, source: e }
        }
    }
}

/// The directory a file named `path` is in (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Checks, before anything runs, that `path` (named by `flag`) can be written as a new file:
/// nothing exists at it (not even a dangling symbolic link), its directory does, and a file
/// can be created there (tried with a temporary file, removed at once).
pub fn check(flag: &str, path: &Path) -> Result<(), OutputError> {
    let (f, p) = (flag.to_string(), path.to_path_buf());
    if let Ok(m) = path.symlink_metadata() {
        return Err(if m.file_type().is_symlink() {
            OutputError::Symlink { flag: f, path: p }
        } else if m.is_dir() {
            OutputError::Directory { flag: f, path: p }
        } else {
            OutputError::Exists { flag: f, path: p }
        });
    }
    let dir = parent(path);
    if !dir.is_dir() {
        return Err(OutputError::NoDirectory {
            flag: f,
            path: p,
            dir: dir.to_path_buf(),
        });
    }
    OutFile::create(path)
        .map(drop)
        .map_err(|e| OutputError::from_io(flag, path, e))
}

/// Refuses an output `path` (named by `flag`) that is the same file as `other` (described by
/// `what`, e.g. "the results store"): the same resolved path, or the same device and inode
/// (a hard link, a symbolic link).
pub fn refuse_same(flag: &str, path: &Path, what: &str, other: &Path) -> Result<(), OutputError> {
    if same_file(path, other) {
        return Err(OutputError::Same {
            flag: flag.to_string(),
            path: path.to_path_buf(),
            other: format!("{what} {}", other.display()),
        });
    }
    Ok(())
}

/// Whether `a` and `b` name the same file, existing or not: the same device and inode, or the
/// same path once symbolic links and `..` in it are resolved.
pub fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        if x.dev() == y.dev() && x.ino() == y.ino() {
            return true;
        }
    }
    matches!((resolved(a), resolved(b)), (Some(x), Some(y)) if x == y)
}

/// `path` with symbolic links and `..` resolved; for a path that does not exist, its resolved
/// directory joined with its name.
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    Some(parent(path).canonicalize().ok()?.join(path.file_name()?))
}

/// Writes `bytes` as the new file `path`: complete or not at all, never replacing anything.
pub fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = OutFile::create(path)?;
    f.write_all(bytes)?;
    f.commit()
}

/// Replaces `path`, a file litebench made itself and keeps up to date (a record of what a run
/// made), with `bytes`, so a reader finds the old whole file or the new one, never part of one.
/// They are written to `tmp` (the caller's fixed name beside `path`, so a cleanup recognises a
/// temporary file a killed process left), opened without following a symbolic link, synced
/// with the directory when `durable`, then renamed over `path` (`rename` replaces a link at
/// `path` and never follows it).
pub fn replace_own(path: &Path, tmp: &Path, bytes: &[u8], durable: bool) -> io::Result<()> {
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(tmp)?;
    f.write_all(bytes)?;
    if durable {
        f.sync_all()?;
    }
    drop(f);
    std::fs::rename(tmp, path)?;
    if durable {
        sync_dir(parent(path));
    }
    Ok(())
}

/// [`write_new`] for an output named by `flag`, with its error as one line.
pub fn write(flag: &str, path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    write_new(path, bytes).map_err(|e| OutputError::from_io(flag, path, e))
}

/// Distinguishes the temporary files of one process.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// A new file being written: a temporary file beside its target until [`OutFile::commit`]
/// puts it in place; dropped before that, it is removed (with its [`OutFile::companions`]).
#[derive(Debug)]
pub struct OutFile {
    file: Option<File>,
    temp: PathBuf,
    target: PathBuf,
    companions: Vec<PathBuf>,
}

impl OutFile {
    /// Creates the temporary file of `target` in its directory: `.litebench-PID-N.NAME` (so it
    /// keeps the target's extension). Fails with `AlreadyExists` when something is at `target`.
    pub fn create(target: &Path) -> io::Result<OutFile> {
        if target.symlink_metadata().is_ok() {
            return Err(io::Error::from(io::ErrorKind::AlreadyExists));
        }
        let name = target
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
        loop {
            let mut temp_name = format!(
                ".litebench-{}-{}.",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            )
            .into_bytes();
            temp_name.extend_from_slice(name.as_bytes());
            let temp = parent(target).join(std::ffi::OsStr::from_bytes(&temp_name));
            let opened = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o644)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(&temp);
            match opened {
                Ok(file) => {
                    return Ok(OutFile {
                        file: Some(file),
                        temp,
                        target: target.to_path_buf(),
                        companions: Vec::new(),
                    })
                }
                // Left by an earlier process with our pid: take the next name.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The temporary file, for a writer that needs a path (SQLite).
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// Closes this process's descriptor of the temporary file, for a writer that opens it by
    /// its path (SQLite, whose locks closing another descriptor would drop).
    pub fn close(&mut self) {
        drop(self.file.take());
    }

    /// Files named after the temporary file with these suffixes (`-journal`, `-wal`, `-shm`
    /// beside a SQLite database) are removed with it if it is never put in place.
    pub fn companions(&mut self, suffixes: &[&str]) {
        for s in suffixes {
            let mut p = self.temp.clone().into_os_string();
            p.push(s);
            self.companions.push(PathBuf::from(p));
        }
    }

    /// Syncs the file and puts it at its target, unless something is there by now
    /// (`AlreadyExists`); the temporary file is removed whatever happens.
    pub fn commit(mut self) -> io::Result<()> {
        let file = match self.file.take() {
            Some(f) => f,
            None => OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(&self.temp)?,
        };
        file.sync_all()?;
        drop(file);
        place(&self.temp, &self.target)?;
        // In place: nothing left to remove.
        self.temp = PathBuf::new();
        sync_dir(parent(&self.target));
        Ok(())
    }

    /// Like [`OutFile::commit`], but renamed over `record`, a file in the same directory that
    /// litebench made itself and means to update (build-sqlite's cache records). `rename`
    /// replaces a symbolic link at `record` and never follows it.
    pub fn commit_replacing(mut self, record: &Path) -> io::Result<()> {
        let file = self.file.take().expect("an OutFile is committed once");
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.temp, record)?;
        self.temp = PathBuf::new();
        sync_dir(parent(record));
        Ok(())
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.file.as_mut() {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("closed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.as_mut().map_or(Ok(()), |f| f.flush())
    }
}

impl Drop for OutFile {
    fn drop(&mut self) {
        if self.temp.as_os_str().is_empty() {
            return;
        }
        drop(self.file.take());
        let _ = std::fs::remove_file(&self.temp);
        for c in &self.companions {
            let _ = std::fs::remove_file(c);
        }
    }
}

/// Renames `from` to `to` unless something (even a dangling symbolic link) is at `to`, which
/// fails with `AlreadyExists`: `renameat2(RENAME_NOREPLACE)`, or `link` + `unlink` on a
/// filesystem without it (files only; a directory then falls back to `rename`, which replaces
/// nothing but an empty directory).
pub fn place(from: &Path, to: &Path) -> io::Result<()> {
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
    };
    let (cf, ct) = (c(from)?, c(to)?);
    // SAFETY: both are NUL-terminated paths that live across the call.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            cf.as_ptr(),
            libc::AT_FDCWD,
            ct.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if r == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    if !matches!(e.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)) {
        return Err(e);
    }
    if from.symlink_metadata()?.is_dir() {
        if to.symlink_metadata().is_ok() {
            return Err(io::Error::from(io::ErrorKind::AlreadyExists));
        }
        return std::fs::rename(from, to);
    }
    // link() never follows nor replaces what is at `to`.
    std::fs::hard_link(from, to)?;
    let _ = std::fs::remove_file(from);
    Ok(())
}

/// Makes a rename in `dir` durable (best effort: some filesystems cannot sync a directory).
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// The directories one call made for what it writes (a download's source directory and the
/// ones above it that were missing), so that a failure leaves none of them behind: only
/// those this call created are removed, innermost first, and each only while empty.
#[derive(Debug, Default)]
pub struct NewDirs(Vec<PathBuf>);

impl NewDirs {
    /// Creates `dir` and its missing parents, remembering which this call created (not one
    /// another process created meanwhile).
    pub fn create(dir: &Path) -> io::Result<NewDirs> {
        let mut missing = Vec::new();
        let mut at = Some(dir);
        while let Some(d) = at.filter(|d| !d.as_os_str().is_empty() && d.symlink_metadata().is_err()) {
            missing.push(d.to_path_buf());
            at = d.parent();
        }
        let mut made = NewDirs::default();
        for d in missing.into_iter().rev() {
            match std::fs::create_dir(&d) {
                Ok(()) => made.0.push(d),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && d.is_dir() => {}
                Err(e) => {
                    made.remove_empty();
                    return Err(e);
                }
            }
        }
        Ok(made)
    }

    /// Removes the directories this call created, innermost first, each only while empty.
    pub fn remove_empty(self) {
        for d in self.0.iter().rev() {
            if std::fs::remove_dir(d).is_err() {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn only_the_directories_a_call_made_are_removed_and_only_while_empty() {
        let t = tempfile::tempdir().unwrap();
        let kept = t.path().join("kept");
        std::fs::create_dir(&kept).unwrap();
        let made = NewDirs::create(&kept.join("a").join("b")).unwrap();
        assert!(kept.join("a/b").is_dir());
        made.remove_empty();
        assert_eq!(names(&kept), Vec::<String>::new(), "both made, both removed");
        assert!(kept.is_dir(), "the directory that was there stays");
        let made = NewDirs::create(&kept.join("a").join("b")).unwrap();
        std::fs::write(kept.join("a/other"), "x").unwrap();
        made.remove_empty();
        assert_eq!(
            names(&kept.join("a")),
            vec!["other".to_string()],
            "a directory with a file in it stays"
        );
    }

    #[test]
    fn a_new_file_appears_complete_and_nothing_else_is_left() {
        let t = tempfile::tempdir().unwrap();
        let target = t.path().join("r.html");
        let mut f = OutFile::create(&target).unwrap();
        f.write_all(b"half").unwrap();
        assert!(!target.exists(), "not there before commit");
        f.write_all(b" and the rest").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"half and the rest");
        assert_eq!(names(t.path()), ["r.html"]);
    }

    #[test]
    fn dropped_before_commit_leaves_nothing() {
        let t = tempfile::tempdir().unwrap();
        let target = t.path().join("all.db");
        let mut f = OutFile::create(&target).unwrap();
        f.companions(&["-journal"]);
        std::fs::write(format!("{}-journal", f.temp_path().display()), b"j").unwrap();
        f.write_all(b"partial").unwrap();
        drop(f);
        assert_eq!(names(t.path()), Vec::<String>::new());
    }

    #[test]
    fn nothing_at_the_target_is_replaced_or_followed() {
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("file");
        std::fs::write(&file, b"keep").unwrap();
        let dangling = t.path().join("dangling");
        std::os::unix::fs::symlink(t.path().join("nowhere"), &dangling).unwrap();
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let dir = t.path().join("dir");
        std::fs::create_dir(&dir).unwrap();
        for target in [&file, &dangling, &link, &dir] {
            let e = write_new(target, b"new").unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::AlreadyExists, "{}", target.display());
            assert!(check("-o", target).is_err());
        }
        // Something appearing at the target after the temporary file was made.
        let late = t.path().join("late");
        let f = OutFile::create(&late).unwrap();
        std::os::unix::fs::symlink(t.path().join("elsewhere"), &late).unwrap();
        assert_eq!(f.commit().unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&file).unwrap(), b"keep");
        assert!(!t.path().join("nowhere").exists() && !t.path().join("elsewhere").exists());
        assert_eq!(names(t.path()), ["dangling", "dir", "file", "late", "link"]);
    }

    #[test]
    fn the_same_file_by_any_name() {
        let t = tempfile::tempdir().unwrap();
        let store = t.path().join("r.db");
        std::fs::write(&store, b"store").unwrap();
        let hard = t.path().join("hard.db");
        std::fs::hard_link(&store, &hard).unwrap();
        let sym = t.path().join("sym.db");
        std::os::unix::fs::symlink(&store, &sym).unwrap();
        std::fs::create_dir(t.path().join("sub")).unwrap();
        let dotted = t.path().join("sub/../r.db");
        for p in [&store, &hard, &sym, &dotted] {
            assert!(same_file(p, &store), "{}", p.display());
        }
        assert!(!same_file(&t.path().join("other.db"), &store));
        // Neither exists yet: the same path is still the same file.
        let new = t.path().join("new.db");
        assert!(same_file(&t.path().join("sub/../new.db"), &new));
        let e = refuse_same("-o", &hard, "the results store", &store).unwrap_err();
        assert!(e.to_string().contains("is also the results store"), "{e}");
    }
}
