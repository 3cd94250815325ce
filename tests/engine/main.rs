//! Engine-level conformance: I/O accounting against strace, the SQLite build flags, other
//! SQLite builds loaded at run time, and interleaving. Every test runs the real binary.

mod builds;
mod common;
mod interleave;
mod strace;
