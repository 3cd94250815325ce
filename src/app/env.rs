//! `litebench env`: the machine and the storage under a directory.

use crate::app::cli::EnvArgs;
use crate::base::Failure;
use std::time::Duration;

/// Prints the environment report.
pub fn run(args: &EnvArgs) -> Result<i32, Failure> {
    if !args.dir.is_dir() {
        let what = if args.dir.exists() {
            "not a directory (a file)"
        } else {
            "no such directory"
        };
        return Err(Failure(format!(
            "--dir {}: {what}; give an existing directory",
            args.dir.display()
        )));
    }
    let env = litebench_env::capture(&args.dir).map_err(|e| Failure(format!("--dir {}: {e}", args.dir.display())))?;
    let sync = if args.no_sync {
        None
    } else {
        Some(
            litebench_env::measure_sync_latency(&args.dir, 1000, Duration::from_secs(2)).map_err(|e| {
                Failure(format!(
                    "--dir {}: cannot measure sync latency: {e}",
                    args.dir.display()
                ))
            })?,
        )
    };
    if args.json {
        let v = serde_json::json!({ "environment": env, "sync_latency": sync });
        crate::outln!("{}", serde_json::to_string_pretty(&v).expect("environment serializes"));
    } else {
        crate::out!("{}", litebench_env::render_text(&env, sync.as_ref()));
        if let Some(s) = &sync {
            crate::outln!(
                "sync-bound ceiling: {:.0} transactions/s at 1 sync per transaction, {:.0} at 5 (DELETE mode's count in APSys'17)",
                1e6 / s.median_us,
                1e6 / (5.0 * s.median_us)
            );
        }
    }
    Ok(0)
}
