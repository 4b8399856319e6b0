-- Claims and completions find their jobs by id, and must do so through the primary key whatever
-- the backlog. Two partial indexes had predicates that those statements' own conditions imply
-- (`state = 'running'`; `state IN ('queued', 'failed')` or `'running'`), so the planner could scan
-- the whole partial index instead: every running job for each completion batch, every active
-- job for each claim. With 50,000 jobs queued a claim read 50,000 index entries, and a no-op job
-- cost more CPU the larger the table. Each predicate now also names the column it is keyed on,
-- which the id-keyed statements do not imply and the statements that use the index do (a strict
-- `=` on the column implies it is not null).
DROP INDEX jobs_running_worker;
CREATE INDEX jobs_running_worker ON jobs (worker_id) WHERE state = 'running' AND worker_id IS NOT NULL;

-- A job without a production has no stage to wait for: it needs no entry here either.
DROP INDEX jobs_active_stage;
CREATE INDEX jobs_active_stage ON jobs (production_id, stage)
    WHERE state IN ('queued', 'running', 'failed') AND production_id IS NOT NULL;

-- Every claim sets the worker. The rescue of a dead worker's jobs relies on it (it reads running
-- jobs through jobs_running_worker, so one without a worker would never be rescued).
ALTER TABLE jobs ADD CONSTRAINT jobs_running_has_worker CHECK (state <> 'running' OR worker_id IS NOT NULL);
