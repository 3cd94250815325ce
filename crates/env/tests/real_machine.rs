//! Integration tests against the machine these tests run on: the real
//! `/proc`, `/sys` and filesystems, and a real fdatasync.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use litebench_env::{capture, machine, measure_sync_latency, render_text, storage, EnvError};

/// Every entry in `dir` with its contents (directories marked as such).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let contents = if p.is_dir() { None } else { Some(fs::read(&p).unwrap()) };
            (p, contents)
        })
        .collect()
}

#[test]
fn root_has_a_mount_with_a_fs_type() {
    let s = storage(Path::new("/")).unwrap();
    assert_eq!(s.dir, PathBuf::from("/"));
    assert_eq!(s.mount_point, Some(PathBuf::from("/")));
    assert!(s.fs_type.as_deref().is_some_and(|t| !t.is_empty()), "{s:?}");
    assert!(s.mount_options.is_some());
}

#[test]
fn dev_shm_is_ram_backed_when_tmpfs() {
    let shm = Path::new("/dev/shm");
    let Ok(s) = storage(shm) else {
        eprintln!("no /dev/shm here; skipping");
        return;
    };
    if s.fs_type.as_deref() != Some("tmpfs") {
        eprintln!("/dev/shm is {:?}, not tmpfs; skipping", s.fs_type);
        return;
    }
    assert!(s.ram_backed);
    assert_eq!(s.device, None);
    assert_eq!(s.mount_point, Some(PathBuf::from("/dev/shm")));
}

#[test]
fn storage_of_missing_dir_is_a_typed_error() {
    let err = storage(Path::new("/definitely/not/here/litebench")).unwrap_err();
    assert!(matches!(err, EnvError::Canonicalize { .. }));
    let msg = err.to_string();
    assert!(msg.contains("/definitely/not/here/litebench"), "{msg}");
}

#[test]
fn storage_canonicalizes() {
    let t = tempfile::tempdir().unwrap();
    fs::create_dir(t.path().join("a")).unwrap();
    let s = storage(&t.path().join("a/../a/.")).unwrap();
    assert_eq!(s.dir, t.path().canonicalize().unwrap().join("a"));
}

#[test]
fn machine_facts_are_plausible() {
    let m = machine();
    assert!(m.cpu_count >= 1);
    assert!(m.memory_bytes.is_some_and(|b| b > 0));
    assert!(m.kernel.is_some());
    assert_eq!(m.arch, std::env::consts::ARCH);
    // SAFETY: geteuid cannot fail.
    assert_eq!(m.is_root, unsafe { libc::geteuid() } == 0);
}

#[test]
fn sync_latency_in_tempdir() {
    let t = tempfile::tempdir().unwrap();
    fs::write(t.path().join("existing.db"), b"keep me").unwrap();
    let before = snapshot(t.path());
    let l = measure_sync_latency(t.path(), 50, Duration::from_secs(2)).unwrap();
    assert!(l.samples >= 5 && l.samples <= 50, "{l:?}");
    assert_eq!(l.block_bytes, 4096);
    assert!(l.min_us > 0.0, "{l:?}");
    assert!(l.min_us <= l.median_us, "{l:?}");
    assert!(l.median_us <= l.p99_us, "{l:?}");
    assert!(l.p99_us <= l.max_us, "{l:?}");
    assert_eq!(snapshot(t.path()), before, "directory changed");
}

#[test]
fn sync_latency_takes_at_least_five_samples() {
    let t = tempfile::tempdir().unwrap();
    let l = measure_sync_latency(t.path(), 0, Duration::ZERO).unwrap();
    assert_eq!(l.samples, 5);
    assert!(snapshot(t.path()).is_empty());
}

#[test]
fn sync_latency_never_touches_files_it_did_not_create() {
    let t = tempfile::tempdir().unwrap();
    let pid = std::process::id();
    // Occupy the first probe names this process could pick (the counter is
    // process-wide, so these may or may not be the ones tried; either way
    // they must survive untouched).
    for n in 0..16 {
        let p = t.path().join(format!(".litebench-synctest-{pid}-{n}"));
        fs::write(p, format!("pre-existing {n}")).unwrap();
    }
    let before = snapshot(t.path());
    measure_sync_latency(t.path(), 5, Duration::from_secs(1)).unwrap();
    assert_eq!(snapshot(t.path()), before);
}

#[test]
fn sync_latency_errors_without_panicking() {
    let t = tempfile::tempdir().unwrap();
    let missing = t.path().join("missing");
    let err = measure_sync_latency(&missing, 5, Duration::from_secs(1)).unwrap_err();
    assert!(matches!(err, EnvError::CreateProbe { .. }), "{err:?}");
    assert!(err.to_string().contains("missing"));

    let file = t.path().join("plain-file");
    fs::write(&file, b"x").unwrap();
    let err = measure_sync_latency(&file, 5, Duration::from_secs(1)).unwrap_err();
    assert!(matches!(err, EnvError::CreateProbe { .. }), "{err:?}");
    assert_eq!(fs::read(&file).unwrap(), b"x");
    assert_eq!(snapshot(t.path()).len(), 1);
}

#[test]
fn capture_round_trips_through_json_with_nulls() {
    let env = capture(Path::new(".")).unwrap();
    let json = serde_json::to_string(&env).unwrap();
    let back: litebench_env::Environment = serde_json::from_str(&json).unwrap();
    assert_eq!(back, env);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    // Optional fields are present as keys even when unknown.
    for key in ["os", "kernel", "cpu_governor", "virtualization", "memory_bytes"] {
        assert!(v["machine"].get(key).is_some(), "missing {key}: {json}");
    }
    assert!(v["storage"].get("device").is_some());
    if env.machine.cpu_governor.is_none() {
        assert!(v["machine"]["cpu_governor"].is_null());
    }
}

#[test]
fn render_text_of_this_machine() {
    let t = tempfile::tempdir().unwrap();
    let env = capture(t.path()).unwrap();
    let l = measure_sync_latency(t.path(), 5, Duration::from_secs(1)).unwrap();
    let text = render_text(&env, Some(&l));
    for heading in ["machine", "storage", "device", "sync latency"] {
        assert!(text.lines().any(|x| x == heading), "{heading} in\n{text}");
    }
    assert!(text.contains(&env.storage.dir.display().to_string()));
}
