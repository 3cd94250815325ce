//! End-to-end tests of the `litebench` binary: bad input, knob read-back, the results store,
//! interruption, a full disk, a closed stdout, the `list` / `env` commands, the store's
//! schema versions, and the HTML report (rendered in headless Chromium).
//!
//! Every `run` gets `--results` and `--dir` inside a fresh temporary directory, and the child's
//! working directory and `LITEBENCH_RESULTS` point there too, so no test touches the user's home
//! or the repository.

mod aging;
mod bad_input;
mod browser;
mod cast;
mod cleanup;
mod closed_pipe;
mod common;
mod compact;
mod compare;
mod disk_full;
mod drivers;
mod dry_run;
mod durability;
mod exports;
mod extension;
mod formats;
mod fts;
mod history;
mod instructions;
mod interrupt;
mod json;
mod knobs;
mod labels;
mod list_env;
mod load;
mod merge;
mod metrics;
mod names;
mod odd_input;
mod outputs;
mod profile;
mod progress;
mod qualify;
mod queue;
mod replay;
mod report;
mod reproduce;
mod rtree;
mod script;
mod side_files;
mod sidecar;
mod speedtest1;
mod ssb_gen;
mod stalls;
mod storage;
mod store;
mod store_locks;
mod store_schema;
mod sweeps;
mod tpcc;
mod tpch;
mod trusted_inputs;
mod vector;
mod wal_files;
mod width;
mod ycsb;
