//! Running the C compiler on an amalgamation, and measuring what it cost.
//!
//! The footprint VLDB'22 Table 3 reports is measured here, not estimated: wall time around the
//! one compiler call, and the peak resident memory of the largest process it started
//! (`getrusage(RUSAGE_CHILDREN).ru_maxrss`: the kernel's high-water mark over every waited-for
//! descendant, so it includes `cc1`, which does the work, not only the `cc` driver). That is
//! the largest single process, not a sum; `cc` runs its stages one after another.

use super::BuildError;
use std::path::Path;
use std::process::Command;
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
/// Libraries the amalgamation needs at link time (threads, `dlopen` for extensions, math).
pub const LINK_LIBS: &[&str] = &["-lpthread", "-ldl", "-lm"];

/// Compiles `source` into the shared library `out` with `flags` (after [`BASE_FLAGS`]).
pub fn compile(compiler: &Compiler, source: &Path, flags: &[String], out: &Path) -> Result<Footprint, BuildError> {
    let started = Instant::now();
    let result = Command::new(&compiler.program)
        .args(BASE_FLAGS)
        .args(flags)
        .arg("-o")
        .arg(out)
        .arg(source)
        .args(LINK_LIBS)
        .output()
        .map_err(|e| BuildError::Compile(format!("cannot run `{}`: {e}", compiler.program)))?;
    let wall = started.elapsed();
    if !result.status.success() {
        let stderr = String::from_utf8_lossy(&result.stderr);
        let first = stderr
            .lines()
            .find(|l| l.contains("error"))
            .or_else(|| stderr.lines().next())
            .unwrap_or("no message");
        return Err(BuildError::Compile(format!(
            "compiling {} with `{}` failed ({}): {}; check --cflags",
            source.display(),
            compiler.program,
            result.status,
            first.trim()
        )));
    }
    Ok(Footprint {
        wall,
        peak_rss_kib: children_peak_rss_kib(),
    })
}

/// `ru_maxrss` of all waited-for descendants, in KiB (Linux's unit for it).
fn children_peak_rss_kib() -> u64 {
    // SAFETY: getrusage writes one plain struct we own.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    if rc == 0 {
        u64::try_from(usage.ru_maxrss).unwrap_or(0)
    } else {
        0
    }
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
