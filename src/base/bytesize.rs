//! Sizes as users write them, in one place: every flag, knob and parameter that takes a size
//! reads units the same way, so `--param size=1MB`, `--knob cache_size=...`, `--fs-size 1G` and
//! DuckDB's own `953.6 MiB` never disagree about what a unit means.
//!
//! - no unit, `b`, `byte`, `bytes`: bytes;
//! - `kb`, `mb`, `gb`, `tb`: powers of 1000 (SI);
//! - `kib`, `mib`, `gib`, `tib`, and the bare letters `k`, `m`, `g`, `t`: powers of 1024 (the
//!   bare letters as truncate(1) and losetup read them).
//!
//! Units are case-insensitive, `_` may group digits, and a fraction is allowed in the number
//! (`1.5GB`); whether a fraction of a byte is acceptable is each caller's rule.

/// The number of bytes `s` names, before any caller's rounding or range; `None` when it is not
/// a number with one of the units above.
pub fn parse(s: &str) -> Option<f64> {
    let s = s.trim().replace('_', "").to_ascii_lowercase();
    let split = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
    let n: f64 = s[..split].trim().parse().ok()?;
    let mult = match s[split..].trim() {
        "" | "b" | "byte" | "bytes" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024f64.powi(2),
        "g" | "gib" => 1024f64.powi(3),
        "t" | "tib" => 1024f64.powi(4),
        _ => return None,
    };
    let bytes = n * mult;
    (bytes.is_finite() && bytes >= 0.0).then_some(bytes)
}

/// `s` as a whole number of bytes below 2^64 (`None` for a fraction of a byte).
pub fn whole(s: &str) -> Option<u64> {
    parse(s).filter(|b| *b < 1.8e19 && b.fract() == 0.0).map(|b| b as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_mean_one_thing_everywhere() {
        assert_eq!(whole("100000"), Some(100_000));
        assert_eq!(whole("100KB"), Some(100_000));
        assert_eq!(whole("10 MB"), Some(10_000_000));
        assert_eq!(whole("1.5GB"), Some(1_500_000_000));
        assert_eq!(whole("64KiB"), Some(65_536));
        assert_eq!(whole("1G"), Some(1 << 30));
        assert_eq!(whole("256m"), Some(256 << 20));
        assert_eq!(whole("1_000"), Some(1000));
        assert_eq!(parse("953.6 MiB"), Some(953.6 * 1048576.0));
        assert_eq!(parse("16 bytes"), Some(16.0));
    }

    #[test]
    fn nonsense_is_refused() {
        for bad in ["", "MB", "10XB", "-1", "nan", "inf", "1e400"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
        assert_eq!(whole("1.5B"), None, "a fraction of a byte");
    }
}
