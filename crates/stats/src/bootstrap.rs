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
//! Where no difference is claimed, "no significant difference" is said only of an interval that
//! rules out large ones: an interval reaching beyond [`INCONCLUSIVE_BEYOND`] either way (a TATP
//! run's 0.59..21.75) is *inconclusive*, since the data allow anything from a loss to a 20x win.
//!
//! [`speed_ratio`] orients every ratio one way, higher = faster, whatever the metric: a
//! throughput's B/A, a time's A/B. That is the ratio every report prints.

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

/// An interval that includes 1 but reaches beyond this factor either way (above 1.5, or below
/// 1/1.5) allows a large difference as well as none: its verdict is [`Verdict::Inconclusive`].
pub const INCONCLUSIVE_BEYOND: f64 = 1.5;

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
    /// The interval includes 1 (or the difference is within the noise threshold), and it rules
    /// out any difference beyond [`INCONCLUSIVE_BEYOND`].
    NoSignificantDifference,
    /// No difference is claimed, but the interval is too wide to say there is none: it reaches
    /// beyond [`INCONCLUSIVE_BEYOND`] on at least one side.
    Inconclusive,
}

impl Verdict {
    /// The words every report prints for it, the same in every table and command.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoSignificantDifference => "no significant difference",
            Verdict::Inconclusive => "inconclusive",
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

/// B's speed over A's, higher = faster whatever the metric: `median(b) / median(a)` of a
/// throughput ([`Better::Higher`]), `median(a) / median(b)` of a time ([`Better::Lower`]), with
/// its interval and verdict as [`ratio_of_medians`] gives them (a ratio above 1 beyond the
/// noise is [`Verdict::Faster`]). A 171x speed-up of a time prints as 171x, not 0.0058x.
pub fn speed_ratio(a: &[f64], b: &[f64], better: Better, noise: f64, seed: u64) -> Option<Ratio> {
    match better {
        Better::Higher => ratio_of_medians(a, b, Better::Higher, noise, seed),
        Better::Lower => ratio_of_medians(b, a, Better::Higher, noise, seed),
    }
}

/// The rule: a difference is claimed when the interval excludes 1 and the point estimate is
/// further than `noise` from 1; the metric's direction says whether that is faster or slower.
///
/// When none is claimed, an interval reaching beyond [`INCONCLUSIVE_BEYOND`] on either side is
/// [`Verdict::Inconclusive`] rather than "no significant difference".
pub fn verdict(ratio: f64, ci: Interval, better: Better, noise: f64) -> Verdict {
    let excludes_one = ci.low > 1.0 || ci.high < 1.0;
    if !excludes_one || (ratio - 1.0).abs() <= noise {
        return if ci.high > INCONCLUSIVE_BEYOND || ci.low < 1.0 / INCONCLUSIVE_BEYOND {
            Verdict::Inconclusive
        } else {
            Verdict::NoSignificantDifference
        };
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
    fn a_wide_interval_around_one_is_inconclusive() {
        let wide = Interval { low: 0.59, high: 21.75 };
        assert_eq!(verdict(1.3, wide, Better::Higher, 0.02), Verdict::Inconclusive);
        assert_eq!(verdict(1.3, wide, Better::Lower, 0.02), Verdict::Inconclusive);
        let below = Interval { low: 0.6, high: 1.1 };
        assert_eq!(verdict(0.9, below, Better::Higher, 0.02), Verdict::Inconclusive);
        let narrow = Interval { low: 0.7, high: 1.45 };
        assert_eq!(
            verdict(1.0, narrow, Better::Higher, 0.02),
            Verdict::NoSignificantDifference
        );
        // A clear difference stays one, however wide its interval.
        let far = Interval { low: 2.0, high: 40.0 };
        assert_eq!(verdict(9.0, far, Better::Higher, 0.02), Verdict::Faster);
        assert_eq!(Verdict::Inconclusive.as_str(), "inconclusive");
    }

    #[test]
    fn speed_ratios_point_one_way_for_times_and_throughputs() {
        // B takes a 171th of A's time: 171x faster, not 0.0058x.
        let a: Vec<f64> = (0..8).map(|i| 1710.0 + f64::from(i)).collect();
        let b: Vec<f64> = (0..8).map(|i| 10.0 + f64::from(i) / 1000.0).collect();
        let t = speed_ratio(&a, &b, Better::Lower, 0.02, 3).unwrap();
        assert!((t.ratio - 1713.5 / 10.0035).abs() < 1e-9, "{}", t.ratio);
        assert!(t.ci95.unwrap().low > 100.0, "{:?}", t.ci95);
        assert_eq!(t.verdict, Some(Verdict::Faster));
        // The same figures as throughputs: B is the slow one.
        let h = speed_ratio(&a, &b, Better::Higher, 0.02, 3).unwrap();
        assert!(h.ratio < 0.01);
        assert_eq!(h.verdict, Some(Verdict::Slower));
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
