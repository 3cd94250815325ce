//! Which date table to write: the specification's seven years, or dbgen's scaled-down one.
//!
//! The SSB specification's date dimension is every day of 1992 to 1998 whatever the scale
//! factor, and every query of flights 1 to 4 filters on those years. dbgen shrinks it with the
//! other tables below scale 1 (25 days of January 1992 at 0.01) while lineorder's dates still
//! span all seven years, so most queries then join with nothing: flight 1 sums to NULL and
//! Q2.2, Q2.3, Q3.2 to Q3.4, Q4.2 and Q4.3 return no rows. [`Dates::Whole`] (the default)
//! writes the seven years at every scale; [`Dates::Dbgen`] writes dbgen's bytes.
//!
//! The choice changes the date table only. From scale 1 up the two are the same table; lineorder
//! and the other tables are dbgen's bytes either way (dbgen's date rows still advance the order
//! streams as in dbgen's run, see `crate::rows`).

use std::fmt;
use std::str::FromStr;

/// The date table's extent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Dates {
    /// Every day of 1992 to 1998 (2,557 rows), as the specification has it, at any scale.
    #[default]
    Whole,
    /// dbgen's table: scaled with the factor below 1 (`2557 x SF` rows from 1992-01-01).
    Dbgen,
}

/// The date table's rows at every scale from 1 up, and always with [`Dates::Whole`].
pub const WHOLE_DATE_ROWS: u64 = 2_557;

impl Dates {
    /// The words accepted (`--param dates=`, `--dates`).
    pub const WORDS: [&'static str; 2] = ["whole", "dbgen"];

    /// The word for this choice.
    pub fn word(self) -> &'static str {
        match self {
            Dates::Whole => "whole",
            Dates::Dbgen => "dbgen",
        }
    }
}

/// A word that is neither `whole` nor `dbgen`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("dates `{0}` is not known; give whole (1992 to 1998 at every scale, the default) or dbgen (dbgen's bytes: scaled down below scale 1)")]
pub struct DatesError(pub String);

impl FromStr for Dates {
    type Err = DatesError;
    fn from_str(s: &str) -> Result<Dates, DatesError> {
        match s.trim() {
            "whole" => Ok(Dates::Whole),
            "dbgen" => Ok(Dates::Dbgen),
            other => Err(DatesError(other.to_string())),
        }
    }
}

impl fmt::Display for Dates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_others_are_refused() {
        for w in Dates::WORDS {
            assert_eq!(w.parse::<Dates>().unwrap().word(), w);
        }
        assert_eq!(Dates::default(), Dates::Whole);
        assert!("all"
            .parse::<Dates>()
            .unwrap_err()
            .to_string()
            .starts_with("dates `all` is not known"));
    }
}
