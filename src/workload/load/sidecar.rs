//! A cast's sidecar role in a trial: its command (`{db}`, `{scratch}` put in; `{scratch}` is
//! the trial's own directory, which the runner removes after the trial with `keep = false`) started at the
//! common start (or its `at`), its process tree sampled from /proc while the workload roles
//! run, and stopped once they end (SIGTERM, then SIGKILL after its grace, said in a warning).
//! A sidecar that ends within its first [`AT_ONCE`] fails the trial in one line: its status
//! and the last line it wrote say why, and a run that goes on without what it was meant to
//! measure beside it would answer another question.

use super::roles::wait_while;
use super::Shared;
use crate::engines::{EngineError, ErrorKind};
use crate::model::cast::{CastEvents, Role, SidecarRun};
use crate::sys::sidecar::{self, Ended, Stopped};
use crate::workload::{Trial, WorkloadError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A sidecar that ends this soon after its start failed to start.
pub const AT_ONCE: Duration = Duration::from_millis(200);

/// How often its tree is read while it runs.
const SAMPLE: Duration = Duration::from_millis(100);

/// Runs sidecar role `role` of the cast in `file` beside the trial until the workload roles end.
pub(super) fn run(
    role: &Role,
    file: &str,
    trial: &Trial<'_>,
    shared: &Shared<'_>,
    done: &AtomicBool,
) -> Result<CastEvents, WorkloadError> {
    let mut events = CastEvents::default();
    let Some(cmd) = &role.sidecar else {
        return Ok(events);
    };
    let fail = |message: String| {
        shared.failed(EngineError {
            engine: "sidecar".into(),
            kind: ErrorKind::Input,
            code: None,
            message: format!("--cast {file}: role \"{}\": {message}", role.name),
            context: String::new(),
            busy_cause: None,
        })
    };
    let Some(place) = trial.place else {
        return Err(fail(
            "a sidecar needs the trial database's file; run the cast on a SQLite engine with a database file".into(),
        ));
    };
    let start = loop {
        if let Some(s) = shared.start.get() {
            break *s + shared.warmup;
        }
        if done.load(Ordering::Relaxed) || shared.halted() {
            return Ok(events);
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    wait_while(start + role.schedule.at, shared, done);
    if done.load(Ordering::Relaxed) || shared.halted() {
        return Ok(events);
    }
    // The trial's own directory: a replica made there is this trial's, not an earlier one's.
    let scratch = place.run.trial_dir(place.trial).map_err(|e| {
        fail(format!(
            "cannot make the trial's scratch directory for {{scratch}}: {e}"
        ))
    })?;
    let argv = cmd.argv(&place.db.to_string_lossy(), &scratch.to_string_lossy());
    let began = Instant::now();
    let running = sidecar::spawn(&argv, &role.name, place.base).map_err(|e| fail(e.to_string()))?;
    let mut running = match running.exited_within(AT_ONCE) {
        Ok(ended) => {
            let why = if ended.last_line.is_empty() {
                "it wrote nothing".to_string()
            } else {
                format!("its last line: {}", ended.last_line)
            };
            return Err(fail(format!(
                "the sidecar `{}` exited at once ({}, within {} ms of its start); {why}",
                argv.join(" "),
                ended.status,
                AT_ONCE.as_millis()
            )));
        }
        Err(running) => running,
    };
    while !done.load(Ordering::Relaxed) && !shared.halted() {
        running.sample();
        wait_while(Instant::now() + SAMPLE, shared, done);
    }
    let ended = running.stop(cmd.grace);
    // Killed at once on a stop request: the grace was not waited for, so nothing to say of it.
    if ended.stopped == Stopped::Kill && !shared.halted() {
        crate::errln!(
            "warning: --cast {file}: role \"{}\": the sidecar (pid {}) was still running {} after SIGTERM and was killed (SIGKILL); give it a longer grace, or a command that ends on SIGTERM",
            role.name,
            ended.pid,
            crate::model::load::duration_text(cmd.grace.as_nanos().min(u128::from(u64::MAX)) as u64)
        );
    }
    events.sidecars.push(record(
        role,
        &ended,
        began.saturating_duration_since(start),
        began.elapsed(),
    ));
    Ok(events)
}

fn record(role: &Role, e: &Ended, start: Duration, ran: Duration) -> SidecarRun {
    SidecarRun {
        role: role.name.clone(),
        pid: e.pid,
        start_ms: start.as_millis() as u64,
        ran_ms: ran.as_millis() as u64,
        cpu_ms: e.usage.cpu.as_millis() as u64,
        read_bytes: e.usage.read_bytes,
        write_bytes: e.usage.write_bytes,
        exit: e.status.clone(),
        stopped: e.stopped,
    }
}
