//! YCSB's request distributions, written from their definitions: which record an operation
//! touches.
//!
//! - [`Zipfian`]: item `i` of `n` (0 the hottest) with probability proportional to
//!   `1 / (i + 1)^theta`, drawn with the closed-form method of Gray et al., "Quickly Generating
//!   Billion-Record Synthetic Databases", SIGMOD 1994, as YCSB's `ZipfianGenerator` does: the
//!   two hottest items exactly, the rest by an approximation of the inverse distribution. The
//!   normaliser `zeta(n, theta)` grows incrementally when items are added (`latest`).
//! - [`ScrambledZipfian`]: YCSB's `requestdistribution=zipfian`. A Zipfian draw over 10^10
//!   items, hashed (FNV-64) onto the key space, so the popular keys are spread over it instead
//!   of being the first ones, and the popularity of a key does not change when the key space
//!   grows.
//! - [`Latest`]: YCSB's `latest` (`SkewedLatestGenerator`): a Zipfian offset back from the
//!   newest key, so the most recently inserted keys are the hottest.
//!
//! Every generator takes its randomness from the caller's RNG, so a client's draws are a
//! function of its seed.

use super::keys::fnv_hash64;
use rand::Rng;

/// YCSB's Zipfian constant (`ZipfianGenerator.ZIPFIAN_CONSTANT`).
pub const ZIPFIAN_CONSTANT: f64 = 0.99;

/// Items of the Zipfian draw under [`ScrambledZipfian`] (YCSB's
/// `ScrambledZipfianGenerator.ITEM_COUNT`).
pub const SCRAMBLED_ITEMS: u64 = 10_000_000_000;

/// `zeta(10^10, 0.99)`, as YCSB precomputes it (`ScrambledZipfianGenerator.ZETAN`); a unit test
/// checks it against [`zeta`].
pub const SCRAMBLED_ZETA: f64 = 26.469_028_201_783_02;

/// Terms summed one by one before [`zeta`] switches to the Euler-Maclaurin formula for the
/// rest: 2^20 terms keep the formula's first omitted term below 1e-25.
const EXACT_TERMS: u64 = 1 << 20;

/// `sum_{i=1}^{n} 1 / i^theta`, the normaliser of a Zipfian distribution over `n` items.
pub fn zeta(n: u64, theta: f64) -> f64 {
    zeta_between(0, n, theta)
}

/// `sum_{i=from+1}^{to} 1 / i^theta` (0 when `to <= from`): exact summation of up to
/// [`EXACT_TERMS`] terms, the Euler-Maclaurin formula (integral, end-point and first derivative
/// corrections) beyond, so that the normaliser of billions of items takes microseconds.
pub fn zeta_between(from: u64, to: u64, theta: f64) -> f64 {
    if to <= from {
        return 0.0;
    }
    let direct = |a: u64, b: u64| (a + 1..=b).map(|i| (i as f64).powf(-theta)).sum::<f64>();
    if to - from <= EXACT_TERMS {
        return direct(from, to);
    }
    let a = from.max(EXACT_TERMS);
    let head = if from < a { direct(from, a) } else { 0.0 };
    head + euler_maclaurin_tail(a as f64, to as f64, theta)
}

/// `sum_{i=a+1}^{b} i^-theta` for large `a`: the integral from `a` to `b`, plus
/// `(f(b) - f(a)) / 2` and `(f'(b) - f'(a)) / 12`.
fn euler_maclaurin_tail(a: f64, b: f64, theta: f64) -> f64 {
    let f = |x: f64| x.powf(-theta);
    let df = |x: f64| -theta * x.powf(-theta - 1.0);
    let integral = if (theta - 1.0).abs() < 1e-12 {
        (b / a).ln()
    } else {
        (b.powf(1.0 - theta) - a.powf(1.0 - theta)) / (1.0 - theta)
    };
    integral + (f(b) - f(a)) / 2.0 + (df(b) - df(a)) / 12.0
}

/// A Zipfian distribution over items `0..items`, item 0 the most popular.
#[derive(Debug, Clone)]
pub struct Zipfian {
    items: u64,
    theta: f64,
    /// `1 / (1 - theta)`.
    alpha: f64,
    /// `zeta(items, theta)`.
    zetan: f64,
    /// `zeta(2, theta)`: `1 + 0.5^theta`.
    zeta2: f64,
    /// Gray et al.'s `eta`, from `items` and `zetan`.
    eta: f64,
}

impl Zipfian {
    /// Over `items` items (at least 1) with constant `theta` (0 < theta, theta != 1).
    pub fn new(items: u64, theta: f64) -> Zipfian {
        Zipfian::with_zeta(items, theta, zeta(items.max(1), theta))
    }

    /// Over `items` items with a normaliser computed elsewhere (YCSB's precomputed constant).
    pub fn with_zeta(items: u64, theta: f64, zetan: f64) -> Zipfian {
        let mut z = Zipfian {
            items: items.max(1),
            theta,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            zeta2: 1.0 + 0.5f64.powf(theta),
            eta: 0.0,
        };
        z.eta = z.eta_for();
        z
    }

    fn eta_for(&self) -> f64 {
        (1.0 - (2.0 / self.items as f64).powf(1.0 - self.theta)) / (1.0 - self.zeta2 / self.zetan)
    }

    pub fn items(&self) -> u64 {
        self.items
    }

    /// `zeta(items, theta)`: the hottest item's probability is its inverse.
    pub fn zetan(&self) -> f64 {
        self.zetan
    }

    /// Grows the distribution to `items` items, adding the new terms to the normaliser (what
    /// YCSB does when its item count goes up). A smaller count recomputes it from scratch.
    pub fn set_items(&mut self, items: u64) {
        let items = items.max(1);
        if items == self.items {
            return;
        }
        self.zetan = if items > self.items {
            self.zetan + zeta_between(self.items, items, self.theta)
        } else {
            zeta(items, self.theta)
        };
        self.items = items;
        self.eta = self.eta_for();
    }

    /// The next item, in `0..items`.
    pub fn next(&self, rng: &mut impl Rng) -> u64 {
        let u: f64 = rng.random();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < self.zeta2 {
            return 1.min(self.items - 1);
        }
        let v = self.items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha);
        (v as u64).min(self.items - 1)
    }
}

/// YCSB's scrambled Zipfian over `0..items`: a Zipfian item of [`SCRAMBLED_ITEMS`], hashed onto
/// the key space.
#[derive(Debug, Clone)]
pub struct ScrambledZipfian {
    zipfian: Zipfian,
    items: u64,
}

impl ScrambledZipfian {
    pub fn new(items: u64) -> ScrambledZipfian {
        ScrambledZipfian {
            zipfian: Zipfian::with_zeta(SCRAMBLED_ITEMS, ZIPFIAN_CONSTANT, SCRAMBLED_ZETA),
            items: items.max(1),
        }
    }

    pub fn items(&self) -> u64 {
        self.items
    }

    /// The next item, in `0..items`. YCSB takes `Math.abs` of the signed hash, which leaves the
    /// one hash equal to `i64::MIN` negative; its unsigned magnitude here keeps every result in
    /// range.
    pub fn next(&self, rng: &mut impl Rng) -> u64 {
        fnv_hash64(self.zipfian.next(rng) as i64).unsigned_abs() % self.items
    }
}

/// YCSB's `latest`: Zipfian over how far back from the newest key, so the newest is the
/// hottest. Its item count grows with every insert ([`Latest::set_newest`]).
#[derive(Debug, Clone)]
pub struct Latest {
    zipfian: Zipfian,
}

impl Latest {
    /// Keys `0..=newest` exist.
    pub fn new(newest: u64) -> Latest {
        Latest {
            zipfian: Zipfian::new(newest + 1, ZIPFIAN_CONSTANT),
        }
    }

    /// A key was inserted: keys `0..=newest` exist now.
    pub fn set_newest(&mut self, newest: u64) {
        self.zipfian.set_items(newest + 1);
    }

    /// The next key, in `0..=newest`.
    pub fn next(&self, rng: &mut impl Rng) -> u64 {
        let newest = self.zipfian.items() - 1;
        newest - self.zipfian.next(rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn counts(n: u64, draws: u64, mut next: impl FnMut(&mut ChaCha8Rng) -> u64) -> Vec<u64> {
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        let mut c = vec![0u64; n as usize];
        for _ in 0..draws {
            let i = next(&mut rng);
            assert!(i < n, "{i} out of 0..{n}");
            c[i as usize] += 1;
        }
        c
    }

    #[test]
    fn zeta_is_the_sum_and_matches_ycsbs_constant() {
        // Exact summation against the Euler-Maclaurin path, across the switch.
        for n in [1, 2, 10, 1000, EXACT_TERMS, EXACT_TERMS + 1, 3 * EXACT_TERMS] {
            let direct: f64 = (1..=n).map(|i| (i as f64).powf(-ZIPFIAN_CONSTANT)).sum();
            let z = zeta(n, ZIPFIAN_CONSTANT);
            assert!((z - direct).abs() < 1e-9 * direct, "zeta({n}) = {z}, summed {direct}");
        }
        assert_eq!(zeta(1, 0.99), 1.0);
        // YCSB's precomputed zeta(10^10, 0.99), which the scrambled generator uses.
        let z = zeta(SCRAMBLED_ITEMS, ZIPFIAN_CONSTANT);
        assert!((z - SCRAMBLED_ZETA).abs() < 1e-8, "zeta(1e10) = {z}");
        // Incremental growth gives the same normaliser as computing it afresh.
        let mut g = Zipfian::new(1000, ZIPFIAN_CONSTANT);
        for n in 1001..=1100 {
            g.set_items(n);
        }
        g.set_items(5_000_000);
        assert!((g.zetan() - zeta(5_000_000, ZIPFIAN_CONSTANT)).abs() < 1e-9);
    }

    #[test]
    fn zipfian_follows_its_definition() {
        // 1,000 items, 2,000,000 draws: item i has probability (i+1)^-0.99 / zeta(1000).
        let n = 1000;
        let draws = 2_000_000u64;
        let g = Zipfian::new(n, ZIPFIAN_CONSTANT);
        let c = counts(n, draws, |r| g.next(r));
        let zn = zeta(n, ZIPFIAN_CONSTANT);
        let freq = |i: usize| c[i] as f64 / draws as f64;
        // The hottest item: 1/zeta(1000, 0.99) = 0.1326; sd of the estimate 0.00024.
        let expect0 = 1.0 / zn;
        assert!((freq(0) - expect0).abs() < 0.002, "item 0: {} vs {expect0}", freq(0));
        let expect1 = 0.5f64.powf(ZIPFIAN_CONSTANT) / zn;
        assert!((freq(1) - expect1).abs() < 0.002, "item 1: {} vs {expect1}", freq(1));
        // Popularity falls with rank.
        assert!(c[0] > c[1] && c[1] > c[2] && c[2] > c[10] && c[10] > c[100]);
        // The tail. Beyond the second item the method inverts an approximation of the
        // distribution function, F(k) = 1 - (1 - (k/n)^(1-theta)) / eta, and the draws follow
        // it closely (sd of a share at most 0.00035 here); it puts up to 1.6 points more of the
        // draws on the first ten items than the exact zeta(k)/zeta(n) (as YCSB's does).
        let gray = |k: u64| 1.0 - (1.0 - (k as f64 / n as f64).powf(1.0 - ZIPFIAN_CONSTANT)) / g.eta;
        for k in [3u64, 10, 100, 500, 900] {
            let got: f64 = c[..k as usize].iter().sum::<u64>() as f64 / draws as f64;
            let exact = zeta(k, ZIPFIAN_CONSTANT) / zn;
            assert!((got - gray(k)).abs() < 0.002, "first {k}: {got} vs F(k) {}", gray(k));
            assert!(
                (got - exact).abs() < 0.02,
                "first {k}: {got} vs zeta(k)/zeta(n) {exact}"
            );
        }
        assert!(c[999] > 0, "the coldest item is drawn too");
    }

    #[test]
    fn scrambled_zipfian_spreads_the_hot_keys() {
        let n = 10_000u64;
        let draws = 1_000_000u64;
        let g = ScrambledZipfian::new(n);
        let c = counts(n, draws, |r| g.next(r));
        let mut by_count: Vec<(u64, u64)> = c.iter().enumerate().map(|(i, &k)| (k, i as u64)).collect();
        by_count.sort_unstable_by(|a, b| b.cmp(a));
        let hottest: Vec<u64> = by_count[..3].iter().map(|&(_, i)| i).collect();
        // The hottest keys are the hashes of Zipfian items 0, 1, 2, not keys 0, 1, 2.
        let hashed: Vec<u64> = (0..3).map(|i| fnv_hash64(i).unsigned_abs() % n).collect();
        assert_eq!(hottest, hashed);
        assert!(hottest.iter().all(|&k| k > 2), "{hottest:?}");
        // The hottest key's share is 1/zeta(10^10, 0.99) = 3.78%.
        let share = by_count[0].0 as f64 / draws as f64;
        assert!((share - 1.0 / SCRAMBLED_ZETA).abs() < 0.002, "hottest share {share}");
        // Spread: the hot keys are not bunched at one end of the key space.
        let low_half: u64 = c[..(n / 2) as usize].iter().sum();
        let low = low_half as f64 / draws as f64;
        assert!((0.3..0.7).contains(&low), "share of the lower half {low}");
    }

    #[test]
    fn latest_favours_the_newest_keys() {
        let mut g = Latest::new(999);
        let c = counts(2000, 200_000, |r| g.next(r));
        assert!(c[999] > c[998] && c[998] > c[990] && c[990] > c[500]);
        assert!(c[1000..].iter().all(|&k| k == 0), "no key past the newest");
        let share = c[999] as f64 / 200_000.0;
        let expect = 1.0 / zeta(1000, ZIPFIAN_CONSTANT);
        assert!((share - expect).abs() < 0.005, "newest: {share} vs {expect}");
        // Insert 100 keys: the hot spot moves to the new newest.
        g.set_newest(1099);
        let c = counts(2000, 200_000, |r| g.next(r));
        let newest = c[1099] as f64 / 200_000.0;
        assert!(newest > 0.1, "newest after inserts {newest}");
        assert!(c[1099] > 10 * c[999].max(1), "old newest {} vs new {}", c[999], c[1099]);
    }
}
