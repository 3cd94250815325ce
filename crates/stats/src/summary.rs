//! Summaries of repeated trials of one quantity.
//!
//! A single number hides how much trials disagreed; litebench reports the
//! spread (standard deviation, CV) and confidence intervals so a reader can
//! tell a real difference from noise. The mean's interval uses Student's t
//! (benchmarks rarely run enough trials for the normal approximation); the
//! median's is distribution-free ([`crate::median_ci`]), and is the one
//! litebench prints beside a median.

use serde::{Deserialize, Serialize};

use crate::median_ci::median_ci;
use crate::quantile::median;
use crate::student::t_critical_95;
use crate::NOISY_CV;

/// A closed interval `[low, high]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

impl Interval {
    /// Whether `x` lies in `[low, high]`.
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }

    /// Whether zero lies strictly outside the interval.
    pub fn excludes_zero(&self) -> bool {
        self.low > 0.0 || self.high < 0.0
    }
}

/// Summary of repeated measurements of one quantity (e.g. throughput per trial).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median (average of the middle two for even `n`).
    pub median: f64,
    /// Sample standard deviation (divisor n-1); `None` when n < 2.
    pub stddev: Option<f64>,
    /// `stddev / |mean|` as a fraction (0.05 = 5%); `None` when n < 2 or
    /// mean == 0.
    pub cv: Option<f64>,
    /// 95% confidence interval of the mean, Student t with n-1 degrees of
    /// freedom; `None` when n < 2. Not an interval of the median: never print
    /// it beside one.
    pub mean_ci95: Option<Interval>,
    /// 95% distribution-free confidence interval of the median (order
    /// statistics, [`crate::median_ci`]); `None` when n < 6.
    pub median_ci95: Option<Interval>,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
}

impl Summary {
    /// Whether the trials disagreed by more than [`NOISY_CV`]. `false` when
    /// the CV is unknown (fewer than two samples, or a zero mean).
    pub fn is_noisy(&self) -> bool {
        self.cv.is_some_and(|cv| cv > NOISY_CV)
    }
}

/// Summarizes `samples` (in any order).
///
/// Returns `None` for an empty slice, and also when any sample is NaN or
/// infinite: such a sample is a failed measurement, and skipping it silently
/// would misreport `n`.
///
/// The arithmetic is the textbook one (sum / n, then the sum of squared
/// deviations from the mean), carried out after scaling by a power of two so
/// that samples near the ends of the `f64` range neither overflow nor
/// underflow; for ordinary magnitudes that scaling is exact and changes no
/// bit of the result. The computed mean is kept within `[min, max]`, where
/// the true mean always lies, so a constant sample has a mean equal to its
/// value and a standard deviation of exactly zero. Sums run over the
/// samples in ascending order, so the result does not depend, even in the
/// last bit, on the order in which the samples were stored.
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let n = samples.len();
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let min = sorted[0];
    let max = sorted[n - 1];

    let scale = pow2_scale(min.abs().max(max.abs()));
    let nf = n as f64;
    let mean_s = (sorted.iter().map(|x| x / scale).sum::<f64>() / nf)
        .max(min / scale)
        .min(max / scale);
    let mean = mean_s * scale;

    let (stddev, cv, ci95) = if n < 2 {
        (None, None, None)
    } else {
        let ss: f64 = sorted
            .iter()
            .map(|x| {
                let d = x / scale - mean_s;
                d * d
            })
            .sum();
        let sd_s = (ss / (nf - 1.0)).sqrt();
        let half_s = t_critical_95(n - 1) * sd_s / nf.sqrt();
        let cv = (mean_s != 0.0).then(|| sd_s / mean_s.abs());
        let ci = Interval {
            low: (mean_s - half_s) * scale,
            high: (mean_s + half_s) * scale,
        };
        (Some(sd_s * scale), cv, Some(ci))
    };

    Some(Summary {
        n,
        mean,
        median: median(&sorted),
        stddev,
        cv,
        mean_ci95: ci95,
        median_ci95: median_ci(&sorted, 0.95),
        min,
        max,
    })
}

/// The largest power of two not above `max_abs` (limited to the normal
/// range), so that dividing by it is exact and brings every sample into
/// `(-2, 2)`.
fn pow2_scale(max_abs: f64) -> f64 {
    const EXP_MASK: u64 = 0x7ff;
    let biased = ((max_abs.to_bits() >> 52) & EXP_MASK).max(1);
    f64::from_bits(biased << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn hand_computed_sample() {
        let s = summarize(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.n, 8);
        assert_eq!(s.mean, 5.0);
        assert_eq!(s.median, 4.5);
        assert_eq!(s.min, 2.0);
        assert_eq!(s.max, 9.0);
        // sqrt(32 / 7)
        assert!(close(s.stddev.unwrap(), 2.138_089_935_299_395, 1e-12));
        assert!(close(s.cv.unwrap(), 0.427_617_987_059_879, 1e-12));
        // 5 ± t(7) · s / sqrt(8), t(7) = 2.364624...
        let ci = s.mean_ci95.unwrap();
        assert!(close(ci.low, 3.212_512_081_763_79, 1e-12));
        assert!(close(ci.high, 6.787_487_918_236_21, 1e-12));
        assert!(s.is_noisy());
    }

    #[test]
    fn order_does_not_matter() {
        let a = summarize(&[9.0, 2.0, 5.0, 4.0, 7.0, 4.0, 5.0, 4.0]).unwrap();
        let b = summarize(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn single_sample() {
        let s = summarize(&[42.0]).unwrap();
        assert_eq!(s.n, 1);
        assert_eq!((s.mean, s.median, s.min, s.max), (42.0, 42.0, 42.0, 42.0));
        assert_eq!(s.stddev, None);
        assert_eq!(s.cv, None);
        assert_eq!(s.mean_ci95, None);
        assert_eq!(s.median_ci95, None);
        assert!(!s.is_noisy());
    }

    #[test]
    fn empty_and_non_finite_are_refused() {
        assert_eq!(summarize(&[]), None);
        assert_eq!(summarize(&[1.0, f64::NAN]), None);
        assert_eq!(summarize(&[1.0, f64::INFINITY]), None);
        assert_eq!(summarize(&[f64::NEG_INFINITY, 1.0]), None);
    }

    #[test]
    fn zero_mean_has_no_cv() {
        let s = summarize(&[-1.0, 1.0]).unwrap();
        assert_eq!(s.mean, 0.0);
        assert_eq!(s.cv, None);
        assert!(close(s.stddev.unwrap(), 2f64.sqrt(), 1e-15));
        assert!(!s.is_noisy());
    }

    #[test]
    fn constant_sample_rounding_is_contained() {
        // 0.1 + 0.1 + 0.1 = 0.30000000000000004, which naively gives a mean
        // above the largest sample and a non-zero deviation.
        let s = summarize(&[0.1, 0.1, 0.1]).unwrap();
        assert_eq!(s.mean, 0.1);
        assert_eq!(s.stddev, Some(0.0));
        assert_eq!(s.cv, Some(0.0));
        assert_eq!(s.mean_ci95, Some(Interval { low: 0.1, high: 0.1 }));
    }

    #[test]
    fn extreme_magnitudes_do_not_overflow() {
        let s = summarize(&[f64::MAX, f64::MAX, f64::MAX]).unwrap();
        assert_eq!(s.mean, f64::MAX);
        assert_eq!(s.stddev, Some(0.0));

        let s = summarize(&[1e300, 3e300]).unwrap();
        assert!(close(s.mean / 2e300, 1.0, 1e-15));
        assert!(close(s.stddev.unwrap() / (2f64.sqrt() * 1e300), 1.0, 1e-15));

        let s = summarize(&[1e-300, 3e-300]).unwrap();
        assert!(close(s.stddev.unwrap() / (2f64.sqrt() * 1e-300), 1.0, 1e-15));

        let tiny = f64::from_bits(1);
        let s = summarize(&[tiny, tiny]).unwrap();
        assert_eq!(s.mean, tiny);
        assert_eq!(s.stddev, Some(0.0));
    }

    #[test]
    fn pow2_scale_is_a_power_of_two_not_above_input() {
        for x in [1.0, 1.5, 3.0, 1e-300, 1e300, f64::MAX, 1024.0, 1023.9] {
            let s = pow2_scale(x);
            assert!(s <= x && x < 2.0 * s, "{x} -> {s}");
            assert_eq!(s.to_bits() & ((1u64 << 52) - 1), 0);
        }
        assert_eq!(pow2_scale(0.0), f64::MIN_POSITIVE);
        assert_eq!(pow2_scale(f64::from_bits(1)), f64::MIN_POSITIVE);
    }

    #[test]
    fn interval_helpers() {
        let i = Interval { low: -1.0, high: 2.0 };
        assert!(i.contains(-1.0) && i.contains(2.0) && i.contains(0.0));
        assert!(!i.contains(2.5));
        assert!(!i.excludes_zero());
        assert!(Interval { low: 0.5, high: 1.0 }.excludes_zero());
        assert!(Interval { low: -2.0, high: -1.0 }.excludes_zero());
        assert!(!Interval { low: 0.0, high: 1.0 }.excludes_zero());
    }
}
