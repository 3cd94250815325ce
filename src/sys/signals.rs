//! The signals that ask a long command to stop cleanly, and the exit code it then ends with.
//! Every layer that runs for long (a session, a population, the durability verifier) polls the
//! same flag, so a stop is handled the same way everywhere.

use crate::base::Failure;

/// Exit code of a run interrupted with Ctrl-C (128 + SIGINT), SIGTERM or SIGHUP.
pub const EXIT_INTERRUPTED: i32 = 130;

/// The signals that ask a long command to stop cleanly: Ctrl-C, `kill`, and a closed terminal
/// or ssh session. Each keeps what is finished, stops servers, undoes mounts and removes scratch
/// files, then exits [`EXIT_INTERRUPTED`].
pub const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The process's one stop flag, once [`stop_flag`] installed it: signals are process-wide, so
/// a wait deep inside a workload (a script's `\sleep`) reads the same flag the session does
/// without every layer handing it down.
static PROCESS_STOP: std::sync::OnceLock<std::sync::Arc<std::sync::atomic::AtomicBool>> = std::sync::OnceLock::new();

/// The longest a [`sleep`] waits before it looks at the stop flag again: what a stop request
/// may wait for at most.
pub const STOP_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// A flag that each of [`STOP_SIGNALS`] sets instead of killing the process: the process's one
/// flag, installed by the first call (every later call returns the same flag). A SIGHUP that is
/// ignored when litebench starts (`nohup litebench run ...`) stays ignored: whoever started it
/// asked for it to outlive the terminal.
pub fn stop_flag() -> Result<std::sync::Arc<std::sync::atomic::AtomicBool>, Failure> {
    static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(stop) = PROCESS_STOP.get() {
        return Ok(stop.clone());
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for sig in STOP_SIGNALS {
        if sig == libc::SIGHUP && ignored(sig) {
            continue;
        }
        signal_hook::flag::register(sig, stop.clone()).map_err(|e| {
            Failure(format!(
                "cannot install the handler of signal {sig} (Ctrl-C, SIGTERM, SIGHUP): {e}"
            ))
        })?;
    }
    let _ = PROCESS_STOP.set(stop.clone());
    Ok(stop)
}

/// True once one of [`STOP_SIGNALS`] arrived (false before [`stop_flag`] installed the flag).
pub fn stop_requested() -> bool {
    PROCESS_STOP
        .get()
        .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
}

/// Sleeps for `length`, or less when a stop is requested (within [`STOP_POLL`]); returns false
/// when a stop cut it short. The end is a deadline, so the slices add no drift: a long sleep
/// is late by one wake-up, as `std::thread::sleep` is.
pub fn sleep(length: std::time::Duration) -> bool {
    let Some(end) = std::time::Instant::now().checked_add(length) else {
        // Longer than the clock can say (centuries): until a stop.
        loop {
            if stop_requested() {
                return false;
            }
            std::thread::sleep(STOP_POLL);
        }
    };
    loop {
        if stop_requested() {
            return false;
        }
        let now = std::time::Instant::now();
        if now >= end {
            return true;
        }
        std::thread::sleep((end - now).min(STOP_POLL));
    }
}

/// True when signal `sig` is ignored (`SIG_IGN`), as `nohup` leaves SIGHUP.
fn ignored(sig: libc::c_int) -> bool {
    // SAFETY: a zeroed sigaction is a valid out-parameter; a null new action only reads the
    // current one.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}
