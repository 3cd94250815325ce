//! Real database servers as engines: PostgreSQL and MariaDB.
//!
//! The speed comparison litebench's suites come from put SQLite beside client/server databases,
//! and a comparison is only honest if the servers run with known settings that are read back
//! like SQLite's pragmas. So by default litebench starts a throwaway server of its own (a fresh
//! data directory in the run's scratch directory, a free loopback port, the machine's installed
//! binaries) and removes it when the run ends, however it ends; `postgres=URL` / `mysql=URL`
//! connects to a server the user runs instead.
//!
//! It is one engine, [`engine::ServerEngine`], in flavours ([`flavour::Flavour`]: PostgreSQL in
//! `engines/postgres`, MariaDB in `engines/mysql`). This module holds the helpers they share:
//! who the server runs as, which port it gets, how a URL is shown without its password, how
//! litebench names its databases, and the bookkeeping of server-level settings it changed (so
//! the next configuration starts from the server's own values, and a user's server is left as
//! it was found).

pub mod engine;
pub mod error;
pub mod flavour;
pub mod isolation;
pub mod process;

use crate::engines::{EngineError, ErrorKind};
use std::collections::BTreeMap;
use std::ffi::CString;
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Prefix of pass-through server settings: `--knob set.work_mem=64MB`.
pub const PASSTHROUGH_PREFIX: &str = "set.";

/// The system user a server runs as when litebench runs as root (servers refuse root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunAs {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Looks a system user up by name.
fn lookup_user(name: &str) -> Option<RunAs> {
    let cname = CString::new(name).ok()?;
    // SAFETY: getpwnam returns a pointer to static storage or null; we copy what we need at once
    // (litebench does not call getpwnam from other threads).
    unsafe {
        let pw = libc::getpwnam(cname.as_ptr());
        if pw.is_null() {
            return None;
        }
        Some(RunAs {
            name: name.to_string(),
            uid: (*pw).pw_uid,
            gid: (*pw).pw_gid,
        })
    }
}

/// As root: the package's system user (`postgres`, `mysql`), which must exist. Otherwise the
/// server runs as the invoking user (`None`).
pub fn run_as(user: &'static str, package: &'static str) -> Result<Option<RunAs>, error::ServerError> {
    if !is_root() {
        return Ok(None);
    }
    lookup_user(user)
        .map(Some)
        .ok_or(error::ServerError::NoSystemUser { user, package })
}

/// Supplementary groups of a user (for the reachability check).
fn groups_of(who: &RunAs) -> Vec<u32> {
    let Ok(cname) = CString::new(who.name.as_str()) else {
        return vec![who.gid];
    };
    let mut n: libc::c_int = 64;
    let mut groups = vec![0 as libc::gid_t; n as usize];
    // SAFETY: the buffer holds `n` entries; getgrouplist writes at most that many and updates n.
    let rc = unsafe { libc::getgrouplist(cname.as_ptr(), who.gid, groups.as_mut_ptr(), &mut n) };
    if rc < 0 {
        return vec![who.gid];
    }
    groups.truncate(n.max(0) as usize);
    groups
}

/// Checks that `who` can enter every directory from `/` down to `dir`, so a server running as
/// that user can reach its data directory inside the scratch directory.
pub fn check_reachable(dir: &Path, who: &RunAs) -> Result<(), error::ServerError> {
    let groups = groups_of(who);
    let mut blocked = None;
    for a in dir.ancestors().collect::<Vec<_>>().into_iter().rev() {
        let Ok(m) = std::fs::metadata(a) else { continue };
        let mode = m.mode();
        let ok = if m.uid() == who.uid {
            mode & 0o100 != 0
        } else if groups.contains(&m.gid()) {
            mode & 0o010 != 0
        } else {
            mode & 0o001 != 0
        };
        if !ok {
            blocked = Some((a.to_path_buf(), mode & 0o7777));
            break;
        }
    }
    match blocked {
        None => Ok(()),
        Some((dir, mode)) => Err(error::ServerError::Unreachable {
            user: who.name.clone(),
            dir,
            mode,
        }),
    }
}

/// The loopback port for a throwaway server: `$env` if set (which must be free), else a free
/// port chosen by the kernel. Returns the port and whether it was fixed by the user.
pub fn choose_port(env: &'static str) -> Result<(u16, bool), error::ServerError> {
    use error::ServerError;
    match std::env::var(env) {
        Ok(value) => {
            let Some(port) = value.trim().parse().ok().filter(|p| *p > 0) else {
                return Err(ServerError::NotAPort { env, value });
            };
            if !port_is_free(port) {
                return Err(ServerError::PortInUse { env, port });
            }
            Ok((port, true))
        }
        Err(_) => {
            if let Some(port) = draw_free_port() {
                return Ok((port, false));
            }
            let no_port = |source| ServerError::NoFreePort { env, source };
            let l = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0)).map_err(no_port)?;
            Ok((l.local_addr().map_err(no_port)?.port(), false))
        }
    }
}

/// The lowest port litebench draws a throwaway server's port from.
const PORT_FLOOR: u16 = 20_000;

/// A free port drawn at random below the kernel's ephemeral range (`ip_local_port_range`,
/// 32768-60999 by default), or `None` when that range leaves no room below it. A port the
/// kernel hands out for port 0 is also the local port of the next outgoing connections: while
/// a throwaway server is stopped for a cold trial, any connection, or another server started
/// meanwhile, may take it and the restarted server then cannot bind. Below the range only a
/// program that asks for that very port can.
fn draw_free_port() -> Option<u16> {
    use rand::Rng;
    let ceiling = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32_768);
    if ceiling < PORT_FLOOR + 1_000 {
        return None;
    }
    let mut rng = rand::rng();
    (0..64)
        .map(|_| rng.random_range(PORT_FLOOR..ceiling))
        .find(|p| port_is_free(*p))
}

/// Whether a directory a server reports (`/x/data/`, `/x/data`) is `ours`.
pub fn same_dir(reported: &str, ours: &Path) -> bool {
    let reported = Path::new(reported.trim_end_matches('/'));
    reported == ours || matches!((reported.canonicalize(), ours.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

/// Whether nothing listens on 127.0.0.1:`port`.
pub fn port_is_free(port: u16) -> bool {
    TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port)).is_ok()
}

/// A URL as shown in labels and reports: the password replaced by `***`, in URL form
/// (`user:secret@host`), as a `password=` parameter, and in key=value connection strings.
pub fn redact_url(url: &str) -> String {
    let mut out = url.to_string();
    if let Some(scheme_end) = out.find("://") {
        let start = scheme_end + 3;
        let rest = &out[start..];
        let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        if let Some(at) = rest[..auth_end].rfind('@') {
            if let Some(colon) = rest[..at].find(':') {
                out.replace_range(start + colon + 1..start + at, "***");
            }
        }
    }
    // `password=...` as a query parameter or a key=value pair.
    let lower = out.to_ascii_lowercase();
    let mut result = String::new();
    let mut i = 0;
    while let Some(found) = lower[i..].find("password=") {
        let at = i + found;
        let before_ok = at == 0 || matches!(out.as_bytes()[at - 1], b'?' | b'&' | b' ' | b';');
        let value_start = at + "password=".len();
        result.push_str(&out[i..value_start]);
        if before_ok {
            let value_end = out[value_start..]
                .find(['&', ' ', ';', '#'])
                .map_or(out.len(), |e| value_start + e);
            result.push_str("***");
            i = value_end;
        } else {
            i = value_start;
        }
    }
    result.push_str(&out[i..]);
    result
}

/// A command line with the passwords of `--engine postgres=URL` / `mysql=URL` values redacted,
/// for records that keep the command (`Manifest::command`).
pub fn redact_command(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut engine_next = false;
    for a in args {
        let redacted = if engine_next || a.starts_with("--engine=") || a.contains("://") {
            redact_url(a)
        } else {
            a.clone()
        };
        engine_next = a == "--engine";
        out.push(redacted);
    }
    out
}

/// The server-side name of a litebench database: `lb_<pid>_<name>`, lower case, `_` for anything
/// but letters and digits. The process id keeps two runs against one server apart.
pub fn db_name(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("lb_{}_{clean}", std::process::id())
}

/// Collapses a multi-line message into one line.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An error and its causes in one line (`error connecting to server: Connection refused`).
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        cur = c.source();
    }
    one_line(&s)
}

/// The first column of the first row of a `query` result.
pub fn first_value(rows: Vec<Vec<Option<String>>>) -> Option<String> {
    rows.into_iter().next().and_then(|r| r.into_iter().next().flatten())
}

/// An engine error about a server, with no code.
pub fn error(engine: &str, kind: ErrorKind, message: String, context: &str) -> EngineError {
    EngineError {
        busy_cause: None,
        engine: engine.to_string(),
        kind,
        code: None,
        message: one_line(&message),
        context: context.to_string(),
    }
}

/// Why `--cold` cannot be used with a server litebench did not start.
pub fn cold_refused(label: &str, flag: &str) -> String {
    format!(
        "--cold: {label} is a server litebench did not start, so litebench cannot empty its buffer pool (that takes a restart); leave out --cold or let litebench start a throwaway server (--engine {flag})"
    )
}

/// Restarts a throwaway server for a cold trial: a clean shutdown (which writes its dirty
/// pages), `drop_os_cache` while it is stopped, a start with `cmd`, and a wait until `connect`
/// gets a connection, which is returned (the old ones died with the old process).
pub fn cold_restart<C>(
    label: &str,
    server: &process::ServerProcess,
    cmd: std::process::Command,
    drop_os_cache: &mut dyn FnMut() -> Result<(), EngineError>,
    mut connect: impl FnMut() -> Option<C>,
) -> Result<C, EngineError> {
    let context = "restarting the server for a cold trial (--cold)";
    let mut os_error = None;
    let restarted = server.restart(cmd, &mut || os_error = drop_os_cache().err());
    if let Some(e) = os_error {
        return Err(e);
    }
    let failed = |e: error::ServerError| error(label, ErrorKind::Io, e.to_string(), context);
    restarted.map_err(failed)?;
    let mut conn = None;
    server
        .wait_ready(std::time::Duration::from_secs(60), &mut || {
            conn = connect();
            conn.is_some()
        })
        .map_err(failed)?;
    conn.ok_or_else(|| {
        error(
            label,
            ErrorKind::Io,
            "the server did not accept a connection".into(),
            context,
        )
    })
}

/// A server-level setting litebench changed: the value to put back and the value it set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Override {
    /// How the setting was before litebench first changed it (the engine knows how to restore
    /// it: PostgreSQL's `postgresql.auto.conf` entry, MariaDB's global value).
    pub original: Option<String>,
    /// The value litebench set last.
    pub current: String,
}

/// Every server-level setting litebench changed on one server, by setting name.
pub type Overrides = BTreeMap<String, Override>;

/// The `(setting, value, knob)` triples a configuration wants set on the server: its named
/// knobs in table order, then its pass-through settings (`set.NAME`), named without the prefix.
pub fn wanted_settings(
    knobs: &crate::model::knob::KnobSet,
    specs: &[crate::model::knob::KnobSpec],
) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for spec in specs {
        if let Some(v) = knobs.get(spec.name) {
            out.push((spec.name.to_string(), v.to_string(), spec.name.to_string()));
        }
    }
    for k in knobs.0.iter().filter(|k| k.name.starts_with(PASSTHROUGH_PREFIX)) {
        out.push((
            k.setting_name(PASSTHROUGH_PREFIX).to_string(),
            k.value.clone(),
            k.name.clone(),
        ));
    }
    out
}

/// What a server engine records about itself in the manifest: where its data lives, its port,
/// the settings of note as the server reports them (`show` turns a setting name into the query
/// that reads it), and either the user's URL or how litebench started the server.
#[allow(clippy::too_many_arguments)]
pub fn describe(
    admin: &mut dyn crate::engines::Connection,
    settings_of_note: &[&str],
    show: impl Fn(&str) -> String,
    data_dir: Option<&Path>,
    port: u16,
    url: Option<&str>,
    launch: serde_json::Value,
    run_as: Option<&RunAs>,
) -> serde_json::Value {
    let mut settings = serde_json::Map::new();
    for s in settings_of_note {
        if let Ok(Some(v)) = admin.query_value(&show(s)) {
            settings.insert((*s).into(), v.into());
        }
    }
    let mut details = serde_json::json!({
        "data_dir": data_dir.map_or_else(|| "external".to_string(), |d| d.display().to_string()),
        "port": port,
        "settings": settings,
    });
    match url {
        Some(u) => details["url"] = u.into(),
        None => {
            if let (Some(obj), serde_json::Value::Object(l)) = (details.as_object_mut(), launch) {
                obj.extend(l);
            }
            details["server_user"] = run_as.map_or_else(|| "(the invoking user)".into(), |r| r.name.clone().into());
        }
    }
    details
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_variable_that_names_no_free_port_is_refused_with_its_value() {
        // A variable of this test's own: no other test reads it.
        const ENV: &str = "LITEBENCH_TEST_CHOOSE_PORT";
        std::env::set_var(ENV, "http");
        let e = choose_port(ENV).unwrap_err();
        assert!(
            matches!(&e, error::ServerError::NotAPort { value, .. } if value == "http"),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            format!("{ENV}=http: not a port number; give a port from 1 to 65535 or unset {ENV}")
        );
        let held = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0)).unwrap();
        let port = held.local_addr().unwrap().port();
        std::env::set_var(ENV, port.to_string());
        let e = choose_port(ENV).unwrap_err();
        assert!(
            matches!(e, error::ServerError::PortInUse { port: p, .. } if p == port),
            "{e:?}"
        );
        drop(held);
        assert_eq!(choose_port(ENV).unwrap(), (port, true));
        std::env::remove_var(ENV);
    }

    /// A server is litebench's own only when it reports the data directory litebench made.
    #[test]
    fn a_server_is_ours_only_with_our_data_directory() {
        let ours = Path::new("/tmp/lb-x/postgres/data");
        assert!(same_dir("/tmp/lb-x/postgres/data", ours));
        assert!(
            same_dir("/tmp/lb-x/postgres/data/", ours),
            "MariaDB ends @@datadir with a slash"
        );
        assert!(!same_dir("/var/lib/postgresql/15/main", ours));
        assert!(!same_dir("/tmp/lb-y/postgres/data", ours));
        assert!(!same_dir("", ours));
    }

    /// A throwaway server's port is drawn below the kernel's ephemeral range, where no
    /// outgoing connection takes it while the server is stopped for a cold trial.
    #[test]
    fn a_drawn_port_is_free_and_below_the_ephemeral_range() {
        let ceiling: u16 = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        for _ in 0..20 {
            let port = draw_free_port().expect("room below the ephemeral range");
            assert!((PORT_FLOOR..ceiling).contains(&port), "{port}");
            assert!(port_is_free(port), "{port}");
        }
    }

    #[test]
    fn redacts_passwords_in_every_url_form() {
        assert_eq!(
            redact_url("postgres://bench:s3cret@db:5432/x"),
            "postgres://bench:***@db:5432/x"
        );
        assert_eq!(redact_url("mysql://root@127.0.0.1/x"), "mysql://root@127.0.0.1/x");
        assert_eq!(
            redact_url("postgres://u@h/x?sslmode=disable&password=abc"),
            "postgres://u@h/x?sslmode=disable&password=***"
        );
        assert_eq!(
            redact_url("host=h user=u password=abc dbname=x"),
            "host=h user=u password=*** dbname=x"
        );
        assert_eq!(redact_url("postgres://127.0.0.1:1/x"), "postgres://127.0.0.1:1/x");
        assert_eq!(redact_url("mysql://a:b:c@h/x"), "mysql://a:***@h/x");
    }

    #[test]
    fn command_lines_lose_their_passwords() {
        let args: Vec<String> = [
            "litebench",
            "run",
            "crud",
            "--engine",
            "postgres=postgres://u:pw@h/x",
            "--engine=mysql=mysql://r:pw@h/",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            redact_command(&args),
            [
                "litebench",
                "run",
                "crud",
                "--engine",
                "postgres=postgres://u:***@h/x",
                "--engine=mysql=mysql://r:***@h/"
            ]
        );
    }

    #[test]
    fn database_names_are_plain_identifiers() {
        let n = db_name("trial-12");
        assert!(n.starts_with("lb_") && n.ends_with("_trial_12"), "{n}");
        assert!(n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    }

    #[test]
    fn a_port_someone_listens_on_is_not_free() {
        let l = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0)).unwrap();
        assert!(!port_is_free(l.local_addr().unwrap().port()));
    }
}
