-- Vision (images in, a structured answer out) is a capability of the provider layer: its calls go
-- in the usage ledger as 'vision'. 0002 declared the check on the column, so PostgreSQL named it
-- generation_usage_capability_check (table_column_check); it is replaced under the same name.
ALTER TABLE generation_usage DROP CONSTRAINT IF EXISTS generation_usage_capability_check;
ALTER TABLE generation_usage ADD CONSTRAINT generation_usage_capability_check
    CHECK (capability IN ('speech', 'text', 'embedding', 'image', 'vision'));
