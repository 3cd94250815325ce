//! The shipped Slurm recipe (`deploy/slurm/`) on a real single-node Slurm cluster that the test
//! starts itself: its own munged (own key and socket), slurmctld and slurmd on private ports,
//! with a slurm.conf in a temporary directory naming this host. A 4-shard sweep (the three
//! tools of APSys'17 Table 1 and SQLite's speed comparison, four comparison groups) is submitted
//! through `submit.sh`; shard 2 is made to fail; the merge job runs after the array. Needs root (slurmd) and Debian's slurm-wlm and munge, which CI installs.

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A private cluster; dropping it stops every daemon it started.
struct Cluster {
    dir: tempfile::TempDir,
    daemons: Vec<Child>,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for d in &mut self.daemons {
            let _ = d.kill();
            let _ = d.wait();
        }
        // munged daemonises itself: stop it by its pid file.
        if let Ok(pid) = std::fs::read_to_string(self.dir.path().join("munged.pid")) {
            if let Ok(pid) = pid.trim().parse::<i32>() {
                // SAFETY: a pid our munged wrote.
                unsafe { libc::kill(pid, libc::SIGTERM) };
                // It writes its seed file as it exits: wait, so the directory goes after it.
                for _ in 0..50 {
                    if !Path::new(&format!("/proc/{pid}")).exists() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
    }
}

fn hostname() -> String {
    let out = Command::new("hostname").output().expect("hostname");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn ok(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(o.status.success(), "{cmd:?}\n{}", describe(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

impl Cluster {
    fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", self.conf());
        c
    }

    fn start() -> Cluster {
        let dir = tempfile::Builder::new().prefix("litebench-slurm-").tempdir().unwrap();
        let d = dir.path();
        for sub in ["spool", "state", "out", "scratch"] {
            std::fs::create_dir(d.join(sub)).unwrap();
        }
        let mut cluster = Cluster {
            dir,
            daemons: Vec::new(),
        };
        let d = cluster.dir.path().to_path_buf();
        ok(Command::new("/usr/sbin/mungekey")
            .arg("--create")
            .arg("--keyfile")
            .arg(d.join("munge.key")));
        let socket = d.join("munge.sock");
        ok(Command::new("/usr/sbin/munged")
            .arg("--force")
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--key-file={}", d.join("munge.key").display()))
            .arg(format!("--pid-file={}", d.join("munged.pid").display()))
            .arg(format!("--log-file={}", d.join("munged.log").display()))
            .arg(format!("--seed-file={}", d.join("munged.seed").display())));
        // Private ports, so a cluster of another test or the machine's own is not disturbed.
        let base = 20000 + (std::process::id() % 20000) as u16;
        let conf = format!(
            "ClusterName=lbtest\nSlurmctldHost={host}\nSlurmUser=root\nAuthType=auth/munge\nAuthInfo=socket={sock}\n\
             ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n\
             MpiDefault=none\nReturnToService=2\nSlurmctldPort={p1}\nSlurmdPort={p2}\n\
             SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\nSlurmdSpoolDir={d}/spool\nStateSaveLocation={d}/state\n\
             SlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\nJobCompType=jobcomp/none\nAccountingStorageType=accounting_storage/none\n\
             NodeName={host} CPUs={cpus} State=UNKNOWN\nPartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            host = hostname(),
            sock = socket.display(),
            p1 = base,
            p2 = base + 1,
            d = d.display(),
            cpus = std::thread::available_parallelism().map_or(1, |n| n.get()),
        );
        std::fs::write(cluster.conf(), conf).unwrap();
        for daemon in ["/usr/sbin/slurmctld", "/usr/sbin/slurmd"] {
            let child = cluster
                .command(daemon)
                .arg("-D")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("{daemon}: {e}"));
            cluster.daemons.push(child);
            std::thread::sleep(Duration::from_millis(500));
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let state = cluster.command("sinfo").args(["-h", "-o", "%t"]).output();
            if state.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle") {
                return cluster;
            }
            assert!(
                Instant::now() < deadline,
                "the cluster never became idle; see {}",
                d.display()
            );
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    fn wait_until_empty(&self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        loop {
            let q = ok(self.command("squeue").args(["-h", "-o", "%i %T"]));
            if q.trim().is_empty() {
                return;
            }
            assert!(Instant::now() < deadline, "jobs still queued: {q}");
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

fn litebench(args: &[&str], results: &Path) -> serde_json::Value {
    let o = Command::new(bin())
        .args(args)
        .arg("--results")
        .arg(results)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", describe(&o));
    json(&o)
}

#[test]
fn a_sweep_runs_as_a_slurm_array_and_merges_with_the_failed_shard_missing() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        assert!(!in_ci(), "the Slurm test needs root in CI");
        eprintln!("skipping: slurmd needs root");
        return;
    }
    if !(require("/usr/sbin/slurmctld", "slurm-wlm") && require("/usr/sbin/munged", "munge")) {
        return;
    }
    let cluster = Cluster::start();
    let d = cluster.dir.path();
    let out = d.join("out");
    // Shard 2 fails: its store's path is a directory, which litebench refuses.
    std::fs::create_dir(out.join("shard-2.db")).unwrap();
    let submit = &format!(
        "{}/deploy/slurm/submit.sh",
        std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
    );
    let submitted = ok(cluster
        .command("bash")
        .arg(submit)
        .arg("4")
        .env("LITEBENCH", bin())
        .env("LITEBENCH_OUT", &out)
        .env("LITEBENCH_SCRATCH", d.join("scratch"))
        .env(
            "LITEBENCH_ARGS",
            "--preset table1 --preset speedtest --param scale_percent=5 --sweep t --trials 1 --warmup 0",
        ));
    assert!(submitted.starts_with("array "), "{submitted}");
    cluster.wait_until_empty(Duration::from_secs(300));
    let all = out.join("all.db");
    let merge_log: String = listing(&out)
        .iter()
        .filter(|f| f.starts_with("litebench-"))
        .map(|f| format!("{f}: {}", std::fs::read_to_string(out.join(f)).unwrap_or_default()))
        .collect();
    assert!(all.is_file(), "the merge job wrote nothing: {merge_log}");
    let v = litebench(&["show", "--sweep", "t"], &all);
    assert_eq!(v["shards"], 4, "{v}");
    assert_eq!(v["missing_shards"], serde_json::json!([2]), "{v}");
    let mut jobs: Vec<u64> = v["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["plan_job"].as_u64().unwrap())
        .collect();
    jobs.sort();
    assert_eq!(jobs, [0, 1, 3], "each group of the shards that ran, exactly once: {v}");
    // Merging the shards again adds nothing.
    let again = Command::new(bin())
        .arg("merge")
        .arg(&all)
        .arg(out.join("shard-0.db"))
        .arg(out.join("shard-1.db"))
        .arg(out.join("shard-3.db"))
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", describe(&again));
    let m = json(&again);
    assert!(
        m.as_array().unwrap().iter().all(|x| x["merged"]["runs_added"] == 0),
        "{m}"
    );
    assert_eq!(listing(&d.join("scratch")), Vec::<String>::new(), "scratch left behind");
}

/// The value after `key` on the line that holds it (`completions: 3` → `3`).
fn field<'a>(yaml: &'a str, key: &str) -> &'a str {
    yaml.lines()
        .find_map(|l| l.trim().strip_prefix(key))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no `{key}` in the recipe"))
}

/// There is no cluster here: the Kubernetes recipe is checked statically, and its command line
/// is checked by litebench's own parser.
#[test]
fn the_kubernetes_recipe_is_an_indexed_job_whose_fields_agree() {
    let dir =
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string()))
            .join("deploy/kubernetes");
    let sweep = std::fs::read_to_string(dir.join("litebench-sweep.yaml")).unwrap();
    let merge = std::fs::read_to_string(dir.join("litebench-merge.yaml")).unwrap();
    assert_eq!(field(&sweep, "kind:"), "Job");
    assert_eq!(field(&sweep, "completionMode:"), "Indexed");
    let completions = field(&sweep, "completions:");
    // The shard count litebench is told is the Job's completions (Kubernetes does not export it).
    let args_start = sweep.find("exec litebench run").expect("the run command");
    let command: String = sweep[args_start..]
        .lines()
        .take_while(|l| !l.trim_start().starts_with("volumeMounts"))
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(command.contains(&format!("--shard-count {completions}")), "{command}");
    assert!(command.contains("--shard auto"), "{command}");
    assert!(
        command.contains("--results /results/shard-${JOB_COMPLETION_INDEX}.db"),
        "{command}"
    );
    // Both Jobs mount the same claim at /results, and the merge reads what the shards wrote.
    assert_eq!(sweep.matches("claimName: litebench-results").count(), 1);
    assert_eq!(merge.matches("claimName: litebench-results").count(), 1);
    assert!(sweep.contains("mountPath: /results") && merge.contains("mountPath: /results"));
    assert!(merge.contains("/results/shard-*.db") && merge.contains("litebench merge /results/all.db"));
    // The command line parses, and --shard auto reads JOB_COMPLETION_INDEX: an index past the
    // count is refused in one line before anything runs.
    let words: Vec<String> = command
        .trim_start_matches("exec litebench ")
        .replace("${JOB_COMPLETION_INDEX}", "0")
        .replace("/scratch", &std::env::temp_dir().display().to_string())
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let results = tempfile::tempdir().unwrap();
    let words: Vec<String> = words
        .into_iter()
        .map(|w| w.replace("/results", &results.path().display().to_string()))
        .collect();
    let o = Command::new(bin())
        .args(&words)
        .env("JOB_COMPLETION_INDEX", "7")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", describe(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("JOB_COMPLETION_INDEX=7"), "{err}");
    assert_eq!(listing(results.path()), Vec::<String>::new(), "nothing stored");
}
