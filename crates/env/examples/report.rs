//! Prints what `litebench env` would report for a directory:
//! `cargo run -p litebench-env --example report -- [DIR]` (default: `.`).

use std::path::PathBuf;
use std::time::Duration;

fn main() {
    let dir = std::env::args_os()
        .nth(1)
        .map_or_else(|| PathBuf::from("."), PathBuf::from);
    let env = match litebench_env::capture(&dir) {
        Ok(env) => env,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let sync = match litebench_env::measure_sync_latency(&dir, 200, Duration::from_secs(2)) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("sync latency not measured: {e}");
            None
        }
    };
    print!("{}", litebench_env::render_text(&env, sync.as_ref()));
}
