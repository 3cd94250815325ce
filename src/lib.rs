//! litebench: honest benchmarks for SQLite and the engines it is compared with.
//!
//! One folder per layer, each importing only the folders below it (ARCHITECTURE.md draws the
//! map; `tests/architecture` holds the code to it). From the top: the command line ([`app`]),
//! the seeds' figures ([`reproduce`]), running a plan ([`bench`]), reports ([`report`]), the
//! results store ([`store`]), the crash-state verifier ([`durability`]), what a run is placed on
//! ([`testbed`]), the workloads ([`workload`]), the engines ([`engines`]), the records
//! ([`model`]), the operating system's counters and clocks ([`sys`]), and the floor ([`base`]).

#![deny(unsafe_op_in_unsafe_fn)]

pub mod app;
pub mod base;
pub mod bench;
pub mod durability;
pub mod engines;
pub mod model;
pub mod report;
pub mod reproduce;
pub mod store;
pub mod sys;
pub mod testbed;
pub mod workload;
