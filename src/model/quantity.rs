//! A rate and a duration in the words a user writes them (`2000`, `5 ms`): how the load's
//! line, a cast's roles and a retry's backoff all say them, kept at the bottom of the model so
//! that each of those imports it and none imports another for it.

/// A rate as the user would write it (`2000`, `0.5`).
pub fn rate_text(r: f64) -> String {
    if r.fract() == 0.0 && r < 1e15 {
        format!("{}", r as u64)
    } else {
        format!("{r}")
    }
}

/// Nanoseconds as the shortest exact unit (`5 ms`, `250 us`, `1 s`).
pub fn duration_text(ns: u64) -> String {
    for (unit, per) in [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)] {
        if ns >= per && ns.is_multiple_of(per) {
            return format!("{} {unit}", ns / per);
        }
    }
    format!("{ns} ns")
}
