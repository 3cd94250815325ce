//! Engine-level conformance: I/O accounting against strace, the SQLite build flags, other
//! SQLite builds loaded at run time, and interleaving. Every test runs the real binary.

mod blob;
mod build_sqlite;
mod builds;
mod common;
mod duck;
mod interleave;
mod old_builds;
mod optimizer;
mod strace;
#[path = "../support/mod.rs"]
mod support;
mod turso;
