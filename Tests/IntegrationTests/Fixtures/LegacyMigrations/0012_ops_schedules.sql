-- The schedules as `reparto status` and dashboards read them (ops.*, granted to the read-only
-- reparto_dashboard role like the other views).
CREATE VIEW ops.schedules AS
SELECT s.name,
       coalesce(s.cron || ' (' || s.timezone || ')', 'every ' || s.every_seconds || ' s') AS cadence,
       s.kind,
       CASE WHEN s.paused THEN 'paused' ELSE 'active' END AS state,
       s.next_run_at, s.last_run_at, s.last_job_id, s.missed_ticks
FROM schedules s;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reparto_dashboard') THEN
        GRANT SELECT ON ops.schedules TO reparto_dashboard;
    END IF;
END
$$;
