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

/// A flag that each of [`STOP_SIGNALS`] sets instead of killing the process. A SIGHUP that is
/// ignored when litebench starts (`nohup litebench run ...`) stays ignored: whoever started it
/// asked for it to outlive the terminal.
pub fn stop_flag() -> Result<std::sync::Arc<std::sync::atomic::AtomicBool>, Failure> {
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
    Ok(stop)
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
