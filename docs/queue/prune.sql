-- The janitor: one batch of Solid Queue's clear_finished_in_batches (500 jobs finished more
-- than a second ago).
DELETE FROM solid_queue_jobs WHERE id IN (
  SELECT id FROM solid_queue_jobs
  WHERE finished_at IS NOT NULL AND finished_at < CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER) - 1000000
  LIMIT 500);
