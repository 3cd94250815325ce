//! A latency tally in the HDR histogram's own buckets, counted inline and moved into the
//! histogram before anything reads it.
//!
//! Why: recording into `hdrhistogram::Histogram` is a call of about seventy instructions per
//! transaction (the bucket arithmetic behind an `Option`, a range check, the minimum and the
//! maximum kept exact, the total), the largest part of the load driver's cost per transaction
//! over a bare loop on the C API (`benches/overhead-instructions.sh`). A tally computes the
//! same bucket index as the histograms of [`new_histogram`] (1 ns to an hour, 3 significant
//! digits) in a few instructions and adds one to that bucket's counter; [`Tally::drain_into`]
//! adds the counts to the histogram. Everything read from a histogram (its count, mean,
//! minimum, maximum, percentiles, equality, the encoded counts) is a function of its bucket
//! counts alone (the minimum and maximum are read as their buckets' edges), so a histogram
//! filled through a tally equals one filled value by value: the tests below hold the two
//! side by side, at every bucket's edges.
//!
//! The tally covers latencies below about 2.1 seconds (the first [`BUCKETS`] of the
//! histogram's power-of-two buckets); a longer one goes to the histogram directly, on a path
//! out of line. Its counters are 32 bits (a third of the memory of the histogram's, 88 KiB):
//! it is drained before any could overflow. They are allocated with the histogram, before any
//! trial is timed.
//!
//! [`new_histogram`]: crate::model::op::new_histogram

use hdrhistogram::Histogram;

/// log2 of half the histogram's sub-buckets per bucket: 3 significant digits need 2,000
/// values at unit resolution, so 2,048 sub-buckets, half of them in each bucket past the first.
const HALF_MAGNITUDE: u32 = 10;
/// Values below this land in bucket 0, at unit resolution.
const SUB_BUCKET_MASK: u64 = (1 << (HALF_MAGNITUDE + 1)) - 1;
/// 64 less the bits of bucket 0's values: a value's bucket is this less its leading zeros
/// (with the mask setting bucket 0's bits).
const LEADING_ZERO_BASE: u32 = 64 - HALF_MAGNITUDE - 1;
/// Buckets the tally covers: values below 2,048 << 20 ns (about 2.1 s).
const BUCKETS: usize = 21;
/// Counters: bucket `b` holds sub-buckets 1,024 to 2,047 at indexes `b * 1024 + sub` (bucket
/// 0 all 2,048 from index 0), as the histogram's counts array has them.
const LEN: usize = (BUCKETS + 1) << HALF_MAGNITUDE;

/// One operation type's latencies since the last drain, by the histogram's bucket.
pub struct Tally {
    counts: Vec<u32>,
    /// Latencies counted since the last drain: none of `counts` can pass this.
    n: u32,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            counts: vec![0; LEN],
            n: 0,
        }
    }
}

impl Tally {
    /// Counts a latency of `ns` nanoseconds (at most the histogram's highest value), or records
    /// it in `hist` itself when the tally does not cover it.
    #[inline(always)]
    pub fn record(&mut self, ns: u64, hist: &mut Histogram<u64>) {
        let bucket = LEADING_ZERO_BASE - (ns | SUB_BUCKET_MASK).leading_zeros();
        let index = ((bucket as usize) << HALF_MAGNITUDE) + (ns >> bucket) as usize;
        match self.counts.get_mut(index) {
            Some(c) if self.n < u32::MAX => {
                *c += 1;
                self.n += 1;
            }
            _ => self.record_out_of_line(ns, hist),
        }
    }

    /// [`Tally::record`]'s rare cases: a latency past the tally's buckets, or a tally full
    /// enough to drain first.
    #[cold]
    #[inline(never)]
    fn record_out_of_line(&mut self, ns: u64, hist: &mut Histogram<u64>) {
        if ns > max_covered() {
            hist.saturating_record(ns);
            return;
        }
        self.drain_into(hist);
        self.record(ns, hist);
    }

    /// Adds the counts to `hist` and empties the tally. Latencies cluster in a few buckets:
    /// the counters are read 16 at a time, and only a group with a count is looked into.
    pub fn drain_into(&mut self, hist: &mut Histogram<u64>) {
        if self.n == 0 {
            return;
        }
        for (group, chunk) in self.counts.chunks_exact_mut(GROUP).enumerate() {
            if chunk.iter().fold(0, |any, &c| any | c) == 0 {
                continue;
            }
            for (i, c) in chunk.iter_mut().enumerate() {
                if *c != 0 {
                    hist.saturating_record_n(value_at(group * GROUP + i), u64::from(*c));
                    *c = 0;
                }
            }
        }
        self.n = 0;
    }
}

/// Counters read at once by [`Tally::drain_into`] (a divisor of [`LEN`]).
const GROUP: usize = 16;
const _: () = assert!(LEN.is_multiple_of(GROUP));

/// The highest value the tally's buckets hold.
const fn max_covered() -> u64 {
    ((SUB_BUCKET_MASK + 1) << (BUCKETS - 1)) - 1
}

/// The lowest value of the bucket at `index` in the counts: a value the histogram counts
/// there too.
fn value_at(index: usize) -> u64 {
    let half = 1usize << HALF_MAGNITUDE;
    if index < 2 * half {
        index as u64
    } else {
        let bucket = (index >> HALF_MAGNITUDE) - 1;
        let sub = index - (bucket << HALF_MAGNITUDE);
        (sub as u64) << bucket
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::op::{encode, new_histogram, Latency, MAX_NS};

    /// Values at and beside every edge of the histogram's buckets, up to its highest value.
    fn edges() -> Vec<u64> {
        let mut v = vec![0, 1, 2, 999, 1000, 1023, 1024, 1025, 2047, 2048, 2049];
        for shift in 0..42 {
            for sub in [1024u64, 1025, 1536, 2046, 2047] {
                let x = sub << shift;
                v.extend([x.saturating_sub(1), x, x + 1, x + (1 << shift) - 1]);
            }
        }
        v.extend([max_covered() - 1, max_covered(), max_covered() + 1, MAX_NS - 1, MAX_NS]);
        v.retain(|&x| x <= MAX_NS);
        v
    }

    fn through_tally(values: &[u64]) -> Histogram<u64> {
        let mut hist = new_histogram();
        let mut tally = Tally::default();
        for &v in values {
            tally.record(v, &mut hist);
        }
        tally.drain_into(&mut hist);
        hist
    }

    fn direct(values: &[u64]) -> Histogram<u64> {
        let mut hist = new_histogram();
        for &v in values {
            hist.saturating_record(v);
        }
        hist
    }

    #[test]
    fn every_bucket_edge_lands_where_the_histogram_puts_it() {
        for v in edges() {
            let (a, b) = (through_tally(&[v]), direct(&[v]));
            assert!(a == b, "value {v}: tally's histogram differs");
            assert_eq!(encode(&a), encode(&b), "value {v}");
        }
    }

    #[test]
    fn a_tallied_histogram_reads_as_one_filled_value_by_value() {
        // A spread of latencies from a nanosecond to the histogram's hour, drawn repeatably.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let values: Vec<u64> = (0..200_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> (x % 40 + 20)).min(MAX_NS)
            })
            .chain(edges())
            .collect();
        let (a, b) = (through_tally(&values), direct(&values));
        assert!(a == b);
        assert_eq!(a.len(), values.len() as u64);
        assert_eq!(Latency::of(&a), Latency::of(&b));
        assert_eq!(encode(&a), encode(&b));
    }

    #[test]
    fn draining_twice_adds_only_what_came_between() {
        let mut hist = new_histogram();
        let mut tally = Tally::default();
        tally.record(5_000, &mut hist);
        tally.drain_into(&mut hist);
        tally.drain_into(&mut hist);
        assert_eq!(hist.len(), 1);
        tally.record(7_000, &mut hist);
        tally.record(max_covered() + 1, &mut hist);
        assert_eq!(hist.len(), 2, "past the tally's buckets a value goes to the histogram");
        tally.drain_into(&mut hist);
        assert!(hist == direct(&[5_000, 7_000, max_covered() + 1]));
    }

    #[test]
    fn a_full_tally_drains_before_a_counter_could_overflow() {
        let mut hist = new_histogram();
        let mut tally = Tally::default();
        tally.record(3, &mut hist);
        tally.n = u32::MAX;
        tally.counts[3] = u32::MAX - 1;
        tally.record(3, &mut hist);
        assert_eq!(hist.count_at(3), u64::from(u32::MAX) - 1);
        tally.drain_into(&mut hist);
        assert_eq!(hist.count_at(3), u64::from(u32::MAX));
    }
}
