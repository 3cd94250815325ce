//! `--storage`: the values of the storage axis, read and checked against what the run can
//! give each: an emulated delay needs connections through litebench's VFS (SQLite's engines,
//! on database files), a kernel throttle needs a block device litebench built (`--fs`).

use crate::base::Failure;
use crate::bench::settings::RunArgs;
use crate::engines::registry::EngineChoice;
use crate::model::storage::{split_axis, StorageSpec};
use crate::testbed::fsspec::{FsKind, FsSpec};

/// `--storage`'s values in the order given (empty without the flag), each checked.
pub(super) fn plan_storages(
    args: &RunArgs,
    choices: &[EngineChoice],
    filesystems: &[FsSpec],
) -> Result<Vec<StorageSpec>, Failure> {
    let Some(given) = &args.storage else {
        return Ok(Vec::new());
    };
    let values = split_axis(given)
        .map_err(|e| Failure(e.to_string()))?
        .iter()
        .map(|v| {
            let v = match v.strip_prefix("from=") {
                Some(path) => replayed(std::path::Path::new(path))?,
                None => v.clone(),
            };
            StorageSpec::parse(&v).map_err(|e| Failure(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if values.is_empty() {
        return Err(Failure(
            "--storage: give at least one value, as --storage none,sync=1ms,sync=4ms".into(),
        ));
    }
    if let Some(v) = values.iter().find(|v| v.emulated()) {
        if let Some(c) = choices.iter().find(|c| c.kind.name != "sqlite") {
            return Err(Failure(format!(
                "--storage {}: engine {} does not open its files through litebench's SQLite VFS, where the emulated delays are slept; emulate storage with --engine sqlite, or give {} a throttled device (iops=, bw= with --fs)",
                v.text, c.kind.name, c.kind.name
            )));
        }
        if args.memory {
            return Err(Failure(format!(
                "--storage {} and --memory together make no sense: in-memory databases make no syncs, reads or writes to delay; leave out one",
                v.text
            )));
        }
        if args.guest {
            return Err(Failure(format!(
                "--storage {}: emulated delays are not carried into a --guest kernel; leave out --guest",
                v.text
            )));
        }
    }
    if let Some(v) = values.iter().find(|v| v.throttled()) {
        if filesystems.iter().all(|f| f.kind == FsKind::Tmpfs) {
            return Err(Failure(format!(
                "--storage {}: iops= and bw= are the kernel's limits on the loop device litebench builds for --fs; add --fs ext4 (or another block filesystem), or emulate with sync=",
                v.text
            )));
        }
        crate::testbed::throttle::check_host().map_err(|e| Failure(format!("--storage {}: {e}", v.text)))?;
    }
    Ok(values)
}

/// `from=FILE`: the sync latency `litebench qualify --format json` measured in a directory,
/// replayed as the emulated sync delay `sync=quantiles(min,median,p90,p99,p99.9,max)` (or
/// `quantiles(min,median,p99,max)` from a file written before p90 and p99.9 were kept), so the
/// value (and the manifest) keeps the distribution itself, not a file that may be gone when it
/// is read.
fn replayed(path: &std::path::Path) -> Result<String, Failure> {
    let bad = |why: String| {
        Failure(format!(
            "--storage from={}: {why}; give the file `litebench qualify --dir D --format json` wrote",
            path.display()
        ))
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let s = &v["sync_latency"];
    let us = |k: &str| s[k].as_f64().filter(|x| x.is_finite() && *x >= 0.0);
    let (Some(min), Some(median), Some(p99), Some(max)) = (us("min_us"), us("median_us"), us("p99_us"), us("max_us"))
    else {
        return Err(bad(
            "no sync_latency with min_us, median_us, p99_us and max_us in it".into()
        ));
    };
    let quantiles = match (us("p90_us"), us("p999_us")) {
        (Some(p90), Some(p999)) => vec![min, median, p90, p99, p999, max],
        _ => vec![min, median, p99, max],
    };
    let d: Vec<String> = quantiles.iter().map(|x| format!("{}us", x.round() as u64)).collect();
    Ok(format!("sync=quantiles({})", d.join(",")))
}
