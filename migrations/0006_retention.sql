-- Retention: the coordinator prunes finished productions and the rows of gone workers oldest
-- first, in small batches (standalone jobs use jobs_finished_at from 0001).
CREATE INDEX productions_finished ON productions (finished_at) WHERE state <> 'running';
CREATE INDEX workers_last_seen ON workers ((coalesce(stopped_at, heartbeat_at)));
