//! Pure statistics for litebench's benchmark trials.
//!
//! Everything here is a plain function of its arguments: no I/O, no clocks,
//! no global state and no randomness (anything random would have to take an
//! explicit seed). That is the point of keeping it in its own crate: every
//! figure litebench reports — a mean, a confidence interval, an outlier
//! count, a "B is faster than A" verdict — can be recomputed later, bit for
//! bit, from the raw samples stored with a run, by anyone, without rerunning
//! the benchmark.
//!
//! Non-finite samples (NaN, ±∞) are refused rather than skipped: a trial that
//! produced one is a broken measurement, and quietly dropping it would make
//! the reported figures describe fewer trials than were run.
//!
//! ```
//! use litebench_stats::{summarize, welch, NOISY_CV};
//!
//! let a = [1010.0, 990.0, 1005.0, 995.0, 1000.0]; // ops/s per trial
//! let b = [1110.0, 1090.0, 1100.0, 1105.0, 1095.0];
//! let s = summarize(&a).unwrap();
//! assert_eq!(s.mean, 1000.0);
//! assert!(s.cv.unwrap() < NOISY_CV);
//! let c = welch(&a, &b).unwrap();
//! assert_eq!(c.diff, 100.0);
//! assert_eq!(c.significant, Some(true));
//! ```

mod bootstrap;
mod compare;
mod difference;
mod median_ci;
mod outliers;
mod quantile;
mod slope;
mod student;
mod summary;

pub use bootstrap::{
    ratio_of_medians, speed_ratio, verdict, Better, Ratio, SplitMix64, Verdict, INCONCLUSIVE_BEYOND, MIN_TRIALS,
    RATIO_INTERVAL_METHOD, RESAMPLES,
};
pub use compare::{welch, Comparison};
pub use difference::{difference_of_means, Change, Difference, DIFFERENCE_INTERVAL_METHOD};
pub use median_ci::{median_ci, median_ci_rank, MEDIAN_INTERVAL_METHOD, MIN_SAMPLES_95};
pub use outliers::{tukey, tukey_outliers, OutlierKind, Outliers};
pub use quantile::{median, percentile};
pub use slope::{slope_95, Slope, MIN_SLOPE_POINTS};
pub use student::t_critical_95;
pub use summary::{summarize, Interval, Summary};

/// The coefficient of variation (as a fraction: 0.05 = 5%) above which
/// litebench warns that a configuration was too noisy for its figures to be
/// trusted.
pub const NOISY_CV: f64 = 0.05;
