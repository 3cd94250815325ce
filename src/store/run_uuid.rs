//! Globally unique run ids, so stores written on different machines can be merged.
//!
//! The integer `id` people type stays, as an alias valid within one store; `uuid` identifies a
//! run everywhere. A new run gets a UUIDv7 (RFC 9562: 48 bits of Unix milliseconds, then random
//! bits), so ids sort by start time across machines. A run stored before uuids existed gets a
//! UUIDv8 derived from what identifies it (start time, pid, host, manifest): the same run read
//! from an old store, or from that store after its upgrade, has the same uuid, which is what
//! makes `litebench merge` idempotent for old stores too.

use rand::RngCore;
use sha2::{Digest, Sha256};

fn format(b: [u8; 16]) -> String {
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// Whether `s` has a uuid's form (hex digits in 8-4-4-4-12 groups), so it can be quoted in
/// SQL as it is.
pub fn is_valid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
        && groups.iter().all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A UUIDv7 for a run starting now.
pub fn new_v7() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let mut b = [0u8; 16];
    rand::rng().fill_bytes(&mut b[6..]);
    b[..6].copy_from_slice(&ms.to_be_bytes()[2..]);
    b[6] = 0x70 | (b[6] & 0x0f);
    b[8] = 0x80 | (b[8] & 0x3f);
    format(b)
}

/// The uuid of a run stored without one: a UUIDv8 from a SHA-256 of what identifies it.
pub fn legacy(started_at: &str, pid: &str, host: Option<&str>, manifest: &str) -> String {
    let mut h = Sha256::new();
    for part in ["litebench run", started_at, pid, host.unwrap_or(""), manifest] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    let d = h.finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&d[..16]);
    b[6] = 0x80 | (b[6] & 0x0f);
    b[8] = 0x80 | (b[8] & 0x3f);
    format(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v7_ids_carry_version_variant_and_time_and_differ() {
        let a = new_v7();
        let b = new_v7();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "7");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"), "{a}");
        // The first 48 bits are milliseconds since the epoch: within a minute of now.
        let ms = u64::from_str_radix(&a[..8], 16).unwrap() << 16 | u64::from_str_radix(&a[9..13], 16).unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        assert!(now.abs_diff(ms) < 60_000);
    }

    #[test]
    fn legacy_ids_are_stable_and_tell_runs_apart() {
        let a = legacy("2026-01-01T00:00:00Z", "7", Some("h"), "{}");
        assert_eq!(a, legacy("2026-01-01T00:00:00Z", "7", Some("h"), "{}"));
        assert_ne!(a, legacy("2026-01-01T00:00:00Z", "8", Some("h"), "{}"));
        assert_eq!(&a[14..15], "8");
    }
}
