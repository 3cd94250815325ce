//! A `files` connection: a directory with one file per blob, and the blob store over it.
//!
//! Blob `k` is the file `k.blob`; `atomic` writes go through `k.blob.tmp`. Files stay open
//! between operations for up to [`KEEP_OPEN`] blobs (the same descriptor a bare
//! `pread`/`pwrite` loop would keep); beyond that, an operation opens and closes its blob's file,
//! as an application with a file per object does. An `atomic` write replaces the file, so the
//! next operation on that blob opens the new one. Every system call that moves data or syncs is
//! counted, like SQLite's VFS counts its calls.

use crate::engines::blob::BlobStore;
use crate::engines::values::Values;
use crate::engines::{Connection, Dialect, EngineError, ErrorKind, StmtId, Value};
use crate::sys::iocount::{FileClass, IoCounters};
use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Most blob files a connection keeps open between operations.
pub const KEEP_OPEN: usize = 256;

/// What a write promises (the `durability` knob).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    None,
    Data,
    Atomic,
}

impl Durability {
    pub const NAMES: &'static [&'static str] = &["none", "data", "atomic"];

    pub fn name(self) -> &'static str {
        match self {
            Durability::None => "none",
            Durability::Data => "data",
            Durability::Atomic => "atomic",
        }
    }

    pub fn parse(s: &str) -> Option<Durability> {
        match s {
            "none" => Some(Durability::None),
            "data" => Some(Durability::Data),
            "atomic" => Some(Durability::Atomic),
            _ => None,
        }
    }
}

/// An open blob file and its length.
struct OpenBlob {
    file: File,
    len: u64,
}

/// One connection to a `files` database (a directory).
pub struct FilesConn {
    dir: PathBuf,
    label: String,
    counters: Arc<IoCounters>,
    durability: Durability,
    open: HashMap<u64, OpenBlob>,
    /// The one buffer a read lands in, and the length of the last read.
    buf: Vec<u8>,
    last_read: usize,
}

/// The file of blob `key` in `dir`.
pub fn blob_path(dir: &Path, key: u64) -> PathBuf {
    dir.join(format!("{key}.blob"))
}

fn temp_path(dir: &Path, key: u64) -> PathBuf {
    dir.join(format!("{key}.blob.tmp"))
}

/// Whether `name` is a file the `files` engine creates (a blob or its temporary twin).
pub fn is_ours(name: &str) -> bool {
    let stem = name.strip_suffix(".blob").or_else(|| name.strip_suffix(".blob.tmp"));
    stem.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
}

impl FilesConn {
    pub fn open(dir: &Path, label: &str, counters: Arc<IoCounters>) -> Result<FilesConn, EngineError> {
        if !dir.is_dir() {
            return Err(io_error(
                label,
                std::io::Error::from(std::io::ErrorKind::NotFound),
                &format!("opening the directory {}", dir.display()),
            ));
        }
        Ok(FilesConn {
            dir: dir.to_path_buf(),
            label: label.to_string(),
            counters,
            durability: Durability::Data,
            open: HashMap::new(),
            buf: Vec::new(),
            last_read: 0,
        })
    }

    pub fn durability(&self) -> Durability {
        self.durability
    }

    pub fn set_durability(&mut self, d: Durability) {
        self.durability = d;
    }

    fn io(&self) -> crate::sys::iocount::Bumps<'_> {
        self.counters.class(FileClass::Main)
    }

    fn err(&self, e: std::io::Error, context: &str) -> EngineError {
        io_error(&self.label, e, context)
    }

    /// Opens blob `key`'s file for reading and writing, counting the open.
    fn open_file(&self, key: u64) -> Result<OpenBlob, EngineError> {
        let path = blob_path(&self.dir, key);
        let file = File::options()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| self.err(e, &format!("opening {}", path.display())))?;
        self.io().opens(1);
        let len = file
            .metadata()
            .map_err(|e| self.err(e, &format!("reading the size of {}", path.display())))?
            .len();
        Ok(OpenBlob { file, len })
    }

    /// Takes blob `key`'s open file (opening it if needed); give it back with [`Self::put`].
    fn take(&mut self, key: u64) -> Result<OpenBlob, EngineError> {
        match self.open.remove(&key) {
            Some(b) => Ok(b),
            None => self.open_file(key),
        }
    }

    /// Keeps `blob` open for the next operation, unless too many are.
    fn put(&mut self, key: u64, blob: OpenBlob) {
        if self.open.len() < KEEP_OPEN {
            self.open.insert(key, blob);
        }
    }

    fn fdatasync(&self, f: &File, key: u64) -> Result<(), EngineError> {
        f.sync_data()
            .map_err(|e| self.err(e, &format!("fdatasync of {}", blob_path(&self.dir, key).display())))?;
        let c = self.io();
        c.syncs(1);
        c.syncs_dataonly(1);
        Ok(())
    }

    fn write_in_place(&mut self, key: u64, data: &[u8]) -> Result<(), EngineError> {
        let mut blob = self.take(key)?;
        // Paths are built for error messages only: this is the timed region.
        let path = || blob_path(&self.dir, key);
        blob.file
            .write_all_at(data, 0)
            .map_err(|e| self.err(e, &format!("writing {}", path().display())))?;
        let c = self.io();
        c.writes(1);
        c.write_bytes(data.len() as u64);
        if blob.len != data.len() as u64 {
            blob.file
                .set_len(data.len() as u64)
                .map_err(|e| self.err(e, &format!("truncating {}", path().display())))?;
            self.io().truncates(1);
            blob.len = data.len() as u64;
        }
        if self.durability == Durability::Data {
            self.fdatasync(&blob.file, key)?;
        }
        self.put(key, blob);
        Ok(())
    }

    /// Temporary file, fsync, rename over the blob, fsync of the directory. On failure the
    /// temporary file is removed and the blob keeps its old content.
    fn write_atomic(&mut self, key: u64, data: &[u8]) -> Result<(), EngineError> {
        // The open descriptor (if any) is of the file about to be replaced.
        self.open.remove(&key);
        let (tmp, path) = (temp_path(&self.dir, key), blob_path(&self.dir, key));
        let result = self.replace(&tmp, &path, data);
        if result.is_err() && std::fs::remove_file(&tmp).is_ok() {
            self.io().deletes(1);
        }
        result
    }

    fn replace(&self, tmp: &Path, path: &Path, data: &[u8]) -> Result<(), EngineError> {
        let c = self.io();
        let f = File::options()
            .write(true)
            .create(true)
            .truncate(true)
            .open(tmp)
            .map_err(|e| self.err(e, &format!("creating {}", tmp.display())))?;
        c.opens(1);
        f.write_all_at(data, 0)
            .map_err(|e| self.err(e, &format!("writing {}", tmp.display())))?;
        c.writes(1);
        c.write_bytes(data.len() as u64);
        f.sync_all()
            .map_err(|e| self.err(e, &format!("fsync of {}", tmp.display())))?;
        c.syncs(1);
        c.syncs_full(1);
        drop(f);
        std::fs::rename(tmp, path)
            .map_err(|e| self.err(e, &format!("renaming {} over {}", tmp.display(), path.display())))?;
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| self.err(e, &format!("fsync of the directory {}", self.dir.display())))?;
        c.dir_syncs(1);
        Ok(())
    }
}

/// An I/O error as an engine error; a full disk is [`ErrorKind::Full`].
pub fn io_error(label: &str, e: std::io::Error, context: &str) -> EngineError {
    let kind = match e.raw_os_error() {
        Some(libc::ENOSPC) | Some(libc::EDQUOT) => ErrorKind::Full,
        Some(libc::EACCES) | Some(libc::EROFS) | Some(libc::EPERM) => ErrorKind::ReadOnly,
        _ => ErrorKind::Io,
    };
    EngineError {
        busy_cause: None,
        engine: label.to_string(),
        kind,
        code: e.raw_os_error(),
        message: e.to_string(),
        context: context.to_string(),
    }
}

impl BlobStore for FilesConn {
    fn create(&mut self) -> Result<(), EngineError> {
        Ok(())
    }

    fn last_read(&self) -> &[u8] {
        &self.buf[..self.last_read]
    }

    fn insert(&mut self, key: u64, data: &[u8]) -> Result<(), EngineError> {
        let path = blob_path(&self.dir, key);
        // create_new: never overwrite a file litebench did not create.
        let f = File::options()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| self.err(e, &format!("creating {}", path.display())))?;
        let c = self.io();
        c.opens(1);
        f.write_all_at(data, 0)
            .map_err(|e| self.err(e, &format!("writing {}", path.display())))?;
        c.writes(1);
        c.write_bytes(data.len() as u64);
        Ok(())
    }

    fn finish_load(&mut self) -> Result<(), EngineError> {
        // Loading is not durable on purpose: each trial's copy is made durable before it runs.
        Ok(())
    }

    fn read(&mut self, key: u64) -> Result<&[u8], EngineError> {
        let blob = self.take(key)?;
        let n = blob.len as usize;
        if self.buf.len() < n {
            self.buf.resize(n, 0);
        }
        let r = blob.file.read_exact_at(&mut self.buf[..n], 0);
        if let Err(e) = r {
            let path = blob_path(&self.dir, key);
            return Err(self.err(e, &format!("reading {}", path.display())));
        }
        let c = self.io();
        c.reads(1);
        c.read_bytes(n as u64);
        self.put(key, blob);
        self.last_read = n;
        Ok(&self.buf[..n])
    }

    fn write(&mut self, key: u64, data: &[u8]) -> Result<(), EngineError> {
        match self.durability {
            Durability::None | Durability::Data => self.write_in_place(key, data),
            Durability::Atomic => self.write_atomic(key, data),
        }
    }

    fn count(&mut self) -> Result<u64, EngineError> {
        let entries = std::fs::read_dir(&self.dir).map_err(|e| self.err(e, "listing the blobs"))?;
        let mut n = 0;
        for e in entries {
            let e = e.map_err(|e| self.err(e, "listing the blobs"))?;
            if e.file_name()
                .to_str()
                .is_some_and(|s| s.ends_with(".blob") && is_ours(s))
            {
                n += 1;
            }
        }
        Ok(n)
    }
}

fn no_sql(label: &str) -> EngineError {
    EngineError {
        busy_cause: None,
        engine: label.to_string(),
        kind: ErrorKind::Other,
        code: None,
        message: "the files engine runs no SQL; it runs only the blob workload".into(),
        context: "running SQL".into(),
    }
}

impl Connection for FilesConn {
    /// Never consulted: every SQL call below fails before a dialect could matter, and the
    /// `blob` workload asks for [`Connection::native_blob_store`] instead. The trait wants one.
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn execute_batch(&mut self, _sql: &str) -> Result<(), EngineError> {
        Err(no_sql(&self.label))
    }

    fn prepare(&mut self, _sql: &str) -> Result<StmtId, EngineError> {
        Err(no_sql(&self.label))
    }

    fn run(&mut self, _stmt: StmtId, _params: &[Value<'_>]) -> Result<u64, EngineError> {
        Err(no_sql(&self.label))
    }

    fn run_values(&mut self, _stmt: StmtId, _params: &[Value<'_>], _out: &mut Values) -> Result<u64, EngineError> {
        Err(no_sql(&self.label))
    }

    fn column_names(&mut self, _stmt: StmtId) -> Result<Vec<String>, EngineError> {
        Err(no_sql(&self.label))
    }

    fn query(&mut self, _sql: &str) -> Result<Vec<Vec<Option<String>>>, EngineError> {
        Err(no_sql(&self.label))
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }

    fn stores_blobs_natively(&self) -> bool {
        true
    }

    fn native_blob_store(&mut self) -> Result<Box<dyn BlobStore + '_>, EngineError> {
        Ok(Box::new(Native(self)))
    }
}

/// The connection lent out as its own store.
struct Native<'c>(&'c mut FilesConn);

impl BlobStore for Native<'_> {
    fn create(&mut self) -> Result<(), EngineError> {
        self.0.create()
    }
    fn insert(&mut self, key: u64, data: &[u8]) -> Result<(), EngineError> {
        self.0.insert(key, data)
    }
    fn finish_load(&mut self) -> Result<(), EngineError> {
        self.0.finish_load()
    }
    fn read(&mut self, key: u64) -> Result<&[u8], EngineError> {
        self.0.read(key)
    }
    fn last_read(&self) -> &[u8] {
        self.0.last_read()
    }
    fn write(&mut self, key: u64, data: &[u8]) -> Result<(), EngineError> {
        self.0.write(key, data)
    }
    fn count(&mut self) -> Result<u64, EngineError> {
        BlobStore::count(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn(dir: &Path) -> (FilesConn, Arc<IoCounters>) {
        let counters = Arc::new(IoCounters::default());
        (FilesConn::open(dir, "files", counters.clone()).unwrap(), counters)
    }

    #[test]
    fn names_litebench_creates() {
        assert!(is_ours("12.blob") && is_ours("0.blob.tmp"));
        assert!(!is_ours(".blob") && !is_ours("a.blob") && !is_ours("12.blobx") && !is_ours("notes.txt"));
    }

    #[test]
    fn each_level_syncs_what_it_promises() {
        let t = tempfile::tempdir().unwrap();
        let (mut c, counters) = conn(t.path());
        c.insert(7, b"old content").unwrap();
        for (level, file_syncs, dir_syncs) in [
            (Durability::None, 0, 0),
            (Durability::Data, 1, 0),
            (Durability::Atomic, 1, 1),
        ] {
            c.set_durability(level);
            let before = counters.snapshot();
            c.write(7, b"new content!").unwrap();
            let d = counters.snapshot().since(&before).total();
            assert_eq!((d.syncs, d.dir_syncs), (file_syncs, dir_syncs), "{level:?}");
            assert_eq!(d.write_bytes, 12, "{level:?}");
            let before = counters.snapshot();
            assert_eq!(c.read(7).unwrap(), b"new content!");
            let d = counters.snapshot().since(&before).total();
            assert_eq!((d.reads, d.read_bytes, d.syncs), (1, 12, 0), "{level:?}");
        }
        // Shorter content truncates; nothing else is left in the directory.
        c.set_durability(Durability::Data);
        c.write(7, b"short").unwrap();
        assert_eq!(c.read(7).unwrap(), b"short");
        assert_eq!(BlobStore::count(&mut c).unwrap(), 1);
        let names: Vec<String> = std::fs::read_dir(t.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec!["7.blob".to_string()]);
    }

    #[test]
    fn loading_never_overwrites_and_missing_blobs_are_errors() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("3.blob"), b"not ours").unwrap();
        let (mut c, _) = conn(t.path());
        let e = c.insert(3, b"x").unwrap_err();
        assert!(e.to_string().contains("3.blob"), "{e}");
        assert_eq!(std::fs::read(t.path().join("3.blob")).unwrap(), b"not ours");
        assert!(c.read(4).is_err());
        let e = c.execute_batch("SELECT 1").unwrap_err();
        assert!(e.message.contains("runs no SQL"), "{e}");
    }
}
