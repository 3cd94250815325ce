//! What ends a trial of a workload whose transactions the load driver runs: a count of
//! transactions or a time, and what chose it.
//!
//! In an open loop (`--rate`) the two are not alike. A count ends a trial when the last client
//! has run its share of the seeded schedule, and the longest of the clients' Poisson schedules
//! differs round by round: every configuration's trials last longer or shorter together, so the
//! rate (the count over that span) moves with the schedule, not with the machine, and falls
//! under the target. A time ends every trial at the same point of the schedule. So an open loop
//! given neither stops on time, with the count's expected length; the manifest records which
//! rule ran and why, so a report can name the cause of the spread it shows.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The parameters of a workload that holds both rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopParams {
    /// Transactions per trial over all clients (`transactions`).
    pub count: &'static str,
    /// Time per trial (`duration`; zero: the count).
    pub duration: &'static str,
}

/// A trial's end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "on", rename_all = "snake_case")]
pub enum StopOn {
    /// After `count` transactions over all clients, held by parameter `param`.
    Count { param: String, count: u64 },
    /// After `ms` milliseconds, held by parameter `param`.
    Duration { param: String, ms: u64 },
}

/// What chose the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChosenBy {
    /// A `--param` of the command line.
    Param,
    /// A `--preset`'s parameters.
    Preset,
    /// The workload's default: its count (a closed loop).
    Default,
    /// An open loop given neither: it stops on time, the count's default at the rate.
    OpenLoopDefault,
}

/// The rule a run's trials stopped on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopRule {
    #[serde(flatten)]
    pub on: StopOn,
    pub chosen_by: ChosenBy,
}

impl ChosenBy {
    pub fn words(self) -> &'static str {
        match self {
            ChosenBy::Param => "as given",
            ChosenBy::Preset => "the preset's",
            ChosenBy::Default => "the default",
            ChosenBy::OpenLoopDefault => {
                "an open loop's default: on time, as long as the default count takes at the rate (a sweep's lowest)"
            }
        }
    }
}

impl StopRule {
    /// The open loop's default time: `count` transactions at `rate` per second, to the
    /// millisecond above (at least 1 ms).
    pub fn time_of(count: u64, rate: f64) -> Duration {
        let ms = (count as f64 / rate * 1000.0).ceil();
        Duration::from_millis(if ms.is_finite() { ms.clamp(1.0, 1e12) as u64 } else { 1 })
    }

    /// `stops after 300 transactions (--param transactions=300, as given)`.
    pub fn describe(&self) -> String {
        let (what, param, value) = match &self.on {
            StopOn::Count { param, count } => (format!("after {count} transactions"), param, count.to_string()),
            StopOn::Duration { param, ms } => (
                format!("after {}", super::load::duration_text(ms * 1_000_000)),
                param,
                format!("{ms}ms"),
            ),
        };
        format!("stops {what} (--param {param}={value}, {})", self.chosen_by.words())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_time_is_the_count_at_the_rate_and_the_rule_reads_back() {
        assert_eq!(StopRule::time_of(1000, 300.0), Duration::from_millis(3334));
        assert_eq!(StopRule::time_of(1, 1e9), Duration::from_millis(1));
        let rule = StopRule {
            on: StopOn::Duration {
                param: "duration".into(),
                ms: 3334,
            },
            chosen_by: ChosenBy::OpenLoopDefault,
        };
        let json = serde_json::to_string(&rule).unwrap();
        assert_eq!(
            json,
            r#"{"on":"duration","param":"duration","ms":3334,"chosen_by":"open_loop_default"}"#
        );
        assert_eq!(serde_json::from_str::<StopRule>(&json).unwrap(), rule);
        let count = StopRule {
            on: StopOn::Count {
                param: "transactions".into(),
                count: 300,
            },
            chosen_by: ChosenBy::Param,
        };
        assert_eq!(
            count.describe(),
            "stops after 300 transactions (--param transactions=300, as given)"
        );
    }
}
