//! The scratch directory: the only place litebench creates, changes or deletes files.
//!
//! Each run makes a fresh subdirectory `run-<pid>-<time>` inside the base directory (`--dir`,
//! default `./litebench-scratch`, not /tmp, which is often a RAM filesystem), creates its
//! databases there, and removes exactly the files it created, then the subdirectory. Nothing
//! outside it is ever deleted.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Default base directory, relative to the current directory.
pub const DEFAULT_DIR: &str = "litebench-scratch";

/// Sync system calls litebench itself made on workload files (syncing trial copies), so the
/// strace cross-check can account for every sync in the scratch directory.
pub static HARNESS_SYNCS: AtomicU64 = AtomicU64::new(0);

/// A problem with the scratch directory, named with the flag that chose it.
#[derive(Debug, thiserror::Error)]
pub enum ScratchError {
    #[error("--dir {0}: no such directory; create it or give an existing directory")]
    Missing(PathBuf),
    #[error("--dir {0}: not a directory; give a directory")]
    NotDirectory(PathBuf),
    #[error("--dir {path}: cannot create files there ({reason}); give a writable directory")]
    NotWritable { path: PathBuf, reason: String },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// A run's private directory and the files created in it.
#[derive(Debug)]
pub struct Scratch {
    base: PathBuf,
    created_base: bool,
    dir: PathBuf,
}

impl ScratchError {
    /// True when the filesystem ran out of space (or quota).
    pub fn is_disk_full(&self) -> bool {
        matches!(self, ScratchError::Io { source, .. } if matches!(source.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EDQUOT)))
    }
}

impl Scratch {
    /// Creates the run directory under `base` (or the default base, created if missing).
    pub fn create(base: Option<&Path>) -> Result<Scratch, ScratchError> {
        let (base, created_base) = match base {
            Some(b) => {
                if !b.exists() {
                    return Err(ScratchError::Missing(b.to_path_buf()));
                }
                if !b.is_dir() {
                    return Err(ScratchError::NotDirectory(b.to_path_buf()));
                }
                (b.to_path_buf(), false)
            }
            None => {
                let b = PathBuf::from(DEFAULT_DIR);
                let created = !b.exists();
                if created {
                    fs::create_dir(&b).map_err(|e| ScratchError::NotWritable {
                        path: b.clone(),
                        reason: e.to_string(),
                    })?;
                } else if !b.is_dir() {
                    return Err(ScratchError::NotDirectory(b));
                }
                (b, created)
            }
        };
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        let dir = base.join(format!("run-{}-{stamp}", std::process::id()));
        if let Err(e) = fs::create_dir(&dir) {
            return Err(ScratchError::NotWritable {
                path: base,
                reason: e.to_string(),
            });
        }
        // Probe: a directory can accept mkdir yet refuse files (e.g. some read-only overlays).
        let probe = dir.join(".probe");
        if let Err(e) = File::create(&probe) {
            let _ = fs::remove_dir(&dir);
            return Err(ScratchError::NotWritable {
                path: base,
                reason: e.to_string(),
            });
        }
        let _ = fs::remove_file(&probe);
        let dir = dir.canonicalize().unwrap_or(dir);
        Ok(Scratch {
            base,
            created_base,
            dir,
        })
    }

    /// The base directory (`--dir`).
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// This run's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Path of a file in the run directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Copies a template database to a trial file and makes the copy durable, so the trial
    /// does not start with megabytes of dirty page cache that its first fsync would flush.
    ///
    /// The copy is made with plain reads and writes: `fs::copy` and `io::copy` use
    /// `copy_file_range`, which on XFS and btrfs may share the template's extents (a reflink),
    /// so the trial's first writes would pay for copy-on-write the template never did, and the
    /// trial would not start from a file of its own blocks.
    pub fn copy_durable(&self, from: &Path, to: &Path) -> Result<(), ScratchError> {
        let io = |source: std::io::Error| ScratchError::Io {
            path: to.to_path_buf(),
            source,
        };
        let mut src = File::open(from).map_err(|source| ScratchError::Io {
            path: from.to_path_buf(),
            source,
        })?;
        let mut dst = File::options()
            .write(true)
            .create(true)
            .truncate(true)
            .open(to)
            .map_err(io)?;
        copy_blocks(&mut src, &mut dst).map_err(io)?;
        dst.sync_data().map_err(io)?;
        File::open(&self.dir).and_then(|d| d.sync_data()).map_err(io)?;
        HARNESS_SYNCS.fetch_add(2, Ordering::Relaxed);
        Ok(())
    }

    /// Removes a database this run created and the companion files SQLite makes beside it.
    pub fn remove_db(&self, db: &Path) {
        debug_assert!(db.starts_with(&self.dir));
        let name = db.as_os_str().to_owned();
        for suffix in ["", "-journal", "-wal", "-shm"] {
            let mut p = name.clone();
            p.push(suffix);
            let _ = fs::remove_file(PathBuf::from(p));
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // Only an empty directory is removed: anything left is not ours to delete.
        if fs::remove_dir(&self.dir).is_ok() && self.created_base {
            let _ = fs::remove_dir(&self.base);
        }
    }
}

/// Copies every byte of `src` into `dst` through a buffer: new blocks, never shared extents.
pub(crate) fn copy_blocks(src: &mut File, dst: &mut File) -> std::io::Result<u64> {
    use std::io::{Read, Write};
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        let n = match src.read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        dst.write_all(&buf[..n])?;
        total += n as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_byte_identical_across_buffer_boundaries_and_replace_older_content() {
        let t = tempfile::tempdir().unwrap();
        let s = Scratch::create(Some(t.path())).unwrap();
        let (from, to) = (s.path("t.db"), s.path("c.db"));
        let data: Vec<u8> = (0..(3 << 20) + 12345)
            .map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        fs::write(&from, &data).unwrap();
        fs::write(&to, vec![7u8; 5 << 20]).unwrap(); // longer: must be truncated
        s.copy_durable(&from, &to).unwrap();
        assert_eq!(fs::read(&to).unwrap(), data);
        s.remove_db(&from);
        s.remove_db(&to);
    }

    #[test]
    fn refuses_missing_and_non_directories_and_leaves_no_trace() {
        let t = tempfile::tempdir().unwrap();
        assert!(matches!(
            Scratch::create(Some(&t.path().join("nope"))),
            Err(ScratchError::Missing(_))
        ));
        let f = t.path().join("file");
        fs::write(&f, b"x").unwrap();
        assert!(matches!(Scratch::create(Some(&f)), Err(ScratchError::NotDirectory(_))));
        {
            let s = Scratch::create(Some(t.path())).unwrap();
            let db = s.path("a.db");
            fs::write(&db, b"db").unwrap();
            fs::write(s.path("a.db-wal"), b"w").unwrap();
            s.copy_durable(&db, &s.path("b.db")).unwrap();
            s.remove_db(&db);
            s.remove_db(&s.path("b.db"));
        }
        let left: Vec<_> = fs::read_dir(t.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("file")]);
    }

    #[test]
    fn keeps_files_it_did_not_create() {
        let t = tempfile::tempdir().unwrap();
        let s = Scratch::create(Some(t.path())).unwrap();
        let foreign = s.path("someone-elses");
        fs::write(&foreign, b"keep").unwrap();
        drop(s);
        assert_eq!(fs::read(&foreign).unwrap(), b"keep");
    }
}
