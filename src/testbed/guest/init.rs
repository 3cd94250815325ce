//! `litebench guest-init JOB`: litebench as the guest kernel's first process.
//!
//! Why litebench itself and not a shell script: the guest has only the host's root, read-only,
//! and the steps (mount the kernel's filesystems, load modules from the guest kernel's own module
//! tree, mount the scratch directory and the host directories a `qualify` names read-write, time
//! a system call, run, forward a stop request, reap every child, power off) must all happen and
//! must all report what failed in one place the host can read: `guest-exit.json` in the scratch
//! directory. As process 1 it must never exit (the kernel would panic), so every path ends in a
//! power-off.
//!
//! The consoles, as the host wires them: tty1 is the host's stdout, tty2 its stderr; the kernel's
//! own console goes to a log file. A stop request (Ctrl-C on the host) arrives as a file in the
//! scratch directory, found by listing it four times a second: input on a guest terminal makes
//! UML take a SIGIO, and on this host kernel that signal's frame can overflow UML's alternate
//! signal stack, which kills the guest (`overflowed sigaltstack` in the host's log).

use super::{GuestExit, GuestJob, EXIT_FILE, STOP_FILE};
use std::ffi::CString;
use std::fs::{self, File};
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};

/// Pid of the run in the guest, for the thread that forwards a stop request.
static CHILD: AtomicI32 = AtomicI32::new(0);

fn c(s: &str) -> CString {
    CString::new(s).expect("no NUL in mount arguments")
}

fn mount(source: &str, target: &str, fstype: &str, data: Option<&str>) -> Result<(), String> {
    let _ = fs::create_dir_all(target);
    let data = data.map(c);
    // SAFETY: every pointer is a valid NUL-terminated string that outlives the call.
    let r = unsafe {
        libc::mount(
            c(source).as_ptr(),
            c(target).as_ptr(),
            c(fstype).as_ptr(),
            0,
            data.as_ref().map_or(std::ptr::null(), |d| d.as_ptr().cast()),
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(format!(
            "mount -t {fstype} {target}: {}",
            std::io::Error::last_os_error()
        ))
    }
}

/// Output processing off, so `\n` reaches the host as `\n` (not `\r\n`), and no echo.
fn raw(tty: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: termios is plain data; tcgetattr fills it before use.
    unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        if libc::tcgetattr(tty.as_raw_fd(), &mut t) == 0 {
            libc::cfmakeraw(&mut t);
            libc::tcsetattr(tty.as_raw_fd(), libc::TCSANOW, &t);
        }
    }
}

fn open_tty(n: u32) -> Option<File> {
    let f = File::options().write(true).open(format!("/dev/tty{n}")).ok()?;
    raw(&f);
    Some(f)
}

/// Entry point; never returns.
pub fn main(job_path: &Path) -> ! {
    let exit = match run(job_path) {
        Ok(code) => GuestExit { code, error: None },
        Err(e) => GuestExit {
            code: None,
            error: Some(e),
        },
    };
    if let Some(e) = &exit.error {
        if let Some(mut tty) = open_tty(2) {
            let _ = writeln!(tty, "error: --guest: {e}");
        }
    }
    if let Some(dir) = job_path.parent() {
        let text = serde_json::to_vec(&exit).expect("exit records serialise");
        if let Ok(mut f) = File::create(dir.join(EXIT_FILE)) {
            let _ = f.write_all(&text);
            let _ = f.sync_all();
        }
    }
    // SAFETY: sync and reboot have no preconditions; as process 1 we own the machine.
    unsafe {
        libc::sync();
        libc::reboot(libc::LINUX_REBOOT_CMD_POWER_OFF);
    }
    // Not reached; process 1 must not return.
    loop {
        std::thread::park();
    }
}

fn run(job_path: &Path) -> Result<Option<i32>, String> {
    let job_dir = job_path
        .parent()
        .ok_or_else(|| format!("{}: no directory", job_path.display()))?;
    let dir = job_dir.display().to_string();
    // The host's root is read-only in the guest; only the scratch directory is writable. First,
    // so that whatever fails next can still be reported there.
    mount("none", &dir, "hostfs", Some(&dir))?;
    mount("proc", "/proc", "proc", None)?;
    mount("sysfs", "/sys", "sysfs", None)?;
    // The kernel may have mounted /dev itself (CONFIG_DEVTMPFS_MOUNT).
    if !Path::new("/dev/tty1").exists() {
        mount("devtmpfs", "/dev", "devtmpfs", None)?;
    }
    let tmp = super::guest_tmp(job_dir);
    mount("tmpfs", &tmp.display().to_string(), "tmpfs", Some("mode=1777"))?;
    let text = fs::read(job_path).map_err(|e| format!("{}: {e}", job_path.display()))?;
    let mut job: GuestJob =
        serde_json::from_slice(&text).map_err(|e| format!("{}: not a guest job ({e})", job_path.display()))?;
    // The host's directories the command works in, read-write at their own paths. The
    // scratch directory may lie inside one: it is the same host directory either way.
    for d in &job.hostfs {
        let d = d.display().to_string();
        mount("none", &d, "hostfs", Some(&d))?;
    }

    // modprobe looks for DIR/lib/modules/RELEASE; the guest kernel's tree is elsewhere.
    let modroot = tmp.join("litebench-modules");
    let modroot = modroot.as_path();
    let tree = modroot.join("lib/modules");
    fs::create_dir_all(&tree).map_err(|e| format!("{}: {e}", tree.display()))?;
    std::os::unix::fs::symlink(&job.modules_dir, tree.join(&job.info.release))
        .map_err(|e| format!("{}: {e}", tree.display()))?;
    for m in &job.modules {
        let out = Command::new("modprobe")
            .arg("-d")
            .arg(modroot)
            .arg(m)
            .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
            .output()
            .map_err(|e| format!("modprobe {m}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "modprobe {m} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }

    job.info.syscall_ns_guest = Some(super::syscall_ns(200_000));
    fs::write(job_path, serde_json::to_vec_pretty(&job).expect("jobs serialise"))
        .map_err(|e| format!("{}: {e}", job_path.display()))?;
    let guest_dir = super::guest_dir(job_dir);
    fs::create_dir_all(&guest_dir).map_err(|e| format!("{}: {e}", guest_dir.display()))?;

    let stdout = match &job.stdout {
        Some(p) => Stdio::from(File::create(p).map_err(|e| format!("{}: {e}", p.display()))?),
        None => open_tty(1).map(Stdio::from).unwrap_or_else(Stdio::null),
    };
    let stderr = open_tty(2).map(Stdio::from).unwrap_or_else(Stdio::null);
    let mut cmd = Command::new(&job.exe);
    cmd.arg(&job.command)
        .args(&job.run_args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .env_clear()
        .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
        .env("HOME", "/root")
        .env("TMPDIR", &tmp)
        .envs(job.env.iter().map(|(k, v)| (k, v)));
    // A process group of its own, as on the host: a stop request reaches litebench only.
    cmd.process_group(0);
    let child = cmd.spawn().map_err(|e| format!("{}: {e}", job.exe.display()))?;
    let pid = child.id() as i32;
    CHILD.store(pid, Ordering::SeqCst);
    let watched = job_dir.to_path_buf();
    std::thread::spawn(move || loop {
        std::thread::sleep(std::time::Duration::from_millis(250));
        let asked = fs::read_dir(&watched).is_ok_and(|d| d.flatten().any(|e| e.file_name() == STOP_FILE));
        if asked {
            // SAFETY: kill with a pid we started.
            unsafe { libc::kill(CHILD.load(Ordering::SeqCst), libc::SIGINT) };
            return;
        }
    });
    // As process 1, reap every orphan until the run itself ends.
    loop {
        let mut status = 0;
        // SAFETY: status is a valid out-pointer.
        let r = unsafe { libc::waitpid(-1, &mut status, 0) };
        if r == pid {
            return Ok(if libc::WIFEXITED(status) {
                Some(libc::WEXITSTATUS(status))
            } else {
                Some(128 + libc::WTERMSIG(status))
            });
        }
        if r < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return Err(format!("waiting for the run: {}", std::io::Error::last_os_error()));
        }
    }
}
