//! Record keys and field values, as YCSB's `CoreWorkload` builds them, and which keys a client
//! may choose.
//!
//! **Key names** (`insertorder=hashed`, YCSB's default): record number `n` is stored under
//! `"user"` followed by the decimal FNV-64 hash of `n` (YCSB's `Utils.fnvhash64`: FNV-1a over
//! the number's eight bytes, low byte first, then `Math.abs` of the signed result), so records
//! inserted in sequence land all over the key order. Record 0 is `user6284781860667377211`.
//!
//! **Whose keys** ([`KeySpace`]). YCSB's threads share one insert counter and read only keys
//! whose insert was acknowledged. litebench's clients share nothing, so that a client's
//! operations are a function of its seed alone: client `c` of `C` inserts record numbers
//! `records + c`, `records + c + C`, `records + c + 2C`, ... (its own residue class past the
//! populated records: no two clients ever insert the same key, and together they fill the
//! numbers past `records` without gaps while they keep pace). A client chooses the keys of
//! its reads, updates and scans among the populated records and its own inserts: a *local*
//! index `0..records` is a populated record, `records + k` its own `k`-th insert.
//!
//! **Values**: every field is [`FIELD_LENGTH`] random printable ASCII characters (YCSB's
//! `RandomByteIterator` with `fieldlength=100`, `fieldlengthdistribution=constant`).

use rand::Rng;
use std::fmt::Write;

/// YCSB's `fieldcount`.
pub const FIELDS: usize = 10;

/// YCSB's `fieldlength`: bytes of every field.
pub const FIELD_LENGTH: usize = 100;

/// FNV-1a, 64 bits, over `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET_BASIS: u64 = 0xCBF2_9CE4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01B3;
    bytes
        .iter()
        .fold(OFFSET_BASIS, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME))
}

/// YCSB's `Utils.fnvhash64(n)`: FNV-1a over the eight bytes of `n`, low byte first, as a signed
/// number made non-negative with `Math.abs` (which leaves `i64::MIN` as it is).
pub fn fnv_hash64(n: i64) -> i64 {
    (fnv1a64(&n.to_le_bytes()) as i64).wrapping_abs()
}

/// Writes the key of record number `n` into `out` (cleared first): `user` and the decimal
/// hash.
pub fn key_name(n: u64, out: &mut String) {
    out.clear();
    // Writing to a String cannot fail.
    let _ = write!(out, "user{}", fnv_hash64(n as i64));
}

/// The key of record number `n`, allocated (population, tests).
pub fn key(n: u64) -> String {
    let mut s = String::with_capacity(24);
    key_name(n, &mut s);
    s
}

/// Fills `out` (cleared first) with `len` random printable ASCII characters.
pub fn fill_value(rng: &mut impl Rng, len: usize, out: &mut String) {
    out.clear();
    let mut bytes = [0u8; 64];
    let mut left = len;
    while left > 0 {
        let n = left.min(bytes.len());
        rng.fill_bytes(&mut bytes[..n]);
        out.extend(bytes[..n].iter().map(|&b| char::from(b' ' + (b & 63))));
        left -= n;
    }
}

/// The keys one client knows to exist: the populated records and its own inserts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySpace {
    records: u64,
    client: u64,
    clients: u64,
    /// Inserts this client has drawn.
    inserted: u64,
}

impl KeySpace {
    /// Client `client` of `clients` on a table populated with records `0..records`.
    pub fn new(records: u64, client: u32, clients: u32) -> KeySpace {
        KeySpace {
            records,
            client: u64::from(client),
            clients: u64::from(clients.max(1)),
            inserted: 0,
        }
    }

    /// Keys this client may choose: local indexes `0..known()`.
    pub fn known(&self) -> u64 {
        self.records + self.inserted
    }

    /// Inserts drawn so far.
    pub fn inserted(&self) -> u64 {
        self.inserted
    }

    /// The record number of local index `i` (below [`KeySpace::known`]).
    pub fn record(&self, i: u64) -> u64 {
        if i < self.records {
            i
        } else {
            self.records + self.client + (i - self.records) * self.clients
        }
    }

    /// The record number of this client's next insert; it is known from now on.
    pub fn next_insert(&mut self) -> u64 {
        let n = self.record(self.records + self.inserted);
        self.inserted += 1;
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use std::collections::HashSet;

    #[test]
    fn fnv_matches_its_published_vectors_and_ycsbs_keys() {
        // FNV-1a 64 test vectors (Fowler/Noll/Vo).
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        // YCSB's first loaded key, as every YCSB load log shows it.
        assert_eq!(key(0), "user6284781860667377211");
        assert_eq!(fnv_hash64(1), 8_517_097_267_634_966_620);
        assert_eq!(fnv_hash64(2), 1_820_151_046_732_198_393);
        // Deterministic, non-negative, and distinct over a range.
        let mut s = String::new();
        key_name(12345, &mut s);
        assert_eq!(s, key(12345));
        let keys: HashSet<String> = (0..100_000).map(key).collect();
        assert_eq!(keys.len(), 100_000);
        assert!(keys.iter().all(|k| k.starts_with("user") && !k.contains('-')));
    }

    #[test]
    fn clients_insert_disjoint_keys_past_the_records() {
        let mut seen = HashSet::new();
        let mut spaces: Vec<KeySpace> = (0..3).map(|c| KeySpace::new(100, c, 3)).collect();
        for _ in 0..50 {
            for s in spaces.iter_mut() {
                let n = s.next_insert();
                assert!(n >= 100);
                assert!(seen.insert(n), "record {n} inserted twice");
            }
        }
        // Together they fill 100..250 without gaps.
        assert_eq!(seen, (100..250).collect::<HashSet<u64>>());
        let s = spaces[1];
        assert_eq!(s.known(), 150);
        assert_eq!((s.record(99), s.record(100), s.record(101)), (99, 101, 104));
    }

    #[test]
    fn values_are_printable_and_seeded() {
        let (mut a, mut b) = (String::new(), String::new());
        fill_value(&mut ChaCha8Rng::seed_from_u64(1), FIELD_LENGTH, &mut a);
        fill_value(&mut ChaCha8Rng::seed_from_u64(1), FIELD_LENGTH, &mut b);
        assert_eq!(a, b);
        assert_eq!(a.len(), FIELD_LENGTH);
        assert!(a.bytes().all(|c| (b' '..=b'_').contains(&c)), "{a}");
        fill_value(&mut ChaCha8Rng::seed_from_u64(2), 150, &mut b);
        assert_ne!(a, b[..100]);
        assert_eq!(b.len(), 150);
    }
}
