//! The vectors: seeded, clustered, each one a function of the seed and its id alone, so that
//! the population, every client's inserts and the exact answer agree without being passed
//! around; and the exact k nearest neighbours by brute force, computed outside any timed region.
//!
//! A vector is its cluster's centre (uniform in [-1, 1] per dimension) plus Gaussian noise of
//! standard deviation [`SPREAD`]: clustered as embeddings are, so an approximate index meets
//! the neighbourhoods it is built for. `int8` elements are the same values scaled by 100 and
//! rounded (clamped to [-127, 127]), exactly the integers every engine is given.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Standard deviation of a vector around its cluster's centre.
pub const SPREAD: f32 = 0.15;

/// The distance an index ranks by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    L2,
    Cosine,
}

impl Metric {
    pub fn parse(name: &str) -> Metric {
        if name == "cosine" {
            Metric::Cosine
        } else {
            Metric::L2
        }
    }

    /// The distance between `a` and `b`, ranked as the engines rank (L2's square root is left
    /// out: it orders the same).
    pub fn distance(self, a: &[f32], b: &[f32]) -> f32 {
        match self {
            Metric::L2 => a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum(),
            Metric::Cosine => {
                let (mut dot, mut na, mut nb) = (0f32, 0f32, 0f32);
                for (x, y) in a.iter().zip(b) {
                    dot += x * y;
                    na += x * x;
                    nb += y * y;
                }
                if na == 0.0 || nb == 0.0 {
                    1.0
                } else {
                    1.0 - dot / (na.sqrt() * nb.sqrt())
                }
            }
        }
    }
}

/// How a run's vectors are made.
#[derive(Debug, Clone, PartialEq)]
pub struct Space {
    pub dimension: usize,
    pub centres: Vec<Vec<f32>>,
    pub int8: bool,
    pub seed: u64,
}

/// A vector's cluster and noise come from its own generator: seed and id, mixed.
fn rng_of(seed: u64, id: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17))
}

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut ChaCha8Rng) -> f32 {
    let u1: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
    let u2: f64 = rng.random();
    ((-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()) as f32
}

impl Space {
    /// `clusters` centres drawn from `seed`.
    pub fn new(dimension: usize, clusters: usize, int8: bool, seed: u64) -> Space {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let centres = (0..clusters.max(1))
            .map(|_| (0..dimension).map(|_| rng.random_range(-1.0f32..1.0)).collect())
            .collect();
        Space {
            dimension,
            centres,
            int8,
            seed,
        }
    }

    /// Vector `id` (the population's ids are 1..=count; inserts' above).
    pub fn vector(&self, id: u64, out: &mut Vec<f32>) {
        self.draw(&mut rng_of(self.seed, id), out);
    }

    /// A query vector, drawn from `rng` as the population is.
    pub fn draw(&self, rng: &mut ChaCha8Rng, out: &mut Vec<f32>) {
        out.clear();
        let centre = &self.centres[rng.random_range(0..self.centres.len())];
        for c in centre {
            let v = c + SPREAD * normal(rng);
            out.push(if self.int8 {
                (v * 100.0).round().clamp(-127.0, 127.0)
            } else {
                v
            });
        }
    }

    /// The population's vectors, ids 1..=count, as one flat array.
    pub fn population(&self, count: u64) -> Vec<f32> {
        let mut all = Vec::with_capacity(count as usize * self.dimension);
        let mut v = Vec::with_capacity(self.dimension);
        for id in 1..=count {
            self.vector(id, &mut v);
            all.extend_from_slice(&v);
        }
        all
    }
}

/// A vector as JSON text (`[0.5,-1.25]`): what every engine parses the same way. Rust's
/// shortest round-trip spelling of each `f32`, so the engines see exactly these values.
pub fn json(v: &[f32], out: &mut String) {
    use std::fmt::Write;
    out.clear();
    out.push('[');
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{x}");
    }
    out.push(']');
}

/// A vector as little-endian `float32` bytes (sqlite-vec's and vectorlite's blob format).
pub fn f32_blob(v: &[f32], out: &mut Vec<u8>) {
    out.clear();
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

/// A vector of integral values as `int8` bytes (sqlite-vec's `vec_int8`).
pub fn i8_blob(v: &[f32], out: &mut Vec<u8>) {
    out.clear();
    out.extend(v.iter().map(|x| (*x as i8) as u8));
}

/// The exact answer to one query: the `k` nearest ids with their distances, nearest first
/// (ties by id).
#[derive(Debug, Clone, PartialEq)]
pub struct Exact {
    pub ids: Vec<u64>,
    /// The k-th distance: a returned vector no farther than this is as near as the exact answer's.
    pub radius: f32,
}

/// The `k` nearest of `base` (ids 1..) and `extra` (`(id, vector)`) to `q` by `metric`.
pub fn exact(metric: Metric, dimension: usize, base: &[f32], extra: &[(u64, Vec<f32>)], q: &[f32], k: usize) -> Exact {
    let mut best: Vec<(f32, u64)> = Vec::with_capacity(k + 1);
    let mut consider = |d: f32, id: u64| {
        if best.len() == k && (d, id) >= *best.last().expect("k > 0") {
            return;
        }
        let at = best.partition_point(|b| *b < (d, id));
        best.insert(at, (d, id));
        best.truncate(k);
    };
    for (i, v) in base.chunks_exact(dimension).enumerate() {
        consider(metric.distance(v, q), i as u64 + 1);
    }
    for (id, v) in extra {
        consider(metric.distance(v, q), *id);
    }
    Exact {
        radius: best.last().map_or(f32::INFINITY, |b| b.0),
        ids: best.into_iter().map(|b| b.1).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vector_depends_on_the_seed_and_its_id_only() {
        let s = Space::new(8, 4, false, 7);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        s.vector(3, &mut a);
        s.vector(3, &mut b);
        assert_eq!(a, b);
        s.vector(4, &mut b);
        assert_ne!(a, b);
        let i = Space::new(8, 4, true, 7);
        i.vector(3, &mut b);
        assert!(
            b.iter().all(|x| x.fract() == 0.0 && (-127.0..=127.0).contains(x)),
            "{b:?}"
        );
    }

    #[test]
    fn brute_force_finds_the_nearest_in_order_and_counts_extra_vectors() {
        let base = [0.0, 0.0, 1.0, 0.0, 5.0, 5.0, 0.9, 0.1];
        let e = exact(Metric::L2, 2, &base, &[], &[1.0, 0.0], 2);
        assert_eq!(e.ids, vec![2, 4]);
        assert!((e.radius - 0.02).abs() < 1e-6);
        let extra = vec![(9, vec![1.0, 0.01])];
        assert_eq!(exact(Metric::L2, 2, &base, &extra, &[1.0, 0.0], 2).ids, vec![2, 9]);
        // Cosine ranks by angle: (5, 5) is as far from (1, 0) as (1, 1) would be.
        let c = exact(Metric::Cosine, 2, &base, &[], &[1.0, 0.0], 3);
        assert_eq!(c.ids, vec![2, 4, 3]);
    }

    #[test]
    fn json_and_blobs_carry_the_exact_values() {
        let mut s = String::new();
        json(&[0.1, -2.0, 3.25], &mut s);
        assert_eq!(s, "[0.1,-2,3.25]");
        let mut b = Vec::new();
        f32_blob(&[1.0], &mut b);
        assert_eq!(b, 1.0f32.to_le_bytes());
        i8_blob(&[-3.0, 127.0], &mut b);
        assert_eq!(b, vec![253, 127]);
    }
}
