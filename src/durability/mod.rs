//! The durability verifier: what a SQLite configuration gives up when the power fails or the
//! process dies, shown rather than assumed.
//!
//! Every speed figure of a fast configuration (WAL/NORMAL, `synchronous=OFF`) is bought with
//! safety, and SQLite's documentation says in prose what is given up. This module checks it:
//! it records a small ledger workload through the VFS shim ([`record`]), builds the states the
//! files may be left in by a crash at every point ([`crash`]), lets the same SQLite build
//! recover each one and judges it against the acknowledged commits ([`check`], [`ledger`]),
//! and sums the result up as a verdict per configuration and crash kind ([`verify`]).
//! [`expected`] holds what SQLite's documentation says, for comparison.

pub mod check;
pub mod crash;
pub mod expected;
pub mod kill;
pub mod ledger;
pub mod record;
pub mod verify;
