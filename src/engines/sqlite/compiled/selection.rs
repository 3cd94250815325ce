//! `--engine sqlite@3.45.1`, `sqlite@3.20..3.54`, `sqlite@3.8.x`, `sqlite@all` (each with an
//! optional `-Os`, `-O2` or `-O3`, or `-speed-check`): SQLite releases chosen from the
//! catalogue ([`super::releases`]) rather than builds chosen by name. `-speed-check` is the
//! build SQLite's own `tool/speed-check.sh` makes (`-Os -DSQLITE_ENABLE_MEMSYS5`), which the
//! engine then loads as that script's speedtest1 runs it ([`SPEED_CHECK_FLAGS`]).
//!
//! A release selection means the release's registry source compiled at that level with no
//! other flags: the build is looked up by what makes it (its release and flags, preferring a
//! pristine source), never by a name someone gave a build, and made when it is missing, once
//! per machine, saying so. A range takes every release between its ends that a registry holds
//! (`3.54` as an upper end takes every 3.54.x), and says which it cannot have.

use super::compiler::{self, OptLevel};
use super::releases::{self, version_key, Release};
use super::{BuildCache, BuildError, CompiledBuild};
use std::time::Duration;

/// One release at one optimisation level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReleaseSpec {
    pub release: &'static Release,
    pub level: OptLevel,
    /// Built as `tool/speed-check.sh` builds (`-speed-check`): `-Os` and [`SPEED_CHECK_FLAGS`].
    pub speed_check: bool,
}

/// The flags `tool/speed-check.sh` adds to `-Os` (its `CC_OPTS`): memsys5, the allocator its
/// speedtest1 runs on (`--heap 10000000 64`).
pub const SPEED_CHECK_FLAGS: &[&str] = &["-DSQLITE_ENABLE_MEMSYS5"];

/// The suffix of a release built as speed-check builds: `sqlite@3.40.0-speed-check`.
pub const SPEED_CHECK_SUFFIX: &str = "-speed-check";

impl ReleaseSpec {
    /// What `--engine sqlite@...` calls it: `3.45.1` at -O2 (`build-sqlite`'s default),
    /// `3.45.1-Os`, `3.45.1-O3`.
    pub fn name(&self) -> String {
        if self.speed_check {
            return format!("{}{SPEED_CHECK_SUFFIX}", self.release.version);
        }
        match self.level {
            OptLevel::O2 => self.release.version.to_string(),
            l => format!("{}{}", self.release.version, l.flag()),
        }
    }

    /// Every flag its build records (as [`super::cache`] writes them).
    fn recorded_flags(&self) -> Vec<String> {
        compiler::BASE_FLAGS
            .iter()
            .chain(compiler::PLATFORM_DEFINES)
            .copied()
            .chain([self.level.flag()])
            .chain(self.cflags())
            .chain(compiler::LINK_LIBS.iter().copied())
            .map(str::to_string)
            .collect()
    }

    /// The flags after the level: speed-check's, or none.
    fn cflags(&self) -> impl Iterator<Item = &'static str> {
        let flags: &'static [&'static str] = if self.speed_check { SPEED_CHECK_FLAGS } else { &[] };
        flags.iter().copied()
    }

    /// The cached build of this release at this level without other flags, if there is one
    /// (a pristine source's first; then the newest).
    pub fn cached(&self, cache: &BuildCache) -> Option<CompiledBuild> {
        let flags = self.recorded_flags();
        let mut of: Vec<CompiledBuild> = cache
            .list()
            .into_iter()
            .filter(|b| b.version == self.release.version && b.libsql_version.is_none() && b.flags == flags)
            .collect();
        // A release chosen by number is the release: only a build of a source the catalogue
        // pins (a `build-sqlite ./3.45.1` of any file declaring 3.45.1 is not it).
        let pinned: Vec<&str> = self
            .release
            .sources
            .iter()
            .map(|s| s.sqlite3_c_sha3)
            .chain(self.release.sha3_256)
            .collect();
        if !pinned.is_empty() {
            of.retain(|b| b.source_sha3_256.as_deref().is_some_and(|h| pinned.contains(&h)));
        }
        of.sort_by(|a, b| b.built_at.cmp(&a.built_at));
        let pristine = self.pristine_sha256s(cache);
        of.iter()
            .find(|b| pristine.contains(&b.source_sha256))
            .or(of.first())
            .cloned()
    }

    /// SHA-256s of the release's sources known to be its own file: the one the cache holds
    /// from a pristine archive.
    fn pristine_sha256s(&self, cache: &BuildCache) -> Vec<String> {
        let Some(best) = self.release.best() else {
            return Vec::new();
        };
        if best.pristine == releases::Pristine::Modified {
            return Vec::new();
        }
        let path = cache.sources_dir().join(self.release.version).join("sqlite3.c");
        std::fs::read(path)
            .map(|b| vec![super::sha256_hex(&b)])
            .unwrap_or_default()
    }

    /// Its build: the cached one, else fetched (when its source is not cached) and compiled,
    /// each step said through `say` before it starts.
    pub fn ensure(&self, cache: &BuildCache, say: &dyn Fn(&str)) -> Result<CompiledBuild, BuildError> {
        if let Some(b) = self.cached(cache) {
            cache.open_library(&b)?;
            return Ok(b);
        }
        cache.check()?;
        let version = self.release.version;
        if !cache.sources_dir().join(version).join("sqlite3.c").is_file() {
            if let Some(s) = self.release.best() {
                say(&format!(
                    "fetching SQLite {version} from {} {}@{}",
                    s.registry.name(),
                    s.package,
                    s.version
                ));
            }
        }
        let source = super::source::resolve(version, &cache.sources_dir())?;
        let level = self.level;
        let cflags: Vec<String> = self.cflags().map(str::to_string).collect();
        let built = cache.build(&source, level, &cflags, None, &|_| {
            say(&format!(
                "compiling SQLite {version} at {} for --engine sqlite@{} (once per machine; a minute or so)",
                level.flag(),
                self.name()
            ))
        })?;
        Ok(built.build)
    }
}

/// One build's compile when no build here tells: a minute (SQLite's amalgamation at -O2 on
/// one core of a small machine).
const COMPILE_GUESS: Duration = Duration::from_secs(60);

/// One release's fetch from its registry archive, with its checks.
const FETCH_GUESS: Duration = Duration::from_secs(10);

/// The builds a set of engines lacks, counted before any is made, so that `sqlite@all`
/// (about a hundred fetches and compiles) says what it is about to do and for how long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToBuild {
    /// Releases with no build here at their level.
    pub builds: usize,
    /// Of those, the ones whose source is not here either: fetched first.
    pub fetches: usize,
    /// One compile: the mean of the builds this cache holds, else [`COMPILE_GUESS`].
    pub each: Duration,
}

/// The builds `engines` (`sqlite@3.45.1-Os`, ... as the plan wrote them out) lack in `cache`.
pub fn to_build(engines: &[String], cache: &BuildCache) -> ToBuild {
    let missing: Vec<ReleaseSpec> = engines
        .iter()
        .filter_map(|e| e.strip_prefix("sqlite@"))
        .filter_map(|t| parse(t, Some(cache))?.ok())
        .flat_map(|s| s.specs)
        .filter(|s| s.cached(cache).is_none())
        .collect();
    let fetches = missing
        .iter()
        .filter(|s| !cache.sources_dir().join(s.release.version).join("sqlite3.c").is_file())
        .count();
    let made: Vec<u64> = cache.list().iter().map(|b| b.compile_ms).collect();
    let each = match made.len() {
        0 => COMPILE_GUESS,
        n => Duration::from_millis(made.iter().sum::<u64>() / n as u64),
    };
    ToBuild {
        builds: missing.len(),
        fetches,
        each,
    }
}

impl ToBuild {
    /// About how long making them takes, `workers` at a time.
    pub fn estimate(&self, workers: usize) -> Duration {
        let workers = workers.max(1) as u32;
        let rounds = (self.builds as u32).div_ceil(workers);
        let fetch_rounds = (self.fetches as u32).div_ceil(workers);
        self.each * rounds + FETCH_GUESS * fetch_rounds
    }

    /// `96 SQLite builds to make first (96 fetched from their registries): about 1 h 52 min,
    /// one at a time (about 60 s a compile)`.
    pub fn describe(&self, workers: usize) -> String {
        let at_a_time = match workers {
            0 | 1 => "one at a time".to_string(),
            n => format!("{n} at a time"),
        };
        format!(
            "{} SQLite build{} to make first ({} fetched from {}): about {}, {at_a_time} (about {} s a compile{})",
            self.builds,
            if self.builds == 1 { "" } else { "s" },
            self.fetches,
            if self.fetches == 1 {
                "its registry"
            } else {
                "their registries"
            },
            roughly(self.estimate(workers)),
            self.each.as_secs().max(1),
            if self.each == COMPILE_GUESS {
                ", a guess: no build here yet"
            } else {
                ", as the builds here took"
            }
        )
    }
}

/// `45 s`, `12 min`, `1 h 52 min`.
fn roughly(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min", s.div_ceil(60)),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

/// What a selection's text parsed into.
#[derive(Debug)]
pub struct Selection {
    /// The releases a registry holds (or the cache has), oldest first.
    pub specs: Vec<ReleaseSpec>,
    /// Releases in the selection no registry holds and no cache has.
    pub missing: Vec<&'static Release>,
}

/// The releases `text` (what follows `sqlite@`) selects; `None` when it is no release selection
/// (a build's name, looked up as such).
pub fn parse(text: &str, cache: Option<&BuildCache>) -> Option<Result<Selection, BuildError>> {
    let (text_body, speed_check) = match text.trim().strip_suffix(SPEED_CHECK_SUFFIX) {
        Some(body) => (body, true),
        None => (text.trim(), false),
    };
    let (body, level) = split_level(text_body);
    if speed_check && level.is_some() {
        return None;
    }
    let level = match level {
        Some(l) => match OptLevel::parse(l) {
            Ok(l) => l,
            Err(_) => return None,
        },
        None if speed_check => OptLevel::Size,
        None => OptLevel::O2,
    };
    let all = releases::all();
    let chosen: Vec<&'static Release> = if body == "all" {
        all.iter().collect()
    } else if let Some((lo, hi)) = body.split_once("..") {
        let (Some(l), Some(_)) = (version_key(lo), version_key(hi)) else {
            return Some(Err(BuildError::Input(format!(
                "--engine sqlite@{text}: a range is two releases, such as sqlite@3.20..3.54"
            ))));
        };
        let picked: Vec<&'static Release> = all.iter().filter(|r| r.key() >= l && at_most(r.version, hi)).collect();
        if picked.is_empty() {
            return Some(Err(BuildError::Input(format!(
                "--engine sqlite@{text}: no SQLite release from {lo} to {hi} is known; see `litebench list sqlite-releases`"
            ))));
        }
        picked
    } else if let Some(prefix) = body.strip_suffix(".x") {
        version_key(prefix)?;
        let picked: Vec<&'static Release> = all.iter().filter(|r| within(r.version, prefix)).collect();
        if picked.is_empty() {
            return Some(Err(BuildError::Input(format!(
                "--engine sqlite@{text}: no SQLite release {prefix}.x is known; see `litebench list sqlite-releases`"
            ))));
        }
        picked
    } else {
        match releases::find(body) {
            Some(r) => vec![r],
            None => return None,
        }
    };
    let mut specs = Vec::new();
    let mut missing = Vec::new();
    for release in chosen {
        let spec = ReleaseSpec {
            release,
            level,
            speed_check,
        };
        if !release.sources.is_empty() || cache.is_some_and(|c| spec.cached(c).is_some()) {
            specs.push(spec);
        } else {
            missing.push(release);
        }
    }
    if specs.is_empty() {
        let nearest = nearest_held(missing.first().map_or(body, |r| r.version));
        return Some(Err(BuildError::Input(format!(
            "--engine sqlite@{text}: no package registry holds {}; the nearest held: {nearest} (see `litebench list sqlite-releases`)",
            match missing.as_slice() {
                [one] => format!("SQLite {}", one.version),
                _ => "any of these releases".to_string(),
            }
        ))));
    }
    Some(Ok(Selection { specs, missing }))
}

/// Whether `text` selects several releases at once (a range, `3.8.x`, `all`).
pub fn is_several(text: &str) -> bool {
    let text = text.trim();
    let (body, _) = split_level(text.strip_suffix(SPEED_CHECK_SUFFIX).unwrap_or(text));
    body == "all" || body.contains("..") || body.ends_with(".x")
}

/// `3.45.1-Os` -> (`3.45.1`, `Some("-Os")`).
fn split_level(text: &str) -> (&str, Option<&str>) {
    for l in ["-Os", "-O2", "-O3"] {
        if let Some(body) = text.strip_suffix(l) {
            return (body, Some(l));
        }
    }
    (text, None)
}

/// `version` is `prefix` or one of its point releases (`3.8.4.3` within `3.8`).
fn within(version: &str, prefix: &str) -> bool {
    version == prefix || version.strip_prefix(prefix).is_some_and(|r| r.starts_with('.'))
}

/// `version` is at most `hi`, a release or a prefix taking all its point releases.
fn at_most(version: &str, hi: &str) -> bool {
    within(version, hi) || version_key(version) <= version_key(hi)
}

/// The held releases just before and after `version`.
fn nearest_held(version: &str) -> String {
    let key = version_key(version).unwrap_or([0; 4]);
    let held: Vec<&Release> = releases::all().iter().filter(|r| !r.sources.is_empty()).collect();
    let before = held.iter().rev().find(|r| r.key() < key).map(|r| r.version);
    let after = held.iter().find(|r| r.key() > key).map(|r| r.version);
    match (before, after) {
        (Some(b), Some(a)) => format!("{b} and {a}"),
        (Some(x), None) | (None, Some(x)) => x.to_string(),
        (None, None) => "none".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        parse(text, None)
            .unwrap()
            .unwrap()
            .specs
            .iter()
            .map(|s| s.name())
            .collect()
    }

    #[test]
    fn ranges_prefixes_and_levels_select_releases() {
        let held: Vec<&str> = releases::all()
            .iter()
            .filter(|r| !r.sources.is_empty())
            .map(|r| r.version)
            .collect();
        assert_eq!(names("all").len(), held.len());
        let oldest = held[0];
        let newest = held[held.len() - 1];
        assert_eq!(names(&format!("{oldest}-Os")), vec![format!("{oldest}-Os")]);
        assert_eq!(names(&format!("{oldest}..{newest}")).len(), held.len());
        // An upper end without a point release takes all its point releases.
        let minor: Vec<&str> = newest.split('.').take(2).collect();
        assert!(names(&format!("3.0..{}", minor.join("."))).contains(&newest.to_string()));
        let x = names(&format!("{}.x", minor.join(".")));
        assert!(x.contains(&newest.to_string()) && x.iter().all(|v| v.starts_with(&minor.join("."))));
        assert!(parse("my-build", None).is_none());
        assert!(parse("3.x..", None).unwrap().is_err());
        let e = parse("3.1..3.2", None).unwrap().unwrap_err().to_string();
        assert!(e.contains("no SQLite release from 3.1 to 3.2"), "{e}");
    }

    #[test]
    fn all_releases_are_counted_and_timed_before_any_is_built() {
        let dir = tempfile::tempdir().unwrap();
        let cache = BuildCache {
            root: dir.path().join("cache"),
        };
        let engines: Vec<String> = names("all").iter().map(|n| format!("sqlite@{n}")).collect();
        let tb = to_build(&engines, &cache);
        assert_eq!(
            (tb.builds, tb.fetches, tb.each),
            (engines.len(), engines.len(), COMPILE_GUESS)
        );
        let n = engines.len() as u64;
        assert_eq!(tb.estimate(1), Duration::from_secs(70 * n));
        assert_eq!(tb.estimate(2), Duration::from_secs(70 * n.div_ceil(2)));
        let said = tb.describe(1);
        assert!(
            said.starts_with(&format!("{n} SQLite builds to make first ({n} fetched")),
            "{said}"
        );
        assert!(said.contains(" h ") && said.contains("one at a time"), "{said}");
        assert_eq!(roughly(Duration::from_secs(6720)), "1 h 52 min");
        assert_eq!(roughly(Duration::from_secs(61)), "2 min");
    }

    #[test]
    fn prefixes_and_upper_ends_compare_as_releases() {
        assert!(within("3.8.4.3", "3.8") && within("3.8", "3.8") && !within("3.80.1", "3.8"));
        assert!(at_most("3.54.1", "3.54") && at_most("3.20.0", "3.54") && !at_most("3.55.0", "3.54"));
        assert_eq!(split_level("3.45.1-Os"), ("3.45.1", Some("-Os")));
    }

    #[test]
    fn speed_check_builds_are_os_with_memsys5_and_named_so() {
        let oldest = names("all")[0].clone();
        let sel = parse(&format!("{oldest}-speed-check"), None).unwrap().unwrap();
        let spec = sel.specs[0];
        assert!(spec.speed_check && spec.level == OptLevel::Size);
        assert_eq!(spec.name(), format!("{oldest}-speed-check"));
        let flags = spec.recorded_flags();
        let at = flags.iter().position(|f| f == "-Os").unwrap();
        assert_eq!(flags[at + 1], "-DSQLITE_ENABLE_MEMSYS5", "{flags:?}");
        assert!(names("3.7..3.8-speed-check")
            .iter()
            .all(|n| n.ends_with("-speed-check")));
        assert!(is_several("3.7..3.8-speed-check"));
        // A level beside it is no release selection (speed-check's level is -Os).
        assert!(parse(&format!("{oldest}-O3-speed-check"), None).is_none());
        let plain = parse(&oldest, None).unwrap().unwrap().specs[0];
        assert!(!plain.speed_check && !plain.recorded_flags().iter().any(|f| f.contains("MEMSYS5")));
    }
}
