//! Helpers: run litebench on a tiny crud in a temporary directory and parse its JSON report.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

pub const DEBIAN_SQLITE: &str = "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0";

pub use crate::support::{in_ci, require};

pub fn litebench() -> Command {
    Command::new(crate::support::bin())
}

/// Runs `litebench run crud` with `args` in `dir`, results in `dir/r.db`; returns the JSON report.
pub fn run_json(dir: &Path, args: &[&str]) -> Value {
    let out = litebench()
        .args(["run", "crud", "--quiet", "--format", "json", "--dir"])
        .arg(dir)
        .arg("--results")
        .arg(dir.join("r.db"))
        .args(args)
        .output()
        .expect("litebench runs");
    assert!(
        out.status.success(),
        "litebench failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

/// The summary row of configuration `config` and operation `op`.
pub fn row<'a>(report: &'a Value, config: u64, op: &str) -> &'a Value {
    report["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["config"] == config && r["operation"] == op)
        .unwrap_or_else(|| panic!("no summary row for config {config} op {op}"))
}

pub const SMALL: &[&str] = &[
    "--param",
    "rows=1000",
    "--param",
    "inserts=100",
    "--param",
    "updates=100",
    "--param",
    "deletes=100",
];
