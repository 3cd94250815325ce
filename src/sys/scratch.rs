//! The scratch directory: the only place litebench creates, changes or deletes files.
//!
//! Each run makes a fresh subdirectory `run-<pid>-<time>` inside the base directory (`--dir`,
//! default `./litebench-scratch`, not /tmp, which is often a RAM filesystem), creates its
//! databases there, and removes exactly the files it created, then the subdirectory. Nothing
//! outside it is ever deleted.
//!
//! A run killed with `kill -9` cannot remove what it made, so the run directory holds a record
//! ([`RECORD`]) of its owner (pid, start time, boot id: see [`crate::sys::owner`]) and of the name of
//! every file it is about to create, written before the file exists. `litebench cleanup` and the
//! next run in the same `--dir` remove, once that owner is dead, exactly the files listed (with
//! the `-journal`, `-wal`, `-shm` and `.wal` files engines make beside them), and the directory
//! if nothing else is left in it. The record is replaced atomically (a temporary file renamed
//! over it) but not synced: it changes only when a new name appears, outside timed code.

use crate::sys::owner::Owner;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Name of the record of a run directory's owner and files.
pub const RECORD: &str = "litebench-run.json";

/// The temporary file a new record is written to before it is renamed over [`RECORD`].
const RECORD_TMP: &str = ".litebench-run.json.tmp";

/// Companion files engines create beside a database (SQLite's, DuckDB's).
const COMPANIONS: [&str; 5] = ["", "-journal", "-wal", "-shm", ".wal"];

/// What a run directory holds, as recorded by the run that made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    #[serde(flatten)]
    pub owner: Owner,
    /// Names (in the run directory) of files the run created or was about to create.
    #[serde(default)]
    pub files: BTreeSet<String>,
}

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
    record: Mutex<RunRecord>,
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
                    private_dir(&b).map_err(|e| ScratchError::NotWritable {
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
        if let Err(e) = private_dir(&dir) {
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
        let record = RunRecord {
            owner: Owner::current(),
            files: BTreeSet::new(),
        };
        if let Err(source) = write_record(&dir, &record) {
            let _ = fs::remove_dir(&dir);
            return Err(ScratchError::Io {
                path: dir.join(RECORD),
                source,
            });
        }
        Ok(Scratch {
            base,
            created_base,
            dir,
            record: Mutex::new(record),
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

    /// Path of a file in the run directory, recorded (before the caller creates it) so that
    /// cleanup after a `kill -9` removes it and the files an engine makes beside it.
    pub fn path(&self, name: &str) -> PathBuf {
        let mut record = self.record.lock().unwrap_or_else(|p| p.into_inner());
        if crate::sys::confine::plain_name(name) && record.files.insert(name.to_string()) {
            // A record that cannot be written only means cleanup after a kill -9 leaves this
            // file; the run itself goes on (creating the file reports a full disk).
            let _ = write_record(&self.dir, &record);
        }
        self.dir.join(name)
    }

    /// The scratch directory of trial `trial` (`TRIAL.scratch` in the run directory, mode
    /// 0700), made on first use: what a sidecar writes (`{scratch}`, a replica) is the trial's
    /// own, so no trial starts against what an earlier one left. Another sidecar of the same
    /// trial finds it made; anything else in its place (a symbolic link, another user's
    /// directory, a file) is refused, never used.
    pub fn trial_dir(&self, trial: &str) -> std::io::Result<PathBuf> {
        use std::os::unix::fs::DirBuilderExt;
        let dir = self.trial_dir_path(trial)?;
        match fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && own_dir(&dir) => Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(std::io::Error::other(format!(
                "{} is already there and is not a directory of this user's; litebench makes it itself",
                dir.display()
            ))),
            Err(e) => Err(e),
        }
    }

    /// After trial `trial`: its scratch directory is removed with what is in it when `remove`
    /// (every sidecar said `keep = false`), and otherwise only if nothing was written there.
    pub fn end_trial_dir(&self, trial: &str, remove: bool) {
        let Ok(dir) = self.trial_dir_path(trial) else { return };
        if !own_dir(&dir) {
            return;
        }
        let _ = if remove {
            // Removes what is inside without following a link there.
            fs::remove_dir_all(&dir)
        } else {
            fs::remove_dir(&dir)
        };
    }

    fn trial_dir_path(&self, trial: &str) -> std::io::Result<PathBuf> {
        let name = format!("{trial}.scratch");
        if !crate::sys::confine::plain_name(&name) {
            return Err(std::io::Error::other(format!("{name:?} is not a plain file name")));
        }
        Ok(self.dir.join(name))
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

    /// Removes a database this run created and the companion files SQLite and Turso make
    /// beside it (`-log` is Turso's mvcc mode's log), and takes its name off the record, so the
    /// record lists only what is still there (a run of thousands of trials does not rewrite an
    /// ever longer list).
    pub fn remove_db(&self, db: &Path) {
        debug_assert!(db.starts_with(&self.dir));
        let name = db.as_os_str().to_owned();
        for suffix in ["", "-journal", "-wal", "-shm", "-log"] {
            let mut p = name.clone();
            p.push(suffix);
            let _ = fs::remove_file(PathBuf::from(p));
        }
        if let Some(file) = db.file_name().and_then(|n| n.to_str()) {
            let mut record = self.record.lock().unwrap_or_else(|p| p.into_inner());
            if record.files.remove(file) {
                let _ = write_record(&self.dir, &record);
            }
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // The record goes once no file it lists (nor a companion) is left; anything else still
        // there is not ours to delete (or is kept on purpose) and keeps the directory.
        let ours_gone = self.record.lock().is_ok_and(|r| {
            r.files.iter().all(|f| {
                COMPANIONS
                    .iter()
                    .all(|c| fs::symlink_metadata(self.dir.join(format!("{f}{c}"))).is_err())
            })
        });
        let left = others(&self.dir);
        if left.is_empty() || ours_gone {
            let _ = fs::remove_file(self.dir.join(RECORD));
            let _ = fs::remove_file(self.dir.join(RECORD_TMP));
        }
        // What others made here (a sidecar's replica) keeps the directory. Said once, now: with
        // every file of litebench's gone its record went too, so the next run in `--dir` does
        // not take the directory for a killed run's and say so again.
        if !left.is_empty() && ours_gone {
            let shown: Vec<&str> = left.iter().take(4).map(String::as_str).collect();
            let more = left.len().saturating_sub(shown.len());
            crate::errln!(
                "kept {}: it holds what litebench did not make ({}{}); remove it when you are done with them",
                self.dir.display(),
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            );
        }
        if fs::remove_dir(&self.dir).is_ok() && self.created_base {
            let _ = fs::remove_dir(&self.base);
        }
    }
}

/// Makes a directory no other user can write to whatever the umask (a umask of 002 would make
/// it group-writable, and cleanup trusts the records only in directories others cannot write).
fn private_dir(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new().mode(0o755).create(path)
}

/// The names in `dir` other than this module's record, sorted.
fn others(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n != RECORD && n != RECORD_TMP)
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Whether `dir` is a directory (not a link to one) of this user's.
fn own_dir(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_dir() && m.uid() == crate::sys::own_file::euid())
}

/// Replaces the record in `dir` atomically; never through a symbolic link.
fn write_record(dir: &Path, record: &RunRecord) -> std::io::Result<()> {
    let text = serde_json::to_vec_pretty(record).expect("a record serialises");
    // Not synced: the record changes outside timed code, and a record lost with the machine
    // only leaves files for a cleanup that a reboot's boot id already allows.
    crate::base::outfile::replace_own(&dir.join(RECORD), &dir.join(RECORD_TMP), &text, false)
}

/// What cleaning a dead run's directory did.
#[derive(Debug, Default)]
pub struct Leftovers {
    /// Files removed, by name.
    pub removed: Vec<String>,
    /// What the record names that is not litebench's to remove (a name outside the run
    /// directory, a symbolic link), and why.
    pub refused: Vec<String>,
    /// What the record lists that stays (a directory, a file that cannot be removed), and why.
    pub left: Vec<String>,
    /// Names in the run directory already reported in `refused` or `left`.
    pub reported: BTreeSet<String>,
}

/// Reads the record of a run directory, if it has one.
pub fn read_record(run: &Path) -> Option<Result<RunRecord, String>> {
    let path = run.join(RECORD);
    let text = match fs::read(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => return Some(Err(format!("{}: {e}", path.display()))),
    };
    Some(serde_json::from_slice(&text).map_err(|e| format!("{}: not a litebench record ({e})", path.display())))
}

/// Removes the files a dead run's record lists (plain regular files in `run` only; a name that
/// is a directory or a symbolic link stays), and its record. The caller has checked the run
/// directory itself ([`crate::sys::confine::check_run_dir`]) and that the owner is dead.
pub fn remove_listed(run: &Path, record: &RunRecord) -> Leftovers {
    let mut done = Leftovers::default();
    for name in &record.files {
        if !crate::sys::confine::plain_name(name) {
            done.refused.push(format!(
                "{}: names {name:?}, not a file of the run directory",
                run.join(RECORD).display()
            ));
            continue;
        }
        for suffix in COMPANIONS {
            let file = format!("{name}{suffix}");
            let path = run.join(&file);
            match fs::symlink_metadata(&path) {
                Ok(m) if m.file_type().is_file() => match fs::remove_file(&path) {
                    Ok(()) => done.removed.push(file),
                    Err(e) => {
                        done.left.push(format!("{}: cannot remove ({e})", path.display()));
                        done.reported.insert(file);
                    }
                },
                Ok(m) if m.file_type().is_symlink() => {
                    done.refused.push(format!(
                        "{}: a symbolic link, which litebench never makes",
                        path.display()
                    ));
                    done.reported.insert(file);
                }
                Ok(_) => {
                    done.left
                        .push(format!("{}: not a plain file, so not removed", path.display()));
                    done.reported.insert(file);
                }
                Err(_) => {}
            }
        }
    }
    let _ = fs::remove_file(run.join(RECORD_TMP));
    let _ = fs::remove_file(run.join(RECORD));
    done
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
        let listed = |s: &Scratch| {
            read_record(s.dir())
                .unwrap()
                .unwrap()
                .files
                .into_iter()
                .collect::<Vec<_>>()
        };
        assert_eq!(listed(&s), ["c.db"], "a removed database leaves the record");
        s.remove_db(&to);
        assert!(listed(&s).is_empty());
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
        let foreign = s.dir().join("someone-elses");
        fs::write(&foreign, b"keep").unwrap();
        let dir = s.dir().to_path_buf();
        drop(s);
        assert_eq!(fs::read(&foreign).unwrap(), b"keep");
        // With nothing of litebench's left, the record goes: the directory is not a killed
        // run's for the next run's cleanup to report again.
        assert!(!dir.join(RECORD).exists());
    }

    #[test]
    fn a_record_stays_while_a_file_it_lists_is_there() {
        let t = tempfile::tempdir().unwrap();
        let s = Scratch::create(Some(t.path())).unwrap();
        let ours = s.path("trial.db");
        fs::write(&ours, b"ours").unwrap();
        fs::write(s.dir().join("someone-elses"), b"keep").unwrap();
        let dir = s.dir().to_path_buf();
        drop(s);
        assert!(dir.join(RECORD).exists());
        assert!(ours.exists());
    }

    #[test]
    fn a_dead_runs_listed_files_and_their_companions_go_and_nothing_else() {
        let t = tempfile::tempdir().unwrap();
        let s = Scratch::create(Some(t.path())).unwrap();
        let db = s.path("crud-template.db");
        fs::write(&db, b"db").unwrap();
        fs::write(s.path("crud-template.db").with_extension("db-journal"), b"j").unwrap();
        fs::write(s.dir().join("users-file"), b"keep").unwrap();
        std::os::unix::fs::symlink("/etc/hostname", s.dir().join("t.db-wal")).unwrap();
        let _ = s.path("t.db");
        let record = read_record(s.dir()).unwrap().unwrap();
        assert_eq!(record.owner, Owner::current());
        assert_eq!(
            record.files.iter().map(String::as_str).collect::<Vec<_>>(),
            ["crud-template.db", "t.db"]
        );
        let dir = s.dir().to_path_buf();
        std::mem::forget(s); // as kill -9 would
        let done = remove_listed(&dir, &record);
        assert_eq!(done.removed, ["crud-template.db", "crud-template.db-journal"]);
        assert_eq!(done.refused.len(), 1, "the symbolic link is left: {:?}", done.refused);
        let mut left: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, ["t.db-wal", "users-file"]);
    }
}
