//! `litebench env`: the machine and the storage under a directory.

use crate::app::cli::EnvArgs;
use crate::base::Failure;
use crate::report::format::{render, Document};
use crate::report::Format;
use std::path::PathBuf;
use std::time::Duration;

/// Prints the environment report.
pub fn run(args: &EnvArgs) -> Result<i32, Failure> {
    let dir = args.dir.value.clone().unwrap_or_else(|| PathBuf::from("."));
    if !dir.is_dir() {
        let what = if dir.exists() {
            "not a directory (a file)"
        } else {
            "no such directory"
        };
        return Err(Failure(format!(
            "--dir {}: {what}; give an existing directory",
            dir.display()
        )));
    }
    let env = litebench_env::capture(&dir).map_err(|e| Failure(format!("--dir {}: {e}", dir.display())))?;
    let sync = if args.no_sync {
        None
    } else {
        Some(
            litebench_env::measure_sync_latency(&dir, 1000, Duration::from_secs(2))
                .map_err(|e| Failure(format!("--dir {}: cannot measure sync latency: {e}", dir.display())))?,
        )
    };
    let format = if args.json { Format::Json } else { args.format.value };
    let v = serde_json::json!({ "environment": env, "sync_latency": sync });
    let mut text = litebench_env::render_text(&env, sync.as_ref());
    let ceiling = sync.as_ref().map(|s| (1e6 / s.median_us, 1e6 / (5.0 * s.median_us)));
    if let Some((one, five)) = ceiling {
        text += &format!(
            "sync-bound ceiling: {one:.0} transactions/s at 1 sync per transaction, {five:.0} at 5 (DELETE mode's count in APSys'17)\n"
        );
    }
    // The terminal keeps its aligned `key: value` lines; the other formats get one table per
    // section.
    let mut doc = Document::new(&v).own(Format::Table, text);
    for (section, mut lines) in litebench_env::sections(&env, sync.as_ref()) {
        if let (Some((one, five)), "sync latency") = (ceiling, section) {
            lines.push(("ceiling at 1 sync/tx", format!("{one:.0} tx/s")));
            lines.push(("ceiling at 5 syncs/tx", format!("{five:.0} tx/s")));
        }
        let rows = lines.into_iter().map(|(k, v)| vec![k.to_string(), v]).collect();
        doc = doc
            .heading(section)
            .table(section, &["field", "value"], rows)
            .text("\n");
    }
    crate::out!("{}", render(&doc, format));
    Ok(0)
}
