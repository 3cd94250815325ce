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
