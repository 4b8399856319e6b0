-- Work cannot kill the workers (docs/architecture.md, "Crash containment" and "Namespaces").

-- Crash containment. `crashes`: this job's attempts in a row that ended with their worker gone
-- (rescued from a worker that stopped heartbeating); reset by any attempt that ends otherwise.
-- At the kind's crash limit the rescue makes the job dead instead of running it again.
ALTER TABLE jobs ADD COLUMN crashes smallint NOT NULL DEFAULT 0;

-- What the coordinator needs to know of a kind but only workers know (its registration): each
-- worker records its kinds when it starts. A kind no worker recorded has the default limit, 2.
CREATE TABLE job_kinds (
    kind            text PRIMARY KEY,
    crash_limit     smallint NOT NULL CHECK (crash_limit >= 1),
    updated_at      timestamptz NOT NULL DEFAULT now()
);

-- Namespaces. Every connection of a process carries its namespace as the session setting
-- `reparto.namespace` (set at connect from REPARTO_NAMESPACE; unset means the default, ''), new
-- rows take it by default, and row-level security shows a session only its own namespace's jobs,
-- productions and schedules: the relay, coordinator, status, cancel, retry, prune, results and the
-- ops views all see one namespace without naming it in their SQL.
CREATE FUNCTION reparto_namespace() RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE AS $$ SELECT coalesce(current_setting('reparto.namespace', true), '') $$;

-- Whether a row of `namespace` is visible to this session: its own namespace's, or every one for
-- housekeeping that serves all namespaces (the asset sweep: a file on a shared volume is kept while
-- any namespace's production names it), which sets `reparto.all_namespaces` for its transaction.
CREATE FUNCTION reparto_namespace_visible(namespace text) RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT namespace = coalesce(current_setting('reparto.namespace', true), '')
        OR coalesce(current_setting('reparto.all_namespaces', true), '') = 'on'
$$;

-- Existing rows belong to the default namespace whatever this migration's session says.
ALTER TABLE productions ADD COLUMN namespace text NOT NULL DEFAULT '';
ALTER TABLE productions ALTER COLUMN namespace SET DEFAULT reparto_namespace();
ALTER TABLE jobs ADD COLUMN namespace text NOT NULL DEFAULT '';
ALTER TABLE jobs ALTER COLUMN namespace SET DEFAULT reparto_namespace();
ALTER TABLE schedules ADD COLUMN namespace text NOT NULL DEFAULT '';
ALTER TABLE schedules ALTER COLUMN namespace SET DEFAULT reparto_namespace();
ALTER TABLE schedules DROP CONSTRAINT schedules_pkey;
ALTER TABLE schedules ADD PRIMARY KEY (namespace, name);

-- An idempotency key is unique within its namespace (another namespace's job is invisible here).
DROP INDEX jobs_idempotency_key;
CREATE UNIQUE INDEX jobs_idempotency_key ON jobs (namespace, idempotency_key) WHERE idempotency_key IS NOT NULL;

ALTER TABLE productions ENABLE ROW LEVEL SECURITY;
ALTER TABLE productions FORCE ROW LEVEL SECURITY;
CREATE POLICY productions_namespace ON productions USING (reparto_namespace_visible(namespace));
ALTER TABLE jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobs FORCE ROW LEVEL SECURITY;
CREATE POLICY jobs_namespace ON jobs USING (reparto_namespace_visible(namespace));
ALTER TABLE schedules ENABLE ROW LEVEL SECURITY;
ALTER TABLE schedules FORCE ROW LEVEL SECURITY;
CREATE POLICY schedules_namespace ON schedules USING (reparto_namespace_visible(namespace));

-- PostgreSQL is the truth, the broker a transport: the relay leader compares, per queue, the
-- published jobs waiting in the database with the messages the broker holds and publishes the
-- difference again (a purged or deleted queue, a lost node). This is what it counts.
CREATE INDEX jobs_waiting_published ON jobs (queue, run_after)
    WHERE state IN ('queued', 'failed') AND NOT publish_pending;

-- A production the coordinator cannot advance (no plan registered under its name, parameters that
-- no longer decode, a stage transition that keeps failing) is finished with this reason instead
-- of being retried at the head of every pass.
ALTER TABLE productions ADD COLUMN finish_reason text;

-- The longest a provider's "retry after" may block a limit, per limit (`reparto limit set
-- --max-block 2h`); NULL: an hour. A block past it is cut to it when it is written.
ALTER TABLE limits ADD COLUMN max_block_s float8 CHECK (max_block_s IS NULL OR max_block_s >= 1);
