//! Engine-level conformance: I/O accounting against strace, the SQLite build flags, other
//! SQLite builds loaded at run time, interleaving, and what is loaded from the cache (only what
//! nobody else could have changed). Every test runs the real binary.

mod blob;
mod build_sqlite;
mod builds;
mod common;
mod duck;
mod interleave;
mod old_builds;
mod optimizer;
mod strace;
mod trusted_cache;
mod turso;
