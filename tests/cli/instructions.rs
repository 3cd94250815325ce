//! `--measure instructions` (issue 36): litebench runs itself again under valgrind's callgrind,
//! counts the instructions of each trial's measured region, and compares them as it compares
//! times, with a noise threshold of their own. Runs under valgrind are some twenty times slower
//! than native ones, so the workloads here are tiny (a few seconds each).

use crate::cli::common::*;
use serde_json::Value;

/// The line the process the user started prints before it runs again under valgrind.
const UNDER_VALGRIND: &str = "--measure instructions: running again under valgrind-";

/// Skips (locally) or fails (in CI) without valgrind.
fn valgrind() -> bool {
    crate::support::require("/usr/bin/valgrind", "valgrind")
}

fn trials(v: &Value) -> Vec<Value> {
    v["trials"].as_array().expect("trials").clone()
}

fn row(v: &Value, config: u64, op: &str) -> Value {
    v["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["operation"] == op && r["config"] == config)
        .unwrap_or_else(|| panic!("no row {config} {op}"))
        .clone()
}

/// A tiny crud run of `trials` trials and a warm-up counting instructions, as JSON.
fn counted_crud(sb: &Sandbox, trials: &str, extra: &[&str]) -> Value {
    let mut cmd = sb.run(&[
        "crud",
        "--knob",
        "synchronous=off",
        "--format",
        "json",
        "--measure",
        "instructions",
    ]);
    cmd.args(TINY_PARAMS)
        .args(["--trials", trials, "--warmup", "1", "--quiet"])
        .args(extra);
    let out = output(&mut cmd);
    assert_success(&out);
    assert!(stderr(&out).contains(UNDER_VALGRIND), "{}", describe(&out));
    json(&out)
}

#[test]
fn each_trial_counts_its_instructions_and_a_second_run_repeats_them() {
    if !valgrind() {
        return;
    }
    let sb = Sandbox::new();
    let a = counted_crud(&sb, "2", &[]);
    let m = &a["manifest"];
    assert!(m["instructions"]["tool"].as_str().unwrap().contains("callgrind"), "{m}");
    assert_eq!(m["instructions"]["native_times"], false);
    let noise = m["statistics"]["instruction_noise"]
        .as_f64()
        .expect("its own noise threshold");
    assert!(noise < m["statistics"]["noise"].as_f64().unwrap());
    for t in trials(&a) {
        let total = t["instructions"].as_u64().expect("instructions per trial");
        assert!(total > 0, "{t}");
        // Each operation type is a phase of its own: its count, and together the trial's.
        let ops: Vec<u64> = t["ops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["instructions"].as_u64().expect("instructions per type"))
            .collect();
        assert!(ops.iter().all(|&n| n > 0), "{t}");
        assert_eq!(ops.iter().sum::<u64>(), total);
    }
    // Instructions per operation is the run's metric, and its figures are in the summary.
    let all = row(&a, 0, "all");
    let per_op = all["instr_per_op_median"].as_f64().unwrap();
    let per_trial = all["ops_per_trial"].as_f64().unwrap();
    assert!(per_op > 1000.0, "{all}");
    assert!(
        (per_op * per_trial - trials(&a)[0]["instructions"].as_f64().unwrap()).abs() / (per_op * per_trial) < 0.05,
        "{all}"
    );
    // The same trials again (same seed, same data): each count within the threshold of the
    // first run's, in practice to four or five digits.
    let b = counted_crud(&sb, "2", &[]);
    for (x, y) in trials(&a).iter().zip(trials(&b).iter()) {
        let (x, y) = (x["instructions"].as_f64().unwrap(), y["instructions"].as_f64().unwrap());
        assert!((y / x - 1.0).abs() < noise, "run to run: {x} then {y}");
    }
}

#[test]
fn instructions_give_verdicts_and_tables_say_times_are_under_valgrind() {
    if !valgrind() {
        return;
    }
    let sb = Sandbox::new();
    // WAL against a rollback journal: different work, so a verdict in instructions.
    let v = counted_crud(&sb, "6", &["--knob", "journal_mode=delete,wal"]);
    let wal = row(&v, 1, "all");
    let verdict = wal["instr_verdict"].as_str().unwrap_or_default();
    assert!(["faster", "slower"].contains(&verdict), "{wal}");
    // `show --metric instructions` ranks by them; the text table says where times came from.
    let out = output(sb.show(&["--metric", "instructions", "--all"]).env("COLUMNS", "400"));
    assert_success(&out);
    let text = stdout(&out);
    assert!(text.contains("instr/op against #0"), "{text}");
    assert!(text.contains("ms/trial under valgrind"), "{text}");
    assert!(text.contains("(instructions per operation: 0.5%)"), "{text}");
    // `compare --metric instructions` of a configuration against itself in a second run: no
    // significant difference, held to the instructions' threshold.
    let _ = counted_crud(&sb, "6", &["--knob", "journal_mode=delete,wal"]);
    let out = output(
        sb.litebench()
            .args(["compare", "1:0", "2:0", "--metric", "instructions", "--format", "json"])
            .arg("--results")
            .arg(sb.results()),
    );
    assert_success(&out);
    let c = json(&out);
    let r = &c["rows"][0];
    assert_eq!(r["verdict"], "no_significant_difference", "{c}");
}

#[test]
fn a_suite_counts_each_test_apart() {
    if !valgrind() {
        return;
    }
    let sb = Sandbox::new();
    let out = output(&mut sb.run(&[
        "speedtest",
        "--param",
        "scale_percent=1",
        "--measure",
        "instructions",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--format",
        "json",
    ]));
    assert_success(&out);
    let v = json(&out);
    let t = &trials(&v)[0];
    let ops = t["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 15);
    for o in ops {
        assert!(o["instructions"].as_u64().is_some_and(|n| n > 0), "{o}");
    }
    // Nothing of valgrind's is left in the scratch directory.
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new());
}

#[test]
fn clients_as_threads_are_counted_over_the_measured_interval() {
    if !valgrind() {
        return;
    }
    let sb = Sandbox::new();
    // Two clients as threads, timed as one interval by the load driver: each client's thread
    // counts from the common start to the end of its loop, the trial is their sum, and no
    // operation type owns a share of it.
    let out = output(&mut sb.run(&[
        "ycsb",
        "--param",
        "workload=c",
        "--param",
        "records=200",
        "--param",
        "operations=100",
        "--clients",
        "2",
        "--measure",
        "instructions",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--format",
        "json",
    ]));
    assert_success(&out);
    let v = json(&out);
    let t = &trials(&v)[0];
    assert!(t["instructions"].as_u64().is_some_and(|n| n > 100 * 1000), "{t}");
    assert!(
        t["ops"].as_array().unwrap().iter().all(|o| o["instructions"].is_null()),
        "{t}"
    );
    assert!(row(&v, 0, "all")["instr_per_op_median"]
        .as_f64()
        .is_some_and(|x| x > 1000.0));
}

#[test]
fn what_callgrind_cannot_count_is_refused_in_one_line() {
    let sb = Sandbox::new();
    let cases: [(&[&str], &str); 2] = [
        (
            &["--clients", "2", "--client-mode", "processes"],
            "error: --measure instructions with --client-mode processes: callgrind counts litebench's own process only, and valgrind runs client threads one at a time anyway; leave out --client-mode",
        ),
        (
            &["--rate", "100"],
            "error: --measure instructions counts a closed loop, whose measured region it brackets: an open loop's waits for its schedule would count as work, and a cast's roles are not bracketed; leave out --rate and --cast",
        ),
    ];
    for (args, line) in cases {
        let mut cmd = sb.run_tiny(&["crud", "--measure", "instructions"]);
        cmd.args(args);
        let out = output(&mut cmd);
        assert_eq!(assert_error_line(&out, &[]), line);
    }
    // Instructions as the metric of a run that counts none.
    let out = output(&mut sb.run_tiny(&["crud", "--metric", "instructions"]));
    assert_eq!(
        assert_error_line(&out, &[]),
        "error: --metric instructions: this run counts no instructions; add --measure instructions, or choose another --metric"
    );
    // Without valgrind on PATH.
    let mut cmd = sb.run_tiny(&["crud", "--measure", "instructions"]);
    cmd.env("PATH", sb.root());
    let out = output(&mut cmd);
    assert_eq!(
        assert_error_line(&out, &[]),
        "error: --measure instructions needs valgrind (no valgrind on PATH); install it (Debian: apt-get install valgrind), or leave out --measure"
    );
    assert_eq!(listing(&sb.scratch()), Vec::<String>::new(), "--dir is not empty");
}

/// Blob's one client is timed only inside its operations, which callgrind cannot count apart:
/// the run stops in one line saying so and how to count (the line said it ran outside the load
/// driver, where it now runs); with two clients it is counted per interval.
#[test]
fn blob_s_one_client_is_refused_in_one_line_and_two_clients_are_counted() {
    if !valgrind() {
        return;
    }
    let sb = Sandbox::new();
    let args = [
        "blob",
        "--measure",
        "instructions",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--param",
        "operations=100",
        "--knob",
        "busy_timeout=5000",
    ];
    let out = output(&mut sb.run(&args));
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let said = stderr(&out);
    let last = said.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: --measure instructions: workload blob gave callgrind no measured region to count")
            && last.contains("as blob's one client does")
            && last.contains("blob with --clients 2 or more"),
        "{}",
        describe(&out)
    );
    let out = output(sb.run(&args).args(["--clients", "2", "--format", "json", "--quiet"]));
    assert_success(&out);
    let v = json(&out);
    assert!(
        row(&v, 0, "all")["instr_per_op_median"]
            .as_f64()
            .is_some_and(|n| n > 0.0),
        "{}",
        describe(&out)
    );
}
