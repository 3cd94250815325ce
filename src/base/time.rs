//! Wall-clock time as the records write it: RFC 3339 in UTC, to the second
//! (`2026-11-24T20:40:00Z`), the form every stored run already carries. Formatting is jiff's,
//! a maintained date library, rather than calendar arithmetic of our own.

/// The current time as RFC 3339 UTC, truncated to the second.
pub fn now_rfc3339() -> String {
    rfc3339(jiff::Timestamp::now())
}

/// `t` as RFC 3339 UTC, truncated to the second.
pub fn rfc3339(t: jiff::Timestamp) -> String {
    // Whole seconds: jiff prints no fraction then, so the text is what older versions wrote.
    let whole = jiff::Timestamp::from_second(t.as_second()).unwrap_or(t);
    whole.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_as_stored_runs_have_them() {
        let t: jiff::Timestamp = "2026-02-28T23:59:59.999Z".parse().unwrap();
        assert_eq!(rfc3339(t), "2026-02-28T23:59:59Z", "truncated, never rounded up");
        let leap: jiff::Timestamp = "2024-02-29T00:00:00Z".parse().unwrap();
        assert_eq!(rfc3339(leap), "2024-02-29T00:00:00Z");
        let epoch = jiff::Timestamp::UNIX_EPOCH;
        assert_eq!(rfc3339(epoch), "1970-01-01T00:00:00Z");
        let now = now_rfc3339();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.ends_with('Z'), "{now}");
    }
}
