//! Run names: `run --name wal-baseline` gives a stored run a name people remember, and every
//! command that takes a run id takes the name too (`compare wal-baseline 12`), as saved,
//! named baselines are what users of hyperfine and criterion ask for most.
//!
//! A name is unique within a store (a unique index on `runs.name`, schema 4), so it always
//! means one run. It is never only digits, so `12` is always run id 12 and a name is never
//! read as an id, and it holds no `:` (`compare RUN:CONFIG`) or space, so it needs no quoting.

use super::{Store, StoreError};

/// The longest name.
pub const MAX_LEN: usize = 64;

/// Why a name cannot name a run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a run name is 1 to {MAX_LEN} letters, digits, '.', '_' and '-', not only digits and not starting with '-' (e.g. wal-baseline)")]
pub struct BadName;

/// Checks that `name` can name a run.
pub fn check(name: &str) -> Result<(), BadName> {
    let ok = !name.is_empty()
        && name.len() <= MAX_LEN
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !name.chars().all(|c| c.is_ascii_digit());
    if ok {
        Ok(())
    } else {
        Err(BadName)
    }
}

/// How a command line names a stored run: by its id in the store, or by its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunRef {
    Id(i64),
    Name(String),
}

impl RunRef {
    /// `12` is an id; anything else is a name (looked up as it is: a string that is not a valid
    /// name names no run, and is said to be unknown like any other).
    pub fn parse(s: &str) -> RunRef {
        let digits = !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
        match s.parse::<i64>() {
            Ok(id) if digits => RunRef::Id(id),
            _ => RunRef::Name(s.to_string()),
        }
    }
}

impl std::fmt::Display for RunRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunRef::Id(id) => write!(f, "{id}"),
            RunRef::Name(n) => f.write_str(n),
        }
    }
}

impl Store {
    /// The id of the run named `name`, if any (none in a store older than schema 4).
    pub fn find_name(&mut self, name: &str) -> Result<Option<i64>, StoreError> {
        if self.version.is_none_or(|v| v < 4) || check(name).is_err() {
            return Ok(None);
        }
        // A valid name holds no quote.
        let rows = self.rows(&format!("SELECT id FROM runs WHERE name = '{name}'"))?;
        Ok(rows.first().and_then(|r| r[0].as_deref()).and_then(|s| s.parse().ok()))
    }

    /// Whether run `id` holds its name and nothing else: it failed or was interrupted with no
    /// measured trial kept. Such a run gives its name up to the next run that asks for it, so
    /// re-running a name after a failed first try is not refused.
    pub fn gives_name_up(&mut self, id: i64) -> Result<bool, StoreError> {
        let rows = self.rows(&format!(
            "SELECT status, (SELECT count(*) FROM trials WHERE run_id = {id} AND warmup = 0) FROM runs WHERE id = {id}"
        ))?;
        let Some(row) = rows.first() else { return Ok(false) };
        let status = row[0].as_deref().unwrap_or("");
        let trials: i64 = row[1].as_deref().and_then(|s| s.parse().ok()).unwrap_or(1);
        Ok(matches!(status, "failed" | "interrupted") && trials == 0)
    }

    /// Takes `name` from the run that has it where that run gives it up ([`Store::gives_name_up`]).
    pub(super) fn take_name_given_up(&mut self, name: &str) -> Result<(), StoreError> {
        if let Some(id) = self.find_name(name)? {
            if self.gives_name_up(id)? {
                self.exec("UPDATE runs SET name = NULL WHERE id = ?1", &[super::Value::Int(id)])?;
            }
        }
        Ok(())
    }

    /// The id `r` stands for: an id as it is (`load` says when no run has it), a name looked up.
    pub fn resolve(&mut self, r: &RunRef) -> Result<i64, StoreError> {
        match r {
            RunRef::Id(id) => Ok(*id),
            RunRef::Name(name) => self.find_name(name)?.ok_or_else(|| StoreError::NoName {
                path: self.path.clone(),
                name: name.clone(),
            }),
        }
    }

    /// [`Store::resolve`] of a command-line word (`12` or `wal-baseline`).
    pub fn resolve_word(&mut self, word: &str) -> Result<i64, StoreError> {
        self.resolve(&RunRef::parse(word))
    }

    /// `name`, or the first of `name-2`, `name-3`, ... that no run of this store has: what a
    /// run copied in from another store (`merge`, a side file) is named when its own name is
    /// taken here by another run, so that nothing is refused and no name means two runs.
    pub(super) fn free_name(&mut self, name: &str) -> Result<String, StoreError> {
        if self.find_name(name)?.is_none() {
            return Ok(name.to_string());
        }
        for n in 2.. {
            // Kept within MAX_LEN by shortening the name itself.
            let suffix = format!("-{n}");
            let mut stem = name.to_string();
            stem.truncate(MAX_LEN - suffix.len());
            let candidate = format!("{stem}{suffix}");
            if self.find_name(&candidate)?.is_none() {
                return Ok(candidate);
            }
        }
        unreachable!("some suffix is free")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_words_that_are_not_ids() {
        for good in ["wal-baseline", "v1.2_rc", "a", "3d", &"x".repeat(MAX_LEN)] {
            assert_eq!(check(good), Ok(()), "{good}");
        }
        for bad in ["", "12", "-x", "a b", "a:b", "ü", &"x".repeat(MAX_LEN + 1), "a'b"] {
            assert_eq!(check(bad), Err(BadName), "{bad}");
        }
        assert_eq!(RunRef::parse("12"), RunRef::Id(12));
        assert_eq!(RunRef::parse("wal"), RunRef::Name("wal".into()));
        assert_eq!(RunRef::parse("+3"), RunRef::Name("+3".into()));
    }

    #[test]
    fn a_name_finds_its_run_and_is_unique() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("r.db"), true).unwrap();
        let m = crate::store::tests::manifest();
        let a = s.begin_named(&m, Some("base")).unwrap().id;
        let b = s.begin_named(&m, None).unwrap().id;
        assert_eq!(s.resolve_word("base").unwrap(), a);
        assert_eq!(s.resolve_word(&b.to_string()).unwrap(), b);
        let e = s.resolve_word("nope").unwrap_err().to_string();
        assert!(e.contains("no run named `nope`") && e.contains("show --list"), "{e}");
        assert!(s.begin_named(&m, Some("base")).is_err(), "the unique index holds");
        // A run that failed with no trial kept gives its name up to the next that asks.
        let failed = s.begin_named(&m, Some("retry")).unwrap().id;
        s.finish_run(failed, "failed", "2024-01-01T00:01:00Z", Some("boom"))
            .unwrap();
        assert!(s.gives_name_up(failed).unwrap());
        assert!(!s.gives_name_up(a).unwrap(), "a running run keeps its name");
        let again = s.begin_named(&m, Some("retry")).unwrap().id;
        assert_eq!(s.resolve_word("retry").unwrap(), again);
        assert_eq!(s.free_name("base").unwrap(), "base-2");
        assert_eq!(s.free_name("other").unwrap(), "other");
        assert_eq!(s.load(Some(a)).unwrap().name.as_deref(), Some("base"));
        assert_eq!(s.list().unwrap()[0].name.as_deref(), Some("base"));
    }
}
