//! A server the user runs (`postgres=URL`, `mysql=URL`) gets back every setting litebench
//! changed: the originals are read before the first trial (a run whose originals cannot be read
//! stops before it changes anything), and a setting that cannot be put back at the end is
//! reported on stderr and kept with the run (`manifest.warnings`). The servers here are started
//! by the test through the library and handed to litebench as URLs.

use crate::servers::common::*;
use litebench::engines::{Connection, DbRef, Engine};
use litebench::sys::scratch::Scratch;
use std::time::Duration;

fn outside() -> (tempfile::TempDir, Scratch) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix("litebench-restore-")
        .tempdir()
        .expect("tempdir");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let scratch = Scratch::create(Some(dir.path())).expect("scratch");
    (dir, scratch)
}

fn connect(engine: &dyn Engine, db: &str) -> Box<dyn Connection> {
    engine
        .connect(&DbRef {
            name: db.into(),
            path: None,
        })
        .expect("connect")
}

/// crud on `engine` with `knob`, `trials` trials of about a second each.
fn slow_run(sb: &Sandbox, engine: &str, knob: &str, trials: &str) -> Running {
    Running::start(sb.run_std(&[
        "crud",
        "--engine",
        engine,
        "--knob",
        knob,
        "--param",
        "rows=500",
        "--param",
        "duration=1s",
        "--trials",
        trials,
        "--warmup",
        "0",
        "--quiet",
        "--format",
        "json",
    ]))
}

fn auto_conf(conn: &mut dyn Connection) -> Vec<String> {
    conn.query("SELECT name || '=' || setting FROM pg_file_settings WHERE sourcefile LIKE '%postgresql.auto.conf'")
        .expect("pg_file_settings")
        .into_iter()
        .filter_map(|r| r.into_iter().next().flatten())
        .collect()
}

/// Waits until the run has stored a trial; if it ends first, fails with its output.
fn first_trial(sb: &Sandbox, mut r: Running) -> Running {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while std::time::Instant::now() < deadline {
        if !r.is_running() {
            panic!(
                "litebench ended before its first trial was stored\n{}",
                r.finish(TIMEOUT).describe()
            );
        }
        if let Ok(out) = sb.show_std(&["--list", "--format", "json"]).output() {
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
            if v[0]["trials"].as_u64().unwrap_or(0) >= 1 {
                return r;
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("no trial stored within 120 s");
}

/// The warnings stored with the newest run of the sandbox's store.
fn stored_warnings(sb: &Sandbox) -> Vec<String> {
    let out = run(sb.show_std(&["--format", "json"]));
    let v = out.json();
    v["manifest"]["warnings"]
        .as_array()
        .map(|a| a.iter().filter_map(|w| w.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// A role that may change `synchronous_commit` and read `postgresql.auto.conf` loses the right
/// to change it while the run goes on: the run completes, and the setting it could not put back
/// is reported on stderr and stored with the run. A role that cannot read the originals stops
/// before the first trial, with nothing changed; `--cold` is refused on a URL.
#[test]
fn postgres_url_settings_are_read_first_and_a_failed_restore_is_reported() {
    if !available(&[Server::Postgres]) {
        return;
    }
    let (outside_dir, scratch) = outside();
    let server = litebench::engines::postgres::PostgresEngine::start(&scratch).expect("start a server");
    let port = server.info().details.unwrap()["port"].as_u64().unwrap();
    let mut su = connect(&server, "postgres");
    su.execute_batch(
        "CREATE ROLE bench LOGIN CREATEDB; GRANT pg_checkpoint TO bench;
         GRANT ALTER SYSTEM ON PARAMETER synchronous_commit TO bench;
         GRANT EXECUTE ON FUNCTION pg_reload_conf() TO bench;
         GRANT SELECT ON pg_file_settings TO bench;
         GRANT EXECUTE ON FUNCTION pg_show_all_file_settings() TO bench;
         CREATE ROLE blind LOGIN CREATEDB; GRANT pg_checkpoint TO blind;
         GRANT ALTER SYSTEM ON PARAMETER synchronous_commit TO blind;
         GRANT EXECUTE ON FUNCTION pg_reload_conf() TO blind;",
    )
    .expect("roles");
    // Functions are granted per database: trial databases are made from template1's copies.
    connect(&server, "template1")
        .execute_batch("GRANT EXECUTE ON FUNCTION pg_reload_conf() TO bench, blind")
        .expect("grant in template1");
    let sb = Sandbox::new();

    // No right to read the originals: nothing runs, nothing changes.
    let blind = format!("postgres=postgres://blind@127.0.0.1:{port}/postgres");
    let out = slow_run(&sb, &blind, "synchronous_commit=off", "2").finish(TIMEOUT);
    let line = out.assert_error_line(&["synchronous_commit", "pg_file_settings", "0 finished trials kept"]);
    assert!(line.contains("to put it back after the run"), "{line}");
    assert!(auto_conf(su.as_mut()).is_empty(), "a setting was changed");

    // --cold cannot empty the buffer pool of a server litebench did not start.
    let bench = format!("postgres=postgres://bench@127.0.0.1:{port}/postgres");
    let out = run(sb.run_std(&["crud", "--engine", &bench, "--cold", "--quiet"]));
    out.assert_error_line(&[&format!("--cold: {bench} is a server litebench did not start")]);

    // The right to put it back is gone by the end.
    let sb = Sandbox::new();
    let r = slow_run(&sb, &bench, "synchronous_commit=off", "4");
    let r = first_trial(&sb, r);
    su.execute_batch("REVOKE ALTER SYSTEM ON PARAMETER synchronous_commit FROM bench")
        .expect("revoke");
    let out = r.finish(TIMEOUT);
    let v = out.assert_success();
    assert_eq!(v["run"]["status"], "complete");
    let warning = out
        .stderr
        .lines()
        .find(|l| l.starts_with("warning: ") && !l.contains("RAM filesystem"))
        .unwrap_or_else(|| panic!("no warning on stderr\n{}", out.describe()))
        .to_string();
    for part in [
        &format!("{bench}: could not put synchronous_commit back"),
        "permission denied",
        "ALTER SYSTEM RESET synchronous_commit",
    ] {
        assert!(warning.contains(part), "{part:?} not in {warning}");
    }
    let reported = v["manifest"]["warnings"].as_array().expect("manifest.warnings");
    assert_eq!(reported.len(), 1, "{reported:?}");
    assert_eq!(format!("warning: {}", reported[0].as_str().unwrap()), warning);
    assert_eq!(stored_warnings(&sb), [warning.trim_start_matches("warning: ")]);
    // Indeed not put back; the test does it.
    assert_eq!(auto_conf(su.as_mut()), ["synchronous_commit=off"]);
    su.execute_batch("ALTER SYSTEM RESET synchronous_commit")
        .expect("reset");
    // The trials of a server litebench did not start have no device counts.
    assert!(
        v["trials"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.get("device_io").is_none()),
        "device I/O reported for a server litebench did not start"
    );
    drop(su);
    drop(server);
    drop(scratch);
    sb.assert_clean("postgres URL restore");
    assert!(processes_under(outside_dir.path()).is_empty());
}

/// The MariaDB server given by URL stops during the run: the run fails, and the global
/// variable it could not put back is reported on stderr and stored with the run.
#[test]
fn mysql_url_restore_failure_is_reported_when_the_server_goes_away() {
    if !available(&[Server::Mysql]) {
        return;
    }
    let (outside_dir, scratch) = outside();
    let server = litebench::engines::mysql::MysqlEngine::start(&scratch).expect("start a server");
    let port = server.info().details.unwrap()["port"].as_u64().unwrap();
    let engine = format!("mysql=mysql://root@127.0.0.1:{port}/");
    let sb = Sandbox::new();
    let r = slow_run(&sb, &engine, "innodb_flush_log_at_trx_commit=2", "20");
    let r = first_trial(&sb, r);
    drop(server);
    let out = r.finish(TIMEOUT);
    assert_eq!(out.status.code(), Some(2), "{}", out.describe());
    // The flush before a trial may have been cut short too (innodb_max_dirty_pages_pct).
    let warnings: Vec<&str> = out
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("warning: "))
        .filter(|l| !l.contains("RAM filesystem"))
        .collect();
    let warning = warnings
        .iter()
        .find(|w| w.contains("innodb_flush_log_at_trx_commit"))
        .unwrap_or_else(|| panic!("no warning about the knob on stderr\n{}", out.describe()));
    assert!(
        warning.starts_with(&format!(
            "{engine}: could not put the global variable innodb_flush_log_at_trx_commit back to 1"
        )),
        "{warning}"
    );
    assert!(
        warning.contains("SET GLOBAL innodb_flush_log_at_trx_commit = 1"),
        "{warning}"
    );
    assert!(
        out.stderr.lines().any(|l| l.starts_with("error: ")),
        "{}",
        out.describe()
    );
    let v = out.json();
    assert_eq!(v["run"]["status"], "failed");
    let reported: Vec<&str> = v["manifest"]["warnings"]
        .as_array()
        .expect("manifest.warnings")
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert_eq!(reported, warnings);
    assert_eq!(stored_warnings(&sb), warnings);
    drop(scratch);
    sb.assert_clean("mysql URL gone");
    assert!(processes_under(outside_dir.path()).is_empty());
}
