//! The recording: everything SQLite did to a database's files, in order, with the commits the
//! application was told succeeded.
//!
//! A crash state is "what the files may hold if the machine stopped at this point", so the
//! model needs the exact sequence of what reached the OS and what was made durable. It is
//! taken from the VFS shim ([`crate::engines::sqlite::vfs::Observer`]) rather than strace so
//! that it works for any SQLite build litebench loads and carries the bytes written.
//!
//! What the shim can observe on Linux, and so what the log holds:
//! - writes (file, offset, bytes) and truncates, after they succeeded;
//! - file syncs (`xSync`), and the directory sync the unix VFS makes on the *first* sync of a
//!   journal, super-journal or WAL opened with `SQLITE_OPEN_CREATE` (its `UNIXFILE_DIRSYNC`);
//! - deletes, and the directory sync `xDelete` makes when asked (`syncDir`: journal deletion
//!   under `synchronous=EXTRA`);
//! - creates: an open of a file that did not exist before.
//!
//! SQLite on unix never renames files, and the `-shm` file is opened and mapped by the unix VFS
//! itself (not through `xOpen`) and rebuilt from the WAL by the first connection after a
//! crash, so neither appears. The files present when recording starts are the *baseline*,
//! taken as durable.

use crate::engines::sqlite::vfs::Observer;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One file's identity: a name may be deleted and created again (the rollback journal of
/// `journal_mode=DELETE`, every transaction), and each creation is a new inode.
pub type Inode = usize;

/// One thing that happened, in the order it happened.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Event {
    /// `name` now links a new, empty inode.
    Create {
        name: String,
        inode: Inode,
    },
    /// Bytes reached the OS.
    Write {
        inode: Inode,
        offset: u64,
        #[serde(skip)]
        data: Arc<[u8]>,
        len: u64,
    },
    Truncate {
        inode: Inode,
        size: u64,
    },
    /// The inode's content is durable; `dir`: and so is the directory (every name in it).
    Sync {
        inode: Inode,
        dir: bool,
    },
    /// `name` was unlinked; `dir`: and the directory synced after.
    Delete {
        name: String,
        dir: bool,
    },
    /// The application was told transaction `tx` committed.
    Ack {
        tx: u64,
    },
}

impl Event {
    /// One line for a counterexample.
    pub fn describe(&self, names: &BTreeMap<Inode, String>) -> String {
        let n = |i: &Inode| names.get(i).cloned().unwrap_or_else(|| format!("inode {i}"));
        match self {
            Event::Create { name, .. } => format!("create {name}"),
            Event::Write { inode, offset, len, .. } => format!("write {} [{offset}, +{len})", n(inode)),
            Event::Truncate { inode, size } => format!("truncate {} to {size}", n(inode)),
            Event::Sync { inode, dir } => format!("sync {}{}", n(inode), if *dir { " + directory" } else { "" }),
            Event::Delete { name, dir } => format!("delete {name}{}", if *dir { " + directory sync" } else { "" }),
            Event::Ack { tx } => format!("commit of tx {tx} acknowledged"),
        }
    }
}

/// The baseline and the events after it.
#[derive(Debug, Clone, Default)]
pub struct Recording {
    /// Files present (and durable) when recording started: name, inode, content.
    pub baseline: Vec<(String, Inode, Vec<u8>)>,
    pub events: Vec<Event>,
    /// Which name each inode was created under, for descriptions.
    pub names: BTreeMap<Inode, String>,
}

#[derive(Default)]
struct State {
    rec: Recording,
    current: BTreeMap<String, Inode>,
    next_inode: Inode,
    stopped: bool,
}

/// Records one directory's files; register it with [`crate::engines::sqlite::vfs::watch`].
pub struct Recorder {
    dir: PathBuf,
    state: Mutex<State>,
}

/// Files SQLite rebuilds or never opens through the VFS, left out of the model.
fn modelled(name: &str) -> bool {
    !name.ends_with("-shm")
}

impl Recorder {
    /// Takes the files now in `dir` as the durable baseline.
    pub fn new(dir: &Path) -> std::io::Result<Recorder> {
        let mut st = State::default();
        let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name().to_string_lossy().into_owned();
            if !e.file_type()?.is_file() || !modelled(&name) {
                continue;
            }
            let inode = st.next_inode;
            st.next_inode += 1;
            st.rec.baseline.push((name.clone(), inode, std::fs::read(e.path())?));
            st.rec.names.insert(inode, name.clone());
            st.current.insert(name, inode);
        }
        Ok(Recorder {
            dir: dir.to_path_buf(),
            state: Mutex::new(st),
        })
    }

    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        f(&mut self.state.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn push(&self, e: Event) {
        self.with(|s| {
            if !s.stopped {
                s.rec.events.push(e)
            }
        })
    }

    /// The workload was told transaction `tx` committed.
    pub fn ack(&self, tx: u64) {
        self.push(Event::Ack { tx });
    }

    /// Ends the recording (later calls, e.g. while closing the connection, are ignored) and
    /// returns it.
    pub fn finish(&self) -> Recording {
        self.with(|s| {
            s.stopped = true;
            s.rec.clone()
        })
    }

    fn name_of(&self, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(&self.dir).ok()?;
        let name = rel.to_str()?.to_string();
        modelled(&name).then_some(name)
    }
}

/// Token for files outside the model (never reported on).
const UNMODELLED: u64 = u64::MAX;

impl Observer for Recorder {
    fn opened(&self, path: &Path, created: bool) -> u64 {
        let Some(name) = self.name_of(path) else {
            return UNMODELLED;
        };
        self.with(|s| {
            if s.stopped {
                return s.current.get(&name).map_or(UNMODELLED, |&i| i as u64);
            }
            match s.current.get(&name) {
                Some(&inode) if !created => inode as u64,
                _ => {
                    let inode = s.next_inode;
                    s.next_inode += 1;
                    s.current.insert(name.clone(), inode);
                    s.rec.names.insert(inode, name.clone());
                    s.rec.events.push(Event::Create { name, inode });
                    inode as u64
                }
            }
        })
    }

    fn wrote(&self, file: u64, offset: u64, data: &[u8]) {
        if file != UNMODELLED {
            self.push(Event::Write {
                inode: file as Inode,
                offset,
                len: data.len() as u64,
                data: data.into(),
            });
        }
    }

    fn truncated(&self, file: u64, size: u64) {
        if file != UNMODELLED {
            self.push(Event::Truncate {
                inode: file as Inode,
                size,
            });
        }
    }

    fn synced(&self, file: u64, dir_synced: bool) {
        if file != UNMODELLED {
            self.push(Event::Sync {
                inode: file as Inode,
                dir: dir_synced,
            });
        }
    }

    fn deleted(&self, path: &Path, dir_synced: bool) {
        let Some(name) = self.name_of(path) else { return };
        self.with(|s| {
            if !s.stopped && s.current.remove(&name).is_some() {
                s.rec.events.push(Event::Delete { name, dir: dir_synced });
            }
        })
    }
}
