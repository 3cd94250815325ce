-- Solid Queue's three job tables as litebench's `queue` workload creates them on SQLite
-- (timestamps in microseconds since the Unix epoch), for `--param init=docs/queue/schema.sql`.
CREATE TABLE solid_queue_jobs (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, queue_name varchar NOT NULL, class_name varchar NOT NULL, arguments TEXT, priority integer DEFAULT 0 NOT NULL, active_job_id varchar, scheduled_at bigint, finished_at bigint, concurrency_key varchar, created_at bigint NOT NULL, updated_at bigint NOT NULL);
CREATE INDEX index_solid_queue_jobs_on_active_job_id ON solid_queue_jobs (active_job_id);
CREATE INDEX index_solid_queue_jobs_on_class_name ON solid_queue_jobs (class_name);
CREATE INDEX index_solid_queue_jobs_on_finished_at ON solid_queue_jobs (finished_at);
CREATE INDEX index_solid_queue_jobs_for_filtering ON solid_queue_jobs (queue_name, finished_at);
CREATE INDEX index_solid_queue_jobs_for_alerting ON solid_queue_jobs (scheduled_at, finished_at);
CREATE TABLE solid_queue_ready_executions (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, job_id bigint NOT NULL, queue_name varchar NOT NULL, priority integer DEFAULT 0 NOT NULL, created_at bigint NOT NULL, CONSTRAINT fk_ready_job FOREIGN KEY (job_id) REFERENCES solid_queue_jobs (id) ON DELETE CASCADE);
CREATE UNIQUE INDEX index_solid_queue_ready_executions_on_job_id ON solid_queue_ready_executions (job_id);
CREATE INDEX index_solid_queue_poll_all ON solid_queue_ready_executions (priority, job_id);
CREATE INDEX index_solid_queue_poll_by_queue ON solid_queue_ready_executions (queue_name, priority, job_id);
CREATE TABLE solid_queue_claimed_executions (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, job_id bigint NOT NULL, process_id bigint, created_at bigint NOT NULL, CONSTRAINT fk_claimed_job FOREIGN KEY (job_id) REFERENCES solid_queue_jobs (id) ON DELETE CASCADE);
CREATE UNIQUE INDEX index_solid_queue_claimed_executions_on_job_id ON solid_queue_claimed_executions (job_id);
CREATE INDEX index_solid_queue_claimed_executions_on_process_id_and_job_id ON solid_queue_claimed_executions (process_id, job_id);
