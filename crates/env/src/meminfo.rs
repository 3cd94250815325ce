//! `/proc/meminfo` parsing. Total memory bounds the page cache, and whether a
//! database fits in it changes a benchmark from measuring the disk to
//! measuring memory.

/// `MemTotal` in bytes.
pub(crate) fn mem_total_bytes(text: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let rest = line.strip_prefix("MemTotal:")?;
        let mut parts = rest.split_whitespace();
        let n: u64 = parts.next()?.parse().ok()?;
        let scale = match parts.next() {
            Some("kB") => 1024,
            None => 1,
            Some(_) => return None,
        };
        n.checked_mul(scale)
    })
}

#[cfg(test)]
mod tests {
    use super::mem_total_bytes;

    #[test]
    fn parses_kib() {
        let text = "MemTotal:       24684084 kB\nMemFree:        24491656 kB\n";
        assert_eq!(mem_total_bytes(text), Some(24_684_084 * 1024));
    }

    #[test]
    fn missing_or_garbled_is_none() {
        assert_eq!(mem_total_bytes("MemFree: 1 kB\n"), None);
        assert_eq!(mem_total_bytes("MemTotal: lots kB\n"), None);
        assert_eq!(mem_total_bytes("MemTotal: 5 MB\n"), None);
        assert_eq!(mem_total_bytes(""), None);
    }
}
