//! The `events` table and the statements that insert, expire and read it.
//!
//! `id` is the event's number on the logical clock and `ts` its time on it (the same number:
//! a log's rows carry both, and the expire and the reads go by `ts`, through its index, as
//! retention jobs do). `kind` and `source` are the indexed columns a log is filtered by; every
//! insert updates all four b-trees, and every expire deletes from all four.

use super::stream::Event;
use crate::engines::dialect::IntType;
use crate::engines::{Dialect, Value};

/// `expire_every`'s default, also how often pre-aging expires where it is 0.
pub const DEFAULT_EXPIRE_EVERY: u64 = 100;

/// The table and its indexes for dialect `d`.
pub fn create(d: Dialect) -> String {
    // SQLite's rowid alias must be spelled INTEGER.
    let id = match d {
        Dialect::Sqlite => "INTEGER",
        _ => d.int_type(IntType::I64),
    };
    let int = d.int_type(IntType::I64);
    format!(
        "CREATE TABLE events (id {id} PRIMARY KEY, ts {int} NOT NULL, kind {int} NOT NULL, source {int} NOT NULL, payload {} NOT NULL);
         CREATE INDEX events_ts ON events(ts);
         CREATE INDEX events_kind ON events(kind);
         CREATE INDEX events_source ON events(source)",
        d.blob_type()
    )
}

/// One event: id, ts, kind, source, payload.
pub const INSERT: &str = "INSERT INTO events (id, ts, kind, source, payload) VALUES (?, ?, ?, ?, ?)";

/// Deletes every event older than the newest `?` (the retention).
pub const EXPIRE: &str = "DELETE FROM events WHERE ts <= (SELECT max(ts) FROM events) - ?";

/// The newest `?` events' columns by ts, as a log viewer's recent page reads them.
pub const READ: &str =
    "SELECT id, ts, kind, source, payload FROM events WHERE ts > (SELECT max(ts) FROM events) - ? ORDER BY ts";

/// [`INSERT`]'s values for `e`.
pub fn row(e: &Event) -> [Value<'_>; 5] {
    [
        Value::Int(e.ts),
        Value::Int(e.ts),
        Value::Int(e.kind),
        Value::Int(e.source),
        Value::Blob(&e.payload),
    ]
}
