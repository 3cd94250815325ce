//! A trial database's files as they stand on disk: the main file's, the write-ahead log's and
//! the shared-memory index's sizes, and the free-page count from the main file's header, read
//! without a connection so that reading them disturbs none.
//!
//! The header is read through one descriptor opened when the trial starts and closed only
//! after every connection of this process to the file has closed: closing *any* descriptor of
//! a file drops every POSIX advisory lock this process holds on it (SQLite's own connections'
//! included, see sqlite.org/howtocorrupt.html, 2.2), so opening and closing the file at each
//! interval would take the workload's locks away from it. The sizes are read with `lstat`,
//! which opens nothing.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Which files an engine keeps beside its database file, and whether that file's header is
/// SQLite's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// SQLite and libSQL: `-wal`, `-shm`, the SQLite header.
    Sqlite,
    /// Turso: `-wal` (its WAL index is in memory: no `-shm`), the SQLite header.
    Turso,
    /// DuckDB: its own log, `.wal`, and a file format of its own (no free-page count).
    DuckDb,
}

/// Where the free-page count is in a SQLite database file's header: 4 bytes, big-endian.
const FREELIST_COUNT_OFFSET: u64 = 36;

/// One reading of the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FileSizes {
    /// Bytes; an absent file is 0.
    pub db_bytes: u64,
    pub wal_bytes: u64,
    /// `None` for an engine without a shared-memory file.
    pub shm_bytes: Option<u64>,
    /// Free pages as the header says; `None` where the header is not SQLite's or could not be
    /// read.
    pub free_pages: Option<u64>,
}

/// A trial database's files, watched.
#[derive(Debug)]
pub struct DbFiles {
    main: PathBuf,
    wal: PathBuf,
    shm: Option<PathBuf>,
    /// The main file, open for its header (see the module's doc: never closed before the
    /// connections are).
    header: Option<File>,
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

impl DbFiles {
    /// Watches `main`'s files. Call it before the trial's first connection opens and drop it
    /// after its last one closed (see the module's doc); `main` is a file litebench made.
    pub fn open(main: &Path, layout: Layout) -> DbFiles {
        let (wal, shm, sqlite_header) = match layout {
            Layout::Sqlite => ("-wal", Some("-shm"), true),
            Layout::Turso => ("-wal", None, true),
            Layout::DuckDb => (".wal", None, false),
        };
        // Read-only, not following a symbolic link, not blocking on what it is.
        let header = sqlite_header
            .then(|| {
                use std::os::unix::fs::OpenOptionsExt;
                std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
                    .open(main)
                    .ok()
                    .filter(|f| f.metadata().is_ok_and(|m| m.is_file()))
            })
            .flatten();
        DbFiles {
            main: main.to_path_buf(),
            wal: with_suffix(main, wal),
            shm: shm.map(|s| with_suffix(main, s)),
            header,
        }
    }

    /// The files' sizes and the free-page count now.
    pub fn read(&self) -> FileSizes {
        let size = |p: &Path| std::fs::symlink_metadata(p).map(|m| m.len()).unwrap_or(0);
        FileSizes {
            db_bytes: size(&self.main),
            wal_bytes: size(&self.wal),
            shm_bytes: self.shm.as_deref().map(size),
            free_pages: self.header.as_ref().and_then(|f| {
                let mut b = [0u8; 4];
                f.read_exact_at(&mut b, FREELIST_COUNT_OFFSET).ok()?;
                Some(u64::from(u32::from_be_bytes(b)))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_of_absent_files_are_zero_and_the_header_is_read_big_endian() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("t.db");
        let mut header = vec![0u8; 100];
        header[36..40].copy_from_slice(&0x0102_0304u32.to_be_bytes());
        std::fs::write(&main, &header).unwrap();
        std::fs::write(dir.path().join("t.db-wal"), [0u8; 4096]).unwrap();
        let got = DbFiles::open(&main, Layout::Sqlite).read();
        assert_eq!(
            got,
            FileSizes {
                db_bytes: 100,
                wal_bytes: 4096,
                shm_bytes: Some(0),
                free_pages: Some(0x0102_0304),
            }
        );
        let duck = DbFiles::open(&main, Layout::DuckDb).read();
        assert_eq!((duck.wal_bytes, duck.shm_bytes, duck.free_pages), (0, None, None));
    }

    #[test]
    fn a_symbolic_link_is_not_opened_for_the_header() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere.db");
        std::fs::write(&target, [7u8; 100]).unwrap();
        let link = dir.path().join("t.db");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(DbFiles::open(&link, Layout::Sqlite).read().free_pages, None);
    }
}
