//! What another user can put where root's litebench looks (issue 45): a directory named like
//! a SQLite release in the working directory, a results store through a link or writable by
//! others; and inputs that used to give unclear or endless messages (a device as a source, a
//! payload past SQLite's limit, a megabyte of parameter, a selection of every release).

use crate::cli::common::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// `litebench` in the sandbox with its own build cache and no way out to the network: curl
/// meets a closed port at once, so a fetch fails without waiting.
fn offline(sb: &Sandbox) -> (assert_cmd::Command, PathBuf) {
    let cache = sb.root().join("cache");
    let mut cmd = sb.litebench();
    cmd.env("LITEBENCH_CACHE", &cache)
        .env("https_proxy", "http://127.0.0.1:9")
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("http_proxy", "http://127.0.0.1:9")
        .env_remove("no_proxy")
        .env_remove("NO_PROXY");
    (cmd, cache)
}

fn plant_release_directory(cwd: &Path) {
    let dir = cwd.join("3.45.1");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(
        dir.join("sqlite3.c"),
        "#define SQLITE_VERSION \"3.45.1\"\n__attribute__((constructor)) static void planted(void) {}\nint planted_marker(void) { return 1; }\n",
    )
    .unwrap();
}

#[test]
fn a_release_number_is_fetched_never_read_from_a_directory_of_that_name() {
    let sb = Sandbox::new();
    plant_release_directory(&sb.cwd());
    let (mut cmd, cache) = offline(&sb);
    let o = output(cmd.args(["build-sqlite", "3.45.1"]));
    let line = assert_error_line(&o, &["SRC 3.45.1", "cannot download"]);
    assert!(!line.contains("sqlite3.c"), "{line}");
    assert!(
        !cache.join("sqlite").exists(),
        "nothing was compiled: {:?}",
        listing(&cache)
    );
    // The failed download left no empty directory of its own behind.
    assert!(!cache.join("sqlite-sources").exists(), "{:?}", listing(&cache));
    // Written as a path, the directory is what is built.
    let (mut cmd, cache) = offline(&sb);
    let o = output(cmd.args(["build-sqlite", "./3.45.1"]));
    assert_success(&o);
    assert!(stderr(&o).contains("from ./3.45.1/sqlite3.c"), "{}", describe(&o));
    assert!(cache.join("sqlite").is_dir());
    // That build, in the cache as "3.45.1", is not release 3.45.1: selected by number, the
    // release is fetched (and here cannot be), never the planted build loaded.
    let (mut cmd, _) = offline(&sb);
    let o = output(
        cmd.args([
            "run",
            "crud",
            "--engine",
            "sqlite@3.45.1",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--quiet",
        ])
        .args(TINY_PARAMS),
    );
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    assert!(stderr(&o).contains("cannot download"), "{}", describe(&o));
}

#[test]
fn a_device_is_no_source() {
    let sb = Sandbox::new();
    let (mut cmd, _) = offline(&sb);
    let o = output(cmd.args(["build-sqlite", "/dev/zero"]));
    assert_error_line(
        &o,
        &["SRC /dev/zero", "not a regular file", "not a SQLite amalgamation"],
    );
}

#[test]
fn a_results_store_through_a_dangling_link_is_refused_and_nothing_is_created() {
    let sb = Sandbox::new();
    let target = sb.root().join("elsewhere.db");
    let link = sb.results_dir().join("link.db");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let o = output(&mut sb.run_in(&sb.scratch(), &link, SMALLEST_CRUD));
    assert_error_line(&o, &[&format!("--results {}", link.display()), "is a symbolic link"]);
    assert!(!target.exists(), "no store created where the link points");
}

#[test]
fn a_results_store_others_can_write_or_another_users_is_refused() {
    let sb = Sandbox::new();
    let store = sb.results();
    std::fs::write(&store, "").unwrap();
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o666)).unwrap();
    let o = output(&mut sb.run(SMALLEST_CRUD));
    assert_error_line(
        &o,
        &[&format!("--results {}", store.display()), "mode 0666", "chmod go-w"],
    );
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o644)).unwrap();
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        std::os::unix::fs::chown(&store, Some(65534), None).unwrap();
        let o = output(&mut sb.run(SMALLEST_CRUD));
        assert_error_line(&o, &["--results", "belongs to uid 65534", "chown 0"]);
    }
    assert_eq!(std::fs::metadata(&store).unwrap().len(), 0, "the store was not written");
}

#[test]
fn a_payload_past_sqlites_limit_is_refused_naming_it() {
    let sb = Sandbox::new();
    let o = output(&mut sb.run(&["aging", "--param", "payload=1GiB", "--dry-run"]));
    assert_error_line(&o, &["--param payload=1GiB", "invalid value", "999999000"]);
}

#[test]
fn a_huge_value_is_quoted_cut_short() {
    let sb = Sandbox::new();
    // As long as one argument may be (the kernel's 128 KiB).
    let rows = format!("rows={}", "9".repeat(120_000));
    let o = output(&mut sb.run(&["crud", "--param", &rows, "--dry-run"]));
    let line = assert_error_line(&o, &["--param rows=999", "bytes): invalid value"]);
    assert!(line.len() < 500, "{} bytes", line.len());
}

#[test]
fn every_release_is_counted_and_timed_before_any_is_built() {
    let sb = Sandbox::new();
    let (mut cmd, _) = offline(&sb);
    let o = output(cmd.args(["run", "crud", "--engine", "sqlite@all", "--dry-run"]));
    assert_success(&o);
    let out = stdout(&o).replace("\n  ", " ");
    assert!(out.contains("SQLite builds to make first ("), "{out}");
    assert!(out.contains(" h ") && out.contains("one at a time"), "{out}");
}

/// As root, a source another user owns (or one others can write) is never compiled: its
/// constructor would run as root.
#[test]
fn a_source_another_user_owns_or_can_write_is_not_compiled() {
    if !is_root() {
        eprintln!("skipping: needs root to give files away");
        return;
    }
    let sb = Sandbox::new();
    plant_release_directory(&sb.cwd());
    let src = sb.cwd().join("3.45.1").join("sqlite3.c");
    std::os::unix::fs::chown(&src, Some(65534), None).unwrap();
    let (mut cmd, cache) = offline(&sb);
    let o = output(cmd.args(["build-sqlite", "./3.45.1"]));
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    assert_error_line(
        &o,
        &["is owned by uid 65534, not root: root runs no source it compiles"],
    );
    assert!(!cache.join("sqlite").exists(), "nothing was compiled");
    std::os::unix::fs::chown(&src, Some(0), None).unwrap();
    std::fs::set_permissions(&src, std::fs::Permissions::from_mode(0o666)).unwrap();
    let (mut cmd, _) = offline(&sb);
    let o = output(cmd.args(["build-sqlite", "./3.45.1"]));
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    assert_error_line(
        &o,
        &["is writable by its group and everyone (mode 0666): litebench runs no source it compiles"],
    );
}
