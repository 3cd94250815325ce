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

use crate::base::Failure;
use crate::bench::settings::RunArgs;
use crate::engines::sqlite::compiled::selection;

/// The pragmas a history pins, with the values it gives them.
pub const PINNED: [(&str, &str); 2] = [("page_size", "4096"), ("cache_size", "500")];

/// Runs `history`.
pub fn run(args: &RunArgs) -> Result<i32, Failure> {
    let args = history_args(args)?;
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

/// `run`'s settings for a history of `args`.
pub fn history_args(args: &RunArgs) -> Result<RunArgs, Failure> {
    if args.engines.is_empty() {
        return Err(Failure(
            "history: give the releases with --engine, e.g. --engine sqlite@3.20..3.54 or sqlite@all (see `litebench list sqlite-releases`)".into(),
        ));
    }
    let mut out = args.clone();
    out.engines = args.engines.iter().map(|e| at_os(e)).collect::<Result<_, _>>()?;
    for k in &args.knobs {
        if k.split_once('=').is_some_and(|(_, values)| values.contains(',')) {
            return Err(Failure(format!(
                "history: --knob {k}: one value per knob (a history varies only the release); use `litebench run` for an axis"
            )));
        }
    }
    for (name, value) in PINNED {
        if !args
            .knobs
            .iter()
            .any(|k| k.split_once('=').map_or(k.as_str(), |(n, _)| n) == name)
        {
            out.knobs.push(format!("{name}={value}"));
        }
    }
    Ok(out)
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
        let a = history_args(&words(&["crud", "--engine", "sqlite@all", "--knob", "cache_size=100"])).unwrap();
        assert_eq!(a.engines, ["sqlite@all-Os"]);
        assert_eq!(a.knobs, ["cache_size=100", "page_size=4096"]);
        let a = history_args(&words(&["crud", "--engine", "sqlite@all-O3", "--engine", "sqlite"])).unwrap();
        assert_eq!(a.engines, ["sqlite@all-O3", "sqlite"]);
        assert_eq!(a.knobs, ["page_size=4096", "cache_size=500"]);
    }

    #[test]
    fn axes_other_engines_and_no_engine_are_refused() {
        let e = history_args(&words(&["crud"])).unwrap_err().0;
        assert!(e.starts_with("history: give the releases with --engine"), "{e}");
        let e = history_args(&words(&["crud", "--engine", "duckdb"])).unwrap_err().0;
        assert!(
            e.starts_with("history: --engine duckdb: a history runs SQLite releases"),
            "{e}"
        );
        let e = history_args(&words(&[
            "crud",
            "--engine",
            "sqlite@all",
            "--knob",
            "journal_mode=wal,delete",
        ]))
        .unwrap_err()
        .0;
        assert!(e.contains("one value per knob"), "{e}");
    }
}
