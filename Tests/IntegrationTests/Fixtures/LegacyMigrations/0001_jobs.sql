-- The job runtime: productions (batches), jobs (with the transactional outbox in them) and workers.

CREATE TABLE productions (
    id                  uuid PRIMARY KEY,
    name                text NOT NULL DEFAULT '',
    -- Which ProductionPlan drives the stages ('batch' is a single stage).
    plan                text NOT NULL DEFAULT 'batch',
    stage               text NOT NULL DEFAULT 'main',
    state               text NOT NULL DEFAULT 'running'
                        CHECK (state IN ('running', 'completed', 'completed_with_failures', 'cancelled')),
    params              jsonb NOT NULL DEFAULT '{}',
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    finished_at         timestamptz
);

CREATE TABLE jobs (
    id                  uuid PRIMARY KEY,
    kind                text NOT NULL,
    queue               text NOT NULL,
    params              jsonb NOT NULL DEFAULT '{}',
    priority            smallint NOT NULL DEFAULT 4 CHECK (priority BETWEEN 0 AND 9),
    -- queued: waiting for a worker; running: claimed by worker_id; failed: an attempt failed and a
    -- retry is scheduled at run_after; succeeded, dead (out of attempts or not retryable) and
    -- cancelled are final.
    state               text NOT NULL DEFAULT 'queued'
                        CHECK (state IN ('queued', 'running', 'failed', 'succeeded', 'dead', 'cancelled')),
    attempts            integer NOT NULL DEFAULT 0,
    max_attempts        integer NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
    timeout_ms          integer,
    idempotency_key     text,
    production_id       uuid REFERENCES productions (id) ON DELETE CASCADE,
    stage               text,
    created_at          timestamptz NOT NULL DEFAULT now(),
    -- Not published before this instant (retry backoff, scheduled jobs).
    run_after           timestamptz NOT NULL DEFAULT now(),
    started_at          timestamptz,
    finished_at         timestamptz,
    worker_id           text,
    cancel_requested    boolean NOT NULL DEFAULT false,
    -- The transactional outbox: true until a relay has published the job's message and the
    -- broker confirmed it.
    publish_pending     boolean NOT NULL DEFAULT true,
    result              jsonb,
    last_error          text
);

CREATE UNIQUE INDEX jobs_idempotency_key ON jobs (idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX jobs_outbox ON jobs (run_after) WHERE publish_pending;
CREATE INDEX jobs_production_stage ON jobs (production_id, stage) WHERE production_id IS NOT NULL;
CREATE INDEX jobs_running_worker ON jobs (worker_id) WHERE state = 'running';
CREATE INDEX jobs_finished_at ON jobs (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX jobs_failures ON jobs (finished_at DESC) WHERE state IN ('failed', 'dead');

CREATE TABLE workers (
    id                      text PRIMARY KEY,
    host                    text NOT NULL,
    pid                     integer NOT NULL,
    queues                  text[] NOT NULL,
    concurrency             integer NOT NULL,
    heartbeat_interval_ms   integer NOT NULL,
    started_at              timestamptz NOT NULL DEFAULT now(),
    heartbeat_at            timestamptz NOT NULL DEFAULT now(),
    stopped_at              timestamptz,
    jobs_succeeded          bigint NOT NULL DEFAULT 0,
    jobs_failed             bigint NOT NULL DEFAULT 0,
    in_flight               integer NOT NULL DEFAULT 0
);

-- A worker is alive while it heartbeats: stale after three missed intervals, or once stopped.
CREATE FUNCTION reparto_worker_alive(w workers) RETURNS boolean
    LANGUAGE sql STABLE AS $$
    SELECT w.stopped_at IS NULL AND w.heartbeat_at > now() - make_interval(secs => 3 * w.heartbeat_interval_ms / 1000.0)
$$;
