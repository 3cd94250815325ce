//! `--storage iops=`: the kernel throttles the loop device litebench built for `--fs` through a
//! cgroup litebench made; commits are slower than unthrottled, the manifest names the cgroup
//! and its limits, and the cgroup is gone after the run. Needs root (as CI has).

use super::{assert_nothing_left, output, require_root};
use crate::support::*;

#[test]
fn an_iops_cap_slows_commits_and_its_cgroup_is_gone_after_the_run() {
    if !require_root() {
        return;
    }
    let sb = Sandbox::new();
    // 20 commits of synchronous=full in rollback mode: each writes and syncs the journal and
    // the main file, a few writes each, so 40 IOPS holds a trial to a second or so.
    let o = output(&mut sb.run_std(&[
        "crud",
        "--fs",
        "ext4",
        "--storage",
        "none;iops=40",
        "--knob",
        "synchronous=full",
        "--knob",
        "journal_mode=delete",
        "--param",
        "rows=50",
        "--param",
        "inserts=10",
        "--param",
        "updates=5",
        "--param",
        "deletes=5",
        "--trials",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]));
    assert!(o.status.success(), "{}", describe(&o));
    let v = json(&o);
    let configs = v["manifest"]["configs"].as_array().expect("configs");
    assert_eq!(configs.len(), 2, "{configs:?}");
    let throttle = &configs[1]["storage"]["throttle"];
    assert_eq!(configs[1]["storage"]["kind"], "throttled");
    let cgroup = throttle["cgroup"].as_str().expect("a cgroup path").to_string();
    assert!(cgroup.contains("litebench-"), "{cgroup}");
    let limits = throttle["limits"].to_string();
    assert!(limits.contains(" 40") || limits.contains("iops=40"), "{limits}");
    let tps = |i: usize| {
        v["trials"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["config"] == i)
            .and_then(|t| t["throughput"].as_f64())
            .expect("a trial")
    };
    assert!(
        tps(1) * 2.0 < tps(0),
        "throttled {} tx/s against {} unthrottled",
        tps(1),
        tps(0)
    );
    assert!(!std::path::Path::new(&cgroup).exists(), "{cgroup} left behind");
    assert_nothing_left(&sb, "after a throttled run");
}

/// How far apart an emulation and the throttled device it emulates may answer: the emulation
/// sleeps a whole measured sync after each of SQLite's syncs, while the device's commit is
/// throttled I/O by I/O (a commit's sync may take one I/O or a few), so they need not agree
/// closely; a factor past this says one of them is not what it claims (a throttle not applied
/// to the trial, a delay not slept).
const CROSS_CHECK_FACTOR: f64 = 4.0;

/// The cross-check, in one run: a throttled ext4 loop device, and an emulation that
/// sleeps that device's own mean sync latency (measured by a first run inside the
/// throttle's cgroup) on the same filesystem kind. The report sets the measured sync beside
/// the slept one, and their throughputs are within [`CROSS_CHECK_FACTOR`] of each other.
#[test]
fn an_emulation_of_a_throttled_devices_sync_answers_within_a_factor_of_it() {
    if !require_root() {
        return;
    }
    let sb = Sandbox::new();
    let run = |storage: &str, extra: &[&str]| {
        let mut args = vec![
            "crud",
            "--fs",
            "ext4",
            "--storage",
            storage,
            "--knob",
            "synchronous=full",
            "--knob",
            "journal_mode=wal",
            "--param",
            "rows=50",
            "--param",
            "inserts=20",
            "--param",
            "updates=10",
            "--param",
            "deletes=10",
            "--trials",
            "1",
            "--warmup",
            "0",
            "--quiet",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        let o = output(&mut sb.run_std(&args));
        assert!(o.status.success(), "{}", describe(&o));
        json(&o)
    };
    let first = run("iops=100", &[]);
    let measured = &first["manifest"]["configs"][0]["storage"]["throttled_sync"];
    // The mean, not the median: a throttle's syncs are bimodal (most inside its burst
    // allowance, some waiting out its period), and throughput goes by the mean.
    let mean_us = measured["mean_us"]
        .as_f64()
        .unwrap_or_else(|| panic!("no sync measured inside the cgroup: {measured}"));
    let page = sb.root().join("cross-check.html");
    let v = run(
        &format!("iops=100;sync={}us", mean_us.round() as u64),
        &["--report", page.to_str().unwrap()],
    );
    let checks = v["storage"]["cross_check"].as_array().expect("a cross-check");
    assert_eq!(checks.len(), 1, "{checks:#?}");
    let c = &checks[0];
    assert_eq!(
        (c["throttled"].as_u64(), c["emulated"].as_u64()),
        (Some(0), Some(1)),
        "{c}"
    );
    assert!(c["throttled_sync_median_ms"].as_f64().unwrap() > 0.0, "{c}");
    let slept = c["emulated_slept_sync_mean_ms"].as_f64().expect("syncs slept");
    assert!(slept * 1e3 >= mean_us.round(), "slept {slept} ms for {mean_us} us: {c}");
    let ratio = c["tps_ratio"].as_f64().unwrap();
    // The page has the same cross-check near the storage results: its table, its ratio as
    // the JSON has it, and its sentence.
    let html = std::fs::read_to_string(&page).unwrap();
    let at = html
        .find("The emulation against the throttled device")
        .expect("the cross-check on the page");
    let section = &html[at..];
    assert!(
        section.contains("<table class=\"storage cross-check\">")
            && section.contains(&format!("<td>{ratio:.2}x</td>"))
            && section.contains(&format!("the emulation&#39;s tx/s is {ratio:.2}x the device&#39;s")),
        "{}",
        &section[..section.len().min(3000)]
    );
    assert!(
        html.find("<table class=\"storage\">").is_some_and(|s| s < at),
        "the cross-check comes after the storage results"
    );
    assert!(
        (1.0 / CROSS_CHECK_FACTOR..=CROSS_CHECK_FACTOR).contains(&ratio),
        "the emulation ran at {ratio:.2}x the throttled device's tx/s: {c}"
    );
}
