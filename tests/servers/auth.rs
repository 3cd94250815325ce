//! `postgres=URL` with password authentication: litebench's own client
//! (engines/postgres/wire.rs) speaks SCRAM-SHA-256 and md5 itself, so each is run once against
//! a server that asks for it, and a wrong password must stay one line.

use super::{args, tiny};
use crate::servers::common::*;
use litebench::engines::{DbRef, Engine};

#[test]
fn postgres_urls_with_scram_and_md5_passwords_run_and_a_wrong_one_is_one_line() {
    if !available(&[Server::Postgres]) {
        return;
    }
    let sb = Sandbox::new();
    let (_outside, scratch) = outside_scratch();
    let server = litebench::engines::postgres::PostgresEngine::start(&scratch).expect("start a server");
    let port = server.info().details.unwrap()["port"].as_u64().unwrap();
    let mut conn = server
        .connect(&DbRef {
            name: "postgres".into(),
            path: None,
        })
        .expect("connect");
    conn.execute_batch(
        "CREATE ROLE lb_scram LOGIN SUPERUSER PASSWORD 'scram-pw'; \
         SET password_encryption = 'md5'; \
         CREATE ROLE lb_md5 LOGIN SUPERUSER PASSWORD 'md5-pw'",
    )
    .unwrap();
    // Our own server's pg_hba.conf (in this test's directory): these two users need passwords.
    let hba = server.data_dir().unwrap().join("pg_hba.conf");
    let old = std::fs::read_to_string(&hba).unwrap();
    std::fs::write(
        &hba,
        format!("host all lb_scram 127.0.0.1/32 scram-sha-256\nhost all lb_md5 127.0.0.1/32 md5\n{old}"),
    )
    .unwrap();
    conn.query("SELECT pg_reload_conf()").unwrap();
    // The postmaster re-reads pg_hba.conf on the signal, after the call returns.
    std::thread::sleep(std::time::Duration::from_secs(1));
    for (user, password) in [("lb_scram", "scram-pw"), ("lb_md5", "md5-pw")] {
        let engine = format!("postgres=postgres://{user}:{password}@127.0.0.1:{port}/postgres");
        let out = run(sb.run_std(&args(&tiny(&[&engine], &[]))));
        out.assert_success();
    }
    // Client processes dial the same URL, password included (on their standard input).
    let engine = format!("postgres=postgres://lb_scram:scram-pw@127.0.0.1:{port}/postgres");
    let out = run(sb.run_std(&args(&tiny(
        &[&engine],
        &["--clients", "2", "--client-mode", "processes"],
    ))));
    let v = out.assert_success();
    assert_eq!(
        v["manifest"]["load"]["client_mode"], "processes",
        "{}",
        v["manifest"]["load"]
    );
    let engine = format!("postgres=postgres://lb_scram:wrong@127.0.0.1:{port}/postgres");
    let out = run(sb.run_std(&args(&tiny(&[&engine], &[]))));
    assert_eq!(out.status.code(), Some(2), "{}", out.describe());
    let lines: Vec<&str> = out.stderr.lines().filter(|l| !l.contains("RAM filesystem")).collect();
    assert_eq!(lines.len(), 1, "{}", out.describe());
    assert!(
        lines[0].starts_with("error: ") && lines[0].contains("password authentication failed for user \"lb_scram\""),
        "{}",
        lines[0]
    );
    assert!(!lines[0].contains("wrong"), "the password leaked: {}", lines[0]);
    drop(conn);
    drop(server);
    drop(scratch);
    sb.assert_clean("postgres URLs with passwords");
}
