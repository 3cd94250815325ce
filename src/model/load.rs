//! The shape of the load a trial puts on an engine: how many clients, each with its own
//! connection, and whether they go as fast as they can (closed loop) or start transactions on a
//! schedule at a target rate (open loop), with how late a transaction may be and how often a
//! transaction that met a lock is tried. Recorded in the manifest of every run that is not one
//! client in a closed loop, so the numbers are never separated from the load that made them.

pub use super::clients::{Arrival, ClientMode, Connections};
pub use super::quantity::{duration_text, rate_text};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Most clients a trial may have.
pub const MAX_CLIENTS: u32 = 1024;

/// Highest rate a schedule is kept to: one intended start every microsecond. Above it the
/// clock's resolution and the cost of reading it decide the start times, not the schedule.
pub const MAX_RATE: f64 = 1_000_000.0;

/// Lowest rate a schedule is kept to: one intended start every 1,000 s. Below it the first
/// arrival comes after most trials would end (at `1e-300` a trial on a count waited forever,
/// saying nothing).
pub const MIN_RATE: f64 = 0.001;

/// A rate below [`MIN_RATE`] refused in words: when its first arrival would come.
pub fn rate_too_low(r: f64) -> String {
    format!(
        "below {MIN_RATE} transactions per second, the first transaction would come after {} on average; give a rate of at least {MIN_RATE}",
        first_arrival_text(1.0 / r)
    )
}

/// `about 1000 s` or `about 3.2e292 years`: how long until a first arrival `secs` away.
pub fn first_arrival_text(secs: f64) -> String {
    const YEAR: f64 = 365.25 * 24.0 * 3600.0;
    if !secs.is_finite() {
        "forever".into()
    } else if secs < 2.0 * 24.0 * 3600.0 {
        format!("about {} s", num_text(secs))
    } else {
        format!("about {} years", num_text(secs / YEAR))
    }
}

fn num_text(x: f64) -> String {
    if x >= 1e6 {
        format!("{x:.1e}")
    } else if x >= 10.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// How the clients of a trial generate load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadShape {
    /// Concurrent clients, each with its own connection and thread.
    pub clients: u32,
    /// Open loop: transactions per second over all clients; `None`: closed loop (each client
    /// starts its next transaction when the last one ends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    #[serde(default)]
    pub arrival: Arrival,
    /// Open loop: a transaction already later than this when its turn comes is skipped, and a
    /// completed one slower than this (from its intended start) is counted late (pgbench `-L`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_limit_ns: Option<u64>,
    /// Tries of a transaction that met a lock (SQLITE_BUSY and its kin) before it counts as
    /// failed: 1 is no retry.
    pub max_tries: u32,
    /// The wait before each retry (`--retry-backoff`); absent from manifests of runs without
    /// one (every run before it: retries at once).
    #[serde(default, skip_serializing_if = "super::backoff::Backoff::is_none")]
    pub retry_backoff: super::backoff::Backoff,
    /// Length of one interval of the trial's time series, milliseconds.
    #[serde(default = "one_second")]
    pub interval_ms: u64,
    /// Threads or processes; absent from manifests of runs with threads.
    #[serde(default, skip_serializing_if = "ClientMode::is_threads")]
    pub client_mode: ClientMode,
    /// A connection per client, or one shared by all; absent from manifests of runs with a
    /// connection per client (every run before `--connections`).
    #[serde(default, skip_serializing_if = "Connections::is_per_client")]
    pub connections: Connections,
    /// A point of a sweep (`--clients 1,2,4`, `--rate`, `--client-mode` with several values):
    /// the load driver runs it even with one client in a closed loop, so that every point of
    /// the curve is measured the same way. Absent from manifests of runs without a sweep.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sweep: bool,
    /// `--progress`: a line per interval on stderr while a trial runs (not a property of the
    /// load; not stored).
    #[serde(skip)]
    pub progress: bool,
    /// `--cast FILE`: the load as named roles ([`crate::model::cast`]); absent: `clients`
    /// identical clients, as every run before casts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cast: Option<super::cast::Cast>,
    /// A cast workload role's schedule, in the shape its clients run with: they run only in its
    /// windows ([`super::cast::Schedule::running_from`]); absent: from the start to the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub windows: Option<super::cast::Schedule>,
}

fn one_second() -> u64 {
    1000
}

/// One client in a closed loop, no retries: what every run before load shapes did.
pub const ONE_CLIENT: LoadShape = LoadShape {
    clients: 1,
    rate: None,
    arrival: Arrival::Poisson,
    latency_limit_ns: None,
    max_tries: 1,
    retry_backoff: super::backoff::Backoff::None,
    interval_ms: 1000,
    client_mode: ClientMode::Threads,
    connections: Connections::PerClient,
    sweep: false,
    progress: false,
    cast: None,
    windows: None,
};

impl Default for LoadShape {
    fn default() -> Self {
        ONE_CLIENT
    }
}

/// What a sweep varies across its configurations (`--clients 1,2`, `--rate`, `--client-mode`,
/// `--connections`): the parts of the load the run's one shape must not claim for every
/// configuration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Varied {
    pub clients: bool,
    pub rate: bool,
    /// Threads against processes, or one shared connection against one each.
    pub client_kind: bool,
}

impl LoadShape {
    /// One client, closed loop, no retries: what every run before load shapes did (the time
    /// series interval aside: only the load driver keeps a series).
    pub fn is_default(&self) -> bool {
        self.clients == 1
            && self.rate.is_none()
            && self.latency_limit_ns.is_none()
            && self.max_tries == 1
            && !self.sweep
            && self.cast.is_none()
    }

    /// Clients beyond the first run in processes of their own.
    pub fn processes(&self) -> bool {
        self.client_mode == ClientMode::Processes && self.clients > 1
    }

    /// Several clients on one connection (`--connections shared`).
    pub fn shares_connection(&self) -> bool {
        self.connections == Connections::Shared && self.clients > 1
    }

    /// Open loop (a target rate).
    pub fn open(&self) -> bool {
        self.rate.is_some()
    }

    pub fn latency_limit(&self) -> Option<Duration> {
        self.latency_limit_ns.map(Duration::from_nanos)
    }

    /// One line for tables and the checklist: `closed loop, 1 client` or
    /// `open loop at 2000 tx/s (poisson arrivals), 4 clients, latency limit 5 ms, up to 3 tries`.
    pub fn describe(&self) -> String {
        self.describe_but(Varied::default())
    }

    /// [`LoadShape::describe`] without what a sweep varies: a run over clients 1,2 is not a
    /// run of "1 client", so the swept parts are left to the words that list them.
    pub fn describe_but(&self, varied: Varied) -> String {
        if let Some(cast) = &self.cast {
            let mut s = cast.describe();
            s += &self.tries_text();
            return s;
        }
        let clients = if varied.clients {
            None
        } else if self.clients == 1 {
            Some("1 client".to_string())
        } else if varied.client_kind {
            Some(format!("{} clients", self.clients))
        } else if self.processes() {
            Some(format!("{} client processes", self.clients))
        } else if self.shares_connection() {
            Some(format!("{} clients on one shared connection", self.clients))
        } else {
            Some(format!("{} clients", self.clients))
        };
        let arrivals = match self.arrival {
            Arrival::Poisson => "poisson",
            Arrival::Uniform => "uniform",
        };
        let mut s = match self.rate {
            _ if varied.rate => format!("open loop ({arrivals} arrivals)"),
            None => "closed loop".to_string(),
            Some(r) => format!("open loop at {} tx/s ({arrivals} arrivals)", rate_text(r)),
        };
        if let Some(c) = clients {
            s += &format!(", {c}");
        }
        if let Some(l) = self.latency_limit_ns {
            s += &format!(", latency limit {}", duration_text(l));
        }
        s += &self.tries_text();
        s
    }

    /// `, up to 3 tries` and the wait before each retry where there is one (`, up to 3 tries,
    /// backoff exponential 1 ms..100 ms with jitter`); nothing with one try.
    fn tries_text(&self) -> String {
        if self.max_tries < 2 {
            return String::new();
        }
        let mut s = format!(", up to {} tries", self.max_tries);
        if !self.retry_backoff.is_none() {
            s += &format!(", backoff {}", self.retry_backoff.describe());
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sweep's shape leaves out what the sweep varies, so that the words never claim one
    /// value of it for the whole run.
    #[test]
    fn what_a_sweep_varies_is_left_out_of_the_shape() {
        let l = LoadShape {
            clients: 2,
            rate: Some(100.0),
            client_mode: ClientMode::Processes,
            ..LoadShape::default()
        };
        let but = |clients, rate, client_kind| {
            l.describe_but(Varied {
                clients,
                rate,
                client_kind,
            })
        };
        assert_eq!(
            but(false, false, false),
            "open loop at 100 tx/s (poisson arrivals), 2 client processes"
        );
        assert_eq!(but(true, false, false), "open loop at 100 tx/s (poisson arrivals)");
        assert_eq!(
            but(false, true, false),
            "open loop (poisson arrivals), 2 client processes"
        );
        assert_eq!(
            but(false, false, true),
            "open loop at 100 tx/s (poisson arrivals), 2 clients"
        );
        let closed = LoadShape::default();
        assert_eq!(
            closed.describe_but(Varied {
                clients: true,
                ..Varied::default()
            }),
            "closed loop"
        );
    }

    #[test]
    fn the_default_is_what_runs_before_load_shapes_did_and_says_so() {
        let d = LoadShape::default();
        assert!(d.is_default() && !d.open());
        assert_eq!(d.describe(), "closed loop, 1 client");
        let open = LoadShape {
            clients: 4,
            rate: Some(2000.0),
            latency_limit_ns: Some(5_000_000),
            max_tries: 3,
            ..LoadShape::default()
        };
        assert_eq!(
            open.describe(),
            "open loop at 2000 tx/s (poisson arrivals), 4 clients, latency limit 5 ms, up to 3 tries"
        );
        let processes = LoadShape {
            clients: 3,
            client_mode: ClientMode::Processes,
            ..LoadShape::default()
        };
        assert_eq!(processes.describe(), "closed loop, 3 client processes");
        let backoff = LoadShape {
            clients: 2,
            max_tries: 5,
            retry_backoff: crate::model::backoff::Backoff::Fixed { wait_ns: 2_000_000 },
            ..LoadShape::default()
        };
        assert_eq!(
            backoff.describe(),
            "closed loop, 2 clients, up to 5 tries, backoff fixed 2 ms"
        );
        let shared = LoadShape {
            clients: 4,
            connections: Connections::Shared,
            ..LoadShape::default()
        };
        assert_eq!(shared.describe(), "closed loop, 4 clients on one shared connection");
        assert!(shared.shares_connection() && !open.shares_connection());
        assert!(processes.processes() && !open.processes());
        assert_eq!(duration_text(250_000), "250 us");
        assert_eq!(duration_text(1_500), "1500 ns");
        assert_eq!(rate_text(0.5), "0.5");
    }
}
