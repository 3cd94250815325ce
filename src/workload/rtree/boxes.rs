//! The boxes: map tiles on a uniform grid, or the segments of GPS traces clustered along a few
//! random walks, on a square map of [`MAP`] units a side.
//!
//! Coordinates are whole numbers below 2^24, which SQLite's R*Tree stores exactly in its 32-bit
//! floats (it rounds any other value outward), so the R*Tree and the B-tree baseline compare the
//! same numbers and answer with the same ids.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The map's side.
pub const MAP: i64 = 1_000_000;

/// A box: `[minx, maxx, miny, maxy]`, inclusive.
pub type Bbox = [i64; 4];

/// Which layout the boxes have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Square tiles on a grid that covers the map, touching their neighbours.
    Grid,
    /// Small boxes along random walks, as the segments of GPS traces are.
    Traces,
}

impl Layout {
    pub const NAMES: [&'static str; 2] = ["grid", "traces"];

    pub fn parse(name: &str) -> Option<Layout> {
        match name {
            "grid" => Some(Layout::Grid),
            "traces" => Some(Layout::Traces),
            _ => None,
        }
    }
}

/// Segments per trace.
pub const TRACE_LENGTH: u64 = 200;

/// The `n` boxes of `layout`, box `i` being id `i + 1`, drawn from `seed`.
pub fn boxes(layout: Layout, n: u64, seed: u64) -> Vec<Bbox> {
    match layout {
        Layout::Grid => grid(n),
        Layout::Traces => traces(n, seed),
    }
}

fn grid(n: u64) -> Vec<Bbox> {
    let side = ((n as f64).sqrt().ceil() as i64).max(1);
    let tile = (MAP / side).max(1);
    (0..n as i64)
        .map(|i| {
            let (col, row) = (i % side, i / side);
            [col * tile, (col + 1) * tile, row * tile, (row + 1) * tile]
        })
        .collect()
}

fn traces(n: u64, seed: u64) -> Vec<Bbox> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n as usize);
    let (mut x, mut y, mut heading) = (0i64, 0i64, 0f64);
    for i in 0..n {
        if i % TRACE_LENGTH == 0 {
            x = rng.random_range(0..MAP);
            y = rng.random_range(0..MAP);
            heading = rng.random_range(0.0..std::f64::consts::TAU);
        }
        heading += rng.random_range(-0.5..0.5);
        let step = rng.random_range(200.0..2000.0);
        let nx = (x + (step * heading.cos()) as i64).clamp(0, MAP - 1);
        let ny = (y + (step * heading.sin()) as i64).clamp(0, MAP - 1);
        let pad = 5;
        out.push([
            (x.min(nx) - pad).max(0),
            (x.max(nx) + pad).min(MAP),
            (y.min(ny) - pad).max(0),
            (y.max(ny) + pad).min(MAP),
        ]);
        (x, y) = (nx, ny);
    }
    out
}

/// Whether two boxes meet (edges included), as both indexes' window queries decide.
pub fn meets(a: &Bbox, b: &Bbox) -> bool {
    a[1] >= b[0] && a[3] >= b[2] && a[0] <= b[1] && a[2] <= b[3]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_boxes_other_seed_other_boxes() {
        assert_eq!(boxes(Layout::Traces, 500, 3), boxes(Layout::Traces, 500, 3));
        assert_ne!(boxes(Layout::Traces, 500, 3), boxes(Layout::Traces, 500, 4));
        assert_eq!(
            boxes(Layout::Grid, 500, 3),
            boxes(Layout::Grid, 500, 4),
            "the grid is fixed"
        );
    }

    #[test]
    fn every_box_is_on_the_map_and_exact_in_a_float() {
        for layout in [Layout::Grid, Layout::Traces] {
            let b = boxes(layout, 1000, 9);
            assert_eq!(b.len(), 1000);
            for bb in &b {
                assert!(bb[0] <= bb[1] && bb[2] <= bb[3], "{layout:?} {bb:?}");
                assert!(bb.iter().all(|&c| (0..=MAP).contains(&c)), "{layout:?} {bb:?}");
                assert!(bb.iter().all(|&c| (c as f32) as i64 == c));
            }
        }
    }

    #[test]
    fn grid_tiles_cover_the_map_and_traces_cluster() {
        let g = boxes(Layout::Grid, 100, 0);
        assert_eq!(g[0], [0, 100_000, 0, 100_000]);
        assert_eq!(g[99], [900_000, 1_000_000, 900_000, 1_000_000]);
        // A trace's segments follow each other: each box meets the next one.
        let t = boxes(Layout::Traces, 400, 1);
        let touching = t.windows(2).filter(|w| meets(&w[0], &w[1])).count();
        assert!(touching >= 390, "{touching} of 399 consecutive segments meet");
    }
}
