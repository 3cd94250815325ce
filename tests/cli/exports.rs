//! `--export FILE.json|.csv|.md|.txt` on `run`, `show` and `compare`: the files get what the
//! command prints in their formats while the terminal keeps its table, and an export that
//! would replace or write through anything is refused in one line before anything runs.

use crate::cli::common::*;

fn read(p: &std::path::Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn run_writes_each_format_and_still_prints_the_table() {
    let sb = Sandbox::new();
    let (j, c, m) = (
        sb.root().join("r.json"),
        sb.root().join("r.csv"),
        sb.root().join("r.md"),
    );
    let mut cmd = sb.run(SMALLEST_CRUD);
    cmd.arg("--export")
        .arg(&j)
        .arg("--export")
        .arg(&c)
        .arg("--export")
        .arg(&m);
    let out = output(&mut cmd);
    assert_success(&out);
    assert!(stdout(&out).starts_with("run 1 — crud"), "{}", describe(&out));
    let v: serde_json::Value = serde_json::from_str(&read(&j)).unwrap();
    assert_eq!(v["run"]["id"], 1);
    assert_eq!(v["summary"], sb.show_json()["summary"], "the JSON `show` prints");
    let shown = output(&mut sb.show(&["--format", "csv"]));
    assert_eq!(read(&c), stdout(&shown), "the CSV `show` prints");
    assert!(read(&m).starts_with("## run 1 — crud"), "{}", read(&m));

    // show and compare export the same way.
    let (sj, cm) = (sb.root().join("show.json"), sb.root().join("cmp.md"));
    let mut cmd = sb.show(&["--list"]);
    cmd.arg("--export").arg(&sj);
    assert_success(&output(&mut cmd));
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&read(&sj)).unwrap()[0]["id"],
        1
    );
    let mut cmd = sb.litebench();
    cmd.args(["compare", "1", "1", "--results"])
        .arg(sb.results())
        .arg("--export")
        .arg(&cm);
    let out = output(&mut cmd);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(read(&cm).starts_with("## compare run 1"), "{}", read(&cm));
}

#[test]
fn an_export_over_anything_is_refused_before_the_run() {
    let sb = Sandbox::new();
    let there = sb.root().join("there.json");
    std::fs::write(&there, "keep me").unwrap();
    let link = sb.root().join("link.csv");
    std::os::unix::fs::symlink(sb.root().join("elsewhere.csv"), &link).unwrap();
    let store_named = sb.results_dir().join("r.json");
    for (file, part) in [
        (&there, "already exists"),
        (&link, "symbolic link"),
        (&sb.root().join("no/such/dir.md"), "does not exist"),
    ] {
        let mut cmd = sb.run(SMALLEST_CRUD);
        cmd.arg("--export").arg(file);
        let out = output(&mut cmd);
        assert_error_line(&out, &["--export", part]);
    }
    assert!(!sb.results().exists(), "nothing ran, no store was made");
    assert_eq!(read(&there), "keep me");
    assert!(!sb.root().join("elsewhere.csv").exists(), "written through the link");

    let mut cmd = sb.run(SMALLEST_CRUD);
    cmd.arg("--export").arg(sb.root().join("a.xml"));
    assert_clap_error(&output(&mut cmd), &["--export", "FILE.json"]);
    let twice = sb.root().join("t.json");
    let mut cmd = sb.run(SMALLEST_CRUD);
    cmd.arg("--export").arg(&twice).arg("--export").arg(&twice);
    assert_error_line(&output(&mut cmd), &["--export", "given twice"]);
    assert!(!store_named.exists() && !twice.exists());
}
