//! What SQLite's documentation says each configuration keeps, to hold the verifier against.
//!
//! Sources (sqlite.org): `pragma.html#pragma_synchronous`, `pragma.html#pragma_journal_mode`,
//! `atomiccommit.html` and `wal.html`. The documentation speaks in prose; this is its reading,
//! one claim per cell, with the sentence it rests on ([`Claim::source`]).

use super::crash::CrashKind;
use super::verify::Verdict;

/// What the documentation promises for one configuration and crash kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Doc {
    /// Every acknowledged commit survives.
    Durable,
    /// Never corrupt, but the last acknowledged commits may be lost.
    MayLose,
    /// Never corrupt; nothing said about losing commits (either durable or may-lose agrees).
    Consistent,
    /// The database may be corrupted.
    MayCorrupt,
}

impl Doc {
    /// Whether a verdict agrees with the documentation.
    pub fn agrees(self, v: Verdict) -> bool {
        matches!(
            (self, v),
            (Doc::Durable, Verdict::Durable)
                | (Doc::MayLose, Verdict::MayLose { .. })
                | (Doc::Consistent, Verdict::Durable | Verdict::MayLose { .. })
                | (Doc::MayCorrupt, Verdict::MayCorrupt)
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            Doc::Durable => "durable",
            Doc::MayLose => "may lose",
            Doc::Consistent => "consistent",
            Doc::MayCorrupt => "may corrupt",
        }
    }
}

/// One cell of the documented table and the sentence behind it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    pub doc: Doc,
    pub source: &'static str,
}

/// The documented behaviour of `journal_mode`/`synchronous` under `crash`.
pub fn documented(journal_mode: &str, synchronous: &str, crash: CrashKind) -> Claim {
    let claim = |doc, source| Claim { doc, source };
    if matches!(journal_mode, "memory" | "off") {
        return claim(
            Doc::MayCorrupt,
            "journal_mode: \"If the application crashes in the middle of a transaction when the MEMORY [OFF] journaling mode is set, then the database file will very likely go corrupt.\"",
        );
    }
    if crash == CrashKind::Process {
        return claim(
            Doc::Durable,
            "synchronous: \"With synchronous OFF ... If the application running SQLite crashes, the data will be safe\"; a committed transaction has reached the OS in every mode.",
        );
    }
    match (journal_mode, synchronous) {
        (_, "off") => claim(
            Doc::MayCorrupt,
            "synchronous: OFF: \"if the operating system crashes or the computer loses power before that data has been written to the disk surface ... the database might become corrupted.\"",
        ),
        ("wal", "normal") => claim(
            Doc::MayLose,
            "synchronous: \"WAL mode is always consistent with synchronous=NORMAL, but WAL mode does lose durability. A transaction committed in WAL mode with synchronous=NORMAL might roll back following a power loss.\"",
        ),
        ("wal", _) => claim(
            Doc::Durable,
            "synchronous: \"In WAL mode when synchronous is FULL ... the WAL file is synchronized before each transaction commit ... to ensure durability\".",
        ),
        (_, "normal") => claim(
            Doc::Consistent,
            "synchronous: NORMAL \"will still sync at the most critical moments\"; only \"journal_mode=DELETE on an older filesystem\" is said to risk corruption.",
        ),
        ("delete", "full") => claim(
            Doc::MayLose,
            "synchronous: EXTRA syncs the directory \"after that journal is unlinked to commit a transaction in DELETE mode. EXTRA provides additional durability if the commit is followed closely by a power loss\": FULL does not.",
        ),
        _ => claim(
            Doc::Durable,
            "synchronous: FULL \"ensure[s] that all content is safely written to the disk surface prior to continuing\"; EXTRA adds the directory sync after the journal's deletion.",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_says_what_the_issue_quotes() {
        assert_eq!(documented("wal", "normal", CrashKind::Power).doc, Doc::MayLose);
        assert_eq!(documented("delete", "full", CrashKind::Power).doc, Doc::MayLose);
        assert_eq!(documented("delete", "extra", CrashKind::Power).doc, Doc::Durable);
        assert_eq!(documented("delete", "off", CrashKind::Process).doc, Doc::Durable);
        assert_eq!(documented("memory", "full", CrashKind::Process).doc, Doc::MayCorrupt);
        assert!(Doc::Consistent.agrees(Verdict::MayLose { worst: 1 }));
        assert!(!Doc::Durable.agrees(Verdict::MayLose { worst: 1 }));
    }
}
