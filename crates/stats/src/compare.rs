//! Comparing two configurations.
//!
//! "B is 3% faster than A" means nothing unless the difference is larger
//! than the trial-to-trial noise. Welch's test is used rather than Student's
//! pooled test because two engines or two settings rarely have the same
//! variance, and Welch's stays honest when they differ.

use serde::{Deserialize, Serialize};

use crate::student::t_critical_95;
use crate::summary::{summarize, Interval};

/// Welch's t-test for two independent samples: difference of means (b - a),
/// its 95% CI, and whether the CI excludes zero.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// `mean_b / mean_a`. Infinite when `mean_a` is zero, NaN when both are
    /// (which a JSON writer may store as `null`).
    pub ratio_of_means: f64,
    /// `mean_b - mean_a`.
    pub diff: f64,
    /// 95% confidence interval of `diff`; `None` when either side has fewer
    /// than two samples.
    pub ci95: Option<Interval>,
    /// Whether `ci95` excludes zero; `None` when `ci95` is.
    pub significant: Option<bool>,
}

/// Compares sample `b` against baseline `a` with Welch's t-test.
///
/// Returns `None` when either slice is empty or holds a NaN or infinite
/// sample (as [`summarize`] does). The degrees of freedom come from the
/// Welch–Satterthwaite equation, rounded down (at least 1) for
/// [`t_critical_95`].
///
/// When both samples are constant the spread is zero and the test is
/// degenerate: the interval is the single point `diff`, and any non-zero
/// difference is reported as significant.
pub fn welch(a: &[f64], b: &[f64]) -> Option<Comparison> {
    let sa = summarize(a)?;
    let sb = summarize(b)?;
    let diff = sb.mean - sa.mean;
    let ratio_of_means = sb.mean / sa.mean;

    let ci95 = match (sa.stddev, sb.stddev) {
        (Some(sd_a), Some(sd_b)) => Some(welch_interval(diff, sd_a, sa.n, sd_b, sb.n)),
        _ => None,
    };
    Some(Comparison {
        ratio_of_means,
        diff,
        ci95,
        significant: ci95.map(|ci| ci.excludes_zero()),
    })
}

fn welch_interval(diff: f64, sd_a: f64, n_a: usize, sd_b: f64, n_b: usize) -> Interval {
    let (na, nb) = (n_a as f64, n_b as f64);
    // Standard errors of each mean; `hypot` avoids squaring large values.
    let se_a = sd_a / na.sqrt();
    let se_b = sd_b / nb.sqrt();
    let se = se_a.hypot(se_b);
    let largest = se_a.max(se_b);
    if largest == 0.0 {
        return Interval { low: diff, high: diff };
    }
    // Welch–Satterthwaite, on variances normalized by the larger one so that
    // nothing overflows or underflows; the ratio is scale-free.
    let u = (se_a / largest).powi(2);
    let w = (se_b / largest).powi(2);
    let df = (u + w).powi(2) / (u * u / (na - 1.0) + w * w / (nb - 1.0));
    // Mathematically df lies in [min(na, nb) - 1, na + nb - 2]; clamp away
    // rounding before flooring.
    let df = df.clamp(na.min(nb) - 1.0, na + nb - 2.0).floor().max(1.0);
    let half = t_critical_95(df as usize) * se;
    Interval {
        low: diff - half,
        high: diff + half,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn hand_computed_not_significant() {
        // var a = 2.5, var b = 10; se² = 0.5 + 2 = 2.5;
        // df = 6.25 / (0.0625 + 1) = 5.88 -> 5, t(5) = 2.570582.
        let c = welch(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 4.0, 6.0, 8.0, 10.0]).unwrap();
        assert_eq!(c.diff, 3.0);
        assert_eq!(c.ratio_of_means, 2.0);
        let ci = c.ci95.unwrap();
        assert!(close(ci.low, -1.064_446_756_233_673, 1e-12));
        assert!(close(ci.high, 7.064_446_756_233_673, 1e-12));
        assert_eq!(c.significant, Some(false));
    }

    #[test]
    fn hand_computed_significant() {
        // var 1 each; se² = 2/3; df = 4, t(4) = 2.776445.
        let c = welch(&[10.0, 11.0, 12.0], &[20.0, 21.0, 22.0]).unwrap();
        assert_eq!(c.diff, 10.0);
        assert_eq!(c.ratio_of_means, 21.0 / 11.0);
        let ci = c.ci95.unwrap();
        assert!(close(ci.low, 7.733_042_064_472_481, 1e-12));
        assert!(close(ci.high, 12.266_957_935_527_518, 1e-12));
        assert_eq!(c.significant, Some(true));

        let r = welch(&[20.0, 21.0, 22.0], &[10.0, 11.0, 12.0]).unwrap();
        assert_eq!(r.diff, -10.0);
        assert_eq!(r.significant, Some(true));
    }

    #[test]
    fn unequal_sizes_use_satterthwaite_df() {
        // a: n 2, var 0.5 -> u = 0.25; b: n 10, var 110/12 -> w = 0.91666..
        // df = (u + w)² / (u²/1 + w²/9) = 8.73, floored to 8.
        let a = [1.0, 2.0];
        let b: Vec<f64> = (1..=10).map(f64::from).collect();
        let c = welch(&a, &b).unwrap();
        let se = (0.25f64 + 110.0 / 12.0 / 10.0).sqrt();
        let ci = c.ci95.unwrap();
        assert!(close(c.diff, 4.0, 1e-15));
        assert!(close(ci.high - c.diff, t_critical_95(8) * se, 1e-12));
    }

    #[test]
    fn small_or_empty_samples() {
        assert_eq!(welch(&[], &[1.0]), None);
        assert_eq!(welch(&[1.0], &[]), None);
        assert_eq!(welch(&[1.0, f64::NAN], &[1.0, 2.0]), None);
        let c = welch(&[1.0], &[2.0, 3.0]).unwrap();
        assert_eq!(c.diff, 1.5);
        assert_eq!(c.ratio_of_means, 2.5);
        assert_eq!(c.ci95, None);
        assert_eq!(c.significant, None);
    }

    #[test]
    fn zero_variance_is_degenerate_but_defined() {
        let c = welch(&[3.0, 3.0], &[4.0, 4.0, 4.0]).unwrap();
        assert_eq!(c.ci95, Some(Interval { low: 1.0, high: 1.0 }));
        assert_eq!(c.significant, Some(true));
        let same = welch(&[3.0, 3.0], &[3.0, 3.0]).unwrap();
        assert_eq!(same.significant, Some(false));
    }

    #[test]
    fn zero_baseline_mean() {
        let c = welch(&[-1.0, 1.0], &[1.0, 3.0]).unwrap();
        assert_eq!(c.ratio_of_means, f64::INFINITY);
        assert!(welch(&[-1.0, 1.0], &[-2.0, 2.0]).unwrap().ratio_of_means.is_nan());
    }
}
