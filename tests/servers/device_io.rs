//! The I/O that can be counted honestly for engines without litebench's VFS shim: the device
//! bytes of a throwaway server's processes per trial (`trials[].device_io`), beside SQLite's own
//! process.

use crate::servers::common::*;

/// Committed, synced writes on every server reach the device from the server's processes, and
/// the trial records say whose processes were counted.
#[test]
fn server_trials_record_the_device_bytes_of_their_processes() {
    if !available(&[Server::Postgres, Server::Mysql]) {
        return;
    }
    let sb = Sandbox::new();
    // Every commit is synced by default (synchronous_commit=on, innodb_flush_log_at_trx_commit=1).
    let out = run(sb.run_std(&[
        "crud",
        "--engine",
        "sqlite",
        "--engine",
        "postgres",
        "--engine",
        "mysql",
        "--param",
        "rows=500",
        "--param",
        "inserts=200",
        "--param",
        "updates=200",
        "--param",
        "deletes=200",
        "--trials",
        "2",
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]));
    let v = out.assert_success();
    let ram = v["manifest"]["environment"]["storage"]["ram_backed"] == true;
    let configs = v["manifest"]["configs"].as_array().unwrap();
    let trials = v["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 6);
    for t in trials {
        let engine = configs[t["config"].as_u64().unwrap() as usize]["engine"]
            .as_str()
            .unwrap();
        let d = &t["device_io"];
        let processes = d["processes"].as_u64().unwrap_or(0);
        match engine {
            "sqlite" => {
                assert_eq!(d["source"], "litebench process", "{t:#}");
                assert_eq!(processes, 1, "{d:#}");
            }
            "postgres" | "mysql" => {
                assert_eq!(d["source"], "server processes", "{engine}: {t:#}");
                // The postmaster, its background processes and the trial's backend.
                let at_least = if engine == "postgres" { 3 } else { 1 };
                assert!(processes >= at_least, "{engine}: {d:#}");
                assert!(
                    ram || d["write_bytes"].as_u64().is_some_and(|b| b > 0),
                    "{engine}: synced commits wrote nothing to the device: {d:#}"
                );
                // Not VFS counts: the VFS counted nothing for a server.
                assert_eq!(t["io"]["main"]["write_bytes"], 0, "{engine}");
            }
            other => panic!("unexpected engine {other}"),
        }
    }
    // The summary shows them per transaction in columns of their own, for whole trials only;
    // servers' VFS columns stay null (nothing was counted there), never 0.
    for r in v["summary"].as_array().unwrap() {
        let engine = r["engine"].as_str().unwrap();
        if r["operation"] == "all" {
            let source = r["device_io_source"].as_str().unwrap_or_default();
            let want = if engine == "sqlite" {
                "litebench process"
            } else {
                "server processes"
            };
            assert!(source.starts_with(want), "{r:#}");
            assert!(r["device_write_bytes_per_tx"].is_number(), "{r:#}");
        } else {
            assert!(r["device_write_bytes_per_tx"].is_null(), "{r:#}");
        }
        if engine != "sqlite" {
            assert!(
                r["syncs_per_tx"].is_null() && r["write_bytes_per_tx"].is_null(),
                "{r:#}"
            );
        }
    }
    sb.assert_clean("device I/O");
}
