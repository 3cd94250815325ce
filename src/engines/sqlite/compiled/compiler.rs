//! Running the C compiler on an amalgamation, and measuring what it cost.
//!
//! The footprint VLDB'22 Table 3 reports is measured here, not estimated: wall time around the
//! one compiler call, and the peak resident memory of the largest process it started: the
//! `ru_maxrss` that `wait4` reports for the compiler's own pid, which the kernel takes over that
//! process and every descendant it waited for, so it includes `cc1`, which does the work, not
//! only the `cc` driver. That is the largest single process, not a sum; `cc` runs its stages
//! one after another. Not `getrusage(RUSAGE_CHILDREN)`: that mark survives `exec`, so a
//! litebench started by a shell that had waited for an earlier compile (bash execs the last
//! command of `a && b`) would report the earlier compile's peak; measured here, it did.

use super::BuildError;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `-O` levels `build-sqlite` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptLevel {
    /// `-Os`: optimise for size.
    Size,
    O2,
    O3,
}

impl OptLevel {
    pub fn parse(s: &str) -> Result<OptLevel, BuildError> {
        match s.trim_start_matches("-O") {
            "s" => Ok(OptLevel::Size),
            "2" => Ok(OptLevel::O2),
            "3" => Ok(OptLevel::O3),
            _ => Err(BuildError::Input(format!(
                "-O {s}: not an optimisation level; use s, 2 or 3"
            ))),
        }
    }

    /// The compiler flag: `-Os`, `-O2`, `-O3`.
    pub fn flag(self) -> &'static str {
        match self {
            OptLevel::Size => "-Os",
            OptLevel::O2 => "-O2",
            OptLevel::O3 => "-O3",
        }
    }
}

/// The C compiler: `$CC`, or `cc`.
#[derive(Debug, Clone)]
pub struct Compiler {
    pub program: String,
    /// First line of `PROGRAM --version`.
    pub version: String,
}

impl Compiler {
    /// Finds the compiler and asks its version (part of every cache key: another compiler makes
    /// another library).
    pub fn detect() -> Result<Compiler, BuildError> {
        let program = std::env::var("CC")
            .ok()
            .filter(|c| !c.trim().is_empty())
            .unwrap_or_else(|| "cc".into());
        let out = Command::new(&program).arg("--version").output().map_err(|e| {
            BuildError::Compile(format!(
                "cannot run the C compiler `{program}` ({e}); install one (apt-get install gcc) or set CC"
            ))
        })?;
        let version = String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        if !out.status.success() || version.is_empty() {
            return Err(BuildError::Compile(format!(
                "`{program} --version` failed; set CC to a working C compiler"
            )));
        }
        Ok(Compiler { program, version })
    }
}

/// What one compilation cost.
#[derive(Debug, Clone, Copy)]
pub struct Footprint {
    pub wall: Duration,
    pub peak_rss_kib: u64,
}

/// The flags every build gets before the user's: a position-independent shared library.
pub const BASE_FLAGS: &[&str] = &["-shared", "-fPIC"];
/// What SQLite's own `configure` defines on Linux and a bare `cc sqlite3.c` leaves out, where it
/// changes what the library does. Without `HAVE_USLEEP` SQLite's busy handler sleeps in whole
/// seconds (`sqlite3OsSleep` rounds a 1 ms wait up to `sleep(1)`): measured on 3.37.2, waits of
/// 1.00 and 2.00 s where 3.54.1 (the bundled build, compiled with it) waited 0.53 and 1.13 s.
/// `HAVE_FDATASYNC` is left out on purpose: without it SQLite calls `fsync` where `configure`'s
/// builds call `fdatasync`, and the bundled library (crate `libsqlite3-sys`, which defines
/// `HAVE_USLEEP=1` but not `HAVE_FDATASYNC`) calls `fsync` too, so a compiled release and the
/// bundled one issue the same syncs. Part of every build's flags, its record and its cache key.
pub const PLATFORM_DEFINES: &[&str] = &["-DHAVE_USLEEP=1"];
/// Libraries the amalgamation needs at link time (threads, `dlopen` for extensions, math).
pub const LINK_LIBS: &[&str] = &["-lpthread", "-ldl", "-lm"];

/// Compiles `source` into the shared library `out` with `flags` (after [`BASE_FLAGS`]; the
/// caller's `flags` begin with [`PLATFORM_DEFINES`], so that they are in the cache key).
pub fn compile(compiler: &Compiler, source: &Path, flags: &[String], out: &Path) -> Result<Footprint, BuildError> {
    let started = Instant::now();
    let mut child = Command::new(&compiler.program)
        .args(BASE_FLAGS)
        .args(flags)
        .arg("-o")
        .arg(out)
        .arg(source)
        .args(LINK_LIBS)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| BuildError::Compile(format!("cannot run `{}`: {e}", compiler.program)))?;
    // Read stderr beside the wait, so a compiler with much to say never blocks on a full pipe.
    let mut pipe = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = pipe.read_to_end(&mut text);
        text
    });
    let waited = wait_with_usage(child.id());
    let wall = started.elapsed();
    let stderr = reader.join().unwrap_or_default();
    let (exit, peak_rss_kib) =
        waited.map_err(|e| BuildError::Compile(format!("waiting for `{}`: {e}", compiler.program)))?;
    if exit != Some(0) {
        let status = exit.map_or_else(|| "killed by a signal".to_string(), |c| format!("exit code {c}"));
        let stderr = String::from_utf8_lossy(&stderr);
        let first = stderr
            .lines()
            .find(|l| l.contains("error"))
            .or_else(|| stderr.lines().next())
            .unwrap_or("no message");
        return Err(BuildError::Compile(format!(
            "compiling {} with `{}` failed ({status}): {}; check --cflags",
            source.display(),
            compiler.program,
            first.trim()
        )));
    }
    Ok(Footprint { wall, peak_rss_kib })
}

/// Waits for child `pid` with `wait4`: its exit code (`None` when a signal ended it) and its
/// `ru_maxrss` in KiB (Linux's unit), which covers the descendants it waited for.
fn wait_with_usage(pid: u32) -> std::io::Result<(Option<i32>, u64)> {
    let pid = libc::pid_t::try_from(pid).map_err(std::io::Error::other)?;
    // SAFETY: wait4 writes one int and one plain struct we own.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut status: libc::c_int = 0;
    loop {
        let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if rc == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    let exit = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Ok((exit, u64::try_from(usage.ru_maxrss).unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels() {
        assert_eq!(OptLevel::parse("s").unwrap().flag(), "-Os");
        assert_eq!(OptLevel::parse("3").unwrap().flag(), "-O3");
        assert_eq!(OptLevel::parse("-O2").unwrap(), OptLevel::O2);
        let e = OptLevel::parse("fast").unwrap_err().to_string();
        assert_eq!(e, "-O fast: not an optimisation level; use s, 2 or 3");
    }
}
