-- Operations dashboard queries: read-only views for `reparto status`, dashboards and the
-- `reparto_dashboard` role, which may read these views and nothing else.

CREATE SCHEMA ops;

CREATE VIEW ops.queue_overview AS
SELECT kind,
       count(*) FILTER (WHERE state = 'queued')     AS queued,
       count(*) FILTER (WHERE state = 'running')    AS running,
       count(*) FILTER (WHERE state = 'succeeded')  AS succeeded,
       count(*) FILTER (WHERE state = 'failed')     AS failed,
       count(*) FILTER (WHERE state = 'dead')       AS dead,
       count(*) FILTER (WHERE state = 'cancelled')  AS cancelled,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at) * 1000)
              FILTER (WHERE state = 'succeeded' AND finished_at > now() - interval '1 hour'))::numeric, 2) AS p50_ms,
       round((percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at) * 1000)
              FILTER (WHERE state = 'succeeded' AND finished_at > now() - interval '1 hour'))::numeric, 2) AS p95_ms,
       min(created_at) FILTER (WHERE state = 'queued') AS oldest_queued_at
FROM jobs
GROUP BY kind;

CREATE VIEW ops.production_progress AS
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
)
SELECT p.id, p.name, p.plan, p.stage, p.state,
       coalesce(c.total, 0)     AS total,
       coalesce(c.queued, 0)    AS queued,
       coalesce(c.running, 0)   AS running,
       coalesce(c.succeeded, 0) AS succeeded,
       coalesce(c.failed, 0)    AS failed,
       coalesce(c.cancelled, 0) AS cancelled,
       coalesce(c.succeeded + c.failed + c.cancelled, 0) AS done,
       CASE WHEN coalesce(c.total, 0) = 0 THEN 0
            ELSE round(100.0 * (c.succeeded + c.failed + c.cancelled) / c.total, 1) END AS percent,
       p.created_at AS started_at,
       p.finished_at,
       CASE WHEN p.state <> 'running' OR coalesce(c.succeeded + c.failed + c.cancelled, 0) = 0 THEN NULL
            ELSE now() + (now() - p.created_at) * (c.total - (c.succeeded + c.failed + c.cancelled))
                         / (c.succeeded + c.failed + c.cancelled) END AS eta
FROM productions p
LEFT JOIN counts c ON c.production_id = p.id;

CREATE VIEW ops.workers AS
SELECT w.id, w.host, w.pid, w.queues, w.concurrency,
       CASE WHEN w.stopped_at IS NOT NULL THEN 'stopped'
            WHEN reparto_worker_alive(w) THEN 'alive'
            ELSE 'stale' END AS status,
       w.started_at, w.heartbeat_at, w.jobs_succeeded, w.jobs_failed, w.in_flight
FROM workers w;

CREATE VIEW ops.recent_failures AS
SELECT id, kind, production_id, state, attempts, max_attempts, last_error, finished_at, worker_id
FROM jobs
WHERE state IN ('failed', 'dead') AND finished_at > now() - interval '1 day'
ORDER BY finished_at DESC
LIMIT 100;

CREATE VIEW ops.throughput AS
SELECT date_trunc('minute', finished_at) AS minute, kind,
       count(*) FILTER (WHERE state = 'succeeded') AS succeeded,
       count(*) FILTER (WHERE state IN ('failed', 'dead')) AS failed
FROM jobs
WHERE finished_at > now() - interval '1 hour'
GROUP BY 1, 2
ORDER BY 1, 2;

-- The read-only role. Creating roles needs CREATEROLE; where the migrating user lacks it, an
-- operator creates the role and this migration only grants.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reparto_dashboard') THEN
        BEGIN
            CREATE ROLE reparto_dashboard NOLOGIN;
        EXCEPTION
            -- Roles are cluster-wide: a migration of another database may create it concurrently.
            WHEN duplicate_object OR unique_violation THEN
                NULL;
            WHEN insufficient_privilege THEN
                RAISE NOTICE 'cannot create role reparto_dashboard; create it and re-grant';
        END;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reparto_dashboard') THEN
        GRANT USAGE ON SCHEMA ops TO reparto_dashboard;
        GRANT SELECT ON ALL TABLES IN SCHEMA ops TO reparto_dashboard;
    END IF;
END
$$;
