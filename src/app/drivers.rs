//! `litebench drivers setup [NAME...]`: the drivers' setups run ahead of a run (`.ci/run` calls
//! it once per machine, so that their installs are timed apart from the tests), one line per
//! driver with what it took.

use crate::app::cli::DriversArgs;
use crate::base::Failure;
use crate::bench::driver_process;

/// Sets up the named drivers (all without names); exit 0 when every one is ready, 2 with the
/// first that is not (its setup's last line).
pub fn run(args: &DriversArgs) -> Result<i32, Failure> {
    let names: Vec<String> = match args.names.is_empty() {
        true => driver_process::names().into_iter().map(str::to_string).collect(),
        false => args.names.clone(),
    };
    for name in &names {
        let t = std::time::Instant::now();
        let dest = driver_process::installed(name).map_err(|e| Failure(e.to_string()))?;
        println!(
            "{name}: ready in {} ({:.1} s)",
            dest.display(),
            t.elapsed().as_secs_f64()
        );
    }
    Ok(0)
}
