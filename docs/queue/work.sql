-- A worker: claim the oldest ready job (Solid Queue's ReadyExecution.claim with a limit of
-- one), then finish it (ClaimedExecution#finished). \aset keeps the claimed row's columns in
-- variables, and sets nothing when the queue is empty: the worker then finishes nothing.
\set ready_id 0
BEGIN;
SELECT id AS ready_id, job_id FROM solid_queue_ready_executions ORDER BY priority ASC, job_id ASC LIMIT 1
\aset
\if :ready_id > 0
INSERT INTO solid_queue_claimed_executions (job_id, process_id, created_at)
  VALUES (:job_id, :client_id, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));
DELETE FROM solid_queue_ready_executions WHERE id = :ready_id;
\endif
COMMIT;
\if :ready_id > 0
BEGIN;
SELECT id AS claimed_id FROM solid_queue_claimed_executions WHERE job_id = :job_id AND process_id = :client_id
\gset
UPDATE solid_queue_jobs SET finished_at = CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER),
  updated_at = CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER) WHERE id = :job_id;
DELETE FROM solid_queue_claimed_executions WHERE id = :claimed_id;
COMMIT;
\endif
