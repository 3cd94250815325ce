//! The specification's non-uniform key generator.
//!
//! TATP draws the subscriber of every transaction as
//! `s_id = ((rand(0, A) | rand(1, N)) % N) + 1`, where `rand(x, y)` is uniform over `x..=y`,
//! `|` is bitwise OR, `N` is the number of subscribers and `A` is 65,535 for up to a million
//! subscribers, 1,048,575 for up to ten million and 2,097,151 beyond. The OR sets bits more often
//! than a uniform draw would, so some subscribers are much hotter than others. Transactions that
//! address a subscriber by `sub_nbr` derive it from such an `s_id`.

use rand::Rng;

/// Digits of a subscriber number (`sub_nbr`) and of a forwarding number (`numberx`).
pub const NUMBER_DIGITS: usize = 15;

/// A 15-digit ASCII number.
pub type Number = [u8; NUMBER_DIGITS];

/// `A` of the formula for `n` subscribers.
pub fn a_for(n: u64) -> u64 {
    if n <= 1_000_000 {
        65_535
    } else if n <= 10_000_000 {
        1_048_575
    } else {
        2_097_151
    }
}

/// Draws subscriber ids for a population of `n` (at least 1) subscribers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyGen {
    n: u64,
    a: u64,
}

impl KeyGen {
    /// The generator for `n` subscribers (`n` is at least 1; validated as a parameter).
    pub fn new(n: u64) -> KeyGen {
        let n = n.max(1);
        KeyGen { n, a: a_for(n) }
    }

    /// Number of subscribers.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// `A` of the formula.
    pub fn a(&self) -> u64 {
        self.a
    }

    /// The formula applied to the two uniform draws `x` (from `0..=A`) and `y` (from `1..=N`).
    #[inline]
    pub fn s_id_from(&self, x: u64, y: u64) -> u64 {
        ((x | y) % self.n) + 1
    }

    /// A subscriber id in `1..=N`: first the draw from `0..=A`, then the one from `1..=N`.
    #[inline]
    pub fn s_id<R: Rng>(&self, rng: &mut R) -> u64 {
        let x = rng.random_range(0..=self.a);
        let y = rng.random_range(1..=self.n);
        self.s_id_from(x, y)
    }
}

/// `sub_nbr` of a subscriber: its `s_id` as a 15-digit zero-padded decimal string.
pub fn sub_nbr(s_id: u64) -> Number {
    let mut out = [b'0'; NUMBER_DIGITS];
    let mut v = s_id;
    for d in out.iter_mut().rev() {
        *d = b'0' + (v % 10) as u8;
        v /= 10;
    }
    out
}

/// A random 15-digit number (`numberx`).
pub fn random_number<R: Rng>(rng: &mut R) -> Number {
    let mut out = [b'0'; NUMBER_DIGITS];
    for d in out.iter_mut() {
        *d = b'0' + rng.random_range(0..10u8);
    }
    out
}

/// The ASCII bytes of a generated string column as `&str`.
pub fn ascii(b: &[u8]) -> &str {
    // Every generated column is ASCII digits or letters, so this never fails; an empty string
    // would make a check fail rather than panic if that ever changed.
    std::str::from_utf8(b).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn a_follows_the_population_size() {
        assert_eq!(a_for(1), 65_535);
        assert_eq!(a_for(1_000_000), 65_535);
        assert_eq!(a_for(1_000_001), 1_048_575);
        assert_eq!(a_for(10_000_000), 1_048_575);
        assert_eq!(a_for(10_000_001), 2_097_151);
    }

    #[test]
    fn matches_the_formula() {
        let k = KeyGen::new(1000);
        assert_eq!(k.s_id_from(0, 1), 2);
        assert_eq!(k.s_id_from(0, 1000), 1);
        assert_eq!(k.s_id_from(65_535, 1), (65_535 % 1000) + 1);
        // 16000 | 5 = 16005; % 1000 = 5; + 1.
        assert_eq!(k.s_id_from(16_000, 5), 6);
        // The generator draws x from 0..=A, then y from 1..=N, and applies the formula.
        let mut a = ChaCha8Rng::seed_from_u64(7);
        let mut b = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..10_000 {
            let got = k.s_id(&mut a);
            let x = b.random_range(0..=65_535u64);
            let y = b.random_range(1..=1000u64);
            assert_eq!(got, ((x | y) % 1000) + 1);
            assert!((1..=1000).contains(&got));
        }
    }

    /// The exact distribution of the formula for `n` subscribers, by enumerating both draws.
    fn exact(n: u64) -> Vec<f64> {
        let k = KeyGen::new(n);
        let mut counts = vec![0u64; n as usize];
        for x in 0..=k.a() {
            for y in 1..=n {
                counts[(k.s_id_from(x, y) - 1) as usize] += 1;
            }
        }
        let total = ((k.a() + 1) * n) as f64;
        counts.into_iter().map(|c| c as f64 / total).collect()
    }

    #[test]
    fn distribution_is_the_formulas_and_skewed() {
        let n = 1000u64;
        let p = exact(n);
        // Skewed: far from uniform (total variation distance), a hottest key several times as
        // likely as a uniform draw would make it, and the hottest tenth drawing well over a tenth.
        let uniform = 1.0 / n as f64;
        let tv: f64 = p.iter().map(|x| (x - uniform).abs()).sum::<f64>() / 2.0;
        assert!(tv > 0.10, "total variation from uniform {tv}");
        let max = p.iter().cloned().fold(0.0, f64::max);
        assert!(max > 3.0 * uniform, "hottest key {max}");
        let mut sorted = p.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let top: f64 = sorted[..(n / 10) as usize].iter().sum();
        assert!(top > 0.2, "hottest 10% draw {top}");
        // The sampled frequencies follow the exact distribution.
        let k = KeyGen::new(n);
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        let draws = 2_000_000u64;
        let mut counts = vec![0u64; n as usize];
        for _ in 0..draws {
            counts[(k.s_id(&mut rng) - 1) as usize] += 1;
        }
        let sampled_tv: f64 = counts
            .iter()
            .zip(&p)
            .map(|(c, e)| (*c as f64 / draws as f64 - e).abs())
            .sum::<f64>()
            / 2.0;
        assert!(sampled_tv < 0.02, "sampled vs exact total variation {sampled_tv}");
    }

    #[test]
    fn sub_nbr_is_zero_padded() {
        assert_eq!(&sub_nbr(1), b"000000000000001");
        assert_eq!(&sub_nbr(1_000_000), b"000000001000000");
        assert_eq!(ascii(&sub_nbr(42)), "000000000000042");
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let x = random_number(&mut rng);
        assert!(x.iter().all(u8::is_ascii_digit));
    }
}
