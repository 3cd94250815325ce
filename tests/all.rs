//! Every integration suite of litebench in one test binary: the command line (`cli`), each
//! engine's conformance (`engine`), the servers, filesystems and guest (`fs`), the Slurm fleet,
//! SSB, TATP and the classic suites. One binary is linked once (eight were linked apart), and its
//! tests share one pool of `RUST_TEST_THREADS` threads, so a suite's slow tail (a guest booting,
//! an amalgamation compiling) runs beside the next suite's tests rather than before them.
//!
//! Run one suite or one test by its path: `cargo test --release --test all -- cli::tpcc::`.
//! The layers' import check stays a binary of its own (`tests/architecture`): it reads the
//! sources and links nothing of litebench.

mod support;

#[path = "cli/main.rs"]
mod cli;
#[path = "engine/main.rs"]
mod engine;
#[path = "fleet/main.rs"]
mod fleet;
#[path = "fs/main.rs"]
mod fs;
#[path = "servers/main.rs"]
mod servers;
#[path = "ssb/main.rs"]
mod ssb;
#[path = "suites/main.rs"]
mod suites;
#[path = "tatp/main.rs"]
mod tatp;
