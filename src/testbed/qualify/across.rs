//! `qualify --guest`: whether a lock held on one side of the guest's hostfs is seen on the other.
//!
//! The user-mode Linux guest reaches a host directory through hostfs, which passes files and
//! their data to the host but may keep `fcntl` locks in the guest kernel: then a process on
//! the host and one in the guest each get the write lock on the same database, and two writers,
//! one on each side, corrupt it, while every probe run between two processes on one side finds
//! the locks sound. So it is measured, both ways, on one mount: the host holds a POSIX write
//! lock on [`HOST_HELD`] before the guest boots, and a guest process asks for the same byte;
//! then the guest holds one on [`GUEST_HELD`], says so with [`GUEST_READY`], and the host
//! (watching the directory while the guest runs) asks for that byte and writes what it got in
//! [`HOST_SAW`]. Files carry the exchange, never the guest's terminals: input on a guest
//! terminal kills UML on this host (see [`crate::testbed::guest::init`]).

use super::check::Check;
use super::locks::{try_write_lock, Attempt, LockKind};
use serde::Serialize;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// The file the host holds locked while the guest runs; it says `held` once it is.
pub const HOST_HELD: &str = "host-held";
/// The file the guest holds locked while the host asks.
pub const GUEST_HELD: &str = "guest-held";
/// Made by the guest once it holds [`GUEST_HELD`].
pub const GUEST_READY: &str = "guest-held.ready";
/// The host's attempt on [`GUEST_HELD`], one word (the peer's: `conflict`, `locked`,
/// `failed ...`), written whole (to [`HOST_SAW_PART`], then renamed).
pub const HOST_SAW: &str = "guest-held.seen";
const HOST_SAW_PART: &str = "guest-held.seen.part";
/// Every name the exchange makes in the host's directory.
pub const NAMES: [&str; 5] = [HOST_HELD, GUEST_HELD, GUEST_READY, HOST_SAW, HOST_SAW_PART];

/// How long the guest waits for the host's answer; the host watches every 50 ms.
const ANSWER_WAIT: Duration = Duration::from_secs(20);

/// The two directions, as the guest's qualification keeps them.
#[derive(Debug, Clone, Serialize)]
pub struct AcrossHostfs {
    /// A host process holds a write lock; a guest process asks for the same byte.
    pub host_lock_seen_in_guest: Check,
    /// A guest process holds a write lock; a host process asks for the same byte.
    pub guest_lock_seen_on_host: Check,
}

/// The host's side, before the guest boots: creates [`HOST_HELD`] in `dir` and takes a
/// write lock on its first byte, kept as long as the returned file is open (and no other
/// descriptor of this process on it is closed: POSIX locks go with any close). The file says
/// `held`, or why not, for the guest to read.
pub fn hold(dir: &Path) -> io::Result<File> {
    let path = dir.join(HOST_HELD);
    let file = File::options().read(true).write(true).create_new(true).open(&path)?;
    let said = match try_write_lock(&file, LockKind::Posix) {
        Attempt::Locked => "held".to_string(),
        other => format!("the host could not take its lock: {}", other.word()),
    };
    // Through the same descriptor: closing any other one on the file would let the lock go.
    (&file).write_all(said.as_bytes())?;
    Ok(file)
}

/// The host's side while the guest runs (called again and again): once the guest holds its
/// lock, asks for the same byte (letting go at once if granted) and writes what happened.
/// Does nothing before that, or after it has answered.
pub fn answer_guest(dir: &Path) {
    if !dir.join(GUEST_READY).exists() || dir.join(HOST_SAW).exists() {
        return;
    }
    let word = match File::options().read(true).write(true).open(dir.join(GUEST_HELD)) {
        // A lock granted here goes with the file, closed at the end of this arm.
        Ok(f) => try_write_lock(&f, LockKind::Posix).word(),
        Err(e) => format!("failed {e}"),
    };
    let part = dir.join(HOST_SAW_PART);
    if fs::write(&part, word).is_ok() {
        let _ = fs::rename(&part, dir.join(HOST_SAW));
    }
}

/// The guest's side, in the directory the host made (`dir`, seen through hostfs).
pub fn probe_in_guest(dir: &Path) -> AcrossHostfs {
    AcrossHostfs {
        host_lock_seen_in_guest: host_lock_seen(dir),
        guest_lock_seen_on_host: guest_lock_seen(dir, ANSWER_WAIT),
    }
}

fn host_lock_seen(dir: &Path) -> Check {
    let path = dir.join(HOST_HELD);
    match fs::read_to_string(&path) {
        Ok(s) if s == "held" => {}
        Ok(s) => return Check::unknown(s),
        Err(e) => return Check::unknown(format!("{}: {e}", path.display())),
    }
    let file = match File::options().read(true).write(true).open(&path) {
        Ok(f) => f,
        Err(e) => return Check::unknown(format!("the guest cannot open {}: {e}", path.display())),
    };
    match try_write_lock(&file, LockKind::Posix) {
        Attempt::Conflict => Check::yes("a guest process was refused the byte a host process held"),
        Attempt::Locked => Check::no("a guest process was granted the byte a host process held"),
        Attempt::Failed(e) => Check::unknown(format!("the guest's attempt failed: {e}")),
    }
}

fn guest_lock_seen(dir: &Path, wait: Duration) -> Check {
    let path = dir.join(GUEST_HELD);
    let file = match File::options().read(true).write(true).create_new(true).open(&path) {
        Ok(f) => f,
        Err(e) => return Check::unknown(format!("the guest cannot create {}: {e}", path.display())),
    };
    match try_write_lock(&file, LockKind::Posix) {
        Attempt::Locked => {}
        other => return Check::unknown(format!("the guest could not take its lock: {}", other.word())),
    }
    if let Err(e) = File::create(dir.join(GUEST_READY)) {
        return Check::unknown(format!("the guest cannot tell the host it holds its lock: {e}"));
    }
    let start = Instant::now();
    let answer = loop {
        // Listed, not looked up: a name looked up before the host made it could stay unknown
        // to the guest's cache of names.
        let listed = fs::read_dir(dir).is_ok_and(|d| d.flatten().any(|e| e.file_name() == HOST_SAW));
        if listed {
            break fs::read_to_string(dir.join(HOST_SAW)).unwrap_or_else(|e| format!("failed {e}"));
        }
        if start.elapsed() > wait {
            return Check::unknown(format!("the host did not answer within {} s", wait.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    drop(file);
    match answer.as_str() {
        "conflict" => Check::yes("a host process was refused the byte a guest process held"),
        "locked" => Check::no("a host process was granted the byte a guest process held"),
        other => Check::unknown(format!("the host's attempt: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within one process a POSIX lock never conflicts with itself, so both directions are
    /// tested between processes in tests/cli/qualify.rs and tests/fs/qualify.rs; here, what
    /// the host writes and when it answers.
    #[test]
    fn the_host_says_it_holds_its_lock_and_answers_only_once_the_guest_is_ready() {
        let t = tempfile::tempdir().unwrap();
        let held = hold(t.path()).unwrap();
        assert_eq!(fs::read_to_string(t.path().join(HOST_HELD)).unwrap(), "held");
        assert!(hold(t.path()).is_err(), "never over an existing file");
        answer_guest(t.path());
        assert!(!t.path().join(HOST_SAW).exists(), "answered before the guest was ready");
        File::create(t.path().join(GUEST_HELD)).unwrap();
        File::create(t.path().join(GUEST_READY)).unwrap();
        answer_guest(t.path());
        // Nothing holds the guest's file here, so this process is granted it.
        assert_eq!(fs::read_to_string(t.path().join(HOST_SAW)).unwrap(), "locked");
        drop(held);
    }
}
