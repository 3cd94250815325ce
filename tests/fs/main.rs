//! `--fs`: configurations on filesystems litebench builds (image, loop device, mkfs, mount),
//! recorded in the manifest, and nothing left behind after success, Ctrl-C, or `kill -9`
//! followed by `litebench cleanup` or the next run. Needs root (as CI has).

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Skips (locally) or fails (in CI) when not root.
fn require_root() -> bool {
    if is_root() {
        return true;
    }
    assert!(!in_ci(), "the --fs tests need root in CI");
    eprintln!("skipping: --fs needs root");
    false
}

/// Mount points under `dir`, from /proc/mounts.
fn mounts_under(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string("/proc/mounts").expect("/proc/mounts");
    let needle = dir.to_string_lossy().into_owned();
    text.lines()
        .filter_map(|l| l.split(' ').nth(1))
        .filter(|mp| mp.starts_with(&needle))
        .map(str::to_string)
        .collect()
}

/// Loop devices whose backing file lies under `dir`.
fn loops_under(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/sys/block").expect("/sys/block").flatten() {
        if let Ok(b) = std::fs::read_to_string(e.path().join("loop/backing_file")) {
            if b.starts_with(&needle) {
                out.push(format!("{} -> {}", e.file_name().to_string_lossy(), b.trim()));
            }
        }
    }
    out
}

fn assert_nothing_left(sb: &Sandbox, context: &str) {
    assert_eq!(mounts_under(sb.root()), Vec::<String>::new(), "{context}: mounts left");
    assert_eq!(
        loops_under(sb.root()),
        Vec::<String>::new(),
        "{context}: loop devices left"
    );
    assert_eq!(
        listing(&sb.scratch()),
        Vec::<String>::new(),
        "{context}: scratch not empty"
    );
}

fn output(cmd: &mut std::process::Command) -> Output {
    cmd.stdin(Stdio::null()).output().expect("run litebench")
}

/// The one line a refused run prints, after checking it exits 2 without a panic.
fn refusal(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(2), "{}", describe(o));
    let err = stderr(o);
    assert!(!err.contains("panicked"), "{}", describe(o));
    assert_eq!(err.trim().lines().count(), 1, "{}", describe(o));
    err.trim().to_string()
}

#[test]
fn every_filesystem_of_one_run_is_built_recorded_used_and_removed() {
    if !require_root() || !require("/usr/sbin/mkfs.xfs", "xfsprogs") || !require("/usr/sbin/mkfs.btrfs", "btrfs-progs")
    {
        return;
    }
    let sb = Sandbox::new();
    let specs = "ext4,ext4:data=journal,ext4:data=writeback,xfs,btrfs,tmpfs";
    let o = output(&mut sb.run_std(&[
        "crud",
        "--fs",
        specs,
        "--fs-size",
        "320M",
        "--param",
        "rows=50",
        "--param",
        "inserts=20",
        "--param",
        "updates=20",
        "--param",
        "deletes=20",
        "--trials",
        "2",
        "--warmup",
        "0",
        "--quiet",
    ]));
    assert!(o.status.success(), "{}", describe(&o));
    let v = json(&output(&mut sb.show_std(&["--format", "json"])));
    let configs = v["manifest"]["configs"].as_array().expect("configs");
    // (spec, type the kernel reports, journaling mode it reports)
    let expected = [
        ("ext4", "ext4", Some("data=ordered")),
        ("ext4:data=journal", "ext4", Some("data=journal")),
        ("ext4:data=writeback", "ext4", Some("data=writeback")),
        ("xfs", "xfs", None),
        ("btrfs", "btrfs", None),
        ("tmpfs", "tmpfs", None),
    ];
    assert_eq!(configs.len(), expected.len(), "{configs:#?}");
    let trials = v["trials"].as_array().expect("trials");
    let scratch = sb.scratch().canonicalize().unwrap();
    for (i, (c, (spec, fstype, mode))) in configs.iter().zip(expected).enumerate() {
        let fs = &c["fs"];
        assert_eq!(fs["spec"], spec, "{c:#}");
        assert_eq!(fs["index"], i, "{c:#}");
        assert_eq!(fs["mounted"]["fs_type"], fstype, "the kernel's view of #{i}: {c:#}");
        if let Some(m) = mode {
            let j = fs["mounted"]["journaling"].as_str().unwrap_or("");
            assert!(j.starts_with(m), "#{i} journaling {j}, want {m}");
        }
        let dir = fs["dir"].as_str().expect("dir");
        assert!(
            Path::new(dir).starts_with(&scratch),
            "#{i} ran in {dir}, outside {}",
            scratch.display()
        );
        assert!(
            fs["sync_latency"]["median_us"].as_f64().is_some_and(|m| m > 0.0),
            "{c:#}"
        );
        if fstype == "tmpfs" {
            assert!(fs["image"].is_null() && fs["loop_device"].is_null(), "{c:#}");
        } else {
            let image = fs["image"].as_str().expect("image");
            assert!(Path::new(image).starts_with(&scratch), "{image}");
            assert!(
                fs["loop_device"].as_str().is_some_and(|d| d.starts_with("/dev/loop")),
                "{c:#}"
            );
            assert_eq!(fs["mkfs"][0], format!("mkfs.{fstype}"), "{c:#}");
            assert_eq!(fs["loop_direct_io"], false, "attached with buffered I/O: {c:#}");
            assert!(fs["underneath"]["mount_source"].is_string(), "{c:#}");
        }
        let ran = trials
            .iter()
            .filter(|t| t["config"] == i && t["total_ops"].as_u64() > Some(0))
            .count();
        assert_eq!(ran, 2, "trials of #{i} ({spec})");
    }
    assert!(configs[1]["fs"]["mounted"]["super_options"]
        .as_str()
        .is_some_and(|o| o.contains("data=journal")));
    assert!(
        configs[0]["label"].as_str().is_some_and(|l| l.starts_with("ext4 ")),
        "{:#}",
        configs[0]
    );
    assert_nothing_left(&sb, "after a complete run");
}

/// A run on ext4 and tmpfs that keeps going until stopped.
fn start_long_run(sb: &Sandbox) -> Child {
    sb.run_std(&[
        "crud",
        "--fs",
        "ext4,tmpfs",
        "--fs-size",
        "64M",
        "--param",
        "rows=100",
        "--param",
        "duration=1s",
        "--trials",
        "100",
        "--warmup",
        "0",
        "--quiet",
    ])
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("start litebench")
}

/// Waits until both filesystems are mounted and a trial is under way; returns the record.
fn wait_for_mounts(sb: &Sandbox, child: &mut Child) -> PathBuf {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(matches!(child.try_wait(), Ok(None)), "litebench exited early");
        let record = std::fs::read_dir(sb.scratch())
            .unwrap()
            .flatten()
            .map(|e| e.path().join("litebench-fs.json"))
            .find(|p| p.is_file());
        // Two mounts, and each holds its trial directory.
        if let Some(r) = record {
            if mounts_under(sb.root()).len() == 2 && sb.results().is_file() {
                std::thread::sleep(Duration::from_millis(1500));
                return r;
            }
        }
        assert!(Instant::now() < deadline, "no mounts within 60 s");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn signal(child: &Child, sig: libc::c_int) {
    // SAFETY: signalling our own child, not yet reaped.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
}

fn finish(child: Child) -> Output {
    child.wait_with_output().expect("wait for litebench")
}

#[test]
fn ctrl_c_unmounts_detaches_and_removes_the_images() {
    if !require_root() {
        return;
    }
    let sb = Sandbox::new();
    let mut child = start_long_run(&sb);
    wait_for_mounts(&sb, &mut child);
    assert_eq!(loops_under(sb.root()).len(), 1, "ext4's loop device");
    signal(&child, libc::SIGINT);
    let o = finish(child);
    assert_eq!(o.status.code(), Some(130), "{}", describe(&o));
    assert_nothing_left(&sb, "after Ctrl-C");
}

/// Kills a run with SIGKILL once its filesystems are mounted; returns the record it left.
fn kill_9_mounted_run(sb: &Sandbox) -> PathBuf {
    let mut child = start_long_run(sb);
    let record = wait_for_mounts(sb, &mut child);
    signal(&child, libc::SIGKILL);
    finish(child);
    assert!(record.is_file(), "kill -9 leaves the record");
    assert_eq!(mounts_under(sb.root()).len(), 2, "kill -9 leaves the mounts");
    record
}

#[test]
fn kill_9_then_cleanup_undoes_exactly_the_record() {
    if !require_root() {
        return;
    }
    let sb = Sandbox::new();
    kill_9_mounted_run(&sb);
    // Something of the user's in the same --dir stays.
    std::fs::write(sb.scratch().join("users-file"), b"keep").unwrap();
    let mut cmd = sb.command();
    let o = output(cmd.arg("cleanup").arg("--dir").arg(sb.scratch()));
    assert!(o.status.success(), "{}", describe(&o));
    assert_eq!(
        stdout(&o).lines().filter(|l| l.starts_with("undone: ")).count(),
        2,
        "{}",
        describe(&o)
    );
    std::fs::remove_file(sb.scratch().join("users-file")).expect("the user's file is still there");
    assert_nothing_left(&sb, "after kill -9 and cleanup");
    // Nothing left to do the second time.
    let mut cmd = sb.command();
    let o = output(cmd.arg("cleanup").arg("--dir").arg(sb.scratch()));
    assert!(
        o.status.success() && stdout(&o).contains("nothing to clean up"),
        "{}",
        describe(&o)
    );
}

#[test]
fn kill_9_then_the_next_run_in_the_same_directory_cleans_up() {
    if !require_root() {
        return;
    }
    let sb = Sandbox::new();
    kill_9_mounted_run(&sb);
    let o = output(&mut sb.run_std(SMALLEST_CRUD));
    assert!(o.status.success(), "{}", describe(&o));
    assert!(stderr(&o).contains("cleaned up after a killed run"), "{}", describe(&o));
    assert_nothing_left(&sb, "after kill -9 and the next run");
}

#[test]
fn cleanup_leaves_a_mount_it_did_not_make_at_a_recorded_mount_point() {
    if !require_root() {
        return;
    }
    let sb = Sandbox::new();
    let run = sb.scratch().canonicalize().unwrap().join("run-1-1");
    let mp = run.join("fs0");
    std::fs::create_dir_all(&mp).unwrap();
    let record = serde_json::json!({"pid": 0, "entries": [{"image": null, "mount_point": mp}]});
    std::fs::write(run.join("litebench-fs.json"), record.to_string()).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "someone-elses"])
        .arg(&mp)
        .status()
        .expect("mount");
    assert!(mounted.success());
    let mut cmd = sb.command();
    let o = output(cmd.arg("cleanup").arg("--dir").arg(sb.scratch()));
    let still = mounts_under(&mp);
    let _ = std::process::Command::new("umount").arg(&mp).status();
    let line = refusal(&o);
    assert!(line.contains("did not mount"), "{line}");
    assert_eq!(still.len(), 1, "the foreign tmpfs was unmounted");
    assert!(
        run.join("litebench-fs.json").is_file(),
        "the record stays for what was not undone"
    );
}

#[test]
fn bad_fs_values_are_refused_before_anything_is_made() {
    let sb = Sandbox::new();
    let line = refusal(&output(&mut sb.run_std(&["crud", "--fs", "ntfs"])));
    assert!(line.contains("--fs ntfs") && line.contains("valid:"), "{line}");
    let line = refusal(&output(&mut sb.run_std(&["crud", "--fs", "xfs:data=journal"])));
    assert!(line.contains("xfs has no variant"), "{line}");
    let line = refusal(&output(&mut sb.run_std(&["crud", "--fs", "xfs", "--fs-size", "64M"])));
    assert!(line.contains("--fs-size 64M") && line.contains("300 MiB"), "{line}");
    let line = refusal(&output(&mut sb.run_std(&["crud", "--fs", "ext4", "--fs-size", "lots"])));
    assert!(line.contains("--fs-size lots"), "{line}");
    let line = refusal(&output(&mut sb.run_std(&[
        "crud",
        "--fs",
        "ext4",
        "--scheduler",
        "cfq",
    ])));
    assert!(line.contains("--scheduler cfq") && line.contains("valid:"), "{line}");
    let line = refusal(&output(&mut sb.run_std(&[
        "crud",
        "--fs",
        "tmpfs",
        "--scheduler",
        "bfq",
    ])));
    assert!(line.contains("--scheduler") && line.contains("tmpfs"), "{line}");
    let line = refusal(&output(&mut sb.run_std(&["crud", "--scheduler", "bfq"])));
    assert!(line.contains("--scheduler"), "{line}");
    let line = refusal(&output(&mut sb.run_std(&["crud", "--fs", "ext4", "--memory"])));
    assert!(line.contains("--memory"), "{line}");
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
}

#[test]
fn f2fs_on_a_kernel_without_it_names_the_missing_support_and_the_guest() {
    let has_f2fs = std::fs::read_to_string("/proc/filesystems").unwrap().contains("f2fs");
    if has_f2fs || !require_root() {
        eprintln!("skipping: this kernel has F2FS, or not root");
        return;
    }
    let sb = Sandbox::new();
    let line = refusal(&output(&mut sb.run_std(&[
        "crud",
        "--fs",
        "ext4,f2fs",
        "--fs-size",
        "64M",
    ])));
    assert!(
        line.contains("no F2FS support") && line.contains("add --guest"),
        "{line}"
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
}

#[test]
fn without_root_fs_is_refused_in_one_line() {
    if !is_root() || !Path::new("/usr/sbin/runuser").exists() {
        eprintln!("skipping: needs root and runuser to run as nobody");
        return;
    }
    let o = output(
        std::process::Command::new("/usr/sbin/runuser")
            .args(["-u", "nobody", "--"])
            .arg(bin())
            .args([
                "run",
                "crud",
                "--fs",
                "ext4",
                "--dir",
                "/nonexistent",
                "--results",
                "/nonexistent/r.db",
            ])
            .current_dir("/"),
    );
    if stderr(&o).contains("Permission denied") && !stderr(&o).contains("litebench") {
        eprintln!("skipping: nobody cannot execute the test binary here");
        return;
    }
    let line = refusal(&o);
    assert!(line.contains("--fs needs root"), "{line}");
}

/// Schedulers of every block device that is not a loop device: litebench must not change them.
fn real_device_schedulers() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir("/sys/block")
        .expect("/sys/block")
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with("loop"))
        .filter_map(|e| {
            let s = std::fs::read_to_string(e.path().join("queue/scheduler")).ok()?;
            Some((e.file_name().to_string_lossy().into_owned(), s))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn schedulers_are_a_dimension_on_litebenchs_loop_devices_only() {
    if !require_root() {
        return;
    }
    let offered = std::fs::read_to_string("/sys/block/loop0/queue/scheduler").unwrap_or_default();
    if !offered.contains("bfq") {
        eprintln!("skipping: this kernel offers no bfq ({offered})");
        return;
    }
    let sb = Sandbox::new();
    let before = real_device_schedulers();
    let o = output(&mut sb.run_std(&[
        "crud",
        "--fs",
        "ext4,tmpfs",
        "--fs-size",
        "64M",
        "--scheduler",
        "none,bfq",
        "--param",
        "rows=20",
        "--param",
        "inserts=10",
        "--param",
        "updates=10",
        "--param",
        "deletes=10",
        "--trials",
        "2",
        "--warmup",
        "0",
        "--quiet",
    ]));
    assert!(o.status.success(), "{}", describe(&o));
    assert_eq!(
        real_device_schedulers(),
        before,
        "a device litebench did not make changed scheduler"
    );
    let v = json(&output(&mut sb.show_std(&["--format", "json"])));
    let configs = v["manifest"]["configs"].as_array().expect("configs");
    let got: Vec<(String, Option<String>)> = configs
        .iter()
        .map(|c| {
            (
                c["fs"]["spec"].as_str().unwrap().to_string(),
                c["scheduler"].as_str().map(str::to_string),
            )
        })
        .collect();
    // tmpfs has no device: it runs once, without a scheduler.
    let want = vec![
        ("ext4".to_string(), Some("none".to_string())),
        ("ext4".to_string(), Some("bfq".to_string())),
        ("tmpfs".to_string(), None),
    ];
    assert_eq!(got, want);
    for i in 0..configs.len() {
        let ran = v["trials"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["config"] == i)
            .count();
        assert_eq!(ran, 2, "trials of config #{i}");
    }
    assert_nothing_left(&sb, "after a scheduler run");
}

/// Whether any extent of `file` is shared with another file (FIEMAP, as `filefrag -v` shows it).
fn has_shared_extents(file: &Path) -> bool {
    let o = std::process::Command::new("/usr/sbin/filefrag")
        .arg("-v")
        .arg(file)
        .output()
        .expect("filefrag");
    assert!(o.status.success(), "{}", describe(&o));
    stdout(&o).lines().any(|l| l.contains("shared"))
}

#[test]
fn trial_copies_on_btrfs_and_xfs_have_blocks_of_their_own() {
    if !require_root()
        || !require("/usr/sbin/mkfs.xfs", "xfsprogs")
        || !require("/usr/sbin/mkfs.btrfs", "btrfs-progs")
        || !require("/usr/sbin/filefrag", "e2fsprogs")
    {
        return;
    }
    use litebench::testbed::fsmount::Filesystems;
    let sb = Sandbox::new();
    let dir = sb.scratch().canonicalize().unwrap();
    let specs = litebench::testbed::fsspec::parse_all(&["btrfs".into(), "xfs".into()]).unwrap();
    let fss = Filesystems::build(&dir, &specs, 320 << 20, &[]).expect("build btrfs and xfs");
    assert_eq!(fss.len(), specs.len());
    for (i, spec) in specs.iter().enumerate() {
        let s = fss.scratch(i).unwrap();
        let (template, copy, reflink) = (s.path("template.db"), s.path("trial.db"), s.path("reflink.db"));
        let data: Vec<u8> = (0..4u32 << 20)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        std::fs::write(&template, &data).unwrap();
        std::fs::File::open(&template).unwrap().sync_all().unwrap();
        s.copy_durable(&template, &copy).unwrap();
        // The check can see sharing where there is some: a reflink copy shares every extent.
        let cp = std::process::Command::new("cp")
            .arg("--reflink=always")
            .arg(&template)
            .arg(&reflink)
            .status()
            .unwrap();
        assert!(cp.success(), "{} supports reflinks", spec.label());
        assert!(
            has_shared_extents(&reflink),
            "{}: the reflink shows as shared",
            spec.label()
        );
        assert!(
            !has_shared_extents(&copy),
            "{}: the trial copy shares extents",
            spec.label()
        );
        assert_eq!(std::fs::read(&copy).unwrap(), data);
        for f in [&template, &copy, &reflink] {
            std::fs::remove_file(f).unwrap();
        }
    }
    drop(fss);
    assert_nothing_left(&sb, "after building btrfs and xfs from the library");
}

mod forged;
mod guest;
mod qualify;
mod signals;
mod storage;

/// A loop device of the test's own, standing in for a real disk litebench did not make.
struct OwnLoop {
    dev: String,
}

impl OwnLoop {
    fn new(sb: &Sandbox) -> OwnLoop {
        let img = sb.root().join("own-disk.img");
        std::fs::File::create(&img).unwrap().set_len(64 << 20).unwrap();
        let o = std::process::Command::new("losetup")
            .args(["--find", "--show"])
            .arg(&img)
            .output()
            .expect("losetup");
        assert!(o.status.success(), "{}", describe(&o));
        OwnLoop {
            dev: stdout(&o).trim().to_string(),
        }
    }

    fn name(&self) -> &str {
        self.dev.rsplit('/').next().unwrap()
    }

    fn scheduler_file(&self) -> PathBuf {
        PathBuf::from(format!("/sys/block/{}/queue/scheduler", self.name()))
    }

    fn scheduler(&self) -> String {
        let line = std::fs::read_to_string(self.scheduler_file()).unwrap();
        litebench::testbed::scheduler::selected(&line).unwrap().to_string()
    }
}

impl Drop for OwnLoop {
    fn drop(&mut self) {
        let _ = std::process::Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

#[test]
fn scheduler_device_varies_a_device_litebench_did_not_make_and_puts_it_back() {
    if !require_root() {
        return;
    }
    let sb = Sandbox::new();
    let disk = OwnLoop::new(&sb);
    std::fs::write(disk.scheduler_file(), "none").unwrap();
    let tiny = [
        "crud",
        "--param",
        "rows=10",
        "--param",
        "inserts=3",
        "--param",
        "updates=3",
        "--param",
        "deletes=3",
        "--warmup",
        "0",
        "--scheduler",
        "mq-deadline,kyber",
        "--scheduler-device",
    ];
    let mut args: Vec<&str> = tiny.to_vec();
    args.extend([disk.name(), "--trials", "1", "--format", "json"]);
    let o = output(&mut sb.run_std(&args));
    assert!(o.status.success(), "{}", describe(&o));
    let v = json(&o);
    let configs = v["manifest"]["configs"].as_array().unwrap();
    let got: Vec<(String, String)> = configs
        .iter()
        .map(|c| {
            (
                c["scheduler"].as_str().unwrap_or("").to_string(),
                c["scheduler_device"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("mq-deadline".to_string(), disk.name().to_string()),
            ("kyber".to_string(), disk.name().to_string())
        ]
    );
    assert_eq!(disk.scheduler(), "none", "the original is put back after the run");

    // kill -9 while the device is changed: the record lets cleanup put it back.
    let mut args: Vec<&str> = tiny.to_vec();
    args.extend([disk.name(), "--trials", "1000", "--quiet"]);
    let mut child = sb
        .run_std(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while disk.scheduler() == "none" {
        assert!(Instant::now() < deadline, "the device's scheduler never changed");
        std::thread::sleep(Duration::from_millis(50));
    }
    signal(&child, libc::SIGKILL);
    let _ = child.wait();
    assert_ne!(disk.scheduler(), "none", "kill -9 leaves it changed");
    let o = output(sb.command().arg("cleanup").arg("--dir").arg(sb.scratch()));
    assert!(
        o.status.success() && stdout(&o).contains("restored: "),
        "{}",
        describe(&o)
    );
    assert_eq!(disk.scheduler(), "none", "cleanup put the original back");

    let line = refusal(&output(&mut sb.run_std(&[
        "crud",
        "--scheduler",
        "none",
        "--scheduler-device",
        "no-such-disk",
    ])));
    assert!(line.contains("--scheduler-device no-such-disk"), "{line}");
}
