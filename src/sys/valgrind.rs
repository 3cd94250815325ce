//! Valgrind's client requests, and callgrind's dumps read back: how `--measure instructions`
//! counts the instructions of exactly a trial's measured region.
//!
//! Hardware counters (`perf_event_open`) are refused on the machines litebench is tested on, so
//! instructions are counted by running litebench under `valgrind --tool=callgrind
//! --instr-atstart=no`: the process asks callgrind to start instrumenting where a measured
//! region starts, to stop where it ends, and to dump what it counted, whose totals it reads back
//! from the dump file. A client request is a fixed sequence of instructions that does nothing on
//! a real CPU (the rotations of `rdi` add up to 128 bits) and that valgrind's JIT recognises, so
//! every request here is a no-op outside valgrind and costs a handful of cycles.
//!
//! Written here rather than taken from a crate: `crabgrind` and the client requests of
//! `iai-callgrind` compile a C shim against valgrind's headers in a build script (a C compiler
//! and `valgrind-dev`'s headers at build time); the five requests litebench needs are the
//! documented amd64 sequence below (valgrind.h, `VALGRIND_DO_CLIENT_REQUEST_EXPR`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// `VG_USERREQ__RUNNING_ON_VALGRIND` (valgrind.h).
const RUNNING_ON_VALGRIND: u64 = 0x1001;
/// `VG_USERREQ_TOOL_BASE('C','T')`: callgrind's first request (callgrind.h's enum).
const CALLGRIND_BASE: u64 = ((b'C' as u64) << 24) | ((b'T' as u64) << 16);
/// `VG_USERREQ__DUMP_STATS_AT`: dump the counts so far with a label, and zero them.
const DUMP_STATS_AT: u64 = CALLGRIND_BASE + 3;
/// `VG_USERREQ__ZERO_STATS`.
const ZERO_STATS: u64 = CALLGRIND_BASE + 1;
/// `VG_USERREQ__START_INSTRUMENTATION`.
const START_INSTRUMENTATION: u64 = CALLGRIND_BASE + 4;
/// `VG_USERREQ__STOP_INSTRUMENTATION`.
const STOP_INSTRUMENTATION: u64 = CALLGRIND_BASE + 5;

/// The environment variable a process started by `--measure instructions` finds its callgrind
/// output file in (the marker that it is the inner process).
pub const OUT_FILE_ENV: &str = "LITEBENCH_CALLGRIND_OUT";

/// One client request: `request` with `args`, answering `default` outside valgrind.
#[cfg(target_arch = "x86_64")]
fn client_request(default: u64, request: u64, args: [u64; 5]) -> u64 {
    let block: [u64; 6] = [request, args[0], args[1], args[2], args[3], args[4]];
    let result: u64;
    // SAFETY: valgrind.h's amd64 sequence: four rotations of rdi that leave it as it was, and
    // an exchange of rbx with itself; outside valgrind none changes a register or memory. Under
    // valgrind, rdx receives the answer to the request whose block rax points at.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") block.as_ptr(),
            inout("rdx") default => result,
            options(nostack),
        );
    }
    result
}

/// Elsewhere no request is made: every request answers its default.
#[cfg(not(target_arch = "x86_64"))]
fn client_request(default: u64, _request: u64, _args: [u64; 5]) -> u64 {
    default
}

/// How many valgrinds this process runs under (0: none), as `RUNNING_ON_VALGRIND` says.
pub fn running_on_valgrind() -> u64 {
    client_request(0, RUNNING_ON_VALGRIND, [0; 5])
}

/// Starts callgrind's instrumentation (and zeroes its counts, so that what is dumped next is
/// what ran from here on). A no-op outside valgrind.
pub fn start_instrumentation() {
    client_request(0, ZERO_STATS, [0; 5]);
    client_request(0, START_INSTRUMENTATION, [0; 5]);
}

/// Stops callgrind's instrumentation. A no-op outside valgrind.
pub fn stop_instrumentation() {
    client_request(0, STOP_INSTRUMENTATION, [0; 5]);
}

/// Asks callgrind to write what it counted since the last dump, labelled `label`, to a dump
/// file of its own, and to zero its counts. A no-op outside valgrind.
pub fn dump_stats_at(label: &str) {
    let c = std::ffi::CString::new(label.replace('\0', " ")).expect("no NUL left");
    client_request(0, DUMP_STATS_AT, [c.as_ptr() as u64, 0, 0, 0, 0]);
}

/// Why a dump's instruction count could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{0}: callgrind wrote no dump labelled {1:?}; is litebench running under valgrind --tool=callgrind?")]
    Missing(PathBuf, String),
    #[error("{0}: no `totals:` or `summary:` line with a count of instructions (Ir); is it a callgrind dump?")]
    NoTotals(PathBuf),
}

/// The instructions (`Ir`, the first event) a callgrind dump's `totals:` line gives, else its
/// `summary:` line's; `None` when it has neither.
pub fn parse_totals(text: &str) -> Option<u64> {
    let first = |prefix: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .and_then(|rest| rest.split_whitespace().next()?.parse::<u64>().ok())
    };
    first("totals:").or_else(|| first("summary:"))
}

/// What one dump counted: every instruction the thread executed, and of them SQLite's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub total: u64,
    /// [`library_instructions`] of the dump.
    pub library: Option<u64>,
}

/// The instructions of SQLite's library in a dump: those of every object whose file name starts
/// with `libsqlite3` (a build litebench loads, `libsqlite3.so`), with what their calls into the
/// C library cost (`memcpy`, `memset`: SQLite's work done there). `None` where no such object
/// ran (the bundled SQLite, linked into litebench itself, cannot be told apart by object).
///
/// Read from the dump's cost lines: `ob=` names the object of the functions that follow
/// (`(id) name` the first time, `(id)` after), a line of numbers is a cost (positions, then
/// the events, `Ir` first), and the cost line after a `calls=` line is that call's inclusive
/// cost, charged to its callee (`cob=`, else the caller's object), never to the caller itself.
pub fn library_instructions(text: &str) -> Option<u64> {
    let mut names: HashMap<String, String> = HashMap::new();
    let mut positions = 1usize;
    let mut current = String::new();
    let mut callee: Option<String> = None;
    let mut in_call: Option<String> = None;
    let (mut own, mut calls, mut seen) = (0u64, 0u64, false);
    for line in text.lines() {
        if let Some(p) = line.strip_prefix("positions:") {
            positions = p.split_whitespace().count().max(1);
        } else if let Some(spec) = line.strip_prefix("ob=") {
            current = object(spec, &mut names);
            seen |= file_starts(&current, &["libsqlite3"]);
        } else if let Some(spec) = line.strip_prefix("cob=") {
            callee = Some(object(spec, &mut names));
        } else if line.starts_with("calls=") {
            in_call = Some(callee.take().unwrap_or_else(|| current.clone()));
        } else if line.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '*')) {
            let Some(ir) = line
                .split_whitespace()
                .nth(positions)
                .and_then(|n| n.parse::<u64>().ok())
            else {
                continue;
            };
            let from_library = file_starts(&current, &["libsqlite3"]);
            match in_call.take() {
                Some(to) if from_library && file_starts(&to, &["libc.so", "libc-"]) => calls += ir,
                Some(_) => {}
                None if from_library => own += ir,
                None => {}
            }
        }
    }
    seen.then_some(own + calls)
}

/// An `ob=`/`cob=` value's object: `(id) name` names `id`, `(id)` alone is the named one.
fn object(spec: &str, names: &mut HashMap<String, String>) -> String {
    let spec = spec.trim();
    match spec.strip_prefix('(').and_then(|r| r.split_once(')')) {
        Some((id, name)) if !name.trim().is_empty() => {
            names.insert(id.to_string(), name.trim().to_string());
            name.trim().to_string()
        }
        Some((id, _)) => names.get(id).cloned().unwrap_or_default(),
        None => spec.to_string(),
    }
}

/// Whether the file name of object `path` starts with one of `prefixes`.
fn file_starts(path: &str, prefixes: &[&str]) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    prefixes.iter().any(|p| file.starts_with(p))
}

/// What makes each dump's label unique in the process.
static NEXT_DUMP: AtomicU32 = AtomicU32::new(1);

/// Callgrind's dumps beside `out` (its `--callgrind-out-file`): `out.1`, `out.2`, ... in the
/// order the process wrote them.
#[derive(Debug, Clone)]
pub struct Dumps {
    out: PathBuf,
}

impl Dumps {
    /// The dumps of this process, whose `--callgrind-out-file` is `out`.
    pub fn new(out: &Path) -> Dumps {
        Dumps { out: out.to_path_buf() }
    }

    /// The process's output file, from [`OUT_FILE_ENV`], where this process runs under
    /// callgrind (`None` elsewhere, and where the variable is set but no valgrind runs it).
    pub fn of_this_process() -> Option<Dumps> {
        let out = std::env::var_os(OUT_FILE_ENV)?;
        (running_on_valgrind() > 0).then(|| Dumps::new(Path::new(&out)))
    }

    /// Dumps what the calling thread executed since its last dump under `label`, reads its
    /// instructions and removes the dump file (which this process asked for; nothing else
    /// writes it). Callgrind numbers its dumps process-wide and, under `--separate-threads=yes`,
    /// writes the calling thread's counts alone to `out.N-TT` (TT the thread); a dump is found
    /// by its label, made unique here, since another client thread may dump between this
    /// request and the look for its file.
    pub fn take(&self, label: &str) -> Result<Count, DumpError> {
        let label = format!("{label} #{}", NEXT_DUMP.fetch_add(1, Ordering::Relaxed));
        dump_stats_at(&label);
        let dir = self.out.parent().unwrap_or(Path::new("."));
        let base = self.out.file_name().and_then(|b| b.to_str()).unwrap_or_default();
        let prefix = format!("{base}.");
        let trigger = format!("desc: Trigger: Client Request: {label}");
        let listing = std::fs::read_dir(dir).map_err(|source| DumpError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        for e in listing.flatten() {
            if !e.file_name().to_str().is_some_and(|f| f.starts_with(&prefix)) {
                continue;
            }
            let path = e.path();
            let Some(text) = read_unless_taken(&path)? else {
                continue;
            };
            if text.lines().any(|l| l == trigger) {
                let _ = std::fs::remove_file(&path);
                let total = parse_totals(&text).ok_or(DumpError::NoTotals(path))?;
                return Ok(Count {
                    total,
                    library: library_instructions(&text),
                });
            }
        }
        Err(DumpError::Missing(self.out.clone(), label))
    }
}

/// A dump's text, or `None` when the file is gone: another client thread's dump, listed here
/// and then taken and removed by that thread before this one read it.
fn read_unless_taken(path: &Path) -> Result<Option<String>, DumpError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(DumpError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dump_another_thread_took_meanwhile_is_passed_over() {
        let t = tempfile::tempdir().unwrap();
        let gone = t.path().join("callgrind.out.2-04");
        assert!(matches!(read_unless_taken(&gone), Ok(None)));
        std::fs::write(&gone, DUMP).unwrap();
        assert_eq!(read_unless_taken(&gone).unwrap().as_deref(), Some(DUMP));
        // A dump that cannot be read for another reason is still an error.
        assert!(read_unless_taken(t.path()).is_err(), "a directory");
    }

    /// The head and tail of a dump callgrind 3.19 wrote with `CALLGRIND_DUMP_STATS_AT`.
    const DUMP: &str = "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 4242\n\
cmd:  litebench run speedtest\npart: 2\n\n\ndesc: I1 cache: \ndesc: Timerange: Basic block 1 - 2\n\
desc: Trigger: Client Request: 110\n\npositions: line\nevents: Ir\nsummary: 1234567\n\n\nfl=(1) ???\n\
fn=(1) 0x0000000000012345\n0 12\n\ntotals: 1234567\n";

    #[test]
    fn a_dumps_totals_are_its_instructions() {
        assert_eq!(parse_totals(DUMP), Some(1_234_567));
        assert_eq!(parse_totals("events: Ir\nsummary: 99\n"), Some(99));
        // Several events: Ir comes first.
        assert_eq!(parse_totals("events: Ir Dr Dw\ntotals: 10 3 2\n"), Some(10));
        assert_eq!(parse_totals("events: Ir\nfn=(1) main\n0 5\n"), None);
        assert_eq!(parse_totals("totals: many\n"), None);
    }

    #[test]
    fn the_librarys_instructions_are_its_own_and_its_calls_into_libc() {
        let dump = "positions: line\nevents: Ir\n\
ob=(1) /usr/bin/litebench\nfl=(1) ???\nfn=(1) main\n0 100\n\
cob=(2) /cache/sqlite/ab/libsqlite3.so\ncfn=(2) sqlite3_step\ncalls=1 0\n0 70\n\
ob=(2)\nfn=(2)\n+3 50\n\
cob=(3) /usr/lib/x86_64-linux-gnu/libc.so.6\ncfn=(3) memcpy\ncalls=2 0\n* 15\n\
cfn=(4) sqlite3VdbeExec\ncalls=1 0\n0 5\n\
ob=(3)\nfn=(3)\n0 15\n\
ob=(1)\nfn=(5) helper\n0 9\n\
cob=(3)\ncfn=(3)\ncalls=1 0\n0 4\n\ntotals: 178\n";
        // 50 of its own, 15 in memcpy it called; its call to itself is inside its own 50; the
        // executable's 100 + 9 and its own memcpy call's 4 are not SQLite's.
        assert_eq!(library_instructions(dump), Some(65));
        assert_eq!(library_instructions(DUMP), None, "no libsqlite3 object: linked in");
    }

    #[test]
    fn requests_are_no_ops_outside_valgrind() {
        if running_on_valgrind() > 0 {
            return; // the suite itself run under valgrind
        }
        assert_eq!(running_on_valgrind(), 0);
        // Nothing happens, and no dump appears.
        let t = tempfile::tempdir().unwrap();
        let dumps = Dumps::new(&t.path().join("out"));
        start_instrumentation();
        stop_instrumentation();
        assert!(matches!(dumps.take("x"), Err(DumpError::Missing(..))));
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 0);
        // The marker alone (no valgrind under this process) is not taken for valgrind.
        std::env::set_var(OUT_FILE_ENV, t.path().join("out"));
        assert!(Dumps::of_this_process().is_none());
        std::env::remove_var(OUT_FILE_ENV);
    }
}
