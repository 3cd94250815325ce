//! The real process-crash check: a child runs the ledger workload on the real filesystem and is
//! killed with SIGKILL at seeded random moments; what it left is judged like a simulated state.
//!
//! Random kills can only *find* violations, never show their absence, and they land where the
//! timing lets them; the simulation tries every crash point. So the two are held against each
//! other one way: every violation a real kill finds must be one the simulation finds too.

use super::check::{check_in_place, Outcome, DB_NAME};
use super::ledger::Ledger;
use super::verify::Config;
use crate::engines::sqlite::api::Api;
use crate::engines::sqlite::conn::SqliteConn;
use crate::engines::Connection;
use rand::{Rng, SeedableRng};
use std::io::BufRead;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the kills found.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KillReport {
    pub kills: u32,
    pub violations: u32,
    /// Most acknowledged transactions lost in one kill.
    pub worst_lost: u64,
    /// Some kill left a corrupt database or part of a transaction.
    pub corrupt: bool,
    /// One line per violation found (at most a few).
    pub examples: Vec<String>,
}

/// Why the kill check could not run.
#[derive(Debug, thiserror::Error)]
pub enum KillError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("durability child: {0}")]
    Child(String),
    #[error("{0}")]
    Engine(#[from] crate::engines::EngineError),
}

/// How a child is started: the litebench binary and the `--engine` it was given.
pub struct ChildSpec<'a> {
    pub exe: &'a Path,
    pub engine: &'a str,
    pub transactions: u32,
    pub seed: u64,
}

fn io(p: &Path) -> impl FnOnce(std::io::Error) -> KillError + '_ {
    move |source| KillError::Io {
        path: p.display().to_string(),
        source,
    }
}

/// Starts a child on a fresh baseline in `dir`, lets it run for `delay` after it is ready
/// (`None`: to the end), kills it, and returns the last acknowledged transaction and how
/// long it ran.
fn run_child(
    api: &'static Api,
    dir: &Path,
    config: &Config,
    ledger: &Ledger,
    spec: &ChildSpec<'_>,
    delay: Option<Duration>,
) -> Result<(u64, Duration), KillError> {
    super::check::remove_db_files(dir);
    let db = dir.join(DB_NAME);
    ledger.create(api, &db, &config.journal_mode)?;
    let mut child = Command::new(spec.exe)
        .args(["durability-child", "--db"])
        .arg(&db)
        .args(["--engine", spec.engine, "--journal-mode", &config.journal_mode])
        .args(["--synchronous", &config.synchronous])
        .args(["--transactions", &spec.transactions.to_string()])
        .args(["--seed", &spec.seed.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(io(spec.exe))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| KillError::Child("no stdout".into()))?;
    let mut lines = std::io::BufReader::new(stdout).lines();
    match lines.next() {
        Some(Ok(l)) if l == "ready" => {}
        other => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(KillError::Child(format!("did not start: {other:?}")));
        }
    }
    let started = Instant::now();
    if let Some(d) = delay {
        std::thread::sleep(d);
        // SAFETY: kill(2) on our own child's pid, which has not been reaped yet.
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
    }
    let _ = child.wait().map_err(io(spec.exe))?;
    let ran = started.elapsed();
    // Every "ack" the child printed was printed after its COMMIT returned.
    let mut acked = 0;
    for l in lines.map_while(Result::ok) {
        if let Some(t) = l.strip_prefix("ack ").and_then(|t| t.parse().ok()) {
            acked = t;
        }
    }
    Ok((acked, ran))
}

/// Kills `kills` children of `config` at seeded random moments within one undisturbed run's
/// duration, judging each database left in `dir` (created and removed here).
pub fn kill_check(
    api: &'static Api,
    dir: &Path,
    config: &Config,
    ledger: &Ledger,
    spec: &ChildSpec<'_>,
    kills: u32,
) -> Result<KillReport, KillError> {
    std::fs::create_dir(dir).map_err(io(dir))?;
    let result = kill_in(api, dir, config, ledger, spec, kills);
    super::check::remove_db_files(dir);
    let _ = std::fs::remove_dir(dir);
    result
}

fn kill_in(
    api: &'static Api,
    dir: &Path,
    config: &Config,
    ledger: &Ledger,
    spec: &ChildSpec<'_>,
    kills: u32,
) -> Result<KillReport, KillError> {
    let (_, whole) = run_child(api, dir, config, ledger, spec, None)?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(spec.seed ^ 0x6b69_6c6c);
    let mut report = KillReport {
        kills,
        ..KillReport::default()
    };
    for k in 0..kills {
        let delay = Duration::from_nanos(rng.random_range(0..=whole.as_nanos().max(1) as u64));
        let (acked, _) = run_child(api, dir, config, ledger, spec, Some(delay))?;
        let outcome = check_in_place(api, dir, ledger);
        let violation = match &outcome {
            Outcome::Intact { applied } if *applied >= acked => None,
            Outcome::Intact { applied } => {
                report.worst_lost = report.worst_lost.max(acked - applied);
                Some(format!("lost {} acknowledged", acked - applied))
            }
            bad => {
                report.corrupt = true;
                Some(format!("{bad:?}"))
            }
        };
        if let Some(v) = violation {
            report.violations += 1;
            if report.examples.len() < 3 {
                report
                    .examples
                    .push(format!("kill {k} after {delay:?} ({acked} acknowledged): {v}"));
            }
        }
    }
    Ok(report)
}

/// The child's side: runs the workload on `db`, printing `ready` once set up and `ack N`
/// after each commit returned, flushed, so the parent knows what was acknowledged.
pub fn child_main(api: &'static Api, db: &Path, config: &Config, ledger: &Ledger) -> Result<(), KillError> {
    use std::io::Write;
    let mut conn = SqliteConn::open(api, db, None, "durability child")?;
    conn.query(&format!("PRAGMA journal_mode={}", config.journal_mode))?;
    conn.execute_batch(&format!(
        "PRAGMA synchronous={}; PRAGMA wal_autocheckpoint=8",
        config.synchronous
    ))?;
    let out = std::io::stdout();
    let say = |line: String| {
        let mut o = out.lock();
        let _ = writeln!(o, "{line}");
        let _ = o.flush();
    };
    say("ready".into());
    ledger.run(&mut conn, |t| say(format!("ack {t}")))?;
    Ok(())
}
