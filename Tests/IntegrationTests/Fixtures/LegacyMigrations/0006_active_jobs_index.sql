-- The coordinator asks, after every committed batch, whether a production's current stage still
-- has work ("NOT EXISTS an active job in this stage"). Through jobs_production_stage that reads
-- every job of the production, so a 1,500-line table read cost O(n) per batch and O(n²) in all.
-- This index holds only the jobs that are still to run, and finds one (or none) at once.
CREATE INDEX jobs_active_stage ON jobs (production_id, stage) WHERE state IN ('queued', 'running', 'failed');
