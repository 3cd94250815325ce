//! What the run is placed on: the `--fs` filesystems and their size, checked against the
//! engines and `--memory`, and `--guest` (a run in a user-mode kernel, or the run inside it).

use crate::base::Failure;
use crate::bench::settings::RunArgs;
use crate::engines::registry::EngineChoice;
use crate::testbed::guest::GuestJob;

/// `--guest` (its memory checked) or `--guest-job` (the host's job read).
pub(super) fn plan_guest(args: &RunArgs) -> Result<Guest, Failure> {
    if args.guest {
        let memory_bytes = crate::base::bytesize::whole(&args.guest_memory)
            .filter(|b| *b >= 128 << 20)
            .ok_or_else(|| {
                Failure(format!(
                    "--guest-memory {}: give a size of at least 128M, e.g. 2G",
                    args.guest_memory
                ))
            })?;
        return Ok(Guest::Host { memory_bytes });
    }
    let Some(p) = &args.guest_job else {
        return Ok(Guest::Off);
    };
    std::fs::read(p)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .map(|job| Guest::Inside(Box::new(job)))
        .ok_or_else(|| Failure(format!("--guest-job {}: not a guest job", p.display())))
}

/// Validates `--fs` and `--fs-size`: values first, then what they need of this host (root,
/// the kernel's support, the mkfs tools).
pub(super) fn plan_filesystems(
    args: &RunArgs,
    choices: &[EngineChoice],
) -> Result<(Vec<crate::testbed::fsspec::FsSpec>, u64), Failure> {
    use crate::testbed::fsspec;
    let specs = fsspec::parse_all(&args.fs)?;
    let size = fsspec::parse_size(&args.fs_size)?;
    if specs.is_empty() {
        if args.guest {
            return Err(Failure(
                "--guest runs the --fs filesystems inside a guest kernel; give --fs (e.g. --fs ext4,f2fs)".into(),
            ));
        }
        return Ok((specs, size));
    }
    fsspec::check_sizes(&specs, &args.fs_size, size)?;
    if args.memory {
        return Err(Failure(
            "--fs and --memory together make no sense: in-memory databases touch no filesystem; leave out one".into(),
        ));
    }
    if let Some(c) = choices.iter().find(|c| !c.kind.files_in_scratch) {
        return Err(Failure(format!(
            "--fs: engine {} keeps its data in its server's own directory, not on the filesystems --fs builds; compare filesystems with sqlite, duckdb or files",
            c.kind.name
        )));
    }
    // With --guest the guest kernel mounts them (checked when it is set up), not this one.
    if !args.guest {
        fsspec::check_host(&specs)?;
    }
    Ok((specs, size))
}

/// Where the run goes with respect to a `--guest` kernel.
pub enum Guest {
    /// Runs here.
    Off,
    /// `--guest`: the whole run again inside a user-mode Linux kernel with this much memory.
    Host { memory_bytes: u64 },
    /// Inside the guest kernel: the host's job names the disks and what the manifest says.
    Inside(Box<GuestJob>),
}
