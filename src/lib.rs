//! litebench: honest benchmarks for SQLite and the engines it is compared with.
//!
//! The binary is a thin pipeline over this library: parse and validate the command line
//! ([`cli`]), build a [`runner::Plan`], run it while storing every trial ([`store`]), and
//! render a report ([`report`]) that carries its configuration and the machine under it.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod answers;
pub mod bytesize;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod confine;
pub mod deviceio;
pub mod durability;
pub mod engines;
pub mod fsmount;
pub mod fsspec;
pub mod guest;
pub mod iocount;
pub mod knob;
pub mod out;
pub mod outfile;
pub mod owner;
pub mod plan;
pub mod preset;
pub mod procstat;
pub mod recorder;
pub mod report;
pub mod reproduce;
pub mod result;
pub mod runner;
pub mod scheduler;
pub mod scheduler_device;
pub mod scratch;
pub mod shard;
pub mod store;
pub mod usage;
pub mod workload;
