//! Forged cleanup records: a record in a `run-*` directory that names a file, mount or loop
//! device litebench did not make there is refused, and what it names is left as it was.

use super::*;
use std::process::Command;

fn sh(cmd: &str, args: &[&str]) -> String {
    let o = Command::new(cmd).args(args).output().expect(cmd);
    assert!(o.status.success(), "{cmd} {args:?}: {}", describe(&o));
    stdout(&o).trim().to_string()
}

/// The user's own mounts and loop devices, undone when the test ends however it ends.
#[derive(Default)]
struct Users {
    mounts: Vec<PathBuf>,
    loops: Vec<String>,
    children: Vec<Child>,
}

impl Drop for Users {
    fn drop(&mut self) {
        for mp in self.mounts.iter().rev() {
            let _ = Command::new("umount").arg(mp).status();
        }
        for dev in &self.loops {
            let _ = Command::new("losetup").args(["-d", dev]).status();
        }
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .unwrap()
        .trim()
        .to_string()
}

/// A record of a run that is dead on this host: its pid exists with another start time (or not
/// at all), on this boot.
fn dead_record(entries: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"pid": std::process::id(), "start_time": 1, "boot_id": boot_id(), "entries": entries})
}

fn write(run: &Path, record: &serde_json::Value) {
    std::fs::create_dir_all(run).unwrap();
    std::fs::write(run.join("litebench-fs.json"), record.to_string()).unwrap();
}

fn backing(dev: &str) -> Option<String> {
    let name = dev.trim_start_matches("/dev/");
    std::fs::read_to_string(format!("/sys/block/{name}/loop/backing_file"))
        .ok()
        .map(|s| s.trim().to_string())
}

#[test]
fn forged_records_leave_the_victims_file_mounts_and_loop_devices_alone() {
    if !require_root() || !require("/usr/sbin/mkfs.ext4", "e2fsprogs") {
        return;
    }
    let sb = Sandbox::new();
    let scratch = sb.scratch().canonicalize().unwrap();
    let root = sb.root().canonicalize().unwrap();
    let mut users = Users::default();

    // The victim: a file outside the scratch directory, with the user's own loop device on it.
    let victim = root.join("victim");
    std::fs::write(&victim, vec![7u8; 1 << 20]).unwrap();
    let victim_loop = sh("losetup", &["--find", "--show", victim.to_str().unwrap()]);
    users.loops.push(victim_loop.clone());
    // The user's own ext4 on a loop device, and a tmpfs, both mounted inside run directories.
    let user_img = root.join("user.img");
    std::fs::write(&user_img, vec![0u8; 8 << 20]).unwrap();
    let user_loop = sh("losetup", &["--find", "--show", user_img.to_str().unwrap()]);
    users.loops.push(user_loop.clone());
    sh("mkfs.ext4", &["-q", &user_loop]);
    let user_tmpfs = root.join("user-tmpfs");
    std::fs::create_dir(&user_tmpfs).unwrap();

    let id = |p: &Path| {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(p).unwrap();
        serde_json::json!({"dev": m.dev(), "ino": m.ino()})
    };
    // 1: the image is the victim, anywhere.
    let r1 = scratch.join("run-1-1");
    write(
        &r1,
        &dead_record(serde_json::json!([{"image": victim, "mount_point": r1.join("fs0"), "image_id": id(&victim)}])),
    );
    // 2: the image reached through `..`.
    let r2 = scratch.join("run-2-2");
    write(
        &r2,
        &dead_record(serde_json::json!([{"image": r2.join("../../victim"), "mount_point": r2.join("fs0")}])),
    );
    // 3: the image is a symbolic link to the victim.
    let r3 = scratch.join("run-3-3");
    std::fs::create_dir(&r3).unwrap();
    std::os::unix::fs::symlink(&victim, r3.join("fs0.img")).unwrap();
    write(
        &r3,
        &dead_record(serde_json::json!([{"image": r3.join("fs0.img"), "mount_point": r3.join("fs0")}])),
    );
    // 4: the mount point is a symbolic link to the user's tmpfs.
    sh(
        "mount",
        &[
            "-t",
            "tmpfs",
            "-o",
            "size=1m",
            "users-tmpfs",
            user_tmpfs.to_str().unwrap(),
        ],
    );
    users.mounts.push(user_tmpfs.clone());
    let r4 = scratch.join("run-4-4");
    std::fs::create_dir(&r4).unwrap();
    std::os::unix::fs::symlink(&user_tmpfs, r4.join("fs0")).unwrap();
    write(
        &r4,
        &dead_record(serde_json::json!([{"image": null, "mount_point": r4.join("fs0")}])),
    );
    // 5: the user's own ext4 mounted at a recorded mount point, the record claiming its image.
    let r5 = scratch.join("run-5-5");
    std::fs::create_dir_all(r5.join("fs0")).unwrap();
    sh("mount", &[&user_loop, r5.join("fs0").to_str().unwrap()]);
    users.mounts.push(r5.join("fs0"));
    write(
        &r5,
        &dead_record(
            serde_json::json!([{"image": r5.join("fs0.img"), "mount_point": r5.join("fs0"), "image_id": id(&user_img), "loop_device": user_loop}]),
        ),
    );
    // 6: the user's tmpfs at a recorded mount point.
    let r6 = scratch.join("run-6-6");
    std::fs::create_dir_all(r6.join("fs0")).unwrap();
    sh(
        "mount",
        &[
            "-t",
            "tmpfs",
            "-o",
            "size=1m",
            "tmpfs",
            r6.join("fs0").to_str().unwrap(),
        ],
    );
    users.mounts.push(r6.join("fs0"));
    write(
        &r6,
        &dead_record(serde_json::json!([{"image": null, "mount_point": r6.join("fs0")}])),
    );
    // 7: a record whose owner is alive (pid and start time of a running process, this boot).
    let sleeper = Command::new("sleep").arg("600").spawn().unwrap();
    let pid = sleeper.id();
    users.children.push(sleeper);
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let started: u64 = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .nth(19)
        .unwrap()
        .parse()
        .unwrap();
    let r7 = scratch.join("run-7-7");
    std::fs::create_dir(&r7).unwrap();
    std::fs::write(r7.join("fs0.img"), b"in use").unwrap();
    write(
        &r7,
        &serde_json::json!({"pid": pid, "start_time": started, "boot_id": boot_id(),
            "entries": [{"image": r7.join("fs0.img"), "mount_point": r7.join("fs0"), "image_id": id(&r7.join("fs0.img"))}]}),
    );

    // 8: a run directory that is a symbolic link to another directory, whose record lists a
    // file there.
    let elsewhere = root.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("precious.db"), b"mine").unwrap();
    let files = |names: serde_json::Value| serde_json::json!({"pid": std::process::id(), "start_time": 1, "boot_id": boot_id(), "files": names});
    std::fs::write(
        elsewhere.join("litebench-run.json"),
        files(serde_json::json!(["precious.db"])).to_string(),
    )
    .unwrap();
    let r8 = scratch.join("run-8-8");
    std::os::unix::fs::symlink(&elsewhere, &r8).unwrap();
    // 9: a run's file list naming the victim through `..`, and a link to it.
    let r9 = scratch.join("run-9-9");
    std::fs::create_dir(&r9).unwrap();
    std::os::unix::fs::symlink(&victim, r9.join("t.db")).unwrap();
    std::fs::write(
        r9.join("litebench-run.json"),
        files(serde_json::json!(["../../victim", "t.db"])).to_string(),
    )
    .unwrap();

    let o = output(sb.command().arg("cleanup").arg("--dir").arg(&scratch));
    eprintln!("--- litebench cleanup on forged records ---\n{}", describe(&o));

    // Nothing named was touched.
    assert_eq!(std::fs::read(&victim).unwrap(), vec![7u8; 1 << 20], "the victim file");
    assert_eq!(
        backing(&victim_loop).as_deref(),
        victim.to_str(),
        "the victim's loop device"
    );
    assert_eq!(
        backing(&user_loop).as_deref(),
        user_img.to_str(),
        "the user's loop device"
    );
    assert_eq!(mounts_under(&r5).len(), 1, "the user's ext4");
    assert_eq!(mounts_under(&r6).len(), 1, "the user's tmpfs in a run directory");
    assert_eq!(mounts_under(&user_tmpfs).len(), 1, "the user's tmpfs behind a link");
    assert!(r3.join("fs0.img").is_symlink() && r7.join("fs0.img").is_file());
    assert_eq!(std::fs::read(elsewhere.join("precious.db")).unwrap(), b"mine");
    assert!(r9.join("t.db").is_symlink());
    // ...and each refusal is said, one line each, with a failing exit status.
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    let refused: Vec<&str> = err.lines().filter(|l| l.starts_with("refused: ")).collect();
    assert_eq!(refused.len(), 9, "one refusal per forged thing: {err}");
    for (run, why) in [
        (&r1, "outside the run directory"),
        (&r2, "`..`"),
        (&r3, "symbolic link"),
        (&r4, "symbolic link"),
        (&r5, "did not mount"),
        (&r6, "did not mount"),
        (&r8, "symbolic link"),
        (&r9, "../../victim"),
        (&r9, "t.db: a symbolic link"),
    ] {
        let name = run.file_name().unwrap().to_str().unwrap();
        assert!(
            refused.iter().any(|l| l.contains(name) && l.contains(why)),
            "{name}: {why}: {err}"
        );
    }
    assert!(
        err.lines()
            .any(|l| l.starts_with("left alone: ") && l.contains("run-7-7") && l.contains("still running")),
        "{err}"
    );
    assert!(
        stdout(&o).lines().all(|l| !l.starts_with("undone: ")),
        "{}",
        describe(&o)
    );
}

#[test]
fn a_dir_other_users_can_write_to_is_refused() {
    if !require_root() {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let run = sb.scratch().canonicalize().unwrap().join("run-1-1");
    std::fs::create_dir(&run).unwrap();
    std::fs::write(run.join("fs0.img"), b"x").unwrap();
    write(
        &run,
        &dead_record(serde_json::json!([{"image": run.join("fs0.img"), "mount_point": run.join("fs0")}])),
    );
    std::fs::set_permissions(sb.scratch(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let line = refusal(&output(sb.command().arg("cleanup").arg("--dir").arg(sb.scratch())));
    assert!(line.contains("chmod go-w") && line.contains("0777"), "{line}");
    // The next run there says so once, runs, and leaves the record's image alone.
    let o = output(&mut sb.run_std(SMALLEST_CRUD));
    assert!(o.status.success(), "{}", describe(&o));
    let warnings: Vec<String> = stderr(&o)
        .lines()
        .filter(|l| l.contains("chmod go-w"))
        .map(String::from)
        .collect();
    assert_eq!(warnings.len(), 1, "{}", describe(&o));
    assert!(run.join("fs0.img").is_file());
}
