//! `--retry-backoff`: how long a client waits before it tries again a transaction that met a
//! lock. Without a wait a retry meets the same lock at once, and writers that all retry at the
//! same moment meet each other again; whether waiting helps, and how long, is a question users
//! answer by guessing (issue 35). The wait is recorded in the load shape, so a run's retries and
//! failures are never read apart from the waits that shaped them.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The wait before each retry of a transaction that met a lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Backoff {
    /// No wait: the retry runs at once (every run before `--retry-backoff`).
    #[default]
    None,
    /// The same wait before every retry.
    Fixed { wait_ns: u64 },
    /// `min` before the first retry, doubling before each next one, never above `max`; with
    /// `jitter` each wait is drawn uniformly between zero and that step ("full jitter"), from
    /// the client's seed, so that writers that met the same lock do not retry together.
    Exponential { min_ns: u64, max_ns: u64, jitter: bool },
}

/// Why a `--retry-backoff` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BackoffError {
    #[error("give none, fixed:DURATION or exp:MIN..MAX[,jitter], e.g. fixed:5ms or exp:1ms..100ms,jitter")]
    Malformed,
    #[error("{0}: give a duration above zero, e.g. 5ms or 1s")]
    Duration(String),
    #[error("the minimum {min} is above the maximum {max}; give MIN no larger than MAX, e.g. exp:1ms..100ms")]
    MinAboveMax { min: String, max: String },
}

impl Backoff {
    pub fn is_none(&self) -> bool {
        *self == Backoff::None
    }

    /// Parses `none`, `fixed:DUR` or `exp:MIN..MAX[,jitter]` (durations as `--param`s take them:
    /// `500us` is not one, `0.5ms` is).
    pub fn parse(s: &str) -> Result<Backoff, BackoffError> {
        let duration = |d: &str| -> Result<u64, BackoffError> {
            match super::params::parse_duration(d) {
                Some(t) if !t.is_zero() => Ok(t.as_nanos().min(u128::from(u64::MAX)) as u64),
                _ => Err(BackoffError::Duration(d.trim().to_string())),
            }
        };
        let s = s.trim();
        if s == "none" {
            return Ok(Backoff::None);
        }
        if let Some(wait) = s.strip_prefix("fixed:") {
            return Ok(Backoff::Fixed {
                wait_ns: duration(wait)?,
            });
        }
        let Some(range) = s.strip_prefix("exp:") else {
            return Err(BackoffError::Malformed);
        };
        let (range, jitter) = match range.split_once(',') {
            None => (range, false),
            Some((r, "jitter")) => (r, true),
            Some(_) => return Err(BackoffError::Malformed),
        };
        let Some((min, max)) = range.split_once("..") else {
            return Err(BackoffError::Malformed);
        };
        let (min_ns, max_ns) = (duration(min)?, duration(max)?);
        if min_ns > max_ns {
            return Err(BackoffError::MinAboveMax {
                min: min.trim().to_string(),
                max: max.trim().to_string(),
            });
        }
        Ok(Backoff::Exponential { min_ns, max_ns, jitter })
    }

    /// The longest wait before retry `retry` (1: the first retry): the wait itself without
    /// jitter, the bound of the draw with it.
    pub fn step(&self, retry: u32) -> Duration {
        match *self {
            Backoff::None => Duration::ZERO,
            Backoff::Fixed { wait_ns } => Duration::from_nanos(wait_ns),
            Backoff::Exponential { min_ns, max_ns, .. } => {
                let doublings = retry.saturating_sub(1).min(63);
                Duration::from_nanos(min_ns.saturating_mul(1u64 << doublings).min(max_ns))
            }
        }
    }

    /// Whether each wait is drawn below its step.
    pub fn jitter(&self) -> bool {
        matches!(self, Backoff::Exponential { jitter: true, .. })
    }

    /// In words, for the load's line: `fixed 5 ms`, `exponential 1 ms..100 ms with jitter`.
    pub fn describe(&self) -> String {
        use super::quantity::duration_text;
        match *self {
            Backoff::None => "none".into(),
            Backoff::Fixed { wait_ns } => format!("fixed {}", duration_text(wait_ns)),
            Backoff::Exponential { min_ns, max_ns, jitter } => format!(
                "exponential {}..{}{}",
                duration_text(min_ns),
                duration_text(max_ns),
                if jitter { " with jitter" } else { "" }
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoffs_parse_and_say_what_they_are() {
        assert_eq!(Backoff::parse("none"), Ok(Backoff::None));
        assert_eq!(Backoff::parse("fixed:5ms"), Ok(Backoff::Fixed { wait_ns: 5_000_000 }));
        let exp = Backoff::parse("exp:1ms..100ms,jitter").unwrap();
        assert_eq!(
            exp,
            Backoff::Exponential {
                min_ns: 1_000_000,
                max_ns: 100_000_000,
                jitter: true
            }
        );
        assert_eq!(exp.describe(), "exponential 1 ms..100 ms with jitter");
        assert_eq!(Backoff::parse("fixed:0.5s").unwrap().describe(), "fixed 500 ms");
        assert_eq!(
            Backoff::parse("exp:2ms..2ms"),
            Ok(Backoff::Exponential {
                min_ns: 2_000_000,
                max_ns: 2_000_000,
                jitter: false
            })
        );
    }

    #[test]
    fn bad_backoffs_are_refused_with_what_to_give() {
        assert_eq!(
            Backoff::parse("exp:100ms..10ms").unwrap_err().to_string(),
            "the minimum 100ms is above the maximum 10ms; give MIN no larger than MAX, e.g. exp:1ms..100ms"
        );
        assert_eq!(
            Backoff::parse("fixed:0ms").unwrap_err().to_string(),
            "0ms: give a duration above zero, e.g. 5ms or 1s"
        );
        for bad in [
            "",
            "fixed",
            "exp:1ms",
            "exp:1ms-10ms",
            "exp:1ms..10ms,jiter",
            "linear:1ms",
            "exp:1ms..10ms,jitter,jitter",
        ] {
            assert_eq!(Backoff::parse(bad), Err(BackoffError::Malformed), "{bad:?}");
        }
        assert_eq!(
            Backoff::parse("exp:1ms..soon"),
            Err(BackoffError::Duration("soon".into()))
        );
    }

    #[test]
    fn an_exponential_backoff_doubles_from_its_minimum_up_to_its_maximum() {
        let exp = Backoff::parse("exp:1ms..10ms").unwrap();
        let steps: Vec<u64> = (1..=6).map(|r| exp.step(r).as_millis() as u64).collect();
        assert_eq!(steps, [1, 2, 4, 8, 10, 10]);
        assert_eq!(exp.step(1000), Duration::from_millis(10));
        let fixed = Backoff::parse("fixed:3ms").unwrap();
        assert!((1..5).all(|r| fixed.step(r) == Duration::from_millis(3)));
        assert_eq!(Backoff::None.step(3), Duration::ZERO);
    }
}
