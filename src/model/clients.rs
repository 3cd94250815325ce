//! How a trial's clients arrive, where they run and whose connection they use: the load
//! shape's choices that a cast's roles make too, kept below both so that [`super::load`] and
//! [`super::cast`] each import them and neither imports the other back.

use serde::{Deserialize, Serialize};

/// How the intended start times of an open loop are spaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Arrival {
    /// Exponential gaps (a Poisson process, seeded): requests arriving independently, as from
    /// many users; what wrk2, YCSB's `-target` with a Poisson option and pgbench `-R` model.
    #[default]
    Poisson,
    /// Equal gaps: one transaction every 1/rate seconds per client.
    Uniform,
}

/// Where a trial's clients run (`--client-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum ClientMode {
    /// Every client a thread of litebench's process.
    #[default]
    Threads,
    /// Every client but the first a process of its own, as web workers and Android content
    /// providers are: SQLite's POSIX locks, its WAL index and its page cache then behave as
    /// between processes.
    Processes,
}

impl ClientMode {
    pub(super) fn is_threads(&self) -> bool {
        *self == ClientMode::Threads
    }
}

/// Whose connection a trial's clients run on (`--connections`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Connections {
    /// Every client its own connection.
    #[default]
    PerClient,
    /// Every client on one connection behind a mutex, each holding it for a whole transaction,
    /// as an application with one connection runs (several Rust and Node wrappers do so
    /// without saying it): the clients' transactions run one at a time.
    Shared,
}

impl Connections {
    pub fn is_per_client(&self) -> bool {
        *self == Connections::PerClient
    }

    /// `--connections`' word for it (`per-client`, `shared`).
    pub fn name(&self) -> &'static str {
        match self {
            Connections::PerClient => "per-client",
            Connections::Shared => "shared",
        }
    }
}
