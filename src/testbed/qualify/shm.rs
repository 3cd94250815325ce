//! Shared memory between two processes through a mapped file: what WAL mode's `-shm` index is.
//!
//! In WAL mode every connection maps the `-shm` file `MAP_SHARED` and reads the WAL index other
//! processes wrote there without a system call. On a filesystem whose mappings are not coherent
//! between processes (network and some FUSE filesystems, where each process sees its own copy of
//! the pages), a reader misses commits or reads a torn index: WAL is unsafe there, unless one
//! process owns the database (`locking_mode=exclusive`, where SQLite keeps the index in its own
//! heap instead). The probe maps a new file in this process and in a second one, writes a value
//! on each side and reads it on the other, through the mappings only.

use super::check::Check;
use super::peer::{Peer, PeerError};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::ptr::NonNull;

/// Bytes mapped: SQLite's first `-shm` region.
pub const MAP_BYTES: usize = 32 * 1024;
/// Where this process writes (inside the region, 8-byte aligned).
pub const OURS: usize = 128;
/// Where the second process writes.
pub const THEIRS: usize = 4096;

/// A file mapped `MAP_SHARED`, read and written as 64-bit words.
pub struct SharedMap {
    at: NonNull<u8>,
    _file: File,
}

impl SharedMap {
    /// Maps the first [`MAP_BYTES`] of `file` (at least that long).
    pub fn map(file: File) -> io::Result<SharedMap> {
        // SAFETY: a fresh mapping of a valid descriptor; the result is checked.
        let at = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                MAP_BYTES,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if at == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(SharedMap {
            at: NonNull::new(at.cast()).expect("mmap returned null"),
            _file: file,
        })
    }

    /// Opens and maps an existing file.
    pub fn open(path: &Path) -> io::Result<SharedMap> {
        SharedMap::map(File::options().read(true).write(true).open(path)?)
    }

    pub fn read(&self, offset: usize) -> u64 {
        assert!(offset.is_multiple_of(8) && offset + 8 <= MAP_BYTES);
        // SAFETY: in bounds and aligned (asserted); volatile, as another process writes it.
        unsafe { std::ptr::read_volatile(self.at.as_ptr().add(offset).cast::<u64>()) }
    }

    pub fn write(&self, offset: usize, value: u64) {
        assert!(offset.is_multiple_of(8) && offset + 8 <= MAP_BYTES);
        // SAFETY: in bounds and aligned (asserted); volatile, as another process reads it.
        unsafe { std::ptr::write_volatile(self.at.as_ptr().add(offset).cast::<u64>(), value) }
    }
}

impl Drop for SharedMap {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, unmapped once.
        unsafe { libc::munmap(self.at.as_ptr().cast(), MAP_BYTES) };
    }
}

/// Probes a shared mapping of a new file `path` with `peer`.
pub fn probe(path: &Path, peer: &mut Peer) -> Result<Check, PeerError> {
    let made = File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|f| f.set_len(MAP_BYTES as u64).map(|()| f));
    let file = match made {
        Ok(f) => f,
        Err(e) => return Ok(Check::unknown(format!("cannot create {}: {e}", path.display()))),
    };
    let ours = match SharedMap::map(file) {
        Ok(m) => m,
        Err(e) => return Ok(Check::no(format!("mmap MAP_SHARED refused: {e}"))),
    };
    let mine = 0x6c62_7100_0000_0000 | u64::from(std::process::id());
    ours.write(OURS, mine);
    let p = path.to_string_lossy();
    let seen = peer.ask(&["map-read", &p, &OURS.to_string()])?;
    if seen != format!("{mine:x}") {
        peer.ask(&["release"])?;
        return Ok(Check::no(format!(
            "a second process mapping the file read {seen} where this one had written {mine:x}"
        )));
    }
    let theirs = mine.rotate_left(17);
    let wrote = peer.ask(&["map-write", &p, &THEIRS.to_string(), &format!("{theirs:x}")])?;
    let back = ours.read(THEIRS);
    peer.ask(&["release"])?;
    if wrote != "ok" {
        return Ok(Check::unknown(format!("the second process could not write: {wrote}")));
    }
    if back != theirs {
        return Ok(Check::no(format!(
            "this process read {back:x} through its mapping where the second had written {theirs:x}"
        )));
    }
    Ok(Check::yes(
        "each process read the other's write through its own mapping",
    ))
}
