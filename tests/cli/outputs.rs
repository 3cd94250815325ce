//! Files litebench writes for the user (`report -o`, `run --report`, `--plots`, `merge OUT`)
//! appear complete or not at all, never in place of anything: not the results store or an
//! input named by mistake (by any name: a hard or symbolic link), not an existing file, not
//! through a symbolic link (dangling or not), and not truncated by a full disk.

use crate::cli::common::*;
use crate::cli::disk_full::Tmpfs;
use std::os::unix::fs::symlink;
use std::path::Path;

fn digest(p: &Path) -> Vec<u8> {
    use sha2::Digest;
    sha2::Sha256::digest(std::fs::read(p).unwrap()).to_vec()
}

/// A sandbox whose store holds one run.
fn one_run() -> Sandbox {
    let sb = Sandbox::new();
    assert_success(&output(&mut sb.run(SMALLEST_CRUD)));
    sb
}

/// How many runs `store` lists (the store must still be readable).
fn runs_in(sb: &Sandbox, store: &Path) -> usize {
    let mut cmd = sb.litebench();
    cmd.args(["show", "--list", "--format", "json", "--results"]).arg(store);
    let o = output(&mut cmd);
    assert_success(&o);
    json(&o).as_array().expect("a list").len()
}

fn report(sb: &Sandbox, args: &[&str]) -> std::process::Output {
    output(&mut sb.stored(&[&["report"], args].concat()))
}

fn merge(sb: &Sandbox, out: &Path, inputs: &[&Path]) -> std::process::Output {
    let mut cmd = sb.litebench();
    cmd.arg("merge").arg(out).args(inputs);
    output(&mut cmd)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_report_is_never_written_over_the_results_store() {
    let sb = one_run();
    let store = sb.results();
    let hard = sb.root().join("hard.db");
    std::fs::hard_link(&store, &hard).unwrap();
    let sym = sb.root().join("sym.db");
    symlink(&store, &sym).unwrap();
    let before = digest(&store);
    for out in [&store, &hard, &sym] {
        let o = report(&sb, &["1", "-o", s(out)]);
        assert_error_line(&o, &["-o", s(out), "is also the results store"]);
    }
    assert_eq!(digest(&store), before, "the store changed");
    assert_eq!(runs_in(&sb, &store), 1);
}

#[test]
fn run_refuses_a_report_that_is_its_results_store_before_measuring() {
    // A store the run would create.
    let sb = Sandbox::new();
    let new = sb.root().join("new.db");
    let o = output(&mut sb.run_in(&sb.scratch(), &new, &[SMALLEST_CRUD, &["--report", s(&new)]].concat()));
    assert_error_line(&o, &["--report", "is also the results store"]);
    assert!(!new.exists(), "nothing was stored");
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
    // A store with a run in it.
    let sb = one_run();
    let store = sb.results();
    let o = output(&mut sb.run(&[SMALLEST_CRUD, &["--report", s(&store)]].concat()));
    assert_error_line(&o, &["--report", "is also the results store"]);
    assert_eq!(runs_in(&sb, &store), 1, "no run was added and the first is kept");
}

#[test]
fn an_existing_output_is_refused_and_kept() {
    let sb = one_run();
    let mine = sb.root().join("mine.html");
    std::fs::write(&mine, "mine").unwrap();
    let o = report(&sb, &["-o", s(&mine)]);
    assert_error_line(
        &o,
        &["-o", s(&mine), "already exists", "remove it or choose another path"],
    );
    let o = output(&mut sb.run(&[SMALLEST_CRUD, &["--report", s(&mine)]].concat()));
    assert_error_line(&o, &["--report", s(&mine), "already exists"]);
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "mine");
    assert_eq!(runs_in(&sb, &sb.results()), 1, "refused before anything ran");
}

#[test]
fn a_symbolic_link_as_output_is_refused_and_never_followed() {
    let sb = one_run();
    let victim = sb.root().join("victim.txt");
    std::fs::write(&victim, "keep").unwrap();
    let to_file = sb.root().join("to-file.html");
    symlink(&victim, &to_file).unwrap();
    let nowhere = sb.root().join("nowhere.html");
    let dangling = sb.root().join("dangling.html");
    symlink(&nowhere, &dangling).unwrap();
    for link in [&to_file, &dangling] {
        let o = report(&sb, &["-o", s(link)]);
        assert_error_line(&o, &["-o", s(link), "symbolic link"]);
        let o = output(&mut sb.run(&[SMALLEST_CRUD, &["--report", s(link)]].concat()));
        assert_error_line(&o, &["--report", s(link), "symbolic link"]);
        let o = merge(&sb, link, &[&sb.results()]);
        assert_error_line(&o, &["merge OUT", s(link), "symbolic link"]);
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    assert!(
        !nowhere.exists(),
        "litebench created the file a dangling link points at"
    );
    assert_eq!(runs_in(&sb, &sb.results()), 1);
}

#[test]
fn plots_never_follow_a_link_named_like_a_chart() {
    let sb = one_run();
    let plots = sb.root().join("plots");
    std::fs::create_dir(&plots).unwrap();
    let elsewhere = sb.root().join("elsewhere.svg");
    symlink(&elsewhere, plots.join("run1-trials.svg")).unwrap();
    let page = sb.root().join("page.html");
    let o = report(&sb, &["-o", s(&page), "--plots", s(&plots)]);
    assert_error_line(&o, &["--plots", "run1-trials.svg", "symbolic link"]);
    assert!(!elsewhere.exists(), "litebench wrote through the link");
    assert!(!page.exists());
    assert_eq!(listing(&plots), ["run1-trials.svg"]);
}

#[test]
fn merge_never_takes_an_input_as_out_by_any_name() {
    let sb = one_run();
    let a = sb.results();
    let b = sb.root().join("b.db");
    assert_success(&output(&mut sb.run_in(&sb.scratch(), &b, SMALLEST_CRUD)));
    let hard = sb.root().join("a-hard.db");
    std::fs::hard_link(&a, &hard).unwrap();
    let sym = sb.root().join("a-sym.db");
    symlink(&a, &sym).unwrap();
    let before = digest(&a);
    for same in [&a, &hard, &sym] {
        let o = merge(&sb, &a, &[&b, same]);
        assert_error_line(&o, &["merge", s(same), "it is also OUT"]);
    }
    assert_eq!(digest(&a), before);
    assert_eq!(runs_in(&sb, &a), 1);
}

#[test]
fn merge_of_a_corrupt_store_leaves_no_out() {
    let sb = one_run();
    // The schema (page 1) is intact, every table's pages are not.
    let corrupt = sb.root().join("corrupt.db");
    let mut bytes = std::fs::read(sb.results()).unwrap();
    assert!(bytes.len() > 8192, "a store of several pages");
    for b in &mut bytes[4096..] {
        *b = 0x55;
    }
    std::fs::write(&corrupt, bytes).unwrap();
    let dir = sb.root().join("out");
    std::fs::create_dir(&dir).unwrap();
    let out = dir.join("all.db");
    let o = merge(&sb, &out, &[&corrupt]);
    assert_no_panic(&o);
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    assert_eq!(listing(&dir), Vec::<String>::new(), "no OUT, nor any file of it");
}

/// On a full disk: no partial report, no empty chart file, no empty merged store; and a good
/// report already there is never touched.
#[test]
fn a_full_disk_leaves_no_partial_output() {
    let sb = one_run();
    let Some(fs) = Tmpfs::mount(&sb) else { return };
    let good = fs.dir().join("good.html");
    assert_success(&report(&sb, &["-o", s(&good)]));
    let good_bytes = std::fs::read(&good).unwrap();
    let plots = fs.dir().join("plots");
    std::fs::create_dir(&plots).unwrap();
    fs.fill();

    let page = fs.dir().join("page.html");
    let o_page = report(&sb, &["-o", s(&page)]);
    let elsewhere = sb.root().join("page.html");
    let o_plots = report(&sb, &["-o", s(&elsewhere), "--plots", s(&plots)]);
    let all = fs.dir().join("all.db");
    let o_merge = merge(&sb, &all, &[&sb.results()]);
    // What is on the disk first (today's code left a 0-byte page, SVG and all.db there), then
    // what was said.
    assert_eq!(listing(&plots), Vec::<String>::new(), "a chart file on the full disk");
    assert_eq!(
        listing(fs.dir()),
        ["filler", "good.html", "plots"],
        "{}",
        describe(&o_merge)
    );
    assert!(!elsewhere.exists());
    assert_error_line(&o_page, &["-o", s(&page), "cannot write", "nothing was written"]);
    assert_error_line(&o_plots, &["--plots", "cannot write"]);
    assert_no_panic(&o_merge);
    assert_eq!(o_merge.status.code(), Some(2), "{}", describe(&o_merge));
    assert_eq!(runs_in(&sb, &sb.results()), 1);

    let o = report(&sb, &["-o", s(&good)]);
    assert_error_line(&o, &["-o", s(&good), "already exists"]);
    assert_eq!(std::fs::read(&good).unwrap(), good_bytes, "the good report changed");
}
