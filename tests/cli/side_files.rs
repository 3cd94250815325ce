//! Side files another user could have planted (issue 31, item 3): the next `run` imports only
//! this user's own side files from a `--dir` no one else can write, and leaves any other alone
//! with one line pointing to `merge`; `merge` and the import refuse records that do not add up;
//! imported strings lose their control characters; and a real side file still goes in and is
//! removed.
//!
//! The side files here are written by litebench's own `unsaved::write` from the records of a
//! real run (stored first in a donor store), then edited where a test forges something.

use crate::cli::common::*;
use litebench::engines::sqlite::api::Api;
use litebench::engines::sqlite::conn::SqliteConn;
use litebench::engines::Connection;
use litebench::store::unsaved::{self, UnsavedRun};
use litebench::store::{run_uuid, Begun, Store};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// A side file in `dir` for the sandbox's store, holding a fresh copy (new uuid) of a real
/// crud run, after `edit`.
fn side_file(sb: &Sandbox, dir: &Path, edit: impl FnOnce(&mut UnsavedRun)) -> PathBuf {
    let donor = sb.root().join("donor.db");
    if !donor.exists() {
        assert_success(&output(&mut sb.run_in(&sb.scratch(), &donor, SMALLEST_CRUD)));
    }
    let stored = Store::open_read(&donor).unwrap().load(Some(1)).unwrap();
    let begun = Begun {
        id: 1,
        uuid: run_uuid::new_v7(),
        pid: 1,
        host: Some("host".into()),
        boot_id: None,
        name: None,
    };
    let mut run = UnsavedRun::new(
        &begun,
        &stored.manifest,
        "failed",
        "2026-01-01T00:00:00Z",
        Some("disk full"),
        &stored.templates,
        &stored.trials,
    );
    edit(&mut run);
    unsaved::write(dir, &sb.results(), "the disk under the store is full", run).unwrap()
}

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Runs in the store: how many, and their hosts.
fn runs(sb: &Sandbox, store: &Path) -> Vec<serde_json::Value> {
    if !store.exists() {
        return Vec::new();
    }
    let mut cmd = sb.litebench();
    cmd.args(["show", "--list", "--format", "json", "--results"]).arg(store);
    let o = output(&mut cmd);
    assert_success(&o);
    json(&o).as_array().unwrap().clone()
}

/// The `note:` lines of a run's stderr.
fn notes(o: &std::process::Output) -> Vec<String> {
    stderr(o)
        .lines()
        .filter(|l| l.starts_with("note: side file "))
        .map(str::to_string)
        .collect()
}

/// `nobody`'s side file in a sticky, world-writable `--dir`, or in a private one, and a side
/// file others can write: not imported, not removed, one line each pointing to `merge`.
#[test]
fn another_users_side_file_is_left_alone_with_one_line_pointing_to_merge() {
    if !is_root() {
        assert!(!crate::support::in_ci(), "this test needs root (chown) in CI");
        eprintln!("note: not root; skipped");
        return;
    }
    let sb = Sandbox::new();
    let store = sb.results();
    let cases: [(u32, u32, u32, &str); 3] = [
        (0o1777, 65534, 0o644, "can be written by other users (mode 1777)"),
        (0o755, 65534, 0o644, "it belongs to uid 65534, not to this user (uid 0)"),
        (0o755, 0, 0o666, "other users can write to it (mode 0666)"),
    ];
    for (i, (dir_mode, uid, file_mode, why)) in cases.into_iter().enumerate() {
        let dir = sb.root().join(format!("shared{i}"));
        std::fs::create_dir(&dir).unwrap();
        chmod(&dir, dir_mode);
        let side = side_file(&sb, &dir, |_| {});
        std::os::unix::fs::chown(&side, Some(uid), Some(uid)).unwrap();
        chmod(&side, file_mode);
        let before = std::fs::read(&side).unwrap();
        let o = output(&mut sb.run_in(&dir, &store, SMALLEST_CRUD));
        assert_success(&o);
        let notes = notes(&o);
        assert_eq!(notes.len(), 1, "one line\n{}", describe(&o));
        let line = &notes[0];
        assert!(line.contains(why), "{line}");
        assert!(
            line.contains(&format!(
                "`litebench merge {} {}` imports it",
                store.display(),
                side.display()
            )),
            "{line}"
        );
        assert!(!stderr(&o).contains("imported run"), "{}", describe(&o));
        assert_eq!(std::fs::read(&side).unwrap(), before, "left as it was");
        assert_eq!(runs(&sb, &store).len(), i + 1, "only the runs made here");
    }
}

/// Trials that do not add up against their manifest: `merge` refuses the file in one line
/// naming it and what is wrong, and imports nothing from it (no OUT is made); the next `run`
/// leaves it alone too.
#[test]
fn forged_trials_are_refused_by_merge_and_by_the_next_run() {
    let sb = Sandbox::new();
    type Forge = fn(&mut UnsavedRun);
    let forged: [(Forge, &str); 4] = [
        (
            |r| r.trials[0].config = 4_000_000_000,
            "trial 0 names configuration 4000000000, but the manifest has 1 (0 to 0)",
        ),
        (|r| r.manifest.configs.clear(), "its manifest lists no configurations"),
        (|r| r.trials[0].throughput = 300_000_000_000.0, "operations/s, but"),
        (
            // Counts and times that agree with each other, at 300 billion a second.
            |r| {
                let t = &mut r.trials[0];
                for o in &mut t.ops {
                    o.ops *= 1_000_000_000;
                    o.succeeded = Some(o.ops);
                }
                t.total_ops = t.ops.iter().filter(|o| o.part_of.is_none()).map(|o| o.ops).sum();
                t.throughput = t.total_ops as f64 / (t.measured_ns as f64 / 1e9);
            },
            "is more than one per nanosecond per client",
        ),
    ];
    for (i, (forge, why)) in forged.into_iter().enumerate() {
        let dir = sb.root().join(format!("d{i}"));
        std::fs::create_dir(&dir).unwrap();
        let side = side_file(&sb, &dir, forge);
        let out = sb.root().join(format!("out{i}.db"));
        let mut merge = sb.litebench();
        merge.arg("merge").arg(&out).arg(&side);
        let o = output(&mut merge);
        assert_error_line(
            &o,
            &[&format!("{}: refused, nothing imported from it: ", side.display()), why],
        );
        assert!(!out.exists(), "nothing imported");
        // The next run in that --dir leaves it alone, with a line saying why.
        let o = output(&mut sb.run_in(&dir, &sb.results(), SMALLEST_CRUD));
        assert_success(&o);
        let err = stderr(&o);
        assert!(
            err.lines()
                .any(|l| l.starts_with("warning: ") && l.contains(why) && l.ends_with("left as it is")),
            "{err}"
        );
        assert!(side.is_file(), "not removed");
    }
    assert_eq!(runs(&sb, &sb.results()).len(), 4, "only the runs made here");
}

/// A host with a terminal escape goes into the store without it, by `merge` and by the next
/// `run`; the real side file is imported and removed.
#[test]
fn a_real_side_file_is_imported_and_removed_and_its_strings_lose_control_characters() {
    let sb = Sandbox::new();
    let evil = |r: &mut UnsavedRun| {
        r.host = Some("\u{1b}[31mred\u{9b}2Jhost".into());
        r.error = Some("disk\u{1b}]0;title\u{7} full".into());
        r.manifest.configs[0].label = "sqlite\u{1b}[2J".into();
    };
    let side = side_file(&sb, &sb.scratch(), evil);
    let other = sb.root().join("other.db");
    let mut merge = sb.litebench();
    merge.arg("merge").arg(&other).arg(&side);
    assert_success(&output(&mut merge));
    assert!(side.is_file(), "merge leaves its inputs alone");

    let o = output(&mut sb.run(SMALLEST_CRUD));
    assert_success(&o);
    assert!(
        stderr(&o).contains("imported run 1 (failed; trials added: 1)"),
        "{}",
        describe(&o)
    );
    assert!(!side.exists(), "an imported side file of this user's is removed");
    for store in [&other, &sb.results()] {
        let listed = runs(&sb, store);
        assert_eq!(listed[0]["configurations"][0], "sqlite[2J", "{listed:?}");
        // Nothing of the run's row, manifest or records holds a control character.
        let mut c = SqliteConn::open_existing(Api::bundled(), store, "test reader").unwrap();
        let one = |c: &mut SqliteConn, sql: &str| c.query_value(sql).unwrap().unwrap_or_default();
        assert_eq!(one(&mut c, "SELECT host FROM runs WHERE id = 1"), "[31mred2Jhost");
        assert_eq!(one(&mut c, "SELECT error FROM runs WHERE id = 1"), "disk]0;title full");
        let all = one(
            &mut c,
            "SELECT group_concat(x, '') FROM (SELECT manifest AS x FROM runs UNION ALL SELECT record FROM trials UNION ALL SELECT record FROM templates)",
        );
        assert!(
            !all.contains("\\u001b") && !all.contains('\u{9b}') && !all.contains('\u{1b}'),
            "{all}"
        );
    }
}
