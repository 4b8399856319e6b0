-- Speech: the voice providers a deployment offers, a read-through cache of their voice listings,
-- the cast of each production or document, and every piece of generated content (the `generate`
-- job writes one row per synthesized line). See docs/speech.md.

CREATE TABLE voice_providers (
    id           text PRIMARY KEY,
    display_name text NOT NULL,
    enabled      boolean NOT NULL DEFAULT true,
    configured   boolean NOT NULL DEFAULT false,
    updated_at   timestamptz NOT NULL DEFAULT now()
);

-- One provider's voices for one language ('' = all languages), valid until expires_at.
CREATE TABLE voice_cache (
    provider   text NOT NULL,
    language   text NOT NULL DEFAULT '',
    voices     jsonb NOT NULL,
    fetched_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (provider, language)
);
