//! The difference of two means with a seeded bootstrap interval, and what it concludes.
//!
//! A ratio means nothing where the baseline is often 0: failure rates (failed over attempted,
//! per trial) are 0 in every trial of a healthy configuration, and "B fails 3 percentage points
//! more than A" is what a reader needs. So rates compare by `mean(b) - mean(a)`, with a
//! percentile bootstrap over trials (each side resampled with replacement, 10,000 times, from
//! the same [`SplitMix64`] as the ratios, so a stored run's verdicts recompute bit for bit).
//! Means, not medians: a configuration that failed in two trials of nine has a median of 0 and
//! a cost all the same. A difference is claimed when the interval excludes 0; 0 against 0 in
//! every trial is its own answer, [`Change::NoneInEither`], whatever the number of trials.

use serde::{Deserialize, Serialize};

use crate::bootstrap::{SplitMix64, MIN_TRIALS, RESAMPLES};
use crate::quantile::percentile;
use crate::summary::Interval;

/// The method, as a report names it.
pub const DIFFERENCE_INTERVAL_METHOD: &str =
    "percentile bootstrap of the difference of means over trials (10000 resamples, SplitMix64 seeded)";

/// What a difference concludes about B against the baseline A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// B's mean is below A's and the interval excludes 0.
    Lower,
    /// B's mean is above A's and the interval excludes 0.
    Higher,
    /// The interval includes 0.
    NoSignificantDifference,
    /// Every sample on both sides is 0.
    NoneInEither,
}

/// `mean(b) - mean(a)`, with its interval and conclusion.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    pub diff: f64,
    /// 95% percentile-bootstrap interval of `diff`; `None` with fewer than [`MIN_TRIALS`]
    /// samples on either side (unless every sample is 0).
    pub ci95: Option<Interval>,
    /// `None` exactly when `ci95` is, except [`Change::NoneInEither`], which needs no interval.
    pub change: Option<Change>,
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Compares B against the baseline A by the difference of their means.
///
/// Returns `None` when either side is empty or holds a non-finite sample.
pub fn difference_of_means(a: &[f64], b: &[f64], seed: u64) -> Option<Difference> {
    if a.is_empty() || b.is_empty() || a.iter().chain(b).any(|x| !x.is_finite()) {
        return None;
    }
    let diff = mean(b) - mean(a);
    if a.iter().chain(b).all(|&x| x == 0.0) {
        return Some(Difference {
            diff,
            ci95: Some(Interval { low: 0.0, high: 0.0 }),
            change: Some(Change::NoneInEither),
        });
    }
    if a.len() < MIN_TRIALS || b.len() < MIN_TRIALS {
        return Some(Difference {
            diff,
            ci95: None,
            change: None,
        });
    }
    let mut rng = SplitMix64::new(seed);
    let resampled_mean = |v: &[f64], rng: &mut SplitMix64| -> f64 {
        (0..v.len()).map(|_| v[rng.below(v.len())]).sum::<f64>() / v.len() as f64
    };
    let mut diffs: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let ra = resampled_mean(a, &mut rng);
            let rb = resampled_mean(b, &mut rng);
            rb - ra
        })
        .collect();
    diffs.sort_by(f64::total_cmp);
    let ci = Interval {
        low: percentile(&diffs, 2.5),
        high: percentile(&diffs, 97.5),
    };
    let change = if ci.low > 0.0 {
        Change::Higher
    } else if ci.high < 0.0 {
        Change::Lower
    } else {
        Change::NoSignificantDifference
    };
    Some(Difference {
        diff,
        ci95: Some(ci),
        change: Some(change),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_against_zero_is_none_in_either() {
        let d = difference_of_means(&[0.0; 3], &[0.0; 9], 1).unwrap();
        assert_eq!(d.diff, 0.0);
        assert_eq!(d.change, Some(Change::NoneInEither));
    }

    #[test]
    fn a_clear_rise_and_fall() {
        let a = [0.0; 8];
        let b = [0.10, 0.12, 0.08, 0.11, 0.09, 0.10, 0.13, 0.07];
        let d = difference_of_means(&a, &b, 42).unwrap();
        assert!((d.diff - 0.1).abs() < 1e-12, "{}", d.diff);
        let ci = d.ci95.unwrap();
        assert!(ci.low > 0.08 && ci.high < 0.12, "{ci:?}");
        assert_eq!(d.change, Some(Change::Higher));
        let back = difference_of_means(&b, &a, 42).unwrap();
        assert!((back.diff + 0.1).abs() < 1e-12);
        assert_eq!(back.change, Some(Change::Lower));
    }

    #[test]
    fn one_failing_trial_is_no_significant_difference() {
        // A single trial of eight lost 5%: the bootstrap often leaves it out, so the interval
        // reaches 0 and nothing is claimed.
        let a = [0.0; 8];
        let mut b = [0.0; 8];
        b[3] = 0.05;
        let d = difference_of_means(&a, &b, 7).unwrap();
        assert!(d.diff > 0.0);
        assert_eq!(d.ci95.unwrap().low, 0.0);
        assert_eq!(d.change, Some(Change::NoSignificantDifference));
    }

    #[test]
    fn few_trials_give_no_interval_and_bad_input_none() {
        let d = difference_of_means(&[0.0, 0.1], &[0.2, 0.3], 1).unwrap();
        assert!((d.diff - 0.2).abs() < 1e-12);
        assert_eq!((d.ci95, d.change), (None, None));
        assert_eq!(difference_of_means(&[], &[1.0], 1), None);
        assert_eq!(difference_of_means(&[f64::NAN], &[1.0], 1), None);
    }

    #[test]
    fn seeded_and_reproducible() {
        let a = [0.01, 0.0, 0.02, 0.0, 0.03, 0.01];
        let b = [0.05, 0.04, 0.0, 0.06, 0.02, 0.03];
        assert_eq!(difference_of_means(&a, &b, 9), difference_of_means(&a, &b, 9));
    }
}
