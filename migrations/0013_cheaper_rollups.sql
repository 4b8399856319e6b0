-- Two statements in every job's path no longer pay for the rollups' trigger, which paired the
-- transition tables' old and new rows for each statement: about a fifth of PostgreSQL's CPU at
-- 1,100 jobs/s, where claims and completions come a few jobs at a time.
-- - A claim moves waiting jobs to running with no finish time, nothing the rollups count: the
--   trigger's result for it is always empty.
-- - The completion of plain successes (the worker's own statement) counts its jobs itself: they
--   were running, so each one with a finish time moved into a counted state.
-- Both set `reparto.rollups = 'unchanged'` (local to their transaction); the trigger, fired at the
-- end of that statement, takes the mark back and returns: the mark never outlives the statement
-- that set it, even inside a caller's transaction. Every other update (claims under a limit or a
-- pause, other outcomes, cancels, rescues) is counted by the trigger as before.
CREATE OR REPLACE FUNCTION reparto_job_stats() RETURNS trigger
    LANGUAGE plpgsql
    SET enable_nestloop = off
AS $$
DECLARE
    unmarked text;
BEGIN
    IF current_setting('reparto.rollups', true) = 'unchanged' THEN
        unmarked := set_config('reparto.rollups', '', true);
        RETURN NULL;
    END IF;
    INSERT INTO job_stats_delta (namespace, minute, queue, kind, state, bucket, n)
    SELECT namespace, minute, queue, kind, state, bucket, sum(n)
    FROM (
        -- Into a counted state: succeeded, dead, cancelled, or an attempt that failed.
        SELECT nw.namespace, date_trunc('minute', nw.finished_at) AS minute, nw.queue, nw.kind, nw.state,
               reparto_latency_bucket(nw.state, nw.started_at, nw.finished_at) AS bucket, 1 AS n
        FROM new_rows nw JOIN old_rows o ON o.id = nw.id
        WHERE nw.finished_at IS NOT NULL
          AND ((nw.state IN ('succeeded', 'dead', 'cancelled') AND o.state IS DISTINCT FROM nw.state)
               OR (nw.state = 'failed' AND (o.state <> 'failed' OR o.attempts <> nw.attempts)))
        UNION ALL
        -- Out of a final state (a retry, a superseded dead job): it no longer counts there.
        SELECT o.namespace, date_trunc('minute', o.finished_at), o.queue, o.kind, o.state,
               reparto_latency_bucket(o.state, o.started_at, o.finished_at), -1
        FROM old_rows o JOIN new_rows nw ON nw.id = o.id
        WHERE o.finished_at IS NOT NULL AND o.state IN ('succeeded', 'dead', 'cancelled') AND o.state <> nw.state
    ) AS changes
    GROUP BY 1, 2, 3, 4, 5, 6
    HAVING sum(n) <> 0;
    RETURN NULL;
END
$$;

-- The run time's bucket in float8 instead of numeric: numeric's log was a fifth of the trigger's
-- time. Same buckets: a bucket's lower bound, 2^(b/4) - 1 ms, is irrational but for every fourth
-- one, and those (2^k - 1 ms, whole microseconds) land in their bucket with the 1e-11 allowance
-- (float8's rounding there is near 1e-14; a microsecond at the longest bound moves the value by
-- 4e-10). Tests/IntegrationTests/LatencyBucketTests.swift checks both sides of every bound.
CREATE OR REPLACE FUNCTION reparto_latency_bucket(state text, started_at timestamptz, finished_at timestamptz) RETURNS smallint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN state = 'succeeded' AND started_at IS NOT NULL AND finished_at IS NOT NULL
                THEN least(95, floor(4 * ln(greatest(date_part('epoch', finished_at - started_at) * 1000, 0) + 1) / ln(2::float8) + 1e-11))::smallint
                ELSE -1::smallint END
$$;
