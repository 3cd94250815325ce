//! The `files` engine: databases are directories in the scratch directory, cloned file by file
//! for each trial and made durable with one `syncfs`, dropped by removing exactly the files it
//! names as its own.

use super::conn::{io_error, is_ours, Durability, FilesConn};
use super::{DURABILITY_KNOB, FILES_KNOBS, PREFIX};
use crate::engines::{Connection, DbRef, Engine, EngineError, ErrorKind};
use crate::model::knob::{KnobReading, KnobSet, Stage};
use crate::sys::deviceio::DeviceIo;
use crate::sys::iocount::IoCounters;
use crate::sys::scratch::{Scratch, HARNESS_SYNCS};
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

const LABEL: &str = "files";

/// The filesystem as an engine.
pub struct FilesEngine {
    counters: Arc<IoCounters>,
}

impl Default for FilesEngine {
    fn default() -> Self {
        FilesEngine::new()
    }
}

impl FilesEngine {
    pub fn new() -> FilesEngine {
        FilesEngine {
            counters: Arc::new(IoCounters::default()),
        }
    }

    fn files_conn<'c>(&self, conn: &'c mut dyn Connection) -> Result<&'c mut FilesConn, EngineError> {
        conn.as_any_mut()
            .and_then(|a| a.downcast_mut::<FilesConn>())
            .ok_or_else(|| knob_error("not a connection of the files engine".into()))
    }
}

fn knob_error(message: String) -> EngineError {
    EngineError {
        busy_cause: None,
        engine: LABEL.into(),
        kind: ErrorKind::Other,
        code: None,
        message,
        context: "setting knobs".into(),
    }
}

/// The names of litebench's files in `dir`.
fn our_files(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut names = Vec::new();
    for e in std::fs::read_dir(dir)? {
        if let Some(n) = e?.file_name().to_str() {
            if is_ours(n) {
                names.push(n.to_string());
            }
        }
    }
    names.sort();
    Ok(names)
}

/// Copies every blob of `from` into the new directory `to` through a buffer (new blocks, never
/// shared extents), then makes the whole copy durable with one `syncfs`.
fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir(to)?;
    for name in our_files(from)? {
        let mut src = File::open(from.join(&name))?;
        let mut dst = File::options().write(true).create_new(true).open(to.join(&name))?;
        crate::sys::scratch::copy_blocks(&mut src, &mut dst)?;
    }
    let d = File::open(to)?;
    // SAFETY: a valid open descriptor.
    if unsafe { libc::syncfs(d.as_raw_fd()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    HARNESS_SYNCS.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

/// Removes litebench's files in `dir`, then `dir` if that left it empty.
fn remove_dir(dir: &Path) {
    if let Ok(names) = our_files(dir) {
        for n in names {
            let _ = std::fs::remove_file(dir.join(n));
        }
    }
    let _ = std::fs::remove_dir(dir);
}

/// Bytes allocated to `dir` and litebench's files in it, as `du` counts them (blocks, not
/// apparent sizes).
pub fn allocated_bytes(dir: &Path) -> Option<u64> {
    let mut total = std::fs::metadata(dir).ok()?.blocks() * 512;
    for n in our_files(dir).ok()? {
        total += std::fs::metadata(dir.join(n)).ok()?.blocks() * 512;
    }
    Some(total)
}

impl Engine for FilesEngine {
    fn label(&self) -> &str {
        LABEL
    }

    fn version(&self) -> String {
        // The kernel is the engine.
        std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| format!("Linux {}", s.trim()))
            .unwrap_or_else(|_| "unknown kernel".into())
    }

    fn details(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "layout": "one file per blob in a directory",
            "keep_open": super::conn::KEEP_OPEN,
        }))
    }

    fn kind(&self) -> &'static crate::engines::kind::EngineKind {
        &super::KIND
    }

    fn io_counters(&self) -> Option<Arc<IoCounters>> {
        Some(self.counters.clone())
    }

    fn device_io(&self) -> Option<DeviceIo> {
        DeviceIo::this_process()
    }

    fn create_database(&self, scratch: &Scratch, name: &str) -> Result<DbRef, EngineError> {
        let dir = scratch.path(&format!("{name}.files"));
        std::fs::create_dir(&dir).map_err(|e| io_error(LABEL, e, &format!("creating {}", dir.display())))?;
        Ok(DbRef {
            name: name.to_string(),
            path: Some(dir),
        })
    }

    fn clone_database(&self, scratch: &Scratch, from: &DbRef, name: &str) -> Result<DbRef, EngineError> {
        let src = from.path.as_ref().expect("files databases are directories");
        let to = scratch.path(&format!("{name}.files"));
        if let Err(e) = copy_dir(src, &to) {
            remove_dir(&to);
            return Err(io_error(LABEL, e, "copying the template"));
        }
        Ok(DbRef {
            name: name.to_string(),
            path: Some(to),
        })
    }

    fn drop_database(&self, _scratch: &Scratch, db: &DbRef) {
        if let Some(p) = &db.path {
            remove_dir(p);
        }
    }

    fn database_size(&self, db: &DbRef) -> Option<u64> {
        allocated_bytes(db.path.as_ref()?)
    }

    fn connect(&self, db: &DbRef) -> Result<Box<dyn Connection>, EngineError> {
        let dir = db.path.as_ref().expect("files databases are directories");
        Ok(Box::new(FilesConn::open(dir, LABEL, self.counters.clone())?))
    }

    fn bulk_load_mode(&self, conn: &mut dyn Connection) -> Result<(), EngineError> {
        self.files_conn(conn)?.set_durability(Durability::None);
        Ok(())
    }

    fn apply_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet, stage: Stage) -> Result<(), EngineError> {
        if stage != Stage::Connect {
            return Ok(());
        }
        let c = self.files_conn(conn)?;
        for k in &knobs.0 {
            if k.name == DURABILITY_KNOB {
                let d = Durability::parse(&k.value).ok_or_else(|| {
                    knob_error(format!("durability={}: valid values are none, data, atomic", k.value))
                })?;
                c.set_durability(d);
            } else if k.name.starts_with(PREFIX) {
                return Err(knob_error(format!(
                    "--knob {}: the files engine has no settings besides durability",
                    k.name
                )));
            }
        }
        Ok(())
    }

    fn read_knobs(&self, conn: &mut dyn Connection, knobs: &KnobSet) -> Result<Vec<KnobReading>, EngineError> {
        let durability = self.files_conn(conn)?.durability().name();
        crate::model::knob::read_back(FILES_KNOBS, PREFIX, knobs, |name, _| {
            Ok::<_, EngineError>((name == DURABILITY_KNOB).then(|| durability.to_string()))
        })
    }

    fn knob_hint(&self, _knob: &str) -> String {
        "the files engine knows only durability=none|data|atomic".into()
    }
}
