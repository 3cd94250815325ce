//! `run --dry-run`: the plan printed after every check, with nothing opened or created.

use crate::cli::common::*;
use std::time::Duration;

/// `litebench run ARGS --dry-run` in a fresh sandbox, which must succeed; with its output.
fn dry_run(sb: &Sandbox, args: &[&str]) -> std::process::Output {
    let out = sb.run(args).arg("--dry-run").output().expect("run litebench");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    out
}

#[test]
fn dry_run_prints_every_configuration_and_creates_nothing() {
    let sb = Sandbox::new();
    let out = dry_run(
        &sb,
        &[
            "crud",
            "--trials",
            "3",
            "--knob",
            "journal_mode=wal,delete",
            "--knob",
            "synchronous=normal,full",
        ],
    );
    let text = stdout(&out);
    for want in [
        "job 0: workload crud, 4 configurations",
        "#0 engine sqlite, knobs journal_mode=wal synchronous=normal",
        "#3 engine sqlite, knobs journal_mode=delete synchronous=full",
        "trials: 3 measured and 1 warm-up per configuration, 16 in all",
        "order: round by round, warm-ups first; each round runs #0 to #3",
        "time: not fixed by a duration or a rate",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    assert!(
        text.lines().all(|l| l.chars().count() <= 80),
        "wider than 80 columns:\n{text}"
    );
    assert!(!sb.results().exists(), "a dry run created the results store");
    assert_eq!(listing(&sb.results_dir()), Vec::<String>::new());
    assert_eq!(
        listing(&sb.scratch()),
        Vec::<String>::new(),
        "a dry run wrote into --dir"
    );
    sb.assert_cwd_untouched();
}

#[test]
fn dry_run_estimates_the_time_a_duration_fixes() {
    let sb = Sandbox::new();
    let args = [
        "script",
        "--param",
        "builtin=select-only",
        "--param",
        "duration=2s",
        "--knob",
        "journal_mode=wal,delete",
        "--trials",
        "4",
        "--warmup",
        "1",
    ];
    let text = stdout(&dry_run(&sb, &args));
    assert!(text.contains("time: 10 trials x 2 s = 20 s of trials"), "{text}");
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let plan = json(&dry_run(&sb, &json_args));
    assert_eq!(plan["estimate_ms"], 20_000, "{plan}");
    let configs = plan["jobs"][0]["configurations"].as_array().expect("configurations");
    let labels: Vec<&str> = configs.iter().filter_map(|c| c["label"].as_str()).collect();
    assert_eq!(labels, ["journal_mode=wal", "journal_mode=delete"]);
    assert!(!sb.results().exists(), "a dry run created the results store");
}

#[test]
fn dry_run_refuses_bad_input_as_a_run_does() {
    let sb = Sandbox::new();
    let bad = ["crud", "--knob", "journal_mode=sideways"];
    let run = sb.run(&bad).output().expect("run litebench");
    let dry = sb.run(&bad).arg("--dry-run").output().expect("run litebench");
    assert_eq!(dry.status.code(), Some(2), "{}", describe(&dry));
    assert_eq!(stderr(&dry), stderr(&run));
    assert_eq!(stderr(&dry).lines().count(), 1, "{}", describe(&dry));
    assert!(!sb.results().exists());
}

/// With `--cast`, the plan lists each role: its clients and mode, rate, schedule and the
/// script it runs (its own `file`), in text and JSON; nothing is made.
#[test]
fn dry_run_lists_a_casts_roles_with_their_scripts() {
    let sb = Sandbox::new();
    std::fs::write(sb.cwd().join("schema.sql"), "CREATE TABLE t(x);\n").unwrap();
    std::fs::write(sb.cwd().join("write.sql"), "INSERT INTO t VALUES (1);\n").unwrap();
    std::fs::write(sb.cwd().join("read.sql"), "SELECT count(*) FROM t;\n").unwrap();
    std::fs::write(
        sb.cwd().join("cast.toml"),
        "[[role]]\nname = \"writer\"\nkind = \"workload\"\nrate = 50\nparams = { file = \"write.sql\" }\n\n\
         [[role]]\nname = \"readers\"\nkind = \"workload\"\nclients = 4\nmode = \"processes\"\nrate = 200\nparams = { file = \"read.sql\" }\n\n\
         [[role]]\nname = \"report\"\nkind = \"hold\"\nat = \"1s\"\nevery = \"4s\"\nfor = \"2s\"\n",
    )
    .unwrap();
    let out = dry_run(
        &sb,
        &[
            "script",
            "--cast",
            "cast.toml",
            "--param",
            "init=schema.sql",
            "--param",
            "duration=10s",
        ],
    );
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("cast: 3 roles"), "{text}");
    assert!(
        text.contains("writer: 1 client at 50 tx/s, params file=write.sql"),
        "{text}"
    );
    assert!(
        text.contains("readers: 4 client processes at 200 tx/s, params file=read.sql"),
        "{text}"
    );
    assert!(text.contains("report: hold at 1 s every 4 s for 2 s"), "{text}");
}

/// On a terminal, a run whose trials take more than a minute says so before it starts (the
/// time `--dry-run` gives); a short one says nothing.
#[test]
fn a_run_longer_than_a_minute_says_its_time_on_a_terminal_before_it_starts() {
    let said = "this run takes about";
    let sb = Sandbox::new();
    let typescript = sb.root().join("typescript");
    let long = sb.run_std(&[
        "ycsb",
        "--param",
        "records=100",
        "--param",
        "duration=10s",
        "--trials",
        "6",
        "--warmup",
        "1",
    ]);
    let mut child = on_a_terminal(&long, &typescript).spawn().expect("script");
    let t0 = std::time::Instant::now();
    let text = loop {
        let text = std::fs::read_to_string(&typescript).unwrap_or_default();
        if text.contains(said) || t0.elapsed() > Duration::from_secs(60) {
            break text;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    // Ends the run (its terminal goes: a hang-up, which litebench takes as a stop).
    let _ = interrupt_within(&mut child, Duration::from_secs(60), "the run did not stop");
    assert!(
        text.contains("this run takes about 1 min 10 s (7 trials, warm-ups included, one after the other)"),
        "{text}"
    );

    let short = sb.run_std(&[
        "ycsb",
        "--param",
        "records=100",
        "--param",
        "duration=200ms",
        "--trials",
        "1",
        "--warmup",
        "0",
    ]);
    let status = on_a_terminal(&short, &typescript).status().expect("script");
    assert!(status.success());
    let text = std::fs::read_to_string(&typescript).unwrap();
    assert!(text.contains("answer"), "it ran: {text}");
    assert!(!text.contains(said), "{text}");
}
