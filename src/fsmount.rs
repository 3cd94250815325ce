//! Filesystems built for a run (`--fs`): image, loop device, mkfs, mount — and their undoing.
//!
//! Each filesystem is a fresh sparse image file in the run's scratch directory, so every
//! filesystem of a comparison sits on the same device underneath. Before anything is created a
//! record (`litebench-fs.json`) lists what is about to be made; it is removed only once all of it
//! has been undone. A run killed with `kill -9` leaves the record behind, and `litebench cleanup`
//! (or the next run in the same `--dir`) undoes exactly what it lists: an unmount only where the
//! mounted device is a loop device whose backing file is the recorded image (or litebench's own
//! tmpfs), a detach only of loop devices backed by that image, and the image itself. Mounts and
//! loop devices litebench did not create are never touched.

use crate::fsspec::{find_tool, FsKind, FsSpec};
use crate::guest::GuestDisk;
use crate::result::FsInfo;
use crate::scratch::Scratch;
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Name of the record in a run directory.
pub const RECORD: &str = "litebench-fs.json";

/// The mount source litebench gives its tmpfs mounts, so cleanup can tell them from others.
const TMPFS_SOURCE: &str = "litebench-tmpfs";

/// What a run created or is about to create, in order.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Record {
    /// The litebench process that wrote it.
    pub pid: u32,
    pub entries: Vec<Entry>,
    /// `--guest`: the guest kernel's pid (its process group's too) while it runs; cleanup
    /// stops it if it outlived litebench, before removing its images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guest_pid: Option<u32>,
}

/// One filesystem: its image (none for tmpfs) and its mount point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub image: Option<PathBuf>,
    pub mount_point: PathBuf,
    /// In a guest kernel: the disk the filesystem was made on (`/dev/ubda`), in place of a
    /// loop device over `image`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
}

/// A step of building or undoing a filesystem that failed.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    #[error("--fs {spec}: {step} failed: {detail}")]
    Step { spec: String, step: String, detail: String },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// The filesystems of a run, mounted; dropping it unmounts, detaches and removes them.
pub struct Filesystems {
    record_path: PathBuf,
    record: Record,
    /// Per entry: the directory the trials use on it, and what the manifest says about it.
    mounted: Vec<(Option<Scratch>, Option<FsInfo>)>,
}

fn run_tool(tool: &str, args: &[String]) -> Result<String, String> {
    let path = find_tool(tool).ok_or_else(|| format!("{tool} not found"))?;
    // In a process group of its own, so a Ctrl-C at the terminal (which litebench turns into
    // a clean stop) does not kill mkfs half-way or umount during cleanup.
    use std::os::unix::process::CommandExt;
    let out = Command::new(path)
        .args(args)
        .process_group(0)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("{tool}: {e}"))?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).trim().to_string());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err.lines().map(str::trim).rfind(|l| !l.is_empty()).unwrap_or("");
    Err(format!("{tool} {} ({}): {line}", args.join(" "), out.status))
}

pub(crate) fn write_record(path: &Path, record: &Record) -> Result<(), FsError> {
    let io = |source| FsError::Io {
        path: path.to_path_buf(),
        source,
    };
    let tmp = path.with_extension("json.tmp");
    let text = serde_json::to_vec_pretty(record).expect("a record serialises");
    {
        use std::io::Write;
        let mut f = File::create(&tmp).map_err(io)?;
        f.write_all(&text).map_err(io)?;
        f.sync_all().map_err(io)?;
    }
    fs::rename(&tmp, path).map_err(io)?;
    if let Some(dir) = path.parent() {
        let _ = File::open(dir).and_then(|d| d.sync_all());
    }
    Ok(())
}

/// Reads a record left in a run directory.
pub fn read_record(path: &Path) -> Result<Record, String> {
    let text = fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_slice(&text).map_err(|e| format!("{}: not a litebench record ({e})", path.display()))
}

impl Filesystems {
    /// Builds and mounts every filesystem in `run_dir`; on error, what was made is undone.
    /// In a guest kernel (`--guest`) the filesystems with a disk in `disks` are made on it
    /// instead of on a fresh image and loop device.
    pub fn build(
        run_dir: &Path,
        specs: &[FsSpec],
        size_bytes: u64,
        disks: &[GuestDisk],
    ) -> Result<Filesystems, FsError> {
        let mut fss = Filesystems {
            record_path: run_dir.join(RECORD),
            record: Record {
                pid: std::process::id(),
                entries: Vec::new(),
                guest_pid: None,
            },
            mounted: Vec::new(),
        };
        for (i, spec) in specs.iter().enumerate() {
            let disk = disks.iter().find(|d| d.fs_index == i);
            let entry = Entry {
                image: (spec.kind != FsKind::Tmpfs && disk.is_none()).then(|| run_dir.join(format!("fs{i}.img"))),
                mount_point: run_dir.join(format!("fs{i}")),
                device: disk.map(|d| d.device.clone()),
            };
            fss.record.entries.push(entry.clone());
            fss.mounted.push((None, None));
            write_record(&fss.record_path, &fss.record)?;
            let (scratch, info) = mount_one(i, spec, &entry, size_bytes, run_dir, disk)?;
            fss.mounted[i] = (Some(scratch), Some(info));
        }
        Ok(fss)
    }

    /// How many filesystems there are (one per `--fs` value).
    pub fn len(&self) -> usize {
        self.mounted.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.mounted.is_empty()
    }

    /// The directory trials of filesystem `index` use.
    pub fn scratch(&self, index: usize) -> Option<&Scratch> {
        self.mounted.get(index).and_then(|(s, _)| s.as_ref())
    }

    /// What the manifest records about filesystem `index`.
    pub fn info(&self, index: usize) -> Option<&FsInfo> {
        self.mounted.get(index).and_then(|(_, i)| i.as_ref())
    }

    /// Unmounts, detaches and removes everything; returns what could not be undone (the record
    /// is then kept, so `litebench cleanup` can try again).
    pub fn teardown(&mut self) -> Vec<String> {
        let mut problems = Vec::new();
        while let Some((scratch, _)) = self.mounted.pop() {
            drop(scratch);
            let entry = self.record.entries.pop().expect("one entry per filesystem");
            if let Err(e) = undo(&entry) {
                problems.push(e);
                self.record.entries.insert(0, entry);
            }
        }
        if problems.is_empty() {
            let _ = fs::remove_file(&self.record_path);
        } else if let Err(e) = write_record(&self.record_path, &self.record) {
            problems.push(e.to_string());
        }
        problems
    }
}

impl Drop for Filesystems {
    fn drop(&mut self) {
        for p in self.teardown() {
            crate::errln!("warning: {p}; run `litebench cleanup` to try again");
        }
    }
}

fn mount_one(
    i: usize,
    spec: &FsSpec,
    entry: &Entry,
    size_bytes: u64,
    run_dir: &Path,
    disk: Option<&GuestDisk>,
) -> Result<(Scratch, FsInfo), FsError> {
    let step = |step: &str, detail: String| FsError::Step {
        spec: spec.label(),
        step: step.to_string(),
        detail,
    };
    let mp = &entry.mount_point;
    fs::create_dir(mp).map_err(|source| FsError::Io {
        path: mp.clone(),
        source,
    })?;
    let mut options = spec.mount_options();
    let mut mkfs = Vec::new();
    let mut loop_device = None;
    let source = match (&entry.image, disk) {
        (_, Some(d)) => {
            let (tool, _) = spec.kind.mkfs_tool().expect("a disk-backed filesystem has mkfs");
            let mut args = spec.mkfs_args();
            args.push(d.device.clone());
            run_tool(tool, &args).map_err(|e| step(tool, e))?;
            mkfs = std::iter::once(tool.to_string()).chain(args).collect();
            d.device.clone()
        }
        (Some(image), None) => {
            let f = File::options()
                .write(true)
                .create_new(true)
                .open(image)
                .map_err(|source| FsError::Io {
                    path: image.clone(),
                    source,
                })?;
            f.set_len(size_bytes).map_err(|source| FsError::Io {
                path: image.clone(),
                source,
            })?;
            drop(f);
            let dev = run_tool(
                "losetup",
                &["--find".into(), "--show".into(), image.display().to_string()],
            )
            .map_err(|e| step("losetup", e))?;
            loop_device = Some(dev.clone());
            let (tool, _) = spec.kind.mkfs_tool().expect("an image-backed filesystem has mkfs");
            let mut args = spec.mkfs_args();
            args.push(dev.clone());
            run_tool(tool, &args).map_err(|e| step(tool, e))?;
            mkfs = std::iter::once(tool.to_string()).chain(args).collect();
            dev
        }
        (None, None) => {
            options = format!("size={size_bytes},mode=0755");
            TMPFS_SOURCE.to_string()
        }
    };
    let mut args = vec!["-t".to_string(), spec.kind.name().to_string()];
    if !options.is_empty() {
        args.extend(["-o".to_string(), options.clone()]);
    }
    args.extend([source, mp.display().to_string()]);
    run_tool("mount", &args).map_err(|e| step("mount", e))?;
    let scratch = Scratch::create(Some(mp)).map_err(|e| step("creating the trial directory", e.to_string()))?;
    let mounted = litebench_env::storage(scratch.dir()).map_err(|e| step("reading the mount back", e.to_string()))?;
    let (sync_latency, not_measured) =
        match litebench_env::measure_sync_latency(scratch.dir(), 200, Duration::from_millis(500)) {
            Ok(l) => (Some(l), None),
            Err(e) => (None, Some(e.to_string())),
        };
    let info = FsInfo {
        index: i,
        spec: spec.label(),
        image: match disk {
            Some(d) => Some(d.image.display().to_string()),
            None => entry.image.as_ref().map(|p| p.display().to_string()),
        },
        size_bytes,
        mkfs,
        mount_options: options,
        loop_direct_io: loop_device.as_deref().and_then(direct_io),
        loop_device,
        guest_disk: disk.map(|d| d.device.clone()),
        // In a guest, what lies under the image is the host's storage, which the guest cannot
        // see; the manifest's guest section records it.
        underneath: if disk.is_some() {
            None
        } else {
            litebench_env::storage(run_dir).ok()
        },
        mounted,
        dir: scratch.dir().display().to_string(),
        sync_latency,
        sync_latency_not_measured: not_measured,
    };
    Ok((scratch, info))
}

/// A loop device's `loop/dio` flag from sysfs.
fn direct_io(device: &str) -> Option<bool> {
    let name = device.rsplit('/').next()?;
    let v = fs::read_to_string(format!("/sys/block/{name}/loop/dio")).ok()?;
    Some(v.trim() == "1")
}

/// `/proc/self/mounts` escapes space, tab, newline and backslash as octal.
fn unescape(field: &str) -> String {
    let mut out = Vec::new();
    let b = field.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c)) {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// (source, type) of every mount at `mp`, newest last.
fn mounts_at(mp: &Path) -> Vec<(String, String)> {
    let text = fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            (f.len() >= 3 && Path::new(&unescape(f[1])) == mp).then(|| (unescape(f[0]), f[2].to_string()))
        })
        .collect()
}

/// Loop devices whose backing file is `image`, read from sysfs.
pub fn loops_backed_by(image: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(dir) = fs::read_dir("/sys/block") else {
        return found;
    };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.starts_with("loop") {
            continue;
        }
        let Ok(backing) = fs::read_to_string(e.path().join("loop/backing_file")) else {
            continue;
        };
        let backing = backing.trim_end_matches('\n');
        let backing = backing.strip_suffix(" (deleted)").unwrap_or(backing);
        if Path::new(backing) == image {
            found.push(format!("/dev/{name}"));
        }
    }
    found.sort();
    found
}

/// Undoes one entry: unmount (only litebench's own mount), detach (only loop devices backed by
/// the recorded image), remove the image and the empty mount point.
pub fn undo(entry: &Entry) -> Result<(), String> {
    let mp = &entry.mount_point;
    let ours = |source: &str, fstype: &str| match (&entry.device, &entry.image) {
        (Some(dev), _) => source == dev,
        (None, Some(image)) => loops_backed_by(image).iter().any(|d| d == source),
        (None, None) => source == TMPFS_SOURCE && fstype == "tmpfs",
    };
    for (source, fstype) in mounts_at(mp).into_iter().rev() {
        if !ours(&source, &fstype) {
            return Err(format!(
                "{}: {source} is mounted there, which litebench did not mount; left alone",
                mp.display()
            ));
        }
        let mut last = Ok(String::new());
        for attempt in 0..20 {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(100));
            }
            last = run_tool("umount", &[mp.display().to_string()]);
            if last.is_ok() {
                break;
            }
        }
        last.map_err(|e| format!("cannot unmount {}: {e}", mp.display()))?;
    }
    if let Some(image) = &entry.image {
        for dev in loops_backed_by(image) {
            run_tool("losetup", &["-d".into(), dev.clone()]).map_err(|e| format!("cannot detach {dev}: {e}"))?;
        }
        match fs::remove_file(image) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("cannot remove {}: {e}", image.display())),
        }
    }
    match fs::remove_dir(mp) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot remove {}: {e}", mp.display())),
    }
}

/// Whether the process that wrote a record is a litebench still running.
fn writer_alive(pid: u32) -> bool {
    pid == std::process::id()
        || fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| {
            exe.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("litebench"))
        })
}

/// Stops what is left of a guest kernel (`--guest`) that outlived the litebench that started
/// it: every process of its process group (the kernel and its I/O helpers, which outlive the
/// kernel itself) that is a user-mode Linux kernel, and nothing else.
fn stop_guest(pgid: u32) {
    let members = || -> Vec<i32> {
        let Ok(dir) = fs::read_dir("/proc") else {
            return Vec::new();
        };
        dir.flatten()
            .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()))
            .filter(|pid| {
                // Field 5 of /proc/PID/stat, after the parenthesised command name.
                let group = fs::read_to_string(format!("/proc/{pid}/stat"))
                    .ok()
                    .and_then(|s| s.rsplit_once(')').map(|(_, rest)| rest.to_string()))
                    .and_then(|rest| rest.split_whitespace().nth(2).and_then(|g| g.parse::<u32>().ok()));
                group == Some(pgid)
                    && fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| {
                        exe.file_name()
                            .is_some_and(|n| n.to_string_lossy().starts_with("linux"))
                    })
            })
            .collect()
    };
    for _ in 0..50 {
        let left = members();
        if left.is_empty() {
            return;
        }
        for pid in left {
            // SAFETY: kill of a process just identified as the guest kernel's.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// What `cleanup` did in one base directory.
#[derive(Debug, Default)]
pub struct Cleaned {
    /// Filesystems undone.
    pub undone: Vec<Entry>,
    /// Records of runs still going, left alone.
    pub running: Vec<PathBuf>,
    /// What could not be undone.
    pub problems: Vec<String>,
    /// Results a killed `--guest` run left in its guest's store, kept for the user.
    pub kept: Vec<PathBuf>,
    /// Device schedulers put back (`--scheduler-device`).
    pub restored: Vec<String>,
}

fn run_dirs(base: &Path) -> Vec<PathBuf> {
    let Ok(dir) = fs::read_dir(base) else {
        return Vec::new();
    };
    let mut runs: Vec<PathBuf> = dir
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("run-"))
        .map(|e| e.path())
        .collect();
    runs.sort();
    runs
}

/// Whether any run directory in `base` holds a record.
pub fn has_records(base: &Path) -> bool {
    run_dirs(base)
        .iter()
        .any(|r| r.join(RECORD).exists() || r.join(crate::scheduler_device::RECORD).exists())
}

/// Undoes every record left by a dead run in `base` (`run-*/litebench-fs.json`).
pub fn cleanup_dir(base: &Path) -> Cleaned {
    let mut cleaned = Cleaned::default();
    for run in run_dirs(base) {
        let restored = match crate::scheduler_device::undo_in(&run, writer_alive) {
            Some(Ok(done)) => {
                cleaned.restored.push(done);
                true
            }
            Some(Err(e)) => {
                cleaned.problems.push(e);
                false
            }
            None => false,
        };
        let path = run.join(RECORD);
        if !path.exists() {
            if restored {
                // The dead run's directory goes too when nothing else is in it.
                let _ = fs::remove_dir(&run);
            }
            continue;
        }
        let mut record = match read_record(&path) {
            Ok(r) => r,
            Err(e) => {
                cleaned.problems.push(e);
                continue;
            }
        };
        if writer_alive(record.pid) {
            cleaned.running.push(path);
            continue;
        }
        if let Some(pid) = record.guest_pid.take() {
            stop_guest(pid);
            // The guest's own files; its results store holds what it measured, so it stays.
            for name in [
                crate::guest::JOB_FILE,
                crate::guest::EXIT_FILE,
                crate::guest::STOP_FILE,
                crate::guest::CONSOLE_FILE,
            ] {
                let _ = fs::remove_file(run.join(name));
            }
            let store = run.join(crate::guest::STORE_FILE);
            if store.exists() {
                cleaned.kept.push(store);
            }
        }
        let mut left = Vec::new();
        while let Some(entry) = record.entries.pop() {
            match undo(&entry) {
                Ok(()) => cleaned.undone.push(entry),
                Err(e) => {
                    cleaned.problems.push(e);
                    left.insert(0, entry);
                }
            }
        }
        if left.is_empty() {
            let _ = fs::remove_file(&path);
            // The run directory goes too when nothing else is in it.
            let _ = fs::remove_dir(&run);
        } else {
            record.entries = left;
            if let Err(e) = write_record(&path, &record) {
                cleaned.problems.push(e.to_string());
            }
        }
    }
    cleaned
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_table_escapes_are_undone() {
        assert_eq!(unescape(r"/a\040b\134c"), r"/a b\c");
        assert_eq!(unescape("/plain"), "/plain");
        assert_eq!(unescape(r"/end\04"), r"/end\04");
    }

    #[test]
    fn undo_leaves_what_it_did_not_make_and_removes_only_the_recorded_image() {
        let t = tempfile::tempdir().unwrap();
        let mp = t.path().join("fs0");
        fs::create_dir(&mp).unwrap();
        fs::write(mp.join("someone-elses"), b"keep").unwrap();
        let image = t.path().join("fs0.img");
        fs::write(&image, b"img").unwrap();
        let other = t.path().join("other.img");
        fs::write(&other, b"other").unwrap();
        let e = Entry {
            image: Some(image.clone()),
            mount_point: mp.clone(),
            device: None,
        };
        // The mount point holds a file litebench did not make: it stays, and undo says so.
        assert!(undo(&e).unwrap_err().contains("cannot remove"));
        assert!(!image.exists());
        assert_eq!(fs::read(mp.join("someone-elses")).unwrap(), b"keep");
        assert!(other.exists());
    }

    #[test]
    fn records_of_dead_runs_are_undone_and_removed_with_their_empty_run_directory() {
        let t = tempfile::tempdir().unwrap();
        let run = t.path().join("run-1-1");
        fs::create_dir(&run).unwrap();
        let mp = run.join("fs0");
        fs::create_dir(&mp).unwrap();
        let image = run.join("fs0.img");
        fs::write(&image, b"img").unwrap();
        // pid 0 is never a live litebench.
        let record = Record {
            pid: 0,
            entries: vec![Entry {
                image: Some(image.clone()),
                mount_point: mp.clone(),
                device: None,
            }],
            guest_pid: None,
        };
        write_record(&run.join(RECORD), &record).unwrap();
        let c = cleanup_dir(t.path());
        assert_eq!((c.undone.len(), c.problems.len()), (1, 0), "{:?}", c.problems);
        assert!(!run.exists());
    }
}
