-- A producer: Solid Queue's Job.enqueue, the job's row then its ready execution, in one
-- transaction. Times are microseconds since the Unix epoch, as SQLite's julianday('now')
-- gives them (to the millisecond).
\set arg random(1, 1000000000)
BEGIN;
INSERT INTO solid_queue_jobs (queue_name, class_name, arguments, priority, active_job_id, scheduled_at, created_at, updated_at)
  VALUES ('default', 'BenchmarkJob', '{"job_class":"BenchmarkJob","arguments":[' || :arg || ']}', 0, hex(randomblob(16)),
          CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER),
          CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER),
          CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
INSERT INTO solid_queue_ready_executions (job_id, queue_name, priority, created_at)
  VALUES (last_insert_rowid(), 'default', 0, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
COMMIT;
