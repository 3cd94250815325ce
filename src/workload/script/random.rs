//! The random draws and hashes of pgbench's expression functions, written from pgbench's
//! documented definitions: uniform, exponential and Gaussian draws mapped onto `[lb, ub]` as its
//! documentation gives the mapping, a bounded Zipfian draw by Devroye's rejection method (the
//! method pgbench names), and the FNV-1a and MurmurHash2 (64-bit) hashes of one integer.
//!
//! The draws come from the client's own seeded generator (ChaCha8), not pgbench's xoshiro128**,
//! so a script draws the same distributions as under pgbench but not the same numbers.

use super::eval_error::EvalError;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Smallest Gaussian parameter pgbench accepts.
pub const MIN_GAUSSIAN: f64 = 2.0;
/// pgbench's range of the Zipfian parameter.
pub const ZIPF_MIN: f64 = 1.001;
pub const ZIPF_MAX: f64 = 1000.0;

/// A uniform draw in `(0, 1]`.
fn open_unit(rng: &mut ChaCha8Rng) -> f64 {
    1.0 - rng.random::<f64>()
}

/// `lb + floor(width * r)` for `r` in `[0, 1)`, kept inside `[lb, ub]` against rounding.
fn place(lb: i64, ub: i64, r: f64) -> i64 {
    let width = (ub as i128 - lb as i128 + 1) as f64;
    let off = (width * r).floor() as i128;
    (lb as i128 + off).clamp(lb as i128, ub as i128) as i64
}

/// pgbench's checks of a draw's bounds: not empty, and at most `i64::MAX` values wide (its
/// draws compute the width `ub - lb + 1` in 64 bits).
fn check_range(lb: i64, ub: i64) -> Result<(), EvalError> {
    if lb > ub {
        Err(EvalError::EmptyRange { lb, ub })
    } else if ub.checked_sub(lb).and_then(|w| w.checked_add(1)).is_none() {
        Err(EvalError::RangeTooLarge { lb, ub })
    } else {
        Ok(())
    }
}

/// `random(lb, ub)`: every integer of `[lb, ub]` equally likely.
pub fn uniform(rng: &mut ChaCha8Rng, lb: i64, ub: i64) -> Result<i64, EvalError> {
    check_range(lb, ub)?;
    Ok(rng.random_range(lb..=ub))
}

/// `random_exponential(lb, ub, p)`: density `exp(-p (x - lb) / (ub - lb + 1))`, truncated to
/// the range; `p > 0`.
pub fn exponential(rng: &mut ChaCha8Rng, lb: i64, ub: i64, p: f64) -> Result<i64, EvalError> {
    check_range(lb, ub)?;
    if !(p > 0.0 && p.is_finite()) {
        return Err(EvalError::Exponential(p));
    }
    let cut = (-p).exp();
    let r = -(cut + (1.0 - cut) * open_unit(rng)).ln() / p;
    Ok(place(lb, ub, r))
}

/// `random_gaussian(lb, ub, p)`: a standard normal truncated to `[-p, p)` and mapped onto the
/// range; `p >= 2`.
pub fn gaussian(rng: &mut ChaCha8Rng, lb: i64, ub: i64, p: f64) -> Result<i64, EvalError> {
    check_range(lb, ub)?;
    if !(p >= MIN_GAUSSIAN && p.is_finite()) {
        return Err(EvalError::Gaussian(p));
    }
    let z = loop {
        // Box-Muller.
        let (u1, u2) = (open_unit(rng), rng.random::<f64>());
        let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).sin();
        if (-p..p).contains(&z) {
            break z;
        }
    };
    Ok(place(lb, ub, (z + p) / (2.0 * p)))
}

/// `random_zipfian(lb, ub, s)`: value `lb + k - 1` with probability proportional to `k^-s`,
/// `s` in `[1.001, 1000]`. Devroye's rejection method ("Non-Uniform Random Variate
/// Generation", 1986, p. 550-551) for the unbounded Zipf law, its first uniform drawn only
/// from the part that gives `k <= n` (the same law as rejecting larger `k`, without the many
/// rejections of `s` near 1).
pub fn zipfian(rng: &mut ChaCha8Rng, lb: i64, ub: i64, s: f64) -> Result<i64, EvalError> {
    check_range(lb, ub)?;
    if !(ZIPF_MIN..=ZIPF_MAX).contains(&s) {
        return Err(EvalError::Zipfian(s));
    }
    let n = (ub as i128 - lb as i128 + 1) as f64;
    let a = s - 1.0;
    let b = 2f64.powf(a);
    // u > (n + 1)^-a  <=>  floor(u^(-1/a)) <= n.
    let low = (n + 1.0).powf(-a);
    loop {
        let u = low + (1.0 - low) * open_unit(rng);
        let v = rng.random::<f64>();
        let x = u.powf(-1.0 / a).floor();
        if !(1.0..=n).contains(&x) {
            continue;
        }
        let t = (1.0 + 1.0 / x).powf(a);
        if v * x * (t - 1.0) / (b - 1.0) <= t / b {
            return Ok(place(lb, ub, (x - 1.0) / n));
        }
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a over the value's eight bytes, least significant first, its offset basis xored with
/// `seed` (pgbench's `hash_fnv1a`).
pub fn fnv1a(v: i64, seed: i64) -> i64 {
    let mut h = FNV_OFFSET ^ seed as u64;
    for byte in (v as u64).to_le_bytes() {
        h ^= u64::from(byte);
        h = h.wrapping_mul(FNV_PRIME);
    }
    h as i64
}

const MM2_MUL: u64 = 0xc6a4_a793_5bd1_e995;
const MM2_ROT: u32 = 47;

/// MurmurHash64A of one 8-byte value with `seed` (pgbench's `hash_murmur2`, which `hash` is
/// an alias of).
pub fn murmur2(v: i64, seed: i64) -> i64 {
    let mut h = (seed as u64) ^ MM2_MUL.wrapping_mul(8);
    let mut k = v as u64;
    k = k.wrapping_mul(MM2_MUL);
    k ^= k >> MM2_ROT;
    k = k.wrapping_mul(MM2_MUL);
    h ^= k;
    h = h.wrapping_mul(MM2_MUL);
    h ^= h >> MM2_ROT;
    h = h.wrapping_mul(MM2_MUL);
    h ^= h >> MM2_ROT;
    h as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn counts(f: impl Fn(&mut ChaCha8Rng) -> i64, n: usize, buckets: usize) -> Vec<usize> {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut c = vec![0; buckets];
        for _ in 0..n {
            let v = f(&mut rng);
            assert!((1..=buckets as i64).contains(&v), "{v}");
            c[(v - 1) as usize] += 1;
        }
        c
    }

    #[test]
    fn uniform_covers_its_range_evenly() {
        let c = counts(|r| uniform(r, 1, 10).unwrap(), 100_000, 10);
        assert!(c.iter().all(|&n| (9_400..10_600).contains(&n)), "{c:?}");
        assert!(uniform(&mut ChaCha8Rng::seed_from_u64(1), 5, 4).is_err());
        assert_eq!(
            uniform(&mut ChaCha8Rng::seed_from_u64(1), i64::MIN, i64::MIN),
            Ok(i64::MIN)
        );
        // pgbench's limit: a range of 2^63 values or more is refused, one less is drawn from.
        for (lb, ub) in [(i64::MIN, i64::MAX), (0, i64::MAX), (-1, i64::MAX - 1)] {
            assert_eq!(
                uniform(&mut ChaCha8Rng::seed_from_u64(1), lb, ub),
                Err(EvalError::RangeTooLarge { lb, ub })
            );
        }
        assert!(uniform(&mut ChaCha8Rng::seed_from_u64(1), 1, i64::MAX).is_ok());
    }

    #[test]
    fn zipfian_follows_k_to_the_minus_s() {
        // pgbench's documentation: with s = 2.5, 1 is drawn (2/1)^2.5 = 5.66 times as often as 2.
        let c = counts(|r| zipfian(r, 1, 100, 2.5).unwrap(), 200_000, 100);
        let ratio = c[0] as f64 / c[1] as f64;
        assert!((ratio - 5.657).abs() < 0.3, "{ratio}");
        let ratio = c[1] as f64 / c[2] as f64;
        assert!((ratio - 2.756).abs() < 0.25, "{ratio}");
        // Near 1 it still ends (the bounded proposal) and stays in range.
        let c = counts(|r| zipfian(r, 1, 1000, 1.001).unwrap(), 20_000, 1000);
        assert!(c[0] > c[999]);
        assert!(zipfian(&mut ChaCha8Rng::seed_from_u64(1), 1, 10, 1.0).is_err());
    }

    #[test]
    fn exponential_and_gaussian_have_their_shapes() {
        // Exponential with p = 2: the first tenth of the range holds 1 - e^-0.2 of the mass
        // over 1 - e^-2: 0.2097.
        let c = counts(|r| exponential(r, 1, 10, 2.0).unwrap(), 100_000, 10);
        let first = c[0] as f64 / 100_000.0;
        assert!((first - 0.2097).abs() < 0.01, "{first}");
        assert!(c.windows(2).all(|w| w[0] > w[1]), "{c:?}");
        // Gaussian: symmetric, the middle most likely.
        let c = counts(|r| gaussian(r, 1, 10, 2.5).unwrap(), 100_000, 10);
        assert!(c[4] > c[0] * 4 && c[5] > c[9] * 4, "{c:?}");
        assert!(((c[0] as f64) / (c[9] as f64) - 1.0).abs() < 0.15, "{c:?}");
        assert!(gaussian(&mut ChaCha8Rng::seed_from_u64(1), 1, 10, 1.9).is_err());
        assert!(exponential(&mut ChaCha8Rng::seed_from_u64(1), 1, 10, 0.0).is_err());
    }

    #[test]
    fn hashes_give_pgbenchs_documented_values() {
        // pgbench's documentation: hash(10, 5432) and hash_fnv1a(10, 5432).
        assert_eq!(murmur2(10, 5432), -5_817_877_081_768_721_676);
        assert_eq!(fnv1a(10, 5432), -7_793_829_335_365_542_153);
        assert_ne!(murmur2(1, 0), murmur2(2, 0));
    }
}
