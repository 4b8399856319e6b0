-- Generation beyond speech (issue #13): text, embeddings and images as generated_content rows,
-- the providers that make them, and a usage ledger.

-- Which provider and model made a row; embeddings as float4 arrays with their model and length
-- (exact cosine search in SQL; pgvector is the path at scale, not in Debian 12's packages).
ALTER TABLE generated_content
    ADD COLUMN provider             text,
    ADD COLUMN model                text,
    ADD COLUMN embedding            float4[],
    ADD COLUMN embedding_model      text,
    ADD COLUMN embedding_dimensions integer CHECK (embedding_dimensions IS NULL OR embedding_dimensions > 0);

-- A row holds inline text, a file, or an embedding (0004's unnamed check allowed only the first two).
DO $$
DECLARE
    name text;
BEGIN
    FOR name IN
        SELECT conname FROM pg_constraint
        WHERE conrelid = 'generated_content'::regclass AND contype = 'c'
          AND pg_get_constraintdef(oid) LIKE '%inline_text IS NOT NULL%file_path IS NOT NULL%'
    LOOP
        EXECUTE format('ALTER TABLE generated_content DROP CONSTRAINT %I', name);
    END LOOP;
END
$$;
ALTER TABLE generated_content ADD CONSTRAINT generated_content_has_content
    CHECK (inline_text IS NOT NULL OR file_path IS NOT NULL OR embedding IS NOT NULL);
ALTER TABLE generated_content ADD CONSTRAINT generated_content_embedding_shape
    CHECK (embedding IS NULL OR (embedding_model IS NOT NULL AND cardinality(embedding) = embedding_dimensions));

-- The generation providers a deployment offers (the speech providers stay in voice_providers):
-- workers record them, operators enable and disable them (`reparto providers`).
CREATE TABLE generation_providers (
    id           text PRIMARY KEY,
    display_name text NOT NULL,
    capabilities text[] NOT NULL,
    models       jsonb NOT NULL DEFAULT '{}',
    enabled      boolean NOT NULL DEFAULT true,
    configured   boolean NOT NULL DEFAULT false,
    updated_at   timestamptz NOT NULL DEFAULT now()
);

-- What each generation job used, per provider call that answered (a reuse records zeros and
-- reused = true): `reparto usage` sums it.
CREATE TABLE generation_usage (
    id            bigserial PRIMARY KEY,
    job_id        uuid NOT NULL,
    production_id uuid,
    provider      text NOT NULL,
    model         text NOT NULL,
    capability    text NOT NULL CHECK (capability IN ('speech', 'text', 'embedding', 'image')),
    input_tokens  bigint NOT NULL DEFAULT 0 CHECK (input_tokens >= 0),
    output_tokens bigint NOT NULL DEFAULT 0 CHECK (output_tokens >= 0),
    characters    bigint NOT NULL DEFAULT 0 CHECK (characters >= 0),
    images        integer NOT NULL DEFAULT 0 CHECK (images >= 0),
    audio_seconds double precision NOT NULL DEFAULT 0 CHECK (audio_seconds >= 0),
    reused        boolean NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX generation_usage_created ON generation_usage (created_at);
CREATE INDEX generation_usage_production ON generation_usage (production_id, created_at) WHERE production_id IS NOT NULL;

-- The script analysis production (`reparto analyze`): one row per analysis, one per scene with its
-- summary and the content key of its embedding (a generated_content row).
CREATE TABLE analyses (
    production_id       uuid PRIMARY KEY,
    source_name         text NOT NULL,
    text_providers      text[] NOT NULL,
    embedding_providers text[] NOT NULL,
    logline             text,
    synopsis            text,
    created_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE analysis_scenes (
    production_id    uuid NOT NULL REFERENCES analyses ON DELETE CASCADE,
    scene            integer NOT NULL CHECK (scene >= 0),
    heading          text NOT NULL,
    body             text NOT NULL,
    summary          text,
    summary_provider text,
    embedding_key    text,
    PRIMARY KEY (production_id, scene)
);

-- The analysis's characters: their lines (as sent to the provider) and the description written from them.
CREATE TABLE analysis_characters (
    production_id uuid NOT NULL REFERENCES analyses ON DELETE CASCADE,
    name          text NOT NULL,
    line_count    integer NOT NULL CHECK (line_count > 0),
    lines         text NOT NULL,
    description   text,
    PRIMARY KEY (production_id, name)
);
