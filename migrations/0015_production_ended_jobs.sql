-- A production advances or finishes under its row lock, and every enqueue into it takes that lock
-- too. Counting all of its jobs there (for its dead and cancelled ones) read every row it had: at
-- 20,000 jobs, 7-15 ms during which the enqueues into it waited, 60 times in 14 s for a batch fed
-- while it drains. Its dead and cancelled jobs are few; this index finds them without the rest.
-- Only rows entering those states are written to it.
CREATE INDEX jobs_production_ended ON jobs (production_id)
    WHERE state IN ('dead', 'cancelled') AND production_id IS NOT NULL;
