//! The 95% interval of a claim's measured ratio, from the stored trials.
//!
//! A verdict on medians alone calls a 3% difference "holds in direction" however noisy the
//! trials were. Where both configurations have enough measured trials for the bootstrap
//! (litebench_stats::MIN_TRIALS), the ratio gets the same percentile-bootstrap interval that
//! `show` and `compare` print, with the run's own seed, and a direction only counts when the
//! whole interval clears the noise threshold. With fewer trials (vldb22's default three)
//! there is no interval and the report says the verdict rests on medians.

use super::measure::{config_of, of_experiment, RunData};
use super::{Measure, Pick};
use crate::report::stats::{values, Metric};

/// A ratio's 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

/// The trials of `pick`'s configuration for `op` in experiment `exp`'s runs, and its run's
/// bootstrap seed.
fn trials(runs: &[&RunData], (exp, pick): &(&str, Pick), op: &str, metric: Metric) -> Option<(Vec<f64>, u64)> {
    let mine = of_experiment(runs, exp);
    let (run, config) = config_of(&mine, pick, op)?;
    Some((values(&run.trials, config, op, metric), run.seed))
}

/// `num / den` of `op` in `metric`, with its bootstrap interval when both sides have enough
/// trials.
fn ratio(
    runs: &[&RunData],
    op: &str,
    num: &(&str, Pick),
    den: &(&str, Pick),
    metric: Metric,
    noise: f64,
) -> Option<Interval> {
    let (n, seed) = trials(runs, num, op, metric)?;
    let (d, _) = trials(runs, den, op, metric)?;
    let r = litebench_stats::ratio_of_medians(&d, &n, metric.better(), noise, seed)?;
    r.ci95.map(|ci| Interval {
        low: ci.low,
        high: ci.high,
    })
}

/// The interval of `m`'s value, when it is a ratio of two configurations' trials and both have
/// enough of them.
pub fn of(m: &Measure, runs: &[&RunData], noise: f64) -> Option<Interval> {
    let metric = match m {
        Measure::TimeRatio { .. } => Metric::Time,
        _ => Metric::Tps,
    };
    if let Measure::PresetRatio { num, den, .. } = m {
        // Each preset's own headline: an interval only when they are the same operation.
        let headline = |p: &'static str| crate::workload::preset::find(p).map(|p| p.headline);
        if headline(num)? != headline(den)? {
            return None;
        }
    }
    let (op, num, den) = sides(m)?;
    ratio(runs, op, &num, &den, metric, noise)
}

/// The operation a ratio compares and its two sides, each an experiment and a configuration.
type Sides = (&'static str, (&'static str, Pick), (&'static str, Pick));

/// The sides of `m`, if it is a ratio of two configurations' trials.
fn sides(m: &Measure) -> Option<Sides> {
    match m {
        Measure::Ratio { exp, op, num, den } => Some((op, (exp, *num), (exp, *den))),
        Measure::TpsRatio { op, num, den } | Measure::TimeRatio { op, num, den } => Some((op, *num, *den)),
        Measure::PresetRatio { exp, num, den } => Some((
            crate::workload::preset::find(num)?.headline,
            (exp, Pick::preset(None, num)),
            (exp, Pick::preset(None, den)),
        )),
        _ => None,
    }
}

/// What makes a ratio's verdict shaky, in words: the throughput CVs of its two sides when
/// either exceeds litebench's noise warning (5%), e.g. "noisy here: throughput CV 51.0% and
/// 4.2% (above 5%)".
pub fn noise_note(m: &Measure, runs: &[&RunData]) -> Option<String> {
    let (op, num, den) = sides(m)?;
    let cv = |(exp, p): &(&str, Pick)| {
        let mine = of_experiment(runs, exp);
        let (run, config) = config_of(&mine, p, op)?;
        run.summary
            .iter()
            .find(|s| s.config == config && s.operation == op)
            .and_then(|s| s.throughput.tps_cv)
    };
    let (a, b) = (cv(&num)?, cv(&den)?);
    let limit = litebench_stats::NOISY_CV;
    (a > limit || b > limit).then(|| {
        format!(
            "noisy here: throughput CV {:.1}% and {:.1}% (above {:.0}%)",
            a * 100.0,
            b * 100.0,
            limit * 100.0
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::html::data::tests::{manifest, report, trials};

    /// A run of two configurations (DELETE: 10-12 ms per batch of 100 inserts; WAL: 11-13 ms,
    /// so their ranges overlap) with `rounds` rounds, the first a warm-up.
    fn run(rounds: u32) -> RunData {
        let m = manifest(&[&[("journal_mode", "delete")], &[("journal_mode", "wal")]]);
        let t = trials(2, rounds, &["insert"]);
        let summary = report(&m, &t).summary.clone();
        RunData {
            id: 1,
            experiment: "x",
            configs: m.configs.clone(),
            summary,
            templates: Vec::new(),
            trials: t,
            seed: 7,
        }
    }

    const WAL: Pick = Pick::knobs(&[("journal_mode", "wal")]);
    const DELETE: Pick = Pick::knobs(&[("journal_mode", "delete")]);

    #[test]
    fn ratios_get_an_interval_from_six_trials_on_each_side() {
        let tps = Measure::Ratio {
            exp: "x",
            op: "insert",
            num: WAL,
            den: DELETE,
        };
        // 3 measured trials each: no interval, the medians alone.
        assert_eq!(of(&tps, &[&run(4)], 0.02), None);
        // 8 measured trials each: the interval holds the ratio of medians, WAL being slower.
        let nine = run(9);
        let runs = [&nine];
        let i = of(&tps, &runs, 0.02).expect("an interval from 8 trials a side");
        let v = super::super::measure::value(&tps, &runs).unwrap().value;
        assert!(i.low <= v && v <= i.high && i.low < 1.0 && i.high <= 1.0, "{i:?} {v}");
        // The same pair in time: the reciprocal direction.
        let time = Measure::TimeRatio {
            op: "insert",
            num: ("x", WAL),
            den: ("x", DELETE),
        };
        let t = of(&time, &runs, 0.02).unwrap();
        assert!(t.low >= 1.0 && t.high > 1.0, "{t:?}");
        // A configuration that is not there has no interval.
        let none = Measure::Ratio {
            exp: "x",
            op: "insert",
            num: Pick::knobs(&[("journal_mode", "off")]),
            den: DELETE,
        };
        assert_eq!(of(&none, &runs, 0.02), None);
        assert_eq!(noise_note(&none, &runs), None);
        // The fixture's trials vary by up to 20% (10-12 ms): its CVs exceed 5%, and the note
        // names both.
        let note = noise_note(&tps, &runs).expect("noisy fixture");
        assert!(
            note.starts_with("noisy here: throughput CV ") && note.ends_with("(above 5%)"),
            "{note}"
        );
    }
}
