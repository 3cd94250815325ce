//! `litebench run --dry-run`: the plan, printed instead of run.
//!
//! Users of big sweeps want to see what a command line will do before they spend an afternoon
//! on it: which configurations, how many trials, in what order, and for how long. The plan
//! ([`crate::bench::plan`]) holds all of it once every check has passed, so a dry run is the
//! plan's checks and this page: no store, engine, filesystem or guest is opened and no file is
//! made. Time is estimated only where a duration or a rate fixes a trial's length; elsewhere
//! the trial counts are the answer.

use crate::base::Failure;
use crate::bench::plan::{Configuration, Job, Plan};
use crate::model::load::duration_text;
use crate::model::stop_rule::StopOn;
use crate::report::Format;
use serde::Serialize;
use std::time::Duration;

/// The width the page is written to.
const COLUMNS: usize = 80;

/// The plan of one job as data (`--format json`) and as the text printed.
#[derive(Serialize)]
struct JobView {
    /// Its position in the plan (what `--shard` splits).
    job: usize,
    workload: String,
    params: crate::model::params::Params,
    configurations: Vec<ConfigView>,
    warmup: u32,
    trials: u32,
    /// Trials it runs in all, warm-ups included.
    total_trials: u64,
    /// What ends each trial, where the workload stops on a count or a time.
    stop: Option<String>,
    /// One trial's length where a duration or a rate fixes it, the same in every configuration.
    trial_ms: Option<u64>,
    /// Every trial's length summed, where a duration or each configuration's rate fixes it (a
    /// sweep of rates on a count: each rate's trials take their own time).
    trials_ms: Option<u64>,
    /// The shortest and longest trial, where they differ.
    trial_range_ms: Option<(u64, u64)>,
    /// What the workload says of itself with these parameters ([`crate::workload::Workload::plan_lines`]:
    /// tpcc's population and intervals), one line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    about: Vec<String>,
    /// A cast's roles, one line each: kind, clients and mode, rate, schedule, and the
    /// parameters it gives its workload (its own script); empty without `--cast`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    roles: Vec<String>,
    /// What the workload says of this run besides the plan (its long operations and their
    /// limit).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
}

#[derive(Serialize)]
struct ConfigView {
    index: usize,
    label: String,
    engine: String,
    knobs: Vec<(String, String)>,
    /// The knobs among `knobs` set by the workload's defaults (`default_knobs`), with the
    /// origin the run records (`workload tpcc default`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    workload_defaults: Vec<(String, String)>,
    presets: Vec<&'static str>,
    fs: Option<String>,
    scheduler: Option<String>,
    /// `--storage`: the value and its kind (`sync=2ms (emulated)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    storage: Option<String>,
    /// A sweep's point: its load in words (absent without a sweep).
    #[serde(skip_serializing_if = "Option::is_none")]
    load: Option<String>,
}

#[derive(Serialize)]
struct BuildsView {
    builds: usize,
    fetches: usize,
    estimate_ms: u64,
    /// The estimate in words, with what it rests on.
    said: String,
}

#[derive(Serialize)]
struct PlanView {
    jobs: Vec<JobView>,
    /// Shard `I/N` of the plan, when `--shard` splits it.
    shard: Option<String>,
    /// The time the trials take in all, where every job's trial length is fixed.
    estimate_ms: Option<u64>,
    /// SQLite releases (`sqlite@3.45.1`) with no build in the cache yet: the run would fetch
    /// and compile each first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    to_build: Vec<String>,
    /// How many builds those need and about how long making them takes (one at a time, as a
    /// run opens its engines), said before anything is fetched or compiled.
    #[serde(skip_serializing_if = "Option::is_none")]
    builds: Option<BuildsView>,
    results: String,
}

/// Prints the plan (made with every check a run makes before it starts); exit code 0.
pub fn print(plan: &Plan) -> Result<i32, Failure> {
    for w in &plan.warnings {
        crate::errln!("warning: {w}");
    }
    let view = view(plan);
    if plan.output.format == Format::Json {
        let text = serde_json::to_string_pretty(&view).map_err(|e| Failure(format!("--dry-run: {e}")))?;
        crate::out!("{text}");
    } else {
        crate::out!("{}", text(&view));
    }
    Ok(0)
}

/// The line said on a terminal before a run whose trials take more than a minute starts (the
/// time `--dry-run` gives), so nobody waits five minutes not knowing they would; `None` for a
/// shorter run or one whose trials no duration or rate fixes.
pub fn long_run_line(plan: &Plan) -> Option<String> {
    let jobs: Vec<JobView> = plan.mine.iter().map(|&j| job_view(plan, j, &plan.jobs[j])).collect();
    let ms = jobs.iter().map(|j| j.trials_ms).sum::<Option<u64>>()?;
    let trials: u64 = jobs.iter().map(|j| j.total_trials).sum();
    (ms > 60_000).then(|| {
        format!(
            "this run takes about {} ({trials} trials, warm-ups included, one after the other); Ctrl-C stops it and keeps what finished, --dry-run shows the plan",
            human(ms)
        )
    })
}

fn view(plan: &Plan) -> PlanView {
    let jobs: Vec<JobView> = plan.mine.iter().map(|&j| job_view(plan, j, &plan.jobs[j])).collect();
    let estimate_ms = jobs.iter().map(|j| j.trials_ms).sum::<Option<u64>>();
    PlanView {
        shard: plan.fleet.as_ref().map(|f| format!("{}/{}", f.shard, f.shards)),
        estimate_ms,
        results: plan.places.results.display().to_string(),
        to_build: to_build(&plan.engine_names),
        builds: builds(&plan.engine_names),
        jobs,
    }
}

/// The builds the run would make first, counted and timed; `None` when it makes none.
fn builds(engines: &[String]) -> Option<BuildsView> {
    use crate::engines::sqlite::compiled::{selection, BuildCache};
    let cache = BuildCache::from_env().ok()?;
    let t = selection::to_build(engines, &cache);
    (t.builds > 0).then(|| BuildsView {
        builds: t.builds,
        fetches: t.fetches,
        estimate_ms: u64::try_from(t.estimate(1).as_millis()).unwrap_or(u64::MAX),
        said: t.describe(1),
    })
}

/// The engines that are SQLite releases without a build in the cache.
fn to_build(engines: &[String]) -> Vec<String> {
    use crate::engines::sqlite::compiled::{selection, BuildCache};
    let Ok(cache) = BuildCache::from_env() else {
        return Vec::new();
    };
    engines
        .iter()
        .filter(|e| {
            e.strip_prefix("sqlite@")
                .and_then(|t| selection::parse(t, Some(&cache)))
                .and_then(Result::ok)
                .is_some_and(|s| s.specs.iter().any(|r| r.cached(&cache).is_none()))
        })
        .cloned()
        .collect()
}

fn job_view(plan: &Plan, index: usize, job: &Job) -> JobView {
    // A workload that stops on its own time with no stop rule (tpcc, tatp): its warm-up and
    // measured interval.
    let own = || {
        let t = job.workload.transactions()?;
        match t.budget(&job.params) {
            crate::workload::load::Budget::Time(d) => Some((d + t.warmup(&job.params)).as_millis() as u64),
            _ => None,
        }
    };
    // Each configuration's trial length: its duration, or its count at its own rate.
    let of = |c: &Configuration| {
        let Some(stop) = &job.stop else {
            return own();
        };
        Some(stop).and_then(|s| match &s.on {
            StopOn::Duration { ms, .. } => Some(*ms),
            StopOn::Count { count, .. } => c
                .load
                .as_ref()
                .unwrap_or(&plan.load)
                .rate
                .map(|r| crate::model::stop_rule::StopRule::time_of(*count, r).as_millis() as u64),
        })
    };
    let lengths: Option<Vec<u64>> = job.configs.iter().map(of).collect();
    let per_config = u64::from(plan.trials.trials + plan.trials.warmup);
    let (min, max) = lengths
        .as_ref()
        .map_or((None, None), |l| (l.iter().min().copied(), l.iter().max().copied()));
    let trial_ms = min.filter(|m| Some(*m) == max);
    let trials_ms = lengths.map(|l| l.iter().sum::<u64>() * per_config);
    let trial_range_ms = min.zip(max).filter(|(a, b)| a != b);
    JobView {
        job: index,
        workload: job.workload.name().to_string(),
        params: job.params.clone(),
        configurations: job.configs.iter().map(|c| config_view(plan, c)).collect(),
        warmup: plan.trials.warmup,
        trials: plan.trials.trials,
        total_trials: per_config * job.configs.len() as u64,
        stop: job.stop.as_ref().map(|s| s.describe()),
        trial_ms,
        trials_ms,
        trial_range_ms,
        about: job.workload.plan_lines(&job.params),
        roles: plan
            .load
            .cast
            .as_ref()
            .map(|c| c.roles.iter().map(|r| r.describe_with_params()).collect())
            .unwrap_or_default(),
        notes: job
            .workload
            .plan_notes(&job.params, plan.trials.seed, &plan.engine_names),
    }
}

fn config_view(plan: &Plan, c: &Configuration) -> ConfigView {
    let engine = plan.engine_names[c.engine].clone();
    let fs = c.fs.map(|i| plan.filesystems[i].label());
    ConfigView {
        index: c.index,
        label: c.label((plan.choices.len() > 1).then_some(engine.as_str()), fs.as_deref()),
        knobs: c.knobs.0.iter().map(|k| (k.name.clone(), k.value.clone())).collect(),
        workload_defaults: c
            .knob_origins
            .iter()
            .filter(|(_, origin)| origin.starts_with("workload "))
            .cloned()
            .collect(),
        presets: c.presets.clone(),
        engine,
        fs,
        scheduler: c.scheduler.clone(),
        storage: c.storage.as_ref().map(|s| format!("{} ({})", s.text, s.kind())),
        load: c.load.as_ref().map(|l| l.describe()),
    }
}

/// A configuration's line of the plan: engine, presets, knobs (a workload's default marked),
/// filesystem, scheduler, load.
fn config_line(c: &ConfigView) -> String {
    let mut parts = vec![format!("engine {}", c.engine)];
    if !c.presets.is_empty() {
        parts.push(format!("preset {}", c.presets.join("+")));
    }
    let knobs: Vec<String> = c
        .knobs
        .iter()
        .map(|(k, v)| match c.workload_defaults.iter().find(|(d, _)| d == k) {
            Some((_, origin)) => format!("{k}={v} ({origin})"),
            None => format!("{k}={v}"),
        })
        .collect();
    parts.push(match knobs.is_empty() {
        true => "knobs at their defaults".to_string(),
        false => format!("knobs {}", knobs.join(" ")),
    });
    if let Some(fs) = &c.fs {
        parts.push(format!("fs {fs}"));
    }
    if let Some(s) = &c.scheduler {
        parts.push(format!("scheduler {s}"));
    }
    if let Some(s) = &c.storage {
        parts.push(format!("storage {s}"));
    }
    if let Some(l) = &c.load {
        parts.push(l.clone());
    }
    format!("#{} {}", c.index, parts.join(", "))
}

/// The page: each job's configurations, its trials and their order, and the time they take.
fn text(view: &PlanView) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out += &s;
        out.push('\n');
    };
    let shard = view.shard.as_ref().map_or(String::new(), |s| format!(", shard {s}"));
    let runs = match view.jobs.len() {
        1 => "1 run".to_string(),
        n => format!("{n} runs"),
    };
    line(format!(
        "dry run: {runs}{shard}; nothing was opened, created or measured"
    ));
    for j in &view.jobs {
        line(String::new());
        line(format!(
            "job {}: workload {}, {} configuration{}",
            j.job,
            j.workload,
            j.configurations.len(),
            if j.configurations.len() == 1 { "" } else { "s" }
        ));
        for c in &j.configurations {
            for l in wrap(&config_line(c), "    ") {
                line(format!("  {l}"));
            }
        }
        for a in &j.about {
            for l in wrap(a, "    ") {
                line(format!("  {l}"));
            }
        }
        if !j.roles.is_empty() {
            line(format!("  cast: {} roles", j.roles.len()));
            for r in &j.roles {
                for l in wrap(r, "      ") {
                    line(format!("    {l}"));
                }
            }
        }
        note_lines(&j.notes).into_iter().for_each(&mut line);
        let last = j.configurations.len().saturating_sub(1);
        line(format!(
            "  trials: {} measured and {} warm-up per configuration, {} in all",
            j.trials, j.warmup, j.total_trials
        ));
        line(match last {
            0 => "  order: warm-ups first, then the measured trials".to_string(),
            n => format!("  order: round by round, warm-ups first; each round runs #0 to #{n}"),
        });
        if let Some(stop) = &j.stop {
            for l in wrap(&format!("each trial {stop}"), "    ") {
                line(format!("  {l}"));
            }
        }
        let time = format!(
            "time: {}",
            match (j.trial_ms, j.trials_ms, j.trial_range_ms) {
                (Some(ms), _, _) => format!(
                    "{} trials x {} = {} of trials, plus population and setup",
                    j.total_trials,
                    human(ms),
                    human(ms * j.total_trials)
                ),
                (None, Some(all), Some((min, max))) => format!(
                    "{} trials of {} to {} (each rate's count) = {} of trials, plus population and setup",
                    j.total_trials,
                    human(min),
                    human(max),
                    human(all)
                ),
                _ => "not fixed by a duration or a rate, so the trial counts are the plan".to_string(),
            }
        );
        for l in wrap(&time, "    ") {
            line(format!("  {l}"));
        }
    }
    if view.jobs.len() > 1 {
        line(String::new());
        line(match view.estimate_ms {
            Some(ms) => format!("in all: {} of trials, the runs one after the other", human(ms)),
            None => "in all: the runs one after the other".to_string(),
        });
    }
    if !view.to_build.is_empty() {
        let what = match &view.builds {
            Some(b) => format!(
                "builds: {}; the engines without a build here: {}",
                b.said,
                view.to_build.join(", ")
            ),
            None => format!(
                "builds: {} of the engines have no build here yet and would be fetched and compiled first: {}",
                view.to_build.len(),
                view.to_build.join(", ")
            ),
        };
        for l in wrap(&what, "  ") {
            line(l);
        }
    }
    line(format!("results would go to {}", view.results));
    out
}

/// A time as a person plans with it: under a minute as the reports write durations, then whole
/// minutes and seconds, then hours and minutes (a sweep's 293392 ms reads "4 min 54 s").
/// A workload's notes on the run, each wrapped and indented under its job.
fn note_lines(notes: &[String]) -> Vec<String> {
    notes
        .iter()
        .flat_map(|n| wrap(&format!("note: {n}"), "    "))
        .map(|l| format!("  {l}"))
        .collect()
}

fn human(ms: u64) -> String {
    let s = ms.div_ceil(1000);
    match s {
        _ if ms < 60_000 => duration_text(Duration::from_millis(ms).as_nanos().min(u128::from(u64::MAX)) as u64),
        _ if s < 3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600).div_ceil(60)),
    }
}

/// `text` in lines of at most [`COLUMNS`] (less the two leading spaces), broken between words;
/// lines after the first start with `indent`. A word longer than a line is left whole.
fn wrap(text: &str, indent: &str) -> Vec<String> {
    let width = COLUMNS - 2;
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split(' ') {
        let lead = if lines.is_empty() { "" } else { indent };
        if !current.is_empty() && lead.len() + current.len() + 1 + word.len() > width {
            lines.push(format!("{lead}{current}"));
            current.clear();
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current += word;
    }
    let lead = if lines.is_empty() { "" } else { indent };
    lines.push(format!("{lead}{current}"));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_time_reads_in_minutes_and_hours() {
        assert_eq!(human(293_392), "4 min 54 s");
        assert_eq!(human(3_600_000), "1 h 0 min");
        assert_eq!(human(5_430_000), "1 h 31 min");
        assert!(
            human(3_334).contains("3.33") || human(3_334).contains("3334"),
            "{}",
            human(3_334)
        );
    }

    #[test]
    fn wrapped_lines_fit_and_keep_every_word() {
        let text = "#3 engine sqlite, knobs journal_mode=wal synchronous=normal busy_timeout=5000 begin=immediate cache_size=-2000, fs ext4:data=journal, scheduler mq-deadline";
        let lines = wrap(text, "    ");
        assert!(lines.len() > 1, "{lines:?}");
        assert!(lines.iter().all(|l| l.len() <= COLUMNS - 2), "{lines:?}");
        assert!(lines[1..].iter().all(|l| l.starts_with("    ")), "{lines:?}");
        let words: Vec<&str> = lines.iter().flat_map(|l| l.split_whitespace()).collect();
        assert_eq!(words, text.split(' ').collect::<Vec<_>>());
    }
}
