-- `jobs` no longer keeps an index of a production's jobs in every state. `jobs_production_stage`
-- took an entry for every row version of every production's job, three a job (its enqueue, its
-- claim, its completion), while the partial indexes of a production's active jobs
-- (`jobs_active_stage`) and of its final ones (`jobs_production_final`, `jobs_production_ended`)
-- already hold every job between them: a job's state is one of the six the CHECK allows. Without
-- it, a job's row versions make 8 index entries instead of 11. Five interleaved runs at 1,400
-- jobs/s: PostgreSQL's CPU 330–344 µs a job without it, 356–426 with it.
--
-- What read a production's jobs in any state now says so in a way the planner can read through
-- those indexes: `state IN (active) OR state IN (final)`, always true, beside `production_id = $1`
-- (JobLifecycle.sqlAnyState); the progress view below does the same. Retention's look for a
-- production's jobs left to run looks for each class apart.
DROP INDEX jobs_production_stage;

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
      AND (state IN ('queued', 'running', 'failed') OR state IN ('succeeded', 'dead', 'cancelled'))
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
