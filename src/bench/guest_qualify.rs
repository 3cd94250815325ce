//! `litebench qualify --guest --dir D`: the qualification run inside the user-mode Linux guest,
//! on D as the guest sees it through hostfs.
//!
//! Why: a guest reaches the host's files through hostfs, which passes data and syncs through to
//! the host but whose locks are its own business, so what SQLite may do there is not what it
//! may do on the host, and the one thing only this setup can show, whether a lock held on one
//! side is seen on the other, decides whether a process on each side can share a database.
//!
//! How: the host makes one directory of qualify's own in D (`.litebench-qualify-host-PID-N`,
//! mode 0700, created exclusively) holding the guest's job, console, exit record and output,
//! and the host's side of the lock exchange ([`across`]); it boots the guest with no disks and
//! D mounted read-write at its own path, the guest's init runs `litebench qualify --dir D` with
//! the user's `--format` and its output into that directory, and the host prints that output
//! once the guest has powered off. The guest's terminals carry only its errors (input on one
//! kills UML here). Then exactly the files it and the guest made are removed, and the
//! directory; the console log stays, named, where the guest failed.

use super::guest::{guest_info, kernel_cmdline, passed_env, plain, start, watch, Boot};
use crate::base::Failure;
use crate::testbed::guest::kernel::Kernel;
use crate::testbed::guest::{GuestError, GuestExit, GuestJob, CONSOLE_FILE, EXIT_FILE, JOB_FILE, STOP_FILE};
use crate::testbed::qualify::across;
use std::fs::{self, File};
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// The guest's `qualify` output, in the user's format.
pub const OUT_FILE: &str = "guest-qualify.out";

/// Qualifies `dir` from inside a guest kernel with `memory` bytes, printing the guest's output
/// in `format` (a `--format` value). Returns the guest's exit code.
pub fn qualify(dir: &Path, memory: u64, format: &str) -> Result<i32, Failure> {
    let kernel = Kernel::find()?;
    let exe = std::env::current_exe().map_err(|e| Failure(format!("--guest: cannot find litebench itself: {e}")))?;
    plain("--guest: litebench's own path", &exe)?;
    let dir = dir.canonicalize().map_err(GuestError::io(dir))?;
    plain("--dir", &dir)?;
    let stop = crate::sys::signals::stop_flag()?;
    let own = crate::testbed::qualify::own_dir(&dir, "host-").map_err(|e| {
        Failure(format!(
            "--dir {}: cannot create a directory of its own there ({e}); give a directory you can write",
            dir.display()
        ))
    })?;
    let result = boot(&kernel, &exe, &dir, &own, memory, format, &stop);
    let mut names = vec![JOB_FILE, EXIT_FILE, STOP_FILE, OUT_FILE];
    names.extend(across::NAMES);
    if result.is_ok() {
        names.push(CONSOLE_FILE);
    }
    for n in names {
        let _ = fs::remove_file(own.join(n));
    }
    if result.is_ok() {
        if let Err(e) = fs::remove_dir(&own) {
            crate::errln!("warning: left {}: {e}", own.display());
        }
    }
    result
}

fn boot(
    kernel: &Kernel,
    exe: &Path,
    dir: &Path,
    own: &Path,
    memory: u64,
    format: &str,
    stop: &AtomicBool,
) -> Result<i32, Failure> {
    // Held until the guest has stopped: the guest asks for the same byte.
    let held = across::hold(own).map_err(GuestError::io(&own.join(across::HOST_HELD)))?;
    let job_path = own.join(JOB_FILE);
    let boot = Boot {
        kernel,
        modules: Vec::new(),
        memory,
        exe,
        dir: own,
        disks: Vec::new(),
    };
    let cmdline = kernel_cmdline(&boot, &job_path);
    let host_release = litebench_env::capture(dir)
        .ok()
        .and_then(|e| e.machine.kernel)
        .unwrap_or_default();
    let text = |p: &Path| p.display().to_string();
    let mut env = passed_env();
    // The guest's output is a file: tables fitted to the host's terminal, where there is one.
    if let Some(w) = crate::base::terminal::width() {
        env.push(("COLUMNS".into(), w.to_string()));
    }
    let job = GuestJob {
        exe: exe.to_path_buf(),
        command: "qualify".into(),
        run_args: vec![
            "--dir".into(),
            text(dir),
            "--format".into(),
            format.into(),
            "--across-host".into(),
            text(own),
        ],
        hostfs: vec![dir.to_path_buf()],
        stdout: Some(own.join(OUT_FILE)),
        disks: Vec::new(),
        modules_dir: kernel.modules_dir.clone(),
        modules: Vec::new(),
        job_dir: own.to_path_buf(),
        env,
        info: guest_info(&boot, &cmdline, host_release),
    };
    fs::write(&job_path, serde_json::to_vec_pretty(&job).expect("jobs serialise"))
        .map_err(GuestError::io(&job_path))?;
    let console_path = own.join(CONSOLE_FILE);
    let console = File::create(&console_path).map_err(GuestError::io(&console_path))?;
    let mut guest = start(kernel, &cmdline, &console)?;
    let watched = watch(&mut guest, &[], stop, own, &mut || across::answer_guest(own));
    guest.finish();
    drop(held);
    let (status, _) = watched?;
    let exit: Option<GuestExit> = fs::read(own.join(EXIT_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    match exit {
        Some(GuestExit { code: Some(code), .. }) => {
            let out = fs::read(own.join(OUT_FILE)).map_err(GuestError::io(&own.join(OUT_FILE)))?;
            crate::out!("{}", String::from_utf8_lossy(&out));
            Ok(code)
        }
        Some(GuestExit { error: Some(e), .. }) => Err(Failure(format!(
            "--guest: {e} (the guest kernel's console: {})",
            console_path.display()
        ))),
        _ => {
            let console = fs::read_to_string(&console_path).unwrap_or_default();
            let why = crate::testbed::guest::kernel::diagnose_console(&console, kernel)
                .unwrap_or_else(|| format!("the guest kernel stopped ({status}) before qualify ended"));
            Err(Failure(format!(
                "--guest: {why}; its console: {}",
                console_path.display()
            )))
        }
    }
}
