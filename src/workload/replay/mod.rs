//! `replay`: a recorded statement log run again, in order, against a copy of the database it
//! was recorded on (or an empty one), so that a configuration is measured on what an
//! application really sent: the sqlite3 shell's `.trace` output, one statement per line or
//! separated by `;`, or a log with a leading time per statement ([`log`]).
//!
//! Every statement is one transaction of the load driver, with one client (a log is one
//! ordered stream), typed by its **shape**: its text with literals replaced by `?` (found by
//! the shared SQL lexer), so that a report says which kinds of statement got slower under a
//! configuration. Transaction boundaries are the log's own `BEGIN`/`COMMIT`. With
//! `pace=recorded` each statement is due at its recorded start and its latency counts from
//! there ([`crate::workload::load::Client::due`]). The log's SHA-256 goes into the parameters,
//! as the script workload's files do, so runs of different logs never compare as one
//! workload. Every choice is in docs/workloads.md.

pub mod client;
pub mod log;

use super::load::{self, Budget, Client, Streams};
use super::{PopulateError, Population, Trial, Workload, WorkloadError, WorkloadKind};
use crate::engines::{Connection, Dialect};
use crate::model::op::OpType;
use crate::model::params::{ParamKind, ParamSpec, ParamValue, Params};
use crate::workload::read_once::ReadOnce;
use crate::workload::recorder::Recorder;
use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// The workload.
pub struct Replay;

/// Most shapes with an operation type of their own; statements of the shapes after them (in
/// the order of first appearance) share one type, [`OTHER_SHAPES`].
pub const MAX_SHAPES: usize = 200;

/// The operation type of the shapes past [`MAX_SHAPES`].
pub const OTHER_SHAPES: &str = "(other shapes)";

/// Longest operation type name: a longer shape is cut there, with `…`.
const NAME_CHARS: usize = 96;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "log",
        kind: ParamKind::Path,
        default: "",
        help: "the recorded statement log: the sqlite3 shell's .trace output, statements separated by ';', one per line, or each led by its time",
    },
    ParamSpec {
        name: "db",
        kind: ParamKind::Path,
        default: "",
        help: "an existing SQLite database every trial starts from a byte-identical copy of (never opened in place; SQLite only); none: an empty database",
    },
    ParamSpec {
        name: "format",
        kind: ParamKind::Choice(&["auto", "statements", "lines", "timestamped"]),
        default: "auto",
        help: "how the log is written; auto: timestamped when its first line starts with a time, else statements when a ';' ends one, else lines (the manifest records what was found)",
    },
    ParamSpec {
        name: "pace",
        kind: ParamKind::Choice(&["asap", "recorded"]),
        default: "asap",
        help: "asap: each statement as soon as the last ends; recorded: at its recorded start (timestamped logs), latency counted from it",
    },
    ParamSpec {
        name: "on_error",
        kind: ParamKind::Choice(&["stop", "count"]),
        default: "stop",
        help: "a statement that fails: stop the trial with the log's file and line and the engine's message, or count it as unsuccessful and go on",
    },
    ParamSpec {
        name: "repeat",
        kind: ParamKind::Count { min: 1, max: MAX_REPEAT },
        default: "1",
        help: "run the log this many times per trial, one pass after another (a short log is all noise once)",
    },
    ParamSpec {
        name: "duration",
        kind: ParamKind::Duration { allow_zero: true },
        default: "0",
        help: "run the log over and over for this long per trial instead (0: repeat= passes)",
    },
    ParamSpec {
        name: "sha256",
        kind: ParamKind::Path,
        default: "",
        help: "set by litebench: the log's SHA-256; given, the run refuses a log that hashes otherwise",
    },
];

/// Most passes over the log per trial (`repeat=`).
pub const MAX_REPEAT: u64 = 1_000_000;

/// A log as the workload runs it, kept for the life of the process (the operation types'
/// names are borrowed from it).
pub struct Loaded {
    pub file: String,
    pub log: log::Log,
    pub sha256: String,
    /// One per shape, in order of first appearance (then [`OTHER_SHAPES`] if needed).
    pub types: Vec<OpType>,
    /// Each statement's operation type.
    pub op_of: Vec<usize>,
}

/// Operation type names for `shapes`: each cut to [`NAME_CHARS`], made unique with ` #2`...
fn names(shapes: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in shapes {
        let mut name: String = s.chars().take(NAME_CHARS).collect();
        if name.len() < s.len() {
            name.push('…');
        }
        if name.is_empty() {
            name.push('?');
        }
        let base = name.clone();
        let mut k = 1;
        while out.contains(&name) || name == OTHER_SHAPES || name == "all" {
            k += 1;
            name = format!("{base} #{k}");
        }
        out.push(name);
    }
    out
}

fn read_log(p: &Params) -> Result<Loaded, String> {
    let file = p.text("log");
    if file.is_empty() {
        return Err("--param log: replay needs the recorded log to run (--param log=app.sql)".into());
    }
    let bytes = std::fs::read(file).map_err(|e| format!("--param log={file}: cannot read it: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let (l, c) = crate::engines::sql_lex::line_col(
            &String::from_utf8_lossy(&e.as_bytes()[..e.utf8_error().valid_up_to()]),
            usize::MAX,
        );
        format!("{file}:{l}:{c}: not UTF-8 text; convert the log to UTF-8 (iconv)")
    })?;
    let format = match p.choice("format") {
        "auto" => None,
        f => log::Format::parse(f),
    };
    let log = log::read(file, &text, format)?;
    let stop = crate::sys::signals::stop_requested;
    // In slices, looking for a stop between them (see `log`'s docs).
    let mut hash = Sha256::new();
    for chunk in text.as_bytes().chunks(1 << 20) {
        if stop() {
            return Err(log::STOPPED.into());
        }
        hash.update(chunk);
    }
    let sha256 = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let poll = log::Poll::new(&stop);
    let mut shapes: Vec<&str> = Vec::new();
    let mut op_of = Vec::with_capacity(log.statements.len());
    let mut overflow = false;
    for s in &log.statements {
        if poll.stopped() {
            return Err(log::STOPPED.into());
        }
        let i = match shapes.iter().position(|x| *x == s.shape) {
            Some(i) => i,
            None if shapes.len() < MAX_SHAPES => {
                shapes.push(&s.shape);
                shapes.len() - 1
            }
            None => {
                overflow = true;
                MAX_SHAPES
            }
        };
        op_of.push(i);
    }
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let mut types: Vec<OpType> = names(&shapes)
        .into_iter()
        .map(|n| OpType {
            name: leak(n),
            part_of: None,
        })
        .collect();
    if overflow {
        types.push(OpType {
            name: OTHER_SHAPES,
            part_of: None,
        });
    }
    Ok(Loaded {
        file: file.to_string(),
        log,
        sha256,
        types,
        op_of,
    })
}

/// The log the parameters name, read once per process.
pub fn load(p: &Params) -> Result<&'static Loaded, String> {
    static LOGS: ReadOnce<Loaded> = ReadOnce::new();
    let key = vec![p.text("log").to_string(), p.choice("format").to_string()];
    LOGS.get(key, || read_log(p))
}

/// What the workload is (`litebench list` prints it).
pub static KIND: WorkloadKind = WorkloadKind {
    name: "replay",
    about: "a recorded statement log (sqlite3 .trace, ';'-separated, one per line, or timestamped) replayed in order on a copy of your database, as fast as possible or at its recorded pace, with statistics per statement shape",
    source: "your own application's statements, as the sqlite3 shell's .trace or your own logging recorded them",
    params: PARAMS,
    operations: &[],
    ..WorkloadKind::BASE
};

impl Workload for Replay {
    fn kind(&self) -> &'static WorkloadKind {
        &KIND
    }

    /// `begin`: where the user or a preset sets it, the bare `BEGIN`s of the log start in its
    /// mode ([`crate::workload::bare_begin`]); without one there is nothing for it to start.
    fn files(&self, p: &Params) -> Vec<(&'static str, String)> {
        ["log", "db"]
            .into_iter()
            .filter(|k| !p.text(k).is_empty())
            .map(|k| (k, p.text(k).to_string()))
            .collect()
    }

    fn reads_knob(&self, knob: &str, p: &Params) -> Result<(), String> {
        if knob != crate::engines::sqlite::knobs::BEGIN_KNOB {
            return Err(format!("no statement of {} reads {knob}", KIND.name));
        }
        match self.bare_begins(p) {
            Some(0) => {
                Err("the log has no bare BEGIN (BEGIN, BEGIN TRANSACTION or BEGIN DEFERRED) for it to start".into())
            }
            _ => Ok(()),
        }
    }

    fn settle(&self, p: &mut Params) -> Result<(), String> {
        if !p.text("db").is_empty() {
            super::user_db::check(p.text("db"))?;
        }
        let loaded = load(p)?;
        let pinned = p.text("sha256");
        if !pinned.is_empty() && pinned != loaded.sha256 {
            return Err(format!(
                "--param sha256={pinned}: {} hashes to {}; it is not the log pinned",
                loaded.file, loaded.sha256
            ));
        }
        if p.choice("pace") == "recorded" && loaded.log.format != log::Format::Timestamped {
            return Err(format!(
                "--param pace=recorded: {} is a log of format {}, without recorded times; record a time before each statement, or use pace=asap",
                loaded.file,
                loaded.log.format.name()
            ));
        }
        if p.count("repeat") > 1 && !p.duration("duration").is_zero() {
            return Err(format!(
                "--param repeat={} and --param duration={}: a trial stops on one of them; give repeat= (passes over the log) or duration= (loop it until the time is up)",
                p.count("repeat"),
                format_args!("{}ms", p.duration("duration").as_millis())
            ));
        }
        let format = loaded.log.format.name();
        p.0.insert("format".into(), ParamValue::Choice(format.into()));
        p.0.insert("sha256".into(), ParamValue::Choice(loaded.sha256.clone()));
        // The detected format is now a parameter: the same log, read as that.
        let _ = load(p)?;
        Ok(())
    }

    fn bare_begins(&self, p: &Params) -> Option<usize> {
        let loaded = load(p).ok()?;
        Some(
            loaded
                .log
                .statements
                .iter()
                .filter(|s| super::bare_begin::is_bare(&s.sql))
                .count(),
        )
    }

    fn operation_types(&self, p: &Params, _dialect: Option<Dialect>) -> Vec<OpType> {
        load(p).map(|l| l.types.clone()).unwrap_or_default()
    }

    fn template_file(&self, p: &Params) -> Option<PathBuf> {
        Some(p.text("db")).filter(|d| !d.is_empty()).map(PathBuf::from)
    }

    fn transactions(&self) -> Option<&dyn load::Transactions> {
        Some(self)
    }

    /// Each statement is sent as the log wrote it ([`load::Sent::Literal`]), which needs no
    /// earlier result.
    fn driver_refusal(&self, _p: &Params) -> Option<String> {
        None
    }

    fn populate(&self, _conn: &mut dyn Connection, _pop: &Population<'_>) -> Result<u64, PopulateError> {
        // An empty database, or (db=) the copy of the user's: the log makes the rest.
        Ok(0)
    }

    fn run(&self, conn: &mut dyn Connection, trial: &Trial<'_>, rec: &mut Recorder) -> Result<(), WorkloadError> {
        load::drive(conn, self, trial, rec)
    }

    fn verify(&self, _conn: &mut dyn Connection, _p: &Params) -> Result<(), WorkloadError> {
        Ok(())
    }
}

impl Streams for Replay {
    type Client<'c> = Box<dyn Client + 'c>;

    /// `duration=`: the log over and over until the time is up; else the client's stream of
    /// `repeat=` passes.
    fn budget(&self, params: &Params) -> Budget {
        Budget::timed_or(params.duration("duration"), Budget::Streams)
    }

    /// Through a driver, each statement as the log wrote it, its own BEGIN and COMMIT included.
    fn sent(&self, params: &Params) -> load::Sent {
        load::Sent::Literal {
            count_errors: params.choice("on_error") == "count",
        }
    }

    fn one_client_only(&self, _params: &Params) -> Option<String> {
        Some("a log is one ordered stream of statements and replays as one client in order (--param pace=recorded keeps its recorded gaps, open-loop)".into())
    }

    fn client<'c>(
        &self,
        conn: &'c mut dyn Connection,
        _index: u32,
        _clients: u32,
        _seed: u64,
        params: &Params,
    ) -> Result<Self::Client<'c>, WorkloadError> {
        let loaded = load(params).map_err(|d| WorkloadError::check_failed("replay", d))?;
        let pinned = params.text("sha256");
        if !pinned.is_empty() && pinned != loaded.sha256 {
            return Err(WorkloadError::check_failed(
                "replay",
                format!(
                    "{} hashes to {} now, not {pinned} as when the run started; it changed during the run",
                    loaded.file, loaded.sha256
                ),
            ));
        }
        // The log's own SQL touches nothing outside the trial's scratch directory.
        conn.confine_to_scratch().map_err(WorkloadError::Engine)?;
        let passes = if params.duration("duration").is_zero() {
            client::Passes::Count(params.count("repeat").max(1))
        } else {
            client::Passes::UntilStopped
        };
        Ok(Box::new(client::ReplayClient::new(
            conn,
            loaded,
            params.choice("pace") == "recorded",
            params.choice("on_error") == "count",
            passes,
        )))
    }
}

#[cfg(test)]
mod tests;
