//! What the `blob` workload writes and how it checks what it reads: every blob's length, the
//! bytes of each version of it, and a checksum.
//!
//! An `UPDATE` that stores the bytes already there costs SQLite almost no I/O (it compares
//! overflow content before writing it), so every write carries new bytes: version `v` of blob
//! `k` is a pseudo-random stream seeded by (trial seed, `k`, `v`). The loaded version (0) is
//! seeded by `k` alone, so a trial can check a blob it has not written yet without reading the
//! database first. Filling and checksumming run at several GB/s, outside the timed region.

/// Seed of the loaded content (any constant: it only has to be the same for every run).
const LOADED: u64 = 0x6c69_7465_626c_6f62;

/// One step of SplitMix64: a fast, well-mixed stream of 64-bit words.
#[inline]
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Mixes several words into one seed.
pub fn mix(words: &[u64]) -> u64 {
    let mut s = 0u64;
    for w in words {
        s ^= *w;
        s = splitmix(&mut s);
    }
    s
}

/// Length of blob `key`: `size`, or with `variance` > 0 a length drawn uniformly from
/// `size - variance ..= size + variance` by the key (so it never changes).
pub fn blob_len(key: u64, size: u64, variance: u64) -> usize {
    if variance == 0 {
        return size as usize;
    }
    let span = 2 * variance + 1;
    (size - variance + mix(&[LOADED, key]) % span) as usize
}

/// The seed of version `version` of blob `key` in a trial seeded `trial_seed` (version 0: the
/// loaded content, the same in every trial).
pub fn version_seed(trial_seed: u64, key: u64, version: u64) -> u64 {
    if version == 0 {
        mix(&[LOADED, key, 0])
    } else {
        mix(&[trial_seed, key, version])
    }
}

/// One step of wyrand: one 64x64->128-bit multiply per word. Its 128-bit product keeps the loop
/// scalar on every compiler (SSE2 has no 64-bit vector multiply, and a vectorised SplitMix64 fill
/// ran 25% slower than the same loop in C), so litebench and the bare C loop it is measured
/// against (benches/blob_baseline.c) do the same work at the same speed.
#[inline]
fn wyrand(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0xa076_1d64_78bd_642f);
    let t = u128::from(*state) * u128::from(*state ^ 0xe703_7ed1_a0b4_28db);
    ((t >> 64) as u64) ^ (t as u64)
}

/// Fills `buf` with the stream of `seed`.
pub fn fill(buf: &mut [u8], seed: u64) {
    let mut s = seed;
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&wyrand(&mut s).to_le_bytes());
    }
    let rest = chunks.into_remainder();
    let last = wyrand(&mut s).to_le_bytes();
    let n = rest.len();
    rest.copy_from_slice(&last[..n]);
}

/// A 64-bit checksum of `data` and its length; never 0 (0 marks "not known yet").
pub fn checksum(data: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ data.len() as u64;
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h.rotate_left(23) ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    for b in chunks.remainder() {
        h = (h.rotate_left(23) ^ u64::from(*b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    let mut s = h;
    splitmix(&mut s) | 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_stay_in_range_and_spread() {
        let lens: Vec<usize> = (0..10_000).map(|k| blob_len(k, 10_000, 2_000)).collect();
        assert!(lens.iter().all(|l| (8_000..=12_000).contains(l)));
        assert!(lens.iter().any(|l| *l < 8_200) && lens.iter().any(|l| *l > 11_800));
        assert_eq!(blob_len(5, 100, 0), 100);
        assert_eq!(blob_len(5, 10_000, 2_000), blob_len(5, 10_000, 2_000));
    }

    #[test]
    fn versions_differ_and_checksums_see_every_byte() {
        let mut a = vec![0u8; 1003];
        let mut b = vec![0u8; 1003];
        fill(&mut a, version_seed(1, 7, 0));
        fill(&mut b, version_seed(2, 7, 0));
        assert_eq!(a, b, "the loaded version does not depend on the trial");
        fill(&mut b, version_seed(1, 7, 1));
        let same = a.iter().zip(&b).filter(|(x, y)| x == y).count();
        assert!(same < 20, "a new version changes (nearly) every byte: {same} equal");
        let c = checksum(&a);
        for i in [0, 500, 1002] {
            let mut x = a.clone();
            x[i] ^= 1;
            assert_ne!(checksum(&x), c, "byte {i}");
        }
        assert_ne!(checksum(&a[..1002]), c);
        assert_ne!(checksum(&[]), 0);
    }
}
