//! A trial kept off its schedule is said: litebench itself stopped for 2 s (a sidecar that
//! starts with the trial sends it SIGSTOP after 1 s and SIGCONT 2 s later, as a loaded machine
//! would), so no transaction completes for 2 s and a checkpoint role scheduled at 1.5 s runs
//! only once it resumes. Both are warnings, on the terminal and on the page.

use crate::cli::common::*;

const CAST: &str = r#"
[[role]]
name = "writer"
kind = "workload"
params = { workload = "a" }

[[role]]
name = "ckpt"
kind = "checkpoint"
checkpoint = "PASSIVE"
at = "1500ms"

[[role]]
name = "stopper"
kind = "sidecar"
command = ["sh", "-c", "sleep 1; kill -STOP $PPID; sleep 2; kill -CONT $PPID; exec sleep 60"]
"#;

#[test]
fn a_stall_and_a_late_role_are_said_on_the_terminal_and_the_page() {
    let sb = Sandbox::new();
    let file = sb.root().join("cast.toml");
    std::fs::write(&file, CAST).unwrap();
    let file = file.display().to_string();
    assert_success(&output(&mut sb.run(&[
        "ycsb",
        "--cast",
        &file,
        "--param",
        "records=200",
        "--param",
        "duration=5s",
        "--interval",
        "100ms",
        "--knob",
        "journal_mode=wal",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
    ])));
    // The record shows what happened: the checkpoint ran 2 s or more after 1.5 s.
    let v = sb.show_json();
    let ran = v["trials"][0]["cast"]["checkpoints"][0]["t_ms"]
        .as_u64()
        .expect("a checkpoint");
    assert!(ran >= 2500, "the stop held the checkpoint back: ran at {ran} ms");
    // At 80 columns a warning wraps: read as words.
    let text = stdout(&output(sb.show(&[]).env("COLUMNS", "80")));
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("stalled: #0 trial 0 completed no transaction for"),
        "{text}"
    );
    assert!(
        flat.contains("late schedule: #0 trial 0 role ckpt scheduled at 1.5 s ran at"),
        "{text}"
    );
    let html = sb.page(&[]);
    assert!(html.contains("stalled: #0 trial "), "the page says the stall");
    assert!(html.contains("late schedule: #0 trial "), "the page says the late role");
}
