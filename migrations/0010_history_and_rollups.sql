-- Storage at production scale (docs/architecture.md, "Hot jobs and history").
--
-- `jobs` keeps the work that is still to do and what finished recently; the coordinator moves
-- finished jobs of finished productions (and finished standalone jobs) into `job_history` once
-- they are older than the archive age. History is partitioned by state (dead jobs are kept
-- longer) and then by day: retention drops whole days.
-- The ops views count from rollups that the runtime's own statements maintain, so they cost what
-- is on screen instead of growing with history.

-- History has the columns of `jobs`, in the same order (`INSERT ... SELECT *` moves rows both
-- ways). A migration that adds a column to `jobs` must add it here too.
CREATE TABLE job_history (LIKE jobs INCLUDING DEFAULTS) PARTITION BY LIST (state);
ALTER TABLE job_history ALTER COLUMN finished_at SET NOT NULL;
CREATE TABLE job_history_dead PARTITION OF job_history FOR VALUES IN ('dead')
    PARTITION BY RANGE (finished_at);
CREATE TABLE job_history_done PARTITION OF job_history FOR VALUES IN ('succeeded', 'cancelled')
    PARTITION BY RANGE (finished_at);
CREATE INDEX job_history_id ON job_history (id);
CREATE INDEX job_history_production ON job_history (production_id) WHERE production_id IS NOT NULL;
CREATE INDEX job_history_key ON job_history (namespace, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX job_history_dead_finished ON job_history_dead (finished_at);

ALTER TABLE job_history ENABLE ROW LEVEL SECURITY;
ALTER TABLE job_history FORCE ROW LEVEL SECURITY;
CREATE POLICY job_history_namespace ON job_history USING (reparto_namespace_visible(namespace));

-- The day partition for jobs in `state` that finished on `day` (UTC), created when first needed:
-- `job_history_done_YYYYMMDD` (succeeded and cancelled) or `job_history_dead_YYYYMMDD`.
CREATE FUNCTION reparto_history_partition(day date, state text) RETURNS text
    LANGUAGE plpgsql AS $$
DECLARE
    parent text := CASE WHEN state = 'dead' THEN 'job_history_dead' ELSE 'job_history_done' END;
    name text := parent || '_' || to_char(day, 'YYYYMMDD');
BEGIN
    IF to_regclass(name) IS NULL THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', name, parent,
                       (day::timestamp AT TIME ZONE 'UTC'), ((day + 1)::timestamp AT TIME ZONE 'UTC'));
    END IF;
    RETURN name;
END
$$;

-- Every job, wherever it is now: lookups by id or production that may reach finished work.
CREATE VIEW all_jobs AS
    SELECT * FROM jobs
    UNION ALL
    SELECT * FROM job_history;

-- A production whose jobs were archived keeps their counts here, so its progress needs no scan
-- of history (a retry that brings jobs back takes them off again).
ALTER TABLE productions
    ADD COLUMN archived_total integer NOT NULL DEFAULT 0,
    ADD COLUMN archived_succeeded integer NOT NULL DEFAULT 0,
    ADD COLUMN archived_dead integer NOT NULL DEFAULT 0,
    ADD COLUMN archived_cancelled integer NOT NULL DEFAULT 0;

-- Rollups. A statement that moves jobs into or out of a final state (or into `failed`) appends
-- one row per group to `job_stats_delta`, in the same transaction: no extra round trip, and no
-- row that concurrent transactions would both update. The coordinator folds the deltas into
-- `job_minutes` (per minute, the last two hours) and `job_days` (per day, as long as history).
-- Readers add the deltas not folded yet. `bucket` is the run time's bucket for a succeeded job
-- (reparto_latency_bucket), -1 otherwise.
CREATE TABLE job_stats_delta (
    namespace   text NOT NULL,
    minute      timestamptz NOT NULL,
    queue       text NOT NULL,
    kind        text NOT NULL,
    state       text NOT NULL,
    bucket      smallint NOT NULL,
    n           bigint NOT NULL
);

CREATE TABLE job_minutes (
    namespace   text NOT NULL,
    minute      timestamptz NOT NULL,
    queue       text NOT NULL,
    kind        text NOT NULL,
    state       text NOT NULL,
    bucket      smallint NOT NULL,
    n           bigint NOT NULL,
    PRIMARY KEY (namespace, minute, queue, kind, state, bucket)
);
CREATE INDEX job_minutes_minute ON job_minutes (minute);

CREATE TABLE job_days (
    namespace   text NOT NULL,
    day         date NOT NULL,
    queue       text NOT NULL,
    kind        text NOT NULL,
    state       text NOT NULL,
    n           bigint NOT NULL,
    PRIMARY KEY (namespace, day, queue, kind, state)
);

ALTER TABLE job_stats_delta ENABLE ROW LEVEL SECURITY;
ALTER TABLE job_stats_delta FORCE ROW LEVEL SECURITY;
CREATE POLICY job_stats_delta_namespace ON job_stats_delta USING (reparto_namespace_visible(namespace));
ALTER TABLE job_minutes ENABLE ROW LEVEL SECURITY;
ALTER TABLE job_minutes FORCE ROW LEVEL SECURITY;
CREATE POLICY job_minutes_namespace ON job_minutes USING (reparto_namespace_visible(namespace));
ALTER TABLE job_days ENABLE ROW LEVEL SECURITY;
ALTER TABLE job_days FORCE ROW LEVEL SECURITY;
CREATE POLICY job_days_namespace ON job_days USING (reparto_namespace_visible(namespace));

-- Run time in milliseconds on a log scale, four buckets per doubling (each about 19 % wide):
-- bucket b holds [2^(b/4) - 1, 2^((b+1)/4) - 1) ms, up to 95 (about 4.6 hours and beyond).
CREATE FUNCTION reparto_latency_bucket(state text, started_at timestamptz, finished_at timestamptz) RETURNS smallint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN state = 'succeeded' AND started_at IS NOT NULL AND finished_at IS NOT NULL
                THEN least(95, floor(4 * log(2::numeric, (greatest(extract(epoch FROM finished_at - started_at) * 1000, 0) + 1)::numeric)))::smallint
                ELSE -1::smallint END
$$;

-- The middle of a bucket, in milliseconds.
CREATE FUNCTION reparto_latency_bucket_ms(bucket smallint) RETURNS numeric
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT round((power(2::numeric, (bucket + 0.5) / 4) - 1), 2)
$$;

CREATE FUNCTION reparto_job_stats() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
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

CREATE TRIGGER jobs_stats AFTER UPDATE ON jobs
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION reparto_job_stats();

-- Existing history counts from the start: what the jobs table holds now.
INSERT INTO job_days (namespace, day, queue, kind, state, n)
SELECT namespace, (finished_at AT TIME ZONE 'UTC')::date, queue, kind, state, count(*)
FROM jobs WHERE state IN ('succeeded', 'dead', 'cancelled') AND finished_at IS NOT NULL
GROUP BY 1, 2, 3, 4, 5;
INSERT INTO job_minutes (namespace, minute, queue, kind, state, bucket, n)
SELECT namespace, date_trunc('minute', finished_at), queue, kind, state, reparto_latency_bucket(state, started_at, finished_at), count(*)
FROM jobs WHERE state IN ('succeeded', 'dead', 'cancelled', 'failed') AND finished_at > now() - interval '2 hours'
GROUP BY 1, 2, 3, 4, 5, 6;

-- The counted rows, folded and not yet folded.
CREATE VIEW job_minutes_all AS
    SELECT namespace, minute, queue, kind, state, bucket, n FROM job_minutes
    UNION ALL
    SELECT namespace, minute, queue, kind, state, bucket, n FROM job_stats_delta;

CREATE VIEW job_days_all AS
    SELECT namespace, day, queue, kind, state, n FROM job_days
    UNION ALL
    SELECT namespace, (minute AT TIME ZONE 'UTC')::date, queue, kind, state, n FROM job_stats_delta;

-- The ops views, over the rollups and the (small) jobs table. Same columns as before.
CREATE OR REPLACE VIEW ops.queue_overview AS
WITH active AS (
    SELECT kind,
           count(*) FILTER (WHERE state = 'queued')  AS queued,
           count(*) FILTER (WHERE state = 'running') AS running,
           count(*) FILTER (WHERE state = 'failed')  AS failed,
           min(created_at) FILTER (WHERE state = 'queued') AS oldest_queued_at
    FROM jobs WHERE state IN ('queued', 'running', 'failed')
    GROUP BY kind
), totals AS (
    SELECT kind,
           sum(n) FILTER (WHERE state = 'succeeded') AS succeeded,
           sum(n) FILTER (WHERE state = 'dead')      AS dead,
           sum(n) FILTER (WHERE state = 'cancelled') AS cancelled
    FROM job_days_all WHERE state IN ('succeeded', 'dead', 'cancelled')
    GROUP BY kind
), latency AS (
    SELECT kind, bucket, sum(n) AS n
    FROM job_minutes_all
    WHERE state = 'succeeded' AND bucket >= 0 AND minute > now() - interval '1 hour'
    GROUP BY kind, bucket
    HAVING sum(n) > 0
), cumulative AS (
    SELECT kind, bucket, sum(n) OVER (PARTITION BY kind ORDER BY bucket) AS below, sum(n) OVER (PARTITION BY kind) AS total
    FROM latency
), percentiles AS (
    SELECT kind,
           reparto_latency_bucket_ms(min(bucket) FILTER (WHERE below >= 0.5 * total)) AS p50_ms,
           reparto_latency_bucket_ms(min(bucket) FILTER (WHERE below >= 0.95 * total)) AS p95_ms
    FROM cumulative GROUP BY kind
), kinds AS (
    SELECT kind FROM active UNION SELECT kind FROM totals
)
SELECT k.kind,
       coalesce(a.queued, 0)             AS queued,
       coalesce(a.running, 0)            AS running,
       coalesce(t.succeeded, 0)::bigint  AS succeeded,
       coalesce(a.failed, 0)             AS failed,
       coalesce(t.dead, 0)::bigint       AS dead,
       coalesce(t.cancelled, 0)::bigint  AS cancelled,
       p.p50_ms,
       p.p95_ms,
       a.oldest_queued_at
FROM kinds k
LEFT JOIN active a ON a.kind = k.kind
LEFT JOIN totals t ON t.kind = k.kind
LEFT JOIN percentiles p ON p.kind = k.kind
WHERE coalesce(a.queued, 0) + coalesce(a.running, 0) + coalesce(a.failed, 0)
      + coalesce(t.succeeded, 0) + coalesce(t.dead, 0) + coalesce(t.cancelled, 0) > 0;

CREATE OR REPLACE VIEW ops.production_progress AS
WITH counts AS (
    SELECT production_id,
           count(*)                                               AS total,
           count(*) FILTER (WHERE state IN ('queued', 'failed'))  AS queued,
           count(*) FILTER (WHERE state = 'running')              AS running,
           count(*) FILTER (WHERE state = 'succeeded')            AS succeeded,
           count(*) FILTER (WHERE state = 'dead')                 AS failed,
           count(*) FILTER (WHERE state = 'cancelled')            AS cancelled,
           max(finished_at)                                       AS last_finished_at
    FROM jobs
    WHERE production_id IS NOT NULL
    GROUP BY production_id
), merged AS (
    SELECT p.*,
           coalesce(c.total, 0) + p.archived_total                 AS m_total,
           coalesce(c.queued, 0)                                  AS m_queued,
           coalesce(c.running, 0)                                 AS m_running,
           coalesce(c.succeeded, 0) + p.archived_succeeded        AS m_succeeded,
           coalesce(c.failed, 0) + p.archived_dead                AS m_failed,
           coalesce(c.cancelled, 0) + p.archived_cancelled        AS m_cancelled
    FROM productions p
    LEFT JOIN counts c ON c.production_id = p.id
)
SELECT m.id, m.name, m.plan, m.stage, m.state,
       m.m_total::bigint     AS total,
       m.m_queued::bigint    AS queued,
       m.m_running::bigint   AS running,
       m.m_succeeded::bigint AS succeeded,
       m.m_failed::bigint    AS failed,
       m.m_cancelled::bigint AS cancelled,
       (m.m_succeeded + m.m_failed + m.m_cancelled)::bigint AS done,
       CASE WHEN m.m_total = 0 THEN 0
            ELSE round(100.0 * (m.m_succeeded + m.m_failed + m.m_cancelled) / m.m_total, 1) END AS percent,
       m.created_at AS started_at,
       m.finished_at,
       CASE WHEN m.state <> 'running' OR (m.m_succeeded + m.m_failed + m.m_cancelled) = 0 THEN NULL
            ELSE now() + (now() - m.created_at) * (m.m_total - (m.m_succeeded + m.m_failed + m.m_cancelled))
                         / (m.m_succeeded + m.m_failed + m.m_cancelled) END AS eta
FROM merged m;

-- The last day's failures, newest first; readers page it (no cap of 100 any more).
CREATE OR REPLACE VIEW ops.recent_failures AS
SELECT * FROM (
    SELECT id, kind, production_id, state, attempts, max_attempts, last_error, finished_at, worker_id
    FROM jobs
    WHERE state IN ('failed', 'dead') AND finished_at > now() - interval '1 day'
    UNION ALL
    SELECT id, kind, production_id, state, attempts, max_attempts, last_error, finished_at, worker_id
    FROM job_history_dead
    WHERE finished_at > now() - interval '1 day' AND reparto_namespace_visible(namespace)
) AS failures
ORDER BY finished_at DESC;

CREATE OR REPLACE VIEW ops.throughput AS
SELECT minute, kind,
       coalesce(sum(n) FILTER (WHERE state = 'succeeded'), 0)::bigint AS succeeded,
       coalesce(sum(n) FILTER (WHERE state IN ('failed', 'dead')), 0)::bigint AS failed
FROM job_minutes_all
WHERE minute > now() - interval '1 hour' AND state IN ('succeeded', 'failed', 'dead')
GROUP BY 1, 2
HAVING sum(n) <> 0
ORDER BY 1, 2;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reparto_dashboard') THEN
        GRANT SELECT ON ALL TABLES IN SCHEMA ops TO reparto_dashboard;
    END IF;
END
$$;
