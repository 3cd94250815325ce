//! `litebench bisect WORKLOAD A B`: where, among the SQLite releases the registries hold from A
//! to B, a significant change in the workload's speed happened.
//!
//! "The regression came from the update ... introduced in v1.14.33" is found today by testing
//! releases by hand. Bisect first runs A against B (interleaved, as `run` runs two
//! configurations); when their verdict is faster or slower, it halves the releases between
//! them, running the older end against the middle each time: the same verdict as A against B
//! puts the change at or before the middle, anything else after it. It ends with the two
//! neighbouring releases (among those a registry holds) the change lies between, confirmed by a
//! run of those two, and names the releases between them that no registry holds. Every step is
//! a stored run with history's settings ([`super::history`]: `-Os`, the pinned pragmas).
//! The search assumes one change; a step whose verdict is inconclusive is said as such.

use crate::base::Failure;
use crate::bench::observer::{JobRun, RunObserver};
use crate::bench::plan::{self, Plan};
use crate::bench::settings::RunArgs;
use crate::engines::sqlite::compiled::releases::{self, version_key, Release};
use crate::model::record::{Manifest, TrialRecord};
use crate::report::number::ratio as ratio_text;
use crate::report::stats::{values, Statistics};
use crate::store::StoredRun;
use litebench_stats::{Ratio, Verdict};

/// `bisect`'s arguments: `run`'s, and the two releases.
#[derive(Debug, clap::Args)]
pub struct BisectArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// The older release (e.g. 3.7.8).
    #[arg(value_name = "A")]
    pub from: String,
    /// The newer release (e.g. 3.54.1).
    #[arg(value_name = "B")]
    pub to: String,
    /// How each step runs the workload, as `history --method` (speed-check: speedtest1's
    /// default with --measure instructions)
    #[arg(long, value_enum)]
    pub method: Option<super::history::Method>,
}

/// One comparison of the search.
struct Step {
    older: &'static Release,
    newer: &'static Release,
    run_id: i64,
    ratio: Option<Ratio>,
}

/// Runs `bisect`.
pub fn run(a: &BisectArgs) -> Result<i32, Failure> {
    let (from, to) = (release(&a.from, "bisect A")?, release(&a.to, "bisect B")?);
    super::history::method_of(&a.run, a.method)?;
    // `--measure instructions`: the whole search again under callgrind, each step counted.
    if a.run.measure.is_some() && !crate::bench::instructions::inner() {
        return crate::bench::instructions::run_under_callgrind(&plan::plan(&a.run)?);
    }
    if from.key() >= to.key() {
        return Err(Failure(format!(
            "bisect {} {}: A must be the older release",
            a.from, a.to
        )));
    }
    if !a.run.engines.is_empty() {
        return Err(Failure(
            "bisect: --engine is not taken; the releases are A and B (`litebench bisect WORKLOAD A B`)".into(),
        ));
    }
    let between: Vec<&'static Release> = releases::all()
        .iter()
        .filter(|r| r.key() >= from.key() && r.key() <= to.key())
        .collect();
    let held: Vec<&'static Release> = between.iter().copied().filter(|r| !r.sources.is_empty()).collect();
    crate::errln!(
        "bisect: {} releases from {} to {} that a registry holds ({} more no registry holds)",
        held.len(),
        from.version,
        to.version,
        between.len() - held.len()
    );
    let mut steps: Vec<Step> = Vec::new();
    let first = compare(a, from, to)?;
    let direction = match first.ratio.and_then(|r| r.verdict) {
        Some(v @ (Verdict::Faster | Verdict::Slower)) => v,
        _ => {
            say(&first, 0);
            crate::out!(
                "bisect: no significant change from {} to {} ({}); nothing to search\n",
                from.version,
                to.version,
                ratio_text(first.ratio.as_ref())
            );
            return Ok(0);
        }
    };
    say(&first, 0);
    steps.push(first);
    let (lo, hi) = search(held.len(), direction, &mut |lo, mid| {
        let step = compare(a, held[lo], held[mid])?;
        say(&step, steps.len());
        let verdict = step.ratio.and_then(|r| r.verdict);
        steps.push(step);
        Ok(verdict)
    })?;
    let last = steps.last().expect("the first step");
    let confirmed = if std::ptr::eq(last.older, held[lo]) && std::ptr::eq(last.newer, held[hi]) {
        steps.len() - 1
    } else {
        let step = compare(a, held[lo], held[hi])?;
        say(&step, steps.len());
        steps.push(step);
        steps.len() - 1
    };
    let c = &steps[confirmed];
    let unheld: Vec<&str> = between
        .iter()
        .filter(|r| r.sources.is_empty() && r.key() > held[lo].key() && r.key() < held[hi].key())
        .map(|r| r.version)
        .collect();
    crate::out!(
        "bisect: {} from {} to {}: it happened between {} ({}) and {} ({}): {} (run {}); {} steps{}\n",
        direction.as_str(),
        from.version,
        to.version,
        held[lo].version,
        held[lo].date,
        held[hi].version,
        held[hi].date,
        ratio_text(c.ratio.as_ref()),
        c.run_id,
        steps.len(),
        if unheld.is_empty() {
            "; no release between them is missing from the registries".to_string()
        } else {
            format!("; between them no registry holds {}", unheld.join(", "))
        }
    );
    Ok(0)
}

/// The binary search over `n` releases (oldest first) whose ends differ by `direction`:
/// `compare(lo, mid)` runs release `lo` against `mid` and gives its verdict; the same verdict
/// as the ends' puts the change at or before `mid`. Returns the neighbours it lies between.
fn search(
    n: usize,
    direction: Verdict,
    compare: &mut dyn FnMut(usize, usize) -> Result<Option<Verdict>, Failure>,
) -> Result<(usize, usize), Failure> {
    let (mut lo, mut hi) = (0usize, n - 1);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if compare(lo, mid)? == Some(direction) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok((lo, hi))
}

/// The catalogued release `text` names, held by a registry.
fn release(text: &str, flag: &str) -> Result<&'static Release, Failure> {
    let r = releases::find(text).ok_or_else(|| {
        Failure(format!(
            "{flag} {text}: not a SQLite release litebench knows; see `litebench list sqlite-releases`"
        ))
    })?;
    if r.sources.is_empty() {
        return Err(Failure(format!(
            "{flag} {text}: no package registry holds SQLite {text}; choose a release `litebench list sqlite-releases` shows as held"
        )));
    }
    if version_key(text).is_none() {
        return Err(Failure(format!("{flag} {text}: not a release number")));
    }
    Ok(r)
}

/// Prints a step as it ends.
fn say(s: &Step, n: usize) {
    crate::errln!(
        "bisect step {}: {} against {}: {} (run {})",
        n + 1,
        s.newer.version,
        s.older.version,
        ratio_text(s.ratio.as_ref()),
        s.run_id
    );
}

/// Runs `older` against `newer` with history's settings and the user's run flags.
fn compare(a: &BisectArgs, older: &'static Release, newer: &'static Release) -> Result<Step, Failure> {
    let mut args = a.run.clone();
    args.engines = vec![format!("sqlite@{}", older.version), format!("sqlite@{}", newer.version)];
    let args = super::history::history_args(&args, super::history::method_of(&a.run, a.method)?)?;
    let mut kept = Kept::default();
    let outcome = crate::bench::session::run(plan::plan_to_run(&args), &mut kept);
    let code = outcome.result?;
    let Some((run_id, m, trials)) = kept.run else {
        return Err(Failure(format!(
            "bisect: the run of {} against {} stored nothing (exit {code})",
            older.version, newer.version
        )));
    };
    if code != 0 {
        return Err(Failure(format!(
            "bisect: the run of {} against {} ended with exit {code} (run {run_id}); see `litebench show {run_id}`",
            older.version, newer.version
        )));
    }
    let metric = crate::report::headline_metric(&m, crate::report::RunWorkload::of(&m), None);
    let stats = Statistics::of(&m, args.noise.value);
    let ratio = stats.compare(
        &values(&trials, 0, "all", metric),
        &values(&trials, 1, "all", metric),
        metric,
    );
    Ok(Step {
        older,
        newer,
        run_id,
        ratio,
    })
}

/// The one run a step's session stored, kept for its verdict.
#[derive(Default)]
struct Kept {
    run: Option<(i64, Manifest, Vec<TrialRecord>)>,
}

impl RunObserver for Kept {
    fn started(&mut self, _plan: &Plan) {
        self.run = None;
    }

    fn job_ended(&mut self, run: &JobRun<'_>) -> Result<(), Failure> {
        self.run = Some((run.run_id, run.manifest.clone(), run.trials.to_vec()));
        Ok(())
    }

    fn imported(&mut self, _run: &StoredRun) {}

    fn ended(&mut self, _run_ids: &[i64]) -> Vec<Failure> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Releases 0..n with one step (slower) at `at`: every comparison spanning it is slower.
    fn find(n: usize, at: usize) -> ((usize, usize), usize) {
        let mut runs = 0;
        let found = search(n, Verdict::Slower, &mut |lo, mid| {
            runs += 1;
            Ok(Some(if lo < at && at <= mid {
                Verdict::Slower
            } else {
                Verdict::NoSignificantDifference
            }))
        })
        .unwrap();
        (found, runs)
    }

    #[test]
    fn the_search_finds_the_one_step_in_log2_runs() {
        for n in [2, 3, 5, 8, 40, 97] {
            for at in 1..n {
                let ((lo, hi), runs) = find(n, at);
                assert_eq!((lo, hi), (at - 1, at), "n {n} at {at}");
                assert!(runs <= (n as f64).log2().ceil() as usize, "n {n}: {runs} runs");
            }
        }
    }
}
