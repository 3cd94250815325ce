//! [`ServerError`]: why a throwaway server's directory, its `init` tool or the server itself
//! could not be made, run or reached, as a value that keeps the program, its exit status, the
//! last line of its log and the `io::Error` underneath. The engine words it once, where the
//! user sees it: after `--engine FLAG: ` on a start, in the `EngineError` of a cold restart.

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

/// A server's set-up, start or restart that failed.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The server directory or a log file could not be made or handed over (`doing`: what
    /// litebench tried, when the error alone does not say it).
    #[error("{}: {}", .path.display(), with_doing(.doing.as_deref(), .source))]
    Io {
        path: PathBuf,
        doing: Option<String>,
        #[source]
        source: io::Error,
    },
    /// A program of the server that is not installed (`names`: both programs, for the hint
    /// when they were looked for in `bin_env`'s directory).
    #[error("{} not found; install the Debian package {package}{}", .path.display(), bin_hint(*.bin_env, .names))]
    NotInstalled {
        path: PathBuf,
        package: &'static str,
        bin_env: Option<&'static str>,
        names: Box<[String; 2]>,
    },
    /// A `--engine NAME=URL` whose URL does not parse (`example`: a URL that does).
    #[error("not a {server} connection URL ({}); e.g. {example}", super::one_line(&.source.to_string()))]
    NotAUrl {
        server: &'static str,
        example: &'static str,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A server the user runs that did not take the connection: the client's error in one
    /// line (`detail`), and the parts of the URL to check (`asks`).
    #[error("cannot connect ({detail}); check that the server runs and the URL ({asks})")]
    Connect {
        detail: String,
        asks: &'static str,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Running as root, the server's system user does not exist.
    #[error("running as root, the server must run as the system user `{user}`, which does not exist; install the Debian package {package} (it creates that user) or run litebench as an ordinary user")]
    NoSystemUser { user: &'static str, package: &'static str },
    /// The variable that fixes the port holds no port number.
    #[error("{env}={value}: not a port number; give a port from 1 to 65535 or unset {env}")]
    NotAPort { env: &'static str, value: String },
    /// The port the variable fixes is taken.
    #[error("{env}={port}: port {port} on 127.0.0.1 is in use; free it, choose another port or unset {env} to let litebench pick a free one")]
    PortInUse { env: &'static str, port: u16 },
    /// The kernel gave no free port.
    #[error("cannot find a free port on 127.0.0.1 ({source}); set {env} to a free port")]
    NoFreePort { env: &'static str, source: io::Error },
    /// The server's system user cannot enter a directory on the way to its own.
    #[error("the server runs as the system user `{user}`, which cannot enter {} (mode {mode:04o}) on the way to --dir; make it traversable (chmod o+x {}) or point --dir elsewhere", .dir.display(), .dir.display())]
    Unreachable { user: String, dir: PathBuf, mode: u32 },
    /// A program that could not be started (`again`: the restart of a cold trial).
    #[error("cannot run {program}{}: {source}", if *.again { " again" } else { "" })]
    Spawn {
        program: String,
        again: bool,
        #[source]
        source: io::Error,
    },
    /// `initdb` or `mariadb-install-db` ran past its time and was killed.
    #[error("{tool} did not finish within {}s", .limit.as_secs())]
    ToolTimeout { tool: String, limit: Duration },
    /// `initdb` or `mariadb-install-db` failed.
    #[error("{tool} failed ({}){}", describe_status(*.status), after(": ", .log_tail))]
    ToolFailed {
        tool: String,
        status: ExitStatus,
        log_tail: Option<String>,
    },
    /// The server exited before it took a connection.
    #[error("{what} exited while starting ({}){}", describe_status(*.status), after(": ", .log_tail))]
    Exited {
        what: &'static str,
        status: ExitStatus,
        log_tail: Option<String>,
    },
    /// The server did not take a connection in time.
    #[error("{what} did not accept connections within {}s{}", .limit.as_secs(), after("; its log ends: ", .log_tail))]
    NotReady {
        what: &'static str,
        limit: Duration,
        log_tail: Option<String>,
    },
}

/// Why a server engine could not be had, with the `--engine` flag it came from: a throwaway
/// server that did not start, a server the user runs that did not answer, or a client process's
/// connection to its parent's server. Its message is the one line the user reads.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The throwaway server (`flag`: `postgres`, `mysql`).
    #[error("--engine {flag}: {source}")]
    Start {
        flag: &'static str,
        #[source]
        source: ServerError,
    },
    /// The started server that answered, then could not say its version.
    #[error("--engine {flag}: {}", .source.message)]
    Version {
        flag: &'static str,
        #[source]
        source: crate::engines::EngineError,
    },
    /// A server the user runs, at `shown` (the URL without its password).
    #[error("--engine {flag}={shown}: {source}")]
    Url {
        flag: &'static str,
        shown: String,
        #[source]
        source: Box<OpenError>,
    },
    /// A cause under [`OpenError::Url`]: the connection itself.
    #[error("{0}")]
    Connect(#[source] ServerError),
    /// A cause under [`OpenError::Url`]: the server answered, then could not say its version.
    #[error("{}", .0.message)]
    NoVersion(#[source] crate::engines::EngineError),
    /// A client process's connection to the server its parent runs the trial on.
    #[error("client process: {0}")]
    Attach(#[source] Box<OpenError>),
}

impl ServerError {
    /// An I/O error on `path`, with what was tried when given.
    pub fn io(path: &std::path::Path, doing: Option<String>) -> impl FnOnce(io::Error) -> ServerError + '_ {
        move |source| ServerError::Io {
            path: path.to_path_buf(),
            doing,
            source,
        }
    }
}

fn bin_hint(bin_env: Option<&str>, names: &[String; 2]) -> String {
    bin_env.map_or(String::new(), |v| {
        format!(" or point {v} at the directory holding {} and {}", names[0], names[1])
    })
}

fn with_doing(doing: Option<&str>, e: &io::Error) -> String {
    doing.map_or_else(|| e.to_string(), |d| format!("{d} ({e})"))
}

/// `sep` and the log's last line, or nothing without one.
fn after(sep: &str, log_tail: &Option<String>) -> String {
    log_tail.as_ref().map_or(String::new(), |t| format!("{sep}{t}"))
}

/// How a program ended: `exit status 1`, `killed by signal 9`.
pub fn describe_status(s: ExitStatus) -> String {
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exit status {c}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_error_names_the_engine_flag_once_and_keeps_its_cause() {
        let refused = || {
            OpenError::Connect(ServerError::NoSystemUser {
                user: "postgres",
                package: "postgresql",
            })
        };
        let url = OpenError::Url {
            flag: "postgres",
            shown: "postgres://u@127.0.0.1:5432/db".into(),
            source: Box::new(refused()),
        };
        let line = url.to_string();
        assert!(
            line.starts_with("--engine postgres=postgres://u@127.0.0.1:5432/db: running as root"),
            "{line}"
        );
        assert_eq!(line.matches("--engine").count(), 1, "{line}");
        let attached = OpenError::Attach(Box::new(url));
        assert!(
            attached.to_string().starts_with("client process: --engine postgres="),
            "{attached}"
        );
        // The typed cause travels under the line.
        let mut cause = std::error::Error::source(&attached);
        let mut depth = 0;
        while let Some(c) = cause {
            depth += 1;
            cause = c.source();
        }
        assert_eq!(depth, 3, "attach, url, connect: {attached:?}");
        // A version that could not be read: the engine's message alone, after the flag.
        let version = OpenError::Version {
            flag: "mysql",
            source: crate::engines::EngineError {
                engine: "mysql".into(),
                kind: crate::engines::ErrorKind::Other,
                code: None,
                message: "Lost connection".into(),
                context: "reading the version".into(),
                busy_cause: None,
            },
        };
        assert_eq!(version.to_string(), "--engine mysql: Lost connection");
    }

    #[test]
    fn each_failure_keeps_its_cause_and_reads_as_one_line() {
        let denied = || io::Error::from(io::ErrorKind::PermissionDenied);
        let e = ServerError::io(
            std::path::Path::new("/s/pg"),
            Some("cannot create the server directory".into()),
        )(denied());
        assert_eq!(
            e.to_string(),
            "/s/pg: cannot create the server directory (permission denied)"
        );
        assert!(std::error::Error::source(&e).is_some());
        let e = ServerError::io(std::path::Path::new("/s/log"), None)(denied());
        assert_eq!(e.to_string(), "/s/log: permission denied");
        let failed = ServerError::ToolFailed {
            tool: "initdb".into(),
            status: ExitStatus::from_raw(1 << 8),
            log_tail: Some("initdb: error: no data".into()),
        };
        assert_eq!(
            failed.to_string(),
            "initdb failed (exit status 1): initdb: error: no data"
        );
        let late = ServerError::NotReady {
            what: "postgres",
            limit: Duration::from_secs(60),
            log_tail: None,
        };
        assert_eq!(late.to_string(), "postgres did not accept connections within 60s");
        let killed = ServerError::Exited {
            what: "mariadbd",
            status: ExitStatus::from_raw(9),
            log_tail: Some("[ERROR] Aborting".into()),
        };
        assert_eq!(
            killed.to_string(),
            "mariadbd exited while starting (killed by signal 9): [ERROR] Aborting"
        );
    }
}
