//! The host's side of `--guest`: images, the guest kernel's command line, watching it run,
//! and bringing its results into the host's store.
//!
//! Everything the guest gets is made in the run's scratch directory and listed in the same
//! record `--fs` keeps (`litebench-fs.json`) before it is made, with the guest kernel's pid, so
//! `litebench cleanup` after a `kill -9` stops a guest left running and removes exactly its
//! images. The guest kernel also dies with litebench (PR_SET_PDEATHSIG). Ctrl-C is forwarded to
//! the run inside as a stop request (a file the guest's init looks for), which keeps every
//! finished trial.

use crate::base::Failure;
use crate::bench::observer::RunObserver;
use crate::bench::plan::Plan;
use crate::model::record::GuestInfo;
use crate::store::{self, Store};
use crate::sys::scratch::Scratch;
use crate::testbed::fsmount::{self, Entry, Record, RECORD};
use crate::testbed::fsspec::FsKind;
use crate::testbed::guest::kernel::Kernel;
use crate::testbed::guest::{
    GuestDisk, GuestError, GuestExit, GuestJob, CONSOLE_FILE, EXIT_FILE, JOB_FILE, STOP_FILE, STORE_FILE,
};
use std::fs::{self, File};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Flags of `litebench run` the host consumes; the run in the guest gets its own values.
const HOST_ONLY: [&str; 5] = ["--guest", "--guest-memory", "--results", "--dir", "--report"];
/// Of those, the ones that take a value.
const HOST_ONLY_VALUED: [&str; 4] = ["--guest-memory", "--results", "--dir", "--report"];
/// The fds the guest kernel's console and its two terminals (the run's stdout and
/// stderr, relayed by litebench) get in its process. The terminals are pipes of their own, not
/// litebench's stdout and stderr: UML makes the fds it is given non-blocking, which would make
/// litebench's own writes fail, and its I/O helpers would hold them open after a kill -9.
const CONSOLE_FD: i32 = 100;
const OUT_FD: i32 = 102;
const ERR_FD: i32 = 103;

/// The arguments of `litebench run` in the guest: the user's, minus what only the host uses,
/// plus where the guest keeps its scratch directory, its store and its job.
pub fn guest_run_args(argv: &[String], job_dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip_value = false;
    for a in argv {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        let name = a.split('=').next().unwrap_or(a);
        if HOST_ONLY.contains(&name) {
            skip_value = HOST_ONLY_VALUED.contains(&name) && !a.contains('=');
            continue;
        }
        out.push(a.clone());
    }
    out.extend([
        "--results".to_string(),
        job_dir.join(STORE_FILE).display().to_string(),
        "--dir".to_string(),
        crate::testbed::guest::guest_dir(job_dir).display().to_string(),
        "--guest-job".to_string(),
        job_dir.join(JOB_FILE).display().to_string(),
    ]);
    out
}

/// A path the kernel command line can carry (it splits on spaces; ubd on commas).
pub(super) fn plain(flag: &str, p: &Path) -> Result<String, GuestError> {
    let s = p.display().to_string();
    if s.contains(|c: char| c.is_whitespace() || c == ',' || c == '"') {
        return Err(GuestError::Setup(format!(
            "{flag} {s}: the guest kernel's command line cannot carry a path with spaces, commas or quotes; use another path"
        )));
    }
    Ok(s)
}

/// Writes `bytes` zeros and syncs them, so every guest write lands on allocated blocks.
/// Writes a zeroed image of `bytes` at `path` (a new file); returns its device and inode.
fn zero_image(path: &Path, bytes: u64) -> Result<fsmount::FileId, GuestError> {
    let mut f = File::options()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(GuestError::io(path))?;
    let chunk = vec![0u8; 1 << 20];
    let mut left = bytes;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        f.write_all(&chunk[..n]).map_err(GuestError::io(path))?;
        left -= n as u64;
    }
    f.sync_all().map_err(GuestError::io(path))?;
    Ok(fsmount::FileId::of(&f.metadata().map_err(GuestError::io(path))?))
}

/// Whether every fd of `pid` that can write to `image` has O_SYNC: `Some(true)` all do,
/// `Some(false)` one does not, `None` none is open for writing. Only writable fds count: a
/// read-only open (UML may probe an image's header or size that way) writes nothing past the
/// host's cache. An fd is believed only if it still names the image after its flags were read,
/// so a number closed and reused in between is not mistaken for the image's.
fn image_o_sync(pid: u32, image: &Path) -> Option<bool> {
    let mut seen = None;
    for e in fs::read_dir(format!("/proc/{pid}/fd")).ok()?.flatten() {
        let names_image = || fs::read_link(e.path()).ok().as_deref() == Some(image);
        if !names_image() {
            continue;
        }
        let info = fs::read_to_string(format!("/proc/{pid}/fdinfo/{}", e.file_name().to_string_lossy())).ok()?;
        let flags = info
            .lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .and_then(|v| i64::from_str_radix(v.trim(), 8).ok())?;
        if !names_image() || flags & i64::from(libc::O_ACCMODE) == i64::from(libc::O_RDONLY) {
            continue;
        }
        let sync = flags & i64::from(libc::O_SYNC) == i64::from(libc::O_SYNC);
        seen = Some(seen.unwrap_or(true) && sync);
    }
    seen
}

/// The started guest and what the host watches of it.
pub(super) struct Guest {
    pub(super) child: Child,
    /// Threads copying the guest's terminals to litebench's stdout and stderr.
    relays: Vec<std::thread::JoinHandle<()>>,
}

impl Guest {
    /// After the kernel has exited: stops what is left of its process group (UML's I/O helpers
    /// outlive it) and waits for the relays to drain.
    pub(super) fn finish(self) {
        // SAFETY: the group the guest kernel led; it was started in a group of its own.
        unsafe { libc::killpg(self.child.id() as i32, libc::SIGKILL) };
        for r in self.relays {
            let _ = r.join();
        }
    }
}

fn pipe() -> Result<(File, File), GuestError> {
    let mut fds = [0; 2];
    // SAFETY: fds is a valid two-element array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(GuestError::Setup(format!("pipe: {}", std::io::Error::last_os_error())));
    }
    use std::os::fd::FromRawFd;
    // SAFETY: pipe2 returned two fresh fds we now own.
    Ok(unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) })
}

/// Copies what the guest writes on one terminal to one of litebench's outputs.
fn relay(mut from: File, to_stderr: bool) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            match std::io::Read::read(&mut from, &mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    let _ = if to_stderr {
                        std::io::stderr().write_all(&buf[..n])
                    } else {
                        std::io::stdout().write_all(&buf[..n])
                    };
                }
            }
        }
    })
}

pub(super) fn start(kernel: &Kernel, cmdline: &[String], console: &File) -> Result<Guest, GuestError> {
    let (out_read, out_write) = pipe()?;
    let (err_read, err_write) = pipe()?;
    let fds = [
        (console.as_raw_fd(), CONSOLE_FD),
        (out_write.as_raw_fd(), OUT_FD),
        (err_write.as_raw_fd(), ERR_FD),
    ];
    // The kernel's own stdout and stderr (its start-up checks, and what it says when it
    // aborts before its console is up) go to the console log too, where a failure is diagnosed.
    let own = |f: &File| {
        f.try_clone()
            .map(Stdio::from)
            .map_err(|e| GuestError::Setup(format!("the console log: {e}")))
    };
    let mut cmd = Command::new(&kernel.binary);
    cmd.args(cmdline)
        .stdin(Stdio::null())
        .stdout(own(console)?)
        .stderr(own(console)?);
    if Path::new("/dev/shm").is_dir() {
        // UML backs the guest's memory with a file there; on disk it would cost I/O.
        cmd.env("TMPDIR", "/dev/shm");
    }
    // Its own process group, so a Ctrl-C at the terminal reaches only litebench, which
    // forwards it as a stop request.
    cmd.process_group(0);
    // SAFETY: between fork and exec only async-signal-safe calls (prctl, dup2).
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            for (from, to) in fds {
                if libc::dup2(from, to) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let child = cmd
        .spawn()
        .map_err(|e| GuestError::Setup(format!("{}: {e}", kernel.binary.display())))?;
    drop((out_write, err_write));
    Ok(Guest {
        child,
        relays: vec![relay(out_read, false), relay(err_read, true)],
    })
}

/// Runs the plan's `litebench run` inside a guest kernel with `memory` bytes and stores its
/// runs here, each handed to `observer` as it comes in.
pub fn run(
    plan: &Plan,
    memory: u64,
    stop: &Arc<AtomicBool>,
    observer: &mut dyn RunObserver,
    run_ids: &mut Vec<i64>,
) -> Result<i32, Failure> {
    let specs = &plan.filesystems;
    let kernel = Kernel::find()?;
    let modules = kernel.modules_for(specs, &plan.schedulers)?;
    store::check_path(&plan.places.results, plan.places.results_given)?;
    let exe = std::env::current_exe().map_err(|e| Failure(format!("--guest: cannot find litebench itself: {e}")))?;
    plain("--guest: litebench's own path", &exe)?;
    crate::testbed::leftovers::undo_dead_runs(plan.places.dir.as_deref());
    let scratch = Scratch::create(plan.places.dir.as_deref())?;
    let dir = scratch.dir().canonicalize().map_err(GuestError::io(scratch.dir()))?;
    plain("--dir", &dir)?;

    // The record comes first, so a kill -9 at any later point leaves something to undo.
    let record_path = dir.join(RECORD);
    let mut record = Record::new();
    let mut disks = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        if spec.kind == FsKind::Tmpfs {
            continue;
        }
        let image = dir.join(format!("fs{i}.img"));
        record
            .entries
            .push(Entry::new(Some(image.clone()), dir.join(format!("fs{i}")), None));
        fsmount::write_record(&record_path, &record)?;
        let made = zero_image(&image, plan.fs_size_bytes)?;
        record.entries.last_mut().expect("just pushed").image_id = Some(made);
        fsmount::write_record(&record_path, &record)?;
        disks.push(GuestDisk {
            fs_index: i,
            device: crate::testbed::guest::device_name(disks.len()),
            image,
        });
    }
    let result = boot_and_import(
        plan,
        &Boot {
            kernel: &kernel,
            modules,
            memory,
            exe: &exe,
            dir: &dir,
            disks,
        },
        &mut record,
        stop,
        observer,
        run_ids,
    );
    // Undo the images (the guest has stopped; its kernel held them) and what the guest wrote.
    for name in [JOB_FILE, EXIT_FILE, STOP_FILE, STORE_FILE] {
        let _ = fs::remove_file(dir.join(name));
        let _ = fs::remove_file(dir.join(format!("{name}-journal")));
    }
    let failed = result.is_err();
    if !failed {
        let _ = fs::remove_file(dir.join(CONSOLE_FILE));
    }
    let mut problems = Vec::new();
    while let Some(e) = record.entries.pop() {
        if let Err(p) = fsmount::undo(&dir, &e) {
            problems.push(p.to_string());
            record.entries.insert(0, e);
        }
    }
    if problems.is_empty() {
        let _ = fs::remove_file(&record_path);
    } else {
        record.guest_pid = None;
        record.guest_start = None;
        let _ = fsmount::write_record(&record_path, &record);
        for p in &problems {
            crate::errln!("warning: {p}; run `litebench cleanup` to try again");
        }
    }
    if failed {
        // The console log stays for diagnosis; the error names it.
        std::mem::forget(scratch);
    }
    result
}

/// The guest kernel to boot and what it gets: its modules, memory, litebench itself, the job's
/// directory and the disks made for it.
pub(super) struct Boot<'a> {
    pub(super) kernel: &'a Kernel,
    pub(super) modules: Vec<String>,
    pub(super) memory: u64,
    pub(super) exe: &'a Path,
    pub(super) dir: &'a Path,
    pub(super) disks: Vec<GuestDisk>,
}

fn boot_and_import(
    plan: &Plan,
    boot: &Boot<'_>,
    record: &mut Record,
    stop: &Arc<AtomicBool>,
    observer: &mut dyn RunObserver,
    run_ids: &mut Vec<i64>,
) -> Result<i32, Failure> {
    let (kernel, dir) = (boot.kernel, boot.dir);
    let job_path = dir.join(JOB_FILE);
    // The guest's root is the host's, read-only and without the network: DuckDB releases are
    // fetched here first, and the guest finds them in the host's cache.
    for c in &plan.choices {
        if std::ptr::eq(c.kind, &crate::engines::duckdb::KIND) {
            crate::engines::duckdb::resolve(c.target.as_deref(), &|line| crate::errln!("{line}"))?;
        }
    }
    let cmdline = kernel_cmdline(boot, &job_path);
    let job = guest_job(plan, boot, &cmdline);
    fs::write(&job_path, serde_json::to_vec_pretty(&job).expect("jobs serialise"))
        .map_err(GuestError::io(&job_path))?;
    let console_path = dir.join(CONSOLE_FILE);
    let console = File::create(&console_path).map_err(GuestError::io(&console_path))?;
    let mut guest = start(kernel, &cmdline, &console)?;
    record.guest_pid = Some(guest.child.id());
    record.guest_start = crate::sys::owner::start_time(guest.child.id());
    fsmount::write_record(&dir.join(RECORD), record)?;
    let watched = watch(&mut guest, &boot.disks, stop, dir, &mut || {});
    guest.finish();
    let (status, verified) = watched?;
    record.guest_pid = None;
    record.guest_start = None;
    let exit: Option<GuestExit> = fs::read(dir.join(EXIT_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let o_sync = if verified.is_empty() {
        None
    } else {
        Some(verified.iter().all(|v| *v == Some(true)))
    };
    let imported = import(plan, dir, o_sync, observer)?;
    run_ids.extend(&imported);
    // `--report`: written from the host's store, once the runs are in it.
    if let Some(f) = observer.ended(&imported).into_iter().next() {
        return Err(f);
    }
    guest_ended(exit, status, &imported, &console_path, kernel)
}

/// The guest kernel's command line: its memory, the host's root read-only, a disk per image
/// (written through, no TRIM), the consoles on litebench's descriptors, and litebench itself as
/// init with the job file.
pub(super) fn kernel_cmdline(boot: &Boot<'_>, job_path: &Path) -> Vec<String> {
    let mut cmdline = vec![
        format!("mem={}M", boot.memory >> 20),
        "root=/dev/root".into(),
        "rootfstype=hostfs".into(),
        "rootflags=/".into(),
        "ro".into(),
    ];
    for (n, d) in boot.disks.iter().enumerate() {
        // s: the host opens the image O_SYNC; t: no TRIM (mkfs would punch holes in it).
        cmdline.push(format!("ubd{n}st={}", d.image.display()));
    }
    cmdline.extend([
        "con=null".into(),
        format!("con0=null,fd:{CONSOLE_FD}"),
        format!("con1=null,fd:{OUT_FD}"),
        format!("con2=null,fd:{ERR_FD}"),
        "quiet".into(),
        // Errors and worse reach the console log (where a failed boot is diagnosed); the
        // rest of the kernel's chatter does not.
        "loglevel=4".into(),
        format!("init={}", boot.exe.display()),
        "--".into(),
        "guest-init".into(),
        job_path.display().to_string(),
    ]);
    cmdline
}

/// What the guest is told to do: litebench's run arguments, its disks and modules, the
/// environment it passes on, and what the manifest says of the guest.
fn guest_job(plan: &Plan, boot: &Boot<'_>, cmdline: &[String]) -> GuestJob {
    let (kernel, dir) = (boot.kernel, boot.dir);
    let argv: Vec<String> = plan.command.iter().skip(2).cloned().collect();
    let host_release = litebench_env::capture(dir)
        .ok()
        .and_then(|e| e.machine.kernel)
        .unwrap_or_default();
    let mut run_args = guest_run_args(&argv, dir);
    // The guest's consoles are terminals whatever the host's are: no progress bar unless the
    // host's stderr is one.
    use std::io::IsTerminal;
    if !plan.output.quiet && !std::io::stderr().is_terminal() {
        run_args.push("--quiet".into());
    }
    GuestJob {
        exe: boot.exe.to_path_buf(),
        command: "run".into(),
        run_args,
        hostfs: Vec::new(),
        stdout: None,
        disks: boot.disks.clone(),
        modules_dir: kernel.modules_dir.clone(),
        modules: boot.modules.clone(),
        job_dir: dir.to_path_buf(),
        env: passed_env(),
        info: guest_info(boot, cmdline, host_release),
    }
}

/// The environment the command in the guest gets from litebench's: its own settings, what
/// `--shard auto` reads from a scheduler, and the host's cache however the host found it.
pub(super) fn passed_env() -> Vec<(String, String)> {
    std::env::vars()
        // litebench's own settings, and what `--shard auto` reads from the scheduler.
        .filter(|(k, _)| {
            (k.starts_with("LITEBENCH_") && k != store::ENV_VAR)
                || k.starts_with("SLURM_")
                || k == "JOB_COMPLETION_INDEX"
                || k.starts_with("AWS_BATCH_")
        })
        // The host's cache, however the host found it (the guest has no HOME of its own).
        .chain(
            crate::sys::cachedir::root()
                .ok()
                .filter(|_| std::env::var_os(crate::sys::cachedir::ENV_VAR).is_none())
                .map(|r| (crate::sys::cachedir::ENV_VAR.to_string(), r.display().to_string())),
        )
        .collect()
}

/// What the manifest (or the record) says of the guest before it boots; its init adds its own
/// measurement of a system call.
pub(super) fn guest_info(boot: &Boot<'_>, cmdline: &[String], host_release: String) -> GuestInfo {
    let kernel = boot.kernel;
    GuestInfo {
        kernel: format!("user-mode Linux ({})", kernel.binary.display()),
        release: kernel.release.clone(),
        command: std::iter::once(kernel.binary.display().to_string())
            .chain(cmdline.iter().cloned())
            .collect(),
        memory_mib: boot.memory >> 20,
        disk_mode: if boot.disks.is_empty() {
            "no disks: host directories through hostfs".into()
        } else {
            "ubd, image opened O_SYNC on the host (write-through), TRIM off".into()
        },
        o_sync_verified: None,
        host_release,
        host_storage: litebench_env::storage(boot.dir).ok(),
        syscall_ns_guest: None,
        syscall_ns_host: Some(crate::testbed::guest::syscall_ns(200_000)),
    }
}

/// Waits for the guest to exit: forwards a stop request (killing the guest a minute after it
/// if it is still running), and reads the images' open flags from /proc until each image has
/// been seen open for writing. UML opens a disk's image for writing with the flags of its
/// `ubdN` option every time, so one sighting settles it, and the trials that follow run
/// without litebench scanning /proc beside them. Returns the guest's exit status and, per
/// image, whether it was seen opened O_SYNC.
pub(super) fn watch(
    guest: &mut Guest,
    disks: &[GuestDisk],
    stop: &AtomicBool,
    dir: &Path,
    tick: &mut dyn FnMut(),
) -> Result<(std::process::ExitStatus, Vec<Option<bool>>), Failure> {
    let mut verified: Vec<Option<bool>> = vec![None; disks.len()];
    let mut stop_sent: Option<Instant> = None;
    loop {
        if let Some(s) = guest.child.try_wait().map_err(|e| Failure(format!("--guest: {e}")))? {
            return Ok((s, verified));
        }
        for (v, d) in verified.iter_mut().zip(disks).filter(|(v, _)| v.is_none()) {
            *v = image_o_sync(guest.child.id(), &d.image);
        }
        if verified.contains(&Some(false)) {
            let _ = guest.child.kill();
            let _ = guest.child.wait();
            return Err(Failure(
                "--guest: the guest kernel opened an image without O_SYNC, so syncs in the guest would not reach the host's storage; nothing was stored".into(),
            ));
        }
        tick();
        if stop.load(Ordering::Relaxed) {
            match stop_sent {
                None => {
                    let _ = File::create(dir.join(STOP_FILE));
                    stop_sent = Some(Instant::now());
                }
                Some(t) if t.elapsed() > Duration::from_secs(60) => {
                    let _ = guest.child.kill();
                }
                Some(_) => {}
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// How the guest ended, as the run's exit code or its one-line failure: the guest's own
/// exit, or, where it stopped without one, what its console says of why.
fn guest_ended(
    exit: Option<GuestExit>,
    status: std::process::ExitStatus,
    imported: &[i64],
    console_path: &Path,
    kernel: &Kernel,
) -> Result<i32, Failure> {
    match exit {
        Some(GuestExit { code: Some(code), .. }) => {
            if imported.is_empty() && code == 0 {
                return Err(Failure(format!(
                    "--guest: the run in the guest stored nothing (its console: {})",
                    console_path.display()
                )));
            }
            Ok(code)
        }
        Some(GuestExit { error: Some(e), .. }) => Err(Failure(format!(
            "--guest: {e} (the guest kernel's console: {})",
            console_path.display()
        ))),
        _ => {
            let console = fs::read_to_string(console_path).unwrap_or_default();
            let why = crate::testbed::guest::kernel::diagnose_console(&console, kernel)
                .unwrap_or_else(|| format!("the guest kernel stopped ({status}) before the run ended"));
            Err(Failure(format!(
                "--guest: {why}; {} finished run(s) kept; its console: {}",
                imported.len(),
                console_path.display()
            )))
        }
    }
}

/// Copies every run of the guest's store into the host's and hands each to `observer`; returns
/// the new ids.
fn import(plan: &Plan, dir: &Path, o_sync: Option<bool>, observer: &mut dyn RunObserver) -> Result<Vec<i64>, Failure> {
    let from_path = dir.join(STORE_FILE);
    if !from_path.is_file() {
        return Ok(Vec::new());
    }
    let mut from = Store::open_read(&from_path)?;
    let mut to = Store::open(&plan.places.results, plan.places.results_given)?;
    let mut ids = Vec::new();
    for listing in from.list()? {
        let mut run = from.load(Some(listing.id))?;
        if let Some(g) = run.manifest.guest.as_mut() {
            g.o_sync_verified = o_sync;
        }
        run.manifest.command = crate::engines::server::redact_command(&plan.command);
        let id = to.begin_named(&run.manifest, run.name.as_deref())?.id;
        for t in &run.templates {
            to.add_template(id, t)?;
        }
        for t in &run.trials {
            to.add_trial(id, t)?;
        }
        // A run the guest left `running` was cut off with the guest.
        let (status, error) = match run.status.as_str() {
            "complete" | "interrupted" | "failed" => (run.status.clone(), run.error.clone()),
            _ => (
                "failed".to_string(),
                Some("the guest kernel stopped during the run".to_string()),
            ),
        };
        let finished = run.finished_at.clone().unwrap_or_else(crate::base::time::now_rfc3339);
        to.finish_run(id, &status, &finished, error.as_deref())?;
        run.id = id;
        run.status = status;
        observer.imported(&run);
        ids.push(id);
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This process's own fds on a file: only writable ones decide, and each must be O_SYNC.
    #[test]
    fn only_writable_fds_on_the_image_decide_o_sync() {
        use std::os::unix::fs::OpenOptionsExt;
        let t = tempfile::tempdir().unwrap();
        fs::write(t.path().join("fs0.img"), b"").unwrap();
        // /proc names an fd's file by its canonical path, as the launcher compares it.
        let image = t.path().join("fs0.img").canonicalize().unwrap();
        let me = std::process::id();
        assert_eq!(image_o_sync(me, &image), None, "not open");
        let probe = File::open(&image).unwrap();
        assert_eq!(image_o_sync(me, &image), None, "a read-only probe decides nothing");
        let synced = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_SYNC)
            .open(&image)
            .unwrap();
        assert_eq!(image_o_sync(me, &image), Some(true));
        let cached = fs::OpenOptions::new().write(true).open(&image).unwrap();
        assert_eq!(image_o_sync(me, &image), Some(false), "one writable fd without O_SYNC");
        drop((probe, synced, cached));
    }

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn the_guest_gets_the_users_arguments_without_the_hosts_own() {
        let got = guest_run_args(
            &v(&[
                "crud",
                "--guest",
                "--fs",
                "ext4,f2fs",
                "--results",
                "/r.db",
                "--dir=/d",
                "--guest-memory",
                "1G",
                "--report",
                "r.html",
                "--trials",
                "3",
            ]),
            Path::new("/s/run-1"),
        );
        assert_eq!(
            got,
            v(&[
                "crud",
                "--fs",
                "ext4,f2fs",
                "--trials",
                "3",
                "--results",
                "/s/run-1/guest-results.db",
                "--dir",
                "/tmp/litebench-guest",
                "--guest-job",
                "/s/run-1/guest-job.json",
            ])
        );
    }

    #[test]
    fn paths_the_kernel_command_line_would_split_are_refused() {
        assert!(plain("--dir", Path::new("/a b")).is_err());
        assert!(plain("--dir", Path::new("/a,b")).is_err());
        assert!(plain("--dir", Path::new("/a/b")).is_ok());
    }

    #[test]
    fn images_are_zero_filled_to_the_byte() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("i.img");
        zero_image(&p, 3 << 20 | 5).unwrap();
        let meta = fs::metadata(&p).unwrap();
        assert_eq!(meta.len(), 3 << 20 | 5);
        use std::os::unix::fs::MetadataExt;
        // Allocated, not sparse: at least as many 512-byte blocks as bytes.
        assert!(meta.blocks() * 512 >= meta.len());
        assert!(zero_image(&p, 1).is_err(), "an existing file is never overwritten");
    }
}
