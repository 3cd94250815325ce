//! The transaction mix: weights addressed by transaction name, never by position.
//!
//! Each transaction has a parameter `weight.<NAME>` (e.g. `--param
//! weight.GET_SUBSCRIBER_DATA=80`); the defaults are the specification's mix 35/10/35/2/14/2/2.
//! A misspelt name is an unknown parameter (the error lists the valid ones), and weights that
//! sum to zero are refused by the workload's check.

use crate::model::params::Params;
use rand::Rng;

/// The seven transactions, in report order.
pub const TXNS: [&str; 7] = [
    "GET_SUBSCRIBER_DATA",
    "GET_NEW_DESTINATION",
    "GET_ACCESS_DATA",
    "UPDATE_SUBSCRIBER_DATA",
    "UPDATE_LOCATION",
    "INSERT_CALL_FORWARDING",
    "DELETE_CALL_FORWARDING",
];

/// The parameter that weighs each transaction, same order as [`TXNS`].
pub const WEIGHT_PARAMS: [&str; 7] = [
    "weight.GET_SUBSCRIBER_DATA",
    "weight.GET_NEW_DESTINATION",
    "weight.GET_ACCESS_DATA",
    "weight.UPDATE_SUBSCRIBER_DATA",
    "weight.UPDATE_LOCATION",
    "weight.INSERT_CALL_FORWARDING",
    "weight.DELETE_CALL_FORWARDING",
];

/// Largest weight a transaction can be given.
pub const WEIGHT_MAX: u64 = 1_000_000;

/// The specification's mix, in percent, same order as [`TXNS`].
pub const DEFAULT_WEIGHTS: [u64; 7] = [35, 10, 35, 2, 14, 2, 2];

/// A validated mix: draws a transaction index with probability weight / sum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mix {
    weights: [u64; 7],
    /// Running sums of the weights.
    cumulative: [u64; 7],
}

impl Mix {
    /// A mix from weights in [`TXNS`] order; refuses an all-zero sum.
    pub fn new(weights: [u64; 7]) -> Result<Mix, String> {
        let mut cumulative = [0u64; 7];
        let mut sum = 0u64;
        for (c, w) in cumulative.iter_mut().zip(weights) {
            sum = sum.saturating_add(w);
            *c = sum;
        }
        if sum == 0 {
            return Err(format!(
                "--param weight.*: the transaction weights sum to zero; give at least one of {} a weight from 1 to {WEIGHT_MAX}",
                WEIGHT_PARAMS.join(", ")
            ));
        }
        Ok(Mix { weights, cumulative })
    }

    /// The mix of resolved parameters.
    pub fn from_params(p: &Params) -> Result<Mix, String> {
        let mut w = [0u64; 7];
        for (w, name) in w.iter_mut().zip(WEIGHT_PARAMS) {
            *w = p.count(name);
        }
        Mix::new(w)
    }

    /// The weights, in [`TXNS`] order.
    pub fn weights(&self) -> [u64; 7] {
        self.weights
    }

    /// Sum of the weights.
    pub fn total(&self) -> u64 {
        self.cumulative[6]
    }

    /// Probability of transaction `i`.
    pub fn share(&self, i: usize) -> f64 {
        self.weights[i] as f64 / self.total() as f64
    }

    /// Draws a transaction index (into [`TXNS`]).
    #[inline]
    pub fn pick<R: Rng>(&self, rng: &mut R) -> usize {
        let r = rng.random_range(0..self.total());
        // The first running sum above r; transactions of weight 0 are never drawn.
        self.cumulative.iter().position(|&c| r < c).unwrap_or(6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn default_mix_is_the_specs() {
        let m = Mix::new(DEFAULT_WEIGHTS).unwrap();
        assert_eq!(m.total(), 100);
        assert!((m.share(0) - 0.35).abs() < 1e-12);
        assert!((m.share(4) - 0.14).abs() < 1e-12);
    }

    #[test]
    fn zero_sum_is_refused_naming_the_parameters() {
        let e = Mix::new([0; 7]).unwrap_err();
        assert!(
            e.starts_with("--param weight.*: the transaction weights sum to zero"),
            "{e}"
        );
        assert!(e.contains("weight.GET_SUBSCRIBER_DATA"), "{e}");
        assert!(e.contains("from 1 to"), "{e}");
    }

    #[test]
    fn draws_follow_the_weights_and_skip_zero() {
        let m = Mix::new([0, 1, 0, 0, 3, 0, 0]).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut counts = [0u64; 7];
        for _ in 0..100_000 {
            counts[m.pick(&mut rng)] += 1;
        }
        assert_eq!(counts[0] + counts[2] + counts[3] + counts[5] + counts[6], 0);
        let share = counts[4] as f64 / 100_000.0;
        assert!((share - 0.75).abs() < 0.01, "{share}");
    }
}
