//! `--measure instructions`: litebench runs itself again under valgrind's callgrind.
//!
//! Hardware counters are refused here (`perf_event_open`), so the count is callgrind's. The
//! process the user started (the outer one) checks the plan, says in one line that it runs
//! again under valgrind, and re-executes itself with the same arguments under `valgrind
//! --tool=callgrind --instr-atstart=no`, its dump file in a scratch directory of its own, and
//! [`OUT_FILE_ENV`] naming that file (the marker of the inner process). The inner process runs
//! the run: callgrind instruments nothing until a trial's measured region starts
//! ([`crate::workload::recorder::Recorder`] starts and stops it with each phase's clock, the
//! load driver at its common start and last loop's end, and each reads its dumps back). The outer process passes on the inner one's exit status and removes the dump
//! files valgrind left.

use crate::base::Failure;
use crate::bench::plan::Plan;
use crate::model::measure::InstructionCounting;
use crate::sys::scratch::Scratch;
use crate::sys::valgrind::OUT_FILE_ENV;
use std::path::Path;
use std::process::Command;

/// The environment variable that hands the inner process valgrind's version, for its manifest.
const TOOL_ENV: &str = "LITEBENCH_CALLGRIND_TOOL";

/// valgrind's options before litebench's own command line; the output file follows them.
/// `--separate-threads=yes`: a dump holds the calling thread's counts alone, so the threads
/// that wake up beside a trial (the stop watch, every 20 ms) are not counted into it in
/// proportion to its wall time.
const OPTIONS: [&str; 4] = ["--tool=callgrind", "--instr-atstart=no", "--separate-threads=yes", "-q"];

/// The name of the dump file in the outer process's scratch directory.
const OUT_NAME: &str = "callgrind.out";

/// True in the process that runs under callgrind for `--measure instructions`.
pub fn inner() -> bool {
    std::env::var_os(OUT_FILE_ENV).is_some() && crate::sys::valgrind::running_on_valgrind() > 0
}

/// What the manifest of a run that counts instructions records about the counting.
pub fn counting() -> InstructionCounting {
    let out = std::env::var(OUT_FILE_ENV).unwrap_or_default();
    InstructionCounting {
        tool: std::env::var(TOOL_ENV).unwrap_or_else(|_| "valgrind callgrind".into()),
        command: std::iter::once("valgrind".to_string())
            .chain(OPTIONS.iter().map(|o| o.to_string()))
            .chain(std::iter::once(format!("--callgrind-out-file={out}")))
            .collect(),
        region: "each trial's measured region: instrumentation started where its clock starts and stopped where it stops, one callgrind dump per phase, or per client thread of a trial timed as one interval".into(),
        native_times: false,
    }
}

/// valgrind's version (`valgrind-3.19.0`), or the one line that refuses the run without it.
fn valgrind_version() -> Result<String, Failure> {
    let missing = |why: String| {
        Failure(format!(
            "--measure instructions needs valgrind ({why}); install it (Debian: apt-get install valgrind), or leave out --measure"
        ))
    };
    let out = Command::new("valgrind")
        .arg("--version")
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => missing("no valgrind on PATH".into()),
            _ => missing(format!("running valgrind --version: {e}")),
        })?;
    if !out.status.success() {
        return Err(missing(format!("valgrind --version exited with {}", out.status)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Runs this command again under callgrind, as the outer process of `--measure instructions`
/// (not [`inner`]), and returns the inner process's exit status. The caller made `plan` first,
/// so that every refusal is this process's, in one line, before valgrind starts; the plan
/// itself is not passed on: the inner process makes its own from the same command line, as it
/// must (a plan holds the workloads and engines of the process that made it, and the scripts,
/// logs and cast files it read), and makes it under callgrind only once.
pub fn run_under_callgrind(plan: &Plan) -> Result<i32, Failure> {
    let dir = plan.places.dir.as_deref();
    let version = valgrind_version()?;
    let exe = std::env::current_exe().map_err(|e| {
        Failure(format!(
            "--measure instructions: cannot find litebench's own executable to run under valgrind: {e}"
        ))
    })?;
    let scratch = Scratch::create(dir).map_err(|e| Failure(e.to_string()))?;
    let out = scratch.path(OUT_NAME);
    crate::errln!(
        "--measure instructions: running again under {version}'s callgrind, which counts each trial's measured region; wall times are under valgrind, not native"
    );
    // A stop signal sets the flag instead of ending this process, which waits for the inner
    // one to keep what it finished: Ctrl-C reaches both, a signal sent to this one alone is
    // passed on.
    let stop = crate::sys::signals::stop_flag()?;
    let child = Command::new("valgrind")
        .args(OPTIONS)
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(&exe)
        .args(std::env::args_os().skip(1))
        .env(OUT_FILE_ENV, &out)
        .env(TOOL_ENV, format!("{version} callgrind"))
        .spawn();
    let status = child.and_then(|mut child| {
        let mut passed_on = false;
        loop {
            if let Some(status) = child.try_wait()? {
                return Ok(status);
            }
            if !passed_on && stop.load(std::sync::atomic::Ordering::Relaxed) {
                passed_on = true;
                // SAFETY: kill(2) on the pid of a child not yet reaped.
                unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    });
    remove_dumps(scratch.dir(), &out);
    let status = status.map_err(|e| Failure(format!("--measure instructions: running valgrind: {e}")))?;
    use std::os::unix::process::ExitStatusExt;
    Ok(status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
}

/// Removes the dump files valgrind wrote in `dir` for `out` (`out` itself, its final dump, and
/// any `out.N` or `out.N-TT` the inner process left): plain files only, named as callgrind
/// names them.
fn remove_dumps(dir: &Path, out: &Path) {
    let Some(name) = out.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(file) = file.to_str() else { continue };
        let ours = file == name || file.strip_prefix(name).is_some_and(callgrind_suffix);
        if ours && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// What callgrind appends to its output file's name: `.N` (a dump), `-TT` (a thread), both.
fn callgrind_suffix(rest: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (dump, thread) = match rest.split_once('-') {
        Some((d, t)) => (d, Some(t)),
        None => (rest, None),
    };
    let dump_ok = dump.is_empty() || dump.strip_prefix('.').is_some_and(digits);
    dump_ok && thread.is_none_or(digits) && !rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_callgrinds_dump_files_are_removed() {
        let t = tempfile::tempdir().unwrap();
        for f in [
            "callgrind.out",
            "callgrind.out.1",
            "callgrind.out.12",
            "callgrind.out-01",
            "callgrind.out.3-02",
            "callgrind.out.x",
            "callgrind.outer",
            "callgrind.out.4-",
            "keep.db",
        ] {
            std::fs::write(t.path().join(f), "x").unwrap();
        }
        std::os::unix::fs::symlink("/etc/hostname", t.path().join("callgrind.out.7")).unwrap();
        remove_dumps(t.path(), &t.path().join("callgrind.out"));
        let mut left: Vec<String> = std::fs::read_dir(t.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "callgrind.out.4-",
                "callgrind.out.7",
                "callgrind.out.x",
                "callgrind.outer",
                "keep.db"
            ]
        );
    }
}
