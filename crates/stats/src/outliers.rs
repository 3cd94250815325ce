//! Outlier classification by Tukey's fences.
//!
//! Outliers are counted, never removed: a trial interrupted by a checkpoint
//! or a page-cache eviction is part of what the engine does, and hiding it
//! would flatter the result. The counts tell the reader how much to trust the
//! mean. Fences are those of criterion.rs (1.5 and 3 IQR around the
//! quartiles) so litebench's numbers read the same way as criterion's.

use serde::{Deserialize, Serialize};

use crate::quantile::percentile;

/// Tukey fences classification (criterion.rs style): counts of low severe
/// (< Q1 - 3 IQR), low mild, high mild, high severe (> Q3 + 3 IQR).
///
/// Mild means beyond the 1.5 IQR fence but not beyond the 3 IQR one. A
/// sample exactly on a fence is not beyond it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outliers {
    pub low_severe: usize,
    pub low_mild: usize,
    pub high_mild: usize,
    pub high_severe: usize,
}

impl Outliers {
    /// All outliers, mild and severe, on both sides.
    pub fn total(&self) -> usize {
        self.low_severe + self.low_mild + self.high_mild + self.high_severe
    }
}

/// Counts the outliers in `samples` (in any order).
///
/// Quartiles are [`percentile`]s 25 and 75 of the finite samples. Infinite
/// samples lie beyond every finite fence and count as severe; NaN samples
/// cannot be placed and are not counted (use [`crate::summarize`] first to
/// refuse such data). With no finite sample at all, nothing is counted.
pub fn tukey(samples: &[f64]) -> Outliers {
    let mut finite: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    if finite.is_empty() {
        return Outliers::default();
    }
    finite.sort_by(f64::total_cmp);
    let q1 = percentile(&finite, 25.0);
    let q3 = percentile(&finite, 75.0);
    let iqr = q3 - q1;
    let low_severe = q1 - 3.0 * iqr;
    let low_mild = q1 - 1.5 * iqr;
    let high_mild = q3 + 1.5 * iqr;
    let high_severe = q3 + 3.0 * iqr;

    let mut out = Outliers::default();
    for &x in samples {
        if x < low_severe {
            out.low_severe += 1;
        } else if x > high_severe {
            out.high_severe += 1;
        } else if x < low_mild {
            out.low_mild += 1;
        } else if x > high_mild {
            out.high_mild += 1;
        }
    }
    out
}

/// How far beyond the fences one sample lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutlierKind {
    LowSevere,
    LowMild,
    HighMild,
    HighSevere,
}

impl OutlierKind {
    /// `low mild`, `high severe`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            OutlierKind::LowSevere => "low severe",
            OutlierKind::LowMild => "low mild",
            OutlierKind::HighMild => "high mild",
            OutlierKind::HighSevere => "high severe",
        }
    }
}

/// The outliers of `samples` by Tukey's fences, each with its position in `samples` (so a
/// report can name the trial), in that order. Classifies exactly as [`tukey`] counts.
pub fn tukey_outliers(samples: &[f64]) -> Vec<(usize, OutlierKind)> {
    let mut finite: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    if finite.is_empty() {
        return Vec::new();
    }
    finite.sort_by(f64::total_cmp);
    let q1 = percentile(&finite, 25.0);
    let q3 = percentile(&finite, 75.0);
    let iqr = q3 - q1;
    samples
        .iter()
        .enumerate()
        .filter_map(|(i, &x)| {
            let kind = if x < q1 - 3.0 * iqr {
                OutlierKind::LowSevere
            } else if x > q3 + 3.0 * iqr {
                OutlierKind::HighSevere
            } else if x < q1 - 1.5 * iqr {
                OutlierKind::LowMild
            } else if x > q3 + 1.5 * iqr {
                OutlierKind::HighMild
            } else {
                return None;
            };
            Some((i, kind))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn indices_agree_with_counts() {
        let samples = [
            12.0, 100.0, 3.0, -10.0, 1.0, 2.0, 4.0, 5.0, 6.0, 25.0, 7.0, 8.0, 9.0, -50.0, 10.0, 11.0,
        ];
        let found = tukey_outliers(&samples);
        assert_eq!(
            found,
            vec![
                (1, OutlierKind::HighSevere),
                (3, OutlierKind::LowMild),
                (9, OutlierKind::HighMild),
                (13, OutlierKind::LowSevere)
            ]
        );
        assert_eq!(found.len(), tukey(&samples).total());
    }

    use super::*;

    #[test]
    fn crafted_sample_has_one_of_each() {
        // Sorted: Q1 = 2.75, Q3 = 10.25, IQR = 7.5.
        // Fences: severe below -19.75, mild below -8.5,
        //         mild above 21.5, severe above 32.75.
        let samples = [
            12.0, 100.0, 3.0, -10.0, 1.0, 2.0, 4.0, 5.0, 6.0, 25.0, 7.0, 8.0, 9.0, -50.0, 10.0, 11.0,
        ];
        let o = tukey(&samples);
        assert_eq!(
            o,
            Outliers {
                low_severe: 1,
                low_mild: 1,
                high_mild: 1,
                high_severe: 1,
            }
        );
        assert_eq!(o.total(), 4);
    }

    #[test]
    fn values_on_a_fence_are_not_beyond_it() {
        // Q1 = 2.75, Q3 = 10.25 as above, with the extremes set exactly on
        // the fences.
        let samples = [
            -19.75, -8.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 21.5, 32.75,
        ];
        let o = tukey(&samples);
        assert_eq!(
            o,
            Outliers {
                low_severe: 0,
                low_mild: 1,
                high_mild: 1,
                high_severe: 0,
            }
        );
    }

    #[test]
    fn clean_and_degenerate_samples() {
        assert_eq!(tukey(&[]), Outliers::default());
        assert_eq!(tukey(&[1.0]), Outliers::default());
        assert_eq!(tukey(&[5.0; 10]), Outliers::default());
        let uniform: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(tukey(&uniform).total(), 0);
    }

    #[test]
    fn constant_sample_with_one_straggler() {
        // IQR 0: every distinct value is a severe outlier.
        let o = tukey(&[5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.1]);
        assert_eq!(o.high_severe, 1);
        assert_eq!(o.total(), 1);
    }

    #[test]
    fn non_finite_samples() {
        let o = tukey(&[1.0, 2.0, 3.0, 4.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
        assert_eq!(o.high_severe, 1);
        assert_eq!(o.low_severe, 1);
        assert_eq!(o.total(), 2);
        assert_eq!(tukey(&[f64::NAN, f64::INFINITY]), Outliers::default());
    }
}
