//! Filesystems built for a run (`--fs`): image, loop device, mkfs, mount — and their undoing.
//!
//! Each filesystem is a fresh sparse image file in the run's scratch directory, so every
//! filesystem of a comparison sits on the same device underneath. Before anything is created a
//! record (`litebench-fs.json`) lists what is about to be made; it is removed only once all of it
//! has been undone. A run killed with `kill -9` leaves the record behind, and `litebench cleanup`
//! (or the next run in the same `--dir`) undoes exactly what it lists, once the process that
//! wrote it is dead on this host ([`crate::sys::owner`]) and only inside the run directory the record
//! sits in ([`crate::sys::confine`]): an unmount only at a mount point in that directory where the
//! mounted device is a loop device whose backing file is the recorded image (same device and
//! inode as recorded when the image was made) or litebench's own tmpfs, a detach only of loop
//! devices backed by that image, and the image itself when it is still the file recorded.
//! Mounts, loop devices and files litebench did not create are never touched.
//!
//! Records of older versions carry no inode and no start time: their owner is judged as those
//! versions did (a litebench with that pid runs), the image is the plain file at the confined
//! path, and a guest kernel they name is never stopped (its group is only checked to be gone).

use crate::model::record::FsInfo;
use crate::sys::confine;
use crate::sys::owner::{Liveness, Owner};
use crate::sys::scratch::Scratch;
use crate::testbed::fsspec::{find_tool, FsKind, FsSpec};
use crate::testbed::guest::GuestDisk;
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Name of the record in a run directory.
pub const RECORD: &str = "litebench-fs.json";

/// The mount source litebench gives its tmpfs mounts, so cleanup can tell them from others.
const TMPFS_SOURCE: &str = "litebench-tmpfs";

/// What a run created or is about to create, in order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    /// The litebench process that wrote it (pid, start time, boot id).
    #[serde(flatten)]
    pub owner: Owner,
    pub entries: Vec<Entry>,
    /// `--guest`: the guest kernel's pid (its process group's too) while it runs; cleanup
    /// stops it if it outlived litebench, before removing its images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guest_pid: Option<u32>,
    /// The guest kernel's start time, so a later process with its pid is never taken for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guest_start: Option<u64>,
}

impl Record {
    /// An empty record of this process.
    pub fn new() -> Record {
        Record {
            owner: Owner::current(),
            entries: Vec::new(),
            guest_pid: None,
            guest_start: None,
        }
    }
}

impl Default for Record {
    fn default() -> Self {
        Record::new()
    }
}

/// A file's identity: the device it is on and its inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileId {
    pub dev: u64,
    pub ino: u64,
}

impl FileId {
    pub fn of(m: &fs::Metadata) -> FileId {
        FileId {
            dev: m.dev(),
            ino: m.ino(),
        }
    }
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
    /// The image's device and inode, recorded once it is made: only loop devices backed by
    /// this very file are detached, and the file is removed only while it is still this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_id: Option<FileId>,
    /// The loop device attached to the image, recorded once attached (for the reader; cleanup
    /// finds the loop devices by their backing file's identity, which covers a kill before this
    /// was written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loop_device: Option<String>,
}

impl Entry {
    /// An entry of a filesystem about to be made.
    pub fn new(image: Option<PathBuf>, mount_point: PathBuf, device: Option<String>) -> Entry {
        Entry {
            image,
            mount_point,
            device,
            image_id: None,
            loop_device: None,
        }
    }
}

/// Why an entry was not undone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UndoError {
    /// The record names something litebench cannot prove it made; it is left alone.
    #[error("{0}; left alone")]
    Refused(String),
    /// Undoing failed (a busy mount, ...); the record stays so cleanup can try again.
    #[error("{0}")]
    Failed(String),
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
    let text = serde_json::to_vec_pretty(record).expect("a record serialises");
    // Synced: it must be on disk before what it lists is made.
    crate::base::outfile::replace_own(path, &path.with_extension("json.tmp"), &text, true).map_err(|source| {
        FsError::Io {
            path: path.to_path_buf(),
            source,
        }
    })
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
            record: Record::new(),
            mounted: Vec::new(),
        };
        for (i, spec) in specs.iter().enumerate() {
            let disk = disks.iter().find(|d| d.fs_index == i);
            fss.record.entries.push(Entry::new(
                (spec.kind != FsKind::Tmpfs && disk.is_none()).then(|| run_dir.join(format!("fs{i}.img"))),
                run_dir.join(format!("fs{i}")),
                disk.map(|d| d.device.clone()),
            ));
            fss.mounted.push((None, None));
            write_record(&fss.record_path, &fss.record)?;
            let (scratch, info) = mount_one(i, spec, &mut fss.record, &fss.record_path, size_bytes, run_dir, disk)?;
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
        let run_dir = self
            .record_path
            .parent()
            .expect("a record sits in its run directory")
            .to_path_buf();
        while let Some((scratch, _)) = self.mounted.pop() {
            drop(scratch);
            let entry = self.record.entries.pop().expect("one entry per filesystem");
            if let Err(e) = undo(&run_dir, &entry) {
                problems.push(e.to_string());
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
    record: &mut Record,
    record_path: &Path,
    size_bytes: u64,
    run_dir: &Path,
    disk: Option<&GuestDisk>,
) -> Result<(Scratch, FsInfo), FsError> {
    let step = |step: &str, detail: String| FsError::Step {
        spec: spec.label(),
        step: step.to_string(),
        detail,
    };
    let entry = record.entries[i].clone();
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
            let made = f.metadata().map_err(|source| FsError::Io {
                path: image.clone(),
                source,
            })?;
            drop(f);
            record.entries[i].image_id = Some(FileId::of(&made));
            write_record(record_path, record)?;
            let dev = run_tool(
                "losetup",
                &["--find".into(), "--show".into(), image.display().to_string()],
            )
            .map_err(|e| step("losetup", e))?;
            record.entries[i].loop_device = Some(dev.clone());
            write_record(record_path, record)?;
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

/// `struct loop_info64` of `<linux/loop.h>`, as `LOOP_GET_STATUS64` fills it.
#[repr(C)]
struct LoopInfo64 {
    lo_device: u64,
    lo_inode: u64,
    lo_rdevice: u64,
    lo_offset: u64,
    lo_sizelimit: u64,
    lo_number: u32,
    lo_encrypt_type: u32,
    lo_encrypt_key_size: u32,
    lo_flags: u32,
    lo_file_name: [u8; 64],
    lo_crypt_name: [u8; 64],
    lo_encrypt_key: [u8; 32],
    lo_init: [u64; 2],
}

const LOOP_GET_STATUS64: u64 = 0x4C05;

/// The device and inode of the file behind an attached loop device, from the kernel.
fn loop_backing(device: &str) -> Option<FileId> {
    let f = File::open(device).ok()?;
    // SAFETY: LoopInfo64 is plain data; all-zero is a valid value.
    let mut info: LoopInfo64 = unsafe { std::mem::zeroed() };
    // SAFETY: LOOP_GET_STATUS64 writes one loop_info64 into the buffer given, which is one.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), LOOP_GET_STATUS64 as _, &mut info as *mut LoopInfo64) };
    (r == 0).then_some(FileId {
        dev: info.lo_device,
        ino: info.lo_inode,
    })
}

/// Attached loop devices whose backing file is `image`: the kernel names that path (deleted
/// or not) as the backing file, and the file it holds is `id` (device and inode). The path
/// ties a loop device to the run directory, the identity to the very file that was made there.
pub fn loops_backed_by(image: &Path, id: FileId) -> Vec<String> {
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
        if Path::new(backing) != image {
            continue;
        }
        let dev = format!("/dev/{name}");
        if loop_backing(&dev) == Some(id) {
            found.push(dev);
        }
    }
    found.sort();
    found
}

/// Unmounts `mp` without following a symbolic link, retrying while it is busy.
fn unmount(mp: &Path) -> Result<(), String> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(mp.as_os_str().as_bytes()).map_err(|e| e.to_string())?;
    let mut last = String::new();
    for attempt in 0..20 {
        if attempt > 0 {
            std::thread::sleep(Duration::from_millis(100));
        }
        // SAFETY: a valid NUL-terminated path.
        if unsafe { libc::umount2(c.as_ptr(), libc::UMOUNT_NOFOLLOW) } == 0 {
            return Ok(());
        }
        last = std::io::Error::last_os_error().to_string();
    }
    Err(last)
}

/// Undoes one entry of a record in `run_dir`: unmount (only litebench's own mount), detach
/// (only loop devices backed by the recorded image), remove the image and the empty mount
/// point. Every path must lie inside `run_dir` without a symbolic link; anything that cannot be
/// proven litebench's is refused and left as it is.
pub fn undo(run_dir: &Path, entry: &Entry) -> Result<(), UndoError> {
    let refused = |e: confine::ConfineError| UndoError::Refused(e.to_string());
    let mp = &entry.mount_point;
    confine::inside(run_dir, mp).map_err(refused)?;
    if let Some(image) = &entry.image {
        confine::inside(run_dir, image).map_err(refused)?;
    }
    if let Some(dev) = &entry.device {
        // A disk of litebench's guest kernel; such records live inside the guest only.
        if !dev.starts_with("/dev/ubd") {
            return Err(UndoError::Refused(format!(
                "{}: names device {dev}, which is not a disk of litebench's guest kernel",
                mp.display()
            )));
        }
    }
    // The image as it is now, and which file the record proves is litebench's.
    let current = match &entry.image {
        Some(image) => match fs::symlink_metadata(image) {
            Ok(m) if !m.file_type().is_file() => {
                return Err(UndoError::Refused(format!(
                    "{}: not a plain file, so not an image litebench made",
                    image.display()
                )))
            }
            Ok(m) => Some(FileId::of(&m)),
            Err(_) => None,
        },
        None => None,
    };
    if let (Some(image), Some(made), Some(now)) = (&entry.image, entry.image_id, current) {
        if made != now {
            return Err(UndoError::Refused(format!(
                "{}: not the image litebench made there (its device and inode differ from the record)",
                image.display()
            )));
        }
    }
    // A record without the inode (an older litebench's, or a kill before it was written) can
    // only prove the file now at the recorded path, inside the run directory.
    let loops = match (&entry.image, entry.image_id.or(current)) {
        (Some(image), Some(id)) => loops_backed_by(image, id),
        _ => Vec::new(),
    };
    let ours = |source: &str, fstype: &str| match (&entry.device, &entry.image) {
        (Some(dev), _) => source == dev,
        (None, Some(_)) => loops.iter().any(|d| d == source),
        (None, None) => source == TMPFS_SOURCE && fstype == "tmpfs",
    };
    for (source, fstype) in mounts_at(mp).into_iter().rev() {
        if !ours(&source, &fstype) {
            return Err(UndoError::Refused(format!(
                "{}: {source} is mounted there, which litebench did not mount",
                mp.display()
            )));
        }
        unmount(mp).map_err(|e| UndoError::Failed(format!("cannot unmount {}: {e}", mp.display())))?;
    }
    for dev in &loops {
        run_tool("losetup", &["-d".into(), dev.clone()])
            .map_err(|e| UndoError::Failed(format!("cannot detach {dev}: {e}")))?;
    }
    if let (Some(image), Some(_)) = (&entry.image, current) {
        match fs::remove_file(image) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(UndoError::Failed(format!("cannot remove {}: {e}", image.display()))),
        }
    }
    match fs::remove_dir(mp) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(UndoError::Failed(format!("cannot remove {}: {e}", mp.display()))),
    }
}

/// Stops what is left of a guest kernel (`--guest`) that outlived the litebench that started
/// it: every process of its process group (the kernel and its I/O helpers, which outlive the
/// kernel itself) that is a user-mode Linux kernel started no earlier than the kernel was, and
/// nothing else. A group whose leader pid now belongs to another process is not the guest's.
fn stop_guest(pgid: u32, started: u64) {
    if crate::sys::owner::start_time(pgid).is_some_and(|s| s != started) {
        return;
    }
    for _ in 0..50 {
        let left: Vec<u32> = guest_members(pgid)
            .into_iter()
            .filter(|p| crate::sys::owner::start_time(*p).is_some_and(|s| s >= started))
            .collect();
        if left.is_empty() {
            return;
        }
        for pid in left {
            // SAFETY: kill of a process just identified as the guest kernel's.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Processes of process group `pgid` that are user-mode Linux kernels.
fn guest_members(pgid: u32) -> Vec<u32> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
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
}

/// What `cleanup` did in one base directory.
#[derive(Debug, Default)]
pub struct Cleaned {
    /// Filesystems undone.
    pub undone: Vec<Entry>,
    /// Run directories of dead runs: the files of their record removed, and whether the
    /// directory itself went too.
    pub removed: Vec<(PathBuf, Vec<String>, bool)>,
    /// Run directories of runs still going, left alone.
    pub running: Vec<PathBuf>,
    /// What a record names that litebench cannot prove it made, left alone, and why.
    pub refused: Vec<String>,
    /// What could not be undone.
    pub problems: Vec<String>,
    /// What stays in a dead run's directory, and why (a user's file, a killed guest's results).
    pub kept: Vec<String>,
    /// Device schedulers put back (`--scheduler-device`).
    pub restored: Vec<String>,
    /// Run directories with filesystems or a device's scheduler to undo, which needs root.
    pub need_root: Vec<PathBuf>,
    /// `run-*` directories with no record at all (an older litebench's, or not litebench's).
    pub unrecorded: Vec<PathBuf>,
}

impl Cleaned {
    /// True when nothing was found to do or to report.
    pub fn is_empty(&self) -> bool {
        self.undone.is_empty()
            && self.removed.is_empty()
            && self.refused.is_empty()
            && self.problems.is_empty()
            && self.kept.is_empty()
            && self.restored.is_empty()
            && self.need_root.is_empty()
    }
}

/// `run-*` entries of `base` (directories or not; each is checked before use).
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

/// Whether `base` holds any run directory (so cleanup has something to look at).
pub fn has_run_dirs(base: &Path) -> bool {
    !run_dirs(base).is_empty()
}

/// Whether any run directory in `base` holds a record only root can undo (filesystems, a
/// device's scheduler).
pub fn has_records(base: &Path) -> bool {
    run_dirs(base).iter().any(|r| {
        fs::symlink_metadata(r.join(RECORD)).is_ok()
            || fs::symlink_metadata(r.join(crate::testbed::scheduler_device::RECORD)).is_ok()
    })
}

/// Undoes what dead runs left in `base` (`run-*/litebench-*.json`), after checking each run
/// directory ([`confine::check_run_dir`]) and that every owner its records name is dead.
/// Without `root`, run directories with filesystems or a scheduler to undo are only listed.
/// The caller has checked `base` itself ([`confine::check_base`]).
pub fn cleanup_dir(base: &Path, root: bool) -> Cleaned {
    let mut cleaned = Cleaned::default();
    for run in run_dirs(base) {
        clean_run(&run, root, &mut cleaned);
    }
    cleaned
}

fn clean_run(run: &Path, root: bool, cleaned: &mut Cleaned) {
    let fs_path = run.join(RECORD);
    let exists = |p: &Path| fs::symlink_metadata(p).is_ok();
    let has_fs = exists(&fs_path);
    let has_sched = exists(&run.join(crate::testbed::scheduler_device::RECORD));
    let has_files = exists(&run.join(crate::sys::scratch::RECORD));
    if !(has_fs || has_sched || has_files) {
        cleaned.unrecorded.push(run.to_path_buf());
        return;
    }
    if let Err(e) = confine::check_run_dir(run) {
        cleaned.refused.push(format!("{e}; left alone"));
        return;
    }
    let files = match crate::sys::scratch::read_record(run).transpose() {
        Ok(r) => r,
        Err(e) => return cleaned.problems.push(e),
    };
    let sched = match crate::testbed::scheduler_device::read_record(run).transpose() {
        Ok(r) => r,
        Err(e) => return cleaned.problems.push(e),
    };
    let mut record = match has_fs.then(|| read_record(&fs_path)).transpose() {
        Ok(r) => r,
        Err(e) => return cleaned.problems.push(e),
    };
    let owners = files
        .iter()
        .map(|r| &r.owner)
        .chain(sched.iter().map(|r| &r.owner))
        .chain(record.iter().map(|r| &r.owner));
    for owner in owners {
        match owner.liveness() {
            Liveness::Dead => {}
            Liveness::Alive => return cleaned.running.push(run.to_path_buf()),
            Liveness::Unknown(why) => {
                return cleaned.refused.push(format!("{}: {why}; left alone", run.display()));
            }
        }
    }
    if !root && (record.is_some() || sched.is_some()) {
        return cleaned.need_root.push(run.to_path_buf());
    }
    if let Some(s) = &sched {
        match crate::testbed::scheduler_device::undo_in(run, s) {
            Ok(done) => cleaned.restored.push(done),
            Err(e) => cleaned.problems.push(e),
        }
    }
    if let Some(record) = record.as_mut() {
        if !undo_record(run, &fs_path, record, cleaned) {
            // Files of a run whose filesystems are not undone stay with them.
            return;
        }
    }
    let mut reported = std::collections::BTreeSet::new();
    let removed = files
        .map(|f| {
            let done = crate::sys::scratch::remove_listed(run, &f);
            cleaned
                .refused
                .extend(done.refused.into_iter().map(|r| format!("{r}; left alone")));
            cleaned.kept.extend(done.left);
            reported = done.reported;
            done.removed
        })
        .unwrap_or_default();
    let gone = fs::remove_dir(run).is_ok();
    if !gone {
        for e in fs::read_dir(run).into_iter().flatten().flatten() {
            let name = e.file_name();
            let known = [
                RECORD,
                crate::testbed::scheduler_device::RECORD,
                crate::testbed::guest::STORE_FILE,
            ];
            if !known.iter().any(|k| name == *k) && !reported.contains(&*name.to_string_lossy()) {
                cleaned.kept.push(format!(
                    "{}: not in the record of the run that made the directory",
                    e.path().display()
                ));
            }
        }
    }
    if gone || !removed.is_empty() {
        cleaned.removed.push((run.to_path_buf(), removed, gone));
    }
}

/// Undoes a dead run's filesystem record; true when all of it is undone (and the record gone).
fn undo_record(run: &Path, path: &Path, record: &mut Record, cleaned: &mut Cleaned) -> bool {
    if let Some(pid) = record.guest_pid {
        let this_boot = record.owner.boot_id.is_some() && record.owner.boot_id == crate::sys::owner::boot_id();
        match record.guest_start {
            Some(started) if this_boot => stop_guest(pid, started),
            Some(_) => {}
            None if guest_members(pid).is_empty() => {}
            None => {
                cleaned.refused.push(format!(
                    "{}: a guest kernel (process group {pid}) may still run, and this older record cannot prove which; stop it, then run cleanup again; left alone",
                    path.display()
                ));
                return false;
            }
        }
        record.guest_pid = None;
        record.guest_start = None;
        // The guest's own files; its results store holds what it measured, so it stays.
        for name in [
            crate::testbed::guest::JOB_FILE,
            crate::testbed::guest::EXIT_FILE,
            crate::testbed::guest::STOP_FILE,
            crate::testbed::guest::CONSOLE_FILE,
        ] {
            let _ = fs::remove_file(run.join(name));
        }
        let store = run.join(crate::testbed::guest::STORE_FILE);
        if store.exists() {
            cleaned.kept.push(format!(
                "{}: holds what the killed guest measured; `litebench show --results {}` reads it",
                store.display(),
                store.display()
            ));
        }
    }
    let mut left = Vec::new();
    while let Some(entry) = record.entries.pop() {
        match undo(run, &entry) {
            Ok(()) => cleaned.undone.push(entry),
            Err(UndoError::Refused(e)) => {
                cleaned.refused.push(format!("{e}; left alone"));
                left.insert(0, entry);
            }
            Err(UndoError::Failed(e)) => {
                cleaned.problems.push(e);
                left.insert(0, entry);
            }
        }
    }
    if left.is_empty() {
        let _ = fs::remove_file(path);
        true
    } else {
        record.entries = left;
        if let Err(e) = write_record(path, record) {
            cleaned.problems.push(e.to_string());
        }
        false
    }
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
        let e = Entry::new(Some(image.clone()), mp.clone(), None);
        // The mount point holds a file litebench did not make: it stays, and undo says so.
        assert!(undo(t.path(), &e).unwrap_err().to_string().contains("cannot remove"));
        assert!(!image.exists());
        assert_eq!(fs::read(mp.join("someone-elses")).unwrap(), b"keep");
        assert!(other.exists());
    }

    #[test]
    fn undo_refuses_paths_outside_the_run_directory_and_a_replaced_image() {
        let t = tempfile::tempdir().unwrap();
        let run = t.path().join("run-1-1");
        fs::create_dir(&run).unwrap();
        let victim = t.path().join("victim");
        fs::write(&victim, b"keep").unwrap();
        for image in [victim.clone(), run.join("../victim")] {
            let e = Entry::new(Some(image), run.join("fs0"), None);
            assert!(matches!(undo(&run, &e), Err(UndoError::Refused(_))), "{e:?}");
        }
        std::os::unix::fs::symlink(&victim, run.join("fs0.img")).unwrap();
        let e = Entry::new(Some(run.join("fs0.img")), run.join("fs0"), None);
        assert!(matches!(undo(&run, &e), Err(UndoError::Refused(_))));
        fs::remove_file(run.join("fs0.img")).unwrap();
        // A file at the recorded path that is not the one recorded.
        fs::write(run.join("fs0.img"), b"another").unwrap();
        let mut e = Entry::new(Some(run.join("fs0.img")), run.join("fs0"), None);
        e.image_id = Some(FileId::of(&fs::metadata(&victim).unwrap()));
        assert!(matches!(undo(&run, &e), Err(UndoError::Refused(m)) if m.contains("device and inode")));
        assert!(run.join("fs0.img").exists());
        assert_eq!(fs::read(&victim).unwrap(), b"keep");
    }

    fn dead_owner() -> Owner {
        Owner {
            start_time: Owner::current().start_time.map(|t| t + 1),
            ..Owner::current()
        }
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
        let mut entry = Entry::new(Some(image.clone()), mp.clone(), None);
        entry.image_id = Some(FileId::of(&fs::metadata(&image).unwrap()));
        let mut record = Record::new();
        record.owner = dead_owner();
        record.entries.push(entry);
        write_record(&run.join(RECORD), &record).unwrap();
        // While its owner runs, nothing is touched.
        record.owner = Owner::current();
        write_record(&run.join(RECORD), &record).unwrap();
        let c = cleanup_dir(t.path(), true);
        assert_eq!(c.running, vec![run.clone()]);
        assert!(image.exists());
        record.owner = dead_owner();
        write_record(&run.join(RECORD), &record).unwrap();
        let c = cleanup_dir(t.path(), true);
        assert_eq!((c.undone.len(), c.problems.len()), (1, 0), "{:?}", c.problems);
        assert!(!run.exists());
    }
}
