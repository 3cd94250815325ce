//! `litebench qualify` on filesystems made for the test: tmpfs, a FUSE mount (bindfs, with
//! `direct_io`, where a shared mapping is refused), and ext4 and xfs on loop devices; each gets
//! the verdict its semantics deserve. Needs root (as CI has) and bindfs (Debian's package).

use super::require_root;
use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A filesystem mounted on a directory of the sandbox, unmounted when dropped.
struct Mounted {
    at: PathBuf,
    fuse: bool,
}

impl Mounted {
    fn run(cmd: &mut Command) {
        let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
        assert!(
            out.status.success(),
            "{cmd:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn tmpfs(sb: &Sandbox) -> Mounted {
        let at = sb.root().join("tmpfs");
        std::fs::create_dir(&at).unwrap();
        Mounted::run(
            Command::new("mount")
                .args(["-t", "tmpfs", "-o", "size=64m", "qualify-test"])
                .arg(&at),
        );
        Mounted { at, fuse: false }
    }

    fn bindfs_direct_io(sb: &Sandbox) -> Mounted {
        let (src, at) = (sb.root().join("fuse-src"), sb.root().join("fuse"));
        std::fs::create_dir(&src).unwrap();
        std::fs::create_dir(&at).unwrap();
        Mounted::run(Command::new("bindfs").args(["-o", "direct_io"]).arg(&src).arg(&at));
        Mounted { at, fuse: true }
    }

    /// `mkfs` on a sparse image of `mib` MiB, mounted through a loop device that goes with the
    /// unmount.
    fn image(sb: &Sandbox, fs: &str, mib: u64) -> Mounted {
        let image = sb.root().join(format!("{fs}.img"));
        std::fs::File::create(&image).unwrap().set_len(mib << 20).unwrap();
        Mounted::run(Command::new(format!("mkfs.{fs}")).arg("-q").arg(&image));
        let at = sb.root().join(fs);
        std::fs::create_dir(&at).unwrap();
        Mounted::run(Command::new("mount").args(["-o", "loop"]).arg(&image).arg(&at));
        Mounted { at, fuse: false }
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let mut cmd = if self.fuse {
            Command::new("fusermount")
        } else {
            Command::new("umount")
        };
        if self.fuse {
            cmd.arg("-u");
        }
        let _ = cmd.arg(&self.at).status();
    }
}

/// `litebench qualify --format json --dir DIR`, which must succeed and leave DIR as it was.
fn qualify(sb: &Sandbox, dir: &Path) -> serde_json::Value {
    let before = listing(dir);
    let out = sb
        .command()
        .args(["qualify", "--format", "json", "--dir"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(listing(dir), before, "qualify left files behind in {}", dir.display());
    serde_json::from_slice(&out.stdout).expect("qualify's JSON")
}

fn verdict<'a>(v: &'a serde_json::Value, mode: &str) -> &'a serde_json::Value {
    v["verdicts"]
        .as_array()
        .expect("verdicts")
        .iter()
        .find(|m| m["mode"] == mode)
        .unwrap_or_else(|| panic!("no verdict for {mode}: {}", v["verdicts"]))
}

const MODES: [&str; 3] = ["delete (truncate, persist)", "wal", "wal, locking_mode=exclusive"];

#[test]
fn on_tmpfs_every_mode_is_safe_between_processes_and_nothing_survives_power_loss() {
    if !require_root() {
        return;
    }
    let sb = Sandbox::new();
    let m = Mounted::tmpfs(&sb);
    let v = qualify(&sb, &m.at);
    for mode in MODES {
        let m = verdict(&v, mode);
        assert_eq!(
            (m["between_processes"].as_str(), m["after_power_loss"].as_str()),
            (Some("safe"), Some("unsafe")),
            "{m}"
        );
        assert!(m["why"].as_str().unwrap().contains("tmpfs is memory"), "{m}");
    }
}

#[test]
fn on_fuse_with_direct_io_wal_is_unsafe_for_want_of_a_shared_mapping() {
    if !require_root() || !require("/usr/bin/bindfs", "bindfs") {
        return;
    }
    let sb = Sandbox::new();
    let m = Mounted::bindfs_direct_io(&sb);
    let v = qualify(&sb, &m.at);
    assert_eq!(v["shared_memory"]["result"], "no", "{}", v["shared_memory"]);
    let wal = verdict(&v, "wal");
    assert_eq!(wal["between_processes"], "unsafe", "{wal}");
    assert!(wal["why"].as_str().unwrap().contains("locking_mode=exclusive"), "{wal}");
    for mode in ["delete (truncate, persist)", "wal, locking_mode=exclusive"] {
        assert_eq!(verdict(&v, mode)["between_processes"], "safe", "{}", verdict(&v, mode));
    }
    let notes = v["notes"].to_string();
    assert!(notes.contains("on this mount of this machine only"), "{notes}");
}

#[test]
fn ext4_and_xfs_on_loop_devices_qualify_for_every_mode() {
    if !require_root() {
        return;
    }
    let sb = Sandbox::new();
    for (fs, mib) in [("ext4", 64), ("xfs", 320)] {
        let m = Mounted::image(&sb, fs, mib);
        let v = qualify(&sb, &m.at);
        assert_eq!(v["environment"]["storage"]["fs_type"], fs);
        for mode in MODES {
            let m = verdict(&v, mode);
            assert_eq!(m["verdict"], "safe", "{fs}: {m}");
        }
        assert_eq!(v["files"]["fallocate"]["result"], "yes", "{fs}");
    }
}
