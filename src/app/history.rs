//! `litebench history WORKLOAD --engine sqlite@3.7..3.54`: one configuration per SQLite release,
//! interleaved, as `run` runs them, with the settings that changed across releases pinned.
//!
//! A history is `run` with three differences, each because releases are the only thing that
//! may differ: ranges without an optimisation level are compiled at `-Os`, as SQLite's own
//! speed check compiles (`sqlite@3.20..3.54` becomes `sqlite@3.20..3.54-Os`); the pragmas whose
//! defaults changed between releases are set explicitly unless `--knob` sets them (page size
//! 1024 -> 4096 and the cache's 2000 pages -> 2000 KiB in 3.12.0: `page_size=4096` and
//! `cache_size=500`, 500 pages of 4 KiB, a number every release reads the same way); and a knob
//! takes one value (an axis would make several configurations per release). The run is stored
//! and reported as any other; its report leads with the history ([`crate::report::history`]).
//!
//! `--method speed-check` (the default for speedtest1 with `--measure instructions`) runs
//! speedtest1 as SQLite's own `tool/speed-check.sh` does, the method behind the counts SQLite
//! publishes: each release built as the script builds it (`sqlite@3.40.0-speed-check`), its
//! statements prepared anew on every run, its memory released after each, at `size=5`, with
//! every release's own default page and cache sizes. `--method litebench` is an application's
//! view instead: statements prepared once, the pragmas pinned (docs/history.md says which
//! question each answers).

use crate::base::Failure;
use crate::bench::settings::RunArgs;
use crate::engines::sqlite::compiled::selection;

/// The pragmas a history pins, with the values it gives them.
pub const PINNED: [(&str, &str); 2] = [("page_size", "4096"), ("cache_size", "500")];

/// How a history runs its workload on each release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    /// speedtest1 as SQLite's tool/speed-check.sh runs it (the method of sqlite.org/cpu.html):
    /// releases built -Os with memsys5 and run on its heap, every statement prepared anew on
    /// every run, memory released after each, size=5, each release's own page and cache sizes
    SpeedCheck,
    /// An application's view: statements prepared once, page_size=4096 and cache_size=500
    /// pinned, builds at -Os
    Litebench,
}

/// `history`'s arguments: `run`'s, and the method.
#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// How each release runs the workload: speed-check (speedtest1 only; the default for it
    /// with --measure instructions) or litebench (every other case)
    #[arg(long, value_enum)]
    pub method: Option<Method>,
}

/// The workload's speed-check size: `tool/speed-check.sh`'s `SIZE=5`.
pub const SPEED_CHECK_SIZE: &str = "5";

/// The method `given` (or the default) for `args`' workload, or the one line refusing it.
pub fn method_of(args: &RunArgs, given: Option<Method>) -> Result<Method, Failure> {
    let workload = args.workload.as_deref().unwrap_or("");
    let speedtest1 = workload == "speedtest1";
    match given {
        Some(Method::SpeedCheck) if !speedtest1 => Err(Failure(format!(
            "--method speed-check runs speedtest1 as SQLite's tool/speed-check.sh does; workload {workload} has no such method: leave out --method, or give --method litebench"
        ))),
        Some(m) => Ok(m),
        None if speedtest1 && args.measure.is_some() => Ok(Method::SpeedCheck),
        None => Ok(Method::Litebench),
    }
}

/// Runs `history`.
pub fn run(a: &HistoryArgs) -> Result<i32, Failure> {
    let method = method_of(&a.run, a.method)?;
    let args = history_args(&a.run, method)?;
    if !args.dry_run {
        prebuild(&args.engines)?;
    }
    crate::app::run::run(&args)
}

/// Fetches and compiles the releases' missing builds before the run, as many at once as the
/// machine has cores (each compile is one compiler process: a whole history's first run is
/// dominated by them), so that opening the engines finds every build cached.
fn prebuild(engines: &[String]) -> Result<(), Failure> {
    use crate::engines::sqlite::compiled::BuildCache;
    let (specs, _) = crate::engines::registry::expand(engines)?;
    let cache = BuildCache::from_env()?;
    let missing: Vec<selection::ReleaseSpec> = specs
        .iter()
        .filter_map(|e| e.strip_prefix("sqlite@"))
        .filter_map(|t| selection::parse(t, Some(&cache))?.ok())
        .flat_map(|s| s.specs)
        .filter(|s| s.cached(&cache).is_none())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(missing.len());
    let engines: Vec<String> = missing.iter().map(|s| format!("sqlite@{}", s.name())).collect();
    crate::errln!(
        "history: {} of the releases have no build here yet; {}",
        missing.len(),
        selection::to_build(&engines, &cache).describe(workers)
    );
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(spec) = missing.get(i) else { break };
                if let Err(e) = spec.ensure(&cache, &|line| crate::errln!("{line}")) {
                    failures.lock().expect("no panics").push(e.to_string());
                }
            });
        }
    });
    match failures.into_inner().expect("no panics").into_iter().next() {
        Some(first) => Err(Failure(first)),
        None => Ok(()),
    }
}

/// `run`'s settings for a history of `args` by `method`.
pub fn history_args(args: &RunArgs, method: Method) -> Result<RunArgs, Failure> {
    if args.engines.is_empty() {
        return Err(Failure(
            "history: give the releases with --engine, e.g. --engine sqlite@3.20..3.54 or sqlite@all (see `litebench list sqlite-releases`)".into(),
        ));
    }
    let mut out = args.clone();
    out.engines = match method {
        Method::Litebench => args.engines.iter().map(|e| at_os(e)).collect::<Result<_, _>>()?,
        Method::SpeedCheck => args.engines.iter().map(|e| speed_check(e)).collect::<Result<_, _>>()?,
    };
    for k in &args.knobs {
        if k.split_once('=').is_some_and(|(_, values)| values.contains(',')) {
            return Err(Failure(format!(
                "history: --knob {k}: one value per knob (a history varies only the release); use `litebench run` for an axis"
            )));
        }
    }
    let named = |list: &[String], name: &str| {
        list.iter()
            .any(|k| k.split_once('=').map_or(k.as_str(), |(n, _)| n) == name)
    };
    if method == Method::SpeedCheck {
        // Each release's own page and cache sizes, as speed-check runs them: nothing pinned.
        for (name, value) in [("method", "speed-check"), ("size", SPEED_CHECK_SIZE)] {
            if !named(&args.params, name) {
                out.params.push(format!("{name}={value}"));
            }
        }
        return Ok(out);
    }
    for (name, value) in PINNED {
        if !named(&args.knobs, name) {
            out.knobs.push(format!("{name}={value}"));
        }
    }
    Ok(out)
}

/// An `--engine` of a speed-check history: a release selection built as speed-check builds
/// (`sqlite@3.20..3.54-speed-check`); anything else refused, as its build and allocator are
/// not the script's.
fn speed_check(spec: &str) -> Result<String, Failure> {
    use crate::engines::sqlite::compiled::selection::SPEED_CHECK_SUFFIX;
    if let Some(text) = spec.strip_prefix("sqlite@") {
        if text.ends_with(SPEED_CHECK_SUFFIX) {
            return Ok(spec.to_string());
        }
        if selection::parse(text, None).is_some() {
            if ["-Os", "-O2", "-O3"].iter().any(|l| text.ends_with(l)) {
                return Err(Failure(format!(
                    "history --method speed-check: --engine {spec}: speed-check builds each release as tool/speed-check.sh does (-Os -DSQLITE_ENABLE_MEMSYS5); leave out the level, or give --method litebench"
                )));
            }
            return Ok(format!("{spec}{SPEED_CHECK_SUFFIX}"));
        }
    }
    Err(Failure(format!(
        "history --method speed-check: --engine {spec}: speed-check runs SQLite releases built and loaded as tool/speed-check.sh does; give sqlite@RELEASES (e.g. sqlite@3.20..3.54), or --method litebench"
    )))
}

/// An `--engine` of a history: a SQLite release selection at `-Os` unless it names a level;
/// the bundled SQLite and library paths as given; other engines refused.
fn at_os(spec: &str) -> Result<String, Failure> {
    if let Some(text) = spec.strip_prefix("sqlite@") {
        let has_level = ["-Os", "-O2", "-O3"].iter().any(|l| text.ends_with(l));
        if !has_level && selection::parse(text, None).is_some() {
            return Ok(format!("{spec}-Os"));
        }
        return Ok(spec.to_string());
    }
    if spec == "sqlite" || spec.starts_with("sqlite:") {
        return Ok(spec.to_string());
    }
    Err(Failure(format!(
        "history: --engine {spec}: a history runs SQLite releases; give sqlite@RELEASES (e.g. sqlite@3.20..3.54), or compare engines with `litebench run`"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> RunArgs {
        crate::bench::settings::from_words(&w.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn ranges_compile_at_os_and_the_changed_defaults_are_pinned() {
        let lb = Method::Litebench;
        let a = history_args(
            &words(&["crud", "--engine", "sqlite@all", "--knob", "cache_size=100"]),
            lb,
        )
        .unwrap();
        assert_eq!(a.engines, ["sqlite@all-Os"]);
        assert_eq!(a.knobs, ["cache_size=100", "page_size=4096"]);
        let a = history_args(&words(&["crud", "--engine", "sqlite@all-O3", "--engine", "sqlite"]), lb).unwrap();
        assert_eq!(a.engines, ["sqlite@all-O3", "sqlite"]);
        assert_eq!(a.knobs, ["page_size=4096", "cache_size=500"]);
    }

    #[test]
    fn axes_other_engines_and_no_engine_are_refused() {
        let lb = Method::Litebench;
        let e = history_args(&words(&["crud"]), lb).unwrap_err().0;
        assert!(e.starts_with("history: give the releases with --engine"), "{e}");
        let e = history_args(&words(&["crud", "--engine", "duckdb"]), lb).unwrap_err().0;
        assert!(
            e.starts_with("history: --engine duckdb: a history runs SQLite releases"),
            "{e}"
        );
        let e = history_args(
            &words(&["crud", "--engine", "sqlite@all", "--knob", "journal_mode=wal,delete"]),
            lb,
        )
        .unwrap_err()
        .0;
        assert!(e.contains("one value per knob"), "{e}");
    }

    #[test]
    fn speed_check_is_speedtest1s_default_with_instructions_and_pins_nothing() {
        let counted = words(&["speedtest1", "--engine", "sqlite@all", "--measure", "instructions"]);
        assert_eq!(method_of(&counted, None).unwrap(), Method::SpeedCheck);
        assert_eq!(method_of(&words(&["speedtest1"]), None).unwrap(), Method::Litebench);
        let crud = words(&["crud", "--measure", "instructions"]);
        assert_eq!(method_of(&crud, None).unwrap(), Method::Litebench);
        let e = method_of(&crud, Some(Method::SpeedCheck)).unwrap_err().0;
        assert!(
            e.starts_with("--method speed-check runs speedtest1") && e.contains("workload crud"),
            "{e}"
        );
        let a = history_args(&counted, Method::SpeedCheck).unwrap();
        assert_eq!(a.engines, ["sqlite@all-speed-check"]);
        assert!(
            a.knobs.is_empty(),
            "each release's own page and cache sizes: {:?}",
            a.knobs
        );
        assert_eq!(a.params, ["method=speed-check", "size=5"]);
        let sized = words(&["speedtest1", "--engine", "sqlite@3.40.0", "--param", "size=1"]);
        assert_eq!(
            history_args(&sized, Method::SpeedCheck).unwrap().params,
            ["size=1", "method=speed-check"]
        );
        for engine in ["sqlite@all-O3", "sqlite", "sqlite:/lib/libsqlite3.so"] {
            let w = words(&["speedtest1", "--engine", engine]);
            let e = history_args(&w, Method::SpeedCheck).unwrap_err().0;
            assert!(
                e.starts_with(&format!("history --method speed-check: --engine {engine}")),
                "{e}"
            );
        }
    }
}
