//! One finding of `qualify`: yes, no (and why), or unknown (and why).
//!
//! Every probe ends in one of the three, never in an error that hides what the others found: a
//! directory where `fcntl` locks fail still has a sync latency worth knowing, and the verdict
//! reads the three apart ([`super::verdict`]).

use serde::Serialize;

/// What one probe found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "result", content = "detail", rename_all = "lowercase")]
pub enum Check {
    /// It holds here (the detail says what was seen).
    Yes(String),
    /// It does not hold here, and why.
    No(String),
    /// The probe could not tell (it failed, or a probe it needs could not run).
    Unknown(String),
}

impl Check {
    pub fn yes(detail: impl Into<String>) -> Check {
        Check::Yes(detail.into())
    }
    pub fn no(detail: impl Into<String>) -> Check {
        Check::No(detail.into())
    }
    pub fn unknown(detail: impl Into<String>) -> Check {
        Check::Unknown(detail.into())
    }
    /// The word a table shows: `yes`, `no`, `unknown`.
    pub fn word(&self) -> &'static str {
        match self {
            Check::Yes(_) => "yes",
            Check::No(_) => "no",
            Check::Unknown(_) => "unknown",
        }
    }
    pub fn detail(&self) -> &str {
        match self {
            Check::Yes(d) | Check::No(d) | Check::Unknown(d) => d,
        }
    }
    pub fn holds(&self) -> bool {
        matches!(self, Check::Yes(_))
    }
    pub fn fails(&self) -> bool {
        matches!(self, Check::No(_))
    }
}
