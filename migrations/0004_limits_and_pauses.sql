-- Runtime controls: cluster-wide limits (rate, concurrency, cost budget) and paused queues/kinds.
--
-- A limit is one row; every worker that claims a job under it locks the row (FOR UPDATE), so
-- admission is serialized per limit across the whole cluster. The rate and the budget are token
-- buckets refilled lazily from `refilled_at`; a job that finds the bucket empty reserves a future
-- token (the level goes negative) and is deferred until that instant, so waiting jobs come back
-- spaced 1/rate apart instead of all at once; `paced_until` is a second bucket that counts only the
-- jobs that actually start, so late returners cannot start together. Concurrency has no counter to leak: it is the number
-- of the limit's jobs running on a live worker (heartbeat), so a killed worker's slots come back
-- when it goes stale.
CREATE TABLE limits (
    name                text PRIMARY KEY,
    -- Tokens per second and bucket size (both or neither).
    rate                float8 CHECK (rate > 0),
    burst               float8 CHECK (burst >= 1),
    concurrency         integer CHECK (concurrency >= 1),
    -- Cost units (e.g. LLM tokens) per window, refilled continuously.
    budget              float8 CHECK (budget > 0),
    budget_window_s     float8 CHECK (budget_window_s > 0),
    tokens              float8 NOT NULL DEFAULT 0,
    budget_left         float8 NOT NULL DEFAULT 0,
    refilled_at         timestamptz NOT NULL DEFAULT now(),
    -- Learned from a provider's Retry-After: nothing under this limit starts before it.
    blocked_until       timestamptz,
    -- When the starts bucket is full again (NULL: full); each start adds 1/rate.
    paced_until         timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    CHECK ((rate IS NULL) = (burst IS NULL)),
    CHECK ((budget IS NULL) = (budget_window_s IS NULL)),
    CHECK (rate IS NOT NULL OR concurrency IS NOT NULL OR budget IS NOT NULL)
);

ALTER TABLE jobs
    -- The limit the job runs under (the producer's choice, else its kind's default, set at claim).
    ADD COLUMN limit_key text,
    -- Its estimated cost against the limit's budget (1 when unset).
    ADD COLUMN cost float8 CHECK (cost >= 0),
    -- The job holds a reserved rate token and waits for its instant (run_after is not moved earlier).
    ADD COLUMN limit_reserved boolean NOT NULL DEFAULT false,
    -- Times the job was put off: by its limit, a pause, or its handler's "retry at".
    ADD COLUMN deferrals integer NOT NULL DEFAULT 0,
    -- Times its handler asked to retry at a later instant (a provider's 429).
    ADD COLUMN rate_limited integer NOT NULL DEFAULT 0;

-- Concurrency in use: the limit's running jobs.
CREATE INDEX jobs_limit_running ON jobs (limit_key) WHERE state = 'running' AND limit_key IS NOT NULL;
-- Jobs waiting for a concurrency slot, woken when one frees.
CREATE INDEX jobs_limit_waiting ON jobs (limit_key, run_after) WHERE publish_pending AND limit_key IS NOT NULL;

-- Paused queues and kinds: their jobs stay queued (parked in the outbox at run_after = infinity)
-- and none starts until resumed; running jobs finish.
CREATE TABLE pauses (
    scope               text NOT NULL CHECK (scope IN ('queue', 'kind')),
    name                text NOT NULL,
    paused_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, name)
);

-- What `reparto status` and the dashboard show of them (views run as their owner, so the
-- read-only dashboard role needs only these).
CREATE VIEW ops.limits AS
SELECT l.name, l.rate, l.burst, l.concurrency, l.budget, l.budget_window_s,
       (SELECT count(*) FROM jobs j JOIN workers w ON w.id = j.worker_id
        WHERE j.limit_key = l.name AND j.state = 'running' AND reparto_worker_alive(w)) AS running,
       (SELECT count(*) FROM jobs j
        WHERE j.limit_key = l.name AND j.publish_pending AND j.state IN ('queued', 'failed') AND j.run_after > now()) AS waiting,
       CASE WHEN l.rate IS NULL THEN NULL
            ELSE least(l.burst, l.tokens + greatest(0, extract(epoch FROM now() - l.refilled_at)) * l.rate) END AS tokens,
       CASE WHEN l.blocked_until > now() THEN l.blocked_until END AS blocked_until
FROM limits l;

CREATE VIEW ops.pauses AS
SELECT p.scope, p.name, p.paused_at,
       (SELECT count(*) FROM jobs j
        WHERE j.publish_pending AND j.run_after = 'infinity'
          AND CASE p.scope WHEN 'kind' THEN j.kind ELSE j.queue END = p.name) AS parked
FROM pauses p;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reparto_dashboard') THEN
        GRANT SELECT ON ops.limits, ops.pauses TO reparto_dashboard;
    END IF;
END
$$;
