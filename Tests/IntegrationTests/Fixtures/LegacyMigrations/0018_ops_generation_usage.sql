-- The usage ledger on the dashboard (issue #13): the last 24 hours of generation_usage per
-- provider, model and capability. A view, so the read-only dashboard role reads it and not the table.
CREATE VIEW ops.generation_usage AS
SELECT provider, model, capability,
       count(*) FILTER (WHERE NOT reused) AS calls, count(*) FILTER (WHERE reused) AS reused,
       sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens,
       sum(characters)::bigint AS characters, sum(images)::bigint AS images,
       sum(audio_seconds)::float8 AS audio_seconds, max(created_at) AS last_used_at
FROM generation_usage
WHERE created_at >= now() - interval '24 hours'
GROUP BY provider, model, capability;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reparto_dashboard') THEN
        GRANT SELECT ON ops.generation_usage TO reparto_dashboard;
    END IF;
END
$$;
