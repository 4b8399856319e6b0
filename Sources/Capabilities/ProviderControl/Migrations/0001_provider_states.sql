-- Every provider's recorded state in one place, whatever it does: the speech providers'
-- switches (voice_providers, line `speech`) and the generation providers' (generation_providers,
-- line `generation`), one row per table that knows the id. `reparto providers` reads this view;
-- switching a provider writes both tables, so an id both know (openai) has one switch.
CREATE VIEW provider_states AS
SELECT id, display_name, ARRAY['speech']::text[] AS capabilities, '{}'::jsonb AS models,
       enabled, configured, updated_at
FROM voice_providers
UNION ALL
SELECT id, display_name, capabilities, models, enabled, configured, updated_at
FROM generation_providers;
