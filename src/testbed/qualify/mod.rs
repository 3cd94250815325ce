//! `litebench qualify --dir D`: can SQLite run in this directory, in which journal modes, and
//! how fast can it commit?
//!
//! The deployment disk decides more about SQLite than anything else, and the disk people deploy
//! on (a cloud volume, a container's, a FUSE or network filesystem) is rarely the one they
//! benchmarked on. The qualification probes, in a directory of its own under D, what SQLite
//! relies on there: `fcntl` locks between two processes ([`locks`]), a `MAP_SHARED` mapping
//! between them ([`shm`]), SQLite's own locking end to end ([`sqlite_locks`]), the filesystem
//! operations applications count on ([`files`]), the sync latency and the commit rate per
//! journal mode and `synchronous` level ([`commits`]); then gives a verdict per journal mode
//! ([`verdict`]). The second process is litebench itself ([`peer`] starts and asks it,
//! [`serve`] answers). Run inside the user-mode Linux guest on a host directory (`qualify
//! --guest`), it also asks whether a lock held on the host is seen in the guest and the other
//! way round ([`across`]).
//!
//! It creates one directory, `.litebench-qualify-PID-N`, created exclusively and private
//! (mode 0700), and removes from it only the files it made before removing it; a directory it
//! cannot empty is left and named.

pub mod across;
pub mod check;
pub mod commits;
pub mod files;
pub mod locks;
pub mod peer;
pub mod serve;
pub mod shm;
pub mod sqlite_locks;
pub mod verdict;

use check::Check;
use litebench_env::{Environment, SyncLatency};
use serde::Serialize;
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Everything found, and the verdicts.
#[derive(Debug, Clone, Serialize)]
pub struct Qualification {
    /// The machine and the storage under the directory, as `litebench env` describes them.
    pub environment: Environment,
    pub posix_locks: locks::LockChecks,
    pub ofd_locks: locks::LockChecks,
    /// A `MAP_SHARED` mapping of one file seen alike by two processes (what WAL's `-shm` is).
    pub shared_memory: Check,
    pub sqlite: sqlite_locks::SqliteLocking,
    pub files: files::FileOps,
    /// `pwrite` of 4 KiB + `fdatasync`, as `litebench env` measures it; `None` where it failed
    /// (the reason is in `notes`).
    pub sync_latency: Option<SyncLatency>,
    /// Commits per journal mode and `synchronous` level.
    pub commits: Vec<commits::CommitRate>,
    pub verdicts: Vec<verdict::ModeVerdict>,
    /// Inside the guest on a host directory (`--guest`): whether locks held on one side of
    /// hostfs are seen on the other. Absent elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub across_hostfs: Option<across::AcrossHostfs>,
    /// What could not be probed, one line each.
    pub notes: Vec<String>,
    /// How long the qualification took, seconds.
    pub seconds: f64,
}

/// Why there is no qualification at all.
#[derive(Debug, thiserror::Error)]
pub enum QualifyError {
    #[error("cannot describe its storage: {0}")]
    Env(#[from] litebench_env::EnvError),
    #[error("cannot create a directory of its own there ({0}); give a directory you can write")]
    Work(io::Error),
    #[error(transparent)]
    Peer(#[from] peer::PeerError),
    /// A stop was asked (Ctrl-C; in the guest, the host's stop request) between two probes.
    #[error("interrupted")]
    Interrupted,
}

/// Between two probes: stops once a stop was asked, so the directory is still emptied.
fn go_on() -> Result<(), QualifyError> {
    if crate::sys::signals::stop_requested() {
        return Err(QualifyError::Interrupted);
    }
    Ok(())
}

/// Samples and time for the sync latency (as `litebench env` takes it).
const SYNC_SAMPLES: usize = 1000;
const SYNC_TIME: Duration = Duration::from_secs(2);

/// Qualifies `dir`, starting `program` (this litebench) as the second process. `across`: in
/// the guest, the directory where the host holds its side of [`across`].
pub fn qualify(dir: &Path, program: &Path, across: Option<&Path>) -> Result<Qualification, QualifyError> {
    let start = Instant::now();
    let environment = litebench_env::capture(dir)?;
    let work = Work::create(dir).map_err(QualifyError::Work)?;
    let found = probe(&work.dir, program, environment);
    let left = work.remove();
    // A peer killed by the same Ctrl-C stops answering: that is the stop, not its failure.
    let mut q = found.map_err(|e| match e {
        QualifyError::Peer(_) if crate::sys::signals::stop_requested() => QualifyError::Interrupted,
        e => e,
    })?;
    q.across_hostfs = across.map(across::probe_in_guest);
    q.notes.extend(left);
    q.notes.extend(verdict::lock_scope(&q.environment.storage));
    q.verdicts = verdict::verdicts(&q);
    q.seconds = start.elapsed().as_secs_f64();
    Ok(q)
}

/// Every probe in `work`; the verdicts are filled in by [`qualify`].
fn probe(work: &Path, program: &Path, environment: Environment) -> Result<Qualification, QualifyError> {
    let mut peer = peer::Peer::start(program)?;
    let posix_locks = locks::probe(&work.join("posix-lock"), locks::LockKind::Posix, &mut peer)?;
    go_on()?;
    let ofd_locks = locks::probe(&work.join("ofd-lock"), locks::LockKind::Ofd, &mut peer)?;
    go_on()?;
    let shared_memory = shm::probe(&work.join("map-shm"), &mut peer)?;
    go_on()?;
    let sqlite = sqlite_locks::probe(
        &work.join("rollback.db"),
        &work.join("wal.db"),
        &work.join("exclusive.db"),
        &mut peer,
    )?;
    go_on()?;
    let files = files::probe(work, &mut peer)?;
    drop(peer);
    go_on()?;
    let mut notes = Vec::new();
    let sync_latency = match litebench_env::measure_sync_latency(work, SYNC_SAMPLES, SYNC_TIME) {
        Ok(s) => Some(s),
        Err(e) => {
            notes.push(format!("sync latency not measured: {e}"));
            None
        }
    };
    go_on()?;
    let median = sync_latency.as_ref().map_or(0.0, |s| s.median_us);
    let commits = commits::measure(work, median, files.dir_fsync_median_us).unwrap_or_else(|e| {
        notes.push(format!("commit rates not measured: {}", e.message));
        Vec::new()
    });
    go_on()?;
    Ok(Qualification {
        environment,
        posix_locks,
        ofd_locks,
        shared_memory,
        sqlite,
        files,
        sync_latency,
        commits,
        verdicts: Vec::new(),
        across_hostfs: None,
        notes,
        seconds: 0.0,
    })
}

/// The qualification's own directory under the one qualified.
struct Work {
    dir: PathBuf,
}

/// Files the probes make, besides the databases below.
const FILES: &[&str] = &[
    "posix-lock",
    "ofd-lock",
    "map-shm",
    "renamed",
    "renamed.next",
    "direct",
    "fallocate",
];
/// What SQLite makes beside a database.
const DB_SUFFIXES: [&str; 4] = ["", "-journal", "-wal", "-shm"];

/// Creates `.litebench-qualify-{what}PID-N` in `dir` (exclusively, mode 0700): a directory
/// of qualify's own, the only thing it makes there.
pub fn own_dir(dir: &Path, what: &str) -> io::Result<PathBuf> {
    let pid = std::process::id();
    let mut last = None;
    for n in 0..64 {
        let path = dir.join(format!(".litebench-qualify-{what}{pid}-{n}"));
        match std::fs::DirBuilder::new().mode(0o700).create(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free name")))
}

impl Work {
    /// Creates `.litebench-qualify-PID-N` in `dir`.
    fn create(dir: &Path) -> io::Result<Work> {
        own_dir(dir, "").map(|dir| Work { dir })
    }

    /// Every name a probe may have made.
    fn names() -> Vec<String> {
        let mut dbs = vec![
            "rollback.db".to_string(),
            "wal.db".to_string(),
            "exclusive.db".to_string(),
        ];
        for mode in commits::MODES {
            for level in commits::LEVELS {
                dbs.push(format!("commit-{mode}-{level}.db"));
            }
        }
        let mut names: Vec<String> = FILES.iter().map(|s| s.to_string()).collect();
        for db in dbs {
            names.extend(DB_SUFFIXES.iter().map(|s| format!("{db}{s}")));
        }
        names
    }

    /// Removes the files the probes made and the directory; a note for what stayed.
    fn remove(self) -> Option<String> {
        for name in Work::names() {
            let path = self.dir.join(&name);
            if let Err(e) = std::fs::remove_file(&path) {
                if e.kind() != io::ErrorKind::NotFound {
                    return Some(format!("left {}: {e}", path.display()));
                }
            }
        }
        std::fs::remove_dir(&self.dir)
            .err()
            .map(|e| format!("left {}: {e}", self.dir.display()))
    }
}
