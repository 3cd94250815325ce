//! What a run measures beyond wall time: `--measure instructions` counts each trial's
//! instructions under callgrind, because wall-clock ratios a few percent apart drown in noise
//! and instruction counts repeat to many digits (SQLite's own releases are compared that way).
//! The manifest records how the count was made, and that the run's times are not native.

use serde::{Deserialize, Serialize};

/// `--measure`: what a run counts besides time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// Instructions of each trial's measured region, under valgrind's callgrind.
    Instructions,
}

/// How a run counted instructions (`--measure instructions`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstructionCounting {
    /// The counter: `valgrind-3.19.0 callgrind`, as `valgrind --version` names it.
    pub tool: String,
    /// The valgrind command line litebench re-executed itself under (before its own arguments).
    pub command: Vec<String>,
    /// What was counted: the instructions (callgrind's `Ir`) of each trial's measured region,
    /// instrumentation started where its clock starts and stopped where it stops.
    pub region: String,
    /// Whether the wall times of the run are native: always false, they ran under valgrind.
    pub native_times: bool,
}
