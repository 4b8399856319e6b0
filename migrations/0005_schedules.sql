-- Schedules: jobs enqueued on a cadence (`reparto schedule add`), fired by the coordinator leader.
-- A cadence is a cron expression read in a time zone, or an interval in seconds. next_run_at is
-- the next tick; the leader locks due rows (FOR UPDATE SKIP LOCKED), inserts each one's job with
-- the idempotency key 'schedule:<name>:<tick>', and moves next_run_at to the first tick after
-- now, in one transaction: a tick is enqueued at most once. See docs/architecture.md, "Schedules".

CREATE TABLE schedules (
    name            text PRIMARY KEY CHECK (name <> ''),
    -- Exactly one of cron (five fields or a nickname) and every_seconds.
    cron            text,
    every_seconds   integer CHECK (every_seconds >= 1),
    -- An IANA time zone name; the cron expression's wall-clock times are read in it.
    timezone        text NOT NULL DEFAULT 'UTC',
    -- The job each tick enqueues.
    kind            text NOT NULL,
    queue           text NOT NULL,
    params          jsonb NOT NULL DEFAULT '{}',
    priority        smallint NOT NULL DEFAULT 4 CHECK (priority BETWEEN 0 AND 9),
    max_attempts    integer NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
    timeout_ms      integer,
    -- A paused schedule keeps its definition and fires nothing; resuming recomputes next_run_at
    -- from the time of the resume (no burst of the ticks it slept through).
    paused          boolean NOT NULL DEFAULT false,
    -- NULL only for a cron expression with no future time.
    next_run_at     timestamptz,
    last_run_at     timestamptz,
    -- No foreign key: jobs may be deleted (retention) while the schedule lives on.
    last_job_id     uuid,
    -- Ticks skipped because they were due while no coordinator led (each outage runs once).
    missed_ticks    bigint NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CHECK ((cron IS NULL) <> (every_seconds IS NULL))
);

CREATE INDEX schedules_due ON schedules (next_run_at) WHERE NOT paused;
