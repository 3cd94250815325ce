//! What SQLite and its users count on from the filesystem besides locks: a rename that replaces
//! a file in one step, `O_DIRECT`, `fallocate`, and a directory that can be synced.
//!
//! None of these decides whether SQLite's own journal modes are safe (SQLite renames nothing),
//! but each is asked about a volume before an application is deployed on it: the rename is how
//! an application replaces a database it downloaded or backed up (`VACUUM INTO` and a rename),
//! `fallocate` is what SQLite's `SQLITE_FCNTL_SIZE_HINT` and `chunk_size` use, `O_DIRECT` is what
//! a cache-bypassing benchmark or a `--cold` run wants, and the unix VFS syncs the directory
//! after creating a journal (DELETE mode's fifth sync in APSys'17's count).

use super::check::Check;
use super::peer::{Peer, PeerError};
use serde::Serialize;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::time::{Duration, Instant};

/// Bytes of each version of the renamed file (all one byte value, so a torn read shows).
const VERSION_BYTES: usize = 4096;
/// How long the second process reads while this one renames.
const RENAME_WINDOW: Duration = Duration::from_millis(300);

/// The filesystem operations probed.
#[derive(Debug, Clone, Serialize)]
pub struct FileOps {
    /// A reader in a second process never found the target missing or mixed while it was
    /// replaced by rename, over and over.
    pub rename_atomic: Check,
    /// A file opened with `O_DIRECT` took an aligned 4 KiB write.
    pub o_direct: Check,
    /// `fallocate` reserved space.
    pub fallocate: Check,
    /// `fsync` of the directory.
    pub dir_fsync: Check,
    /// Median `fsync` of the directory, microseconds, where it worked.
    pub dir_fsync_median_us: Option<f64>,
}

/// Probes each in `work` (the qualification's own directory).
pub fn probe(work: &Path, peer: &mut Peer) -> Result<FileOps, PeerError> {
    let rename_atomic = rename(work, peer)?;
    let (dir_fsync, dir_fsync_median_us) = dir_fsync(work);
    Ok(FileOps {
        rename_atomic,
        o_direct: o_direct(&work.join("direct")),
        fallocate: fallocate(&work.join("fallocate")),
        dir_fsync,
        dir_fsync_median_us,
    })
}

fn version(byte: u8) -> Vec<u8> {
    vec![byte; VERSION_BYTES]
}

fn rename(work: &Path, peer: &mut Peer) -> Result<Check, PeerError> {
    let target = work.join("renamed");
    if let Err(e) = File::create_new(&target).and_then(|mut f| f.write_all(&version(0))) {
        return Ok(Check::unknown(format!("cannot create {}: {e}", target.display())));
    }
    let ms = RENAME_WINDOW.as_millis().to_string();
    let t = target.to_string_lossy();
    let request = ["watch", &*t, &ms];
    peer.send(&request)?;
    let start = Instant::now();
    let mut renames = 0u64;
    let mut failure = None;
    while start.elapsed() < RENAME_WINDOW {
        let next = work.join("renamed.next");
        let byte = (renames % 250 + 1) as u8;
        let made = File::create(&next).and_then(|mut f| f.write_all(&version(byte)));
        if let Err(e) = made.and_then(|()| std::fs::rename(&next, &target)) {
            failure = Some(e);
            break;
        }
        renames += 1;
    }
    let seen = Watched::parse(&peer.answer(&request)?);
    Ok(match (failure, seen) {
        (Some(e), _) => Check::unknown(format!("rename over an existing file failed: {e}")),
        (None, None) => Check::unknown("the second process's reads could not be read back"),
        (None, Some(w)) if w.reads == 0 => Check::unknown("the second process read nothing while the file was renamed"),
        (None, Some(w)) if w.missing + w.torn == 0 => Check::yes(format!(
            "{} reads in a second process during {renames} renames saw a whole old or new file each time",
            w.reads
        )),
        (None, Some(w)) => Check::no(format!(
            "of {} reads in a second process during {renames} renames, {} found no file and {} a mixed one",
            w.reads, w.missing, w.torn
        )),
    })
}

/// What the second process saw while the file was renamed over.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Watched {
    pub reads: u64,
    /// Opens that found no file.
    pub missing: u64,
    /// Reads that found a file of the wrong length or of mixed bytes.
    pub torn: u64,
}

impl Watched {
    pub fn words(&self) -> String {
        format!("reads={} missing={} torn={}", self.reads, self.missing, self.torn)
    }
    pub fn parse(line: &str) -> Option<Watched> {
        let mut w = Watched::default();
        for part in line.split(' ') {
            let (k, v) = part.split_once('=')?;
            let v: u64 = v.parse().ok()?;
            match k {
                "reads" => w.reads = v,
                "missing" => w.missing = v,
                "torn" => w.torn = v,
                _ => return None,
            }
        }
        Some(w)
    }
}

/// The second process's side: reads `path` whole, over and over, for `window`.
pub fn watch(path: &Path, window: Duration) -> Watched {
    let mut w = Watched::default();
    let start = Instant::now();
    let mut buf = Vec::with_capacity(VERSION_BYTES);
    while start.elapsed() < window {
        buf.clear();
        w.reads += 1;
        match File::open(path).and_then(|mut f| f.read_to_end(&mut buf)) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => w.missing += 1,
            Err(_) => w.torn += 1,
            Ok(_) => {
                let whole = buf.len() == VERSION_BYTES && buf.iter().all(|b| *b == buf[0]);
                if !whole {
                    w.torn += 1;
                }
            }
        }
    }
    w
}

fn o_direct(path: &Path) -> Check {
    let file = match File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
    {
        Ok(f) => f,
        Err(e) => return Check::no(format!("open with O_DIRECT refused: {e}")),
    };
    let mut buf = AlignedPage::new();
    buf.bytes().fill(7);
    match file.write_at(buf.bytes(), 0) {
        Ok(n) if n == VERSION_BYTES => Check::yes("an aligned 4 KiB write through O_DIRECT"),
        Ok(n) => Check::no(format!("an aligned 4 KiB write through O_DIRECT wrote {n} bytes")),
        Err(e) => Check::no(format!("an aligned 4 KiB write through O_DIRECT failed: {e}")),
    }
}

/// One 4 KiB page aligned to 4 KiB, as `O_DIRECT` asks.
struct AlignedPage(Box<Page>);

#[repr(C, align(4096))]
struct Page([u8; VERSION_BYTES]);

impl AlignedPage {
    fn new() -> AlignedPage {
        AlignedPage(Box::new(Page([0; VERSION_BYTES])))
    }
    fn bytes(&mut self) -> &mut [u8] {
        &mut self.0 .0
    }
}

fn fallocate(path: &Path) -> Check {
    let file = match File::create_new(path) {
        Ok(f) => f,
        Err(e) => return Check::unknown(format!("cannot create {}: {e}", path.display())),
    };
    let len: libc::off_t = 1 << 20;
    // SAFETY: a valid descriptor; mode 0 reserves and extends.
    let rc = unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, len) };
    if rc == 0 {
        return Check::yes("reserved 1 MiB");
    }
    Check::no(format!("fallocate refused: {}", io::Error::last_os_error()))
}

/// Samples of the directory's `fsync`.
const DIR_SYNCS: usize = 20;

fn dir_fsync(work: &Path) -> (Check, Option<f64>) {
    let dir = match File::open(work) {
        Ok(d) => d,
        Err(e) => return (Check::unknown(format!("cannot open the directory: {e}")), None),
    };
    let mut us = Vec::with_capacity(DIR_SYNCS);
    for _ in 0..DIR_SYNCS {
        let t = Instant::now();
        if let Err(e) = dir.sync_all() {
            return (Check::no(format!("fsync of the directory failed: {e}")), None);
        }
        us.push(t.elapsed().as_secs_f64() * 1e6);
    }
    us.sort_by(f64::total_cmp);
    let median = us[us.len() / 2];
    (
        Check::yes(format!("median {median:.0} µs over {DIR_SYNCS}")),
        Some(median),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_watcher_saw_reads_back_from_its_line() {
        let w = Watched {
            reads: 9,
            missing: 1,
            torn: 2,
        };
        assert_eq!(Watched::parse(&w.words()), Some(w));
        assert_eq!(Watched::parse("reads=x"), None);
        assert_eq!(Watched::parse("failed"), None);
    }
}
