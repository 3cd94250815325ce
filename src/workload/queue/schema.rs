//! Solid Queue's tables and statements, as `rails/solid_queue` (commit 29e818d) defines and
//! runs them, for every dialect.
//!
//! Three of its tables carry a job's life: `solid_queue_jobs` (one row per job, kept until the
//! janitor clears it), `solid_queue_ready_executions` (a job waiting for a worker) and
//! `solid_queue_claimed_executions` (a job a worker holds). Their columns and indexes are
//! those of Solid Queue's `queue_schema.rb`, with one change: every timestamp is an integer of
//! microseconds since the Unix epoch instead of Rails' `datetime(6)`, so that a worker on any
//! engine computes the wait from enqueue to claim from the row it claims without parsing
//! dates (SQLite stores Rails' datetimes as 26-byte text: litebench's rows are smaller by that).
//! The statements are those ActiveRecord issues for Solid Queue's `Job.enqueue`,
//! `ReadyExecution.claim`, `ClaimedExecution#finished` and `Job.clear_finished_in_batches`;
//! every other difference is listed in docs/workloads.md.

use crate::engines::dialect::Sql;
use crate::engines::Dialect;

/// The jobs' table.
pub const JOBS: &str = "solid_queue_jobs";
/// Jobs waiting for a worker.
pub const READY: &str = "solid_queue_ready_executions";
/// Jobs a worker holds.
pub const CLAIMED: &str = "solid_queue_claimed_executions";

/// The primary key as Rails' adapters create it: SQLite `AUTOINCREMENT` (which also keeps
/// `sqlite_sequence` up to date on every insert), PostgreSQL `bigserial`, MySQL
/// `AUTO_INCREMENT`.
const ID: Sql = crate::sql!(
    "id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL",
    Postgres => "id bigserial PRIMARY KEY",
    Mysql => "id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY",
);

/// Rails' `string` column.
const STRING: Sql = crate::sql!("varchar", Mysql => "varchar(255)", Postgres => "character varying");

/// What follows `CREATE TABLE (...)`.
const SUFFIX: Sql = crate::sql!("", Mysql => " ENGINE=InnoDB");

/// The row lock Solid Queue's claim takes (`non_blocking_lock`): `FOR UPDATE SKIP LOCKED`
/// where the engine has it (`use_skip_locked`, true by default); SQLite has no row locks and
/// ActiveRecord's SQLite adapter drops lock clauses, so a claim there is its write
/// transaction.
const SKIP_LOCKED: Sql = crate::sql!("", Postgres => " FOR UPDATE SKIP LOCKED", Mysql => " FOR UPDATE SKIP LOCKED");

/// The plain row lock (`lock`) of `ClaimedExecution#finalize`.
const FOR_UPDATE: Sql = crate::sql!("", Postgres => " FOR UPDATE", Mysql => " FOR UPDATE");

/// The id the job's insert just generated, read in the statement that needs it.
/// (PostgreSQL: the jobs sequence's `currval`; `lastval()` would be the ready execution's own id,
/// drawn before the row's values.)
const LAST_ID: Sql = crate::sql!(
    "last_insert_rowid()",
    Postgres => "currval('solid_queue_jobs_id_seq')",
    Mysql => "LAST_INSERT_ID()",
);

/// The tables and indexes, one statement each.
pub fn create(d: Dialect) -> Vec<String> {
    let (id, s, suffix) = (ID.for_dialect(d), STRING.for_dialect(d), SUFFIX.for_dialect(d));
    let text = d.text_type();
    // SQLite enforces the key only with `PRAGMA foreign_keys = on` (Rails sets it; so does
    // litebench's `foreign_keys` knob).
    let fk = |t: &str| format!(", CONSTRAINT fk_{t}_job FOREIGN KEY (job_id) REFERENCES {JOBS} (id) ON DELETE CASCADE");
    vec![
        format!(
            "CREATE TABLE {JOBS} ({id}, queue_name {s} NOT NULL, class_name {s} NOT NULL, arguments {text}, \
             priority integer DEFAULT 0 NOT NULL, active_job_id {s}, scheduled_at bigint, finished_at bigint, \
             concurrency_key {s}, created_at bigint NOT NULL, updated_at bigint NOT NULL){suffix}"
        ),
        format!("CREATE INDEX index_solid_queue_jobs_on_active_job_id ON {JOBS} (active_job_id)"),
        format!("CREATE INDEX index_solid_queue_jobs_on_class_name ON {JOBS} (class_name)"),
        format!("CREATE INDEX index_solid_queue_jobs_on_finished_at ON {JOBS} (finished_at)"),
        format!("CREATE INDEX index_solid_queue_jobs_for_filtering ON {JOBS} (queue_name, finished_at)"),
        format!("CREATE INDEX index_solid_queue_jobs_for_alerting ON {JOBS} (scheduled_at, finished_at)"),
        format!(
            "CREATE TABLE {READY} ({id}, job_id bigint NOT NULL, queue_name {s} NOT NULL, \
             priority integer DEFAULT 0 NOT NULL, created_at bigint NOT NULL{}){suffix}",
            fk("ready")
        ),
        format!("CREATE UNIQUE INDEX index_solid_queue_ready_executions_on_job_id ON {READY} (job_id)"),
        format!("CREATE INDEX index_solid_queue_poll_all ON {READY} (priority, job_id)"),
        format!("CREATE INDEX index_solid_queue_poll_by_queue ON {READY} (queue_name, priority, job_id)"),
        format!(
            "CREATE TABLE {CLAIMED} ({id}, job_id bigint NOT NULL, process_id bigint, created_at bigint NOT NULL{}){suffix}",
            fk("claimed")
        ),
        format!("CREATE UNIQUE INDEX index_solid_queue_claimed_executions_on_job_id ON {CLAIMED} (job_id)"),
        format!(
            "CREATE INDEX index_solid_queue_claimed_executions_on_process_id_and_job_id ON {CLAIMED} (process_id, job_id)"
        ),
    ]
}

/// `Job.enqueue`'s insert: queue, class, arguments, priority, active job id, scheduled at,
/// created at, updated at.
pub fn insert_job() -> String {
    format!(
        "INSERT INTO {JOBS} (queue_name, class_name, arguments, priority, active_job_id, scheduled_at, created_at, updated_at) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    )
}

/// The job's ready execution (`ReadyExecution.create_or_find_by!(job_id:)`): queue, priority,
/// created at; the job id is the insert's.
pub fn insert_ready(d: Dialect) -> String {
    format!(
        "INSERT INTO {READY} (job_id, queue_name, priority, created_at) VALUES ({}, ?, ?, ?)",
        LAST_ID.for_dialect(d)
    )
}

/// The claim's candidates (`select_candidates`: every queue, `ordered`, `limit`,
/// `non_blocking_lock`), with the ready execution's `created_at` beside Solid Queue's
/// `id, job_id`: the enqueue time the claim's wait is measured from. Parameter: the limit.
pub fn select_candidates(d: Dialect) -> String {
    format!(
        "SELECT id, job_id, created_at FROM {READY} ORDER BY priority ASC, job_id ASC LIMIT ?{}",
        SKIP_LOCKED.for_dialect(d)
    )
}

/// `ClaimedExecution.claiming`'s insert: job id, process id, created at.
pub fn insert_claimed() -> String {
    format!("INSERT INTO {CLAIMED} (job_id, process_id, created_at) VALUES (?, ?, ?)")
}

/// `claiming`'s load of what it inserted: job id, process id.
pub fn load_claimed() -> String {
    format!("SELECT id, job_id FROM {CLAIMED} WHERE job_id = ? AND process_id = ?")
}

/// `lock_candidates`' delete of the claimed ready executions: id.
pub fn delete_ready() -> String {
    format!("DELETE FROM {READY} WHERE id = ?")
}

/// `finalize`'s lock of the claimed execution (`unless_already_finalized`): id.
pub fn lock_claimed(d: Dialect) -> String {
    format!("SELECT id FROM {CLAIMED} WHERE id = ?{}", FOR_UPDATE.for_dialect(d))
}

/// `Job#finished!` with `preserve_finished_jobs` (Solid Queue's default): finished at,
/// updated at, id.
pub fn finish_job() -> String {
    format!("UPDATE {JOBS} SET finished_at = ?, updated_at = ? WHERE id = ?")
}

/// `finalize`'s `destroy!` of the claimed execution: id.
pub fn delete_claimed() -> String {
    format!("DELETE FROM {CLAIMED} WHERE id = ?")
}

/// One batch of `clear_finished_in_batches`: finished before, batch size. ActiveRecord turns a
/// limited delete into a delete by ids from a limited select on PostgreSQL and SQLite, and
/// keeps `DELETE ... LIMIT` on MySQL (which refuses `LIMIT` in an `IN` subquery).
pub fn clear_finished(d: Dialect) -> String {
    let filter = "finished_at IS NOT NULL AND finished_at < ?";
    match d {
        Dialect::Mysql => format!("DELETE FROM {JOBS} WHERE {filter} LIMIT ?"),
        _ => format!("DELETE FROM {JOBS} WHERE id IN (SELECT id FROM {JOBS} WHERE {filter} LIMIT ?)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dialect_has_its_lock_and_its_key() {
        assert!(select_candidates(Dialect::Postgres).ends_with("LIMIT ? FOR UPDATE SKIP LOCKED"));
        assert!(select_candidates(Dialect::Mysql).ends_with("LIMIT ? FOR UPDATE SKIP LOCKED"));
        assert!(select_candidates(Dialect::Sqlite).ends_with("LIMIT ?"));
        assert!(create(Dialect::Sqlite)[0].contains("AUTOINCREMENT"));
        assert!(create(Dialect::Mysql)[0].ends_with("ENGINE=InnoDB"));
        assert!(insert_ready(Dialect::Postgres).contains("VALUES (currval('solid_queue_jobs_id_seq'), ?, ?, ?)"));
        assert!(clear_finished(Dialect::Mysql).ends_with("LIMIT ?"));
        assert!(clear_finished(Dialect::Sqlite).contains("IN (SELECT id"));
    }
}
