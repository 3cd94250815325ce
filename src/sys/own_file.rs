//! Files only this user can have written: what litebench reads back and acts on by itself.
//!
//! A file litebench finds and acts on without being named on the command line (a side file the
//! next run imports and then removes) was written by whoever could write it. Another user who
//! can create files in the directory (a shared `--dir`, a world-writable sticky one like /tmp)
//! could plant one, and litebench, perhaps running as root, would import it into the user's
//! store and delete it. So such a file is acted on only when it is this user's own, as ssh
//! treats key files: its directory writable by no other user (a sticky bit does not help here:
//! others may still create files in it), the file a regular file owned by this user, writable
//! by no one else. The file is checked on the open descriptor it is read from (`fstat`, opened
//! without following a link), so it cannot be swapped between the check and the read; and it is
//! removed only while its name still leads to that same file ([`still_the_same`]).

use std::fs::{File, Metadata, OpenOptions};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Why a file or its directory is not this user's alone.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum NotOwnError {
    #[error("its directory {dir} can be written by other users (mode {mode:04o})")]
    DirWritableByOthers { dir: PathBuf, mode: u32 },
    #[error("its directory {dir} belongs to uid {uid}, not to this user (uid {euid}) or root")]
    DirOwnedByOther { dir: PathBuf, uid: u32, euid: u32 },
    #[error("it belongs to uid {uid}, not to this user (uid {euid})")]
    OwnedByOther { uid: u32, euid: u32 },
    #[error("other users can write to it (mode {mode:04o})")]
    WritableByOthers { mode: u32 },
    #[error("not a regular file")]
    NotRegular,
    #[error("cannot read it ({0})")]
    Io(String),
}

/// This process's effective user id: whose files are its own.
pub fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

/// Checks that no other user can write to `dir` (followed if a link: it is what `--dir` names):
/// owned by this user or root, writable by neither group nor others, sticky or not.
pub fn check_dir(dir: &Path) -> Result<(), NotOwnError> {
    let m = std::fs::metadata(dir).map_err(|e| NotOwnError::Io(e.to_string()))?;
    let mode = m.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(NotOwnError::DirWritableByOthers {
            dir: dir.to_path_buf(),
            mode,
        });
    }
    if m.uid() != 0 && m.uid() != euid() {
        return Err(NotOwnError::DirOwnedByOther {
            dir: dir.to_path_buf(),
            uid: m.uid(),
            euid: euid(),
        });
    }
    Ok(())
}

/// Whether what an open file's `fstat` says makes it this user's own file.
fn check_file(m: &Metadata) -> Result<(), NotOwnError> {
    if !m.file_type().is_file() {
        return Err(NotOwnError::NotRegular);
    }
    if m.uid() != euid() {
        return Err(NotOwnError::OwnedByOther {
            uid: m.uid(),
            euid: euid(),
        });
    }
    let mode = m.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(NotOwnError::WritableByOthers { mode });
    }
    Ok(())
}

/// An open file that was this user's own when opened, and how to recognise it later.
#[derive(Debug)]
pub struct OwnFile {
    pub file: File,
    dev: u64,
    ino: u64,
}

/// Opens `path` for reading without following a symbolic link (nor blocking on a FIFO), and
/// checks on the descriptor that it is a regular file of this user that no one else can write.
pub fn open(path: &Path) -> Result<OwnFile, NotOwnError> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => NotOwnError::NotRegular,
            _ => NotOwnError::Io(e.to_string()),
        })?;
    let m = file.metadata().map_err(|e| NotOwnError::Io(e.to_string()))?;
    check_file(&m)?;
    Ok(OwnFile {
        file,
        dev: m.dev(),
        ino: m.ino(),
    })
}

impl OwnFile {
    /// Whether `path` still names this very file (not a link, not another file put there since)
    /// and it is still this user's own.
    pub fn still_the_same(&self, path: &Path) -> bool {
        std::fs::symlink_metadata(path)
            .is_ok_and(|m| m.dev() == self.dev && m.ino() == self.ino && check_file(&m).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn chmod(p: &Path, mode: u32) {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_directory_others_can_write_is_refused_even_when_sticky() {
        let t = tempfile::tempdir().unwrap();
        chmod(t.path(), 0o755);
        assert_eq!(check_dir(t.path()), Ok(()));
        for mode in [0o1777, 0o775, 0o757] {
            chmod(t.path(), mode);
            assert_eq!(
                check_dir(t.path()),
                Err(NotOwnError::DirWritableByOthers {
                    dir: t.path().to_path_buf(),
                    mode
                })
            );
        }
        chmod(t.path(), 0o700);
    }

    #[test]
    fn a_file_others_can_write_or_a_link_is_refused_and_a_replaced_file_is_not_the_same() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("a.json");
        std::fs::write(&f, "{}").unwrap();
        chmod(&f, 0o644);
        let own = open(&f).unwrap();
        assert!(own.still_the_same(&f));
        chmod(&f, 0o666);
        assert_eq!(open(&f).unwrap_err(), NotOwnError::WritableByOthers { mode: 0o666 });
        assert!(!own.still_the_same(&f), "writable by others now");
        chmod(&f, 0o644);
        let link = t.path().join("link.json");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        assert_eq!(open(&link).unwrap_err(), NotOwnError::NotRegular);
        assert!(!own.still_the_same(&link), "a link to it is not it");
        std::fs::remove_file(&f).unwrap();
        std::fs::write(&f, "{}").unwrap();
        chmod(&f, 0o644);
        assert!(!own.still_the_same(&f), "another file under the same name");
        assert!(matches!(open(t.path()), Err(NotOwnError::NotRegular)));
    }
}
