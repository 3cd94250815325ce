//! `verify-durability`: the verdict table held against SQLite's documentation, real SIGKILLs
//! held against the simulation, the stored evidence, and bad input.

use crate::cli::common::*;
use assert_cmd::Command;
use serde_json::Value;

/// `litebench verify-durability ARGS --dir <scratch> --results <store>`.
fn verify_cmd(sb: &Sandbox, args: &[&str]) -> Command {
    let mut cmd = sb.litebench();
    cmd.arg("verify-durability")
        .args(args)
        .arg("--dir")
        .arg(sb.scratch())
        .arg("--results")
        .arg(sb.results());
    cmd
}

/// [`verify_cmd`] with `--format json`, which must succeed; its JSON.
fn verify(sb: &Sandbox, args: &[&str]) -> Value {
    let out = output(verify_cmd(sb, args).args(["--format", "json"]));
    assert_success(&out);
    json(&out)
}

fn cell<'a>(v: &'a Value, mode: &str, sync: &str, crash: &str) -> &'a Value {
    v["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["config"]["journal_mode"] == mode && c["config"]["synchronous"] == sync && c["crash"] == crash)
        .unwrap_or_else(|| panic!("no cell {mode}/{sync} {crash}"))
}

/// What SQLite's documentation says (pragma.html#pragma_synchronous and #pragma_journal_mode,
/// wal.html), restated here independently of the tool's own table: `durable`, `may-lose`,
/// `consistent` (no corruption; loss not discussed) or `may-corrupt`.
fn documented(mode: &str, sync: &str, crash: &str) -> &'static str {
    match (mode, sync, crash) {
        ("memory" | "off", _, _) => "may-corrupt",
        (_, _, "process") => "durable",
        (_, "off", _) => "may-corrupt",
        ("wal", "normal", _) => "may-lose",
        ("wal", _, _) => "durable",
        ("delete", "full", _) => "may-lose",
        (_, "normal", _) => "consistent",
        _ => "durable",
    }
}

/// Where the tool finds more than the documentation says, each explained in docs/durability.md:
/// with `synchronous=NORMAL` a rollback journal's header and its page records share one sync,
/// so a disk that reorders or tears writes can leave a header that promises records that never
/// arrived; SQLite's journal checksum samples only every 200th byte of a page, so a record
/// of zeros can pass it, and rollback writes it over a good page.
const FOUND_BEYOND_THE_DOCS: &[(&str, &str, &str, &str)] = &[
    ("delete", "normal", "power", "may-corrupt"),
    ("truncate", "normal", "power", "may-corrupt"),
    ("persist", "normal", "power", "may-corrupt"),
];

fn verdict_class(c: &Value) -> &str {
    c["verdict"]["verdict"].as_str().unwrap()
}

#[test]
fn the_verdict_table_holds_against_sqlites_documentation() {
    let sb = Sandbox::new();
    let v = verify(&sb, &["--all", "--transactions", "2", "--states", "1500"]);
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(
        cells.len(),
        48,
        "6 journal modes x 4 synchronous levels x 2 crash kinds"
    );
    for c in cells {
        let (mode, sync, crash) = (
            c["config"]["journal_mode"].as_str().unwrap(),
            c["config"]["synchronous"].as_str().unwrap(),
            c["crash"].as_str().unwrap(),
        );
        let got = verdict_class(c);
        assert!(c["states"].as_u64().unwrap() > 0, "{c}");
        let beyond = FOUND_BEYOND_THE_DOCS
            .iter()
            .find(|(m, s, k, _)| (*m, *s, *k) == (mode, sync, crash));
        let ok = match (beyond, documented(mode, sync, crash)) {
            (Some((.., want)), _) => got == *want,
            (None, "consistent") => got == "durable" || got == "may-lose",
            (None, want) => got == want,
        };
        assert!(
            ok,
            "{mode}/{sync} {crash}: the tool says {got}, the docs {}\n{c:#}",
            documented(mode, sync, crash)
        );
        // The tool's own agreement column says the same.
        assert_eq!(c["agrees"], beyond.is_none(), "{mode}/{sync} {crash}");
        // Every violation comes with a counterexample; every clean cell has none.
        let violations = c["violations"].as_u64().unwrap();
        assert_eq!(
            violations > 0,
            !c["counterexamples"].as_array().unwrap().is_empty(),
            "{c:#}"
        );
        assert_eq!(violations > 0, got != "durable", "{c:#}");
    }
    // The documented loss of DELETE/FULL: the journal's deletion was not yet durable, so it
    // comes back after the power loss and rolls the acknowledged commit back.
    let delete_full = cell(&v, "delete", "full", "power");
    assert_eq!(delete_full["verdict"]["worst"], 1, "{delete_full:#}");
    let example = &delete_full["counterexamples"][0];
    assert!(
        example["after"].as_str().unwrap().contains("acknowledged"),
        "{example:#}"
    );
    assert!(
        example["survived"]
            .as_str()
            .unwrap()
            .contains("ledger.db-journal: 0 of 1 directory ops"),
        "{example:#}"
    );
    sb.assert_clean("verify-durability");
    sb.assert_cwd_untouched();
}

#[test]
fn real_kills_find_nothing_the_simulation_misses() {
    let sb = Sandbox::new();
    let v = verify(
        &sb,
        &[
            "--journal-mode",
            "memory,off,delete,wal",
            "--synchronous",
            "off,full",
            "--crash",
            "process",
            "--kills",
            "12",
            "--transactions",
            "4",
        ],
    );
    let mut kills = 0;
    for c in v["cells"].as_array().unwrap() {
        let k = &c["kills"];
        kills += k["kills"].as_u64().unwrap();
        let class = verdict_class(c);
        if k["corrupt"] == true {
            assert_eq!(
                class, "may-corrupt",
                "a real kill corrupted what the simulation calls safe: {c:#}"
            );
        }
        let lost = k["worst_lost"].as_u64().unwrap();
        if lost > 0 {
            let worst = c["verdict"]["worst"].as_u64().unwrap_or(u64::MAX);
            assert!(class != "durable" && worst >= lost, "a real kill lost {lost}: {c:#}");
        }
    }
    assert_eq!(kills, 8 * 12);
    sb.assert_clean("kills");
}

#[test]
fn verdicts_and_counterexamples_are_stored() {
    let sb = Sandbox::new();
    verify(
        &sb,
        &[
            "--journal-mode",
            "delete",
            "--synchronous",
            "full,extra",
            "--transactions",
            "2",
        ],
    );
    let mut store = litebench::store::Store::open_read(&sb.results()).unwrap();
    let stored = store.verifications().unwrap();
    assert_eq!(stored.len(), 4);
    let (build, full) = stored
        .iter()
        .find(|(_, c)| c.config.synchronous == "full" && c.crash == litebench::durability::crash::CrashKind::Power)
        .unwrap();
    assert_eq!(build.engine, "sqlite");
    assert!(!build.source_id.is_empty());
    assert!(full.violations > 0 && !full.counterexamples.is_empty(), "{full:?}");
    assert!(full.counterexamples[0].crash_point > 0);
}

#[test]
fn bad_input_names_the_flag() {
    for (args, parts) in [
        (
            &["--journal-mode", "wal2"][..],
            &["--journal-mode wal2", "delete, truncate"][..],
        ),
        (
            &["--synchronous", "always"],
            &["--synchronous always", "off, normal, full, extra"],
        ),
        (&["--engine", "duckdb"], &["--engine duckdb", "sqlite@NAME"]),
    ] {
        let sb = Sandbox::new();
        assert_error_line(&output(&mut verify_cmd(&sb, args)), parts);
        assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
        assert_eq!(
            listing(&sb.results_dir()),
            Vec::<String>::new(),
            "a refused command made a store"
        );
    }
}

#[test]
fn advise_answers_from_stored_runs_and_verdicts_only() {
    let sb = Sandbox::new();
    let out = output(&mut sb.run_tiny(&["crud", "--knob", "journal_mode=wal", "--knob", "synchronous=off,full"]));
    assert_success(&out);
    let advise_in = |need: &str, which: &[&str]| {
        output(&mut sb.stored(&[&["advise", "--need", need, "--format", "json"], which].concat()))
    };
    // Which runs to rank is asked for, never guessed: speeds of different workloads or
    // parameters are not ranked together.
    let out = advise_in("durable", &[]);
    assert_error_line(
        &out,
        &[
            "advise ranks the runs of one workload and parameters: give --workload NAME or the RUN ids",
            "stored: crud ",
            "(run 1)",
        ],
    );
    // Run 1 alone: one workload, one set of parameters.
    let advise = |need: &str| advise_in(need, &["1"]);
    // Nothing verified yet: no answer, and the line says what to run.
    let out = advise("durable");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = stderr(&out);
    assert!(
        err.contains("--need durable")
            && err.contains("litebench verify-durability --engine sqlite --journal-mode wal --synchronous off"),
        "{err}"
    );
    verify(
        &sb,
        &[
            "--journal-mode",
            "wal",
            "--synchronous",
            "off,full",
            "--transactions",
            "2",
            "--states",
            "500",
        ],
    );
    let answer = |need: &str| {
        let out = advise(need);
        assert_success(&out);
        let v = json(&out);
        let i = v["answer"].as_u64().unwrap() as usize;
        v["ranked"][i]["measured"]["synchronous"].as_str().unwrap().to_string()
    };
    // WAL/OFF may corrupt on power loss; WAL/FULL is durable. With no guarantee needed the
    // fastest wins, whichever it is.
    assert_eq!(answer("durable"), "full");
    assert_eq!(answer("consistent"), "full");
    let out = advise("none");
    assert_success(&out);
    let v = json(&out);
    assert_eq!(v["answer"], 0);
    // `show` puts the verdicts beside the throughput.
    let out = output(&mut sb.show(&[]));
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("Durability (stored verify-durability verdicts"), "{text}");
    assert!(
        text.contains("power: may corrupt") && text.contains("power: durable"),
        "{text}"
    );
    // And the JSON, as its last field, each line as the table prints it.
    let v = sb.show_json();
    let lines: Vec<&str> = v["durability"]
        .as_array()
        .expect("verdicts in the JSON")
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(lines.iter().all(|l| text.contains(l)), "{lines:?}\n{text}");
    assert!(lines.iter().any(|l| l.contains("power: may corrupt")), "{lines:?}");
    // And the CSV: each summary row carries its configuration's verdicts.
    let out = output(&mut sb.show(&["--format", "csv"]));
    assert_success(&out);
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let at = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "durability")
        .expect("a durability column");
    let cells: Vec<String> = reader.records().map(|r| r.unwrap()[at].to_string()).collect();
    assert!(cells.iter().any(|c| c.starts_with("power: may corrupt")), "{cells:?}");
    assert!(cells.iter().any(|c| c.starts_with("power: durable")), "{cells:?}");
    // So does the HTML report.
    let html = sb.page(&[]);
    assert!(
        html.contains("verify-durability</code> verdicts")
            && html.contains("power: durable: every acknowledged commit survived in all ")
            && html.contains("power: may corrupt: ")
            && html.contains(" states broke a guarantee"),
        "the report has no verdicts"
    );
    // A second crud run with other parameters is not ranked with the first.
    let other = output(&mut sb.run_tiny(&[
        "crud",
        "--knob",
        "journal_mode=wal",
        "--knob",
        "synchronous=off",
        "--param",
        "value_size=200",
    ]));
    assert_success(&other);
    let out = advise_in("durable", &["--workload", "crud"]);
    assert_error_line(
        &out,
        &[
            "--workload crud: these runs measured different workloads or parameters",
            "value_size=200",
            "(run 2)",
            "e.g. `litebench advise --need durable --workload crud 1`",
        ],
    );
}

#[test]
fn an_interrupted_verification_keeps_finished_verdicts_and_cleans_up() {
    let sb = Sandbox::new();
    let child = sb
        .command()
        .args(["verify-durability", "--all", "--dir"])
        .arg(sb.scratch())
        .arg("--results")
        .arg(sb.results())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start litebench");
    // Wait for the first stored verdict, then interrupt.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let stored = sb.results().is_file()
            && litebench::store::Store::open_read(&sb.results())
                .and_then(|mut s| s.verifications())
                .is_ok_and(|v| !v.is_empty());
        if stored {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no verdict within a minute");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // SAFETY: signalling our own child, which has not been reaped yet.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(130), "{}", describe(&out));
    assert!(stderr(&out).contains("interrupted:"), "{}", describe(&out));
    let stored = litebench::store::Store::open_read(&sb.results())
        .unwrap()
        .verifications()
        .unwrap();
    assert!(!stored.is_empty() && stored.len() < 48, "{}", stored.len());
    sb.assert_clean("interrupted verify-durability");
}

/// Every format carries the verdicts: JSON as before, CSV and Markdown the verdict table with
/// every column the terminal shows.
#[test]
fn verdicts_print_in_every_format() {
    let sb = Sandbox::new();
    let args = [
        "--journal-mode",
        "delete",
        "--synchronous",
        "off",
        "--crash",
        "power",
        "--states",
        "50",
    ];
    let v = verify(&sb, &args);
    assert_eq!(v["cells"].as_array().unwrap().len(), 1, "{v}");
    let out = output(verify_cmd(&sb, &args).args(["--format", "csv"]));
    assert_success(&out);
    let text = stdout(&out);
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let headers = r.headers().unwrap().clone();
    for h in [
        "journal",
        "sync",
        "crash",
        "verdict",
        "states",
        "docs say",
        "agrees",
        "counterexample",
    ] {
        assert!(headers.iter().any(|x| x == h), "{h} missing from {headers:?}");
    }
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1, "{text}");
    let verdict = headers.iter().position(|h| h == "verdict").unwrap();
    // The same verdict the terminal table prints for the same configuration.
    let table = stdout(&output(verify_cmd(&sb, &args).args(["--format", "table"])));
    let word = rows[0].get(verdict).unwrap();
    assert!(
        !word.is_empty() && table.contains(&format!("power    {word}")),
        "{word}\n{table}"
    );
    let out = output(verify_cmd(&sb, &args).args(["--format", "markdown"]));
    assert_success(&out);
    let md = stdout(&out);
    assert!(
        md.contains("## Durability of SQLite") && md.lines().any(|l| l.starts_with("|---")),
        "{md}"
    );
    assert!(
        md.lines()
            .any(|l| l.starts_with("| DELETE ") && l.contains("| OFF ") && l.contains("| power ")),
        "{md}"
    );
    // Prose after a table is a paragraph of its own, not another row.
    assert!(md.contains("|\n\n") && md.contains("crash states in"), "{md}");
}
