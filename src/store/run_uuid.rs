//! Globally unique run ids, so stores written on different machines can be merged.
//!
//! The integer `id` people type stays, as an alias valid within one store; `uuid` identifies a
//! run everywhere. A new run gets a UUIDv7 (RFC 9562: 48 bits of Unix milliseconds, then random
//! bits), so ids sort by start time across machines. A run stored before uuids existed gets a
//! UUIDv8 derived from what identifies it (start time, pid, host, manifest): the same run read
//! from an old store, or from that store after its upgrade, has the same uuid, which is what
//! makes `litebench merge` idempotent for old stores too.

use sha2::{Digest, Sha256};
use uuid::Uuid;

/// Whether `s` has a uuid's form (hex digits in 8-4-4-4-12 groups), so it can be quoted in
/// SQL as it is.
pub fn is_valid(s: &str) -> bool {
    s.len() == 36 && Uuid::try_parse(s).is_ok()
}

/// A UUIDv7 for a run starting now.
pub fn new_v7() -> String {
    Uuid::now_v7().hyphenated().to_string()
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
    // `new_v8` sets the version (8) and variant (RFC 9562) bits, as this function always did.
    Uuid::new_v8(b).hyphenated().to_string()
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
        // The value the hand-written formatting of earlier versions gave for these inputs: a
        // run of an old store keeps its uuid, so merges stay idempotent across versions.
        assert_eq!(a, "d4b7e691-9d4a-825f-82e7-f1a61795b36a");
    }

    #[test]
    fn only_hyphenated_uuids_are_valid() {
        assert!(is_valid("d4b7e691-9d4a-825f-82e7-f1a61795b36a"));
        assert!(
            !is_valid("d4b7e6919d4a825f82e7f1a61795b36a"),
            "the simple form is not what the store keeps"
        );
        assert!(!is_valid("{d4b7e691-9d4a-825f-82e7-f1a61795b36a}"));
        assert!(!is_valid("d4b7e691-9d4a-825f-82e7-f1a61795b36'"));
    }
}
