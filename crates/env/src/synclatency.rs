//! fdatasync latency: how long one durable 4 KiB page write takes in a
//! directory. It bounds durable transactions per second (each SQLite commit
//! waits for at least one), so a durability number without it cannot be
//! compared across devices, and a suspiciously small value exposes a write
//! cache that does not honour flushes.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::EnvError;

/// Bytes written before every sync: one database page.
const BLOCK_BYTES: usize = 4096;
/// Fewer samples than this make median and p99 meaningless.
const MIN_SAMPLES: usize = 5;
/// How many probe names to try before giving up.
const NAME_ATTEMPTS: u32 = 64;
/// Cap on the up-front allocation for samples, whatever `max_samples` says.
const PREALLOC_CAP: usize = 1 << 16;

/// Distribution of `pwrite(4 KiB) + fdatasync` latencies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncLatency {
    pub samples: usize,
    /// Bytes written before each sync (4096).
    pub block_bytes: u64,
    pub median_us: f64,
    pub p99_us: f64,
    pub min_us: f64,
    pub max_us: f64,
    /// The 90th and 99.9th percentiles and the mean: a throttled device's syncs are bimodal
    /// (most in its burst allowance, some waiting out its period), which the median and p99
    /// alone do not describe well enough to replay (`--storage from=`). Absent in what older
    /// releases wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p90_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p999_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_us: Option<f64>,
}

/// Measures how long a durable 4 KiB write takes in `dir`.
///
/// Creates ONE new file there named `.litebench-synctest-<pid>-<n>`
/// (`O_CREAT|O_EXCL`, so it never touches an existing file), then loops:
/// `pwrite` of 4096 bytes at offset 0 (an overwrite, like a database page)
/// followed by `fdatasync`, timing each pair with a monotonic clock. One
/// untimed warm-up iteration comes first. Stops after `max_samples` or once
/// `max_time` has elapsed, whichever comes first, but never with fewer than
/// 5 samples. Always removes the file it created, and only that file, also
/// on error.
///
/// # Errors
///
/// [`EnvError::CreateProbe`] or [`EnvError::NoFreeProbeName`] if the file
/// cannot be created, [`EnvError::Probe`] if a write or sync fails, and
/// [`EnvError::CleanupFailed`] if the file could not be removed afterwards
/// (its path is in the error).
pub fn measure_sync_latency(dir: &Path, max_samples: usize, max_time: Duration) -> Result<SyncLatency, EnvError> {
    let probe = Probe::create(dir)?;
    let measured = probe.sample(max_samples, max_time);
    match (measured, probe.remove()) {
        (Ok(samples), Ok(())) => Ok(summarize(&samples)),
        (Ok(_), Err(cleanup)) => Err(cleanup),
        (Err(e), Err(EnvError::CleanupFailed { path, source, .. })) => Err(EnvError::CleanupFailed {
            path,
            source,
            after: Some(Box::new(e)),
        }),
        (Err(e), _) => Err(e),
    }
}

/// The probe file: created exclusively, identified by device and inode so
/// that cleanup can never delete a file someone put in its place.
struct Probe {
    path: PathBuf,
    /// Held open until cleanup, so the inode cannot be freed and reused by
    /// another file while we compare identities.
    file: File,
    /// `(st_dev, st_ino)`; `None` only if fstat failed right after creation.
    identity: Option<(u64, u64)>,
    removed: bool,
}

static NEXT_PROBE: AtomicU32 = AtomicU32::new(0);

impl Probe {
    fn create(dir: &Path) -> Result<Probe, EnvError> {
        let pid = std::process::id();
        for _ in 0..NAME_ATTEMPTS {
            let n = NEXT_PROBE.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!(".litebench-synctest-{pid}-{n}"));
            let opened = OpenOptions::new()
                .write(true)
                .create_new(true) // O_CREAT|O_EXCL: never opens an existing file
                .mode(0o600)
                .custom_flags(libc::O_CLOEXEC)
                .open(&path);
            let file = match opened {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(source) => {
                    return Err(EnvError::CreateProbe {
                        dir: dir.to_path_buf(),
                        source,
                    })
                }
            };
            let mut probe = Probe {
                path,
                file,
                identity: None,
                removed: false,
            };
            // If fstat fails, Drop removes the file by path: it was created
            // a moment ago by this process, exclusively.
            let meta = probe.file.metadata().map_err(|source| EnvError::Probe {
                path: probe.path.clone(),
                op: "fstat",
                source,
            })?;
            probe.identity = Some((meta.dev(), meta.ino()));
            return Ok(probe);
        }
        Err(EnvError::NoFreeProbeName {
            dir: dir.to_path_buf(),
            attempts: NAME_ATTEMPTS,
        })
    }

    /// One warm-up iteration, then timed iterations until done.
    fn sample(&self, max_samples: usize, max_time: Duration) -> Result<Vec<Duration>, EnvError> {
        let mut block = [0u8; BLOCK_BYTES];
        let mut seed = u64::from(std::process::id()) | 1;
        fill(&mut block, &mut seed);
        self.write_and_sync(&block)?;

        let target = max_samples.max(MIN_SAMPLES);
        let mut samples = Vec::with_capacity(target.min(PREALLOC_CAP));
        let start = Instant::now();
        while samples.len() < MIN_SAMPLES || (samples.len() < target && start.elapsed() < max_time) {
            // New contents every time, so no layer can skip or dedupe the write.
            fill(&mut block, &mut seed);
            let t0 = Instant::now();
            self.write_and_sync(&block)?;
            samples.push(t0.elapsed());
        }
        Ok(samples)
    }

    fn write_and_sync(&self, block: &[u8]) -> Result<(), EnvError> {
        let fail = |op, source| EnvError::Probe {
            path: self.path.clone(),
            op,
            source,
        };
        self.file.write_all_at(block, 0).map_err(|e| fail("pwrite", e))?;
        self.file.sync_data().map_err(|e| fail("fdatasync", e))
    }

    fn remove(mut self) -> Result<(), EnvError> {
        self.removed = true;
        self.remove_if_ours().map_err(|source| EnvError::CleanupFailed {
            path: self.path.clone(),
            source,
            after: None,
        })
    }

    /// Unlinks the path only while it still names the file we created.
    fn remove_if_ours(&self) -> io::Result<()> {
        let meta = match std::fs::symlink_metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        // Without an identity (fstat failed a moment after our exclusive
        // create) the path can only still be ours.
        let ours = self.identity.is_none_or(|id| id == (meta.dev(), meta.ino()));
        if !ours || !meta.file_type().is_file() {
            return Ok(());
        }
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        if !self.removed {
            // Best effort on early-return paths; errors have nowhere to go.
            let _ = self.remove_if_ours();
        }
    }
}

/// xorshift64 fill: cheap, non-zero, different every call.
fn fill(block: &mut [u8], state: &mut u64) {
    for chunk in block.chunks_mut(8) {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        let bytes = state.to_le_bytes();
        chunk.copy_from_slice(&bytes[..chunk.len()]);
    }
}

/// Summary statistics of the samples (must be non-empty to be meaningful;
/// an empty slice yields zeros).
pub(crate) fn summarize(samples: &[Duration]) -> SyncLatency {
    let mut us: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e6).collect();
    us.sort_by(f64::total_cmp);
    SyncLatency {
        samples: us.len(),
        block_bytes: BLOCK_BYTES as u64,
        median_us: quantile(&us, 0.5),
        p99_us: quantile(&us, 0.99),
        min_us: us.first().copied().unwrap_or(0.0),
        max_us: us.last().copied().unwrap_or(0.0),
        p90_us: (!us.is_empty()).then(|| quantile(&us, 0.9)),
        p999_us: (!us.is_empty()).then(|| quantile(&us, 0.999)),
        mean_us: (!us.is_empty()).then(|| us.iter().sum::<f64>() / us.len() as f64),
    }
}

/// Linear-interpolation quantile of sorted data (the common "type 7"
/// definition); monotone in `q`, so min <= median <= p99 <= max.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => 0.0,
        1 => sorted[0],
        n => {
            let pos = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let lo = pos.floor() as usize;
            let hi = (lo + 1).min(n - 1);
            let frac = pos - lo as f64;
            sorted[lo] + (sorted[hi] - sorted[lo]) * frac
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(v: &[u64]) -> Vec<Duration> {
        v.iter().map(|&x| Duration::from_micros(x)).collect()
    }

    #[test]
    fn summary_of_known_samples() {
        let s = summarize(&us(&[500, 100, 300, 200, 400]));
        assert_eq!(s.samples, 5);
        assert_eq!(s.block_bytes, 4096);
        assert_eq!(s.min_us, 100.0);
        assert_eq!(s.median_us, 300.0);
        assert_eq!(s.max_us, 500.0);
        assert!((s.p99_us - 496.0).abs() < 1e-9);
        assert_eq!(s.p90_us, Some(460.0));
        assert!((s.p999_us.unwrap() - 499.6).abs() < 1e-9);
        assert_eq!(s.mean_us, Some(300.0));
    }

    #[test]
    fn even_count_median_interpolates() {
        let s = summarize(&us(&[10, 20, 30, 40]));
        assert_eq!(s.median_us, 25.0);
    }

    #[test]
    fn degenerate_inputs() {
        let one = summarize(&us(&[7]));
        assert_eq!(
            (one.min_us, one.median_us, one.p99_us, one.max_us),
            (7.0, 7.0, 7.0, 7.0)
        );
        let none = summarize(&[]);
        assert_eq!(none.samples, 0);
        assert_eq!(none.median_us, 0.0);
    }

    #[test]
    fn fill_changes_block_and_is_not_zero() {
        let mut state = 1;
        let mut a = [0u8; BLOCK_BYTES];
        fill(&mut a, &mut state);
        let mut b = a;
        fill(&mut b, &mut state);
        assert_ne!(a, b);
        assert!(a.iter().any(|&x| x != 0));
    }

    #[test]
    fn drop_removes_probe_on_early_exit() {
        let dir = tempfile::tempdir().unwrap();
        let probe = Probe::create(dir.path()).unwrap();
        let path = probe.path.clone();
        assert!(path.exists());
        drop(probe);
        assert!(!path.exists());
    }

    #[test]
    fn cleanup_leaves_a_replacement_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let probe = Probe::create(dir.path()).unwrap();
        let path = probe.path.clone();
        // Someone replaces the probe with their own file of the same name.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"not yours").unwrap();
        probe.remove().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"not yours");
    }
}
