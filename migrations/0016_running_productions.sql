-- The coordinator looks, on every pass (up to 20 a second), for running productions whose stage has
-- no job left to run. Without an index it read every production, and with statistics that put all
-- of the jobs in one production (a benchmark's) it read every job too, 15 ms a pass. The
-- productions that run are few; this index finds them in their order without the rest, so that
-- pass (and the lock of a stage transition) can run without sequential scans.
CREATE INDEX productions_running ON productions (created_at) WHERE state = 'running';
