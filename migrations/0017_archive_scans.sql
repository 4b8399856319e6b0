-- The archive pass looked for finished jobs through jobs_finished_at, oldest first, and filtered
-- out the ones it may not move: standalone jobs came after every finished job of a running
-- production, and a production's after every finished job of the running ones. A production that
-- runs for hours kept its finished jobs in `jobs` (its stage checks and retries read them there),
-- so every pass, once a tick, read all of them again: 50 ms at 50,000, growing with the run.
-- Two partial indexes hold exactly what the pass may move, each in the order it moves them; a job
-- enters one of them once, when it reaches a final state, as it entered jobs_finished_at (which
-- also took every failed attempt). Retention's look for standalone jobs used jobs_finished_at too
-- and reads the standalone index now; nothing else read it.
CREATE INDEX jobs_standalone_final ON jobs (finished_at)
    WHERE production_id IS NULL AND state IN ('succeeded', 'dead', 'cancelled');
CREATE INDEX jobs_production_final ON jobs (production_id, finished_at)
    WHERE production_id IS NOT NULL AND state IN ('succeeded', 'dead', 'cancelled');
DROP INDEX jobs_finished_at;
