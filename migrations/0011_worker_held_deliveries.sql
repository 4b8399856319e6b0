-- What a worker holds of each broker queue: deliveries it received but has not claimed yet (its
-- handler slots are busy), keyed by routing key (the queue name without `reparto.q.`, namespace
-- included). The broker counts them neither as ready nor as lost; the leading relay adds them to
-- the ready messages before it takes published jobs for lost (docs/architecture.md, "The broker
-- as a transport"). Reported with each heartbeat.
ALTER TABLE workers ADD COLUMN held jsonb NOT NULL DEFAULT '{}'::jsonb;
