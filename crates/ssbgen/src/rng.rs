//! The random number streams dbgen draws every column from.
//!
//! dbgen uses Park and Miller's "minimal standard" generator (x ← 16807·x mod 2³¹−1), one
//! independent stream per column. Matching dbgen byte for byte means matching its arithmetic
//! exactly: the uniform integer is computed through a `double` (state / modulus × range,
//! truncated), and a stream can jump n steps ahead in O(log n) by multiplying with 16807ⁿ —
//! which is what lets any thread start at any row.

/// The modulus, 2³¹ − 1 (prime).
pub const MODULUS: i64 = 2_147_483_647;
/// The multiplier, a primitive root of the modulus.
pub const MULTIPLIER: i64 = 16_807;
const MODULUS_F64: f64 = 2_147_483_647.0;

/// One column's random stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stream {
    state: i64,
}

impl Stream {
    /// A stream at `seed` (1 ..= 2³¹ − 2).
    pub const fn new(seed: i64) -> Stream {
        Stream { state: seed }
    }

    /// A stream at `seed`, advanced `steps` draws.
    pub fn at(seed: i64, steps: u64) -> Stream {
        let mut s = Stream::new(seed);
        s.skip(steps);
        s
    }

    /// The current state (the last value drawn).
    pub fn state(&self) -> i64 {
        self.state
    }

    /// Advances one step and returns the new state.
    #[inline]
    pub fn next_raw(&mut self) -> i64 {
        self.state = self.state * MULTIPLIER % MODULUS;
        self.state
    }

    /// A uniform integer in `low ..= high`, as dbgen's `UnifInt` computes it.
    #[inline]
    pub fn uniform(&mut self, low: i64, high: i64) -> i64 {
        let range = (high - low + 1) as f64;
        let v = self.next_raw();
        low + ((v as f64 / MODULUS_F64) * range) as i64
    }

    /// Jumps `steps` draws ahead: state · 16807^steps mod (2³¹ − 1).
    pub fn skip(&mut self, steps: u64) {
        self.state = mul_mod(self.state, pow_mod(MULTIPLIER, steps));
    }

    /// Jumps `steps` (at most [`SMALL_SKIP_MAX`]) draws ahead with one multiplication: what
    /// each row does to reach its stream's per-row budget.
    #[inline]
    pub fn skip_small(&mut self, steps: usize) {
        self.state = self.state * SMALL_POWERS[steps] % MODULUS;
    }
}

/// The largest jump [`Stream::skip_small`] makes.
pub const SMALL_SKIP_MAX: usize = 92;

/// 16807^k mod (2³¹ − 1) for k = 0 ..= SMALL_SKIP_MAX.
const SMALL_POWERS: [i64; SMALL_SKIP_MAX + 1] = {
    let mut t = [1i64; SMALL_SKIP_MAX + 1];
    let mut k = 1;
    while k <= SMALL_SKIP_MAX {
        t[k] = t[k - 1] * MULTIPLIER % MODULUS;
        k += 1;
    }
    t
};

fn mul_mod(a: i64, b: i64) -> i64 {
    ((a as i128 * b as i128) % MODULUS as i128) as i64
}

fn pow_mod(base: i64, mut exp: u64) -> i64 {
    let (mut result, mut b) = (1i64, base % MODULUS);
    while exp > 0 {
        if exp & 1 == 1 {
            result = mul_mod(result, b);
        }
        b = mul_mod(b, b);
        exp >>= 1;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_standard_check_value() {
        // Park & Miller (CACM 1988): from seed 1, the 10,000th value is 1,043,618,065.
        let mut s = Stream::new(1);
        for _ in 0..10_000 {
            s.next_raw();
        }
        assert_eq!(s.state(), 1_043_618_065);
    }

    #[test]
    fn skipping_equals_stepping() {
        for steps in [0u64, 1, 2, 7, 92, 1000, 123_457] {
            let mut stepped = Stream::new(46_831_694);
            for _ in 0..steps {
                stepped.next_raw();
            }
            assert_eq!(Stream::at(46_831_694, steps), stepped, "{steps} steps");
            if steps as usize <= SMALL_SKIP_MAX {
                let mut small = Stream::new(46_831_694);
                small.skip_small(steps as usize);
                assert_eq!(small, stepped, "{steps} small steps");
            }
        }
    }

    #[test]
    fn uniform_stays_in_bounds_and_reaches_both_ends() {
        let mut s = Stream::new(1_066_728_069);
        let (mut lo, mut hi) = (false, false);
        for _ in 0..100_000 {
            let v = s.uniform(1, 7);
            assert!((1..=7).contains(&v), "{v}");
            lo |= v == 1;
            hi |= v == 7;
        }
        assert!(lo && hi);
    }

    #[test]
    fn uniform_goes_through_a_double_as_dbgen_does() {
        // From seed 1 the first state is 16807: 16807 / (2^31-1) * 2^31 truncates to 16807.
        let mut s = Stream::new(1);
        assert_eq!(s.uniform(0, 0x7FFF_FFFF), 16_807);
        // And 16807^2 = 282475249: 282475249 / (2^31-1) * 50 = 6.577 → 1 + 6.
        assert_eq!(s.uniform(1, 50), 7);
    }
}
