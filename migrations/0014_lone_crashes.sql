-- Crash containment, refined (docs/architecture.md, "Crash containment"). A job whose worker died
-- while it ran beside other jobs may not be the cause: it becomes a suspect (`crashes` > 0) and
-- runs alone from then on, and only deaths while it ran alone count towards its kind's crash
-- limit. `lone_crashes`: of the crashes in a row, those where it was the worker's only job.
ALTER TABLE jobs ADD COLUMN lone_crashes smallint NOT NULL DEFAULT 0;
-- History has the columns of `jobs` in the same order (rows move both ways with `SELECT *`).
ALTER TABLE job_history ADD COLUMN lone_crashes smallint NOT NULL DEFAULT 0;
CREATE OR REPLACE VIEW all_jobs AS
    SELECT * FROM jobs
    UNION ALL
    SELECT * FROM job_history;
