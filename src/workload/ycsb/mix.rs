//! YCSB's core workloads A to F: the operation proportions and the request distribution of
//! each, as the `workloads/workload[a-f]` files of the YCSB repository set them, and the draw
//! of an operation (YCSB's `DiscreteGenerator`: one uniform number against the cumulative
//! proportions).

use rand::Rng;

/// Operation types, in report order ([`OPS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Read = 0,
    Update = 1,
    Insert = 2,
    Scan = 3,
    ReadModifyWrite = 4,
}

impl Op {
    pub const ALL: [Op; 5] = [Op::Read, Op::Update, Op::Insert, Op::Scan, Op::ReadModifyWrite];

    /// Index into [`OPS`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The recorder's names of the operations, every workload all five (the ones a workload does
/// not use record nothing).
pub const OPS: [&str; 5] = ["read", "update", "insert", "scan", "read-modify-write"];

/// Which keys the operations choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distribution {
    /// YCSB's `zipfian`: scrambled Zipfian with constant 0.99.
    Zipfian,
    /// YCSB's `latest`: Zipfian back from the newest insert.
    Latest,
}

/// One core workload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Core {
    /// `a` to `f`.
    pub name: &'static str,
    /// Proportions of read, update, insert, scan, read-modify-write ([`Op`] order).
    pub proportions: [f64; 5],
    pub distribution: Distribution,
    /// Longest scan (YCSB's `maxscanlength`; scan lengths are uniform from 1).
    pub max_scan_length: u64,
}

/// The six core workloads.
pub const CORE: [Core; 6] = [
    Core {
        name: "a",
        proportions: [0.5, 0.5, 0.0, 0.0, 0.0],
        distribution: Distribution::Zipfian,
        max_scan_length: 1000,
    },
    Core {
        name: "b",
        proportions: [0.95, 0.05, 0.0, 0.0, 0.0],
        distribution: Distribution::Zipfian,
        max_scan_length: 1000,
    },
    Core {
        name: "c",
        proportions: [1.0, 0.0, 0.0, 0.0, 0.0],
        distribution: Distribution::Zipfian,
        max_scan_length: 1000,
    },
    Core {
        name: "d",
        proportions: [0.95, 0.0, 0.05, 0.0, 0.0],
        distribution: Distribution::Latest,
        max_scan_length: 1000,
    },
    Core {
        name: "e",
        proportions: [0.0, 0.0, 0.05, 0.95, 0.0],
        distribution: Distribution::Zipfian,
        max_scan_length: 100,
    },
    Core {
        name: "f",
        proportions: [0.5, 0.0, 0.0, 0.0, 0.5],
        distribution: Distribution::Zipfian,
        max_scan_length: 1000,
    },
];

/// The names, for the parameter's choices.
pub const NAMES: [&str; 6] = ["a", "b", "c", "d", "e", "f"];

/// The core workload named `name` (`a` to `f`).
pub fn core(name: &str) -> Option<&'static Core> {
    CORE.iter().find(|c| c.name == name)
}

impl Core {
    /// The share of inserts.
    pub fn insert_proportion(&self) -> f64 {
        self.proportions[Op::Insert.index()]
    }

    /// Draws the next operation.
    pub fn pick(&self, rng: &mut impl Rng) -> Op {
        let total: f64 = self.proportions.iter().sum();
        let mut u: f64 = rng.random::<f64>() * total;
        let mut last = Op::Read;
        for (op, &p) in Op::ALL.iter().zip(&self.proportions) {
            if p <= 0.0 {
                continue;
            }
            if u < p {
                return *op;
            }
            u -= p;
            last = *op;
        }
        // Rounding left u at or just above the last proportion.
        last
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn every_workload_draws_its_proportions() {
        assert_eq!(NAMES.to_vec(), CORE.iter().map(|c| c.name).collect::<Vec<_>>());
        for (i, c) in CORE.iter().enumerate() {
            assert!((c.proportions.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{}", c.name);
            let mut rng = ChaCha8Rng::seed_from_u64(100 + i as u64);
            let mut n = [0u64; 5];
            let draws = 10_000;
            for _ in 0..draws {
                n[c.pick(&mut rng).index()] += 1;
            }
            for op in Op::ALL {
                let p = c.proportions[op.index()];
                let got = n[op.index()] as f64 / draws as f64;
                if p == 0.0 {
                    assert_eq!(n[op.index()], 0, "workload {}: {} drawn", c.name, OPS[op.index()]);
                } else {
                    // Within 4 standard deviations of a binomial share (at most 0.02).
                    let tolerance = 4.0 * (p * (1.0 - p) / draws as f64).sqrt();
                    assert!(
                        (got - p).abs() <= tolerance,
                        "workload {}: {} {got} vs {p} (tolerance {tolerance})",
                        c.name,
                        OPS[op.index()]
                    );
                }
            }
        }
        assert_eq!(core("d").unwrap().distribution, Distribution::Latest);
        assert_eq!(core("e").unwrap().max_scan_length, 100);
        assert!(core("g").is_none());
    }
}
