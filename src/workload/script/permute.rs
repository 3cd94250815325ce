//! `permute(i, size, seed)`: pgbench's pseudorandom permutation of `[0, size)`, the same
//! numbers as pgbench gives for the same seed, so a script that spreads its keys with it touches
//! the same rows under litebench as under pgbench.
//!
//! Written from pgbench's description of its algorithm: six rounds, each a multiply by an odd
//! number, xor and rotate inside the largest power of two not above `size` (applied to the lower
//! and to the upper overlapping half), then a random offset modulo `size`; the random numbers
//! come from PostgreSQL's `pg_prng`, xoroshiro128** seeded with SplitMix64 from the seed, which
//! is what `rand_xoshiro`'s `Xoroshiro128StarStar::seed_from_u64` is.

use super::eval_error::EvalError;
use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoroshiro128StarStar;

/// How many rounds pgbench applies.
const ROUNDS: usize = 6;

/// pgbench's error for a size below one.
pub const BAD_SIZE: &str = "permute size parameter must be greater than zero";

/// A uniform draw in `[0, range]` by bitmask rejection, as `pg_prng_uint64_range` draws it (its
/// number of draws, and so the numbers after it, must be pgbench's).
fn up_to(rng: &mut Xoroshiro128StarStar, range: u64) -> u64 {
    if range == 0 {
        return 0;
    }
    let shift = range.leading_zeros();
    loop {
        let v = rng.next_u64() >> shift;
        if v <= range {
            return v;
        }
    }
}

/// One multiply-xor-rotate inside `mask` (a power of two less one, `bits` bits wide): a
/// bijection of `[0, mask]`.
fn scramble(v: u64, m: u64, r: u64, mask: u64, bits: u32) -> u64 {
    let v = (v.wrapping_mul(m) ^ r) & mask;
    ((v << 1) & mask) | (v >> (bits - 1))
}

/// Where `val` (taken modulo `size`) goes in the permutation of `[0, size)` that `seed` chooses.
pub fn permute(val: i64, size: i64, seed: i64) -> Result<i64, EvalError> {
    if size <= 0 {
        return Err(EvalError::PermuteSize);
    }
    if size < 2 {
        return Ok(0);
    }
    let mut rng = Xoroshiro128StarStar::seed_from_u64(seed as u64);
    let size = size as u64;
    let mut v = (val as u64) % size;
    let bits = 63 - size.leading_zeros();
    let mask = (1u64 << bits) - 1;
    for _ in 0..ROUNDS {
        let m = (rng.next_u64() & mask) | 1;
        let r = rng.next_u64() & mask;
        if v <= mask {
            v = scramble(v, m, r, mask, bits);
        }
        let m = (rng.next_u64() & mask) | 1;
        let r = rng.next_u64() & mask;
        let t = size - 1 - v;
        if t <= mask {
            v = size - 1 - scramble(t, m, r, mask, bits);
        }
        // v and the offset are both below size <= 2^63: their sum fits.
        v = (v + up_to(&mut rng, size - 1)) % size;
    }
    Ok(v as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pgbench's own values: t/001_pgbench_with_server.pl ("check permute's portability across
    /// architectures", PostgreSQL commit 23e7b38bfe396f919fdb66057174d29e17086418), size
    /// 2^63 - 11 and seed 5432, the last seven positions.
    #[test]
    fn pgbenchs_values_for_its_seed() {
        let size = i64::MAX - 10;
        let want = [
            520_382_784_483_822_430,
            1_143_715_004_660_802_862,
            447_293_596_416_496_998,
            916_527_772_266_572_956,
            2_763_809_008_686_028_849,
            8_648_551_549_198_294_572,
            4_542_876_852_200_565_125,
        ];
        for (k, w) in want.iter().enumerate() {
            assert_eq!(permute(size - 1 - k as i64, size, 5432), Ok(*w), "size-{}", k + 1);
        }
        // The same file: with seed 5431 the identity of [0, 2), with 5433 the swap.
        assert_eq!((permute(0, 2, 5431), permute(1, 2, 5431)), (Ok(0), Ok(1)));
        assert_eq!((permute(0, 2, 5433), permute(1, 2, 5433)), (Ok(1), Ok(0)));
        assert_eq!(permute(7, 1, 3), Ok(0));
        assert_eq!(permute(0, 0, 3), Err(EvalError::PermuteSize));
        assert_eq!(permute(0, -5, 3), Err(EvalError::PermuteSize));
    }

    #[test]
    fn a_permutation_is_a_bijection_and_wraps() {
        for size in [2i64, 3, 5, 16, 17, 1000] {
            for seed in [0i64, 1, -7] {
                let mut seen: Vec<i64> = (0..size).map(|i| permute(i, size, seed).unwrap()).collect();
                assert_eq!(permute(size + 3, size, seed), permute(3 % size, size, seed));
                seen.sort_unstable();
                assert_eq!(seen, (0..size).collect::<Vec<_>>(), "size {size} seed {seed}");
            }
        }
    }
}
