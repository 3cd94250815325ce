//! The ratio of two medians with a seeded bootstrap interval, and the verdict drawn from it.
//!
//! "B is 1.08x A" is a claim about two noisy samples; litebench prints it only with its
//! uncertainty. The interval comes from a percentile bootstrap over trials: resample each side
//! with replacement, take the ratio of the resampled medians, repeat, and read the 2.5th and
//! 97.5th percentiles. It makes no normality assumption and handles a ratio, which Welch's
//! t-test does not. The generator is a SplitMix64 written out here, not a library's, so the same
//! seed gives the same interval on every machine and every future version: a stored run's
//! verdicts can be recomputed bit for bit.
//!
//! A difference is claimed (*faster* or *slower*) only when the interval excludes 1 **and** the
//! point estimate differs from 1 by more than a noise threshold: with enough trials a 0.3%
//! difference becomes "significant" while meaning nothing on a machine whose runs wander by 2%.

use serde::{Deserialize, Serialize};

use crate::median_ci::MIN_SAMPLES_95;
use crate::quantile::percentile;
use crate::summary::Interval;

/// Resamples per interval.
pub const RESAMPLES: usize = 10_000;

/// Fewest trials per side for a ratio interval (and so a verdict): the same as for a median's
/// interval, so a table never shows a verdict beside a median without an interval.
pub const MIN_TRIALS: usize = MIN_SAMPLES_95;

/// The method, as recorded in a run's manifest.
pub const RATIO_INTERVAL_METHOD: &str =
    "percentile bootstrap of the ratio of medians over trials (10000 resamples, SplitMix64 seeded)";

/// Which direction of a metric is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    /// Throughput: more is better.
    Higher,
    /// Time: less is better.
    Lower,
}

/// What a comparison concludes about B against the baseline A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Faster,
    Slower,
    NoSignificantDifference,
}

impl Verdict {
    /// How tables print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoSignificantDifference => "no significant difference",
        }
    }
}

/// B's median over A's, with its interval and verdict.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ratio {
    /// `median(b) / median(a)`.
    pub ratio: f64,
    /// 95% percentile-bootstrap interval of the ratio; `None` with fewer than [`MIN_TRIALS`]
    /// trials on either side.
    pub ci95: Option<Interval>,
    /// `None` exactly when `ci95` is.
    pub verdict: Option<Verdict>,
}

/// SplitMix64 (Steele, Lea and Flood, 2014): tiny, fast, and fully specified here.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform index below `n` (multiply-shift; the bias is below n / 2^64).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// Median of `buf` (reordered in place).
fn median_in_place(buf: &mut [f64]) -> f64 {
    let n = buf.len();
    let mid = n / 2;
    let (_, &mut hi, _) = buf.select_nth_unstable_by(mid, f64::total_cmp);
    if n % 2 == 1 {
        hi
    } else {
        let lo = buf[..mid].iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo / 2.0 + hi / 2.0).max(lo).min(hi)
    }
}

fn resample_median(src: &[f64], buf: &mut [f64], rng: &mut SplitMix64) -> f64 {
    for slot in buf.iter_mut() {
        *slot = src[rng.below(src.len())];
    }
    median_in_place(buf)
}

/// Compares B against the baseline A by the ratio of medians.
///
/// Returns `None` when either side is empty, holds a non-finite sample, or A's median is not
/// positive (a ratio to zero or a negative quantity means nothing here). The interval and
/// verdict are left out (`None`) when either side has fewer than [`MIN_TRIALS`] samples.
/// `noise` is the threshold as a fraction (0.02 = 2%).
pub fn ratio_of_medians(a: &[f64], b: &[f64], better: Better, noise: f64, seed: u64) -> Option<Ratio> {
    if a.is_empty() || b.is_empty() || a.iter().chain(b).any(|x| !x.is_finite()) {
        return None;
    }
    let med = |v: &[f64]| median_in_place(&mut v.to_vec());
    let (ma, mb) = (med(a), med(b));
    if ma <= 0.0 {
        return None;
    }
    let ratio = mb / ma;
    if a.len() < MIN_TRIALS || b.len() < MIN_TRIALS {
        return Some(Ratio {
            ratio,
            ci95: None,
            verdict: None,
        });
    }
    let mut rng = SplitMix64::new(seed);
    let (mut ba, mut bb) = (vec![0.0; a.len()], vec![0.0; b.len()]);
    let mut ratios: Vec<f64> = Vec::with_capacity(RESAMPLES);
    for _ in 0..RESAMPLES {
        let ra = resample_median(a, &mut ba, &mut rng);
        let rb = resample_median(b, &mut bb, &mut rng);
        if ra > 0.0 {
            ratios.push(rb / ra);
        }
    }
    if ratios.is_empty() {
        return Some(Ratio {
            ratio,
            ci95: None,
            verdict: None,
        });
    }
    ratios.sort_by(f64::total_cmp);
    let ci = Interval {
        low: percentile(&ratios, 2.5),
        high: percentile(&ratios, 97.5),
    };
    Some(Ratio {
        ratio,
        ci95: Some(ci),
        verdict: Some(verdict(ratio, ci, better, noise)),
    })
}

/// The rule: a difference is claimed when the interval excludes 1 and the point estimate is
/// further than `noise` from 1; the metric's direction says whether that is faster or slower.
pub fn verdict(ratio: f64, ci: Interval, better: Better, noise: f64) -> Verdict {
    let excludes_one = ci.low > 1.0 || ci.high < 1.0;
    if !excludes_one || (ratio - 1.0).abs() <= noise {
        return Verdict::NoSignificantDifference;
    }
    match (ratio > 1.0, better) {
        (true, Better::Higher) | (false, Better::Lower) => Verdict::Faster,
        _ => Verdict::Slower,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // First outputs for seed 0, as published with the algorithm's reference code.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(r.next_u64(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn clear_difference_is_faster_and_slower() {
        let a: Vec<f64> = (0..10).map(|i| 1000.0 + f64::from(i)).collect();
        let b: Vec<f64> = (0..10).map(|i| 1200.0 + f64::from(i)).collect();
        let r = ratio_of_medians(&a, &b, Better::Higher, 0.02, 42).unwrap();
        assert!((r.ratio - 1204.5 / 1004.5).abs() < 1e-12);
        let ci = r.ci95.unwrap();
        assert!(ci.low > 1.1 && ci.high < 1.3, "{ci:?}");
        assert_eq!(r.verdict, Some(Verdict::Faster));
        // The same numbers as times: more is worse.
        let t = ratio_of_medians(&a, &b, Better::Lower, 0.02, 42).unwrap();
        assert_eq!(t.verdict, Some(Verdict::Slower));
    }

    #[test]
    fn same_distribution_is_no_difference() {
        let a = [100.0, 103.0, 98.0, 101.0, 99.0, 102.0, 97.0, 100.5];
        let b = [101.0, 99.5, 100.0, 98.5, 102.5, 97.5, 100.0, 103.5];
        let r = ratio_of_medians(&a, &b, Better::Higher, 0.02, 7).unwrap();
        assert!(r.ci95.unwrap().contains(1.0));
        assert_eq!(r.verdict, Some(Verdict::NoSignificantDifference));
    }

    #[test]
    fn below_noise_threshold_is_no_difference() {
        // 1% apart with no spread: the interval excludes 1, but 1% is within 2% noise.
        let a = [100.0; 8];
        let b = [101.0; 8];
        let r = ratio_of_medians(&a, &b, Better::Higher, 0.02, 1).unwrap();
        assert_eq!(r.ci95, Some(Interval { low: 1.01, high: 1.01 }));
        assert_eq!(r.verdict, Some(Verdict::NoSignificantDifference));
        let strict = ratio_of_medians(&a, &b, Better::Higher, 0.005, 1).unwrap();
        assert_eq!(strict.verdict, Some(Verdict::Faster));
    }

    #[test]
    fn too_few_trials_give_no_interval_nor_verdict() {
        let r = ratio_of_medians(&[1.0, 2.0, 3.0], &[2.0; 10], Better::Higher, 0.02, 1).unwrap();
        assert_eq!(r.ratio, 1.0);
        assert_eq!(r.ci95, None);
        assert_eq!(r.verdict, None);
    }

    #[test]
    fn undefined_ratios() {
        assert_eq!(ratio_of_medians(&[], &[1.0], Better::Higher, 0.02, 1), None);
        assert_eq!(ratio_of_medians(&[0.0; 6], &[1.0; 6], Better::Higher, 0.02, 1), None);
        assert_eq!(
            ratio_of_medians(&[1.0, f64::NAN], &[1.0; 6], Better::Higher, 0.02, 1),
            None
        );
    }

    #[test]
    fn seeded_and_reproducible() {
        let a = [10.0, 12.0, 11.0, 15.0, 9.0, 13.0, 10.5];
        let b = [11.0, 14.0, 12.0, 16.0, 10.0, 12.5, 13.5];
        let x = ratio_of_medians(&a, &b, Better::Higher, 0.02, 99).unwrap();
        let y = ratio_of_medians(&a, &b, Better::Higher, 0.02, 99).unwrap();
        assert_eq!(x, y);
    }

    #[test]
    fn median_in_place_even_and_odd() {
        assert_eq!(median_in_place(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median_in_place(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }
}
