//! Advisory record locks between two processes: what SQLite's unix VFS builds every lock on.
//!
//! SQLite takes `fcntl` POSIX record locks on byte ranges of the database file (and of `-shm`
//! in WAL mode). Where a filesystem accepts them but does not make them conflict between
//! processes (some FUSE and network filesystems, a container volume whose lock daemon is
//! missing), two writers both "hold" the write lock and the database is corrupted; SQLite's
//! FAQ names NFS for this. So the probe takes a lock in this process and asks a second process
//! ([`super::peer`]) to take the same byte: it must be refused while held, and granted once the
//! holder closes its descriptor (POSIX locks die with any close of the file by their process).
//! Open file description locks (`F_OFD_SETLK`, Linux 3.15) are probed the same way: they are
//! what a process that must lock between its own threads uses.

use super::check::Check;
use super::peer::{Peer, PeerError};
use serde::Serialize;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

/// Which `fcntl` lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockKind {
    /// `F_SETLK`: owned by the process, released by any close of the file in it.
    Posix,
    /// `F_OFD_SETLK`: owned by the open file description.
    Ofd,
}

impl LockKind {
    pub fn name(self) -> &'static str {
        match self {
            LockKind::Posix => "posix",
            LockKind::Ofd => "ofd",
        }
    }
    pub fn parse(s: &str) -> Option<LockKind> {
        match s {
            "posix" => Some(LockKind::Posix),
            "ofd" => Some(LockKind::Ofd),
            _ => None,
        }
    }
}

/// What one attempt at a write lock on the file's first byte did.
#[derive(Debug)]
pub enum Attempt {
    Locked,
    /// Another holder's lock refused it (`EAGAIN` or `EACCES`).
    Conflict,
    Failed(io::Error),
}

impl Attempt {
    /// The peer's one-word answer.
    pub fn word(&self) -> String {
        match self {
            Attempt::Locked => "locked".into(),
            Attempt::Conflict => "conflict".into(),
            Attempt::Failed(e) => format!("failed {e}"),
        }
    }
}

fn first_byte(kind: libc::c_short) -> libc::flock {
    // SAFETY: flock is plain data; every field the call reads is set below.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = kind;
    fl.l_whence = libc::SEEK_SET as libc::c_short;
    fl.l_start = 0;
    fl.l_len = 1;
    fl
}

/// Tries a write lock on `file`'s first byte without waiting.
pub fn try_write_lock(file: &File, kind: LockKind) -> Attempt {
    let fl = first_byte(libc::F_WRLCK as libc::c_short);
    let cmd = match kind {
        LockKind::Posix => libc::F_SETLK,
        LockKind::Ofd => libc::F_OFD_SETLK,
    };
    // SAFETY: a valid descriptor and a flock that lives across the call.
    let rc = unsafe { libc::fcntl(file.as_raw_fd(), cmd, &fl) };
    if rc == 0 {
        return Attempt::Locked;
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EAGAIN) | Some(libc::EACCES) => Attempt::Conflict,
        _ => Attempt::Failed(e),
    }
}

/// The three things a lock kind must do between two processes.
#[derive(Debug, Clone, Serialize)]
pub struct LockChecks {
    /// This process could take it.
    pub taken: Check,
    /// A second process was refused while it was held.
    pub conflicts: Check,
    /// The second process got it once the holder closed the file.
    pub released_on_close: Check,
}

/// Probes `kind` on a new file `path` (created here, in the qualification's own directory).
pub fn probe(path: &Path, kind: LockKind, peer: &mut Peer) -> Result<LockChecks, PeerError> {
    let unknown = |why: &str| Check::unknown(format!("not probed: {why}"));
    let file = match File::options().read(true).write(true).create_new(true).open(path) {
        Ok(f) => f,
        Err(e) => {
            let why = format!("cannot create {}: {e}", path.display());
            return Ok(LockChecks {
                taken: Check::unknown(why.clone()),
                conflicts: unknown(&why),
                released_on_close: unknown(&why),
            });
        }
    };
    let name = kind.name();
    match try_write_lock(&file, kind) {
        Attempt::Locked => {}
        other => {
            let why = format!("this process could not take a {name} lock: {}", other.word());
            return Ok(LockChecks {
                taken: Check::no(why.clone()),
                conflicts: unknown(&why),
                released_on_close: unknown(&why),
            });
        }
    }
    let taken = Check::yes(format!("fcntl {} write lock granted", cmd_name(kind)));
    let while_held = peer.ask(&["lock", name, &path.to_string_lossy()])?;
    let conflicts = match while_held.as_str() {
        "conflict" => Check::yes("a second process was refused the byte this one held"),
        "locked" => Check::no(
            "a second process was granted the byte this one held: locks do not conflict between processes here",
        ),
        other => Check::unknown(format!("the second process's attempt: {other}")),
    };
    drop(file);
    let after_close = peer.ask(&["lock", name, &path.to_string_lossy()])?;
    peer.ask(&["release"])?;
    let released_on_close = match (after_close.as_str(), &conflicts) {
        ("locked", Check::Yes(_)) => Check::yes("granted to the second process once the holder closed the file"),
        ("locked", _) => Check::unknown("the lock never conflicted, so its release shows nothing"),
        ("conflict", _) => Check::no("still refused after the holder closed the file: a stale lock stays behind"),
        (other, _) => Check::unknown(format!("the second process's attempt after the close: {other}")),
    };
    Ok(LockChecks {
        taken,
        conflicts,
        released_on_close,
    })
}

fn cmd_name(kind: LockKind) -> &'static str {
    match kind {
        LockKind::Posix => "F_SETLK",
        LockKind::Ofd => "F_OFD_SETLK",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within one process a POSIX lock never conflicts with itself, while an OFD lock taken
    /// through a second open of the file does: the reason the probe needs a second process.
    #[test]
    fn ofd_locks_conflict_between_descriptions_and_posix_ones_do_not_within_a_process() {
        let dir = std::env::temp_dir().join(format!("lb-locks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let a = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .unwrap();
        let b = File::options().read(true).write(true).open(&path).unwrap();
        assert!(matches!(try_write_lock(&a, LockKind::Posix), Attempt::Locked));
        assert!(matches!(try_write_lock(&b, LockKind::Posix), Attempt::Locked));
        drop((a, b));
        let a = File::options().read(true).write(true).open(&path).unwrap();
        let b = File::options().read(true).write(true).open(&path).unwrap();
        assert!(matches!(try_write_lock(&a, LockKind::Ofd), Attempt::Locked));
        assert!(matches!(try_write_lock(&b, LockKind::Ofd), Attempt::Conflict));
        drop((a, b));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
