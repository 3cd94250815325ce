//! litebench: honest benchmarks for SQLite and the engines it is compared with.
//!
//! The binary is a thin pipeline over this library: parse and validate the command line
//! ([`cli`]), build a [`runner::Plan`], run it while storing every trial ([`store`]), and
//! render a report ([`render`]) that carries its configuration and the machine under it.

pub mod checklist;
pub mod cli;
pub mod clock;
pub mod commands;
#[cfg(feature = "duckdb")]
pub mod duck;
pub mod engine;
pub mod iocount;
pub mod knob;
pub mod pivot;
pub mod preset;
pub mod procstat;
pub mod recorder;
pub mod registry;
pub mod render;
pub mod result;
pub mod runner;
pub mod scratch;
pub mod server;
pub mod sqlite;
pub mod store;
pub mod summary;
pub mod workload;
